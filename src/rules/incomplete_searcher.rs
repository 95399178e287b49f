declare_rule! {
    /// ## What it checks
    /// That the experiment has a `searcher` with the keys Determined needs
    /// once the config is complete (its `eventuallyRequired`):
    ///
    /// | `name` | needs |
    /// |---|---|
    /// | every searcher | `name`, `metric` |
    /// | `random`, `adaptive_simple` | `max_trials` |
    /// | `adaptive_asha` | `max_trials`; `time_metric` and `max_time` (or the legacy `max_length`) |
    /// | `async_halving` | `num_rungs`, `max_trials`; `time_metric` and `max_time` (or the legacy `max_length`) |
    /// | `adaptive` | `budget` |
    /// | `sync_halving` | `num_rungs`, `budget` |
    ///
    /// A key set to `null` counts as missing. `max_length` is otherwise
    /// required by no searcher (Determined deprecated it). The ASHA
    /// searchers need to know how long a trial may train: Determined's v0
    /// schema still accepts the deprecated `max_length` for that, but recent
    /// releases of the master refuse new experiments without `time_metric`
    /// and `max_time` ("the `adaptive_asha` searcher requires `max_time` and
    /// `time_metric` to be set"), after merging any template. With only
    /// `max_length` the warning shows the replacement.
    ///
    /// These are warnings, not errors: Determined's own schema check
    /// accepts an incomplete config (its `eventuallyRequired` keys may come
    /// from a config template merged at submission), and stagec reports an
    /// error only where Determined's schema would.
    ///
    /// ## Why
    /// Determined's cluster defaults fill in settings such as
    /// `checkpoint_storage`, but not the search itself: which algorithm,
    /// which metric to optimize, how many trials and how long each may
    /// train. A config that leaves them out, and gets them from no template,
    /// is rejected when it is submitted.
    ///
    /// ## Example
    /// ```yaml
    /// searcher:            # warning: missing `max_trials`, `time_metric`, `max_time`
    ///   name: adaptive_asha
    ///   metric: validation_loss
    /// ```
    pub static INCOMPLETE_SEARCHER = {
        code: "C209",
        name: "incomplete-searcher",
        family: Determined,
        severity: Warning,
        summary: "The searcher lacks a key Determined requires",
    };
}

use serde_json::Value as Json;

use crate::rules::{is_set, path, Config, Cx, Sink};
use crate::source::Span;

/// Keys each searcher needs besides `name` and `metric`; `None` for names
/// the schema does not know (reported there).
fn required(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "single" | "grid" | "custom" => &[],
        "random" | "adaptive_simple" => &["max_trials"],
        "adaptive_asha" => &["max_trials"],
        "async_halving" => &["num_rungs", "max_trials"],
        "adaptive" => &["budget"],
        "sync_halving" => &["num_rungs", "budget"],
        _ => return None,
    })
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    let searcher = match ctx.get(&["searcher"]) {
        Some(Json::Object(s)) => s,
        Some(Json::Null) | None => {
            let span = match ctx.get(&["searcher"]) {
                Some(_) => ctx.key_span(&path(&["searcher"])),
                None => Span::at(0),
            };
            out.at(ctx.file, span, "the experiment has no `searcher`")
                .help("add one, e.g. `searcher: {name: single, metric: validation_loss}`; Determined does not take the searcher from the cluster's defaults");
            return;
        }
        // Another type: the schema reports it.
        Some(_) => return,
    };
    let name = searcher.get("name").and_then(Json::as_str);
    let mut missing: Vec<&str> = Vec::new();
    let extra = match name {
        Some(n) => match required(n) {
            Some(keys) => keys,
            None => return,
        },
        None if is_set(searcher.get("name")) => return,
        None => {
            missing.push("name");
            &[]
        }
    };
    if !is_set(searcher.get("metric")) {
        missing.push("metric");
    }
    missing.extend(extra.iter().copied().filter(|k| !is_set(searcher.get(*k))));
    if matches!(name, Some("adaptive_asha" | "async_halving")) {
        let time: Vec<&str> = ["time_metric", "max_time"]
            .into_iter()
            .filter(|k| !is_set(searcher.get(*k)))
            .collect();
        if is_set(searcher.get("max_length")) {
            if !time.is_empty() {
                legacy_length_warning(&ctx, out, name.unwrap_or_default(), searcher);
            }
        } else {
            missing.extend(time);
        }
    }
    if missing.is_empty() {
        return;
    }
    let listed = list(&missing);
    let what = match name {
        Some(n) => format!("`searcher` ({n})"),
        None => "`searcher`".to_string(),
    };
    let mut help: Vec<String> = missing.iter().filter_map(|k| explain(k, searcher)).collect();
    help.dedup();
    let d = out.at(
        ctx.file,
        ctx.key_span(&path(&["searcher"])),
        format!("{what} is missing {listed}"),
    );
    if !help.is_empty() {
        d.help(help.join("\n"));
    }
}

/// "`a`", "`a` and `b`", "`a`, `b` and `c`".
fn list(keys: &[&str]) -> String {
    let quoted = keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// An ASHA searcher that gives its length only as the deprecated
/// `max_length`: accepted by the v0 schema, rejected by recent Determined.
fn legacy_length_warning(ctx: &Config<'_>, out: &mut Sink<'_>, name: &str, searcher: &serde_json::Map<String, Json>) {
    let help = explain("max_time", searcher).unwrap_or_default();
    out.at(ctx.file, ctx.key_span(&path(&["searcher", "max_length"])),
        format!(
            "`searcher.max_length` is deprecated: Determined's master refuses the `{name}` searcher at submission unless `time_metric` and `max_time` are set (here or by a template)"
        ),
    )
    .severity(crate::diagnostic::Severity::Warning)
    .help(help);
}

fn explain(key: &str, searcher: &serde_json::Map<String, Json>) -> Option<String> {
    Some(match key {
        "name" => "`name` selects the algorithm: `single`, `random`, `grid`, `adaptive_asha` or `async_halving`".into(),
        "metric" => "`metric` names the validation metric the searcher compares trials by (e.g. `validation_loss`), with `smaller_is_better`".into(),
        "max_trials" => "`max_trials` is the number of trials to create".into(),
        "num_rungs" => "`num_rungs` is the number of promotion levels".into(),
        "budget" => "`budget` is the total training length over all trials, e.g. `budget: {batches: 100000}`".into(),
        "time_metric" | "max_time" => {
            let legacy = searcher.get("max_length").and_then(Json::as_object).and_then(|m| {
                let (unit, n) = m.iter().next()?;
                Some((unit.clone(), n.as_u64()?))
            });
            match legacy {
                Some((unit, n)) => format!(
                    "`time_metric` names the reported metric that measures training progress and `max_time` its largest value; the deprecated `max_length: {{{unit}: {n}}}` becomes `time_metric: {unit}` and `max_time: {n}`"
                ),
                None => "`time_metric` names the reported metric that measures training progress (e.g. `batches`) and `max_time` its largest value for any trial".into(),
            }
        }
        _ => return None,
    })
}
