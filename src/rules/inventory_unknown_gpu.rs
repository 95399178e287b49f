declare_rule! {
    /// ## What it checks
    /// That every GPU an inventory lists resolves to an entry of stagec's GPU
    /// catalog (by product name, Feature Discovery label or short name).
    ///
    /// ## Why
    /// GPUs stagec cannot identify cannot be matched to a stage's
    /// `stage_<N>_gpus`, so they do not count as supply. The warning names the
    /// closest catalog entries.
    ///
    /// ## Example
    /// A node labelled `nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB-X`.
    pub static INVENTORY_UNKNOWN_GPU = {
        code: "P302",
        name: "inventory-unknown-gpu",
        family: Hardware,
        severity: Warning,
        summary: "An inventory GPU does not resolve to a catalog entry",
    };
}

use super::{Cx, Sink};
use crate::hardware::catalog::{self, Resolution};
use crate::hardware::inventory::{GpuSource, InventoryIssue, LABEL_GPU_TYPE, LABEL_PRODUCT, RESOURCE_GPU};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        for issue in &unit.inventory {
            match issue {
                InventoryIssue::UnknownGpu {
                    at,
                    label,
                    source,
                    count,
                } => {
                    if out.full_for(file) {
                        continue;
                    }
                    let suggestions = match catalog::resolve(label) {
                        Resolution::Unknown { suggestions } => suggestions,
                        _ => Vec::new(),
                    };
                    let gpus = if *count == 1 { "GPU does" } else { "GPUs do" };
                    let consequence = format!("Its {count} {gpus} not count as available.");
                    let help = match suggestions.as_slice() {
                        [] => format!(
                            "{consequence} Name the type as the GPU catalog does (e.g. `a100-40g`, `h100-sxm`, `NVIDIA-H100-80GB-HBM3`)."
                        ),
                        [one] => format!("did you mean `{one}`? {consequence}"),
                        [init @ .., last] => {
                            let init: Vec<String> = init.iter().map(|s| format!("`{s}`")).collect();
                            format!("did you mean {} or `{last}`? {consequence}", init.join(", "))
                        }
                    };
                    let source = match source {
                        GpuSource::Node(node) => format!("node `{node}`"),
                        GpuSource::Label(key, node) => format!("label `{key}` of node `{node}`"),
                        GpuSource::NvidiaSmi => "nvidia-smi".to_string(),
                    };
                    out.at(
                        file,
                        *at,
                        format!(
                            "GPU type `{}` ({source}) is not in stagec's GPU catalog",
                            super::text::truncate(label)
                        ),
                    )
                    .help(help);
                }
                InventoryIssue::UnlabelledGpus { at, node, count } => {
                    let (what, their) = if *count == 1 { ("GPU", "its") } else { ("GPUs", "their") };
                    out.at(
                        file,
                        *at,
                        format!("node `{node}` offers {count} `{RESOURCE_GPU}` but no label names {their} type"),
                    )
                    .help(format!(
                        "deploy GPU Feature Discovery (it sets `{LABEL_PRODUCT}`) or label the node: \
                         `kubectl label node {node} {LABEL_GPU_TYPE}=a100`; until then these {what} do not \
                         count as available"
                    ));
                }
                // What the reader could not read is P301's.
                InventoryIssue::NotAnInventory { .. }
                | InventoryIssue::BadCsvRow { .. }
                | InventoryIssue::BadCount { .. } => {}
            }
        }
    }
}
