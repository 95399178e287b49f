declare_rule! {
    /// ## What it checks
    /// stagec's HPP extension: that `hyperparameters.hpp_config.default_dtype`
    /// (a plain value, `const` `val`, or each `categorical` value) names a
    /// dtype stagec knows: canonical names such as `bf16` or `fp32`, common
    /// aliases (`half`, `float`, `fp8`, ...) and PyTorch spellings
    /// (`torch.bfloat16`). Names are matched case-insensitively.
    ///
    /// ## Why
    /// The HPP runtime resolves the name when the trial starts; an unknown
    /// name fails the trial only after it has been scheduled. stagec
    /// suggests the closest known names.
    ///
    /// ## Example
    /// ```yaml
    /// hyperparameters:
    ///   hpp_config:
    ///     pipeline_parallel_degree: 2
    ///     default_dtype: bfloat     # error: did you mean `bfloat16`?
    /// ```
    pub static UNKNOWN_DTYPE = {
        code: "H102",
        name: "unknown-dtype",
        family: Hpp,
        severity: Error,
        summary: "`hpp_config.default_dtype` names an unknown dtype",
    };
}

use serde_json::Value as Json;

use crate::rules::{path, Cx, Sink};
use crate::yaml::PathSeg;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    let base = path(&["hyperparameters", "hpp_config", "default_dtype"]);
    let Some(v) = ctx.get_at(&base) else { return };
    let mut names: Vec<(Vec<PathSeg>, String)> = Vec::new();
    match v {
        Json::String(s) => names.push((base.clone(), s.clone())),
        Json::Object(m) => match m.get("type").and_then(Json::as_str) {
            Some("const") => {
                if let Some(Json::String(s)) = m.get("val") {
                    let mut p = base.clone();
                    p.push(PathSeg::Key("val".into()));
                    names.push((p, s.clone()));
                }
            }
            Some("categorical") => {
                for (i, item) in m.get("vals").and_then(Json::as_array).into_iter().flatten().enumerate() {
                    if let Json::String(s) = item {
                        let mut p = base.clone();
                        p.push(PathSeg::Key("vals".into()));
                        p.push(PathSeg::Index(i));
                        names.push((p, s.clone()));
                    }
                }
            }
            _ => {}
        },
        _ => {}
    }
    for (p, name) in names {
        // Names the schema's pattern rejects are reported there.
        if !matches_name_pattern(&name) || crate::dtype::parse(&name).is_some() {
            continue;
        }
        let span = ctx.value_span(&p);
        let suggestions = crate::dtype::suggest(&name);
        let d = out.at(
            ctx.file,
            span,
            format!(
                "`{}` names an unknown dtype `{}`",
                crate::yaml::display_path(&p),
                super::text::truncate(&name)
            ),
        );
        match suggestions.first() {
            Some(best) => {
                let listed = suggestions
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                d.help(format!("did you mean {listed}?"));
                // A fix only when the suggestion is unambiguous.
                if let (Some(own), 1) = (ctx.own_scalar_span(&p), suggestions.len()) {
                    let value = ctx.get_at(&p).and_then(serde_json::Value::as_str).unwrap_or("");
                    d.fix(
                        format!("Replace with `{best}`"),
                        vec![crate::edit::replace_string(ctx.file, ctx.text, own, value, best)],
                    );
                }
            }
            None => {
                d.help("known dtypes include `fp32`, `tf32`, `bf16`, `fp16`, `fp8_e4m3fn` and `fp8_e5m2`, or PyTorch names such as `torch.bfloat16`");
            }
        }
    }
}

/// The schema's dtype-name pattern, `^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`.
fn matches_name_pattern(s: &str) -> bool {
    s.split('.').all(|part| {
        let mut chars = part.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use crate::rules::apply_fixes;

    #[test]
    fn fixes_an_unambiguous_name_keeping_quotes() {
        let text = "hyperparameters:\n  hpp_config:\n    pipeline_parallel_degree: 2\n    default_dtype: {type: const, val: \"torch.fp16\"}\n";
        let (out, _) = apply_fixes(text, "H102");
        assert!(out.contains("val: \"torch.float16\"}"), "{out}");
    }

    #[test]
    fn accepts_known_names_and_leaves_pattern_errors_to_the_schema() {
        for ok in ["bf16", "torch.bfloat16", "FP32", "half"] {
            let text =
                format!("hyperparameters:\n  hpp_config:\n    pipeline_parallel_degree: 2\n    default_dtype: {ok}\n");
            assert!(!apply_fixes(&text, "H102").1.iter().any(|d| d.code == "H102"), "{ok}");
        }
        assert!(!super::matches_name_pattern("bf-16"));
        assert!(!super::matches_name_pattern("torch..x"));
        assert!(super::matches_name_pattern("torch.float8_e4m3fn"));
    }
}
