declare_rule! {
    /// ## What it checks
    /// That stagec can tell what the experiment's image provides: its CUDA
    /// and PyTorch versions, from the image's name (Determined's
    /// `determinedai/environments` and `pytorch-ngc` tags, NGC's
    /// `nvcr.io/nvidia/pytorch`, Docker Hub's `pytorch/pytorch`,
    /// `nvidia/cuda`) or from what the experiment states.
    ///
    /// ## Why
    /// The image checks — GPU architectures, dtypes, node drivers — need the
    /// image's versions. For a private or custom image, state them in the
    /// HPP block, and the checks run on what you state:
    ///
    /// ```yaml
    /// hyperparameters:
    ///   hpp_config:
    ///     image_provides: {cuda: "12.4", torch: "2.3", arch_list: ["8.0", "9.0"]}
    /// ```
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   image: registry.example.com/team/train:v7   # info: versions unknown
    /// ```
    pub static IMAGE_UNRESOLVED = {
        code: "R101",
        name: "image-unresolved",
        family: Runtime,
        severity: Info,
        summary: "stagec cannot tell which CUDA and PyTorch the image provides",
    };
}

use super::{Cx, Sink};
use crate::runtime::image::Unresolved;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some((runtime, loc)) = cx.image() else { return };
    let Err(why) = &runtime.facts else { return };
    let image = super::text::truncate(&runtime.reference);
    let message = match why {
        // `${VAR}`, or text that is no image name: the variable and schema
        // rules speak about it.
        Unresolved::NotAReference => return,
        Unresolved::NoTag => format!(
            "`{image}` has no tag (it means `:latest`, which moves): stagec cannot tell its CUDA and PyTorch, so the image checks are skipped"
        ),
        Unresolved::UnknownRepository(_) => format!(
            "stagec knows nothing of `{image}`'s CUDA and PyTorch: the image checks are skipped"
        ),
        Unresolved::UnknownTag(tag) => format!(
            "`{}` is not a tag stagec knows for this image: its CUDA and PyTorch are unknown and the image checks are skipped",
            super::text::truncate(tag)
        ),
    };
    out.at_loc(loc, message).help(
        "state what the image provides in `hyperparameters.hpp_config.image_provides`, e.g. `{cuda: \"12.4\", torch: \"2.3\"}` (what `python -c 'import torch; print(torch.version.cuda, torch.__version__)'` prints in it)",
    );
}
