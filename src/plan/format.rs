//! The `stage_plan.json` format: the public types launchers read, their
//! JSON Schema and the format's version. Building a plan is
//! [`super::build`]'s.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::spec::hyperparameters::{GradientNormalization, PipelineSchedule};

/// Version of the `stage_plan.json` format.
pub const FORMAT_VERSION: u32 = 1;
/// The variable that points a trial at its plan.
pub const PLAN_VARIABLE: &str = "STAGEC_PLAN";

/// A resolved pipeline plan, consumed by launchers: which rank runs which
/// stage on which GPU type, with which dtype casts and environment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StagePlan {
    /// Version of this file's format; incompatible changes increase it.
    pub format_version: u32,
    /// The stagec version that wrote the plan.
    pub stagec_version: String,
    /// Every input file, with its SHA-256, so a plan names exactly what it was made from.
    pub inputs: Vec<PlanInput>,
    pub experiment: PlanExperiment,
    pub pipeline: PlanPipeline,
    /// Stages in topological (forward) order.
    pub stages: Vec<PlanStage>,
    /// Stage boundaries where the dtype changes, with the cast inserted there.
    pub boundaries: Vec<PlanBoundary>,
    pub process_groups: ProcessGroups,
    pub environment: PlanEnvironment,
    /// The container image the GPU stages run in and what it provides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<PlanImage>,
    pub hardware: PlanHardware,
    /// Warnings that remained when the plan was made.
    pub warnings: Vec<PlanWarning>,
}

/// An input file of the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanInput {
    /// What the file is.
    pub role: InputRole,
    /// The path relative to the context directory (`../` where it lies outside).
    pub path: String,
    /// Hex SHA-256 of the file's bytes.
    pub sha256: String,
}

/// What an input file of the plan is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(transform = crate::spec::const_variants_to_enum)]
pub enum InputRole {
    /// The experiment config.
    Config,
    /// A Python model source.
    Model,
    /// A `stages.yaml`.
    Stages,
    /// The cluster inventory.
    Inventory,
}

/// The experiment the plan is for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanExperiment {
    /// `name` from the config (unresolved `${VAR}` references kept as written).
    pub name: Option<String>,
    /// `entrypoint` from the config: a command string or an argument list.
    pub entrypoint: Option<Json>,
    /// `reproducibility.experiment_seed`, when set: the base of every rank's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// Pipeline-level settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanPipeline {
    /// Pipeline degree p: the number of stages.
    pub degree: u64,
    /// Data-parallel degree: pipeline replicas.
    pub data_parallel: u64,
    /// Total ranks: degree × data_parallel = `resources.slots_per_trial`.
    pub world_size: u64,
    /// Samples per micro-batch, when fixed.
    pub micro_batch_size: Option<u64>,
    /// Micro-batches per replica and step (m), when fixed.
    pub micro_batches: Option<u64>,
    /// The pipeline schedule.
    pub schedule: PipelineSchedule,
    /// Model chunks per device (interleaved schedules).
    pub virtual_stages: u64,
    /// Estimated idle share of each step: (p−1)/(v·m+p−1).
    pub bubble_fraction: Option<f64>,
    /// Where gradient norms are computed, when configured.
    pub gradient_normalization: Option<GradientNormalization>,
    /// Whether activations are recomputed in the backward pass, when configured.
    pub activation_checkpointing: Option<bool>,
}

/// One stage of the plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStage {
    pub id: i64,
    pub name: String,
    /// The modules that make up the stage (informational).
    pub modules: Vec<String>,
    /// Stages feeding this one.
    pub inputs: Vec<i64>,
    /// Canonical dtype name (`bf16`, `fp8_e4m3fn`, …).
    pub dtype: Option<String>,
    /// The PyTorch dtype (`torch.bfloat16`, …).
    pub torch_dtype: Option<String>,
    /// Acceptable GPU types, in order of preference.
    pub gpu_types: Vec<String>,
    /// The GPU the stage runs on, when it is pinned to one catalog entry
    /// (by the inventory, or because its type names exactly one).
    pub device: Option<PlanDevice>,
    /// Catalog entries the stage may run on.
    pub candidates: Vec<String>,
    /// GPUs of this stage: one per data-parallel replica.
    pub gpu_count: u64,
    /// Global ranks running this stage (its data-parallel group).
    pub ranks: Vec<u64>,
    /// The node label that selects this stage's GPUs.
    pub node_selector: Option<NodeSelector>,
    pub gradient_normalization: Option<GradientNormalization>,
    /// The `clip_norm` hyperparameter, when fixed.
    pub clip_norm: Option<f64>,
}

/// A catalog GPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanDevice {
    pub catalog_id: String,
    pub name: String,
    pub architecture: String,
    /// `major.minor`, e.g. `9.0`.
    pub compute_capability: String,
    /// Memory as nvidia-smi reports it, in bytes.
    pub memory_bytes: u64,
}

/// A Kubernetes node label selecting a stage's GPUs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSelector {
    /// `nvidia.com/gpu.product` (GPU Feature Discovery) or `gpu.type`.
    pub key: String,
    pub value: String,
}

/// A dtype change between two stages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanBoundary {
    pub from: i64,
    pub to: i64,
    pub from_dtype: String,
    pub to_dtype: String,
    /// The cast inserted, e.g. `fp16->fp8_e4m3fn`.
    pub cast: String,
    /// What the cast can lose.
    pub risk: Risk,
    /// Largest finite values of both dtypes, for range losses.
    pub from_max: Option<f64>,
    pub to_max: Option<f64>,
}

/// What a cast between stages can lose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(transform = crate::spec::const_variants_to_enum)]
pub enum Risk {
    /// Every value survives.
    Exact,
    /// Values keep their range but lose precision.
    PrecisionLoss,
    /// Values beyond the target's range overflow (or underflow).
    RangeLoss,
}

/// Process groups as lists of global ranks. Rank r runs stage `r mod p` of
/// replica `r div p`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessGroups {
    /// One pipeline group per data-parallel replica, stages in order.
    pub pipeline: Vec<Vec<u64>>,
    /// One data-parallel group per stage, in stage order.
    pub data_parallel: Vec<Vec<u64>>,
}

/// The GPU stages' container image, resolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanImage {
    /// The image as `environment.image` names it, or Determined's default.
    pub reference: String,
    /// Where the image comes from.
    pub source: ImageOrigin,
    /// For Determined's default image: the release whose default it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub determined: Option<String>,
    /// How stagec knows what it provides: `known_tag`, `pattern`, `ngc`, `ngc_based`, `stated` (`hpp_config.image_provides`), or `unresolved`.
    pub resolved_by: String,
    /// CUDA version of its PyTorch build, e.g. `11.7`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda: Option<String>,
    /// PyTorch version, e.g. `2.3.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch: Option<String>,
    /// Python version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// Architectures its PyTorch build carries code for, as PyTorch lists them (`sm_80`, `compute_90` for PTX).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch_list: Option<Vec<String>>,
    /// The driver an NGC-based image was built for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub built_for_driver: Option<String>,
}

/// Where a plan's image comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(transform = crate::spec::const_variants_to_enum)]
pub enum ImageOrigin {
    /// Written in the config.
    Config,
    /// Determined's default image for a release.
    Default,
}

/// The environment of every rank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanEnvironment {
    /// Variables set on every rank. `${VAR}` references are kept as written
    /// and credentials are never copied (see `references`).
    pub variables: BTreeMap<String, String>,
    /// Experiment values kept in place of stagec's defaults.
    pub overridden: Vec<EnvOverride>,
    /// `${VAR}` references and whether they were set when the plan was made.
    pub references: Vec<VarReference>,
    /// Values the launcher computes per rank.
    pub per_rank: Vec<PerRankVariable>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvOverride {
    pub name: String,
    /// stagec's default.
    pub default: String,
    /// The experiment's value, which is used.
    pub value: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VarReference {
    /// `${NAME}` as written.
    pub reference: String,
    /// Whether it was set when the plan was made.
    pub status: ReferenceStatus,
}

/// Whether a `${VAR}` reference was set when the plan was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(transform = crate::spec::const_variants_to_enum)]
pub enum ReferenceStatus {
    /// The variable was set.
    Set,
    /// Unset; its `:-default` applies.
    Default,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerRankVariable {
    pub name: String,
    /// How the launcher computes it.
    pub rule: String,
}

/// What the plan was checked against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanHardware {
    /// Where the supply came from.
    pub source: HardwareSource,
    /// The inventory's format, when one was given.
    pub inventory_format: Option<String>,
    /// GPUs needed per acceptable type list (joined with `|`).
    pub demand: BTreeMap<String, u64>,
    /// Schedulable GPUs per catalog type in the inventory.
    pub supply: BTreeMap<String, u64>,
    /// The probed host, with `--probe`.
    pub probe: Option<ProbeSummary>,
}

/// Where a plan's hardware supply came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(transform = crate::spec::const_variants_to_enum)]
pub enum HardwareSource {
    /// An inventory file.
    Inventory,
    /// The local GPU probe.
    Probe,
    /// Neither: availability was not checked.
    None,
}

/// The probed host's identity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProbeSummary {
    /// SHA-256 over the driver's CUDA level, the kernel driver's release and each device's name,
    /// compute capability, memory and UUID (devices in UUID order).
    pub fingerprint: String,
    /// CUDA version the driver supports, e.g. `12.4`.
    pub cuda_version: Option<String>,
    /// `cuDriverGetVersion`, e.g. 12040.
    pub cuda_driver_version: Option<i32>,
    /// The kernel driver's release, e.g. `550.54.15` (what driver compatibility
    /// is decided by); `null` when the probe could not read it. Absent from
    /// plans written before it was recorded.
    #[serde(default)]
    pub kernel_driver: Option<String>,
    /// Device names, in ordinal order.
    pub devices: Vec<String>,
}

/// A warning left in the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanWarning {
    pub code: String,
    pub message: String,
    pub file: String,
    pub line: usize,
    pub column: usize,
}

/// The JSON Schema of `stage_plan.json`.
pub fn plan_schema() -> Json {
    crate::spec::root_schema::<StagePlan>("https://stagec.dev/schemas/stage_plan.schema.json", "stagec stage plan")
}
