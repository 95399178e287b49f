declare_rule! {
    /// ## What it checks
    /// That the stage graph built from `inputs` in `stages.yaml` is acyclic. The
    /// error names the cycle (e.g. `1 → 2 → 1`) at the `inputs` that close it.
    ///
    /// ## Why
    /// A pipeline stage can only run after the stages feeding it; a cycle
    /// deadlocks the first micro-batch.
    ///
    /// ## Example
    /// ```yaml
    /// stages:
    ///   - {id: 1, name: a, device: a100, dtype: bf16, inputs: [2]}
    ///   - {id: 2, name: b, device: a100, dtype: bf16, inputs: [1]}   # error: 1 → 2 → 1
    /// ```
    pub static STAGE_GRAPH_CYCLE = {
        code: "P114",
        name: "stage-graph-cycle",
        severity: Error,
        summary: "Stage inputs form a cycle",
    };
}
