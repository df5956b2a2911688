//! The open session's background shells as its stored parts tell them, for the status bar: a
//! `bash` call with `run_in_background` starts one (its result's `shellId` and `status`), and
//! later `bash_output` and `bash_kill` results, or the loop's `<background-shells>` notice,
//! say it ended. Pure: a function of the messages, like every view.

use std::collections::BTreeMap;

use strata_protocol::tool::ToolState;

use super::MessageView;
use crate::model::PartKind;

/// The shells known to the session: id → still running, in id order.
pub fn shells(messages: &[MessageView]) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    for part in messages.iter().flat_map(|m| &m.parts) {
        match &part.kind {
            PartKind::Tool(tool) => {
                let ToolState::Completed(done) = &tool.state else {
                    continue;
                };
                let Some(id) = done.metadata.get("shellId").and_then(|v| v.as_str()) else {
                    continue;
                };
                let running =
                    done.metadata.get("status").and_then(|v| v.as_str()) == Some("running");
                match tool.tool.as_str() {
                    "bash" => {
                        out.insert(id.to_string(), running);
                    }
                    "bash_output" | "bash_kill" => {
                        if let Some(r) = out.get_mut(id) {
                            *r = running;
                        }
                    }
                    _ => {}
                }
            }
            PartKind::Text(text) if text.text.starts_with("<background-shells>") => {
                for line in text.text.lines() {
                    let id = line
                        .strip_prefix("Background shell ")
                        .and_then(|rest| rest.split_whitespace().next());
                    if let Some(r) = id.and_then(|id| out.get_mut(id)) {
                        *r = false;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `bg 2 running · `, or nothing when no shell runs.
pub fn status_note(messages: &[MessageView]) -> String {
    let running = shells(messages).values().filter(|r| **r).count();
    if running == 0 {
        String::new()
    } else {
        format!("bg {running} running · ")
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::{Value, json};
    use strata_protocol::wire::PartView;

    use super::*;
    use crate::model::{MessageInfo, PartInfo};

    fn part(v: Value) -> PartInfo {
        let mut v = v;
        v["id"] = json!("prt_x");
        v["sessionID"] = json!("ses_1");
        v["messageID"] = json!("msg_1");
        PartInfo::from_view(&PartView::deserialize(&v).unwrap()).unwrap()
    }

    fn call(tool: &str, shell: &str, status: &str) -> PartInfo {
        part(
            json!({"type": "tool", "tool": tool, "callID": "c", "state": {
            "status": "completed", "input": {}, "output": "", "title": "",
            "metadata": {"shellId": shell, "status": status}, "time": {"start": 1, "end": 2}}}),
        )
    }

    fn message(parts: Vec<PartInfo>) -> MessageView {
        MessageView {
            info: MessageInfo::default(),
            parts,
            version: 0,
        }
    }

    #[test]
    fn starts_kills_and_notices_set_what_the_status_bar_counts() {
        let mut messages = vec![message(vec![
            call("bash", "bg_1", "running"),
            call("bash", "bg_2", "running"),
            call("bash", "bg_3", "exited"),
        ])];
        assert_eq!(status_note(&messages), "bg 2 running · ");
        messages.push(message(vec![call("bash_kill", "bg_1", "killed")]));
        assert_eq!(status_note(&messages), "bg 1 running · ");
        let notice = "<background-shells>\nBackground shell bg_2 (`make`) exited with status \
                      0. It printed nothing.\n</background-shells>";
        messages.push(message(vec![part(json!({"type": "text", "text": notice}))]));
        assert_eq!(status_note(&messages), "");
        assert_eq!(shells(&messages).len(), 3);
    }
}
