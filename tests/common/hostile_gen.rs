//! Structure-aware generators of hostile input (issue 9) for property tests:
//! YAML documents with anchors, aliases and merges (`<<` as a plain or
//! quoted key, merging an alias, a list or a scalar), numbers beyond what
//! the readers hold (2^64+1, 1e400, -0, .nan, .inf), odd line endings (CR
//! only, CRLF, mixed), Python models whose decorators carry extreme
//! arguments, `stages.yaml` files and Kubernetes NodeLists with counts that
//! are not counts.
//!
//! Sizes stay small (a few KiB per input), so a property runs hundreds of
//! cases in seconds even in a debug build; the point is shape, not volume
//! (volume is `tests/it/hostile.rs`'s job).
#![allow(dead_code)]

use proptest::collection::vec;
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// Scalars

/// Numbers that do not fit, do not exist in JSON, or wrap when multiplied.
pub fn huge_number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "18446744073709551617",
            "18446744073709551616",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "4000000000",
            "4294967296",
            "1180591620717411303424",
            "1e400",
            "-1e400",
            "1e-400",
            "-0",
            "-0.0",
            ".nan",
            ".NaN",
            ".inf",
            "-.inf",
            "+.inf",
            "0x10000000000000000",
            "0o7777777777777777777777",
            "1_000_000",
            "0",
            "-1",
        ])
        .prop_map(str::to_string),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_map(|f| format!("{f:e}")),
        1 => (1u32..40).prop_map(|d| "9".repeat(d as usize)),
    ]
}

/// A scalar as written in YAML: plain, quoted, with escapes, a variable
/// reference, a credential-looking value or a number.
pub fn yaml_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => huge_number(),
        2 => "[a-z_][a-z0-9_-]{0,10}",
        1 => prop::sample::select(vec![
            "\"\\ud83d\\ude00\"",
            "\"\\ud83d\"",
            "\"\\ude00\\ud83d\"",
            "\"\\x00\"",
            "\"\\u0000\"",
            "\"\\U0001F600\"",
            "'it''s'",
            "\"a\\\"b\"",
            "\"\"",
            "''",
            "~",
            "null",
            "yes",
            "on",
            "true",
            "${S3_SECRET_KEY}",
            "${VAR:-fallback}",
            "$${literal}",
            "${",
            "hunter2",
            "a100-40g",
            "h100-80g",
            "bf16",
            "torch.float8_e4m3fn",
            "!!str 5",
            "!!int x",
            "!!float .nan",
            "!custom v",
            "|\n    block",
            "中文",
        ])
        .prop_map(str::to_string),
    ]
}

/// Mapping keys: the config's own, `<<` (plain and quoted), credential
/// names (some misspelled), `stage_<N>_gpus` with odd N.
pub fn yaml_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "name",
            "entrypoint",
            "resources",
            "slots_per_trial",
            "custom",
            "searcher",
            "metric",
            "max_length",
            "hyperparameters",
            "hpp_config",
            "pipeline_parallel_degree",
            "micro_batch_size",
            "global_batch_size",
            "virtual_stages",
            "schedule",
            "type",
            "minval",
            "maxval",
            "count",
            "checkpoint_storage",
            "checkpoints",
            "storage_type",
            "config",
            "bucket",
            "secret_key",
            "access_key",
            "password",
            "pasword",
            "token",
            "environment",
            "environment_variables",
            "stages",
            "id",
            "inputs",
            "device",
            "dtype",
            "params",
        ])
        .prop_map(str::to_string),
        2 => prop::sample::select(vec!["<<", "\"<<\"", "'<<'", "? <<"]).prop_map(str::to_string),
        1 => huge_number().prop_map(|n| format!("stage_{n}_gpus")),
        1 => (0u32..8).prop_map(|n| format!("stage_{n}_gpus")),
        1 => "[a-z][a-z_]{0,8}",
    ]
}

const ANCHORS: [&str; 3] = ["a", "b", "c"];

// ---------------------------------------------------------------------------
// YAML documents

/// A YAML tree to render.
#[derive(Clone, Debug)]
pub enum Yaml {
    Scalar(String),
    Map(Vec<(String, Yaml)>),
    Seq(Vec<Yaml>),
    /// `&name value`
    Anchor(&'static str, Box<Yaml>),
    /// `*name`
    Alias(&'static str),
    /// The subtree in flow style (`{k: v}`, `[a, b]`).
    Flow(Box<Yaml>),
}

fn anchor_name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(ANCHORS.to_vec())
}

/// A tree with anchors, aliases and merges: merge keys take whatever value
/// comes (an alias, a list of aliases and scalars, a scalar, a mapping).
pub fn yaml_tree() -> impl Strategy<Value = Yaml> {
    let leaf = prop_oneof![
        4 => yaml_scalar().prop_map(Yaml::Scalar),
        1 => anchor_name().prop_map(Yaml::Alias),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            3 => vec((yaml_key(), inner.clone()), 0..6).prop_map(Yaml::Map),
            2 => vec(inner.clone(), 0..5).prop_map(Yaml::Seq),
            2 => (anchor_name(), inner.clone()).prop_map(|(n, v)| Yaml::Anchor(n, Box::new(v))),
            1 => inner.clone().prop_map(|v| Yaml::Flow(Box::new(v))),
            // An explicit merge into a mapping.
            2 => (merge_value(inner.clone()), vec((yaml_key(), inner), 0..4)).prop_map(|(m, mut rest)| {
                rest.insert(0, ("<<".to_string(), m));
                Yaml::Map(rest)
            }),
        ]
    })
}

/// What `<<` merges: an alias (valid), a list of aliases, scalars mixed in,
/// a scalar, or a mapping written in place.
fn merge_value(inner: impl Strategy<Value = Yaml> + Clone) -> impl Strategy<Value = Yaml> {
    prop_oneof![
        3 => anchor_name().prop_map(Yaml::Alias),
        2 => vec(anchor_name().prop_map(Yaml::Alias), 1..3).prop_map(|v| Yaml::Flow(Box::new(Yaml::Seq(v)))),
        1 => vec(yaml_scalar().prop_map(Yaml::Scalar), 1..4).prop_map(|v| Yaml::Flow(Box::new(Yaml::Seq(v)))),
        1 => yaml_scalar().prop_map(Yaml::Scalar),
        1 => inner,
    ]
}

impl Yaml {
    /// Renders as a YAML document (block style unless `Flow`).
    pub fn render(&self) -> String {
        let mut out = String::new();
        match self {
            Yaml::Map(_) | Yaml::Seq(_) => self.block(0, &mut out),
            other => {
                other.flow(&mut out);
                out.push('\n');
            }
        }
        out
    }

    fn is_block(&self) -> bool {
        match self {
            Yaml::Map(m) => !m.is_empty(),
            Yaml::Seq(s) => !s.is_empty(),
            Yaml::Anchor(_, v) => v.is_block(),
            _ => false,
        }
    }

    /// A value after `key:` or `- `: inline when flow, else on new lines.
    fn value(&self, indent: usize, out: &mut String) {
        match self {
            Yaml::Anchor(name, v) if v.is_block() => {
                out.push_str(&format!(" &{name}\n"));
                v.block(indent, out);
            }
            v if v.is_block() => {
                out.push('\n');
                v.block(indent, out);
            }
            v => {
                out.push(' ');
                v.flow(out);
                out.push('\n');
            }
        }
    }

    fn block(&self, indent: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        match self {
            Yaml::Map(entries) => {
                for (k, v) in entries {
                    out.push_str(&format!("{pad}{k}:"));
                    v.value(indent + 2, out);
                }
            }
            Yaml::Seq(items) => {
                for v in items {
                    out.push_str(&format!("{pad}-"));
                    v.value(indent + 2, out);
                }
            }
            Yaml::Anchor(_, v) => v.block(indent, out),
            other => {
                out.push_str(&pad);
                other.flow(out);
                out.push('\n');
            }
        }
    }

    fn flow(&self, out: &mut String) {
        match self {
            Yaml::Scalar(s) => {
                // Block scalars cannot appear in flow context.
                if s.starts_with('|') {
                    out.push_str("\"block\"");
                } else {
                    out.push_str(s);
                }
            }
            Yaml::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(k.trim_start_matches("? "));
                    out.push_str(": ");
                    v.flow(out);
                }
                out.push('}');
            }
            Yaml::Seq(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.flow(out);
                }
                out.push(']');
            }
            Yaml::Anchor(name, v) => {
                out.push_str(&format!("&{name} "));
                v.flow(out);
            }
            Yaml::Alias(name) => out.push_str(&format!("*{name}")),
            Yaml::Flow(v) => v.flow(out),
        }
    }
}

/// What may precede a document: directives (including an unsupported
/// version), a document marker, modelines.
pub fn yaml_prelude() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "",
        "",
        "---\n",
        "%YAML 1.2\n---\n",
        "%YAML 1.1\n---\n",
        "%YAML 9.9\n---\n",
        "%YAML 1.2\n%YAML 1.2\n---\n",
        "%TAG ! tag:example.com,2000:\n---\n",
        "# stagec: experiment\n",
        "\u{feff}",
    ])
}

/// A whole YAML document: prelude, tree, sometimes a second document.
pub fn yaml_document() -> impl Strategy<Value = String> {
    (yaml_prelude(), yaml_tree(), prop::option::weighted(0.1, yaml_tree())).prop_map(|(pre, tree, second)| {
        let mut text = format!("{pre}{}", tree.render());
        if let Some(t) = second {
            text.push_str("---\n");
            text.push_str(&t.render());
        }
        text
    })
}

/// A valid three-stage experiment (exit 0 beside [`VALID_MODEL`]).
pub const VALID_CONFIG: &str = "\
name: hostile
entrypoint: python train.py
resources:
  slots_per_trial: 6
  custom:
    stage_0_gpus: [a100-40g]
    stage_1_gpus: [h100-80g]
    stage_2_gpus: [a100-40g]
searcher:
  name: single
  metric: loss
  max_length:
    batches: 100
hyperparameters:
  global_batch_size: 96
  hpp_config:
    pipeline_parallel_degree: 3
    micro_batch_size: 2
    schedule: 1f1b
checkpoint_storage:
  type: shared_fs
  host_path: /mnt/checkpoints
";

/// An experiment config: the valid one with its numbers replaced by hostile
/// ones and hostile YAML appended under an extra key, or a generated
/// document outright.
pub fn experiment_config() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (
            vec(huge_number(), 5),
            prop::option::of(yaml_tree()),
            prop::sample::select(vec!["1f1b", "gpipe", "interleaved", "[1f1b, gpipe]"]),
        )
            .prop_map(|(n, extra, schedule)| {
                let mut text = VALID_CONFIG
                    .replace("slots_per_trial: 6", &format!("slots_per_trial: {}", n[0]))
                    .replace("global_batch_size: 96", &format!("global_batch_size: {}", n[1]))
                    .replace("pipeline_parallel_degree: 3", &format!("pipeline_parallel_degree: {}", n[2]))
                    .replace("micro_batch_size: 2", &format!("micro_batch_size: {}", n[3]))
                    .replace("schedule: 1f1b", &format!("schedule: {schedule}\n    virtual_stages: {}", n[4]));
                if let Some(t) = extra {
                    text.push_str("x-extra:");
                    let mut rendered = String::new();
                    t.value(2, &mut rendered);
                    text.push_str(&rendered);
                }
                text
            }),
        1 => yaml_document(),
    ]
}

// ---------------------------------------------------------------------------
// Line endings

/// How lines end: LF, CRLF, CR only, or a mix.
#[derive(Clone, Debug)]
pub enum Eol {
    Lf,
    CrLf,
    Cr,
    Mixed(Vec<&'static str>),
}

pub fn eol() -> impl Strategy<Value = Eol> {
    prop_oneof![
        2 => Just(Eol::Lf),
        1 => Just(Eol::CrLf),
        2 => Just(Eol::Cr),
        2 => vec(prop::sample::select(vec!["\n", "\r\n", "\r"]), 1..16).prop_map(Eol::Mixed),
    ]
}

impl Eol {
    /// `text` (LF-terminated lines) with these line endings.
    pub fn apply(&self, text: &str) -> String {
        match self {
            Eol::Lf => text.to_string(),
            Eol::CrLf => text.replace('\n', "\r\n"),
            Eol::Cr => text.replace('\n', "\r"),
            Eol::Mixed(cycle) => {
                let mut out = String::with_capacity(text.len() + text.len() / 8);
                for (i, line) in text.split('\n').enumerate() {
                    if i > 0 {
                        out.push_str(cycle[(i - 1) % cycle.len()]);
                    }
                    out.push_str(line);
                }
                out
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Python models

/// A `stage_id` argument: huge, negative, an expression, a string, ...
pub fn stage_id_arg() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u32..6).prop_map(|n| n.to_string()),
        3 => prop::sample::select(vec![
            "4000000000",
            "9000000000000000000",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551617",
            "-1",
            "-9223372036854775808",
            "2**70",
            "1 << 64",
            "\"3\"",
            "'x'",
            "None",
            "1.5",
            "1e400",
            "0x10",
            "True",
            "stage",
            "",
        ])
        .prop_map(str::to_string),
    ]
}

fn device_arg() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["\"a100\"", "\"h100\"", "\"a100-40g\"", "\"h100-80g\"", "\"l4\"", "'b200'"])
            .prop_map(str::to_string),
        1 => prop::sample::select(vec!["\"nope\"", "None", "\"\"", "\"\\ud83d\"", "device", "\"中文\""]).prop_map(str::to_string),
        1 => (50usize..400).prop_map(|n| format!("\"{}\"", "q".repeat(n))),
    ]
}

fn dtype_arg() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "torch.float16",
        "torch.bfloat16",
        "torch.float32",
        "torch.float8_e4m3fn",
        "torch.float8_e5m2",
        "\"bf16\"",
        "\"fp8\"",
        "torch.nope",
        "None",
        "torch",
    ])
    .prop_map(str::to_string)
}

/// One decorator line, in the forms stagec reads and some it cannot.
pub fn decorator() -> impl Strategy<Value = String> {
    (stage_id_arg(), device_arg(), dtype_arg(), 0u8..10).prop_map(|(id, dev, dt, form)| match form {
        0..=3 => format!("@stage_decorator(stage_id={id}, device={dev}, dtype={dt})"),
        4 => format!("@stage_decorator({id}, {dev}, {dt})"),
        5 => format!("@hpp.stage_decorator(stage_id={id}, device={dev})"),
        6 => "@stage_decorator".to_string(),
        7 => "@stage_decorator()".to_string(),
        8 => format!("@stage_decorator(stage_id={id}, device={dev}"),
        _ => format!("@stage_decorator(stage_id={id}, stage_id={id}, dtype={dt}, extra=1)"),
    })
}

/// A model: decorated classes and a root module assigning instances of them
/// (in a random order, with undecorated members between).
pub fn python_model() -> impl Strategy<Value = String> {
    (
        vec(prop::option::weighted(0.85, decorator()), 0..6),
        vec((0usize..8, any::<bool>()), 0..8),
        prop::sample::select(vec![
            "from determined.hpp import stage_decorator\n",
            "import determined.hpp as hpp\nfrom determined.hpp import stage_decorator\n",
            "",
        ]),
    )
        .prop_map(|(decorators, members, import)| {
            let mut text = format!("import torch\nimport torch.nn as nn\n{import}\n");
            for (i, d) in decorators.iter().enumerate() {
                if let Some(d) = d {
                    text.push_str(d);
                    text.push('\n');
                }
                text.push_str(&format!(
                    "class S{i}(nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
                ));
            }
            text.push_str("class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n");
            for (j, (k, plain)) in members.iter().enumerate() {
                if *plain || decorators.is_empty() {
                    text.push_str(&format!("        self.m{j} = nn.Linear(1, 1)\n"));
                } else {
                    text.push_str(&format!("        self.m{j} = S{}()\n", k % decorators.len()));
                }
            }
            text
        })
}

// ---------------------------------------------------------------------------
// stages.yaml and inventories

/// A `stages.yaml` whose ids, inputs and params are hostile.
pub fn stages_yaml() -> impl Strategy<Value = String> {
    let id = prop_oneof![3 => (0u32..6).prop_map(|n| n.to_string()), 1 => huge_number()];
    let stage = (
        id.clone(),
        vec(id, 0..3),
        prop::sample::select(vec!["a100", "h100-80g", "nope", "l4"]),
        prop::sample::select(vec!["bf16", "fp16", "fp8_e4m3fn", "torch.float32", "nope"]),
        prop::sample::select(vec![
            "",
            "86M",
            "1.2B",
            "99999999T",
            "-5M",
            "1e400",
            "18446744073709551617",
            "x",
        ]),
    );
    vec(stage, 0..6).prop_map(|stages| {
        let mut text = String::from("stages:\n");
        for (i, (id, inputs, device, dtype, params)) in stages.iter().enumerate() {
            text.push_str(&format!(
                "  - id: {id}\n    name: s{i}\n    device: {device}\n    dtype: {dtype}\n    inputs: [{}]\n",
                inputs.join(", ")
            ));
            if !params.is_empty() {
                text.push_str(&format!("    params: {params}\n"));
            }
        }
        text
    })
}

/// A GPU count as a NodeList writes it (quoted), or not quite.
pub fn gpu_count() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0u32..17).prop_map(|n| format!("\"{n}\"")),
        2 => prop::sample::select(vec![
            "\"-4\"",
            "-4",
            "\"1180591620717411303424\"",
            "1180591620717411303424",
            "\"4294967296\"",
            "\"8.5\"",
            "8.5",
            "\"\"",
            "null",
            "true",
            "\"8Gi\"",
            "[]",
            "{}",
        ])
        .prop_map(str::to_string),
    ]
}

/// A Kubernetes NodeList (JSON): `items` as a list or, sometimes, an object;
/// counts from [`gpu_count`]; product labels known and unknown.
pub fn nodelist() -> impl Strategy<Value = String> {
    let node = (
        prop::sample::select(vec![
            "NVIDIA-A100-SXM4-40GB",
            "NVIDIA-H100-80GB-HBM3",
            "NVIDIA-A100-SXM4-80GB-MIG-3g.40gb",
            "Tesla-Nope",
            "a100",
        ]),
        gpu_count(),
        prop::option::of(gpu_count()),
        any::<bool>(),
        prop::sample::select(vec!["n", "\\ud83d\\ude00", "\\ud83d", "中文"]),
    );
    (vec(node, 0..5), any::<bool>(), prop::sample::select(vec!["\"NodeList\"", "\"List\"", "null"])).prop_map(
        |(nodes, items_as_object, kind)| {
            let rendered: Vec<String> = nodes
                .iter()
                .enumerate()
                .map(|(i, (product, alloc, label, cordoned, name))| {
                    let label = label
                        .as_ref()
                        .map(|c| format!(", \"nvidia.com/gpu.count\": {c}"))
                        .unwrap_or_default();
                    format!(
                        "{{\"kind\": \"Node\", \"metadata\": {{\"name\": \"{name}-{i}\", \"labels\": {{\"nvidia.com/gpu.product\": \"{product}\"{label}}}}}, \"spec\": {{\"unschedulable\": {cordoned}}}, \"status\": {{\"allocatable\": {{\"nvidia.com/gpu\": {alloc}}}}}}}"
                    )
                })
                .collect();
            let items = if items_as_object {
                let fields: Vec<String> = rendered.iter().enumerate().map(|(i, n)| format!("\"n{i}\": {n}")).collect();
                format!("{{{}}}", fields.join(", "))
            } else {
                format!("[{}]", rendered.join(", "))
            };
            format!("{{\"apiVersion\": \"v1\", \"kind\": {kind}, \"items\": {items}}}\n")
        },
    )
}
