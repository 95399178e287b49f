//! Model sources: `stagec::stages::python::read_model` and the stage
//! declarations made from it.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use stagec::source::FileId;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else { return };
    let model = stagec::stages::python::read_model(text);
    let (_decls, diags) = stagec::stages::from_python::stage_decls(FileId(0), &model);
    common::assert_spans(text, &diags);
});
