declare_rule! {
    /// ## What it checks
    /// That values restricted to a fixed set (a checkpoint policy, a
    /// schedule, a gradient normalization mode, ...) are one of them.
    ///
    /// ## Why
    /// A misspelled choice is rejected late by Determined, or by the training
    /// code at startup on the cluster.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoint_policy: latest   # error: one of `best`, `all`, `none`
    /// ```
    pub static INVALID_VALUE = {
        code: "C104",
        name: "invalid-value",
        severity: Error,
        summary: "A value is not one of the allowed choices",
    };
}
