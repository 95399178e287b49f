//! What a rule reads: [`Cx`], the compilation's facts with the questions
//! many rules ask of them (the config, the image, the stages' GPUs), and
//! [`Config`], the experiment config as rules read it, with path helpers.

use serde_json::Value as Json;

use crate::compiled::{Compiled, Role, Unit};
use crate::diagnostic::Diagnostic;
use crate::document::Document;
use crate::pipeline::Pipeline;
use crate::schema::value_span;
use crate::settings::Settings;
use crate::source::{FileId, Loc, Span};
use crate::stages::StageDecl;
use crate::vars::EnvLookup;
use crate::yaml::{Located, PathSeg, Tree, Value};

/// What a rule sees: the compilation's facts, how the environment is seen,
/// and whether every `${VAR}` must be set.
pub struct Cx<'a> {
    pub compiled: &'a Compiled,
    /// `${VAR}` lookups.
    pub env: EnvLookup<'a>,
    /// Whether an unset `${VAR}` is an error rather than a warning.
    pub require_variables: bool,
}

impl<'a> Cx<'a> {
    /// Every input file with its facts.
    pub fn units(&self) -> impl Iterator<Item = (FileId, &'a Unit)> + 'a {
        self.compiled
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| (FileId(i as u32), u))
    }

    /// Every YAML document (config, `stages.yaml`, YAML/JSON inventory).
    pub fn documents(&self) -> impl Iterator<Item = (FileId, Role, &'a Document)> + 'a {
        self.units()
            .filter_map(|(id, u)| u.yaml.as_ref().map(|d| (id, u.role, d)))
    }

    /// The text of a file.
    pub fn text(&self, file: FileId) -> &'a str {
        self.compiled.text(file)
    }

    /// The experiment config, when it parsed into a mapping.
    pub fn config(&self) -> Option<Config<'a>> {
        let file = self.compiled.config;
        let doc = self.compiled.config_document()?;
        Some(Config {
            file,
            text: self.text(file),
            tree: &doc.tree,
            json: doc.json.as_ref()?,
        })
    }

    /// The config's typed settings.
    pub fn settings(&self) -> Option<&'a Settings> {
        self.compiled.settings.as_ref()
    }

    /// The resolved pipeline.
    pub fn pipeline(&self) -> Option<&'a Pipeline> {
        self.compiled.pipeline.as_ref()
    }

    /// Every stage declaration.
    pub fn decls(&self) -> &'a [StageDecl] {
        &self.compiled.decls
    }

    /// The GPU stages' image, and where the config names it: the image's
    /// value, or the start of the config when Determined's default is used.
    pub fn image(&self) -> Option<(&'a crate::runtime::Runtime, Loc)> {
        let runtime = self.compiled.runtime.as_ref()?;
        let config = self.config()?;
        let span = match &runtime.source {
            crate::runtime::ImageSource::Config { path } => config.value_span(path),
            crate::runtime::ImageSource::Default { .. } => Span::at(0),
        };
        Some((
            runtime,
            Loc {
                file: config.file,
                span,
            },
        ))
    }

    /// What the stages need of an image: their GPUs' architectures and the
    /// PyTorch release their dtypes need.
    pub fn image_needs(&self) -> crate::runtime::Needs {
        let mut needs = crate::runtime::Needs::default();
        for (stage, ccs) in self.stage_architectures() {
            for (_, cc) in ccs {
                if !needs.ccs.contains(&cc) {
                    needs.ccs.push(cc);
                }
            }
            if let Some(v) = stage.dtype.and_then(crate::runtime::compat::torch_for_dtype) {
                needs.torch = needs.torch.max(Some(v));
            }
        }
        needs
    }

    /// A `help` naming the smallest image change that gives the stages
    /// what they need, and the fix that makes it.
    pub fn image_suggestion(&self, runtime: &crate::runtime::Runtime) -> Option<(String, String)> {
        let determined = match &runtime.source {
            crate::runtime::ImageSource::Default { determined } => determined.clone(),
            _ => crate::runtime::image::latest_determined().to_string(),
        };
        let image = crate::runtime::suggest(&runtime.reference, &self.image_needs(), &determined)?;
        Some((
            format!(
                "use an image that has it, e.g. `{}` ({})",
                image.reference,
                image.summary()
            ),
            image.reference,
        ))
    }

    /// What a diagnostic about the image (`image`, at `loc`) adds: a label
    /// where the experiment states the image's versions, the help of
    /// `suggestion` ([`Cx::image_suggestion`]) or else `otherwise`, and,
    /// for an image the config names and does not describe, the change as
    /// an unsafe fix.
    pub fn advise_image(
        &self,
        d: &mut Diagnostic,
        runtime: &crate::runtime::Runtime,
        loc: Loc,
        suggestion: &Option<(String, String)>,
        otherwise: impl FnOnce() -> String,
    ) {
        if runtime.stated {
            if let Some(config) = self.config() {
                let at = config.key_span(&crate::runtime::image_provides_path());
                d.label(config.file, at, "the image's versions, as stated here");
            }
        }
        match suggestion {
            Some((help, reference)) => {
                d.help(help.clone());
                if matches!(runtime.source, crate::runtime::ImageSource::Config { .. }) && !runtime.stated {
                    d.unsafe_fix(
                        format!("Use `{reference}`"),
                        vec![crate::diagnostic::Edit {
                            file: loc.file,
                            span: loc.span,
                            replacement: reference.clone(),
                        }],
                    );
                }
            }
            None => {
                d.help(otherwise());
            }
        }
    }

    /// Each stage with GPUs: the stage and the compute capabilities of its
    /// acceptable GPU types, by type (types the catalog does not know left
    /// out).
    pub fn stage_architectures(&self) -> Vec<(&'a crate::pipeline::Stage, Vec<(String, crate::runtime::Version)>)> {
        let Some(pipeline) = self.pipeline() else {
            return Vec::new();
        };
        pipeline
            .stages
            .iter()
            .filter(|s| !s.gpu_types.is_empty())
            .map(|s| {
                let mut ccs: Vec<(String, crate::runtime::Version)> = Vec::new();
                for t in &s.gpu_types {
                    for g in crate::hardware::catalog::resolve_quietly(t).resolution.variants() {
                        let cc = crate::runtime::Version::new(g.compute_capability.0, g.compute_capability.1);
                        if !ccs.iter().any(|(name, c)| name == t && *c == cc) {
                            ccs.push((t.clone(), cc));
                        }
                    }
                }
                (s, ccs)
            })
            .collect()
    }

    /// The training code, when it was looked for.
    pub fn training(&self) -> Option<&'a crate::training::Training> {
        self.compiled.training.as_ref()
    }
}

/// The experiment config as rules read it: its text, tree and JSON.
#[derive(Clone, Copy)]
pub struct Config<'a> {
    pub file: FileId,
    pub text: &'a str,
    pub tree: &'a Tree,
    pub json: &'a Json,
}

impl<'a> Config<'a> {
    /// The JSON value at `path`.
    pub fn get(&self, path: &[&str]) -> Option<&'a Json> {
        let mut v: &'a Json = self.json;
        for k in path {
            v = v.get(*k)?;
        }
        Some(v)
    }

    /// The JSON value at a path of keys and list indices.
    pub fn get_at(&self, path: &[PathSeg]) -> Option<&'a Json> {
        crate::schema::json_at(self.json, path)
    }

    /// Span of the value at `path` (its key when the value is empty).
    pub fn value_span(&self, path: &[PathSeg]) -> Span {
        value_span(self.tree, path)
    }

    /// The location of the value at `path`.
    pub fn loc(&self, path: &[PathSeg]) -> Loc {
        Loc {
            file: self.file,
            span: self.value_span(path),
        }
    }

    /// Span of the key naming the value at `path`.
    pub fn key_span(&self, path: &[PathSeg]) -> Span {
        match self.tree.locate(path).and_then(|l| l.key) {
            Some(k) => self.tree.span(k),
            None => self.value_span(path),
        }
    }

    /// Span of the key naming the value at `path`; for a list item (which
    /// has no key), the span of its first key, or of the item itself.
    pub fn head_span(&self, path: &[PathSeg]) -> Span {
        match self.tree.locate(path) {
            Some(Located { key: Some(k), .. }) => self.tree.span(k),
            Some(Located { node, key: None }) => match self.tree.entries(node).first() {
                Some(e) => self.tree.span(e.key),
                None => self.value_span(path),
            },
            None => self.value_span(path),
        }
    }

    /// Span of the scalar at `path` when it is written out in place (see
    /// [`crate::edit::own_node`]), for fixes that replace it.
    pub fn own_scalar_span(&self, path: &[PathSeg]) -> Option<Span> {
        let loc = crate::edit::own_node(self.tree, path)?;
        let node = self.tree.node(loc.node);
        match node.value {
            Value::Map(_) | Value::Seq(_) | Value::Alias(_) => None,
            _ if node.span.is_empty() => None,
            _ => Some(node.span),
        }
    }

    /// Every typed hyperparameter (a mapping with a `type` key) under
    /// `hyperparameters`, with its path, following nested mappings (such as
    /// `hpp_config`) and, when `through_lists`, lists too. The values of
    /// typed hyperparameters (`val`, `vals`) are not searched.
    pub fn typed_hyperparameters(&self, through_lists: bool) -> Vec<(Vec<PathSeg>, &'a serde_json::Map<String, Json>)> {
        fn walk<'j>(
            v: &'j Json,
            path: &mut Vec<PathSeg>,
            through_lists: bool,
            out: &mut Vec<(Vec<PathSeg>, &'j serde_json::Map<String, Json>)>,
        ) {
            if path.len() > 64 {
                return;
            }
            match v {
                Json::Object(map) if map.contains_key("type") => out.push((path.clone(), map)),
                Json::Object(map) => {
                    for (k, child) in map {
                        path.push(PathSeg::Key(k.clone()));
                        walk(child, path, through_lists, out);
                        path.pop();
                    }
                }
                Json::Array(items) if through_lists => {
                    for (i, child) in items.iter().enumerate() {
                        path.push(PathSeg::Index(i));
                        walk(child, path, through_lists, out);
                        path.pop();
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        if let Some(Json::Object(hps)) = self.json.get("hyperparameters") {
            let mut path = vec![PathSeg::Key("hyperparameters".into())];
            for (k, v) in hps {
                path.push(PathSeg::Key(k.clone()));
                walk(v, &mut path, through_lists, &mut out);
                path.pop();
            }
        }
        out
    }
}

/// The JSON types the schema of a document's `role` names at `path` of
/// `json` (`type` of every schema that applies there); `None` when the
/// role has no schema or no schema there names a type.
pub(crate) fn schema_types(role: Role, path: &[PathSeg], json: &Json) -> Option<Vec<String>> {
    let index = role.schema_index()?;
    let mut types = Vec::new();
    for schema in index.schemas_at(path, json) {
        match schema.get("type") {
            Some(Json::String(t)) => types.push(t.clone()),
            Some(Json::Array(ts)) => types.extend(ts.iter().filter_map(|t| t.as_str().map(String::from))),
            _ => {}
        }
    }
    (!types.is_empty()).then_some(types)
}

/// Builds a path from a prefix and one more key.
pub fn join(base: &[PathSeg], key: &str) -> Vec<PathSeg> {
    let mut p = base.to_vec();
    p.push(PathSeg::Key(key.to_string()));
    p
}

/// Builds a path from string keys.
pub fn path(keys: &[&str]) -> Vec<PathSeg> {
    keys.iter().map(|k| PathSeg::Key((*k).to_string())).collect()
}

/// Whether a JSON value is present and not null (Determined's
/// `eventuallyRequired` treats null as unset).
pub fn is_set(v: Option<&Json>) -> bool {
    v.is_some_and(|v| !v.is_null())
}
