//! The only unsafe code of the workspace: the hook that restricts a child between fork and
//! exec, the user-namespace setup it starts with, and the kernel probes.
//!
//! Between fork and exec only the forking thread exists in the child, and another thread of
//! the parent may have held the allocator's lock at the fork: allocating here can deadlock.
//! So everything is built in the parent ([`Prepared`], [`NsPlan`]) and the hook only makes
//! syscalls.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::RawFd;
use std::path::Path;
use std::sync::Arc;

use seccompiler::BpfProgram;

use super::namespace::{c_path, identity_map, remount_flags};

/// What the child applies to itself, built in the parent before the spawn.
#[derive(Debug)]
pub(super) struct Prepared {
    /// The Landlock ruleset (owned by the policy, which outlives every spawn).
    pub(super) landlock_fd: RawFd,
    /// The seccomp filter, compiled.
    pub(super) filter: BpfProgram,
}

/// The user and mount namespace of one spawn: the id maps and the read-only binds.
#[derive(Debug)]
pub(super) struct NsPlan {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Each protected path that exists, with the flags of its read-only remount.
    binds: Vec<(CString, libc::c_ulong)>,
}

const SETGROUPS: &CStr = c"/proc/self/setgroups";
const UID_MAP: &CStr = c"/proc/self/uid_map";
const GID_MAP: &CStr = c"/proc/self/gid_map";
const ROOT: &CStr = c"/";

impl NsPlan {
    /// The plan binding `paths` read-only, for this process's ids.
    pub(super) fn new(paths: &[impl AsRef<Path>]) -> NsPlan {
        // SAFETY: getuid and getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let binds = paths
            .iter()
            .filter_map(|p| {
                let p = p.as_ref();
                Some((c_path(p)?, remount_flags(mount_flags(p)?)))
            })
            .collect();
        NsPlan {
            uid_map: identity_map(uid),
            gid_map: identity_map(gid),
            binds,
        }
    }
}

/// The `statvfs` flags of the mount `path` lies on (parent side).
fn mount_flags(path: &Path) -> Option<u64> {
    let c = c_path(path)?;
    let mut buf = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a valid C string and `buf` is large enough for the result.
    let rc = unsafe { libc::statvfs(c.as_ptr(), buf.as_mut_ptr()) };
    // SAFETY: statvfs filled `buf` when it returned 0.
    (rc == 0).then(|| unsafe { buf.assume_init() }.f_flag)
}

/// Writes `bytes` to the file at `path` (child side: syscalls only).
fn write_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: `path` is a valid C string; `bytes` outlives the call; the fd is closed below.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let err = io::Error::last_os_error();
        libc::close(fd);
        if usize::try_from(n).ok() != Some(bytes.len()) {
            return Err(err);
        }
    }
    Ok(())
}

/// Enters a new user and mount namespace and binds the plan's paths read-only (child side).
/// `Ok(false)` when the kernel refuses the namespace: the command then runs without it and
/// the snapshot taken by the caller still undoes a change. Once inside, a failed id map is an
/// error (files would belong to nobody); a bind that fails is skipped for the same reason.
fn enter_namespace(plan: &NsPlan) -> io::Result<bool> {
    // SAFETY: unshare and mount take C strings that live in `plan` or are static.
    unsafe {
        if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
            return Ok(false);
        }
        write_file(SETGROUPS, b"deny")?;
        write_file(UID_MAP, &plan.uid_map)?;
        write_file(GID_MAP, &plan.gid_map)?;
        let none = std::ptr::null();
        let private = libc::MS_REC | libc::MS_PRIVATE;
        if libc::mount(none, ROOT.as_ptr(), none, private, std::ptr::null()) != 0 {
            return Ok(true);
        }
        for (path, flags) in &plan.binds {
            let p = path.as_ptr();
            let bind = libc::MS_BIND | libc::MS_REC;
            if libc::mount(p, p, none, bind, std::ptr::null()) == 0 {
                libc::mount(none, p, none, *flags, std::ptr::null());
            }
        }
    }
    Ok(true)
}

/// Installs the hook on `cmd`: no new privileges, the namespace with its read-only binds
/// (before Landlock, which forbids mount changes), the Landlock ruleset, then the seccomp
/// filter (last, so the filter never refuses a call the earlier steps make).
pub(super) fn install(
    cmd: &mut tokio::process::Command,
    prepared: Arc<Prepared>,
    ns: Option<NsPlan>,
) {
    let hook = move || -> io::Result<()> {
        // SAFETY: plain syscalls on memory owned by `prepared` and `ns`, which this closure
        // keeps alive; nothing here allocates or takes a lock (see the module docs).
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        if let Some(plan) = &ns {
            enter_namespace(plan)?;
        }
        // SAFETY: as above.
        unsafe {
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

/// Whether this process may enter a new user and mount namespace and map its ids: tried for
/// real in a throwaway child that exits at once.
pub(super) fn user_namespaces_work() -> bool {
    let plan = NsPlan::new(&[] as &[&Path]);
    // SAFETY: the child only makes syscalls on memory prepared above, then `_exit`s without
    // running destructors or touching the parent's state; the parent reaps it.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return false;
        }
        if pid == 0 {
            let ok = matches!(enter_namespace(&plan), Ok(true));
            libc::_exit(if ok { 0 } else { 1 });
        }
        let mut status = 0;
        if libc::waitpid(pid, &mut status, 0) != pid {
            return false;
        }
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
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
