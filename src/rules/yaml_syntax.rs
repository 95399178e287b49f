declare_rule! {
    /// ## What it checks
    /// That the file is well-formed YAML: indentation, quoting, brackets and
    /// block structure.
    ///
    /// ## Why
    /// Determined's CLI refuses a config it cannot parse, and every later
    /// check needs the parsed tree. stagec reports the first syntax error with
    /// its position and checks whatever it could read before it.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: [8     # unclosed flow sequence
    /// ```
    pub static YAML_SYNTAX = {
        code: "Y001",
        name: "yaml-syntax",
        severity: Error,
        summary: "The file is not well-formed YAML",
    };
}
