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
use crate::compiled::Role;
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
        let index: Option<&SchemaIndex> = role.schema_index();
        let null = Json::Null;
        let json = doc.json.as_ref().unwrap_or(&null);
        for (path, node, rounded) in found {
            // A `stages.yaml` parameter count is P101's: it says how large a
            // count may be.
            if role == Role::Stages && matches!(path.last(), Some(PathSeg::Key(k)) if k == "params") {
                continue;
            }
            let hpp = matches!(path.get(1), Some(PathSeg::Key(k)) if k == "hpp_config");
            let wants_integer = if role == Role::Config
                && !hpp
                && matches!(path.first(), Some(PathSeg::Key(k)) if k == "hyperparameters")
            {
                // The master keeps hyperparameter values as they are
                // (interface{}); only a range's `count` and an `int`
                // range's bounds are integers to it. (stagec's own
                // `hpp_config` settings go by its schema.)
                hyperparameter_integer(&path, json)
            } else {
                index.is_none_or(|index| {
                    index
                        .schemas_at(&path, json)
                        .iter()
                        .any(|s| names_type(s.get("type"), "integer"))
                })
            };
            let written = cx
                .text(file)
                .get(doc.tree.span(node).start..doc.tree.span(node).end)
                .unwrap_or("");
            // A credential's value is never quoted, nor what it becomes.
            let secret = super::yaml11_scalar::overlaps(cx.compiled.secrets(file), doc.tree.span(node));
            let shown = if secret {
                "this credential's value (not shown)".to_string()
            } else {
                format!("`{}`", super::text::truncate(written))
            };
            // Lengths (`batches`, `records`, `epochs`) are unsigned 64-bit
            // to the master: what rounds to below 2^64 fits.
            let length = role == Role::Config
                && !matches!(path.first(), Some(PathSeg::Key(k)) if k == "hyperparameters")
                && matches!(path.last(), Some(PathSeg::Key(k)) if matches!(k.as_str(), "batches" | "records" | "epochs"));
            if length && !matches!(rounded, Rounding::To(_)) {
                let value = match doc.tree.value(node) {
                    Value::Int(i) => Some(*i as f64),
                    Value::BigInt(b) => b.parse::<f64>().ok(),
                    Value::Float(f) => Some(*f),
                    _ => None,
                };
                if value
                    .is_some_and(|f| (0.0..18_446_744_073_709_551_616.0).contains(&f) && f.fract() == 0.0 && f < 1e21)
                {
                    continue;
                }
            }
            if let Rounding::To(rounded) = rounded {
                // Within 64 bits once rounded: accepted, but another number.
                out.at(
                    file,
                    doc.tree.span(node),
                    if secret {
                        format!("Determined's master reads {shown} as another number: it reads numbers as 64-bit floats, exact only to 2^53")
                    } else {
                        format!("Determined's master reads {shown} as {rounded}: it reads numbers as 64-bit floats, exact only to 2^53")
                    },
                )
                .help("use a number of at most 9007199254740992, or quote it to keep the digits as a string")
                .severity(Severity::Warning);
                continue;
            }
            if matches!(rounded, Rounding::Exponent) {
                // A float where a float may be: nothing to say.
                if wants_integer {
                    out.at(
                        file,
                        doc.tree.span(node),
                        format!("Determined's master writes {shown} in exponent form (like `1e+21`), which its schema does not take as an integer"),
                    )
                    .help("Determined's master reads numbers as 64-bit floats, exact up to 2^53: write a number of at most 9007199254740992 in size");
                }
                continue;
            }
            if !wants_integer && role != Role::Config {
                // Only the master rounds free-form numbers; another file's
                // reader says what it makes of one (an inventory's count).
                continue;
            }
            let message = match rounded {
                Rounding::Out => format!(
                    "Determined's master reads {shown} as 9223372036854775808 (it reads numbers as 64-bit floats), which does not fit in a 64-bit integer"
                ),
                _ => format!("{shown} does not fit in a 64-bit integer"),
            };
            if wants_integer {
                out.at(file, doc.tree.span(node), message)
                    .help("Determined's master reads numbers as 64-bit floats, exact up to 2^53: write a number of at most 9007199254740992 in size");
            } else {
                let message = match rounded {
                    Rounding::Out => format!("Determined's master reads {shown} as the float 9223372036854775808"),
                    _ => format!(
                        "{shown} does not fit in a 64-bit integer: Determined's master turns it into a rounded float"
                    ),
                };
                out.at(file, doc.tree.span(node), message)
                    .help("quote it to keep the digits as a string, or use a smaller number")
                    .severity(Severity::Warning);
            }
        }
    }
}

/// Whether the master reads the hyperparameter value at `path` into an
/// integer: the `count` of a range, the `minval`/`maxval` of an `int` range.
fn hyperparameter_integer(path: &[PathSeg], json: &Json) -> bool {
    // A list of hyperparameters is one value to the master, whatever it holds.
    if path.iter().any(|s| matches!(s, PathSeg::Index(_))) {
        return false;
    }
    let Some((PathSeg::Key(last), parent)) = path.split_last() else {
        return false;
    };
    if last == "count" {
        return true;
    }
    if last != "minval" && last != "maxval" {
        return false;
    }
    let mut node = json;
    for seg in parent {
        let next = match seg {
            PathSeg::Key(k) => node.get(k.as_str()),
            PathSeg::Index(i) => node.get(*i),
        };
        match next {
            Some(n) => node = n,
            None => return false,
        }
    }
    node.get("type").and_then(Json::as_str) == Some("int")
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
    /// A whole number of at least 10^21, which the master's JSON writes
    /// with an exponent (`1e+21`): its validator takes no such number as an
    /// integer.
    Exponent,
    /// Rounded to another number within 64 bits.
    To(i64),
}

fn big_integers(tree: &Tree, id: NodeId, master: bool, path: &mut Vec<PathSeg>, out: &mut Vec<Found>, depth: usize) {
    if depth > 256 {
        return;
    }
    match &tree.node(id).value {
        Value::BigInt(_) => out.push((path.clone(), id, Rounding::Beyond)),
        Value::Float(f) if master && f.is_finite() && f.fract() == 0.0 && f.abs() >= 1e21 => {
            out.push((path.clone(), id, Rounding::Exponent))
        }
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
