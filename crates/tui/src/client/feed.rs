//! Which events of a stream a reader wants: all of them, or one session's and those of the
//! subagent sessions it starts (and theirs), so a headless client that follows one session
//! also sees, and can answer, its subagents' asks.

use std::collections::HashSet;

use strata_protocol::wire::ServerEvent;

use crate::event::Envelope;

/// A stream's path and whose events to pass on.
#[derive(Debug)]
pub(super) struct Feed {
    pub(super) path: &'static str,
    /// The followed sessions: a root and its descendants as their `session.created` events
    /// name them. Every event passes when `None`.
    family: Option<HashSet<String>>,
}

impl Feed {
    /// Every event of `path`.
    pub(super) fn all(path: &'static str) -> Self {
        Feed { path, family: None }
    }

    /// The events of `root` and of the sessions started under it, from `path`.
    pub(super) fn family(path: &'static str, root: &str) -> Self {
        Feed {
            path,
            family: Some(HashSet::from([root.to_string()])),
        }
    }

    /// Whether `envelope` goes to the reader. A session created (or updated) with a followed
    /// parent joins the family first, so its own creation event passes too.
    pub(super) fn wants(&mut self, envelope: &Envelope) -> bool {
        let Some(family) = &mut self.family else {
            return true;
        };
        if let ServerEvent::SessionCreated { info, .. } | ServerEvent::SessionUpdated { info, .. } =
            &envelope.event
            && info.parent_id.as_ref().is_some_and(|p| family.contains(p))
        {
            family.insert(info.id.clone());
        }
        envelope
            .event
            .session_id()
            .is_some_and(|id| family.contains(id))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail by panicking
    use super::*;
    use serde_json::json;

    fn envelope(kind: &str, properties: serde_json::Value) -> Envelope {
        let frame = json!({"id": "evt_1", "type": kind, "properties": properties});
        crate::event::decode(&frame.to_string()).unwrap()
    }

    fn created(id: &str, parent: Option<&str>) -> Envelope {
        let mut info = json!({"id": id, "title": "t", "time": {"created": 1, "updated": 1}});
        if let Some(p) = parent {
            info["parentID"] = json!(p);
        }
        envelope("session.created", json!({"sessionID": id, "info": info}))
    }

    fn idle(id: &str) -> Envelope {
        envelope("session.idle", json!({"sessionID": id}))
    }

    #[test]
    fn a_family_takes_in_children_and_grandchildren_and_nobody_else() {
        let mut feed = Feed::family("/event", "ses_root");
        assert!(feed.wants(&idle("ses_root")));
        assert!(!feed.wants(&idle("ses_child")), "not yet one of the family");
        assert!(feed.wants(&created("ses_child", Some("ses_root"))));
        assert!(feed.wants(&idle("ses_child")));
        assert!(feed.wants(&created("ses_grand", Some("ses_child"))));
        assert!(feed.wants(&idle("ses_grand")));
        assert!(!feed.wants(&created("ses_other", None)));
        assert!(!feed.wants(&created("ses_cousin", Some("ses_other"))));
        assert!(!feed.wants(&idle("ses_cousin")));
        let heartbeat = envelope("server.heartbeat", json!({}));
        assert!(!feed.wants(&heartbeat), "an event of no session");
    }

    #[test]
    fn without_a_family_every_event_passes() {
        let mut feed = Feed::all("/global/event");
        assert!(feed.wants(&idle("ses_any")));
        assert!(feed.wants(&envelope("server.heartbeat", json!({}))));
    }
}
