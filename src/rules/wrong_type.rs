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
        severity: Error,
        summary: "A value has the wrong type",
    };
}
