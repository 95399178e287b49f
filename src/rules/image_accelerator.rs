declare_rule! {
    /// ## What it checks
    /// That the image the NVIDIA stages run in is a CUDA image: not a ROCm
    /// image (for AMD GPUs) and not a CPU image.
    ///
    /// ## Why
    /// Determined runs every GPU container of the experiment in
    /// `environment.image` (or its `cuda` member when it is a map). A ROCm
    /// or CPU build of PyTorch finds no CUDA device: the stages fail at
    /// start-up, or silently train on the CPU.
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   image: determinedai/environments:rocm-5.6-pytorch-1.3-tf-2.10-rocm-mpich-0736b6d   # error
    /// ```
    pub static IMAGE_ACCELERATOR = {
        code: "R106",
        name: "image-accelerator",
        family: Runtime,
        severity: Error,
        summary: "The NVIDIA stages' image is a ROCm or CPU image",
    };
}

use super::{Cx, Sink};
use crate::runtime::image::Accelerator;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some((runtime, loc)) = cx.image() else { return };
    let Ok(facts) = &runtime.facts else { return };
    let what = match facts.accelerator {
        Some(Accelerator::Rocm) => "a ROCm image, for AMD GPUs",
        Some(Accelerator::Cpu) => "a CPU image",
        _ => return,
    };
    let stages = cx.stage_architectures();
    let Some((first, _)) = stages.first() else { return };
    let d = out.at_loc(
        loc,
        format!(
            "`{}` is {what}, but the stages run on NVIDIA GPUs",
            super::text::truncate(&runtime.reference)
        ),
    );
    d.label(
        first.decl.file,
        first.name_loc.span,
        format!("stage {} runs on `{}`", first.id, first.gpu_types.join("`, `")),
    );
    let help = match (&runtime.source, cx.image_suggestion(runtime)) {
        (crate::runtime::ImageSource::Config { path }, Some((help, _))) if path.len() == 2 => {
            format!("{help}; or give one image per accelerator: `image: {{cuda: …, rocm: …}}`")
        }
        (_, Some((help, _))) => help,
        (_, None) => "use a CUDA image for the NVIDIA stages".to_string(),
    };
    d.help(help);
}
