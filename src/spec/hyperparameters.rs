//! `hyperparameters`: fixed values and search spaces passed to the training
//! code, plus the stagec `hpp_config` extension block.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Pattern of an HPP dtype name: dot-separated identifiers such as `bf16` or `torch.bfloat16`.
pub const DTYPE_NAME_PATTERN: &str = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$";

tag_enum!(
    /// Marks an `int` hyperparameter.
    IntType = "int"
);
tag_enum!(
    /// Marks a `double` hyperparameter.
    DoubleType = "double"
);
tag_enum!(
    /// Marks a `log` hyperparameter.
    LogType = "log"
);
tag_enum!(
    /// Marks a `const` hyperparameter.
    ConstType = "const"
);
tag_enum!(
    /// Marks a `categorical` hyperparameter.
    CategoricalType = "categorical"
);

/// The `hyperparameters` section: a mapping from hyperparameter name to a fixed value or search space. The key `hpp_config` is reserved for the stagec pipeline settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hyperparameters {
    /// stagec extension (not part of Determined): pipeline-parallel settings for heterogeneous stages. Each field is a plain value or a `const`/`int`/`categorical` hyperparameter so it can be searched over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hpp_config: Option<HppConfig>,
    /// All other hyperparameters, by name.
    #[serde(flatten)]
    pub params: BTreeMap<String, Hyperparameter>,
}

/// One hyperparameter: a `{type: ...}` search space (`const`, `int`, `double`, `log`, `categorical`), a nested mapping of hyperparameters, or a plain value (a constant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Hyperparameter {
    /// An integer range `[minval, maxval]`.
    Int(IntHyperparameter),
    /// A floating-point range `[minval, maxval]`.
    Double(DoubleHyperparameter),
    /// A log-scaled range `base^minval .. base^maxval`.
    Log(LogHyperparameter),
    /// A fixed value given as `{type: const, val: ...}`.
    Const(ConstHyperparameter),
    /// A choice among listed values.
    Categorical(CategoricalHyperparameter),
    /// A mapping of nested hyperparameters (an object without a `type` key).
    Nested(NestedHyperparameters),
    /// A fixed value written directly: number, string, boolean, list or null.
    Plain(PlainHyperparameter),
}

/// An integer hyperparameter sampled from `[minval, maxval]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IntHyperparameter {
    /// Must be `int`.
    #[serde(rename = "type")]
    pub kind: IntType,
    /// Smallest value (inclusive); must be less than `maxval`.
    pub minval: i64,
    /// Largest value (inclusive).
    pub maxval: i64,
    /// Number of evenly spaced values to try under grid search; at least 1. Required when `searcher.name` is `grid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub count: Option<u64>,
}

/// A floating-point hyperparameter sampled uniformly from `[minval, maxval]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DoubleHyperparameter {
    /// Must be `double`.
    #[serde(rename = "type")]
    pub kind: DoubleType,
    /// Smallest value (inclusive); must be less than `maxval`.
    pub minval: f64,
    /// Largest value (inclusive).
    pub maxval: f64,
    /// Number of evenly spaced values to try under grid search; at least 1. Required when `searcher.name` is `grid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub count: Option<u64>,
}

/// A log-scaled hyperparameter: `base` raised to an exponent sampled from `[minval, maxval]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogHyperparameter {
    /// Must be `log`.
    #[serde(rename = "type")]
    pub kind: LogType,
    /// Smallest exponent (inclusive); must be less than `maxval`.
    pub minval: f64,
    /// Largest exponent (inclusive).
    pub maxval: f64,
    /// Base of the logarithm, e.g. 10; must be greater than 0.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub base: f64,
    /// Number of evenly spaced exponents to try under grid search; at least 1. Required when `searcher.name` is `grid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub count: Option<u64>,
}

/// A hyperparameter fixed to `val`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConstHyperparameter {
    /// Must be `const`.
    #[serde(rename = "type")]
    pub kind: ConstType,
    /// The value; any JSON value, including objects and lists.
    pub val: Value,
}

/// A hyperparameter chosen from the listed values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CategoricalHyperparameter {
    /// Must be `categorical`.
    #[serde(rename = "type")]
    pub kind: CategoricalType,
    /// The candidate values, of any JSON type.
    pub vals: Vec<Value>,
}

/// A mapping of nested hyperparameters; it may not contain the key `type` (that would make it a typed hyperparameter).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "BTreeMap<String, Hyperparameter>")]
#[schemars(extend("properties" = { "type": false }))]
pub struct NestedHyperparameters(pub BTreeMap<String, Hyperparameter>);

impl TryFrom<BTreeMap<String, Hyperparameter>> for NestedHyperparameters {
    type Error = String;

    fn try_from(map: BTreeMap<String, Hyperparameter>) -> Result<Self, Self::Error> {
        if map.contains_key("type") {
            Err(r#"if a hyperparameter object's "type" is set, it must be one of "int", "double", "log", "const", or "categorical""#.to_owned())
        } else {
            Ok(Self(map))
        }
    }
}

/// A constant hyperparameter written as a bare value: number, string, boolean, list or null (anything but an object).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "Value")]
#[schemars(extend("not" = { "type": "object" }))]
pub struct PlainHyperparameter(pub Value);

impl TryFrom<Value> for PlainHyperparameter {
    type Error = String;

    fn try_from(value: Value) -> Result<Self, Self::Error> {
        if value.is_object() {
            Err("an object hyperparameter must be a typed hyperparameter or a mapping of hyperparameters".to_owned())
        } else {
            Ok(Self(value))
        }
    }
}

/// stagec extension (not part of Determined): settings of the heterogeneous pipeline-parallel (HPP) runtime. Every field is a plain value or a `const`/`categorical` hyperparameter (integer fields also allow `int`), so pipeline settings can be searched like any other hyperparameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HppConfig {
    /// Number of pipeline stages the model is split into, at least 1. Required.
    pub pipeline_parallel_degree: HppInteger,
    /// Number of samples in each pipeline micro-batch, at least 1. Defaults to the runtime's choice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub micro_batch_size: Option<HppInteger>,
    /// Recompute activations in the backward pass instead of storing them, trading compute for memory. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activation_checkpointing: Option<HppChoice<bool>>,
    /// Whether gradient norms (for clipping) are computed per stage (`per-stage`) or over the whole model (`global`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gradient_normalization: Option<HppChoice<GradientNormalization>>,
    /// Pipeline schedule: `gpipe`, `1f1b` or `interleaved`. Defaults to `1f1b`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "1f1b"))]
    pub schedule: Option<HppChoice<PipelineSchedule>>,
    /// Default floating-point dtype of the stages, e.g. `bf16` or `torch.bfloat16`. Defaults to the framework's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_dtype: Option<HppChoice<DtypeName>>,
    /// Number of model chunks per device for the `interleaved` schedule, at least 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub virtual_stages: Option<HppInteger>,
    /// What the experiment's container image provides, for an image stagec cannot resolve from its name (a private or custom image), e.g. `{cuda: "12.4", torch: "2.3"}`. The image checks then use these versions instead of the image's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_provides: Option<ImageProvides>,
}

/// A version such as `12.4`, `2.3.1` or `3.10`.
pub const VERSION_PATTERN: &str = r"^[0-9]+(\.[0-9]+){0,3}$";

/// A compute capability a PyTorch build carries code for, `+PTX` when it also carries PTX, e.g. `8.0` or `9.0+PTX`.
pub const ARCH_PATTERN: &str = r"^[0-9]+\.[0-9]+(\+PTX)?$";

/// stagec extension: the versions inside the experiment's container image, stated where stagec cannot read them from the image's name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImageProvides {
    /// CUDA version the image's PyTorch is built for, e.g. `"12.4"` (`torch.version.cuda`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cuda: Option<VersionText>,
    /// PyTorch version, e.g. `"2.3"` or `"2.3.1"` (`torch.__version__`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torch: Option<VersionText>,
    /// Python version, e.g. `"3.10"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub python: Option<VersionText>,
    /// Compute capabilities the PyTorch build carries code for, as `torch.cuda.get_arch_list()` lists them but written as capabilities: `["8.0", "8.6", "9.0+PTX"]`. Without it only the CUDA version is checked against the GPUs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arch_list: Option<Vec<ArchText>>,
}

/// stagec extension: a version written as text, e.g. `"12.4"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VersionText(#[schemars(regex(pattern = VERSION_PATTERN))] pub String);

/// stagec extension: a compute capability, e.g. `"9.0"` or `"9.0+PTX"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ArchText(#[schemars(regex(pattern = ARCH_PATTERN))] pub String);

/// stagec extension: scope over which gradient norms are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = super::const_variants_to_enum)]
pub enum GradientNormalization {
    /// Each stage normalizes its own gradients.
    #[serde(rename = "per-stage")]
    PerStage,
    /// Norms are computed over all stages together.
    #[serde(rename = "global")]
    Global,
}

/// stagec extension: the pipeline schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = super::const_variants_to_enum)]
pub enum PipelineSchedule {
    /// All forward passes of a batch, then all backward passes (GPipe).
    #[serde(rename = "gpipe")]
    Gpipe,
    /// One-forward-one-backward steady state, bounding activation memory (the default).
    #[serde(rename = "1f1b")]
    OneFOneB,
    /// 1F1B over several model chunks per device (see `virtual_stages`).
    #[serde(rename = "interleaved")]
    Interleaved,
}

/// stagec extension: a dtype name such as `bf16`, `fp32`, `float16` or `torch.bfloat16`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DtypeName(#[schemars(regex(pattern = DTYPE_NAME_PATTERN))] pub String);

/// stagec extension: a positive integer setting, given as a plain integer or as a `const`, `int` or `categorical` hyperparameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum HppInteger {
    /// A fixed value, at least 1.
    Value(#[schemars(range(min = 1))] u64),
    /// A fixed value given as `{type: const, val: N}`.
    Const(HppConstInteger),
    /// An integer range to search over.
    Int(HppIntRange),
    /// A list of candidate values to search over.
    Categorical(HppCategoricalInteger),
}

/// stagec extension: `{type: const, val: N}` with N at least 1.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HppConstInteger {
    /// Must be `const`.
    #[serde(rename = "type")]
    pub kind: ConstType,
    /// The value, at least 1.
    #[schemars(range(min = 1))]
    pub val: u64,
}

/// stagec extension: `{type: int, minval, maxval, count?}` over positive integers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HppIntRange {
    /// Must be `int`.
    #[serde(rename = "type")]
    pub kind: IntType,
    /// Smallest value (inclusive), at least 1; must be less than `maxval`.
    #[schemars(range(min = 1))]
    pub minval: u64,
    /// Largest value (inclusive), at least 1.
    #[schemars(range(min = 1))]
    pub maxval: u64,
    /// Number of values to try under grid search; at least 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub count: Option<u64>,
}

/// stagec extension: `{type: categorical, vals: [...]}` over positive integers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HppCategoricalInteger {
    /// Must be `categorical`.
    #[serde(rename = "type")]
    pub kind: CategoricalType,
    /// Candidate values, each at least 1; at least one entry.
    #[schemars(length(min = 1), inner(range(min = 1)))]
    pub vals: Vec<u64>,
}

/// stagec extension: a setting given as a plain value or as a `const` or `categorical` hyperparameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(bound = "T: JsonSchema", rename = "HppChoice_{T}")]
pub enum HppChoice<T> {
    /// A fixed value.
    Value(T),
    /// A fixed value given as `{type: const, val: ...}`.
    Const(HppConst<T>),
    /// A list of candidate values to search over.
    Categorical(HppCategorical<T>),
}

/// stagec extension: `{type: const, val: ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(bound = "T: JsonSchema", rename = "HppConst_{T}")]
pub struct HppConst<T> {
    /// Must be `const`.
    #[serde(rename = "type")]
    pub kind: ConstType,
    /// The value.
    pub val: T,
}

/// stagec extension: `{type: categorical, vals: [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(bound = "T: JsonSchema", rename = "HppCategorical_{T}")]
pub struct HppCategorical<T> {
    /// Must be `categorical`.
    #[serde(rename = "type")]
    pub kind: CategoricalType,
    /// Candidate values; at least one entry.
    #[schemars(length(min = 1))]
    pub vals: Vec<T>,
}
