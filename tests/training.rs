//! Training-code checks (`T…`, issue 12): each folder under
//! `tests/training/` is an experiment (a `const.yaml` and the script its
//! entrypoint runs) and each `tests/projects/training_*` one a multi-file
//! project. Every Python file's header lists the findings expected in it
//! (`T101 at 52:17 …`, or "no finding"); the test asserts exactly those codes
//! at exactly those positions, and snapshots the rendering with each
//! finding's fix (the edited lines). A file whose header has a `# named:`
//! line is named on the command line, as `stagec check FILE.py` does with
//! the experiment in its folder.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use stagec::project::{ContextScan, Disk, Project, SourceSpec};
use stagec::{Compiled, Options};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The experiment folders with training fixtures.
fn folders() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for base in ["tests/training", "tests/projects"] {
        for e in std::fs::read_dir(root().join(base))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() && (base == "tests/training" || name.starts_with("training_")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Python files under `dir`, recursively.
fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            python_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

type Finding = (String, String, usize, usize);

/// The Python files of a fixture whose header says they are named on the
/// command line, as the context scan names them.
fn named_files(dir: &Path) -> Vec<PathBuf> {
    let relative = PathBuf::from(common::display_name(dir));
    let mut files = Vec::new();
    python_files(dir, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            text.lines()
                .take_while(|l| !l.starts_with("# ----"))
                .any(|l| l.starts_with("# named:"))
        })
        .map(|f| relative.join(f.strip_prefix(dir).unwrap_or(&f)))
        .collect()
}

/// Checks a fixture folder: as `stagec check DIR/const.yaml` does, or with
/// its named files as `stagec check FILE.py` does (with the folder's
/// experiment, or on their own when it has no `const.yaml`).
fn check_dir(dir: &Path) -> Compiled {
    let named = named_files(dir);
    if named.is_empty() {
        return common::check_project_dir(dir);
    }
    let relative = PathBuf::from(common::display_name(dir));
    let scan = ContextScan::new(&relative);
    assert!(scan.problems.is_empty(), "{:?}", scan.problems);
    let opts = Options {
        env: &common::test_env,
        ..Options::default()
    };
    if !dir.join("const.yaml").exists() {
        // No experiment in the folder: the named files on their own.
        let (project, problems) = Project::python_only(&named, &scan, &Disk);
        assert!(problems.is_empty(), "{problems:?}");
        return stagec::compile(&project, &opts);
    }
    let discovered = Project::discover_with(
        &relative.join("const.yaml"),
        &SourceSpec::default(),
        Some(&scan),
        &Disk,
        &named,
    );
    let (project, problems) = match discovered {
        Ok(found) => found,
        Err(e) => panic!("{e}"),
    };
    assert!(problems.is_empty(), "{problems:?}");
    stagec::compile(&project, &opts)
}

/// `(file, code, line, column)` of each `Txxx at L:C` in the headers (the
/// comment lines before `# ----`).
fn expected(dir: &Path) -> BTreeSet<Finding> {
    let mut files = Vec::new();
    python_files(dir, &mut files);
    // The config's comments may expect findings in it (T100, T113).
    files.push(dir.join("const.yaml"));
    let mut out = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let rel = f.strip_prefix(dir).unwrap_or(&f).to_string_lossy().replace('\\', "/");
        let yaml = rel.ends_with(".yaml");
        for line in text.lines() {
            if line.starts_with("# ----") {
                break;
            }
            if yaml && !line.starts_with('#') {
                continue;
            }
            let mut rest = line;
            while let Some(i) = rest.find(" at ") {
                let before = &rest[..i];
                let code = before.split_whitespace().last().unwrap_or("");
                let after = &rest[i + 4..];
                let pos: String = after.chars().take_while(|c| c.is_ascii_digit() || *c == ':').collect();
                let mut nums = pos.split(':').filter_map(|n| n.parse::<usize>().ok());
                if code.len() == 4 && code.starts_with('T') && code[1..].chars().all(|c| c.is_ascii_digit()) {
                    if let (Some(l), Some(c)) = (nums.next(), nums.next()) {
                        out.insert((rel.clone(), code.to_string(), l, c));
                    }
                }
                rest = after;
            }
        }
    }
    out
}

fn actual(dir: &Path, checked: &Compiled) -> BTreeSet<Finding> {
    let prefix = format!("{}/", common::display_name(dir));
    checked
        .diagnostics
        .iter()
        .filter(|d| d.code.starts_with('T'))
        .map(|d| {
            let p = stagec::render::position(&checked.sources, d.file, d.span);
            let file = p.file.strip_prefix(&prefix).unwrap_or(&p.file).to_string();
            (file, d.code.to_string(), p.line, p.column)
        })
        .collect()
}

/// The fixes of the training findings: each edit as the lines it changes,
/// before and after.
fn fixes(checked: &Compiled) -> String {
    let mut out = String::new();
    for d in checked.diagnostics.iter().filter(|d| d.code.starts_with('T')) {
        let Some(fix) = &d.fix else { continue };
        out.push_str(&format!("{} fix ({:?}): {}\n", d.code, fix.applicability, fix.title));
        for e in &fix.edits {
            let Some(file) = checked.sources.get(e.file) else {
                continue;
            };
            let text = &file.text;
            let start = text[..e.span.start].rfind('\n').map_or(0, |i| i + 1);
            let end = e.span.end + text[e.span.end..].find('\n').unwrap_or(text.len() - e.span.end);
            let mut after = text[start..e.span.start].to_string();
            after.push_str(&e.replacement);
            after.push_str(&text[e.span.end..end]);
            out.push_str(&format!("  {}\n", file.name));
            for l in text[start..end].lines() {
                out.push_str(&format!("  - {l}\n"));
            }
            for l in after.lines() {
                out.push_str(&format!("  + {l}\n"));
            }
        }
    }
    out
}

#[test]
fn training_fixtures_report_what_their_headers_expect() {
    let dirs = folders();
    assert!(dirs.len() >= 50, "{dirs:?}");
    let mut failures = Vec::new();
    let mut snapshots = Vec::new();
    for dir in &dirs {
        let checked = check_dir(dir);
        let want = expected(dir);
        let got = actual(dir, &checked);
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if want != got {
            failures.push(format!(
                "{name}:\n  expected {want:?}\n  found    {got:?}\n{}",
                common::render(&checked)
            ));
            continue;
        }
        snapshots.push((
            name,
            format!("{}\n----- fixes -----\n{}", common::render(&checked), fixes(&checked)),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for (name, rendered) in snapshots {
        let snapshot = if name.starts_with("training_") {
            name
        } else {
            format!("training_{name}")
        };
        insta::assert_snapshot!(snapshot, rendered);
    }
}

/// Every training rule fires in some fixture, and some fixture of each
/// rule is silent: both ways.
#[test]
fn every_training_rule_is_covered_both_ways() {
    let mut fired: BTreeSet<String> = BTreeSet::new();
    let mut silent_named: BTreeSet<String> = BTreeSet::new();
    for dir in folders() {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let checked = check_dir(&dir);
        let codes: BTreeSet<String> = checked.diagnostics.iter().map(|d| d.code.to_string()).collect();
        fired.extend(codes.iter().filter(|c| c.starts_with('T')).cloned());
        if name.contains("_neg_") {
            silent_named.insert(name);
        }
    }
    for rule in stagec::rules::all().filter(|r| r.code.starts_with('T')) {
        assert!(fired.contains(rule.code), "{} fires in no training fixture", rule.code);
    }
    assert!(silent_named.len() >= 25, "{silent_named:?}");
}

/// Discovery parses the config to find the entrypoint and the compilation
/// takes that parse: what a check reports is the same as when the
/// compilation parses the config itself.
#[test]
fn the_config_discovery_parsed_gives_the_same_check() {
    let mut taken = 0;
    let mut reported = 0;
    for dir in folders().into_iter().chain([root().join("examples/hpp-seed")]) {
        if !dir.join("const.yaml").exists() {
            continue;
        }
        let relative = PathBuf::from(common::display_name(&dir));
        let scan = ContextScan::new(&relative);
        let opts = Options {
            env: &common::test_env,
            ..Options::default()
        };
        let (project, _) =
            match Project::discover(&relative.join("const.yaml"), &SourceSpec::default(), Some(&scan), &Disk) {
                Ok(found) => found,
                Err(e) => panic!("{e}"),
            };
        let mut parsed_again = project.clone();
        if let Some(t) = parsed_again.training.as_mut() {
            t.config = None;
        }
        let kept = |p: &Project| {
            p.training
                .as_ref()
                .and_then(|t| t.config.as_ref())
                .is_some_and(|k| k.is_held())
        };
        let held = kept(&project);
        let with = stagec::compile(&project, &opts);
        // The compilation took it (the tree is not held twice).
        if held {
            taken += 1;
            assert!(!kept(&project), "{}", dir.display());
        }
        let without = stagec::compile(&parsed_again, &opts);
        reported += with.diagnostics.len();
        assert_eq!(with.diagnostics, without.diagnostics, "{}", dir.display());
    }
    assert!(taken > 5, "discovery kept a parse of {taken} configs");
    assert!(reported > 20, "{reported} diagnostics in all");
}
