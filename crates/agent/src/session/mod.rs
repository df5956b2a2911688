//! Sessions and the agent loop.
//!
//! The loop is a composition of small parts, each testable alone:
//! - [`accumulate`]: the stream-to-parts accumulator (text parts, tool calls per call id, a
//!   call runnable only once its JSON is complete);
//! - [`step`]: one model request driven through the accumulator into stored parts;
//! - [`schedule`]: when a call may start (concurrency-safe ones at once and side by side,
//!   others after the response, alone and in order);
//! - [`inflight`]: a step's calls, started while the response still streams;
//! - [`execute`]: one call — name repair to `invalid`, the doom-loop guard, the tool run with
//!   cancellation and live metadata;
//! - [`step_message`]: the one owner of a step's assistant message, from creation to finish;
//! - [`record`]: persistence, one transaction and one numbered event per change;
//! - [`history`]: the conversation rebuilt from the table, so `--continue` resumes exactly;
//! - [`agent_mode`]: the plan file, plan-mode reminders and the switch to `build`;
//! - [`background`]: the notice of a background shell that ended, for the next request;
//! - [`deferred`]: the tools a session loaded, and the line naming those still deferred;
//! - [`compact`]: pruning and summarising a session that nears the model's context window;
//! - [`small_model`]: the config's `small_model`, which writes the summaries when set;
//! - [`totals`]: a session's summed tokens and cost;
//! - [`runner`]: the loop itself;
//! - [`shell`]: a command the user runs in the session, recorded as their own `bash` call;
//! - [`hooks`]: Claude Code's hooks at the loop's events, and the records of every hook run.
//!
//! ```ignore
//! let services = LoopServices::from_context(instance.context())?;
//! let session = open_session(&services.store, &dir, SessionTarget::New)?;
//! let runner = Runner::new(services, model, RunOptions::default());
//! let report = runner.run(&session.id, "fix the build", cancel, Some(sink)).await?;
//! ```

pub mod accumulate;
pub mod agent_mode;
pub mod background;
pub mod compact;
pub mod deferred;
mod error;
pub mod execute;
pub mod history;
pub mod hooks;
pub mod inflight;
pub mod model;
pub mod parts;
pub mod prompt;
pub mod record;
#[cfg(test)]
mod rows;
pub mod runner;
pub mod schedule;
mod services;
pub mod shell;
pub mod small_model;
mod spans;
pub mod step;
pub mod step_message;
pub mod totals;

use std::path::Path;

use serde_json::{Value, json};

use crate::events::{message_json, part_json, session_json};
use crate::store::{Session, Store, StoreError};

pub use error::RunError;
pub use model::Model;
pub use runner::{RunOptions, RunOutcome, RunReport, Runner};
pub use services::LoopServices;

/// Which session a run goes into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionTarget {
    New,
    /// The most recently changed top-level session of the directory.
    Continue,
    Id(String),
}

/// Creates or finds the session for a run in `dir`.
pub fn open_session(
    store: &Store,
    dir: &Path,
    target: &SessionTarget,
) -> Result<Session, RunError> {
    match target {
        SessionTarget::New => Ok(store.create_session(dir, None)?),
        SessionTarget::Continue => {
            store
                .last_session(dir)?
                .ok_or_else(|| RunError::NothingToContinue {
                    dir: dir.to_path_buf(),
                })
        }
        SessionTarget::Id(id) => Ok(store.session(id)?),
    }
}

/// A session as one JSON document: `{"info": session, "messages": [{"info", "parts"}],
/// "hooks": [hook runs]}`, in the same shapes as the `--format json` events.
pub fn export(store: &Store, session_id: &str) -> Result<Value, StoreError> {
    let session = store.session(session_id)?;
    let messages: Vec<Value> = store
        .messages(session_id)?
        .iter()
        .map(|(m, parts)| {
            json!({
                "info": message_json(m),
                "parts": parts.iter().map(part_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let hooks = hooks::runs(store, session_id)?;
    Ok(json!({"info": session_json(&session), "messages": messages, "hooks": hooks}))
}
