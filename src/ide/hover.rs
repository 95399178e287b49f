//! Hover text: a key's documentation from the schema (description, type,
//! default, allowed values) and, on a stage's GPU list or declaration, the
//! stage as resolved.

use serde_json::Value as Json;

use crate::dtype::CastRisk;
use crate::pipeline::{Pipeline, Stage};
use crate::runtime::image::Resolution;
use crate::runtime::{ImageSource, Runtime};
use crate::schema::{experiment, SchemaIndex};
use crate::source::Span;
use crate::stages::DeclSource;
use crate::yaml::{display_path, PathSeg, Tree};

use super::cursor::node_at;

/// Markdown to show over `span`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    pub span: Span,
    pub markdown: String,
}

/// What the schema says about one key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyDoc {
    pub description: Option<String>,
    /// Type names (`integer`, `string`, `object`…), without `null`.
    pub types: Vec<String>,
    pub default: Option<Json>,
    /// Values the schema enumerates (enums, union tags).
    pub allowed: Vec<Json>,
}

/// Hover on an experiment config at `offset`. `json` is the document as
/// JSON (it selects union branches, e.g. the searcher by its `name`);
/// `pipeline` the resolved stages, when the project was checked; `runtime`
/// the resolved image.
pub fn hover_config(
    tree: &Tree,
    json: Option<&Json>,
    pipeline: Option<&Pipeline>,
    runtime: Option<&Runtime>,
    offset: usize,
) -> Option<Hover> {
    let at = node_at(tree, offset)?;
    let key = at.key?;
    let span = if at.on_key { tree.span(key) } else { tree.span(at.node) };
    if at.path.is_empty() {
        return None;
    }
    let null = Json::Null;
    let json = json.unwrap_or(&null);
    let mut markdown = String::new();
    if let Some(id) = stage_gpus_id(&at.path) {
        if let Some(stage) = pipeline.and_then(|p| p.stages.iter().find(|s| s.id == id)) {
            markdown.push_str(&stage_markdown(pipeline?, stage));
            markdown.push_str("\n---\n\n");
        }
    }
    if let Some(runtime) = runtime {
        let image_path = matches!(&runtime.source, ImageSource::Config { path } if *path == at.path);
        if image_path {
            markdown.push_str(&image_markdown(runtime));
            markdown.push_str("\n---\n\n");
        }
    }
    let doc = key_doc(experiment(), &at.path, json);
    markdown.push_str(&key_markdown(&at.path, &doc));
    // The image reference and the stage as resolved come from the config:
    // a token written there is not shown.
    let markdown = crate::secrets::redact(&markdown).into_owned();
    Some(Hover { span, markdown })
}

/// The image as resolved: its versions, its PyTorch build, the driver it
/// needs.
pub fn image_markdown(runtime: &Runtime) -> String {
    let mut out = format!("**Image** `{}`\n\n", runtime.reference);
    let facts = match &runtime.facts {
        Ok(facts) => facts,
        Err(_) => {
            out.push_str("- versions unknown to stagec: state them in `hyperparameters.hpp_config.image_provides`\n");
            return out;
        }
    };
    let how = match &facts.resolution {
        Resolution::KnownTag => "a tag stagec's tables know".to_string(),
        Resolution::Pattern { .. } => "read from the tag".to_string(),
        Resolution::Ngc { release } => format!("NGC PyTorch {release}"),
        Resolution::NgcBased { release } => format!("built on NGC PyTorch {release}"),
        Resolution::Stated => "as `hpp_config.image_provides` states".to_string(),
    };
    out.push_str(&format!("- {} ({how})\n", facts.summary()));
    if !facts.published {
        out.push_str("- not a published tag\n");
    }
    if let Some(list) = &facts.arch_list {
        out.push_str(&format!("- PyTorch built for: {} ({})\n", list.display(), list.build));
    }
    if let Some(driver) = facts.built_for_driver {
        out.push_str(&format!("- built for driver {driver}\n"));
    }
    if let Some(min) = facts.cuda.and_then(crate::runtime::compat::min_driver) {
        out.push_str(&format!(
            "- needs driver {min} or later (CUDA {})\n",
            facts.cuda.map(|c| c.major_minor().to_string()).unwrap_or_default()
        ));
    }
    out
}

/// Hover on a stage declaration (a decorator, a `stages.yaml` entry):
/// the resolved stage with id `id`, if the pipeline has it.
pub fn hover_stage(pipeline: &Pipeline, id: i64, span: Span) -> Option<Hover> {
    let stage = pipeline.stages.iter().find(|s| s.id == id)?;
    Some(Hover {
        span,
        markdown: stage_markdown(pipeline, stage),
    })
}

/// `N` of `resources.custom.stage_<N>_gpus` (or of an item of it).
pub fn stage_gpus_id(path: &[PathSeg]) -> Option<i64> {
    match path {
        [PathSeg::Key(r), PathSeg::Key(c), PathSeg::Key(k), ..] if r == "resources" && c == "custom" => {
            k.strip_prefix("stage_")?.strip_suffix("_gpus")?.parse().ok()
        }
        _ => None,
    }
}

/// The schema's documentation of the key at `path`.
pub fn key_doc(index: &SchemaIndex, path: &[PathSeg], json: &Json) -> KeyDoc {
    let mut doc = KeyDoc::default();
    for s in index.schemas_at(path, json) {
        if doc.description.is_none() {
            doc.description = s.get("description").and_then(Json::as_str).map(str::to_string);
        }
        if doc.default.is_none() {
            doc.default = s.get("default").cloned();
        }
        match s.get("type") {
            Some(Json::String(t)) => push_type(&mut doc.types, t),
            Some(Json::Array(ts)) => ts
                .iter()
                .filter_map(Json::as_str)
                .for_each(|t| push_type(&mut doc.types, t)),
            _ => {}
        }
    }
    doc.allowed = allowed_values(index, path, json);
    doc
}

fn push_type(types: &mut Vec<String>, t: &str) {
    if t != "null" && !types.iter().any(|x| x == t) {
        types.push(t.to_string());
    }
}

/// Values the schema enumerates at `path`: `enum` lists and the constants
/// of union tags, over every branch (the value written there is ignored, so
/// `searcher.name` offers every searcher).
pub fn allowed_values(index: &SchemaIndex, path: &[PathSeg], json: &Json) -> Vec<Json> {
    let mut instance = json.clone();
    remove_at(&mut instance, path);
    let mut out: Vec<Json> = Vec::new();
    for s in index.schemas_at(path, &instance) {
        let mut push = |v: &Json| {
            if !v.is_null() && !out.contains(v) {
                out.push(v.clone());
            }
        };
        if let Some(values) = s.get("enum").and_then(Json::as_array) {
            values.iter().for_each(&mut push);
        }
        if let Some(c) = s.get("const") {
            push(c);
        }
    }
    out
}

fn remove_at(json: &mut Json, path: &[PathSeg]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut here = json;
    for seg in parents {
        let next = match (seg, here) {
            (PathSeg::Key(k), Json::Object(o)) => o.get_mut(k),
            (PathSeg::Index(i), Json::Array(a)) => a.get_mut(*i),
            _ => None,
        };
        match next {
            Some(n) => here = n,
            None => return,
        }
    }
    if let (PathSeg::Key(k), Json::Object(o)) = (last, here) {
        o.remove(k);
    }
}

/// Renders a JSON value the way it is written in YAML.
pub fn yaml_scalar(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn key_markdown(path: &[PathSeg], doc: &KeyDoc) -> String {
    let mut out = format!("**`{}`**", display_path(path));
    if !doc.types.is_empty() {
        out.push_str(&format!(" — {}", doc.types.join(" | ")));
    }
    out.push_str("\n\n");
    if let Some(d) = &doc.description {
        out.push_str(d);
        out.push_str("\n\n");
    }
    if let Some(def) = &doc.default {
        out.push_str(&format!("Default: `{}`\n\n", yaml_scalar(def)));
    }
    if !doc.allowed.is_empty() {
        let list: Vec<String> = doc.allowed.iter().map(|v| format!("`{}`", yaml_scalar(v))).collect();
        out.push_str(&format!("Allowed values: {}\n\n", list.join(", ")));
    }
    out.trim_end().to_string()
}

/// The resolved stage: device, dtype, GPU count, ranks and boundary casts.
pub fn stage_markdown(pipeline: &Pipeline, stage: &Stage) -> String {
    let source = match stage.source {
        DeclSource::Decorator => "`@stage_decorator`",
        DeclSource::Implicit => "implicit (undecorated submodule)",
        DeclSource::StagesYaml => "`stages.yaml`",
    };
    let mut out = format!(
        "**Stage {} — `{}`** ({} of {}, declared by {source})\n\n",
        stage.id,
        stage.name,
        stage_position(pipeline, stage),
        pipeline.degree
    );
    let devices = if stage.gpu_types.is_empty() {
        "not set".to_string()
    } else {
        stage
            .gpu_types
            .iter()
            .map(|g| format!("`{g}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push_str(&format!("- device: {devices}\n"));
    let dtype = stage
        .dtype
        .map_or("framework default".to_string(), |d| format!("`{d}`"));
    out.push_str(&format!("- dtype: {dtype}\n"));
    match pipeline.data_parallel {
        Some(d) => {
            // At most eight ranks: a world can be millions.
            let mut ranks: Vec<String> = pipeline
                .ranks_of(stage_position(pipeline, stage) - 1)
                .take(8)
                .map(|r| r.to_string())
                .collect();
            if d > 8 {
                ranks.push(format!("… ({} more)", d - 8));
            }
            let p = pipeline.degree;
            out.push_str(&format!(
                "- GPUs: {d} (one per data-parallel replica)\n- ranks: {} (rank = replica × {p} + stage position)\n",
                ranks.join(", ")
            ));
        }
        None => out.push_str("- GPUs: unknown (`slots_per_trial` does not divide by the stage count)\n"),
    }
    if !stage.inputs.is_empty() {
        let inputs: Vec<String> = stage.inputs.iter().map(|i| format!("stage {i}")).collect();
        out.push_str(&format!("- inputs: {}\n", inputs.join(", ")));
    }
    let casts: Vec<String> = pipeline
        .boundaries
        .iter()
        .filter(|b| b.from == stage.id || b.to == stage.id)
        .map(|b| {
            format!(
                "stage {} → {}: `{}` → `{}` ({})",
                b.from,
                b.to,
                b.from_dtype,
                b.to_dtype,
                risk_text(&b.risk)
            )
        })
        .collect();
    if casts.is_empty() {
        out.push_str("- boundary casts: none\n");
    } else {
        out.push_str("- boundary casts:\n");
        for c in casts {
            out.push_str(&format!("  - {c}\n"));
        }
    }
    out.trim_end().to_string()
}

fn stage_position(pipeline: &Pipeline, stage: &Stage) -> usize {
    pipeline
        .stages
        .iter()
        .position(|s| s.id == stage.id)
        .map_or(1, |p| p + 1)
}

fn risk_text(risk: &CastRisk) -> String {
    match risk {
        CastRisk::Exact => "exact".into(),
        CastRisk::PrecisionLoss => "precision loss".into(),
        CastRisk::RangeLoss { from_max, to_max } => format!("range loss: ±{from_max} → ±{to_max}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_docs_from_schema() {
        let text = "resources:\n  slots_per_trial: 8\nsearcher:\n  name: grid\n";
        let (tree, _) = crate::yaml::parse(text, &Default::default());
        let json = tree.root().and_then(|r| tree.to_json(r, 1000));
        let h = hover_config(&tree, json.as_ref(), None, None, text.find("slots").unwrap_or(0));
        let md = h.map(|h| h.markdown).unwrap_or_default();
        assert!(md.contains("Number of slots"), "{md}");
        assert!(md.contains("integer") && md.contains("Default: `1`"), "{md}");
        let h = hover_config(&tree, json.as_ref(), None, None, text.find("name").unwrap_or(0));
        let md = h.map(|h| h.markdown).unwrap_or_default();
        assert!(md.contains("`adaptive_asha`") && md.contains("`random`"), "{md}");
    }

    #[test]
    fn the_image_shows_what_it_provides() {
        let text = "name: x\nentrypoint: python3 train.py\nenvironment:\n  image: determinedai/environments:py-3.9-pt-1.13-cu117\n";
        let compiled = crate::check_experiment("c.yaml", text.as_bytes(), &Default::default());
        let doc = compiled.config_document().unwrap_or_else(|| panic!("parsed"));
        let offset = text.find("determinedai").unwrap_or(0) + 3;
        let h = hover_config(&doc.tree, doc.json.as_ref(), None, compiled.runtime.as_ref(), offset)
            .unwrap_or_else(|| panic!("a hover"));
        assert!(
            h.markdown.contains("CUDA 11.7, PyTorch 1.13, Python 3.9"),
            "{}",
            h.markdown
        );
        assert!(h.markdown.contains("sm_86"), "{}", h.markdown);
        assert!(h.markdown.contains("not a published tag"), "{}", h.markdown);
        assert!(h.markdown.contains("needs driver 515.43.04"), "{}", h.markdown);
        // Elsewhere, no image section.
        let h = hover_config(&doc.tree, doc.json.as_ref(), None, compiled.runtime.as_ref(), 1)
            .unwrap_or_else(|| panic!("a hover"));
        assert!(!h.markdown.contains("**Image**"));
    }
}
