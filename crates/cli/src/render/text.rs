//! The default format: the assistant's text streamed to stdout as it arrives, one line per
//! finished tool call (`→ read src/main.rs`, `✗ bash cargo test: …`), a spinner on stderr
//! while tools run (only on a terminal), and errors on stderr.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use serde::Deserialize;
use serde_json::Value;
use strata_agent::events::{ErrorEvent, SessionStatus, StatusEvent, event_part, kinds};
use strata_agent::store::Event;
use strata_protocol::event::HookEventData;
use strata_protocol::{PartData, ToolPart, ToolState};

/// Renders one run for a person.
pub(crate) struct TextRenderer {
    out: Box<dyn Write + Send>,
    at_line_start: bool,
    /// Text parts already shown through their deltas.
    streamed: HashSet<String>,
    shown: HashSet<String>,
    /// Running calls: part id → label, shown by the spinner.
    running: BTreeMap<String, String>,
    spinner: Option<ProgressBar>,
}

impl TextRenderer {
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self {
            out,
            at_line_start: true,
            streamed: HashSet::new(),
            shown: HashSet::new(),
            running: BTreeMap::new(),
            spinner: None,
        }
    }

    /// A hook run: shown when it warned or blocked (a quiet success shows nothing).
    fn hook(&mut self, event: &Event) {
        let Ok(data) = HookEventData::deserialize(&event.data) else {
            return;
        };
        let (hook, o) = (&data.hook, &data.hook.outcome);
        let line = match (&o.warning, &o.blocked, o.decision.as_deref()) {
            (Some(w), _, _) => format!("strata: warning: {w}"),
            (None, Some(reason), _) => format!(
                "strata: the {} hook `{}` blocked: {reason}",
                hook.event, hook.command
            ),
            (None, None, Some("deny")) => format!(
                "strata: the {} hook `{}` denied the call: {}",
                hook.event,
                hook.command,
                o.reason.as_deref().unwrap_or("no reason given")
            ),
            _ => return,
        };
        self.stop_spinner();
        self.end_line();
        eprintln!("{line}");
    }

    /// A piece of assistant text, printed at once.
    pub(crate) fn delta(&mut self, part_id: &str, delta: &str) {
        self.stop_spinner();
        self.streamed.insert(part_id.to_string());
        self.write(delta);
    }

    pub(crate) fn event(&mut self, event: &Event) {
        if event.kind == kinds::SESSION_ERROR {
            self.stop_spinner();
            self.end_line();
            let error = ErrorEvent::deserialize(&event.data).ok();
            let message = error
                .as_ref()
                .map_or("unknown error", |e| e.error.data.message.as_str());
            eprintln!("strata: {message}");
            return;
        }
        if event.kind == kinds::SESSION_HOOK {
            self.hook(event);
            return;
        }
        if event.kind == kinds::SESSION_STATUS {
            if let Ok(StatusEvent {
                status: SessionStatus::Retry { message, .. },
                ..
            }) = StatusEvent::deserialize(&event.data)
            {
                let message = if message.is_empty() {
                    "the model request failed"
                } else {
                    &message
                };
                eprintln!("strata: retrying: {message}");
            }
            return;
        }
        let Some(part) = event_part(event) else {
            return;
        };
        match PartData::of(&part) {
            Some(PartData::Text(text)) if text.is_finished() => {
                if !self.streamed.contains(&part.id) {
                    self.write(&text.text);
                }
                self.end_line();
            }
            Some(PartData::Tool(tool)) => self.tool(&part.id, &tool),
            _ => {}
        }
    }

    fn tool(&mut self, part_id: &str, tool: &ToolPart) {
        let name = if tool.tool.is_empty() {
            "tool"
        } else {
            &tool.tool
        };
        let label = format!("{name} {}", describe(&tool.state));
        match &tool.state {
            ToolState::Running(_) => {
                self.running.insert(part_id.to_string(), label);
                self.show_spinner();
            }
            ToolState::Completed(_) | ToolState::Error(_) => {
                self.running.remove(part_id);
                if !self.shown.insert(part_id.to_string()) {
                    return;
                }
                self.stop_spinner();
                self.end_line();
                let line = match tool.state.error() {
                    None => format!("→ {}\n", label.trim_end()),
                    Some(error) => {
                        let first = error.lines().next().unwrap_or_default();
                        format!("✗ {}: {first}\n", label.trim_end())
                    }
                };
                self.write(&line);
                self.show_spinner();
            }
            ToolState::Pending(_) => {}
        }
    }

    /// Clears the spinner and ends the line, so a prompt can use the terminal.
    pub(crate) fn pause(&mut self) {
        self.stop_spinner();
        self.end_line();
    }

    /// Shows the spinner again if calls are still running.
    pub(crate) fn resume(&mut self) {
        self.show_spinner();
    }

    /// The run is over: clear the spinner and end the last line.
    pub(crate) fn finish(&mut self) {
        self.running.clear();
        self.stop_spinner();
        self.end_line();
    }

    fn show_spinner(&mut self) {
        if self.running.is_empty() {
            self.stop_spinner();
            return;
        }
        let message = self
            .running
            .values()
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        let spinner = self.spinner.get_or_insert_with(|| {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        spinner.set_message(message);
    }

    fn stop_spinner(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
    }

    fn write(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        // A closed stdout (e.g. `| head`) must not stop the run.
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
        self.at_line_start = text.ends_with('\n');
    }

    fn end_line(&mut self) {
        if !self.at_line_start {
            self.write("\n");
        }
    }
}

/// A short description of a call: its title, else its main argument.
fn describe(state: &ToolState) -> String {
    if let Some(title) = state.title().filter(|t| !t.is_empty()) {
        return title.to_string();
    }
    let input = state.input();
    for key in [
        "filePath", "path", "pattern", "command", "url", "query", "tool",
    ] {
        if let Some(v) = input.get(key).and_then(Value::as_str) {
            return v.lines().next().unwrap_or_default().to_string();
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;
    use strata_agent::store::{Part, kinds as store_kinds};

    use super::*;

    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn part(id: &str, kind: &str, data: Value) -> Event {
        let part = Part {
            id: id.into(),
            message_id: "m".into(),
            session_id: "s".into(),
            seq: 1,
            kind: kind.into(),
            data,
            updated_ms: 0,
        };
        Event {
            session_id: "s".into(),
            seq: 1,
            kind: store_kinds::PART_UPDATED.into(),
            data: json!({ "part": part }),
            created_ms: 0,
        }
    }

    #[test]
    fn text_streams_and_tools_get_one_line_each() {
        let sink = Sink::default();
        let mut r = TextRenderer::new(Box::new(sink.clone()));
        r.delta("t1", "Let me ");
        r.delta("t1", "look.");
        r.event(&part(
            "t1",
            "text",
            json!({"text": "Let me look.", "time": {"start": 1, "end": 2}}),
        ));
        let running =
            json!({"tool": "read", "state": {"status": "running", "input": {"filePath": "a.txt"}}});
        r.event(&part("p1", "tool", running));
        let done = json!({"tool": "read", "state": {"status": "completed", "title": "a.txt", "input": {}}});
        r.event(&part("p1", "tool", done.clone()));
        r.event(&part("p1", "tool", done));
        let failed = json!({"tool": "grep", "state": {"status": "error", "input": {"pattern": "x"}, "error": "bad regex\nmore"}});
        r.event(&part("p2", "tool", failed));
        r.event(&part(
            "t2",
            "text",
            json!({"text": "Done", "time": {"start": 1, "end": 2}}),
        ));
        r.finish();
        let out = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            out,
            "Let me look.\n→ read a.txt\n✗ grep x: bad regex\nDone\n"
        );
    }
}
