declare_rule! {
    /// ## What it checks
    /// That an experiment with `hyperparameters.hpp_config` (or
    /// `resources.custom.stage_<N>_gpus`) has stage declarations in its context
    /// directory: classes decorated with `@stage_decorator` in the model's Python
    /// files, or a `stages.yaml`.
    ///
    /// ## Why
    /// Without them stagec cannot check the pipeline at all; usually the context
    /// directory or `--model` points at the wrong place.
    ///
    /// ## Example
    /// `stagec check configs/const.yaml` where the model lives in `src/`: pass
    /// `--context .` or `--model src/model.py`.
    pub static NO_STAGE_DECLARATIONS = {
        code: "P110",
        name: "no-stage-declarations",
        family: Stages,
        severity: Warning,
        summary: "The experiment configures a pipeline but no stage declarations were found",
    };
}

use super::{path, Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(searched), Some(config), Some(settings)) = (&cx.compiled.searched, cx.config(), cx.settings()) else {
        return;
    };
    let configures_pipeline = settings.has_hpp_config || !settings.stage_gpus.is_empty();
    if !cx.decls().is_empty() || !configures_pipeline {
        return;
    }
    let at = if settings.has_hpp_config {
        path(&["hyperparameters", "hpp_config"])
    } else {
        path(&["resources", "custom"])
    };
    out.at(
        config.file,
        config.key_span(&at),
        format!("the experiment configures a pipeline, but no stage declarations were found in {searched}"),
    )
    .help(
        "decorate the model's stage classes with `@stage_decorator(stage_id=…, device=…, dtype=…)`, add a `stages.yaml`, or point stagec at them with `--context DIR` / `--model FILE`",
    );
}
