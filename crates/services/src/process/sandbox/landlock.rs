//! The Landlock ruleset of the sandbox, built once per policy in the parent: every kind of
//! write is handled, and allowed only beneath the writable roots. Reads and execution are not
//! handled, so the whole filesystem stays readable.

use std::os::fd::OwnedFd;
use std::path::PathBuf;

use landlock::{
    ABI, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr,
};

/// The newest ABI whose write rights are asked for (3 adds truncation); older kernels
/// enforce what they know (best effort) and the report says which.
const TARGET: ABI = ABI::V3;

fn handled() -> BitFlags<AccessFs> {
    AccessFs::from_write(TARGET)
}

/// Builds the ruleset; roots that do not exist are skipped. The fd is close-on-exec.
pub(super) fn build(roots: &[PathBuf]) -> Result<OwnedFd, String> {
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("Landlock {what} failed: {e}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(handled())
        .map_err(|e| fail("handle_access", &e))?
        .create()
        .map_err(|e| fail("create_ruleset", &e))?;
    for root in roots {
        let Ok(meta) = std::fs::metadata(root) else {
            continue;
        };
        let access = if meta.is_dir() {
            handled()
        } else {
            handled() & AccessFs::from_file(TARGET)
        };
        let Ok(fd) = PathFd::new(root) else {
            continue;
        };
        ruleset = ruleset
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| fail(&format!("add_rule for {}", root.display()), &e))?;
    }
    let fd: Option<OwnedFd> = ruleset.into();
    fd.ok_or_else(|| "Landlock is not supported by this kernel".to_string())
}

/// The names of the rights a kernel with Landlock ABI `abi` enforces for the sandbox.
pub(super) fn enforced_rights(abi: i64) -> Vec<String> {
    let abi = ABI::from(i32::try_from(abi.min(TARGET as i64)).unwrap_or(0));
    AccessFs::from_write(abi)
        .iter()
        .map(|right| format!("{right:?}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rights_grow_with_the_abi_and_stop_at_the_target() {
        assert!(enforced_rights(0).is_empty());
        let v1 = enforced_rights(1);
        assert!(v1.contains(&"WriteFile".to_string()) && !v1.contains(&"Refer".to_string()));
        assert!(enforced_rights(2).contains(&"Refer".to_string()));
        let v3 = enforced_rights(3);
        assert!(v3.contains(&"Truncate".to_string()));
        assert_eq!(enforced_rights(7), v3);
    }
}
