//! `profiling`: Determined's built-in profiler, plus stagec's custom metrics.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Settings of the built-in profiler, which records system and timing metrics for a window of batches.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfilingConfig {
    /// Turn the profiler on. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub enabled: Option<bool>,
    /// First batch to profile, 0 or more. Defaults to 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub begin_on_batch: Option<u64>,
    /// Last batch to profile, 0 or more and not below `begin_on_batch`. Defaults to profiling until the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_after_batch: Option<u64>,
    /// Synchronize the GPU before taking timings, for accuracy at some cost in speed. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub sync_timings: Option<bool>,
    /// stagec extension (not part of Determined): extra metrics derived from per-stage measurements, each a named expression. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Vec<ProfilingMetric>>,
}

/// stagec extension (not part of Determined): a profiling metric computed from an expression over per-stage measurements.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfilingMetric {
    /// Name under which the metric is reported. Required, non-empty.
    #[schemars(length(min = 1))]
    pub name: String,
    /// Expression that computes the metric. Required, non-empty.
    #[schemars(length(min = 1))]
    pub expression: String,
}
