declare_rule! {
    /// ## What it checks
    /// That every mapping key is a scalar (a string, number or boolean) and,
    /// in an experiment config, one Determined's master can write as a JSON
    /// key: not null (`~`, `null`, an empty key) and not an integer beyond
    /// 64 bits.
    ///
    /// ## Why
    /// Configs become JSON on their way to Determined's master, and JSON
    /// object keys are strings; a sequence or mapping used as a key cannot be
    /// converted, and the master's converter (ghodss/yaml) refuses null keys
    /// and unsigned 64-bit integers ("Unsupported map key").
    ///
    /// ## Example
    /// ```yaml
    /// ? [a, b]
    /// : value   # error: a sequence as a key
    /// hyperparameters:
    ///   ~: 1    # error: a null key
    /// ```
    pub static COMPLEX_KEY = {
        code: "Y010",
        name: "complex-key",
        family: Yaml,
        severity: Error,
        summary: "A mapping key is not a scalar, or not one JSON can hold",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            match issue {
                YamlIssue::ComplexKey { at } => {
                    out.at(file, *at, "a mapping key must be a scalar")
                        .help("configs become JSON, whose object keys are strings");
                }
                YamlIssue::UnsupportedKey { at, written } => {
                    let what = if written.trim().is_empty() {
                        "an empty key".to_string()
                    } else {
                        format!("the key `{}`", super::text::truncate(written))
                    };
                    out.at(file, *at, format!("Determined's master cannot convert {what} to JSON"))
                        .help("quote the key to make it a string");
                }
                _ => {}
            }
        }
    }
}
