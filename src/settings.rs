//! The experiment's settings that the pipeline, the rules and the plan
//! read, as typed values.
//!
//! Each field is deserialised on its own into the [`crate::spec`] types
//! (`HppInteger`, `HppChoice<PipelineSchedule>`, `Hyperparameter`, …), so a
//! mistake in one field (which the schema reports) leaves the others
//! readable: a half-typed config in the editor still gets its pipeline
//! checked. A field that does not deserialise is absent here.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde_json::Value as Json;

use crate::envvars::{self, EnvEntry};
use crate::spec::hyperparameters::{GradientNormalization, HppChoice, HppInteger, Hyperparameter, PipelineSchedule};
use crate::spec::resources::StageGpuTypes;
use crate::spec::Entrypoint;

/// Most values a searched integer range is expanded to; a wider range is
/// not checked value by value.
pub const MAX_RANGE: u64 = 4096;

/// The config's settings, typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// `name`.
    pub name: Option<String>,
    /// `entrypoint`.
    pub entrypoint: Option<Entrypoint>,
    /// Whether `hyperparameters.hpp_config` is present at all.
    pub has_hpp_config: bool,
    /// `hpp_config.pipeline_parallel_degree`: its candidate values.
    pub pipeline_parallel_degree: Option<Vec<i64>>,
    /// `hpp_config.micro_batch_size`: its candidate values.
    pub micro_batch_size: Option<Vec<i64>>,
    /// `hpp_config.virtual_stages`: its candidate values.
    pub virtual_stages: Option<Vec<i64>>,
    /// `hpp_config.schedule`: its candidate values.
    pub schedule: Option<Vec<PipelineSchedule>>,
    /// `hpp_config.default_dtype`, when fixed.
    pub default_dtype: Option<String>,
    /// `hpp_config.gradient_normalization`, when fixed.
    pub gradient_normalization: Option<GradientNormalization>,
    /// `hpp_config.activation_checkpointing`, when fixed.
    pub activation_checkpointing: Option<bool>,
    /// `hyperparameters.global_batch_size`: its integer candidates.
    pub global_batch_size: Option<Vec<i64>>,
    /// `hyperparameters.clip_norm`, when a plain number.
    pub clip_norm: Option<f64>,
    /// `resources.slots_per_trial`.
    pub slots_per_trial: Slots,
    /// `resources.custom.stage_<N>_gpus`, by N.
    pub stage_gpus: BTreeMap<i64, StageGpus>,
    /// `environment.environment_variables`, either form.
    pub environment_variables: Vec<EnvEntry>,
    /// `reproducibility.experiment_seed`.
    pub experiment_seed: Option<u64>,
    /// `environment.image`, either form.
    pub image: ImageSetting,
    /// `hpp_config.image_provides`: what the image provides, as stated.
    pub image_provides: Option<Stated>,
}

/// `environment.image` as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ImageSetting {
    /// Not set (or null): Determined's default images.
    #[default]
    Absent,
    /// One image for every container.
    Single(String),
    /// One per accelerator type; `cuda` holds the `cuda` member or its
    /// legacy alias `gpu` (with the key used).
    Map {
        cuda: Option<(String, &'static str)>,
        rocm: Option<String>,
        cpu: Option<String>,
    },
    /// A value of another type (the schema reports it).
    Invalid,
}

/// `resources.slots_per_trial` as far as the pipeline is concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Slots {
    /// Not set (or null): Determined's default, 1.
    #[default]
    Default,
    /// A count.
    Count(i64),
    /// A value of the wrong type (the schema reports it).
    Invalid,
}

impl Slots {
    /// The count in effect, when there is one.
    pub fn count(self) -> Option<i64> {
        match self {
            Slots::Default => Some(1),
            Slots::Count(n) => Some(n),
            Slots::Invalid => None,
        }
    }
}

/// One `stage_<N>_gpus` list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageGpus {
    /// The key as written.
    pub key: String,
    /// The GPU types, each with its index in the list (entries that are not
    /// strings are left out).
    pub types: Vec<(usize, String)>,
}

impl Settings {
    /// Reads the settings of a config given as JSON.
    pub fn read(json: &Json) -> Settings {
        let hpp = json.pointer("/hyperparameters/hpp_config");
        let hpp_field = |key: &str| hpp.and_then(|h| h.get(key));
        Settings {
            name: typed(json.get("name")),
            entrypoint: typed(json.get("entrypoint")),
            has_hpp_config: hpp.is_some(),
            pipeline_parallel_degree: hpp_field("pipeline_parallel_degree").and_then(hpp_integer),
            micro_batch_size: hpp_field("micro_batch_size").and_then(hpp_integer),
            virtual_stages: hpp_field("virtual_stages").and_then(hpp_integer),
            schedule: typed::<HppChoice<PipelineSchedule>>(hpp_field("schedule")).map(choices),
            default_dtype: hpp_field("default_dtype").and_then(Json::as_str).map(str::to_string),
            gradient_normalization: typed(hpp_field("gradient_normalization")),
            activation_checkpointing: typed(hpp_field("activation_checkpointing")),
            global_batch_size: json
                .pointer("/hyperparameters/global_batch_size")
                .and_then(hyperparameter_integers),
            clip_norm: json.pointer("/hyperparameters/clip_norm").and_then(Json::as_f64),
            slots_per_trial: match json.pointer("/resources/slots_per_trial") {
                None | Some(Json::Null) => Slots::Default,
                Some(v) => v.as_i64().map_or(Slots::Invalid, Slots::Count),
            },
            stage_gpus: stage_gpus(json.pointer("/resources/custom")),
            environment_variables: envvars::entries(json),
            experiment_seed: typed(json.pointer("/reproducibility/experiment_seed")),
            image: image_setting(json.pointer("/environment/image")),
            image_provides: hpp_field("image_provides")
                .and_then(|v| typed::<crate::spec::hyperparameters::ImageProvides>(Some(v)))
                .map(|p| Stated {
                    cuda: p.cuda.map(|v| v.0),
                    torch: p.torch.map(|v| v.0),
                    python: p.python.map(|v| v.0),
                    arch_list: p.arch_list.map(|l| l.into_iter().map(|a| a.0).collect()),
                }),
        }
    }

    /// The fixed value of a searched integer, when it has exactly one.
    pub fn fixed(values: Option<&Vec<i64>>) -> Option<i64> {
        match values.map(Vec::as_slice) {
            Some([v]) => Some(*v),
            _ => None,
        }
    }
}

/// `environment.image`, either form.
fn image_setting(v: Option<&Json>) -> ImageSetting {
    let text = |k: &str, map: &serde_json::Map<String, Json>| map.get(k).and_then(Json::as_str).map(str::to_string);
    match v {
        None | Some(Json::Null) => ImageSetting::Absent,
        Some(Json::String(s)) => ImageSetting::Single(s.clone()),
        Some(Json::Object(map)) => ImageSetting::Map {
            cuda: text("cuda", map)
                .map(|s| (s, "cuda"))
                .or_else(|| text("gpu", map).map(|s| (s, "gpu"))),
            rocm: text("rocm", map),
            cpu: text("cpu", map),
        },
        Some(_) => ImageSetting::Invalid,
    }
}

/// A value deserialised into `T`, or `None`.
fn typed<T: DeserializeOwned>(v: Option<&Json>) -> Option<T> {
    serde_json::from_value(v?.clone()).ok()
}

/// The candidates of a plain or searched positive integer.
fn hpp_integer(v: &Json) -> Option<Vec<i64>> {
    let to_i64 = |n: u64| i64::try_from(n).ok();
    match typed::<HppInteger>(Some(v))? {
        HppInteger::Value(n) => Some(vec![to_i64(n)?]),
        HppInteger::Const(c) => Some(vec![to_i64(c.val)?]),
        HppInteger::Categorical(c) => {
            let vals: Vec<i64> = c.vals.into_iter().filter_map(to_i64).collect();
            (!vals.is_empty()).then_some(vals)
        }
        HppInteger::Int(r) => range(to_i64(r.minval)?, to_i64(r.maxval)?),
    }
}

/// The integer candidates of a Determined hyperparameter: a plain integer,
/// a `const`, the integers of a `categorical`, or an `int` range.
fn hyperparameter_integers(v: &Json) -> Option<Vec<i64>> {
    match typed::<Hyperparameter>(Some(v))? {
        Hyperparameter::Plain(p) => p.0.as_i64().map(|i| vec![i]),
        Hyperparameter::Const(c) => c.val.as_i64().map(|i| vec![i]),
        Hyperparameter::Categorical(c) => {
            let vals: Vec<i64> = c.vals.iter().filter_map(Json::as_i64).collect();
            (!vals.is_empty()).then_some(vals)
        }
        Hyperparameter::Int(r) => range(r.minval, r.maxval),
        _ => None,
    }
}

/// Every value of `lo..=hi`, when the range is ordered and at most
/// [`MAX_RANGE`] wide.
fn range(lo: i64, hi: i64) -> Option<Vec<i64>> {
    let width = hi.checked_sub(lo)?;
    if width < 0 || width as u64 > MAX_RANGE {
        return None;
    }
    Some((lo..=hi).collect())
}

fn choices<T>(c: HppChoice<T>) -> Vec<T> {
    match c {
        HppChoice::Value(v) => vec![v],
        HppChoice::Const(c) => vec![c.val],
        HppChoice::Categorical(c) => c.vals,
    }
}

/// `resources.custom`'s `stage_<N>_gpus` lists, by N.
fn stage_gpus(custom: Option<&Json>) -> BTreeMap<i64, StageGpus> {
    let mut out = BTreeMap::new();
    let Some(custom) = custom.and_then(Json::as_object) else {
        return out;
    };
    for (key, value) in custom {
        let Some(n) = StageGpuTypes::stage_index(key).and_then(|n| i64::try_from(n).ok()) else {
            continue;
        };
        let types = value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.as_str().map(|s| (i, s.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        out.insert(
            n,
            StageGpus {
                key: key.clone(),
                types,
            },
        );
    }
    out
}

/// What an experiment states about its image (`hpp_config.image_provides`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stated {
    pub cuda: Option<String>,
    pub torch: Option<String>,
    pub python: Option<String>,
    pub arch_list: Option<Vec<String>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searched_and_fixed_values() {
        let json = serde_json::json!({
            "hyperparameters": {
                "global_batch_size": {"type": "int", "minval": 4, "maxval": 6},
                "hpp_config": {
                    "pipeline_parallel_degree": 3,
                    "micro_batch_size": {"type": "categorical", "vals": [2, 4]},
                    "schedule": {"type": "const", "val": "interleaved"},
                    "default_dtype": "bf16"
                }
            },
            "resources": {"slots_per_trial": 6, "custom": {"stage_0_gpus": ["a100", 5], "stage_x_gpus": []}}
        });
        let s = Settings::read(&json);
        assert!(s.has_hpp_config);
        assert_eq!(s.pipeline_parallel_degree, Some(vec![3]));
        assert_eq!(s.micro_batch_size, Some(vec![2, 4]));
        assert_eq!(s.global_batch_size, Some(vec![4, 5, 6]));
        assert_eq!(s.schedule, Some(vec![PipelineSchedule::Interleaved]));
        assert_eq!(s.default_dtype.as_deref(), Some("bf16"));
        assert_eq!(s.slots_per_trial, Slots::Count(6));
        let stage0 = s.stage_gpus.get(&0).map(|g| g.types.clone());
        assert_eq!(stage0, Some(vec![(0, "a100".to_string())]));
        assert_eq!(s.stage_gpus.len(), 1);
    }

    #[test]
    fn a_bad_field_leaves_the_others_readable() {
        let json = serde_json::json!({
            "hyperparameters": {"hpp_config": {"pipeline_parallel_degree": "three", "micro_batch_size": 2}},
            "resources": {"slots_per_trial": "eight"}
        });
        let s = Settings::read(&json);
        assert_eq!(s.pipeline_parallel_degree, None);
        assert_eq!(s.micro_batch_size, Some(vec![2]));
        assert_eq!(s.slots_per_trial, Slots::Invalid);
    }
}
