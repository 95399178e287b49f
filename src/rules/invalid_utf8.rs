declare_rule! {
    /// ## What it checks
    /// That the file is UTF-8 text without NUL bytes.
    ///
    /// ## Why
    /// YAML and Python sources are text; Determined's CLI rejects other
    /// encodings. A binary file (an archive, a checkpoint) passed by mistake
    /// is reported at the first offending byte.
    ///
    /// ## Example
    /// A config saved as Latin-1 with `é` in a description.
    pub static INVALID_UTF8 = {
        code: "Y006",
        name: "invalid-utf8",
        severity: Error,
        summary: "The file is not UTF-8 text",
    };
}
