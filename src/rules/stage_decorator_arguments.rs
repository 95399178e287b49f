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
use crate::stages::python::PyProblemKind;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        let Some(model) = &unit.python else { continue };
        for p in &model.problems {
            if !matches!(p.kind, PyProblemKind::ParserUnavailable) {
                out.at(file, Span::new(p.span.start, p.span.end), p.message.clone());
            }
        }
    }
}
