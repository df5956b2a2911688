//! The seccomp filter of a sandboxed child, compiled by `seccompiler` in the parent.
//!
//! Escape calls are always refused with EPERM (a clear error, not a kill). With the network
//! off, `socket` for IPv4/IPv6 is refused too: `connect`, `bind` and `listen` cannot see the
//! address family cheaply, so no IP socket ever exists to call them on. UNIX sockets still work.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Calls no sandboxed command needs and that would reach round the sandbox: reading or
/// writing other processes, kernel rings and programs, mounts, modules, file handles.
const ALWAYS_REFUSED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    // The newer mount calls: a command that is root in its user namespace could otherwise
    // clear the read-only flag of a protected file's bind.
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_reboot,
];

/// Builds and compiles the filter for this machine's architecture.
pub(super) fn compile(network: bool) -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = ALWAYS_REFUSED
        .iter()
        .map(|call| (*call, Vec::new()))
        .collect();
    if !network {
        let family = |domain: libc::c_int| -> Result<SeccompRule, String> {
            let domain = u64::try_from(domain).map_err(|e| e.to_string())?;
            let cond = SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, domain)
                .map_err(|e| e.to_string())?;
            SeccompRule::new(vec![cond]).map_err(|e| e.to_string())
        };
        let socket = vec![family(libc::AF_INET)?, family(libc::AF_INET6)?];
        rules.insert(libc::SYS_socket, socket);
    }
    let eperm = u32::try_from(libc::EPERM).map_err(|e| e.to_string())?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(eperm),
        arch,
    )
    .map_err(|e| e.to_string())?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_filters_compile_and_network_off_is_longer() {
        let on = compile(true).unwrap();
        let off = compile(false).unwrap();
        assert!(!on.is_empty());
        assert!(off.len() > on.len(), "the socket rule adds instructions");
    }
}
