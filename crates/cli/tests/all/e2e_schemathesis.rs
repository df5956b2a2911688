//! `strata serve` fuzzed from outside by schemathesis (PyPI), against its own `/doc`: every
//! answer follows the document, none is a 500, and the server still answers at the end. Runs
//! `bench/schemathesis.sh` with the built binary and fewer examples than the script's default.
//! `.ci/run` installs schemathesis in `$HOME/.cache/strata/schemathesis-venv` (or where
//! `STRATA_TEST_SCHEMATHESIS` says).

use std::path::PathBuf;
use std::process::Command;

use crate::common::strata_bin;

fn schemathesis() -> Option<PathBuf> {
    let path = match std::env::var_os("STRATA_TEST_SCHEMATHESIS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(std::env::var_os("HOME")?)
            .join(".cache/strata/schemathesis-venv/bin/schemathesis"),
    };
    path.is_file().then_some(path)
}

#[test]
fn schemathesis_finds_no_server_error_and_no_answer_outside_the_document() {
    let found = schemathesis();
    if !strata_testkit::external_found(
        "schemathesis",
        "python3 -m venv ~/.cache/strata/schemathesis-venv && ~/.cache/strata/schemathesis-venv/bin/pip install schemathesis==4.32.5",
        found.is_some(),
    ) {
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/schemathesis.sh");
    let out = Command::new("bash")
        .arg(&script)
        .env("STRATA_BIN", strata_bin())
        .env("SCHEMATHESIS", found.unwrap_or_default())
        .env("MAX_EXAMPLES", "10")
        .output()
        .expect("run bench/schemathesis.sh");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "schemathesis found failures:\n{text}");
    assert!(text.contains("still answers /doc"), "{text}");
}
