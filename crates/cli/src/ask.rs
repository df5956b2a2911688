//! The permission responder of one-shot commands (`strata tool`): the same answers as
//! `strata run` (see `render::prompt`), without a spinner to pause.

use strata_services::permission::{Permission, PermissionEvent};
use tokio::task::JoinHandle;

pub(crate) use crate::render::prompt::AskMode;
use crate::render::prompt::decide;

/// Answers every ask of `permission` until the returned task is aborted.
pub(crate) fn spawn_responder(permission: Permission, mode: AskMode) -> JoinHandle<()> {
    let mut events = permission.subscribe();
    // One-shot commands have no turn to cancel; a prompt stays open until answered.
    let cancel = tokio_util::sync::CancellationToken::new();
    tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            let PermissionEvent::Asked(req) = event else {
                continue;
            };
            let Some(reply) = decide(mode, &req, &cancel).await else {
                continue;
            };
            let _ = permission.reply(&req.id, reply);
        }
    })
}
