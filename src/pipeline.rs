//! The pipeline, resolved: declared stages, the experiment's settings and
//! (optionally) a cluster inventory become one [`Pipeline`] — the stages in
//! forward order with their GPU types and dtypes, the casts at their
//! boundaries, the pipeline's shape and the GPU allocation — plus the plain
//! [`Facts`] the `P…` rules read (duplicated ids, gaps, bad inputs, cycles,
//! unknown names, disagreements). Nothing here produces a diagnostic.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use petgraph::algo::{tarjan_scc, toposort};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::dtype::{self, CastRisk, DType};
use crate::hardware::allocate::{allocate, Allocation, Demand};
use crate::hardware::catalog::{self, Resolution};
use crate::hardware::inventory::Inventory;
use crate::schema::located_span;
use crate::settings::Settings;
use crate::source::{FileId, Loc, Located};
use crate::spec::hyperparameters::PipelineSchedule;
use crate::stages::{DeclSource, StageDecl};
use crate::yaml::{Entry, Located as At, NodeId, PathSeg, Tree, Value};

/// Why a node's GPUs cannot run the experiment's image: its driver is
/// older than the image's CUDA needs (minor-version and forward
/// compatibility considered). `None` where the driver or the image's
/// CUDA is not known. R105 words the finding.
pub fn driver_exclusion(
    runtime: Option<&crate::runtime::Runtime>,
    node: &crate::hardware::inventory::InvNode,
    gpu: &crate::hardware::inventory::InvGpu,
) -> Option<(crate::hardware::allocate::OldDriver, Loc)> {
    use crate::runtime::compat::{driver_verdict, DriverVerdict};
    use crate::runtime::Version;
    let facts = runtime?.facts.as_ref().ok()?;
    let driver = node.driver.as_ref()?;
    let version = Version::parse(&driver.value)?;
    let g = gpu.gpu?;
    let cc = Version::new(g.compute_capability.0, g.compute_capability.1);
    match driver_verdict(facts, version, cc, catalog::is_datacenter(g)) {
        DriverVerdict::TooOld { min } => Some((
            crate::hardware::allocate::OldDriver {
                driver: driver.value.clone(),
                min: min.to_string(),
                cuda: facts.cuda.map(|c| c.major_minor().to_string()),
                image: facts.reference.clone(),
            },
            driver.loc,
        )),
        _ => None,
    }
}

/// Most combinations of searched values checked one by one.
pub const MAX_COMBINATIONS: usize = 4096;

/// A stage after resolution.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    pub id: i64,
    pub name: String,
    /// The whole declaration: where "declared here" labels point.
    pub decl: Loc,
    /// The stage's name as written (class name, entry name, attribute).
    pub name_loc: Loc,
    pub source: DeclSource,
    /// Acceptable GPU types, in order of preference.
    pub gpu_types: Vec<String>,
    pub dtype: Option<DType>,
    /// The dtype as the declaration writes it, if it does.
    pub dtype_written: Option<Located<String>>,
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
    pub schedule: PipelineSchedule,
    pub virtual_stages: u64,
    pub bubble: Option<f64>,
    /// Which inventory GPUs each stage draws from, when an inventory was given.
    pub allocation: Option<Allocation>,
    /// What resolution found, for the rules.
    pub facts: Facts,
}

/// What resolving the pipeline found, as plain data. Indices refer to the
/// declarations the pipeline was resolved from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    /// Declared ids, sorted, each once.
    pub ids: Vec<i64>,
    /// The declaration of each id (the first one), in id order.
    pub unique: Vec<usize>,
    /// Each declaration whose id an earlier one took: (it, the earlier one).
    pub duplicates: Vec<(usize, usize)>,
    /// The first declaration (by id) out of the sequence 0, 1, 2, …, and
    /// the id expected in its place.
    pub gap: Option<(usize, i64)>,
    /// Ids are 0, 1, 2, … without gaps (duplicates aside).
    pub contiguous: bool,
    /// Ids are contiguous and unique: the number of stages is known, so
    /// checks of the pipeline's shape apply.
    pub numbered: bool,
    /// Inputs naming the stage itself or an undeclared stage: (stage, input).
    pub bad_inputs: Vec<(i64, Located<i64>)>,
    /// Cycles among stage inputs: the ids around it (first repeated last),
    /// and the input that closes it.
    pub cycles: Vec<(Vec<i64>, Loc)>,
    /// Declarations whose stage does not lead to the last stage.
    pub dead_ends: Vec<usize>,
    /// The last stage's id.
    pub last: Option<i64>,
    /// GPU names the catalog does not know (devices and `stage_<N>_gpus`).
    pub unknown_gpus: Vec<Located<String>>,
    /// `stage_<N>_gpus` entries of another family or variant than the
    /// declared device: (stage, the entry, the device).
    pub disagreements: Vec<(i64, Located<String>, Located<String>)>,
    /// Declarations of stages left without a device.
    pub without_device: Vec<usize>,
    /// Stage dtypes that are not dtype names: (stage, as written).
    pub unknown_dtypes: Vec<(i64, Located<String>)>,
    /// Where each `stage_<N>_gpus` list is written, by N.
    pub stage_gpus: BTreeMap<i64, Loc>,
}

impl Pipeline {
    /// The pipeline of an experiment without stage declarations: one stage
    /// holding the whole model, replicated over every slot.
    pub fn single_stage(settings: &Settings) -> Pipeline {
        let slots = settings
            .slots_per_trial
            .count()
            .and_then(|s| u64::try_from(s).ok())
            .unwrap_or(1)
            .max(1);
        Pipeline {
            stages: vec![Stage {
                id: 0,
                name: "model".into(),
                decl: Loc::default(),
                name_loc: Loc::default(),
                source: DeclSource::StagesYaml,
                gpu_types: Vec::new(),
                dtype: None,
                dtype_written: None,
                inputs: Vec::new(),
                modules: Vec::new(),
                params: None,
            }],
            boundaries: Vec::new(),
            degree: 1,
            data_parallel: Some(slots),
            micro_batch_size: None,
            micro_batches: None,
            schedule: PipelineSchedule::OneFOneB,
            virtual_stages: 1,
            bubble: None,
            allocation: None,
            facts: Default::default(),
        }
    }

    /// Every rank of a trial: the pipeline degree times the data-parallel
    /// degree (each at least 1; saturating).
    pub fn world_size(&self) -> u64 {
        self.degree
            .max(1)
            .saturating_mul(self.data_parallel.unwrap_or(1).max(1))
    }

    /// Global ranks of the stage at `position` in forward order. Ranks are
    /// replica-major: rank r runs stage `r mod p` of replica `r div p`, so a
    /// pipeline replica's ranks are contiguous (its point-to-point traffic
    /// stays on as few nodes as possible) and stage s's data-parallel group
    /// is `s, s + p, s + 2p, …`.
    pub fn ranks(&self, position: usize) -> Vec<u64> {
        self.ranks_of(position).collect()
    }

    /// The ranks of the stage at `position`, lazily (a world can be large).
    pub fn ranks_of(&self, position: usize) -> impl Iterator<Item = u64> {
        let p = self.degree.max(1);
        (0..self.data_parallel.unwrap_or(0)).map(move |r| r.saturating_mul(p).saturating_add(position as u64))
    }
}

/// One (global batch size, micro-batch size) combination of the searched
/// values, with its micro-batches per replica and step when they divide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchCombination {
    pub global_batch_size: i64,
    pub micro_batch_size: i64,
    /// `global_batch_size / (dp × micro_batch_size)`, when exact and positive.
    pub micro_batches: Option<i64>,
}

/// Every combination of the searched global and micro-batch sizes (at most
/// [`MAX_COMBINATIONS`]) for data-parallel degree `dp`; empty when either
/// is not set.
pub fn batch_combinations(settings: &Settings, dp: i64) -> Vec<BatchCombination> {
    let (Some(gbs), Some(micro)) = (&settings.global_batch_size, &settings.micro_batch_size) else {
        return Vec::new();
    };
    gbs.iter()
        .flat_map(|g| micro.iter().map(move |m| (*g, *m)))
        .take(MAX_COMBINATIONS)
        .map(|(g, mb)| {
            let per_step = dp.checked_mul(mb).unwrap_or(0);
            let micro_batches = (per_step > 0 && g > 0 && g % per_step == 0).then(|| g / per_step);
            BatchCombination {
                global_batch_size: g,
                micro_batch_size: mb,
                micro_batches,
            }
        })
        .collect()
}

/// The schedules the experiment may run (`1f1b` when unset).
pub fn schedules(settings: &Settings) -> Vec<PipelineSchedule> {
    settings
        .schedule
        .clone()
        .unwrap_or_else(|| vec![PipelineSchedule::OneFOneB])
}

/// Model chunks per device (`virtual_stages`, 1 unless fixed above it).
pub fn virtual_stages(settings: &Settings) -> i64 {
    Settings::fixed(settings.virtual_stages.as_ref()).unwrap_or(1).max(1)
}

/// The idle share of a step: (p−1)/(m+p−1), or (p−1)/(v·m+p−1) interleaved.
pub fn bubble(p: i64, m: i64, v: i64, schedule: PipelineSchedule) -> f64 {
    let vm = if schedule == PipelineSchedule::Interleaved {
        v.saturating_mul(m)
    } else {
        m
    };
    (p - 1) as f64 / (vm.saturating_add(p - 1)) as f64
}

/// Path of `resources.custom.stage_<N>_gpus` as written.
fn stage_gpus_path(key: &str) -> Vec<PathSeg> {
    ["resources", "custom", key]
        .iter()
        .map(|k| PathSeg::Key((*k).to_string()))
        .collect()
}

/// Resolves the pipeline of `decls` under the config's `settings` (its
/// `tree` locates values). `None` when nothing declares a stage.
pub fn resolve(
    config: FileId,
    tree: &Tree,
    settings: &Settings,
    decls: &[StageDecl],
    inventory: Option<&Inventory>,
    runtime: Option<&crate::runtime::Runtime>,
) -> Option<Pipeline> {
    if decls.is_empty() {
        return None;
    }
    let mut facts = Facts::default();

    // Unique ids: the first declaration of an id wins.
    let mut by_id: BTreeMap<i64, usize> = BTreeMap::new();
    for (i, d) in decls.iter().enumerate() {
        match by_id.get(&d.id.value) {
            Some(&first) => facts.duplicates.push((i, first)),
            None => {
                by_id.insert(d.id.value, i);
            }
        }
    }
    facts.ids = by_id.keys().copied().collect();
    facts.unique = by_id.values().copied().collect();
    let unique: Vec<&StageDecl> = by_id.values().filter_map(|&i| decls.get(i)).collect();

    // Contiguous from 0.
    facts.contiguous = true;
    for (expected, (&id, &i)) in (0i64..).zip(by_id.iter()) {
        if id != expected {
            facts.contiguous = false;
            facts.gap = Some((i, expected));
            break;
        }
    }
    // With duplicated or missing ids the number of stages is unknown, so
    // checks of the pipeline's shape wait until the numbering is fixed.
    facts.numbered = facts.contiguous && facts.duplicates.is_empty();
    let n = unique.len() as i64;
    let p = n.max(1);

    // Where each `stage_<N>_gpus` is, and its entries, located: the
    // `resources.custom` mapping is indexed once, so many stages cost no
    // repeated lookups.
    let custom: HashMap<String, Entry> = tree
        .locate(&stage_gpus_path("")[..2])
        .map(|l| tree.merged_entries(l.node).into_iter().collect())
        .unwrap_or_default();
    let mut stage_gpus: BTreeMap<i64, Vec<Located<String>>> = BTreeMap::new();
    for (&k, g) in &settings.stage_gpus {
        let Some(entry) = custom.get(&g.key) else { continue };
        let at = |node: NodeId, key: Option<NodeId>| Loc {
            file: config,
            span: located_span(tree, At { node, key }),
        };
        facts.stage_gpus.insert(k, at(entry.value, Some(entry.key)));
        let items: &[NodeId] = match tree.value(entry.value) {
            Value::Seq(items) => items,
            _ => &[],
        };
        let listed = g
            .types
            .iter()
            .filter_map(|(i, t)| {
                items.get(*i).map(|&item| Located {
                    value: t.clone(),
                    loc: at(item, None),
                })
            })
            .collect();
        stage_gpus.insert(k, listed);
    }

    // The graph.
    let (stages, order) = build_graph(&unique, &by_id, facts.contiguous, &mut facts);

    // Devices and dtypes.
    let default_dtype = settings.default_dtype.as_deref().and_then(dtype::parse);
    let mut resolved: Vec<Stage> = Vec::new();
    for s in &stages {
        let Some(&index) = by_id.get(&s.id) else { continue };
        let Some(decl) = decls.get(index) else { continue };
        // With a gap in the ids, `stage_<N>_gpus` cannot be matched to
        // stages reliably: each stage is checked against its own declaration.
        let gpus: &[Located<String>] = if facts.contiguous {
            stage_gpus.get(&s.id).map_or(&[], Vec::as_slice)
        } else {
            &[]
        };
        let gpu_types = resolve_devices(decl, index, gpus, facts.contiguous, &mut facts);
        let dtype = match &decl.dtype {
            Some(text) => match dtype::parse(&text.value) {
                Some(dt) => Some(dt),
                None => {
                    facts.unknown_dtypes.push((s.id, text.clone()));
                    None
                }
            },
            None => Some(default_dtype.unwrap_or(DType::Fp32)),
        };
        resolved.push(Stage {
            gpu_types,
            dtype,
            ..s.clone()
        });
    }

    // Casts at boundaries.
    let boundaries = casts(&resolved);

    // Slots and batches.
    let dp = settings
        .slots_per_trial
        .count()
        .filter(|&slots| slots >= p && slots % p == 0)
        .map(|slots| slots / p);
    let micro_batches_and_bubble = match dp {
        Some(dp) if facts.numbered => fixed_batches(settings, p, dp),
        _ => None,
    };

    // Hardware.
    let allocation = match (inventory, dp) {
        (Some(inv), Some(dp)) => {
            let demands: Vec<Demand<'_>> = resolved
                .iter()
                .map(|s| Demand {
                    id: s.id,
                    gpu_types: &s.gpu_types,
                })
                .collect();
            let exclude = |node: &crate::hardware::inventory::InvNode, gpu: &crate::hardware::inventory::InvGpu| {
                driver_exclusion(runtime, node, gpu)
            };
            Some(allocate(inv, &demands, dp, &exclude))
        }
        _ => None,
    };

    let by_stage: BTreeMap<i64, Stage> = resolved.into_iter().map(|s| (s.id, s)).collect();
    let ordered: Vec<Stage> = order.iter().filter_map(|id| by_stage.get(id).cloned()).collect();
    let schedule = schedules(settings)
        .first()
        .copied()
        .unwrap_or(PipelineSchedule::OneFOneB);
    Some(Pipeline {
        stages: ordered,
        boundaries,
        degree: p as u64,
        data_parallel: dp.map(|d| d as u64),
        micro_batch_size: Settings::fixed(settings.micro_batch_size.as_ref()).map(|m| m.max(0) as u64),
        micro_batches: micro_batches_and_bubble.and_then(|(m, _)| m).map(|m| m as u64),
        schedule,
        virtual_stages: virtual_stages(settings) as u64,
        bubble: micro_batches_and_bubble.and_then(|(_, b)| b),
        allocation,
        facts,
    })
}

/// The micro-batches per step and the bubble, when the batch sizes and the
/// schedule are fixed and divide.
fn fixed_batches(settings: &Settings, p: i64, dp: i64) -> Option<(Option<i64>, Option<f64>)> {
    let combos = batch_combinations(settings, dp);
    if combos.is_empty() {
        return None;
    }
    let schedules = schedules(settings);
    let dividing: Vec<i64> = combos.iter().filter_map(|c| c.micro_batches).collect();
    let m = match dividing.as_slice() {
        [m] => Some(*m),
        _ => None,
    };
    let bubble = match (m, schedules.as_slice()) {
        (Some(m), [s]) => Some(bubble(p, m, virtual_stages(settings), *s)),
        _ => None,
    };
    Some((m, bubble))
}

/// Builds the petgraph graph, records bad inputs, cycles and dead ends, and
/// returns the stages with their inputs and a topological order.
fn build_graph(
    decls: &[&StageDecl],
    by_id: &BTreeMap<i64, usize>,
    contiguous: bool,
    facts: &mut Facts,
) -> (Vec<Stage>, Vec<i64>) {
    let mut graph: DiGraph<i64, Loc> = DiGraph::new();
    let index: BTreeMap<i64, NodeIndex> = decls.iter().map(|d| (d.id.value, graph.add_node(d.id.value))).collect();
    let mut stages = Vec::new();
    for d in decls {
        let id = d.id.value;
        let mut inputs = Vec::new();
        match &d.inputs {
            Some(list) => {
                for input in &list.value {
                    if input.value == id || !index.contains_key(&input.value) {
                        facts.bad_inputs.push((id, input.clone()));
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
                if let Some(prev) = id.checked_sub(1) {
                    if let (Some(&from), Some(&to)) = (index.get(&prev), index.get(&id)) {
                        inputs.push(prev);
                        graph.add_edge(from, to, d.decl);
                    }
                }
            }
        }
        stages.push(Stage {
            id,
            name: d.name.value.clone(),
            decl: d.decl,
            name_loc: d.name.loc,
            source: d.source,
            gpu_types: Vec::new(),
            dtype: None,
            dtype_written: d.dtype.clone(),
            inputs,
            modules: d.modules.clone(),
            params: d.params,
        });
    }
    // Cycles: each strongly connected component with more than one stage is
    // recorded once, at the input that closes it.
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
        let mut on_path: BTreeSet<NodeIndex> = BTreeSet::from([start]);
        let mut here = start;
        let mut closing: Option<Loc> = None;
        for _ in 0..scc.len() + 1 {
            let next = graph
                .edges_directed(here, Direction::Outgoing)
                .filter(|e| members.contains(&e.target()))
                .min_by_key(|e| {
                    let t = e.target();
                    (t != start, on_path.contains(&t), graph[t])
                });
            let Some(edge) = next else { break };
            if edge.target() == start {
                closing = Some(*edge.weight());
                path.push(start);
                break;
            }
            here = edge.target();
            on_path.insert(here);
            path.push(here);
        }
        if let Some(loc) = closing {
            facts.cycles.push((path.iter().map(|n| graph[*n]).collect(), loc));
        }
    }
    // Reachability of the last stage.
    let order: Vec<i64> = match toposort(&graph, None) {
        Ok(order) => order.into_iter().map(|n| graph[n]).collect(),
        Err(_) => decls.iter().map(|d| d.id.value).collect(),
    };
    facts.last = decls.last().map(|d| d.id.value);
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
                let reached = index.get(&d.id.value).is_some_and(|node| reaches.contains(node));
                if !reached {
                    if let Some(&i) = by_id.get(&d.id.value) {
                        facts.dead_ends.push(i);
                    }
                }
            }
        }
    }
    (stages, order)
}

/// The stage's acceptable GPU types, in order of preference, recording
/// unknown names, disagreements and a missing device.
fn resolve_devices(
    decl: &StageDecl,
    index: usize,
    gpus: &[Located<String>],
    contiguous: bool,
    facts: &mut Facts,
) -> Vec<String> {
    let mut known = |name: &Located<String>| match catalog::resolve_quietly(&name.value).resolution {
        Resolution::Unknown { .. } => {
            facts.unknown_gpus.push(name.clone());
            None
        }
        r => Some(r),
    };
    let device = decl.device.as_ref().and_then(|dev| known(dev).map(|r| (dev, r)));
    let listed: Vec<(&Located<String>, Resolution)> = gpus.iter().filter_map(|g| known(g).map(|r| (g, r))).collect();
    let mut disagree = false;
    if let Some((dev, dev_res)) = &device {
        for (g, g_res) in &listed {
            let same_family = dev_res.family() == g_res.family();
            let compatible = catalog::satisfies(&dev.value, &g.value) || catalog::satisfies(&g.value, &dev.value);
            if !(same_family && compatible) {
                disagree = true;
                facts.disagreements.push((decl.id.value, (*g).clone(), (*dev).clone()));
            }
        }
    }
    // When the two disagree, the stage is checked further against the device
    // its code was written for, so one mistake is one error.
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
    // have a gap, its `stage_<N>_gpus` is not looked for.
    let numbered_by_gap = !contiguous && decl.source == DeclSource::Implicit;
    if types.is_empty() && !numbered_by_gap {
        facts.without_device.push(index);
    }
    types
}

/// The dtype changes at stage boundaries, with their risk.
fn casts(stages: &[Stage]) -> Vec<Boundary> {
    let dtypes: BTreeMap<i64, DType> = stages.iter().filter_map(|s| s.dtype.map(|d| (s.id, d))).collect();
    let mut out = Vec::new();
    for s in stages {
        let Some(&to_dtype) = dtypes.get(&s.id) else { continue };
        for &from in &s.inputs {
            let Some(&from_dtype) = dtypes.get(&from) else { continue };
            if from_dtype == to_dtype {
                continue;
            }
            out.push(Boundary {
                from,
                to: s.id,
                from_dtype,
                to_dtype,
                risk: dtype::cast_risk(from_dtype, to_dtype),
            });
        }
    }
    out
}

/// What the batch rules look at: the pipeline degree p, the data-parallel
/// degree, the searched combinations and where to report them. `None` when
/// the pipeline's shape is not known (ids not numbered, slots that do not
/// divide) or a batch size is not set.
pub struct BatchView {
    pub p: i64,
    pub dp: i64,
    pub combinations: Vec<BatchCombination>,
    /// More than one combination is searched.
    pub searched: bool,
    /// `global_batch_size` when it is fixed or the micro-batch size is
    /// searched too, else `micro_batch_size`: the value to point at.
    pub at: Vec<PathSeg>,
}

impl Pipeline {
    /// The batch settings as the rules check them.
    pub fn batches(&self, settings: &Settings) -> Option<BatchView> {
        let dp = i64::try_from(self.data_parallel?).ok()?;
        if !self.facts.numbered {
            return None;
        }
        let combinations = batch_combinations(settings, dp);
        if combinations.is_empty() {
            return None;
        }
        let gbs_fixed = Settings::fixed(settings.global_batch_size.as_ref()).is_some();
        let micro_fixed = Settings::fixed(settings.micro_batch_size.as_ref()).is_some();
        let at: Vec<PathSeg> = if gbs_fixed || !micro_fixed {
            ["hyperparameters", "global_batch_size"].iter()
        } else {
            ["hyperparameters", "hpp_config", "micro_batch_size"].iter()
        }
        .map(|k| PathSeg::Key((*k).to_string()))
        .collect();
        Some(BatchView {
            p: self.degree.max(1) as i64,
            dp,
            searched: combinations.len() > 1,
            combinations,
            at,
        })
    }
}
