//! `stagec check --fix --unsafe-fixes` on one config (`stagec::fix::fix`
//! at `Level::All`): the fixed text reads back as the fixer saw it, and
//! reports nothing, by rule and message, that the config did not report
//! before fixing (output caps off on both sides, as the fixer compares).
#![no_main]
#[path = "common.rs"]
mod common;

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use stagec::fix::{self, Level};
use stagec::project::Project;
use stagec::{Compiled, Options};

/// What a check reports, by rule and message, counted.
fn findings(compiled: &Compiled) -> BTreeMap<(&'static str, String), usize> {
    let mut out = BTreeMap::new();
    for d in &compiled.diagnostics {
        *out.entry((d.code, d.message.clone())).or_default() += 1;
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    let uncapped = Options {
        uncapped: true,
        ..Options::default()
    };
    let project = Project::config_only("fuzz.yaml", text);
    let before = findings(&stagec::compile(&project, &uncapped));
    let out = fix::fix(&project, &Options::default(), Level::All, &|_| {}, &mut |_| None);
    common::assert_checked(&out.compiled);
    common::render_all(&out.compiled);
    assert!(out.rounds <= fix::MAX_ROUNDS);
    assert!(out.changed.len() <= 1, "one file changed at most: {:?}", out.changed);
    let Some(changed) = out.changed.first() else {
        return;
    };
    assert_eq!(changed.before, text, "`before` is the text read");
    assert_ne!(changed.before, changed.after);
    // Every applied fix is counted against the one file.
    let in_file: usize = changed.fixed.iter().map(|(_, n)| n).sum();
    assert_eq!(in_file, out.fixed_count(), "{:?} vs {:?}", changed.fixed, out.fixed);
    // Read back from its text alone, the fixed config is what the fixer
    // last checked, and it reports nothing new.
    let again = stagec::compile(&Project::config_only("fuzz.yaml", changed.after.as_str()), &uncapped);
    common::assert_checked(&again);
    let after = findings(&again);
    for (key, n) in &after {
        let was = before.get(key).copied().unwrap_or(0);
        assert!(
            *n <= was,
            "fixing added {key:?} ({was} -> {n}):\n--- before\n{text}\n--- after\n{}",
            changed.after
        );
    }
    // The outcome's check is of that same text (capped as `check` lists).
    let capped = stagec::compile(
        &Project::config_only("fuzz.yaml", changed.after.as_str()),
        &Options::default(),
    );
    assert_eq!(
        findings(&capped),
        findings(&out.compiled),
        "the outcome is not the fixed text's check"
    );
});
