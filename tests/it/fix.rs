//! `stagec check --fix`, `--unsafe-fixes` and `--diff`, through the
//! command line on copies of the examples; and, over every fixture and
//! project, that fixing never makes the check report something new.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stagec::fix::{self, Level};
use stagec::project::{ContextScan, Disk, Project, SourceSpec};
use stagec::Options;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn stagec(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args(args)
        .current_dir(dir)
        .env("COLUMNS", "100")
        .env_remove("S3_ACCESS_KEY")
        .env_remove("S3_SECRET_KEY")
        .output()
        .expect("run stagec")
}

/// A scratch copy of an example folder.
fn copy_example(name: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stagec-fix-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    for e in std::fs::read_dir(root().join("examples").join(name))
        .expect("example")
        .flatten()
    {
        if e.path().is_file() {
            std::fs::copy(e.path(), dir.join(e.file_name())).expect("copy");
        }
    }
    dir
}

fn text(o: &Output) -> String {
    format!(
        "----- stdout -----\n{}----- stderr -----\n{}----- status: {:?}\n",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
        o.status.code()
    )
}

fn diff_of(before: &str, after: &str, name: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(1)
        .header(name, name)
        .to_string()
}

#[test]
fn the_field_notes_experiment_fixed_end_to_end() {
    let dir = copy_example("hpp-seed", "seed");
    let original = |f: &str| std::fs::read_to_string(root().join("examples/hpp-seed").join(f)).expect("read");
    let now = |f: &str| std::fs::read_to_string(dir.join(f)).expect("read");

    // --diff writes nothing and exits 1.
    let diff = stagec(&dir, &["check", "const.yaml", "--diff"]);
    assert_eq!(diff.status.code(), Some(1), "{}", text(&diff));
    assert_eq!(now("const.yaml"), original("const.yaml"));
    let shown = String::from_utf8_lossy(&diff.stdout).into_owned();
    assert!(shown.starts_with("--- const.yaml\n+++ const.yaml\n"), "{shown}");

    // --fix: the safe fixes only; the errors that need a decision remain,
    // and the summary says so.
    let fixed = stagec(&dir, &["check", "const.yaml", "--fix", "--format", "concise"]);
    assert_eq!(fixed.status.code(), Some(1), "{}", text(&fixed));
    let safe_diff = diff_of(&original("const.yaml"), &now("const.yaml"), "const.yaml");
    // What --diff showed is what --fix wrote.
    assert_eq!(
        shown,
        similar::TextDiff::from_lines(&original("const.yaml"), &now("const.yaml"))
            .unified_diff()
            .context_radius(3)
            .header("const.yaml", "const.yaml")
            .to_string()
    );
    let out = String::from_utf8_lossy(&fixed.stdout).into_owned();
    assert!(out.contains("Fixed 2 problems (C103, C211)."), "{out}");
    assert!(out.contains("each needing a human decision"), "{out}");
    assert!(!out.contains(" C103 ") && !out.contains(" C211 "), "{out}");

    // --unsafe-fixes: the rest of the fixes; what is left has no fix.
    let all = stagec(
        &dir,
        &["check", "const.yaml", "--fix", "--unsafe-fixes", "--format", "concise"],
    );
    let unsafe_diff = diff_of(&original("const.yaml"), &now("const.yaml"), "const.yaml")
        + &diff_of(&original("train.py"), &now("train.py"), "train.py");
    assert_eq!(all.status.code(), Some(0), "{}", text(&all));
    // A fresh check agrees with what --fix reported.
    let again = stagec(&dir, &["check", "const.yaml", "--format", "concise"]);
    let report = |o: &Output| {
        let s = String::from_utf8_lossy(&o.stdout).into_owned();
        s.lines()
            .filter(|l| l.contains(": "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let mut after_fix = report(&all);
    after_fix.retain(|l| !l.starts_with("Fixed "));
    assert_eq!(after_fix, report(&again));
    insta::assert_snapshot!(
        "field_notes_fixed",
        format!(
            "===== --fix =====\n{safe_diff}\n{}\n===== --fix --unsafe-fixes =====\n{unsafe_diff}\n{}",
            String::from_utf8_lossy(&fixed.stdout),
            String::from_utf8_lossy(&all.stdout)
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn crlf_comments_and_quoting_survive_a_fix() {
    let dir = std::env::temp_dir().join(format!("stagec-fix-crlf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let config = "# experiment\r\nname: \"crlf\"   # quoted\r\nentrypoint: python3 -m determined.launch.torch_distributed --trial model_def:T\r\nsearcher:\r\n  name: single\r\n  metric: 'loss'\r\n  max_length:\r\n    batches: 10\r\nhyperparameters:\r\n  lr:\r\n    type: log    # keep me\r\n    minval: -5\r\n    maxval: -2\r\n";
    std::fs::write(dir.join("const.yaml"), config).expect("write");
    let o = stagec(&dir, &["check", "const.yaml", "--fix"]);
    let after = std::fs::read_to_string(dir.join("const.yaml")).expect("read");
    assert_ne!(after, config, "{}", text(&o));
    assert!(after.contains("base: 10\r\n"), "{after:?}");
    assert!(!after.replace("\r\n", "").contains('\n'), "a bare LF: {after:?}");
    assert!(after.contains("# quoted\r\n") && after.contains("# keep me\r\n") && after.contains("metric: 'loss'"));
    // Only the added line differs.
    let removed: Vec<&str> = config.lines().filter(|l| !after.lines().any(|a| a == *l)).collect();
    assert!(removed.is_empty(), "{removed:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdin_is_fixed_to_stdout() {
    use std::io::Write;
    // A folder of its own: `--stdin-filename` places the config there, and
    // the check reads that folder as the experiment's context (the shared
    // temporary folder holds whatever other processes put there meanwhile).
    let dir = std::env::temp_dir().join(format!("stagec-fix-stdin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let mut child = Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args([
            "check",
            "-",
            "--fix",
            "--stdin-filename",
            "exp.yaml",
            "--format",
            "json",
        ])
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run stagec");
    let config = "name: x\nentrypoint: python3 train.py\nhyperparameters:\n  lr:\n    type: log\n    minval: -5\n    maxval: -2\n";
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(config.as_bytes())
        .expect("write");
    let o = child.wait_with_output().expect("wait");
    let _ = std::fs::remove_dir_all(&dir);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with("name: x\n") && out.contains("    base: 10\n"),
        "{}",
        text(&o)
    );
}

/// Every fixture and project: applying every fix (safe and unsafe) leaves
/// nothing the check did not report before.
#[test]
fn fixing_introduces_nothing() {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let rule_folders: Vec<PathBuf> = std::fs::read_dir(root().join("tests/rules"))
        .expect("tests/rules")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    let bases = [root().join("tests/projects"), root().join("examples")];
    for base in bases.iter().chain(&rule_folders) {
        for e in std::fs::read_dir(base).expect("folder").flatten() {
            if e.path().join("const.yaml").is_file() {
                dirs.push(e.path());
            }
        }
    }
    dirs.sort();
    let options = Options {
        env: &common::test_env,
        ..Options::default()
    };
    let mut fixed_any = 0;
    for dir in &dirs {
        let relative = PathBuf::from(common::display_name(dir));
        let scan = ContextScan::new(&relative);
        let Ok((project, _)) =
            Project::discover(&relative.join("const.yaml"), &SourceSpec::default(), Some(&scan), &Disk)
        else {
            continue;
        };
        let before = stagec::compile(&project, &options);
        let outcome = fix::fix(&project, &options, Level::All, &|_| {}, &mut |p| {
            Project::discover(
                &relative.join("const.yaml"),
                &SourceSpec::default(),
                Some(&scan),
                &p.texts(),
            )
            .ok()
            .map(|(p, _)| p)
        });
        if !outcome.changed.is_empty() {
            fixed_any += 1;
        }
        let known: std::collections::BTreeSet<(&str, &str)> = before
            .diagnostics
            .iter()
            .map(|d| (d.code, d.message.as_str()))
            .collect();
        for d in &outcome.compiled.diagnostics {
            assert!(
                known.contains(&(d.code, d.message.as_str())),
                "{}: fixing introduced {} {}",
                relative.display(),
                d.code,
                d.message
            );
        }
        // Fixed diagnostics are gone.
        for (code, _) in &outcome.fixed {
            let left = outcome
                .compiled
                .diagnostics
                .iter()
                .filter(|d| d.code == *code && d.fix.is_some())
                .count();
            let had = before.diagnostics.iter().filter(|d| d.code == *code).count();
            assert!(left < had, "{}: {code} fixed but still there", relative.display());
        }
    }
    assert!(fixed_any >= 10, "only {fixed_any} projects had a fix");
}
