//! The multi-file front door: an experiment config with its model sources
//! (`*.py` with `@stage_decorator`, `stages.yaml`) and, optionally, a
//! cluster inventory. The caller reads the files; this module only sees
//! their names and bytes.

use crate::check::{check_text, decode, Checked, Options};
use crate::diagnostic::{sort_and_dedup, Diagnostic};
use crate::graph::{self, GraphInput};
use crate::hardware::inventory::{read_inventory, Inventory};
use crate::source::{FileId, SourceFile, SourceMap};
use crate::stages::{from_python, python, stages_yaml, StageDecl};
use crate::suppress;

/// One file as given: the name to report it under and its bytes.
#[derive(Clone, Debug)]
pub struct Input {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What to check together.
#[derive(Clone, Debug)]
pub struct Project {
    pub config: Input,
    /// Model sources: `.py` files are read for decorators, `.yaml`/`.yml`
    /// files as `stages.yaml`.
    pub models: Vec<Input>,
    pub inventory: Option<Input>,
    /// The probed host, used as the inventory (`--probe`).
    pub probe: Option<crate::hardware::probe::ProbeReport>,
    /// Where the model sources were looked for, for messages.
    pub searched: String,
}

/// Whether a model input is a `stages.yaml` (else Python).
pub fn is_stages_yaml(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml")
}

/// Checks a config with its stage declarations and inventory.
pub fn check_project(project: &Project, opts: &Options<'_>) -> Checked {
    let mut sources = SourceMap::new();
    let mut diags: Vec<Diagnostic> = Vec::new();

    let config_id = add(&mut sources, &project.config, opts, &mut diags);
    let mut config_tree = None;
    let mut config_json = None;
    if let Some(id) = config_id {
        if let Some(source) = sources.get(id) {
            let result = check_text(id, source, opts);
            diags.extend(result.diagnostics);
            config_tree = Some(result.tree);
            config_json = result.json;
        }
    }

    let mut decls: Vec<StageDecl> = Vec::new();
    for model in &project.models {
        let Some(id) = add(&mut sources, model, opts, &mut diags) else {
            continue;
        };
        let Some(source) = sources.get(id) else { continue };
        let (found, problems) = if is_stages_yaml(&model.name) {
            stages_yaml::read_stages_yaml(id, &source.text, &opts.budgets)
        } else {
            from_python::stage_decls(id, &python::read_model(&source.text))
        };
        decls.extend(found);
        diags.extend(problems);
    }

    let mut inventory: Option<Inventory> = None;
    if let Some(input) = &project.inventory {
        if let Some(id) = add(&mut sources, input, opts, &mut diags) {
            if let Some(source) = sources.get(id) {
                let (inv, problems) = read_inventory(id, &source.text, &opts.budgets);
                diags.extend(problems);
                inventory = inv;
            }
        }
    }

    if let Some(report) = &project.probe {
        let text = report.to_json();
        let id = sources.add(SourceFile::new("<probe>", text));
        inventory = Some(report.to_inventory_in(id));
        if report.devices.is_empty() {
            let reason = report.reason.clone().unwrap_or_else(|| "no CUDA device".into());
            diags.push(
                Diagnostic::new(
                    &crate::rules::probe_found_no_gpu::PROBE_FOUND_NO_GPU,
                    id,
                    crate::source::Span::at(0),
                    format!("the local GPU probe found no GPU: {reason}"),
                )
                .with_help(
                    "run where the NVIDIA driver and GPUs are, or check against a cluster with `--inventory FILE`",
                ),
            );
        }
    }

    let mut pipeline = None;
    if let (Some(id), Some(tree), Some(json)) = (config_id, &config_tree, &config_json) {
        let input = GraphInput {
            config: id,
            tree,
            json,
            decls,
            inventory: inventory.as_ref(),
            searched: project.searched.clone(),
        };
        let mut graph_diags = Vec::new();
        pipeline = graph::analyze(&input, &mut graph_diags);
        diags.extend(graph_diags);
    }

    for (id, source) in sources.iter() {
        suppress::apply(id, source, &mut diags);
    }
    sort_and_dedup(&mut diags);
    Checked {
        sources,
        file: config_id.unwrap_or(FileId(0)),
        diagnostics: diags,
        tree: config_tree,
        json: config_json,
        pipeline,
        inventory,
    }
}

/// Decodes an input into the source map; `None` (with the reason in
/// `diags`) when it is not text.
fn add(sources: &mut SourceMap, input: &Input, opts: &Options<'_>, diags: &mut Vec<Diagnostic>) -> Option<FileId> {
    let next = FileId(sources.len() as u32);
    let (text, problem) = decode(&input.bytes, next, &opts.budgets);
    let id = sources.add(SourceFile::new(input.name.clone(), text));
    match problem {
        Some(d) => {
            diags.push(d);
            None
        }
        None => Some(id),
    }
}
