//! `stagec plan`: the resolved `stage_plan.json`, its environment as
//! `stage_plan.env`, and `determined.yaml`, the experiment as Determined's
//! master accepts it.
//!
//! Everything here is built from data the checks produced; nothing reads
//! files or the environment except through what it is given. Outputs are
//! deterministic: sorted maps, fixed field order, no timestamps.

pub mod determined;
pub mod diff;
pub mod rank;
pub mod yaml_out;

mod format;
pub use format::*;

use std::collections::BTreeMap;

use serde_json::Value as Json;
use sha2::{Digest, Sha256};

use crate::compiled::Compiled;
use crate::diagnostic::Severity;
use crate::dtype::CastRisk;
use crate::envvars as env;
use crate::hardware::catalog;
use crate::hardware::inventory::Inventory;
use crate::pipeline::Pipeline;
use crate::render::position;
use crate::settings::Settings;
use crate::vars::EnvLookup;

/// What the plan is made from, beside the check result.
pub struct PlanInputs<'a> {
    /// `(role, path, bytes)` of every input file.
    pub files: Vec<(InputRole, &'a str, &'a [u8])>,
    pub probe: Option<ProbeSummary>,
    /// Environment lookup, to record which references were set.
    pub env: EnvLookup<'a>,
    /// The plan's path relative to the context directory, for `STAGEC_PLAN`.
    pub plan_path: String,
    /// How the plan records a file's path (its inputs', its warnings'):
    /// the command line makes them relative to the context directory, so
    /// the same inputs give the same bytes from any working directory.
    pub recorded_path: &'a dyn Fn(&str) -> String,
}

/// The three files `stagec plan` writes.
pub struct PlanFiles {
    pub plan: StagePlan,
    pub plan_json: String,
    pub env_file: String,
}

/// Hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Builds the plan of a compiled project without errors. `None` when there
/// is nothing to plan (errors, or a config that did not parse).
pub fn build(compiled: &Compiled, inputs: &PlanInputs<'_>) -> Option<PlanFiles> {
    if compiled.error_count() > 0 {
        return None;
    }
    let settings = compiled.settings.as_ref()?;
    let inventory = compiled.inventory.as_ref();
    let pipeline = compiled
        .pipeline
        .clone()
        .unwrap_or_else(|| Pipeline::single_stage(settings));
    let p = pipeline.degree.max(1);
    let dp = pipeline.data_parallel.unwrap_or(1).max(1);
    // The plan lists every rank: never for a world L002 refuses, even when
    // that rule is switched off.
    if crate::rules::too_many_ranks::refuses(&pipeline) {
        return None;
    }
    let gradient_normalization = settings.gradient_normalization;
    let clip_norm = settings.clip_norm;

    // Ranks are counted with the data-parallel degree settled (one copy of
    // the pipeline for all stages: a copy per stage made the plan quadratic).
    let settled = Pipeline {
        data_parallel: Some(dp),
        ..pipeline.clone()
    };
    let stages: Vec<PlanStage> = pipeline
        .stages
        .iter()
        .enumerate()
        .map(|(index, s)| {
            let ranks = settled.ranks(index);
            let candidates: Vec<String> = {
                let mut v: Vec<String> = s
                    .gpu_types
                    .iter()
                    .flat_map(|t| catalog::resolve_quietly(t).resolution.variants())
                    .map(|g| g.id.clone())
                    .collect();
                v.sort();
                v.dedup();
                v
            };
            let taken = pipeline
                .allocation
                .as_ref()
                .and_then(|a| a.taken.get(&s.id))
                .and_then(|t| t.first());
            let pinned = taken
                .and_then(|t| catalog::resolve_quietly(&t.offered).resolution.exact())
                .or_else(|| {
                    s.gpu_types
                        .first()
                        .and_then(|t| catalog::resolve_quietly(t).resolution.exact())
                });
            let node_selector = match (taken, inventory) {
                (Some(t), Some(inv)) => inv
                    .nodes
                    .iter()
                    .flat_map(|n| n.gpus.iter())
                    .find(|g| g.offered_name() == t.offered)
                    .map(|g| {
                        let key = g.label_key.clone().unwrap_or_else(|| "nvidia.com/gpu.product".into());
                        // GPU Feature Discovery writes the product name with dashes.
                        let value = if key == "nvidia.com/gpu.product" {
                            g.label.replace(' ', "-")
                        } else {
                            g.label.clone()
                        };
                        NodeSelector { key, value }
                    }),
                _ => pinned.and_then(|g| g.driver_names.first()).map(|name| NodeSelector {
                    key: "nvidia.com/gpu.product".into(),
                    value: name.replace(' ', "-"),
                }),
            };
            PlanStage {
                id: s.id,
                name: s.name.clone(),
                modules: s.modules.clone(),
                inputs: s.inputs.clone(),
                dtype: s.dtype.map(|d| d.canonical_name().to_string()),
                torch_dtype: s.dtype.and_then(|d| d.torch_name()).map(str::to_string),
                gpu_types: s.gpu_types.clone(),
                device: pinned.map(|g| PlanDevice {
                    catalog_id: g.id.clone(),
                    name: g.name.clone(),
                    architecture: format!("{:?}", g.architecture).to_ascii_lowercase(),
                    compute_capability: format!("{}.{}", g.compute_capability.0, g.compute_capability.1),
                    memory_bytes: g.memory_bytes(),
                }),
                candidates,
                gpu_count: dp,
                ranks,
                node_selector,
                gradient_normalization,
                clip_norm,
            }
        })
        .collect();

    let boundaries = pipeline
        .boundaries
        .iter()
        .map(|b| {
            let (risk, from_max, to_max) = match b.risk {
                CastRisk::Exact => (Risk::Exact, None, None),
                CastRisk::PrecisionLoss => (Risk::PrecisionLoss, None, None),
                CastRisk::RangeLoss { from_max, to_max } => (Risk::RangeLoss, Some(from_max), Some(to_max)),
            };
            PlanBoundary {
                from: b.from,
                to: b.to,
                from_dtype: b.from_dtype.canonical_name().into(),
                to_dtype: b.to_dtype.canonical_name().into(),
                cast: format!("{}->{}", b.from_dtype.canonical_name(), b.to_dtype.canonical_name()),
                risk,
                from_max,
                to_max,
            }
        })
        .collect();

    let process_groups = ProcessGroups {
        pipeline: (0..dp).map(|r| (0..p).map(|s| r * p + s).collect()).collect(),
        data_parallel: (0..p).map(|s| (0..dp).map(|r| r * p + s).collect()).collect(),
    };

    let environment = environment(compiled, settings, inputs);
    let hardware = hardware(&pipeline, inventory, compiled.runtime.as_ref(), inputs, dp);
    let warnings = compiled
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| {
            let pos = position(&compiled.sources, d.file, d.span);
            PlanWarning {
                code: d.code.into(),
                message: d.message.clone(),
                file: (inputs.recorded_path)(&pos.file),
                line: pos.line,
                column: pos.column,
            }
        })
        .collect();
    let plan = StagePlan {
        image: compiled.runtime.as_ref().map(plan_image),
        format_version: FORMAT_VERSION,
        stagec_version: env!("CARGO_PKG_VERSION").into(),
        inputs: inputs
            .files
            .iter()
            .map(|(role, path, bytes)| PlanInput {
                role: *role,
                path: (inputs.recorded_path)(path),
                sha256: sha256_hex(bytes),
            })
            .collect(),
        experiment: PlanExperiment {
            name: settings.name.as_deref().map(|n| crate::secrets::redact(n).into_owned()),
            entrypoint: settings
                .entrypoint
                .as_ref()
                .and_then(|e| serde_json::to_value(e).ok())
                .map(redact_json),
            seed: settings.experiment_seed,
        },
        pipeline: PlanPipeline {
            degree: p,
            data_parallel: dp,
            world_size: pipeline.world_size(),
            micro_batch_size: pipeline.micro_batch_size,
            micro_batches: pipeline.micro_batches,
            schedule: pipeline.schedule,
            virtual_stages: pipeline.virtual_stages,
            bubble_fraction: pipeline.bubble.map(|b| (b * 1e6).round() / 1e6),
            gradient_normalization,
            activation_checkpointing: settings.activation_checkpointing,
        },
        stages,
        boundaries,
        process_groups,
        environment,
        hardware,
        warnings,
    };
    let mut plan_json = serde_json::to_string_pretty(&plan).ok()?;
    plan_json.push('\n');
    let env_file = env_file(&plan.environment);
    Some(PlanFiles {
        plan,
        plan_json,
        env_file,
    })
}

/// A config without stage declarations plans as one stage on all slots.
/// The plan's record of the runtime image.
fn plan_image(runtime: &crate::runtime::Runtime) -> PlanImage {
    use crate::runtime::image::Resolution;
    let (source, determined) = match &runtime.source {
        crate::runtime::ImageSource::Config { .. } => (ImageOrigin::Config, None),
        crate::runtime::ImageSource::Default { determined } => (ImageOrigin::Default, Some(determined.clone())),
    };
    let mut image = PlanImage {
        // Informational here (determined.yaml names the image): a token in
        // a registry path is not copied.
        reference: crate::secrets::redact(&runtime.reference).into_owned(),
        source,
        determined,
        resolved_by: "unresolved".into(),
        cuda: None,
        torch: None,
        python: None,
        arch_list: None,
        built_for_driver: None,
    };
    if let Ok(facts) = &runtime.facts {
        image.resolved_by = match &facts.resolution {
            Resolution::KnownTag => "known_tag",
            Resolution::Pattern { .. } => "pattern",
            Resolution::Ngc { .. } => "ngc",
            Resolution::NgcBased { .. } => "ngc_based",
            Resolution::Stated => "stated",
        }
        .into();
        // Major.minor.patch: NGC's fourth component is a build number.
        image.cuda = facts.cuda.map(|v| {
            let parts: Vec<String> = v.parts().iter().take(3).map(u32::to_string).collect();
            parts.join(".")
        });
        image.torch = facts.torch.map(|v| v.to_string());
        image.python = facts.python.map(|v| v.to_string());
        // Only a list that is the whole build: `verify` reads it as one.
        image.arch_list = facts
            .arch_list
            .as_ref()
            .filter(|l| l.exact())
            .map(|l| l.display().split(' ').map(str::to_string).collect());
        image.built_for_driver = facts.built_for_driver.map(|v| v.to_string());
    }
    image
}

fn environment(compiled: &Compiled, settings: &Settings, inputs: &PlanInputs<'_>) -> PlanEnvironment {
    let merged = env::merged(&settings.environment_variables);
    let status = |name: &str| {
        if (inputs.env)(name).is_some() {
            ReferenceStatus::Set
        } else {
            ReferenceStatus::Default
        }
    };
    let mut variables = BTreeMap::new();
    let mut overridden = Vec::new();
    let mut references = BTreeMap::new();
    for (name, (value, origin)) in &merged {
        // E105 refuses such names; with the rule switched off they are
        // still never written where a shell or a dotenv loader reads them.
        if !env::is_valid_name(name) {
            continue;
        }
        if *origin == env::Origin::ExperimentOverride {
            if let Some((_, default, _)) = env::DEFAULTS.iter().find(|(k, _, _)| k == name) {
                overridden.push(EnvOverride {
                    name: name.clone(),
                    default: (*default).into(),
                    value: shown(name, value),
                });
            }
        }
        for r in crate::vars::scan(value).0 {
            references.insert(format!("${{{}}}", r.name), status(&r.name));
        }
        variables.insert(name.clone(), shown(name, value));
    }
    variables.insert(PLAN_VARIABLE.into(), inputs.plan_path.clone());
    // References elsewhere in the config (storage credentials, names).
    if let Some(doc) = compiled.config_document() {
        for site in crate::vars::sites(&doc.tree, compiled.text(compiled.config)) {
            if let crate::vars::VarSite::Reference { reference, .. } = site {
                references.insert(format!("${{{}}}", reference.name), status(&reference.name));
            }
        }
    }
    PlanEnvironment {
        variables,
        overridden,
        references: references
            .into_iter()
            .map(|(reference, status)| VarReference { reference, status })
            .collect(),
        per_rank: vec![
            PerRankVariable {
                name: "STAGEC_RANK".into(),
                rule: "global rank of the process: --rank, else RANK as the launcher sets it".into(),
            },
            PerRankVariable {
                name: "STAGEC_STAGE_ID".into(),
                rule: "stage of the rank: stages[i].id where rank is in stages[i].ranks (rank mod pipeline.degree gives i)"
                    .into(),
            },
            PerRankVariable {
                name: "STAGEC_STAGE_POSITION".into(),
                rule: "position of the rank's stage in forward order: rank mod pipeline.degree (0 reads the inputs, pipeline.degree - 1 the labels)".into(),
            },
            PerRankVariable {
                name: "STAGEC_REPLICA".into(),
                rule: "data-parallel replica of the rank: rank div pipeline.degree".into(),
            },
            PerRankVariable {
                name: "STAGEC_DATA_SEED".into(),
                rule: "seed base + replica, the same on every stage of a replica: samplers and shuffles seed from it, so all stages of a replica read the same samples in the same order (seed base: --seed where given, else DET_TRIAL_SEED under Determined, else reproducibility.experiment_seed); a sampler that shards one shared permutation (DistributedSampler) takes the base, STAGEC_DATA_SEED - STAGEC_REPLICA, with rank STAGEC_REPLICA".into(),
            },
            PerRankVariable {
                name: "STAGEC_RANK_SEED".into(),
                rule: "seed base + global rank, different on every rank: for dropout and other per-process randomness, never for a sampler".into(),
            },
            PerRankVariable {
                name: "STAGEC_SEED".into(),
                rule: "deprecated: STAGEC_RANK_SEED under its old name".into(),
            },
            PerRankVariable {
                name: "STAGEC_DTYPE".into(),
                rule: "stages[i].torch_dtype of the rank's stage".into(),
            },
        ],
    }
}

/// Every string of `v` with secrets found by their shape masked (an
/// entrypoint's `--token ghp_…`).
fn redact_json(v: Json) -> Json {
    match v {
        Json::String(s) => Json::String(crate::secrets::redact(&s).into_owned()),
        Json::Array(items) => Json::Array(items.into_iter().map(redact_json).collect()),
        Json::Object(map) => Json::Object(map.into_iter().map(|(k, v)| (k, redact_json(v))).collect()),
        other => other,
    }
}

/// A value as the plan may show it: references kept as written, literal
/// credentials withheld — by name, by a URL password or a token in the
/// value ([`crate::secrets::is_secret`]).
fn shown(name: &str, value: &str) -> String {
    if crate::secrets::is_secret(name, value) && !value.trim_start().starts_with("${") {
        "<withheld: credential>".into()
    } else {
        value.to_string()
    }
}

fn hardware(
    pipeline: &Pipeline,
    inventory: Option<&Inventory>,
    runtime: Option<&crate::runtime::Runtime>,
    inputs: &PlanInputs<'_>,
    dp: u64,
) -> PlanHardware {
    let mut demand: BTreeMap<String, u64> = BTreeMap::new();
    for s in &pipeline.stages {
        if !s.gpu_types.is_empty() {
            *demand.entry(s.gpu_types.join("|")).or_default() += dp;
        }
    }
    let supply: BTreeMap<String, u64> = inventory
        .map(|inv| {
            crate::hardware::allocate::pools(inv, &|node, gpu| crate::pipeline::driver_exclusion(runtime, node, gpu))
                .0
                .into_iter()
                .map(|p| (p.label, u64::from(p.total)))
                .collect()
        })
        .unwrap_or_default();
    let source = match (&inputs.probe, inventory) {
        (Some(_), _) => HardwareSource::Probe,
        (None, Some(_)) => HardwareSource::Inventory,
        (None, None) => HardwareSource::None,
    };
    PlanHardware {
        source,
        inventory_format: inventory.map(|i| i.format.describe().to_string()),
        demand,
        supply,
        probe: inputs.probe.clone(),
    }
}

/// `stage_plan.env`: one `NAME=value` per line, sorted. References stay
/// `${VAR}` for the launcher's dotenv loader to expand; credentials are not
/// copied.
fn env_file(e: &PlanEnvironment) -> String {
    let mut out = String::from("# Generated by stagec plan: the environment of every rank.\n");
    for (name, value) in &e.variables {
        if !env::is_valid_name(name) {
            continue;
        }
        if value.starts_with("<withheld") || crate::secrets::is_secret(name, value) {
            out.push_str(&format!(
                "# {name} is a credential set in the experiment config; not copied here\n"
            ));
            continue;
        }
        out.push_str(&format!("{name}={}\n", dotenv_quote(value)));
    }
    out
}

fn dotenv_quote(v: &str) -> String {
    let plain = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.:/,=+@%${}".contains(c));
    if plain {
        v.to_string()
    } else {
        format!(
            "\"{}\"",
            v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
        )
    }
}
