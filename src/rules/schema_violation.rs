declare_rule! {
    /// ## What it checks
    /// Any other constraint of the experiment schema not covered by a more
    /// specific rule (for example a combination of keys that is not allowed).
    ///
    /// ## Why
    /// The generated schema encodes Determined's expconf v0; every
    /// violation would be rejected by the master.
    ///
    /// ## Example
    /// ```yaml
    /// searcher:
    ///   name: single
    ///   metric: loss
    ///   max_length: {batches: 10, epochs: 1}   # error: one unit only
    /// ```
    pub static SCHEMA_VIOLATION = {
        code: "C108",
        name: "schema-violation",
        severity: Error,
        summary: "The config violates the experiment schema",
    };
}
