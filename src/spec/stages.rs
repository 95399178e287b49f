//! `stages.yaml`: pipeline stages declared next to the model instead of with
//! `@stage_decorator` in its Python sources.
//!
//! ```yaml
//! stages:
//!   - id: 0
//!     name: image_encoder
//!     device: a100
//!     dtype: bf16
//!     params: 86M
//! ```
//!
//! Device and dtype names are kept as written here; the pipeline checks
//! resolve them against the GPU catalog and the dtype table.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `$id` of the generated `stages.yaml` schema.
pub const STAGES_SCHEMA_ID: &str = "https://stagec.dev/schemas/stages.schema.json";

/// `title` of the generated `stages.yaml` schema.
pub const STAGES_SCHEMA_TITLE: &str = "Pipeline stage declarations (stagec stages.yaml)";

/// Pattern of a parameter count written with a suffix: digits, an optional
/// decimal part, and `K` (thousand), `M` (million), `B` (billion) or `T`
/// (trillion): `86M`, `1.3B`, `2K`.
pub const PARAM_COUNT_PATTERN: &str = r"^[0-9]+(\.[0-9]+)?[KMBT]$";

/// The pipeline stages of a model (`stages.yaml`), for models whose stages are not declared with `@stage_decorator`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StagesFile {
    /// The pipeline stages, one entry per stage, each with a unique `id`.
    pub stages: Vec<StageEntry>,
}

/// One pipeline stage: which part of the model it is and where it runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StageEntry {
    /// Stage number, starting at 0; stages run in pipeline order by id.
    #[schemars(range(max = 4294967295u32))]
    pub id: u32,

    /// Name of the stage (for example the module it wraps, `image_encoder`), used in messages.
    #[schemars(length(min = 1))]
    pub name: String,

    /// GPU type the stage runs on, as named in the GPU catalog (for example `a100`, `h100`, `l4`).
    pub device: String,

    /// Data type of the stage's weights and activations: a canonical name (`bf16`, `fp16`, `fp32`, `fp8_e4m3fn`) or an alias such as `torch.bfloat16`.
    pub dtype: String,

    /// Ids of the stages whose outputs feed this one. Defaults to the previous stage (`[id - 1]`), or to no inputs for stage 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(inner(range(max = 4294967295u32)))]
    pub inputs: Option<Vec<u32>>,

    /// Names of the model's modules that make up the stage; informational.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modules: Option<Vec<String>>,

    /// Number of parameters of the stage: an integer, or a number with a `K`, `M`, `B` or `T` suffix such as `86M` or `1.3B`. Used to estimate the stage's memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<ParamCount>,

    /// Floating-point operations the stage performs per sample (forward pass), such as `1.2e9`. Used to estimate the stage's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub flops_per_sample: Option<f64>,
}

/// A parameter count: an integer, or a number with a `K`, `M`, `B` or `T` suffix (`86M`, `1.3B`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ParamCount {
    /// The count as a plain integer, e.g. `86000000`.
    Count(u64),
    /// The count with a suffix: `K` thousand, `M` million, `B` billion, `T` trillion; a decimal part is allowed (`1.3B`).
    Text(#[schemars(regex(pattern = PARAM_COUNT_PATTERN))] String),
}

/// Returns the JSON Schema (draft 2020-12) for [`StagesFile`], with `$id`
/// [`STAGES_SCHEMA_ID`] and `title` [`STAGES_SCHEMA_TITLE`]. The output is
/// deterministic.
pub fn stages_schema() -> Value {
    super::root_schema::<StagesFile>(STAGES_SCHEMA_ID, STAGES_SCHEMA_TITLE)
}
