declare_rule! {
    /// ## What it checks
    /// That each value has the type Determined expects: an integer, number,
    /// string, boolean, list or mapping.
    ///
    /// ## Why
    /// Determined converts YAML to JSON and validates on the master, hours
    /// before or after the queue; its message carries no line number. YAML's
    /// quoting also makes `"8"` a string where `8` is an integer.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: "8"   # error: expects an integer, found a string
    /// ```
    pub static WRONG_TYPE = {
        code: "C102",
        name: "wrong-type",
        family: Schema,
        severity: Error,
        summary: "A value has the wrong type",
    };
}

use super::text::{describe, holds_secret, json_kind, json_type_phrase, subject};
use super::{Cx, Sink};
use crate::edit;
use crate::schema::FindingKind;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for f in &doc.findings {
            let FindingKind::WrongType { expected, found } = &f.kind else {
                continue;
            };
            let mut names: Vec<&str> = expected
                .iter()
                .map(|t| json_type_phrase(t))
                .filter(|t| *t != "null")
                .collect();
            names.dedup();
            if names.is_empty() {
                names.push("null");
            }
            // A plain scalar YAML 1.2 reads as something else: say what it
            // is to the master, and why.
            let yaml11 = doc.issues.iter().find_map(|i| match i {
                crate::yaml::YamlIssue::Yaml11 { at, cli, .. } if *at == f.span => Some(cli),
                _ => None,
            });
            let shown = match (found, yaml11) {
                (Some(v), _) if holds_secret(&f.path) => json_kind(v).to_string(),
                (Some(v), Some(crate::yaml::Value::Float(x))) if x.is_infinite() => {
                    format!(
                        "{}, a number beyond 64-bit floats that Determined's master reads as text",
                        describe_written(cx.text(file), f.span, v)
                    )
                }
                (Some(v), Some(_)) => format!("{} (as Determined's master reads YAML 1.1)", describe(v)),
                (Some(v), None) => describe(v),
                (None, _) => "nothing".into(),
            };
            let d = out.at(
                file,
                f.span,
                format!("{} expects {}, found {shown}", subject(&f.path), names.join(" or ")),
            );
            // A number in quotes: offer to unquote it.
            let raw = doc.tree.locate(&f.path).and_then(|l| doc.tree.as_str(l.node));
            if let Some(s) = raw {
                let numeric = names.iter().any(|n| n.contains("integer") || n.contains("number"));
                if numeric && s.trim().parse::<f64>().is_ok() {
                    d.help("remove the quotes: a quoted number is a string in YAML")
                        .fix("Remove the quotes", vec![edit::replace(file, f.span, s.trim())]);
                }
            }
        }
    }
}

/// `` `1e400` `` as written, else the value described.
fn describe_written(text: &str, span: crate::source::Span, v: &serde_json::Value) -> String {
    match text.get(span.start..span.end) {
        Some(w) if !w.is_empty() => format!("`{}`", super::text::truncate(w)),
        _ => describe(v),
    }
}
