declare_rule! {
    /// ## What it checks
    /// That `resources.slots_per_trial` equals `pipeline_parallel_degree` ×
    /// data-parallel degree for a whole data-parallel degree of at least 1. The
    /// error lists the valid slot counts nearby and offers the nearest as a fix.
    ///
    /// ## Why
    /// Every data-parallel replica needs one GPU per stage. The field notes' 8
    /// slots for 3 stages leave 2 GPUs idle, or worse, make the launcher build
    /// uneven pipeline groups.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: 8   # error: with 3 stages, use 6 or 9
    /// ```
    pub static SLOTS_NOT_MULTIPLE_OF_STAGES = {
        code: "P118",
        name: "slots-not-multiple-of-stages",
        severity: Error,
        summary: "slots_per_trial is not a multiple of the pipeline degree",
    };
}
