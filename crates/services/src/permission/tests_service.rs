//! The Permission service: asks, replies, events, cancellation, disposal (spec §19 Ask/reply).

use std::time::Duration;

use serde_json::json;
use strata_graph::{Context, Graph, Scope};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::*;
use Action::{Allow, Ask, Deny};

const WAIT: Duration = Duration::from_secs(10);

fn rules(list: &[(&str, &str, Action)]) -> Ruleset {
    list.iter()
        .map(|(p, pat, a)| Rule::new(*p, *pat, *a))
        .collect()
}

fn req(session: &str, permission: &str, patterns: &[&str], always: &[&str]) -> AskRequest {
    AskRequest {
        session_id: session.into(),
        permission: permission.into(),
        patterns: patterns.iter().map(|s| s.to_string()).collect(),
        always: always.iter().map(|s| s.to_string()).collect(),
        metadata: json!({"command": patterns.join(" && ")}),
        tool: Some(ToolRef {
            message_id: "msg_1".into(),
            call_id: "call_1".into(),
        }),
        ruleset: rules(&[("*", "*", Ask)]),
        sandbox_auto_allow: false,
        shown: None,
        hook: None,
    }
}

fn spawn_ask(p: &Permission, r: AskRequest) -> JoinHandle<Result<(), PermissionError>> {
    let p = p.clone();
    tokio::spawn(async move { p.ask(r, CancellationToken::new()).await })
}

async fn next(rx: &mut broadcast::Receiver<PermissionEvent>) -> PermissionEvent {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("no permission event within the timeout")
        .expect("event channel closed")
}

/// Waits for the next `asked` event and returns its request.
async fn asked(rx: &mut broadcast::Receiver<PermissionEvent>) -> Request {
    match next(rx).await {
        PermissionEvent::Asked(r) => r,
        other => panic!("expected asked, got {other:?}"),
    }
}

async fn done<T>(h: JoinHandle<T>) -> T {
    tokio::time::timeout(WAIT, h)
        .await
        .expect("ask did not finish within the timeout")
        .expect("ask task panicked")
}

fn replied(r: &Request, reply: Reply) -> PermissionEvent {
    PermissionEvent::Replied {
        session_id: r.session_id.clone(),
        request_id: r.id.clone(),
        reply,
    }
}

#[tokio::test]
async fn deny_fails_at_once_with_the_matching_rules() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let mut r = req("s1", "bash", &["rm -rf /"], &["rm *"]);
    r.ruleset = rules(&[
        ("*", "*", Allow),
        ("bash", "rm *", Deny),
        ("read", "*", Allow),
    ]);
    let err = p.ask(r, CancellationToken::new()).await.unwrap_err();
    let PermissionError::Denied {
        permission,
        pattern,
        rules: matching,
    } = &err
    else {
        panic!("expected denied, got {err:?}");
    };
    assert_eq!(
        (permission.as_str(), pattern.as_str()),
        ("bash", "rm -rf /")
    );
    assert_eq!(
        matching,
        &rules(&[("*", "*", Allow), ("bash", "rm *", Deny)])
    );
    let msg = err.to_string();
    assert!(
        msg.contains(r#"{"permission":"bash","pattern":"rm *","action":"deny"}"#),
        "{msg}"
    );
    assert!(err.is_stop_turn());
    assert!(p.pending().is_empty());
    assert!(rx.try_recv().is_err(), "a deny must not publish anything");
}

#[tokio::test]
async fn ask_stays_pending_and_is_listed() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let h = spawn_ask(&p, req("s1", "bash", &["git push"], &["git push *"]));
    let r = asked(&mut rx).await;
    assert!(r.id.starts_with("per_"), "{}", r.id);
    assert_eq!(r.session_id, "s1");
    assert_eq!(r.permission, "bash");
    assert_eq!(r.patterns, vec!["git push"]);
    assert_eq!(r.always, vec!["git push *"]);
    assert_eq!(r.metadata, json!({"command": "git push"}));
    assert_eq!(r.tool.as_ref().unwrap().call_id, "call_1");
    assert_eq!(p.pending(), vec![r.clone()]);
    assert!(!h.is_finished());
    p.reply(&r.id, Reply::Once).unwrap();
    done(h).await.unwrap();
}

#[tokio::test]
async fn asked_and_replied_events_are_published() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let h = spawn_ask(&p, req("s1", "edit", &["src/a.rs"], &["*"]));
    let r = asked(&mut rx).await;
    p.reply(&r.id, Reply::Once).unwrap();
    assert_eq!(next(&mut rx).await, replied(&r, Reply::Once));
    done(h).await.unwrap();
    // The wire shape front-ends see.
    let wire = serde_json::to_value(replied(&r, Reply::Once)).unwrap();
    assert_eq!(wire["type"], "permission.replied");
    assert_eq!(wire["sessionID"], "s1");
    assert_eq!(wire["reply"], json!({"type": "once"}));
    let wire = serde_json::to_value(PermissionEvent::Asked(r.clone())).unwrap();
    assert_eq!(wire["type"], "permission.asked");
    assert_eq!(wire["tool"]["callID"], "call_1");
}

#[tokio::test]
async fn once_resolves_this_call_only() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let h = spawn_ask(&p, req("s1", "bash", &["make"], &["make *"]));
    let r = asked(&mut rx).await;
    p.reply(&r.id, Reply::Once).unwrap();
    assert_eq!(done(h).await, Ok(()));
    assert!(p.pending().is_empty());
    assert!(p.approvals().is_empty());
    // The same call asks again.
    let h = spawn_ask(&p, req("s1", "bash", &["make"], &["make *"]));
    let _ = next(&mut rx).await; // replied
    let again = asked(&mut rx).await;
    assert_ne!(again.id, r.id);
    p.reply(&again.id, Reply::Once).unwrap();
    done(h).await.unwrap();
}

#[tokio::test]
async fn reject_fails_with_rejected() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let h = spawn_ask(&p, req("s1", "bash", &["rm x"], &[]));
    let r = asked(&mut rx).await;
    p.reply(&r.id, Reply::Reject { feedback: None }).unwrap();
    let err = done(h).await.unwrap_err();
    assert_eq!(err, PermissionError::Rejected { feedback: None });
    assert!(err.is_stop_turn());
    assert!(err.to_string().contains("declined"), "{err}");
    assert!(p.pending().is_empty());
}

#[tokio::test]
async fn reject_with_feedback_carries_it_verbatim() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let h = spawn_ask(&p, req("s1", "bash", &["rm x"], &[]));
    let r = asked(&mut rx).await;
    let feedback = "Use `git rm` instead, and keep README.md";
    let reply = Reply::Reject {
        feedback: Some(feedback.into()),
    };
    p.reply(&r.id, reply.clone()).unwrap();
    assert_eq!(next(&mut rx).await, replied(&r, reply));
    let err = done(h).await.unwrap_err();
    assert_eq!(
        err,
        PermissionError::Rejected {
            feedback: Some(feedback.into())
        }
    );
    assert!(err.to_string().contains(feedback), "{err}");
    assert!(!err.is_stop_turn(), "feedback is for the model to act on");
}

#[tokio::test]
async fn always_records_and_resolves() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let h = spawn_ask(&p, req("s1", "bash", &["npm test"], &["npm *"]));
    let r = asked(&mut rx).await;
    p.reply(&r.id, Reply::Always).unwrap();
    assert_eq!(done(h).await, Ok(()));
    assert_eq!(p.approvals(), rules(&[("bash", "npm *", Allow)]));
    // Covered from now on, in any session of this instance, without asking.
    let later = req("s2", "bash", &["npm run build"], &["npm *"]);
    assert_eq!(p.ask(later, CancellationToken::new()).await, Ok(()));
    assert!(p.pending().is_empty());
}

#[tokio::test]
async fn configured_deny_is_final_even_after_always() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let h = spawn_ask(&p, req("s1", "bash", &["rm a"], &["*"]));
    let r = asked(&mut rx).await;
    p.reply(&r.id, Reply::Always).unwrap();
    done(h).await.unwrap();
    let mut denied = req("s1", "bash", &["rm b"], &[]);
    denied.ruleset = rules(&[("*", "*", Ask), ("bash", "rm *", Deny)]);
    let res = p.ask(denied, CancellationToken::new()).await;
    assert!(
        matches!(res, Err(PermissionError::Denied { .. })),
        "{res:?}"
    );
}

#[tokio::test]
async fn reject_cancels_every_pending_request_of_the_same_session_only() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let a = spawn_ask(&p, req("s1", "bash", &["a"], &[]));
    let ra = asked(&mut rx).await;
    let b = spawn_ask(&p, req("s1", "edit", &["b.rs"], &[]));
    let rb = asked(&mut rx).await;
    let c = spawn_ask(&p, req("s2", "bash", &["c"], &[]));
    let rc = asked(&mut rx).await;
    let reply = Reply::Reject {
        feedback: Some("no".into()),
    };
    p.reply(&ra.id, reply.clone()).unwrap();
    assert_eq!(next(&mut rx).await, replied(&ra, reply));
    assert_eq!(
        next(&mut rx).await,
        replied(&rb, Reply::Reject { feedback: None })
    );
    assert_eq!(
        done(a).await,
        Err(PermissionError::Rejected {
            feedback: Some("no".into())
        })
    );
    assert_eq!(
        done(b).await,
        Err(PermissionError::Rejected { feedback: None })
    );
    assert_eq!(p.pending(), vec![rc.clone()]);
    assert!(!c.is_finished());
    p.reply(&rc.id, Reply::Once).unwrap();
    done(c).await.unwrap();
}

#[tokio::test]
async fn always_auto_resolves_matching_pending_of_the_same_session_only() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let first = spawn_ask(&p, req("s1", "bash", &["ls -la"], &["ls *"]));
    let r1 = asked(&mut rx).await;
    let same = spawn_ask(&p, req("s1", "bash", &["ls src", "ls"], &["ls *"]));
    let r_same = asked(&mut rx).await;
    let partly = spawn_ask(&p, req("s1", "bash", &["ls", "cat x"], &[]));
    let r_partly = asked(&mut rx).await;
    let other_perm = spawn_ask(&p, req("s1", "read", &["ls"], &[]));
    let r_other_perm = asked(&mut rx).await;
    let other_session = spawn_ask(&p, req("s2", "bash", &["ls"], &["ls *"]));
    let r_other_session = asked(&mut rx).await;

    p.reply(&r1.id, Reply::Always).unwrap();
    assert_eq!(next(&mut rx).await, replied(&r1, Reply::Always));
    assert_eq!(next(&mut rx).await, replied(&r_same, Reply::Always));
    assert_eq!(done(first).await, Ok(()));
    assert_eq!(done(same).await, Ok(()));
    assert_eq!(
        p.pending(),
        vec![
            r_partly.clone(),
            r_other_perm.clone(),
            r_other_session.clone()
        ]
    );
    for (h, r) in [
        (partly, r_partly),
        (other_perm, r_other_perm),
        (other_session, r_other_session),
    ] {
        assert!(!h.is_finished());
        p.reply(&r.id, Reply::Once).unwrap();
        done(h).await.unwrap();
    }
}

#[tokio::test]
async fn unknown_request_id_is_not_found() {
    let p = Permission::new();
    let err = p.reply("per_missing", Reply::Once).unwrap_err();
    assert_eq!(
        err,
        PermissionError::NotFound {
            id: "per_missing".into()
        }
    );
    assert!(err.to_string().contains("per_missing"));
    assert!(!err.is_stop_turn());
}

#[tokio::test]
async fn dispose_rejects_pending_and_refuses_new_asks() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let a = spawn_ask(&p, req("s1", "bash", &["a"], &[]));
    let ra = asked(&mut rx).await;
    let b = spawn_ask(&p, req("s2", "bash", &["b"], &[]));
    let _ = asked(&mut rx).await;
    p.dispose();
    assert_eq!(done(a).await, Err(PermissionError::Disposed));
    assert_eq!(done(b).await, Err(PermissionError::Disposed));
    assert!(p.pending().is_empty());
    assert_eq!(
        next(&mut rx).await,
        PermissionEvent::Withdrawn {
            session_id: "s1".into(),
            request_id: ra.id.clone()
        }
    );
    let late = p.ask(req("s1", "bash", &["c"], &[]), CancellationToken::new());
    assert_eq!(late.await, Err(PermissionError::Disposed));
    // Calls that need no reply still pass.
    let mut allowed = req("s1", "bash", &["c"], &[]);
    allowed.ruleset = rules(&[("*", "*", Allow)]);
    assert_eq!(p.ask(allowed, CancellationToken::new()).await, Ok(()));
}

#[tokio::test]
async fn closing_the_instance_scope_rejects_pending() {
    let scope = Scope::new();
    let cx = Graph::new()
        .with(Permission::node())
        .with(strata_graph::Node::value(
            strata_graph::Tier::Global,
            crate::bus::Bus::new(),
        ))
        .build(&Context::new(), &scope)
        .await
        .unwrap();
    let p = cx.get::<Permission>().unwrap();
    let mut rx = p.subscribe();
    let h = spawn_ask(&p, req("s1", "bash", &["a"], &[]));
    let _ = asked(&mut rx).await;
    scope.close().await;
    assert_eq!(done(h).await, Err(PermissionError::Disposed));
}

#[tokio::test]
async fn all_patterns_are_checked_and_a_deny_wins_after_an_ask() {
    let p = Permission::new();
    let mut r = req("s1", "bash", &["ls", "echo hi", "rm -rf /", "sudo x"], &[]);
    r.ruleset = rules(&[
        ("bash", "*", Ask),
        ("bash", "echo *", Allow),
        ("bash", "rm *", Deny),
        ("bash", "sudo *", Deny),
    ]);
    let err = p.ask(r, CancellationToken::new()).await.unwrap_err();
    assert!(
        matches!(&err, PermissionError::Denied { pattern, .. } if pattern == "rm -rf /"),
        "{err:?}"
    );
    assert!(p.pending().is_empty());
}

#[tokio::test]
async fn all_allowed_passes_without_asking() {
    let p = Permission::new();
    let rx = p.subscribe();
    let mut r = req("s1", "bash", &["ls", "git status"], &[]);
    r.ruleset = rules(&[
        ("bash", "*", Ask),
        ("bash", "ls *", Allow),
        ("bash", "git *", Allow),
    ]);
    assert_eq!(p.ask(r, CancellationToken::new()).await, Ok(()));
    let mut empty = req("s1", "bash", &[], &[]);
    empty.ruleset = Vec::new();
    assert_eq!(p.ask(empty, CancellationToken::new()).await, Ok(()));
    assert!(p.pending().is_empty());
    assert!(rx.is_empty());
}

#[tokio::test]
async fn cancellation_removes_the_pending_request() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let token = CancellationToken::new();
    let h = {
        let (p, token) = (p.clone(), token.clone());
        tokio::spawn(async move { p.ask(req("s1", "bash", &["x"], &[]), token).await })
    };
    let r = asked(&mut rx).await;
    token.cancel();
    assert_eq!(done(h).await, Err(PermissionError::Cancelled));
    assert!(p.pending().is_empty());
    assert_eq!(
        next(&mut rx).await,
        PermissionEvent::Withdrawn {
            session_id: "s1".into(),
            request_id: r.id.clone()
        }
    );
    assert!(matches!(
        p.reply(&r.id, Reply::Once),
        Err(PermissionError::NotFound { .. })
    ));
}

#[tokio::test]
async fn dropping_the_ask_withdraws_the_request() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let h = spawn_ask(&p, req("s1", "bash", &["x"], &[]));
    let r = asked(&mut rx).await;
    h.abort();
    let joined = tokio::time::timeout(WAIT, h).await.unwrap();
    assert!(joined.unwrap_err().is_cancelled());
    assert!(p.pending().is_empty());
    assert!(matches!(
        next(&mut rx).await,
        PermissionEvent::Withdrawn { request_id, .. } if request_id == r.id
    ));
}

#[tokio::test]
async fn instances_are_isolated() {
    let a = Permission::new();
    let b = Permission::new();
    let (mut rx_a, mut rx_b) = (a.subscribe(), b.subscribe());
    let h = spawn_ask(&a, req("s1", "bash", &["ls"], &["ls *"]));
    let r = asked(&mut rx_a).await;
    assert!(b.pending().is_empty());
    assert!(rx_b.try_recv().is_err());
    assert!(matches!(
        b.reply(&r.id, Reply::Always),
        Err(PermissionError::NotFound { .. })
    ));
    a.reply(&r.id, Reply::Always).unwrap();
    done(h).await.unwrap();
    // The approval lives in `a` only.
    let hb = spawn_ask(&b, req("s1", "bash", &["ls"], &[]));
    let rb = asked(&mut rx_b).await;
    b.reply(&rb.id, Reply::Once).unwrap();
    done(hb).await.unwrap();
    assert!(b.approvals().is_empty());
}

#[tokio::test]
async fn sandbox_auto_allow_turns_an_ask_into_an_allow() {
    let p = Permission::new();
    let mut r = req("s1", "bash", &["rm -rf build"], &["rm *"]);
    r.sandbox_auto_allow = true;
    // Resolves without a reply: no request is left pending for a front-end.
    done(spawn_ask(&p, r)).await.unwrap();
    assert!(p.pending().is_empty());
}

#[tokio::test]
async fn sandbox_auto_allow_never_overrides_a_deny() {
    let p = Permission::new();
    let mut r = req("s1", "bash", &["rm -rf /"], &["rm *"]);
    r.ruleset = rules(&[("*", "*", Ask), ("bash", "rm *", Deny)]);
    r.sandbox_auto_allow = true;
    let err = p.ask(r, CancellationToken::new()).await.unwrap_err();
    assert!(matches!(err, PermissionError::Denied { .. }), "{err:?}");
}

#[tokio::test]
async fn without_auto_allow_the_same_ask_waits_for_a_reply() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    let ask = spawn_ask(&p, req("s1", "bash", &["rm -rf build"], &["rm *"]));
    let pending = asked(&mut rx).await;
    p.reply(&pending.id, Reply::Once).unwrap();
    done(ask).await.unwrap();
}

#[tokio::test]
async fn a_hook_decision_sits_between_deny_rules_and_asks() {
    let p = Permission::new();
    let mut rx = p.subscribe();
    // A hook's allow lets an ask through, but never a deny rule.
    let mut allowed = req("s1", "bash", &["ls"], &["ls *"]);
    allowed.hook = Some(Allow);
    p.ask(allowed, CancellationToken::new()).await.unwrap();
    let mut denied = req("s1", "bash", &["rm x"], &["rm *"]);
    denied.ruleset = rules(&[("bash", "*", Ask), ("bash", "rm *", Deny)]);
    denied.hook = Some(Allow);
    let err = p.ask(denied, CancellationToken::new()).await.unwrap_err();
    assert!(matches!(err, PermissionError::Denied { .. }), "{err:?}");
    assert!(rx.try_recv().is_err(), "neither asked anyone");

    // A hook's ask asks even after an `always` approval and under an allow rule.
    let first = spawn_ask(&p, req("s1", "bash", &["git push"], &["git *"]));
    let request = asked(&mut rx).await;
    p.reply(&request.id, Reply::Always).unwrap();
    done(first).await.unwrap();
    let _ = next(&mut rx).await;
    let mut forced = req("s1", "bash", &["git push"], &[]);
    forced.ruleset = rules(&[("*", "*", Allow)]);
    forced.hook = Some(Ask);
    let pending = spawn_ask(&p, forced);
    let request = asked(&mut rx).await;
    p.reply(&request.id, Reply::Once).unwrap();
    done(pending).await.unwrap();
}
