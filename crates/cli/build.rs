//! Lays the release binary's start-up code out in one place. `startup.order` lists the
//! functions that short commands execute (written by `bench/startup.sh` with `ORDER=`), and the
//! linker puts them first, so a start faults in a few pages of the binary instead of pages
//! from all over its code.
//!
//! Only release builds linked by rust-lld (the default linker of x86_64-unknown-linux-gnu since
//! Rust 1.90) get the file; names it no longer finds are skipped, so an out-of-date order costs
//! memory, never a failed build. `STRATA_NO_STARTUP_ORDER=1` turns it off.

fn main() {
    println!("cargo:rerun-if-changed=startup.order");
    println!("cargo:rerun-if-env-changed=STRATA_NO_STARTUP_ORDER");
    let var = |key: &str| std::env::var(key).unwrap_or_default();
    let release = var("PROFILE") == "release";
    // A configured linker, or flags that pick one, may not be lld: leave the link alone.
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let default_lld = var("TARGET") == "x86_64-unknown-linux-gnu"
        && var("RUSTC_LINKER").is_empty()
        && !["linker", "link-self-contained", "fuse-ld", "link-arg"]
            .iter()
            .any(|f| flags.contains(f));
    if !release || !default_lld || !var("STRATA_NO_STARTUP_ORDER").is_empty() {
        return;
    }
    let order = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join("startup.order");
    if order.is_file() {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}
