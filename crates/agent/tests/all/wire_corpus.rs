//! Real vendor streams through the real loop: every recording in the repository's
//! `tests/wire-corpus/` answers the first model request of a fresh session (served verbatim by
//! the scripted server), and a plain text turn answers the next. What the recording says the
//! model produced, read by [`wire_reader`](crate::wire_reader), must be what the session
//! stored (text, reasoning, thinking signatures, step usage), and its client tool calls must
//! come back, with their ids and arguments (and, on the Responses wire, the reasoning items
//! before them), in the next request. A recording whose response failed must fail the run
//! with the vendor's message. Every family is replayed, each through its own provider; adding
//! a recording adds a case; a failing case names its file.

use std::path::{Path, PathBuf};

use serde_json::Value;
use strata_agent::session::{RunOptions, RunOutcome};
use strata_agent::store::Part;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Recording, Turn};

use crate::loop_support::*;
use crate::wire_reader::{Call, Family, Said, Tokens, family, read};

/// The recordings, from this crate's folder.
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/wire-corpus");

/// The recordings' client tools, renamed at serve time to a tool Strata offers so that each
/// call runs through a real tool (its arguments may not suit it; its result is then an error).
const RENAMES: &[(&str, &str)] = &[
    ("weather", "read"),
    ("json", "read"),
    ("updateIssueList", "read"),
    ("webSearchTool", "read"),
    ("get_weather", "read"),
    ("calculator", "read"),
];

fn recordings() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(CORPUS)
        .unwrap_or_else(|e| panic!("cannot list {CORPUS}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".chunks.txt"))
        .collect();
    files.sort();
    files
}

#[tokio::test]
async fn every_recorded_stream_replays_through_the_loop() {
    TestInstance::builder()
        .run(|t| async move {
            let mut failures = Vec::new();
            let mut replayed = Vec::new();
            for path in recordings() {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let family = match family(&name) {
                    Ok(family) => family,
                    Err(e) => {
                        failures.push(e);
                        continue;
                    }
                };
                replayed.push(family);
                // Its own task, so that a panic in one case is reported with its file.
                match tokio::spawn(replay(t.clone(), path, family)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => failures.push(format!("{name}: {e}")),
                    Err(e) => failures.push(format!("{name}: panicked: {}", panic_text(e))),
                }
            }
            for wire in [Family::Chat, Family::Anthropic, Family::Responses] {
                assert!(
                    replayed.contains(&wire),
                    "no {wire:?} recording was replayed from {CORPUS}"
                );
            }
            assert!(
                failures.is_empty(),
                "{} of {} recordings failed:\n{}",
                failures.len(),
                replayed.len(),
                failures.join("\n")
            );
        })
        .await;
}

fn panic_text(e: tokio::task::JoinError) -> String {
    match e.try_into_panic() {
        Ok(payload) => payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default(),
        Err(e) => e.to_string(),
    }
}

/// Serves the recording at `path` to a fresh session and checks what the session stored.
async fn replay(t: TestInstance, path: PathBuf, family: Family) -> Result<(), String> {
    let mut recording = Recording::load(&path)?;
    for (from, to) in RENAMES {
        recording.rename_tool(from, to);
    }
    let said = read(family, &recording.values()?);
    let server = ModelServer::start(vec![Turn::Recorded(recording), Turn::text("done")]);
    // No retries: a stream the decoder rejects must show as a failure, not be papered over.
    let opts = RunOptions {
        max_retries: 0,
        ..options()
    };
    let runner = match family {
        Family::Chat => runner(&t, &server, MODEL, opts),
        Family::Anthropic => anthropic_runner(&t, &server, opts),
        Family::Responses => responses_runner(&t, &server, opts),
    };
    let ran = run(&t, &runner, &format!("replay {}", file_name(&path))).await;
    if let Some(message) = &said.failure {
        return failed_as_recorded(&t, &server, &ran, message);
    }
    if ran.report.outcome != RunOutcome::Completed {
        return Err(format!("the run ended {:?}", ran.report.outcome));
    }
    let store = store(&t);
    let messages = store.messages(&ran.session_id).map_err(|e| e.to_string())?;
    let (message, parts) = messages
        .get(1)
        .ok_or("the session has no assistant message")?;
    if let Some(error) = message.data.get("error") {
        return Err(format!("the replayed step failed: {error}"));
    }
    let joined = |kind: &str| -> String {
        of_kind(parts, kind)
            .filter_map(|p| p.data["text"].as_str())
            .collect()
    };
    same("text", &joined("text"), &said.text)?;
    same("reasoning", &joined("reasoning"), &said.reasoning)?;
    let signatures: Vec<String> = of_kind(parts, "reasoning")
        .filter_map(|p| p.data.pointer("/metadata/anthropic/signature")?.as_str())
        .map(str::to_string)
        .collect();
    equal("thinking signatures", &signatures, &said.signatures)?;
    let finish = of_kind(parts, "step-finish")
        .next()
        .ok_or("the replayed step has no step-finish part")?;
    equal("step usage", &Tokens::stored(&finish.data), &said.tokens)?;
    calls_came_back(&server, &said)?;
    reasoning_came_back(&server, &said)?;
    assert_log_consistent(&store, &ran);
    Ok(())
}

/// A recording whose response failed: the run fails with the vendor's message, and the model
/// is not asked again.
fn failed_as_recorded(
    t: &TestInstance,
    server: &ModelServer,
    ran: &Ran,
    message: &str,
) -> Result<(), String> {
    let RunOutcome::Failed { error } = &ran.report.outcome else {
        return Err(format!(
            "the recorded response failed with {message:?}, yet the run ended {:?}",
            ran.report.outcome
        ));
    };
    if message.is_empty() || !error.contains(message) {
        return Err(format!(
            "the run failed with {error:?}, not with the vendor's message {message:?}"
        ));
    }
    let requests = server.requests().len();
    if requests != 1 {
        return Err(format!(
            "a failed response was followed by {requests} requests in all"
        ));
    }
    assert_log_consistent(&store(t), ran);
    Ok(())
}

/// The recording's reasoning items (Responses) go back, with their encrypted content, in the
/// request that carries the results of its calls.
fn reasoning_came_back(server: &ModelServer, said: &Said) -> Result<(), String> {
    if said.calls.is_empty() {
        return Ok(());
    }
    let sent = server.requests();
    let input = sent.get(1).and_then(|body| body["input"].as_array());
    let items: Vec<(String, String)> = input
        .into_iter()
        .flatten()
        .filter(|item| item["type"] == "reasoning")
        .map(|item| {
            let text = |k: &str| item[k].as_str().unwrap_or_default().to_string();
            (text("id"), text("encrypted_content"))
        })
        .collect();
    equal(
        "reasoning items in the next request",
        &items,
        &said.reasoning_items,
    )
}

/// The recording's client calls are in the next request, with their results; without calls,
/// there is no next request.
fn calls_came_back(server: &ModelServer, said: &Said) -> Result<(), String> {
    let sent = server.sent();
    if said.calls.is_empty() {
        return match sent.get(1) {
            None => Ok(()),
            Some(next) => Err(format!(
                "the recording has no client tool call, yet the loop called the model again, sending back {:?}",
                next.calls()
            )),
        };
    }
    let next = sent
        .get(1)
        .ok_or("the recording made tool calls but no second request followed")?;
    let calls: Vec<Call> = next
        .calls()
        .into_iter()
        .map(|(id, name, arguments)| Call {
            id,
            name,
            arguments: serde_json::from_str(&arguments).unwrap_or(Value::String(arguments)),
        })
        .collect();
    equal(
        "calls in the next request (a recorded tool Strata lacks goes in RENAMES)",
        &calls,
        &said.calls,
    )?;
    let answered: Vec<String> = next.results().into_iter().map(|(id, _)| id).collect();
    let made: Vec<String> = said.calls.iter().map(|c| c.id.clone()).collect();
    equal("results in the next request", &answered, &made)
}

fn of_kind<'a>(parts: &'a [Part], kind: &'a str) -> impl Iterator<Item = &'a Part> {
    parts.iter().filter(move |p| p.kind == kind)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn equal<T: PartialEq + std::fmt::Debug>(
    what: &str,
    stored: &T,
    recorded: &T,
) -> Result<(), String> {
    if stored == recorded {
        Ok(())
    } else {
        Err(format!(
            "{what} differ:\n  stored:   {stored:?}\n  recorded: {recorded:?}"
        ))
    }
}

/// Compares long texts, showing where they part rather than all of both.
fn same(what: &str, stored: &str, recorded: &str) -> Result<(), String> {
    if stored == recorded {
        return Ok(());
    }
    let at = stored
        .chars()
        .zip(recorded.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let from = |s: &str| {
        s.chars()
            .skip(at.saturating_sub(20))
            .take(80)
            .collect::<String>()
    };
    Err(format!(
        "{what} differs at character {at} ({} stored, {} recorded):\n  stored:   {:?}\n  recorded: {:?}",
        stored.chars().count(),
        recorded.chars().count(),
        from(stored),
        from(recorded)
    ))
}
