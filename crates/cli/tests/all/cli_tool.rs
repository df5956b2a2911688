//! `strata tool NAME 'JSON'` with the read-only tools: outputs, formats, exit codes and how a
//! permission ask is answered at the command line.

use crate::common::Project;
use serde_json::json;

fn args(value: serde_json::Value) -> String {
    value.to_string()
}

/// A file in its own temporary directory, outside any test project.
fn outside_file(content: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("create a directory outside the project");
    let file = dir.path().join("outside.txt");
    std::fs::write(&file, content).expect("write the outside file");
    let path = std::fs::canonicalize(&file).expect("canonicalize the outside file");
    (dir, path.display().to_string())
}

#[test]
fn read_prints_the_numbered_page() {
    let p = Project::new();
    let file = p.file("notes.txt", "alpha\nbeta\n");
    let run = p.strata(&["tool", "read", &args(json!({"filePath": "notes.txt"}))]);
    run.expect_code(0);
    let expected = format!(
        "<path>{}</path>\n<type>file</type>\n<content>\n1: alpha\n2: beta\n\n\
         (End of file - 2 lines in total)\n</content>\n",
        file.display()
    );
    assert_eq!(run.stdout, expected);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn read_honours_offset_limit_and_dir() {
    let p = Project::new();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let file = p.file("ten.txt", text);
    let elsewhere = Project::new();
    let run = elsewhere.strata(&[
        "tool",
        "read",
        &args(json!({"filePath": "ten.txt", "offset": 4, "limit": 2})),
        "--dir",
        &p.dir_str(),
    ]);
    run.expect_code(0);
    assert!(
        run.stdout
            .starts_with(&format!("<path>{}</path>", file.display()))
    );
    assert!(
        run.stdout.contains("4: line 4\n5: line 5\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("3: line 3"), "{}", run.stdout);
    assert!(!run.stdout.contains("6: line 6"), "{}", run.stdout);
}

#[test]
fn read_as_json_has_title_output_metadata_and_attachments() {
    let p = Project::new();
    p.file("src/notes.txt", "alpha\nbeta\n");
    let plain = p.strata(&["tool", "read", &args(json!({"filePath": "src/notes.txt"}))]);
    let run = p.strata(&[
        "tool",
        "read",
        &args(json!({"filePath": "src/notes.txt"})),
        "--format",
        "json",
    ]);
    run.expect_code(0);
    let doc = run.json();
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["title", "output", "metadata", "attachments"]);
    assert_eq!(doc["title"], "src/notes.txt");
    assert_eq!(
        doc["output"].as_str().map(|o| format!("{o}\n")),
        Some(plain.stdout),
        "the JSON output is what the default format prints"
    );
    assert_eq!(doc["metadata"]["preview"], "alpha\nbeta");
    assert_eq!(doc["metadata"]["truncated"], false);
    assert_eq!(doc["attachments"], json!([]));
}

#[test]
fn read_of_a_missing_file_fails_with_the_not_found_message() {
    let p = Project::new();
    p.file("notes.txt", "x\n");
    let missing = p.dir.join("nope.txt");
    let run = p.strata(&["tool", "read", &args(json!({"filePath": "nope.txt"}))]);
    run.expect_code(1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr
            .contains(&format!("File not found: {}", missing.display())),
        "{}",
        run.stderr
    );

    // Close names are suggested.
    let run = p.strata(&["tool", "read", &args(json!({"filePath": "notes"}))]);
    run.expect_code(1);
    assert!(run.stderr.contains("Did you mean"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&p.dir.join("notes.txt").display().to_string()),
        "{}",
        run.stderr
    );
}

#[test]
fn a_tool_error_as_json_is_an_error_object() {
    let p = Project::new();
    let run = p.strata(&[
        "tool",
        "read",
        &args(json!({"filePath": "nope.txt"})),
        "--format",
        "json",
    ]);
    run.expect_code(1);
    let doc = run.json();
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["error"]);
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .starts_with("File not found: "),
        "{doc}"
    );
}

#[test]
fn an_unknown_tool_is_a_usage_error_listing_the_tools() {
    let p = Project::new();
    let run = p.strata(&["tool", "frobnicate", "{}"]);
    run.expect_code(2);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.contains("`frobnicate`"), "{}", run.stderr);
    let available = run
        .stderr
        .split_once("Available: ")
        .map(|(_, list)| list.trim().split(", ").collect::<Vec<_>>())
        .unwrap_or_else(|| panic!("the tools are listed: {}", run.stderr));
    for id in ["read", "glob", "grep", "bash"] {
        assert!(available.contains(&id), "{available:?}");
    }
}

#[test]
fn arguments_that_are_not_json_are_a_usage_error() {
    let p = Project::new();
    for bad in ["{filePath: notes.txt}", "notes.txt", "{\"filePath\":"] {
        let run = p.strata(&["tool", "read", bad]);
        run.expect_code(2);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert!(run.stderr.contains("not valid JSON"), "{}", run.stderr);
        assert!(
            run.stderr.contains(bad),
            "the input is echoed: {}",
            run.stderr
        );
    }
}

#[test]
fn json_that_does_not_fit_the_schema_is_a_tool_error() {
    let p = Project::new();
    let run = p.strata(&["tool", "read", &args(json!({"path": "notes.txt"}))]);
    run.expect_code(1);
    assert!(run.stderr.contains("filePath"), "{}", run.stderr);
}

#[test]
fn reading_outside_the_project_without_a_terminal_is_refused_naming_yes() {
    let p = Project::new();
    let (_dir, file) = outside_file("far away\n");
    let run = p.strata(&["tool", "read", &args(json!({"filePath": file}))]);
    run.expect_code(1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);
    assert!(run.stderr.contains("external_directory"), "{}", run.stderr);
    assert!(
        !run.stderr.contains("far away"),
        "nothing was read: {}",
        run.stderr
    );
}

#[test]
fn reading_outside_the_project_with_yes_succeeds() {
    let p = Project::new();
    let (_dir, file) = outside_file("far away\n");
    let run = p.strata(&["tool", "read", &args(json!({"filePath": file})), "--yes"]);
    run.expect_code(0);
    assert!(run.stdout.contains("1: far away"), "{}", run.stdout);
    assert!(!run.stderr.contains("--yes"), "{}", run.stderr);
}

#[test]
fn on_a_terminal_the_ask_is_prompted_and_answered() {
    // The pseudo-terminal comes from `script` (util-linux).
    strata_testkit::require_external!("script", "apt-get install bsdutils");
    let p = Project::new();
    let (_dir, file) = outside_file("far away\n");
    let call = args(json!({"filePath": file}));
    let run = p.strata_on_tty(&["tool", "read", &call], "o\n");
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("Permission needed: `external_directory`"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("1: far away"), "{}", run.stdout);

    let run = p.strata_on_tty(&["tool", "read", &call], "r\nnot that one\n");
    run.expect_code(1);
    assert!(
        run.stdout.contains("not that one"),
        "the feedback is relayed: {}",
        run.stdout
    );
    assert!(!run.stdout.contains("1: far away"), "{}", run.stdout);
}

#[test]
fn glob_and_grep_find_project_files() {
    let p = Project::new();
    let lib = p.file("src/lib.rs", "pub fn needle() {}\n");
    p.file("src/other.txt", "no match here\n");
    let run = p.strata(&["tool", "glob", &args(json!({"pattern": "**/*.rs"}))]);
    run.expect_code(0);
    assert_eq!(run.stdout.trim(), lib.display().to_string());

    let run = p.strata(&["tool", "grep", &args(json!({"pattern": "fn\\s+needle"}))]);
    run.expect_code(0);
    assert!(
        run.stdout.contains(&lib.display().to_string()),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("pub fn needle() {}"), "{}", run.stdout);
    assert!(!run.stdout.contains("other.txt"), "{}", run.stdout);
}
