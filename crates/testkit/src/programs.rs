//! Tests that need an outside program (a language server) or watch a process end.

/// Fails the test with the install step when `program` is not on `PATH`: CI installs what the
/// tests need, so a missing program is a broken setup, not a reason to skip.
pub fn require_program(program: &str, package: &str) {
    let found = std::env::split_paths(&std::env::var("PATH").unwrap_or_default())
        .any(|dir| dir.join(program).is_file());
    assert!(
        found,
        "`{program}` is not installed; `.ci/run` installs it (apt-get install {package})"
    );
}

/// Whether an optional outside program (a server installed from npm, ...) is on `PATH`. When
/// it is not, prints one line saying the test is skipped and returns `false`; with
/// `STRATA_TEST_REQUIRE_EXTERNAL=1` (CI) a missing program fails the test instead.
pub fn external_program(program: &str, install: &str) -> bool {
    let found = std::env::split_paths(&std::env::var("PATH").unwrap_or_default())
        .any(|dir| dir.join(program).is_file());
    if !found {
        let required = std::env::var("STRATA_TEST_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "`{program}` is not installed; install it with: {install}"
        );
        eprintln!("skipped: `{program}` is not installed ({install})");
    }
    found
}

/// Whether process `pid` has ended (gone, or a zombie its parent has not reaped yet).
pub fn process_ended(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The state letter follows the command name, which is in parentheses.
    stat.is_empty()
        || stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_not_ended_and_a_reaped_child_has() {
        assert!(!process_ended(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(process_ended(pid));
        require_program("sh", "dash");
    }
}
