declare_rule! {
    /// ## What it checks
    /// That every stage reaches the last stage (the pipeline's output) through
    /// the `inputs` edges.
    ///
    /// ## Why
    /// A stage whose output nobody consumes does work that never reaches the
    /// loss: its parameters get no gradients.
    ///
    /// ## Example
    /// ```yaml
    /// stages:
    ///   - {id: 0, name: enc_a, device: a100, dtype: bf16, inputs: []}
    ///   - {id: 1, name: enc_b, device: a100, dtype: bf16, inputs: []}
    ///   - {id: 2, name: head, device: a100, dtype: bf16, inputs: [0]}   # stage 1 leads nowhere
    /// ```
    pub static STAGE_NOT_REACHING_OUTPUT = {
        code: "P116",
        name: "stage-not-reaching-output",
        family: Stages,
        severity: Error,
        summary: "A stage does not lead to the last stage",
    };
}

use super::{Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    let Some(last) = pipeline.facts.last else { return };
    for &i in &pipeline.facts.dead_ends {
        let Some(d) = cx.decls().get(i) else { continue };
        out.at_loc(
            d.name.loc,
            format!(
                "stage {} (`{}`) does not lead to the last stage ({last}): its output is never used",
                d.id.value, d.name.value
            ),
        )
        .help(format!("add {} to the `inputs` of a later stage", d.id.value));
    }
}
