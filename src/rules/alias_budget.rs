declare_rule! {
    /// ## What it checks
    /// That anchors and aliases (`&name` / `*name`, and `<<` merges) expand
    /// to a document of bounded size (at most 100,000 nodes once expanded).
    ///
    /// ## Why
    /// A few hundred bytes of nested aliases ("billion laughs") expand to
    /// billions of nodes and exhaust memory in any tool that loads them.
    /// stagec measures the expansion without performing it and stops with
    /// this error instead.
    ///
    /// ## Example
    /// ```yaml
    /// a: &a [x, x, x, x, x, x, x, x, x]
    /// b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
    /// c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    /// # ... each level multiplies the size by nine
    /// ```
    pub static ALIAS_BUDGET = {
        code: "Y003",
        name: "alias-budget",
        severity: Error,
        summary: "Aliases expand beyond the document budget",
    };
}
