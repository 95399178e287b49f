//! `--format human`: miette's graphical reports with source snippets.

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic};

use super::excerpt::{Excerpt, Lines};
use super::{position, Report, Summary};
use crate::diagnostic::{Diagnostic, Severity};
use crate::escape;
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
        let shown: Vec<Option<String>> = (0..r.sources.len())
            .map(|i| {
                let file = crate::source::FileId(i as u32);
                r.diagnostics
                    .iter()
                    .any(|d| d.file == file)
                    .then(|| r.shown_text(file).unwrap_or_default())
            })
            .collect();
        let lines: Vec<Option<Lines<'_>>> = shown
            .iter()
            .zip(r.sources.iter())
            .map(|(t, (_, f))| t.as_deref().map(|t| Lines::new(t, &f.lines)))
            .collect();
        for d in r.diagnostics {
            let Some(Some(lines)) = lines.get(d.file.0 as usize) else {
                continue;
            };
            render_one(&handler, r.sources, lines, d, &mut out);
        }
    }
    out.push_str(&summary.line());
    out
}

/// A label this many lines or more from the primary span is named in the
/// help (as one in another file is) rather than drawn.
const FAR_LINES: usize = 200;

/// Renders one diagnostic; `lines` holds its file's text as it may be shown.
fn render_one(
    handler: &GraphicalReportHandler,
    sources: &SourceMap,
    lines: &Lines<'_>,
    d: &Diagnostic,
    out: &mut String,
) {
    let Some(file) = sources.get(d.file) else { return };
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    };
    let primary = lines.clamp_span(clamp(d.span, file.text.len()));
    let primary_line = lines.line_of(primary.start);
    let mut drawn: Vec<(crate::source::Span, &str)> = Vec::new();
    let mut notes = Vec::new();
    for l in &d.labels {
        let span = lines.clamp_span(clamp(l.span, file.text.len()));
        if l.file == d.file && lines.line_of(span.start).abs_diff(primary_line) < FAR_LINES {
            drawn.push((span, &l.message));
        } else {
            let p = position(sources, l.file, l.span);
            notes.push(format!(
                "{}:{}:{}: {}",
                escape::line(&p.file),
                p.line,
                p.column,
                l.message
            ));
        }
    }
    let spans: Vec<crate::source::Span> = std::iter::once(primary).chain(drawn.iter().map(|(s, _)| *s)).collect();
    // Input's text is shown with its control characters escaped (the
    // snippet's too: see `Excerpt`), so a config cannot drive the terminal.
    let name = escape::line(&file.name).into_owned();
    let excerpt = Excerpt::new(name.clone(), lines, &spans);
    // An empty primary label draws just the pointer.
    let mut labels = vec![LabeledSpan::new_primary_with_span(None, excerpt.span(lines, primary))];
    for (span, message) in drawn {
        labels.push(LabeledSpan::new_with_span(
            Some(escape::line(message).into_owned()),
            excerpt.span(lines, span),
        ));
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
    // A message is one line (the renderer wraps it): a line break in it
    // is input's, shown escaped so it cannot draw a line of its own.
    let mut md = MietteDiagnostic::new(format!("{} {}", d.code, escape::line(&d.message)))
        .with_severity(severity)
        .with_labels(labels);
    if !help.is_empty() {
        md = md.with_help(escape::text(&help).into_owned());
    }
    let report = miette::Report::new(md).with_source_code(excerpt);
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
            escape::line(&d.message)
        ));
    }
}

fn clamp(span: crate::source::Span, len: usize) -> crate::source::Span {
    let start = span.start.min(len);
    crate::source::Span::new(start, span.end.clamp(start, len))
}

#[cfg(test)]
mod tests {
    use crate::project::Project;
    use crate::render::{Report, Summary};

    use super::Style;

    /// The input's control characters are escaped, miette's own colours
    /// (stagec's, for a terminal) are kept.
    #[test]
    fn input_controls_are_escaped_and_colours_kept() {
        let config = "name: x\n\"k\\e]52;c;ZXZpbA==\\a\\e[2J\": 1 # \u{1b}]0;title\u{7}\n";
        let project = Project::config_only("c\u{1b}[2J.yaml", config);
        let compiled = crate::compile(&project, &crate::Options::default());
        let reports = [Report::of(&compiled)];
        let style = Style {
            color: true,
            unicode: true,
            width: 100,
        };
        let text = super::render(&reports, Summary::of(&reports, 1), style);
        assert!(text.contains("\u{1b}["), "miette's colours are kept:\n{text}");
        for raw in ["\u{1b}]", "\u{7}", "\u{1b}[2J"] {
            assert!(!text.contains(raw), "{raw:?} reaches the output:\n{text:?}");
        }
        assert!(text.contains("k\\u{1b}]52;c;ZXZpbA==\\u{7}\\u{1b}[2J"), "{text}");
        assert!(
            text.contains("\\u{1b}]0;title\\u{7}"),
            "the snippet shows it escaped:\n{text}"
        );
        assert!(text.contains("c\\u{1b}[2J.yaml"), "the file name is escaped:\n{text}");
    }
}
