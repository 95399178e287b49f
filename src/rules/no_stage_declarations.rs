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
        severity: Warning,
        summary: "The experiment configures a pipeline but no stage declarations were found",
    };
}
