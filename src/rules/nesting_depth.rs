declare_rule! {
    /// ## What it checks
    /// That mappings and sequences nest at most 128 levels deep.
    ///
    /// ## Why
    /// No experiment config comes close; deeper nesting is a generated or
    /// hostile file, and unbounded depth exhausts the stack of recursive
    /// tools downstream. stagec stops reading below the limit and says where.
    ///
    /// ## Example
    /// ```yaml
    /// data: [[[[[[[[[[ ... 200 levels ... ]]]]]]]]]]
    /// ```
    pub static NESTING_DEPTH = {
        code: "Y004",
        name: "nesting-depth",
        severity: Error,
        summary: "Mappings or sequences nest too deeply",
    };
}
