declare_rule! {
    /// ## What it checks
    /// stagec's HPP extension: that `hyperparameters.hpp_config.virtual_stages`
    /// is used with the `interleaved` schedule, and is useful there.
    ///
    /// - `virtual_stages` set while `schedule` can never be `interleaved`
    ///   (it is `gpipe` or `1f1b`, the default when `schedule` is absent, in
    ///   every trial): the setting has no effect.
    /// - `schedule: interleaved` in every trial with `virtual_stages` that
    ///   can only be 1: one model chunk per device is the plain 1F1B
    ///   schedule, so interleaving gains nothing.
    ///
    /// Both are warnings, not errors: the runtime accepts the config, it just
    /// does not do what the setting suggests. A `categorical` schedule that
    /// includes `interleaved` is fine, since some trials use it. The
    /// `interleaved` schedule without `virtual_stages` is not reported (the
    /// runtime chooses the number of chunks).
    ///
    /// ## Why
    /// The interleaved schedule splits each stage's layers into
    /// `virtual_stages` chunks per device to shrink the pipeline bubble; the
    /// other schedules run one chunk per device and ignore the setting.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   hpp_config:
    ///     pipeline_parallel_degree: 4
    ///     schedule: 1f1b
    ///     virtual_stages: 2   # warning: only used by `schedule: interleaved`
    /// ```
    pub static VIRTUAL_STAGES_WITHOUT_INTERLEAVED = {
        code: "H101",
        name: "virtual-stages-without-interleaved",
        family: Hpp,
        severity: Warning,
        summary: "`virtual_stages` has no effect with this pipeline schedule",
    };
}

use serde_json::Value as Json;

use crate::rules::{is_set, path, Cx, Sink};

const HPP: [&str; 2] = ["hyperparameters", "hpp_config"];

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    let vs = ctx.get(&[HPP[0], HPP[1], "virtual_stages"]);
    if !is_set(vs) {
        return;
    }
    let schedule = ctx.get(&[HPP[0], HPP[1], "schedule"]);
    // The schedules trials may run with; `None` when not all are known.
    let schedules: Option<Vec<&str>> = match schedule {
        None | Some(Json::Null) => Some(vec!["1f1b"]),
        Some(v) => choices(v).into_iter().map(Json::as_str).collect(),
    };
    // Unknown schedule names are the schema's to report.
    let known = |s: &Vec<&str>| !s.is_empty() && s.iter().all(|n| matches!(*n, "gpipe" | "1f1b" | "interleaved"));
    let Some(schedules) = schedules.filter(known) else {
        return;
    };
    let vs_path = path(&[HPP[0], HPP[1], "virtual_stages"]);
    let schedule_path = path(&[HPP[0], HPP[1], "schedule"]);
    if !schedules.contains(&"interleaved") {
        let shown = match (schedule.is_some_and(|s| !s.is_null()), schedules.as_slice()) {
            (false, _) => "`1f1b` (the default)".to_string(),
            (true, [one]) => format!("`{one}`"),
            (true, many) => many.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(" or "),
        };
        let d = out.at(ctx.file, ctx.key_span(&vs_path),
            format!("`hyperparameters.hpp_config.virtual_stages` has no effect: `schedule` is {shown}, and only `interleaved` uses virtual stages"),
        )
        .help("set `schedule: interleaved`, or remove `virtual_stages`");
        if schedule.is_some_and(|s| !s.is_null()) {
            d.label(ctx.file, ctx.value_span(&schedule_path), "the schedule");
        }
        return;
    }
    let always_interleaved = schedules.iter().all(|s| *s == "interleaved");
    let chunk_counts: Option<Vec<u64>> = vs
        .map(choices)
        .unwrap_or_default()
        .into_iter()
        .map(Json::as_u64)
        .collect();
    let only_one = match vs.and_then(|v| v.get("type")).and_then(Json::as_str) {
        // An `int` range has minval < maxval, so it always allows 2 or more.
        Some("int") => false,
        _ => chunk_counts.is_some_and(|c| !c.is_empty() && c.iter().all(|&n| n < 2)),
    };
    if always_interleaved && only_one {
        out.at(ctx.file, ctx.value_span(&vs_path),
            "`hyperparameters.hpp_config.virtual_stages` is 1: the interleaved schedule with one chunk per device is plain 1F1B",
        )
        .label(ctx.file, ctx.value_span(&schedule_path), "the schedule")
        .help("use `virtual_stages: 2` or more to interleave, or `schedule: 1f1b`");
    }
}

/// The values an HPP setting can take: a plain value, `{type: const, val}`
/// or `{type: categorical, vals}`. Other shapes give no values.
fn choices(v: &Json) -> Vec<&Json> {
    match v.get("type").and_then(Json::as_str) {
        Some("const") => v.get("val").into_iter().collect(),
        Some("categorical") => v
            .get("vals")
            .and_then(Json::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default(),
        Some(_) => Vec::new(),
        None if v.is_object() => Vec::new(),
        None => vec![v],
    }
}
