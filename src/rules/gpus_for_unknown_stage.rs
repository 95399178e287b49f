declare_rule! {
    /// ## What it checks
    /// That every `resources.custom.stage_<N>_gpus` key refers to a declared
    /// stage.
    ///
    /// ## Why
    /// A GPU request for a stage that does not exist is a leftover from an older
    /// model layout or an off-by-one; the stage it was meant for gets no GPUs.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   custom:
    ///     stage_3_gpus: [h100]   # error: the model declares stages 0..2
    /// ```
    pub static GPUS_FOR_UNKNOWN_STAGE = {
        code: "P117",
        name: "gpus-for-unknown-stage",
        family: Stages,
        severity: Error,
        summary: "stage_<N>_gpus names a stage that does not exist",
    };
}

use super::text::numbers;
use super::{path, Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(pipeline), Some(config), Some(settings)) = (cx.pipeline(), cx.config(), cx.settings()) else {
        return;
    };
    let facts = &pipeline.facts;
    // With a gap in the ids the numbering itself is the mistake: no cascade.
    if !facts.contiguous {
        return;
    }
    for (k, g) in &settings.stage_gpus {
        if facts.ids.binary_search(k).is_ok() {
            continue;
        }
        let span = config.key_span(&path(&["resources", "custom", &g.key]));
        out.at(
            config.file,
            span,
            format!(
                "`stage_{k}_gpus` requests GPUs for stage {k}, but the model declares stages {}",
                numbers(&facts.ids)
            ),
        )
        .help("remove it, or renumber it to the stage it was meant for");
    }
}
