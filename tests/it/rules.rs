//! The rule table: one registration per rule file, unique codes and names
//! in code order, every rule documented, every rule fired by some fixture,
//! scenario or example, and diagnostics created only by rules.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use stagec::rules::{self, RULES};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The codes the rule files declare, by file.
fn declared_codes() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut files = Vec::new();
    rust_files(&root().join("src/rules"), &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        if !text.contains("declare_rule!") || f.ends_with("mod.rs") {
            continue;
        }
        let code = text
            .split("code: \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("{} declares a rule without a code", f.display()));
        out.insert(code.to_string(), f.display().to_string());
    }
    out
}

#[test]
fn every_rule_file_is_registered_once_in_code_order() {
    let registered: Vec<&str> = RULES.iter().map(|r| r.rule.code).collect();
    let unique: BTreeSet<&str> = registered.iter().copied().collect();
    assert_eq!(
        unique.len(),
        registered.len(),
        "a code is registered twice: {registered:?}"
    );
    let mut sorted = registered.clone();
    sorted.sort_unstable();
    assert_eq!(registered, sorted, "RULES is kept in code order");
    let declared = declared_codes();
    let declared_codes: BTreeSet<&str> = declared.keys().map(String::as_str).collect();
    assert_eq!(
        declared_codes, unique,
        "every rule file's rule is registered in rules::RULES, and only those"
    );
    let names: BTreeSet<&str> = RULES.iter().map(|r| r.rule.name).collect();
    assert_eq!(names.len(), RULES.len(), "rule names are unique");
}

#[test]
fn every_rule_is_documented() {
    for r in rules::all() {
        let text = rules::explanation_text(r);
        for section in ["## What it checks", "## Why", "## Example"] {
            assert!(text.contains(section), "{} lacks `{section}`:\n{text}", r.code);
        }
        assert!(
            !r.summary.is_empty() && !r.summary.ends_with('.'),
            "{}: {:?}",
            r.code,
            r.summary
        );
        assert!(
            r.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{}: {}",
            r.code,
            r.name
        );
        // Users have not read the notes this project grew from.
        assert!(!text.contains("field notes"), "{} cites the field notes", r.code);
    }
}

/// Every code some fixture, scenario or example fires, plus the cases only a
/// test can build (a file over the size budget, a probe of a GPU-less host).
fn fired_codes() -> BTreeSet<&'static str> {
    let mut fired = BTreeSet::new();
    let mut add = |c: &stagec::Compiled| fired.extend(c.diagnostics.iter().map(|d| d.code));
    let mut fixtures = Vec::new();
    collect(&root().join("tests/fixtures"), &mut fixtures);
    for f in fixtures.iter().filter(|f| f.extension().is_some_and(|e| e == "yaml")) {
        add(&common::check(
            &common::display_name(f),
            &std::fs::read(f).unwrap_or_default(),
        ));
    }
    // The rule cases: config files and project folders.
    for folder in std::fs::read_dir(root().join("tests/rules"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        for case in std::fs::read_dir(folder.path())
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            let path = case.path();
            let config = path.extension().is_some_and(|e| e == "yaml");
            let project = path.is_dir() && case.file_name() != "snapshots";
            if config || project {
                add(&common::check_case(&path, None));
            }
        }
    }
    for dir in ["tests/projects", "examples"] {
        for project in std::fs::read_dir(root().join(dir))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            if project.path().join("const.yaml").is_file() {
                add(&common::check_project_dir(&project.path()));
            }
        }
    }
    // Built here: more bytes than the budget, more diagnostics than are
    // listed, and a probe that found no GPU.
    add(&common::check("huge.yaml", &vec![b'#'; 9 * 1024 * 1024]));
    let repeated: String = (0..300).map(|_| "a: 1\n").collect();
    add(&common::check("repeated.yaml", repeated.as_bytes()));
    let probe = stagec::hardware::probe::load_recorded(include_str!("../probes/no-driver.json")).expect("recording");
    let project = stagec::project::Project {
        probe: Some(probe),
        models: Some(Vec::new()),
        ..stagec::project::Project::config_only("const.yaml", "name: x\n")
    };
    add(&stagec::compile(&project, &stagec::Options::default()));
    fired
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn every_rule_fires_somewhere() {
    let fired = fired_codes();
    let silent: Vec<&str> = rules::all().map(|r| r.code).filter(|c| !fired.contains(c)).collect();
    assert!(
        silent.is_empty(),
        "rules no fixture, scenario or example fires: {silent:?}"
    );
}

/// Whether `code` uses `pattern` on stagec's own `Diagnostic` (not
/// `lsp::Diagnostic`, `MietteDiagnostic`, a `JsonDiagnostic`).
fn constructs(code: &str, pattern: &str) -> bool {
    code.match_indices(pattern).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
    })
}

/// Only rules create diagnostics, through their `Sink`: a message's words
/// live in its rule's file.
#[test]
fn only_rules_create_diagnostics() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    rust_files(&root().join("lsp/src"), &mut files);
    let mut offenders = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(root())
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("src/rules/") || rel == "src/diagnostic.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        // Test modules may build diagnostics to test renderers.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        if constructs(code, "Diagnostic::new(") || constructs(code, "Diagnostic {") {
            offenders.push(rel);
        }
    }
    assert!(
        offenders.is_empty(),
        "diagnostics created outside src/rules/: {offenders:?}"
    );
}
