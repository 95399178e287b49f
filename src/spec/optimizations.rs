//! `optimizations`: distributed-training performance settings.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Performance settings for distributed (Horovod/PyTorch) training.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OptimizationsConfig {
    /// Number of batches whose gradients are accumulated before each all-reduce, at least 1. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("default" = 1))]
    pub aggregation_frequency: Option<u64>,
    /// Let Horovod tune the tensor-fusion settings automatically. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub auto_tune_tensor_fusion: Option<bool>,
    /// Average (rather than sum) gradients accumulated over `aggregation_frequency` batches. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub average_aggregated_gradients: Option<bool>,
    /// Average training metrics across workers before reporting them. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub average_training_metrics: Option<bool>,
    /// Compress gradients to fp16 for communication. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub gradient_compression: Option<bool>,
    /// File where Horovod's gradient update sizes are recorded for tuning. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grad_updates_size_file: Option<String>,
    /// Legacy NVIDIA Apex AMP optimization level `O0` (off) to `O3`. Defaults to `O0`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "O0"))]
    pub mixed_precision: Option<MixedPrecision>,
    /// Horovod tensor-fusion cycle time in milliseconds, 0 or more. Defaults to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1))]
    pub tensor_fusion_cycle_time: Option<u64>,
    /// Horovod tensor-fusion buffer size in megabytes, 0 or more. Defaults to 64.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 64))]
    pub tensor_fusion_threshold: Option<u64>,
}

/// NVIDIA Apex AMP optimization level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = super::const_variants_to_enum)]
pub enum MixedPrecision {
    /// Pure fp32 training (no mixed precision).
    O0,
    /// Conservative mixed precision.
    O1,
    /// Fast mixed precision with fp32 master weights.
    O2,
    /// Pure fp16 training.
    O3,
}
