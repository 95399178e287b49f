declare_rule! {
    /// ## What it checks
    /// That every GPU type (decorator `device`, `stage_<N>_gpus` entries,
    /// `stages.yaml` `device`) names a GPU stagec knows: short names (`a100`,
    /// `a100-40g`, `h100-80g`), driver names (`NVIDIA H100 80GB HBM3`) or GPU
    /// Feature Discovery labels (`NVIDIA-A100-SXM4-40GB`). The error lists the
    /// closest matches.
    ///
    /// ## Why
    /// An unknown type can never be scheduled, and its dtype support cannot be
    /// checked.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=1, device="h10", dtype=torch.bfloat16)   # error: did you mean h100?
    /// ```
    pub static UNKNOWN_GPU = {
        code: "P202",
        name: "unknown-gpu",
        family: Devices,
        severity: Error,
        summary: "A GPU type is not in the catalog",
    };
}

use super::text::did_you_mean;
use super::{Cx, Sink};
use crate::edit;
use crate::hardware::catalog::{self, Resolution};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    for name in &pipeline.facts.unknown_gpus {
        if out.full_for(name.loc.file) {
            continue;
        }
        let suggestions = match catalog::resolve(&name.value) {
            Resolution::Unknown { suggestions } => suggestions,
            _ => Vec::new(),
        };
        let d = out.at_loc(
            name.loc,
            format!("unknown GPU type `{}`", super::text::truncate(&name.value)),
        );
        if let (Some(best), Some(help)) = (suggestions.first(), did_you_mean(&suggestions)) {
            let text = cx.text(name.loc.file);
            let fix = edit::replace_string(name.loc.file, text, name.loc.span, &name.value, best);
            d.help(help).fix(format!("Replace with `{best}`"), vec![fix]);
        }
    }
}
