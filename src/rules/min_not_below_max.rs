declare_rule! {
    /// ## What it checks
    /// That the lower bound of a range is below its upper bound:
    /// `minval < maxval` for every `int`, `double` and `log` hyperparameter,
    /// at any depth of `hyperparameters` (nested mappings and the HPP
    /// `hpp_config` fields given as `int` ranges included), and
    /// `profiling.begin_on_batch <= profiling.end_after_batch`.
    ///
    /// ## Why
    /// Determined's `compareProperties` rejects such ranges when the
    /// experiment reaches the master. Equal bounds are rejected too: a
    /// hyperparameter with one value is a `const`.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   dropout:
    ///     type: double
    ///     minval: 0.5
    ///     maxval: 0.1     # error: must be greater than `minval` (0.5)
    /// ```
    pub static MIN_NOT_BELOW_MAX = {
        code: "C201",
        name: "min-not-below-max",
        family: Determined,
        severity: Error,
        summary: "A range's lower bound is not below its upper bound",
    };
}

use std::cmp::Ordering;

use serde_json::Value as Json;

use crate::rules::{join, path, Cx, Sink};
use crate::yaml::display_path;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    for (hp, map) in ctx.typed_hyperparameters(false) {
        if !matches!(map.get("type").and_then(Json::as_str), Some("int" | "double" | "log")) {
            continue;
        }
        let (Some(min), Some(max)) = (map.get("minval"), map.get("maxval")) else {
            continue;
        };
        let Some(order) = compare(min, max) else { continue };
        if order == Ordering::Less {
            continue;
        }
        let min_path = join(&hp, "minval");
        let max_path = join(&hp, "maxval");
        let d = out
            .at(
                ctx.file,
                ctx.value_span(&max_path),
                format!(
                    "`{}` ({max}) must be greater than `minval` ({min})",
                    display_path(&max_path)
                ),
            )
            .label(ctx.file, ctx.value_span(&min_path), "the lower bound");
        if order == Ordering::Equal {
            d.help(format!("for a fixed value write `{{type: const, val: {min}}}`"));
        } else {
            d.help("the bounds are the wrong way round: `minval` is the smallest value sampled");
            if let (Some(a), Some(b)) = (ctx.own_scalar_span(&min_path), ctx.own_scalar_span(&max_path)) {
                let (ta, tb) = (ctx.text.get(a.start..a.end), ctx.text.get(b.start..b.end));
                if let (Some(ta), Some(tb)) = (ta, tb) {
                    d.fix(
                        "Swap `minval` and `maxval`",
                        vec![
                            crate::edit::replace(ctx.file, a, tb.to_string()),
                            crate::edit::replace(ctx.file, b, ta.to_string()),
                        ],
                    );
                }
            }
        }
    }

    let (Some(begin), Some(end)) = (
        ctx.get(&["profiling", "begin_on_batch"]),
        ctx.get(&["profiling", "end_after_batch"]),
    ) else {
        return;
    };
    if compare(begin, end) == Some(Ordering::Greater) {
        out.at(
            ctx.file,
            ctx.value_span(&path(&["profiling", "end_after_batch"])),
            format!("`profiling.end_after_batch` ({end}) must not be less than `begin_on_batch` ({begin})"),
        )
        .label(
            ctx.file,
            ctx.value_span(&path(&["profiling", "begin_on_batch"])),
            "profiling starts here",
        )
        .help("the profiler runs from batch `begin_on_batch` through batch `end_after_batch`");
    }
}

/// Orders two JSON numbers: exactly for integers, as `f64` otherwise.
/// `None` when either is not a number.
fn compare(a: &Json, b: &Json) -> Option<Ordering> {
    let (Json::Number(a), Json::Number(b)) = (a, b) else {
        return None;
    };
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return Some(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return Some(a.cmp(&b));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

#[cfg(test)]
mod tests {
    use crate::rules::apply_fixes;

    #[test]
    fn swaps_reversed_bounds() {
        let text = "hyperparameters:\n  d:\n    type: double\n    minval: 5e-1\n    maxval: 0.1\n";
        let (out, _) = apply_fixes(text, "C201");
        assert_eq!(
            out,
            "hyperparameters:\n  d:\n    type: double\n    minval: 0.1\n    maxval: 5e-1\n"
        );
    }

    #[test]
    fn compares_large_integers_exactly() {
        let text =
            "hyperparameters:\n  n:\n    type: int\n    minval: 9007199254740993\n    maxval: 9007199254740992\n";
        let (_, diags) = apply_fixes(text, "C201");
        assert!(diags.iter().any(|d| d.code == "C201"));
    }
}
