//! Invariants every target checks on what the library returns: diagnostics
//! lie inside their text, on character boundaries, with a message.
#![allow(dead_code)]

use stagec::Diagnostic;

/// Text from fuzz bytes: the parsers take `&str`, the CLI decodes first.
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

pub fn assert_spans(text: &str, diags: &[Diagnostic]) {
    for d in diags {
        assert!(
            d.span.start <= d.span.end && d.span.end <= text.len(),
            "{d:?} outside {} bytes",
            text.len()
        );
        assert!(
            text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end),
            "{d:?} splits a character"
        );
        assert!(!d.message.is_empty(), "{d:?} has no message");
    }
}

/// Every diagnostic of a checked project inside its own file.
pub fn assert_checked(checked: &stagec::Checked) {
    for d in &checked.diagnostics {
        let text = &checked.sources.get(d.file).expect("diagnostic's file").text;
        assert_spans(text, std::slice::from_ref(d));
    }
}

/// Renders a check in every format (the renderers index the text too).
pub fn render_all(checked: &stagec::Checked) {
    use stagec::render::{self, human::Style, Report, Summary};
    let reports = [Report {
        sources: &checked.sources,
        diagnostics: &checked.diagnostics,
    }];
    let summary = Summary::of(&reports, 1);
    let _ = render::human::render(&reports, summary, Style::PLAIN);
    let _ = render::json::render(&reports, summary);
    let _ = render::github::render(&reports, summary);
    let _ = render::sarif::render(&reports);
}
