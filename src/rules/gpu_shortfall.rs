declare_rule! {
    /// ## What it checks
    /// Demand against supply: each stage needs data-parallel-degree GPUs of one
    /// of its acceptable types (in order of preference); stages sharing a type
    /// share its supply. A shortfall is reported at that stage's
    /// `stage_<N>_gpus`, naming what it needs and what the inventory has.
    ///
    /// ## Why
    /// Determined would queue the experiment until the GPUs appear — possibly
    /// forever.
    ///
    /// ## Example
    /// ```yaml
    /// resources:
    ///   slots_per_trial: 6
    ///   custom:
    ///     stage_1_gpus: [h100-80g]   # error: needs 2, the inventory has 1 schedulable H100
    /// ```
    pub static GPU_SHORTFALL = {
        code: "P304",
        name: "gpu-shortfall",
        family: Hardware,
        severity: Error,
        summary: "The inventory has too few GPUs of a stage's type",
    };
}

use super::{Cx, Sink};
use crate::hardware::catalog;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(pipeline), Some(inv)) = (cx.pipeline(), &cx.compiled.inventory) else {
        return;
    };
    let (Some(alloc), Some(dp)) = (&pipeline.allocation, pipeline.data_parallel) else {
        return;
    };
    for s in &pipeline.stages {
        if !alloc.missing.contains_key(&s.id) {
            continue;
        }
        let serves = |offered: &str| s.gpu_types.iter().any(|t| catalog::serves(t, offered));
        let have: u64 = alloc
            .pools
            .iter()
            .filter(|p| serves(&p.label))
            .map(|p| u64::from(p.total))
            .sum();
        let others: Vec<(i64, u32)> = alloc
            .taken
            .iter()
            .filter(|(id, _)| **id != s.id)
            .flat_map(|(id, takes)| takes.iter().filter(|t| serves(&t.offered)).map(move |t| (*id, t.count)))
            .collect();
        let shared = if others.is_empty() {
            String::new()
        } else {
            let used: u64 = others.iter().map(|(_, n)| u64::from(*n)).sum();
            let by: Vec<String> = others.iter().map(|(id, n)| format!("{n} to stage {id}")).collect();
            format!(", {used} of them already assigned ({})", by.join(", "))
        };
        let excluded: Vec<&crate::hardware::allocate::Excluded> =
            alloc.excluded.iter().filter(|e| serves(&e.offered)).collect();
        let not_counted = if excluded.is_empty() {
            String::new()
        } else {
            let n: u64 = excluded.iter().map(|e| u64::from(e.count)).sum();
            let nodes: Vec<&str> = excluded.iter().map(|e| e.node.as_str()).collect();
            format!(
                " usable ({n} more on {} not counted: the driver is too old for the image)",
                super::text::list_names(&nodes, 3)
            )
        };
        let types = s.gpu_types.join("`, `");
        let message = format!(
            "stage {} needs {dp} GPU{} of type `{types}` (one per data-parallel replica); the inventory has {have}{not_counted}{shared}",
            s.id,
            if dp == 1 { "" } else { "s" }
        );
        let loc = pipeline.facts.stage_gpus.get(&s.id).copied().unwrap_or(s.decl);
        let skipped = inv.skipped.len();
        let help = if skipped > 0 {
            format!(
                "{skipped} unschedulable node(s) were not counted; add GPUs of an acceptable type to `stage_{}_gpus`, or lower `slots_per_trial`",
                s.id
            )
        } else {
            format!(
                "add another acceptable GPU type to `stage_{}_gpus`, or lower `slots_per_trial`",
                s.id
            )
        };
        let d = out.at_loc(loc, message);
        d.help(help);
        if let Some(first) = excluded.first() {
            d.label(
                first.at.file,
                first.at.span,
                format!("node {}: {}", first.node, super::driver_too_old::reason(&first.reason)),
            );
        }
    }
}
