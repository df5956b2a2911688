//! The tool surface per model, mode and rules, from a real instance's registry. Expected lists
//! come from what `strata_tools::builtin()` declares; a few spot checks pin the behaviour.

mod agents;

use serde_json::json;
use strata_registry::{SurfaceSpec, ToolRegistry, is_patch_model};
use strata_services::flags::{Flag, RuntimeFlags};
use strata_services::permission::{Action, Rule, hidden_tools};
use strata_testkit::TestInstance;
use strata_tools::{Effects, Tool, ToolCx, ToolDef, ToolError, ToolResult, Visibility};

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
        flags: vec![],
        backends: vec![],
    }
}

/// What `spec` should show, read from the built-in tools' declarations alone.
fn expected(spec: &SurfaceSpec) -> Vec<&'static str> {
    let patch = is_patch_model(&spec.model);
    let defs = strata_tools::builtin();
    let keys: Vec<(&str, &str)> = defs.iter().map(|d| (d.id, d.permission)).collect();
    let hidden = hidden_tools(&keys, &spec.ruleset);
    defs.iter()
        .filter(|d| match d.visibility {
            Visibility::Always => true,
            Visibility::PatchModels => patch,
            Visibility::NonPatchModels => !patch,
            Visibility::Flag(f) => spec.flags.contains(&f),
            Visibility::Backend(b) => spec.backends.contains(&b),
            Visibility::EditSurfaceSwitch(s) => !patch && spec.backends.contains(&s),
            Visibility::Never => false,
        })
        .filter(|d| !(spec.plan_mode && d.effects.destructive))
        .filter(|d| !hidden.iter().any(|h| h == d.id))
        .map(|d| d.id)
        .collect()
}

fn builtin_where(f: impl Fn(&ToolDef) -> bool) -> Vec<&'static str> {
    strata_tools::builtin()
        .into_iter()
        .filter(|d| f(d))
        .map(|d| d.id)
        .collect()
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
            let never = builtin_where(|d| d.visibility == Visibility::Never);
            assert!(never.contains(&"invalid"), "{never:?}");
            for id in never {
                assert!(t.get::<ToolRegistry>().get(id).is_some(), "{id}");
                assert!(!claude.contains(&id) && !gpt.contains(&id), "{id}");
            }
        })
        .await;
}

#[tokio::test]
async fn every_surface_follows_the_declarations() {
    TestInstance::builder()
        .run(|t| async move {
            let models = [
                "anthropic/claude-sonnet-4",
                "openai/gpt-5",
                "openai/gpt-4.1",
                "gpt-oss-20b",
            ];
            for model in models {
                for plan_mode in [false, true] {
                    for flags in [vec![], vec![Flag::ExperimentalLspTool]] {
                        let s = SurfaceSpec {
                            plan_mode,
                            flags,
                            ..spec(&t, model)
                        };
                        assert_eq!(ids(&t, &s), expected(&s), "{s:?}");
                    }
                }
            }
        })
        .await;
}

#[tokio::test]
async fn the_file_changing_tools_share_the_edit_permission() {
    let edit = builtin_where(|d| d.permission == "edit");
    assert_eq!(edit, ["edit", "write", "transaction", "apply_patch"]);
    // The background-shell tools are governed by `bash`'s rules, the two MCP resource tools
    // share `mcp_resource`; every other tool goes by its id.
    let shells = builtin_where(|d| d.permission == "bash");
    assert_eq!(shells, ["bash", "bash_output", "bash_kill"]);
    let resources = builtin_where(|d| d.permission == "mcp_resource");
    assert_eq!(resources, ["list_mcp_resources", "read_mcp_resource"]);
    for d in strata_tools::builtin() {
        let shared = edit.contains(&d.id) || shells.contains(&d.id) || resources.contains(&d.id);
        assert!(d.permission == d.id || shared, "{d:?}");
    }
}

#[tokio::test]
async fn registration_order_is_kept() {
    TestInstance::builder()
        .run(|t| async move {
            let s = spec(&t, "anthropic/claude-sonnet-4");
            let claude = ids(&t, &s);
            assert_eq!(claude, expected(&s));
            // The expected list keeps `builtin()` order: check it is that order, not a sort.
            let order = builtin_where(|_| true);
            let at = |id: &str| order.iter().position(|o| *o == id);
            assert!(claude.windows(2).all(|w| at(w[0]) < at(w[1])), "{claude:?}");
            assert!(claude.len() > 2, "{claude:?}");
        })
        .await;
}

#[tokio::test]
async fn plan_mode_drops_destructive_tools() {
    TestInstance::builder()
        .run(|t| async move {
            let mut s = spec(&t, "anthropic/claude-sonnet-4");
            s.plan_mode = true;
            let planned = ids(&t, &s);
            assert_eq!(planned, expected(&s));
            assert!(planned.contains(&"read"), "{planned:?}");
            for id in builtin_where(|d| d.effects.destructive) {
                assert!(!planned.contains(&id), "{id} in {planned:?}");
            }
        })
        .await;
}

#[tokio::test]
async fn a_star_deny_hides_a_tool_and_edit_covers_write() {
    TestInstance::builder()
        .config(json!({"permission": {"edit": "deny", "bash": {"*": "deny", "git *": "allow"}}}))
        .run(|t| async move {
            let claude = spec(&t, "anthropic/claude-sonnet-4");
            let s = ids(&t, &claude);
            assert_eq!(s, expected(&claude));
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
                    flags: vec![],
                    backends: vec![],
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
    for d in strata_tools::builtin() {
        for r in d.requires() {
            assert!(keys.contains(&r.key), "{} of `{}` missing", r.key, d.id);
        }
    }
    // Dropping a service a tool needs makes the whole graph fail validation, naming the tool
    // (via the registry) as the consumer.
    let report = production_without("FileTime");
    assert!(
        report.contains("tool `write` (via `ToolRegistry`, instance) needs `FileTime`"),
        "{report}"
    );
}

/// The validation report of the production graph without the node for `key`.
fn production_without(key: &str) -> String {
    let mut without = strata_graph::Graph::new();
    for n in strata_registry::production().nodes() {
        if n.key() != key {
            without.add(n.clone());
        }
    }
    without
        .validate(&[strata_graph::Available::of::<
            strata_services::instance::InstanceSeed,
        >(strata_graph::Tier::Instance)])
        .err()
        .map(|report| report.to_string())
        .unwrap_or_else(|| panic!("the graph without `{key}` validated"))
}

#[test]
fn the_report_names_each_tool_that_needs_a_missing_service() {
    insta::assert_snapshot!(production_without("FileTime"));
}

#[tokio::test]
async fn the_lsp_tool_shows_only_behind_its_flag() {
    TestInstance::builder()
        .run(|t| async move {
            let off = ids(&t, &spec(&t, "anthropic/claude-sonnet-4"));
            assert!(!off.contains(&"lsp"), "{off:?}");
            let on = SurfaceSpec {
                flags: vec![Flag::ExperimentalLspTool],
                ..spec(&t, "anthropic/claude-sonnet-4")
            };
            let on = ids(&t, &on);
            assert_eq!(on.last(), Some(&"lsp"), "{on:?}");
            assert_eq!(on.len(), off.len() + 1);
        })
        .await;
}

/// The surface of the production registry for `model` under `config`, with the backends and
/// switches that config turns on.
async fn surface_under(config: serde_json::Value, model: &str) -> Vec<&'static str> {
    let t = TestInstance::builder().config(config).build().await;
    let registry = t.get::<ToolRegistry>();
    let config = t.get::<strata_services::config::Config>();
    let s = SurfaceSpec {
        backends: registry.configured_backends(&config, &t.get::<RuntimeFlags>()),
        ..spec(&t, model)
    };
    let shown = ids(&t, &s);
    t.dispose().await;
    shown
}

#[tokio::test]
async fn transaction_needs_its_switch_and_the_edit_surface() {
    let on = json!({"tool_surface": {"transaction": true}});
    let claude = "anthropic/claude-sonnet-4";
    let off = surface_under(json!({}), claude).await;
    assert!(!off.contains(&"transaction"), "off by default: {off:?}");
    let off = surface_under(json!({"tool_surface": {"transaction": false}}), claude).await;
    assert!(!off.contains(&"transaction"), "{off:?}");
    let shown = surface_under(on.clone(), claude).await;
    let at = shown.iter().position(|id| *id == "transaction");
    let write = shown.iter().position(|id| *id == "write");
    assert_eq!(at, write.map(|w| w + 1), "after `write`: {shown:?}");
    let gpt = surface_under(on.clone(), "openai/gpt-5").await;
    assert!(gpt.contains(&"apply_patch"), "{gpt:?}");
    assert!(
        !gpt.contains(&"transaction"),
        "never beside apply_patch: {gpt:?}"
    );
    // A rule that hides the edit tools hides it too.
    let hidden = surface_under(
        json!({"tool_surface": {"transaction": true}, "permission": {"edit": "deny"}}),
        claude,
    )
    .await;
    assert!(!hidden.contains(&"transaction"), "{hidden:?}");
}

#[tokio::test]
async fn a_bad_tool_surface_switch_is_a_config_error_naming_it() {
    let err =
        strata_services::config::Config::from_value(json!({"tool_surface": {"transaction": "on"}}))
            .unwrap_err()
            .to_string();
    assert!(err.contains("`tool_surface.transaction`"), "{err}");
    assert!(err.contains("true or false"), "{err}");
}

#[tokio::test]
async fn question_is_offered_only_when_someone_can_answer() {
    TestInstance::builder()
        .run(|t| async move {
            // The build agent allows `question`; a run without a terminal adds the deny.
            let with = ids(&t, &spec(&t, "anthropic/claude-sonnet-4"));
            assert_eq!(with.first(), Some(&"question"), "{with:?}");
            let mut lonely = spec(&t, "anthropic/claude-sonnet-4");
            lonely
                .ruleset
                .extend(strata_registry::rules::non_interactive_rules());
            let without = ids(&t, &lonely);
            assert!(!without.contains(&"question"), "{without:?}");
            assert_eq!(without.len(), with.len() - 1);
            // Any other agent gets the default rules, which deny it.
            let other = strata_registry::rules::agent_ruleset(
                "general",
                &t.get::<strata_services::config::Config>(),
                &t.get::<strata_services::flags::RuntimeFlags>(),
                &t.get::<strata_services::skills::Skills>(),
            )
            .unwrap();
            let general = ids(
                &t,
                &SurfaceSpec {
                    ruleset: other,
                    ..spec(&t, "anthropic/claude-sonnet-4")
                },
            );
            assert!(!general.contains(&"question"), "{general:?}");
        })
        .await;
}

/// A tool that claims an id already taken, for the duplicate check.
struct AnotherRead;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoParams {}

impl Tool for AnotherRead {
    const ID: &'static str = "read";
    const EFFECTS: Effects = Effects::READ_ONLY;
    type Params = NoParams;
    type Deps = ();

    fn init((): ()) -> Self {
        AnotherRead
    }

    fn description(&self) -> String {
        "Reads nothing.".into()
    }

    async fn execute(&self, _: NoParams, _cx: ToolCx) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::new("nothing", ""))
    }
}

#[tokio::test]
async fn a_duplicate_id_fails_the_registry_naming_both_definitions() {
    TestInstance::builder()
        .run(|t| async move {
            let defs = vec![
                ToolDef::of::<strata_tools::read::Read>(),
                ToolDef::of::<strata_tools::glob::Glob>(),
                ToolDef::of::<AnotherRead>(),
            ];
            let err = match ToolRegistry::from_context(t.context(), &defs) {
                Ok(_) => panic!("two tools named `read` were accepted"),
                Err(e) => e.to_string(),
            };
            assert!(err.contains("two tools have the id `read`"), "{err}");
            assert!(err.contains("strata_tools::read::tool::Read and "), "{err}");
            assert!(err.contains("::AnotherRead."), "{err}");
            // Through the graph, the registry node fails to build with the same message.
            let g = strata_graph::Graph::new().with(ToolRegistry::node(defs));
            let built = g
                .build(t.context(), &strata_graph::Scope::new())
                .await
                .map(|_| ());
            let err = built.unwrap_err().to_string();
            assert!(
                err.contains(
                    "could not build service `ToolRegistry`: two tools have the id `read`"
                ),
                "{err}"
            );
            // Distinct ids build.
            assert!(ToolRegistry::from_context(t.context(), &strata_tools::builtin()).is_ok());
        })
        .await;
}

/// A tool shown only while a `websearch` backend is configured.
struct NeedsSearch;

impl Tool for NeedsSearch {
    const ID: &'static str = "search_example";
    const VISIBILITY: Visibility = Visibility::Backend("websearch");
    const EFFECTS: Effects = Effects::READ_ONLY;
    type Params = NoParams;
    type Deps = ();

    fn init((): ()) -> Self {
        NeedsSearch
    }

    fn description(&self) -> String {
        "Searches nothing.".into()
    }

    async fn execute(&self, _: NoParams, _cx: ToolCx) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::new("nothing", ""))
    }
}

/// The surface of a registry of `read` and [`NeedsSearch`] under `config`.
async fn with_backend_tool(config: serde_json::Value) -> Vec<&'static str> {
    let t = TestInstance::builder().config(config).build().await;
    let defs = [
        ToolDef::of::<strata_tools::read::Read>(),
        ToolDef::of::<NeedsSearch>(),
    ];
    let registry = ToolRegistry::from_context(t.context(), &defs).unwrap_or_else(|e| panic!("{e}"));
    let config = t.get::<strata_services::config::Config>();
    let s = SurfaceSpec {
        backends: registry.configured_backends(&config, &t.get::<RuntimeFlags>()),
        ..spec(&t, "anthropic/claude-sonnet-4")
    };
    let shown = registry.surface(&s).iter().map(|x| x.id).collect();
    t.dispose().await;
    shown
}

#[tokio::test]
async fn a_backend_tool_shows_only_when_config_configures_its_backend() {
    assert_eq!(with_backend_tool(json!({})).await, ["read"]);
    assert_eq!(
        with_backend_tool(json!({"websearch": {"url": "http://127.0.0.1:9/mcp"}})).await,
        ["read", "search_example"]
    );
    assert_eq!(
        with_backend_tool(json!({"websearch": {"enabled": true}})).await,
        ["read", "search_example"]
    );
    assert_eq!(
        with_backend_tool(json!({"websearch": {"enabled": false, "apiKey": "k"}})).await,
        ["read"]
    );
}

/// The declarations themselves, pinned apart from the filter that reads them (the tests above
/// derive their expectations from these, so a wrong declaration would pass them).
#[test]
fn the_built_in_declarations() {
    let defs = strata_tools::builtin();
    let ids_where = |pred: &dyn Fn(&ToolDef) -> bool| -> Vec<&str> {
        defs.iter().filter(|d| pred(d)).map(|d| d.id).collect()
    };
    assert_eq!(
        ids_where(&|d| d.visibility == Visibility::PatchModels),
        ["apply_patch"]
    );
    assert_eq!(
        ids_where(&|d| d.visibility == Visibility::NonPatchModels),
        ["edit", "write"]
    );
    assert_eq!(
        ids_where(&|d| d.visibility == Visibility::Flag(Flag::ExperimentalLspTool)),
        ["lsp"]
    );
    assert_eq!(
        ids_where(&|d| d.visibility == Visibility::Backend("websearch")),
        ["websearch"]
    );
    assert_eq!(
        ids_where(&|d| d.visibility == Visibility::Never),
        ["invalid"]
    );
    assert_eq!(
        ids_where(&|d| d.visibility == Visibility::EditSurfaceSwitch("transaction")),
        ["transaction"]
    );
    let mut edit = ids_where(&|d| d.permission == "edit");
    edit.sort_unstable();
    assert_eq!(edit, ["apply_patch", "edit", "transaction", "write"]);
    // Every other tool is checked under its own id, but for the background-shell tools,
    // which `bash`'s rules govern, and the MCP resource tools, which share `mcp_resource`.
    let shared = ["edit", "bash", "mcp_resource"];
    assert!(
        defs.iter()
            .filter(|d| !shared.contains(&d.permission))
            .all(|d| d.permission == d.id)
    );
    let mut shells = ids_where(&|d| d.permission == "bash");
    shells.sort_unstable();
    assert_eq!(shells, ["bash", "bash_kill", "bash_output"]);
}
