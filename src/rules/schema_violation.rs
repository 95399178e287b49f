declare_rule! {
    /// ## What it checks
    /// Any other constraint of the experiment schema not covered by a more
    /// specific rule (for example a combination of keys that is not allowed).
    ///
    /// ## Why
    /// The generated schema encodes Determined's expconf v0; every
    /// violation would be rejected by the master.
    ///
    /// ## Example
    /// ```yaml
    /// searcher:
    ///   name: single
    ///   metric: loss
    ///   max_length: {batches: 10, epochs: 1}   # error: one unit only
    /// ```
    pub static SCHEMA_VIOLATION = {
        code: "C108",
        name: "schema-violation",
        family: Schema,
        severity: Error,
        summary: "The config violates the experiment schema",
    };
}

use super::text::{backticked, subject};
use super::{Cx, Sink};
use crate::schema::FindingKind;
use crate::stages::stages_yaml::StagesIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for f in &doc.findings {
            let subject = subject(&f.path);
            match &f.kind {
                FindingKind::Ambiguous => {
                    out.at(
                        file,
                        f.span,
                        format!("{subject} is ambiguous: it fits more than one of the allowed shapes"),
                    );
                }
                FindingKind::NotAllowed => {
                    out.at(
                        file,
                        f.span,
                        format!("{subject} has a value or combination of keys that is not allowed here"),
                    );
                }
                FindingKind::OneKeyUnion { keys } => {
                    let example = keys.first().map_or("batches", String::as_str);
                    out.at(
                        file,
                        f.span,
                        format!("{subject} must have exactly one key, one of {}", backticked(keys)),
                    )
                    .help(format!("for example `{example}: 100`"));
                }
                FindingKind::Other { detail } => {
                    out.at(file, f.span, format!("{subject}: {detail}"));
                }
                _ => {}
            }
        }
    }
    // `stages.yaml` values the schema let through but the reader cannot use.
    for (file, unit) in cx.units() {
        for issue in &unit.stages {
            match issue {
                StagesIssue::Unreadable {
                    entry,
                    key,
                    expected,
                    found,
                    at,
                } => {
                    out.at(
                        file,
                        *at,
                        format!("`stages[{entry}].{key}` expects {expected}, found {found}"),
                    );
                }
                StagesIssue::Missing { entry, key, at } => {
                    out.at(file, *at, format!("`stages[{entry}]` is missing required key `{key}`"));
                }
                StagesIssue::Params { .. } => {}
            }
        }
    }
}
