//! Permission and question replies: a reply must name a pending request (of the given session,
//! when the route names one). `always` approves exactly the request's own `always` patterns,
//! which the tool computed from what it asked: a client cannot widen them. A permission reply
//! to an id that is not pending (answered, withdrawn, or unknown: they cannot be told apart
//! once a request is gone) is a conflict, so a late or repeated reply never lands elsewhere.

use strata_protocol::wire::{
    PermissionReply, PermissionReplyBody, PermissionRequest, QuestionRequest,
};
use strata_services::permission::{PermissionError, Reply};

use super::asks::permission_request;
use super::{CoreError, ServerCore};

impl ServerCore {
    /// Every pending permission request, across projects.
    pub async fn pending_permissions(&self) -> Vec<PermissionRequest> {
        let mut out = Vec::new();
        for entry in self.inner.instances.all().await {
            out.extend(
                entry
                    .services
                    .permission
                    .pending()
                    .iter()
                    .map(permission_request),
            );
        }
        out
    }

    /// Every pending question, across projects.
    pub async fn pending_questions(&self) -> Vec<QuestionRequest> {
        let mut out = Vec::new();
        for entry in self.inner.instances.all().await {
            out.extend(entry.question.pending());
        }
        out
    }

    /// Answers permission request `id`. `session` (from the older per-session route) must be
    /// the request's session.
    pub async fn reply_permission(
        &self,
        id: &str,
        body: PermissionReplyBody,
        session: Option<&str>,
    ) -> Result<(), CoreError> {
        for entry in self.inner.instances.all().await {
            let permission = &entry.services.permission;
            let Some(request) = permission.pending().into_iter().find(|r| r.id == id) else {
                continue;
            };
            if let Some(s) = session
                && s != request.session_id
            {
                return Err(CoreError::BadRequest(format!(
                    "permission request `{id}` belongs to session `{}`, not `{s}`",
                    request.session_id
                )));
            }
            if body.message.is_some() && body.reply != PermissionReply::Reject {
                return Err(CoreError::BadRequest(
                    "message: a message goes with a `reject` reply only".into(),
                ));
            }
            let reply = match body.reply {
                PermissionReply::Once => Reply::Once,
                PermissionReply::Always => Reply::Always,
                PermissionReply::Reject => Reply::Reject {
                    feedback: body.message.filter(|m| !m.trim().is_empty()),
                },
            };
            return permission.reply(id, reply).map_err(|e| match e {
                // Answered between the lookup and the reply.
                PermissionError::NotFound { .. } => not_pending(id),
                other => CoreError::Internal(other.to_string()),
            });
        }
        Err(not_pending(id))
    }

    /// Answers question request `id`: one list of labels per question, in order.
    pub async fn reply_question(
        &self,
        id: &str,
        answers: Vec<Vec<String>>,
    ) -> Result<(), CoreError> {
        for entry in self.inner.instances.all().await {
            let Some(request) = entry.question.pending().into_iter().find(|r| r.id == id) else {
                continue;
            };
            if answers.len() != request.questions.len() {
                return Err(CoreError::BadRequest(format!(
                    "answers: question request `{id}` has {} questions but {} answers were sent",
                    request.questions.len(),
                    answers.len()
                )));
            }
            return entry
                .question
                .reply(id, answers)
                .map_err(|e| CoreError::Internal(e.to_string()));
        }
        Err(CoreError::not_found("question request", id))
    }

    /// Dismisses question request `id`.
    pub async fn reject_question(&self, id: &str) -> Result<(), CoreError> {
        for entry in self.inner.instances.all().await {
            if entry.question.pending().iter().any(|r| r.id == id) {
                return entry
                    .question
                    .reject(id)
                    .map_err(|e| CoreError::Internal(e.to_string()));
            }
        }
        Err(CoreError::not_found("question request", id))
    }
}

fn not_pending(id: &str) -> CoreError {
    CoreError::NotPending {
        what: "permission request",
        id: id.to_string(),
    }
}
