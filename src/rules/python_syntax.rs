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
use crate::stages::python::{PyProblemKind, SyntaxErrorKind};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, unit) in cx.units() {
        let Some(model) = &unit.python else { continue };
        for e in &model.syntax_errors {
            let what = match &e.kind {
                SyntaxErrorKind::Unclosed(bracket) => format!("unclosed `{bracket}`"),
                SyntaxErrorKind::Missing(kind) if kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                    format!("missing {}", kind.trim_start_matches('_'))
                }
                SyntaxErrorKind::Missing(token) => format!("missing `{token}`"),
                SyntaxErrorKind::Invalid(near) if near.is_empty() => "invalid syntax".to_string(),
                SyntaxErrorKind::Invalid(near) => format!("invalid syntax near `{near}`"),
            };
            out.at(
                file,
                Span::new(e.span.start, e.span.end),
                format!("Python syntax error: {what}"),
            )
            .help("the trial would fail when it imports this file; stagec still reads the declarations it can");
        }
        for p in &model.problems {
            if let PyProblemKind::ParserUnavailable(why) = &p.kind {
                let message = match why {
                    Some(why) => format!("cannot load the Python grammar: {why}"),
                    None => "the Python parser gave up on this file".to_string(),
                };
                out.at(file, Span::at(0), message);
            }
        }
    }
}
