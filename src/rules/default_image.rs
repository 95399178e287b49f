declare_rule! {
    /// ## What it checks
    /// An experiment with GPU stages that sets no `environment.image` (or a
    /// map without a `cuda` image): which image Determined will run it in.
    ///
    /// ## Why
    /// Without an image Determined uses its default for the release the
    /// cluster runs — `determinedai/pytorch-ngc:<release>` since 0.34.0,
    /// older `determinedai/environments` images before — and what CUDA and
    /// PyTorch a stage gets changes with the cluster's upgrade. stagec checks
    /// the stages against the default of the release it targets and says
    /// which one that is; pin the image to make the run reproducible.
    ///
    /// ## Example
    /// ```yaml
    /// # no `environment.image`: info, Determined 0.38.1 uses
    /// # determinedai/pytorch-ngc:0.38.1 (CUDA 12.4, PyTorch 2.3)
    /// ```
    pub static DEFAULT_IMAGE = {
        code: "R102",
        name: "default-image",
        family: Runtime,
        severity: Info,
        summary: "No image is set: Determined's default image is used",
    };
}

use super::{Cx, Sink};
use crate::runtime::ImageSource;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some((runtime, loc)) = cx.image() else { return };
    let ImageSource::Default { determined } = &runtime.source else {
        return;
    };
    if cx.stage_architectures().is_empty() {
        return;
    }
    let provides = match &runtime.facts {
        Ok(facts) => format!(" ({})", facts.summary()),
        Err(_) => String::new(),
    };
    out.at_loc(
        loc,
        format!(
            "no `environment.image`: Determined {determined} runs the GPU stages in its default image `{}`{provides}",
            runtime.reference
        ),
    )
    .help(
        "set `environment.image` to pin the image, so a cluster upgrade does not change the stages' CUDA and PyTorch",
    );
}
