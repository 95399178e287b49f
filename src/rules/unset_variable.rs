declare_rule! {
    /// ## What it checks
    /// That every `${VAR}` referenced without a default (`${VAR:-default}`)
    /// is set in the environment stagec runs in.
    ///
    /// ## Why
    /// `stagec plan` needs the value and fails when it is missing. `stagec
    /// check` only warns, because CI jobs that validate configs often do not
    /// hold the secrets the cluster will have. Values are never printed.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoint_storage:
    ///   secret_key: ${S3_SECRET_KEY}   # warning when S3_SECRET_KEY is unset
    /// ```
    pub static UNSET_VARIABLE = {
        code: "V302",
        name: "unset-variable",
        severity: Warning,
        summary: "A referenced environment variable is not set",
    };
}
