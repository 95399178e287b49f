declare_rule! {
    /// ## What it checks
    /// `log` hyperparameters whose bounds look like the values to sample
    /// rather than their exponents: both `minval` and `maxval` lie strictly
    /// between 0 and 1. Determined samples `base^x` for `x` between `minval`
    /// and `maxval`, so such bounds give values that barely differ from 1.
    /// The warning shows the range actually sampled and proposes the
    /// exponents, `log_base` of the given values, as a fix. A missing `base`
    /// is taken as 10 (and reported by `missing-key`); bases of 1 or less
    /// are not checked.
    ///
    /// ## Why
    /// `lr: {type: log, base: 10, minval: 1e-5, maxval: 1e-2}` reads like
    /// "a learning rate between 1e-5 and 1e-2", but it samples
    /// 10^0.00001 .. 10^0.01, i.e. 1.00002 .. 1.023: every trial trains with
    /// a learning rate near 1, and the search is wasted. The intended range
    /// is `minval: -5, maxval: -2`.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   lr:
    ///     type: log
    ///     base: 10
    ///     minval: 1e-5   # warning: samples 1.0000 to 1.0233
    ///     maxval: 1e-2   # fix: minval: -5, maxval: -2
    /// ```
    pub static LOG_BOUNDS_LOOK_LIKE_VALUES = {
        code: "C211",
        name: "log-bounds-look-like-values",
        family: Determined,
        severity: Warning,
        summary: "A `log` hyperparameter's bounds look like values, not exponents",
    };
}

use serde_json::Value as Json;

use crate::rules::text::show;
use crate::rules::{join, Config, Cx, Sink};
use crate::yaml::display_path;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    for (hp, map) in ctx.typed_hyperparameters(false) {
        if map.get("type").and_then(Json::as_str) != Some("log") {
            continue;
        }
        let (Some(min), Some(max)) = (
            map.get("minval").and_then(Json::as_f64),
            map.get("maxval").and_then(Json::as_f64),
        ) else {
            continue;
        };
        let (base, assumed) = match map.get("base") {
            None | Some(Json::Null) => (10.0, true),
            Some(b) => match b.as_f64() {
                Some(b) if b > 1.0 && b.is_finite() => (b, false),
                _ => continue,
            },
        };
        if !looks_like_values(min, max) {
            continue;
        }
        let min_path = join(&hp, "minval");
        let max_path = join(&hp, "maxval");
        let (Some(min_text), Some(max_text)) = (written(&ctx, &hp, "minval"), written(&ctx, &hp, "maxval")) else {
            continue;
        };
        let base_text = if assumed {
            "10".to_string()
        } else {
            written(&ctx, &hp, "base").unwrap_or_default()
        };
        let (emin, emax) = (fmt_exponent(exponent(min, base)), fmt_exponent(exponent(max, base)));
        let d = out.at(ctx.file, ctx.value_span(&min_path),
            format!(
                "`{}` samples {base_text}^x for x from {min_text} to {max_text}, i.e. values from {} to {}: `minval` and `maxval` are exponents",
                display_path(&hp),
                fmt_value(base.powf(min)),
                fmt_value(base.powf(max)),
            ),
        )
        .label(ctx.file, ctx.value_span(&max_path), "also an exponent")
        .help(format!(
            "to sample values from {min_text} to {max_text}, give their base-{base_text} logarithms: `minval: {emin}`, `maxval: {emax}`{}",
            if assumed { " (assuming `base: 10`)" } else { "" }
        ));
        if let (Some(a), Some(b)) = (ctx.own_scalar_span(&min_path), ctx.own_scalar_span(&max_path)) {
            d.fix(
                format!("Use exponents: `minval: {emin}`, `maxval: {emax}`"),
                vec![
                    crate::edit::replace(ctx.file, a, emin.clone()),
                    crate::edit::replace(ctx.file, b, emax.clone()),
                ],
            );
        }
    }
}

/// A number as the file writes it (`1e-5`), or as JSON when it is reached
/// through an alias.
fn written(ctx: &Config<'_>, hp: &[crate::yaml::PathSeg], key: &str) -> Option<String> {
    let p = join(hp, key);
    match ctx.own_scalar_span(&p).and_then(|s| ctx.text.get(s.start..s.end)) {
        Some(t) => Some(t.to_string()),
        None => ctx.get_at(&p).map(show),
    }
}

/// Both bounds strictly between 0 and 1: as exponents they span less than
/// one power of the base and sample values in `[1, base)`; as values they
/// are typical learning rates, weight decays or dropout rates.
fn looks_like_values(min: f64, max: f64) -> bool {
    let fraction = |x: f64| x > 0.0 && x < 1.0;
    fraction(min) && fraction(max)
}

/// `log_base(value)`.
fn exponent(value: f64, base: f64) -> f64 {
    value.ln() / base.ln()
}

/// An exponent for YAML: an integer when it is one (to 1e-9), otherwise
/// three decimals without trailing zeros.
fn fmt_exponent(x: f64) -> String {
    let rounded = x.round();
    if (x - rounded).abs() < 1e-9 * x.abs().max(1.0) {
        // `-0` prints as `0`.
        return format!("{}", rounded as i64);
    }
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// A sampled value with five significant digits, so values near 1 show
/// how little they differ from it (`1.0000`, `1.0233`); very large or
/// small values in scientific notation.
fn fmt_value(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let magnitude = x.abs().log10().floor();
    if !(-4.0..6.0).contains(&magnitude) {
        return format!("{x:.4e}");
    }
    let decimals = (4.0 - magnitude).clamp(0.0, 12.0) as usize;
    format!("{x:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_fractions_only() {
        assert!(looks_like_values(1e-5, 1e-2));
        assert!(looks_like_values(0.1, 0.9));
        assert!(!looks_like_values(-5.0, -2.0));
        assert!(!looks_like_values(0.0, 0.5));
        assert!(!looks_like_values(1e-4, 1.0));
        assert!(!looks_like_values(-0.5, 0.5));
    }

    #[test]
    fn exponents_are_logs_of_the_values() {
        assert_eq!(fmt_exponent(exponent(1e-5, 10.0)), "-5");
        assert_eq!(fmt_exponent(exponent(1e-2, 10.0)), "-2");
        assert_eq!(fmt_exponent(exponent(3e-4, 10.0)), "-3.523");
        assert_eq!(fmt_exponent(exponent(0.5, 2.0)), "-1");
        assert_eq!(fmt_exponent(exponent(0.001, std::f64::consts::E)), "-6.908");
        assert_eq!(fmt_exponent(-0.0001), "0");
    }

    #[test]
    fn fix_replaces_both_bounds() {
        let text = "hyperparameters:\n  lr:\n    type: log\n    base: 10\n    minval: 1e-5\n    maxval: 1e-2 # lr\n";
        let (out, diags) = crate::rules::apply_fixes(text, "C211");
        assert_eq!(
            out,
            "hyperparameters:\n  lr:\n    type: log\n    base: 10\n    minval: -5\n    maxval: -2 # lr\n"
        );
        let d = diags
            .iter()
            .find(|d| d.code == "C211")
            .map(|d| d.message.clone())
            .unwrap_or_default();
        assert!(d.contains("1e-5 to 1e-2") && d.contains("1.0000 to 1.0233"), "{d}");
    }

    #[test]
    fn sampled_values_show_their_closeness_to_one() {
        assert_eq!(fmt_value(10f64.powf(1e-5)), "1.0000");
        assert_eq!(fmt_value(10f64.powf(1e-2)), "1.0233");
        assert_eq!(fmt_value(0.001234567), "0.0012346");
        assert_eq!(fmt_value(12345.6), "12346");
        assert_eq!(fmt_value(1e300), "1.0000e300");
        assert_eq!(fmt_value(2.5e-7), "2.5000e-7");
    }
}
