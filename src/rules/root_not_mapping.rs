declare_rule! {
    /// ## What it checks
    /// That the document is a mapping of keys to values (for an experiment
    /// config, a non-empty one).
    ///
    /// ## Why
    /// An experiment config (and a `stages.yaml`) is a mapping at the top
    /// level; an empty file, a list or a bare string is not a config, and
    /// Determined's CLI refuses an empty mapping (`{}`) too.
    ///
    /// ## Example
    /// ```yaml
    /// - name: my-experiment   # error: a list, not a mapping
    /// ```
    pub static ROOT_NOT_MAPPING = {
        code: "Y008",
        name: "root-not-mapping",
        family: Yaml,
        severity: Error,
        summary: "The document is not a mapping",
    };
}

use super::{Cx, Sink};
use crate::compiled::Role;
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, role, doc) in cx.documents() {
        for issue in &doc.issues {
            if let YamlIssue::RootNotMapping { at, found } = issue {
                let message = match found {
                    Some(found) => format!("the document is {found}, not a mapping"),
                    None => "the document is empty".to_string(),
                };
                let help = match role {
                    Role::Stages => "a `stages.yaml` maps `stages` to a list of stages, each with `id`, `name`, `device` and `dtype`",
                    _ => "an experiment config maps keys such as `name`, `entrypoint` and `searcher` to values",
                };
                out.at(file, *at, message).help(help);
            }
        }
        // `{}`: a mapping, but Determined's CLI refuses an empty config.
        let empty = doc
            .json
            .as_ref()
            .and_then(serde_json::Value::as_object)
            .is_some_and(|m| m.is_empty());
        if role == Role::Config && empty {
            let at = doc.tree.root().map_or(crate::source::Span::at(0), |r| doc.tree.span(r));
            out.at(file, at, "the config is an empty mapping: Determined's CLI refuses it")
                .help("an experiment config maps keys such as `name`, `entrypoint` and `searcher` to values");
        }
    }
}
