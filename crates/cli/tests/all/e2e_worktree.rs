//! Worktree sessions end to end on real git: `strata run --worktree`, `strata session show`,
//! `strata worktree list | remove`, a commit from a sandboxed worktree session, and the
//! server's `/experimental/worktree` routes over HTTP.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use strata_testkit::model_server::{ModelServer, Turn};

use crate::common::Project;
use crate::e2e_run_support::{json_lines, run, strata};
use crate::e2e_serve_support::serve;

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The project as a repository with `a.txt` committed.
pub(crate) fn repository(p: &Project) {
    p.file("a.txt", "base\n");
    git(&p.dir, &["init", "-q", "-b", "main"]);
    git(&p.dir, &["add", "-A"]);
    git(&p.dir, &["commit", "-q", "-m", "first"]);
}

/// The folder of the worktree `name` under the data directory.
pub(crate) fn worktree_dir(p: &Project, name: &str) -> PathBuf {
    let root = p.data.join("worktrees");
    let project = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .next()
        .unwrap()
        .unwrap()
        .path();
    project.join(name)
}

fn bash(id: &str, command: &str) -> Turn {
    Turn::tool_call(
        id,
        "bash",
        &json!({"command": command, "description": "step"}).to_string(),
    )
}

#[test]
fn a_worktree_run_writes_there_and_is_shown_listed_and_removed_only_with_force() {
    strata_testkit::require_external!("git", "apt-get install git");
    let p = Project::new();
    repository(&p);
    let server = ModelServer::start(vec![
        bash("c1", "printf 'changed\\n' > a.txt && pwd"),
        Turn::text("done"),
    ]);
    let ran = run(
        &p,
        &server,
        &[
            "--worktree",
            "w1",
            "--yes",
            "--format",
            "json",
            "change a.txt",
        ],
    );
    ran.expect_code(0);
    assert!(
        ran.stderr.contains("made the worktree w1"),
        "{}",
        ran.stderr
    );
    let wt = worktree_dir(&p, "w1");
    assert_eq!(
        std::fs::read_to_string(wt.join("a.txt")).unwrap(),
        "changed\n"
    );
    assert_eq!(
        std::fs::read_to_string(p.dir.join("a.txt")).unwrap(),
        "base\n"
    );
    assert_eq!(git(&wt, &["branch", "--show-current"]).trim(), "strata/w1");
    let lines = json_lines(&ran);
    let session = lines[0]["sessionID"].as_str().unwrap().to_string();

    let show = strata(&p, &server, &["session", "show", &session]);
    show.expect_code(0);
    let named = format!("worktree w1 (branch strata/w1) at {}", wt.display());
    assert!(show.stdout.contains(&named), "{}", show.stdout);

    let list = strata(&p, &server, &["worktree", "list"]);
    list.expect_code(0);
    assert!(
        list.stdout.contains("w1  strata/w1  1 changed file(s)"),
        "{}",
        list.stdout
    );
    let listed = strata(&p, &server, &["worktree", "list", "--format", "json"]).json();
    assert_eq!(listed[0]["changed"], json!(["a.txt"]));

    // The same name again takes the worktree as it is.
    let server2 = ModelServer::start(vec![bash("c2", "cat a.txt"), Turn::text("seen")]);
    let again = run(&p, &server2, &["--yes", "look", "--worktree=w1"]);
    again.expect_code(0);
    assert!(
        again.stderr.contains("reusing the worktree w1"),
        "{}",
        again.stderr
    );

    let refused = strata(&p, &server, &["worktree", "remove", "w1"]);
    refused.expect_code(1);
    assert!(
        refused
            .stderr
            .contains("1 uncommitted changed file(s) (a.txt)")
            && refused.stderr.contains("--force"),
        "{}",
        refused.stderr
    );
    assert!(wt.join("a.txt").exists());
    let removed = strata(&p, &server, &["worktree", "remove", "w1", "--force"]);
    removed.expect_code(0);
    assert!(!wt.exists());
    assert!(
        removed.stdout.contains("deleted the branch strata/w1"),
        "{}",
        removed.stdout
    );
    let shown = strata(&p, &server, &["session", "show", &session]);
    assert!(shown.stdout.contains("since removed"), "{}", shown.stdout);
}

#[test]
fn a_worktree_outside_a_repository_or_with_a_bad_name_is_refused() {
    strata_testkit::require_external!("git", "apt-get install git");
    let p = Project::new();
    let server = ModelServer::start(vec![Turn::text("never")]);
    let plain = run(&p, &server, &["go", "--worktree"]);
    plain.expect_code(1);
    assert!(
        plain.stderr.contains("is not inside a git repository"),
        "{}",
        plain.stderr
    );
    repository(&p);
    let bad = run(&p, &server, &["--worktree", "fix the bug", "now"]);
    bad.expect_code(2);
    assert!(
        bad.stderr.contains("cannot name a worktree"),
        "{}",
        bad.stderr
    );
    assert!(bad.stderr.contains("--worktree=NAME"), "{}", bad.stderr);
    assert!(server.requests().is_empty());
}

#[test]
fn a_sandboxed_worktree_session_can_commit_but_not_write_the_main_checkout() {
    strata_testkit::require_external!("git", "apt-get install git");
    let p = Project::outside_temp();
    repository(&p);
    let mode = p.strata(&["debug", "sandbox", "--format", "json"]).json()["mode"].clone();
    if mode == "off" {
        println!("skipped: the sandbox is not enforced on this kernel");
        return;
    }
    let escape = p.dir.join("escape.txt");
    let commit = "printf 'x\\n' > new.txt && git add new.txt && \
                  git -c user.name=t -c user.email=t@t commit -q -m in-worktree && echo committed";
    let server = ModelServer::start(vec![
        bash("c1", commit),
        bash("c2", &format!("echo y > {}", escape.display())),
        Turn::text("done"),
    ]);
    let ran = run(
        &p,
        &server,
        &[
            "--sandbox",
            "workspace-write",
            "--yes",
            "commit it",
            "--worktree=sb",
        ],
    );
    ran.expect_code(0);
    let log = git(&p.dir, &["log", "strata/sb", "-1", "--format=%s"]);
    assert_eq!(log.trim(), "in-worktree", "{ran:#?}");
    assert!(
        !p.dir.join("new.txt").exists(),
        "the main checkout is untouched"
    );
    assert!(
        !escape.exists(),
        "the main checkout is outside the session's roots"
    );
    let third = &server.requests()[2];
    let outputs = third.to_string();
    assert!(outputs.contains("committed"), "{outputs}");
}

async fn send(url: &str, method: reqwest::Method, path: &str, body: Value) -> (u16, Value) {
    let r = reqwest::Client::new()
        .request(method, format!("{url}{path}"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn the_experimental_worktree_routes_list_create_reset_and_remove_over_http() {
    strata_testkit::require_external!("git", "apt-get install git");
    let p = Project::new();
    repository(&p);
    let model = ModelServer::start(vec![]);
    let served = serve(&p, &model, &[]);
    let url = served.url.clone();
    let (status, body) = served.get("/experimental/worktree").await;
    assert_eq!((status, body), (200, json!([])));

    let (status, made) = served
        .post("/experimental/worktree", json!({"name": "api1"}))
        .await;
    assert_eq!(status, 200, "{made}");
    assert_eq!(made["name"], "api1");
    assert_eq!(made["branch"], "strata/api1");
    let dir = made["directory"].as_str().unwrap().to_string();
    assert!(Path::new(&dir).join("a.txt").exists());
    let (_, listed) = served.get("/experimental/worktree").await;
    assert_eq!(listed, json!([dir]));

    let (status, err) = served
        .post("/experimental/worktree", json!({"name": "api1"}))
        .await;
    assert_eq!(status, 400);
    assert_eq!(err["name"], "WorktreeCreateFailedError", "{err}");

    std::fs::write(Path::new(&dir).join("a.txt"), "dirty\n").unwrap();
    let del = reqwest::Method::DELETE;
    let (status, err) = send(
        &url,
        del.clone(),
        "/experimental/worktree",
        json!({"directory": dir}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(err["name"], "WorktreeRemoveFailedError");
    assert!(
        err["data"]["message"].as_str().unwrap().contains("--force"),
        "{err}"
    );

    let (status, ok) = served
        .post("/experimental/worktree/reset", json!({"directory": dir}))
        .await;
    assert_eq!((status, ok), (200, json!(true)));
    assert_eq!(
        std::fs::read_to_string(Path::new(&dir).join("a.txt")).unwrap(),
        "base\n"
    );

    let (status, ok) = send(
        &url,
        del,
        "/experimental/worktree",
        json!({"directory": dir}),
    )
    .await;
    assert_eq!((status, ok), (200, json!(true)));
    assert!(!Path::new(&dir).exists());

    let plain = p.tmp.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let path = format!("/experimental/worktree?directory={}", plain.display());
    assert_eq!(
        served.get(&path).await,
        (200, json!([])),
        "no git, no worktrees"
    );
    let (status, err) = served.post(&path, json!({})).await;
    assert_eq!(status, 400);
    assert_eq!(err["name"], "WorktreeNotGitError", "{err}");

    let (_, doc) = served.get("/doc").await;
    let route = &doc["paths"]["/experimental/worktree"];
    for method in ["get", "post", "delete"] {
        assert!(
            route[method]["responses"]["400"].is_object(),
            "{method}: {route}"
        );
    }
    assert!(doc["paths"]["/experimental/worktree/reset"]["post"].is_object());
}
