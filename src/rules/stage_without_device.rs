declare_rule! {
    /// ## What it checks
    /// That every stage has a GPU type: from its decorator's `device`, its
    /// `stages.yaml` entry, or `resources.custom.stage_<N>_gpus`.
    ///
    /// ## Why
    /// An undecorated submodule after the last decorated stage forms its own
    /// stage (a classifier head after the last decorated block, say); without
    /// `stage_<N>_gpus` nothing
    /// says where it runs.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   custom:
    ///     stage_0_gpus: [a100]
    ///     stage_1_gpus: [h100]
    ///     # error: stage 2 (`classifier`) has no device
    /// ```
    pub static STAGE_WITHOUT_DEVICE = {
        code: "P201",
        name: "stage-without-device",
        family: Devices,
        severity: Error,
        summary: "A stage has no device",
    };
}

use super::{Cx, Sink};
use crate::stages::DeclSource;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    for &i in &pipeline.facts.without_device {
        let Some(decl) = cx.decls().get(i) else { continue };
        let id = decl.id.value;
        let hint = match decl.source {
            DeclSource::Implicit => format!(
                "`{}` is an undecorated submodule after stage {}, so it forms stage {id}; give it GPUs with `resources.custom.stage_{id}_gpus`",
                decl.name.value,
                id.saturating_sub(1)
            ),
            _ => format!("set its device, or `resources.custom.stage_{id}_gpus`"),
        };
        out.at_loc(
            decl.name.loc,
            format!("stage {id} (`{}`) has no device", decl.name.value),
        )
        .help(hint);
    }
}
