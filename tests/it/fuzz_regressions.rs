//! Every input the fuzzer kept as a finding (`fuzz/regressions/<target>/`,
//! see `scripts/fuzz.sh`) replayed through the built `stagec` the way its
//! fuzz target reaches the library, as a child process under the hostile
//! suite's limits (1 GiB of address space, a timeout): it must end by itself
//! with status 0 or 1 (`fix` findings through `check --fix
//! --unsafe-fixes`). (`lsp_transport` findings are replayed by
//! `lsp/tests/hostile.rs`.)
#![cfg(unix)]

use crate::harness;

use std::path::{Path, PathBuf};

use harness::{Failures, Outcome, Run, Scratch};

/// A valid three-stage experiment and its model, for targets that read
/// only one of the files a check needs.
const CONFIG: &str = "\
name: replay
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
const MODEL: &str = "\
from determined.hpp import stage_decorator
@stage_decorator(stage_id=0, device=\"a100\", dtype=torch.bfloat16)
class A(nn.Module): pass
@stage_decorator(stage_id=1, device=\"h100\", dtype=torch.bfloat16)
class B(nn.Module): pass
@stage_decorator(stage_id=2, device=\"a100\", dtype=torch.bfloat16)
class C(nn.Module): pass
";

fn stagec() -> Run {
    Run::new(env!("CARGO_BIN_EXE_stagec"))
}

fn findings(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Checks `files` (name, bytes) in a scratch folder: the first is the
/// config, the others are named with `--model`, an `inventory.*` with
/// `--inventory`.
fn check(files: &[(&str, &[u8])]) -> Outcome {
    let s = Scratch::new("fuzz-replay");
    let mut run = stagec().args(["check", "--format", "json"]);
    for (i, (name, bytes)) in files.iter().enumerate() {
        let path = s.write(name, bytes);
        run = match i {
            0 => run.arg(path),
            _ if name.starts_with("inventory.") => run.arg("--inventory").arg(path),
            _ => run.arg("--model").arg(path),
        };
    }
    run.run()
}

/// `check --fix --unsafe-fixes` on the config, in a scratch folder.
fn fix(config: &[u8]) -> Outcome {
    let s = Scratch::new("fuzz-replay-fix");
    s.write("const.yaml", config);
    stagec()
        .args(["check", "--fix", "--unsafe-fixes", "--format", "json", "const.yaml"])
        .current_dir(&s.path)
        .run()
}

fn split_project(data: &[u8]) -> Vec<&[u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while parts.len() < 3 {
        match rest.windows(6).position(|w| w == b"\n----\n") {
            Some(at) => {
                parts.push(&rest[..at]);
                rest = &rest[at + 6..];
            }
            None => break,
        }
    }
    parts.push(rest);
    parts
}

fn replay(target: &str, data: &[u8]) -> Outcome {
    match target {
        "yaml_parse" | "check_experiment" => check(&[("const.yaml", data)]),
        "python_model" => check(&[("const.yaml", CONFIG.as_bytes()), ("model.py", data)]),
        "stages_yaml" => check(&[("const.yaml", CONFIG.as_bytes()), ("stages.yaml", data)]),
        "inventory" => check(&[
            ("const.yaml", CONFIG.as_bytes()),
            ("model.py", MODEL.as_bytes()),
            ("inventory.json", data),
        ]),
        "project" => {
            let parts = split_project(data);
            let names = ["const.yaml", "model.py", "stages.yaml", "inventory.json"];
            let files: Vec<(&str, &[u8])> = names.iter().copied().zip(parts).collect();
            check(&files)
        }
        "fix" => fix(data),
        "settings" => replay_settings(data),
        other => panic!("no replay for target `{other}`"),
    }
}

/// The `settings` target's input: a first byte choosing the form (a
/// `stagec.toml`, a `pyproject.toml`, a `--config` override), then the
/// text, checked beside a valid config.
fn replay_settings(data: &[u8]) -> Outcome {
    let Some((&form, rest)) = data.split_first() else {
        return check(&[("const.yaml", CONFIG.as_bytes())]);
    };
    let s = Scratch::new("fuzz-replay-settings");
    s.write("exp/const.yaml", CONFIG);
    s.write("exp/model.py", MODEL);
    let run = stagec()
        .current_dir(s.join("exp"))
        .args(["check", "--format", "json", "const.yaml"]);
    match form % 3 {
        0 => {
            s.write("exp/stagec.toml", rest);
            run.run()
        }
        1 => {
            s.write("exp/pyproject.toml", rest);
            run.run()
        }
        _ => run
            .arg("--config")
            .arg(String::from_utf8_lossy(rest).replace('\0', "\u{FFFD}"))
            .run(),
    }
}

#[test]
fn fuzz_findings_no_longer_crash_hang_or_exhaust_memory() {
    let mut f = Failures::new();
    let mut n = 0;
    for target in [
        "yaml_parse",
        "check_experiment",
        "python_model",
        "stages_yaml",
        "inventory",
        "project",
        "fix",
        "settings",
    ] {
        for file in findings(target) {
            n += 1;
            let data = std::fs::read(&file).expect("read finding");
            let out = replay(target, &data);
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A settings file can be wrong: a usage error (2), located.
            let allowed: &[i32] = if target == "settings" { &[0, 1, 2] } else { &[0, 1] };
            f.check(format!("{target}/{name}"), out.exit(allowed));
        }
    }
    eprintln!("replayed {n} fuzz findings");
    f.finish();
}
