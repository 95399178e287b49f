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
        family: Hardware,
        severity: Info,
        summary: "Hardware availability was not checked",
    };
}

use super::{path, Cx, Sink};
use crate::compiled::Role;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(_), Some(config)) = (cx.pipeline(), cx.config()) else {
        return;
    };
    // An inventory that was given but could not be read is its own error.
    let given = cx.compiled.inventory.is_some() || cx.units().any(|(_, u)| u.role == Role::Inventory);
    if given {
        return;
    }
    out.at(
        config.file,
        config.key_span(&path(&["resources"])),
        "hardware availability not checked: no inventory given",
    )
    .help("pass `--inventory FILE` (stagec's inventory YAML, `kubectl get nodes -o json`, or nvidia-smi CSV)");
}
