declare_rule! {
    /// ## What it checks
    /// How many diagnostics one file gets: at most 200 of one rule and
    /// 1,000 in all. The rest are counted, not listed: this diagnostic says
    /// how many were left out, and of which rule.
    ///
    /// ## Why
    /// A generated or corrupted file can produce hundreds of thousands of
    /// diagnostics (a mapping with 200,000 repeated keys), which no one reads
    /// and which cost a CI log, a SARIF upload or an editor hundreds of
    /// megabytes. The first ones show the pattern; fix them and check again.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   a: 1
    ///   a: 1      # repeated 200,000 times: 200 Y002 errors, then
    ///   a: 1      # "199,800 more Y002 diagnostics in this file are not shown"
    /// ```
    pub static DIAGNOSTICS_CAPPED = {
        code: "L001",
        name: "diagnostics-capped",
        family: Output,
        severity: Info,
        summary: "More diagnostics than stagec lists for one file",
    };
}

use super::{Cx, Sink};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::{FileId, Span};

/// Most diagnostics of one rule listed for one file.
pub const PER_RULE: usize = 200;
/// Most diagnostics listed for one file.
pub const PER_FILE: usize = 1_000;

/// Nothing to look at in the facts: the rule framework counts what it
/// leaves out and reports it through [`note`].
pub(crate) fn check(_: &Cx<'_>, _: &mut Sink<'_>) {}

/// The diagnostic saying that `left_out` more diagnostics (of rule `code`,
/// or of any rule when `None`) are not listed for `file`; as severe as the
/// worst of those that are.
pub(crate) fn note(file: FileId, left_out: usize, code: Option<&str>, severity: Severity) -> Diagnostic {
    let noun = if left_out == 1 { "diagnostic" } else { "diagnostics" };
    let what = match code {
        Some(code) => format!("{code} {noun}"),
        None => noun.to_string(),
    };
    let verb = if left_out == 1 { "is" } else { "are" };
    let mut d = Diagnostic::new(
        &DIAGNOSTICS_CAPPED,
        file,
        Span::at(0),
        format!("{left_out} more {what} in this file {verb} not shown"),
    );
    d.help(format!(
        "stagec lists at most {PER_RULE} diagnostics of one rule and {PER_FILE} in all for a file; fix these and check again"
    ))
    .severity(severity);
    d
}
