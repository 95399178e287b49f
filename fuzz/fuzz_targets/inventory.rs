//! Inventories (stagec YAML, Kubernetes NodeList JSON/YAML, nvidia-smi CSV)
//! beside a valid config, checked whole (reading and hardware matching).
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::check(&common::project(
        common::CONFIG.as_bytes(),
        Vec::new(),
        Some(common::input("inventory.json", data)),
    ));
});
