//! What was approved is what runs, through the real wrapper and Permission service: a file that
//! changes while its ask waits is asked about again with the fresh diff (write, apply_patch),
//! an `always` rule lets the fresh diff through without a second prompt, and a file that keeps
//! changing makes the call give up without writing.

use std::time::Duration;

use serde_json::{Value, json};
use strata_services::permission::{Permission, Reply, Request};
use strata_testkit::{ReplyMode, TestInstance};

const WAIT: Duration = Duration::from_secs(10);

fn asking() -> Value {
    json!({"permission": {"edit": "ask"}})
}

/// Waits for the `n`th `edit` ask (1-based) and returns it.
async fn nth_ask(t: &TestInstance, n: usize) -> Request {
    t.wait_for_asks("edit", n, WAIT).await[n - 1].clone()
}

fn reply(t: &TestInstance, req: &Request, reply: Reply) {
    t.get::<Permission>().reply(&req.id, reply).unwrap();
}

fn diff(req: &Request) -> &str {
    req.metadata["diff"].as_str().unwrap()
}

#[tokio::test]
async fn a_file_created_during_the_ask_of_a_write_is_asked_about_again() {
    TestInstance::builder()
        .config(asking())
        .run(|t| async move {
            t.reply_mode(ReplyMode::Manual);
            let path = t.path("new.txt");
            let call = t.call("write", json!({"filePath": "new.txt", "content": "mine\n"}));
            let drive = async {
                let first = nth_ask(&t, 1).await;
                assert!(!diff(&first).contains("theirs"), "{}", diff(&first));
                // The file did not exist when asked; someone creates it before the approval.
                std::fs::write(&path, "theirs\n").unwrap();
                reply(&t, &first, Reply::Once);
                let second = nth_ask(&t, 2).await;
                assert_eq!(
                    second.metadata["changedSinceAsk"],
                    json!({"requestID": first.id, "files": ["new.txt"]})
                );
                assert!(diff(&second).contains("-theirs"), "{}", diff(&second));
                assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs\n");
                reply(&t, &second, Reply::Once);
            };
            let (result, ()) = tokio::join!(call, drive);
            result.unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n");
            assert_eq!(t.asked_for("edit").len(), 2);
        })
        .await;
}

#[tokio::test]
async fn a_patched_file_changed_during_the_ask_is_asked_about_again() {
    TestInstance::builder()
        .config(asking())
        .file("a.txt", "one\ntwo\n")
        .run(|t| async move {
            t.reply_mode(ReplyMode::Manual);
            let path = t.path("a.txt");
            let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch";
            let call = t.call("apply_patch", json!({"patchText": patch}));
            let drive = async {
                let first = nth_ask(&t, 1).await;
                std::fs::write(&path, "one\ntwo\nthree\n").unwrap();
                reply(&t, &first, Reply::Once);
                let second = nth_ask(&t, 2).await;
                assert_eq!(
                    second.metadata["changedSinceAsk"]["files"],
                    json!(["a.txt"])
                );
                assert!(diff(&second).contains("three"), "{}", diff(&second));
                let patch = second.metadata["files"][0]["patch"].as_str().unwrap();
                assert_eq!(diff(&second), format!("{patch}\n"), "files match the diff");
                reply(&t, &second, Reply::Once);
            };
            let (result, ()) = tokio::join!(call, drive);
            result.unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "ONE\ntwo\nthree\n");
        })
        .await;
}

#[tokio::test]
async fn an_always_reply_covers_the_fresh_diff_without_a_second_prompt() {
    TestInstance::builder()
        .config(asking())
        .run(|t| async move {
            t.reply_mode(ReplyMode::Manual);
            let path = t.path("new.txt");
            let call = t.call("write", json!({"filePath": "new.txt", "content": "mine\n"}));
            let drive = async {
                let first = nth_ask(&t, 1).await;
                std::fs::write(&path, "theirs\n").unwrap();
                reply(&t, &first, Reply::Always);
            };
            let (result, ()) = tokio::join!(call, drive);
            result.unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n");
            assert_eq!(t.asked_for("edit").len(), 1, "the rule answered the re-ask");
        })
        .await;
}

#[tokio::test]
async fn a_file_that_keeps_changing_is_never_written() {
    TestInstance::builder()
        .config(asking())
        .run(|t| async move {
            t.reply_mode(ReplyMode::Manual);
            let path = t.path("new.txt");
            let call = t.call("write", json!({"filePath": "new.txt", "content": "mine\n"}));
            let drive = async {
                for n in 1..=4 {
                    let ask = nth_ask(&t, n).await;
                    std::fs::write(&path, format!("theirs {n}\n")).unwrap();
                    reply(&t, &ask, Reply::Once);
                }
            };
            let (result, ()) = tokio::join!(call, drive);
            let err = result.unwrap_err().to_string();
            assert!(err.contains("changed on disk 4 times"), "{err}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs 4\n");
            assert_eq!(t.asked_for("edit").len(), 4);
        })
        .await;
}
