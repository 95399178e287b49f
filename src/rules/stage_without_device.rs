declare_rule! {
    /// ## What it checks
    /// That every stage has a GPU type: from its decorator's `device`, its
    /// `stages.yaml` entry, or `resources.custom.stage_<N>_gpus`.
    ///
    /// ## Why
    /// An undecorated submodule after the last decorated stage forms its own
    /// stage (the field notes' `classifier`); without `stage_<N>_gpus` nothing
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
        severity: Error,
        summary: "A stage has no device",
    };
}
