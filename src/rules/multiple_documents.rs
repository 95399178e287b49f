declare_rule! {
    /// ## What it checks
    /// That the file holds a single YAML document.
    ///
    /// ## Why
    /// Determined reads one experiment per file; a second document after
    /// `---` would be silently ignored by some loaders and rejected by
    /// others.
    ///
    /// ## Example
    /// ```yaml
    /// name: a
    /// ---
    /// name: b   # error: second document
    /// ```
    pub static MULTIPLE_DOCUMENTS = {
        code: "Y007",
        name: "multiple-documents",
        severity: Error,
        summary: "The file contains more than one YAML document",
    };
}
