declare_rule! {
    /// ## What it checks
    /// That the stage's dtype runs natively on every GPU type the stage may be
    /// placed on: fp8 needs compute capability 8.9 or higher (L4, L40S, H100,
    /// H200, B200), bf16 and tf32 need 8.0 (A100 and later). The error names the
    /// GPUs that would do and a dtype that runs on this one.
    ///
    /// ## Why
    /// On older GPUs fp8 kernels raise at the first matmul, hours into a queued
    /// job, and bf16 falls back to slow emulation.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=1, device="a100", dtype=torch.float8_e4m3fn)   # error: A100 is sm_80
    /// ```
    pub static DTYPE_UNSUPPORTED_ON_DEVICE = {
        code: "P205",
        name: "dtype-unsupported-on-device",
        severity: Error,
        summary: "The device cannot run the stage's dtype natively",
    };
}
