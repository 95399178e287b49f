declare_rule! {
    /// ## What it checks
    /// That the number of micro-batches *m* suits the schedule: 1F1B needs m ≥ p
    /// (the pipeline degree) to reach its steady state; interleaved 1F1B needs m
    /// to be a multiple of p.
    ///
    /// ## Why
    /// With fewer micro-batches than stages, 1F1B never overlaps forward and
    /// backward passes and the schedule degenerates; interleaved schedules assert
    /// on it at startup.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   global_batch_size: 16           # m = 16 / (1 × 8) = 2 micro-batches
    ///   hpp_config: {pipeline_parallel_degree: 3, micro_batch_size: 8, schedule: 1f1b}   # error: m < p
    /// ```
    pub static TOO_FEW_MICRO_BATCHES = {
        code: "P120",
        name: "too-few-micro-batches",
        severity: Error,
        summary: "The schedule needs more micro-batches",
    };
}
