//! A config with a model, a `stages.yaml` and an inventory compiled
//! together: the stage graph, pipeline arithmetic and hardware matching.
//! The input is split at `\n----\n` into up to four parts, in that order,
//! so seeds stay readable text.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut rest = data;
    while parts.len() < 3 {
        match rest.windows(6).position(|w| w == b"\n----\n") {
            Some(at) => {
                parts.push(&rest[..at]);
                rest = &rest[at + 6..];
            }
            None => break,
        }
    }
    parts.push(rest);
    let part = |name: &str, i: usize| parts.get(i).map(|b| common::input(name, b));
    let models = [part("model.py", 1), part("stages.yaml", 2)].into_iter().flatten().collect();
    let config = parts.first().copied().unwrap_or_default();
    common::check(&common::project(config, models, part("inventory.json", 3)));
});
