declare_rule! {
    /// ## What it checks
    /// That `hyperparameters.hpp_config.pipeline_parallel_degree` equals the number
    /// of declared stages (for every candidate value when it is searched).
    ///
    /// ## Why
    /// The pipeline degree decides how many ranks form one pipeline; with more
    /// stages than ranks some stage is never placed, with fewer some rank idles.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   hpp_config:
    ///     pipeline_parallel_degree: 2   # error: the model declares 3 stages
    /// ```
    pub static PIPELINE_DEGREE_MISMATCH = {
        code: "P113",
        name: "pipeline-degree-mismatch",
        severity: Error,
        summary: "pipeline_parallel_degree differs from the number of stages",
    };
}
