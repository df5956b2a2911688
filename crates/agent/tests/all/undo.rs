//! Undo against real git and the scripted model: each step that changes files gets an undo
//! point; revert restores the files and takes messages out of the conversation; unrevert
//! puts both back; a prompt after a revert makes it final without deleting any row.

use crate::loop_support::*;
use strata_agent::session::SessionTarget;
use strata_agent::undo::{Undo, conversation};
use strata_services::instance::InstanceInfo;
use strata_services::snapshot::Snapshots;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, SentItem, Turn, call};
use tokio_util::sync::CancellationToken;

fn read(t: &TestInstance, rel: &str) -> Option<String> {
    std::fs::read_to_string(t.path(rel)).ok()
}

#[tokio::test]
async fn revert_and_unrevert_restore_files_and_the_conversation() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .file("notes.txt", "v1\n")
        .run(|t| async move {
            let snapshots = t.get::<Snapshots>();
            snapshots.set_enabled(true);
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "read", r#"{"filePath":"notes.txt"}"#),
                Turn::TextAndToolCalls(
                    String::new(),
                    vec![
                        call(
                            "c2",
                            "write",
                            r#"{"filePath":"new.txt","content":"fresh\n"}"#,
                        ),
                        call(
                            "c3",
                            "edit",
                            r#"{"filePath":"notes.txt","oldString":"v1","newString":"v2"}"#,
                        ),
                    ],
                ),
                Turn::text("first done"),
                Turn::tool_call(
                    "c4",
                    "edit",
                    r#"{"filePath":"notes.txt","oldString":"v2","newString":"v3"}"#,
                ),
                Turn::text("second done"),
                Turn::text("third done"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let first = run(&t, &runner, "first prompt").await;
            let sid = first.session_id.clone();
            let target = SessionTarget::Id(sid.clone());
            run_in(
                &t,
                &runner,
                target.clone(),
                "second prompt",
                CancellationToken::new(),
            )
            .await;
            assert_eq!(read(&t, "notes.txt").as_deref(), Some("v3\n"));

            let store = store(&t);
            let info = t.get::<InstanceInfo>();
            let undo = Undo::new(store.clone(), snapshots.clone(), info.worktree.clone());
            let mut diff = undo.diff(&sid).await.unwrap();
            diff.sort_by(|a, b| a.path.cmp(&b.path));
            let summary: Vec<_> = diff.iter().map(|c| (c.path.as_str(), c.status)).collect();
            assert_eq!(summary, [("new.txt", "added"), ("notes.txt", "modified")]);

            let messages = store.messages(&sid).unwrap();
            let second_user = messages
                .iter()
                .filter(|(m, _)| m.role == strata_agent::store::Role::User)
                .nth(1)
                .map(|(m, _)| m.id.clone())
                .unwrap();

            // Back to before the second prompt: its edit is undone, the first run's stays.
            undo.revert(&sid, &second_user).await.unwrap();
            assert_eq!(read(&t, "notes.txt").as_deref(), Some("v2\n"));
            assert_eq!(read(&t, "new.txt").as_deref(), Some("fresh\n"));
            let kept = conversation(&store, &sid).unwrap();
            assert!(
                kept.iter().all(|(m, _)| m.id < second_user),
                "later messages hidden"
            );

            undo.unrevert(&sid).await.unwrap();
            assert_eq!(read(&t, "notes.txt").as_deref(), Some("v3\n"));
            assert_eq!(conversation(&store, &sid).unwrap().len(), messages.len());

            // Back to the very start: the written file goes, the notes are as they began.
            let first_user = messages[0].0.id.clone();
            undo.revert(&sid, &first_user).await.unwrap();
            assert_eq!(read(&t, "notes.txt").as_deref(), Some("v1\n"));
            assert_eq!(read(&t, "new.txt"), None);

            // A new prompt makes the revert final: the model sees only the new prompt, and
            // every earlier row is still in the store.
            run_in(
                &t,
                &runner,
                target,
                "third prompt",
                CancellationToken::new(),
            )
            .await;
            let last = server.sent().pop().unwrap();
            assert_eq!(last.roles(), ["system", "user"]);
            assert_eq!(
                last.messages[0].items,
                [SentItem::Text("third prompt".into())]
            );
            assert_eq!(store.messages(&sid).unwrap().len(), messages.len() + 2);
            assert!(store.revert_of(&sid).unwrap().is_none());
            assert!(
                undo.unrevert(&sid).await.is_err(),
                "nothing left to unrevert"
            );
        })
        .await;
}

#[tokio::test]
async fn reverting_to_an_unknown_message_names_it_and_changes_nothing() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .file("notes.txt", "v1\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::text("hello")]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "hi").await;
            let undo = Undo::new(
                store(&t),
                t.get::<Snapshots>(),
                t.get::<InstanceInfo>().worktree,
            );
            let err = undo.revert(&ran.session_id, "msg_nope").await.unwrap_err();
            assert!(err.to_string().contains("msg_nope"), "{err}");
            assert!(store(&t).revert_of(&ran.session_id).unwrap().is_none());
            assert_eq!(read(&t, "notes.txt").as_deref(), Some("v1\n"));
        })
        .await;
}
