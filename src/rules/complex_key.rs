declare_rule! {
    /// ## What it checks
    /// That every mapping key is a scalar (a string, number or boolean).
    ///
    /// ## Why
    /// Configs become JSON on their way to Determined's master, and JSON
    /// object keys are strings; a sequence or mapping used as a key cannot be
    /// converted.
    ///
    /// ## Example
    /// ```yaml
    /// ? [a, b]
    /// : value   # error: a sequence as a key
    /// ```
    pub static COMPLEX_KEY = {
        code: "Y010",
        name: "complex-key",
        severity: Error,
        summary: "A mapping key is not a scalar",
    };
}
