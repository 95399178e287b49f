declare_rule! {
    /// ## What it checks
    /// Numeric bounds and sizes: minimums and maximums of numbers, and the
    /// number of items of lists.
    ///
    /// ## Why
    /// Values such as `max_restarts: -1` or `priority: 100` are rejected
    /// by Determined after submission.
    ///
    /// ## Example
    /// ```yaml
    /// max_restarts: -1   # error: must be at least 0
    /// ```
    pub static OUT_OF_RANGE = {
        code: "C105",
        name: "out-of-range",
        family: Schema,
        severity: Error,
        summary: "A number or list size is out of range",
    };
}

use serde_json::Value as Json;

use super::text::{holds_secret, json_kind, plural, short, subject};
use super::{Cx, Sink};
use crate::schema::{Bound, FindingKind};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for f in &doc.findings {
            let FindingKind::OutOfRange { bound, found } = &f.kind else {
                continue;
            };
            let subject = subject(&f.path);
            let rule = match bound {
                Bound::Minimum(limit) => format!("{subject} must be at least {limit}"),
                Bound::ExclusiveMinimum(limit) => format!("{subject} must be greater than {limit}"),
                Bound::Maximum(limit) => format!("{subject} must be at most {limit}"),
                Bound::ExclusiveMaximum(limit) => format!("{subject} must be less than {limit}"),
                Bound::MinItems(n) => format!("{subject} needs at least {n} item{}", plural(*n)),
                Bound::MaxItems(n) => format!("{subject} takes at most {n} item{}", plural(*n)),
                Bound::MinLength(n) => format!("{subject} needs at least {n} character{}", plural(*n)),
                Bound::MaxLength(n) => format!("{subject} takes at most {n} character{}", plural(*n)),
                Bound::MinProperties(n) => format!("{subject} needs at least {n} key{}", plural(*n)),
            };
            let shown = match found {
                Some(Json::Array(a)) => format!("{} item{}", a.len(), plural(a.len() as u64)),
                Some(Json::Object(o)) => format!("{} key{}", o.len(), plural(o.len() as u64)),
                Some(v) if holds_secret(&f.path) => json_kind(v).to_string(),
                Some(v) => short(v),
                None => String::new(),
            };
            out.at(file, f.span, format!("{rule}, found {shown}"));
        }
    }
}
