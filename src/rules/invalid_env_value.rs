declare_rule! {
    /// ## What it checks
    /// The values of environment variables that decide reproducibility and
    /// failure handling: `CUBLAS_WORKSPACE_CONFIG` (`:4096:8` or `:16:8`),
    /// `PYTHONHASHSEED` (`random` or 0…4294967295), `PYTORCH_CUDA_ALLOC_CONF`
    /// (known `key:value` pairs: `max_split_size_mb` ≥ 20, `expandable_segments`
    /// `True`/`False`, …) and `TORCH_NCCL_ASYNC_ERROR_HANDLING` (0–3).
    ///
    /// ## Why
    /// PyTorch raises at startup on unknown allocator keys and, in deterministic
    /// mode, on other cuBLAS workspace settings — on every rank, after the job was
    /// scheduled. A wrong `PYTHONHASHSEED` is ignored by Python with a fatal error.
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   environment_variables:
    ///     - CUBLAS_WORKSPACE_CONFIG=:4096:2        # error
    ///     - PYTORCH_CUDA_ALLOC_CONF=expandable_segments:true   # error: `True`
    /// ```
    pub static INVALID_ENV_VALUE = {
        code: "E101",
        name: "invalid-env-value",
        family: Environment,
        severity: Error,
        summary: "An environment variable PyTorch reads has an invalid value",
    };
}

use super::{Cx, Sink};
use crate::envvars;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(config), Some(settings)) = (cx.config(), cx.settings()) else {
        return;
    };
    for e in &settings.environment_variables {
        if let Some(why) = envvars::invalid_reason(&e.name, &e.value) {
            out.at(config.file, config.value_span(&e.path), format!("`{}`: {why}", e.name));
        }
    }
}
