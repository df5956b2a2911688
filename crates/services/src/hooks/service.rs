//! The [`Hooks`] service: every hook of an instance, from Strata's config and Claude Code's
//! settings files, with the project's own hooks held back until trusted, and a way to run
//! the hooks of one event.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::config::{HookSet, parse_hooks};
use super::input::payload;
use super::outcome::{HookOutcome, interpret};
use super::runner::run_hook;
use super::trust::{TrustStore, fingerprint};
use super::{HookEvent, Origin};
use crate::process::ChildProcessSpawner;

/// Where the hooks of an instance are read from.
#[derive(Debug, Clone)]
pub struct HookSources<'a> {
    /// The merged config document and the file its `hooks` key came from (if any).
    pub config: &'a Value,
    pub config_file: Option<&'a str>,
    /// The project root (where `.claude/` is looked for).
    pub project: &'a Path,
    pub home: &'a Path,
    pub data_dir: &'a Path,
}

/// One hook that ran, for the event record.
#[derive(Debug, Clone)]
pub struct HookRun {
    pub event: HookEvent,
    pub command: String,
    pub file: String,
    pub code: Option<i32>,
    pub took: Duration,
    pub outcome: HookOutcome,
}

/// Handle to an instance's hooks.
#[derive(Debug, Clone)]
pub struct Hooks {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    sets: Vec<(Origin, HookSet)>,
    project: PathBuf,
    spawner: ChildProcessSpawner,
    warnings: Vec<String>,
    /// The fingerprint of the project's hooks when they are not trusted yet.
    untrusted: Option<String>,
}

impl strata_graph::Service for Hooks {
    const KEY: &'static str = "Hooks";
}

impl Hooks {
    /// Reads every source; a malformed one is a warning naming its file, never an error.
    pub fn load(sources: &HookSources<'_>, spawner: ChildProcessSpawner) -> Hooks {
        let mut warnings = Vec::new();
        let mut found: Vec<(Origin, Value)> = Vec::new();
        if let (Some(hooks), Some(file)) = (sources.config.get("hooks"), sources.config_file) {
            let origin = if Path::new(file).starts_with(sources.project) {
                Origin::Project(file.to_string())
            } else {
                Origin::User(file.to_string())
            };
            found.push((origin, hooks.clone()));
        }
        let compat = sources
            .config
            .pointer("/claude_compat/hooks")
            .and_then(Value::as_bool);
        if compat != Some(false) {
            found.extend(claude_settings(sources, &mut warnings));
        }
        let project_hooks: Vec<(String, Value)> = found
            .iter()
            .filter(|(o, _)| o.is_project())
            .map(|(o, v)| (o.file().to_string(), v.clone()))
            .collect();
        let print = fingerprint(&project_hooks);
        let trusted = project_hooks.is_empty()
            || TrustStore::new(sources.data_dir).is_trusted(sources.project, &print);
        let mut sets = Vec::new();
        for (origin, value) in found {
            match parse_hooks(&value, origin.file()) {
                Ok(set) => {
                    for name in &set.unknown_events {
                        warnings.push(format!(
                            "{}: the hook event `{name}` is not one Strata has; it is ignored",
                            origin.file()
                        ));
                    }
                    sets.push((origin, set));
                }
                Err(e) => warnings.push(e.to_string()),
            }
        }
        let untrusted = (!trusted).then_some(print);
        if untrusted.is_some() {
            warnings.push(format!(
                "the project's hooks (in {}) are not trusted yet, so they do not run; read them, then run `strata hooks trust` in {}",
                project_hooks.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>().join(", "),
                sources.project.display()
            ));
        }
        Hooks {
            inner: Arc::new(Inner {
                sets,
                project: sources.project.to_path_buf(),
                spawner,
                warnings,
                untrusted,
            }),
        }
    }

    /// What loading warned about, each naming its file.
    pub fn warnings(&self) -> &[String] {
        &self.inner.warnings
    }

    /// The fingerprint to trust when the project's hooks are held back.
    pub fn untrusted(&self) -> Option<&str> {
        self.inner.untrusted.as_deref()
    }

    /// Whether any hook would run for `event` (so callers can skip building the input).
    pub fn has(&self, event: HookEvent) -> bool {
        self.runnable()
            .any(|(_, set)| set.events.get(&event).is_some_and(|g| !g.is_empty()))
    }

    fn runnable(&self) -> impl Iterator<Item = &(Origin, HookSet)> {
        let held = self.inner.untrusted.is_some();
        self.inner
            .sets
            .iter()
            .filter(move |(o, _)| !(held && o.is_project()))
    }

    /// Runs, one after another in config order, every hook of `event` whose matcher accepts
    /// `tool` (`(name, mcp)`; `None` for events without a tool). `fields` are the event's own
    /// stdin fields.
    pub async fn run(
        &self,
        event: HookEvent,
        tool: Option<(&str, Option<(&str, &str)>)>,
        session_id: &str,
        fields: Value,
    ) -> Vec<HookRun> {
        let stdin = payload(event, session_id, &self.inner.project, fields);
        let mut runs = Vec::new();
        for (origin, set) in self.runnable() {
            let groups = set.events.get(&event).into_iter().flatten();
            let chosen = groups.filter(|g| match tool {
                Some((name, mcp)) if event.matches_tools() => g.matcher.matches(name, mcp),
                _ => true,
            });
            for hook in chosen.flat_map(|g| &g.hooks) {
                let started = Instant::now();
                let result = run_hook(&self.inner.spawner, hook, &stdin, &self.inner.project).await;
                runs.push(HookRun {
                    event,
                    command: hook.command.clone(),
                    file: origin.file().to_string(),
                    code: result.code,
                    took: started.elapsed(),
                    outcome: interpret(event, &hook.command, origin.file(), &result),
                });
            }
        }
        runs
    }
}

/// `hooks` of `.claude/settings.json` and `.claude/settings.local.json` in the project, and
/// of `~/.claude/settings.json`.
fn claude_settings(sources: &HookSources<'_>, warnings: &mut Vec<String>) -> Vec<(Origin, Value)> {
    let user = sources.home.join(".claude").join("settings.json");
    let project = sources.project.join(".claude");
    let files = [
        (user, false),
        (project.join("settings.json"), true),
        (project.join("settings.local.json"), true),
    ];
    let mut out = Vec::new();
    for (path, in_project) in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let label = path.display().to_string();
        match serde_json::from_str::<Value>(&text) {
            Ok(settings) => {
                if let Some(hooks) = settings.get("hooks") {
                    let origin = if in_project {
                        Origin::Project(label)
                    } else {
                        Origin::User(label)
                    };
                    out.push((origin, hooks.clone()));
                }
            }
            Err(e) => warnings.push(format!(
                "{label} is not valid JSON ({e}); its hooks are ignored"
            )),
        }
    }
    out
}
