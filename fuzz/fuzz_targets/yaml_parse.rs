//! `stagec::yaml::parse_with`, both readings: any text gives a tree and
//! located issues; the document gate (alias budget, JSON conversion) stays
//! within its budgets.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use stagec::document::Document;
use stagec::yaml::{Budgets, Schema};

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else { return };
    let budgets = Budgets::default();
    for schema in [Schema::Core, Schema::Master] {
        let mut doc = Document::parse(text, &budgets, schema);
        doc.gate(&budgets);
        for issue in &doc.issues {
            let at = issue.span();
            common::assert_span(text, at.start, at.end, &format!("{issue:?}"));
        }
        for i in 0..doc.tree.len() {
            let span = doc.tree.span(stagec::yaml::NodeId(i as u32));
            common::assert_span(text, span.start, span.end, "a node");
        }
    }
});
