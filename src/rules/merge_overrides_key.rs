declare_rule! {
    /// ## What it checks
    /// Keys written before a merge (`<<`) in the same mapping that the merge
    /// sets too.
    ///
    /// ## Why
    /// The two readers of an experiment config disagree on them. ruamel.yaml
    /// (Determined's CLI) and the YAML merge specification keep the key
    /// written in the mapping; the master's reader (yaml.v2) applies a merge
    /// where it is written, so the merged value overrides every key above it
    /// (keys below it still override the merge). Determined runs the
    /// experiment with the merged value.
    ///
    /// ## Example
    /// ```yaml
    /// base: &base {max_restarts: 1}
    /// resources: {slots_per_trial: 2}
    /// retry:
    ///   max_restarts: 5   # warning: the master takes 1, from the merge
    ///   <<: *base
    /// ```
    pub static MERGE_OVERRIDES_KEY = {
        code: "Y014",
        name: "merge-overrides-key",
        family: Yaml,
        severity: Warning,
        summary: "A key written before a merge is overridden by it on Determined's master",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            let YamlIssue::MergeOverride { at, merge, key } = issue else {
                continue;
            };
            let key = super::text::truncate(key);
            out.at(
                file,
                *at,
                format!("`{key}` is set again by the merge below it: Determined's master uses the merged value"),
            )
            .label(
                file,
                *merge,
                "the master applies this merge here, over the keys above it",
            )
            .help("put `<<` first in the mapping: keys written after a merge override it for every reader");
        }
    }
}
