declare_rule! {
    /// ## What it checks
    /// That strings with a format follow it: memory sizes such as `4GiB` or `512M`,
    /// bucket prefixes, and other patterns Determined enforces.
    ///
    /// ## Why
    /// Determined checks these patterns only on the master.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   shm_size: 4 gigs   # error: not a memory size
    /// ```
    pub static BAD_FORMAT = {
        code: "C106",
        name: "bad-format",
        family: Schema,
        severity: Error,
        summary: "A string does not have the required format",
    };
}

use super::text::{holds_secret, short, subject};
use super::{Cx, Sink};
use crate::schema::FindingKind;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for f in &doc.findings {
            let FindingKind::BadFormat {
                pattern,
                found,
                description,
            } = &f.kind
            else {
                continue;
            };
            let shown = if holds_secret(&f.path) {
                "the value".to_string()
            } else {
                short(found)
            };
            let d = out.at(
                file,
                f.span,
                format!(
                    "{} has an invalid format: {shown} does not match `{pattern}`",
                    subject(&f.path)
                ),
            );
            if let Some(h) = description {
                d.help(h.clone());
            }
        }
    }
}
