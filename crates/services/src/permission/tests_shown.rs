//! What an approval hands back: the fingerprint its request kept, or "by the rules".

use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;

fn ask(shown: Option<Fingerprint>, action: Action) -> AskRequest {
    AskRequest {
        session_id: "ses_1".into(),
        permission: "edit".into(),
        patterns: vec!["a.txt".into()],
        always: vec!["*".into()],
        metadata: json!({"filepath": "a.txt"}),
        tool: None,
        ruleset: vec![Rule::new("*", "*", action)],
        sandbox_auto_allow: false,
        shown,
        hook: None,
    }
}

fn shown() -> Fingerprint {
    Fingerprint {
        input: input_hash(&json!({"filePath": "a.txt"})),
        files: files_hash([("a.txt", Some(&b"one"[..]))]),
    }
}

#[tokio::test]
async fn a_reply_hands_back_what_the_request_showed() {
    let p = Permission::new();
    let mut events = p.subscribe();
    let asker = p.clone();
    let task = tokio::spawn(async move {
        asker
            .ask_granted(ask(Some(shown()), Action::Ask), CancellationToken::new())
            .await
    });
    let event = tokio::time::timeout(Duration::from_secs(10), events.recv())
        .await
        .unwrap()
        .unwrap();
    let PermissionEvent::Asked(request) = event else {
        panic!("expected an ask, got {event:?}");
    };
    assert_eq!(
        request.shown.as_deref(),
        Some(&shown()),
        "the pending request keeps it"
    );
    let listed = p.pending();
    assert_eq!(listed[0].shown.as_deref(), Some(&shown()));
    p.reply(&request.id, Reply::Once).unwrap();
    let granted = tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        granted,
        Ok(Granted::Reply {
            request_id: request.id.clone(),
            shown: Some(shown()),
        })
    );
}

#[tokio::test]
async fn an_allow_rule_grants_without_a_request() {
    let p = Permission::new();
    let granted = p
        .ask_granted(ask(Some(shown()), Action::Allow), CancellationToken::new())
        .await;
    assert_eq!(granted, Ok(Granted::Rules));
    assert!(p.pending().is_empty());
}
