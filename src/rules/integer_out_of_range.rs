declare_rule! {
    /// ## What it checks
    /// Integers that do not fit in 64 bits (a signed 64-bit integer:
    /// −9223372036854775808 to 9223372036854775807), written anywhere in a
    /// YAML document — and, in an experiment config, integers beyond 2^53
    /// that Determined's master changes by reading them as 64-bit floats
    /// (`9007199254740993` becomes 9007199254740992; 9223372036854775807
    /// becomes 9223372036854775808, which no longer fits).
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
        let master = doc.tree.schema() == crate::yaml::Schema::Master;
        if let Some(root) = doc.tree.root() {
            big_integers(&doc.tree, root, master, &mut Vec::new(), &mut found, 0);
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
        for (path, node, rounded) in found {
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
            if let Rounding::To(rounded) = rounded {
                // Within 64 bits once rounded: accepted, but another number.
                out.at(
                    file,
                    doc.tree.span(node),
                    format!("Determined's master reads `{shown}` as {rounded}: it reads numbers as 64-bit floats, exact only to 2^53"),
                )
                .help("use a number of at most 9007199254740992, or quote it to keep the digits as a string")
                .severity(Severity::Warning);
                continue;
            }
            if !wants_integer && role != Role::Config {
                // Only the master rounds free-form numbers; another file's
                // reader says what it makes of one (an inventory's count).
                continue;
            }
            let message = match rounded {
                Rounding::Out => format!(
                    "Determined's master reads `{shown}` as 9223372036854775808 (it reads numbers as 64-bit floats), which does not fit in a 64-bit integer"
                ),
                _ => format!("`{shown}` does not fit in a 64-bit integer"),
            };
            if wants_integer {
                out.at(file, doc.tree.span(node), message)
                    .help("Determined's master reads numbers as 64-bit floats, exact up to 2^53: write a number of at most 9007199254740992 in size");
            } else {
                let message = match rounded {
                    Rounding::Out => format!("Determined's master reads `{shown}` as the float 9223372036854775808"),
                    _ => format!(
                        "`{shown}` does not fit in a 64-bit integer: Determined's master turns it into a rounded float"
                    ),
                };
                out.at(file, doc.tree.span(node), message)
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

/// An integer beyond 64 bits, or one the master (`master`) changes: its
/// path, its node and, when the master's rounding stays within 64 bits,
/// the number it becomes (aliases are not followed: each value is
/// reported where it is written).
type Found = (Vec<PathSeg>, NodeId, Rounding);

/// What the master does to an integer.
#[derive(Clone, Copy)]
enum Rounding {
    /// Written beyond 64 bits.
    Beyond,
    /// Within 64 bits as written, rounded beyond them (to 2^63).
    Out,
    /// Rounded to another number within 64 bits.
    To(i64),
}

fn big_integers(tree: &Tree, id: NodeId, master: bool, path: &mut Vec<PathSeg>, out: &mut Vec<Found>, depth: usize) {
    if depth > 256 {
        return;
    }
    match &tree.node(id).value {
        Value::BigInt(_) => out.push((path.clone(), id, Rounding::Beyond)),
        Value::Int(i) if master && i.unsigned_abs() > 1 << 53 => {
            let f = *i as f64;
            // 2^63 as a float: where rounding leaves the 64-bit range.
            if f >= 9_223_372_036_854_775_808.0 {
                out.push((path.clone(), id, Rounding::Out));
            } else if f as i64 != *i {
                out.push((path.clone(), id, Rounding::To(f as i64)));
            }
        }
        Value::Seq(items) => {
            for (i, &item) in items.iter().enumerate() {
                path.push(PathSeg::Index(i));
                big_integers(tree, item, master, path, out, depth + 1);
                path.pop();
            }
        }
        Value::Map(entries) => {
            for e in entries {
                path.push(PathSeg::Key(tree.key_text(e.key)));
                big_integers(tree, e.value, master, path, out, depth + 1);
                path.pop();
            }
        }
        _ => {}
    }
}
