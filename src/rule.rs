//! What a rule is, apart from what it checks: its code, name, family,
//! default severity and documentation, and `declare_rule!`, which states
//! them from a doc comment. A leaf: the diagnostic type, the rule registry
//! and every renderer read these without reaching the rules' checks.

use serde::Serialize;

/// How serious a diagnostic is.
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

/// The family a rule belongs to: what it is about, not its code's letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// The YAML text itself (`Y…`).
    Yaml,
    /// The experiment schema: keys, types, values (`C1…`).
    Schema,
    /// Determined's constraints beyond JSON Schema (`C2…`).
    Determined,
    /// Stage declarations and the pipeline's shape (`P1…`).
    Stages,
    /// Devices and dtypes of stages (`P2…`).
    Devices,
    /// Hardware inventories and supply (`P3…`).
    Hardware,
    /// Environment variables (`E…`).
    Environment,
    /// The container image, its CUDA and PyTorch, and node drivers (`R…`).
    Runtime,
    /// `${VAR}` references (`V…`).
    Variables,
    /// stagec's HPP extension (`H…`).
    Hpp,
    /// What stagec's output can hold (`L…`).
    Output,
    /// The experiment's training code (`T…`).
    Training,
}

/// A rule's identity and documentation.
#[derive(Debug)]
pub struct Rule {
    /// Stable code, e.g. `Y002`. Never reused.
    pub code: &'static str,
    /// Kebab-case name, e.g. `duplicate-key`.
    pub name: &'static str,
    pub family: Family,
    /// Default severity.
    pub severity: Severity,
    /// One line: what the rule reports.
    pub summary: &'static str,
    /// Markdown: what it checks, why, and an example (from the doc comment).
    pub explanation: &'static str,
}

/// Declares a rule from its doc comment and metadata.
macro_rules! declare_rule {
    (
        $(#[doc = $doc:expr])*
        pub static $id:ident = {
            code: $code:literal,
            name: $name:literal,
            family: $family:ident,
            severity: $severity:ident,
            summary: $summary:literal $(,)?
        };
    ) => {
        $(#[doc = $doc])*
        pub static $id: $crate::rule::Rule = $crate::rule::Rule {
            code: $code,
            name: $name,
            family: $crate::rule::Family::$family,
            severity: $crate::rule::Severity::$severity,
            summary: $summary,
            explanation: concat!($($doc, "\n"),*),
        };
    };
}
