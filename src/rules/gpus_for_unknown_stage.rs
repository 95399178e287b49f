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
        severity: Error,
        summary: "stage_<N>_gpus names a stage that does not exist",
    };
}
