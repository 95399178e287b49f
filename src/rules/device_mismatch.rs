declare_rule! {
    /// ## What it checks
    /// That the device in a stage's decorator and the GPU types in its
    /// `resources.custom.stage_<N>_gpus` agree: `a100` is satisfied by `a100-40g`
    /// or `a100-80g`, but an `h100` entry for an `a100` stage is an error pointing
    /// at both places.
    ///
    /// ## Why
    /// The model was written and tuned (dtype, memory) for one GPU; the scheduler
    /// would place it on another.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   custom:
    ///     stage_1_gpus: [a100-80g]   # error: the decorator says device="h100"
    /// ```
    pub static DEVICE_MISMATCH = {
        code: "P203",
        name: "device-mismatch",
        family: Devices,
        severity: Error,
        summary: "A stage's decorator device and stage_<N>_gpus disagree",
    };
}

use super::{Cx, Sink};
use crate::hardware::catalog;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    for (id, listed, declared) in &pipeline.facts.disagreements {
        let declared_family = catalog::resolve_quietly(&declared.value).resolution.family();
        let same_family = declared_family == catalog::resolve_quietly(&listed.value).resolution.family();
        let what = if same_family {
            "a different variant"
        } else {
            "a different GPU family"
        };
        out.at_loc(
            listed.loc,
            format!(
                "`stage_{id}_gpus` lists `{}`, {what} from the `{}` that stage {id} declares",
                listed.value, declared.value
            ),
        )
        .label(
            declared.loc.file,
            declared.loc.span,
            format!("stage {id} declares device `{}` here", declared.value),
        )
        .help(format!(
            "list GPU types of the declared family (`{}`), or change the declaration",
            declared_family.unwrap_or(&declared.value)
        ));
    }
}
