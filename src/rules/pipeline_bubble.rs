declare_rule! {
    /// ## What it checks
    /// The idle share of each step: (p−1)/(m+p−1) for GPipe and 1F1B, and
    /// (p−1)/(v·m+p−1) for interleaved schedules with v virtual stages. Above 15%
    /// it warns and names the micro-batch count that brings it under.
    ///
    /// ## Why
    /// The field notes measured a 22% bubble; at that rate a fifth of every GPU's
    /// time is spent waiting. More micro-batches (a smaller `micro_batch_size` or a
    /// larger `global_batch_size`) shrink it.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   global_batch_size: 48   # m = 3 with p = 3: bubble 40%
    /// ```
    pub static PIPELINE_BUBBLE = {
        code: "P121",
        name: "pipeline-bubble",
        severity: Warning,
        summary: "The pipeline bubble exceeds 15% of step time",
    };
}
