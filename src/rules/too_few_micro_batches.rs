declare_rule! {
    /// ## What it checks
    /// That the number of micro-batches *m* suits the schedule: 1F1B needs m ≥ p
    /// (the pipeline degree) to reach its steady state; interleaved 1F1B needs m
    /// to be a multiple of p.
    ///
    /// ## Why
    /// With fewer micro-batches than stages, 1F1B never overlaps forward and
    /// backward passes and the schedule degenerates; interleaved schedules assert
    /// on it at startup.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   global_batch_size: 16           # m = 16 / (1 × 8) = 2 micro-batches
    ///   hpp_config: {pipeline_parallel_degree: 3, micro_batch_size: 8, schedule: 1f1b}   # error: m < p
    /// ```
    pub static TOO_FEW_MICRO_BATCHES = {
        code: "P120",
        name: "too-few-micro-batches",
        family: Stages,
        severity: Error,
        summary: "The schedule needs more micro-batches",
    };
}

use super::{Cx, Sink};
use crate::pipeline::schedules;
use crate::spec::hyperparameters::PipelineSchedule;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(pipeline), Some(config), Some(settings)) = (cx.pipeline(), cx.config(), cx.settings()) else {
        return;
    };
    let Some(view) = pipeline.batches(settings) else { return };
    let p = view.p;
    let mut too_few: Vec<(i64, i64, String)> = Vec::new();
    for c in &view.combinations {
        let Some(m) = c.micro_batches else { continue };
        for schedule in schedules(settings) {
            let problem = match schedule {
                PipelineSchedule::OneFOneB if m < p => {
                    Some(format!("1F1B needs at least p = {p} micro-batches, got m = {m}"))
                }
                PipelineSchedule::Interleaved if m % p != 0 => Some(format!(
                    "interleaved 1F1B needs m to be a multiple of p = {p}, got m = {m}"
                )),
                _ => None,
            };
            if let Some(why) = problem {
                too_few.push((c.global_batch_size, c.micro_batch_size, why));
            }
        }
    }
    let Some((g, mb, why)) = too_few.first() else { return };
    let dp = view.dp;
    let message = if view.searched {
        format!(
            "{} searched combinations give too few micro-batches; e.g. global_batch_size {g}, micro_batch_size {mb}: {why}",
            too_few.len()
        )
    } else {
        format!("{why} (global_batch_size {g} / (data-parallel degree {dp} × micro_batch_size {mb}))")
    };
    let need = i128::from(p) * i128::from(dp) * i128::from(*mb);
    out.at(config.file, config.value_span(&view.at), message).help(format!(
        "raise `global_batch_size` to a multiple of {need}, or lower `micro_batch_size`"
    ));
}
