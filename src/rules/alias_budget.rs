declare_rule! {
    /// ## What it checks
    /// That anchors and aliases (`&name` / `*name`, and `<<` merges) add a
    /// bounded amount to a document: at most 100,000 nodes and 16 MiB of
    /// text beyond what is written. A document without aliases is bounded
    /// by its file size alone.
    ///
    /// ## Why
    /// A few hundred bytes of nested aliases ("billion laughs") expand to
    /// billions of nodes, and a long string aliased a thousand times to
    /// gigabytes: either exhausts memory in any tool that loads them.
    /// stagec measures the expansion without performing it and stops with
    /// this error instead.
    ///
    /// ## Example
    /// ```yaml
    /// a: &a [x, x, x, x, x, x, x, x, x]
    /// b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
    /// c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    /// # ... each level multiplies the size by nine
    /// ```
    pub static ALIAS_BUDGET = {
        code: "Y003",
        name: "alias-budget",
        family: Yaml,
        severity: Error,
        summary: "Aliases expand beyond the document budget",
    };
}

use super::{Cx, Sink};
use crate::compiled::Role;
use crate::yaml::YamlIssue;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, role, doc) in cx.documents() {
        for issue in &doc.issues {
            match issue {
                YamlIssue::RecursiveAlias { at } => {
                    out.at(file, *at, "this alias refers to the collection that contains it")
                        .help("a recursive structure cannot be converted to JSON; copy the values instead");
                }
                YamlIssue::AliasBudget { at, max, bytes } => {
                    let what = if role == Role::Inventory {
                        "inventory"
                    } else {
                        "document"
                    };
                    let by = if *bytes {
                        format!("{} MiB of text", max / (1024 * 1024))
                    } else {
                        format!("{max} nodes")
                    };
                    out.at(file, *at, format!("aliases expand this {what} by more than {by}")).help(
                        "nested aliases multiply in size (a \"billion laughs\" document); stagec does not expand them",
                    );
                }
                _ => {}
            }
        }
    }
}
