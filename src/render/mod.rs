//! Renderers: one [`Diagnostic`](crate::Diagnostic) type, many output
//! formats. The LSP server has its own conversion in `lsp/`.

pub mod concise;
mod excerpt;
pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

use crate::compiled::Compiled;
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::{FileId, SourceMap};

/// Diagnostics of one compilation together with its sources.
pub struct Report<'a> {
    pub sources: &'a SourceMap,
    pub diagnostics: &'a [Diagnostic],
    /// The compilation, for what output may show of its files.
    pub compiled: &'a Compiled,
}

impl<'a> Report<'a> {
    /// The report of a compilation.
    pub fn of(compiled: &'a Compiled) -> Report<'a> {
        Report {
            sources: &compiled.sources,
            diagnostics: &compiled.diagnostics,
            compiled,
        }
    }

    /// The text of `file` as output may show it: credential values masked.
    pub fn shown_text(&self, file: FileId) -> Option<String> {
        let text = &self.sources.get(file)?.text;
        if self.compiled.withheld(file) {
            return Some(crate::secrets::mask(text, &[crate::source::Span::new(0, text.len())]));
        }
        Some(crate::secrets::mask(text, self.compiled.secrets(file)))
    }

    /// A fix edit's replacement as output may show it: `****` in place of
    /// a credential (an edit within a credential's value is masked whole).
    pub fn shown_replacement(&self, edit: &crate::diagnostic::Edit) -> String {
        let within = self
            .compiled
            .secrets(edit.file)
            .iter()
            .any(|s| s.start <= edit.span.start && edit.span.end <= s.end);
        if within {
            return edit
                .replacement
                .chars()
                .map(|c| if c == '\n' { c } else { '*' })
                .collect();
        }
        self.compiled.redact(edit.file, &edit.replacement)
    }
}

/// Counts over all reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub files: usize,
    /// Infos left out of this output (human, concise and GitHub formats
    /// without `--show-infos`); the summary line says so.
    #[serde(skip)]
    pub hidden_infos: usize,
}

impl Summary {
    pub fn of(reports: &[Report<'_>], files: usize) -> Self {
        let all = reports.iter().flat_map(|r| r.diagnostics.iter());
        let (mut errors, mut warnings, mut infos) = (0, 0, 0);
        for d in all {
            match d.severity {
                Severity::Error => errors += 1,
                Severity::Warning => warnings += 1,
                Severity::Info => infos += 1,
            }
        }
        Summary {
            errors,
            warnings,
            infos,
            files,
            hidden_infos: 0,
        }
    }

    /// The one summary line of the text formats: `2 errors, 1 warning in 1
    /// file`, and what was not shown.
    pub fn line(&self) -> String {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let mut line = format!(
            "{}, {} in {}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
            plural(self.files, "file")
        );
        if self.hidden_infos > 0 {
            line.push_str(&format!(
                " ({} not shown: --show-infos)",
                plural(self.hidden_infos, "info")
            ));
        }
        line.push('\n');
        line
    }
}

/// A resolved position for text formats: 1-based line and column, columns
/// in Unicode characters; the end is exclusive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

pub fn position(sources: &SourceMap, file: crate::source::FileId, span: crate::source::Span) -> Position {
    match sources.get(file) {
        Some(f) => {
            let (line, column) = f.line_col(span.start);
            let (end_line, end_column) = f.line_col(span.end.max(span.start));
            Position {
                file: f.name.clone(),
                line,
                column,
                end_line,
                end_column,
            }
        }
        None => Position {
            file: String::new(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
        },
    }
}
