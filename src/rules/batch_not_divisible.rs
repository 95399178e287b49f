declare_rule! {
    /// ## What it checks
    /// When a `global_batch_size` hyperparameter exists: that it is divisible by
    /// data-parallel degree × `micro_batch_size` (Megatron's rule). The quotient
    /// is the number of micro-batches *m* per replica. Searched values are
    /// checked candidate by candidate; the failing ones are named.
    ///
    /// ## Why
    /// Otherwise the last micro-batch is ragged or samples are dropped silently,
    /// and every replica disagrees on the step size.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   global_batch_size: 100        # error with 2 replicas × micro_batch_size 8 = 16
    ///   hpp_config: {pipeline_parallel_degree: 3, micro_batch_size: 8}
    /// ```
    pub static BATCH_NOT_DIVISIBLE = {
        code: "P119",
        name: "batch-not-divisible",
        severity: Error,
        summary: "global_batch_size is not divisible by data-parallel degree × micro_batch_size",
    };
}
