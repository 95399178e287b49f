declare_rule! {
    /// ## What it checks
    /// Nothing: it says that stages were not matched against a cluster because
    /// no inventory was given (`--inventory FILE`).
    ///
    /// ## Why
    /// So a clean result is not mistaken for "this fits the cluster".
    ///
    /// ## Example
    /// `stagec check const.yaml` (add `--inventory nodes.json`, e.g. from
    /// `kubectl get nodes -o json`).
    pub static AVAILABILITY_NOT_CHECKED = {
        code: "P303",
        name: "availability-not-checked",
        severity: Info,
        summary: "Hardware availability was not checked",
    };
}
