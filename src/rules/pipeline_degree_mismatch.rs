declare_rule! {
    /// ## What it checks
    /// That `hyperparameters.hpp_config.pipeline_parallel_degree` equals the number
    /// of declared stages (for every candidate value when it is searched).
    ///
    /// ## Why
    /// The pipeline degree decides how many ranks form one pipeline; with more
    /// stages than ranks some stage is never placed, with fewer some rank idles.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   hpp_config:
    ///     pipeline_parallel_degree: 2   # error: the model declares 3 stages
    /// ```
    pub static PIPELINE_DEGREE_MISMATCH = {
        code: "P113",
        name: "pipeline-degree-mismatch",
        family: Stages,
        severity: Error,
        summary: "pipeline_parallel_degree differs from the number of stages",
    };
}

use super::text::numbers;
use super::{path, Cx, Sink};
use crate::edit;
use crate::settings::Settings;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(pipeline), Some(config), Some(settings)) = (cx.pipeline(), cx.config(), cx.settings()) else {
        return;
    };
    let facts = &pipeline.facts;
    let n = facts.unique.len() as i64;
    let degree = settings.pipeline_parallel_degree.as_ref();
    let bad: Vec<i64> = degree.into_iter().flatten().copied().filter(|p| *p != n).collect();
    if !facts.numbered || bad.is_empty() {
        return;
    }
    let stage_list = facts
        .unique
        .iter()
        .filter_map(|&i| cx.decls().get(i))
        .map(|d| format!("{} `{}`", d.id.value, d.name.value))
        .collect::<Vec<_>>()
        .join(", ");
    let fixed = Settings::fixed(degree);
    let message = match fixed {
        Some(p) => format!(
            "`pipeline_parallel_degree` is {p}, but the model declares {n} stage{} ({stage_list})",
            super::text::plural(n as u64)
        ),
        None => format!(
            "`pipeline_parallel_degree` candidates {} differ from the {n} declared stage{} ({stage_list})",
            numbers(&bad),
            super::text::plural(n as u64)
        ),
    };
    let at = path(&["hyperparameters", "hpp_config", "pipeline_parallel_degree"]);
    let span = config.value_span(&at);
    let d = out
        .at(config.file, span, message)
        .help(format!("set `pipeline_parallel_degree: {n}`"));
    if fixed.is_some() {
        d.fix(
            format!("Set to {n}"),
            vec![edit::replace(config.file, span, n.to_string())],
        );
    }
}
