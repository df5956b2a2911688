//! Diagnostics from a real language server (clangd, installed by `.ci/run`; skipped when
//! missing) after `write`, `edit` and `apply_patch`, the warm-up by `read`, and servers
//! stopping with the instance (spec §1 step 13, §2, §3.1 step 9, §3.7, §4, §16).

use std::time::Duration;

use crate::edit_support::{patch, read_first};
use serde_json::json;
use strata_services::lsp::Lsp;
use strata_testkit::{TestInstance, poll_with_timeout, process_ended, redacted, require_external};

const BROKEN: &str = "int main(void) {\n  return missing;\n}\n";
const FINE: &str = "int main(void) {\n  return 0;\n}\n";

#[tokio::test]
async fn write_reports_errors_in_the_file_and_in_other_files() {
    require_external!("clangd", "apt-get install clangd");
    TestInstance::builder()
        .run(|t| async move {
            let other = t.path("other.c");
            let r = t
                .call("write", json!({"filePath": "other.c", "content": BROKEN}))
                .await
                .unwrap();
            let block = format!("<diagnostics file=\"{}\">", other.display());
            assert!(r.output.contains(&block), "{}", r.output);
            assert!(r.output.contains("ERROR [2:10] "), "{}", r.output);
            let meta = &r.metadata["diagnostics"][other.to_str().unwrap()];
            assert_eq!(meta[0]["severity"], 1, "{:?}", r.metadata);
            assert_eq!(
                meta[0]["range"]["start"],
                json!({"line": 1, "character": 9})
            );
            redacted(&t).bind(|| insta::assert_snapshot!("write_with_errors", r.output));

            let r = t
                .call("write", json!({"filePath": "main.c", "content": FINE}))
                .await
                .unwrap();
            assert!(
                r.output.starts_with(
                    "Wrote the file successfully.\n\nIt also reports errors in other files:\n"
                ),
                "{}",
                r.output
            );
            assert!(r.output.contains(&block), "{}", r.output);
        })
        .await;
}

#[tokio::test]
async fn edit_reports_an_error_it_introduces_and_nothing_once_fixed() {
    require_external!("clangd", "apt-get install clangd");
    TestInstance::builder()
        .file("main.c", FINE)
        .run(|t| async move {
            read_first(&t, "main.c").await;
            let r = t
                .call(
                    "edit",
                    json!({"filePath": "main.c", "oldString": "return 0;", "newString": "return missing;"}),
                )
                .await
                .unwrap();
            assert!(
                r.output.starts_with("Edit applied successfully.\n\nThe language server reports errors in this file; fix them:\n<diagnostics"),
                "{}",
                r.output
            );
            assert!(r.output.contains("ERROR [2:10] "), "{}", r.output);
            let r = t
                .call(
                    "edit",
                    json!({"filePath": "main.c", "oldString": "return missing;", "newString": "return 1;"}),
                )
                .await
                .unwrap();
            assert_eq!(r.output, "Edit applied successfully.");
            assert_eq!(r.metadata["diagnostics"], json!({}), "{:?}", r.metadata);
        })
        .await;
}

#[tokio::test]
async fn apply_patch_reports_errors_per_written_file() {
    require_external!("clangd", "apt-get install clangd");
    TestInstance::builder()
        .run(|t| async move {
            let text = patch(&[
                "*** Add File: src/bad.c",
                "+int f(void) { return nope; }",
                "*** Add File: src/good.c",
                "+int g(void) { return 2; }",
            ]);
            let r = t
                .call("apply_patch", json!({"patchText": text}))
                .await
                .unwrap();
            assert_eq!(
                r.title,
                "Success. The patch changed these files:\nA src/bad.c\nA src/good.c"
            );
            assert!(
                r.output.contains(
                    "The language server reports errors in src/bad.c; fix them:\n<diagnostics file="
                ),
                "{}",
                r.output
            );
            assert!(!r.output.contains("errors in src/good.c"), "{}", r.output);
            assert!(r.output.contains("ERROR [1:22] "), "{}", r.output);
        })
        .await;
}

#[tokio::test]
async fn files_without_a_server_get_no_diagnostics_and_start_nothing() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call(
                    "write",
                    json!({"filePath": "notes.txt", "content": "hello\n"}),
                )
                .await
                .unwrap();
            assert_eq!(r.output, "Wrote the file successfully.");
            assert_eq!(r.metadata["diagnostics"], json!({}));
            assert!(t.get::<Lsp>().running().await.is_empty());
        })
        .await;
}

#[tokio::test]
async fn read_warms_the_server_and_the_instance_stops_it() {
    require_external!("clangd", "apt-get install clangd");
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let record = seen.clone();
    TestInstance::builder()
        .file("main.c", FINE)
        .run(|t| async move {
            read_first(&t, "main.c").await;
            let lsp = t.get::<Lsp>();
            let pid = poll_with_timeout(
                "clangd to start after a read",
                Duration::from_secs(20),
                || {
                    let lsp = lsp.clone();
                    async move { lsp.running().await.first().map(|(_, _, pid)| *pid) }
                },
            )
            .await;
            *record.lock().unwrap() = Some(pid);
        })
        .await;
    let pid = seen.lock().unwrap().expect("the server's pid");
    poll_with_timeout(
        "clangd to stop with the instance",
        Duration::from_secs(10),
        || async move { process_ended(pid).then_some(()) },
    )
    .await;
}
