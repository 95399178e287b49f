declare_rule! {
    /// ## What it checks
    /// That no mapping has the same key twice.
    ///
    /// ## Why
    /// Determined's CLI loads configs with ruamel.yaml (YAML 1.2), which
    /// rejects duplicate keys; other loaders silently keep the last value, so
    /// the same file means different things to different tools. The error
    /// points at the second occurrence and names the first.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: 8
    ///   slots_per_trial: 3   # error: duplicate key
    /// ```
    pub static DUPLICATE_KEY = {
        code: "Y002",
        name: "duplicate-key",
        family: Yaml,
        severity: Error,
        summary: "A mapping key appears more than once",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            if let YamlIssue::DuplicateKey { at, first, key } = issue {
                out.at(file, *at, format!("duplicate key `{key}`"))
                    .label(file, *first, format!("`{key}` first defined here"))
                    .help("Determined's CLI (ruamel.yaml) rejects duplicate keys; keep one of them");
            }
        }
    }
}
