//! The stage graph: declared stages, the experiment's pipeline settings and
//! (optionally) a cluster inventory, checked together.
//!
//! Input is plain data — [`StageDecl`]s from the model's sources, the
//! experiment as JSON with its spanned tree, an [`Inventory`] — and output is
//! diagnostics plus a resolved [`Pipeline`] for later phases (the plan, the
//! editor's hover).

use std::collections::{BTreeMap, BTreeSet};

use petgraph::algo::{tarjan_scc, toposort};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use serde_json::Value as Json;

use crate::diagnostic::{Diagnostic, Edit, Severity};
use crate::dtype::{self, CastRisk, DType};
use crate::hardware::allocate::{allocate, Allocation, Demand};
use crate::hardware::catalog::{self, Gpu, Resolution};
use crate::hardware::inventory::Inventory;
use crate::rules::{
    availability_not_checked::AVAILABILITY_NOT_CHECKED, batch_not_divisible::BATCH_NOT_DIVISIBLE,
    device_mismatch::DEVICE_MISMATCH, dtype_unsupported_on_device::DTYPE_UNSUPPORTED_ON_DEVICE,
    duplicate_stage_id::DUPLICATE_STAGE_ID, gpu_shortfall::GPU_SHORTFALL,
    gpus_for_unknown_stage::GPUS_FOR_UNKNOWN_STAGE, narrowing_stage_cast::NARROWING_STAGE_CAST,
    no_stage_declarations::NO_STAGE_DECLARATIONS, pipeline_bubble::PIPELINE_BUBBLE,
    pipeline_degree_mismatch::PIPELINE_DEGREE_MISMATCH, slots_not_multiple_of_stages::SLOTS_NOT_MULTIPLE_OF_STAGES,
    stage_graph_cycle::STAGE_GRAPH_CYCLE, stage_id_gap::STAGE_ID_GAP, stage_memory::STAGE_MEMORY,
    stage_not_reaching_output::STAGE_NOT_REACHING_OUTPUT, stage_without_device::STAGE_WITHOUT_DEVICE,
    too_few_micro_batches::TOO_FEW_MICRO_BATCHES, unknown_gpu::UNKNOWN_GPU, unknown_stage_dtype::UNKNOWN_STAGE_DTYPE,
    unknown_stage_input::UNKNOWN_STAGE_INPUT, unsatisfiable_request::UNSATISFIABLE_REQUEST, Rule,
};
use crate::schema::value_span;
use crate::source::{FileId, Span};
use crate::source::{Loc, Located};
use crate::stages::{DeclSource, StageDecl};
use crate::yaml::{PathSeg, Tree};

/// Bubble share of step time above which P121 warns.
pub const BUBBLE_LIMIT: f64 = 0.15;
/// Most combinations of searched values checked one by one.
const MAX_COMBINATIONS: usize = 4096;

/// Everything the stage graph is checked against.
pub struct GraphInput<'a> {
    /// The experiment config's file, tree and JSON.
    pub config: FileId,
    pub tree: &'a Tree,
    pub json: &'a Json,
    /// Stage declarations from every model source.
    pub decls: Vec<StageDecl>,
    /// The cluster, when one was given.
    pub inventory: Option<&'a Inventory>,
    /// Where declarations were looked for, for messages ("examples/hpp").
    pub searched: String,
}

/// A stage after resolution.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    pub id: i64,
    pub name: String,
    pub decl: Loc,
    pub source: DeclSource,
    /// Acceptable GPU types, in order of preference.
    pub gpu_types: Vec<String>,
    pub dtype: Option<DType>,
    /// Stages feeding this one.
    pub inputs: Vec<i64>,
    pub modules: Vec<String>,
    pub params: Option<u64>,
}

/// A dtype change at a stage boundary.
#[derive(Clone, Debug, PartialEq)]
pub struct Boundary {
    pub from: i64,
    pub to: i64,
    pub from_dtype: DType,
    pub to_dtype: DType,
    pub risk: CastRisk,
}

/// The pipeline as resolved from declarations and config.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    /// Stages in topological order.
    pub stages: Vec<Stage>,
    pub boundaries: Vec<Boundary>,
    /// Pipeline degree p (the number of stages).
    pub degree: u64,
    /// Data-parallel degree, when `slots_per_trial` divides evenly.
    pub data_parallel: Option<u64>,
    pub micro_batch_size: Option<u64>,
    pub micro_batches: Option<u64>,
    pub schedule: String,
    pub virtual_stages: u64,
    pub bubble: Option<f64>,
    /// Which inventory GPUs each stage draws from, when an inventory was given.
    pub allocation: Option<Allocation>,
}

impl Pipeline {
    /// Global ranks of the stage at `position` in forward order. Ranks are
    /// replica-major: rank r runs stage `r mod p` of replica `r div p`, so a
    /// pipeline replica's ranks are contiguous (its point-to-point traffic
    /// stays on as few nodes as possible) and stage s's data-parallel group
    /// is `s, s + p, s + 2p, …`.
    pub fn ranks(&self, position: usize) -> Vec<u64> {
        let p = self.degree.max(1);
        (0..self.data_parallel.unwrap_or(0))
            .map(|r| r * p + position as u64)
            .collect()
    }
}

/// Runs every stage-graph check. Returns the pipeline when there are stages.
pub fn analyze(input: &GraphInput<'_>, diags: &mut Vec<Diagnostic>) -> Option<Pipeline> {
    let mut cx = Cx { input, diags };
    cx.run()
}

struct Cx<'a, 'b> {
    input: &'b GraphInput<'a>,
    diags: &'b mut Vec<Diagnostic>,
}

/// Values of an integer setting: one when fixed, several when searched.
#[derive(Clone, Debug)]
struct Knob {
    path: Vec<PathSeg>,
    values: Vec<i64>,
}

impl Knob {
    fn fixed(&self) -> Option<i64> {
        match self.values.as_slice() {
            [v] => Some(*v),
            _ => None,
        }
    }
}

fn keys(path: &[&str]) -> Vec<PathSeg> {
    path.iter().map(|k| PathSeg::Key((*k).to_string())).collect()
}

fn get<'j>(json: &'j Json, path: &[PathSeg]) -> Option<&'j Json> {
    let mut v = json;
    for seg in path {
        v = match seg {
            PathSeg::Key(k) => v.get(k)?,
            PathSeg::Index(i) => v.get(*i)?,
        };
    }
    Some(v)
}

/// The candidate values of an integer that may be a plain value or a
/// Determined hyperparameter (`const`, `int` range, `categorical`). `None`
/// when absent or not an integer setting (the schema reports that).
fn int_candidates(v: &Json) -> Option<Vec<i64>> {
    if let Some(i) = v.as_i64() {
        return Some(vec![i]);
    }
    let obj = v.as_object()?;
    match obj.get("type")?.as_str()? {
        "const" => obj.get("val")?.as_i64().map(|i| vec![i]),
        "categorical" => {
            let vals: Vec<i64> = obj.get("vals")?.as_array()?.iter().filter_map(Json::as_i64).collect();
            (!vals.is_empty()).then_some(vals)
        }
        "int" => {
            let (lo, hi) = (obj.get("minval")?.as_i64()?, obj.get("maxval")?.as_i64()?);
            if hi < lo || hi - lo > 4096 {
                return None;
            }
            Some((lo..=hi).collect())
        }
        _ => None,
    }
}

fn str_candidates(v: &Json) -> Option<Vec<String>> {
    if let Some(s) = v.as_str() {
        return Some(vec![s.to_string()]);
    }
    let obj = v.as_object()?;
    match obj.get("type")?.as_str()? {
        "const" => obj.get("val")?.as_str().map(|s| vec![s.to_string()]),
        "categorical" => Some(
            obj.get("vals")?
                .as_array()?
                .iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    }
}

fn list(values: &[i64]) -> String {
    let shown: Vec<String> = values.iter().take(8).map(i64::to_string).collect();
    let more = if values.len() > 8 {
        format!(" and {} more", values.len() - 8)
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(", "))
}

impl Cx<'_, '_> {
    fn config_span(&self, path: &[PathSeg]) -> Span {
        value_span(self.input.tree, path)
    }

    fn config_key_span(&self, path: &[PathSeg]) -> Span {
        match self.input.tree.locate(path).and_then(|l| l.key) {
            Some(k) => self.input.tree.span(k),
            None => self.config_span(path),
        }
    }

    fn at(&mut self, rule: &Rule, loc: Loc, message: String) -> &mut Diagnostic {
        self.diags.push(Diagnostic::new(rule, loc.file, loc.span, message));
        let last = self.diags.len() - 1;
        &mut self.diags[last]
    }

    fn at_config(&mut self, rule: &Rule, path: &[PathSeg], message: String) -> &mut Diagnostic {
        let loc = Loc {
            file: self.input.config,
            span: self.config_span(path),
        };
        self.at(rule, loc, message)
    }

    fn hpp(&self, field: &str) -> Knob {
        let path = keys(&["hyperparameters", "hpp_config", field]);
        let values = get(self.input.json, &path).and_then(int_candidates).unwrap_or_default();
        Knob { path, values }
    }

    /// `resources.custom.stage_<N>_gpus`: N → (list, its path).
    fn stage_gpus(&self) -> BTreeMap<i64, (Vec<Located<String>>, Vec<PathSeg>)> {
        let mut out = BTreeMap::new();
        let Some(custom) = self.input.json.pointer("/resources/custom").and_then(Json::as_object) else {
            return out;
        };
        for (key, value) in custom {
            let Some(n) = key
                .strip_prefix("stage_")
                .and_then(|r| r.strip_suffix("_gpus"))
                .and_then(|n| n.parse::<i64>().ok())
            else {
                continue;
            };
            let path = keys(&["resources", "custom", key]);
            let items = value
                .as_array()
                .map(|a| {
                    a.iter()
                        .enumerate()
                        .filter_map(|(i, v)| {
                            let item_path: Vec<PathSeg> = path.iter().cloned().chain([PathSeg::Index(i)]).collect();
                            v.as_str().map(|s| Located {
                                value: s.to_string(),
                                loc: Loc {
                                    file: self.input.config,
                                    span: self.config_span(&item_path),
                                },
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            out.insert(n, (items, path));
        }
        out
    }

    fn run(&mut self) -> Option<Pipeline> {
        let json = self.input.json;
        let has_hpp = json.pointer("/hyperparameters/hpp_config").is_some();
        let stage_gpus = self.stage_gpus();
        if self.input.decls.is_empty() {
            if has_hpp || !stage_gpus.is_empty() {
                let path = if has_hpp {
                    keys(&["hyperparameters", "hpp_config"])
                } else {
                    keys(&["resources", "custom"])
                };
                let span = self.config_key_span(&path);
                let searched = self.input.searched.clone();
                self.diags.push(
                    Diagnostic::new(
                        &NO_STAGE_DECLARATIONS,
                        self.input.config,
                        span,
                        format!("the experiment configures a pipeline, but no stage declarations were found in {searched}"),
                    )
                    .with_help(
                        "decorate the model's stage classes with `@stage_decorator(stage_id=…, device=…, dtype=…)`, add a `stages.yaml`, or point stagec at them with `--context DIR` / `--model FILE`",
                    ),
                );
            }
            return None;
        }

        // 1. Unique ids.
        let mut by_id: BTreeMap<i64, &StageDecl> = BTreeMap::new();
        let mut duplicated = false;
        for d in &self.input.decls {
            match by_id.get(&d.id.value) {
                Some(first) => {
                    duplicated = true;
                    let (first_name, first_file, first_span) =
                        (first.name.value.clone(), first.id.loc.file, first.id.loc.span);
                    self.at(
                        &DUPLICATE_STAGE_ID,
                        d.id.loc,
                        format!(
                            "stage {} is declared twice: by `{}` and by `{}`",
                            d.id.value, first_name, d.name.value
                        ),
                    )
                    .push_label(
                        first_file,
                        first_span,
                        format!("stage {} first declared here by `{first_name}`", d.id.value),
                    );
                }
                None => {
                    by_id.insert(d.id.value, d);
                }
            }
        }
        let decls: Vec<&StageDecl> = by_id.values().copied().collect();
        let ids: Vec<i64> = by_id.keys().copied().collect();
        let n = ids.len() as i64;

        // 2. Contiguous from 0.
        let mut contiguous = true;
        for (expected, d) in (0i64..).zip(decls.iter()) {
            if d.id.value != expected {
                contiguous = false;
                let msg = if d.id.value < 0 {
                    format!("stage id {} is negative: ids count from 0", d.id.value)
                } else {
                    let missing: Vec<i64> = (expected..d.id.value).collect();
                    let after = if expected == 0 {
                        format!("the first stage is stage {}", d.id.value)
                    } else {
                        format!("stage {} follows stage {}", d.id.value, expected - 1)
                    };
                    format!(
                        "{after}: stage{} {} {} missing (declared: {})",
                        if missing.len() == 1 { "" } else { "s" },
                        list(&missing),
                        if missing.len() == 1 { "is" } else { "are" },
                        list(&ids)
                    )
                };
                self.at(&STAGE_ID_GAP, d.id.loc, msg)
                    .help
                    .replace("number stages 0, 1, 2, … in forward order, without gaps".into());
                break;
            }
        }

        // With duplicated or missing ids the number of stages is unknown, so
        // checks of the pipeline's shape wait until the numbering is fixed.
        let numbered = contiguous && !duplicated;

        // 3. Pipeline degree.
        let degree = self.hpp("pipeline_parallel_degree");
        let bad: Vec<i64> = degree.values.iter().copied().filter(|p| *p != n).collect();
        if numbered && !bad.is_empty() {
            let stage_list = decls
                .iter()
                .map(|d| format!("{} `{}`", d.id.value, d.name.value))
                .collect::<Vec<_>>()
                .join(", ");
            let msg = match degree.fixed() {
                Some(p) => {
                    format!("`pipeline_parallel_degree` is {p}, but the model declares {n} stages ({stage_list})")
                }
                None => format!(
                    "`pipeline_parallel_degree` candidates {} differ from the {n} declared stages ({stage_list})",
                    list(&bad)
                ),
            };
            let path = degree.path.clone();
            let span = self.config_span(&path);
            let d = self.at_config(&PIPELINE_DEGREE_MISMATCH, &path, msg);
            d.help = Some(format!("set `pipeline_parallel_degree: {n}`"));
            if degree.fixed().is_some() {
                d.fix = Some(crate::diagnostic::Fix {
                    title: format!("Set to {n}"),
                    edits: vec![Edit {
                        file: d.file,
                        span,
                        replacement: n.to_string(),
                    }],
                });
            }
        }
        let p = n.max(1);

        // 4. The graph.
        let (stages, order) = self.build_graph(&decls, contiguous);

        // 5. stage_<N>_gpus for stages that do not exist. With a gap in the
        // ids (P112) the numbering itself is the mistake: no cascade.
        for (k, (_, path)) in &stage_gpus {
            if contiguous && !by_id.contains_key(k) {
                let span = self.config_key_span(path);
                let key = format!("stage_{k}_gpus");
                self.diags.push(
                    Diagnostic::new(
                        &GPUS_FOR_UNKNOWN_STAGE,
                        self.input.config,
                        span,
                        format!(
                            "`{key}` requests GPUs for stage {k}, but the model declares stages {}",
                            list(&ids)
                        ),
                    )
                    .with_help("remove it, or renumber it to the stage it was meant for"),
                );
            }
        }

        // 6. Devices and dtypes.
        let default_dtype = get(json, &keys(&["hyperparameters", "hpp_config", "default_dtype"]))
            .and_then(Json::as_str)
            .and_then(dtype::parse);
        let mut resolved: Vec<Stage> = Vec::new();
        for s in &stages {
            let Some(decl) = by_id.get(&s.id) else { continue };
            // With a gap in the ids (P112), `stage_<N>_gpus` cannot be matched
            // to stages reliably: check each stage against its own declaration.
            let gpus = if contiguous {
                stage_gpus.get(&s.id).map(|(g, _)| g.clone()).unwrap_or_default()
            } else {
                Vec::new()
            };
            let gpu_types = self.check_devices(decl, &gpus, contiguous);
            let dtype = self.check_dtype(decl, default_dtype, &gpu_types);
            resolved.push(Stage {
                gpu_types,
                dtype,
                ..s.clone()
            });
        }

        // 7. Casts at boundaries.
        let boundaries = self.check_casts(&resolved, &by_id);

        // 8. Slots, batches, schedule, bubble.
        // Determined's default is 1; a value of the wrong type is the schema's
        // error (C102), and the shape checks wait for it.
        let slots_value = json.pointer("/resources/slots_per_trial").filter(|v| !v.is_null());
        let slots = slots_value.map_or(Some(1), Json::as_i64);
        let slots_path = keys(&["resources", "slots_per_trial"]);
        let dp = match slots {
            Some(slots) if slots >= p && slots % p == 0 => Some(slots / p),
            Some(slots) => {
                if numbered {
                    self.slots_error(slots, p, &slots_path);
                }
                None
            }
            None => None,
        };
        let slots = slots.unwrap_or(0);
        let micro = self.hpp("micro_batch_size");
        let gbs_path = keys(&["hyperparameters", "global_batch_size"]);
        let gbs = Knob {
            values: get(json, &gbs_path).and_then(int_candidates).unwrap_or_default(),
            path: gbs_path,
        };
        let schedules = get(json, &keys(&["hyperparameters", "hpp_config", "schedule"]))
            .and_then(str_candidates)
            .unwrap_or_else(|| vec!["1f1b".to_string()]);
        let virtual_stages = self.hpp("virtual_stages").fixed().unwrap_or(1).max(1);
        let (micro_batches, bubble) = match dp {
            Some(dp) if numbered => self.check_batches(p, dp, &gbs, &micro, &schedules, virtual_stages),
            _ => (None, None),
        };

        // 9. Hardware.
        let mut allocation = None;
        match self.input.inventory {
            Some(inv) => {
                if let Some(dp) = dp {
                    allocation = Some(self.check_supply(inv, &resolved, dp, &stage_gpus));
                }
                // Too few GPUs overall is already said per stage (P304).
                let short = allocation.as_ref().is_some_and(|a: &Allocation| !a.missing.is_empty());
                self.check_placeable(inv, slots, &slots_path, short);
            }
            None => {
                let span = self.config_key_span(&keys(&["resources"]));
                self.diags.push(
                    Diagnostic::new(
                        &AVAILABILITY_NOT_CHECKED,
                        self.input.config,
                        span,
                        "hardware availability not checked: no inventory given",
                    )
                    .with_help("pass `--inventory FILE` (stagec's inventory YAML, `kubectl get nodes -o json`, or nvidia-smi CSV)"),
                );
            }
        }
        self.check_memory(&resolved);

        let by_stage: BTreeMap<i64, Stage> = resolved.into_iter().map(|s| (s.id, s)).collect();
        let ordered: Vec<Stage> = order.iter().filter_map(|id| by_stage.get(id).cloned()).collect();
        Some(Pipeline {
            stages: ordered,
            boundaries,
            degree: p as u64,
            data_parallel: dp.map(|d| d as u64),
            micro_batch_size: micro.fixed().map(|m| m.max(0) as u64),
            micro_batches: micro_batches.map(|m| m as u64),
            schedule: schedules.first().cloned().unwrap_or_else(|| "1f1b".into()),
            virtual_stages: virtual_stages as u64,
            bubble,
            allocation,
        })
    }

    /// Builds the petgraph graph, checks inputs, cycles and reachability, and
    /// returns the stages with their inputs and a topological order.
    fn build_graph(&mut self, decls: &[&StageDecl], contiguous: bool) -> (Vec<Stage>, Vec<i64>) {
        let mut graph: DiGraph<i64, Loc> = DiGraph::new();
        let index: BTreeMap<i64, NodeIndex> = decls.iter().map(|d| (d.id.value, graph.add_node(d.id.value))).collect();
        let mut stages = Vec::new();
        for d in decls {
            let id = d.id.value;
            let mut inputs = Vec::new();
            match &d.inputs {
                Some(list) => {
                    for input in &list.value {
                        let ok = input.value != id && index.contains_key(&input.value);
                        if !ok {
                            let why = if input.value == id {
                                "itself".to_string()
                            } else {
                                format!("stage {}, which is not declared", input.value)
                            };
                            self.at(
                                &UNKNOWN_STAGE_INPUT,
                                input.loc,
                                format!("stage {id} takes input from {why}"),
                            )
                            .help
                            .replace(format!("inputs name declared stages other than {id}"));
                            continue;
                        }
                        inputs.push(input.value);
                        if let (Some(&from), Some(&to)) = (index.get(&input.value), index.get(&id)) {
                            graph.add_edge(from, to, input.loc);
                        }
                    }
                }
                None => {
                    // Default: the previous stage, in a linear pipeline.
                    if let (Some(&from), Some(&to)) = (index.get(&(id - 1)), index.get(&id)) {
                        inputs.push(id - 1);
                        graph.add_edge(from, to, d.decl);
                    }
                }
            }
            stages.push(Stage {
                id,
                name: d.name.value.clone(),
                decl: d.decl,
                source: d.source,
                gpu_types: Vec::new(),
                dtype: None,
                inputs,
                modules: d.modules.clone(),
                params: d.params,
            });
        }
        // Cycles: each strongly connected component with more than one stage
        // (or a self-edge) is reported once, at the input that closes it.
        let mut cyclic = false;
        for scc in tarjan_scc(&graph) {
            if scc.len() < 2 {
                continue;
            }
            cyclic = true;
            let members: BTreeSet<NodeIndex> = scc.iter().copied().collect();
            let Some(&start) = scc.iter().min_by_key(|n| graph[**n]) else {
                continue;
            };
            let mut path = vec![start];
            let mut here = start;
            let mut closing: Option<Loc> = None;
            for _ in 0..scc.len() + 1 {
                let next = graph
                    .edges_directed(here, Direction::Outgoing)
                    .filter(|e| members.contains(&e.target()))
                    .min_by_key(|e| {
                        let t = e.target();
                        (t != start, path.contains(&t), graph[t])
                    });
                let Some(edge) = next else { break };
                if edge.target() == start {
                    closing = Some(*edge.weight());
                    path.push(start);
                    break;
                }
                here = edge.target();
                path.push(here);
            }
            let shown = path
                .iter()
                .map(|n| graph[*n].to_string())
                .collect::<Vec<_>>()
                .join(" → ");
            if let Some(loc) = closing {
                self.at(&STAGE_GRAPH_CYCLE, loc, format!("stage inputs form a cycle: {shown}"))
                    .help
                    .replace("a stage can only take input from stages that run before it".into());
            }
        }
        // Reachability of the last stage.
        let order: Vec<i64> = match toposort(&graph, None) {
            Ok(order) => order.into_iter().map(|n| graph[n]).collect(),
            Err(_) => decls.iter().map(|d| d.id.value).collect(),
        };
        if !cyclic && contiguous {
            if let Some(&last) = decls.last().and_then(|d| index.get(&d.id.value)) {
                let mut reaches = BTreeSet::new();
                let mut stack = vec![last];
                while let Some(n) = stack.pop() {
                    if reaches.insert(n) {
                        stack.extend(graph.neighbors_directed(n, Direction::Incoming));
                    }
                }
                for d in decls {
                    let Some(&node) = index.get(&d.id.value) else { continue };
                    if !reaches.contains(&node) {
                        let last_id = graph[last];
                        self.at(
                            &STAGE_NOT_REACHING_OUTPUT,
                            d.name.loc,
                            format!(
                                "stage {} (`{}`) does not lead to the last stage ({last_id}): its output is never used",
                                d.id.value, d.name.value
                            ),
                        )
                        .help
                        .replace(format!("add {} to the `inputs` of a later stage", d.id.value));
                    }
                }
            }
        }
        (stages, order)
    }

    /// Checks the stage's device names and their agreement; returns the
    /// acceptable GPU types in order of preference.
    fn check_devices(&mut self, decl: &StageDecl, gpus: &[Located<String>], contiguous: bool) -> Vec<String> {
        let id = decl.id.value;
        let known = |cx: &mut Self, name: &Located<String>| -> Option<Resolution> {
            match catalog::resolve(&name.value) {
                Resolution::Unknown { suggestions } => {
                    let d = cx.at(&UNKNOWN_GPU, name.loc, format!("unknown GPU type `{}`", name.value));
                    if let Some(best) = suggestions.first() {
                        d.help = crate::diagnostic::did_you_mean(&suggestions);
                        d.fix = Some(crate::diagnostic::Fix {
                            title: format!("Replace with `{best}`"),
                            edits: vec![Edit {
                                file: name.loc.file,
                                span: inner_span(name),
                                replacement: best.clone(),
                            }],
                        });
                    }
                    None
                }
                r => Some(r),
            }
        };
        let device = decl.device.as_ref().and_then(|dev| known(self, dev).map(|r| (dev, r)));
        let mut listed = Vec::new();
        for g in gpus {
            if let Some(r) = known(self, g) {
                listed.push((g, r));
            }
        }
        let mut disagree = false;
        if let Some((dev, dev_res)) = &device {
            for (g, g_res) in &listed {
                let same_family = dev_res.family() == g_res.family();
                let compatible = catalog::satisfies(&dev.value, &g.value) || catalog::satisfies(&g.value, &dev.value);
                if !(same_family && compatible) {
                    disagree = true;
                    let what = if same_family {
                        "a different variant"
                    } else {
                        "a different GPU family"
                    };
                    self.at(
                        &DEVICE_MISMATCH,
                        g.loc,
                        format!(
                            "`stage_{id}_gpus` lists `{}`, {what} from the `{}` that stage {id} declares",
                            g.value, dev.value
                        ),
                    )
                    .push_label(
                        dev.loc.file,
                        dev.loc.span,
                        format!("stage {id} declares device `{}` here", dev.value),
                    )
                    .help
                    .replace(format!(
                        "list GPU types of the declared family (`{}`), or change the declaration",
                        dev_res.family().unwrap_or(&dev.value)
                    ));
                }
            }
        }
        // When the two disagree (P203), the stage is checked further against
        // the device its code was written for, so one mistake is one error.
        let mut types: Vec<String> = if disagree {
            Vec::new()
        } else {
            gpus.iter().map(|g| g.value.clone()).collect()
        };
        if types.is_empty() {
            if let Some(dev) = &decl.device {
                types.push(dev.value.clone());
            }
        }
        // An implicit stage's number follows from the decorated ids; when those
        // have a gap (P112), its `stage_<N>_gpus` is not looked for.
        let numbered_by_gap = !contiguous && decl.source == DeclSource::Implicit;
        if types.is_empty() && !numbered_by_gap {
            let hint = match decl.source {
                DeclSource::Implicit => format!(
                    "`{}` is an undecorated submodule after stage {}, so it forms stage {id}; give it GPUs with `resources.custom.stage_{id}_gpus`",
                    decl.name.value,
                    id - 1
                ),
                _ => format!("set its device, or `resources.custom.stage_{id}_gpus`"),
            };
            self.at(
                &STAGE_WITHOUT_DEVICE,
                decl.name.loc,
                format!("stage {id} (`{}`) has no device", decl.name.value),
            )
            .help = Some(hint);
        }
        types
    }

    /// Resolves and checks the stage's dtype against its GPU types.
    fn check_dtype(&mut self, decl: &StageDecl, default: Option<DType>, gpu_types: &[String]) -> Option<DType> {
        let id = decl.id.value;
        let (dtype, loc) = match &decl.dtype {
            Some(text) => match dtype::parse(&text.value) {
                Some(dt) => (dt, Some(text)),
                None => {
                    let suggestions = dtype::suggest(&text.value);
                    let d = self.at(
                        &UNKNOWN_STAGE_DTYPE,
                        text.loc,
                        format!("unknown dtype `{}` for stage {id}", text.value),
                    );
                    if !suggestions.is_empty() {
                        d.help = crate::diagnostic::did_you_mean(&suggestions);
                    }
                    return None;
                }
            },
            None => (default.unwrap_or(DType::Fp32), None),
        };
        // The most limited GPU the stage may land on decides.
        let mut variants: Vec<&'static Gpu> = gpu_types.iter().flat_map(|t| catalog::resolve(t).variants()).collect();
        variants.sort_by_key(|g| (g.compute_capability, g.id.clone()));
        variants.dedup_by(|a, b| a.id == b.id);
        let Some(weakest) = variants.iter().find(|g| !dtype.runs_natively_on(g.compute_capability)) else {
            return Some(dtype);
        };
        let (major, minor) = weakest.compute_capability;
        let need = dtype
            .min_compute_capability()
            .map_or(String::from("a CUDA GPU"), |(a, b)| {
                format!("compute capability {a}.{b}")
            });
        let able: Vec<String> = catalog::families()
            .into_iter()
            .filter(|(fam, _)| {
                catalog::family_variants(fam)
                    .iter()
                    .all(|g| dtype.runs_natively_on(g.compute_capability))
            })
            .map(|(fam, _)| fam.to_string())
            .collect();
        let fallback = [DType::Bf16, DType::Fp16, DType::Fp32]
            .into_iter()
            .find(|d| d.runs_natively_on((major, minor)));
        let written = loc.map_or_else(|| dtype.canonical_name().to_string(), |l| l.value.clone());
        let mut help = if able.is_empty() {
            format!("no catalog GPU runs `{written}` natively")
        } else {
            format!(
                "GPUs that run `{}` natively: {}",
                dtype.canonical_name(),
                able.join(", ")
            )
        };
        if let Some(f) = fallback {
            help.push_str(&format!("; on {} use `{}`", weakest.family, f.canonical_name()));
        }
        let message = format!(
            "stage {id} runs `{written}` on `{}`, but {} ({}, compute capability {major}.{minor}) cannot: it needs {need}",
            gpu_types.join("`/`"),
            weakest.name,
            weakest.family
        );
        let target = loc.map(|l| l.loc).unwrap_or(decl.name.loc);
        let d = self.at(&DTYPE_UNSUPPORTED_ON_DEVICE, target, message);
        d.help = Some(help);
        if let (Some(l), Some(f)) = (loc, fallback) {
            let replacement = if l.value.starts_with("torch.") {
                f.torch_name().unwrap_or(f.canonical_name()).to_string()
            } else {
                f.canonical_name().to_string()
            };
            d.fix = Some(crate::diagnostic::Fix {
                title: format!("Use `{replacement}`"),
                edits: vec![Edit {
                    file: l.loc.file,
                    span: inner_span(l),
                    replacement,
                }],
            });
        }
        Some(dtype)
    }

    fn check_casts(&mut self, stages: &[Stage], decls: &BTreeMap<i64, &StageDecl>) -> Vec<Boundary> {
        let dtypes: BTreeMap<i64, DType> = stages.iter().filter_map(|s| s.dtype.map(|d| (s.id, d))).collect();
        let mut out = Vec::new();
        for s in stages {
            let Some(&to_dtype) = dtypes.get(&s.id) else { continue };
            for &from in &s.inputs {
                let Some(&from_dtype) = dtypes.get(&from) else { continue };
                if from_dtype == to_dtype {
                    continue;
                }
                let risk = dtype::cast_risk(from_dtype, to_dtype);
                if let CastRisk::RangeLoss { from_max, to_max } = risk {
                    let target = decls.get(&s.id).map(|d| d.dtype.as_ref().map_or(d.name.loc, |t| t.loc));
                    let source = decls.get(&from).and_then(|d| d.dtype.as_ref().map(|t| t.loc));
                    if let Some(target) = target {
                        let overflow = if to_max < from_max {
                            format!(
                                "values beyond ±{} ({} reaches ±{}) become {}",
                                fmt_num(to_max),
                                from_dtype.canonical_name(),
                                fmt_num(from_max),
                                if to_dtype.has_inf() { "inf" } else { "NaN" }
                            )
                        } else {
                            "small values underflow to zero".to_string()
                        };
                        let d = self.at(
                            &NARROWING_STAGE_CAST,
                            target,
                            format!(
                                "stage {} receives `{}` activations from stage {from} as `{}`: {overflow}",
                                s.id,
                                from_dtype.canonical_name(),
                                to_dtype.canonical_name()
                            ),
                        );
                        d.help = Some(format!(
                            "scale activations into ±{} before the boundary (per-tensor scaling), or sanitise after the cast with `torch.nan_to_num`",
                            fmt_num(to_max)
                        ));
                        if let Some(src) = source {
                            d.labels.push(crate::diagnostic::Label {
                                file: src.file,
                                span: src.span,
                                message: format!("stage {from} produces `{}`", from_dtype.canonical_name()),
                            });
                        }
                    }
                }
                out.push(Boundary {
                    from,
                    to: s.id,
                    from_dtype,
                    to_dtype,
                    risk,
                });
            }
        }
        out
    }

    fn slots_error(&mut self, slots: i64, p: i64, path: &[PathSeg]) {
        let valid: Vec<i64> = (1..=4)
            .map(|k| k * p)
            .chain((5..).map(|k| k * p).take_while(|v| *v <= slots + p))
            .collect();
        let nearby: Vec<i64> = {
            let mut v: Vec<i64> = valid.iter().copied().filter(|v| (*v - slots).abs() <= 2 * p).collect();
            if v.is_empty() {
                v = valid.iter().copied().take(3).collect();
            }
            v
        };
        let nearest = valid
            .iter()
            .copied()
            .min_by_key(|v| ((*v - slots).abs(), -*v))
            .unwrap_or(p);
        let span = self.config_span(path);
        let present = self.input.tree.locate(path).is_some();
        let msg = if present {
            format!("`slots_per_trial: {slots}` does not fit {p} pipeline stages: it must be {p} × the data-parallel degree")
        } else {
            format!("`slots_per_trial` defaults to {slots}, fewer than the {p} pipeline stages")
        };
        let d = Diagnostic::new(&SLOTS_NOT_MULTIPLE_OF_STAGES, self.input.config, span, msg)
            .with_help(format!("valid slot counts nearby: {}", list(&nearby)));
        let d = if present {
            d.with_fix(
                format!("Set to {nearest}"),
                vec![Edit {
                    file: self.input.config,
                    span,
                    replacement: nearest.to_string(),
                }],
            )
        } else {
            d
        };
        self.diags.push(d);
    }

    /// Batch divisibility, micro-batch count per schedule, and the bubble.
    fn check_batches(
        &mut self,
        p: i64,
        dp: i64,
        gbs: &Knob,
        micro: &Knob,
        schedules: &[String],
        v: i64,
    ) -> (Option<i64>, Option<f64>) {
        if gbs.values.is_empty() || micro.values.is_empty() {
            return (None, None);
        }
        let combos: Vec<(i64, i64)> = gbs
            .values
            .iter()
            .flat_map(|g| micro.values.iter().map(move |m| (*g, *m)))
            .take(MAX_COMBINATIONS)
            .collect();
        let searched = combos.len() > 1;
        let mut failing = Vec::new();
        let mut ms = Vec::new();
        for &(g, mb) in &combos {
            let per_step = dp * mb;
            if per_step <= 0 || g <= 0 || g % per_step != 0 {
                failing.push((g, mb));
            } else {
                ms.push((g, mb, g / per_step));
            }
        }
        let at_path = if gbs.fixed().is_some() || micro.fixed().is_none() {
            gbs.path.clone()
        } else {
            micro.path.clone()
        };
        if !failing.is_empty() {
            let msg = if searched {
                let shown: Vec<String> = failing
                    .iter()
                    .take(6)
                    .map(|(g, m)| format!("{g}/(dp {dp} × {m})"))
                    .collect();
                format!(
                    "{} of {} searched (global_batch_size, micro_batch_size) combinations do not divide: {}",
                    failing.len(),
                    combos.len(),
                    shown.join(", ")
                )
            } else {
                let (g, mb) = failing[0];
                format!(
                    "`global_batch_size: {g}` is not divisible by data-parallel degree {dp} × `micro_batch_size` {mb} = {}",
                    dp * mb
                )
            };
            let unit = dp * micro.values.first().copied().unwrap_or(1).max(1);
            let g0 = gbs.values.first().copied().unwrap_or(unit);
            let lower = (g0 / unit).max(1) * unit;
            self.at_config(&BATCH_NOT_DIVISIBLE, &at_path, msg).help = Some(format!(
                "use a multiple of {unit}, e.g. {lower} or {}, so every replica runs whole micro-batches",
                lower + unit
            ));
        }
        // Schedule needs.
        let mut too_few = Vec::new();
        for (g, mb, m) in &ms {
            for sched in schedules {
                let problem = match sched.as_str() {
                    "1f1b" if *m < p => Some(format!("1F1B needs at least p = {p} micro-batches, got m = {m}")),
                    "interleaved" if *m % p != 0 => Some(format!(
                        "interleaved 1F1B needs m to be a multiple of p = {p}, got m = {m}"
                    )),
                    _ => None,
                };
                if let Some(why) = problem {
                    too_few.push((*g, *mb, why));
                }
            }
        }
        if let Some((g, mb, why)) = too_few.first() {
            let msg = if searched {
                format!("{} searched combinations give too few micro-batches; e.g. global_batch_size {g}, micro_batch_size {mb}: {why}", too_few.len())
            } else {
                format!("{why} (global_batch_size {g} / (data-parallel degree {dp} × micro_batch_size {mb}))")
            };
            let need = p * dp * mb;
            self.at_config(&TOO_FEW_MICRO_BATCHES, &at_path, msg).help = Some(format!(
                "raise `global_batch_size` to a multiple of {need}, or lower `micro_batch_size`"
            ));
        }
        // Bubble.
        let bubble_of = |m: i64, sched: &str| -> f64 {
            let vm = if sched == "interleaved" { v * m } else { m };
            (p - 1) as f64 / (vm + p - 1) as f64
        };
        let mut worst: Option<(f64, i64, i64, i64, String)> = None;
        for (g, mb, m) in &ms {
            for sched in schedules {
                let b = bubble_of(*m, sched);
                if worst.as_ref().is_none_or(|w| b > w.0) {
                    worst = Some((b, *g, *mb, *m, sched.clone()));
                }
            }
        }
        let single = if ms.len() == 1 && schedules.len() == 1 {
            worst.as_ref().map(|w| w.0)
        } else {
            None
        };
        if let Some((b, g, mb, m, sched)) = worst {
            if b > BUBBLE_LIMIT && p > 1 {
                let veff = if sched == "interleaved" { v } else { 1 };
                // Smallest m with (p−1)/(v·m+p−1) ≤ limit.
                let need_m = (((p - 1) as f64 * (1.0 / BUBBLE_LIMIT - 1.0)) / veff as f64).ceil() as i64;
                let need_g = need_m * dp * mb;
                let msg = format!(
                    "pipeline bubble {:.1}% of step time: p = {p} stages, m = {m} micro-batches ({})",
                    b * 100.0,
                    schedule_name(&sched)
                );
                let mut help = format!(
                    "{need_m} or more micro-batches bring it under {:.0}%: e.g. `global_batch_size: {need_g}`",
                    BUBBLE_LIMIT * 100.0
                );
                if mb > 1 {
                    let per = (g / (dp * need_m)).max(1);
                    help.push_str(&format!(
                        ", or `micro_batch_size: {per}` with the current global batch size"
                    ));
                }
                self.at_config(&PIPELINE_BUBBLE, &at_path, msg).help = Some(help);
            }
        }
        let m = match ms.as_slice() {
            [(_, _, m)] => Some(*m),
            _ => None,
        };
        (m, single)
    }

    /// Reports each stage the allocation could not serve.
    fn check_supply(
        &mut self,
        inv: &Inventory,
        stages: &[Stage],
        dp: i64,
        stage_gpus: &BTreeMap<i64, (Vec<Located<String>>, Vec<PathSeg>)>,
    ) -> Allocation {
        let demands: Vec<Demand<'_>> = stages
            .iter()
            .map(|s| Demand {
                id: s.id,
                gpu_types: &s.gpu_types,
            })
            .collect();
        let alloc = allocate(inv, &demands, dp);
        for s in stages {
            if !alloc.missing.contains_key(&s.id) {
                continue;
            }
            let have: u32 = alloc
                .pools
                .iter()
                .filter(|p| s.gpu_types.iter().any(|t| catalog::serves(t, &p.label)))
                .map(|p| p.total)
                .sum();
            let others: Vec<(i64, u32)> = alloc
                .taken
                .iter()
                .filter(|(id, _)| **id != s.id)
                .flat_map(|(id, takes)| {
                    takes
                        .iter()
                        .filter(|t| s.gpu_types.iter().any(|ty| catalog::serves(ty, &t.offered)))
                        .map(move |t| (*id, t.count))
                })
                .collect();
            let shared = if others.is_empty() {
                String::new()
            } else {
                let used: u32 = others.iter().map(|(_, n)| n).sum();
                let by: Vec<String> = others.iter().map(|(id, n)| format!("{n} to stage {id}")).collect();
                format!(", {used} of them already assigned ({})", by.join(", "))
            };
            let types = s.gpu_types.join("`, `");
            let msg = format!(
                "stage {} needs {dp} GPU{} of type `{types}` (one per data-parallel replica); the inventory has {have}{shared}",
                s.id,
                if dp == 1 { "" } else { "s" }
            );
            let loc = match stage_gpus.get(&s.id) {
                Some((_, path)) => Loc {
                    file: self.input.config,
                    span: self.config_span(path),
                },
                None => s.decl,
            };
            let skipped = inv.skipped.len();
            let d = self.at(&GPU_SHORTFALL, loc, msg);
            d.help = Some(if skipped > 0 {
                format!("{skipped} unschedulable node(s) were not counted; add GPUs of an acceptable type to `stage_{}_gpus`, or lower `slots_per_trial`", s.id)
            } else {
                format!(
                    "add another acceptable GPU type to `stage_{}_gpus`, or lower `slots_per_trial`",
                    s.id
                )
            });
        }
        alloc
    }

    /// Whether Determined can ever place `slots` GPUs: on one node, or on
    /// several nodes used whole.
    fn check_placeable(&mut self, inv: &Inventory, slots: i64, path: &[PathSeg], shortfall_reported: bool) {
        let sizes: Vec<u32> = inv
            .nodes
            .iter()
            .map(|n| n.gpus.iter().map(|g| g.count).sum::<u32>())
            .filter(|c| *c > 0)
            .collect();
        let total: i64 = sizes.iter().map(|c| i64::from(*c)).sum();
        let largest = sizes.iter().copied().max().map_or(0, i64::from);
        let why = if slots > total {
            (!shortfall_reported).then(|| {
                format!(
                    "the whole inventory has {total} schedulable GPU{}",
                    if total == 1 { "" } else { "s" }
                )
            })
        } else if slots > largest {
            // Across nodes, Determined uses whole nodes of one size.
            let mut by_size: BTreeMap<i64, i64> = BTreeMap::new();
            for s in &sizes {
                *by_size.entry(i64::from(*s)).or_default() += 1;
            }
            let fits = by_size
                .iter()
                .any(|(size, count)| slots % size == 0 && slots / size <= *count);
            (!fits).then(|| {
                let options: Vec<String> = by_size.keys().map(|s| format!("a multiple of {s}")).collect();
                format!(
                    "no node has {slots} GPUs (the largest has {largest}), and across nodes Determined only uses whole nodes: use at most {largest} or {}",
                    options.join(" or ")
                )
            })
        } else {
            None
        };
        if let Some(why) = why {
            self.at_config(
                &UNSATISFIABLE_REQUEST,
                path,
                format!("`slots_per_trial: {slots}` can never be scheduled: {why}"),
            )
            .help = Some("Determined would queue this experiment forever".into());
        }
    }

    fn check_memory(&mut self, stages: &[Stage]) {
        for s in stages {
            let Some(params) = s.params else { continue };
            let variants: Vec<&'static Gpu> = s
                .gpu_types
                .iter()
                .flat_map(|t| catalog::resolve(t).variants())
                .collect();
            let Some(smallest) = variants.iter().min_by_key(|g| g.memory_bytes()) else {
                continue;
            };
            // Weights, gradients and Adam's two moments, with fp32 master
            // weights under mixed precision (ZeRO's accounting): 16 bytes per
            // parameter whatever the compute dtype (fp8 keeps high-precision
            // masters too).
            let bytes_per_param: u64 = 16;
            let need = params.saturating_mul(bytes_per_param);
            let have = smallest.memory_bytes();
            let share = need as f64 / have as f64;
            if share <= 0.9 {
                continue;
            }
            let severity = if share > 1.0 {
                Severity::Error
            } else {
                Severity::Warning
            };
            let msg = format!(
                "stage {} (`{}`) needs about {:.1} GB for weights, gradients and Adam state ({} parameters × {bytes_per_param} bytes), {:.0}% of the {:.0} GB of {}",
                s.id,
                s.name,
                need as f64 / 1e9,
                human_count(params),
                share * 100.0,
                have as f64 / 1e9,
                smallest.name
            );
            let d = self.at(&STAGE_MEMORY, s.decl, msg);
            d.severity = severity;
            d.help = Some(
                "activations come on top; split the stage, use a larger GPU, or shard optimizer state (ZeRO)".into(),
            );
        }
    }
}

/// The span of a string value without its quotes, for replacements.
fn inner_span(v: &Located<String>) -> Span {
    let span = v.loc.span;
    if span.len() >= v.value.len() + 2 {
        let inner = Span::new(span.start + 1, span.end - 1);
        if inner.len() == v.value.len() {
            return inner;
        }
    }
    span
}

fn schedule_name(s: &str) -> &'static str {
    match s {
        "gpipe" => "GPipe",
        "interleaved" => "interleaved 1F1B",
        _ => "1F1B",
    }
}

fn fmt_num(v: f64) -> String {
    if v >= 1e6 {
        format!("{v:.3e}")
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

fn human_count(n: u64) -> String {
    match n {
        n if n >= 1_000_000_000 => format!("{:.1}B", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1}K", n as f64 / 1e3),
        n => n.to_string(),
    }
}
