declare_rule! {
    /// ## What it checks
    /// Where a stage declares `params` (in `stages.yaml`), its static training
    /// memory: weights, gradients and Adam optimizer state — 16 bytes per
    /// parameter for fp32 or mixed precision with fp32 master weights (ZeRO's
    /// accounting), 8 for pure bf16 — against the memory of the smallest GPU it
    /// may run on. Above 90% it warns; above 100% it is an error. Activations are
    /// extra (activation checkpointing keeps only each layer's input).
    ///
    /// ## Why
    /// Out-of-memory errors surface only after the job is scheduled and the first
    /// step runs.
    ///
    /// ## Example
    /// ```yaml
    /// stages:
    ///   - {id: 0, name: big, device: a100-40g, dtype: bf16, params: 3B}   # 48 GB > 40 GB
    /// ```
    pub static STAGE_MEMORY = {
        code: "P306",
        name: "stage-memory",
        severity: Warning,
        summary: "A stage's estimated memory is near or over its GPU's memory",
    };
}
