//! `task` through the built `strata run`: a child session answered by its own script, its
//! events told apart by session id in `--format json`, its permission asks answered by the
//! run's front-end, and `strata session list` showing it under its parent.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail by panicking

use crate::common::Project;
use crate::e2e_run_support::*;

#[test]
fn a_run_with_a_subagent_shows_its_events_and_lists_it_under_the_parent() {
    let p = Project::new();
    let server = delegating(&p);
    let ran = run(&p, &server, &["--format", "json", "--yes", "delegate this"]);
    ran.expect_code(0);
    let events = json_lines(&ran);
    let parent = events[0]["sessionID"].as_str().unwrap().to_string();
    let task_use = events
        .iter()
        .find(|e| e["type"] == "tool_use" && e["part"]["tool"] == "task")
        .expect("the task call");
    assert_eq!(task_use["sessionID"], parent.as_str());
    let child = task_use["part"]["state"]["metadata"]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(child, parent);
    let output = task_use["part"]["state"]["output"].as_str().unwrap();
    assert!(
        output.starts_with(&format!("<task id=\"{child}\" state=\"completed\">"))
            && output.contains("child found notes.txt"),
        "{output}"
    );
    let glob = events
        .iter()
        .find(|e| e["type"] == "tool_use" && e["part"]["tool"] == "glob")
        .expect("the child's glob");
    assert_eq!(glob["sessionID"], child.as_str());
    assert_eq!(glob["part"]["state"]["status"], "completed");
    let texts: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["type"] == "text")
        .map(|e| {
            (
                e["sessionID"].as_str().unwrap(),
                e["part"]["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        texts.contains(&(child.as_str(), "child found notes.txt")),
        "{texts:?}"
    );
    assert!(
        texts.contains(&(parent.as_str(), "parent done")),
        "{texts:?}"
    );

    let list = strata(&p, &server, &["session", "list"]);
    list.expect_code(0);
    let lines: Vec<&str> = list.stdout.lines().collect();
    let at = lines.iter().position(|l| l.starts_with(&parent)).unwrap();
    assert!(
        lines[at + 1].starts_with(&format!("  {child}"))
            && lines[at + 1].contains("Look around (@explore subagent)"),
        "{lines:?}"
    );
    let json_list = strata(&p, &server, &["session", "list", "--format", "json"]).json();
    let listed = json_list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == child.as_str())
        .unwrap()
        .clone();
    assert_eq!(listed["parentID"], parent.as_str());
}
