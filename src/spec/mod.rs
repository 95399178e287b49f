//! Typed model of a Determined experiment configuration (`const.yaml`,
//! expconf v0) plus the stagec heterogeneous-pipeline (HPP) extension.
//!
//! Every type derives `serde` and `schemars`; [`experiment_schema`] emits the
//! JSON Schema (draft 2020-12) that the validator runs instances against. Doc
//! comments become `description`s, i.e. editor hover text.
//!
//! # Unions and their tag keys
//!
//! Unions are modelled as `#[serde(untagged)]` enums whose schema is an
//! `anyOf`. A *tagged* branch is a `$ref` to a plain object schema that lists
//! the tag key in `required` and gives it a `const` value; the error-mapping
//! layer can therefore pick the branch by looking at the instance's tag.
//! Branches in the "untagged branches" column are chosen when the tag key is
//! absent (or the value is not an object).
//!
//! | Rust type | instance path | tag key | tagged branches | untagged branches |
//! |---|---|---|---|---|
//! | [`searcher::SearcherConfig`] | `searcher` | `name` | `single`, `random`, `grid`, `adaptive_asha`, `async_halving`, `custom`, `adaptive`, `adaptive_simple`, `sync_halving` | partial searcher (object without `name`, completed by cluster defaults) |
//! | [`checkpoint_storage::CheckpointStorageConfig`] | `checkpoint_storage` | `type` | `shared_fs`, `directory`, `s3`, `gcs`, `azure` | partial storage (object without `type`, e.g. only `save_trial_latest`) |
//! | [`checkpoint_storage::TensorboardStorageConfig`] | `tensorboard_storage` (deprecated) | `type` | `shared_fs`, `s3`, `gcs` | — |
//! | [`hyperparameters::Hyperparameter`] | `hyperparameters.<name>` (recursively) | `type` | `int`, `double`, `log`, `const`, `categorical` | nested mapping (object without `type`), plain value (any non-object) |
//! | [`log_policies::LogAction`] | `log_policies[*].action` | `type` | legacy `{type: cancel_retries}`, `{type: exclude_node}` | plain string `cancel_retries` / `exclude_node` |
//! | [`hyperparameters::HppInteger`] | `hyperparameters.hpp_config.{pipeline_parallel_degree, micro_batch_size, virtual_stages}` | `type` | `const`, `int`, `categorical` | plain integer |
//! | [`hyperparameters::HppChoice`] | other `hyperparameters.hpp_config.*` fields | `type` | `const`, `categorical` | plain value |
//! | [`length::Length`] / [`length::PositiveLength`] | `min_validation_period`, `min_checkpoint_period`, searcher `max_length` / `budget` | single property key | `batches`, `records`, `epochs` (externally tagged: `oneOf` of one-property objects) | — |
//! | [`length::SearcherLength`] | searcher `max_length` | — | — | plain integer, or a [`length::PositiveLength`] object |
//! | [`environment::EnvironmentImage`] | `environment.image` | — | — | string, or map `cpu`/`cuda`/`rocm`/`gpu` |
//! | [`environment::EnvironmentVariables`] | `environment.environment_variables` | — | — | list of strings, or map `cpu`/`cuda`/`rocm`/`gpu` |
//! | [`resources::DeviceConfig`] | `resources.devices[*]` | — | — | object, or `--device`-style string |
//! | [`Entrypoint`] | `entrypoint` | — | — | string, or list of strings |
//!
//! Nullable fields are `Option<T>`; for object-typed fields the schema is
//! `anyOf: [{$ref: T}, {type: null}]`, so an error-mapping layer should look
//! through that wrapper before dispatching on a union's tag.
//!
//! # HPP extension (not part of Determined)
//!
//! * `hyperparameters.hpp_config` — [`hyperparameters::HppConfig`].
//! * `resources.custom` — [`resources::StageGpuTypes`].
//! * `profiling.metrics` — [`profiling::ProfilingMetric`].
//!
//! # What is deliberately *not* in the schema
//!
//! Determined's custom keywords (`checks`, `compareProperties`,
//! `conditional`, `disallowProperties`, `eventuallyRequired`, `union`
//! default messages, the grid-search `allOf`/`if` on `hyperparameters`) are
//! left to the rules layer. Three of their conditions are nevertheless
//! mirrored as standard keywords, because the branch structure depends on
//! them or because they are plain patterns:
//!
//! * a nested hyperparameter mapping has `properties: {type: false}` (without
//!   it a mistyped `{type: int, minval: "x"}` would match the nested branch);
//! * `resources.shm_size` (string form) has Determined's memory-size `pattern`;
//! * `bind_mounts[*].host_path` has the `pattern` `^/`.
//!
//! String enums are emitted as `{"type": "string", "enum": [...]}` with the
//! per-value docs folded into `description`; union tags as
//! `{"type": "string", "const": ...}`.

use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Defines a single-valued string enum used as a union tag. Its schema is
/// inlined as `{"type": "string", "const": <value>}`.
macro_rules! tag_enum {
    ($(#[$meta:meta])* $name:ident = $value:literal) => {
        $(#[$meta])*
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            Default,
            serde::Serialize,
            serde::Deserialize,
            schemars::JsonSchema,
        )]
        #[schemars(inline, transform = super::single_enum_to_const)]
        pub enum $name {
            #[doc = concat!("The literal `", $value, "`.")]
            #[default]
            #[serde(rename = $value)]
            Value,
        }
    };
}

pub mod bind_mounts;
pub mod checkpoint_storage;
pub mod environment;
pub mod hpc;
pub mod hyperparameters;
pub mod integrations;
pub mod inventory;
pub mod length;
pub mod log_policies;
pub mod optimizations;
pub mod profiling;
pub mod resources;
pub mod searcher;
pub mod stages;

use bind_mounts::BindMount;
use checkpoint_storage::{CheckpointStorageConfig, TensorboardStorageConfig};
use environment::EnvironmentConfig;
use hpc::{PbsConfig, SlurmConfig};
use hyperparameters::Hyperparameters;
use integrations::IntegrationsConfig;
use length::Length;
use log_policies::LogPolicy;
use optimizations::OptimizationsConfig;
use profiling::ProfilingConfig;
use resources::ResourcesConfig;
use searcher::SearcherConfig;

/// `$id` of the generated experiment schema.
pub const EXPERIMENT_SCHEMA_ID: &str = "https://stagec.dev/schemas/experiment.schema.json";

/// `title` of the generated experiment schema.
pub const EXPERIMENT_SCHEMA_TITLE: &str = "Determined experiment configuration (stagec)";

/// Schema transform: rewrites a `oneOf` whose branches are documented
/// `const`s (schemars' output for an enum with doc comments on its variants)
/// into a plain `enum`, appending the per-value docs to the description.
/// Validators then report "not one of [...]", which is easier to map to a
/// suggestion than a failed `oneOf`.
pub(crate) fn const_variants_to_enum(schema: &mut Schema) {
    let Some(Value::Array(branches)) = schema.get("oneOf") else {
        return;
    };
    let mut values = Vec::with_capacity(branches.len());
    let mut notes = Vec::with_capacity(branches.len());
    let mut all_strings = true;
    for branch in branches {
        let Some(obj) = branch.as_object() else {
            return;
        };
        let Some(value) = obj.get("const") else {
            return;
        };
        if obj
            .keys()
            .any(|k| !matches!(k.as_str(), "const" | "type" | "description"))
        {
            return;
        }
        let shown = match value {
            Value::String(text) => text.clone(),
            other => {
                all_strings = false;
                other.to_string()
            }
        };
        if let Some(Value::String(doc)) = obj.get("description") {
            notes.push(format!("`{shown}`: {}", doc.trim_end_matches('.')));
        }
        values.push(value.clone());
    }
    schema.remove("oneOf");
    if all_strings {
        schema.insert("type".to_owned(), Value::from("string"));
    }
    schema.insert("enum".to_owned(), Value::Array(values));
    if !notes.is_empty() {
        let base = match schema.get("description") {
            Some(Value::String(text)) => format!("{text} "),
            _ => String::new(),
        };
        let text = format!("{base}Values: {}.", notes.join("; "));
        schema.insert("description".to_owned(), Value::from(text));
    }
}

/// Schema transform for union tags: rewrites a single-value `enum`, or a
/// `oneOf` with a single `const` branch, into `{"type": "string", "const": v}`.
pub(crate) fn single_enum_to_const(schema: &mut Schema) {
    let single = match (schema.get("enum"), schema.get("oneOf")) {
        (Some(Value::Array(values)), _) if values.len() == 1 => values.first().cloned(),
        (None, Some(Value::Array(branches))) if branches.len() == 1 => {
            branches.first().and_then(|b| b.get("const")).cloned()
        }
        _ => None,
    };
    if let Some(value) = single {
        schema.remove("enum");
        schema.remove("oneOf");
        if value.is_string() {
            schema.insert("type".to_owned(), Value::from("string"));
        }
        schema.insert("const".to_owned(), value);
    }
}

/// A Determined experiment configuration (`const.yaml`), as submitted with `det experiment create`, extended with the stagec HPP fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    /// Extra host directories to mount into every trial container. Defaults to no mounts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bind_mounts: Option<Vec<BindMount>>,

    /// Which checkpoints to keep after a trial finishes: `best` (default), `all`, or `none`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "best"))]
    pub checkpoint_policy: Option<CheckpointPolicy>,

    /// Where checkpoints are stored and how many are retained. Fields left out are filled in from the cluster's default storage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_storage: Option<CheckpointStorageConfig>,

    /// Free-form data-loading settings made available to the training code. Determined does not interpret it. Defaults to `{}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<BTreeMap<String, Value>>,

    /// Removed in Determined 0.19.10; accepted for compatibility and ignored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_layer: Option<BTreeMap<String, Value>>,

    /// Turns on verbose debug logging for the experiment. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub debug: Option<bool>,

    /// Human-readable description shown in the web UI and CLI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,

    /// Command that launches the training code, either as one shell string or as an argument list (for example `python3 train.py`, or `model_def:Trial` for Trial-API code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entrypoint: Option<Entrypoint>,

    /// Container image, environment variables, ports and pod settings for the trial containers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentConfig>,

    /// Hyperparameters passed to the training code, each fixed or searched over; also holds the stagec `hpp_config` block. Defaults to `{}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hyperparameters: Option<Hyperparameters>,

    /// Third-party integrations: Pachyderm data provenance and webhooks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrations: Option<IntegrationsConfig>,

    /// Reserved for experiments forked from pre-0.15.6 versions; must be `null` if present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub internal: Option<()>,

    /// Free-form tags attached to the experiment for filtering in the UI. Defaults to no labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<String>>,

    /// Regex-based policies that react to trial log lines (for example by excluding a node or cancelling retries). Defaults to the cluster's built-in policies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_policies: Option<Vec<LogPolicy>>,

    /// How many times a failing trial is restarted before it is marked as errored. Defaults to 5.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 5))]
    pub max_restarts: Option<u64>,

    /// Upper bound on training between checkpoints; a checkpoint is taken at least this often. Defaults to `{batches: 0}` (no periodic checkpoints).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_checkpoint_period: Option<Length>,

    /// Upper bound on training between validations; validation runs at least this often. Defaults to `{batches: 0}` (no periodic validation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_validation_period: Option<Length>,

    /// Display name of the experiment. Determined requires it once cluster defaults are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,

    /// Distributed-training performance knobs (gradient aggregation, tensor fusion, mixed precision).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimizations: Option<OptimizationsConfig>,

    /// Settings used when the cluster schedules through PBS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pbs: Option<PbsConfig>,

    /// Validate the initial model before any training happens. Defaults to `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub perform_initial_validation: Option<bool>,

    /// Seconds a trial may take to shut down after being asked to preempt. Defaults to the cluster setting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption_timeout: Option<i64>,

    /// Built-in profiler settings, plus stagec's extra per-stage metrics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profiling: Option<ProfilingConfig>,

    /// Project (inside `workspace`) that the experiment belongs to. Defaults to the user's default project.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,

    /// Number of records in one training epoch; needed when lengths are given in `epochs` for Trial-API code. Defaults to 0 (unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub records_per_epoch: Option<i64>,

    /// Random seed settings that make trials reproducible.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproducibility: Option<ReproducibilityConfig>,

    /// Slots, resource pool, priority and devices requested by each trial, plus the stagec per-stage GPU types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesConfig>,

    /// How long trial logs are kept before the cluster deletes them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retention_policy: Option<RetentionPolicyConfig>,

    /// Number of batches in one scheduling unit, the granularity of legacy Trial-API operations. Defaults to 100.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("default" = 100))]
    pub scheduling_unit: Option<u64>,

    /// Hyperparameter search algorithm, the metric it optimizes, and its budget. The `name` key selects the algorithm.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub searcher: Option<SearcherConfig>,

    /// Legacy security settings (Kerberos); unused by current Determined releases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<SecurityConfig>,

    /// Settings used when the cluster schedules through Slurm.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slurm: Option<SlurmConfig>,

    /// Deprecated and ignored: TensorBoard files are stored alongside checkpoints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensorboard_storage: Option<TensorboardStorageConfig>,

    /// Workspace that contains `project`. Defaults to the user's default workspace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
}

/// Which checkpoints are kept once a trial completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(transform = const_variants_to_enum)]
pub enum CheckpointPolicy {
    /// Keep only the checkpoints with the best validation metric (the default).
    Best,
    /// Keep a checkpoint after every validation.
    All,
    /// Keep only the checkpoints needed to resume the trial.
    None,
}

/// The launch command: one shell string, or a list of arguments run without a shell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Entrypoint {
    /// A single command line, e.g. `python3 train.py --epochs 1`.
    Command(String),
    /// The command as an argument vector, e.g. `[python3, -m, determined.launch.torch_distributed, python3, train.py]`.
    Argv(Vec<String>),
}

/// Seed settings for reproducible trials.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReproducibilityConfig {
    /// Seed from which every trial's random seed is derived; must be non-negative. Defaults to one chosen at creation time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experiment_seed: Option<u64>,
}

/// Log retention settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetentionPolicyConfig {
    /// Days to keep trial logs after the experiment ends; `-1` keeps them forever. Between -1 and 32767. Defaults to the cluster setting.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -1, max = 32767))]
    pub log_retention_days: Option<i32>,
}

/// Legacy security settings; kept only so old configs still parse.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SecurityConfig {
    /// Kerberos settings for the trial containers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kerberos: Option<KerberosConfig>,
}

/// Legacy Kerberos settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KerberosConfig {
    /// Path to the Kerberos configuration file (`krb5.conf`). Required.
    pub config_file: String,
}

/// Returns the JSON Schema (draft 2020-12) for [`ExperimentConfig`], with
/// `$id` [`EXPERIMENT_SCHEMA_ID`] and `title` [`EXPERIMENT_SCHEMA_TITLE`].
/// The output is deterministic.
pub fn experiment_schema() -> Value {
    root_schema::<ExperimentConfig>(EXPERIMENT_SCHEMA_ID, EXPERIMENT_SCHEMA_TITLE)
}

/// The JSON Schema (draft 2020-12) of `T` as stagec commits it: `$schema`,
/// `$id`, `title` and `description` first, then the root's keywords, then
/// `$defs`. The output is deterministic.
pub fn root_schema<T: schemars::JsonSchema>(id: &str, title: &str) -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let generated = generator.into_root_schema_for::<T>().to_value();
    let Value::Object(mut fields) = generated else {
        return generated;
    };
    let mut out = serde_json::Map::new();
    if let Some(dialect) = fields.remove("$schema") {
        out.insert("$schema".to_owned(), dialect);
    }
    out.insert("$id".to_owned(), Value::from(id));
    out.insert("title".to_owned(), Value::from(title));
    fields.remove("title");
    if let Some(description) = fields.remove("description") {
        out.insert("description".to_owned(), description);
    }
    let defs = fields.remove("$defs");
    out.extend(fields);
    if let Some(defs) = defs {
        out.insert("$defs".to_owned(), defs);
    }
    Value::Object(out)
}
