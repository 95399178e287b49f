declare_rule! {
    /// ## What it checks
    /// That `slots_per_trial` can be placed on the inventory's nodes the way
    /// Determined schedules: on one node with enough GPUs, or across several nodes
    /// used whole. A request for more GPUs than the cluster has, or for a count
    /// that no combination of whole nodes adds up to, can never start.
    ///
    /// ## Why
    /// Determined queues such a trial forever instead of failing it.
    ///
    /// ## Example
    /// 12 slots on a cluster of 8-GPU nodes: one node is too small and two nodes
    /// make 16, so the trial never starts.
    pub static UNSATISFIABLE_REQUEST = {
        code: "P305",
        name: "unsatisfiable-request",
        severity: Error,
        summary: "No node layout can ever satisfy the request",
    };
}
