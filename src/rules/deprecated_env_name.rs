declare_rule! {
    /// ## What it checks
    /// NCCL settings under the names PyTorch 2.2 replaced with `TORCH_`-prefixed
    /// ones: `NCCL_ASYNC_ERROR_HANDLING`, `NCCL_BLOCKING_WAIT`,
    /// `NCCL_DESYNC_DEBUG`, `NCCL_ENABLE_TIMING`, `ENABLE_NCCL_HEALTH_CHECK`.
    ///
    /// ## Why
    /// The old names still work with a deprecation warning today and will stop
    /// working; configs written for PyTorch 2.1 and earlier still carry
    /// `NCCL_ASYNC_ERROR_HANDLING=1`.
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
        family: Environment,
        severity: Warning,
        summary: "An environment variable uses a name PyTorch renamed",
    };
}

use super::{Cx, Sink};
use crate::edit;
use crate::envvars;
use crate::source::Span;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(config), Some(settings)) = (cx.config(), cx.settings()) else {
        return;
    };
    for e in &settings.environment_variables {
        let Some((_, new)) = envvars::RENAMED.iter().find(|(old, _)| *old == e.name) else {
            continue;
        };
        let span = config.value_span(&e.path);
        // The name starts the scalar, after an opening quote if any.
        let quoted = matches!(config.text.get(span.start..span.start + 1), Some("\"" | "'"));
        let start = span.start + usize::from(quoted);
        let name_span = Span::new(start, start + e.name.len());
        let exact = config.text.get(name_span.start..name_span.end) == Some(e.name.as_str());
        let d = out
            .at(
                config.file,
                span,
                format!(
                    "`{}` was renamed `{new}` in PyTorch 2.2; the old name is deprecated",
                    e.name
                ),
            )
            .help(format!("use `{new}={}`", e.value));
        if exact {
            d.fix(
                format!("Rename to `{new}`"),
                vec![edit::replace(config.file, name_span, *new)],
            );
        }
    }
}
