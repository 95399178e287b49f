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
        severity: Warning,
        summary: "An inventory GPU does not resolve to a catalog entry",
    };
}
