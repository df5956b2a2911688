//! The permission and question responders of one-shot commands (`strata tool`): the same
//! answers as `strata run` (see `render::prompt` and `render::question`), without a spinner to
//! pause.

use strata_services::permission::{Permission, PermissionEvent};
use strata_services::question::{Question, QuestionEvent};
use tokio::task::JoinHandle;

pub(crate) use crate::render::prompt::AskMode;
use crate::render::prompt::decide;
use crate::render::question;

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

/// Answers every question of `question` until the returned task is aborted: on the terminal
/// when there is one, else each is dismissed with a note on stderr.
pub(crate) fn spawn_question_responder(service: Question) -> JoinHandle<()> {
    let mut events = service.subscribe();
    let interactive = question::interactive();
    tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            let QuestionEvent::Asked(req) = event else {
                continue;
            };
            let answers = if interactive {
                question::ask_on_terminal(&req).await.unwrap_or(None)
            } else {
                eprintln!("{}", question::refusal(&req));
                None
            };
            let _ = match answers {
                Some(answers) => service.reply(&req.id, answers),
                None => service.reject(&req.id),
            };
        }
    })
}
