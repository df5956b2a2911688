//! The JSON object a hook reads on stdin, with Claude Code's field names: `session_id`, `cwd`,
//! `hook_event_name`, then the event's own fields (`tool_name` and `tool_input` for the tool
//! events, `prompt`, `stop_hook_active`, …). Tool inputs keep Strata's fields and gain their
//! Claude Code twins (`filePath` is also `file_path`), so scripts written for either read
//! what they expect.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::HookEvent;
use super::matcher::names_of;

/// The whole stdin object: the common fields, then `fields` (an object) merged in.
pub fn payload(event: HookEvent, session_id: &str, cwd: &Path, fields: Value) -> Value {
    let mut out = json!({
        "session_id": session_id,
        "cwd": cwd.to_string_lossy(),
        "hook_event_name": event.name(),
    });
    if let (Value::Object(out), Value::Object(fields)) = (&mut out, fields) {
        out.extend(fields);
    }
    out
}

/// `tool_name`, `strata_tool_name` and `tool_input` for a tool event: the name is Claude
/// Code's when the tool has a twin there, else Strata's.
pub fn tool_fields(tool: &str, mcp: Option<(&str, &str)>, input: &Value) -> Value {
    let name = names_of(tool, mcp)
        .into_iter()
        .next()
        .unwrap_or_else(|| tool.to_string());
    json!({
        "tool_name": name,
        "strata_tool_name": tool,
        "tool_input": tool_input(tool, input),
    })
}

/// Strata's input with Claude Code's field names added beside their twins.
pub fn tool_input(tool: &str, input: &Value) -> Value {
    let Value::Object(fields) = input else {
        return input.clone();
    };
    let mut out = fields.clone();
    let twins: &[(&str, &str)] = &[
        ("filePath", "file_path"),
        ("oldString", "old_string"),
        ("newString", "new_string"),
        ("replaceAll", "replace_all"),
    ];
    for (ours, theirs) in twins {
        if let Some(v) = fields.get(*ours) {
            out.entry(*theirs).or_insert_with(|| v.clone());
        }
    }
    if tool == "apply_patch" {
        add_patch_files(&mut out);
    }
    Value::Object(out)
}

/// A patch lists its files as `file_paths`, the first also as `file_path`.
fn add_patch_files(out: &mut Map<String, Value>) {
    let Some(patch) = out.get("patchText").and_then(Value::as_str) else {
        return;
    };
    let files = patch_files(patch);
    if let Some(first) = files.first() {
        out.entry("file_path").or_insert_with(|| json!(first));
    }
    out.insert("file_paths".into(), json!(files));
}

/// The files a patch adds, updates, deletes or moves to, in order, each once.
pub fn patch_files(patch: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    let mut files: Vec<String> = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end();
        let Some(path) = HEADERS.iter().find_map(|h| line.strip_prefix(h)) else {
            continue;
        };
        let path = path.trim().to_string();
        if !path.is_empty() && !files.contains(&path) {
            files.push(path);
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_reads_with_either_names() {
        let input = json!({"filePath": "/p/a.rs", "oldString": "a", "newString": "b"});
        let fields = tool_fields("edit", None, &input);
        assert_eq!(fields["tool_name"], "Edit");
        assert_eq!(fields["strata_tool_name"], "edit");
        let t = &fields["tool_input"];
        assert_eq!(
            (t["file_path"].as_str(), t["filePath"].as_str()),
            (Some("/p/a.rs"), Some("/p/a.rs"))
        );
        assert_eq!(
            (t["old_string"].as_str(), t["new_string"].as_str()),
            (Some("a"), Some("b"))
        );
    }

    #[test]
    fn bash_and_mcp_and_unknown_tools_are_named() {
        let bash = tool_fields("bash", None, &json!({"command": "ls"}));
        assert_eq!(
            (
                bash["tool_name"].as_str(),
                bash["tool_input"]["command"].as_str()
            ),
            (Some("Bash"), Some("ls"))
        );
        let mcp = tool_fields("gh_issue", Some(("gh", "issue")), &json!({}));
        assert_eq!(mcp["tool_name"], "mcp__gh__issue");
        assert_eq!(tool_fields("lsp", None, &json!({}))["tool_name"], "lsp");
    }

    #[test]
    fn a_patch_lists_its_files() {
        let patch = "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@\n-x\n+y\n*** Delete File: old.txt\n*** Update File: new.txt\n*** End Patch\n";
        assert_eq!(
            patch_files(patch),
            ["new.txt", "src/a.rs", "src/b.rs", "old.txt"]
        );
        let t = tool_input("apply_patch", &json!({"patchText": patch}));
        assert_eq!(t["file_path"], "new.txt");
        assert_eq!(t["file_paths"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn the_payload_has_the_common_fields_first() {
        let p = payload(
            HookEvent::Stop,
            "ses_1",
            Path::new("/p"),
            json!({"stop_hook_active": false}),
        );
        assert_eq!(
            p,
            json!({"session_id": "ses_1", "cwd": "/p", "hook_event_name": "Stop", "stop_hook_active": false})
        );
    }
}
