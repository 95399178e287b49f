declare_rule! {
    /// ## What it checks
    /// That the file is well-formed YAML: indentation, quoting, brackets and
    /// block structure.
    ///
    /// ## Why
    /// Determined's CLI refuses a config it cannot parse, and every later
    /// check needs the parsed tree. stagec reports the first syntax error with
    /// its position and checks whatever it could read before it.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: [8     # unclosed flow sequence
    /// ```
    pub static YAML_SYNTAX = {
        code: "Y001",
        name: "yaml-syntax",
        family: Yaml,
        severity: Error,
        summary: "The file is not well-formed YAML",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            if let YamlIssue::Syntax { at, message, open } = issue {
                let d = out.at(file, *at, format!("invalid YAML: {message}"));
                if let Some((span, bracket)) = open {
                    d.label(file, *span, format!("inside the `{bracket}` opened here"));
                }
            }
        }
    }
}
