declare_rule! {
    /// ## What it checks
    /// That the experiment's image has code for the GPUs its stages run on:
    /// the PyTorch in the image is built for the stage GPU's architecture
    /// (`sm_90` for Hopper, `sm_100` for Blackwell), or carries PTX the
    /// driver can compile for it, and its CUDA is new enough to build for
    /// it at all (Hopper and Ada need CUDA 11.8, Blackwell 12.8).
    ///
    /// The architectures of a build come from the tables in
    /// `src/runtime/data/` (official pip and conda builds, NGC containers).
    /// Where the tables know the build's whole list, the verdict is definite:
    /// a GPU runs SASS of its own major version and an equal or lower minor
    /// (`sm_80` on an A10's 8.6), or PTX of its own or an older architecture,
    /// compiled by the driver (`compute_37` of a conda build on an H100, `9.0+PTX`
    /// of an NGC container on a B200); with neither it cannot run (an error),
    /// with either it is silent. The finding is a warning only where the
    /// tables do not know: the build is not known but its CUDA predates the
    /// architecture (a build with PTX of an older architecture could still
    /// run), the build's list is partial, or it carries PTX for an
    /// architecture the tables do not record.
    ///
    /// ## Why
    /// A PyTorch without code for the GPU fails at the first kernel with "no
    /// kernel image is available for execution on the device" — on the
    /// cluster, after scheduling. A stage that may run on several GPU types
    /// is reported as a warning when only some of them lack code.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   custom:
    ///     stage_1_gpus: [h100-80g]
    /// environment:
    ///   image: determinedai/environments:py-3.9-pt-1.13-cu117   # error: no sm_90
    /// ```
    pub static IMAGE_LACKS_GPU_CODE = {
        code: "R103",
        name: "image-lacks-gpu-code",
        family: Runtime,
        severity: Error,
        summary: "The image's PyTorch has no code for a stage's GPU",
    };
}

use super::{Cx, Sink};
use crate::diagnostic::Severity;
use crate::runtime::compat::{arch_name, arch_verdict, ArchVerdict};
use crate::runtime::Version;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some((runtime, loc)) = cx.image() else { return };
    let Ok(facts) = &runtime.facts else { return };
    if facts.accelerator != Some(crate::runtime::image::Accelerator::Cuda) {
        // A ROCm or CPU image is R106's.
        return;
    }
    let image = super::text::truncate(&runtime.reference);
    // Computed only when something is wrong: it resolves every known image.
    let suggestion = std::cell::OnceCell::new();
    for (stage, ccs) in cx.stage_architectures() {
        let verdicts: Vec<(&String, Version, ArchVerdict)> =
            ccs.iter().map(|(t, cc)| (t, *cc, arch_verdict(facts, *cc))).collect();
        let bad: Vec<&(&String, Version, ArchVerdict)> = verdicts
            .iter()
            .filter(|(_, _, v)| !matches!(v, ArchVerdict::Supported | ArchVerdict::Unknown))
            .collect();
        let Some(&&(gpu, cc, ref verdict)) = bad.first() else {
            continue;
        };
        let (arch, sm) = arch_name(cc).unwrap_or(("this architecture", ""));
        let sm = if sm.is_empty() {
            format!("sm_{}{}", cc.major(), cc.minor())
        } else {
            sm.to_string()
        };
        let why = match verdict {
            ArchVerdict::NotBuilt => {
                let list = facts.arch_list.as_ref();
                // The list is the whole build: say why PTX does not help.
                let ptx = list.map_or(String::new(), |l| {
                    let newer: Vec<String> = l
                        .archs
                        .iter()
                        .filter(|a| a.ptx)
                        .map(|a| format!("compute_{}{}", a.cc.major(), a.cc.minor()))
                        .collect();
                    if newer.is_empty() {
                        ", with no PTX the driver could compile for it".to_string()
                    } else {
                        format!(
                            ", and its PTX ({}) is for a newer architecture (the driver compiles PTX only for the same or a newer GPU)",
                            newer.join(", ")
                        )
                    }
                });
                let built = list.map_or(String::new(), |l| format!("{} is built for {}{ptx}", l.build, l.display()));
                let cuda = match (facts.cuda, crate::runtime::compat::cuda_for_arch(cc)) {
                    (Some(c), Some((first, _, _))) if c.major_minor() < first => {
                        format!(", and CUDA {c} predates {arch} ({sm} needs CUDA {first} or later)")
                    }
                    _ => String::new(),
                };
                format!("{built}{cuda}")
            }
            ArchVerdict::PtxUnrecorded => {
                let build = facts.arch_list.as_ref().map_or("its PyTorch", |l| l.build.as_str());
                format!(
                    "{build} has no {sm} code and carries PTX for an architecture the tables do not record: it runs only if that PTX is for {sm} or an older architecture"
                )
            }
            ArchVerdict::CudaTooOld { first } => format!(
                "its CUDA {} predates {arch} ({sm} needs CUDA {first} or later): only PTX of an older architecture could run, and the tables do not know whether its build carries any",
                facts.cuda.map(|c| c.to_string()).unwrap_or_default()
            ),
            ArchVerdict::CudaDropped { removed_in } => format!(
                "CUDA {removed_in} dropped {arch} and its CUDA is {}",
                facts.cuda.map(|c| c.to_string()).unwrap_or_default()
            ),
            ArchVerdict::Supported | ArchVerdict::Unknown => continue,
        };
        let all_bad = bad.len() == verdicts.len();
        let certain = matches!(verdict, ArchVerdict::NotBuilt);
        let message = if all_bad {
            format!(
                "`{image}` {} no code for stage {}'s `{gpu}` ({arch}, {sm}): {why}",
                if certain { "has" } else { "may have" },
                stage.id
            )
        } else {
            format!(
                "stage {} may be placed on `{gpu}` ({arch}, {sm}), for which `{image}` has no code: {why}",
                stage.id
            )
        };
        let d = out.at_loc(loc, message);
        d.label(
            stage.decl.file,
            stage.name_loc.span,
            format!("stage {} runs on `{}`", stage.id, stage.gpu_types.join("`, `")),
        );
        if !(all_bad && certain) {
            d.severity(Severity::Warning);
        }
        cx.advise_image(
            d,
            runtime,
            loc,
            suggestion.get_or_init(|| cx.image_suggestion(runtime)),
            || format!("use an image whose PyTorch is built for {sm}"),
        );
    }
}
