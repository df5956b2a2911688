//! The permission and question services' events in the wire's shapes: what `/event` streams,
//! and what `strata run --format json` prints for its asks.

use serde_json::Value;
use strata_protocol::wire::{PermissionReply, PermissionRequest, ServerEvent};
use strata_services::permission::{PermissionEvent, Reply, Request};
use strata_services::question::QuestionEvent;

/// The wire view of a pending permission request.
pub fn permission_request(r: &Request) -> PermissionRequest {
    PermissionRequest {
        id: r.id.clone(),
        session_id: r.session_id.clone(),
        permission: r.permission.clone(),
        patterns: r.patterns.clone(),
        metadata: match &r.metadata {
            Value::Object(m) => m.clone(),
            _ => Default::default(),
        },
        always: r.always.clone(),
        tool: r.tool.clone(),
    }
}

/// The wire's answer for a service reply (a rejection's feedback goes to the model, not here).
pub fn permission_reply(reply: &Reply) -> PermissionReply {
    match reply {
        Reply::Once => PermissionReply::Once,
        Reply::Always => PermissionReply::Always,
        Reply::Reject { .. } => PermissionReply::Reject,
    }
}

/// A permission event as the server publishes it.
pub fn permission_event(event: PermissionEvent) -> ServerEvent {
    match event {
        PermissionEvent::Asked(r) => ServerEvent::PermissionAsked(permission_request(&r)),
        PermissionEvent::Replied {
            session_id,
            request_id,
            reply,
        } => ServerEvent::PermissionReplied {
            session_id,
            request_id,
            reply: permission_reply(&reply),
        },
        // A withdrawn request ends like a refused one for whoever shows it.
        PermissionEvent::Withdrawn {
            session_id,
            request_id,
        } => ServerEvent::PermissionReplied {
            session_id,
            request_id,
            reply: PermissionReply::Reject,
        },
    }
}

/// A question event as the server publishes it.
pub fn question_event(event: QuestionEvent) -> ServerEvent {
    match event {
        QuestionEvent::Asked(q) => ServerEvent::QuestionAsked(q),
        QuestionEvent::Replied {
            session_id,
            request_id,
            answers,
        } => ServerEvent::QuestionReplied {
            session_id,
            request_id,
            answers,
        },
        QuestionEvent::Rejected {
            session_id,
            request_id,
        } => ServerEvent::QuestionRejected {
            session_id,
            request_id,
        },
    }
}
