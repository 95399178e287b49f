//! stagec's own cluster inventory format (`--inventory cluster.yaml`): the
//! nodes of a cluster with the GPUs each one offers. The generated schema is
//! `schemas/inventory.schema.json`; the hardware inventory reader reads this
//! format together with Kubernetes NodeLists and `nvidia-smi` CSV.
//!
//! ```yaml
//! nodes:
//!   - name: gpu-node-01
//!     gpus: {type: a100-40g, count: 8}
//!     labels: {gpu.type: a100, topology.kubernetes.io/zone: us-east-1a}
//!   - name: gpu-node-02
//!     gpus:
//!       - {type: h100-sxm, count: 4}
//!       - {type: l4, count: 2}
//!     schedulable: false
//! ```

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `$id` of the generated inventory schema.
pub const INVENTORY_SCHEMA_ID: &str = "https://stagec.dev/schemas/inventory.schema.json";

/// `title` of the generated inventory schema.
pub const INVENTORY_SCHEMA_TITLE: &str = "Cluster inventory (stagec)";

/// A stagec cluster inventory: the nodes of the cluster and the GPUs each one offers. stagec checks the experiment's per-stage GPU requests (`resources.custom.stage_<N>_gpus`) against it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InventoryFile {
    /// The nodes of the cluster, one entry per machine. Required; may be empty.
    pub nodes: Vec<NodeSpec>,
}

/// One machine of the cluster.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Node name, as `kubectl get nodes` or the scheduler shows it (e.g. `gpu-node-01`). Required.
    #[schemars(length(min = 1))]
    pub name: String,

    /// GPUs installed in the node: one `{type, count}` group, or a list of them when the node mixes GPU types. Leave it out for a CPU-only node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus: Option<NodeGpus>,

    /// Kubernetes node labels (or scheduler tags) of the node, e.g. `gpu.type: a100` or `topology.kubernetes.io/zone: us-east-1a`. A label whose value names the node's GPU type is taken as the node-selector key for that type. Defaults to no labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, LabelValue>>,

    /// Whether trials may be scheduled on the node; `false` for a cordoned or drained node, whose GPUs then do not count as available. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub schedulable: Option<bool>,

    /// NVIDIA driver release installed on the node, e.g. `550.54.15` (`nvidia-smi --query-gpu=driver_version --format=csv,noheader`). Lets stagec check that the node's driver runs the experiment's image. Optional.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]+(\.[0-9]+){0,3}$"))]
    pub driver: Option<String>,
}

/// The GPUs of a node: one group or several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum NodeGpus {
    /// All GPUs of the node are of one type, e.g. `{type: a100-40g, count: 8}`.
    One(GpuGroup),
    /// The node has GPUs of several types, e.g. `[{type: h100-sxm, count: 4}, {type: l4, count: 2}]`.
    Many(Vec<GpuGroup>),
}

impl NodeGpus {
    /// The groups, in the order written.
    pub fn groups(&self) -> Vec<&GpuGroup> {
        match self {
            NodeGpus::One(g) => vec![g],
            NodeGpus::Many(gs) => gs.iter().collect(),
        }
    }
}

/// A number of identical GPUs in one node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GpuGroup {
    /// GPU type, resolved through stagec's GPU catalog: a short name (`a100`, `h100`, `l4`), a name with memory or form factor (`a100-40g`, `h100-sxm`, `a100-sxm4-80gb`), a driver name (`NVIDIA H100 80GB HBM3`) or a GPU Feature Discovery product label (`NVIDIA-A100-SXM4-40GB`). Required.
    #[serde(rename = "type")]
    #[schemars(length(min = 1))]
    pub gpu_type: String,

    /// How many GPUs of this type the node has. At least 1. Required.
    #[schemars(range(min = 1))]
    pub count: u32,

    /// Memory per GPU in MiB as `nvidia-smi` reports it (e.g. `81559`); picks the exact variant when `type` names several (`a100-sxm` with `81920` is the A100 SXM4 80GB). Optional.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub memory_mib: Option<u64>,
}

/// A label value. Kubernetes label values are strings; numbers and booleans are accepted and read as their text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum LabelValue {
    /// A string value, e.g. `a100`.
    Text(String),
    /// A number, read as its text (`8` is `"8"`).
    Number(serde_json::Number),
    /// A boolean, read as `true` or `false`.
    Flag(bool),
}

impl LabelValue {
    /// The value as Kubernetes would store it: its text.
    pub fn text(&self) -> String {
        match self {
            LabelValue::Text(s) => s.clone(),
            LabelValue::Number(n) => n.to_string(),
            LabelValue::Flag(b) => b.to_string(),
        }
    }
}

/// The JSON Schema (draft 2020-12) of [`InventoryFile`], as committed in
/// `schemas/inventory.schema.json`.
pub fn inventory_schema() -> Value {
    super::root_schema::<InventoryFile>(INVENTORY_SCHEMA_ID, INVENTORY_SCHEMA_TITLE)
}
