declare_rule! {
    /// ## What it checks
    /// That `--inventory FILE` is one of the formats stagec reads: its own
    /// inventory YAML (`nodes:` with GPU types and counts; schema in
    /// `schemas/inventory.schema.json`), a Kubernetes NodeList
    /// (`kubectl get nodes -o json`), or the CSV printed by
    /// `nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv`.
    ///
    /// ## Why
    /// Hardware availability is checked against the inventory; an inventory
    /// stagec cannot read must not pass as an empty cluster.
    ///
    /// ## Example
    /// `stagec check const.yaml --inventory nodes.txt` where `nodes.txt` is the
    /// plain-text output of `kubectl get nodes`.
    pub static INVENTORY_FORMAT = {
        code: "P301",
        name: "inventory-format",
        severity: Error,
        summary: "The inventory file is not in a format stagec reads",
    };
}
