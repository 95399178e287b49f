//! `stagec plan` and `diff` as users run them (`stagec probe`: `tests/it/probe.rs`).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SECRET: &str = "s3-secret-value-never-in-outputs";

fn stagec(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagec"));
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    cmd.env_remove("S3_ACCESS_KEY").env_remove("S3_SECRET_KEY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run stagec")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stagec-plan-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const SECRETS: &[(&str, &str)] = &[("S3_ACCESS_KEY", "AKIA-test-access"), ("S3_SECRET_KEY", SECRET)];

fn plan_to(out: &Path, extra: &[&str]) -> Output {
    let out_s = out.to_string_lossy().into_owned();
    let mut args = vec!["plan", "examples/hpp-seed-fixed/const.yaml", "--out", out_s.as_str()];
    args.extend_from_slice(extra);
    stagec(&args, SECRETS)
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON")
}

#[test]
fn plan_is_deterministic_valid_and_consistent() {
    let (a, b) = (temp("a"), temp("b"));
    let recording = ["--probe", "--probe-recording", "tests/probes/mixed-a100-h100.json"];
    let first = plan_to(&a, &recording);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(plan_to(&b, &recording).status.code(), Some(0));
    for name in ["stage_plan.json", "stage_plan.env", "determined.yaml"] {
        let (x, y) = (
            std::fs::read(a.join(name)).expect("a"),
            std::fs::read(b.join(name)).expect("b"),
        );
        // Only STAGEC_PLAN (the --out path) differs between the two runs.
        let norm =
            |bytes: Vec<u8>, dir: &Path| String::from_utf8_lossy(&bytes).replace(&dir.display().to_string(), "OUT");
        assert_eq!(norm(x, &a), norm(y, &b), "{name} differs between runs");
    }

    // Valid against the committed schema.
    let plan = read_json(&a.join("stage_plan.json"));
    let schema = read_json(&Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/stage_plan.schema.json"));
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&plan).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");

    // Ranks and groups agree with slots_per_trial = 6 = 3 stages × 2 replicas.
    let (p, dp) = (
        plan["pipeline"]["degree"].as_u64(),
        plan["pipeline"]["data_parallel"].as_u64(),
    );
    assert_eq!(
        (p, dp, plan["pipeline"]["world_size"].as_u64()),
        (Some(3), Some(2), Some(6))
    );
    let mut all_ranks: Vec<u64> = Vec::new();
    for (i, stage) in plan["stages"].as_array().expect("stages").iter().enumerate() {
        let ranks: Vec<u64> = stage["ranks"]
            .as_array()
            .expect("ranks")
            .iter()
            .filter_map(|r| r.as_u64())
            .collect();
        assert_eq!(ranks.len() as u64, stage["gpu_count"].as_u64().unwrap_or(0));
        assert!(ranks.iter().all(|r| r % 3 == i as u64));
        assert_eq!(plan["process_groups"]["data_parallel"][i], serde_json::json!(ranks));
        all_ranks.extend(ranks);
        assert!(
            stage["node_selector"]["value"]
                .as_str()
                .is_some_and(|v| v.starts_with("NVIDIA-")),
            "{stage}"
        );
    }
    all_ranks.sort_unstable();
    assert_eq!(all_ranks, (0..6).collect::<Vec<u64>>());
    assert_eq!(
        plan["process_groups"]["pipeline"],
        serde_json::json!([[0, 1, 2], [3, 4, 5]])
    );
    assert_eq!(plan["hardware"]["source"], "probe");
    assert_eq!(plan["stages"][1]["device"]["catalog_id"], "h100-sxm5-80gb");

    // The environment file carries stagec's defaults and the plan pointer.
    let env = std::fs::read_to_string(a.join("stage_plan.env")).expect("env");
    for line in [
        "CUBLAS_WORKSPACE_CONFIG=:4096:8",
        "PYTHONHASHSEED=0",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
        "STAGEC_PLAN=",
    ] {
        assert!(env.contains(line), "{line} missing from\n{env}");
    }
    let _ = (std::fs::remove_dir_all(&a), std::fs::remove_dir_all(&b));
}

#[test]
fn secrets_never_reach_outputs() {
    let out = temp("secrets");
    let run = plan_to(&out, &[]);
    assert_eq!(run.status.code(), Some(0));
    assert!(
        !String::from_utf8_lossy(&run.stdout).contains(SECRET)
            && !String::from_utf8_lossy(&run.stderr).contains(SECRET)
    );
    for entry in std::fs::read_dir(&out).expect("out") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("text");
        assert!(!text.contains(SECRET), "{} leaks the secret", path.display());
    }
    let plan = read_json(&out.join("stage_plan.json"));
    assert!(plan["environment"]["references"].as_array().is_some_and(|r| r
        .iter()
        .any(|v| v["reference"] == "${S3_SECRET_KEY}" && v["status"] == "set")));
    // With --resolve-secrets only determined.yaml holds the value.
    let resolved = temp("resolved");
    assert_eq!(plan_to(&resolved, &["--resolve-secrets"]).status.code(), Some(0));
    assert!(std::fs::read_to_string(resolved.join("determined.yaml"))
        .expect("yaml")
        .contains(SECRET));
    assert!(!std::fs::read_to_string(resolved.join("stage_plan.json"))
        .expect("plan")
        .contains(SECRET));
    let _ = (std::fs::remove_dir_all(&out), std::fs::remove_dir_all(&resolved));
}

#[test]
fn determined_yaml_is_a_clean_determined_config() {
    let out = temp("det");
    assert_eq!(plan_to(&out, &[]).status.code(), Some(0));
    let text = std::fs::read_to_string(out.join("determined.yaml")).expect("yaml");
    assert!(
        !text.contains("custom:") && !text.contains("metrics:"),
        "extension keys removed:\n{text}"
    );
    assert!(text.contains("STAGEC_PLAN="));
    // stagec's own expconf check, with variables set, finds nothing.
    let checked = common::check("determined.yaml", text.as_bytes());
    let errors = common::error_codes(&checked);
    assert!(errors.is_empty(), "{errors:?}\n{}", common::render(&checked));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn plan_with_errors_writes_nothing() {
    let out = temp("errors");
    let run = stagec(
        &["plan", "examples/hpp-seed/const.yaml", "--out", &out.to_string_lossy()],
        SECRETS,
    );
    assert_eq!(run.status.code(), Some(1));
    assert!(!out.exists(), "nothing written");
    // Unset variables are errors when planning.
    let run = stagec(
        &[
            "plan",
            "examples/hpp-seed-fixed/const.yaml",
            "--out",
            &out.to_string_lossy(),
        ],
        &[],
    );
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stdout).contains("S3_SECRET_KEY"));
    assert!(!out.exists());
}

#[test]
fn plan_accepts_the_show_infos_its_summary_suggests() {
    let out = temp("show-infos");
    let out_s = out.to_string_lossy().into_owned();
    let args = [
        "plan",
        "examples/hpp-seed/const.yaml",
        "--out",
        out_s.as_str(),
        "--format",
        "concise",
    ];
    let run = stagec(&args, SECRETS);
    assert_eq!(run.status.code(), Some(1));
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(text.contains("infos not shown: --show-infos"), "{text}");
    // The flag it suggests is accepted, and shows them.
    let mut shown = args.to_vec();
    shown.push("--show-infos");
    let run = stagec(&shown, SECRETS);
    assert_eq!(run.status.code(), Some(1), "{}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(!text.contains("not shown"), "{text}");
    assert!(text.lines().count() > 2, "{text}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn the_same_inputs_give_the_same_bytes_from_any_working_directory() {
    // The corrected example, with a warning (its file is recorded too), in a
    // fresh folder planned from its parent and from inside it.
    let base = temp("cwd");
    let dir = base.join("exp");
    std::fs::create_dir_all(&dir).expect("dir");
    let config = std::fs::read_to_string("examples/hpp-seed-fixed/const.yaml").expect("example");
    std::fs::write(dir.join("const.yaml"), format!("workspace: research\n{config}")).expect("write");
    for f in ["model.py", "train.py"] {
        std::fs::copy(Path::new("examples/hpp-seed-fixed").join(f), dir.join(f)).expect("copy");
    }
    let recording = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/probes/mixed-a100-h100.json");
    let recording = recording.to_string_lossy().into_owned();
    let run = |cwd: &Path, args: &[&str]| -> Vec<Vec<u8>> {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagec"));
        cmd.arg("plan")
            .args(args)
            .args(["--probe", "--probe-recording", recording.as_str()])
            .current_dir(cwd)
            .env("NO_COLOR", "1");
        for (k, v) in SECRETS {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run stagec");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let written = if args.contains(&"--out") { "out" } else { "stagec-plan" };
        ["stage_plan.json", "stage_plan.env", "determined.yaml"]
            .iter()
            .map(|f| std::fs::read(dir.join(written).join(f)).expect("plan file"))
            .collect()
    };
    // The default --out (the context's stagec-plan) and a relative one.
    for (outside, inside) in [
        (vec!["exp/const.yaml"], vec!["const.yaml"]),
        (
            vec!["exp/const.yaml", "--out", "exp/out"],
            vec!["const.yaml", "--out", "out"],
        ),
    ] {
        let (a, b) = (run(&base, &outside), run(&dir, &inside));
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(String::from_utf8_lossy(x), String::from_utf8_lossy(y));
        }
        let plan: serde_json::Value = serde_json::from_slice(&a[0]).expect("JSON");
        let paths: Vec<&str> = plan["inputs"]
            .as_array()
            .expect("inputs")
            .iter()
            .filter_map(|i| i["path"].as_str())
            .collect();
        assert_eq!(paths, ["const.yaml", "model.py"], "{plan}");
        assert_eq!(plan["warnings"][0]["file"], "const.yaml", "{plan}");
    }
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn unwritable_out_exits_2_without_partial_files() {
    let base = temp("unwritable");
    std::fs::create_dir_all(&base).expect("dir");
    let blocker = base.join("file");
    std::fs::write(&blocker, "not a directory").expect("write");
    let run = plan_to(&blocker.join("sub"), &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("cannot write the plan"));
    let leftovers: Vec<_> = std::fs::read_dir(&base)
        .expect("base")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers, [std::ffi::OsString::from("file")]);
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn diff_reports_exactly_a_driver_change() {
    let dir = temp("diff");
    std::fs::create_dir_all(&dir).expect("dir");
    let recording = std::fs::read_to_string("tests/probes/h100x8.json").expect("fixture");
    let older = recording.replace("12040", "12020").replace("\"12.4\"", "\"12.2\"");
    assert_ne!(older, recording);
    std::fs::write(dir.join("older.json"), older).expect("write");
    // An all-H100 pipeline, planned on the recorded 8×H100 host.
    let project = dir.join("project");
    std::fs::create_dir_all(&project).expect("dir");
    let source = Path::new("tests/rules/P305/pos_nodelist_unsatisfiable");
    let config_text = std::fs::read_to_string(source.join("const.yaml"))
        .expect("config")
        .replace("slots_per_trial: 12", "slots_per_trial: 6");
    std::fs::write(project.join("const.yaml"), config_text).expect("write");
    std::fs::copy(source.join("model.py"), project.join("model.py")).expect("copy");
    let config_path = project.join("const.yaml");
    let config = config_path.to_string_lossy().into_owned();
    let config = config.as_str();
    let mk = |rec: &str, out: &str| {
        let out = dir.join(out);
        let run = stagec(
            &[
                "plan",
                config,
                "--probe",
                "--probe-recording",
                rec,
                "--out",
                &out.to_string_lossy(),
            ],
            SECRETS,
        );
        assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stdout));
        out.join("stage_plan.json")
    };
    let new_plan = mk("tests/probes/h100x8.json", "new");
    let old_plan = mk(&dir.join("older.json").to_string_lossy(), "old");
    // The plans lie in different folders (their STAGEC_PLAN differs): not a result.
    let (a, b) = (new_plan, old_plan);
    let run = stagec(&["diff", &a.to_string_lossy(), &b.to_string_lossy()], &[]);
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "hardware.probe.driver: CUDA 12.4 (12040) vs CUDA 12.2 (12020)\n"
    );
    let run = stagec(&["diff", &a.to_string_lossy(), &a.to_string_lossy()], &[]);
    assert_eq!(run.status.code(), Some(0));

    // The same CUDA level on another kernel driver release: the plans
    // record the release, and the diff names exactly it.
    let with_kernel = |version: &str| {
        let mut doc: serde_json::Value = serde_json::from_str(&recording).expect("recording");
        doc["kernel_driver"] = serde_json::json!({"source": "/sys/module/nvidia/version", "version": version});
        doc.to_string()
    };
    std::fs::write(dir.join("k1.json"), with_kernel("550.54.15")).expect("write");
    std::fs::write(dir.join("k2.json"), with_kernel("550.90.07")).expect("write");
    let k1 = mk(&dir.join("k1.json").to_string_lossy(), "k1");
    let k2 = mk(&dir.join("k2.json").to_string_lossy(), "k2");
    assert_eq!(read_json(&k1)["hardware"]["probe"]["kernel_driver"], "550.54.15");
    assert_eq!(
        read_json(&a)["hardware"]["probe"]["kernel_driver"],
        serde_json::Value::Null
    );
    let run = stagec(&["diff", &k1.to_string_lossy(), &k2.to_string_lossy()], &[]);
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "hardware.probe.kernel_driver: 550.54.15 vs 550.90.07\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The names in a directory, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

const PLAN_FILES: [&str; 3] = ["determined.yaml", "stage_plan.env", "stage_plan.json"];

#[test]
fn a_new_plan_replaces_the_old_set_whole_and_removes_what_killed_runs_left() {
    let base = temp("replace");
    let out = base.join("stagec-plan");
    std::fs::create_dir_all(&out).expect("dir");
    // What an earlier, killed run left: a stale file inside, staging
    // directories beside.
    std::fs::write(out.join("stage_plan.json"), "stale").expect("write");
    std::fs::write(out.join(".stage_plan.env.4242.tmp"), "half").expect("write");
    std::fs::create_dir_all(base.join(".stagec-plan.stagec-new-4242")).expect("dir");
    std::fs::write(base.join(".stagec-plan.stagec-new-4242/stage_plan.json"), "half").expect("write");
    std::fs::create_dir_all(base.join(".stagec-plan.stagec-old-4243")).expect("dir");
    let run = plan_to(&out, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(names(&out), PLAN_FILES);
    assert_eq!(names(&base), ["stagec-plan"], "leftovers removed");
    assert!(read_json(&out.join("stage_plan.json"))["stages"].is_array());
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_directory_holding_other_files_is_never_replaced() {
    let base = temp("foreign");
    std::fs::create_dir_all(&base).expect("dir");
    std::fs::write(base.join("notes.txt"), "mine").expect("write");
    let run = plan_to(&base, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("notes.txt"));
    assert_eq!(names(&base), ["notes.txt"]);
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn concurrent_plans_into_one_directory_leave_one_whole_set() {
    let base = temp("concurrent");
    std::fs::create_dir_all(&base).expect("dir");
    // Two configs whose plans differ: each run's three files name its config.
    let mut configs = Vec::new();
    for (i, name) in ["alpha", "beta"].iter().enumerate() {
        let text = std::fs::read_to_string("examples/hpp-seed-fixed/const.yaml").expect("read");
        let text = text.replacen("name:", &format!("description: {name}\nname:"), 1);
        let dir = base.join(format!("ctx{i}"));
        std::fs::create_dir_all(&dir).expect("dir");
        for f in std::fs::read_dir("examples/hpp-seed-fixed").expect("example").flatten() {
            if f.file_name() != "const.yaml" && f.path().is_file() {
                std::fs::copy(f.path(), dir.join(f.file_name())).expect("copy");
            }
        }
        std::fs::write(dir.join("const.yaml"), text).expect("write");
        configs.push((name.to_string(), dir.join("const.yaml")));
    }
    let out = base.join("stagec-plan");
    let out_s = out.to_string_lossy().into_owned();
    let children: Vec<_> = (0..8)
        .map(|i| {
            let config = configs[i % 2].1.to_string_lossy().into_owned();
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagec"));
            cmd.args(["plan", &config, "--out", &out_s])
                .env("NO_COLOR", "1")
                .envs(SECRETS.iter().copied())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            cmd.spawn().expect("spawn")
        })
        .collect();
    for mut child in children {
        assert_eq!(child.wait().expect("wait").code(), Some(0));
    }
    assert_eq!(names(&out), PLAN_FILES);
    assert_eq!(names(&base), ["ctx0", "ctx1", "stagec-plan"]);
    let det = std::fs::read_to_string(out.join("determined.yaml")).expect("read");
    let winner = if det.contains("alpha") { "alpha" } else { "beta" };
    let plan = std::fs::read_to_string(out.join("stage_plan.json")).expect("read");
    let digest_of = |name: &str| {
        let config = &configs.iter().find(|(n, _)| n == name).expect("config").1;
        stagec::plan::sha256_hex(&std::fs::read(config).expect("read"))
    };
    assert!(
        plan.contains(&digest_of(winner)),
        "the plan belongs to the same run as determined.yaml"
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_killed_plan_never_leaves_a_mixed_set() {
    let base = temp("killed");
    let out = base.join("stagec-plan");
    let first = plan_to(&out, &[]);
    assert_eq!(first.status.code(), Some(0));
    let before: Vec<Vec<u8>> = PLAN_FILES
        .iter()
        .map(|f| std::fs::read(out.join(f)).expect("read"))
        .collect();
    // Kill runs at varying moments; after each the directory holds either
    // the previous set or a whole new one (here identical), or is absent
    // for the instant of the swap.
    for delay_us in [0u64, 200, 500, 1000, 2000, 4000] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_stagec"))
            .args([
                "plan",
                "examples/hpp-seed-fixed/const.yaml",
                "--out",
                &out.to_string_lossy(),
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .envs(SECRETS.iter().copied())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_micros(delay_us));
        let _ = child.kill();
        let _ = child.wait();
        if out.exists() {
            assert_eq!(names(&out), PLAN_FILES, "after a kill at {delay_us} µs");
            for (f, b) in PLAN_FILES.iter().zip(&before) {
                assert_eq!(&std::fs::read(out.join(f)).expect("read"), b, "{f}");
            }
        }
    }
    // The next run cleans up after them.
    let last = plan_to(&out, &[]);
    assert_eq!(last.status.code(), Some(0));
    assert_eq!(names(&base), ["stagec-plan"]);
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn the_plan_records_the_image_and_diff_reports_its_drift() {
    let dir = temp("image-diff");
    let mk = |image: &str, name: &str| {
        let project = dir.join(name);
        std::fs::create_dir_all(&project).expect("dir");
        let text = std::fs::read_to_string("examples/hpp-seed-fixed/const.yaml").expect("example");
        let text = text.replace("image: determinedai/pytorch-ngc:0.38.1", &format!("image: {image}"));
        std::fs::write(project.join("const.yaml"), text).expect("write");
        for f in ["model.py", "train.py"] {
            std::fs::copy(Path::new("examples/hpp-seed-fixed").join(f), project.join(f)).expect("copy");
        }
        let out = project.join("plan");
        let run = plan_to_config(&project.join("const.yaml"), &out);
        assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stdout));
        out.join("stage_plan.json")
    };
    let a = mk("nvcr.io/nvidia/pytorch:24.03-py3", "a");
    let b = mk("nvcr.io/nvidia/pytorch:24.05-py3", "b");
    let plan = read_json(&a);
    assert_eq!(plan["image"]["reference"], "nvcr.io/nvidia/pytorch:24.03-py3");
    assert_eq!(plan["image"]["resolved_by"], "ngc");
    assert_eq!(plan["image"]["cuda"], "12.4.0");
    assert_eq!(plan["image"]["built_for_driver"], "550.54.14");
    let run = stagec(&["diff", &a.to_string_lossy(), &b.to_string_lossy()], &[]);
    assert_eq!(run.status.code(), Some(1));
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    let image_lines: Vec<&str> = out.lines().filter(|l| l.starts_with("image.")).collect();
    assert_eq!(
        image_lines,
        [
            "image.reference: nvcr.io/nvidia/pytorch:24.03-py3 vs nvcr.io/nvidia/pytorch:24.05-py3",
            "image.cuda: 12.4.0 vs 12.4.1",
            "image.torch: 2.3.0 vs 2.4.0",
        ],
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn plan_to_config(config: &Path, out: &Path) -> Output {
    stagec(
        &["plan", &config.to_string_lossy(), "--out", &out.to_string_lossy()],
        SECRETS,
    )
}

#[test]
fn plan_warns_when_no_experiment_seed_makes_the_rank_seeds_reproducible() {
    let warning = "stagec plan: warning: reproducibility.experiment_seed is not set";
    // The corrected example sets none.
    let out = temp("no-seed");
    let run = plan_to(&out, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let err = String::from_utf8_lossy(&run.stderr).into_owned();
    assert_eq!(err.lines().filter(|l| l.starts_with(warning)).count(), 1, "{err}");
    assert!(err.contains("STAGEC_DATA_SEED") && err.contains("--seed"), "{err}");
    // With one, nothing is said.
    let dir = temp("seeded");
    std::fs::create_dir_all(&dir).expect("dir");
    for f in ["model.py", "train.py"] {
        std::fs::copy(Path::new("examples/hpp-seed-fixed").join(f), dir.join(f)).expect("copy");
    }
    let config = std::fs::read_to_string("examples/hpp-seed-fixed/const.yaml").expect("example");
    let config = config.replace(
        "checkpoint_storage:",
        "reproducibility:\n  experiment_seed: 40\ncheckpoint_storage:",
    );
    std::fs::write(dir.join("const.yaml"), config).expect("write");
    let run = plan_to_config(&dir.join("const.yaml"), &dir.join("plan"));
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let err = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(!err.contains(warning), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&out);
}
