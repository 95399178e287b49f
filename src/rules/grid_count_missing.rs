declare_rule! {
    /// ## What it checks
    /// Where Determined applies its grid checks, that every `int`, `double`
    /// and `log` hyperparameter has a `count`, at any depth of
    /// `hyperparameters` (nested mappings and lists, and the HPP `hpp_config`
    /// fields included), and that a hyperparameter inside a list has a
    /// string `type`.
    ///
    /// Determined applies them with `searcher.name: grid` — and also when the
    /// searcher has no name at all: its schema's condition
    /// (`if: {properties: {searcher: {properties: {name: {const: grid}}}}}`)
    /// holds when `searcher` is missing, null, empty or has no `name`. This
    /// check runs before a template is merged in, so a searcher from a
    /// template does not help.
    ///
    /// ## Why
    /// The grid searcher tries `count` evenly spaced values of each range;
    /// without it the grid is undefined and Determined rejects the
    /// experiment ("grid search is in use but count was not provided").
    /// `const` and `categorical` hyperparameters need no `count`.
    ///
    /// ## Example
    /// ```yaml
    /// searcher:
    ///   name: grid
    ///   metric: validation_loss
    /// hyperparameters:
    ///   dropout:          # error: no `count`
    ///     type: double
    ///     minval: 0.2
    ///     maxval: 0.5
    /// ```
    pub static GRID_COUNT_MISSING = {
        code: "C206",
        name: "grid-count-missing",
        family: Determined,
        severity: Error,
        summary: "A grid-searched range hyperparameter has no `count`",
    };
}

use serde_json::Value as Json;

use crate::rules::{is_set, path, Cx, Sink};
use crate::yaml::display_path;

/// The `count` a fix proposes.
const PROPOSED_COUNT: &str = "5";

/// Why Determined applies its grid checks to a config.
enum Grid {
    /// `searcher.name: grid`.
    Named,
    /// The searcher (where it is written) has no name.
    Unnamed,
    /// There is no searcher.
    NoSearcher,
}

/// Whether the schema's grid condition holds, and why.
fn grid(searcher: Option<&Json>) -> Option<Grid> {
    match searcher {
        None => Some(Grid::NoSearcher),
        Some(Json::Object(s)) => match s.get("name") {
            None => Some(Grid::Unnamed),
            Some(name) if name.as_str() == Some("grid") => Some(Grid::Named),
            Some(_) => None,
        },
        // `properties` says nothing about a value that is not a mapping.
        Some(_) => Some(Grid::Unnamed),
    }
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    let Some(why) = grid(ctx.get(&["searcher"])) else {
        return;
    };
    let searcher = path(&["searcher"]);
    let (label_span, label, because) = match why {
        Grid::Named => (
            ctx.value_span(&path(&["searcher", "name"])),
            "grid search selected here",
            "under grid search",
        ),
        Grid::Unnamed => (
            ctx.key_span(&searcher),
            "a searcher without `name`: Determined's grid checks apply",
            "while `searcher` has no `name`",
        ),
        Grid::NoSearcher => (
            ctx.key_span(&path(&["hyperparameters"])),
            "no `searcher`: Determined's grid checks apply",
            "while there is no `searcher`",
        ),
    };
    let unnamed_help = match why {
        Grid::Named => "",
        _ => "; or set `searcher.name` in this file (Determined checks this before merging a template)",
    };
    for (hp, map) in ctx.typed_hyperparameters(true) {
        let in_list = hp.iter().any(|s| matches!(s, crate::yaml::PathSeg::Index(_)));
        let kind = match map.get("type") {
            Some(Json::String(kind)) => kind.as_str(),
            // Outside lists the hyperparameter schema already refuses it.
            Some(other) if in_list => {
                let found = match other {
                    Json::Null => "null",
                    Json::Bool(_) => "a boolean",
                    Json::Number(_) => "a number",
                    Json::Array(_) => "a list",
                    _ => "a mapping",
                };
                let mut type_path = hp.clone();
                type_path.push(crate::yaml::PathSeg::Key("type".into()));
                out.at(
                    ctx.file,
                    ctx.value_span(&type_path),
                    format!("`{}` must be a string {because}, not {found}", display_path(&type_path)),
                )
                .label(ctx.file, label_span, label)
                .help("write the hyperparameter's type: `const`, `categorical`, `int`, `double` or `log`");
                continue;
            }
            _ => continue,
        };
        if !matches!(kind, "int" | "double" | "log") || is_set(map.get("count")) {
            continue;
        }
        let d = out
            .at(
                ctx.file,
                ctx.head_span(&hp),
                format!("`{}` ({kind}) needs a `count` {because}", display_path(&hp)),
            )
            .label(ctx.file, label_span, label)
            .help(format!(
                "add `count: N` to try N evenly spaced values between `minval` and `maxval`{}{unnamed_help}",
                if kind == "log" {
                    " (spaced evenly in the exponent)"
                } else {
                    ""
                }
            ));
        if let Some(edit) = crate::edit::insert_entry(ctx.file, ctx.text, ctx.tree, &hp, "count", PROPOSED_COUNT) {
            d.fix(format!("Add `count: {PROPOSED_COUNT}`"), vec![edit]);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::apply_fixes;

    const HEAD: &str = "name: g\nentrypoint: python3 train.py\nsearcher:\n  name: grid\n  metric: loss\ncheckpoint_storage:\n  type: shared_fs\n  host_path: /mnt/c\n";

    fn fixed(hps: &str) -> String {
        let (out, diags) = apply_fixes(&format!("{HEAD}{hps}"), "C206");
        let (again, after) = apply_fixes(&out, "C206");
        assert_eq!(again, out, "fixes are not idempotent");
        assert!(
            !after
                .iter()
                .any(|d| d.code == "C206" || d.severity == crate::Severity::Error),
            "{after:?}\n{out}"
        );
        assert!(diags.iter().any(|d| d.code == "C206"));
        out.strip_prefix(HEAD).unwrap_or(&out).to_string()
    }

    #[test]
    fn inserts_count_in_block_mappings() {
        assert_eq!(
            fixed("hyperparameters:\n  lr:\n    type: log\n    base: 10\n    minval: -5\n    maxval: -2  # exponents\n  wd: 1\n"),
            "hyperparameters:\n  lr:\n    type: log\n    base: 10\n    minval: -5\n    maxval: -2  # exponents\n    count: 5\n  wd: 1\n"
        );
    }

    #[test]
    fn inserts_count_in_flow_mappings_list_items_and_at_end_of_file() {
        assert_eq!(
            fixed("hyperparameters:\n  d: {type: double, minval: 0.1, maxval: 0.5}\n  layers:\n    - type: int\n      minval: 1\n      maxval: 3"),
            "hyperparameters:\n  d: {type: double, minval: 0.1, maxval: 0.5, count: 5}\n  layers:\n    - type: int\n      minval: 1\n      maxval: 3\n      count: 5"
        );
    }

    #[test]
    fn keeps_crlf_and_replaces_nothing_through_aliases() {
        let text = "hyperparameters:\r\n  a: &r\r\n    type: int\r\n    minval: 1\r\n    maxval: 3\r\n  b: *r\r\n";
        let (out, diags) = apply_fixes(&format!("{}{text}", HEAD.replace('\n', "\r\n")), "C206");
        assert!(out.contains("    maxval: 3\r\n    count: 5\r\n  b: *r"), "{out:?}");
        // `b` is an alias: reported, but not fixed separately.
        let b = diags
            .iter()
            .filter(|d| d.code == "C206")
            .filter(|d| d.fix.is_none())
            .count();
        assert_eq!(b, 1);
    }
}
