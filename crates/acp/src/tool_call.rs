//! A stored tool part as an ACP tool call: its kind (from the tool's declared effects and the
//! shape of its input), status, title, the file locations it touches and its content, with
//! edits shown as diffs of old and new text. Plain functions over values.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    Content, ContentBlock, Diff, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use serde_json::Value;
use strata_protocol::tool::{ToolPart, ToolState};
use strata_registry::ToolRegistry;
use strata_tools::Effects;

/// The input keys that name a file, in the order the tools use them.
const PATH_KEYS: [&str; 3] = ["filePath", "path", "file_path"];
/// Input keys that make a read-only call a search rather than a read.
const SEARCH_KEYS: [&str; 2] = ["pattern", "query"];

/// What the instance declares about a tool: its effects and its parameters' JSON schema.
#[derive(Debug, Clone)]
pub(crate) struct Declared {
    pub(crate) effects: Effects,
    pub(crate) schema: Arc<Value>,
}

/// What `registry` declares about tool `id`.
pub(crate) fn declared_in(registry: &ToolRegistry, id: &str) -> Option<Declared> {
    registry.get(id).map(|t| Declared {
        effects: t.effects,
        schema: t.schema,
    })
}

/// The ACP kind of a call to a tool as `declared` (`None`: a tool this instance does not know,
/// e.g. of an MCP server that went away). A read-only tool is a search when it takes a pattern
/// or a query, a read when it takes a file; the parameters, not the input, decide, so the
/// kind is known before the arguments have arrived.
pub(crate) fn kind(declared: Option<&Declared>) -> ToolKind {
    let Some(Declared { effects: e, schema }) = declared else {
        return ToolKind::Other;
    };
    let params = &schema["properties"];
    match (e.read_only, e.destructive, e.open_world) {
        // Changes things and reaches outside the project: a command.
        (false, true, true) => ToolKind::Execute,
        (false, true, false) => ToolKind::Edit,
        (true, _, true) => ToolKind::Fetch,
        // Changes only the session's own state (todos, plan exit, subagents).
        (false, false, _) => ToolKind::Think,
        (true, _, false) if SEARCH_KEYS.iter().any(|k| params.get(k).is_some()) => ToolKind::Search,
        (true, _, false) if PATH_KEYS.iter().any(|k| params.get(k).is_some()) => ToolKind::Read,
        (true, _, false) => ToolKind::Other,
    }
}

/// The file the input names, if any.
fn file_of(input: &Value) -> Option<&str> {
    PATH_KEYS
        .iter()
        .find_map(|k| input.get(k).and_then(Value::as_str))
}

/// The call's input, whatever its state.
pub(crate) fn input_of(part: &ToolPart) -> &Value {
    match &part.state {
        ToolState::Pending(p) => &p.input,
        ToolState::Running(r) => &r.input,
        ToolState::Completed(c) => &c.input,
        ToolState::Error(f) => &f.input,
    }
}

pub(crate) fn status(state: &ToolState) -> ToolCallStatus {
    match state {
        ToolState::Pending(_) => ToolCallStatus::Pending,
        ToolState::Running(_) => ToolCallStatus::InProgress,
        ToolState::Completed(_) => ToolCallStatus::Completed,
        ToolState::Error(_) => ToolCallStatus::Failed,
    }
}

/// What the tool said it is doing, else the tool's id.
pub(crate) fn title(part: &ToolPart) -> String {
    let own = match &part.state {
        ToolState::Running(r) => r.title.clone(),
        ToolState::Completed(c) => Some(c.title.clone()),
        _ => None,
    };
    own.filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| part.tool.clone())
}

/// The file the call touches, made absolute against the project `dir`, with the first line
/// when the input says (`offset` of a read is a 1-based line).
pub(crate) fn locations(input: &Value, dir: &Path) -> Vec<ToolCallLocation> {
    let Some(file) = file_of(input) else {
        return Vec::new();
    };
    let path = absolute(file, dir);
    let line = input
        .get("offset")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok());
    vec![ToolCallLocation::new(path).line(line)]
}

fn absolute(file: &str, dir: &Path) -> PathBuf {
    let p = Path::new(file);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        dir.join(p)
    }
}

/// An edit's or write's change as a diff (`edit`: the replaced and the new text; `write`: the
/// whole new content), when the input has one.
pub(crate) fn diff(input: &Value, dir: &Path) -> Option<Diff> {
    let file = file_of(input)?;
    let path = absolute(file, dir);
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(new) = text("newString") {
        let old = text("oldString").filter(|o| !o.is_empty());
        return Some(Diff::new(path, new).old_text(old));
    }
    text("content").map(|new| Diff::new(path, new))
}

/// The content shown under the call: the diff for an edit, else the output (or error) text
/// once the call has finished.
pub(crate) fn content(part: &ToolPart, kind: &ToolKind, dir: &Path) -> Vec<ToolCallContent> {
    let input = input_of(part);
    let mut out = Vec::new();
    if *kind == ToolKind::Edit
        && let Some(d) = diff(input, dir)
    {
        out.push(ToolCallContent::Diff(d));
    }
    let text = match &part.state {
        ToolState::Completed(c) if *kind != ToolKind::Edit => Some(c.output.clone()),
        ToolState::Error(f) => Some(f.error.clone()),
        _ => None,
    };
    if let Some(t) = text.filter(|t| !t.is_empty()) {
        out.push(ToolCallContent::Content(Content::new(ContentBlock::from(
            t,
        ))));
    }
    out
}

/// The first report of a call (`tool_call`).
pub(crate) fn started(part: &ToolPart, declared: Option<&Declared>, dir: &Path) -> ToolCall {
    let input = input_of(part);
    let kind = kind(declared);
    ToolCall::new(part.call_id.clone(), title(part))
        .content(content(part, &kind, dir))
        .kind(kind)
        .status(status(&part.state))
        .locations(locations(input, dir))
        .raw_input(non_empty(input))
}

/// A later report of the same call (`tool_call_update`).
pub(crate) fn updated(part: &ToolPart, declared: Option<&Declared>, dir: &Path) -> ToolCallUpdate {
    let input = input_of(part);
    let kind = kind(declared);
    let mut fields = ToolCallUpdateFields::new()
        .status(status(&part.state))
        .title(title(part))
        .content(content(part, &kind, dir))
        .kind(kind);
    if !matches!(part.state, ToolState::Pending(_)) {
        fields = fields
            .locations(locations(input, dir))
            .raw_input(non_empty(input));
    }
    ToolCallUpdate::new(part.call_id.clone(), fields)
}

fn non_empty(input: &Value) -> Option<Value> {
    match input {
        Value::Object(m) if m.is_empty() => None,
        Value::Null => None,
        v => Some(v.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BASH: Effects = Effects {
        read_only: false,
        destructive: true,
        concurrency_safe: false,
        open_world: true,
    };
    const TODO: Effects = Effects {
        read_only: false,
        destructive: false,
        concurrency_safe: false,
        open_world: false,
    };
    const FETCH: Effects = Effects {
        read_only: true,
        destructive: false,
        concurrency_safe: true,
        open_world: true,
    };

    fn declared(effects: Effects, params: Value) -> Option<Declared> {
        let schema = Arc::new(json!({"type": "object", "properties": params}));
        Some(Declared { effects, schema })
    }

    #[test]
    fn kinds_follow_the_declared_effects_and_parameters() {
        let file = json!({"filePath": {"type": "string"}});
        let read = declared(Effects::READ_ONLY, file.clone());
        assert_eq!(kind(read.as_ref()), ToolKind::Read);
        let grep = declared(Effects::READ_ONLY, json!({"pattern": {}, "path": {}}));
        assert_eq!(kind(grep.as_ref()), ToolKind::Search);
        assert_eq!(
            kind(declared(Effects::WRITES, file).as_ref()),
            ToolKind::Edit
        );
        let bash = declared(BASH, json!({"command": {}}));
        assert_eq!(kind(bash.as_ref()), ToolKind::Execute);
        assert_eq!(
            kind(declared(FETCH, json!({"url": {}})).as_ref()),
            ToolKind::Fetch
        );
        assert_eq!(
            kind(declared(TODO, json!({"todos": {}})).as_ref()),
            ToolKind::Think
        );
        assert_eq!(kind(None), ToolKind::Other);
        let skill = declared(Effects::READ_ONLY, json!({"name": {}}));
        assert_eq!(kind(skill.as_ref()), ToolKind::Other);
    }

    #[test]
    fn an_edit_is_a_diff_of_old_and_new_text_at_an_absolute_path() {
        let dir = Path::new("/p");
        let d = diff(
            &json!({"filePath": "src/a.rs", "oldString": "x", "newString": "y"}),
            dir,
        )
        .unwrap();
        assert_eq!(d.path, PathBuf::from("/p/src/a.rs"));
        assert_eq!(d.old_text.as_deref(), Some("x"));
        assert_eq!(d.new_text, "y");
        let w = diff(&json!({"filePath": "/q/b.txt", "content": "all"}), dir).unwrap();
        assert_eq!(
            (w.path, w.old_text, w.new_text),
            ("/q/b.txt".into(), None, "all".into())
        );
        assert!(diff(&json!({"command": "ls"}), dir).is_none());
    }

    #[test]
    fn a_location_carries_the_line_a_read_starts_at() {
        let l = locations(&json!({"filePath": "a.rs", "offset": 40}), Path::new("/p"));
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].path, PathBuf::from("/p/a.rs"));
        assert_eq!(l[0].line, Some(40));
        assert!(locations(&json!({"command": "ls"}), Path::new("/p")).is_empty());
    }

    #[test]
    fn a_finished_call_shows_its_output_and_an_edit_its_diff_only() {
        let part: ToolPart = serde_json::from_value(json!({
            "callID": "c1", "tool": "read",
            "state": {"status": "completed", "input": {"filePath": "a"}, "output": "1: hi",
                      "title": "a", "metadata": {}, "time": {"start": 1, "end": 2}}
        }))
        .unwrap();
        let c = content(&part, &ToolKind::Read, Path::new("/p"));
        assert!(matches!(&c[..], [ToolCallContent::Content(_)]));
        let edit: ToolPart = serde_json::from_value(json!({
            "callID": "c2", "tool": "edit",
            "state": {"status": "completed", "output": "Edit applied successfully.",
                      "input": {"filePath": "a", "oldString": "1", "newString": "2"},
                      "title": "a", "metadata": {}, "time": {"start": 1, "end": 2}}
        }))
        .unwrap();
        let c = content(&edit, &ToolKind::Edit, Path::new("/p"));
        assert!(matches!(&c[..], [ToolCallContent::Diff(_)]));
        assert_eq!(status(&edit.state), ToolCallStatus::Completed);
        assert_eq!(title(&edit), "a");
    }
}
