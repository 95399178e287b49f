declare_rule! {
    /// ## What it checks
    /// That strings with a format follow it: memory sizes such as `4Gi`,
    /// bucket prefixes, and other patterns Determined enforces.
    ///
    /// ## Why
    /// Determined checks these patterns only on the master.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   shm_size: 4 gigs   # error: not a memory size
    /// ```
    pub static BAD_FORMAT = {
        code: "C106",
        name: "bad-format",
        severity: Error,
        summary: "A string does not have the required format",
    };
}
