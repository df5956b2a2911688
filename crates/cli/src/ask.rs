//! The permission responder of one-shot commands (`strata tool`): the same answers as
//! `strata run` (see `render::prompt`), without a spinner to pause.

use strata_services::permission::{Permission, PermissionEvent, Reply};
use tokio::task::JoinHandle;

pub use crate::render::prompt::AskMode;
use crate::render::prompt::{ask_on_terminal, refusal};

/// Answers every ask of `permission` until the returned task is aborted.
pub fn spawn_responder(permission: Permission, mode: AskMode) -> JoinHandle<()> {
    let mut events = permission.subscribe();
    tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            let PermissionEvent::Asked(req) = event else {
                continue;
            };
            let reply = match mode {
                AskMode::Yes => Reply::Once,
                AskMode::Refuse => {
                    eprintln!("{}", refusal(&req));
                    Reply::Reject { feedback: None }
                }
                AskMode::Prompt => ask_on_terminal(&req)
                    .await
                    .unwrap_or(Reply::Reject { feedback: None }),
            };
            let _ = permission.reply(&req.id, reply);
        }
    })
}
