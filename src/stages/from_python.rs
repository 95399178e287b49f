//! Stage declarations from a Python model read by [`super::python`].

use std::collections::BTreeSet;

use super::python::{Arg, PyModel};
use super::{DeclSource, StageDecl};
use crate::source::{FileId, Loc, Located, Span};

fn loc(file: FileId, r: &std::ops::Range<usize>) -> Loc {
    Loc {
        file,
        span: Span::new(r.start, r.end),
    }
}

fn located<T: Clone>(file: FileId, arg: &Arg<T>) -> Located<T> {
    Located {
        value: arg.value.clone(),
        loc: loc(file, &arg.span),
    }
}

/// The declarations in one model file. Its syntax errors and decorator
/// problems stay in the [`PyModel`] for the rules (`P102`, `P103`).
pub fn stage_decls(file: FileId, model: &PyModel) -> Vec<StageDecl> {
    let mut decls: Vec<StageDecl> = Vec::new();
    for class in &model.stage_classes {
        let Some(id) = &class.stage_id else { continue };
        decls.push(StageDecl {
            id: located(file, id),
            name: Located {
                value: class.class_name.clone(),
                loc: loc(file, &class.name_span),
            },
            decl: loc(file, &class.decorator_span),
            device: class.device.as_ref().map(|d| located(file, d)),
            dtype: class.dtype.as_ref().map(|d| located(file, d)),
            inputs: None,
            modules: vec![class.class_name.clone()],
            params: None,
            flops_per_sample: None,
            source: DeclSource::Decorator,
        });
    }
    // Undecorated submodules of the root model assigned after stage k form
    // stage k+1 when no class declares it.
    if let Some(root) = &model.root {
        let declared: BTreeSet<i64> = decls.iter().map(|d| d.id.value).collect();
        let stage_of = |idx: Option<usize>| {
            idx.and_then(|i| model.stage_classes.get(i))
                .and_then(|c| c.stage_id.as_ref())
                .map(|a| a.value)
        };
        let mut last: Option<i64> = None;
        let mut implicit: Option<StageDecl> = None;
        for m in &root.members {
            let nested_last = m.nested.iter().filter_map(|n| stage_of(n.stage_class)).max();
            if let Some(id) = stage_of(m.stage_class).or(nested_last) {
                last = Some(last.map_or(id, |l| l.max(id)));
                continue;
            }
            let Some(k) = last else { continue };
            let Some(id) = k.checked_add(1) else { continue };
            if declared.contains(&id) {
                continue;
            }
            match implicit.as_mut().filter(|d| d.id.value == id) {
                Some(d) => d.modules.push(format!("{} = {}", m.attr, m.constructor)),
                None => {
                    if let Some(done) = implicit.take() {
                        decls.push(done);
                    }
                    implicit = Some(StageDecl {
                        id: Located {
                            value: id,
                            loc: loc(file, &m.attr_span),
                        },
                        name: Located {
                            value: m.attr.clone(),
                            loc: loc(file, &m.attr_span),
                        },
                        decl: loc(file, &m.span),
                        device: None,
                        dtype: None,
                        inputs: None,
                        modules: vec![format!("{} = {}", m.attr, m.constructor)],
                        params: None,
                        flops_per_sample: None,
                        source: DeclSource::Implicit,
                    });
                }
            }
        }
        if let Some(done) = implicit {
            decls.push(done);
        }
    }
    decls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_notes_model_has_an_implicit_third_stage() {
        let text = include_str!("../../examples/hpp-seed/model.py");
        let model = super::super::python::read_model(text);
        assert!(model.syntax_errors.is_empty() && model.problems.is_empty(), "{model:?}");
        let decls = stage_decls(FileId(1), &model);
        let summary: Vec<(i64, &str, DeclSource)> = decls
            .iter()
            .map(|d| (d.id.value, d.name.value.as_str(), d.source))
            .collect();
        assert_eq!(
            summary,
            [
                (0, "VisionEncoder", DeclSource::Decorator),
                (1, "TransformerBlock", DeclSource::Decorator),
                (2, "classifier", DeclSource::Implicit)
            ]
        );
        let dtype = decls[1].dtype.as_ref().map(|d| &text[d.loc.span.start..d.loc.span.end]);
        assert_eq!(dtype, Some("torch.float8_e4m3fn"));
    }
}
