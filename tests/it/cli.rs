//! The `stagec` binary as CI and users run it: exit codes and formats.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

fn stagec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("S3_ACCESS_KEY")
        .env_remove("S3_SECRET_KEY")
        .env("NO_COLOR", "1")
        .output()
        .expect("run stagec")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("stdout is one JSON document")
}

#[test]
fn exit_codes() {
    assert_eq!(
        stagec(&["check", "examples/mnist-pytorch/const.yaml"]).status.code(),
        Some(0)
    );
    assert_eq!(
        stagec(&["check", "examples/hpp-seed/const.yaml"]).status.code(),
        Some(1)
    );
    // Warnings alone pass, unless denied.
    let fixed = "examples/hpp-seed-fixed/const.yaml";
    assert_eq!(stagec(&["check", fixed]).status.code(), Some(0));
    assert_eq!(stagec(&["check", "--deny-warnings", fixed]).status.code(), Some(1));
    // Could not run: missing file, bad arguments, unknown rule.
    let missing = stagec(&["check", "does/not/exist.yaml"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("does/not/exist.yaml"));
    assert_eq!(stagec(&["check", "--format", "xml", fixed]).status.code(), Some(2));
    assert_eq!(stagec(&["explain", "Z999"]).status.code(), Some(2));
    // A folder: the configs under it (the seed example has errors).
    assert_eq!(stagec(&["check", "examples"]).status.code(), Some(1));
    assert_eq!(stagec(&["check", "examples/hpp-seed-fixed"]).status.code(), Some(0));
}

#[test]
fn json_format_has_the_documented_shape() {
    let out = stagec(&[
        "check",
        "--format",
        "json",
        "examples/hpp-seed/const.yaml",
        "examples/mnist-pytorch/const.yaml",
    ]);
    let doc = json(&out);
    let top: Vec<&str> = doc.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(top, ["diagnostics", "summary"]);
    // Key order as written: parse the raw text, not a sorted map.
    let raw = stdout(&out);
    let order = [
        "\"code\"",
        "\"severity\"",
        "\"message\"",
        "\"file\"",
        "\"line\"",
        "\"column\"",
        "\"end_line\"",
        "\"end_column\"",
        "\"help\"",
        "\"related\"",
        "\"fix\"",
        "\"url\"",
    ];
    let positions: Vec<usize> = order.iter().map(|k| raw.find(k).unwrap_or(usize::MAX)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "field order {positions:?}");
    let summary = &doc["summary"];
    assert_eq!(summary["files"], 2);
    let diags = doc["diagnostics"].as_array().expect("array");
    assert_eq!(
        summary["errors"].as_u64(),
        Some(diags.iter().filter(|d| d["severity"] == "error").count() as u64)
    );
    for d in diags.iter().filter(|d| d["severity"] != "info") {
        let mut keys: Vec<&str> = d.as_object().expect("object").keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "code",
                "column",
                "end_column",
                "end_line",
                "file",
                "fix",
                "help",
                "line",
                "message",
                "related",
                "severity",
                "url"
            ]
        );
        let file = d["file"].as_str().unwrap_or_default();
        assert!(
            [
                "examples/hpp-seed/const.yaml",
                "examples/hpp-seed/model.py",
                "examples/hpp-seed/train.py"
            ]
            .contains(&file),
            "{file}"
        );
    }
    // The field notes' mistakes, at their lines.
    let at = |code: &str, line: u64| diags.iter().any(|d| d["code"] == code && d["line"] == line);
    let checkpoints_line = seed_line("checkpoints:");
    let lr_line = seed_line("  lr:");
    assert!(
        at("C101", checkpoints_line),
        "checkpoints at line {checkpoints_line}: {diags:#?}"
    );
    assert!(at("C103", lr_line), "lr without base at line {lr_line}: {diags:#?}");
    let checkpoints = diags.iter().find(|d| d["code"] == "C101").expect("C101");
    assert!(checkpoints["help"]
        .as_str()
        .unwrap_or("")
        .contains("checkpoint_storage:\n  type: s3\n  bucket:"));
}

#[test]
fn columns_count_characters() {
    let out = stagec(&["check", "--format", "json", "tests/fixtures/yaml/crlf_chinese.yaml"]);
    let doc = json(&out);
    let d = doc["diagnostics"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["code"] == "C102"))
        .expect("C102");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64(), d["end_column"].as_u64()),
        (Some(4), Some(20), Some(23))
    );
}

#[test]
fn github_format_caps_annotations_per_severity() {
    let dir = std::env::temp_dir().join(format!("stagec-gh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("many.yaml");
    let mut text = String::from(
        "name: many\nsearcher: {name: single, metric: loss}\ncheckpoint_storage: {type: shared_fs, host_path: /mnt}\n",
    );
    for i in 0..15 {
        text.push_str(&format!("unknown_{i}: 1\n"));
    }
    std::fs::write(&file, text).expect("write");
    let out = stagec(&["check", "--format", "github", file.to_str().unwrap_or_default()]);
    let text = stdout(&out);
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), 10, "{text}");
    assert!(
        errors[0].contains(",line=4,endLine=4,col=1,endColumn=10,title=C101::unknown key `unknown_0`"),
        "{text}"
    );
    assert!(text.contains("5 more errors not annotated"), "{text}");
    assert_eq!(out.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sarif_validates_against_the_sarif_schema() {
    let out = stagec(&[
        "check",
        "--format",
        "sarif",
        "examples/hpp-seed/const.yaml",
        "tests/fixtures/yaml/duplicate_key.yaml",
    ]);
    let doc = json(&out);
    assert_eq!(doc["version"], "2.1.0");
    let results = doc["runs"][0]["results"].as_array().expect("results");
    assert!(results
        .iter()
        .any(|r| r["ruleId"] == "Y002" && r["relatedLocations"].is_array()));
    let rules = doc["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules");
    for r in results {
        let idx = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
    }
    let Some(shared) = common::shared_dir() else { return };
    let schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(shared.join("reference/sarif-schema-2.1.0.json")).expect("sarif schema"))
            .expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("compile SARIF schema");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn human_output_is_plain_when_not_a_terminal() {
    let out = stagec(&["check", "examples/hpp-seed/const.yaml"]);
    let text = stdout(&out);
    assert!(!text.contains('\u{1b}'), "no escape codes in piped output");
    assert!(text.contains("unknown key `checkpoints`"));
    assert!(text.contains(&format!("examples/hpp-seed/const.yaml:{}:1", seed_line("checkpoints:"))));
    assert!(
        text.ends_with("5 errors, 8 warnings in 1 file (2 infos not shown: --show-infos)\n"),
        "{text}"
    );
    // The code beside the message, then a blank line between diagnostics.
    assert!(
        text.contains("  x C101 unknown key `checkpoints` at the top level\n"),
        "{text}"
    );
    let shown = stdout(&stagec(&["check", "--show-infos", "examples/hpp-seed/const.yaml"]));
    assert!(shown.contains("P303 hardware availability not checked"), "{shown}");
    assert!(shown.ends_with("5 errors, 8 warnings in 1 file\n"), "{shown}");
}

/// The 1-based line of the seed example's config that starts with `prefix`.
fn seed_line(prefix: &str) -> u64 {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hpp-seed/const.yaml"))
        .expect("the seed example");
    let index = text.lines().position(|l| l.starts_with(prefix)).expect("the line");
    index as u64 + 1
}

#[test]
fn rules_and_explain() {
    let list = stdout(&stagec(&["rules"]));
    for rule in stagec::rules::all() {
        assert!(list.contains(rule.code), "{} missing from `stagec rules`", rule.code);
        let explained = stagec(&["explain", rule.code]);
        assert_eq!(explained.status.code(), Some(0));
        let text = stdout(&explained);
        for section in ["## What it checks", "## Why", "## Example"] {
            assert!(text.contains(section), "{}: no {section}", rule.code);
        }
    }
    assert!(stdout(&stagec(&["explain", "duplicate-key"])).contains("Y002"));
}

#[test]
fn schema_command_writes_the_committed_schemas() {
    let dir = std::env::temp_dir().join(format!("stagec-schema-{}", std::process::id()));
    let out = stagec(&["schema", "--out", dir.to_str().unwrap_or_default()]);
    assert_eq!(out.status.code(), Some(0));
    for (name, _) in stagec::schemas::all() {
        let written = std::fs::read_to_string(dir.join(name)).expect("written");
        let committed = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas").join(name))
            .expect("committed");
        assert_eq!(written, committed, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_are_deterministic() {
    for format in ["human", "json", "github", "sarif"] {
        let a = stagec(&[
            "check",
            "--format",
            format,
            "examples/hpp-seed/const.yaml",
            "examples/broken-types/const.yaml",
        ]);
        let b = stagec(&[
            "check",
            "--format",
            format,
            "examples/hpp-seed/const.yaml",
            "examples/broken-types/const.yaml",
        ]);
        assert_eq!(a.stdout, b.stdout, "{format}");
    }
}

#[test]
fn probe_without_gpus_explains_itself() {
    let out = stagec(&[
        "check",
        "--format",
        "json",
        "examples/hpp-seed-fixed/const.yaml",
        "--probe",
        "--probe-recording",
        "tests/probes/no-driver.json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc = json(&out);
    let codes: Vec<&str> = doc["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"P307") && codes.contains(&"P304"), "{codes:?}");
    // A recorded 8×H100 host cannot serve the A100 stages either, but has the H100s.
    let out = stagec(&[
        "check",
        "--format",
        "json",
        "examples/hpp-seed-fixed/const.yaml",
        "--probe",
        "--probe-recording",
        "tests/probes/h100x8.json",
    ]);
    let doc = json(&out);
    let shortfalls: Vec<&str> = doc["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == "P304")
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert_eq!(shortfalls.len(), 2, "{shortfalls:?}");
    assert!(shortfalls.iter().all(|m| m.contains("a100-40g")), "{shortfalls:?}");
}

#[test]
fn credential_values_never_appear_in_messages() {
    for format in ["human", "json", "github", "sarif"] {
        let out = stagec(&["check", "--format", format, "tests/fixtures/schema/secret_values.yaml"]);
        assert_eq!(out.status.code(), Some(1));
        let text = stdout(&out);
        assert!(text.contains("checkpoint_storage.secret_key"), "{text}");
        // Not in messages, and not in the source snippets either.
        assert!(!text.contains("987654321"), "{format}: {text}");
        assert!(!text.contains("LEAKED"), "{format}: {text}");
    }
}

/// A credential written in any YAML form stays out of every format: flow
/// and block mappings, folded, literal and quoted scalars, values reached
/// through an anchor or a `<<` merge, a misspelled credential key, a
/// `NAME=value` environment entry, and the `checkpoints` confusion's
/// suggested replacement.
#[test]
fn credential_values_never_appear_in_any_form() {
    let forms = [
        "checkpoint_storage: {type: s3, bucket: b, secret_key: HUNTER2, access_key: 5}\n",
        "checkpoint_storage:\n  type: s3\n  bucket: b\n  secret_key: >\n    HUNTER2\n  accesss: 1\n",
        "checkpoint_storage:\n  type: s3\n  bucket: b\n  secret_key: |\n    HUNTER2\n  accesss: 1\n",
        "checkpoint_storage:\n  type: s3\n  bucket: b\n  secret_key: \"HUNTER2\"\n  accesss: 1\n",
        "creds: &c HUNTER2\ncheckpoint_storage:\n  type: s3\n  bucket: b\n  secret_key: *c\n",
        "base: &b {secret_key: HUNTER2, access_key: x}\ncheckpoint_storage:\n  <<: *b\n  type: s3\n  bucket: 1\n",
        "checkpoint_storage:\n  type: s3\n  bucket: b\n  pasword: HUNTER2\n",
        "environment:\n  environment_variables:\n    - AWS_SECRET_ACCESS_KEY=HUNTER2\n    - \"HF_TOKEN=HUNTER2\"\n  bad: 1\n",
        "checkpoints:\n  storage_type: s3\n  config:\n    bucket: b\n    access_key: HUNTER2\n    secret_key: HUNTER2\n",
    ];
    let dir = std::env::temp_dir().join(format!("stagec-credentials-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    for (i, form) in forms.iter().enumerate() {
        let path = dir.join(format!("form{i}.yaml"));
        let text = format!("name: x\nentrypoint: python3 train.py\nsearcher: {{name: single, metric: loss}}\n{form}");
        std::fs::write(&path, &text).expect("write");
        let path = path.to_string_lossy().into_owned();
        for format in ["human", "json", "github", "sarif"] {
            let out = stagec(&["check", "--format", format, &path]);
            let text = stdout(&out);
            assert!(
                !text.is_empty() && out.status.code() == Some(1),
                "form {i} {format}: {text}"
            );
            assert!(!text.contains("HUNTER2"), "form {i} {format}: {text}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn determined_release_picks_the_default_image() {
    // Determined 0.30's default image (CUDA 11.3, PyTorch 1.12) has no H100 code.
    let out = stagec(&[
        "check",
        "--format",
        "json",
        "--determined",
        "0.30.0",
        "tests/projects/valid_three_stages/const.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let codes: Vec<&str> = doc["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"R103") && codes.contains(&"R102"), "{codes:?}");
    // The newest release's default (CUDA 12.4, PyTorch 2.3) runs it.
    let out = stagec(&["check", "tests/projects/valid_three_stages/const.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // A release stagec has no default image for is a usage error.
    let out = stagec(&[
        "check",
        "--determined",
        "9.9.9",
        "tests/projects/valid_three_stages/const.yaml",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// `check --changed`, the pre-commit hook's mode, in a scratch repository:
/// the field notes' experiment in `exp/`, and YAML and Python that are not
/// experiments.
#[test]
fn changed_files_check_their_experiments_and_leave_other_yaml_alone() {
    let dir = std::env::temp_dir().join(format!("stagec-changed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hpp-seed");
    std::fs::create_dir_all(dir.join("exp")).expect("temp dir");
    for name in ["const.yaml", "model.py", "train.py"] {
        std::fs::copy(examples.join(name), dir.join("exp").join(name)).expect("copy the example");
    }
    for (path, text) in [
        ("k8s/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n"),
        (".pre-commit-config.yaml", "repos: []\n"),
        ("lonely/tool.py", "print('no experiment here')\n"),
        ("marked/run.yml", "# stagec: experiment\nname: marked\nunknown_key: 1\n"),
    ] {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
        std::fs::write(path, text).expect("write");
    }
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_stagec"))
            .args(["check", "--format", "concise"])
            .args(args)
            .current_dir(&dir)
            .env_remove("S3_ACCESS_KEY")
            .env_remove("S3_SECRET_KEY")
            .output()
            .expect("run stagec");
        let text = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
        (out.status.code(), text)
    };

    // Nothing stagec has something to say about: a quiet pass.
    let others = ["k8s/pod.yaml", ".pre-commit-config.yaml", "lonely/tool.py"];
    let (code, text) = run(&[&["--changed"][..], &others].concat());
    assert_eq!((code, text.as_str()), (Some(0), ""));
    // Named without `--changed`, the manifest is taken for a config.
    let (code, _) = run(&["k8s/pod.yaml"]);
    assert_ne!(code, Some(0));

    // A changed model file checks its folder's experiment in full.
    let (code, text) = run(&["--changed", "exp/model.py"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("exp/const.yaml:44:1: C101 unknown key `checkpoints`"),
        "{text}"
    );
    assert!(text.contains("exp/model.py:14:51: P206 "), "{text}");
    assert!(text.contains("exp/train.py:24:68: T101 "), "{text}");

    // Everything at once (pre-commit's --all-files): each experiment once.
    let mut all = vec![
        "--changed",
        "exp/const.yaml",
        "exp/model.py",
        "exp/train.py",
        "marked/run.yml",
    ];
    all.extend(others);
    let (code, text) = run(&all);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(text.matches(" C101 unknown key `checkpoints`").count(), 1, "{text}");
    assert!(
        text.contains("marked/run.yml:3:1: C101 unknown key `unknown_key`"),
        "{text}"
    );
    assert!(!text.contains("k8s/") && !text.contains("lonely/"), "{text}");

    // What would be checked (the GitHub Action's selection), and nothing else.
    let mut listed = vec!["--show-files"];
    listed.extend(&all);
    assert_eq!(run(&listed), (Some(0), "exp/const.yaml\nmarked/run.yml\n".to_string()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 22, item 10: a config and its own training file named together (as
/// a commit that changes both passes them to pre-commit) report each
/// training-code finding once, not once per way the file was reached.
#[test]
fn a_config_and_its_training_file_report_each_finding_once() {
    let t_findings = |args: &[&str]| -> Vec<String> {
        let out = stagec(args);
        let v = json(&out);
        let mut found: Vec<String> = v["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["code"].as_str().is_some_and(|c| c.starts_with('T')))
            .map(|d| format!("{} {}:{} {}", d["code"], d["file"], d["line"], d["column"]))
            .collect();
        found.sort();
        found
    };
    let alone = t_findings(&["check", "--format", "json", "examples/hpp-seed/const.yaml"]);
    assert!(!alone.is_empty(), "the seed's training code has findings");
    for args in [
        &[
            "check",
            "--format",
            "json",
            "examples/hpp-seed/const.yaml",
            "examples/hpp-seed/train.py",
        ][..],
        &[
            "check",
            "--format",
            "json",
            "examples/hpp-seed",
            "examples/hpp-seed/train.py",
        ][..],
        &[
            "check",
            "--format",
            "json",
            "examples/hpp-seed/train.py",
            "examples/hpp-seed/const.yaml",
        ][..],
    ] {
        assert_eq!(t_findings(args), alone, "{args:?}");
    }
}

/// Two findings of one rule at one place (one seeding that makes every
/// rank's loader workers draw alike and every rank's training step draw
/// the same noise) are two findings: the per-file narrowing that keeps a
/// config's and its training file's findings once drops repeats across
/// compilations, not within one.
#[test]
fn two_findings_at_one_place_both_stand() {
    let case = "tests/rules/T101/pos_s29_lightning_shuffled_loader_worker_seeds_alike/train.py";
    let out = stagec(&["check", "--select", "T101", "--format", "json", case]);
    let found: Vec<(String, String)> = json(&out)["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| (format!("{}:{}", d["line"], d["column"]), d["message"].to_string()))
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, found[1].0, "{found:?}");
    assert_ne!(found[0].1, found[1].1, "{found:?}");
}

/// Issue 23: a credential written out in `environment_variables` gets a
/// warning (E106) whose unsafe fix references the variable instead; with
/// the variables set where the check runs, `--fix --unsafe-fixes` writes
/// the references and nothing of the values is left.
#[test]
fn literal_credentials_in_the_environment_are_fixed_to_references() {
    let dir = std::env::temp_dir().join(format!("stagec-cli-e106-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let config = dir.join("const.yaml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rules/E106/pos_basic.yaml"),
        &config,
    )
    .expect("copy");
    let config_arg = config.to_string_lossy().into_owned();
    let out = stagec(&["check", "--format", "json", &config_arg]);
    let codes: Vec<String> = json(&out)["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == "E106")
        .map(|d| d["line"].to_string())
        .collect();
    assert_eq!(codes, ["7", "8", "9"], "{}", stdout(&out));
    let fixed = Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args(["check", "--fix", "--unsafe-fixes", &config_arg])
        .env("WANDB_API_KEY", "x")
        .env("HF_TOKEN", "x")
        .env("DATABASE_URL", "x")
        .env("GITHUB_PAT", "x")
        .output()
        .expect("run stagec");
    assert_eq!(
        fixed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fixed.stderr)
    );
    let text = std::fs::read_to_string(&config).expect("read");
    for want in [
        "- WANDB_API_KEY=${WANDB_API_KEY}\n",
        "- \"HF_TOKEN=${HF_TOKEN}\"\n",
        "- DATABASE_URL=${DATABASE_URL}\n",
    ] {
        assert!(text.contains(want), "{want:?} in {text}");
    }
    for gone in ["0123456789abcdef", "hf_abc", "hunter2pw"] {
        assert!(!text.contains(gone), "{gone} left in {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Calls through `deepspeed.comm` and names imported from
/// `torch.backends.cudnn` once sent the training analysis into endless
/// recursion: `stagec check` died of a stack overflow on DeepSpeed code.
#[test]
fn deepspeed_comm_and_cudnn_names_are_analysed_without_overflow() {
    let dir = common::tools::TempDir::new("stagec-deepspeed-comm");
    let shapes = [
        (
            "k1.py",
            "from torch.backends.cudnn import is_available\nis_available()\n",
        ),
        ("k4.py", "from deepspeed import comm as dist\ndist.get_rank()\n"),
        ("k5.py", "from deepspeed.comm import get_rank\nget_rank()\n"),
        ("k6.py", "import deepspeed.comm\ndeepspeed.comm.get_rank()\n"),
        (
            "m10.py",
            "import deepspeed.comm as dist\n\n\ndef main():\n    if dist.get_rank() == 0:\n        print(\"x\")\n",
        ),
    ];
    for (name, text) in shapes {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write the shape");
        let out = stagec(&["check", "--select", "T", "--format", "concise", &path.to_string_lossy()]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}\n{}",
            stdout(&out),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Python files named without a config are read from the root of their
/// repository, as pre-commit passes them from there: a script in `tools/`
/// reaches `pkg/` through its import, and `pkg/data.py` is the module
/// `pkg.data` its importer names. Run from a folder inside the repository,
/// the files below it are read together from there (where `python
/// train.py` resolves its imports). Outside a repository each folder stands
/// alone as before.
#[test]
fn named_files_are_read_from_their_repository_root() {
    let dir = common::tools::TempDir::new("stagec-repository-root");
    let root = dir.path();
    for folder in [".git", "tools", "pkg"] {
        std::fs::create_dir_all(root.join(folder)).expect("make a folder");
    }
    let files = [
        ("pkg/__init__.py", ""),
        (
            "pkg/data.py",
            "from torch.utils.data import DataLoader\n\n\ndef build_loader():\n    return DataLoader(list(range(100)), batch_size=8, num_workers=16, shuffle=True)\n",
        ),
        (
            "tools/train.py",
            "import torch.distributed as dist\n\nfrom pkg.data import build_loader\n\n\ndef main():\n    dist.init_process_group(\"nccl\")\n    loader = build_loader()\n    for epoch in range(10):\n        for batch in loader:\n            print(batch)\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(root.join(name), text).expect("write a file");
    }
    let run = |cwd: &Path, args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_stagec"))
            .args(["check", "--select", "T", "--format", "concise"])
            .args(args)
            .current_dir(cwd)
            .output()
            .expect("run stagec");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Both named: the loader's workers are restarted on every rank.
    let both = run(root, &["tools/train.py", "pkg/data.py"]);
    assert!(both.contains("pkg/data.py:5:55: T105"), "{both}");
    // The package's file alone: nothing shows it runs on several ranks.
    let alone = run(root, &["pkg/data.py"]);
    assert!(!alone.contains("T105"), "{alone}");
    // A namespace package (no `__init__.py`): the import names the file,
    // whichever of the two comes first.
    std::fs::remove_file(root.join("pkg/__init__.py")).expect("remove __init__.py");
    for order in [["tools/train.py", "pkg/data.py"], ["pkg/data.py", "tools/train.py"]] {
        let out = run(root, &order);
        assert!(out.contains("pkg/data.py:5:55: T105"), "{order:?}: {out}");
    }
    // From inside the repository: a project in its own folder whose script
    // imports its `data` package from there.
    std::fs::create_dir_all(root.join("proj/data")).expect("make a folder");
    std::fs::write(root.join("proj/data/loader.py"), files[1].1).expect("write a file");
    let script = files[2].1.replace("pkg.data", "data.loader");
    std::fs::write(root.join("proj/train.py"), script).expect("write a file");
    let inside = run(&root.join("proj"), &["train.py", "data/loader.py"]);
    assert!(inside.contains("data/loader.py:5:55: T105"), "{inside}");
    let inside = run(&root.join("proj"), &["./data/loader.py", "./train.py"]);
    assert!(inside.contains("data/loader.py:5:55: T105"), "{inside}");
    // Without a repository each folder is its own context.
    std::fs::remove_dir(root.join(".git")).expect("remove .git");
    let apart = run(root, &["tools/train.py", "pkg/data.py"]);
    assert!(!apart.contains("T105"), "{apart}");
    let apart = run(&root.join("proj"), &["train.py", "data/loader.py"]);
    assert!(!apart.contains("T105"), "{apart}");
}

/// A repository too large to list (more entries than a context scan reads)
/// does not fail a check of Python files on their own: each folder is read
/// on its own, as outside a repository, with nothing said about the size.
#[test]
fn python_files_in_a_repository_too_large_to_list_are_read_by_folder() {
    let dir = common::tools::TempDir::new("stagec-huge-repository");
    let root = dir.path();
    for folder in [".git", "tools", "big"] {
        std::fs::create_dir_all(root.join(folder)).expect("make a folder");
    }
    for i in 0..=stagec::project::MAX_SCAN_ENTRIES {
        std::fs::File::create(root.join(format!("big/f{i}"))).expect("make a file");
    }
    std::fs::write(root.join("tools/train.py"), "import os\n").expect("write a file");
    let out = Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args(["check", "--select", "T", "--format", "concise", "tools/train.py"])
        .current_dir(root)
        .output()
        .expect("run stagec");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{}\n{stderr}", stdout(&out));
    assert!(!stderr.contains("entries"), "{stderr}");
}
