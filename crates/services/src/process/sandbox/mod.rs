//! The sandbox around what the model runs (Linux): Landlock limits where a command may write,
//! seccomp refuses escape calls (and IP sockets with the network off), and Strata's secrets
//! are taken out of its environment. See `docs/sandbox.md`.
//!
//! A [`SandboxPolicy`] is built once per instance, in the parent: the Landlock ruleset, the
//! compiled seccomp filter. A [`CommandSpec`](super::CommandSpec) carrying one is started by
//! the spawner with a hook that applies it in the child before exec ([`child`]); Strata itself
//! is never restricted. The [`Sandbox`] service decides the effective mode for an instance and
//! hands the policy to the callers that run model commands.

mod child;
mod hint;
mod landlock;
mod protect;
mod roots;
mod seccomp;
mod service;

use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::Arc;

pub use hint::blocked_hint;
pub use protect::{PROTECTED_DIRS, PROTECTED_FILES, Snapshot, restored_note};
pub use roots::{DEVICE_DIRS, DEVICE_FILES, RootsInput, is_secret, is_writable, writable_roots};
pub use service::{Sandbox, SandboxError, SandboxInputs, SandboxReport};

use crate::config::SandboxMode;

/// The environment switch that makes the sandbox act as if the kernel had neither Landlock nor
/// seccomp, so the warning and `sandbox.required` paths can be tried on any machine.
pub const SIMULATE_UNSUPPORTED_ENV: &str = "STRATA_SANDBOX_SIMULATE_UNSUPPORTED";

/// What the kernel offers the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version; 0 when Landlock is missing.
    pub landlock_abi: i64,
    /// Whether seccomp filters can be installed.
    pub seccomp: bool,
    /// Whether [`SIMULATE_UNSUPPORTED_ENV`] hid the real support.
    pub simulated: bool,
}

impl Support {
    /// Asks the kernel, unless the simulation switch is set in the environment.
    pub fn probe() -> Support {
        let simulate =
            std::env::var(SIMULATE_UNSUPPORTED_ENV).is_ok_and(|v| matches!(v.trim(), "1" | "true"));
        if simulate {
            return Support::missing(true);
        }
        Support {
            landlock_abi: child::landlock_abi().max(0),
            seccomp: child::seccomp_available(),
            simulated: false,
        }
    }

    /// No Landlock and no seccomp (`simulated`: whether that is pretended).
    pub fn missing(simulated: bool) -> Support {
        Support {
            landlock_abi: 0,
            seccomp: false,
            simulated,
        }
    }

    /// Whether both halves of the sandbox can be enforced.
    pub fn enforceable(&self) -> bool {
        self.landlock_abi > 0 && self.seccomp
    }

    /// The Landlock rights this kernel enforces for the sandbox, by name.
    pub fn rights(&self) -> Vec<String> {
        landlock::enforced_rights(self.landlock_abi)
    }

    /// Why the sandbox cannot be enforced, for warnings and errors.
    pub fn missing_reason(&self) -> String {
        let mut missing = Vec::new();
        if self.landlock_abi <= 0 {
            missing.push("Landlock");
        }
        if !self.seccomp {
            missing.push("seccomp");
        }
        let why = if self.simulated {
            format!(" ({SIMULATE_UNSUPPORTED_ENV} is set)")
        } else {
            String::new()
        };
        format!("this kernel lacks {}{why}", missing.join(" and "))
    }
}

/// The enforced policy a spawn may carry: cheap to clone, built once per instance.
#[derive(Clone)]
pub struct SandboxPolicy(Arc<PolicyInner>);

struct PolicyInner {
    mode: SandboxMode,
    network: bool,
    roots: Vec<PathBuf>,
    passthrough: Vec<String>,
    /// Keeps the ruleset fd open as long as any spawn may use it.
    _landlock: OwnedFd,
    prepared: Arc<child::Prepared>,
}

impl SandboxPolicy {
    /// Builds the Landlock ruleset and the seccomp filter for `mode` over `roots`.
    pub fn build(
        mode: SandboxMode,
        network: bool,
        roots: Vec<PathBuf>,
        passthrough: Vec<String>,
    ) -> Result<SandboxPolicy, String> {
        let fd = landlock::build(&roots)?;
        let filter = seccomp::compile(network)?;
        let prepared = Arc::new(child::Prepared {
            landlock_fd: fd.as_raw_fd(),
            filter,
        });
        Ok(SandboxPolicy(Arc::new(PolicyInner {
            mode,
            network,
            roots,
            passthrough,
            _landlock: fd,
            prepared,
        })))
    }

    pub fn mode(&self) -> SandboxMode {
        self.0.mode
    }

    pub fn network(&self) -> bool {
        self.0.network
    }

    /// The paths a command may write.
    pub fn roots(&self) -> &[PathBuf] {
        &self.0.roots
    }

    /// The variables of this process's environment a sandboxed child must not inherit.
    pub fn scrubbed_env(&self) -> Vec<OsString> {
        std::env::vars_os()
            .map(|(name, _)| name)
            .filter(|name| {
                name.to_str()
                    .is_some_and(|n| is_secret(n, &self.0.passthrough))
            })
            .collect()
    }

    /// Makes `cmd` apply this policy in the child, between fork and exec.
    pub(crate) fn install(&self, cmd: &mut tokio::process::Command) {
        child::install(cmd, self.0.prepared.clone());
    }
}

impl PartialEq for SandboxPolicy {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SandboxPolicy {}

impl std::fmt::Debug for SandboxPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxPolicy")
            .field("mode", &self.0.mode)
            .field("network", &self.0.network)
            .field("roots", &self.0.roots)
            .finish_non_exhaustive()
    }
}
