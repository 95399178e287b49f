//! Inventories (stagec YAML, Kubernetes NodeList JSON/YAML, nvidia-smi CSV):
//! `stagec::hardware::inventory::read_inventory`.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use stagec::source::FileId;
use stagec::yaml::Budgets;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else { return };
    let (inventory, diags) = stagec::hardware::inventory::read_inventory(FileId(0), text, &Budgets::default());
    common::assert_spans(text, &diags);
    if let Some(inv) = inventory {
        let _ = inv.supply();
    }
});
