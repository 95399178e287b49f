declare_rule! {
    /// ## What it checks
    /// That a stage's `params` in `stages.yaml` is a parameter count: a
    /// non-negative integer, or a number with a `K`, `M`, `B` or `T` suffix
    /// (`86M`, `1.3B`).
    ///
    /// ## Why
    /// stagec estimates each stage's memory from its parameter count; a count
    /// it cannot read would silently skip that check.
    ///
    /// ## Example
    /// ```yaml
    /// stages:
    ///   - id: 0
    ///     name: encoder
    ///     device: a100
    ///     dtype: bf16
    ///     params: 86 million   # error: write 86M
    /// ```
    pub static INVALID_PARAM_COUNT = {
        code: "P101",
        name: "invalid-param-count",
        severity: Error,
        summary: "A stage's `params` is not a parameter count",
    };
}
