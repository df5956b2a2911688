//! `strata tool` with the tools that change things: write, edit, apply_patch and bash, and
//! the project's permission rules applied to them.

use crate::common::Project;
use serde_json::json;

fn args(value: serde_json::Value) -> String {
    value.to_string()
}

#[test]
fn write_creates_a_file_in_the_project() {
    let p = Project::new();
    let call = args(json!({"filePath": "src/new.txt", "content": "fresh\ncontent\n"}));
    let run = p.strata(&["tool", "write", &call]);
    run.expect_code(0);
    assert_eq!(
        std::fs::read_to_string(p.dir.join("src/new.txt")).unwrap(),
        "fresh\ncontent\n"
    );
}

#[test]
fn write_replaces_a_file_never_read_since_read_before_edit_is_off() {
    let p = Project::new();
    let file = p.file("old.txt", "before\n");
    let call = args(json!({"filePath": file.display().to_string(), "content": "after\n"}));
    let run = p.strata(&["tool", "write", &call, "--format", "json"]);
    run.expect_code(0);
    assert_eq!(run.json()["title"], "old.txt");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "after\n");
}

#[test]
fn edit_replaces_the_text_in_place() {
    let p = Project::new();
    let file = p.file("src/main.rs", "fn main() {\n    println!(\"old\");\n}\n");
    let call = args(json!({
        "filePath": "src/main.rs",
        "oldString": "println!(\"old\");",
        "newString": "println!(\"new\");",
    }));
    let run = p.strata(&["tool", "edit", &call]);
    run.expect_code(0);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "fn main() {\n    println!(\"new\");\n}\n"
    );
}

#[test]
fn edit_without_a_match_fails_and_leaves_the_file() {
    let p = Project::new();
    let file = p.file("a.txt", "one\n");
    let call = args(json!({"filePath": "a.txt", "oldString": "two", "newString": "three"}));
    let run = p.strata(&["tool", "edit", &call]);
    run.expect_code(1);
    assert!(!run.stderr.trim().is_empty(), "the error is explained");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\n");
}

#[test]
fn apply_patch_adds_updates_and_deletes_files() {
    let p = Project::new();
    let keep = p.file("keep.txt", "first\nsecond\nthird\n");
    let gone = p.file("gone.txt", "bye\n");
    let patch = [
        "*** Begin Patch",
        "*** Add File: added/new.txt",
        "+hello",
        "+patch",
        "*** Update File: keep.txt",
        "@@",
        " first",
        "-second",
        "+SECOND",
        " third",
        "*** Delete File: gone.txt",
        "*** End Patch",
    ]
    .join("\n");
    let run = p.strata(&["tool", "apply_patch", &args(json!({"patchText": patch}))]);
    run.expect_code(0);
    assert_eq!(
        std::fs::read_to_string(p.dir.join("added/new.txt")).unwrap(),
        "hello\npatch\n"
    );
    assert_eq!(
        std::fs::read_to_string(&keep).unwrap(),
        "first\nSECOND\nthird\n"
    );
    assert!(!gone.exists());
}

#[test]
fn bash_runs_the_command_in_the_project() {
    let p = Project::new();
    let run = p.strata(&[
        "tool",
        "bash",
        &args(json!({"command": "echo hi"})),
        "--yes",
    ]);
    run.expect_code(0);
    assert_eq!(run.stdout.lines().next(), Some("hi"), "{}", run.stdout);

    let run = p.strata(&["tool", "bash", &args(json!({"command": "pwd > where.txt"}))]);
    run.expect_code(0);
    assert_eq!(
        std::fs::read_to_string(p.dir.join("where.txt"))
            .unwrap()
            .trim(),
        p.dir_str()
    );
}

#[test]
fn bash_reports_a_failing_status_without_failing_the_call() {
    let p = Project::new();
    let run = p.strata(&[
        "tool",
        "bash",
        &args(json!({"command": "echo partial; exit 3"})),
        "--format",
        "json",
    ]);
    run.expect_code(0);
    let doc = run.json();
    let output = doc["output"].as_str().unwrap();
    assert!(output.contains("partial"), "{output}");
    assert!(output.contains('3'), "the status is reported: {output}");
}

#[test]
fn an_ask_rule_in_the_project_config_needs_yes() {
    let p = Project::new();
    p.file(
        "strata.json",
        r#"{"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}}"#,
    );
    let call = args(json!({"command": "touch ran.txt"}));
    let run = p.strata(&["tool", "bash", &call]);
    run.expect_code(1);
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);
    assert!(!p.dir.join("ran.txt").exists(), "the command did not run");

    let run = p.strata(&["tool", "bash", &call, "--yes"]);
    run.expect_code(0);
    assert!(p.dir.join("ran.txt").exists());
}

#[test]
fn a_deny_rule_wins_over_yes() {
    let p = Project::new();
    p.file("strata.json", r#"{"permission": {"bash": "deny"}}"#);
    let run = p.strata(&[
        "tool",
        "bash",
        &args(json!({"command": "touch ran.txt"})),
        "--yes",
    ]);
    run.expect_code(1);
    assert!(
        run.stderr.contains("blocked by a permission rule"),
        "{}",
        run.stderr
    );
    assert!(!p.dir.join("ran.txt").exists(), "the command did not run");
}

#[test]
fn a_bad_lsp_or_formatter_config_names_the_key_and_changes_nothing() {
    let p = Project::new();
    for (config, key) in [
        (r#"{"lsp": "yes"}"#, "(in the config's `lsp` key)"),
        (
            r#"{"formatter": {"x": {"command": ["f"]}}}"#,
            "`formatter.x.extensions`",
        ),
    ] {
        p.file("strata.json", config);
        let run = p.strata(&[
            "tool",
            "write",
            &args(json!({"filePath": "new.txt", "content": "x"})),
            "--yes",
        ]);
        run.expect_code(1);
        assert!(run.stderr.contains(key), "{}", run.stderr);
        assert!(!p.dir.join("new.txt").exists());
    }
}
