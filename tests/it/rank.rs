//! `stagec env` and `stagec verify` as a launcher runs them on each rank,
//! against recorded probes: the GPU matches, or the type, the compute
//! capability, the memory or the driver does not.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn stagec(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagec"));
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RANK")
        .env_remove("LOCAL_RANK")
        .env_remove("STAGEC_PLAN")
        .env_remove("WORLD_SIZE")
        .env_remove("LOCAL_WORLD_SIZE")
        .env_remove("DET_TRIAL_SEED")
        .env("S3_ACCESS_KEY", "a")
        .env("S3_SECRET_KEY", "b");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run stagec")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The corrected seed example planned on the recorded mixed A100/H100 host,
/// into a fresh folder; the plan's path.
fn plan(name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stagec-rank-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let config = std::fs::read_to_string("examples/hpp-seed-fixed/const.yaml").expect("example");
    std::fs::write(dir.join("const.yaml"), edit(&config)).expect("write");
    for f in ["model.py", "train.py"] {
        std::fs::copy(Path::new("examples/hpp-seed-fixed").join(f), dir.join(f)).expect("copy");
    }
    let out = dir.join("plan");
    let run = stagec(
        &[
            "plan",
            &dir.join("const.yaml").to_string_lossy(),
            "--probe",
            "--probe-recording",
            "tests/probes/mixed-a100-h100.json",
            "--out",
            &out.to_string_lossy(),
        ],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}{}", text(&run.stdout), text(&run.stderr));
    out.join("stage_plan.json")
}

const MIXED: &str = "tests/probes/mixed-a100-h100.json";

fn verify(plan: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let p = plan.to_string_lossy().into_owned();
    let mut all = vec!["verify", "--plan", p.as_str()];
    all.extend_from_slice(args);
    stagec(&all, env)
}

#[test]
fn a_rank_on_the_right_gpu_passes_in_one_line() {
    let plan = plan("match", |c| c.to_string());
    // Rank 1 runs stage 1 (H100, fp8); devices 4-7 of the recording are H100s.
    let run = verify(
        &plan,
        &["--probe-recording", MIXED],
        &[("RANK", "1"), ("LOCAL_RANK", "4")],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let out = text(&run.stdout);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.contains("rank 1 (stage 1 `TransformerBlock`, replica 0)") && out.ends_with(": ok\n"),
        "{out}"
    );
}

#[test]
fn a_rank_on_the_wrong_gpu_type_says_expected_and_found() {
    let plan = plan("type", |c| c.to_string());
    let run = verify(
        &plan,
        &["--rank", "1", "--device", "0", "--probe-recording", MIXED],
        &[],
    );
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(err.contains("rank 1 (stage 1 `TransformerBlock`, replica 0)"), "{err}");
    assert!(
        err.contains("expected a GPU of type `h100-80g`, found NVIDIA A100-SXM4-40GB"),
        "{err}"
    );
    assert!(err.contains("not supported on compute capability 8.0"), "{err}");
}

#[test]
fn a_stage_allowed_on_two_types_is_checked_for_its_dtype() {
    // Stage 1 may run on A100 or H100 by its type list, but its fp8 dtype
    // needs compute capability 8.9: an A100 passes the type, not the dtype.
    let planned = plan("cc", |c| c.to_string());
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&planned).expect("plan")).expect("JSON");
    doc["stages"][1]["gpu_types"] = serde_json::json!(["h100-80g", "a100-40g"]);
    doc["stages"][1]["device"] = serde_json::Value::Null;
    std::fs::write(&planned, serde_json::to_vec(&doc).expect("JSON")).expect("write");
    let run = verify(
        &planned,
        &["--rank", "1", "--device", "0", "--probe-recording", MIXED],
        &[],
    );
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(!err.contains("expected a GPU of type"), "{err}");
    assert!(
        err.contains("`torch.float8_e4m3fn` is not supported on compute capability 8.0"),
        "{err}"
    );
}

#[test]
fn a_driver_older_than_the_image_fails() {
    let plan = plan("driver", |c| c.to_string());
    let old = std::fs::read_to_string(MIXED)
        .expect("recording")
        .replace("\"cuda_driver_version\": 12040", "\"cuda_driver_version\": 11080")
        .replace("\"cuda_version\": \"12.4\"", "\"cuda_version\": \"11.8\"");
    let recording = plan.with_file_name("old-driver.json");
    std::fs::write(&recording, old).expect("write");
    let run = verify(
        &plan,
        &["--rank", "0", "--probe-recording", &recording.to_string_lossy()],
        &[],
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stdout));
    let err = text(&run.stderr);
    assert!(
        err.contains("the driver supports CUDA 11.8, older than CUDA 12.4"),
        "{err}"
    );
}

#[test]
fn without_a_gpu_verify_fails_with_the_probes_reason() {
    let plan = plan("nogpu", |c| c.to_string());
    let empty = plan.with_file_name("empty.json");
    std::fs::write(
        &empty,
        r#"{"devices": [], "driver": null, "peer_access": [], "reason": "no NVIDIA driver: libcuda could not be loaded"}"#,
    )
    .expect("write");
    let run = verify(
        &plan,
        &["--rank", "0", "--probe-recording", &empty.to_string_lossy()],
        &[],
    );
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run.stderr).contains("no GPU to verify: no NVIDIA driver"),
        "{}",
        text(&run.stderr)
    );
    // Usage errors: no rank, a rank outside the world, an unreadable plan.
    assert_eq!(verify(&plan, &["--probe-recording", MIXED], &[]).status.code(), Some(2));
    assert_eq!(
        verify(&plan, &["--rank", "6", "--probe-recording", MIXED], &[])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        verify(Path::new("no/such/plan.json"), &["--rank", "0"], &[])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn env_prints_the_ranks_exports() {
    let plan = plan("env", |c| {
        c.replace(
            "checkpoint_storage:",
            "reproducibility:\n  experiment_seed: 40\ncheckpoint_storage:",
        )
    });
    let p = plan.to_string_lossy().into_owned();
    let run = stagec(&["env", "--plan", &p], &[("RANK", "4")]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let out = text(&run.stdout);
    for line in [
        "export STAGEC_RANK='4'",
        "export STAGEC_STAGE_ID='1'",
        "export STAGEC_REPLICA='1'",
        "export STAGEC_DATA_SEED='41'",
        "export STAGEC_RANK_SEED='44'",
        "export STAGEC_SEED='44'",
        "export STAGEC_DTYPE='torch.float8_e4m3fn'",
        "export CUBLAS_WORKSPACE_CONFIG=':4096:8'",
    ] {
        assert!(out.lines().any(|l| l == line), "no {line:?} in\n{out}");
    }
    // Sorted, one export per line, and the same bytes every time.
    let lines: Vec<&str> = out.lines().collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
    assert!(lines.iter().all(|l| l.starts_with("export ")));
    assert_eq!(text(&stagec(&["env", "--plan", &p], &[("RANK", "4")]).stdout), out);
    assert!(run.stderr.is_empty(), "{}", text(&run.stderr));
    // `--seed` overrides the plan's; the plan's path can come from STAGEC_PLAN.
    let run = stagec(&["env", "--rank", "0", "--seed", "7"], &[("STAGEC_PLAN", &p)]);
    assert!(
        text(&run.stdout).contains("export STAGEC_SEED='7'"),
        "{}",
        text(&run.stdout)
    );
    // The output is valid shell: sh reads it back.
    let script = format!("{out}\nprintf '%s' \"$STAGEC_DATA_SEED-$STAGEC_RANK_SEED-$STAGEC_DTYPE\"");
    let sh = Command::new("sh").arg("-c").arg(script).output().expect("sh");
    assert_eq!(text(&sh.stdout), "41-44-torch.float8_e4m3fn");
}

/// The seed lines `env` prints for `rank`.
fn seed_lines(p: &str, rank: &str, env: &[(&str, &str)]) -> (Vec<String>, String) {
    let mut all = vec![("RANK", rank)];
    all.extend_from_slice(env);
    let run = stagec(&["env", "--plan", p], &all);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let lines = text(&run.stdout)
        .lines()
        .filter(|l| l.starts_with("export STAGEC_") && l.contains("SEED="))
        .map(str::to_string)
        .collect();
    (lines, text(&run.stderr))
}

#[test]
fn every_stage_of_a_replica_gets_its_data_seed_and_every_rank_its_own_rank_seed() {
    let plan = plan("seeds", |c| {
        c.replace(
            "checkpoint_storage:",
            "reproducibility:\n  experiment_seed: 40\ncheckpoint_storage:",
        )
    });
    let p = plan.to_string_lossy().into_owned();
    // 3 stages × 2 replicas: ranks 0-2 are replica 0, ranks 3-5 replica 1.
    for rank in 0..6u64 {
        let (lines, _) = seed_lines(&p, &rank.to_string(), &[]);
        assert_eq!(
            lines,
            [
                format!("export STAGEC_DATA_SEED='{}'", 40 + rank / 3),
                format!("export STAGEC_RANK_SEED='{}'", 40 + rank),
                format!("export STAGEC_SEED='{}'", 40 + rank),
            ],
            "rank {rank}"
        );
    }
    // Under Determined, the trial's own seed is the base: each trial of a
    // search gets other seeds.
    let (lines, _) = seed_lines(&p, "4", &[("DET_TRIAL_SEED", "1000")]);
    assert_eq!(
        lines,
        [
            "export STAGEC_DATA_SEED='1001'",
            "export STAGEC_RANK_SEED='1004'",
            "export STAGEC_SEED='1004'"
        ]
    );
    // `--seed` is the caller's own, over both.
    let run = stagec(
        &["env", "--plan", &p, "--seed", "7"],
        &[("RANK", "4"), ("DET_TRIAL_SEED", "1000")],
    );
    assert!(
        text(&run.stdout).contains("export STAGEC_DATA_SEED='8'\n"),
        "{}",
        text(&run.stdout)
    );
    // A DET_TRIAL_SEED that is not a seed is unusable input.
    let run = stagec(&["env", "--plan", &p], &[("RANK", "4"), ("DET_TRIAL_SEED", "x")]);
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stdout.is_empty());
    assert!(
        text(&run.stderr).contains("DET_TRIAL_SEED is `x`, not a seed"),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn without_a_seed_env_says_what_to_set() {
    // The corrected example sets no reproducibility.experiment_seed.
    let plan = plan("no-seed", |c| c.to_string());
    let p = plan.to_string_lossy().into_owned();
    let (lines, err) = seed_lines(&p, "4", &[]);
    assert!(lines.is_empty(), "{lines:?}");
    assert_eq!(
        err,
        "stagec env: no seed: STAGEC_DATA_SEED and STAGEC_RANK_SEED are not set; set \
         reproducibility.experiment_seed in the config (Determined then gives each trial its own \
         DET_TRIAL_SEED), or pass --seed\n"
    );
    // Determined's trial seed alone is enough.
    let (lines, err) = seed_lines(&p, "4", &[("DET_TRIAL_SEED", "5")]);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn the_kernel_drivers_release_decides_with_forward_compatibility() {
    let plan = plan("kernel", |c| c.to_string());
    let with_kernel = |version: &str| {
        let mut doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(MIXED).expect("recording")).expect("JSON");
        doc["kernel_driver"] = serde_json::json!({"source": "/sys/module/nvidia/version", "version": version});
        let path = plan.with_file_name(format!("kernel-{version}.json"));
        std::fs::write(&path, serde_json::to_vec(&doc).expect("JSON")).expect("write");
        path
    };
    // The image (determinedai/pytorch-ngc, CUDA 12.4) needs 550.54.14; an R470
    // driver is too old even with forward compatibility.
    let old = with_kernel("470.57.02");
    let run = verify(
        &plan,
        &[
            "--rank",
            "1",
            "--device",
            "4",
            "--probe-recording",
            &old.to_string_lossy(),
        ],
        &[],
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stdout));
    assert!(
        text(&run.stderr).contains("the driver 470.57.02 is older than 550.54.14, which CUDA 12.4"),
        "{}",
        text(&run.stderr)
    );
    // R535 on a data-center GPU: the NGC image's forward compatibility runs it.
    let r535 = with_kernel("535.104.05");
    let run = verify(
        &plan,
        &[
            "--rank",
            "1",
            "--device",
            "4",
            "--probe-recording",
            &r535.to_string_lossy(),
        ],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
}

#[test]
fn without_a_plan_the_message_names_stagec_plan() {
    for command in ["env", "verify"] {
        let run = stagec(&[command, "--rank", "0"], &[]);
        assert_eq!(run.status.code(), Some(2), "{command}");
        let err = text(&run.stderr);
        assert!(
            err.starts_with("stagec: no plan: pass --plan FILE or set STAGEC_PLAN"),
            "{command}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        // An empty STAGEC_PLAN is no plan either.
        let run = stagec(&[command, "--rank", "0"], &[("STAGEC_PLAN", "")]);
        assert_eq!(run.status.code(), Some(2), "{command}");
        assert!(text(&run.stderr).contains("set STAGEC_PLAN"), "{}", text(&run.stderr));
    }
}

#[test]
fn env_exports_the_absolute_path_of_the_plan_it_read() {
    let plan = plan("abs", |c| c.to_string());
    let dir = plan.parent().expect("folder").to_path_buf();
    let abs = plan.to_string_lossy().into_owned();
    let expected = format!("export STAGEC_PLAN='{abs}'");
    // The plan's own STAGEC_PLAN is relative to the context; the caller's
    // (here the absolute path) is kept.
    let run = stagec(&["env", "--rank", "0"], &[("STAGEC_PLAN", &abs)]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let out = text(&run.stdout);
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("export STAGEC_PLAN=")).collect();
    assert_eq!(lines, [expected.as_str()], "{out}");
    // A relative --plan (or STAGEC_PLAN) becomes absolute, so a script run
    // from another folder finds it.
    for (args, env) in [
        (vec!["env", "--rank", "0", "--plan", "stage_plan.json"], vec![]),
        (vec!["env", "--rank", "0"], vec![("STAGEC_PLAN", "stage_plan.json")]),
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagec"));
        cmd.args(&args)
            .current_dir(&dir)
            .env_remove("RANK")
            .env_remove("STAGEC_PLAN");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let run = cmd.output().expect("run stagec");
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
        let out = text(&run.stdout);
        assert!(out.lines().any(|l| l == expected), "{out}");
        let script = format!("{out}\ncd / && test -f \"$STAGEC_PLAN\" && printf ok");
        let sh = Command::new("sh").arg("-c").arg(script).output().expect("sh");
        assert_eq!(text(&sh.stdout), "ok", "{out}");
    }
}

#[test]
fn a_short_world_stops_every_rank() {
    // torchrun --nproc-per-node 4 against the 6-rank plan.
    let plan = plan("world", |c| c.to_string());
    let p = plan.to_string_lossy().into_owned();
    let short = [("RANK", "1"), ("LOCAL_RANK", "4"), ("WORLD_SIZE", "4")];
    let run = verify(&plan, &["--probe-recording", MIXED], &short);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stdout));
    let err = text(&run.stderr);
    assert_eq!(
        err,
        "stagec verify: rank 1 (stage 1 `TransformerBlock`, replica 0): the launcher started 4 ranks \
         (WORLD_SIZE=4), the plan has 6 (3 stages × 2 replicas): start 6 processes\n"
    );
    let run = stagec(&["env", "--plan", &p], &short);
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stdout.is_empty(), "{}", text(&run.stdout));
    assert_eq!(
        text(&run.stderr),
        "stagec env: rank 1 (stage 1 `TransformerBlock`, replica 0): the launcher started 4 ranks \
         (WORLD_SIZE=4), the plan has 6 (3 stages × 2 replicas): start 6 processes\n"
    );
    // A larger world stops the ranks the plan has too, not only those it lacks.
    let run = verify(
        &plan,
        &["--probe-recording", MIXED],
        &[("RANK", "0"), ("LOCAL_RANK", "0"), ("WORLD_SIZE", "8")],
    );
    assert_eq!(run.status.code(), Some(1));
    assert!(text(&run.stderr).contains("started 8 ranks"), "{}", text(&run.stderr));
    // A WORLD_SIZE that is not a number is unusable input.
    let bad = [("RANK", "1"), ("LOCAL_RANK", "4"), ("WORLD_SIZE", "six")];
    assert_eq!(
        verify(&plan, &["--probe-recording", MIXED], &bad).status.code(),
        Some(2)
    );
    assert_eq!(stagec(&["env", "--plan", &p], &bad).status.code(), Some(2));
    // The plan's world passes; so does a manual run without WORLD_SIZE.
    let full = [
        ("RANK", "1"),
        ("LOCAL_RANK", "4"),
        ("WORLD_SIZE", "6"),
        ("LOCAL_WORLD_SIZE", "8"),
    ];
    let run = verify(&plan, &["--probe-recording", MIXED], &full);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(stagec(&["env", "--plan", &p], &full).status.code(), Some(0));
}

#[test]
fn more_local_ranks_than_visible_devices_stop_the_rank() {
    let plan = plan("local-world", |c| c.to_string());
    // The recording has 8 devices; 12 processes on this node would share them.
    let env = [("RANK", "1"), ("LOCAL_RANK", "4"), ("LOCAL_WORLD_SIZE", "12")];
    let run = verify(&plan, &["--probe-recording", MIXED], &env);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stdout));
    assert_eq!(
        text(&run.stderr),
        "stagec verify: rank 1 (stage 1 `TransformerBlock`, replica 0): the launcher started 12 ranks \
         on this node (LOCAL_WORLD_SIZE=12), but 8 devices are visible: ranks would share a GPU\n"
    );
    let bad = [("RANK", "1"), ("LOCAL_RANK", "4"), ("LOCAL_WORLD_SIZE", "-1")];
    assert_eq!(
        verify(&plan, &["--probe-recording", MIXED], &bad).status.code(),
        Some(2)
    );
}

/// `stagec exec` with `args` before `--` and `command` after it.
fn exec(plan: &Path, args: &[&str], command: &[&str], env: &[(&str, &str)]) -> Output {
    let p = plan.to_string_lossy().into_owned();
    let mut all = vec!["exec", "--plan", p.as_str()];
    all.extend_from_slice(args);
    all.push("--");
    all.extend_from_slice(command);
    stagec(&all, env)
}

/// A shell command that creates `marker` and exits 7.
fn touching(marker: &Path) -> String {
    let _ = std::fs::remove_file(marker);
    format!("touch '{}'; exit 7", marker.display())
}

#[test]
fn exec_runs_the_command_as_the_rank_and_returns_its_status() {
    let plan = plan("exec", |c| {
        c.replace(
            "checkpoint_storage:",
            "reproducibility:\n  experiment_seed: 40\ncheckpoint_storage:",
        )
        .replace(
            "  image: determinedai/pytorch-ngc:0.38.1",
            "  image: determinedai/pytorch-ngc:0.38.1\n  environment_variables:\n    - WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567\n    - NCCL_DEBUG=INFO",
        )
    });
    let abs = plan.to_string_lossy().into_owned();
    // Rank 4: stage 1 (H100, fp8) of replica 1, on device 4 (an H100).
    let env = [
        ("RANK", "4"),
        ("LOCAL_RANK", "4"),
        ("WORLD_SIZE", "6"),
        ("LOCAL_WORLD_SIZE", "8"),
        ("WANDB_API_KEY", "the-ranks-own"),
    ];
    let script = "printf '%s|' \"$STAGEC_DATA_SEED\" \"$STAGEC_RANK_SEED\" \"$STAGEC_STAGE_ID\" \
                  \"$STAGEC_REPLICA\" \"$STAGEC_DTYPE\" \"$STAGEC_PLAN\" \"$NCCL_DEBUG\" \"$WANDB_API_KEY\" \"$1\"; exit 7";
    let run = exec(
        &plan,
        &["--probe-recording", MIXED],
        &["sh", "-c", script, "sh", "it's $HOME; `x`"],
        &env,
    );
    assert_eq!(run.status.code(), Some(7), "{}", text(&run.stderr));
    // Every argument reaches the command as it was given: no shell between.
    assert_eq!(
        text(&run.stdout),
        format!("41|44|1|1|torch.float8_e4m3fn|{abs}|INFO|the-ranks-own|it's $HOME; `x`|")
    );
    assert_eq!(
        text(&run.stderr),
        "stagec exec: rank 4 (stage 1 `TransformerBlock`, replica 1) on GPU 4 NVIDIA H100 80GB HBM3 (sm_90), \
         torch.float8_e4m3fn: ok\n"
    );
    // A command that is not there: 127, as a shell says.
    let run = exec(&plan, &["--probe-recording", MIXED], &["/nonexistent/stagec-cmd"], &env);
    assert_eq!(run.status.code(), Some(127));
    assert!(
        text(&run.stderr).contains("cannot run `/nonexistent/stagec-cmd`"),
        "{}",
        text(&run.stderr)
    );
    // No command is a usage error.
    let run = stagec(&["exec", "--plan", &abs, "--probe-recording", MIXED], &env);
    assert_eq!(run.status.code(), Some(2));
}

#[test]
fn exec_stops_the_rank_before_its_command_starts() {
    let plan = plan("exec-stop", |c| c.to_string());
    let marker = plan.with_file_name("started");
    let script = touching(&marker);
    let command = ["sh", "-c", script.as_str()];
    // The wrong GPU: rank 1 (stage 1, H100) on device 0 (an A100).
    let run = exec(
        &plan,
        &["--probe-recording", MIXED],
        &command,
        &[("RANK", "1"), ("LOCAL_RANK", "0"), ("WORLD_SIZE", "6")],
    );
    assert_eq!(run.status.code(), Some(1));
    assert!(!marker.exists(), "the command ran");
    let err = text(&run.stderr);
    assert!(
        err.contains("stagec exec: rank 1 (stage 1 `TransformerBlock`, replica 0) on GPU 0")
            && err.contains("expected a GPU of type `h100-80g`, found NVIDIA A100-SXM4-40GB"),
        "{err}"
    );
    // A short world.
    let run = exec(
        &plan,
        &["--probe-recording", MIXED],
        &command,
        &[("RANK", "1"), ("LOCAL_RANK", "4"), ("WORLD_SIZE", "4")],
    );
    assert_eq!(run.status.code(), Some(1));
    assert!(!marker.exists(), "the command ran");
    assert!(
        text(&run.stderr).contains("(WORLD_SIZE=4), the plan has 6"),
        "{}",
        text(&run.stderr)
    );
    // The environment cannot be computed.
    let run = exec(
        &plan,
        &["--probe-recording", MIXED],
        &command,
        &[("RANK", "1"), ("LOCAL_RANK", "4"), ("DET_TRIAL_SEED", "x")],
    );
    assert_eq!(run.status.code(), Some(2));
    assert!(!marker.exists(), "the command ran");
    assert!(
        text(&run.stderr).contains("DET_TRIAL_SEED is `x`"),
        "{}",
        text(&run.stderr)
    );
    // No plan, no rank.
    for env in [
        vec![("RANK", "1")],
        vec![("STAGEC_PLAN", "/nonexistent/plan.json"), ("RANK", "1")],
    ] {
        let mut all = vec!["exec", "--probe-recording", MIXED, "--"];
        all.extend_from_slice(&command);
        let run = stagec(&all, &env);
        assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
        assert!(!marker.exists(), "the command ran");
    }
    // Without a seed the command runs, and stderr says what to set.
    let run = exec(
        &plan,
        &["--probe-recording", MIXED],
        &command,
        &[("RANK", "1"), ("LOCAL_RANK", "4")],
    );
    assert_eq!(run.status.code(), Some(7), "{}", text(&run.stderr));
    assert!(marker.exists());
    assert!(
        text(&run.stderr).contains("stagec exec: no seed:"),
        "{}",
        text(&run.stderr)
    );
}
