//! A config with a model, a `stages.yaml` and an inventory checked together
//! (`stagec::project::check_project`): the stage graph, pipeline arithmetic
//! and hardware matching. The input is split at `\n----\n` into up to four
//! parts, in that order, so seeds stay readable text.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use stagec::project::{check_project, Input, Project};

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
    let input = |name: &str, i: usize| {
        parts.get(i).map(|b| Input {
            name: name.into(),
            bytes: b.to_vec(),
        })
    };
    let project = Project {
        config: input("const.yaml", 0).unwrap_or(Input {
            name: "const.yaml".into(),
            bytes: Vec::new(),
        }),
        models: [input("model.py", 1), input("stages.yaml", 2)]
            .into_iter()
            .flatten()
            .collect(),
        inventory: input("inventory.json", 3),
        probe: None,
        searched: "fuzz".into(),
    };
    let checked = check_project(&project, &stagec::Options::default());
    common::assert_checked(&checked);
    common::render_all(&checked);
});
