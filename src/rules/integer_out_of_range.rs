declare_rule! {
    /// ## What it checks
    /// Integers that do not fit in 64 bits (a signed 64-bit integer:
    /// −9223372036854775808 to 9223372036854775807), written anywhere in a
    /// YAML document.
    ///
    /// ## Why
    /// Determined's CLI reads such a number fine, but the master converts the
    /// config to JSON through 64-bit floats: where the schema wants an integer
    /// (a count, an id, a stage setting) the experiment is rejected or, as a
    /// stage id or a pipeline degree, means nothing stagec could check; in a
    /// free-form value, such as a hyperparameter, the number silently becomes
    /// a rounded float. Either way it is not the number written.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   hpp_config:
    ///     pipeline_parallel_degree: 18446744073709551617   # error
    ///   seed: 99999999999999999999                          # warning: rounded
    /// ```
    pub static INTEGER_OUT_OF_RANGE = {
        code: "Y011",
        name: "integer-out-of-range",
        family: Yaml,
        severity: Error,
        summary: "An integer does not fit in 64 bits",
    };
}

use serde_json::Value as Json;

use super::{Cx, Sink};
use crate::compile::Role;
use crate::diagnostic::Severity;
use crate::schema::SchemaIndex;
use crate::yaml::{NodeId, PathSeg, Tree, Value};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, role, doc) in cx.documents() {
        let mut found = Vec::new();
        if let Some(root) = doc.tree.root() {
            big_integers(&doc.tree, root, &mut Vec::new(), &mut found, 0);
        }
        if found.is_empty() {
            continue;
        }
        let index: Option<&SchemaIndex> = match role {
            Role::Config => Some(crate::schema::experiment()),
            Role::Stages => Some(crate::stages::stages_yaml::stages_index()),
            Role::Inventory => Some(crate::hardware::inventory::inventory_index()),
            _ => None,
        };
        let null = Json::Null;
        let json = doc.json.as_ref().unwrap_or(&null);
        for (path, node) in found {
            // A `stages.yaml` parameter count is P101's: it says how large a
            // count may be.
            if role == Role::Stages && matches!(path.last(), Some(PathSeg::Key(k)) if k == "params") {
                continue;
            }
            let wants_integer = index.is_none_or(|index| {
                index
                    .schemas_at(&path, json)
                    .iter()
                    .any(|s| names_type(s.get("type"), "integer"))
            });
            let written = cx
                .text(file)
                .get(doc.tree.span(node).start..doc.tree.span(node).end)
                .unwrap_or("");
            let shown = super::text::truncate(written);
            if !wants_integer && role != Role::Config {
                // Only the master rounds free-form numbers; another file's
                // reader says what it makes of one (an inventory's count).
                continue;
            }
            if wants_integer {
                out.at(file, doc.tree.span(node), format!("`{shown}` does not fit in a 64-bit integer"))
                    .help("Determined's master reads numbers as 64-bit values; write a number between -9223372036854775808 and 9223372036854775807");
            } else {
                out.at(
                    file,
                    doc.tree.span(node),
                    format!(
                        "`{shown}` does not fit in a 64-bit integer: Determined's master turns it into a rounded float"
                    ),
                )
                .help("quote it to keep the digits as a string, or use a smaller number")
                .severity(Severity::Warning);
            }
        }
    }
}

/// Whether a schema's `type` (a name or a list of names) includes `name`.
fn names_type(t: Option<&Json>, name: &str) -> bool {
    match t {
        Some(Json::String(s)) => s == name,
        Some(Json::Array(items)) => items.iter().any(|i| i.as_str() == Some(name)),
        _ => false,
    }
}

/// Every integer beyond 64 bits written in the document, with its path
/// (aliases are not followed: each value is reported where it is written).
fn big_integers(tree: &Tree, id: NodeId, path: &mut Vec<PathSeg>, out: &mut Vec<(Vec<PathSeg>, NodeId)>, depth: usize) {
    if depth > 256 {
        return;
    }
    match &tree.node(id).value {
        Value::BigInt(_) => out.push((path.clone(), id)),
        Value::Seq(items) => {
            for (i, &item) in items.iter().enumerate() {
                path.push(PathSeg::Index(i));
                big_integers(tree, item, path, out, depth + 1);
                path.pop();
            }
        }
        Value::Map(entries) => {
            for e in entries {
                path.push(PathSeg::Key(tree.key_text(e.key)));
                big_integers(tree, e.value, path, out, depth + 1);
                path.pop();
            }
        }
        _ => {}
    }
}
