//! `--format json`: exactly one JSON document for all files.

use serde::Serialize;

use super::{position, Report, Summary};

#[derive(Serialize)]
struct Output<'a> {
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    severity: &'a str,
    message: &'a str,
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    help: Option<&'a str>,
    related: Vec<Related<'a>>,
    /// The fix, or `null` when there is none.
    fix: Option<JsonFix<'a>>,
    /// The rule's documentation page.
    url: Option<String>,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    title: &'a str,
    /// `safe` (`--fix` applies it) or `unsafe` (only with `--unsafe-fixes`).
    applicability: &'a str,
    edits: Vec<JsonEdit>,
}

/// Replace the text from `line:column` to `end_line:end_column` (1-based,
/// end exclusive, columns in Unicode characters) with `content`.
#[derive(Serialize)]
struct JsonEdit {
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    content: String,
}

#[derive(Serialize)]
struct Related<'a> {
    file: String,
    line: usize,
    column: usize,
    message: &'a str,
}

pub fn render(reports: &[Report<'_>], summary: Summary) -> String {
    let mut diagnostics = Vec::new();
    for r in reports {
        for d in r.diagnostics {
            let p = position(r.sources, d.file, d.span);
            let related = d
                .labels
                .iter()
                .map(|l| {
                    let lp = position(r.sources, l.file, l.span);
                    Related {
                        file: lp.file,
                        line: lp.line,
                        column: lp.column,
                        message: &l.message,
                    }
                })
                .collect();
            diagnostics.push(JsonDiagnostic {
                code: d.code,
                severity: d.severity.as_str(),
                message: &d.message,
                file: p.file,
                line: p.line,
                column: p.column,
                end_line: p.end_line,
                end_column: p.end_column,
                help: d.help.as_deref(),
                related,
                fix: d.fix.as_ref().map(|f| JsonFix {
                    title: &f.title,
                    applicability: f.applicability.as_str(),
                    edits: f
                        .edits
                        .iter()
                        .map(|e| {
                            let ep = position(r.sources, e.file, e.span);
                            JsonEdit {
                                file: ep.file,
                                line: ep.line,
                                column: ep.column,
                                end_line: ep.end_line,
                                end_column: ep.end_column,
                                content: r.shown_replacement(e),
                            }
                        })
                        .collect(),
                }),
                url: crate::rules::lookup(d.code).map(|rule| crate::rules::docs_url(rule, None)),
            });
        }
    }
    let out = Output { diagnostics, summary };
    let s = serde_json::to_string_pretty(&out).unwrap_or_else(|_| String::from("{}"));
    // Controls serde_json leaves raw, as `\u` escapes (the same strings).
    let mut s = crate::escape::json(&s).into_owned();
    s.push('\n');
    s
}
