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
        family: Hardware,
        severity: Warning,
        summary: "A stage's estimated memory is near or over its GPU's memory",
    };
}

use super::text::count;
use super::{Cx, Sink};
use crate::diagnostic::Severity;
use crate::hardware::catalog::{self, Gpu};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    for s in &pipeline.stages {
        let Some(params) = s.params else { continue };
        let variants: Vec<&'static Gpu> = s
            .gpu_types
            .iter()
            .flat_map(|t| catalog::resolve_quietly(t).resolution.variants())
            .collect();
        let Some(smallest) = variants.iter().min_by_key(|g| g.memory_bytes()) else {
            continue;
        };
        // Weights, gradients and Adam's two moments, with fp32 master
        // weights under mixed precision (ZeRO's accounting): 16 bytes per
        // parameter whatever the compute dtype (fp8 keeps high-precision
        // masters too).
        let bytes_per_param: u64 = 16;
        let need = params.saturating_mul(bytes_per_param);
        let have = smallest.memory_bytes();
        let share = need as f64 / have as f64;
        if share <= 0.9 {
            continue;
        }
        let severity = if share > 1.0 {
            Severity::Error
        } else {
            Severity::Warning
        };
        let message = format!(
            "stage {} (`{}`) needs about {:.1} GB for weights, gradients and Adam state ({} parameters × {bytes_per_param} bytes), {:.0}% of the {:.0} GB of {}",
            s.id,
            s.name,
            need as f64 / 1e9,
            count(params),
            share * 100.0,
            have as f64 / 1e9,
            smallest.name
        );
        out.at_loc(s.decl, message)
            .severity(severity)
            .help("activations come on top; split the stage, use a larger GPU, or shard optimizer state (ZeRO)");
    }
}
