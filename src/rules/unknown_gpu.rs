declare_rule! {
    /// ## What it checks
    /// That every GPU type (decorator `device`, `stage_<N>_gpus` entries,
    /// `stages.yaml` `device`) names a GPU stagec knows: short names (`a100`,
    /// `a100-40g`, `h100-80g`), driver names (`NVIDIA H100 80GB HBM3`) or GPU
    /// Feature Discovery labels (`NVIDIA-A100-SXM4-40GB`). The error lists the
    /// closest matches.
    ///
    /// ## Why
    /// An unknown type can never be scheduled, and its dtype support cannot be
    /// checked.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=1, device="h10", dtype=torch.bfloat16)   # error: did you mean h100?
    /// ```
    pub static UNKNOWN_GPU = {
        code: "P202",
        name: "unknown-gpu",
        severity: Error,
        summary: "A GPU type is not in the catalog",
    };
}
