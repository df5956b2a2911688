//! opencode's config files read as they are: every source in its place of precedence (global
//! files, `OPENCODE_CONFIG`, each project folder, `OPENCODE_CONFIG_CONTENT`), JSONC, `{env:}`
//! and `{file:}` substitution, unknown-key warnings and where each key came from. The
//! environment is a map the test passes, never the process's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use strata_services::config::{Config, ConfigError, OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT};
use strata_services::flags::RuntimeFlags;
use strata_services::instance::{InstanceInfo, InstanceSeed};

/// A git worktree `work` with the instance in `work/sub`, and its own home and config dirs.
struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    info: InstanceInfo,
    flags: RuntimeFlags,
    env: HashMap<String, String>,
}

impl Setup {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(root.join("work/.git")).unwrap();
        std::fs::create_dir_all(root.join("work/sub")).unwrap();
        let flags = RuntimeFlags::for_dirs(root.join("data"), root.join("config"));
        let seed = InstanceSeed {
            directory: root.join("work/sub"),
        };
        let info = InstanceInfo::detect(&seed, &flags).unwrap();
        assert_eq!(info.worktree, root.join("work"));
        Self {
            _tmp: tmp,
            root,
            info,
            flags,
            env: HashMap::new(),
        }
    }

    /// Writes `text` at `rel` (under the temp root), creating folders; returns the path.
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn set(&mut self, name: &str, value: &str) {
        self.env.insert(name.to_string(), value.to_string());
    }

    fn load(&self) -> Result<Config, ConfigError> {
        let env = |name: &str| self.env.get(name).cloned();
        Config::load_with(&self.info, &self.flags, &env)
    }
}

fn show(p: &Path) -> String {
    p.display().to_string()
}

/// The global opencode folder, relative to the temp root (see `RuntimeFlags::for_dirs`).
const OC: &str = "home/.config/opencode";

#[test]
fn every_source_has_its_place_and_strata_files_win_in_their_folder() {
    let mut s = Setup::new();
    let order = [
        format!("{OC}/opencode.json"),
        format!("{OC}/opencode.jsonc"),
        format!("{OC}/config.json"),
        "config/strata.json".to_string(),
        "elsewhere/named.json".to_string(),
        "work/opencode.json".to_string(),
        "work/.opencode/opencode.jsonc".to_string(),
        "work/strata.json".to_string(),
        "work/sub/opencode.jsonc".to_string(),
        "work/sub/.opencode/opencode.json".to_string(),
        OPENCODE_CONFIG_CONTENT.to_string(),
        "work/sub/strata.json".to_string(),
        "work/sub/.strata/strata.json".to_string(),
    ];
    // Source i sets `v{j}` for every j >= i: after merging, `v{j}` holds the name of source j
    // exactly when no later source was applied before an earlier one.
    let doc = |i: usize| {
        let vals: serde_json::Map<String, Value> = (i..order.len())
            .map(|j| (format!("v{j:02}"), json!(order[i])))
            .collect();
        json!({"experimental": {"order": vals}}).to_string()
    };
    for (i, rel) in order.iter().enumerate() {
        if rel == OPENCODE_CONFIG_CONTENT {
            s.set(OPENCODE_CONFIG_CONTENT, &doc(i));
        } else {
            s.write(rel, &doc(i));
        }
    }
    s.set(OPENCODE_CONFIG, &show(&s.root.join("elsewhere/named.json")));
    let c = s.load().unwrap();
    for (j, name) in order.iter().enumerate() {
        let got = &c.raw["experimental"]["order"][format!("v{j:02}")];
        assert_eq!(got, &json!(name), "v{j:02}");
    }
    let files: Vec<String> = c.files().iter().map(|p| show(p)).collect();
    let want: Vec<String> = order
        .iter()
        .filter(|r| *r != OPENCODE_CONFIG_CONTENT)
        .map(|r| show(&s.root.join(r)))
        .collect();
    assert_eq!(files, want);
    assert_eq!(
        c.sources(),
        [(
            "experimental".to_string(),
            show(&s.root.join("work/sub/.strata/strata.json"))
        )]
    );
    assert!(c.warnings().is_empty(), "{:?}", c.warnings());
}

#[test]
fn strata_json_wins_key_by_key_over_opencode_json_in_the_same_folder() {
    let s = Setup::new();
    let oc = s.write(
        "work/sub/opencode.json",
        &json!({
            "$schema": "https://opencode.ai/config.json",
            "model": "openai/from-opencode",
            "small_model": "openai/mini",
            "provider": {"openai": {"options": {"baseURL": "http://127.0.0.1:1", "apiKey": "k"}}},
            "permission": {"bash": "ask", "edit": "allow"},
        })
        .to_string(),
    );
    let st = s.write(
        "work/sub/strata.json",
        &json!({
            "model": "openai/from-strata",
            "provider": {"openai": {"options": {"baseURL": "http://127.0.0.1:2"}}},
            "permission": {"edit": "deny"},
        })
        .to_string(),
    );
    let c = s.load().unwrap();
    assert_eq!(c.model.as_deref(), Some("openai/from-strata"));
    assert_eq!(c.small_model.as_deref(), Some("openai/mini"));
    assert_eq!(
        c.provider["openai"]["options"],
        json!({"baseURL": "http://127.0.0.1:2", "apiKey": "k"})
    );
    let perm = c.permission.clone().unwrap();
    assert_eq!(
        (&perm["bash"], &perm["edit"]),
        (&json!("ask"), &json!("deny"))
    );
    let (oc, st) = (show(&oc), show(&st));
    let want: Vec<(String, String)> = [
        ("$schema", &oc),
        ("model", &st),
        ("small_model", &oc),
        ("provider", &st),
        ("provider.openai", &st),
        ("permission", &st),
        ("permission.bash", &oc),
        ("permission.edit", &st),
    ]
    .iter()
    .map(|(k, f)| (k.to_string(), f.to_string()))
    .collect();
    assert_eq!(c.sources(), want);
}

#[test]
fn comments_and_trailing_commas_are_accepted_in_every_file() {
    let s = Setup::new();
    s.write(
        "work/sub/strata.json",
        "// Strata's file\n{\n  \"model\": \"openai/a\", /* why */\n  \"instructions\": [\"x.md\",],\n}\n",
    );
    s.write(
        &format!("{OC}/opencode.json"),
        "{\"shell\": \"/bin/sh\", // global\n}",
    );
    let c = s.load().unwrap();
    assert_eq!(c.model.as_deref(), Some("openai/a"));
    assert_eq!(c.instructions, ["x.md"]);
    assert_eq!(c.shell.as_deref(), Some("/bin/sh"));
}

#[test]
fn a_syntax_error_names_the_file_and_the_line_and_column_as_written() {
    let s = Setup::new();
    let text =
        "{\n  // a comment\n  /* a block\n     over lines */ \"model\": \"m\",\n  \"x\": oops\n}\n";
    let path = s.write("work/opencode.jsonc", text);
    match s.load().unwrap_err() {
        ConfigError::Syntax {
            file, line, column, ..
        } => {
            assert_eq!(file, show(&path));
            assert_eq!((line, column), (5, 8), "`oops` is at line 5, column 8");
        }
        other => panic!("expected a syntax error, got {other}"),
    }
    let mut s = Setup::new();
    s.set(OPENCODE_CONFIG_CONTENT, "{\"model\": }");
    let err = s.load().unwrap_err().to_string();
    assert!(
        err.contains(OPENCODE_CONFIG_CONTENT) && err.contains("line 1"),
        "{err}"
    );
}

#[test]
fn env_and_file_values_are_substituted_in_any_field() {
    let mut s = Setup::new();
    s.set("MY_KEY", "from-env");
    s.write("work/.opencode/secret.txt", "  from-file\n");
    s.write("home/token", "from-home\n");
    s.write(
        "work/.opencode/opencode.json",
        &json!({"provider": {
            "x": {"options": {"apiKey": "{file:secret.txt}", "baseURL": "http://{env:MY_HOST}h"}},
            "y": {"options": {"apiKey": "{env:MY_KEY}", "token": "{file:~/token}"}},
        }})
        .to_string(),
    );
    let c = s.load().unwrap();
    assert_eq!(c.provider["x"]["options"]["apiKey"], "from-file");
    assert_eq!(
        c.provider["x"]["options"]["baseURL"], "http://h",
        "unset is empty"
    );
    assert_eq!(c.provider["y"]["options"]["apiKey"], "from-env");
    assert_eq!(c.provider["y"]["options"]["token"], "from-home");
}

#[test]
fn a_missing_file_in_a_value_names_the_config_file_and_the_path() {
    let s = Setup::new();
    let cfg = s.write(
        "work/sub/strata.json",
        r#"{"provider": {"x": {"options": {"apiKey": "{file:keys/none.txt}"}}}}"#,
    );
    let err = s.load().unwrap_err();
    assert!(matches!(err, ConfigError::Substitution { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains(&show(&cfg)), "{msg}");
    assert!(
        msg.contains(&show(&s.root.join("work/sub/keys/none.txt"))),
        "{msg}"
    );
    assert!(msg.contains("{file:keys/none.txt}"), "{msg}");
}

#[test]
fn unknown_keys_are_warnings_naming_the_key_and_the_file() {
    let mut s = Setup::new();
    let oc = s.write(
        "work/sub/opencode.json",
        r#"{"modle": "openai/x", "theme": "dark", "keybinds": {}, "autoupdate": false}"#,
    );
    s.set(OPENCODE_CONFIG, "missing.json");
    let c = s.load().unwrap();
    assert_eq!(c.model, None);
    let w = c.warnings();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("missing.json") && w[0].contains(OPENCODE_CONFIG),
        "{}",
        w[0]
    );
    assert!(
        w[1].contains("`modle`") && w[1].contains(&show(&oc)),
        "{}",
        w[1]
    );
}

#[test]
fn provider_lists_and_small_model_are_read_and_checked() {
    let s = Setup::new();
    s.write(
        "work/sub/opencode.json",
        r#"{"enabled_providers": ["openai", "anthropic"], "disabled_providers": ["anthropic"]}"#,
    );
    let c = s.load().unwrap();
    assert!(c.provider_allowed("openai"));
    assert!(!c.provider_allowed("anthropic"), "disabled wins");
    assert!(!c.provider_allowed("groq"), "not enabled");
    let bad = s.write("work/sub/strata.json", r#"{"small_model": "mini"}"#);
    let msg = s.load().unwrap_err().to_string();
    assert!(
        msg.contains("`small_model`") && msg.contains(&show(&bad)),
        "{msg}"
    );
}
