declare_rule! {
    /// ## What it checks
    /// That the experiment has an `entrypoint`.
    ///
    /// ## Why
    /// Determined refuses a managed experiment without one ("managed
    /// experiments require entrypoint"). It checks after merging a config
    /// template given with `det experiment create --template`, which may
    /// supply it — so stagec warns rather than reports an error.
    ///
    /// ## Example
    /// ```yaml
    /// name: mnist
    /// searcher: {name: single, metric: loss}   # warning: no entrypoint
    /// ```
    pub static MISSING_ENTRYPOINT = {
        code: "C213",
        name: "missing-entrypoint",
        family: Determined,
        severity: Warning,
        summary: "The experiment has no entrypoint",
    };
}

use serde_json::Value as Json;

use crate::rules::{is_set, Cx, Sink};
use crate::source::Span;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    let entrypoint = ctx.get(&["entrypoint"]);
    if is_set(entrypoint) {
        return;
    }
    let span = match entrypoint {
        Some(Json::Null) => ctx.key_span(&crate::rules::path(&["entrypoint"])),
        _ => Span::at(0),
    };
    out.at(
        ctx.file,
        span,
        "the experiment has no `entrypoint`: Determined refuses it unless a config template supplies one",
    )
    .help(
        "add the command every rank runs, e.g. `entrypoint: python3 train.py`, or `model_def:Trial` for a trial class",
    );
}
