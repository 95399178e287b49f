declare_rule! {
    /// ## What it checks
    /// Nothing wrong: it notes where the experiment sets a variable stagec's plan
    /// sets on every rank (`CUBLAS_WORKSPACE_CONFIG=:4096:8`, `PYTHONHASHSEED=0`,
    /// `PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512`,
    /// `TORCH_NCCL_ASYNC_ERROR_HANDLING=1`). The experiment's value is kept.
    ///
    /// ## Why
    /// So the plan's environment is never a surprise: the reproducibility
    /// defaults are deliberate, and replacing one is worth a second look.
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   environment_variables:
    ///     - PYTHONHASHSEED=42   # info: replaces stagec's PYTHONHASHSEED=0
    /// ```
    pub static ENV_OVERRIDES_DEFAULT = {
        code: "E103",
        name: "env-overrides-default",
        family: Environment,
        severity: Info,
        summary: "The experiment overrides one of stagec's environment defaults",
    };
}

use super::{Cx, Sink};
use crate::envvars;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(config), Some(settings)) = (cx.config(), cx.settings()) else {
        return;
    };
    for e in &settings.environment_variables {
        if !matches!(e.variant.as_deref(), None | Some("cuda")) {
            continue;
        }
        if let Some((_, ours, why)) = envvars::DEFAULTS.iter().find(|(k, v, _)| *k == e.name && *v != e.value) {
            out.at(
                config.file,
                config.value_span(&e.path),
                format!(
                    "`{}={}` replaces stagec's default `{}={ours}` ({why}); the experiment's value is kept",
                    e.name, e.value, e.name
                ),
            );
        }
    }
}
