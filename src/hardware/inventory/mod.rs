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
pub const INVENTORY_SCHEMA: &str = include_str!("../../../schemas/inventory.schema.json");

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
        Shape::Stagec(root) => own::read(file, &mut doc, root, budgets, &mut out.issues),
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

// The three readers: stagec's own YAML, a Kubernetes NodeList, the
// `nvidia-smi` CSV.
mod csv;
mod nodelist;
mod own;

#[cfg(test)]
mod tests;
