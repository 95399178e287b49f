declare_rule! {
    /// ## What it checks
    /// That the value of every merge key (an unquoted `<<`) is a mapping, an
    /// alias to one, or a list of those.
    ///
    /// ## Why
    /// Determined's CLI (ruamel.yaml) refuses anything else with "expected a
    /// mapping or list of mappings for merging", and the master (yaml.v2)
    /// with "map merge requires map or sequence of maps as the value". The
    /// master also refuses an alias to a *list* of mappings, which ruamel
    /// accepts: write the list of aliases at the merge instead.
    ///
    /// A quoted `"<<"` is an ordinary key to both readers, not a merge.
    ///
    /// ## Example
    /// ```yaml
    /// defaults: &defaults [1, 2]
    /// resources:
    ///   <<: 5            # error: a number
    /// hyperparameters:
    ///   <<: *defaults    # error: an alias to a list
    /// ```
    pub static MERGE_VALUE = {
        code: "Y013",
        name: "merge-value",
        family: Yaml,
        severity: Error,
        summary: "A merge (`<<`) is given something other than mappings",
    };
}

use super::{Cx, Sink};
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for issue in &doc.issues {
            let YamlIssue::BadMerge {
                at,
                found,
                alias_to_list,
            } = issue
            else {
                continue;
            };
            if *alias_to_list {
                out.at(file, *at, "Determined's master cannot merge an alias to a list")
                    .help("list the aliases at the merge instead: `<<: [*first, *second]`");
            } else {
                out.at(file, *at, format!("a merge (`<<`) takes mappings, not {found}"))
                    .help("merge a mapping, an alias to one, or a list of those; quote the key (`\"<<\"`) if it is meant as a key");
            }
        }
    }
}
