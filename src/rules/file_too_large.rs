declare_rule! {
    /// ## What it checks
    /// That a config or stage file is at most 8 MiB.
    ///
    /// ## Why
    /// Experiment configs are a few kilobytes. A file of many megabytes is a
    /// data file or a log passed by mistake; stagec refuses to parse it rather
    /// than spend memory and time on it.
    ///
    /// ## Example
    /// `stagec check checkpoints/model.bin`
    pub static FILE_TOO_LARGE = {
        code: "Y005",
        name: "file-too-large",
        severity: Error,
        summary: "The file is larger than stagec reads",
    };
}
