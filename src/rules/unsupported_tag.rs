declare_rule! {
    /// ## What it checks
    /// That explicit tags are YAML 1.2 core-schema tags (`!!str`, `!!int`,
    /// `!!float`, `!!bool`, `!!null`, `!!map`, `!!seq`) and that the value
    /// fits its tag.
    ///
    /// ## Why
    /// Determined's CLI uses ruamel.yaml's safe loader, which refuses
    /// application tags such as `!python/object`.
    ///
    /// ## Example
    /// ```yaml
    /// max_restarts: !!int five   # error: not an integer
    /// data: !include data.yaml   # error: unknown tag
    /// ```
    pub static UNSUPPORTED_TAG = {
        code: "Y009",
        name: "unsupported-tag",
        family: Yaml,
        severity: Error,
        summary: "An explicit YAML tag is unknown or does not fit its value",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            match issue {
                YamlIssue::UnsupportedTag { at, tag } => {
                    out.at(file, *at, format!("unsupported tag `{tag}`")).help(
                        "Determined's CLI loads configs with ruamel.yaml's safe loader, which accepts only the YAML core tags",
                    );
                }
                YamlIssue::TagMismatch { at, value, tag } => {
                    out.at(file, *at, format!("`{value}` is not a valid `!!{tag}`"))
                        .help("remove the tag or fix the value");
                }
                _ => {}
            }
        }
    }
}
