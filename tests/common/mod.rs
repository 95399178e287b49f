//! The one helper every data-driven test goes through: input bytes in,
//! rendered diagnostics out, exactly as a user sees them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use stagec::render::{self, human::Style, Report, Summary};
use stagec::{check_experiment, Checked, Options};

/// Variables that count as set in tests: a fixed environment, so snapshots
/// do not depend on the machine.
pub fn test_env(name: &str) -> Option<String> {
    name.starts_with("SET_").then(|| "value-from-test-env".to_string())
}

/// Checks `bytes` under `name` with the test environment.
pub fn check(name: &str, bytes: &[u8]) -> Checked {
    let opts = Options {
        env: &test_env,
        ..Options::default()
    };
    check_experiment(name, bytes, &opts)
}

/// Human (plain, fixed width) and JSON renderings of one check.
pub fn render(checked: &Checked) -> String {
    let reports = [Report {
        sources: &checked.sources,
        diagnostics: &checked.diagnostics,
    }];
    let summary = Summary::of(&reports, 1);
    let human = render::human::render(&reports, summary, Style::PLAIN);
    let json = render::json::render(&reports, summary);
    format!("{human}\n----- json -----\n{json}")
}

/// Renders a fixture file, naming it relative to `tests/`.
pub fn render_fixture(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    render(&check(&display_name(path), &bytes))
}

pub fn display_name(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
        .replace('\\', "/")
}

/// `../shared` beside the checkout, if this clone has it.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("notice: ../shared is absent; skipping this test (users' clones do not have it)");
        None
    }
}

/// Checks a project folder the way `stagec check DIR/const.yaml` does: the
/// config, its model sources (`*.py`, `stages.yaml`) and an optional
/// `inventory.*`.
pub fn check_project_dir(dir: &Path) -> Checked {
    let read = |p: &Path| stagec::project::Input {
        name: display_name(p),
        bytes: std::fs::read(p).unwrap_or_default(),
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    let name = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let models = entries
        .iter()
        .filter(|p| {
            let n = name(p);
            n.ends_with(".py") || n == "stages.yaml" || n == "stages.yml"
        })
        .map(|p| read(p))
        .collect();
    let inventory = entries
        .iter()
        .find(|p| name(p).starts_with("inventory."))
        .map(|p| read(p));
    let project = stagec::project::Project {
        config: read(&dir.join("const.yaml")),
        models,
        inventory,
        probe: None,
        searched: format!("`{}`", display_name(dir)),
    };
    let opts = Options {
        env: &test_env,
        ..Options::default()
    };
    stagec::project::check_project(&project, &opts)
}

/// Error codes of a check, sorted.
pub fn error_codes(checked: &Checked) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == stagec::Severity::Error)
        .map(|d| d.code)
        .collect();
    codes.sort_unstable();
    codes
}
