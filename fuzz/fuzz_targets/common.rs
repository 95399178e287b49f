//! Invariants every target checks on what the library returns: diagnostics
//! lie inside their text, on character boundaries, with a message; every
//! format renders. Targets for one kind of file check it beside a valid
//! config, through the same `compile` the CLI and the language server use.
#![allow(dead_code)]

use stagec::project::{Input, Project};
use stagec::{Compiled, Diagnostic};

/// Text from fuzz bytes: the parsers take `&str`, the CLI decodes first.
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

pub fn assert_spans(text: &str, diags: &[Diagnostic]) {
    for d in diags {
        assert_span(text, d.span.start, d.span.end, &format!("{d:?}"));
        assert!(!d.message.is_empty(), "{d:?} has no message");
    }
}

pub fn assert_span(text: &str, start: usize, end: usize, what: &str) {
    assert!(start <= end && end <= text.len(), "{what} outside {} bytes", text.len());
    assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "{what} splits a character"
    );
}

/// Every diagnostic of a compilation inside its own file.
pub fn assert_checked(compiled: &Compiled) {
    for d in &compiled.diagnostics {
        let text = &compiled.sources.get(d.file).expect("diagnostic's file").text;
        assert_spans(text, std::slice::from_ref(d));
    }
}

/// Renders a compilation in every format (the renderers index the text
/// too); no output holds a control character of the input raw (issue 21,
/// item 4): only line feeds and tabs.
pub fn render_all(compiled: &Compiled) {
    use stagec::render::{self, human::Style, Report, Summary};
    let reports = [Report::of(compiled)];
    let summary = Summary::of(&reports, 1);
    let outputs = [
        ("human", render::human::render(&reports, summary, Style::PLAIN)),
        ("concise", render::concise::render(&reports, summary)),
        ("json", render::json::render(&reports, summary)),
        ("github", render::github::render(&reports, summary)),
        ("sarif", render::sarif::render(&reports)),
    ];
    for (format, out) in &outputs {
        // A CRLF line end may stay as it is.
        let raw = out.replace("\r\n", "\n").chars().find(|&c| stagec::escape::is_escaped(c));
        assert!(raw.is_none(), "{format} output holds {raw:?} raw");
    }
}

/// A valid three-stage config, for targets that fuzz another file beside it.
pub const CONFIG: &str = "\
name: fuzz
entrypoint: python train.py
resources:
  slots_per_trial: 6
searcher:
  name: single
  metric: loss
hyperparameters:
  global_batch_size: 96
  hpp_config:
    pipeline_parallel_degree: 3
    micro_batch_size: 2
checkpoint_storage:
  type: shared_fs
  host_path: /mnt/checkpoints
";

pub fn input(name: &str, bytes: &[u8]) -> Input {
    Input {
        name: name.into(),
        bytes: bytes.to_vec(),
    }
}

/// A project of `config` with these model sources and inventory.
pub fn project(config: &[u8], models: Vec<Input>, inventory: Option<Input>) -> Project {
    Project {
        config: input("const.yaml", config),
        models: Some(models),
        inventory,
        probe: None,
        searched: "fuzz".into(),
        training: None,
    }
}

/// Compiles, checks every span, renders every format.
pub fn check(project: &Project) {
    let compiled = stagec::compile(project, &stagec::Options::default());
    assert_checked(&compiled);
    render_all(&compiled);
}
