//! Claude Code's tool hooks around every tool: `PreToolUse` runs before the tool (so before
//! any permission ask it makes) and may refuse the call, allow it without an ask, or force an
//! ask; `PostToolUse` runs after a call that answered and may add feedback or context to its
//! result. The hooks come from the [`Hooks`](strata_services::hooks::Hooks) service; each run
//! is reported through the call's hook sink so the loop records it as a session event.
//!
//! A hook's `allow` reaches the permission decision through the call context, where it sits
//! after `deny` rules and before the sandbox's `auto_allow` and any ask
//! ([`decide`](strata_services::permission::decide)).

mod binding;
mod layer;
mod notes;
mod service;

pub use binding::HookBinding;
pub use layer::HooksLayer;
pub use notes::{Combined, combine, with_notes};
pub use service::RunHooks;
