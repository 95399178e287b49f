//! `searcher`: the hyperparameter search algorithm. A union keyed by `name`.

use super::length::{Length, PositiveLength, SearcherLength};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

tag_enum!(
    /// Selects the `single` searcher.
    SingleName = "single"
);
tag_enum!(
    /// Selects the `random` searcher.
    RandomName = "random"
);
tag_enum!(
    /// Selects the `grid` searcher.
    GridName = "grid"
);
tag_enum!(
    /// Selects the `adaptive_asha` searcher.
    AdaptiveAshaName = "adaptive_asha"
);
tag_enum!(
    /// Selects the `async_halving` searcher.
    AsyncHalvingName = "async_halving"
);
tag_enum!(
    /// Selects the end-of-life `custom` searcher.
    CustomName = "custom"
);
tag_enum!(
    /// Selects the end-of-life `adaptive` searcher.
    AdaptiveName = "adaptive"
);
tag_enum!(
    /// Selects the end-of-life `adaptive_simple` searcher.
    AdaptiveSimpleName = "adaptive_simple"
);
tag_enum!(
    /// Selects the end-of-life `sync_halving` searcher.
    SyncHalvingName = "sync_halving"
);

/// The search algorithm, selected by `name`: `single`, `random`, `grid`, `adaptive_asha`, `async_halving`, or the end-of-life `custom`, `adaptive`, `adaptive_simple`, `sync_halving`. Without `name` the block only overrides cluster defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SearcherConfig {
    /// Train a single trial with fixed hyperparameters.
    Single(SingleSearcher),
    /// Sample hyperparameters at random.
    Random(RandomSearcher),
    /// Try every combination of a discretized hyperparameter grid.
    Grid(GridSearcher),
    /// Random search with asynchronous successive halving for early stopping.
    AdaptiveAsha(AdaptiveAshaSearcher),
    /// Asynchronous successive halving (ASHA) on a fixed set of trials.
    AsyncHalving(AsyncHalvingSearcher),
    /// End-of-life: search driven by user code.
    Custom(Box<CustomSearcher>),
    /// End-of-life: adaptive search driven by a training budget.
    Adaptive(AdaptiveSearcher),
    /// End-of-life: simplified adaptive search.
    AdaptiveSimple(AdaptiveSimpleSearcher),
    /// End-of-life: synchronous successive halving.
    SyncHalving(SyncHalvingSearcher),
    /// A searcher block without `name`, completed from the cluster's defaults.
    Partial(Box<PartialSearcher>),
}

/// How aggressively adaptive searchers stop poorly performing trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(transform = super::const_variants_to_enum)]
pub enum AdaptiveMode {
    /// Few brackets, stops trials early and often.
    Aggressive,
    /// A balance between exploration and early stopping (the default).
    Standard,
    /// Many brackets, gives trials more training before stopping them.
    Conservative,
}

/// Unit of training lengths reported by a custom searcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(transform = super::const_variants_to_enum)]
pub enum LengthUnit {
    /// Batches (optimizer steps).
    Batches,
    /// Records (training examples).
    Records,
    /// Epochs.
    Epochs,
}

/// The `single` searcher: trains one trial using the `const` values of the hyperparameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SingleSearcher {
    /// Must be `single`.
    pub name: SingleName,
    /// How long to train the trial (legacy; newer Determined lets the training code decide). Defaults to unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<SearcherLength>,
    /// Name of the validation metric used to rank checkpoints. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Start from the latest checkpoint of this trial ID instead of from scratch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start from the checkpoint with this UUID instead of from scratch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
}

/// The `random` searcher: samples `max_trials` hyperparameter settings at random.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RandomSearcher {
    /// Must be `random`.
    pub name: RandomName,
    /// Maximum number of trials running at once; 0 means no limit. Defaults to 16.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 16))]
    pub max_concurrent_trials: Option<u64>,
    /// Number of trials to create, at least 1. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_trials: Option<u64>,
    /// How long to train each trial (legacy; newer Determined lets the training code decide).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<SearcherLength>,
    /// Name of the validation metric to optimize. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Start every trial from the latest checkpoint of this trial ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start every trial from the checkpoint with this UUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
}

/// The `grid` searcher: one trial per point of the hyperparameter grid; every `int`, `double` and `log` hyperparameter needs a `count`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GridSearcher {
    /// Must be `grid`.
    pub name: GridName,
    /// Maximum number of trials running at once; 0 means no limit. Defaults to 16.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 16))]
    pub max_concurrent_trials: Option<u64>,
    /// How long to train each trial (legacy; newer Determined lets the training code decide).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<SearcherLength>,
    /// Name of the validation metric to optimize. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Start every trial from the latest checkpoint of this trial ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start every trial from the checkpoint with this UUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
}

/// The `adaptive_asha` searcher: random sampling combined with asynchronous successive halving, which stops unpromising trials early.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveAshaSearcher {
    /// Must be `adaptive_asha`.
    pub name: AdaptiveAshaName,
    /// Explicit number of rungs for each bracket, overriding the ones derived from `mode`. Defaults to none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bracket_rungs: Option<Vec<i64>>,
    /// Total number of trials to create, at least 1. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_trials: Option<u64>,
    /// Name of the reported metric that measures training progress (e.g. `batches`), used with `max_time`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_metric: Option<String>,
    /// Maximum value of `time_metric` any trial trains for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_time: Option<i64>,
    /// Early-stopping aggressiveness. Defaults to `standard`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "standard"))]
    pub mode: Option<AdaptiveMode>,
    /// Fraction of trials kept at each rung is 1/divisor; must be greater than 1. Defaults to 4.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 1, "default" = 4))]
    pub divisor: Option<f64>,
    /// Maximum number of times a trial can be promoted, at least 1. Defaults to 5.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("default" = 5))]
    pub max_rungs: Option<u64>,
    /// Maximum number of trials running at once; 0 means no limit. Defaults to 16.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 16))]
    pub max_concurrent_trials: Option<u64>,
    /// Maximum training length of any trial (legacy alternative to `time_metric`/`max_time`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<SearcherLength>,
    /// Stop a trial as soon as it is not promoted, instead of letting it keep training.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_once: Option<bool>,
    /// Name of the validation metric to optimize. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Start every trial from the latest checkpoint of this trial ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start every trial from the checkpoint with this UUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
}

/// The `async_halving` searcher: asynchronous successive halving over `max_trials` trials with `num_rungs` rungs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AsyncHalvingSearcher {
    /// Must be `async_halving`.
    pub name: AsyncHalvingName,
    /// Number of rungs (promotion levels), at least 1. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub num_rungs: Option<u64>,
    /// Maximum training length of any trial, at least 1 unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<PositiveLength>,
    /// Number of trials to create, at least 1. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_trials: Option<u64>,
    /// Fraction of trials kept at each rung is 1/divisor; must be greater than 1. Defaults to 4.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 1, "default" = 4))]
    pub divisor: Option<f64>,
    /// Maximum number of trials running at once; 0 means no limit. Defaults to 16.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 16))]
    pub max_concurrent_trials: Option<u64>,
    /// Stop a trial as soon as it is not promoted, instead of letting it keep training.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_once: Option<bool>,
    /// Name of the validation metric to optimize. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Name of the reported metric that measures training progress, used with `max_time`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_metric: Option<String>,
    /// Maximum value of `time_metric` any trial trains for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_time: Option<i64>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Start every trial from the latest checkpoint of this trial ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start every trial from the checkpoint with this UUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
}

/// The end-of-life `custom` searcher, driven by user code. Besides its own keys it accepts those of the other searchers (Determined lists them for every searcher) and passes them to the custom search method; any other key is an error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomSearcher {
    /// Must be `custom`.
    pub name: CustomName,
    /// Name of the validation metric to optimize. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Unit of the training lengths the custom search method emits: `batches`, `records` or `epochs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<LengthUnit>,
    /// Start every trial from the latest checkpoint of this trial ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start every trial from the checkpoint with this UUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bracket_rungs: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divisor: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_concurrent_trials: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rungs: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_time: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_metric: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_trials: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_rungs: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_once: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<Value>,
    /// Another searcher's key, passed to the custom search method unchecked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_stragglers: Option<Value>,
}

/// The end-of-life `adaptive` searcher, driven by a total training `budget`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveSearcher {
    /// Must be `adaptive`.
    pub name: AdaptiveName,
    /// Total training across all trials. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<Length>,
    /// Explicit number of rungs for each bracket, overriding the ones derived from `mode`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bracket_rungs: Option<Vec<i64>>,
    /// Early-stopping aggressiveness. Defaults to `standard`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "standard"))]
    pub mode: Option<AdaptiveMode>,
    /// Fraction of trials kept at each rung is 1/divisor; must be greater than 1. Defaults to 4.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 1, "default" = 4))]
    pub divisor: Option<f64>,
    /// Maximum number of times a trial can be promoted, at least 1. Defaults to 5.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("default" = 5))]
    pub max_rungs: Option<u64>,
    /// Maximum training length of any trial, at least 1 unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<PositiveLength>,
    /// Keep training trials of a finished rung until they report. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub train_stragglers: Option<bool>,
    /// Name of the validation metric to optimize. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Start every trial from the latest checkpoint of this trial ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start every trial from the checkpoint with this UUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
}

/// The end-of-life `adaptive_simple` searcher.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveSimpleSearcher {
    /// Must be `adaptive_simple`.
    pub name: AdaptiveSimpleName,
    /// Number of trials to create, between 1 and 2000. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 2000))]
    pub max_trials: Option<u64>,
    /// Early-stopping aggressiveness. Defaults to `standard`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "standard"))]
    pub mode: Option<AdaptiveMode>,
    /// Fraction of trials kept at each rung is 1/divisor; must be greater than 1. Defaults to 4.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 1, "default" = 4))]
    pub divisor: Option<f64>,
    /// Maximum number of times a trial can be promoted, at least 1. Defaults to 5.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("default" = 5))]
    pub max_rungs: Option<u64>,
    /// Maximum training length of any trial, at least 1 unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<PositiveLength>,
    /// Name of the validation metric to optimize. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Start every trial from the latest checkpoint of this trial ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start every trial from the checkpoint with this UUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
}

/// The end-of-life `sync_halving` searcher: synchronous successive halving within a training `budget`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SyncHalvingSearcher {
    /// Must be `sync_halving`.
    pub name: SyncHalvingName,
    /// Total training across all trials, at least 1 unit. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<PositiveLength>,
    /// Number of rungs (promotion levels), at least 1. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub num_rungs: Option<u64>,
    /// Maximum training length of any trial, at least 1 unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<PositiveLength>,
    /// Fraction of trials kept at each rung is 1/divisor; must be greater than 1. Defaults to 4.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 1, "default" = 4))]
    pub divisor: Option<f64>,
    /// Keep training trials of a finished rung until they report. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub train_stragglers: Option<bool>,
    /// Name of the validation metric to optimize. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Start every trial from the latest checkpoint of this trial ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start every trial from the checkpoint with this UUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
}

/// A searcher block without `name`: it only overrides fields of the searcher configured as the cluster default. Searcher-specific keys are accepted here unchecked and validated once the defaults are merged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartialSearcher {
    /// Name of the validation metric to optimize. Required once defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Whether a smaller `metric` is better. Defaults to `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub smaller_is_better: Option<bool>,
    /// Start every trial from the latest checkpoint of this trial ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trial_id: Option<i64>,
    /// Start every trial from the checkpoint with this UUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_checkpoint_uuid: Option<String>,
    /// Explicit rungs per bracket (adaptive searchers); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bracket_rungs: Option<Value>,
    /// Total training budget (end-of-life searchers); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<Value>,
    /// Halving divisor (adaptive searchers); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divisor: Option<Value>,
    /// Maximum concurrent trials; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_concurrent_trials: Option<Value>,
    /// Maximum trial length; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<Value>,
    /// Maximum rungs (adaptive searchers); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rungs: Option<Value>,
    /// Maximum value of `time_metric`; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_time: Option<Value>,
    /// Progress metric name; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_metric: Option<Value>,
    /// Number of trials; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_trials: Option<Value>,
    /// Early-stopping mode (adaptive searchers); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Value>,
    /// Number of rungs (halving searchers); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_rungs: Option<Value>,
    /// Stop unpromoted trials at once; checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_once: Option<Value>,
    /// Train stragglers (end-of-life searchers); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_stragglers: Option<Value>,
    /// Length unit (custom searcher); checked after defaults are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<Value>,
}
