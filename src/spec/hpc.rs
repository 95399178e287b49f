//! `pbs` and `slurm`: settings for HPC workload managers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Options used when Determined schedules trials through PBS.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PbsConfig {
    /// Slots (GPUs) per node to request, at least 1. Defaults to the cluster's setting.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub slots_per_node: Option<u64>,
    /// Extra arguments passed to `qsub`, one option per entry. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pbsbatch_args: Option<Vec<String>>,
}

/// Options used when Determined schedules trials through Slurm.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlurmConfig {
    /// Slots (GPUs) per node to request, at least 1. Defaults to the cluster's setting.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub slots_per_node: Option<u64>,
    /// GPU type requested through `--gpus=<type>:<n>`. Defaults to any GPU type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_type: Option<String>,
    /// Extra arguments passed to `sbatch`, one option per entry. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sbatch_args: Option<Vec<String>>,
}
