//! `isolation: worktree` subagents on real git: each child works in a worktree of its own,
//! so two children editing one file in the same step do not clobber each other or the main
//! checkout; an unchanged worktree goes when its child ends, a changed one is kept and
//! reported to the parent.

use std::path::Path;

use serde_json::{Value, json};
use strata_agent::session::{LoopServices, RunOutcome};
use strata_agent::store::Store;
use strata_services::flags::RuntimeFlags;
use strata_services::worktree::Worktrees;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Turn, call};

use crate::loop_support::{graph_runner, options, run, tool_parts};

const WORKER: &str = "---\ndescription: Edits files in a worktree of its own\nmode: \
                      subagent\nisolation: worktree\n---\nDo the edit you are asked for.\n";

fn instance() -> strata_testkit::TestInstanceBuilder {
    TestInstance::builder()
        .graph(strata_agent::production())
        .git(true)
        .file("a.txt", "base\n")
        .file(".strata/agents/worker.md", WORKER)
}

fn task(id: &str, prompt: &str) -> (String, String, String) {
    let args = json!({"description": "Edit a.txt", "prompt": prompt, "subagent_type": "worker"});
    call(id, "task", &args.to_string())
}

fn bash(id: &str, command: &str) -> Turn {
    Turn::tool_call(
        id,
        "bash",
        &json!({"command": command, "description": "edit"}).to_string(),
    )
}

fn store(t: &TestInstance) -> Store {
    LoopServices::from_context(t.context()).unwrap().store
}

fn children(store: &Store, parent: &str) -> Vec<strata_agent::store::Session> {
    let mut kids: Vec<_> = store
        .list_sessions(None)
        .unwrap()
        .into_iter()
        .filter(|s| s.parent_id.as_deref() == Some(parent))
        .collect();
    kids.sort_by_key(|s| s.title.clone());
    kids
}

fn output(part: &Value) -> String {
    part["state"]["output"]
        .as_str()
        .or_else(|| part["state"]["error"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// The top of the worktree a child's directory is in.
fn top(dir: &Path) -> std::path::PathBuf {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().into()
}

#[tokio::test]
async fn two_isolated_children_edit_one_file_in_their_own_worktrees_and_are_reported() {
    strata_testkit::require_external!("git", "apt-get install git");
    instance()
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![
                    task("c1", "CHILD-A: write A"),
                    task("c2", "CHILD-B: write B"),
                ]),
                Turn::text("both kept"),
            ]);
            server.route(
                "CHILD-A",
                vec![
                    bash("a1", "printf 'from A\\n' > a.txt"),
                    Turn::text("A wrote"),
                ],
            );
            server.route(
                "CHILD-B",
                vec![
                    bash("b1", "printf 'from B\\n' > a.txt"),
                    Turn::text("B wrote"),
                ],
            );
            let runner = graph_runner(&t, &server, options());
            let ran = run(&t, &runner, "both").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(
                std::fs::read_to_string(t.dir().join("a.txt")).unwrap(),
                "base\n",
                "the main checkout is untouched"
            );
            let store = store(&t);
            let kids = children(&store, &ran.session_id);
            assert_eq!(kids.len(), 2);
            let data = t.get::<RuntimeFlags>().data_dir;
            let dirs: Vec<_> = kids.iter().map(|k| k.directory.clone()).collect();
            assert_ne!(dirs[0], dirs[1]);
            for dir in &dirs {
                assert!(dir.starts_with(data.join("worktrees")), "{}", dir.display());
            }
            let contents: Vec<String> = dirs
                .iter()
                .map(|d| std::fs::read_to_string(d.join("a.txt")).unwrap())
                .collect();
            let mut sorted = contents.clone();
            sorted.sort();
            assert_eq!(sorted, ["from A\n", "from B\n"]);

            let parts = tool_parts(&store, &ran.session_id);
            for part in &parts {
                let out = output(part);
                assert_eq!(part["state"]["status"], "completed", "{out}");
                let child = kids
                    .iter()
                    .find(|k| out.contains(&format!("<task id=\"{}\"", k.id)))
                    .unwrap();
                let wt = top(&child.directory);
                let name = wt.file_name().unwrap().to_string_lossy().into_owned();
                let head = format!(
                    "<worktree path=\"{}\" branch=\"strata/{name}\">",
                    wt.display()
                );
                assert!(out.contains(&head), "{out}");
                assert!(out.contains("1 uncommitted file(s)"), "{out}");
                assert!(out.contains("a.txt | 2 +-"), "{out}");
            }

            let listed =
                Worktrees::new(strata_services::process::ChildProcessSpawner::live(), &data)
                    .list(t.dir())
                    .await
                    .unwrap();
            assert_eq!(listed.len(), 2);
            assert!(listed.iter().all(|w| w.changed == ["a.txt"]), "{listed:?}");
        })
        .await;
}

#[tokio::test]
async fn an_isolated_child_that_changes_nothing_leaves_no_worktree_behind() {
    strata_testkit::require_external!("git", "apt-get install git");
    instance()
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![task("c1", "CHILD-C: look only")]),
                Turn::text("clean"),
            ]);
            server.route(
                "CHILD-C",
                vec![bash("k1", "pwd && cat a.txt"), Turn::text("looked")],
            );
            let runner = graph_runner(&t, &server, options());
            let ran = run(&t, &runner, "look").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let store = store(&t);
            let kid = &children(&store, &ran.session_id)[0];
            let data = t.get::<RuntimeFlags>().data_dir;
            assert!(kid.directory.starts_with(data.join("worktrees")));
            assert!(!kid.directory.exists(), "the clean worktree was removed");
            // The child's command ran in the worktree, not in the main checkout.
            let bash_part = &tool_parts(&store, &kid.id)[0];
            let out = output(bash_part);
            assert!(out.contains(&kid.directory.display().to_string()), "{out}");
            assert!(out.contains("base"), "{out}");
            let parent_out = output(&tool_parts(&store, &ran.session_id)[0]);
            assert!(parent_out.contains("looked"), "{parent_out}");
            assert!(!parent_out.contains("<worktree"), "{parent_out}");
            let branches = std::process::Command::new("git")
                .args(["branch", "--list", "strata/*"])
                .current_dir(t.dir())
                .output()
                .unwrap();
            assert!(branches.stdout.is_empty(), "the branch went too");
        })
        .await;
}
