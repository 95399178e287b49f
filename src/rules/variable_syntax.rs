declare_rule! {
    /// ## What it checks
    /// That `${VAR}` and `${VAR:-default}` references in string values are
    /// well-formed: a closing `}` and a name of letters, digits and `_` that
    /// does not start with a digit. Write `$${` for a literal `${`.
    ///
    /// ## Why
    /// stagec resolves these references when it writes a plan; a malformed
    /// one would reach the cluster as literal text, typically as a wrong
    /// bucket name or credential that fails hours later.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoint_storage:
    ///   type: s3
    ///   bucket: ${BUCKET        # error: missing `}`
    ///   secret_key: ${1SECRET}  # error: invalid name
    /// ```
    pub static VARIABLE_SYNTAX = {
        code: "V301",
        name: "variable-syntax",
        severity: Error,
        summary: "A `${VAR}` reference is malformed",
    };
}
