//! The experimental `lsp` tool against a real clangd (installed by `.ci/run`; skipped when
//! missing): titles, asks, results of each kind of request, and the errors for a missing file
//! or a file no server handles (spec §16).

use std::time::Duration;

use serde_json::{Value, json};
use strata_testkit::{TestInstance, TestInstanceBuilder, external, poll_with_timeout};
use strata_tools::ToolError;

const MAIN_C: &str =
    "int helper(int x) {\n  return x + 1;\n}\n\nint main(void) {\n  return helper(41);\n}\n";

/// The project, or `None` (after saying the test skipped) when clangd is not installed.
fn project() -> Option<TestInstanceBuilder> {
    external("clangd", "apt-get install clangd").then(|| {
        TestInstance::builder()
            .config(json!({"permission": {"lsp": "ask"}}))
            .file("main.c", MAIN_C)
            .file("notes.txt", "plain text\n")
    })
}

fn names(result: &Value) -> Vec<String> {
    result
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str().map(String::from))
        .collect()
}

#[tokio::test]
async fn go_to_definition_finds_the_function_and_names_the_position() {
    let Some(project) = project() else { return };
    project
        .run(|t| async move {
            let args = json!({"operation": "goToDefinition", "filePath": "main.c", "line": 6, "character": 10});
            let r = t.call("lsp", args).await.unwrap();
            assert_eq!(r.title, "goToDefinition main.c:6:10");
            let result = r.metadata["result"].as_array().unwrap().clone();
            assert_eq!(result.len(), 1, "{result:?}");
            assert!(result[0]["uri"].as_str().unwrap().ends_with("/main.c"));
            assert_eq!(result[0]["range"]["start"]["line"], 0);
            let parsed: Value = serde_json::from_str(&r.output).unwrap();
            assert_eq!(parsed, Value::Array(result), "the output is the pretty JSON");
            assert!(r.output.contains("\n  {"), "two-space indent: {}", r.output);
            let ask = t.asked_for("lsp").pop().unwrap();
            assert_eq!((ask.patterns.clone(), ask.always.clone()), (vec!["*".to_string()], vec!["*".to_string()]));
            let file = t.path("main.c");
            assert_eq!(
                ask.metadata,
                json!({"operation": "goToDefinition", "filePath": file.to_str().unwrap(), "line": 6, "character": 10})
            );
        })
        .await;
}

#[tokio::test]
async fn document_symbols_hover_and_references() {
    let Some(project) = project() else { return };
    project
        .run(|t| async move {
            let r = t
                .call("lsp", json!({"operation": "documentSymbol", "filePath": "main.c", "line": 1, "character": 1}))
                .await
                .unwrap();
            assert_eq!(r.title, "documentSymbol main.c");
            assert_eq!(names(&r.metadata["result"]), ["helper", "main"]);
            let file = t.path("main.c");
            assert_eq!(
                t.asked_for("lsp")[0].metadata,
                json!({"operation": "documentSymbol", "filePath": file.to_str().unwrap()})
            );

            let r = t
                .call("lsp", json!({"operation": "hover", "filePath": "main.c", "line": 6, "character": 12}))
                .await
                .unwrap();
            let hover = r.metadata["result"][0]["contents"].to_string();
            assert!(hover.contains("helper"), "{hover}");

            let r = t
                .call("lsp", json!({"operation": "findReferences", "filePath": "main.c", "line": 1, "character": 6}))
                .await
                .unwrap();
            let lines: Vec<i64> = r.metadata["result"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["range"]["start"]["line"].as_i64().unwrap())
                .collect();
            assert_eq!(lines, [0, 5], "the declaration and the call");
        })
        .await;
}

#[tokio::test]
async fn workspace_symbols_and_incoming_calls_come_from_the_index() {
    let Some(project) = project() else { return };
    project
        .run(|t| async move {
            // The index fills in the background after the file opens.
            let found = poll_with_timeout("clangd to index helper", Duration::from_secs(30), || {
                let t = t.clone();
                async move {
                    let r = t
                        .call("lsp", json!({"operation": "workspaceSymbol", "filePath": "main.c", "line": 1, "character": 1, "query": "helper"}))
                        .await
                        .unwrap();
                    names(&r.metadata["result"]).contains(&"helper".to_string()).then_some(r)
                }
            })
            .await;
            assert_eq!(found.title, "workspaceSymbol");
            assert_eq!(t.asked_for("lsp")[0].metadata, json!({"operation": "workspaceSymbol"}));

            let r = t
                .call("lsp", json!({"operation": "incomingCalls", "filePath": "main.c", "line": 1, "character": 6}))
                .await
                .unwrap();
            assert_eq!(r.metadata["result"][0]["from"]["name"], "main", "{}", r.output);
            let r = t
                .call("lsp", json!({"operation": "prepareCallHierarchy", "filePath": "main.c", "line": 1, "character": 6}))
                .await
                .unwrap();
            assert_eq!(r.metadata["result"][0]["name"], "helper", "{}", r.output);
        })
        .await;
}

#[tokio::test]
async fn missing_files_unhandled_types_and_bad_positions_are_refused() {
    let Some(project) = project() else { return };
    project
        .run(|t| async move {
            let err = t
                .call("lsp", json!({"operation": "hover", "filePath": "gone.c", "line": 1, "character": 1}))
                .await
                .unwrap_err();
            assert!(matches!(&err, ToolError::Model(m) if m.contains("gone.c") && m.contains("not found")), "{err:?}");
            let err = t
                .call("lsp", json!({"operation": "hover", "filePath": "notes.txt", "line": 1, "character": 1}))
                .await
                .unwrap_err();
            assert!(matches!(&err, ToolError::Model(m) if m.contains("No language server")), "{err:?}");
            let err = t
                .call("lsp", json!({"operation": "hover", "filePath": "main.c", "line": 0, "character": 1}))
                .await
                .unwrap_err();
            assert!(matches!(&err, ToolError::InvalidArguments { detail, .. } if detail.contains("`line`")), "{err:?}");
            let err = t
                .call("lsp", json!({"operation": "rename", "filePath": "main.c", "line": 1, "character": 1}))
                .await
                .unwrap_err();
            assert!(matches!(&err, ToolError::InvalidArguments { detail, .. } if detail.contains("`operation`")), "{err:?}");
        })
        .await;
}

#[tokio::test]
async fn a_query_with_no_answer_says_so() {
    let Some(project) = project() else { return };
    project
        .run(|t| async move {
            // Line 4 is empty: nothing is defined there.
            let r = t
                .call("lsp", json!({"operation": "goToDefinition", "filePath": "main.c", "line": 4, "character": 1}))
                .await
                .unwrap();
            assert_eq!(r.output, "No results for goToDefinition.");
            assert_eq!(r.metadata["result"], json!([]));
        })
        .await;
}
