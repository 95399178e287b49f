declare_rule! {
    /// ## What it checks
    /// That every id in a stage's `inputs` is a declared stage other than itself.
    ///
    /// ## Why
    /// The stage would wait for activations nobody sends.
    ///
    /// ## Example
    /// ```yaml
    /// stages:
    ///   - {id: 0, name: enc, device: a100, dtype: bf16}
    ///   - {id: 1, name: head, device: a100, dtype: bf16, inputs: [5]}   # error
    /// ```
    pub static UNKNOWN_STAGE_INPUT = {
        code: "P115",
        name: "unknown-stage-input",
        family: Stages,
        severity: Error,
        summary: "A stage's inputs name a stage that does not exist",
    };
}

use super::{Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    for (id, input) in &pipeline.facts.bad_inputs {
        let why = if input.value == *id {
            "itself".to_string()
        } else {
            format!("stage {}, which is not declared", input.value)
        };
        out.at_loc(input.loc, format!("stage {id} takes input from {why}"))
            .help(format!("inputs name declared stages other than {id}"));
    }
}
