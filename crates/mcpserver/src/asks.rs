//! Permission asks on an MCP server: no one is there to answer, so an ask that the rules leave
//! open is allowed once under `--yes` and refused otherwise. A refused call gets [`refusal`]
//! instead of the generic "the user declined" text, since no user declined anything.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use strata_services::permission::{Permission, PermissionEvent, Reply, Request};
use tokio::task::JoinHandle;

/// The session ids of MCP calls start with this, so the responder leaves other sessions of a
/// shared Permission service (a `strata serve` with its own clients) alone.
pub(crate) const SESSION_PREFIX: &str = "ses_mcp_";

/// Answers the asks of MCP sessions; stops when dropped.
#[derive(Debug)]
pub(crate) struct Responder {
    task: JoinHandle<()>,
    /// Refused requests by call id, until the call picks its message up.
    refused: Arc<Mutex<HashMap<String, Request>>>,
}

impl Responder {
    pub(crate) fn spawn(permission: Permission, yes: bool) -> Self {
        let refused: Arc<Mutex<HashMap<String, Request>>> = Arc::default();
        let mut events = permission.subscribe();
        let seen = refused.clone();
        let task = tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                let PermissionEvent::Asked(req) = event else {
                    continue;
                };
                if !req.session_id.starts_with(SESSION_PREFIX) {
                    continue;
                }
                let reply = if yes {
                    Reply::Once
                } else {
                    tracing::info!(permission = %req.permission, patterns = ?req.patterns,
                        "refused a permission ask: an MCP server cannot ask");
                    if let Some(tool) = &req.tool {
                        lock(&seen).insert(tool.call_id.clone(), req.clone());
                    }
                    Reply::Reject { feedback: None }
                };
                // Not pending any more only means the call was cancelled meanwhile.
                let _ = permission.reply(&req.id, reply);
            }
        });
        Responder { task, refused }
    }

    /// The request refused for `call_id`, if one was (taken: each call asks for it once).
    pub(crate) fn take_refused(&self, call_id: &str) -> Option<Request> {
        lock(&self.refused).remove(call_id)
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The map stays consistent whatever panicked while holding it (one insert or remove).
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a refused call returns: why the server could not ask, and the two ways to allow it.
pub fn refusal(req: &Request) -> String {
    let pattern = req.patterns.first().map_or("*", String::as_str);
    let patterns = req
        .patterns
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "Strata refused this call: the project's permission rules say to ask before using \
         `{permission}` on {patterns}, and an MCP server has no one to ask. To allow it, add a \
         rule to strata.json in the project, e.g. {{\"permission\": {{\"{permission}\": \
         {{\"{pattern}\": \"allow\"}}}}}}, or start the server with `strata mcp --yes` to allow \
         every call that no rule denies.",
        permission = req.permission,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_names_the_permission_and_both_ways_to_allow_it() {
        let req = Request {
            id: "per_1".into(),
            session_id: "ses_mcp_1".into(),
            permission: "bash".into(),
            patterns: vec!["git status".into()],
            always: vec!["git status *".into()],
            metadata: serde_json::Value::Null,
            tool: None,
            shown: None,
        };
        let text = refusal(&req);
        assert!(text.contains("`bash` on `git status`"), "{text}");
        assert!(
            text.contains(r#"{"permission": {"bash": {"git status": "allow"}}}"#),
            "{text}"
        );
        assert!(text.contains("strata mcp --yes"), "{text}");
    }
}
