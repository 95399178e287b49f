//! Go to definition between a config's `resources.custom.stage_<N>_gpus`
//! and stage N's declaration (a `@stage_decorator` class or a `stages.yaml`
//! entry), both ways.

use crate::project::is_stages_yaml;
use crate::source::Loc;
use crate::source::{FileId, SourceMap, Span};
use crate::stages::{from_python, python, stages_yaml, StageDecl};
use crate::yaml::{Budgets, PathSeg, Tree};

use super::cursor::node_at;
use super::hover::stage_gpus_id;

/// A stage id found under the cursor, and the text that names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageRef {
    pub id: i64,
    pub span: Span,
}

/// The stage declarations of every model source in `sources` (all files
/// but the config), as `project::check_project` reads them.
pub fn stage_decls(sources: &SourceMap, config: FileId) -> Vec<StageDecl> {
    let budgets = Budgets::default();
    let mut out = Vec::new();
    for (id, file) in sources.iter() {
        if id == config {
            continue;
        }
        let (decls, _) = if is_stages_yaml(&file.name) {
            stages_yaml::read_stages_yaml(id, &file.text, &budgets)
        } else {
            from_python::stage_decls(id, &python::read_model(&file.text))
        };
        out.extend(decls);
    }
    out
}

/// The `stage_<N>_gpus` key (or a GPU in its list) under the cursor.
pub fn config_stage_at(tree: &Tree, offset: usize) -> Option<StageRef> {
    let at = node_at(tree, offset)?;
    let id = stage_gpus_id(&at.path)?;
    let key = tree.locate(&at.path[..3])?.key?;
    Some(StageRef {
        id,
        span: tree.span(key),
    })
}

/// The stage declared under the cursor in a model source: a decorated
/// class (from its decorator to its name) or a `stages.yaml` entry.
pub fn model_stage_at(name: &str, text: &str, offset: usize) -> Option<StageRef> {
    if is_stages_yaml(name) {
        let (decls, _) = stages_yaml::read_stages_yaml(FileId(0), text, &Budgets::default());
        return decls
            .iter()
            .find(|d| d.decl.span.start <= offset && offset <= d.decl.span.end)
            .map(|d| StageRef {
                id: d.id.value,
                span: d.name.loc.span,
            });
    }
    let model = python::read_model(text);
    model.stage_classes.iter().find_map(|c| {
        let id = c.stage_id.as_ref()?.value;
        let start = c.decorator_span.start.min(c.name_span.start);
        let end = c.name_span.end.max(c.decorator_span.end);
        (start <= offset && offset <= end).then_some(StageRef {
            id,
            span: Span::new(c.name_span.start, c.name_span.end),
        })
    })
}

/// Where stage `id` is declared: the class name or the entry's name.
pub fn stage_targets(decls: &[StageDecl], id: i64) -> Vec<Loc> {
    decls.iter().filter(|d| d.id.value == id).map(|d| d.name.loc).collect()
}

/// The `stage_<id>_gpus` key in a config, if written.
pub fn stage_gpus_span(tree: &Tree, id: i64) -> Option<Span> {
    let path = [
        PathSeg::Key("resources".into()),
        PathSeg::Key("custom".into()),
        PathSeg::Key(format!("stage_{id}_gpus")),
    ];
    let key = tree.locate(&path)?.key?;
    Some(tree.span(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    #[test]
    fn both_ways() {
        let config = "resources:\n  custom:\n    stage_1_gpus: [h100]\n";
        let model = "@stage_decorator(stage_id=1, device=\"h100\")\nclass TransformerBlock(nn.Module):\n    pass\n";
        let (tree, _) = crate::yaml::parse(config, FileId(0), &Default::default());
        let r = config_stage_at(&tree, config.find("stage_1").unwrap_or(0) + 2);
        assert_eq!(r.map(|r| r.id), Some(1));
        let mut sources = SourceMap::new();
        let cfg = sources.add(SourceFile::new("const.yaml", config));
        sources.add(SourceFile::new("model.py", model));
        let decls = stage_decls(&sources, cfg);
        let targets = stage_targets(&decls, 1);
        assert_eq!(targets.len(), 1);
        let span = targets.first().map(|l| l.span).unwrap_or_default();
        assert_eq!(&model[span.start..span.end], "TransformerBlock");
        let back = model_stage_at("model.py", model, model.find("stage_id").unwrap_or(0));
        assert_eq!(back.map(|r| r.id), Some(1));
        let key = stage_gpus_span(&tree, 1).unwrap_or_default();
        assert_eq!(&config[key.start..key.end], "stage_1_gpus");
    }
}
