//! The `todowrite` tool through the real wrapper (spec §10), on the tools-only graph, whose
//! lists are throwaway (the agent's graph keeps them in the session database: see the agent's
//! tests).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use strata_services::permission::Permission;
use strata_services::todo::{Todo, Todos};
use strata_testkit::TestInstance;
use strata_tools::ToolError;

fn plan() -> Value {
    json!({"todos": [
        {"content": "Read the parser", "status": "completed", "priority": "high"},
        {"content": "Fix the off-by-one in `split`", "status": "in_progress", "priority": "high"},
        {"content": "Run `cargo test -p parser`", "status": "pending", "priority": "medium"},
        {"content": "Drop the old API", "status": "cancelled", "priority": "low"},
    ]})
}

#[tokio::test]
async fn replaces_the_list_and_echoes_it_as_pretty_json() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t.call("todowrite", plan()).await.unwrap();
            insta::assert_snapshot!(
                "todowrite_output",
                format!("title: {}\n---\n{}", r.title, r.output)
            );
            // Every item that is not completed counts, cancelled ones included (as the
            // reference counts them).
            assert_eq!(r.title, "3 todos");
            let echoed: Value = serde_json::from_str(&r.output).unwrap();
            assert_eq!(echoed, plan()["todos"]);
            assert!(r.output.contains("\n  {\n    \"content\""), "2-space indent");
            assert_eq!(r.metadata["todos"], plan()["todos"]);
            assert_eq!(r.metadata["truncated"], false);
            assert_eq!(
                r.metadata["throwaway"], true,
                "outside a stored session the list is throwaway, and says so"
            );
            let kept = t.get::<Todos>().get("ses_test").unwrap();
            assert_eq!(kept.len(), 4);
            assert_eq!(
                kept[1],
                Todo::new("Fix the off-by-one in `split`", "in_progress", "high")
            );

            // The next call replaces the whole list.
            let r = t
                .call(
                    "todowrite",
                    json!({"todos": [{"content": "Ship", "status": "completed", "priority": "low"}]}),
                )
                .await
                .unwrap();
            assert_eq!(r.title, "0 todos");
            assert_eq!(
                t.get::<Todos>().get("ses_test").unwrap(),
                [Todo::new("Ship", "completed", "low")]
            );
            let r = t.call("todowrite", json!({"todos": []})).await.unwrap();
            assert_eq!((r.title.as_str(), r.output.as_str()), ("0 todos", "[]"));
            assert!(t.get::<Todos>().get("ses_test").unwrap().is_empty());
        })
        .await;
}

#[tokio::test]
async fn asks_todowrite_for_everything_and_a_deny_changes_nothing() {
    TestInstance::builder()
        .config(json!({"permission": {"todowrite": "ask"}}))
        .run(|t| async move {
            t.call("todowrite", plan()).await.unwrap();
            let asks = t.asked_for("todowrite");
            assert_eq!(asks.len(), 1, "{asks:?}");
            assert_eq!(asks[0].patterns, ["*"]);
            assert_eq!(asks[0].always, ["*"]);
            assert_eq!(asks[0].metadata, json!({}));
        })
        .await;
    TestInstance::builder()
        .config(json!({"permission": {"todowrite": "deny"}}))
        .run(|t| async move {
            let err = t.call("todowrite", plan()).await.unwrap_err();
            assert!(matches!(err, ToolError::Permission(_)), "{err:?}");
            assert!(t.get::<Todos>().get("ses_test").unwrap().is_empty());
        })
        .await;
}

#[tokio::test]
async fn bad_input_names_the_field_and_keeps_the_list() {
    TestInstance::builder()
        .run(|t| async move {
            t.call("todowrite", plan()).await.unwrap();
            let bad = [
                (json!({}), "todos"),
                (
                    json!({"todos": [{"content": "x", "status": "pending"}]}),
                    "todos[0]",
                ),
                (
                    json!({"todos": [{"content": 7, "status": "pending", "priority": "low"}]}),
                    "todos[0].content",
                ),
                (json!({"todos": "all of them"}), "todos"),
            ];
            for (args, field) in bad {
                let err = t.call("todowrite", args.clone()).await.unwrap_err();
                let ToolError::InvalidArguments { tool, detail } = &err else {
                    panic!("{args}: expected invalid arguments, got {err:?}");
                };
                assert_eq!(tool, "todowrite");
                assert!(detail.contains(field), "{args}: {detail}");
            }
            assert_eq!(t.get::<Todos>().get("ses_test").unwrap().len(), 4);
            // Status and priority are free strings on the wire.
            let r = t
                .call(
                    "todowrite",
                    json!({"todos": [{"content": "x", "status": "blocked", "priority": "urgent"}]}),
                )
                .await
                .unwrap();
            assert_eq!(r.title, "1 todos");
        })
        .await;
}

#[tokio::test]
async fn lists_are_kept_per_session() {
    TestInstance::builder()
        .run(|t| async move {
            t.call("todowrite", plan()).await.unwrap();
            let other = strata_tools::ToolCx::builder("ses_other")
                .permission(t.get::<Permission>(), t.ruleset())
                .build();
            let one = json!({"todos": [{"content": "a", "status": "pending", "priority": "low"}]});
            t.call_with("todowrite", one, other).await.unwrap();
            let todos = t.get::<Todos>();
            assert_eq!(todos.get("ses_test").unwrap().len(), 4);
            assert_eq!(todos.get("ses_other").unwrap().len(), 1);
        })
        .await;
}

#[tokio::test]
async fn the_wire_schema_effects_and_description() {
    TestInstance::builder()
        .run(|t| async move {
            let registry = t.get::<strata_registry::ToolRegistry>();
            let tool = registry.get("todowrite").unwrap();
            let schema = (*tool.schema).clone();
            assert_eq!(schema["required"], json!(["todos"]));
            let item = &schema["properties"]["todos"]["items"];
            assert_eq!(item["required"], json!(["content", "status", "priority"]));
            for field in ["content", "status", "priority"] {
                assert_eq!(
                    item["properties"][field]["type"], "string",
                    "{field}: a free string, not an enum"
                );
            }
            assert!(!schema.to_string().contains("additionalProperties"));
            insta::assert_snapshot!(
                "schema_todowrite",
                serde_json::to_string_pretty(&schema).unwrap()
            );
            assert_eq!(
                tool.effects,
                strata_tools::Effects {
                    read_only: false,
                    destructive: false,
                    concurrency_safe: false,
                    open_world: false,
                },
                "spec §0.7"
            );
            let d = tool.description.to_lowercase();
            for needle in [
                "three or more",
                "in_progress",
                "one item",
                "word for word",
                "completed",
            ] {
                assert!(d.contains(needle), "description lacks `{needle}`");
            }
        })
        .await;
}
