//! The only unsafe code of the workspace: the hook that restricts a child between fork and
//! exec, and two kernel probes.
//!
//! Between fork and exec only the forking thread exists in the child, and another thread of
//! the parent may have held the allocator's lock at the fork: allocating here can deadlock.
//! So everything is built in the parent ([`Prepared`]) and the hook only makes syscalls.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::RawFd;
use std::sync::Arc;

use seccompiler::BpfProgram;

/// What the child applies to itself, built in the parent before the spawn.
#[derive(Debug)]
pub(super) struct Prepared {
    /// The Landlock ruleset (owned by the policy, which outlives every spawn).
    pub(super) landlock_fd: RawFd,
    /// The seccomp filter, compiled.
    pub(super) filter: BpfProgram,
}

/// Installs the hook on `cmd`: no new privileges, the Landlock ruleset, then the seccomp
/// filter (last, so the filter never refuses a call the earlier steps make).
pub(super) fn install(cmd: &mut tokio::process::Command, prepared: Arc<Prepared>) {
    let hook = move || -> io::Result<()> {
        // SAFETY: plain syscalls on memory owned by `prepared`, which this closure keeps
        // alive; nothing here allocates or takes a lock (see the module docs).
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, prepared.landlock_fd, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        seccompiler::apply_filter(&prepared.filter)
            .map_err(|_| io::Error::from_raw_os_error(libc::EPERM))
    };
    // SAFETY: the hook only makes async-signal-safe syscalls (see above).
    unsafe {
        cmd.pre_exec(hook);
    }
}

/// The kernel's Landlock ABI version; 0 or less when Landlock is missing or disabled.
pub(super) fn landlock_abi() -> i64 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
    // SAFETY: with a null attribute pointer and size 0 this call only reports the version.
    unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    }
}

/// Whether the kernel has seccomp filters (`PR_GET_SECCOMP` fails with EINVAL without them).
pub(super) fn seccomp_available() -> bool {
    // SAFETY: PR_GET_SECCOMP reads this thread's seccomp mode and changes nothing.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 }
}
