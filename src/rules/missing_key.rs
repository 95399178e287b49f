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
