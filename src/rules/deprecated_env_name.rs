declare_rule! {
    /// ## What it checks
    /// NCCL settings under the names PyTorch 2.2 replaced with `TORCH_`-prefixed
    /// ones: `NCCL_ASYNC_ERROR_HANDLING`, `NCCL_BLOCKING_WAIT`,
    /// `NCCL_DESYNC_DEBUG`, `NCCL_ENABLE_TIMING`, `ENABLE_NCCL_HEALTH_CHECK`.
    ///
    /// ## Why
    /// The old names still work with a deprecation warning today and will stop
    /// working; the field notes use the old `NCCL_ASYNC_ERROR_HANDLING=1`.
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   environment_variables:
    ///     - NCCL_ASYNC_ERROR_HANDLING=1   # warning: TORCH_NCCL_ASYNC_ERROR_HANDLING
    /// ```
    pub static DEPRECATED_ENV_NAME = {
        code: "E102",
        name: "deprecated-env-name",
        severity: Warning,
        summary: "An environment variable uses a name PyTorch renamed",
    };
}
