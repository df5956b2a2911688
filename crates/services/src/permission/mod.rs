//! Permission: may this call go ahead? (spec §0.5)
//!
//! Rules `{permission, pattern, action}` are kept in order and the last one that matches wins
//! (`evaluate`); no match means "ask". The pure parts (wildcards, evaluation, reading the
//! config map, default rules, hidden tools) are plain functions. The [`Permission`] service
//! applies them to a call: a configured `deny` fails at once, `allow` passes, and `ask` waits as
//! a pending [`Request`] until a front-end replies (`once`, `always`, `reject`). A request may
//! keep a [`Fingerprint`] of what it showed, which the asker gets back with the approval to
//! check that the call and its files are still what was shown. Events go out on
//! the service's own channel ([`Permission::subscribe`]); whoever assembles the instance may
//! forward them to the Bus.

mod defaults;
mod error;
mod events;
mod fingerprint;
mod rules;
mod service;
mod wildcard;

#[cfg(test)]
mod tests_rules;
#[cfg(test)]
mod tests_service;
#[cfg(test)]
mod tests_shown;

pub use defaults::{
    SANDBOX_ESCAPE, build_agent_rules, default_rules, dir_glob, ensure_truncation_allow,
    hidden_tools,
};
pub use error::PermissionError;
pub use events::{AskRequest, Granted, PermissionEvent, Reply, Request, ToolRef};
pub use fingerprint::{Drift, Fingerprint, compare, files_hash, input_hash};
pub use rules::{
    Action, Rule, RuleConfigError, Ruleset, decide, evaluate, expand_home, from_config, merge,
};
pub use service::{EVENT_CAPACITY, Permission};
pub use wildcard::{to_regex, wildcard_match};
