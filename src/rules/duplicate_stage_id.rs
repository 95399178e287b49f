declare_rule! {
    /// ## What it checks
    /// That every stage id is declared once, across all model files and
    /// `stages.yaml`.
    ///
    /// ## Why
    /// Two classes decorated with the same `stage_id` are placed on the same
    /// pipeline rank; one silently overwrites the other in the stage registry.
    /// The error points at both declarations.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=1, device="h100", dtype=torch.bfloat16)
    /// class TransformerBlock(nn.Module): ...
    /// @stage_decorator(stage_id=1, device="h100", dtype=torch.bfloat16)   # error
    /// class Decoder(nn.Module): ...
    /// ```
    pub static DUPLICATE_STAGE_ID = {
        code: "P111",
        name: "duplicate-stage-id",
        family: Stages,
        severity: Error,
        summary: "Two declarations claim the same stage id",
    };
}

use super::{Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    let decls = cx.decls();
    for &(i, first) in &pipeline.facts.duplicates {
        let (Some(d), Some(first)) = (decls.get(i), decls.get(first)) else {
            continue;
        };
        let id = d.id.value;
        out.at_loc(
            d.id.loc,
            format!(
                "stage {id} is declared twice: by `{}` and by `{}`",
                first.name.value, d.name.value
            ),
        )
        .label(
            first.id.loc.file,
            first.id.loc.span,
            format!("stage {id} first declared here by `{}`", first.name.value),
        );
    }
}
