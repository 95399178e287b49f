declare_rule! {
    /// ## What it checks
    /// That the model files stagec reads for stage declarations parse as Python.
    /// stagec reads them statically with tree-sitter (it never imports or runs
    /// them) and keeps every declaration it can still find.
    ///
    /// ## Why
    /// A syntax error in `model.py` fails the trial at import time on the cluster,
    /// after queueing and image pulls. stagec reports it before submission.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=0, device="a100", dtype=torch.float16
    /// class VisionEncoder(nn.Module):   # error: `(` never closed
    /// ```
    pub static PYTHON_SYNTAX = {
        code: "P102",
        name: "python-syntax",
        family: Stages,
        severity: Error,
        summary: "A model file has a Python syntax error",
    };
}

use super::{Cx, Sink};
use crate::source::Span;
use crate::stages::python::PyProblemKind;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        let Some(model) = &unit.python else { continue };
        for e in &model.syntax_errors {
            out.at(
                file,
                Span::new(e.span.start, e.span.end),
                format!("Python syntax error: {}", e.message),
            )
            .help("the trial would fail when it imports this file; stagec still reads the declarations it can");
        }
        for p in &model.problems {
            if matches!(p.kind, PyProblemKind::ParserUnavailable) {
                out.at(file, Span::at(0), p.message.clone());
            }
        }
    }
}
