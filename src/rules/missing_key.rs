declare_rule! {
    /// ## What it checks
    /// That mappings carry the keys Determined requires, such as `base` of a
    /// `log` hyperparameter or `bucket` of S3 checkpoint storage.
    ///
    /// ## Why
    /// Without them the master refuses the experiment after submission.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   lr:            # error: missing `base`
    ///     type: log
    ///     minval: -5
    ///     maxval: -2
    /// ```
    pub static MISSING_KEY = {
        code: "C103",
        name: "missing-key",
        family: Schema,
        severity: Error,
        summary: "A required key is missing",
    };
}

/// A value to propose when adding the missing key `name`: the schema's
/// default when it has one, else a conventional value for keys Determined
/// requires without a default.
pub fn proposed_value(name: &str, schema: Option<&serde_json::Value>) -> Option<String> {
    if let Some(default) = schema.and_then(|s| s.get("default")).filter(|d| !d.is_null()) {
        return match default {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Number(_) | serde_json::Value::Bool(_) => Some(default.to_string()),
            _ => None,
        };
    }
    match name {
        // A `log` hyperparameter's values are base^x; 10 is the common base.
        "base" => Some("10".into()),
        _ => None,
    }
}

use super::text::backticked;
use super::{Cx, Sink};
use crate::edit;
use crate::schema::FindingKind;
use crate::yaml::display_path;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for f in &doc.findings {
            let FindingKind::MissingKey {
                key,
                choices,
                description,
                schema,
            } = &f.kind
            else {
                continue;
            };
            let owner = if f.path.is_empty() {
                "the experiment".to_string()
            } else {
                format!("`{}`", display_path(&f.path))
            };
            let d = out.at(file, f.span, format!("{owner} is missing required key `{key}`"));
            if let Some(choices) = choices {
                d.help(format!("set `{key}` to one of {}", backticked(choices)));
            } else if let Some(desc) = description {
                d.help(format!("`{key}`: {desc}"));
            }
            let text = cx.text(file);
            let insert = proposed_value(key, schema.as_ref())
                .and_then(|value| edit::insert_entry(file, text, &doc.tree, &f.path, key, &value));
            if let Some(e) = insert {
                d.fix(format!("Add `{key}`"), vec![e]);
            }
        }
    }
}
