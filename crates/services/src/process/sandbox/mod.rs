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
mod namespace;
mod protect;
mod roots;
mod seccomp;
mod service;

use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

pub use hint::{blocked_hint, protected_hint};
pub use namespace::{Protected, SIMULATE_NO_USERNS_ENV};
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
    /// Whether a child may enter a new user and mount namespace (for the read-only binds of
    /// the protected files).
    pub user_namespaces: bool,
    /// Whether [`SIMULATE_UNSUPPORTED_ENV`] hid the real support.
    pub simulated: bool,
}

impl Support {
    /// Asks the kernel (once per process: the namespace probe forks), unless a simulation
    /// switch is set in the environment.
    pub fn probe() -> Support {
        let switch =
            |name: &str| std::env::var(name).is_ok_and(|v| matches!(v.trim(), "1" | "true"));
        if switch(SIMULATE_UNSUPPORTED_ENV) {
            return Support::missing(true);
        }
        static KERNEL: OnceLock<Support> = OnceLock::new();
        let mut support = KERNEL
            .get_or_init(|| Support {
                landlock_abi: child::landlock_abi().max(0),
                seccomp: child::seccomp_available(),
                user_namespaces: child::user_namespaces_work(),
                simulated: false,
            })
            .clone();
        if switch(SIMULATE_NO_USERNS_ENV) {
            support.user_namespaces = false;
            support.simulated = true;
        }
        support
    }

    /// No Landlock and no seccomp (`simulated`: whether that is pretended).
    pub fn missing(simulated: bool) -> Support {
        Support {
            landlock_abi: 0,
            seccomp: false,
            user_namespaces: false,
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
    /// Bound read-only in a user and mount namespace before each command, when set.
    protected: Option<Protected>,
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
        Self::build_protecting(mode, network, roots, passthrough, None)
    }

    /// Like [`build`](Self::build), and each command also gets the `protected` paths that
    /// exist bound read-only (only when the kernel allows user namespaces).
    pub fn build_protecting(
        mode: SandboxMode,
        network: bool,
        roots: Vec<PathBuf>,
        passthrough: Vec<String>,
        protected: Option<Protected>,
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
            protected,
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

    /// Whether commands get the protected files bound read-only.
    pub fn binds_protected(&self) -> bool {
        self.0.protected.is_some()
    }

    /// Makes `cmd` apply this policy in the child, between fork and exec. The namespace is
    /// entered only when a protected path exists, so a project without any pays nothing.
    pub(crate) fn install(&self, cmd: &mut tokio::process::Command) {
        let existing = self
            .0
            .protected
            .as_ref()
            .map(Protected::existing)
            .unwrap_or_default();
        let ns = (!existing.is_empty()).then(|| child::NsPlan::new(&existing));
        child::install(cmd, self.0.prepared.clone(), ns);
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
            .field("protected", &self.0.protected)
            .finish_non_exhaustive()
    }
}
