declare_rule! {
    /// ## What it checks
    /// That each stage's dtype is a known dtype name or alias: `torch.float16`,
    /// `half`, `fp16`, `torch.bfloat16`, `bf16`, `torch.float8_e4m3fn`,
    /// `torch.float8_e5m2`, `float32`, ….
    ///
    /// ## Why
    /// An unknown dtype fails at import time (`AttributeError: module 'torch'
    /// has no attribute …`), or is a typo for a dtype with different numerics.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=0, device="a100", dtype=torch.bfloat)   # error: did you mean torch.bfloat16?
    /// ```
    pub static UNKNOWN_STAGE_DTYPE = {
        code: "P204",
        name: "unknown-stage-dtype",
        family: Devices,
        severity: Error,
        summary: "A stage's dtype is not a known dtype",
    };
}

use super::text::did_you_mean;
use super::{Cx, Sink};
use crate::dtype;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    for (id, text) in &pipeline.facts.unknown_dtypes {
        let d = out.at_loc(
            text.loc,
            format!("unknown dtype `{}` for stage {id}", super::text::truncate(&text.value)),
        );
        if let Some(help) = did_you_mean(&dtype::suggest(&text.value)) {
            d.help(help);
        }
    }
}
