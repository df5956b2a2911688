//! The Sandbox service: one instance's effective sandbox, decided from the `sandbox` config,
//! `--sandbox` (through [`RuntimeFlags::sandbox_mode`]) and what the kernel offers.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use strata_graph::{BoxError, Node, Scope, Tier};

use super::{Protected, SandboxPolicy, Snapshot, Support, blocked_hint, protected_hint, roots};
use crate::config::{Config, SandboxConfig, SandboxMode};
use crate::flags::RuntimeFlags;
use crate::instance::InstanceInfo;
use crate::process::CommandSpec;

/// Why an instance's sandbox could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "`{value}` is not a sandbox mode ({source_name}); use workspace-write, read-only or off"
    )]
    BadMode { value: String, source_name: String },
    #[error(
        "the sandbox is required (`sandbox.required: true` in the config), but {reason}; run on \
         a Linux kernel with Landlock and seccomp, or set `sandbox.required` to false, or pass \
         `--sandbox off`"
    )]
    Required { reason: String },
}

/// What `strata debug sandbox` and the server report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxReport {
    /// The mode asked for (config or `--sandbox`).
    pub requested: String,
    /// The mode in force: `off` when the kernel cannot enforce the one asked for.
    pub mode: String,
    pub landlock_abi: i64,
    /// The Landlock rights enforced, by name.
    pub rights: Vec<String>,
    pub seccomp: bool,
    /// Whether the kernel lets a command enter a user and mount namespace.
    pub user_namespaces: bool,
    /// How protected files are kept: `read-only binds` (namespaces), `snapshot and
    /// restore` (the fallback), or `none` when commands cannot write the project.
    pub protection: String,
    pub network: bool,
    pub writable_roots: Vec<String>,
    pub warning: Option<String>,
}

/// Handle to an instance's sandbox.
#[derive(Clone)]
pub struct Sandbox(Arc<Inner>);

struct Inner {
    requested: SandboxMode,
    support: Support,
    policy: Option<SandboxPolicy>,
    roots: Vec<PathBuf>,
    config: SandboxConfig,
    project: PathBuf,
    /// Protected paths outside the project (a linked worktree's shared hooks and config).
    protected_extra: Vec<PathBuf>,
    session_temp: PathBuf,
    /// The per-session temp directories made so far, removed when the session or the
    /// instance ends.
    made: Mutex<BTreeSet<PathBuf>>,
    warning: Option<String>,
}

impl strata_graph::Service for Sandbox {
    const KEY: &'static str = "Sandbox";
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("mode", &self.mode())
            .field("requested", &self.0.requested)
            .finish_non_exhaustive()
    }
}

/// Where an instance's sandbox is decided from.
#[derive(Debug, Clone)]
pub struct SandboxInputs<'a> {
    pub config: &'a SandboxConfig,
    /// `--sandbox` / `STRATA_SANDBOX`, as given; wins over the config.
    pub flag_mode: Option<&'a str>,
    pub project: &'a Path,
    pub temp: &'a Path,
    pub home: &'a Path,
}

impl Sandbox {
    /// The instance-tier node.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(info, config, flags): (InstanceInfo, Config, RuntimeFlags), s: Scope| async move {
                let inputs = SandboxInputs {
                    config: &config.sandbox,
                    flag_mode: flags.sandbox_mode.as_deref(),
                    project: &info.worktree,
                    temp: &flags.temp_dir,
                    home: &flags.home_dir,
                };
                let sandbox = Sandbox::resolve(&inputs, Support::probe())?;
                let this = sandbox.clone();
                s.add_finalizer(
                    "remove the sandbox's session temp dirs",
                    move || async move {
                        this.remove_temp_dirs();
                    },
                );
                Ok::<_, BoxError>(sandbox)
            },
        )
    }

    /// The mode asked for: `--sandbox` / `STRATA_SANDBOX` over the config, workspace-write
    /// by default.
    fn requested(
        config: &SandboxConfig,
        flag_mode: Option<&str>,
    ) -> Result<SandboxMode, SandboxError> {
        match flag_mode {
            Some(value) => SandboxMode::parse(value).ok_or_else(|| SandboxError::BadMode {
                value: value.to_string(),
                source_name: "--sandbox or STRATA_SANDBOX".into(),
            }),
            None => Ok(config.mode.unwrap_or(SandboxMode::WorkspaceWrite)),
        }
    }

    /// The mode an instance would get, without building its policy: for reports made before
    /// the instance exists (the server's sessions). `off` where the kernel cannot enforce the
    /// sandbox or the mode given is not one.
    pub fn expected_mode(
        config: &SandboxConfig,
        flag_mode: Option<&str>,
        support: &Support,
    ) -> SandboxMode {
        match Self::requested(config, flag_mode) {
            Ok(mode) if support.enforceable() => mode,
            _ => SandboxMode::Off,
        }
    }

    /// Decides the sandbox from `inputs` and the kernel's `support`.
    pub fn resolve(inputs: &SandboxInputs<'_>, support: Support) -> Result<Sandbox, SandboxError> {
        let requested = Self::requested(inputs.config, inputs.flag_mode)?;
        let mut roots = roots::writable_roots(&roots::RootsInput {
            mode: requested,
            project: inputs.project,
            temp: inputs.temp,
            extra: &inputs.config.writable,
            home: inputs.home,
        });
        // A linked worktree's commits land in the main repository's git directory.
        let common = (requested == SandboxMode::WorkspaceWrite)
            .then(|| roots::git_common_dir(inputs.project))
            .flatten();
        let protected_extra = common
            .as_ref()
            .map_or_else(Vec::new, |dir| vec![dir.join("hooks"), dir.join("config")]);
        if let Some(dir) = common
            && !roots.contains(&dir)
        {
            roots.insert(1, dir);
        }
        let protected =
            (requested == SandboxMode::WorkspaceWrite && support.user_namespaces).then(|| {
                Protected {
                    project: inputs.project.to_path_buf(),
                    extra: protected_extra.clone(),
                }
            });
        let mut warning = None;
        let mut policy = None;
        if requested != SandboxMode::Off {
            let built = if support.enforceable() {
                SandboxPolicy::build_protecting(
                    requested,
                    inputs.config.network,
                    roots.clone(),
                    inputs.config.env_passthrough.clone(),
                    protected,
                )
            } else {
                Err(support.missing_reason())
            };
            match built {
                Ok(p) => policy = Some(p),
                Err(reason) if inputs.config.required => {
                    return Err(SandboxError::Required { reason });
                }
                Err(reason) => {
                    warning = Some(format!(
                        "the sandbox ({requested}) is not enforced because {reason}; commands \
                         run unsandboxed. Set `sandbox.required: true` to refuse to run instead"
                    ));
                }
            }
        }
        Ok(Sandbox(Arc::new(Inner {
            requested,
            support,
            policy,
            roots,
            config: inputs.config.clone(),
            project: inputs.project.to_path_buf(),
            protected_extra,
            session_temp: inputs.temp.join("strata-sandbox"),
            made: Mutex::default(),
            warning,
        })))
    }

    /// No sandbox at all (callers that run nothing for the model, tests).
    pub fn off() -> Sandbox {
        let config = SandboxConfig {
            mode: Some(SandboxMode::Off),
            ..SandboxConfig::default()
        };
        let inputs = SandboxInputs {
            config: &config,
            flag_mode: None,
            project: Path::new("/"),
            temp: &std::env::temp_dir(),
            home: Path::new("/"),
        };
        // Mode off builds nothing, so it cannot fail; fall back to a bare value regardless.
        Sandbox::resolve(&inputs, Support::missing(false)).unwrap_or_else(|_| {
            Sandbox(Arc::new(Inner {
                requested: SandboxMode::Off,
                support: Support::missing(false),
                policy: None,
                roots: Vec::new(),
                config,
                project: PathBuf::from("/"),
                protected_extra: Vec::new(),
                session_temp: std::env::temp_dir(),
                made: Mutex::default(),
                warning: None,
            }))
        })
    }

    /// The enforced policy; `None` when commands run unsandboxed.
    pub fn policy(&self) -> Option<&SandboxPolicy> {
        self.0.policy.as_ref()
    }

    /// The mode in force.
    pub fn mode(&self) -> SandboxMode {
        self.policy().map_or(SandboxMode::Off, SandboxPolicy::mode)
    }

    /// Whether an `ask` for a sandboxed bash command becomes an allow.
    pub fn auto_allow(&self) -> bool {
        self.policy().is_some() && self.0.config.auto_allow
    }

    /// The warning to show once when the mode asked for is not enforced.
    pub fn warning(&self) -> Option<&str> {
        self.0.warning.as_deref()
    }

    /// Puts `spec` in the sandbox for `session`: the policy, and a per-session temp
    /// directory exported as `TMPDIR`. Unchanged when the sandbox is off.
    pub fn command(&self, spec: CommandSpec, session: &str) -> CommandSpec {
        let Some(policy) = self.policy() else {
            return spec;
        };
        let tmp = self.session_temp(session);
        if let Err(e) = std::fs::create_dir_all(&tmp) {
            tracing::debug!(error = %e, dir = %tmp.display(), "could not create the session temp dir");
            return spec.sandbox(policy.clone());
        }
        self.made().insert(tmp.clone());
        spec.env("TMPDIR", &tmp).sandbox(policy.clone())
    }

    /// The temp directory of `session`'s commands (`TMPDIR` inside the sandbox).
    pub fn session_temp(&self, session: &str) -> PathBuf {
        let name: String = session
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.0.session_temp.join(if name.is_empty() {
            "default".into()
        } else {
            name
        })
    }

    fn made(&self) -> std::sync::MutexGuard<'_, BTreeSet<PathBuf>> {
        // A panic while holding this lock leaves a plain set behind; keep using it.
        self.0.made.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Removes `session`'s temp directory, when this sandbox made one (the session ended).
    pub fn remove_session_temp(&self, session: &str) {
        let dir = self.session_temp(session);
        if self.made().remove(&dir) {
            remove_dir(&dir);
        }
    }

    /// Removes every session temp directory this sandbox made (the instance is closing).
    /// Only those: other instances and processes share the parent directory.
    pub fn remove_temp_dirs(&self) {
        let dirs = std::mem::take(&mut *self.made());
        for dir in dirs {
            remove_dir(&dir);
        }
    }

    /// The line for the model when a failed command's `output` shows the sandbox refused it.
    pub fn hint(&self, output: &str) -> Option<String> {
        let policy = self.policy()?;
        protected_hint(output, &self.0.project, &self.0.protected_extra)
            .or_else(|| blocked_hint(output, policy.roots(), policy.network()))
    }

    /// A snapshot of the protected files, taken when the project is writable by commands.
    /// Taken even when they are bound read-only: it also covers the protected files that do
    /// not exist yet (a new `strata.json` cannot be bound) and a renamed parent directory.
    pub fn protect(&self) -> Option<Snapshot> {
        (self.mode() == SandboxMode::WorkspaceWrite)
            .then(|| Snapshot::take_with(&self.0.project, &self.0.protected_extra))
    }

    /// How protected files are kept from commands, for reports.
    pub fn protection(&self) -> &'static str {
        match self.policy() {
            Some(p) if p.binds_protected() => "read-only binds",
            Some(p) if p.mode() == SandboxMode::WorkspaceWrite => "snapshot and restore",
            _ => "none",
        }
    }

    /// The one `sandbox` line a run prints on stderr.
    pub fn status_line(&self) -> String {
        match (self.policy(), self.warning()) {
            (Some(p), _) => format!(
                "sandbox: {} (Landlock ABI {}, seccomp, network {}, protected files: {})",
                p.mode(),
                self.0.support.landlock_abi,
                if p.network() { "on" } else { "off" },
                self.protection()
            ),
            (None, Some(w)) => format!("sandbox: off (warning: {w})"),
            (None, None) => "sandbox: off".to_string(),
        }
    }

    /// Everything `strata debug sandbox` prints.
    pub fn report(&self) -> SandboxReport {
        SandboxReport {
            requested: self.0.requested.to_string(),
            mode: self.mode().to_string(),
            landlock_abi: self.0.support.landlock_abi,
            rights: self.0.support.rights(),
            seccomp: self.0.support.seccomp,
            user_namespaces: self.0.support.user_namespaces,
            protection: self.protection().to_string(),
            network: self.0.config.network,
            writable_roots: self
                .0
                .roots
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            warning: self.0.warning.clone(),
        }
    }
}

fn remove_dir(dir: &Path) {
    if let Err(e) = std::fs::remove_dir_all(dir)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::debug!(error = %e, dir = %dir.display(), "could not remove a session temp dir");
    }
}
