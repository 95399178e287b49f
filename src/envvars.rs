//! What stagec knows about environment variables: the reproducibility
//! defaults every rank gets, names PyTorch renamed, the values PyTorch
//! accepts for the variables it reads, and how the experiment's
//! `environment.environment_variables` merge with the defaults. Plain
//! knowledge, below the rules (E1xx) and the plan that use it.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::yaml::PathSeg;

/// stagec's defaults, which every rank gets: the settings that make ranks
/// and reruns agree.
pub const DEFAULTS: &[(&str, &str, &str)] = &[
    (
        "CUBLAS_WORKSPACE_CONFIG",
        ":4096:8",
        "deterministic cuBLAS workspaces (needed by torch.use_deterministic_algorithms)",
    ),
    (
        "PYTHONHASHSEED",
        "0",
        "the same str/bytes hashing, so dict and set order agree on every rank",
    ),
    (
        "PYTORCH_CUDA_ALLOC_CONF",
        "max_split_size_mb:512",
        "limits allocator fragmentation so free memory is alike on every GPU",
    ),
    (
        "TORCH_NCCL_ASYNC_ERROR_HANDLING",
        "1",
        "a failed collective aborts the process instead of hanging the job",
    ),
];

/// Old names PyTorch 2.2 renamed with a `TORCH_` prefix.
pub const RENAMED: &[(&str, &str)] = &[
    ("NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_ASYNC_ERROR_HANDLING"),
    ("NCCL_BLOCKING_WAIT", "TORCH_NCCL_BLOCKING_WAIT"),
    ("NCCL_DESYNC_DEBUG", "TORCH_NCCL_DESYNC_DEBUG"),
    ("NCCL_ENABLE_TIMING", "TORCH_NCCL_ENABLE_TIMING"),
    ("ENABLE_NCCL_HEALTH_CHECK", "TORCH_ENABLE_NCCL_HEALTH_CHECK"),
    (
        "NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK",
        "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK",
    ),
];

/// One `NAME=value` entry of `environment.environment_variables`.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvEntry {
    pub name: String,
    pub value: String,
    /// Where the entry is, e.g. `environment.environment_variables.cuda[2]`.
    pub path: Vec<PathSeg>,
    /// `None` for the list form, else `cpu`, `cuda` or `rocm`.
    pub variant: Option<String>,
}

/// The entries of the config's `environment.environment_variables`, in
/// either of Determined's forms (a list, or `cpu`/`cuda`/`rocm` lists).
/// Entries without `=` are skipped (Determined passes them through).
pub fn entries(config: &Json) -> Vec<EnvEntry> {
    let base: Vec<PathSeg> = ["environment", "environment_variables"]
        .iter()
        .map(|k| PathSeg::Key((*k).to_string()))
        .collect();
    let mut out = Vec::new();
    let mut list = |items: &Json, prefix: Vec<PathSeg>, variant: Option<String>| {
        for (i, item) in items.as_array().into_iter().flatten().enumerate() {
            let Some(text) = item.as_str() else { continue };
            let Some((name, value)) = text.split_once('=') else {
                continue;
            };
            let mut path = prefix.clone();
            path.push(PathSeg::Index(i));
            out.push(EnvEntry {
                name: name.to_string(),
                value: value.to_string(),
                path,
                variant: variant.clone(),
            });
        }
    };
    match config.pointer("/environment/environment_variables") {
        Some(items @ Json::Array(_)) => list(items, base, None),
        Some(Json::Object(map)) => {
            for (variant, items) in map {
                let mut prefix = base.clone();
                prefix.push(PathSeg::Key(variant.clone()));
                list(items, prefix, Some(variant.clone()));
            }
        }
        _ => {}
    }
    out
}

/// Whether `name` is a portable environment variable name (POSIX:
/// `[A-Za-z_][A-Za-z0-9_]*`), the only names a shell can `export` and every
/// launcher passes alike. Kubernetes and Docker hand other names to the
/// container as they are.
pub fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The first character of `name` that makes it invalid, as a message
/// shows it (control and other invisible characters escaped), or `None`
/// for a valid or empty name.
pub fn first_invalid_char(name: &str) -> Option<String> {
    let (_, c) = name
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_alphabetic() || c == '_' || (i > 0 && c.is_ascii_digit())))?;
    Some(if c == '`' {
        "a backquote".to_string()
    } else if c.is_ascii_graphic() {
        format!("`{c}`")
    } else if c == ' ' {
        "a space".to_string()
    } else {
        format!("U+{:04X}", c as u32)
    })
}

/// Every string of `environment.environment_variables` with the name it
/// sets: the text before the first `=`, or the whole string for an entry
/// without one (a variable passed through from the host). With its path.
pub fn names(config: &Json) -> Vec<(String, Vec<PathSeg>)> {
    let mut out = Vec::new();
    let base: Vec<PathSeg> = ["environment", "environment_variables"]
        .iter()
        .map(|k| PathSeg::Key((*k).to_string()))
        .collect();
    let mut list = |items: &Json, prefix: Vec<PathSeg>| {
        for (i, item) in items.as_array().into_iter().flatten().enumerate() {
            let Some(text) = item.as_str() else { continue };
            let name = text.split_once('=').map_or(text, |(n, _)| n);
            let mut path = prefix.clone();
            path.push(PathSeg::Index(i));
            out.push((name.to_string(), path));
        }
    };
    match config.pointer("/environment/environment_variables") {
        Some(items @ Json::Array(_)) => list(items, base),
        Some(Json::Object(map)) => {
            for (variant, items) in map {
                let mut prefix = base.clone();
                prefix.push(PathSeg::Key(variant.clone()));
                list(items, prefix);
            }
        }
        _ => {}
    }
    out
}

/// Why a value of one of the variables stagec knows is invalid, if it is.
pub fn invalid_reason(name: &str, value: &str) -> Option<String> {
    if value.contains("${") {
        return None;
    }
    match name {
        "CUBLAS_WORKSPACE_CONFIG" => (!matches!(value, ":4096:8" | ":16:8")).then(|| {
            format!("`{value}` is not a deterministic cuBLAS workspace setting: PyTorch's deterministic mode accepts `:4096:8` or `:16:8`")
        }),
        "PYTHONHASHSEED" => {
            let ok = value == "random" || value.parse::<u64>().is_ok_and(|v| v <= u64::from(u32::MAX));
            (!ok).then(|| format!("`{value}` is not `random` or an integer from 0 to 4294967295"))
        }
        "TORCH_NCCL_ASYNC_ERROR_HANDLING" | "NCCL_ASYNC_ERROR_HANDLING" => (!matches!(value, "0" | "1" | "2" | "3"))
            .then(|| format!("`{value}` is not 0, 1, 2 or 3 (0 off, 1 abort and tear down, 2 abort only, 3 tear down)")),
        "PYTORCH_CUDA_ALLOC_CONF" | "PYTORCH_ALLOC_CONF" => alloc_conf_problem(value),
        _ => None,
    }
}

fn is_pow2(v: &str) -> bool {
    v.parse::<u64>().is_ok_and(|n| n.is_power_of_two())
}

/// PyTorch's allocator settings: `key:value` pairs, comma-separated; unknown
/// keys raise at startup.
fn alloc_conf_problem(value: &str) -> Option<String> {
    for pair in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, v)) = pair.split_once(':') else {
            return Some(format!("`{pair}` is not a `key:value` pair"));
        };
        let bool_ok = matches!(v, "True" | "False");
        let problem = match key {
            "max_split_size_mb" | "max_non_split_rounding_mb" => {
                (!v.parse::<u64>().is_ok_and(|n| n >= 20)).then(|| format!("`{key}` must be an integer of at least 20"))
            }
            "garbage_collection_threshold" => (!v.parse::<f64>().is_ok_and(|f| f > 0.0 && f < 1.0))
                .then(|| format!("`{key}` must be a number strictly between 0 and 1")),
            "expandable_segments" | "release_lock_on_cudamalloc" | "pinned_use_cuda_host_register" => {
                (!bool_ok).then(|| format!("`{key}` must be `True` or `False` (exact case)"))
            }
            "backend" => (!matches!(v, "native" | "cudaMallocAsync"))
                .then(|| format!("`{key}` must be `native` or `cudaMallocAsync`")),
            "roundup_power2_divisions" => (!(is_pow2(v) || v.starts_with('[')))
                .then(|| format!("`{key}` must be a power of two or a `[size:div,…]` list")),
            "pinned_num_register_threads" => (!is_pow2(v)).then(|| format!("`{key}` must be a power of two")),
            _ => Some(format!(
                "unknown allocator key `{key}` (PyTorch raises on unknown keys)"
            )),
        };
        if problem.is_some() {
            return problem;
        }
    }
    None
}

/// Where a variable of the merged environment came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Stagec,
    Experiment,
    /// The experiment sets a variable stagec also sets; its value is kept.
    ExperimentOverride,
}

/// The merged environment of GPU ranks: stagec's defaults, then the
/// experiment's list form or its `cuda` variant (which win).
pub fn merged(entries: &[EnvEntry]) -> BTreeMap<String, (String, Origin)> {
    let mut out: BTreeMap<String, (String, Origin)> = DEFAULTS
        .iter()
        .map(|(k, v, _)| (k.to_string(), (v.to_string(), Origin::Stagec)))
        .collect();
    for e in entries {
        if !matches!(e.variant.as_deref(), None | Some("cuda")) {
            continue;
        }
        let origin = match out.get(&e.name) {
            Some((_, Origin::Stagec)) => Origin::ExperimentOverride,
            Some((_, o)) => *o,
            None => Origin::Experiment,
        };
        out.insert(e.name.clone(), (e.value.clone(), origin));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_known_variables() {
        assert!(invalid_reason("CUBLAS_WORKSPACE_CONFIG", ":4096:8").is_none());
        assert!(invalid_reason("CUBLAS_WORKSPACE_CONFIG", ":16:8").is_none());
        assert!(invalid_reason("CUBLAS_WORKSPACE_CONFIG", ":4096:2").is_some());
        assert!(invalid_reason("PYTHONHASHSEED", "random").is_none());
        assert!(invalid_reason("PYTHONHASHSEED", "-1").is_some());
        assert!(invalid_reason(
            "PYTORCH_CUDA_ALLOC_CONF",
            "expandable_segments:True,garbage_collection_threshold:0.8"
        )
        .is_none());
        assert!(invalid_reason("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:10").is_some());
        assert!(invalid_reason("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:true").is_some());
        assert!(invalid_reason("PYTORCH_CUDA_ALLOC_CONF", "turbo:1").is_some());
        assert!(invalid_reason("CUBLAS_WORKSPACE_CONFIG", "${CFG}").is_none());
    }

    #[test]
    fn variable_names() {
        for n in ["A", "_", "HOME", "x_1", "TORCH_NCCL_ASYNC_ERROR_HANDLING"] {
            assert!(is_valid_name(n), "{n}");
        }
        for n in [
            "",
            "1A",
            "HOME_$(touch PWNED)",
            "X;touch",
            "A-B",
            "a.b",
            " A",
            "A ",
            "\u{1b}A",
            "É",
        ] {
            assert!(!is_valid_name(n), "{n:?}");
        }
        assert_eq!(first_invalid_char("HOME_$(x)").as_deref(), Some("`$`"));
        assert_eq!(first_invalid_char("1A").as_deref(), Some("`1`"));
        assert_eq!(first_invalid_char("A\u{1b}").as_deref(), Some("U+001B"));
        assert_eq!(first_invalid_char("A B").as_deref(), Some("a space"));
        let config = serde_json::json!({"environment": {"environment_variables": {"cuda": ["A=1", "B;C"]}}});
        let found: Vec<String> = names(&config).into_iter().map(|(n, _)| n).collect();
        assert_eq!(found, ["A", "B;C"]);
    }

    #[test]
    fn merges_list_and_cuda_forms() {
        let list = serde_json::json!({"environment": {"environment_variables": ["PYTHONHASHSEED=1", "A=b=c"]}});
        let env = merged(&entries(&list));
        assert_eq!(
            env.get("PYTHONHASHSEED"),
            Some(&("1".to_string(), Origin::ExperimentOverride))
        );
        assert_eq!(env.get("A"), Some(&("b=c".to_string(), Origin::Experiment)));
        assert_eq!(env.get("CUBLAS_WORKSPACE_CONFIG").map(|v| v.1), Some(Origin::Stagec));
        let map = serde_json::json!({"environment": {"environment_variables": {"cpu": ["X=1"], "cuda": ["Y=2"]}}});
        let env = merged(&entries(&map));
        assert!(env.contains_key("Y") && !env.contains_key("X"));
    }
}
