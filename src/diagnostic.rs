//! The one diagnostic type. Every phase produces these; every renderer
//! (terminal, JSON, GitHub, SARIF, LSP) converts from them.

use serde::Serialize;

use crate::rules::Rule;
use crate::source::{FileId, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A secondary location with its own message ("first defined here").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Label {
    pub file: FileId,
    pub span: Span,
    pub message: String,
}

/// One text replacement of a fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub file: FileId,
    pub span: Span,
    pub replacement: String,
}

/// A machine-applicable change that resolves the diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The rule's stable code, e.g. `Y002`.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub file: FileId,
    pub span: Span,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// A diagnostic of `rule` at its default severity.
    pub fn new(rule: &Rule, file: FileId, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code: rule.code,
            severity: rule.severity,
            message: message.into(),
            file,
            span,
            labels: Vec::new(),
            help: None,
            fix: None,
        }
    }

    pub fn with_label(mut self, file: FileId, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            file,
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a label in place (for diagnostics already pushed).
    pub fn push_label(&mut self, file: FileId, span: Span, message: impl Into<String>) -> &mut Self {
        self.labels.push(Label {
            file,
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_fix(mut self, title: impl Into<String>, edits: Vec<Edit>) -> Self {
        self.fix = Some(Fix {
            title: title.into(),
            edits,
        });
        self
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// The order diagnostics are reported in: by file, position, then code.
    pub fn sort_key(&self) -> (FileId, usize, usize, &'static str, &str) {
        (self.file, self.span.start, self.span.end, self.code, &self.message)
    }
}

/// "did you mean `a` or `b`?" for a list of suggestions; `None` when empty.
pub fn did_you_mean<S: AsRef<str>>(suggestions: &[S]) -> Option<String> {
    if suggestions.is_empty() {
        return None;
    }
    let quoted: Vec<String> = suggestions.iter().map(|s| format!("`{}`", s.as_ref())).collect();
    Some(format!("did you mean {}?", quoted.join(" or ")))
}

/// Sorts diagnostics for output and drops exact duplicates.
pub fn sort_and_dedup(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diags.dedup_by(|a, b| a.sort_key() == b.sort_key());
}
