//! Completion items: keys valid at the cursor (not already present), enum
//! values and union tags from the schema, GPU types from the catalog and
//! dtype names.

use serde_json::Value as Json;

use crate::schema::{experiment, SchemaIndex};
use crate::source::Span;
use crate::yaml::PathSeg;

use super::cursor::{yaml_context, Slot, YamlContext};
use super::hover::{allowed_values, key_doc, stage_gpus_id, yaml_scalar};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// A mapping key.
    Key,
    /// A value the schema enumerates.
    Value,
    /// A GPU type from the catalog.
    Gpu,
    /// A dtype name.
    Dtype,
}

/// One completion item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    /// A short type or category.
    pub detail: Option<String>,
    /// Markdown documentation (the schema description).
    pub documentation: Option<String>,
    pub insert_text: String,
    /// The text the item replaces (the word typed so far).
    pub replace: Span,
}

/// Completions in an experiment config. `json` is the document (or its last
/// version that parsed) as JSON, to choose union branches.
pub fn complete_config(text: &str, json: Option<&Json>, offset: usize) -> Vec<Completion> {
    let null = Json::Null;
    let json = json.unwrap_or(&null);
    let ctx = yaml_context(text, offset);
    complete_yaml(experiment(), &ctx, json, true)
}

/// Completions in a `stages.yaml`.
pub fn complete_stages_yaml(text: &str, offset: usize) -> Vec<Completion> {
    let ctx = yaml_context(text, offset);
    complete_yaml(crate::stages::stages_yaml::stages_index(), &ctx, &Json::Null, false)
}

fn complete_yaml(index: &SchemaIndex, ctx: &YamlContext, json: &Json, is_config: bool) -> Vec<Completion> {
    let mut out = Vec::new();
    match &ctx.slot {
        Slot::Key => keys(index, &ctx.path, json, ctx, is_config, &mut out),
        Slot::Value { key, flow_item } => {
            let mut path = ctx.path.clone();
            path.push(PathSeg::Key(key.clone()));
            if *flow_item {
                path.push(PathSeg::Index(0));
            }
            values(index, &path, json, ctx.replace, is_config, &mut out);
        }
        Slot::SeqItem => {
            let mut path = ctx.path.clone();
            path.push(PathSeg::Index(0));
            values(index, &path, json, ctx.replace, is_config, &mut out);
            keys(index, &path, json, ctx, is_config, &mut out);
        }
    }
    out
}

fn keys(
    index: &SchemaIndex,
    path: &[PathSeg],
    json: &Json,
    ctx: &YamlContext,
    is_config: bool,
    out: &mut Vec<Completion>,
) {
    for (name, _) in index.properties_at(path, json) {
        if ctx.siblings.iter().any(|s| s == name) {
            continue;
        }
        let mut child = path.to_vec();
        child.push(PathSeg::Key(name.to_string()));
        let doc = key_doc(index, &child, json);
        out.push(Completion {
            label: name.to_string(),
            kind: CompletionKind::Key,
            detail: (!doc.types.is_empty()).then(|| doc.types.join(" | ")),
            documentation: doc.description,
            insert_text: format!("{name}: "),
            replace: ctx.replace,
        });
    }
    let in_custom = matches!(path, [PathSeg::Key(r), PathSeg::Key(c)] if r == "resources" && c == "custom");
    if is_config && in_custom {
        let degree = json
            .pointer("/hyperparameters/hpp_config/pipeline_parallel_degree")
            .and_then(|v| v.as_u64().or_else(|| v.get("val").and_then(Json::as_u64)))
            .unwrap_or(1)
            .clamp(1, 64);
        for n in 0..degree {
            let name = format!("stage_{n}_gpus");
            if ctx.siblings.contains(&name) {
                continue;
            }
            out.push(Completion {
                label: name.clone(),
                kind: CompletionKind::Key,
                detail: Some("GPU types of stage ".to_string() + &n.to_string()),
                documentation: Some(format!(
                    "GPU types stage {n} may run on, most preferred first, e.g. `{name}: [\"a100-80g\"]`."
                )),
                insert_text: format!("{name}: "),
                replace: ctx.replace,
            });
        }
    }
}

fn values(
    index: &SchemaIndex,
    path: &[PathSeg],
    json: &Json,
    replace: Span,
    is_config: bool,
    out: &mut Vec<Completion>,
) {
    let last_key = path.iter().rev().find_map(|s| match s {
        PathSeg::Key(k) => Some(k.as_str()),
        PathSeg::Index(_) => None,
    });
    if (is_config && stage_gpus_id(path).is_some()) || (!is_config && last_key == Some("device")) {
        out.extend(gpu_items(replace));
        return;
    }
    if matches!(last_key, Some("default_dtype" | "dtype")) {
        out.extend(dtype_items(replace, false));
        return;
    }
    for v in allowed_values(index, path, json) {
        let text = yaml_scalar(&v);
        out.push(Completion {
            label: text.clone(),
            kind: CompletionKind::Value,
            detail: None,
            documentation: None,
            insert_text: text,
            replace,
        });
    }
    let doc = key_doc(index, path, json);
    if doc.types.iter().any(|t| t == "boolean") {
        for b in ["true", "false"] {
            out.push(Completion {
                label: b.into(),
                kind: CompletionKind::Value,
                detail: Some("boolean".into()),
                documentation: None,
                insert_text: b.into(),
                replace,
            });
        }
    }
}

/// GPU type names from the catalog.
pub fn gpu_items(replace: Span) -> Vec<Completion> {
    crate::hardware::catalog::known_names()
        .into_iter()
        .map(|name| Completion {
            label: name.to_string(),
            kind: CompletionKind::Gpu,
            detail: Some("GPU type".into()),
            documentation: None,
            insert_text: name.to_string(),
            replace,
        })
        .collect()
}

/// Dtype names; `python` puts the `torch.*` spellings first.
pub fn dtype_items(replace: Span, python: bool) -> Vec<Completion> {
    let mut names = crate::dtype::all_names();
    if python {
        names.sort_by_key(|n| !n.starts_with("torch."));
    }
    names
        .into_iter()
        .map(|name| Completion {
            label: name.to_string(),
            kind: CompletionKind::Dtype,
            detail: crate::dtype::parse(name).map(|d| format!("dtype {d}")),
            documentation: None,
            insert_text: name.to_string(),
            replace,
        })
        .collect()
}

/// Completions in a Python model: GPU types after `device=` and dtypes
/// after `dtype=` (as in `@stage_decorator(stage_id=0, device="a100",
/// dtype=torch.bfloat16)`).
pub fn complete_python(text: &str, offset: usize) -> Vec<Completion> {
    let offset = crate::source::floor_char_boundary(text, offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let word_start = before.rfind([' ', '"', '\'', '(', ',', '=', '\t']).map_or(0, |i| i + 1);
    let replace = Span::new(line_start + word_start, offset);
    let lead = before[..word_start].trim_end_matches(['"', '\'']).trim_end();
    let Some(lead) = lead.strip_suffix('=') else {
        return Vec::new();
    };
    let keyword = lead.trim_end();
    let keyword = &keyword[keyword
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1)..];
    match keyword {
        "device" => gpu_items(replace),
        "dtype" => dtype_items(replace, true),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(text_with_cursor: &str) -> Vec<Completion> {
        let offset = text_with_cursor.find('|').unwrap_or(0);
        let text = text_with_cursor.replacen('|', "", 1);
        complete_config(&text, None, offset)
    }

    fn labels(items: &[Completion]) -> Vec<&str> {
        items.iter().map(|c| c.label.as_str()).collect()
    }

    #[test]
    fn top_level_keys_not_present() {
        let items = complete("name: x\ncheck|\n");
        let l = labels(&items);
        assert!(l.contains(&"checkpoint_storage"), "{l:?}");
        assert!(!l.contains(&"name"));
        let item = items.iter().find(|c| c.label == "checkpoint_storage");
        assert_eq!(item.map(|c| c.replace), Some(Span::new(8, 13)));
    }

    #[test]
    fn enum_values() {
        let l = complete("searcher:\n  name: |\n");
        assert!(
            labels(&l).contains(&"adaptive_asha") && labels(&l).contains(&"grid"),
            "{:?}",
            labels(&l)
        );
        let l = complete("hyperparameters:\n  lr:\n    type: |\n");
        assert!(
            labels(&l).contains(&"log") && labels(&l).contains(&"categorical"),
            "{:?}",
            labels(&l)
        );
        let l = complete("hyperparameters:\n  hpp_config:\n    gradient_normalization: |\n");
        assert_eq!(labels(&l), vec!["per-stage", "global"]);
        let l = complete("hyperparameters:\n  hpp_config:\n    schedule: |\n");
        assert!(labels(&l).contains(&"1f1b"), "{:?}", labels(&l));
        let l = complete("hyperparameters:\n  hpp_config:\n    default_dtype: b|\n");
        assert!(labels(&l).contains(&"bf16"));
    }

    #[test]
    fn gpus_and_dtypes() {
        let l = complete("resources:\n  custom:\n    stage_0_gpus: [\"|\n");
        assert!(labels(&l).contains(&"a100"), "{:?}", labels(&l));
        let l = complete("resources:\n  custom:\n    stage_0_gpus:\n      - |\n");
        assert!(labels(&l).contains(&"h100"));
        let py = "@stage_decorator(stage_id=0, device=\"a1";
        assert!(labels(&complete_python(py, py.len())).contains(&"a100"));
        let py = "@stage_decorator(stage_id=0, dtype=torch.f";
        let items = complete_python(py, py.len());
        assert_eq!(items.first().map(|c| c.label.starts_with("torch.")), Some(true));
        assert_eq!(items.first().map(|c| c.replace.start), py.find("torch"));
    }
}
