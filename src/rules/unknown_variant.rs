declare_rule! {
    /// ## What it checks
    /// That the key which selects a variant — a searcher's `name`, a
    /// hyperparameter's `type`, a checkpoint storage's `type` — names one
    /// that exists, and that the variant's own fields are valid.
    ///
    /// ## Why
    /// Generic JSON Schema tools report such mistakes as "not valid under any
    /// of the given schemas". stagec reads the selecting key first and then
    /// reports the errors of the variant it selects.
    ///
    /// ## Example
    /// ```yaml
    /// searcher:
    ///   name: bayesian   # error: one of single, random, grid, adaptive_asha, custom
    /// ```
    pub static UNKNOWN_VARIANT = {
        code: "C107",
        name: "unknown-variant",
        family: Schema,
        severity: Error,
        summary: "A tagged section names a variant that does not exist",
    };
}

use super::text::{backticked, plain, subject};
use super::{Cx, Sink};
use crate::edit;
use crate::schema::FindingKind;
use crate::suggest::nearest;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for f in &doc.findings {
            let FindingKind::UnknownVariant { found, names } = &f.kind else {
                continue;
            };
            let found = plain(found);
            let d = out.at(
                file,
                f.span,
                format!(
                    "unknown {} `{found}`: expected one of {}",
                    subject(&f.path),
                    backticked(names)
                ),
            );
            if let Some(best) = nearest(&found, names.iter().map(String::as_str)) {
                d.help(format!("did you mean `{best}`?")).fix(
                    format!("Replace with `{best}`"),
                    vec![edit::replace(file, f.span, best)],
                );
            }
        }
    }
}
