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
        family: Hardware,
        severity: Error,
        summary: "No node layout can ever satisfy the request",
    };
}

use std::collections::BTreeMap;

use super::{path, Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(pipeline), Some(inv), Some(config), Some(settings)) =
        (cx.pipeline(), &cx.compiled.inventory, cx.config(), cx.settings())
    else {
        return;
    };
    let slots = i128::from(settings.slots_per_trial.count().unwrap_or(0));
    // Too few GPUs overall is already said per stage (P304).
    let shortfall_reported = pipeline.allocation.as_ref().is_some_and(|a| !a.missing.is_empty());
    let sizes: Vec<i128> = inv
        .nodes
        .iter()
        .map(|n| n.gpus.iter().map(|g| i128::from(g.count)).sum::<i128>())
        .filter(|c| *c > 0)
        .collect();
    let total: i128 = sizes.iter().sum();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let why = if slots > total {
        (!shortfall_reported).then(|| {
            format!(
                "the whole inventory has {total} schedulable GPU{}",
                if total == 1 { "" } else { "s" }
            )
        })
    } else if slots > largest {
        // Across nodes, Determined uses whole nodes of one size.
        let mut by_size: BTreeMap<i128, i128> = BTreeMap::new();
        for s in &sizes {
            *by_size.entry(*s).or_default() += 1;
        }
        let fits = by_size
            .iter()
            .any(|(size, count)| slots % size == 0 && slots / size <= *count);
        (!fits).then(|| {
            let options: Vec<String> = by_size.keys().map(|s| format!("a multiple of {s}")).collect();
            format!(
                "no node has {slots} GPUs (the largest has {largest}), and across nodes Determined only uses whole nodes: use at most {largest} or {}",
                options.join(" or ")
            )
        })
    } else {
        None
    };
    if let Some(why) = why {
        let at = path(&["resources", "slots_per_trial"]);
        out.at(
            config.file,
            config.value_span(&at),
            format!("`slots_per_trial: {slots}` can never be scheduled: {why}"),
        )
        .help("Determined would queue this experiment forever");
    }
}
