//! What the YAML layer found wrong, as plain data. The `Y…` rules turn
//! these into diagnostics (their messages live in the rule files).

use super::Value;
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
    /// A plain scalar Determined's master (YAML 1.1) reads as `master` and
    /// its CLI (YAML 1.2) as `cli`; `key` when it is a mapping key.
    Yaml11 {
        at: Span,
        master: Value,
        cli: Value,
        key: bool,
    },
    /// A merge (`<<`) whose value is not a mapping or a list of mappings
    /// (`found`: what it is). `alias_to_list`: an alias to a list, which
    /// ruamel merges and the master refuses.
    BadMerge {
        at: Span,
        found: &'static str,
        alias_to_list: bool,
    },
    /// A key written before a merge that also sets it: the master takes the
    /// merged value, ruamel this one. `merge` is the `<<` key.
    MergeOverride { at: Span, merge: Span, key: String },
    /// `.nan` or an infinity, which the master cannot turn into JSON.
    NonFinite { at: Span, written: String },
    /// A key the master cannot turn into a JSON key: null, or an integer
    /// beyond 64 bits (`written`: as written).
    UnsupportedKey { at: Span, written: String },
    /// A `%YAML` directive a reader refuses: the master reads only 1.1,
    /// the CLI only 1.x (`cli_refuses`).
    Version {
        at: Span,
        version: String,
        cli_refuses: bool,
    },
    /// A quoted scalar whose continuation lines are not indented past its
    /// key: YAML 1.2 forbids it, both of Determined's readers accept it and
    /// fold the lines. `at` is the first such line's indentation.
    UnderIndented { at: Span, lines: usize },
    /// A `\u` escape of a UTF-16 surrogate: `pair` is the character a
    /// high/low pair stands for (`None`: a lone surrogate).
    SurrogateEscape { at: Span, pair: Option<char> },
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
            | YamlIssue::RootNotMapping { at, .. }
            | YamlIssue::Yaml11 { at, .. }
            | YamlIssue::BadMerge { at, .. }
            | YamlIssue::MergeOverride { at, .. }
            | YamlIssue::NonFinite { at, .. }
            | YamlIssue::UnsupportedKey { at, .. }
            | YamlIssue::Version { at, .. }
            | YamlIssue::UnderIndented { at, .. }
            | YamlIssue::SurrogateEscape { at, .. } => *at,
        }
    }

    /// Moves every span through `f`.
    pub(crate) fn map_spans(&mut self, f: impl Fn(Span) -> Span) {
        match self {
            YamlIssue::Syntax { at, open, .. } => {
                *at = f(*at);
                if let Some((span, _)) = open {
                    *span = f(*span);
                }
            }
            YamlIssue::DuplicateKey { at, first, .. } => {
                *at = f(*at);
                *first = f(*first);
            }
            YamlIssue::MergeOverride { at, merge, .. } => {
                *at = f(*at);
                *merge = f(*merge);
            }
            YamlIssue::TooDeep { at, .. }
            | YamlIssue::SecondDocument { at }
            | YamlIssue::RecursiveAlias { at }
            | YamlIssue::ComplexKey { at }
            | YamlIssue::UnsupportedTag { at, .. }
            | YamlIssue::TagMismatch { at, .. }
            | YamlIssue::AliasBudget { at, .. }
            | YamlIssue::RootNotMapping { at, .. }
            | YamlIssue::Yaml11 { at, .. }
            | YamlIssue::BadMerge { at, .. }
            | YamlIssue::NonFinite { at, .. }
            | YamlIssue::UnsupportedKey { at, .. }
            | YamlIssue::Version { at, .. }
            | YamlIssue::UnderIndented { at, .. }
            | YamlIssue::SurrogateEscape { at, .. } => *at = f(*at),
        }
    }

    /// Whether the issue cut the tree short: checking a partial tree would
    /// report keys as missing that are merely unread.
    pub fn truncates(&self) -> bool {
        matches!(self, YamlIssue::Syntax { .. } | YamlIssue::TooDeep { .. })
    }
}
