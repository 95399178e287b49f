//! The one helper every data-driven test goes through: input bytes in,
//! rendered diagnostics out, exactly as a user sees them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use stagec::project::{ContextScan, Disk, Project, SourceSpec};
use stagec::render::{self, human::Style, Report, Summary};
use stagec::{check_experiment, Compiled, Options};

/// Variables that count as set in tests: a fixed environment, so snapshots
/// do not depend on the machine.
pub fn test_env(name: &str) -> Option<String> {
    name.starts_with("SET_").then(|| "value-from-test-env".to_string())
}

/// Checks `bytes` under `name` with the test environment.
pub fn check(name: &str, bytes: &[u8]) -> Compiled {
    let opts = Options {
        env: &test_env,
        ..Options::default()
    };
    check_experiment(name, bytes, &opts)
}

/// Human (plain, fixed width) and JSON renderings of one check.
pub fn render(checked: &Compiled) -> String {
    let reports = [Report::of(checked)];
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

/// `../shared` beside the checkout, if this clone has it. Users' clones do
/// not, and the tests that need it skip with a notice; where it must be
/// there (CI sets `STAGEC_REQUIRE_SHARED`), its absence fails the test.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("STAGEC_REQUIRE_SHARED").is_none(),
        "../shared is absent, but STAGEC_REQUIRE_SHARED says this run needs it"
    );
    eprintln!("notice: ../shared is absent; skipping this test (users' clones do not have it)");
    None
}

/// Checks a project folder the way `stagec check DIR/const.yaml` does (the
/// same discovery of model sources), with the folder's `inventory.*` as
/// `--inventory`. Paths are relative to the package, as a user in the
/// checkout would type them.
pub fn check_project_dir(dir: &Path) -> Compiled {
    let relative = PathBuf::from(display_name(dir));
    let inventory = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("inventory."))
        })
        .min()
        .map(|p| relative.join(p.file_name().unwrap_or_default()));
    let spec = SourceSpec {
        inventory,
        ..SourceSpec::default()
    };
    let scan = ContextScan::new(&relative);
    assert!(scan.problems.is_empty(), "{:?}", scan.problems);
    let (project, problems): (Project, Vec<String>) =
        Project::discover(&relative.join("const.yaml"), &spec, Some(&scan), &Disk).unwrap_or_else(|e| panic!("{e}"));
    assert!(problems.is_empty(), "{problems:?}");
    let opts = Options {
        env: &test_env,
        ..Options::default()
    };
    stagec::compile(&project, &opts)
}

/// Error codes of a check, sorted.
pub fn error_codes(checked: &Compiled) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == stagec::Severity::Error)
        .map(|d| d.code)
        .collect();
    codes.sort_unstable();
    codes
}
