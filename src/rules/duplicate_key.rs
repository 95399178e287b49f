declare_rule! {
    /// ## What it checks
    /// That no mapping has the same key twice.
    ///
    /// ## Why
    /// Determined's CLI loads configs with ruamel.yaml (YAML 1.2), which
    /// rejects duplicate keys; other loaders silently keep the last value, so
    /// the same file means different things to different tools. The error
    /// points at the second occurrence and names the first.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: 8
    ///   slots_per_trial: 3   # error: duplicate key
    /// ```
    pub static DUPLICATE_KEY = {
        code: "Y002",
        name: "duplicate-key",
        severity: Error,
        summary: "A mapping key appears more than once",
    };
}
