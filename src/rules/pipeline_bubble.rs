declare_rule! {
    /// ## What it checks
    /// The idle share of each step: (p−1)/(m+p−1) for GPipe and 1F1B, and
    /// (p−1)/(v·m+p−1) for interleaved schedules with v virtual stages. Above 15%
    /// it warns and names the micro-batch count that brings it under.
    ///
    /// ## Why
    /// At a 22% bubble a fifth of every GPU's time is spent waiting. More micro-batches (a smaller `micro_batch_size` or a
    /// larger `global_batch_size`) shrink it.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   global_batch_size: 48   # m = 3 with p = 3: bubble 40%
    /// ```
    pub static PIPELINE_BUBBLE = {
        code: "P121",
        name: "pipeline-bubble",
        family: Stages,
        severity: Warning,
        summary: "The pipeline bubble exceeds 15% of step time",
    };
}

use super::{Cx, Sink};
use crate::pipeline::{bubble, schedules, virtual_stages};
use crate::spec::hyperparameters::PipelineSchedule;

/// Bubble share of step time above which a warning is due.
pub const BUBBLE_LIMIT: f64 = 0.15;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(pipeline), Some(config), Some(settings)) = (cx.pipeline(), cx.config(), cx.settings()) else {
        return;
    };
    let Some(view) = pipeline.batches(settings) else { return };
    let (p, dp) = (view.p, view.dp);
    let v = virtual_stages(settings);
    let mut worst: Option<(f64, i64, i64, i64, PipelineSchedule)> = None;
    for c in &view.combinations {
        let Some(m) = c.micro_batches else { continue };
        for schedule in schedules(settings) {
            let b = bubble(p, m, v, schedule);
            if worst.as_ref().is_none_or(|w| b > w.0) {
                worst = Some((b, c.global_batch_size, c.micro_batch_size, m, schedule));
            }
        }
    }
    let Some((b, g, mb, m, schedule)) = worst else { return };
    if b <= BUBBLE_LIMIT || p <= 1 {
        return;
    }
    let veff = if schedule == PipelineSchedule::Interleaved {
        v
    } else {
        1
    };
    // Smallest m with (p−1)/(v·m+p−1) ≤ limit.
    let need_m = (((p - 1) as f64 * (1.0 / BUBBLE_LIMIT - 1.0)) / veff as f64).ceil() as i64;
    let need_g = i128::from(need_m) * i128::from(dp) * i128::from(mb);
    let name = match schedule {
        PipelineSchedule::Gpipe => "GPipe",
        PipelineSchedule::Interleaved => "interleaved 1F1B",
        PipelineSchedule::OneFOneB => "1F1B",
    };
    let mut help = format!(
        "{need_m} or more micro-batches bring it under {:.0}%: e.g. `global_batch_size: {need_g}`",
        BUBBLE_LIMIT * 100.0
    );
    if mb > 1 {
        let per = (i128::from(g) / (i128::from(dp) * i128::from(need_m)).max(1)).max(1);
        help.push_str(&format!(
            ", or `micro_batch_size: {per}` with the current global batch size"
        ));
    }
    out.at(
        config.file,
        config.value_span(&view.at),
        format!(
            "pipeline bubble {:.1}% of step time: p = {p} stages, m = {m} micro-batches ({name})",
            b * 100.0
        ),
    )
    .help(help);
}
