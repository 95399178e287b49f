declare_rule! {
    /// ## What it checks
    /// Environment variables in `environment.environment_variables` that
    /// switch on a debugging or diagnostic mode of CUDA, NCCL or PyTorch on
    /// every rank: `CUDA_LAUNCH_BLOCKING=1` (every kernel launch
    /// synchronous), `NCCL_P2P_DISABLE=1`, `NCCL_IB_DISABLE=1`,
    /// `TORCH_DISTRIBUTED_DEBUG=DETAIL`, `PYTORCH_NO_CUDA_MEMORY_CACHING=1`,
    /// `TORCH_NCCL_ASYNC_ERROR_HANDLING=0`, and the others of
    /// `src/runtime/data/debug_env.json`, with what each does.
    ///
    /// ## Why
    /// These switches are for finding a bug, and they cost every step of a
    /// training run: a run with `CUDA_LAUNCH_BLOCKING=1` loses the overlap of
    /// CPU and GPU work on every rank; `NCCL_IB_DISABLE=1` moves collectives
    /// from InfiniBand to TCP. Settings that slow or change a run are
    /// warnings; logging switches are infos.
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   environment_variables:
    ///     - CUDA_LAUNCH_BLOCKING=1   # warning: every kernel launch synchronous
    /// ```
    pub static DEBUG_SWITCH = {
        code: "E104",
        name: "debug-switch",
        family: Environment,
        severity: Warning,
        summary: "An environment variable switches on a debugging mode on every rank",
    };
}

use super::{Cx, Sink};
use crate::diagnostic::Severity;
use crate::runtime::data;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(config), Some(settings)) = (cx.config(), cx.settings()) else {
        return;
    };
    for entry in &settings.environment_variables {
        let Some(row) = data::debug_env().iter().find(|r| {
            (r.name == entry.name || r.aliases.iter().any(|a| *a == entry.name))
                && (r.matches.any
                    || r.matches.values.iter().any(|v| {
                        if r.matches.case_insensitive {
                            v.eq_ignore_ascii_case(entry.value.trim())
                        } else {
                            v == entry.value.trim()
                        }
                    }))
        }) else {
            continue;
        };
        let shown = format!("{}={}", entry.name, super::text::truncate(&entry.value));
        let d = out.at(
            config.file,
            config.value_span(&entry.path),
            format!("`{shown}`: {}", row.effect),
        );
        d.help(match &row.note {
            Some(note) => format!("{note}; remove it from `environment_variables` unless you are debugging"),
            None => "remove it from `environment_variables` unless you are debugging".to_string(),
        });
        if row.severity == "info" {
            d.severity(Severity::Info);
        }
    }
}
