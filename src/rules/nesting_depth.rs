declare_rule! {
    /// ## What it checks
    /// That mappings and sequences nest at most 128 levels deep.
    ///
    /// ## Why
    /// No experiment config comes close; deeper nesting is a generated or
    /// hostile file, and unbounded depth exhausts the stack of recursive
    /// tools downstream. stagec stops reading below the limit and says where.
    ///
    /// ## Example
    /// ```yaml
    /// data: [[[[[[[[[[ ... 200 levels ... ]]]]]]]]]]
    /// ```
    pub static NESTING_DEPTH = {
        code: "Y004",
        name: "nesting-depth",
        family: Yaml,
        severity: Error,
        summary: "Mappings or sequences nest too deeply",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            if let YamlIssue::TooDeep { at, limit } = issue {
                let message = match limit {
                    Some(limit) => format!("nesting deeper than {limit} levels; stagec stops reading here"),
                    None => "nesting too deep; stagec stops reading here".to_string(),
                };
                out.at(file, *at, message)
                    .help("experiment configs nest a handful of levels; is this file generated?");
            }
        }
    }
}
