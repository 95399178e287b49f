declare_rule! {
    /// ## What it checks
    /// Demand against supply: each stage needs data-parallel-degree GPUs of one
    /// of its acceptable types (in order of preference); stages sharing a type
    /// share its supply. A shortfall is reported at that stage's
    /// `stage_<N>_gpus`, naming what it needs and what the inventory has.
    ///
    /// ## Why
    /// Determined would queue the experiment until the GPUs appear — possibly
    /// forever.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: 6
    ///   custom:
    ///     stage_1_gpus: [h100-80g]   # error: needs 2, the inventory has 1 schedulable H100
    /// ```
    pub static GPU_SHORTFALL = {
        code: "P304",
        name: "gpu-shortfall",
        severity: Error,
        summary: "The inventory has too few GPUs of a stage's type",
    };
}
