//! Cluster inventories: which GPUs a cluster offers, node by node, read from
//! one of three formats (detected from the content, not the file name):
//!
//! 1. **stagec inventory YAML** ([`crate::spec::inventory`], schema
//!    `schemas/inventory.schema.json`): `nodes:` with `name`, `gpus:
//!    {type, count}` (or a list of such groups), `labels` and `schedulable`.
//!    Validated against the schema; errors are located like a config's.
//! 2. **Kubernetes NodeList**: `kubectl get nodes -o json` (`kind: NodeList`),
//!    also a `kind: List` of Nodes, a single `kind: Node`, and the same as
//!    `-o yaml`. Parsed with the spanned YAML parser (JSON is YAML 1.2), so
//!    every node keeps its location. Per node:
//!    * the GPU type from GPU Feature Discovery's `nvidia.com/gpu.product`
//!      (resolved through the catalog; `-MIG-<profile>` and `-SHARED` suffixes
//!      are kept in the label and reported in [`InvGpu::mig`] /
//!      [`InvGpu::shared`]), else from a plain `gpu.type` label as an
//!      operator sets it (`kubectl label node gpu-node-01 gpu.type=a100`);
//!      MIG devices of the *mixed* strategy come from
//!      `nvidia.com/mig-<profile>.product` labels;
//!    * the count from `status.allocatable["nvidia.com/gpu"]`, else
//!      `status.capacity`, else the `nvidia.com/gpu.count` (or `gpu.count`)
//!      label;
//!    * memory from `nvidia.com/gpu.memory` (MiB) and the compute capability
//!      from `nvidia.com/gpu.compute.major`/`.minor`.
//!
//!    `nvidia.com/gpu.family` is deliberately ignored: GFD derives it from
//!    the compute-capability major alone and calls Ada (8.9) "ampere".
//!
//!    **Skipped nodes.** A node is skipped (recorded in
//!    [`Inventory::skipped`] with a reason, its GPUs not counted) when it is
//!    cordoned (`spec.unschedulable: true`) or carries a `NoSchedule` /
//!    `NoExecute` taint that trial pods do not tolerate. Taints with the key
//!    `nvidia.com/gpu` are the exception: GPU node pools (GKE, EKS, the GPU
//!    operator's guides) taint GPU nodes that way precisely so that only pods
//!    requesting `nvidia.com/gpu` land there, and such pods receive the
//!    matching toleration (Kubernetes' `ExtendedResourceToleration`
//!    admission plugin, GKE automatically). `PreferNoSchedule` taints never
//!    skip a node. Every other blocking taint (`node.kubernetes.io/not-ready`,
//!    `…/unreachable`, `…/unschedulable`, control-plane taints, `sku=gpu`,
//!    custom ones) does: Determined's pods carry no toleration for it unless
//!    the experiment's `environment.pod_spec` adds one.
//! 3. **`nvidia-smi` CSV** from
//!    `nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv`
//!    (also `noheader` and/or `nounits`, and other column orders when a header
//!    names them): one host, one node named `localhost`.
//!
//! Content that fits none of them gets `P301` at the start of the file. A GPU
//! that does not resolve to a catalog entry gets `P302` (a warning) at its
//! label or line; it stays in [`InvNode::gpus`] with `family: None` but does
//! not count as supply.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::document::Document;
use crate::hardware::catalog::{self, Gpu, Resolution};
use crate::schema::{self, SchemaIndex};
use crate::source::{FileId, Loc, Located, Span};
use crate::spec::inventory::{GpuGroup, InventoryFile, NodeGpus};
use crate::yaml::{self, Budgets, NodeId, PathSeg, Tree, Value};

/// The committed inventory schema (generated from [`crate::spec::inventory`]).
pub const INVENTORY_SCHEMA: &str = include_str!("../../schemas/inventory.schema.json");

/// The inventory schema's validator, generated at build time.
#[jsonschema::validator(path = "schemas/inventory.schema.json", validate_formats = false)]
struct InventoryValidator;

/// The inventory schema as a document, for error suggestions and hover.
pub fn inventory_index() -> &'static SchemaIndex {
    static INDEX: OnceLock<SchemaIndex> = OnceLock::new();
    INDEX.get_or_init(|| SchemaIndex::new(serde_json::from_str(INVENTORY_SCHEMA).unwrap_or(serde_json::Value::Null)))
}

/// Bytes per MiB.
const MIB: u64 = 1 << 20;

/// Node name used for an `nvidia-smi` inventory (one host).
pub const NVIDIA_SMI_NODE: &str = "localhost";

/// GFD's product label: the node-selector key for an exact GPU type.
pub const LABEL_PRODUCT: &str = "nvidia.com/gpu.product";
/// The plain type label operators set by hand (`gpu.type=a100`).
pub const LABEL_GPU_TYPE: &str = "gpu.type";
/// The extended resource NVIDIA's device plugin advertises.
pub const RESOURCE_GPU: &str = "nvidia.com/gpu";

/// Taint keys whose `NoSchedule`/`NoExecute` effect does not keep GPU trial
/// pods off a node (see the module docs).
const TOLERATED_TAINT_KEYS: [&str; 1] = [RESOURCE_GPU];

/// Which format an inventory was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InventoryFormat {
    /// stagec's own inventory YAML.
    Stagec,
    /// A Kubernetes NodeList (`kubectl get nodes -o json|yaml`).
    NodeList,
    /// `nvidia-smi --query-gpu=… --format=csv` of one host.
    NvidiaSmi,
    /// The local CUDA probe ([`crate::hardware::probe`]) of one host.
    Probe,
}

impl InventoryFormat {
    /// A short name for messages.
    pub fn describe(self) -> &'static str {
        match self {
            InventoryFormat::Stagec => "stagec inventory YAML",
            InventoryFormat::NodeList => "Kubernetes NodeList",
            InventoryFormat::NvidiaSmi => "nvidia-smi CSV",
            InventoryFormat::Probe => "local CUDA probe",
        }
    }
}

/// A cluster's GPUs as an inventory file lists them.
#[derive(Clone, Debug)]
pub struct Inventory {
    pub format: InventoryFormat,
    /// Nodes trials may be scheduled on, in file order.
    pub nodes: Vec<InvNode>,
    /// Nodes left out (cordoned, tainted, `schedulable: false`), in file order.
    pub skipped: Vec<SkippedNode>,
}

/// One schedulable node.
#[derive(Clone, Debug)]
pub struct InvNode {
    pub name: String,
    /// The node's name as written (the whole entry when it has no name).
    pub loc: Loc,
    /// Its GPUs, one entry per type. Empty for a CPU-only node.
    pub gpus: Vec<InvGpu>,
    /// Its labels (values as text).
    pub labels: BTreeMap<String, String>,
    /// Its NVIDIA driver release and where the inventory gives it, when it
    /// does (stagec's `driver`, GPU Feature Discovery's driver labels,
    /// nvidia-smi's `driver_version`).
    pub driver: Option<Located<String>>,
}

/// A node that is in the file but not available to trials.
#[derive(Clone, Debug)]
pub struct SkippedNode {
    pub name: String,
    /// Why, for a message: "cordoned (`spec.unschedulable: true`)", "tainted …".
    pub reason: String,
    /// The node's name as written.
    pub loc: Loc,
    /// What makes it unavailable (`unschedulable: true`, the taint, `schedulable: false`).
    pub cause: Loc,
    /// The GPUs it would offer (no `P302` is reported for these).
    pub gpus: Vec<InvGpu>,
}

/// A number of identical GPUs in one node.
#[derive(Clone, Debug, PartialEq)]
pub struct InvGpu {
    /// The type as the inventory names it (`NVIDIA-H100-80GB-HBM3`, `a100`,
    /// `NVIDIA H200`), suffixes included.
    pub label: String,
    /// The node label that carries it (`nvidia.com/gpu.product`, `gpu.type`,
    /// `nvidia.com/mig-3g.40gb.product`): the key a node selector would use.
    /// `None` for `nvidia-smi`, and for stagec YAML when no label of the node
    /// names this type.
    pub label_key: Option<String>,
    /// The exact catalog entry, when the name (with the reported memory, if
    /// the name denotes several variants) singles one out. For a MIG slice,
    /// the GPU it is carved from.
    pub gpu: Option<&'static Gpu>,
    /// The catalog family (`a100`), when the name resolves at all.
    pub family: Option<&'static str>,
    /// How many (0 when the node advertises none allocatable).
    pub count: u32,
    /// Memory per GPU in MiB: as reported (label, CSV, YAML), else the exact
    /// catalog entry's (not for MIG slices).
    pub memory_mib: Option<u64>,
    /// `(major, minor)`: as reported, else the exact catalog entry's.
    pub compute_capability: Option<(u32, u32)>,
    /// MIG profile (`3g.40gb`) when these are MIG slices, not whole GPUs.
    pub mig: Option<String>,
    /// Time-sliced replicas (`-SHARED` suffix).
    pub shared: bool,
    /// The type's label value, CSV field or YAML `type` value.
    pub loc: Loc,
}

impl InvGpu {
    /// Whether the type resolved to the catalog (only then is it supply).
    pub fn is_known(&self) -> bool {
        self.family.is_some()
    }

    /// The most precise name for catalog matching: the exact entry's id (with
    /// the MIG suffix) when known, else the label.
    pub fn offered_name(&self) -> String {
        match (self.gpu, &self.mig) {
            (Some(g), Some(mig)) => format!("{}-mig-{mig}", g.id),
            (Some(g), None) => g.id.clone(),
            (None, _) => self.label.clone(),
        }
    }
}

/// What an inventory reader found wrong, as plain data (the `P3…` rules
/// word it).
#[derive(Clone, Debug, PartialEq)]
pub enum InventoryIssue {
    /// The content is not an inventory stagec reads (`at`: its first line).
    NotAnInventory { at: Span, why: NotAnInventory },
    /// A line of `nvidia-smi` CSV that is not a GPU row (left out).
    BadCsvRow { at: Span, fields: usize },
    /// A GPU name the catalog does not know: its GPUs are not supply.
    UnknownGpu {
        at: Span,
        label: String,
        source: GpuSource,
        count: u32,
    },
    /// A node advertising GPUs without a label naming their type.
    UnlabelledGpus { at: Span, node: String, count: u32 },
    /// A GPU count that is not a whole number of GPUs (negative, beyond 32
    /// bits, not a number): the node's GPUs are not counted. `what` names
    /// the resource or label.
    BadCount { at: Span, written: String, what: String },
}

/// Why a file is not an inventory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotAnInventory {
    /// Neither YAML/JSON nor nvidia-smi CSV.
    Unparsable,
    /// The table `kubectl get nodes` prints.
    KubectlTable,
    /// An nvidia-smi error message.
    NvidiaSmiError,
    Empty,
    /// Plain text.
    PlainText,
    /// A document of another type (its type name).
    NotAMapping(&'static str),
    /// A Kubernetes List of other objects (their kind).
    ListOf(String),
    /// A Kubernetes object of another kind.
    OtherKind(String),
    /// A mapping with neither `nodes:` nor `kind: NodeList`.
    Unknown,
    /// A NodeList or List whose `items` is not a list (its type).
    ItemsNotAList(&'static str),
    /// Nested beyond the node budget.
    TooDeep,
    /// Valid against the schema but not readable (the reader's reason).
    Unreadable(String),
}

impl NotAnInventory {
    /// Whether the file is output of a tool an inventory comes from
    /// (`kubectl`, `nvidia-smi`, a Kubernetes object, a stagec inventory
    /// that fails its schema), shown as usual. Anything else may be any
    /// file at all (a credentials file named by mistake): its text is never
    /// shown (see `Compiled::withheld`).
    pub fn recognised(&self) -> bool {
        match self {
            NotAnInventory::KubectlTable
            | NotAnInventory::NvidiaSmiError
            | NotAnInventory::ListOf(_)
            | NotAnInventory::OtherKind(_)
            | NotAnInventory::ItemsNotAList(_)
            | NotAnInventory::Unreadable(_) => true,
            NotAnInventory::Unparsable
            | NotAnInventory::Empty
            | NotAnInventory::PlainText
            | NotAnInventory::NotAMapping(_)
            | NotAnInventory::Unknown
            | NotAnInventory::TooDeep => false,
        }
    }
}

/// Where an unknown GPU name was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuSource {
    /// A node of stagec's inventory YAML.
    Node(String),
    /// A label of a Kubernetes node: (label key, node).
    Label(String, String),
    /// An nvidia-smi CSV row.
    NvidiaSmi,
}

/// An inventory read: the inventory (when the content is one), the YAML
/// document it was read from (YAML and JSON formats), and what is wrong.
#[derive(Clone, Debug, Default)]
pub struct InventoryRead {
    pub inventory: Option<Inventory>,
    pub document: Option<Document>,
    pub issues: Vec<InventoryIssue>,
}

/// Reads an inventory, detecting its format. The inventory is `None` when
/// the content is not one stagec reads, or a stagec inventory YAML fails
/// its schema. A returned inventory may still come with issues: unknown
/// GPU names and malformed `nvidia-smi` rows, which are left out.
pub fn read(file: FileId, text: &str, budgets: &Budgets) -> InventoryRead {
    let mut out = InventoryRead::default();
    if let Some(inv) = csv::read(file, text, &mut out.issues) {
        out.inventory = Some(inv);
        return out;
    }
    let mut doc = Document::parse(text, budgets, crate::yaml::Schema::Core);
    // A file that is not an inventory (a credentials file a settings file or
    // a slip of the hand named) keeps no document: no YAML finding quotes
    // its text, and the one issue points at where reading stopped.
    if let Some(stop) = doc.issues.iter().find(|i| i.truncates()) {
        out.issues.push(InventoryIssue::NotAnInventory {
            at: Span::at(stop.span().start.min(text.len())),
            why: NotAnInventory::Unparsable,
        });
        return out;
    }
    let inventory = match classify(&doc.tree, text) {
        Shape::Stagec(root) => read_stagec(file, &mut doc, root, budgets, &mut out.issues),
        Shape::NodeList(items) => Some(nodelist::read(file, &doc.tree, &items, &mut out.issues)),
        Shape::Other(why) => {
            let recognised = why.recognised();
            out.issues.push(unrecognised(text, why));
            if !recognised {
                return out;
            }
            None
        }
    };
    out.inventory = inventory;
    out.document = Some(doc);
    out
}

/// Not an inventory, at the file's first line.
fn unrecognised(text: &str, why: NotAnInventory) -> InventoryIssue {
    let first_line = text.find(['\n', '\r']).unwrap_or(text.len());
    InventoryIssue::NotAnInventory {
        at: Span::new(0, first_line),
        why,
    }
}

/// Resolves a GPU name and fills in what the catalog knows.
pub(crate) fn build_gpu(
    label: &str,
    label_key: Option<String>,
    count: u32,
    memory_mib: Option<u64>,
    compute_capability: Option<(u32, u32)>,
    loc: Loc,
) -> InvGpu {
    let resolved = catalog::resolve_quietly(label);
    let mig = resolved.mig.as_ref().map(|m| m.raw.clone());
    let gpu = match &resolved.resolution {
        Resolution::Exact(g) => Some(*g),
        Resolution::Family { .. } if mig.is_none() => {
            memory_mib.and_then(|m| catalog::match_probe(label, m.saturating_mul(MIB)))
        }
        _ => None,
    };
    InvGpu {
        label: label.to_string(),
        label_key,
        gpu,
        family: resolved.resolution.family(),
        count,
        memory_mib: memory_mib.or_else(|| gpu.filter(|_| mig.is_none()).map(|g| g.memory_mib)),
        compute_capability: compute_capability.or_else(|| gpu.map(|g| g.compute_capability)),
        mig,
        shared: resolved.shared,
        loc,
    }
}

/// What the parsed document looks like.
enum Shape {
    Stagec(NodeId),
    NodeList(Vec<NodeId>),
    Other(NotAnInventory),
}

fn classify(tree: &Tree, text: &str) -> Shape {
    let Some(root) = tree.root() else {
        return Shape::Other(NotAnInventory::Empty);
    };
    match tree.value(root) {
        Value::Map(_) => {}
        Value::Str(_) if looks_like_kubectl_table(text) => return Shape::Other(NotAnInventory::KubectlTable),
        Value::Str(_) if text.contains("NVIDIA-SMI has failed") || text.contains("No devices were found") => {
            return Shape::Other(NotAnInventory::NvidiaSmiError)
        }
        Value::Null => return Shape::Other(NotAnInventory::Empty),
        Value::Str(_) => return Shape::Other(NotAnInventory::PlainText),
        other => return Shape::Other(NotAnInventory::NotAMapping(yaml::type_name(other))),
    }
    let kind = child(tree, root, "kind").and_then(|k| scalar(tree, k));
    let items = || match child(tree, root, "items").map(|i| tree.value(i)) {
        Some(Value::Seq(items)) => items.clone(),
        _ => Vec::new(),
    };
    let items_type = child(tree, root, "items")
        .map(|i| tree.value(i))
        .filter(|v| !matches!(v, Value::Seq(_) | Value::Null))
        .map(yaml::type_name);
    if let (Some("NodeList" | "List"), Some(found)) = (kind.as_deref(), items_type) {
        return Shape::Other(NotAnInventory::ItemsNotAList(found));
    }
    match kind.as_deref() {
        Some("NodeList") => Shape::NodeList(items()),
        Some("Node") => Shape::NodeList(vec![root]),
        Some("List") => {
            let all = items();
            let nodes: Vec<NodeId> = all
                .iter()
                .copied()
                .filter(|&i| {
                    child(tree, i, "kind")
                        .and_then(|k| scalar(tree, k))
                        .is_none_or(|k| k == "Node")
                })
                .collect();
            match all.first() {
                Some(&first) if nodes.is_empty() => {
                    let k = child(tree, first, "kind")
                        .and_then(|k| scalar(tree, k))
                        .unwrap_or_default();
                    Shape::Other(NotAnInventory::ListOf(k))
                }
                _ => Shape::NodeList(nodes),
            }
        }
        Some(other) => Shape::Other(NotAnInventory::OtherKind(other.to_string())),
        None if child(tree, root, "nodes").is_some() => Shape::Stagec(root),
        None if matches!(child(tree, root, "items").map(|i| tree.value(i)), Some(Value::Seq(_))) => {
            Shape::NodeList(items())
        }
        None => Shape::Other(NotAnInventory::Unknown),
    }
}

/// `NAME   STATUS   ROLES …` as `kubectl get nodes` prints it.
fn looks_like_kubectl_table(text: &str) -> bool {
    let first = text.trim_start().lines().next().unwrap_or("");
    let cols: Vec<&str> = first.split_whitespace().collect();
    cols.first() == Some(&"NAME") && cols.contains(&"STATUS")
}

/// A mapping's value for `key` (merges included); `None` for non-mappings.
fn child(tree: &Tree, map: NodeId, key: &str) -> Option<NodeId> {
    if !matches!(tree.value(map), Value::Map(_)) {
        return None;
    }
    tree.get(map, key).map(|l| l.node)
}

fn child_path(tree: &Tree, mut node: NodeId, keys: &[&str]) -> Option<NodeId> {
    for k in keys {
        node = child(tree, node, k)?;
    }
    Some(node)
}

/// A scalar's text (`"8"` and `8` alike); `None` for null and collections.
fn scalar(tree: &Tree, id: NodeId) -> Option<String> {
    match tree.value(id) {
        Value::Null | Value::Seq(_) | Value::Map(_) | Value::Alias(_) => None,
        v => Some(yaml::scalar_text(v)),
    }
}

fn parse_u32(s: &str) -> Option<u32> {
    s.trim().parse().ok()
}

fn parse_u64(s: &str) -> Option<u64> {
    s.trim().parse().ok()
}

/// `"9.0"` → `(9, 0)`.
fn parse_cc(s: &str) -> Option<(u32, u32)> {
    let (major, minor) = s.trim().split_once('.')?;
    Some((parse_u32(major)?, parse_u32(minor)?))
}

// ---------------------------------------------------------------------------
// stagec inventory YAML

fn read_stagec(
    file: FileId,
    doc: &mut Document,
    root: NodeId,
    budgets: &Budgets,
    issues: &mut Vec<InventoryIssue>,
) -> Option<Inventory> {
    if !doc.within_alias_budget(budgets) {
        return None;
    }
    let text_start = |doc: &Document| doc.tree.span(root);
    let first_line = text_start(doc);
    let at_start = Span::new(0, first_line.start.min(first_line.end));
    let Some(json) = doc.tree.to_json(root, doc.tree.len().saturating_add(budgets.max_nodes)) else {
        issues.push(InventoryIssue::NotAnInventory {
            at: at_start,
            why: NotAnInventory::TooDeep,
        });
        return None;
    };
    let findings = {
        let tree = &doc.tree;
        schema::findings(tree, &json, inventory_index, InventoryValidator::iter_errors(&json))
    };
    let failed = !findings.is_empty();
    doc.findings = findings;
    if failed {
        doc.json = Some(json);
        return None;
    }
    let spec: InventoryFile = match serde_json::from_value(json.clone()) {
        Ok(spec) => spec,
        Err(e) => {
            issues.push(InventoryIssue::NotAnInventory {
                at: at_start,
                why: NotAnInventory::Unreadable(e.to_string()),
            });
            return None;
        }
    };
    doc.json = Some(json);
    let tree = &doc.tree;
    let loc_at = |path: &[PathSeg]| Loc {
        file,
        span: schema::value_span(tree, path),
    };
    let mut inv = Inventory {
        format: InventoryFormat::Stagec,
        nodes: Vec::new(),
        skipped: Vec::new(),
    };
    for (i, node) in spec.nodes.iter().enumerate() {
        let base = [PathSeg::Key("nodes".into()), PathSeg::Index(i)];
        let at = |rest: &[PathSeg]| -> Vec<PathSeg> { base.iter().chain(rest).cloned().collect() };
        let labels: BTreeMap<String, String> = node
            .labels
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.text()))
            .collect();
        let groups: Vec<(&GpuGroup, Vec<PathSeg>)> = match &node.gpus {
            None => Vec::new(),
            Some(NodeGpus::One(g)) => vec![(g, at(&[PathSeg::Key("gpus".into())]))],
            Some(NodeGpus::Many(gs)) => gs
                .iter()
                .enumerate()
                .map(|(j, g)| (g, at(&[PathSeg::Key("gpus".into()), PathSeg::Index(j)])))
                .collect(),
        };
        let schedulable = node.schedulable.unwrap_or(true);
        let mut gpus = Vec::new();
        for (group, path) in groups {
            let type_path: Vec<PathSeg> = path.iter().cloned().chain([PathSeg::Key("type".into())]).collect();
            let loc = loc_at(&type_path);
            let mut gpu = build_gpu(&group.gpu_type, None, group.count, group.memory_mib, None, loc);
            gpu.label_key = selector_label(&labels, &gpu);
            if !gpu.is_known() && schedulable {
                issues.push(InventoryIssue::UnknownGpu {
                    at: loc.span,
                    label: group.gpu_type.clone(),
                    source: GpuSource::Node(node.name.clone()),
                    count: group.count,
                });
            }
            gpus.push(gpu);
        }
        let name_loc = loc_at(&at(&[PathSeg::Key("name".into())]));
        if schedulable {
            let driver = node.driver.clone().map(|value| Located {
                value,
                loc: loc_at(&at(&[PathSeg::Key("driver".into())])),
            });
            inv.nodes.push(InvNode {
                name: node.name.clone(),
                loc: name_loc,
                gpus,
                labels,
                driver,
            });
        } else {
            inv.skipped.push(SkippedNode {
                name: node.name.clone(),
                reason: "marked `schedulable: false`".into(),
                loc: name_loc,
                cause: loc_at(&at(&[PathSeg::Key("schedulable".into())])),
                gpus,
            });
        }
    }
    Some(inv)
}

/// The label of a stagec-YAML node that selects this GPU type: one whose
/// value, as a request, these GPUs satisfy (`gpu.type: a100` for `a100-40g`).
/// GFD's product key first, then `gpu.type`, then the others by name.
fn selector_label(labels: &BTreeMap<String, String>, gpu: &InvGpu) -> Option<String> {
    let preferred = [LABEL_PRODUCT, LABEL_GPU_TYPE];
    let ordered = preferred
        .iter()
        .filter_map(|k| labels.get_key_value(*k))
        .chain(labels.iter().filter(|(k, _)| !preferred.contains(&k.as_str())));
    ordered
        .filter(|(_, v)| gpu.is_known() && catalog::serves(v, &gpu.offered_name()))
        .map(|(k, _)| k.clone())
        .next()
}

// ---------------------------------------------------------------------------
// Kubernetes NodeList

mod nodelist {
    use super::*;

    /// A node's labels: text and where the value is written.
    type Labels = BTreeMap<String, (String, NodeId)>;

    pub(super) fn read(file: FileId, tree: &Tree, items: &[NodeId], issues: &mut Vec<InventoryIssue>) -> Inventory {
        let mut inv = Inventory {
            format: InventoryFormat::NodeList,
            nodes: Vec::new(),
            skipped: Vec::new(),
        };
        for (idx, &item) in items.iter().enumerate() {
            let name_node = child_path(tree, item, &["metadata", "name"]);
            let name = name_node
                .and_then(|n| scalar(tree, n))
                .unwrap_or_else(|| format!("items[{idx}]"));
            let loc = Loc {
                file,
                span: tree.span(name_node.unwrap_or(item)),
            };
            let labels = labels(tree, item);
            let mut node_issues = Vec::new();
            let gpus = gpus(file, tree, item, &name, &labels, &mut node_issues);
            let plain_labels = labels.iter().map(|(k, (v, _))| (k.clone(), v.clone())).collect();
            match unschedulable(tree, item) {
                Some((reason, cause)) => inv.skipped.push(SkippedNode {
                    name,
                    reason,
                    loc,
                    cause: Loc {
                        file,
                        span: tree.span(cause),
                    },
                    gpus,
                }),
                None => {
                    issues.extend(node_issues);
                    let driver = driver(tree, &labels).map(|(value, at)| Located {
                        value,
                        loc: Loc {
                            file,
                            span: tree.span(at),
                        },
                    });
                    inv.nodes.push(InvNode {
                        name,
                        loc,
                        gpus,
                        labels: plain_labels,
                        driver,
                    });
                }
            }
        }
        inv
    }

    /// The driver release GPU Feature Discovery labels give: the `.full`
    /// label, else major/minor/revision, of the current names
    /// (`nvidia.com/cuda.driver-version.*`, device plugin 0.15+) or the
    /// deprecated ones (`nvidia.com/cuda.driver.*`); and the label to point at.
    /// Tegra nodes label `unknown`.
    fn driver(_tree: &Tree, labels: &Labels) -> Option<(String, NodeId)> {
        let valid = |v: &str| {
            !v.is_empty()
                && v.split('.')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        if let Some((v, at)) = labels.get("nvidia.com/cuda.driver-version.full") {
            if valid(v) {
                return Some((v.clone(), *at));
            }
        }
        for (prefix, rev) in [
            ("nvidia.com/cuda.driver-version", "revision"),
            ("nvidia.com/cuda.driver", "rev"),
        ] {
            let part = |k: &str| labels.get(&format!("{prefix}.{k}")).filter(|(v, _)| valid(v));
            let Some((major, at)) = part("major") else { continue };
            let mut text = major.clone();
            if let Some((minor, _)) = part("minor") {
                text = format!("{text}.{minor}");
                if let Some((r, _)) = part(rev) {
                    text = format!("{text}.{r}");
                }
            }
            return Some((text, *at));
        }
        None
    }

    fn labels(tree: &Tree, item: NodeId) -> Labels {
        let Some(map) = child_path(tree, item, &["metadata", "labels"]) else {
            return Labels::new();
        };
        tree.merged_entries(map)
            .into_iter()
            .filter_map(|(k, e)| scalar(tree, e.value).map(|v| (k, (v, e.value))))
            .collect()
    }

    /// Why the node cannot take trial pods, and the node that says so.
    fn unschedulable(tree: &Tree, item: NodeId) -> Option<(String, NodeId)> {
        let spec = child(tree, item, "spec")?;
        if let Some(u) = child(tree, spec, "unschedulable") {
            if matches!(tree.value(u), Value::Bool(true)) {
                return Some(("cordoned (`spec.unschedulable: true`)".into(), u));
            }
        }
        let taints = child(tree, spec, "taints")?;
        let Value::Seq(taints) = tree.value(taints) else {
            return None;
        };
        taints.iter().find_map(|&t| {
            let get = |k: &str| child(tree, t, k).and_then(|n| scalar(tree, n));
            let effect = get("effect")?;
            let key = get("key").unwrap_or_default();
            if !matches!(effect.as_str(), "NoSchedule" | "NoExecute") || TOLERATED_TAINT_KEYS.contains(&key.as_str()) {
                return None;
            }
            let value = get("value").map(|v| format!("={v}")).unwrap_or_default();
            let why = match key.as_str() {
                "node.kubernetes.io/not-ready" | "node.kubernetes.io/unreachable" => "the node is not ready",
                "node.kubernetes.io/unschedulable" => "the node is cordoned",
                k if k.starts_with("node-role.kubernetes.io/") => "a control-plane node",
                _ => "trial pods carry no toleration for it unless `environment.pod_spec` adds one",
            };
            Some((format!("tainted `{key}{value}:{effect}` ({why})"), t))
        })
    }

    /// The count a node advertises for an extended resource, and where; a
    /// count written but not a whole number of GPUs is reported (and the
    /// other section not consulted: the node's count is unknown).
    fn resource(tree: &Tree, item: NodeId, name: &str, issues: &mut Vec<InventoryIssue>) -> Option<(u32, NodeId)> {
        let n = ["allocatable", "capacity"]
            .iter()
            .find_map(|section| child_path(tree, item, &["status", section, name]))?;
        count_at(tree, n, &format!("status: {name}"), issues).map(|c| (c, n))
    }

    /// The count written at `n`, or an issue saying why it is not one.
    fn count_at(tree: &Tree, n: NodeId, what: &str, issues: &mut Vec<InventoryIssue>) -> Option<u32> {
        let written = scalar(tree, n);
        match written.as_deref().and_then(parse_u32) {
            Some(c) => Some(c),
            None => {
                issues.push(InventoryIssue::BadCount {
                    at: tree.span(n),
                    written: written.unwrap_or_else(|| yaml::type_name(tree.value(n)).to_string()),
                    what: what.to_string(),
                });
                None
            }
        }
    }

    fn label_u32(tree: &Tree, labels: &Labels, key: &str, issues: &mut Vec<InventoryIssue>) -> Option<u32> {
        let (_, n) = labels.get(key)?;
        count_at(tree, *n, &format!("label {key}"), issues)
    }

    fn gpus(
        file: FileId,
        tree: &Tree,
        item: NodeId,
        node: &str,
        labels: &Labels,
        issues: &mut Vec<InventoryIssue>,
    ) -> Vec<InvGpu> {
        let at = |id: NodeId| Loc {
            file,
            span: tree.span(id),
        };
        let mut out = Vec::new();
        let counted = resource(tree, item, RESOURCE_GPU, issues);
        let count = counted
            .map(|(c, _)| c)
            .or_else(|| label_u32(tree, labels, "nvidia.com/gpu.count", issues))
            .or_else(|| label_u32(tree, labels, "gpu.count", issues));
        let memory = labels.get("nvidia.com/gpu.memory").and_then(|(v, _)| parse_u64(v));
        let number = |key: &str| labels.get(key).and_then(|(v, _)| parse_u32(v));
        let cc = match (
            number("nvidia.com/gpu.compute.major"),
            number("nvidia.com/gpu.compute.minor"),
        ) {
            (Some(major), Some(minor)) => Some((major, minor)),
            _ => None,
        };
        let mig_products: Vec<(&String, &(String, NodeId))> = labels
            .iter()
            .filter(|(k, _)| k.starts_with("nvidia.com/mig-") && k.ends_with(".product"))
            .collect();

        // Whole GPUs (or single-strategy MIG slices): product label, else gpu.type.
        let candidates: Vec<(&str, &(String, NodeId))> = [LABEL_PRODUCT, LABEL_GPU_TYPE]
            .into_iter()
            .filter_map(|k| labels.get(k).map(|v| (k, v)))
            .collect();
        let chosen = candidates
            .iter()
            .find(|(_, (v, _))| catalog::resolve_quietly(v).resolution.is_known())
            .or(candidates.first());
        let count = count.unwrap_or(0);
        match chosen {
            Some((key, (value, id))) if count > 0 || mig_products.is_empty() => {
                let gpu = build_gpu(value, Some(key.to_string()), count, memory, cc, at(*id));
                if !gpu.is_known() {
                    for (key, (value, id)) in &candidates {
                        issues.push(InventoryIssue::UnknownGpu {
                            at: tree.span(*id),
                            label: value.clone(),
                            source: GpuSource::Label(key.to_string(), node.to_string()),
                            count,
                        });
                    }
                }
                out.push(gpu);
            }
            Some(_) => {}
            None if count > 0 => {
                let span = counted.map_or_else(|| tree.span(item), |(_, id)| tree.span(id));
                issues.push(InventoryIssue::UnlabelledGpus {
                    at: span,
                    node: node.to_string(),
                    count,
                });
            }
            None => {}
        }

        // MIG slices of the mixed strategy: `nvidia.com/mig-<profile>.product`.
        for (key, (value, id)) in mig_products {
            let prefix = key.trim_end_matches(".product");
            let profile = prefix.trim_start_matches("nvidia.com/mig-");
            let count = resource(tree, item, prefix, issues)
                .map(|(c, _)| c)
                .or_else(|| label_u32(tree, labels, &format!("{prefix}.count"), issues))
                .unwrap_or(0);
            let memory = labels.get(&format!("{prefix}.memory")).and_then(|(v, _)| parse_u64(v));
            let label = if value.to_ascii_lowercase().contains("-mig-") {
                value.clone()
            } else {
                format!("{value}-MIG-{profile}")
            };
            let gpu = build_gpu(&label, Some(key.clone()), count, memory, cc, at(*id));
            if !gpu.is_known() {
                issues.push(InventoryIssue::UnknownGpu {
                    at: tree.span(*id),
                    label: value.clone(),
                    source: GpuSource::Label(key.clone(), node.to_string()),
                    count,
                });
            }
            out.push(gpu);
        }
        out
    }
}

// ---------------------------------------------------------------------------
// nvidia-smi CSV

mod csv {
    use super::*;

    /// One comma-separated field, trimmed, with its span.
    struct Field<'t> {
        text: &'t str,
        span: Span,
    }

    /// The columns a header names.
    #[derive(Default)]
    struct Columns {
        name: Option<usize>,
        compute_cap: Option<usize>,
        memory: Option<usize>,
        driver: Option<usize>,
        width: usize,
    }

    /// What one data row says.
    struct Row {
        name: String,
        name_span: Span,
        memory_mib: Option<u64>,
        cc: Option<(u32, u32)>,
        /// `driver_version`, with its span.
        driver: Option<(String, Span)>,
    }

    /// `550.54.15`: a driver release (three or more dotted numbers).
    fn is_driver(s: &str) -> bool {
        let parts: Vec<&str> = s.split('.').collect();
        parts.len() >= 3 && parts.iter().all(|p| is_integer(p))
    }

    /// Non-empty lines with their byte offsets.
    fn lines(text: &str) -> Vec<(usize, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        for piece in text.split_inclusive('\n') {
            let line = piece.trim_end_matches(['\n', '\r']);
            if !line.trim().is_empty() {
                out.push((start, line));
            }
            start += piece.len();
        }
        out
    }

    fn fields(line: &str, at: usize) -> Vec<Field<'_>> {
        let mut out = Vec::new();
        let mut offset = 0;
        for raw in line.split(',') {
            let lead = raw.len() - raw.trim_start_matches([' ', '\t', '\u{feff}', '"']).len();
            let text = raw.trim_matches([' ', '\t', '\u{feff}', '"']);
            let start = at + offset + lead;
            out.push(Field {
                text,
                span: Span::new(start, start + text.len()),
            });
            offset += raw.len() + 1;
        }
        out
    }

    /// A header field's column name: `memory.total [MiB]` → `memory.total`.
    fn column_name(field: &str) -> String {
        let base = field.split('[').next().unwrap_or(field);
        base.trim().to_ascii_lowercase()
    }

    fn header(fields: &[Field<'_>]) -> Option<Columns> {
        let mut cols = Columns {
            width: fields.len(),
            ..Columns::default()
        };
        for (i, f) in fields.iter().enumerate() {
            match column_name(f.text).as_str() {
                "name" | "gpu_name" => cols.name = Some(i),
                "compute_cap" => cols.compute_cap = Some(i),
                "memory.total" => cols.memory = Some(i),
                "driver_version" => cols.driver = Some(i),
                _ => {}
            }
        }
        cols.name.map(|_| cols)
    }

    /// `143771 MiB` or `143771` → 143771; `[N/A]` → `None`.
    fn memory(s: &str) -> Option<u64> {
        let s = s.trim();
        let digits = s.strip_suffix("MiB").unwrap_or(s);
        parse_u64(digits)
    }

    fn is_integer(s: &str) -> bool {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
    }

    /// A data row without a header: fields classified by content. An integer
    /// below 1024 is the index, a larger one (or `N MiB`) the memory, `d.d`
    /// the compute capability, the first other field with a letter the name.
    fn row_by_content(fields: &[Field<'_>]) -> Option<Row> {
        let mut name: Option<&Field<'_>> = None;
        let mut memory_mib = None;
        let mut cc = None;
        let mut driver = None;
        let mut numeric = false;
        for f in fields {
            let t = f.text;
            if is_driver(t) {
                driver = Some((t.to_string(), f.span));
            } else if t.strip_suffix("MiB").is_some_and(|d| is_integer(d.trim())) {
                memory_mib = memory(t);
                numeric = true;
            } else if is_integer(t) {
                let v = parse_u64(t);
                if v.is_some_and(|v| v >= 1024) {
                    memory_mib = v;
                }
                numeric = true;
            } else if let Some(c) = parse_cc(t).filter(|_| t.bytes().all(|b| b.is_ascii_digit() || b == b'.')) {
                cc = Some(c);
                numeric = true;
            } else if t == "[N/A]" {
            } else if name.is_none() && t.chars().any(|c| c.is_ascii_alphabetic()) {
                name = Some(f);
            } else {
                return None;
            }
        }
        let name = name.filter(|_| numeric && fields.len() >= 2)?;
        Some(Row {
            name: name.text.to_string(),
            name_span: name.span,
            memory_mib,
            cc,
            driver,
        })
    }

    fn row_by_header(cols: &Columns, fields: &[Field<'_>]) -> Option<Row> {
        if fields.len() != cols.width {
            return None;
        }
        let name = fields.get(cols.name?)?;
        if name.text.is_empty() {
            return None;
        }
        Some(Row {
            name: name.text.to_string(),
            name_span: name.span,
            memory_mib: cols.memory.and_then(|i| fields.get(i)).and_then(|f| memory(f.text)),
            cc: cols
                .compute_cap
                .and_then(|i| fields.get(i))
                .and_then(|f| parse_cc(f.text)),
            driver: cols
                .driver
                .and_then(|i| fields.get(i))
                .filter(|f| is_driver(f.text) || is_integer(f.text))
                .map(|f| (f.text.to_string(), f.span)),
        })
    }

    /// Reads `nvidia-smi` CSV; `None` when the text is not CSV of that kind.
    pub(super) fn read(file: FileId, text: &str, issues: &mut Vec<InventoryIssue>) -> Option<Inventory> {
        let lines = lines(text);
        let &(first_at, first) = lines.first()?;
        let first_fields = fields(first, first_at);
        let cols = header(&first_fields);
        if cols.is_none() && first_fields.len() < 2 {
            return None;
        }
        let mut rows = Vec::new();
        let mut bad = Vec::new();
        match &cols {
            Some(cols) => {
                for &(at, line) in lines.iter().skip(1) {
                    match row_by_header(cols, &fields(line, at)) {
                        Some(row) => rows.push(row),
                        None => bad.push((at, line)),
                    }
                }
            }
            None => {
                // Without a header every line must look like a GPU row.
                for &(at, line) in &lines {
                    rows.push(row_by_content(&fields(line, at))?);
                }
            }
        }
        for (at, line) in bad {
            issues.push(InventoryIssue::BadCsvRow {
                at: Span::new(at, at + line.len()),
                fields: cols.as_ref().map_or(0, |c| c.width),
            });
        }
        // One host: the driver of its first row that gives one.
        let driver = rows.iter().find_map(|r| r.driver.clone()).map(|(value, span)| Located {
            value,
            loc: Loc { file, span },
        });
        // One entry per distinct (name, memory, compute capability).
        let mut groups: Vec<(Row, u32)> = Vec::new();
        for row in rows {
            match groups
                .iter_mut()
                .find(|(g, _)| g.name == row.name && g.memory_mib == row.memory_mib && g.cc == row.cc)
            {
                Some((_, n)) => *n = n.saturating_add(1),
                None => groups.push((row, 1)),
            }
        }
        let mut gpus = Vec::new();
        for (row, count) in groups {
            let loc = Loc {
                file,
                span: row.name_span,
            };
            let gpu = build_gpu(&row.name, None, count, row.memory_mib, row.cc, loc);
            if !gpu.is_known() {
                issues.push(InventoryIssue::UnknownGpu {
                    at: row.name_span,
                    label: row.name.clone(),
                    source: GpuSource::NvidiaSmi,
                    count,
                });
            }
            gpus.push(gpu);
        }
        Some(Inventory {
            format: InventoryFormat::NvidiaSmi,
            nodes: vec![InvNode {
                name: NVIDIA_SMI_NODE.to_string(),
                loc: Loc {
                    file,
                    span: Span::new(first_at, first_at + first.len()),
                },
                gpus,
                labels: BTreeMap::new(),
                driver,
            }],
            skipped: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Diagnostic, Severity};

    /// Schedulable GPUs of `inv` that serve a request for `requested`.
    fn count_matching(inv: &Inventory, requested: &str) -> u32 {
        per_node_matching(inv, requested).sum()
    }

    /// The most GPUs serving `requested` that one schedulable node has.
    fn max_per_node_matching(inv: &Inventory, requested: &str) -> u32 {
        per_node_matching(inv, requested).max().unwrap_or(0)
    }

    fn per_node_matching<'a>(inv: &'a Inventory, requested: &'a str) -> impl Iterator<Item = u32> + 'a {
        inv.nodes.iter().map(move |n| {
            n.gpus
                .iter()
                .filter(|g| g.is_known() && catalog::serves(requested, &g.offered_name()))
                .map(|g| g.count)
                .sum()
        })
    }

    /// Known schedulable GPUs per label as the inventory names them.
    fn supply(inv: &Inventory) -> BTreeMap<String, u32> {
        let mut out = BTreeMap::new();
        for g in inv.nodes.iter().flat_map(|n| &n.gpus).filter(|g| g.is_known()) {
            *out.entry(g.label.clone()).or_default() += g.count;
        }
        out
    }

    fn total_gpus(inv: &Inventory) -> u32 {
        supply(inv).values().sum()
    }

    use crate::hardware::catalog::Architecture;

    /// Reads `text` as the inventory of a project whose config does not
    /// parse (so the pipeline's rules stay out of it): the inventory and the
    /// diagnostics of the file, as a user sees them.
    fn read(text: &str) -> (Option<Inventory>, Vec<Diagnostic>) {
        read_with(text, &Budgets::default())
    }

    fn read_with(text: &str, budgets: &Budgets) -> (Option<Inventory>, Vec<Diagnostic>) {
        let project = crate::project::Project {
            models: Some(Vec::new()),
            inventory: Some(crate::project::Input {
                name: "inventory".into(),
                bytes: text.as_bytes().to_vec(),
            }),
            ..crate::project::Project::config_only("const.yaml", "")
        };
        let options = crate::compile::Options {
            budgets: *budgets,
            ..Default::default()
        };
        let compiled = crate::compile::compile(&project, &options);
        let diags = compiled
            .diagnostics
            .into_iter()
            .filter(|d| d.file == FileId(1))
            .collect();
        (compiled.inventory, diags)
    }

    /// Reads an inventory that must come without diagnostics.
    fn clean(text: &str) -> Inventory {
        let (inv, diags) = read(text);
        assert!(diags.is_empty(), "unexpected diagnostics: {diags:#?}");
        match inv {
            Some(inv) => inv,
            None => panic!("no inventory"),
        }
    }

    fn node<'a>(inv: &'a Inventory, name: &str) -> &'a InvNode {
        match inv.nodes.iter().find(|n| n.name == name) {
            Some(n) => n,
            None => panic!(
                "no node {name} in {:?}",
                inv.nodes.iter().map(|n| &n.name).collect::<Vec<_>>()
            ),
        }
    }

    fn only_gpu<'a>(inv: &'a Inventory, name: &str) -> &'a InvGpu {
        match node(inv, name).gpus.as_slice() {
            [g] => g,
            other => panic!("node {name} has {} GPU groups", other.len()),
        }
    }

    fn text_at(text: &str, span: Span) -> &str {
        text.get(span.start..span.end).unwrap_or("<bad span>")
    }

    /// 1-based line of a byte offset.
    fn line_of(text: &str, offset: usize) -> usize {
        text.get(..offset).unwrap_or("").matches('\n').count() + 1
    }

    fn codes(diags: &[Diagnostic]) -> Vec<&'static str> {
        diags.iter().map(|d| d.code).collect()
    }

    const NODELIST: &str = r#"{
  "apiVersion": "v1",
  "kind": "NodeList",
  "items": [
    {
      "kind": "Node",
      "metadata": {
        "name": "h100-node-01",
        "labels": {
          "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
          "nvidia.com/gpu.count": "8",
          "nvidia.com/gpu.memory": "81559",
          "nvidia.com/gpu.compute.major": "9",
          "nvidia.com/gpu.compute.minor": "0"
        }
      },
      "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
      "status": {"allocatable": {"cpu": "191", "nvidia.com/gpu": "8"}, "capacity": {"nvidia.com/gpu": "8"}}
    },
    {
      "kind": "Node",
      "metadata": {
        "name": "a100-node-01",
        "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.family": "ampere"}
      },
      "spec": {},
      "status": {"allocatable": {"nvidia.com/gpu": "2"}}
    },
    {
      "kind": "Node",
      "metadata": {"name": "a100-node-02", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}},
      "spec": {"unschedulable": true, "taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]},
      "status": {"allocatable": {"nvidia.com/gpu": "8"}}
    },
    {
      "kind": "Node",
      "metadata": {"name": "gpu-node-01", "labels": {"gpu.type": "h100"}},
      "status": {"capacity": {"nvidia.com/gpu": "4"}}
    },
    {
      "kind": "Node",
      "metadata": {
        "name": "mig-node-01",
        "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB-MIG-3g.40gb", "nvidia.com/gpu.count": "8"}
      },
      "status": {}
    }
  ]
}"#;

    #[test]
    fn nodelist_mixed_cluster() {
        let inv = clean(NODELIST);
        assert_eq!(inv.format, InventoryFormat::NodeList);
        let names: Vec<&str> = inv.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["h100-node-01", "a100-node-01", "gpu-node-01", "mig-node-01"]);

        // GFD-labelled H100s: exact entry, reported facts, located at the label value.
        let h100 = only_gpu(&inv, "h100-node-01");
        assert_eq!(h100.gpu.map(|g| g.id.as_str()), Some("h100-sxm5-80gb"));
        assert_eq!(h100.family, Some("h100"));
        assert_eq!(h100.count, 8);
        assert_eq!(h100.memory_mib, Some(81559));
        assert_eq!(h100.compute_capability, Some((9, 0)));
        assert_eq!(h100.label_key.as_deref(), Some(LABEL_PRODUCT));
        assert_eq!(text_at(NODELIST, h100.loc.span), "\"NVIDIA-H100-80GB-HBM3\"");
        assert!(text_at(NODELIST, node(&inv, "h100-node-01").loc.span).contains("h100-node-01"));
        assert_eq!(
            node(&inv, "h100-node-01")
                .labels
                .get("nvidia.com/gpu.count")
                .map(String::as_str),
            Some("8")
        );

        // Only a plain `gpu.type` label; the count from `status.capacity`.
        let typed = only_gpu(&inv, "gpu-node-01");
        assert_eq!((typed.label.as_str(), typed.count), ("h100", 4));
        assert_eq!(typed.label_key.as_deref(), Some(LABEL_GPU_TYPE));
        assert_eq!((typed.gpu, typed.family), (None, Some("h100")));

        // MIG slices: the count from the `nvidia.com/gpu.count` label.
        let mig = only_gpu(&inv, "mig-node-01");
        assert_eq!(mig.mig.as_deref(), Some("3g.40gb"));
        assert_eq!(mig.gpu.map(|g| g.id.as_str()), Some("a100-sxm4-80gb"));
        assert_eq!(mig.count, 8);
        assert_eq!(mig.memory_mib, None);

        // The cordoned node is skipped, with its reason and cause.
        assert_eq!(inv.skipped.len(), 1);
        let skipped = &inv.skipped[0];
        assert_eq!(skipped.name, "a100-node-02");
        assert!(skipped.reason.contains("cordoned"), "{}", skipped.reason);
        assert_eq!(text_at(NODELIST, skipped.cause.span), "true");
        assert_eq!(skipped.gpus.first().map(|g| g.count), Some(8));

        assert_eq!(count_matching(&inv, "h100"), 12);
        // The node labelled only `gpu.type=h100` serves a variant request too
        // (catalog::serves), as the allocation counts it.
        assert_eq!(count_matching(&inv, "h100-sxm"), 12);
        assert_eq!(max_per_node_matching(&inv, "h100"), 8);
        assert_eq!(count_matching(&inv, "a100"), 2);
        assert_eq!(count_matching(&inv, "a100-40g"), 2);
        assert_eq!(count_matching(&inv, "a100-80g"), 0);
        assert_eq!(count_matching(&inv, "NVIDIA-A100-SXM4-80GB-MIG-3g.40gb"), 8);
        assert_eq!(count_matching(&inv, "a100-80g-mig-3g.40gb"), 8);
        assert_eq!(count_matching(&inv, "t4"), 0);
        assert_eq!(count_matching(&inv, "not-a-gpu"), 0);
        let supply = supply(&inv);
        assert_eq!(supply.get("NVIDIA-H100-80GB-HBM3"), Some(&8));
        assert_eq!(supply.get("NVIDIA-A100-SXM4-40GB"), Some(&2));
        assert_eq!(supply.get("h100"), Some(&4));
        assert_eq!(total_gpus(&inv), 22);
    }

    #[test]
    fn sample_nodelist_file() {
        let text = include_str!("../../tests/inventories/nodelist-mixed.json");
        let inv = clean(text);
        assert_eq!(inv.format, InventoryFormat::NodeList);
        // `nvidia.com/gpu.family: ampere` on an L4 is not believed.
        let l4 = only_gpu(&inv, "l4-node-01");
        assert_eq!(l4.gpu.map(|g| g.architecture), Some(Architecture::Ada));
        assert_eq!(l4.compute_capability, Some((8, 9)));
        // The `nvidia.com/gpu` taint is tolerated, the cordon and the control-plane taint are not.
        assert_eq!(only_gpu(&inv, "h100-node-01").count, 8);
        let skipped: Vec<&str> = inv.skipped.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(skipped, ["a100-node-02", "control-plane-01"]);
        assert!(inv.skipped[1]
            .reason
            .contains("node-role.kubernetes.io/control-plane:NoSchedule"));
        assert_eq!(count_matching(&inv, "h100"), 12);
        assert_eq!(count_matching(&inv, "a100"), 2);
        assert_eq!(count_matching(&inv, "l4"), 1);
    }

    #[test]
    fn kubectl_yaml_output_and_single_node() {
        let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    labels:\n      nvidia.com/gpu.product: Tesla-T4\n  status:\n    allocatable:\n      nvidia.com/gpu: \"4\"\n";
        let inv = clean(list);
        assert_eq!(inv.format, InventoryFormat::NodeList);
        assert_eq!(only_gpu(&inv, "n1").gpu.map(|g| g.id.as_str()), Some("t4"));
        assert_eq!(count_matching(&inv, "t4"), 4);

        let single = "kind: Node\nmetadata:\n  name: n2\n  labels: {gpu.type: l40s, nvidia.com/gpu.count: '2'}\n";
        let inv = clean(single);
        assert_eq!(only_gpu(&inv, "n2").count, 2);
        assert_eq!(count_matching(&inv, "l40s"), 2);

        // A NoExecute taint of a not-ready node skips it; PreferNoSchedule does not.
        let tainted = r#"{"kind": "NodeList", "items": [
          {"metadata": {"name": "a", "labels": {"gpu.type": "a10"}},
           "spec": {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]},
           "status": {"allocatable": {"nvidia.com/gpu": "1"}}},
          {"metadata": {"name": "b", "labels": {"gpu.type": "a10"}},
           "spec": {"taints": [{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]},
           "status": {"allocatable": {"nvidia.com/gpu": 1}}}]}"#;
        let inv = clean(tainted);
        assert_eq!(inv.skipped.len(), 1);
        assert!(inv.skipped[0].reason.contains("not ready"), "{}", inv.skipped[0].reason);
        assert_eq!(count_matching(&inv, "a10"), 1);
    }

    #[test]
    fn nodelist_mig_mixed_strategy() {
        let text = r#"{"kind": "NodeList", "items": [{"metadata": {"name": "m", "labels": {
            "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
            "nvidia.com/mig-1g.5gb.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
            "nvidia.com/mig-1g.5gb.count": "14",
            "nvidia.com/mig-3g.20gb.product": "NVIDIA-A100-SXM4-40GB"}},
          "status": {"allocatable": {"nvidia.com/gpu": "0", "nvidia.com/mig-1g.5gb": "14", "nvidia.com/mig-3g.20gb": "2"}}}]}"#;
        let inv = clean(text);
        let gpus = &node(&inv, "m").gpus;
        let summary: Vec<(&str, Option<&str>, u32)> = gpus
            .iter()
            .map(|g| (g.label.as_str(), g.mig.as_deref(), g.count))
            .collect();
        assert_eq!(
            summary,
            [
                ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", Some("1g.5gb"), 14),
                ("NVIDIA-A100-SXM4-40GB-MIG-3g.20gb", Some("3g.20gb"), 2),
            ]
        );
        assert_eq!(count_matching(&inv, "a100"), 0);
        assert_eq!(count_matching(&inv, "a100-40g-mig-1g.5gb"), 14);
    }

    const CLUSTER_YAML: &str = include_str!("../../tests/inventories/cluster.yaml");

    #[test]
    fn stagec_yaml() {
        let inv = clean(CLUSTER_YAML);
        assert_eq!(inv.format, InventoryFormat::Stagec);
        let names: Vec<&str> = inv.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["gpu-node-01", "gpu-node-02", "gpu-node-03", "cpu-node-01"]);
        let a100 = only_gpu(&inv, "gpu-node-01");
        assert_eq!((a100.label.as_str(), a100.count), ("a100-40g", 8));
        assert_eq!(a100.label_key.as_deref(), Some("gpu.type"));
        assert_eq!(a100.family, Some("a100"));
        assert_eq!(text_at(CLUSTER_YAML, a100.loc.span), "a100-40g");
        assert_eq!(text_at(CLUSTER_YAML, node(&inv, "gpu-node-01").loc.span), "gpu-node-01");
        assert_eq!(
            node(&inv, "gpu-node-01").labels.get("gpu.type").map(String::as_str),
            Some("a100")
        );
        let mixed = &node(&inv, "gpu-node-02").gpus;
        assert_eq!(mixed.len(), 2);
        assert_eq!(
            mixed.first().and_then(|g| g.gpu).map(|g| g.id.as_str()),
            Some("h100-sxm5-80gb")
        );
        assert_eq!(mixed.first().and_then(|g| g.label_key.clone()), None);
        // `a100-sxm` + memory picks the 80 GB part.
        let sized = only_gpu(&inv, "gpu-node-03");
        assert_eq!(sized.gpu.map(|g| g.id.as_str()), Some("a100-sxm4-80gb"));
        assert_eq!(sized.compute_capability, Some((8, 0)));
        assert!(node(&inv, "cpu-node-01").gpus.is_empty());
        // `schedulable: false`.
        assert_eq!(inv.skipped.len(), 1);
        assert_eq!(inv.skipped[0].name, "gpu-node-04");
        assert_eq!(text_at(CLUSTER_YAML, inv.skipped[0].cause.span), "false");

        assert_eq!(count_matching(&inv, "a100"), 16);
        assert_eq!(count_matching(&inv, "a100-40g"), 8);
        assert_eq!(count_matching(&inv, "a100-80g"), 8);
        assert_eq!(count_matching(&inv, "h100"), 4);
        assert_eq!(max_per_node_matching(&inv, "a100"), 8);
        assert_eq!(count_matching(&inv, "l4"), 2);
    }

    #[test]
    fn stagec_yaml_schema_errors_are_located() {
        let text = "nodes:\n  - name: n1\n    gpus: {type: a100, count: 0}\n  - name: n2\n    gpu: {type: a100, count: 1}\n  - name: n3\n    gpus: [{type: h100, count: 2, extra: 1}]\n";
        let (inv, diags) = read(text);
        assert!(inv.is_none());
        let found: Vec<(&str, usize)> = diags.iter().map(|d| (d.code, line_of(text, d.span.start))).collect();
        assert!(found.contains(&("C105", 3)), "{diags:#?}");
        assert!(found.contains(&("C101", 5)), "{diags:#?}");
        assert!(found.contains(&("C101", 7)), "{diags:#?}");
        assert!(diags.iter().all(|d| d.severity == Severity::Error));

        let (inv, diags) = read("nodes:\n  - gpus: {type: a100, count: 2}\n");
        assert!(inv.is_none());
        assert_eq!(codes(&diags), ["C103"]);
        assert_eq!(
            diags.first().map(|d| line_of("nodes:\n  - gpus", d.span.start)),
            Some(2)
        );
    }

    #[test]
    fn nvidia_smi_csv() {
        let with_units = "index, name, compute_cap, memory.total [MiB]\n0, NVIDIA H200, 9.0, 143771 MiB\n1, NVIDIA H200, 9.0, 143771 MiB\n";
        let without_units = "index, name, compute_cap, memory.total [MiB]\r\n0, NVIDIA H200, 9.0, 143771\r\n1, NVIDIA H200, 9.0, 143771\r\n";
        let no_header = "0, NVIDIA H200, 9.0, 143771 MiB\n1, NVIDIA H200, 9.0, 143771 MiB\n";
        let neither = "0, NVIDIA H200, 9.0, 143771\n1, NVIDIA H200, 9.0, 143771\n";
        let reordered = "memory.total [MiB], name, index\n143771 MiB, NVIDIA H200, 0\n143771 MiB, NVIDIA H200, 1\n";
        for text in [with_units, without_units, no_header, neither, reordered] {
            let inv = clean(text);
            assert_eq!(inv.format, InventoryFormat::NvidiaSmi, "{text}");
            assert!(inv.skipped.is_empty());
            let g = only_gpu(&inv, NVIDIA_SMI_NODE);
            assert_eq!(g.gpu.map(|g| g.id.as_str()), Some("h200-sxm-141gb"), "{text}");
            assert_eq!(g.count, 2, "{text}");
            assert_eq!(g.memory_mib, Some(143771), "{text}");
            assert_eq!(g.compute_capability, Some((9, 0)), "{text}");
            assert_eq!(g.label_key, None);
            assert_eq!(text_at(text, g.loc.span), "NVIDIA H200");
            assert_eq!(count_matching(&inv, "h200"), 2);
            assert_eq!(max_per_node_matching(&inv, "h200"), 2);
        }
        // `--query-gpu=name --format=csv`: one column.
        let inv = clean("name\nNVIDIA A10G\nNVIDIA A10G\nNVIDIA A10G\nNVIDIA A10G\n");
        assert_eq!(count_matching(&inv, "a10g"), 4);
        let inv = clean(include_str!("../../tests/inventories/nvidia-smi-h100x8.csv"));
        assert_eq!(count_matching(&inv, "h100-sxm"), 8);
        assert_eq!(supply(&inv).get("NVIDIA H100 80GB HBM3"), Some(&8));

        // A malformed row is reported and left out; the rest is read.
        let text = "index, name, compute_cap, memory.total [MiB]\n0, NVIDIA L4, 8.9, 23034 MiB\n1, NVIDIA L4\n";
        let (inv, diags) = read(text);
        assert_eq!(codes(&diags), ["P301"]);
        assert_eq!(diags.first().map(|d| line_of(text, d.span.start)), Some(3));
        assert_eq!(inv.map(|i| count_matching(&i, "l4")), Some(1));
    }

    #[test]
    fn unrecognised_content_is_p301() {
        let kubectl_table =
            "NAME           STATUS   ROLES    AGE   VERSION\ngpu-node-01    Ready    <none>   42d   v1.29.3\n";
        for text in [
            "",
            "hello world\n",
            kubectl_table,
            "[1, 2, 3]\n",
            "foo: bar\n",
            "{\"kind\": \"PodList\", \"items\": []}",
            "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n",
            "No devices were found\n",
            "nodes: [\n",
        ] {
            let (inv, diags) = read(text);
            assert!(inv.is_none(), "{text:?}");
            let p301: Vec<&Diagnostic> = diags.iter().filter(|d| d.code == "P301").collect();
            assert_eq!(p301.len(), 1, "{text:?}: {diags:#?}");
            // At the start; a file that does not parse, where reading stopped.
            let at = if text == "nodes: [\n" { text.len() } else { 0 };
            assert_eq!(p301.first().map(|d| d.span.start), Some(at), "{text:?}");
            // No other finding quotes a file that is not an inventory.
            assert_eq!(diags.len(), 1, "{text:?}: {diags:#?}");
            assert!(p301
                .iter()
                .all(|d| d.help.as_deref().is_some_and(|h| h.contains("nvidia-smi"))));
        }
        let (_, diags) = read(kubectl_table);
        assert!(diags.iter().any(|d| d.message.contains("kubectl get nodes -o json")));
        // Bytes that are not text stop before the inventory reader.
        let (inv, diags) = read("\u{0}\u{1}binary");
        assert!(inv.is_none());
        assert_eq!(codes(&diags), ["Y006"]);
    }

    #[test]
    fn unknown_gpu_is_p302() {
        let text = r#"{"kind": "NodeList", "items": [{"metadata": {"name": "x",
            "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-X"}},
            "status": {"allocatable": {"nvidia.com/gpu": "8"}}}]}"#;
        let (inv, diags) = read(text);
        assert_eq!(codes(&diags), ["P302"]);
        let d = &diags[0];
        assert_eq!(d.severity, Severity::Warning);
        assert_eq!(text_at(text, d.span), "\"NVIDIA-A100-SXM4-40GB-X\"");
        assert!(d.help.as_deref().is_some_and(|h| h.contains("did you mean")), "{d:#?}");
        let inv = inv.unwrap_or_else(|| panic!("no inventory"));
        assert!(supply(&inv).is_empty());
        assert_eq!(count_matching(&inv, "a100"), 0);
        assert!(!only_gpu(&inv, "x").is_known());

        // GPUs with no type label at all.
        let text = r#"{"kind": "NodeList", "items": [{"metadata": {"name": "y"}, "status": {"allocatable": {"nvidia.com/gpu": "4"}}}]}"#;
        let (_, diags) = read(text);
        assert_eq!(codes(&diags), ["P302"]);
        assert_eq!(diags.first().map(|d| text_at(text, d.span)), Some("\"4\""));

        let (inv, diags) = read("nodes:\n  - name: n\n    gpus: {type: a1000, count: 2}\n");
        assert_eq!(codes(&diags), ["P302"]);
        assert_eq!(inv.map(|i| total_gpus(&i)), Some(0));

        let text = "index, name, compute_cap, memory.total [MiB]\n0, NVIDIA Z9000, 9.9, 1000 MiB\n";
        let (_, diags) = read(text);
        assert_eq!(codes(&diags), ["P302"]);
        assert_eq!(diags.first().map(|d| text_at(text, d.span)), Some("NVIDIA Z9000"));

        // Skipped nodes get no warning.
        let text = "nodes:\n  - name: n\n    gpus: {type: a1000, count: 2}\n    schedulable: false\n";
        assert_eq!(clean(text).skipped.len(), 1);
    }

    #[test]
    fn budgets_apply() {
        let budgets = Budgets {
            max_bytes: 10,
            ..Budgets::default()
        };
        let (inv, diags) = read_with("nodes: []\n# padding\n", &budgets);
        assert!(inv.is_none());
        assert_eq!(codes(&diags), ["Y005"]);
        let lol = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nnodes: []\n";
        let (inv, diags) = read(lol);
        assert!(inv.is_none());
        assert!(
            codes(&diags).contains(&crate::rules::alias_budget::ALIAS_BUDGET.code),
            "{diags:#?}"
        );
    }
}
