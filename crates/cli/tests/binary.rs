//! Cargo builds a package's binaries only for that package's integration tests; this one makes
//! `cargo test --workspace` build `strata` for the end-to-end tests in the workspace's `tests/`.

#[test]
fn the_binary_is_built_and_starts() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("--version")
        .output()
        .expect("run the strata binary");
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("strata "));
}
