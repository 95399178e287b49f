//! Model sources: a `model.py` beside a valid config, checked whole (the
//! Python reader, stage declarations, the pipeline).
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::check(&common::project(
        common::CONFIG.as_bytes(),
        vec![common::input("model.py", data)],
        None,
    ));
});
