//! `stages.yaml`: `stagec::stages::stages_yaml::read_stages_yaml`.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use stagec::source::FileId;
use stagec::yaml::Budgets;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else { return };
    let (_decls, diags) = stagec::stages::stages_yaml::read_stages_yaml(FileId(0), text, &Budgets::default());
    common::assert_spans(text, &diags);
});
