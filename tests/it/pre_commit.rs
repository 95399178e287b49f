//! The `stagec` pre-commit hook (`.pre-commit-hooks.yaml`), run by pre-commit
//! itself as a user tries it: pre-commit from PyPI (installed into
//! `target/tools/` by `scripts/install-test-tools.sh pre-commit`), then
//! `pre-commit try-repo <this repository> stagec --all-files` in a scratch git
//! repository holding the field notes' experiment (`examples/hpp-seed`).
//! pre-commit builds the hook from this repository with `cargo install --path
//! .`, as it does for every `language: rust` hook.
//!
//! `try-repo` on a local path takes the repository's HEAD plus the changes to
//! tracked files (it commits them into a shadow clone), so the test sees the
//! working tree's `.pre-commit-hooks.yaml` once it is tracked; on a clean
//! clone (CI) that is HEAD.
//!
//! Build time: `try-repo` clones into a fresh store each time, so pre-commit
//! builds stagec on every run. The test points cargo at a persistent target
//! folder (`target/pre-commit-cargo`) and builds the hook unoptimised,
//! without LTO and incrementally (`CARGO_PROFILE_RELEASE_*`): on a shared
//! 2-core machine the first `try-repo` takes about 3 minutes and the second
//! about one (with the release profile's LTO left on, the test took 10½
//! minutes; an optimised cold build, as users get it, takes 8 to 9 minutes
//! there).
//!
//! Skipped with a printed notice unless pre-commit is already installed in
//! `target/tools/` or `STAGEC_REQUIRE_TOOLS` is set (which installs it, and
//! makes a missing registry or checkout a failure).

use crate::common::tools;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// Long enough for a cold build of stagec inside pre-commit on a slow,
/// shared machine.
const LIMIT: Duration = Duration::from_secs(25 * 60);

fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap_or_else(|e| panic!("cannot run git {args:?}: {e}"))
}

/// The folder cargo builds into (`…/target`), found from this test's binary
/// (`target/<profile>/deps/pre_commit-…`).
fn cargo_target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| tools::repo_root().join("target"))
}

fn try_repo(pre_commit: &Path, repo: &Path, work: &Path) -> (Output, String) {
    let target = cargo_target_dir().join("pre-commit-cargo");
    let mut cmd = Command::new(pre_commit);
    cmd.args(["try-repo"])
        .arg(repo)
        .args(["stagec", "--all-files", "--verbose", "--color", "never"])
        .current_dir(work)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("SKIP")
        .env_remove("S3_ACCESS_KEY")
        .env_remove("S3_SECRET_KEY")
        .env("NO_COLOR", "1")
        // `cargo install --path .` inside pre-commit honours these: a
        // persistent target folder and a quick, incremental build.
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "true")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
        // The release profile's fat LTO makes the whole program one unit
        // of code generation, whatever the codegen units say.
        .env("CARGO_PROFILE_RELEASE_LTO", "off");
    let started = std::time::Instant::now();
    let out = tools::output_within(&mut cmd, LIMIT);
    eprintln!("pre-commit try-repo took {:.1?}", started.elapsed());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

#[test]
fn pre_commit_hook_fails_on_the_seed_then_passes_once_fixed() {
    let repo = tools::repo_root();
    let inside = git(&repo, &["rev-parse", "--is-inside-work-tree"]);
    if !inside.status.success() || git(&repo, &["rev-parse", "HEAD"]).status.code() != Some(0) {
        let why = format!(
            "{} is not a git checkout with a commit; pre-commit try-repo needs one",
            repo.display()
        );
        let _: Option<()> = tools::skip(tools::REQUIRE_TOOLS, "pre_commit", &why);
        return;
    }
    let tracked = git(&repo, &["ls-files", "--error-unmatch", ".pre-commit-hooks.yaml"]);
    assert!(
        tracked.status.success(),
        ".pre-commit-hooks.yaml is not tracked by git: pre-commit try-repo sees HEAD and tracked \
         changes only (`git add .pre-commit-hooks.yaml`)"
    );
    let Some(pre_commit) = tools::install("pre-commit", "pre_commit") else {
        return;
    };

    let work = tools::TempDir::new("stagec-pre-commit");
    let dir = work.path();
    tools::copy_files(&repo.join("examples/hpp-seed"), dir);
    // YAML that is not an experiment: the hook must leave it alone.
    std::fs::create_dir_all(dir.join("k8s")).expect("k8s folder");
    std::fs::write(
        dir.join("k8s/pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n",
    )
    .expect("write pod.yaml");
    assert!(
        git(dir, &["init", "-q"]).status.success(),
        "git init in {}",
        dir.display()
    );
    assert!(
        git(dir, &["add", "-A"]).status.success(),
        "git add in {}",
        dir.display()
    );

    // The field notes' experiment as written: the hook fails with the
    // errors `stagec check` reports, and reads the stages from model.py.
    let text = hook(&pre_commit, &repo, dir, 1, "Failed");
    for (code, what) in [
        ("C101", "unknown key `checkpoints`"),
        ("P118", "`slots_per_trial: 8` does not fit 3 pipeline stages"),
        ("C103", "missing required key `base`"),
        ("P206", "stage 1 receives `fp16` activations"),
    ] {
        assert!(text.contains(code), "expected {code} in pre-commit's output:\n{text}");
        assert!(text.contains(what), "expected {what:?} in pre-commit's output:\n{text}");
    }
    assert!(text.contains("5 errors"), "expected `5 errors` in the summary:\n{text}");
    // model.py and train.py are sources, not configs: never parsed as YAML.
    assert!(!text.contains("Y001"), "a Python file was checked as YAML:\n{text}");
    assert!(!text.contains("pod.yaml"), "a Kubernetes manifest was checked:\n{text}");

    // `stagec check --fix`: the safe fixes (`base: 10`, the lr bounds as
    // exponents) in place; what is left needs a person.
    let fix = std::process::Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args(["check", "--fix", "--format", "concise", "const.yaml"])
        .current_dir(dir)
        .env_remove("S3_ACCESS_KEY")
        .env_remove("S3_SECRET_KEY")
        .output()
        .expect("run stagec check --fix");
    let report = String::from_utf8_lossy(&fix.stdout).into_owned();
    assert_eq!(
        fix.status.code(),
        Some(1),
        "errors that need a decision remain:\n{report}"
    );
    assert!(report.contains("Fixed 2 problems (C103, C211)."), "{report}");
    let config = std::fs::read_to_string(dir.join("const.yaml")).expect("read const.yaml");
    assert!(
        config.contains("    base: 10\n") && config.contains("minval: -5"),
        "{config}"
    );
    for code in ["C101", "P118", "R103", "R104"] {
        assert!(
            report.contains(&format!(" {code} ")),
            "{code} should be left for a person:\n{report}"
        );
    }
    // The decisions, made by hand as a person would: 3 stages × 2 replicas,
    // Determined's checkpoint_storage, an image with fp8 and sm_90, the
    // trial class named in the entrypoint.
    let edited = config
        .replace("entrypoint: python train.py", "entrypoint: python3 -m determined.launch.torch_distributed --trial train:HybridTrial")
        .replace("slots_per_trial: 8", "slots_per_trial: 6")
        .replace("image: determinedai/environments:py-3.9-pt-1.13-cu117", "image: determinedai/pytorch-ngc:0.38.1")
        .replace(
            "checkpoints:\n  storage_type: s3\n  config:\n    bucket: determined-checkpoints-prod\n    access_key: ${S3_ACCESS_KEY}\n    secret_key: ${S3_SECRET_KEY}\n",
            "checkpoint_storage:\n  type: s3\n  bucket: determined-checkpoints-prod\n  access_key: ${S3_ACCESS_KEY}\n  secret_key: ${S3_SECRET_KEY}\n",
        );
    assert_ne!(edited, config);
    std::fs::write(dir.join("const.yaml"), edited).expect("write const.yaml");
    assert!(
        git(dir, &["add", "-A"]).status.success(),
        "git add in {}",
        dir.display()
    );

    let text = hook(&pre_commit, &repo, dir, 0, "Passed");
    assert!(text.contains("0 errors"), "expected `0 errors` in the summary:\n{text}");
}

/// Runs the hook on the scratch repository `dir`: pre-commit's exit status
/// and the hook's result word are as expected; returns the output.
fn hook(pre_commit: &Path, repo: &Path, dir: &Path, status: i32, result: &str) -> String {
    let (out, text) = try_repo(pre_commit, repo, dir);
    assert_eq!(
        out.status.code(),
        Some(status),
        "pre-commit should end with {status} (scratch repo {}):\n{text}",
        dir.display()
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("stagec..."))
        .unwrap_or_else(|| panic!("no `stagec...` result line in pre-commit's output:\n{text}"));
    assert!(line.ends_with(result), "{line}\n{text}");
    text
}
