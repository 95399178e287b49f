//! What the YAML layer found wrong, as plain data. The `Y…` rules turn
//! these into diagnostics (their messages live in the rule files).

use crate::source::Span;

/// One problem with a YAML document's text.
#[derive(Clone, Debug, PartialEq)]
pub enum YamlIssue {
    /// The scanner or parser stopped: `message` is its own description.
    /// `open` is the innermost flow collection still open (its bracket).
    Syntax {
        at: Span,
        message: String,
        open: Option<(Span, char)>,
    },
    /// Nesting beyond `limit` levels (`None`: the scanner's own recursion
    /// guard fired first). Reading stops there.
    TooDeep { at: Span, limit: Option<usize> },
    /// A second `---` document.
    SecondDocument { at: Span },
    /// An alias inside the collection it refers to.
    RecursiveAlias { at: Span },
    /// A mapping key that is a sequence or mapping.
    ComplexKey { at: Span },
    /// A key repeating an earlier key of the same mapping.
    DuplicateKey { at: Span, first: Span, key: String },
    /// A tag outside the YAML core schema (`!Ref`, `!!python/object`).
    UnsupportedTag { at: Span, tag: String },
    /// A core tag whose value does not fit it (`!!int abc`).
    TagMismatch { at: Span, value: String, tag: String },
    /// Aliases and merges would add more than the budget to the document
    /// (`nodes`, or `bytes` of scalars); `at` is the largest alias.
    AliasBudget { at: Span, max: usize, bytes: bool },
    /// The document is not a mapping (`found`: its type; `None` when empty).
    RootNotMapping { at: Span, found: Option<&'static str> },
}

impl YamlIssue {
    /// Where the issue is reported.
    pub fn span(&self) -> Span {
        match self {
            YamlIssue::Syntax { at, .. }
            | YamlIssue::TooDeep { at, .. }
            | YamlIssue::SecondDocument { at }
            | YamlIssue::RecursiveAlias { at }
            | YamlIssue::ComplexKey { at }
            | YamlIssue::DuplicateKey { at, .. }
            | YamlIssue::UnsupportedTag { at, .. }
            | YamlIssue::TagMismatch { at, .. }
            | YamlIssue::AliasBudget { at, .. }
            | YamlIssue::RootNotMapping { at, .. } => *at,
        }
    }

    /// Whether the issue cut the tree short: checking a partial tree would
    /// report keys as missing that are merely unread.
    pub fn truncates(&self) -> bool {
        matches!(self, YamlIssue::Syntax { .. } | YamlIssue::TooDeep { .. })
    }
}
