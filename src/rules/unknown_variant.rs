declare_rule! {
    /// ## What it checks
    /// That the key which selects a variant — a searcher's `name`, a
    /// hyperparameter's `type`, a checkpoint storage's `type` — names one
    /// that exists, and that the variant's own fields are valid.
    ///
    /// ## Why
    /// Generic JSON Schema tools report such mistakes as "not valid under any
    /// of the given schemas". stagec reads the selecting key first and then
    /// reports the errors of the variant it selects.
    ///
    /// ## Example
    /// ```yaml
    /// searcher:
    ///   name: bayesian   # error: one of single, random, grid, adaptive_asha, custom
    /// ```
    pub static UNKNOWN_VARIANT = {
        code: "C107",
        name: "unknown-variant",
        severity: Error,
        summary: "A tagged section names a variant that does not exist",
    };
}
