//! Go to definition between a config's `resources.custom.stage_<N>_gpus`
//! and stage N's declaration (a `@stage_decorator` class or a `stages.yaml`
//! entry), both ways.

use crate::source::{FileId, Loc, Span};
use crate::stages::{DeclSource, StageDecl};
use crate::yaml::{PathSeg, Tree};

use super::cursor::node_at;
use super::hover::stage_gpus_id;

/// A stage id found under the cursor, and the text that names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageRef {
    pub id: i64,
    pub span: Span,
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

/// The stage declared under the cursor in a model source (`file` of the
/// compilation that read `decls`): a decorated class, from its decorator to
/// its name, or a `stages.yaml` entry.
pub fn model_stage_at(decls: &[StageDecl], file: FileId, offset: usize) -> Option<StageRef> {
    decls.iter().filter(|d| d.decl.file == file).find_map(|d| {
        let covers = match d.source {
            DeclSource::Decorator => {
                let start = d.decl.span.start.min(d.name.loc.span.start);
                let end = d.name.loc.span.end.max(d.decl.span.end);
                start <= offset && offset <= end
            }
            DeclSource::StagesYaml => d.decl.span.start <= offset && offset <= d.decl.span.end,
            DeclSource::Implicit => false,
        };
        covers.then_some(StageRef {
            id: d.id.value,
            span: d.name.loc.span,
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
    use crate::project::{Input, Project};

    #[test]
    fn both_ways() {
        let config = "resources:\n  custom:\n    stage_1_gpus: [h100]\n";
        let model = "@stage_decorator(stage_id=1, device=\"h100\")\nclass TransformerBlock(nn.Module):\n    pass\n";
        let project = Project {
            models: Some(vec![Input {
                name: "model.py".into(),
                bytes: model.as_bytes().to_vec(),
            }]),
            ..Project::config_only("const.yaml", config)
        };
        let compiled = crate::compile(&project, &Default::default());
        let tree = compiled.config_tree().unwrap_or_else(|| panic!("no tree"));
        let r = config_stage_at(tree, config.find("stage_1").unwrap_or(0) + 2);
        assert_eq!(r.map(|r| r.id), Some(1));
        let targets = stage_targets(&compiled.decls, 1);
        assert_eq!(targets.len(), 1);
        let span = targets.first().map(|l| l.span).unwrap_or_default();
        assert_eq!(&model[span.start..span.end], "TransformerBlock");
        let back = model_stage_at(&compiled.decls, FileId(1), model.find("stage_id").unwrap_or(0));
        assert_eq!(back.map(|r| r.id), Some(1));
        let key = stage_gpus_span(tree, 1).unwrap_or_default();
        assert_eq!(&config[key.start..key.end], "stage_1_gpus");
    }
}
