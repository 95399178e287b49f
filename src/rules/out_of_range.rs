declare_rule! {
    /// ## What it checks
    /// Numeric bounds and sizes: minimums and maximums of numbers, and the
    /// number of items of lists.
    ///
    /// ## Why
    /// Values such as `slots_per_trial: 0` or `max_restarts: -1` are rejected
    /// by Determined after submission.
    ///
    /// ## Example
    /// ```yaml
    /// max_restarts: -1   # error: must be at least 0
    /// ```
    pub static OUT_OF_RANGE = {
        code: "C105",
        name: "out-of-range",
        severity: Error,
        summary: "A number or list size is out of range",
    };
}
