declare_rule! {
    /// ## What it checks
    /// For every node of the inventory that states its NVIDIA driver
    /// (stagec's `driver`, GPU Feature Discovery's
    /// `nvidia.com/cuda.driver-version.*` or older `nvidia.com/cuda.driver.*`
    /// labels, nvidia-smi's `driver_version` column) and has GPUs a stage
    /// asks for: that the driver runs the experiment's image.
    ///
    /// A driver runs an image of CUDA M.m when it is at least that toolkit's
    /// minimum; below it, when it is at least the minor-version-compatibility
    /// floor of CUDA M (450.80.02 for 11.x, 525.60.13 for 12.x) and the
    /// image's PyTorch has code for the GPU; or through the forward-
    /// compatibility libraries NGC images carry, on data-center GPUs and the
    /// driver branches NVIDIA lists. Otherwise the node's GPUs are not
    /// counted as supply for the stages.
    ///
    /// ## Why
    /// "CUDA driver version is insufficient for CUDA runtime version" comes
    /// from the first rank that touches the GPU, after the whole job was
    /// scheduled — and only on the nodes with the old driver.
    ///
    /// ## Example
    /// A NodeList node labelled `nvidia.com/cuda.driver-version.full:
    /// 515.65.01` with an image of CUDA 12.1 (needs 530.30.02, or 525.60.13
    /// with minor-version compatibility): warning, its GPUs are not counted.
    pub static DRIVER_TOO_OLD = {
        code: "R105",
        name: "driver-too-old",
        family: Runtime,
        severity: Warning,
        summary: "A node's driver is too old for the experiment's image",
    };
}

use super::{Cx, Sink};
use crate::hardware::allocate::OldDriver;

/// Why a node's GPUs are left out, as R105 and the supply rules that
/// point at the node say it.
pub(crate) fn reason(old: &OldDriver) -> String {
    format!(
        "driver {} is older than {}, which CUDA {} in `{}` needs",
        old.driver,
        old.min,
        old.cuda.as_deref().unwrap_or_default(),
        old.image
    )
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(pipeline) = cx.pipeline() else { return };
    let Some(alloc) = &pipeline.allocation else { return };
    let serves_a_stage = |offered: &str| {
        pipeline
            .stages
            .iter()
            .any(|s| s.gpu_types.iter().any(|t| crate::hardware::catalog::serves(t, offered)))
    };
    // One finding per node, at its driver.
    let mut seen: Vec<&str> = Vec::new();
    for e in alloc.excluded.iter().filter(|e| serves_a_stage(&e.offered)) {
        if seen.contains(&e.node.as_str()) {
            continue;
        }
        seen.push(&e.node);
        let count: u32 = alloc
            .excluded
            .iter()
            .filter(|x| x.node == e.node && serves_a_stage(&x.offered))
            .map(|x| x.count)
            .sum();
        out.at_loc(
            e.at,
            format!(
                "node `{}`: {}; its {count} GPU{} are not counted for the stages",
                super::text::truncate(&e.node),
                reason(&e.reason),
                if count == 1 { "" } else { "s" }
            ),
        )
        .help("upgrade the node's driver, or use an image built for an older CUDA (see `stagec explain R105`)");
    }
}
