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
        for d in r.diagnostics {
            render_one(&handler, r.sources, d, &mut out);
        }
    }
    out.push_str(&summary_line(summary));
    out
}

fn summary_line(s: Summary) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {} in {}\n",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.files, "file")
    )
}

fn render_one(handler: &GraphicalReportHandler, sources: &SourceMap, d: &Diagnostic, out: &mut String) {
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
    let mut md = MietteDiagnostic::new(d.message.clone())
        .with_code(d.code)
        .with_severity(severity)
        .with_labels(labels);
    if !help.is_empty() {
        md = md.with_help(help);
    }
    let name = file.name.clone();
    let report = miette::Report::new(md).with_source_code(NamedSource::new(name.clone(), redact(&file.text)));
    let mut buf = String::new();
    if handler.render_report(&mut buf, report.as_ref()).is_ok() {
        out.push_str(&buf);
        if !buf.ends_with('\n') {
            out.push('\n');
        }
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

/// The source as snippets may show it: the values of credential-like keys
/// (`secret_key: …`, `- WANDB_API_KEY=…`) replaced by `*`, byte for byte, so
/// every span still lands where it did. References (`${VAR}`) stay.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        out.push_str(&redact_line(line));
    }
    out
}

fn redact_line(line: &str) -> String {
    let body = line
        .trim_start()
        .trim_start_matches("- ")
        .trim_start_matches(['"', '\'']);
    let offset = line.len() - body.len();
    let Some(sep) = body.find([':', '=']) else {
        return line.to_string();
    };
    let key = body[..sep].trim().trim_end_matches(['"', '\'']);
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return line.to_string();
    }
    if !crate::secrets::is_credential_name(key) {
        return line.to_string();
    }
    let value_start = offset + sep + 1;
    let rest = &line[value_start..];
    let value = rest.trim_start();
    let start = value_start + (rest.len() - value.len());
    // Up to a comment or the line end.
    let end_rel = value.find(" #").unwrap_or(value.trim_end_matches(['\n', '\r']).len());
    let end = start + end_rel.min(value.len());
    let shown = &line[start..end];
    if shown.is_empty() || shown.trim_matches(['"', '\'']).starts_with("${") {
        return line.to_string();
    }
    let mut redacted = String::with_capacity(line.len());
    redacted.push_str(&line[..start]);
    redacted.extend(std::iter::repeat_n('*', end - start));
    redacted.push_str(&line[end..]);
    redacted
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn credentials_are_masked_byte_for_byte() {
        let text = "checkpoint_storage:\n  secret_key: hunter2 # old\n  access_key: ${KEY}\n  bucket: b\nenvironment_variables:\n  - WANDB_API_KEY=abc123\n  - \"HF_TOKEN=秘密\"\n";
        let out = redact(text);
        assert_eq!(out.len(), text.len());
        assert!(
            !out.contains("hunter2") && !out.contains("abc123") && !out.contains("秘密"),
            "{out}"
        );
        assert!(
            out.contains("${KEY}") && out.contains("bucket: b") && out.contains("# old"),
            "{out}"
        );
    }
}
