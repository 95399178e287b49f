declare_rule! {
    /// ## What it checks
    /// That each `@stage_decorator(...)` gives `stage_id` as an integer literal,
    /// `device` as a string literal and `dtype` as a dtype (`torch.bfloat16`, a
    /// name or a string), by keyword or in that order, once each.
    ///
    /// ## Why
    /// stagec builds the stage graph from these arguments without running the
    /// code; a computed or missing argument cannot be checked, and a duplicated one
    /// is a `TypeError` when the model is imported.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=STAGE, device="a100")   # error: stage_id not a literal; dtype missing
    /// class Encoder(nn.Module): ...
    /// ```
    pub static STAGE_DECORATOR_ARGUMENTS = {
        code: "P103",
        name: "stage-decorator-arguments",
        family: Stages,
        severity: Error,
        summary: "A stage decorator's arguments cannot be read",
    };
}

use super::{Cx, Sink};
use crate::source::Span;
use crate::stages::python::{NotLiteral, PyProblemKind, StageParam, STAGE_DECORATOR};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        let Some(model) = &unit.python else { continue };
        for p in &model.problems {
            let message = match &p.kind {
                PyProblemKind::ParserUnavailable(_) => continue,
                PyProblemKind::DecoratorNotCalled => format!(
                    "`@{STAGE_DECORATOR}` must be called with arguments: `@{STAGE_DECORATOR}(stage_id=…, device=\"…\", dtype=…)`"
                ),
                PyProblemKind::DuplicateDecorator => {
                    "a class may carry only one stage decorator; only the first is used".to_string()
                }
                PyProblemKind::GeneratorArguments => {
                    "stage decorator arguments must be literals, not a generator expression".to_string()
                }
                PyProblemKind::Unpacked(arg) => format!(
                    "`{arg}` cannot be read statically; pass stage_id, device and dtype as literal arguments"
                ),
                PyProblemKind::UnknownKeyword(key) => {
                    format!("unknown stage decorator argument `{key}`; expected `stage_id`, `device` or `dtype`")
                }
                PyProblemKind::TooManyPositional => {
                    "the stage decorator takes at most 3 positional arguments (stage_id, device, dtype)".to_string()
                }
                PyProblemKind::PositionalAfterKeyword => "positional argument follows keyword argument".to_string(),
                PyProblemKind::DuplicateArgument(param) => format!("`{}` is given more than once", param.name()),
                PyProblemKind::MissingArgument(param) => format!("stage decorator is missing `{}`", param.name()),
                PyProblemKind::InvalidValue(param, why) => invalid_value(*param, why),
                PyProblemKind::StageIdOutOfRange(value) => {
                    format!("`stage_id` {value} does not fit in a 64-bit integer")
                }
            };
            out.at(file, Span::new(p.span.start, p.span.end), message);
        }
    }
}

fn invalid_value(param: StageParam, why: &NotLiteral) -> String {
    let why = match why {
        NotLiteral::Found(excerpt) => format!("found `{excerpt}`"),
        NotLiteral::Incomplete => "found an incomplete expression".to_string(),
        NotLiteral::FString => "f-strings are not allowed".to_string(),
        NotLiteral::Bytes => "bytes literals are not allowed".to_string(),
        NotLiteral::IncompleteString => "the string is incomplete".to_string(),
        NotLiteral::Unterminated => "the string is not terminated".to_string(),
    };
    match param {
        StageParam::StageId => format!("`stage_id` must be an integer literal, {why}"),
        StageParam::Device => format!("`device` must be a plain string literal like \"a100\"; {why}"),
        StageParam::Dtype => {
            format!("`dtype` must be a dtype name like `torch.float16` or a string literal like \"bf16\"; {why}")
        }
    }
}
