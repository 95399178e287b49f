declare_rule! {
    /// ## What it checks
    /// Searchers Determined has removed: `custom`, `adaptive`,
    /// `adaptive_simple` and `sync_halving`.
    ///
    /// ## Why
    /// Determined's v0 schema still describes them, so a schema check passes,
    /// but the master refuses every new experiment that names one ("the
    /// 'custom' searcher has been removed and is not valid for new
    /// experiments"): only experiments created before the removal still run
    /// with them.
    ///
    /// ## Example
    /// ```yaml
    /// searcher:
    ///   name: adaptive_simple   # error: use adaptive_asha
    ///   metric: validation_loss
    ///   max_trials: 16
    /// ```
    pub static REMOVED_SEARCHER = {
        code: "C212",
        name: "removed-searcher",
        family: Determined,
        severity: Error,
        summary: "The searcher has been removed from Determined",
    };
}

use serde_json::Value as Json;

use crate::rules::{path, Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    let Some(name) = ctx.get(&["searcher", "name"]).and_then(Json::as_str) else {
        return;
    };
    let instead = match name {
        "custom" => "search with `random`, `grid` or `adaptive_asha`, or drive trials from your own code with Determined's Python SDK",
        "adaptive" | "adaptive_simple" => "use `adaptive_asha` (with `max_trials`, `time_metric` and `max_time`)",
        "sync_halving" => "use `async_halving` (with `num_rungs`, `max_trials`, `time_metric` and `max_time`)",
        _ => return,
    };
    out.at(
        ctx.file,
        ctx.value_span(&path(&["searcher", "name"])),
        format!("the `{name}` searcher has been removed: Determined's master refuses new experiments that use it"),
    )
    .help(instead);
}
