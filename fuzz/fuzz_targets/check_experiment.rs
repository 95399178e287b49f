//! The whole check of one config (`stagec::check_experiment`), rendered in
//! every format.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let compiled = stagec::check_experiment("fuzz.yaml", data, &stagec::Options::default());
    common::assert_checked(&compiled);
    common::render_all(&compiled);
});
