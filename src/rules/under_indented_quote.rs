declare_rule! {
    /// ## What it checks
    /// Quoted values that continue on lines not indented past their key.
    ///
    /// ## Why
    /// YAML 1.2 forbids it, but both of Determined's readers — ruamel.yaml in
    /// the CLI and yaml.v2 in the master — accept such a value and fold its
    /// lines into one (each line break and the spaces around it become one
    /// space), so Determined runs these configs. Other tools (editors,
    /// linters, stricter parsers) refuse them, so stagec reads the value as
    /// Determined does and warns.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   target_arch: "[[32, 64],
    /// [128, 256]]"        # warning: read as "[[32, 64], [128, 256]]"
    /// ```
    pub static UNDER_INDENTED_QUOTE = {
        code: "Y017",
        name: "under-indented-quote",
        family: Yaml,
        severity: Warning,
        summary: "A quoted value continues on lines not indented past its key",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            if let YamlIssue::UnderIndented { at, lines } = issue {
                let what = if *lines == 1 {
                    "this line".to_string()
                } else {
                    format!("this line and {} more", lines - 1)
                };
                out.at(
                    file,
                    *at,
                    format!("{what} of a quoted value {} not indented past the value's key", if *lines == 1 { "is" } else { "are" }),
                )
                .help("Determined reads the lines folded into one; indent them past the key, or write the value on one line, so that every YAML reader agrees");
            }
        }
    }
}
