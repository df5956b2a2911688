//! The tool surface per model, mode and rules, from a real instance's registry.

use serde_json::json;
use strata_registry::{SurfaceSpec, ToolRegistry};
use strata_services::permission::{Action, Rule};
use strata_testkit::TestInstance;

fn ids(t: &TestInstance, spec: &SurfaceSpec) -> Vec<&'static str> {
    t.get::<ToolRegistry>()
        .surface(spec)
        .iter()
        .map(|x| x.id)
        .collect()
}

fn spec(t: &TestInstance, model: &str) -> SurfaceSpec {
    SurfaceSpec {
        model: model.into(),
        plan_mode: false,
        ruleset: t.ruleset(),
        experimental_lsp: false,
    }
}

#[tokio::test]
async fn patch_models_get_apply_patch_others_edit_and_write() {
    TestInstance::builder()
        .run(|t| async move {
            let gpt = ids(&t, &spec(&t, "openai/gpt-5"));
            assert!(gpt.contains(&"apply_patch"), "{gpt:?}");
            assert!(!gpt.contains(&"edit") && !gpt.contains(&"write"), "{gpt:?}");
            let claude = ids(&t, &spec(&t, "anthropic/claude-sonnet-4"));
            assert!(
                claude.contains(&"edit") && claude.contains(&"write"),
                "{claude:?}"
            );
            assert!(!claude.contains(&"apply_patch"), "{claude:?}");
            for model in ["openai/gpt-4.1", "gpt-oss-20b"] {
                let s = ids(&t, &spec(&t, model));
                assert!(
                    s.contains(&"edit") && !s.contains(&"apply_patch"),
                    "{model}: {s:?}"
                );
            }
            // `invalid` is registered but never advertised.
            assert!(t.get::<ToolRegistry>().get("invalid").is_some());
            assert!(!claude.contains(&"invalid"));
        })
        .await;
}

#[tokio::test]
async fn registration_order_is_kept() {
    TestInstance::builder()
        .run(|t| async move {
            let claude = ids(&t, &spec(&t, "anthropic/claude-sonnet-4"));
            assert_eq!(
                claude,
                ["bash", "read", "glob", "grep", "edit", "write", "webfetch"]
            );
        })
        .await;
}

#[tokio::test]
async fn plan_mode_drops_destructive_tools() {
    TestInstance::builder()
        .run(|t| async move {
            let mut s = spec(&t, "anthropic/claude-sonnet-4");
            s.plan_mode = true;
            assert_eq!(ids(&t, &s), ["read", "glob", "grep", "webfetch"]);
        })
        .await;
}

#[tokio::test]
async fn a_star_deny_hides_a_tool_and_edit_covers_write() {
    TestInstance::builder()
        .config(json!({"permission": {"edit": "deny", "bash": {"*": "deny", "git *": "allow"}}}))
        .run(|t| async move {
            let s = ids(&t, &spec(&t, "anthropic/claude-sonnet-4"));
            assert!(!s.contains(&"edit") && !s.contains(&"write"), "{s:?}");
            // A narrower allow after the deny keeps bash visible.
            assert!(s.contains(&"bash"), "{s:?}");
            let gpt = ids(&t, &spec(&t, "openai/gpt-5"));
            assert!(!gpt.contains(&"apply_patch"), "{gpt:?}");
            let mut r = t.ruleset();
            r.push(Rule::new("grep", "*", Action::Deny));
            let s = ids(
                &t,
                &SurfaceSpec {
                    model: "x".into(),
                    plan_mode: false,
                    ruleset: r,
                    experimental_lsp: false,
                },
            );
            assert!(!s.contains(&"grep"), "{s:?}");
        })
        .await;
}

#[tokio::test]
async fn the_registry_node_requires_every_tools_services() {
    let g = strata_registry::production();
    let node = g
        .nodes()
        .iter()
        .find(|n| n.key() == "ToolRegistry")
        .expect("the registry node");
    let keys: Vec<_> = node.requires().iter().map(|r| r.key).collect();
    for needed in [
        "FsUtil",
        "ChildProcessSpawner",
        "FileTime",
        "Truncate",
        "Config",
        "Bus",
    ] {
        assert!(keys.contains(&needed), "{needed} missing from {keys:?}");
    }
    // Dropping a service a tool needs makes the whole graph fail validation, naming the tool
    // registry as the consumer.
    let mut without = strata_graph::Graph::new();
    for n in g.nodes().iter().filter(|n| n.key() != "FileTime") {
        without.add(n.clone());
    }
    let report = without
        .validate(&[strata_graph::Available::of::<
            strata_services::instance::InstanceSeed,
        >(strata_graph::Tier::Instance)])
        .unwrap_err()
        .to_string();
    assert!(
        report.contains("`ToolRegistry` (instance) needs `FileTime`"),
        "{report}"
    );
}

#[tokio::test]
async fn the_lsp_tool_shows_only_behind_its_flag() {
    TestInstance::builder()
        .run(|t| async move {
            let off = ids(&t, &spec(&t, "anthropic/claude-sonnet-4"));
            assert!(!off.contains(&"lsp"), "{off:?}");
            let on = SurfaceSpec {
                experimental_lsp: true,
                ..spec(&t, "anthropic/claude-sonnet-4")
            };
            let on = ids(&t, &on);
            assert_eq!(on.last(), Some(&"lsp"), "{on:?}");
            assert_eq!(on.len(), off.len() + 1);
        })
        .await;
}
