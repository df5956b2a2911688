//! Config loading from real files: precedence, deep merge, defaults, and error messages.

use std::path::{Path, PathBuf};

use serde_json::json;
use strata_services::config::{Config, ConfigError};
use strata_services::flags::RuntimeFlags;
use strata_services::instance::{InstanceInfo, InstanceSeed};

struct Setup {
    _tmp: tempfile::TempDir,
    info: InstanceInfo,
    flags: RuntimeFlags,
}

impl Setup {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(root.join("project/.strata")).unwrap();
        std::fs::create_dir_all(root.join("config")).unwrap();
        let flags = RuntimeFlags::for_dirs(root.join("data"), root.join("config"));
        let seed = InstanceSeed {
            directory: root.join("project"),
        };
        let info = InstanceInfo::detect(&seed, &flags).unwrap();
        Self {
            _tmp: tmp,
            info,
            flags,
        }
    }
    fn user(&self) -> PathBuf {
        self.flags.config_dir.join("strata.json")
    }
    fn project(&self) -> PathBuf {
        self.info.directory.join("strata.json")
    }
    fn dot(&self) -> PathBuf {
        self.info.directory.join(".strata/strata.json")
    }
    fn load(&self) -> Result<Config, ConfigError> {
        Config::load(&self.info, &self.flags)
    }
}

fn write(path: &Path, value: serde_json::Value) {
    std::fs::write(path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
}

#[test]
fn no_files_gives_defaults() {
    let s = Setup::new();
    let c = s.load().unwrap();
    assert!(c.files().is_empty());
    assert_eq!(c.model, None);
    assert!(c.tools.read_before_edit);
    assert_eq!(c.tool_output.max_lines, None);
    assert!(!c.experimental.continue_loop_on_deny);
}

#[test]
fn later_files_win() {
    let s = Setup::new();
    write(&s.user(), json!({"model": "user", "shell": "user-shell"}));
    write(&s.project(), json!({"model": "project"}));
    let c = s.load().unwrap();
    assert_eq!(c.model.as_deref(), Some("project"));
    assert_eq!(c.shell.as_deref(), Some("user-shell"));
    write(&s.dot(), json!({"model": "dot"}));
    let c = s.load().unwrap();
    assert_eq!(c.model.as_deref(), Some("dot"));
    assert_eq!(c.files(), [s.user(), s.project(), s.dot()]);
}

#[test]
fn objects_merge_deeply_and_permission_order_is_kept() {
    let s = Setup::new();
    write(
        &s.user(),
        json!({
            "tool_output": {"max_lines": 123},
            "permission": {"*": "allow", "bash": {"*": "ask"}, "edit": "ask"},
            "provider": {"a": {"url": "http://127.0.0.1:1", "key": "k"}},
        }),
    );
    write(
        &s.project(),
        json!({
            "tool_output": {"max_bytes": 456},
            "permission": {"edit": "deny", "bash": {"git *": "allow"}, "read": "allow"},
            "provider": {"a": {"url": "http://127.0.0.1:2"}},
        }),
    );
    let c = s.load().unwrap();
    assert_eq!(c.tool_output.max_lines, Some(123));
    assert_eq!(c.tool_output.max_bytes, Some(456));
    let perm = c.permission.clone().unwrap();
    let keys: Vec<_> = perm.keys().cloned().collect();
    assert_eq!(keys, ["*", "bash", "edit", "read"]);
    assert_eq!(perm["edit"], json!("deny"));
    assert_eq!(perm["bash"], json!({"*": "ask", "git *": "allow"}));
    let bash_keys: Vec<_> = perm["bash"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(bash_keys, ["*", "git *"]);
    assert_eq!(
        c.provider["a"],
        json!({"url": "http://127.0.0.1:2", "key": "k"})
    );
}

#[test]
fn a_later_scalar_replaces_an_object() {
    let s = Setup::new();
    write(&s.user(), json!({"permission": {"bash": {"*": "ask"}}}));
    write(&s.dot(), json!({"permission": {"bash": "allow"}}));
    let c = s.load().unwrap();
    assert_eq!(c.permission.as_ref().unwrap()["bash"], json!("allow"));
}

#[test]
fn invalid_json_names_the_file_and_line() {
    let s = Setup::new();
    write(&s.user(), json!({"model": "ok"}));
    std::fs::write(s.project(), "{\n  \"model\": \"x\",\n  oops\n}\n").unwrap();
    let err = s.load().unwrap_err();
    match &err {
        ConfigError::Syntax { file, line, .. } => {
            assert_eq!(file, &s.project().display().to_string());
            assert_eq!(*line, 3);
        }
        other => panic!("expected a syntax error, got {other}"),
    }
    let msg = err.to_string();
    assert!(msg.contains(&s.project().display().to_string()), "{msg}");
    assert!(msg.contains("line 3"), "{msg}");
    assert!(msg.contains("fix"), "{msg}");
}

#[test]
fn wrong_type_names_the_file_and_field() {
    let s = Setup::new();
    write(&s.user(), json!({"tool_output": {"max_lines": 10}}));
    write(&s.dot(), json!({"tool_output": {"max_lines": "many"}}));
    let msg = s.load().unwrap_err().to_string();
    assert!(msg.contains(&s.dot().display().to_string()), "{msg}");
    assert!(msg.contains("tool_output.max_lines"), "{msg}");
    assert!(msg.contains("positive integer"), "{msg}");
}

#[test]
fn empty_file_counts_as_empty_object() {
    let s = Setup::new();
    std::fs::write(s.project(), "  \n").unwrap();
    let c = s.load().unwrap();
    assert_eq!(c.files(), [s.project()]);
    assert_eq!(c.model, None);
}

#[test]
fn from_value_checks_types_too() {
    let c = Config::from_value(json!({"experimental": {"continue_loop_on_deny": true}})).unwrap();
    assert!(c.experimental.continue_loop_on_deny);
    let err = Config::from_value(json!({"shell": false})).unwrap_err();
    assert!(err.to_string().contains("`shell`"), "{err}");
}
