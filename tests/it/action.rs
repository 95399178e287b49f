//! The GitHub Action (`action.yml`): its structure, read with stagec's own
//! YAML parser, and its steps run here as a runner runs a composite action —
//! each `run:` as `bash --noprofile --norc -eo pipefail FILE` in the
//! workspace, with the step's `env:` (its `${{ inputs.* }}` expressions
//! evaluated from the given inputs and the inputs' defaults),
//! `GITHUB_ACTION_PATH`, `GITHUB_WORKSPACE`, `RUNNER_TEMP`, and the
//! `GITHUB_PATH`/`GITHUB_ENV`/`GITHUB_OUTPUT` files honoured between steps.
//! `STAGEC_BIN` points the install step at the binary cargo built for this
//! test instead of a `cargo install`.

use crate::common::tools;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use stagec::yaml::{parse, Budgets};

const INPUTS: [&str; 4] = ["files", "format", "sarif-file", "args"];

fn action() -> Value {
    let path = tools::repo_root().join("action.yml");
    let text = std::fs::read_to_string(&path).expect("read action.yml");
    let budgets = Budgets::default();
    let (tree, diags) = parse(&text, &budgets);
    let problems: Vec<_> = diags.iter().map(|d| format!("{d:?}")).collect();
    assert!(problems.is_empty(), "action.yml does not parse: {problems:?}");
    let root = tree.root().expect("action.yml has a document");
    tree.to_json(root, budgets.max_nodes)
        .expect("action.yml converts to JSON")
}

fn str_at<'a>(v: &'a Value, path: &str) -> &'a str {
    v.pointer(path)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("action.yml: {path} is not a string: {:?}", v.pointer(path)))
}

/// The `${{ … }}` expressions in `s`, trimmed.
fn expressions(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("${{") {
        let after = &rest[start + 3..];
        let end = after.find("}}").unwrap_or_else(|| panic!("unclosed `${{{{` in {s:?}"));
        out.push(after[..end].trim().to_string());
        rest = &after[end + 2..];
    }
    out
}

#[test]
fn action_yml_is_a_composite_action_with_documented_inputs() {
    let a = action();
    assert!(!str_at(&a, "/name").is_empty());
    assert!(str_at(&a, "/description").len() > 20, "description too short");

    let inputs = a["inputs"].as_object().expect("inputs is a mapping");
    let names: Vec<_> = inputs.keys().map(String::as_str).collect();
    let mut expected = INPUTS.to_vec();
    expected.sort_unstable();
    let mut got = names.clone();
    got.sort_unstable();
    assert_eq!(got, expected, "action.yml inputs");
    for (name, input) in inputs {
        let description = input["description"].as_str().unwrap_or_default();
        assert!(description.len() > 10, "input `{name}` needs a description");
        assert_eq!(input["required"], Value::Bool(false), "input `{name}` is optional");
        assert!(input["default"].is_string(), "input `{name}` needs a string default");
    }
    assert_eq!(inputs["format"]["default"], "github");
    assert_eq!(inputs["files"]["default"], "");

    assert_eq!(str_at(&a, "/runs/using"), "composite");
    let steps = a["runs"]["steps"].as_array().expect("runs.steps is a list");
    assert!(!steps.is_empty());
    let mut used = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let run = step["run"].as_str().unwrap_or_else(|| panic!("step {i} has no `run`"));
        assert!(
            step["shell"].is_string(),
            "step {i} has no `shell` (required in composite actions)"
        );
        assert!(step["name"].is_string(), "step {i} has no `name`");
        // Inputs go through `env:`: an expression inside `run:` would be
        // pasted into the script (script injection).
        assert!(expressions(run).is_empty(), "step {i} interpolates into `run`: {run}");
        let script = run
            .split_whitespace()
            .find_map(|w| w.trim_matches('"').strip_prefix("$GITHUB_ACTION_PATH/"))
            .unwrap_or_else(|| panic!("step {i} runs no script of the action: {run}"));
        assert!(
            tools::repo_root().join(script).is_file(),
            "step {i} runs {script}, which does not exist"
        );
        if let Some(env) = step["env"].as_object() {
            for value in env.values() {
                for e in expressions(value.as_str().unwrap_or_default()) {
                    let input = e
                        .strip_prefix("inputs.")
                        .unwrap_or_else(|| panic!("step {i}: unexpected expression `{e}`"));
                    assert!(inputs.contains_key(input), "step {i} uses undeclared input `{input}`");
                    used.push(input.to_string());
                }
            }
        }
    }
    for name in INPUTS {
        assert!(used.iter().any(|u| u == name), "input `{name}` is passed to no step");
    }
    let output = str_at(&a, "/outputs/sarif-file/value");
    assert_eq!(expressions(output), ["steps.check.outputs.sarif-file"]);
    assert!(steps.iter().any(|s| s["id"] == "check"));
}

/// What a run of the action left behind.
struct Run {
    /// The status of the step that failed, or 0.
    status: i32,
    /// Everything the steps printed (stdout, then stderr, per step).
    log: String,
    /// The action's outputs.
    outputs: BTreeMap<String, String>,
}

impl Run {
    /// `(file, code)` of each `::error`/`::warning` annotation.
    fn annotations(&self, kind: &str) -> Vec<(String, String)> {
        let prefix = format!("::{kind} ");
        self.log
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .filter_map(|l| {
                let props = l.split("::").next()?;
                let get = |key: &str| props.split(',').find_map(|p| p.strip_prefix(key)).map(str::to_string);
                Some((get("file=")?, get("title=")?))
            })
            .collect()
    }
}

/// Runs the action's steps as a runner does, in `workspace`.
fn run_action(workspace: &Path, inputs: &[(&str, &str)]) -> Run {
    let a = action();
    let repo = tools::repo_root();
    let runner = tools::TempDir::new("stagec-action-runner");
    let github_path = runner.path().join("path");
    let github_env = runner.path().join("env");
    std::fs::write(&github_path, "").unwrap();
    std::fs::write(&github_env, "").unwrap();

    let input = |name: &str| -> String {
        inputs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
            .or_else(|| a["inputs"][name]["default"].as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let eval = |text: &str| -> String {
        let mut out = text.to_string();
        for e in expressions(text) {
            let value = if let Some(name) = e.strip_prefix("inputs.") {
                input(name)
            } else if e == "github.action_path" {
                repo.display().to_string()
            } else {
                panic!("the test's runner does not evaluate `{e}`")
            };
            out = out.replacen(&format!("${{{{ {e} }}}}"), &value, 1);
        }
        out
    };

    let mut path_dirs: Vec<String> = Vec::new();
    let mut extra_env: Vec<(String, String)> = Vec::new();
    let mut step_outputs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut log = String::new();
    let mut status = 0;
    for (i, step) in a["runs"]["steps"].as_array().expect("steps").iter().enumerate() {
        assert_eq!(step["shell"], "bash", "the test's runner runs bash steps only");
        let script = runner.path().join(format!("step{i}.sh"));
        std::fs::write(&script, step["run"].as_str().expect("run")).unwrap();
        let output_file = runner.path().join(format!("output{i}"));
        std::fs::write(&output_file, "").unwrap();

        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(workspace)
            .env_remove("S3_ACCESS_KEY")
            .env_remove("S3_SECRET_KEY")
            .env("NO_COLOR", "1")
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION_PATH", &repo)
            .env("GITHUB_WORKSPACE", workspace)
            .env("RUNNER_TEMP", runner.path())
            .env("GITHUB_PATH", &github_path)
            .env("GITHUB_ENV", &github_env)
            .env("GITHUB_OUTPUT", &output_file)
            .env("STAGEC_BIN", env!("CARGO_BIN_EXE_stagec"));
        let path = std::env::var("PATH").unwrap_or_default();
        let mut dirs = path_dirs.clone();
        dirs.reverse();
        dirs.push(path);
        cmd.env("PATH", dirs.join(":"));
        for (k, v) in &extra_env {
            cmd.env(k, v);
        }
        if let Some(env) = step["env"].as_object() {
            for (k, v) in env {
                cmd.env(k, eval(v.as_str().unwrap_or_default()));
            }
        }
        let out = tools::output_within(&mut cmd, Duration::from_secs(120));
        log.push_str(&String::from_utf8_lossy(&out.stdout));
        log.push_str(&String::from_utf8_lossy(&out.stderr));

        path_dirs = std::fs::read_to_string(&github_path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        extra_env = std::fs::read_to_string(&github_env)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if let Some(id) = step["id"].as_str() {
            let outputs = std::fs::read_to_string(&output_file)
                .unwrap()
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            step_outputs.insert(id.to_string(), outputs);
        }
        if !out.status.success() {
            status = out.status.code().unwrap_or(-1);
            break;
        }
    }

    let mut outputs = BTreeMap::new();
    if let Some(declared) = a["outputs"].as_object() {
        for (name, output) in declared {
            let value = output["value"].as_str().unwrap_or_default();
            let mut resolved = String::new();
            for e in expressions(value) {
                let parts: Vec<_> = e.split('.').collect();
                if let ["steps", id, "outputs", key] = parts[..] {
                    if let Some(v) = step_outputs.get(id).and_then(|o| o.get(key)) {
                        resolved.push_str(v);
                    }
                }
            }
            outputs.insert(name.clone(), resolved);
        }
    }
    Run { status, log, outputs }
}

/// A repository with the field notes' experiment, its corrected twin, and
/// YAML that is not an experiment (a Kubernetes manifest, a workflow).
fn workspace() -> tools::TempDir {
    let ws = tools::TempDir::new("stagec-action-workspace");
    let repo = tools::repo_root();
    for (example, to) in [
        ("hpp-seed", "experiments/seed"),
        ("hpp-seed-fixed", "experiments/fixed"),
    ] {
        let dest = ws.path().join(to);
        std::fs::create_dir_all(&dest).unwrap();
        tools::copy_files(&repo.join("examples").join(example), &dest);
    }
    std::fs::create_dir_all(ws.path().join("k8s")).unwrap();
    std::fs::write(
        ws.path().join("k8s/pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: trainer\n",
    )
    .unwrap();
    std::fs::create_dir_all(ws.path().join(".github/workflows")).unwrap();
    std::fs::write(
        ws.path().join(".github/workflows/ci.yml"),
        "on: push\njobs:\n  check:\n    runs-on: ubuntu-latest\n    steps: []\n",
    )
    .unwrap();
    // Tracked files are what the action looks through by default.
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(ws.path())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    assert!(
        git(&["init", "-q"]) && git(&["add", "-A"]),
        "git init/add in {}",
        ws.path().display()
    );
    ws
}

const SEED: &str = "experiments/seed/const.yaml";
const FIXED: &str = "experiments/fixed/const.yaml";

#[test]
fn default_inputs_annotate_every_experiment_config_found() {
    let ws = workspace();
    let run = run_action(ws.path(), &[]);
    assert_eq!(run.status, 1, "errors in the seed fail the step:\n{}", run.log);
    assert!(run.log.contains("Using STAGEC_BIN="), "{}", run.log);
    assert!(
        run.log.contains("checking 2 experiment config(s)"),
        "both configs found, nothing else:\n{}",
        run.log
    );
    let errors = run.annotations("error");
    for code in ["P118", "C101", "C103"] {
        assert!(
            errors.contains(&(SEED.to_string(), code.to_string())),
            "no {code} error annotation on {SEED}: {errors:?}\n{}",
            run.log
        );
    }
    assert!(
        errors.iter().all(|(f, _)| f == SEED),
        "errors only in the seed: {errors:?}"
    );
    // The model was read with its config (the fp16 → fp8 boundary).
    let warnings = run.annotations("warning");
    assert!(
        warnings
            .iter()
            .any(|(f, c)| f.ends_with("experiments/seed/model.py") && c == "P206"),
        "{warnings:?}"
    );
    assert!(
        !run.log.contains("pod.yaml") && !run.log.contains("ci.yml"),
        "{}",
        run.log
    );
}

#[test]
fn explicit_files_and_args() {
    let ws = workspace();
    let run = run_action(ws.path(), &[("files", FIXED)]);
    assert_eq!(run.status, 0, "{}", run.log);
    assert!(run.annotations("error").is_empty(), "{}", run.log);

    // The fixed twin warns about the unset S3 variables.
    let run = run_action(ws.path(), &[("files", FIXED), ("args", "--deny-warnings")]);
    assert_eq!(run.status, 1, "{}", run.log);
    assert!(run
        .annotations("warning")
        .contains(&(FIXED.to_string(), "V302".to_string())));

    // Globs, several per input, across lines.
    let run = run_action(ws.path(), &[("files", "experiments/**/const.yaml\nk8s/none-*.yaml")]);
    assert_eq!(
        run.status, 2,
        "a pattern that matches nothing is an error:\n{}",
        run.log
    );
    assert!(run.log.contains("`k8s/none-*.yaml` matches no file"), "{}", run.log);
    let run = run_action(ws.path(), &[("files", "experiments/**/const.yaml")]);
    assert_eq!(run.status, 1, "{}", run.log);
    assert!(run.annotations("error").iter().any(|(f, c)| f == SEED && c == "P118"));
}

#[test]
fn sarif_for_code_scanning() {
    let ws = workspace();
    let run = run_action(
        ws.path(),
        &[("format", "sarif"), ("sarif-file", "results/stagec.sarif")],
    );
    assert_eq!(run.status, 1, "{}", run.log);
    assert_eq!(
        run.outputs.get("sarif-file").map(String::as_str),
        Some("results/stagec.sarif")
    );
    let sarif_path: PathBuf = ws.path().join("results/stagec.sarif");
    let text = std::fs::read_to_string(&sarif_path).expect("the SARIF file was written");
    let sarif: Value = serde_json::from_str(&text).expect("the SARIF file is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let located: Vec<(String, String)> = results
        .iter()
        .map(|r| {
            (
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                r["ruleId"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    for code in ["P118", "C101", "C103"] {
        assert!(located.contains(&(SEED.to_string(), code.to_string())), "{located:?}");
    }
    assert!(run.annotations("error").is_empty(), "SARIF mode writes no annotations");
}

#[test]
fn bad_inputs_fail_with_an_annotation() {
    let ws = workspace();
    let run = run_action(ws.path(), &[("format", "human")]);
    assert_eq!(run.status, 2, "{}", run.log);
    assert!(run.log.contains("::error title=stagec::input `format`"), "{}", run.log);
}

/// A config whose name holds a line break (and a workflow command after
/// it) is found, checked and annotated under its own name, and forges no
/// line of the log (issue 21, item 4).
#[test]
fn a_file_name_with_a_line_break_is_checked_and_forges_nothing() {
    let ws = workspace();
    let name = "experiments/seed/evil\n::error title=forged::forged.yaml";
    let seed = std::fs::read_to_string(ws.path().join(SEED)).expect("the seed config");
    std::fs::write(ws.path().join(name), seed).expect("write the config");
    let added = Command::new("git")
        .args(["add", "-A"])
        .current_dir(ws.path())
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .status()
        .expect("git add");
    assert!(added.success());
    let run = run_action(ws.path(), &[]);
    assert_eq!(run.status, 1, "{}", run.log);
    assert!(
        run.log.contains("checking 3 experiment config(s)"),
        "the config is found:\n{}",
        run.log
    );
    let forged: Vec<&str> = run
        .log
        .lines()
        .filter(|l| l.contains("forged.yaml") && l.starts_with("::error title=forged"))
        .collect();
    assert!(forged.is_empty(), "forged lines: {forged:?}\n{}", run.log);
    // Its annotations carry the whole name, its line break as `%0A`.
    let property = "experiments/seed/evil%0A%3A%3Aerror title=forged%3A%3Aforged.yaml";
    let errors = run.annotations("error");
    assert!(
        errors.contains(&(property.to_string(), "P118".to_string())),
        "{errors:?}\n{}",
        run.log
    );
}
