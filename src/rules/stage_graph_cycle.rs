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
        family: Stages,
        severity: Error,
        summary: "Stage inputs form a cycle",
    };
}

use super::{Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    for (ids, closing) in &pipeline.facts.cycles {
        let shown = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(" → ");
        out.at_loc(*closing, format!("stage inputs form a cycle: {shown}"))
            .help("a stage can only take input from stages that run before it");
    }
}
