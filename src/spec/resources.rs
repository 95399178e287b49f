//! `resources`: slots, scheduling, devices, and the stagec per-stage GPU types.

use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Regular expression that every key of `resources.custom` must match.
pub const STAGE_GPUS_KEY_PATTERN: &str = "^stage_[0-9]+_gpus$";

/// Pattern of a memory size such as `4G`, `4GiB`, `512 MB`, `1.5g` or `1024`, as Determined accepts for `shm_size`.
pub const MEMORY_SIZE_PATTERN: &str = r"^([0-9]*[.])?[0-9]+ ?(([kmgtpKMGTP]([iI]?[bB])?)|[bB])?$";

/// Pattern of a Docker `--device` string, `/host/path:/container/path[:mode]`.
pub const DEVICE_STRING_PATTERN: &str = "^/[^:]*:/[^:]*(:[rwm]*)?";

/// Compute resources requested by each trial.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResourcesConfig {
    /// Removed in Determined 0.20.0; accepted and ignored. Use `resource_pool` instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_label: Option<String>,
    /// Host devices (e.g. `/dev/infiniband`) to expose in the containers. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub devices: Option<Vec<DeviceConfig>>,
    /// Require all slots of a trial to be on a single node. Defaults to the resource manager's setting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_single_node: Option<bool>,
    /// Maximum number of slots the whole experiment may use at once. Defaults to no limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_slots: Option<i64>,
    /// Legacy: let the training code launch its own distributed processes. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub native_parallel: Option<bool>,
    /// Scheduling priority between 1 and 99 (lower runs first under the priority scheduler). Defaults to the pool's default priority.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 99))]
    pub priority: Option<i64>,
    /// Name of the resource pool the trials run in. Defaults to the cluster's default compute pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_pool: Option<String>,
    /// Size of `/dev/shm` in the containers: bytes as an integer, or a string such as `4G`, `4GiB` or `512 MB`. Defaults to the agent's setting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shm_size: Option<MemorySize>,
    /// Legacy key: Determined's master refuses every experiment that sets it; use `slots_per_trial`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slots: Option<i64>,
    /// Number of slots (usually GPUs) each trial uses; more than 1 enables distributed training. 0 runs on CPU. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub slots_per_trial: Option<u64>,
    /// Share of the resource pool given to this experiment under the fair-share scheduler. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub weight: Option<f64>,
    /// stagec extension (not part of Determined): for each pipeline stage N, the GPU types it may run on as `stage_N_gpus: [type, ...]`, most preferred first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom: Option<StageGpuTypes>,
}

/// A memory size: a number of bytes, or a string with an optional unit such as `4G`, `4GiB`, `512 MB`, `1.5g`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MemorySize {
    /// A size in bytes.
    Bytes(i64),
    /// A size with a unit suffix (`k`, `m`, `g`, `t`, `p`, optionally followed by `b` or `ib`, case-insensitive; or just `b`).
    Text(#[schemars(regex(pattern = MEMORY_SIZE_PATTERN))] String),
}

/// A host device exposed in the containers: a mapping object or a Docker `--device` string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum DeviceConfig {
    /// The device as `{host_path, container_path, mode}`.
    Mapping(DeviceMapping),
    /// The device as `/host/path:/container/path[:mode]`.
    Flag(#[schemars(regex(pattern = DEVICE_STRING_PATTERN))] String),
}

/// A host device mapped into the containers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceMapping {
    /// Device path on the host, e.g. `/dev/fuse`. Required.
    pub host_path: String,
    /// Device path inside the container. Required.
    pub container_path: String,
    /// cgroup permissions: any of `r` (read), `w` (write), `m` (mknod). Defaults to `mrw`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "mrw"))]
    pub mode: Option<String>,
}

/// stagec extension (not part of Determined): acceptable GPU types per pipeline stage. Keys are `stage_N_gpus` (N = 0, 1, ...); each value is a non-empty list of GPU type names, most preferred first. No other keys are allowed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "BTreeMap<String, Vec<String>>")]
#[schemars(transform = stage_gpu_types_schema)]
pub struct StageGpuTypes(pub BTreeMap<String, Vec<String>>);

impl StageGpuTypes {
    /// Whether `key` has the form `stage_N_gpus` with N a decimal number.
    pub fn is_stage_key(key: &str) -> bool {
        key.strip_prefix("stage_")
            .and_then(|rest| rest.strip_suffix("_gpus"))
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    }

    /// Returns the stage index N encoded in a `stage_N_gpus` key, or `None` if the key has another form (or N does not fit in a `u64`).
    pub fn stage_index(key: &str) -> Option<u64> {
        if !Self::is_stage_key(key) {
            return None;
        }
        key.strip_prefix("stage_")?.strip_suffix("_gpus")?.parse().ok()
    }
}

impl TryFrom<BTreeMap<String, Vec<String>>> for StageGpuTypes {
    type Error = String;

    fn try_from(map: BTreeMap<String, Vec<String>>) -> Result<Self, Self::Error> {
        for (key, types) in &map {
            if !Self::is_stage_key(key) {
                return Err(format!(
                    "resources.custom key `{key}` does not match {STAGE_GPUS_KEY_PATTERN}"
                ));
            }
            if types.is_empty() {
                return Err(format!("resources.custom.{key} must list at least one GPU type"));
            }
        }
        Ok(Self(map))
    }
}

/// Schema transform for [`StageGpuTypes`]: moves the value schema under
/// `patternProperties`, requires non-empty lists, and forbids other keys.
fn stage_gpu_types_schema(schema: &mut Schema) {
    let mut value_schema = schema
        .remove("additionalProperties")
        .unwrap_or_else(|| serde_json::json!({ "type": "array", "items": { "type": "string" } }));
    if let Value::Object(obj) = &mut value_schema {
        obj.insert("minItems".to_owned(), Value::from(1));
    }
    let mut patterns = serde_json::Map::new();
    patterns.insert(STAGE_GPUS_KEY_PATTERN.to_owned(), value_schema);
    schema.insert("patternProperties".to_owned(), Value::Object(patterns));
    schema.insert("additionalProperties".to_owned(), Value::Bool(false));
}
