//! The [`Hooks`] service: every hook of an instance, from Strata's config and Claude Code's
//! settings files, with the project's own hooks held back until trusted, and a way to run
//! the hooks of one event.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use strata_graph::{BoxError, Node, Scope, Tier};

use super::config::{HookSet, parse_hooks};
use super::input::payload;
use super::outcome::{HookOutcome, interpret};
use super::runner::run_hook;
use super::trust::{TrustStore, fingerprint};
use super::{HookEvent, Origin};
use crate::config::Config;
use crate::flags::RuntimeFlags;
use crate::instance::InstanceInfo;
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
    /// The fingerprint of the project's hooks when they were not trusted at load.
    untrusted: Option<String>,
    /// The project's hooks are held back (untrusted, and not trusted since).
    held: AtomicBool,
    /// The fingerprint of the project's hooks, trusted or not (`None` without any).
    print: Option<String>,
    /// The project's files that hold hooks, for messages.
    project_files: Vec<String>,
    data_dir: PathBuf,
    /// Sessions whose `SessionStart` ran in this process.
    started: Mutex<HashSet<String>>,
}

/// One configured hook command, for `strata hooks list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookEntry {
    pub event: HookEvent,
    /// The matcher as written (`*` for every tool, empty for events without tools).
    pub matcher: String,
    pub command: String,
    pub timeout: Duration,
    pub file: String,
    /// `false` for a project hook that waits for trust.
    pub trusted: bool,
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
        let untrusted = (!trusted).then(|| print.clone());
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
                held: AtomicBool::new(untrusted.is_some()),
                untrusted,
                print: (!project_hooks.is_empty()).then_some(print),
                project_files: project_hooks.into_iter().map(|(f, _)| f).collect(),
                data_dir: sources.data_dir.to_path_buf(),
                started: Mutex::new(HashSet::new()),
            }),
        }
    }

    /// The instance-tier node: Strata's merged config (the `hooks` key and the file that set
    /// it) and Claude Code's settings files of the project and the home directory.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(config, info, flags, spawner): (
                Config,
                InstanceInfo,
                RuntimeFlags,
                ChildProcessSpawner,
            ),
             _scope: Scope| async move {
                let file = config
                    .sources()
                    .iter()
                    .rev()
                    .find(|(key, _)| key == "hooks")
                    .map(|(_, f)| f.clone());
                let project = project_dir(&info);
                let sources = HookSources {
                    config: &config.raw,
                    config_file: file.as_deref(),
                    project: &project,
                    home: &flags.home_dir,
                    data_dir: &flags.data_dir,
                };
                let hooks = Hooks::load(&sources, spawner);
                for warning in hooks.warnings() {
                    tracing::warn!(target: "strata::hooks", "{warning}");
                }
                Ok::<_, BoxError>(hooks)
            },
        )
    }

    /// The project directory hooks run in and `.claude/` is read from.
    pub fn project(&self) -> &Path {
        &self.inner.project
    }

    /// The project's files that hold hooks (trusted or not).
    pub fn project_files(&self) -> &[String] {
        &self.inner.project_files
    }

    /// Records the project's hooks as they were loaded as trusted, and lets them run from
    /// now on; `Ok(false)` when the project has none.
    pub fn trust(&self) -> std::io::Result<bool> {
        let Some(print) = &self.inner.print else {
            return Ok(false);
        };
        TrustStore::new(&self.inner.data_dir).trust(&self.inner.project, print)?;
        self.inner.held.store(false, Ordering::Relaxed);
        Ok(true)
    }

    /// Every configured command, in config order, with its file and trust state.
    pub fn entries(&self) -> Vec<HookEntry> {
        let held = self.untrusted().is_some();
        let mut out = Vec::new();
        for (origin, set) in &self.inner.sets {
            for (event, groups) in &set.events {
                for group in groups {
                    for hook in &group.hooks {
                        out.push(HookEntry {
                            event: *event,
                            matcher: if event.matches_tools() {
                                group.matcher.pattern().to_string()
                            } else {
                                String::new()
                            },
                            command: hook.command.clone(),
                            timeout: hook.timeout,
                            file: origin.file().to_string(),
                            trusted: !(held && origin.is_project()),
                        });
                    }
                }
            }
        }
        out
    }

    /// `true` the first time it is asked for `session_id` in this process: `SessionStart`
    /// runs once per session and process.
    pub fn first_start(&self, session_id: &str) -> bool {
        self.inner
            .started
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(session_id.to_string())
    }

    /// What loading warned about, each naming its file.
    pub fn warnings(&self) -> &[String] {
        &self.inner.warnings
    }

    /// The fingerprint to trust when the project's hooks are held back.
    pub fn untrusted(&self) -> Option<&str> {
        if self.inner.held.load(Ordering::Relaxed) {
            self.inner.untrusted.as_deref()
        } else {
            None
        }
    }

    /// Whether any hook would run for `event` (so callers can skip building the input).
    pub fn has(&self, event: HookEvent) -> bool {
        self.runnable()
            .any(|(_, set)| set.events.get(&event).is_some_and(|g| !g.is_empty()))
    }

    fn runnable(&self) -> impl Iterator<Item = &(Origin, HookSet)> {
        let held = self.untrusted().is_some();
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

/// The instance directory when it has a `.claude/` folder, else the worktree root.
fn project_dir(info: &InstanceInfo) -> PathBuf {
    if info.directory.join(".claude").is_dir() {
        info.directory.clone()
    } else {
        info.worktree.clone()
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
