//! Hooks run for real: shell scripts read the JSON object on stdin, answer with exit codes
//! and JSON, hang past their timeout, or are missing; the project's hooks wait for trust.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use strata_services::hooks::trust::TrustStore;
use strata_services::hooks::{Decision, HookEvent, HookSources, Hooks};
use strata_services::process::ChildProcessSpawner;

struct Dirs {
    _root: tempfile::TempDir,
    project: std::path::PathBuf,
    home: std::path::PathBuf,
    data: std::path::PathBuf,
}

fn dirs() -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let canonical = root.path().canonicalize().unwrap();
    let [project, home, data] = ["project", "home", "data"].map(|d| canonical.join(d));
    for d in [&project, &home, &data] {
        std::fs::create_dir_all(d).unwrap();
    }
    Dirs {
        _root: root,
        project,
        home,
        data,
    }
}

fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&path)
        .status()
        .unwrap();
    path.display().to_string()
}

/// Hooks whose config is `hooks` in the user's own strata.json.
fn user_hooks(d: &Dirs, hooks: Value) -> Hooks {
    let config = json!({ "hooks": hooks });
    let file = d
        .home
        .join(".config/strata/strata.json")
        .display()
        .to_string();
    load(d, &config, Some(&file))
}

fn load(d: &Dirs, config: &Value, file: Option<&str>) -> Hooks {
    let sources = HookSources {
        config,
        config_file: file,
        project: &d.project,
        home: &d.home,
        data_dir: &d.data,
    };
    Hooks::load(&sources, ChildProcessSpawner::live())
}

fn bash_call() -> Value {
    json!({"tool_name": "Bash", "strata_tool_name": "bash", "tool_input": {"command": "rm -rf build"}})
}

#[tokio::test]
async fn a_pre_tool_use_hook_reads_its_input_and_blocks_with_exit_2() {
    let d = dirs();
    let seen = d.project.join("seen.json");
    let guard = script(
        &d.home,
        "guard.sh",
        &format!(
            "cat > {}\necho \"$CLAUDE_PROJECT_DIR|$STRATA_PROJECT_DIR|$PWD\" > {}.env\necho 'no deleting builds' >&2\nexit 2",
            seen.display(),
            seen.display()
        ),
    );
    let hooks = user_hooks(
        &d,
        json!({"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": guard}]},
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "touch edit-fired"}]},
        ]}),
    );
    assert!(hooks.warnings().is_empty(), "{:?}", hooks.warnings());
    let runs = hooks
        .run(
            HookEvent::PreToolUse,
            Some(("bash", None)),
            "ses_1",
            bash_call(),
        )
        .await;
    assert_eq!(runs.len(), 1, "only the Bash group fires");
    assert_eq!(runs[0].code, Some(2));
    assert_eq!(runs[0].outcome.block.as_deref(), Some("no deleting builds"));
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["session_id"], "ses_1");
    assert_eq!(input["tool_input"]["command"], "rm -rf build");
    assert_eq!(input["cwd"], d.project.display().to_string());
    let project = d.project.display().to_string();
    let env = std::fs::read_to_string(d.project.join("seen.json.env")).unwrap();
    assert_eq!(env.trim(), format!("{project}|{project}|{project}"));
    assert!(!d.project.join("edit-fired").exists());
}

#[tokio::test]
async fn json_on_stdout_decides_and_plain_output_adds_context() {
    let d = dirs();
    let deny = r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "frozen branch"}}'"#;
    let hooks = user_hooks(
        &d,
        json!({
            "PreToolUse": [{"matcher": "*", "hooks": [{"command": deny}]}],
            "UserPromptSubmit": [{"hooks": [{"command": "echo 'the build uses make'"}]}],
        }),
    );
    let runs = hooks
        .run(
            HookEvent::PreToolUse,
            Some(("write", None)),
            "ses_1",
            json!({}),
        )
        .await;
    assert_eq!(
        runs[0].outcome.decision,
        Some((Decision::Deny, Some("frozen branch".into())))
    );
    let runs = hooks
        .run(
            HookEvent::UserPromptSubmit,
            None,
            "ses_1",
            json!({"prompt": "build it"}),
        )
        .await;
    assert_eq!(
        runs[0].outcome.context.as_deref(),
        Some("the build uses make")
    );
}

#[tokio::test]
async fn hung_and_missing_hooks_are_warnings_and_never_stop_anything() {
    let d = dirs();
    let hooks = user_hooks(
        &d,
        json!({"Stop": [{"hooks": [
            {"command": "sleep 30", "timeout": 0.3},
            {"command": "no-such-hook-command --flag"},
            {"command": "echo fine; exit 1"},
        ]}]}),
    );
    let started = std::time::Instant::now();
    let runs = hooks
        .run(
            HookEvent::Stop,
            None,
            "ses_1",
            json!({"stop_hook_active": false}),
        )
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the hung hook was stopped"
    );
    assert_eq!(runs.len(), 3, "every hook ran despite the first");
    let warnings: Vec<String> = runs
        .iter()
        .map(|r| r.outcome.warning.clone().unwrap())
        .collect();
    assert!(warnings[0].contains("stopped after 0.3s"), "{warnings:?}");
    assert!(
        warnings[1].contains("not found") && warnings[1].contains("strata.json"),
        "{warnings:?}"
    );
    assert!(warnings[2].contains("exited with 1"), "{warnings:?}");
    assert!(
        runs.iter()
            .all(|r| r.outcome.block.is_none() && r.outcome.stop.is_none())
    );
}

#[tokio::test]
async fn project_hooks_wait_for_trust_and_a_change_asks_again() {
    let d = dirs();
    std::fs::create_dir_all(d.project.join(".claude")).unwrap();
    // Written after the examples in Claude Code's documentation: format after every edit.
    let settings = |cmd: &str| {
        json!({"hooks": {"PostToolUse": [{"matcher": "Edit|MultiEdit|Write", "hooks": [{"type": "command", "command": cmd}]}]}})
            .to_string()
    };
    std::fs::write(
        d.project.join(".claude/settings.json"),
        settings("touch formatted"),
    )
    .unwrap();
    let none = json!({});
    let hooks = load(&d, &none, None);
    assert!(
        !hooks.has(HookEvent::PostToolUse),
        "untrusted hooks do not run"
    );
    let warning = hooks.warnings().join("\n");
    assert!(
        warning.contains("strata hooks trust") && warning.contains("settings.json"),
        "{warning}"
    );
    let print = hooks.untrusted().unwrap().to_string();
    TrustStore::new(&d.data).trust(&d.project, &print).unwrap();

    let hooks = load(&d, &none, None);
    assert!(
        hooks.untrusted().is_none() && hooks.warnings().is_empty(),
        "{:?}",
        hooks.warnings()
    );
    let patch = json!({"patchText": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch"});
    let runs = hooks
        .run(
            HookEvent::PostToolUse,
            Some(("apply_patch", None)),
            "ses_1",
            json!({"tool_input": patch}),
        )
        .await;
    assert_eq!(runs.len(), 1, "a patch fires Edit|Write hooks");
    assert!(d.project.join("formatted").exists());

    std::fs::write(
        d.project.join(".claude/settings.json"),
        settings("touch changed"),
    )
    .unwrap();
    let hooks = load(&d, &none, None);
    assert!(
        hooks.untrusted().is_some(),
        "a changed hook is asked about again"
    );
    let off = json!({"claude_compat": {"hooks": false}});
    let hooks = load(&d, &off, None);
    assert!(
        hooks.untrusted().is_none() && !hooks.has(HookEvent::PostToolUse),
        "claude_compat.hooks: false ignores .claude"
    );
}

#[tokio::test]
async fn entries_show_each_hook_with_its_file_and_trust_and_trusting_releases_them() {
    let d = dirs();
    std::fs::create_dir_all(d.project.join(".claude")).unwrap();
    let project = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"command": "touch pre-ran", "timeout": 5}]}]}});
    std::fs::write(d.project.join(".claude/settings.json"), project.to_string()).unwrap();
    let hooks = user_hooks(&d, json!({"Stop": [{"hooks": [{"command": "true"}]}]}));
    let entries = hooks.entries();
    assert_eq!(entries.len(), 2, "{entries:?}");
    let stop = entries.iter().find(|e| e.event == HookEvent::Stop).unwrap();
    assert!(stop.trusted && stop.matcher.is_empty() && stop.file.ends_with("strata.json"));
    let pre = entries
        .iter()
        .find(|e| e.event == HookEvent::PreToolUse)
        .unwrap();
    assert_eq!(
        (pre.matcher.as_str(), pre.trusted, pre.timeout),
        ("Bash|Write", false, Duration::from_secs(5))
    );
    assert!(pre.file.ends_with(".claude/settings.json"));
    assert!(!hooks.has(HookEvent::PreToolUse));

    assert!(hooks.trust().unwrap(), "there was something to trust");
    assert!(
        hooks.has(HookEvent::PreToolUse),
        "trusted hooks run at once"
    );
    assert!(hooks.entries().iter().all(|e| e.trusted));
    let runs = hooks
        .run(
            HookEvent::PreToolUse,
            Some(("bash", None)),
            "s",
            bash_call(),
        )
        .await;
    assert_eq!(runs.len(), 1);
    assert!(d.project.join("pre-ran").exists());
    let again = user_hooks(&d, json!({"Stop": [{"hooks": [{"command": "true"}]}]}));
    assert!(again.untrusted().is_none(), "the trust was recorded");
}
