//! Argument decoding in the wrapper for `read`, `glob`, `grep`, `bash` and `invalid`: what is
//! accepted, what is refused, and the InvalidArguments message (spec §0.2, §19 registry and
//! parameters, wrapper).

use strata_testkit::TestInstance;
use strata_tools::ToolError;

/// Calls `tool` with raw `input`; `Ok` when decoding passed (the tool may still fail for its
/// own reasons), `Err(detail)` on InvalidArguments.
async fn decode(t: &TestInstance, tool: &str, input: &str) -> Result<(), (String, String)> {
    match t.call_raw(tool, input, t.cx().build()).await {
        Err(ToolError::InvalidArguments { tool, detail }) => Err((tool, detail)),
        _ => Ok(()),
    }
}

async fn accepts(t: &TestInstance, tool: &str, input: &str) {
    if let Err((_, detail)) = decode(t, tool, input).await {
        panic!("{tool} must accept {input}: {detail}");
    }
}

/// Asserts the refusal names the tool and mentions every one of `words`; returns the detail.
async fn rejects(t: &TestInstance, tool: &str, input: &str, words: &[&str]) -> String {
    let (named, detail) = decode(t, tool, input)
        .await
        .err()
        .unwrap_or_else(|| panic!("{tool} must reject {input}"));
    assert_eq!(named, tool);
    for w in words {
        assert!(
            detail.contains(w),
            "{tool} {input}: `{w}` missing from: {detail}"
        );
    }
    detail
}

fn instance() -> strata_testkit::TestInstanceBuilder {
    TestInstance::builder().file("a.txt", "alpha\nbeta\n")
}

#[tokio::test]
async fn read_decoding() {
    instance()
        .run(|t| async move {
            accepts(&t, "read", r#"{"filePath": "a.txt"}"#).await;
            accepts(
                &t,
                "read",
                r#"{"filePath": "a.txt", "offset": 2, "limit": 1}"#,
            )
            .await;
            // `null` on an optional field is absent (the reference rejects it).
            accepts(
                &t,
                "read",
                r#"{"filePath": "a.txt", "offset": null, "limit": null}"#,
            )
            .await;
            // Unknown keys are ignored.
            accepts(&t, "read", r#"{"filePath": "a.txt", "description": "why"}"#).await;

            rejects(&t, "read", r#"{"path": "a.txt"}"#, &["filePath", "missing"]).await;
            rejects(&t, "read", r#"{"filePath": 5}"#, &["filePath", "string"]).await;
            rejects(&t, "read", r#"{"filePath": null}"#, &["filePath"]).await;
            rejects(
                &t,
                "read",
                r#"{"filePath": "a.txt", "offset": "10"}"#,
                &["offset"],
            )
            .await;
            rejects(
                &t,
                "read",
                r#"{"filePath": "a.txt", "limit": -1}"#,
                &["limit"],
            )
            .await;
            rejects(
                &t,
                "read",
                r#"{"filePath": "a.txt", "offset": 1.5}"#,
                &["offset"],
            )
            .await;
            rejects(&t, "read", "", &["filePath"]).await;
            rejects(&t, "read", "[]", &[]).await;
        })
        .await;
}

#[tokio::test]
async fn decoded_defaults_reach_the_tool() {
    instance()
        .run(|t| async move {
            let r = t
                .call_raw(
                    "read",
                    r#"{"filePath": "a.txt", "offset": null, "limit": null, "extra": [1]}"#,
                    t.cx().build(),
                )
                .await
                .unwrap();
            assert!(r.output.contains("1: alpha\n2: beta"), "{}", r.output);
            let r = t
                .call_raw(
                    "read",
                    r#"{"filePath": "a.txt", "offset": 2}"#,
                    t.cx().build(),
                )
                .await
                .unwrap();
            assert!(r.output.contains("2: beta") && !r.output.contains("1: alpha"));
        })
        .await;
}

#[tokio::test]
async fn glob_and_grep_need_a_string_pattern() {
    instance()
        .run(|t| async move {
            for tool in ["glob", "grep"] {
                accepts(&t, tool, r#"{"pattern": "*.txt"}"#).await;
                accepts(&t, tool, r#"{"pattern": "*.txt", "path": null}"#).await;
                accepts(&t, tool, r#"{"pattern": "x", "path": "."}"#).await;
                rejects(&t, tool, "{}", &["pattern", "missing"]).await;
                rejects(&t, tool, r#"{"pattern": 3}"#, &["pattern"]).await;
                rejects(&t, tool, r#"{"pattern": "x", "path": false}"#, &["path"]).await;
            }
            accepts(&t, "grep", r#"{"pattern": "x", "include": "*.rs"}"#).await;
            accepts(&t, "grep", r#"{"pattern": "x", "include": null}"#).await;
            rejects(
                &t,
                "grep",
                r#"{"pattern": "x", "include": ["*.rs"]}"#,
                &["include"],
            )
            .await;
        })
        .await;
}

#[tokio::test]
async fn bash_needs_a_string_command_and_optional_timeout_and_workdir() {
    instance()
        .run(|t| async move {
            accepts(&t, "bash", r#"{"command": "true"}"#).await;
            accepts(
                &t,
                "bash",
                r#"{"command": "true", "timeout": 5000, "workdir": ".", "description": "Does nothing"}"#,
            )
            .await;
            accepts(&t, "bash", r#"{"command": "true", "timeout": null}"#).await;
            rejects(&t, "bash", "{}", &["command", "missing"]).await;
            rejects(&t, "bash", r#"{"command": ["ls"]}"#, &["command"]).await;
            rejects(&t, "bash", r#"{"command": "true", "timeout": "soon"}"#, &["timeout"]).await;
            rejects(&t, "bash", r#"{"command": "true", "workdir": 7}"#, &["workdir"]).await;
        })
        .await;
}

#[tokio::test]
async fn invalid_needs_both_fields() {
    instance()
        .run(|t| async move {
            accepts(
                &t,
                "invalid",
                r#"{"tool": "frobnicate", "error": "unknown"}"#,
            )
            .await;
            rejects(
                &t,
                "invalid",
                r#"{"tool": "frobnicate"}"#,
                &["error", "missing"],
            )
            .await;
            rejects(
                &t,
                "invalid",
                r#"{"error": "unknown"}"#,
                &["tool", "missing"],
            )
            .await;
            rejects(&t, "invalid", r#"{"tool": 1, "error": "x"}"#, &["tool"]).await;
        })
        .await;
}

#[tokio::test]
async fn arguments_that_are_not_json_are_invalid_arguments() {
    instance()
        .run(|t| async move {
            rejects(&t, "read", r#"{"filePath": "a.txt""#, &["JSON"]).await;
            rejects(&t, "glob", "pattern=*.rs", &["JSON"]).await;
            rejects(&t, "grep", r#"{"pattern": "x"} trailing"#, &[]).await;
        })
        .await;
}

#[tokio::test]
async fn invalid_arguments_message_names_tool_and_field_and_asks_for_a_rewrite() {
    instance()
        .run(|t| async move {
            let err = t
                .call_raw("read", r#"{"path": "a.txt"}"#, t.cx().build())
                .await
                .unwrap_err();
            assert!(!err.stops_turn(), "the model can fix its call");
            let missing = err.to_string();
            let err = t
                .call_raw("read", r#"{"filePath": 7}"#, t.cx().build())
                .await
                .unwrap_err();
            let wrong_type = err.to_string();
            let err = t
                .call_raw("grep", "{not json", t.cx().build())
                .await
                .unwrap_err();
            let not_json = err.to_string();
            insta::assert_snapshot!(
                "invalid_arguments_messages",
                format!("{missing}\n---\n{wrong_type}\n---\n{not_json}")
            );
            assert!(missing.contains("`read`") && missing.contains("filePath"));
            assert!(wrong_type.contains("field `filePath`"), "{wrong_type}");
            assert!(not_json.contains("`grep`"));
            for m in [&missing, &wrong_type, &not_json] {
                assert!(m.contains("Send the call again"), "asks for a rewrite: {m}");
            }
        })
        .await;
}

#[tokio::test]
async fn a_refused_decode_never_runs_the_tool_or_asks() {
    TestInstance::builder()
        .config(serde_json::json!({"permission": {"read": "ask", "grep": "ask"}}))
        .run(|t| async move {
            t.call_raw("read", r#"{"filePath": 1}"#, t.cx().build())
                .await
                .unwrap_err();
            t.call_raw("grep", "{}", t.cx().build()).await.unwrap_err();
            assert!(t.asked().is_empty(), "{:?}", t.asked());
        })
        .await;
}
