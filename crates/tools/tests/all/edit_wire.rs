//! Wire schemas, effects and argument decoding of `edit`, `write` and `apply_patch`, as the
//! registry of a real instance hands them out (spec §0.2, §0.7, §2, §3, §4, §19 registry and
//! parameters).

use crate::wrapper_support::check_schema_shape;
use serde_json::{Value, json};
use strata_registry::ToolRegistry;
use strata_testkit::TestInstance;
use strata_tools::{Effects, ToolError};

fn check_shape(id: &str, s: &Value, properties: &[&str], required: &[&str]) {
    check_schema_shape(id, s, properties, required);
    for (name, p) in s["properties"].as_object().unwrap() {
        assert!(
            p["description"]
                .as_str()
                .is_some_and(|d| !d.trim().is_empty()),
            "{id}.{name} is described"
        );
    }
}

#[tokio::test]
async fn wire_schemas_and_effects() {
    TestInstance::builder()
        .run(|t| async move {
            let registry = t.get::<ToolRegistry>();
            let schema = |id: &str| -> Value { (*registry.get(id).unwrap().schema).clone() };

            let edit = schema("edit");
            check_shape(
                "edit",
                &edit,
                &["filePath", "oldString", "newString", "replaceAll"],
                &["filePath", "oldString", "newString"],
            );
            for f in ["filePath", "oldString", "newString"] {
                assert_eq!(edit["properties"][f]["type"], "string", "edit.{f}");
            }
            assert_eq!(edit["properties"]["replaceAll"]["type"], "boolean");

            let write = schema("write");
            check_shape(
                "write",
                &write,
                &["content", "filePath"],
                &["content", "filePath"],
            );
            let patch = schema("apply_patch");
            check_shape("apply_patch", &patch, &["patchText"], &["patchText"]);
            assert_eq!(patch["properties"]["patchText"]["type"], "string");

            for id in ["edit", "write", "apply_patch"] {
                let tool = registry.get(id).unwrap();
                assert_eq!(tool.effects, Effects::WRITES, "{id}: spec §0.7");
                assert!(!tool.effects.read_only && tool.effects.destructive);
                assert!(!tool.effects.concurrency_safe && !tool.effects.open_world);
                assert!(!tool.description.trim().is_empty(), "{id}");
                let def = strata_tools::builtin()
                    .into_iter()
                    .find(|d| d.id == id)
                    .unwrap();
                assert_eq!(def.schema(), *tool.schema, "{id}");
            }
            for (id, s) in [("edit", edit), ("write", write), ("apply_patch", patch)] {
                let pretty = serde_json::to_string_pretty(&s).unwrap();
                insta::assert_snapshot!(format!("schema_{id}"), pretty);
            }
        })
        .await;
}

/// `Ok` when decoding passed (the tool may still fail for its own reasons), `Err(detail)` on
/// InvalidArguments naming `tool`. The instances have the read-before-edit check off.
async fn decode(t: &TestInstance, tool: &str, input: &str) -> Result<(), String> {
    let cx = t.cx().build();
    match t.call_raw(tool, input, cx).await {
        Err(ToolError::InvalidArguments {
            tool: named,
            detail,
        }) => {
            assert_eq!(named, tool);
            Err(detail)
        }
        _ => Ok(()),
    }
}

async fn accepts(t: &TestInstance, tool: &str, input: &str) {
    if let Err(detail) = decode(t, tool, input).await {
        panic!("{tool} must accept {input}: {detail}");
    }
}

async fn rejects(t: &TestInstance, tool: &str, input: &str, words: &[&str]) {
    let detail = decode(t, tool, input)
        .await
        .err()
        .unwrap_or_else(|| panic!("{tool} must reject {input}"));
    for w in words {
        assert!(
            detail.contains(w),
            "{tool} {input}: `{w}` missing from: {detail}"
        );
    }
}

#[tokio::test]
async fn edit_decoding() {
    TestInstance::builder()
        .config(json!({"tools": {"read_before_edit": false}}))
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let base = r#""filePath": "a.txt", "oldString": "alpha", "newString""#;
            accepts(&t, "edit", &format!("{{{base}: \"b1\"}}")).await;
            accepts(
                &t,
                "edit",
                &format!("{{{base}: \"b2\", \"replaceAll\": true}}"),
            )
            .await;
            accepts(
                &t,
                "edit",
                &format!("{{{base}: \"b3\", \"replaceAll\": null}}"),
            )
            .await;
            accepts(&t, "edit", &format!("{{{base}: \"b4\", \"extra\": 1}}")).await;
            rejects(
                &t,
                "edit",
                r#"{"oldString": "a", "newString": "b"}"#,
                &["filePath", "missing"],
            )
            .await;
            rejects(
                &t,
                "edit",
                r#"{"filePath": "a.txt", "newString": "b"}"#,
                &["oldString"],
            )
            .await;
            rejects(
                &t,
                "edit",
                r#"{"filePath": "a.txt", "oldString": "a"}"#,
                &["newString"],
            )
            .await;
            rejects(
                &t,
                "edit",
                &format!("{{{base}: \"b\", \"replaceAll\": \"yes\"}}"),
                &["replaceAll"],
            )
            .await;
            rejects(
                &t,
                "edit",
                r#"{"filePath": 3, "oldString": "a", "newString": "b"}"#,
                &["filePath"],
            )
            .await;
            // The accepted calls really ran.
            assert_eq!(std::fs::read_to_string(t.path("a.txt")).unwrap(), "b1\n");
        })
        .await;
}

#[tokio::test]
async fn write_decoding() {
    TestInstance::builder()
        .config(json!({"tools": {"read_before_edit": false}}))
        .run(|t| async move {
            accepts(&t, "write", r#"{"filePath": "w.txt", "content": "x"}"#).await;
            accepts(
                &t,
                "write",
                r#"{"content": "", "filePath": "e.txt", "x": 1}"#,
            )
            .await;
            rejects(&t, "write", r#"{"content": "x"}"#, &["filePath", "missing"]).await;
            rejects(&t, "write", r#"{"filePath": "w.txt"}"#, &["content"]).await;
            rejects(
                &t,
                "write",
                r#"{"filePath": "w.txt", "content": 5}"#,
                &["content"],
            )
            .await;
            rejects(
                &t,
                "write",
                r#"{"filePath": null, "content": "x"}"#,
                &["filePath"],
            )
            .await;
            assert_eq!(std::fs::read_to_string(t.path("w.txt")).unwrap(), "x");
        })
        .await;
}

#[tokio::test]
async fn apply_patch_decoding() {
    TestInstance::builder()
        .config(json!({"tools": {"read_before_edit": false}}))
        .run(|t| async move {
            let text = "*** Begin Patch\n*** Add File: p.txt\n+p\n*** End Patch";
            accepts(&t, "apply_patch", &json!({"patchText": text}).to_string()).await;
            accepts(&t, "apply_patch", r#"{"patchText": "", "other": true}"#).await;
            rejects(&t, "apply_patch", "{}", &["patchText", "missing"]).await;
            rejects(&t, "apply_patch", r#"{"patch": "x"}"#, &["patchText"]).await;
            rejects(&t, "apply_patch", r#"{"patchText": 1}"#, &["patchText"]).await;
            rejects(&t, "apply_patch", r#"{"patchText": ["a"]}"#, &["patchText"]).await;
            rejects(&t, "apply_patch", "*** Begin Patch", &["JSON"]).await;
            assert_eq!(std::fs::read_to_string(t.path("p.txt")).unwrap(), "p\n");
        })
        .await;
}
