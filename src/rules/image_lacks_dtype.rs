declare_rule! {
    /// ## What it checks
    /// That the PyTorch in the experiment's image has the dtype each stage
    /// declares: `float8_e4m3fn` and `float8_e5m2` arrived in PyTorch 2.1,
    /// the `fnuz` variants in 2.2, `float8_e8m0fnu` in 2.7,
    /// `float4_e2m1fn_x2` in 2.8.
    ///
    /// ## Why
    /// `torch.float8_e4m3fn` does not exist in PyTorch 1.13: the stage's
    /// module fails with an `AttributeError` when the model is built, on
    /// every rank of the stage.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)
    /// ```
    /// with `environment.image: determinedai/environments:py-3.9-pt-1.13-cu117`
    /// is an error: PyTorch 1.13 has no float8 dtypes.
    pub static IMAGE_LACKS_DTYPE = {
        code: "R104",
        name: "image-lacks-dtype",
        family: Runtime,
        severity: Error,
        summary: "The image's PyTorch does not have a stage's dtype",
    };
}

use super::{Cx, Sink};
use crate::runtime::compat::torch_for_dtype;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some((runtime, loc)) = cx.image() else { return };
    let Ok(facts) = &runtime.facts else { return };
    let Some(torch) = facts.torch else { return };
    let Some(pipeline) = cx.pipeline() else { return };
    let image = super::text::truncate(&runtime.reference);
    // Computed only when something is wrong: it resolves every known image.
    let suggestion = std::cell::OnceCell::new();
    for stage in &pipeline.stages {
        let Some(dtype) = stage.dtype else { continue };
        let Some(first) = torch_for_dtype(dtype) else { continue };
        if torch >= first {
            continue;
        }
        let name = dtype.torch_name().unwrap_or("this dtype");
        let d = out.at_loc(
            loc,
            format!(
                "`{image}` has PyTorch {torch}, which has no `{name}` (new in PyTorch {first}): stage {} cannot be built",
                stage.id
            ),
        );
        let at = stage.dtype_written.as_ref().map_or(stage.name_loc, |w| w.loc);
        d.label(at.file, at.span, format!("stage {} declares `{name}`", stage.id));
        cx.advise_image(
            d,
            runtime,
            loc,
            suggestion.get_or_init(|| cx.image_suggestion(runtime)),
            || format!("use an image with PyTorch {first} or later"),
        );
    }
}
