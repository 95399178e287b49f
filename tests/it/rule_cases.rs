//! The rule cases: `tests/rules/<CODE>/` holds each rule's positive
//! (`pos_…`) and look-alike negative (`neg_…`) cases (the convention is in
//! `tests/rules/README.md`). Each case is checked as `stagec check` checks
//! it, with only its folder's rule enabled plus the codes its expectations
//! name; the `(file, code, line, column)` of what those rules report must be
//! exactly what the case's headers (or its sidecar `expect`) say. The
//! rendering of the whole check (every rule, as a plain `stagec check` prints
//! it) is snapshotted beside the cases, and the findings' fixes are applied
//! through `stagec::fix` (the `--fix --unsafe-fixes` path with its overlap
//! check) and the fixed texts snapshotted too.
//!
//! `STAGEC_RULE=C201` (a code prefix) runs only those folders' cases.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use stagec::selection::{RuleSelection, RuleSelector, Selection};
use stagec::Compiled;

use crate::common;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rules_dir() -> PathBuf {
    root().join("tests/rules")
}

/// `(file, code, line, column)`: the file relative to the case folder (the
/// file's own name for a single-file case), the position as the human
/// renderer prints it.
type Finding = (String, String, usize, usize);

/// One case: a config file or a project folder.
struct Case {
    /// The rule folder's code.
    code: String,
    /// `pos_…` or `neg_…`: the file name without `.yaml`, or the folder's.
    name: String,
    path: PathBuf,
}

impl Case {
    fn is_dir(&self) -> bool {
        self.path.is_dir()
    }

    fn title(&self) -> String {
        format!("{}/{}", self.code, self.name)
    }
}

/// Whether `code` is a registered rule's.
fn registered(code: &str) -> bool {
    stagec::rules::all().any(|r| r.code == code)
}

/// The rule folders under `tests/rules/`, by name.
fn rule_folders() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(rules_dir())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    out.sort();
    out
}

/// The cases of one rule folder: `*.yaml` files and folders other than
/// `snapshots/` (sidecar `*.expect` files belong to their case).
fn cases_in(code: &str, dir: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let path = e.path();
        let file = e.file_name().to_string_lossy().into_owned();
        let name = if path.is_dir() {
            if file == "snapshots" {
                continue;
            }
            file
        } else if let Some(stem) = file.strip_suffix(".yaml") {
            stem.to_string()
        } else {
            continue;
        };
        out.push(Case {
            code: code.to_string(),
            name,
            path,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn all_cases() -> Vec<Case> {
    let only = std::env::var("STAGEC_RULE").unwrap_or_default();
    rule_folders()
        .into_iter()
        .filter(|(code, _)| code.starts_with(only.as_str()))
        .flat_map(|(code, dir)| cases_in(&code, &dir))
        .collect()
}

/// Files under `dir`, recursively, relative to it.
fn files_under(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, base, out);
        } else if !e.file_type().is_ok_and(|t| t.is_symlink()) {
            // A link is the file it links to: its header states nothing
            // of its own.
            out.push(p.strip_prefix(base).unwrap_or(&p).to_path_buf());
        }
    }
}

/// What a case expects: its findings, and whether it said anything at all.
#[derive(Default)]
struct Expected {
    findings: BTreeSet<Finding>,
    stated: bool,
}

/// The header of a text: the comment lines at its top, up to the first
/// other line or a `# ----` line.
fn header(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .take_while(|l| l.starts_with('#') && !l.starts_with("# ----"))
}

/// Every `CODE at LINE:COL` in `line` whose code is a registered rule's.
fn findings_in(line: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find(" at ") {
        let code = rest[..i]
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next_back()
            .unwrap_or("");
        let after = &rest[i + 4..];
        let pos: String = after.chars().take_while(|c| c.is_ascii_digit() || *c == ':').collect();
        let mut nums = pos.split(':').filter_map(|n| n.parse::<usize>().ok());
        if registered(code) {
            if let (Some(l), Some(c)) = (nums.next(), nums.next()) {
                out.push((code.to_string(), l, c));
            }
        }
        rest = after;
    }
    out
}

/// The expectations in the headers of a case's files (from a `# expect:`
/// line on), or in its sidecar (`<case>.expect`, or `expect` in a folder).
fn expected(case: &Case) -> Result<Expected, String> {
    let mut out = Expected::default();
    let sidecar = if case.is_dir() {
        case.path.join("expect")
    } else {
        case.path.with_extension("expect")
    };
    if sidecar.is_file() {
        out.stated = true;
        let text = std::fs::read_to_string(&sidecar).map_err(|e| format!("{}: {e}", sidecar.display()))?;
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') || line == "none" {
                continue;
            }
            let parsed = line.split_once(' ').and_then(|(at, code)| {
                let mut parts = at.rsplitn(3, ':');
                let col = parts.next()?.parse().ok()?;
                let row = parts.next()?.parse().ok()?;
                let file = parts.next()?.to_string();
                Some((file, code.trim().to_string(), row, col))
            });
            match parsed {
                Some(f) if registered(&f.1) => {
                    out.findings.insert(f);
                }
                _ => {
                    return Err(format!(
                        "{}: cannot read {line:?} (FILE:LINE:COL CODE)",
                        sidecar.display()
                    ))
                }
            }
        }
    }
    let files: Vec<PathBuf> = if case.is_dir() {
        let mut files = Vec::new();
        files_under(&case.path, &case.path, &mut files);
        files.sort();
        files
    } else {
        vec![PathBuf::from(case.path.file_name().unwrap_or_default())]
    };
    let base = if case.is_dir() {
        case.path.clone()
    } else {
        case.path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    for file in files {
        let Ok(text) = std::fs::read_to_string(base.join(&file)) else {
            continue;
        };
        let name = file.to_string_lossy().replace('\\', "/");
        let mut expecting = false;
        for line in header(&text) {
            if line.contains("expect:") {
                expecting = true;
                out.stated = true;
            }
            if expecting {
                for (code, l, c) in findings_in(line) {
                    out.findings.insert((name.clone(), code, l, c));
                }
            }
        }
    }
    Ok(out)
}

/// The findings of the enabled rules, as `(file, code, line, column)`.
fn actual(case: &Case, checked: &Compiled) -> BTreeSet<Finding> {
    let prefix = format!("{}/", common::display_name(&case.path));
    checked
        .diagnostics
        .iter()
        .map(|d| {
            let p = stagec::render::position(&checked.sources, d.file, d.span);
            let file = if case.is_dir() {
                p.file.strip_prefix(&prefix).unwrap_or(&p.file).to_string()
            } else {
                Path::new(&p.file)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or(p.file.clone())
            };
            (file, d.code.to_string(), p.line, p.column)
        })
        .collect()
}

/// `--select` of exactly `codes`.
fn selection_of(codes: &BTreeSet<String>) -> Result<Selection, String> {
    let selectors = codes
        .iter()
        .map(|c| RuleSelector::parse(c).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Selection::new(&[RuleSelection {
        select: Some(selectors),
        ..RuleSelection::default()
    }]))
}

/// The training convention: each `T…` finding's fix in the whole check, as
/// the lines it edits, before and after.
fn training_fixes(checked: &Compiled) -> String {
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

/// The texts `stagec::fix` leaves after fixing the enabled rules' findings
/// (safe and unsafe fixes, with the overlap check and the re-checks), or
/// `None` when nothing changed.
fn fixed_texts(case: &Case, selection: &Selection) -> Option<String> {
    let project = common::case_project(&case.path);
    let options = common::options(Some(selection));
    let mut refresh = |p: &stagec::project::Project| Some(common::case_project_over(&case.path, &p.texts()));
    let outcome = stagec::fix::fix(&project, &options, stagec::fix::Level::All, &|_| {}, &mut refresh);
    if outcome.changed.is_empty() {
        return None;
    }
    let mut out = format!("rounds: {}\n", outcome.rounds);
    for changed in &outcome.changed {
        let fixed: Vec<String> = changed.fixed.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        out.push_str(&format!("===== {} (fixed: {})\n", changed.name, fixed.join(", ")));
        out.push_str(&changed.after);
        if !changed.after.ends_with('\n') {
            out.push_str("\n[no newline at the end]\n");
        }
    }
    let left: Vec<String> = outcome
        .compiled
        .diagnostics
        .iter()
        .map(|d| {
            let p = stagec::render::position(&outcome.compiled.sources, d.file, d.span);
            format!("{} at {}:{}", d.code, p.line, p.column)
        })
        .collect();
    out.push_str(&format!("===== left after fixing: {}\n", left.join(", ")));
    Some(out)
}

/// Runs one case; `Err` says what is wrong with it.
fn run_case(case: &Case) -> Result<(), String> {
    let want = expected(case)?;
    if !want.stated {
        return Err("states no expectation (`# expect: …` in a header, or a sidecar `expect`)".into());
    }
    let positive = case.name.starts_with("pos_");
    if !positive && !case.name.starts_with("neg_") {
        return Err("a case's name starts with `pos_` or `neg_`".into());
    }
    let own = want.findings.iter().filter(|f| f.1 == case.code).count();
    if positive && own == 0 {
        return Err(format!("a positive case expects {} somewhere", case.code));
    }
    if !positive && own > 0 {
        return Err(format!("a negative case expects no {}", case.code));
    }
    let mut codes: BTreeSet<String> = want.findings.iter().map(|f| f.1.clone()).collect();
    codes.insert(case.code.clone());
    let selection = selection_of(&codes)?;
    let checked = common::check_case(&case.path, Some(&selection));
    let got = actual(case, &checked);
    if got != want.findings {
        let missing: Vec<&Finding> = want.findings.difference(&got).collect();
        let extra: Vec<&Finding> = got.difference(&want.findings).collect();
        return Err(format!(
            "with {codes:?} enabled:\n  expected but not reported: {missing:?}\n  reported but not expected: {extra:?}\n{}",
            common::render(&checked)
        ));
    }
    // The whole check, as a plain `stagec check` prints it.
    let whole = common::check_case(&case.path, None);
    let mut rendered = common::render(&whole);
    if case.code.starts_with('T') {
        rendered = format!("{rendered}\n----- fixes -----\n{}", training_fixes(&whole));
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(rules_dir().join(&case.code).join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_input_file(&case.path);
    let fixed = fixed_texts(case, &selection);
    let name = case.name.clone();
    std::panic::catch_unwind(AssertUnwindSafe(|| {
        settings.bind(|| {
            insta::assert_snapshot!(name.clone(), rendered);
            if let Some(fixed) = &fixed {
                insta::assert_snapshot!(format!("{name}.fixed"), fixed);
            }
        })
    }))
    .map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "snapshot mismatch".into())
    })
}

/// Every case of every rule folder reports exactly what it expects, with
/// its snapshots unchanged; a failure names each failing case.
#[test]
fn every_case_reports_exactly_what_it_expects() {
    let cases = all_cases();
    assert!(!cases.is_empty(), "no case under tests/rules/");
    let mut failures = Vec::new();
    for case in &cases {
        match std::panic::catch_unwind(AssertUnwindSafe(|| run_case(case))) {
            Ok(Ok(())) => {}
            Ok(Err(why)) => failures.push(format!("{}: {why}", case.title())),
            Err(panic) => failures.push(format!(
                "{}: panicked: {}",
                case.title(),
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rule cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// Every registered rule has a folder with a positive and a negative case,
/// and every folder is a registered rule's.
#[test]
fn every_rule_has_a_positive_and_a_negative_case() {
    let folders: BTreeMap<String, PathBuf> = rule_folders().into_iter().collect();
    let mut missing = Vec::new();
    for rule in stagec::rules::all() {
        let cases = folders
            .get(rule.code)
            .map(|dir| cases_in(rule.code, dir))
            .unwrap_or_default();
        let pos = cases.iter().any(|c| c.name.starts_with("pos_"));
        let neg = cases.iter().any(|c| c.name.starts_with("neg_"));
        let lacks: Vec<&str> = [(!pos).then_some("pos_"), (!neg).then_some("neg_")]
            .into_iter()
            .flatten()
            .collect();
        if !lacks.is_empty() {
            missing.push(format!("{} ({}): no {}", rule.code, rule.name, lacks.join(", no ")));
        }
    }
    let unknown: Vec<&String> = folders.keys().filter(|c| !registered(c)).collect();
    assert!(
        unknown.is_empty(),
        "tests/rules/ folders of no registered rule: {unknown:?}"
    );
    assert!(
        missing.is_empty(),
        "{} of {} rules lack a case of their own in tests/rules/<CODE>/:\n  {}",
        missing.len(),
        stagec::rules::all().count(),
        missing.join("\n  ")
    );
}
