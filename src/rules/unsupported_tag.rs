declare_rule! {
    /// ## What it checks
    /// That explicit tags are YAML 1.2 core-schema tags (`!!str`, `!!int`,
    /// `!!float`, `!!bool`, `!!null`, `!!map`, `!!seq`) and that the value
    /// fits its tag.
    ///
    /// ## Why
    /// Determined's CLI uses ruamel.yaml's safe loader, which refuses
    /// application tags such as `!python/object`.
    ///
    /// ## Example
    /// ```yaml
    /// max_restarts: !!int five   # error: not an integer
    /// data: !include data.yaml   # error: unknown tag
    /// ```
    pub static UNSUPPORTED_TAG = {
        code: "Y009",
        name: "unsupported-tag",
        severity: Error,
        summary: "An explicit YAML tag is unknown or does not fit its value",
    };
}
