declare_rule! {
    /// ## What it checks
    /// When a `global_batch_size` hyperparameter exists: that it is divisible by
    /// data-parallel degree × `micro_batch_size` (Megatron's rule). The quotient
    /// is the number of micro-batches *m* per replica. Searched values are
    /// checked candidate by candidate; the failing ones are named.
    ///
    /// ## Why
    /// Otherwise the last micro-batch is ragged or samples are dropped silently,
    /// and every replica disagrees on the step size.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   global_batch_size: 100        # error with 2 replicas × micro_batch_size 8 = 16
    ///   hpp_config: {pipeline_parallel_degree: 3, micro_batch_size: 8}
    /// ```
    pub static BATCH_NOT_DIVISIBLE = {
        code: "P119",
        name: "batch-not-divisible",
        family: Stages,
        severity: Error,
        summary: "global_batch_size is not divisible by data-parallel degree × micro_batch_size",
    };
}

use super::{Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(pipeline), Some(config), Some(settings)) = (cx.pipeline(), cx.config(), cx.settings()) else {
        return;
    };
    let Some(view) = pipeline.batches(settings) else { return };
    let dp = i128::from(view.dp);
    let failing: Vec<(i64, i64)> = view
        .combinations
        .iter()
        .filter(|c| c.micro_batches.is_none())
        .map(|c| (c.global_batch_size, c.micro_batch_size))
        .collect();
    let Some(&(g, mb)) = failing.first() else { return };
    let message = if view.searched {
        let shown: Vec<String> = failing
            .iter()
            .take(6)
            .map(|(g, m)| format!("{g}/(dp {dp} × {m})"))
            .collect();
        format!(
            "{} of {} searched (global_batch_size, micro_batch_size) combinations do not divide: {}",
            failing.len(),
            view.combinations.len(),
            shown.join(", ")
        )
    } else {
        format!(
            "`global_batch_size: {g}` is not divisible by data-parallel degree {dp} × `micro_batch_size` {mb} = {}",
            dp * i128::from(mb)
        )
    };
    let first_micro = settings
        .micro_batch_size
        .as_ref()
        .and_then(|m| m.first())
        .copied()
        .unwrap_or(1);
    let unit = (dp * i128::from(first_micro.max(1))).max(1);
    let g0 = settings
        .global_batch_size
        .as_ref()
        .and_then(|g| g.first())
        .map_or(unit, |g| i128::from(*g));
    let lower = (g0 / unit).max(1) * unit;
    out.at(config.file, config.value_span(&view.at), message).help(format!(
        "use a multiple of {unit}, e.g. {lower} or {}, so every replica runs whole micro-batches",
        lower + unit
    ));
}
