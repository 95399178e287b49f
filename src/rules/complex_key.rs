declare_rule! {
    /// ## What it checks
    /// That every mapping key is a scalar (a string, number or boolean).
    ///
    /// ## Why
    /// Configs become JSON on their way to Determined's master, and JSON
    /// object keys are strings; a sequence or mapping used as a key cannot be
    /// converted.
    ///
    /// ## Example
    /// ```yaml
    /// ? [a, b]
    /// : value   # error: a sequence as a key
    /// ```
    pub static COMPLEX_KEY = {
        code: "Y010",
        name: "complex-key",
        family: Yaml,
        severity: Error,
        summary: "A mapping key is not a scalar",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            if let YamlIssue::ComplexKey { at } = issue {
                out.at(file, *at, "a mapping key must be a scalar")
                    .help("configs become JSON, whose object keys are strings");
            }
        }
    }
}
