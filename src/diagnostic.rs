//! The one diagnostic type. Rules produce these (and only rules, through
//! the rule engine's sink); every renderer (terminal, JSON, GitHub, SARIF, LSP)
//! converts from them.

use serde::Serialize;

use crate::rule::Rule;
pub use crate::rule::Severity;
use crate::source::{FileId, Span};

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

/// How safely a fix may be applied without a human looking at it (ruff's
/// applicability levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Keeps the config's meaning apart from the mistake it repairs: a
    /// rename of a misspelled key, adding `base: 10`, inserting `count`.
    Safe,
    /// Changes what the experiment does or rewrites a block: a human should
    /// look at the result (changing `slots_per_trial`, rewriting
    /// `checkpoints`).
    Unsafe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// A change that resolves the diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<Edit>,
    pub applicability: Applicability,
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
    /// A diagnostic of `rule` at its default severity. Rules create theirs
    /// through the rule engine's `Sink`; a test keeps other modules from
    /// calling this.
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

    /// Adds a secondary location.
    pub fn label(&mut self, file: FileId, span: Span, message: impl Into<String>) -> &mut Self {
        self.labels.push(Label {
            file,
            span,
            message: message.into(),
        });
        self
    }

    pub fn help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = Some(help.into());
        self
    }

    /// Attaches a fix that is safe to apply unattended.
    pub fn fix(&mut self, title: impl Into<String>, edits: Vec<Edit>) -> &mut Self {
        self.fix_with(title, edits, Applicability::Safe)
    }

    /// Attaches a fix a human should review.
    pub fn unsafe_fix(&mut self, title: impl Into<String>, edits: Vec<Edit>) -> &mut Self {
        self.fix_with(title, edits, Applicability::Unsafe)
    }

    fn fix_with(&mut self, title: impl Into<String>, edits: Vec<Edit>, applicability: Applicability) -> &mut Self {
        self.fix = Some(Fix {
            title: title.into(),
            edits,
            applicability,
        });
        self
    }

    pub fn severity(&mut self, severity: Severity) -> &mut Self {
        self.severity = severity;
        self
    }

    /// The order diagnostics are reported in: by file, position, then code.
    pub fn sort_key(&self) -> (FileId, usize, usize, &'static str, &str) {
        (self.file, self.span.start, self.span.end, self.code, &self.message)
    }
}

/// Sorts diagnostics for output and drops exact duplicates.
pub fn sort_and_dedup(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diags.dedup_by(|a, b| a.sort_key() == b.sort_key());
}
