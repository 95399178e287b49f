declare_rule! {
    /// ## What it checks
    /// That the document is a mapping of keys to values.
    ///
    /// ## Why
    /// An experiment config (and a `stages.yaml`) is a mapping at the top
    /// level; an empty file, a list or a bare string is not a config.
    ///
    /// ## Example
    /// ```yaml
    /// - name: my-experiment   # error: a list, not a mapping
    /// ```
    pub static ROOT_NOT_MAPPING = {
        code: "Y008",
        name: "root-not-mapping",
        severity: Error,
        summary: "The document is not a mapping",
    };
}
