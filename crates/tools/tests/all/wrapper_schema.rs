//! Wire schemas and effects of `read`, `glob`, `grep` and `invalid`, as the registry of a real
//! instance hands them out (spec §0.2, §0.7, §1, §5, §6, §15, §19 registry and parameters).

use crate::wrapper_support::check_schema_shape;
use serde_json::{Value, json};
use strata_registry::ToolRegistry;
use strata_testkit::TestInstance;
use strata_tools::Effects;
use strata_tools::contract::schema::MAX_SAFE_INTEGER;

#[tokio::test]
async fn wire_schemas_of_read_glob_grep_and_invalid() {
    TestInstance::builder()
        .run(|t| async move {
            let registry = t.get::<ToolRegistry>();
            let schema = |id: &str| -> Value { (*registry.get(id).unwrap().schema).clone() };

            let read = schema("read");
            check_schema_shape(
                "read",
                &read,
                &["filePath", "offset", "limit"],
                &["filePath"],
            );
            for field in ["offset", "limit"] {
                let p = &read["properties"][field];
                assert_eq!(p["type"], "integer");
                assert_eq!(p["minimum"], 0, "read {field}: 0 … 2^53−1");
                assert_eq!(p["maximum"], MAX_SAFE_INTEGER);
                assert!(p["description"].is_string());
            }
            assert_eq!(read["properties"]["filePath"]["type"], "string");

            let glob = schema("glob");
            check_schema_shape("glob", &glob, &["pattern", "path"], &["pattern"]);
            let grep = schema("grep");
            check_schema_shape("grep", &grep, &["pattern", "path", "include"], &["pattern"]);
            for (id, s) in [("glob", &glob), ("grep", &grep)] {
                for (name, p) in s["properties"].as_object().unwrap() {
                    assert_eq!(p["type"], "string", "{id}.{name}");
                    assert!(p["description"].is_string(), "{id}.{name} is described");
                }
            }

            let invalid = schema("invalid");
            check_schema_shape("invalid", &invalid, &["tool", "error"], &["tool", "error"]);
            assert_eq!(
                invalid["properties"],
                json!({"tool": {"type": "string"}, "error": {"type": "string"}}),
                "no descriptions on the wire for `invalid`"
            );

            for (id, s) in [
                ("read", read),
                ("glob", glob),
                ("grep", grep),
                ("invalid", invalid),
            ] {
                let pretty = serde_json::to_string_pretty(&s).unwrap();
                insta::assert_snapshot!(format!("schema_{id}"), pretty);
            }
        })
        .await;
}

#[tokio::test]
async fn definitions_and_initialised_tools_agree() {
    TestInstance::builder()
        .run(|t| async move {
            let registry = t.get::<ToolRegistry>();
            for def in strata_tools::builtin() {
                if !["read", "glob", "grep", "invalid"].contains(&def.id) {
                    continue;
                }
                let tool = registry.get(def.id).unwrap();
                assert_eq!(def.schema(), *tool.schema, "{}", def.id);
                assert_eq!(def.effects, tool.effects, "{}", def.id);
                assert_eq!(
                    def.effects,
                    Effects {
                        read_only: true,
                        destructive: false,
                        concurrency_safe: true,
                        open_world: false
                    },
                    "{}: spec §0.7",
                    def.id
                );
                assert!(!tool.description.trim().is_empty(), "{}", def.id);
            }
        })
        .await;
}

#[tokio::test]
async fn descriptions_cover_what_the_spec_asks() {
    TestInstance::builder()
        .run(|t| async move {
            let registry = t.get::<ToolRegistry>();
            let read = registry.get("read").unwrap().description.to_lowercase();
            for needle in [
                "absolute",
                "2000",
                "offset",
                "directory",
                "grep",
                "image",
                "pdf",
            ] {
                assert!(read.contains(needle), "read description lacks `{needle}`");
            }
            let glob = registry.get("glob").unwrap().description.to_lowercase();
            assert!(glob.contains("recent") && glob.contains("100"), "{glob}");
            let grep = registry.get("grep").unwrap().description.to_lowercase();
            assert!(
                grep.contains("regular expression") || grep.contains("regex"),
                "{grep}"
            );
        })
        .await;
}

#[tokio::test]
async fn each_init_gives_a_distinct_tool_and_leaves_its_definition_as_it_was() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            for def in strata_tools::builtin() {
                let (schema, effects) = (def.schema(), def.effects);
                let first = def.init(t.context()).unwrap();
                let second = def.init(t.context()).unwrap();
                assert!(
                    !std::sync::Arc::ptr_eq(&first.schema, &second.schema),
                    "{}: two inits share state",
                    def.id
                );
                assert_eq!(*first.schema, *second.schema, "{}", def.id);
                assert_eq!(first.description, second.description, "{}", def.id);
                assert_eq!(def.schema(), schema, "{}: the definition changed", def.id);
                assert_eq!(def.effects, effects, "{}", def.id);
            }
            // Two values of one tool run side by side without affecting each other.
            let read = strata_tools::builtin()
                .into_iter()
                .find(|d| d.id == "read")
                .unwrap();
            let (a, b) = (
                read.init(t.context()).unwrap(),
                read.init(t.context()).unwrap(),
            );
            let input = r#"{"filePath": "a.txt"}"#;
            let (ra, rb) =
                tokio::join!(a.call(input, t.cx().build()), b.call(input, t.cx().build()));
            assert_eq!(ra.unwrap().output, rb.unwrap().output);
        })
        .await;
}
