declare_rule! {
    /// ## What it checks
    /// That a stage's `params` in `stages.yaml` is a parameter count: a
    /// non-negative integer, or a number with a `K`, `M`, `B` or `T` suffix
    /// (`86M`, `1.3B`).
    ///
    /// ## Why
    /// stagec estimates each stage's memory from its parameter count; a count
    /// it cannot read would silently skip that check.
    ///
    /// ## Example
    /// ```yaml
    /// stages:
    ///   - id: 0
    ///     name: encoder
    ///     device: a100
    ///     dtype: bf16
    ///     params: 86 million   # error: write 86M
    /// ```
    pub static INVALID_PARAM_COUNT = {
        code: "P101",
        name: "invalid-param-count",
        family: Stages,
        severity: Error,
        summary: "A stage's `params` is not a parameter count",
    };
}

use super::{Cx, Sink};
use crate::stages::stages_yaml::{ParamsProblem, StagesIssue};

/// How to write a parameter count.
const PARAMS_HELP: &str = "write an integer, or a number with a `K`, `M`, `B` or `T` suffix such as `86M` or `1.3B`";

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        let text = cx.text(file);
        for issue in &unit.stages {
            let StagesIssue::Params { entry, at, problem } = issue else {
                continue;
            };
            let shown = text.get(at.start..at.end).unwrap_or("");
            let reason = match problem {
                ParamsProblem::Negative => format!("`{shown}` is negative"),
                ParamsProblem::TooLarge => format!("`{shown}` is larger than {}", u64::MAX),
                ParamsProblem::NotWhole => format!("`{shown}` is not a whole number of parameters"),
                ParamsProblem::LowercaseSuffix(c) => format!("`{shown}`: write the suffix in uppercase, `{c}`"),
                ParamsProblem::QuotedNumber => {
                    format!("`{shown}` is a quoted number: remove the quotes, or add a suffix")
                }
                ParamsProblem::EmptyString => "the value is an empty string".to_string(),
                ParamsProblem::NotACount => {
                    format!("`{shown}` is neither an integer nor a number with a `K`, `M`, `B` or `T` suffix")
                }
                ParamsProblem::WrongType(found) => {
                    format!("expected an integer or a string such as `86M`, found {found}")
                }
            };
            out.at(
                file,
                *at,
                format!("`stages[{entry}].params` is not a parameter count: {reason}"),
            )
            .help(PARAMS_HELP);
        }
    }
}
