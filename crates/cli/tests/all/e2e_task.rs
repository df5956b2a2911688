//! `task` through the built `strata run`: a child session answered by its own script, its
//! events told apart by session id in `--format json`, its permission asks answered by the
//! run's front-end, and `strata session list` showing it under its parent.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail by panicking

use crate::common::Project;
use crate::e2e_run_support::*;
use serde_json::json;
use strata_testkit::model_server::{ModelServer, Turn};

#[test]
fn a_run_with_a_subagent_shows_its_events_and_lists_it_under_the_parent() {
    let p = Project::new();
    p.file("notes.txt", "hello\n");
    // The child's glob asks: only a front-end that answers the child's asks lets it finish.
    p.file("strata.json", r#"{"permission": {"glob": "ask"}}"#);
    let task = json!({"description": "Look around", "prompt": "CHILD-L: list the text files",
                      "subagent_type": "explore"});
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "task", &task.to_string()),
        Turn::text("parent done"),
    ]);
    server.route(
        "CHILD-L",
        vec![
            Turn::tool_call("g1", "glob", r#"{"pattern":"*.txt"}"#),
            Turn::text("child found notes.txt"),
        ],
    );
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

/// The benchmark behind `bench/task.sh` (ignored in normal runs): one step starting four
/// subagents at once against the same four tasks one step after another. Each child runs
/// `sleep 0.5` in bash and answers; the scripted model answers at once. Prints the mean wall
/// time and the peak RSS (`/usr/bin/time -v`) of `strata run`.
#[test]
#[ignore = "a benchmark: run it with bench/task.sh"]
fn bench_four_subagents_at_once_against_one_after_another() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    for parallel in [true, false] {
        let mut walls = Vec::new();
        let mut peak_kib = 0u64;
        for _ in 0..runs {
            let p = Project::new();
            let calls: Vec<_> = (1..=4)
                .map(|i| {
                    let args = json!({"description": format!("Job {i}"),
                                      "prompt": format!("CHILD-P{i}: do job {i}"),
                                      "subagent_type": "general"});
                    strata_testkit::model_server::call(&format!("c{i}"), "task", &args.to_string())
                })
                .collect();
            let mut script = if parallel {
                vec![Turn::ToolCalls(calls)]
            } else {
                calls
                    .into_iter()
                    .map(|c| Turn::ToolCalls(vec![c]))
                    .collect()
            };
            script.push(Turn::text("all done"));
            let server = ModelServer::start(script);
            for i in 1..=4 {
                let sleep = json!({"command": "sleep 0.5", "description": "work"}).to_string();
                server.route(
                    &format!("CHILD-P{i}"),
                    vec![
                        Turn::tool_call(&format!("s{i}"), "bash", &sleep),
                        Turn::text("ok"),
                    ],
                );
            }
            let inner = command(
                &p,
                &server,
                &["run", "--model", MODEL, "--format", "json", "go"],
            );
            let mut timed = std::process::Command::new("/usr/bin/time");
            timed
                .arg("-v")
                .arg(inner.get_program())
                .args(inner.get_args());
            if let Some(dir) = inner.get_current_dir() {
                timed.current_dir(dir);
            }
            for (k, v) in inner.get_envs() {
                match v {
                    Some(v) => timed.env(k, v),
                    None => timed.env_remove(k),
                };
            }
            let start = std::time::Instant::now();
            let out = timed
                .output()
                .expect("run /usr/bin/time (apt-get install time)");
            walls.push(start.elapsed());
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            let kib = stderr
                .lines()
                .find_map(|l| {
                    l.trim()
                        .strip_prefix("Maximum resident set size (kbytes): ")
                })
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0);
            peak_kib = peak_kib.max(kib);
        }
        let mean = walls.iter().sum::<std::time::Duration>() / runs as u32;
        let label = if parallel {
            "4 subagents in one step   "
        } else {
            "4 subagents one at a time "
        };
        println!(
            "{label}: wall {:>6.0} ms (mean of {runs}, min {:.0} ms), peak RSS {:.1} MiB",
            mean.as_secs_f64() * 1000.0,
            walls.iter().min().unwrap().as_secs_f64() * 1000.0,
            peak_kib as f64 / 1024.0
        );
    }
}
