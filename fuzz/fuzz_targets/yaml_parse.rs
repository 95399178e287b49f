//! `stagec::yaml::parse`: any text gives a tree and located diagnostics;
//! converting the tree to JSON stays within the node budget.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use stagec::source::FileId;
use stagec::yaml::Budgets;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else { return };
    let budgets = Budgets::default();
    let (tree, diags) = stagec::yaml::parse(text, FileId(0), &budgets);
    common::assert_spans(text, &diags);
    if let Some(root) = tree.root() {
        if tree.expanded_size(budgets.max_nodes) <= budgets.max_nodes {
            let _ = tree.to_json(root, budgets.max_nodes);
        }
    }
});
