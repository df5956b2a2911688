//! Permission asks in the editor: a pending request of the session becomes
//! `session/request_permission` with three options (allow once, allow always, reject). The
//! choice goes to the core as the same reply the terminal or the server would give, so
//! `always` approves the request's own patterns and nothing wider. A cancelled prompt, a
//! dismissed dialog or a failed request is a refusal.

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    ToolCallContent, ToolCallUpdate, ToolCallUpdateFields,
};
use strata_protocol::wire::{PermissionReply, PermissionReplyBody, PermissionRequest};
use tokio_util::sync::CancellationToken;

use crate::state::Acp;

const ONCE: &str = "once";
const ALWAYS: &str = "always";
const REJECT: &str = "reject";

/// The three choices, with what each allows in its label.
pub(crate) fn options(request: &PermissionRequest) -> Vec<PermissionOption> {
    let always = if request.always.is_empty() {
        "Allow always".to_string()
    } else {
        format!("Allow always: {}", request.always.join(", "))
    };
    vec![
        PermissionOption::new(ONCE, "Allow once", PermissionOptionKind::AllowOnce),
        PermissionOption::new(ALWAYS, always, PermissionOptionKind::AllowAlways),
        PermissionOption::new(REJECT, "Reject", PermissionOptionKind::RejectOnce),
    ]
}

/// The reply for the editor's answer; anything but a known option is a refusal.
pub(crate) fn reply(outcome: &RequestPermissionOutcome) -> PermissionReply {
    match outcome {
        RequestPermissionOutcome::Selected(s) => match &*s.option_id.0 {
            ONCE => PermissionReply::Once,
            ALWAYS => PermissionReply::Always,
            _ => PermissionReply::Reject,
        },
        _ => PermissionReply::Reject,
    }
}

/// The call the ask is about, as the editor shows it above the options. A command that would
/// leave the sandbox says so in the title, and the model's reason is the call's content.
fn tool_call(request: &PermissionRequest) -> ToolCallUpdate {
    let id = request
        .tool
        .as_ref()
        .map_or_else(|| request.id.clone(), |t| t.call_id.clone());
    let mut title = format!("{}: {}", request.permission, request.patterns.join(", "));
    let mut fields = ToolCallUpdateFields::new();
    if request.metadata.get("escapesSandbox") == Some(&serde_json::Value::Bool(true)) {
        title.push_str(" (outside the sandbox)");
        let why = (request
            .metadata
            .get("justification")
            .and_then(|j| j.as_str()))
        .unwrap_or("(none given)");
        let text = format!(
            "This command would run OUTSIDE the sandbox, with all your access. The model's \
             reason: {why}"
        );
        fields = fields.content(vec![ToolCallContent::from(text)]);
    }
    ToolCallUpdate::new(id, fields.title(title))
}

/// Asks the editor on a task of its own (the prompt keeps streaming meanwhile) and replies.
/// `sid` is the editor's session, which may be the parent of the request's (a subagent's).
pub(crate) fn spawn(
    acp: Acp,
    cx: ConnectionTo<Client>,
    sid: String,
    request: PermissionRequest,
    cancel: CancellationToken,
) {
    tokio::spawn(async move {
        let ask = RequestPermissionRequest::new(sid, tool_call(&request), options(&request));
        let answer = tokio::select! {
            a = cx.send_request(ask).block_task() => a,
            // The turn is being cancelled: the core withdraws the request itself.
            () = cancel.cancelled() => return,
        };
        let reply = match answer {
            Ok(r) => self::reply(&r.outcome),
            Err(e) => {
                tracing::warn!(error = %e, "the editor did not answer a permission ask; refused");
                PermissionReply::Reject
            }
        };
        let body = PermissionReplyBody {
            reply,
            message: None,
        };
        // Not found only means the call stopped waiting (cancelled) meanwhile.
        if let Err(e) = acp.core.reply_permission(&request.id, body, None).await {
            tracing::debug!(error = %e, "a permission reply from the editor was not taken");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::SelectedPermissionOutcome;

    #[test]
    fn each_option_maps_to_the_reply_the_terminal_gives() {
        let pick = |id: &str| {
            reply(&RequestPermissionOutcome::Selected(
                SelectedPermissionOutcome::new(id.to_string()),
            ))
        };
        assert_eq!(pick(ONCE), PermissionReply::Once);
        assert_eq!(pick(ALWAYS), PermissionReply::Always);
        assert_eq!(pick(REJECT), PermissionReply::Reject);
        assert_eq!(pick("made-up"), PermissionReply::Reject);
        assert_eq!(
            reply(&RequestPermissionOutcome::Cancelled),
            PermissionReply::Reject
        );
    }

    #[test]
    fn allow_always_names_the_patterns_it_allows() {
        let request: PermissionRequest = serde_json::from_value(serde_json::json!({
            "id": "per_1", "sessionID": "ses_1", "permission": "bash",
            "patterns": ["git status"], "always": ["git status *"], "metadata": {}
        }))
        .unwrap();
        let o = options(&request);
        assert_eq!(o[1].name, "Allow always: git status *");
        assert_eq!(o[1].kind, PermissionOptionKind::AllowAlways);
        assert_eq!(tool_call(&request).tool_call_id.0.as_ref(), "per_1");
        assert!(tool_call(&request).fields.content.is_none());
    }

    #[test]
    fn a_command_leaving_the_sandbox_shows_the_models_reason() {
        let request: PermissionRequest = serde_json::from_value(serde_json::json!({
            "id": "per_2", "sessionID": "ses_1", "permission": "bash",
            "patterns": ["git push"], "always": [],
            "metadata": {"escapesSandbox": true, "justification": "push needs the network"}
        }))
        .unwrap();
        let call = serde_json::to_value(tool_call(&request)).unwrap();
        assert_eq!(call["title"], "bash: git push (outside the sandbox)");
        let text = call["content"][0]["content"]["text"].as_str().unwrap();
        assert!(text.ends_with("reason: push needs the network"), "{call}");
    }
}
