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
        severity: Error,
        summary: "A stage's decorator device and stage_<N>_gpus disagree",
    };
}
