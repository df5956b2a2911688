//! MCP resources and prompts (issue 23 §2) against real servers: the testkit's scripted server
//! with `--resources` (a few items per page, so every list needs `nextCursor`), and the
//! reference `server-everything` from npm when it is installed.

use std::time::Duration;

use serde_json::{Value, json};
use strata_registry::{SurfaceSpec, ToolRegistry};
use strata_services::mcp::{Mcp, PromptError, PromptUsage};
use strata_testkit::mcp_server::{NOTES, PROMPTS};
use strata_testkit::{TestInstance, poll_with_timeout};
use strata_tools::ToolError;
use tokio_util::sync::CancellationToken;

const FIXTURE: &str = env!("CARGO_BIN_EXE_strata-mcp-fixture");
const LIMIT: Duration = Duration::from_secs(20);

fn fixture(args: &[&str]) -> Value {
    let mut command = vec![FIXTURE.to_string()];
    command.extend(args.iter().map(|a| a.to_string()));
    json!({"type": "local", "command": command, "timeout": 10_000})
}

fn everything() -> Value {
    json!({"type": "local", "command": ["mcp-server-everything"]})
}

/// The ids a model would be offered, as the agent loop asks for them.
fn surface(t: &TestInstance) -> Vec<&'static str> {
    let registry = t.get::<ToolRegistry>();
    let config = t.get::<strata_services::config::Config>();
    let flags = t.get::<strata_services::flags::RuntimeFlags>();
    let spec = SurfaceSpec {
        model: "anthropic/claude-sonnet-4".into(),
        ruleset: t.ruleset(),
        backends: registry.configured_backends(&config, &flags),
        ..SurfaceSpec::default()
    };
    registry.surface(&spec).iter().map(|x| x.id).collect()
}

fn error_text(r: Result<strata_tools::ToolResult, ToolError>) -> String {
    match r {
        Err(ToolError::Model(m)) => m,
        other => panic!("expected a tool error, got {other:?}"),
    }
}

fn json_of(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

#[tokio::test]
async fn the_resource_tools_show_only_when_a_server_offers_resources() {
    TestInstance::builder()
        .config(json!({"mcp": {"plain": fixture(&[])}}))
        .run(|t| async move {
            let ids = surface(&t);
            assert!(ids.contains(&"plain_echo"), "{ids:?}");
            assert!(!ids.contains(&"list_mcp_resources"), "{ids:?}");
            assert!(!ids.contains(&"read_mcp_resource"), "{ids:?}");
            let err = error_text(t.call("list_mcp_resources", json!({})).await);
            assert!(
                err.starts_with("No connected MCP server offers resources"),
                "{err}"
            );
        })
        .await;
    TestInstance::builder()
        .config(json!({"mcp": {"plain": fixture(&[]), "rich": fixture(&["--resources"])}}))
        .run(|t| async move {
            let ids = surface(&t);
            assert!(ids.contains(&"list_mcp_resources"), "{ids:?}");
            assert!(ids.contains(&"read_mcp_resource"), "{ids:?}");
            assert_eq!(t.get::<Mcp>().resource_servers(), ["rich"]);
        })
        .await;
}

#[tokio::test]
async fn every_page_of_resources_and_templates_is_listed_and_asked_for() {
    TestInstance::builder()
        .config(json!({"mcp": {"rich": fixture(&["--resources"])},
            "permission": {"mcp_resource": "ask"}}))
        .run(|t| async move {
            let out = t.call("list_mcp_resources", json!({})).await.unwrap();
            let doc = json_of(&out.output);
            let resources = doc["resources"].as_array().unwrap();
            // NOTES notes and the pixel, five per page.
            assert_eq!(resources.len(), NOTES + 1, "{doc}");
            assert_eq!(resources[0]["uri"], "fixture://note/1");
            assert_eq!(resources[0]["server"], "rich");
            assert_eq!(resources[NOTES]["mimeType"], "image/png");
            let templates = doc["resourceTemplates"].as_array().unwrap();
            assert_eq!(templates.len(), 6, "{doc}");
            assert_eq!(templates[1]["uriTemplate"], "fixture://search{?q,limit}");
            assert_eq!(templates[1]["parameters"], json!(["q", "limit"]));
            assert_eq!(templates[5]["parameters"], json!([]));
            assert_eq!(out.metadata["resources"], NOTES + 1);
            let asks = t.asked_for("mcp_resource");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, ["rich:*"]);

            let err = error_text(
                t.call("list_mcp_resources", json!({"server": "nope"}))
                    .await,
            );
            assert!(err.contains("`nope`") && err.contains("rich"), "{err}");
        })
        .await;
}

#[tokio::test]
async fn text_reads_as_text_a_blob_as_an_attachment_and_a_bad_uri_says_to_list() {
    TestInstance::builder()
        .config(json!({"mcp": {"rich": fixture(&["--resources"])}}))
        .run(|t| async move {
            let read =
                |uri: &str| t.call("read_mcp_resource", json!({"server": "rich", "uri": uri}));
            let note = read("fixture://note/7").await.unwrap();
            assert_eq!(note.output, "This is note 7.");
            assert_eq!(note.title, "fixture://note/7");
            assert!(note.attachments.is_empty());

            let pixel = read("fixture://pixel").await.unwrap();
            assert_eq!(pixel.attachments.len(), 1);
            let url = &pixel.attachments[0].url;
            assert_eq!(
                url,
                &format!(
                    "data:image/png;base64,{}",
                    strata_testkit::mcp_server::PIXEL_PNG
                )
            );
            assert!(
                pixel
                    .output
                    .starts_with("Binary contents of fixture://pixel (image/png,"),
                "{}",
                pixel.output
            );

            let err = error_text(read("fixture://missing").await);
            assert!(
                err.contains("`rich`")
                    && err.contains("`fixture://missing`")
                    && err.contains("list_mcp_resources"),
                "{err}"
            );
            let err = error_text(
                t.call(
                    "read_mcp_resource",
                    json!({"server": "other", "uri": "x://y"}),
                )
                .await,
            );
            assert!(err.contains("`other`") && err.contains("x://y"), "{err}");
        })
        .await;
}

#[tokio::test]
async fn prompts_are_listed_to_the_last_page_filled_and_refreshed_on_list_changed() {
    TestInstance::builder()
        .config(json!({"mcp": {"rich": fixture(&["--resources"]), "plain": fixture(&[])}}))
        .run(|t| async move {
            let mcp = t.get::<Mcp>();
            let prompts = mcp.prompts();
            assert_eq!(prompts.len(), PROMPTS, "{prompts:?}");
            assert_eq!(prompts[0].command(), "rich:greet");
            assert_eq!(prompts[0].usage(), "name [mood]");
            let cancel = CancellationToken::new();
            let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
            let text = mcp
                .expand_prompt("rich:greet", &words(&["mood=warmly", "Ada"]), &cancel)
                .await
                .unwrap();
            assert_eq!(text, "Greet Ada warmly.");
            let err = mcp
                .expand_prompt("rich:greet", &[], &cancel)
                .await
                .unwrap_err();
            assert!(
                matches!(&err, PromptError::Usage(PromptUsage::Missing { missing, .. })
                    if missing == &["name"]),
                "{err}"
            );
            let err = mcp.prompt("rich:nope").unwrap_err().to_string();
            assert!(
                err.contains("rich:greet") && err.contains("rich:p11"),
                "{err}"
            );

            // The server adds a prompt and says so: the list follows without a restart.
            t.call("rich_more", json!({})).await.unwrap();
            poll_with_timeout("the late prompt", LIMIT, || async {
                mcp.prompt("rich:late").ok()
            })
            .await;
        })
        .await;
}

#[tokio::test]
async fn server_everything_resources_templates_blobs_and_prompts() {
    strata_testkit::require_external!(
        "mcp-server-everything",
        "npm install -g @modelcontextprotocol/server-everything"
    );
    TestInstance::builder()
        .config(json!({"mcp": {"everything": everything()}}))
        .run(|t| async move {
            assert!(surface(&t).contains(&"read_mcp_resource"));
            let out = t
                .call("list_mcp_resources", json!({"server": "everything"}))
                .await
                .unwrap();
            let doc = json_of(&out.output);
            let resources = doc["resources"].as_array().unwrap();
            let doc_uri = "demo://resource/static/document/architecture.md";
            assert!(resources.iter().any(|r| r["uri"] == doc_uri), "{doc}");
            let templates = doc["resourceTemplates"].as_array().unwrap();
            let blob = templates
                .iter()
                .find(|r| r["uriTemplate"] == "demo://resource/dynamic/blob/{resourceId}")
                .unwrap_or_else(|| panic!("{doc}"));
            assert_eq!(blob["parameters"], json!(["resourceId"]));

            let read = |uri: &str| {
                t.call(
                    "read_mcp_resource",
                    json!({"server": "everything", "uri": uri}),
                )
            };
            let text = read(doc_uri).await.unwrap();
            assert!(text.output.starts_with('#'), "{}", text.output);
            assert!(text.attachments.is_empty());
            let bin = read("demo://resource/dynamic/blob/3").await.unwrap();
            assert_eq!(bin.attachments.len(), 1, "{bin:?}");
            // The server's blob is `Resource 3: This is a base64 blob…`, whose first twelve
            // bytes are these sixteen base64 characters.
            let url = &bin.attachments[0].url;
            assert!(
                url.starts_with("data:text/plain;base64,UmVzb3VyY2UgMzog"),
                "{url}"
            );
            let err = error_text(read("demo://resource/dynamic/text/0").await);
            assert!(
                err.contains("everything") && err.contains("list_mcp_resources"),
                "{err}"
            );

            let names: Vec<String> = t
                .get::<Mcp>()
                .prompts()
                .iter()
                .map(|p| p.command())
                .collect();
            assert!(
                names.contains(&"everything:args-prompt".to_string()),
                "{names:?}"
            );
        })
        .await;
}
