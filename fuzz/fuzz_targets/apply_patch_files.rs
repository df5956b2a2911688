//! apply_patch through the real tool on a small tree: a patch that fails leaves every file as
//! it was (`strata_fuzz::patch_files`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata_fuzz::patch_files::check(data);
});
