//! Tests that need an outside program (a language server, a pseudo-terminal) or watch a
//! process end.
//!
//! A test that needs a program starts with [`require_external!`]: when the program is on
//! `PATH` the test runs; when it is not, the test prints one line saying it skipped and
//! passes, so `cargo test` works on a machine with only Rust. CI sets
//! `STRATA_TEST_REQUIRE_EXTERNAL=1` (see `.ci/run`), which turns a missing program into a
//! failure naming the install step.

use std::io::Write;
use std::path::PathBuf;

/// The variable that makes a missing program fail its test instead of skipping it.
pub const REQUIRE_EXTERNAL: &str = "STRATA_TEST_REQUIRE_EXTERNAL";

/// What a test that needs an outside program does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The program is there: run the test.
    Run,
    /// The program is missing: say so in this one line and pass.
    Skip(String),
    /// The program is missing and it is required: fail with this message.
    Fail(String),
}

/// The decision, as a pure function of what was found and what the environment asks.
pub fn verdict(test: &str, program: &str, install: &str, found: bool, required: bool) -> Verdict {
    if found {
        Verdict::Run
    } else if required {
        Verdict::Fail(format!(
            "{test} needs `{program}`, which is not on PATH, and {REQUIRE_EXTERNAL}=1 requires \
             it; install it ({install})"
        ))
    } else {
        Verdict::Skip(format!(
            "skipped: {test} needs `{program}` ({install}); set {REQUIRE_EXTERNAL}=1 to fail \
             instead"
        ))
    }
}

/// Whether the environment requires every outside program (`STRATA_TEST_REQUIRE_EXTERNAL=1`).
pub fn external_required() -> bool {
    std::env::var(REQUIRE_EXTERNAL).is_ok_and(|v| v.trim() == "1")
}

/// Where `program` is on `PATH`, if it is.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Whether the running test may use `program`: `true` when it is on `PATH`. When it is not,
/// prints the skip line and returns `false` (the test should return at once), or panics with
/// `install` (e.g. `"apt-get install clangd"`) when `STRATA_TEST_REQUIRE_EXTERNAL=1`.
/// Use [`require_external!`], which returns for you.
#[track_caller]
pub fn external(program: &str, install: &str) -> bool {
    external_found(program, install, find_on_path(program).is_some())
}

/// Like [`external`], for a program found some other way than on `PATH` (e.g. an interpreter
/// an environment variable names): `found` says whether it is there.
#[track_caller]
pub fn external_found(program: &str, install: &str, found: bool) -> bool {
    let current = std::thread::current();
    // libtest runs each test on a thread named after it.
    let test = current
        .name()
        .filter(|n| *n != "main")
        .map_or_else(|| "this test".to_string(), |n| format!("`{n}`"));
    let verdict = verdict(&test, program, install, found, external_required());
    // Straight to the stderr handle: libtest captures `eprintln!` of passing tests, and the
    // skip line must show in `cargo test` output.
    act(verdict, &mut std::io::stderr())
}

/// Carries out `verdict`: whether to run, with the skip line written to `out`.
#[track_caller]
fn act(verdict: Verdict, out: &mut dyn Write) -> bool {
    match verdict {
        Verdict::Run => true,
        Verdict::Skip(line) => {
            // One write, so the line is not split by the harness's own output.
            let _ = out.write_all(format!("{line}\n").as_bytes());
            false
        }
        Verdict::Fail(message) => panic!("{message}"),
    }
}

/// Returns from the calling test when `program` is missing (after printing one line saying
/// so), or fails it when `STRATA_TEST_REQUIRE_EXTERNAL=1`. See [`external`].
///
/// ```text
/// strata_testkit::require_external!("clangd", "apt-get install clangd");
/// ```
#[macro_export]
macro_rules! require_external {
    ($program:expr, $install:expr $(,)?) => {
        if !$crate::external($program, $install) {
            return;
        }
    };
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
    }

    #[test]
    fn a_present_program_runs_whatever_the_environment_says() {
        for required in [false, true] {
            assert_eq!(
                verdict("`t`", "clangd", "apt-get install clangd", true, required),
                Verdict::Run
            );
        }
    }

    #[test]
    fn a_missing_program_skips_with_one_line_unless_required() {
        let skip = verdict("`t`", "clangd", "apt-get install clangd", false, false);
        assert_eq!(
            skip,
            Verdict::Skip(
                "skipped: `t` needs `clangd` (apt-get install clangd); set \
                 STRATA_TEST_REQUIRE_EXTERNAL=1 to fail instead"
                    .into()
            )
        );
        let fail = verdict("`t`", "clangd", "apt-get install clangd", false, true);
        assert_eq!(
            fail,
            Verdict::Fail(
                "`t` needs `clangd`, which is not on PATH, and STRATA_TEST_REQUIRE_EXTERNAL=1 \
                 requires it; install it (apt-get install clangd)"
                    .into()
            )
        );
    }

    #[test]
    fn programs_are_looked_up_on_the_path() {
        assert!(find_on_path("sh").is_some());
        assert!(find_on_path("no-such-program-for-strata-tests").is_none());
    }

    #[test]
    fn only_a_skip_writes_its_line_and_a_failure_panics() {
        let mut out = Vec::new();
        assert!(act(Verdict::Run, &mut out));
        assert!(!act(Verdict::Skip("skipped: x".into()), &mut out));
        assert_eq!(String::from_utf8(out).unwrap(), "skipped: x\n");
        let failed = std::panic::catch_unwind(|| act(Verdict::Fail("x".into()), &mut Vec::new()));
        assert!(failed.is_err());
    }

    #[test]
    fn a_test_whose_program_is_present_runs_its_body() {
        let mut ran = false;
        (|| {
            require_external!("sh", "apt-get install dash");
            ran = true;
        })();
        assert!(ran);
    }
}
