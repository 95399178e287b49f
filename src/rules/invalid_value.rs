declare_rule! {
    /// ## What it checks
    /// That values restricted to a fixed set (a checkpoint policy, a
    /// schedule, a gradient normalization mode, ...) are one of them.
    ///
    /// ## Why
    /// A misspelled choice is rejected late by Determined, or by the training
    /// code at startup on the cluster.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoint_policy: latest   # error: one of `best`, `all`, `none`
    /// ```
    pub static INVALID_VALUE = {
        code: "C104",
        name: "invalid-value",
        family: Schema,
        severity: Error,
        summary: "A value is not one of the allowed choices",
    };
}

use super::text::{backticked, holds_secret, plain, subject};
use super::{Cx, Sink};
use crate::edit;
use crate::schema::FindingKind;
use crate::suggest::nearest;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for f in &doc.findings {
            let FindingKind::InvalidValue { options, found } = &f.kind else {
                continue;
            };
            let names: Vec<String> = options.iter().filter(|o| !o.is_null()).map(plain).collect();
            let shown = if holds_secret(&f.path) {
                "…".into()
            } else {
                found.as_ref().map(plain).unwrap_or_default()
            };
            let message = if names.len() == 1 {
                format!("{} must be `{}`, found `{shown}`", subject(&f.path), names.join(""))
            } else {
                format!(
                    "{} must be one of {}, found `{shown}`",
                    subject(&f.path),
                    backticked(&names)
                )
            };
            let d = out.at(file, f.span, message);
            if let Some(best) = nearest(&shown, names.iter().map(String::as_str)) {
                d.help(format!("did you mean `{best}`?")).fix(
                    format!("Replace with `{best}`"),
                    vec![edit::replace(file, f.span, best)],
                );
            }
        }
    }
}
