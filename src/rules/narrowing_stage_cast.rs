declare_rule! {
    /// ## What it checks
    /// Each stage boundary where the dtype changes gets a cast. A cast that
    /// narrows the representable range (fp16, max 65504, into float8_e4m3fn, max
    /// 448) is reported at the receiving stage, with both ranges.
    ///
    /// ## Why
    /// Values beyond the narrower range become inf or NaN (e4m3fn has no inf:
    /// they turn into NaN) and the loss turns inf or NaN some steps later,
    /// far from the cause. Scale the
    /// activations into range before the boundary, or sanitise with
    /// `torch.nan_to_num` after the cast.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=0, device="a100", dtype=torch.float16)
    /// class Encoder(nn.Module): ...
    /// @stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)   # warning: 65504 → 448
    /// class Block(nn.Module): ...
    /// ```
    pub static NARROWING_STAGE_CAST = {
        code: "P206",
        name: "narrowing-stage-cast",
        family: Devices,
        severity: Warning,
        summary: "Activations are cast to a dtype with a smaller range between stages",
    };
}

use super::text::number;
use super::{Cx, Sink};
use crate::dtype::CastRisk;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    let stage = |id: i64| pipeline.stages.iter().find(|s| s.id == id);
    for b in &pipeline.boundaries {
        let CastRisk::RangeLoss { from_max, to_max } = b.risk else {
            continue;
        };
        let Some(to) = stage(b.to) else { continue };
        let target = to.dtype_written.as_ref().map_or(to.name_loc, |t| t.loc);
        let source = stage(b.from).and_then(|s| s.dtype_written.as_ref()).map(|t| t.loc);
        let overflow = if to_max < from_max {
            format!(
                "values beyond ±{} ({} reaches ±{}) become {}",
                number(to_max),
                b.from_dtype.canonical_name(),
                number(from_max),
                if b.to_dtype.has_inf() { "inf" } else { "NaN" }
            )
        } else {
            "small values underflow to zero".to_string()
        };
        let d = out
            .at_loc(
                target,
                format!(
                    "stage {} receives `{}` activations from stage {} as `{}`: {overflow}",
                    b.to,
                    b.from_dtype.canonical_name(),
                    b.from,
                    b.to_dtype.canonical_name()
                ),
            )
            .help(format!(
                "scale activations into ±{} before the boundary (per-tensor scaling), or sanitise after the cast with `torch.nan_to_num`",
                number(to_max)
            ));
        if let Some(src) = source {
            d.label(
                src.file,
                src.span,
                format!("stage {} produces `{}`", b.from, b.from_dtype.canonical_name()),
            );
        }
    }
}
