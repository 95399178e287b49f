declare_rule! {
    /// ## What it checks
    /// That the file holds a single YAML document.
    ///
    /// ## Why
    /// Determined reads one experiment per file; a second document after
    /// `---` would be silently ignored by some loaders and rejected by
    /// others.
    ///
    /// ## Example
    /// ```yaml
    /// name: a
    /// ---
    /// name: b   # error: second document
    /// ```
    pub static MULTIPLE_DOCUMENTS = {
        code: "Y007",
        name: "multiple-documents",
        family: Yaml,
        severity: Error,
        summary: "The file contains more than one YAML document",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            if let YamlIssue::SecondDocument { at } = issue {
                out.at(
                    file,
                    *at,
                    "a second YAML document starts here; an experiment config is one document",
                )
                .help("remove the `---` separator and everything after it, or move it to its own file");
            }
        }
    }
}
