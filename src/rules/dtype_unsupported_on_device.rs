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
        family: Devices,
        severity: Error,
        summary: "The device cannot run the stage's dtype natively",
    };
}

use super::{Cx, Sink};
use crate::dtype::DType;
use crate::edit;
use crate::hardware::catalog::{self, Gpu};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    for stage in &pipeline.stages {
        let Some(dtype) = stage.dtype else { continue };
        let id = stage.id;
        // The most limited GPU the stage may land on decides.
        let mut variants: Vec<&'static Gpu> = stage
            .gpu_types
            .iter()
            .flat_map(|t| catalog::resolve_quietly(t).resolution.variants())
            .collect();
        variants.sort_by_key(|g| (g.compute_capability, g.id.clone()));
        variants.dedup_by(|a, b| a.id == b.id);
        let Some(weakest) = variants.iter().find(|g| !dtype.runs_natively_on(g.compute_capability)) else {
            continue;
        };
        let (major, minor) = weakest.compute_capability;
        let need = dtype
            .min_compute_capability()
            .map_or(String::from("a CUDA GPU"), |(a, b)| {
                format!("compute capability {a}.{b}")
            });
        let able: Vec<String> = catalog::families()
            .into_iter()
            .filter(|(fam, _)| {
                catalog::family_variants(fam)
                    .iter()
                    .all(|g| dtype.runs_natively_on(g.compute_capability))
            })
            .map(|(fam, _)| fam.to_string())
            .collect();
        let fallback = [DType::Bf16, DType::Fp16, DType::Fp32]
            .into_iter()
            .find(|d| d.runs_natively_on((major, minor)));
        let written = stage.dtype_written.as_ref();
        let shown = written.map_or_else(|| dtype.canonical_name().to_string(), |l| l.value.clone());
        let mut help = if able.is_empty() {
            format!("no catalog GPU runs `{shown}` natively")
        } else {
            format!(
                "GPUs that run `{}` natively: {}",
                dtype.canonical_name(),
                able.join(", ")
            )
        };
        if let Some(f) = fallback {
            help.push_str(&format!("; on {} use `{}`", weakest.family, f.canonical_name()));
        }
        let message = format!(
            "stage {id} runs `{shown}` on `{}`, but {} ({}, compute capability {major}.{minor}) cannot: it needs {need}",
            stage.gpu_types.join("`/`"),
            weakest.name,
            weakest.family
        );
        let target = written.map_or(stage.name_loc, |l| l.loc);
        let d = out.at_loc(target, message).help(help);
        if let (Some(l), Some(f)) = (written, fallback) {
            let replacement = if l.value.starts_with("torch.") {
                f.torch_name().unwrap_or(f.canonical_name())
            } else {
                f.canonical_name()
            };
            let text = cx.text(l.loc.file);
            d.fix(
                format!("Use `{replacement}`"),
                vec![edit::replace_string(
                    l.loc.file,
                    text,
                    l.loc.span,
                    &l.value,
                    replacement,
                )],
            );
        }
    }
}
