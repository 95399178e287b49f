//! `--format human`: miette's graphical reports with source snippets.

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

use super::{position, Report, Summary};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::SourceMap;

/// How to draw: colours and Unicode only for a terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
    pub unicode: bool,
    pub width: usize,
}

impl Style {
    /// Plain output, as for a pipe, a file or a test snapshot.
    pub const PLAIN: Style = Style {
        color: false,
        unicode: true,
        width: 100,
    };
}

pub fn render(reports: &[Report<'_>], summary: Summary, style: Style) -> String {
    let theme = match (style.color, style.unicode) {
        (true, true) => GraphicalTheme::unicode(),
        (true, false) => GraphicalTheme::ascii(),
        (false, true) => GraphicalTheme::unicode_nocolor(),
        (false, false) => GraphicalTheme::none(),
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false);
    let mut out = String::new();
    for r in reports {
        let mut shown: Vec<Option<String>> = vec![None; r.sources.len()];
        for d in r.diagnostics {
            let Some(slot) = shown.get_mut(d.file.0 as usize) else {
                continue;
            };
            let text = slot.get_or_insert_with(|| r.shown_text(d.file).unwrap_or_default());
            render_one(&handler, r.sources, text, d, &mut out);
        }
    }
    out.push_str(&summary.line());
    out
}

/// Renders one diagnostic; `shown` is its file's text as it may be shown.
fn render_one(handler: &GraphicalReportHandler, sources: &SourceMap, shown: &str, d: &Diagnostic, out: &mut String) {
    let Some(file) = sources.get(d.file) else { return };
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    };
    let mut labels = vec![LabeledSpan::new_primary_with_span(
        Some(String::new()),
        clamp(d.span, file.text.len()),
    )];
    let mut notes = Vec::new();
    for l in &d.labels {
        if l.file == d.file {
            labels.push(LabeledSpan::new_with_span(
                Some(l.message.clone()),
                clamp(l.span, file.text.len()),
            ));
        } else {
            let p = position(sources, l.file, l.span);
            notes.push(format!("{}:{}:{}: {}", p.file, p.line, p.column, l.message));
        }
    }
    // An empty primary label draws just the pointer.
    if let Some(first) = labels.first_mut() {
        *first = LabeledSpan::new_primary_with_span(None, clamp(d.span, file.text.len()));
    }
    let mut help = d.help.clone().unwrap_or_default();
    for n in notes {
        if !help.is_empty() {
            help.push('\n');
        }
        help.push_str("see ");
        help.push_str(&n);
    }
    // The code beside the message, as compilers print it (miette would put
    // it on a line of its own above).
    let mut md = MietteDiagnostic::new(format!("{} {}", d.code, d.message))
        .with_severity(severity)
        .with_labels(labels);
    if !help.is_empty() {
        md = md.with_help(help);
    }
    let name = file.name.clone();
    let report = miette::Report::new(md).with_source_code(NamedSource::new(name.clone(), shown.to_string()));
    let mut buf = String::new();
    if handler.render_report(&mut buf, report.as_ref()).is_ok() {
        out.push_str(&buf);
        if !buf.ends_with('\n') {
            out.push('\n');
        }
        // A blank line between one diagnostic and the next.
        out.push('\n');
    } else {
        out.push_str(&format!(
            "{}: {}[{}]: {}\n",
            name,
            d.severity.as_str(),
            d.code,
            d.message
        ));
    }
}

fn clamp(span: crate::source::Span, len: usize) -> miette::SourceSpan {
    let start = span.start.min(len);
    let end = span.end.clamp(start, len);
    (start, end - start).into()
}
