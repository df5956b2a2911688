//! The system prompt of a run: the project's and the user's instruction files reach the first
//! request, each under its path, and `read` does not attach one of them again.

use crate::loop_support::*;
use serde_json::json;
use strata_agent::session::RunOutcome;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Turn, call};

#[tokio::test]
async fn the_first_request_carries_every_instruction_file_in_order() {
    TestInstance::builder()
        // The worktree root is the folder holding the project.
        .outside_file(".git/HEAD", "ref: refs/heads/main\n")
        .outside_file("AGENTS.md", "Root rule: run the whole test suite.")
        .outside_file("home/.config/strata/AGENTS.md", "Global rule: be terse.")
        .file("CLAUDE.md", "Project rule: tabs, not spaces.")
        .file("docs/a.md", "Doc rule A.")
        .file("docs/b.md", "Doc rule B.")
        .file("docs/deeper/c.md", "Not matched by docs/*.md.")
        .config(json!({"instructions": ["docs/*.md", "missing.md"]}))
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::text("ok")]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "hello").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let system = server.sent()[0].system.clone();
            let dir = t.dir();
            let root = dir.parent().unwrap();
            let expected = [
                (root.join("home/.config/strata/AGENTS.md"), "Global rule"),
                (root.join("AGENTS.md"), "Root rule"),
                (dir.join("CLAUDE.md"), "Project rule"),
                (dir.join("docs/a.md"), "Doc rule A."),
                (dir.join("docs/b.md"), "Doc rule B."),
            ];
            let mut at = 0;
            for (path, text) in expected {
                let label = format!("Instructions from: {}\n{text}", path.display());
                let found = system[at..]
                    .find(&label)
                    .unwrap_or_else(|| panic!("{label:?} missing or out of order in:\n{system}"));
                at += found + label.len();
            }
            assert!(!system.contains("Not matched"), "{system}");
            assert!(system.contains(&format!("- Worktree: {}", root.display())));
        })
        .await;
}

#[tokio::test]
async fn read_does_not_attach_an_instruction_file_the_prompt_holds() {
    TestInstance::builder()
        .file("docs/AGENTS.md", "Docs rule: cite sources.")
        .file("docs/notes.txt", "some notes\n")
        .file("other/AGENTS.md", "Other rule: keep it short.")
        .file("other/x.txt", "x\n")
        .config(json!({"instructions": ["docs/AGENTS.md"]}))
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![
                    call("c1", "read", r#"{"filePath":"docs/notes.txt"}"#),
                    call("c2", "read", r#"{"filePath":"other/x.txt"}"#),
                ]),
                Turn::text("ok"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "read them").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let sent = server.sent();
            assert!(sent[0].system.contains("Docs rule: cite sources."));
            let results = sent[1].results();
            assert!(results[0].1.contains("some notes"));
            assert!(
                !results[0].1.contains("<system-reminder>"),
                "already in the prompt: {}",
                results[0].1
            );
            assert!(
                results[1].1.contains("<system-reminder>")
                    && results[1].1.contains("Other rule: keep it short."),
                "{}",
                results[1].1
            );
        })
        .await;
}
