//! The one helper every data-driven test goes through: input bytes in,
//! rendered diagnostics out, exactly as a user sees them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

#[path = "../support/tools.rs"]
pub mod tools;

use stagec::project::{ContextScan, Disk, Overlay, Project, SourceSpec};
use stagec::render::{self, human::Style, Report, Summary};
use stagec::selection::Selection;
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
    tools::skip(
        "STAGEC_REQUIRE_SHARED",
        "this test",
        "../shared is absent (users' clones do not have it)",
    )
}

/// The options every test check uses: the test environment and, when
/// given, a rule selection (as `--select` makes one).
pub fn options(selection: Option<&Selection>) -> Options<'_> {
    Options {
        env: &test_env,
        selection,
        ..Options::default()
    }
}

/// Checks a project folder the way `stagec check DIR/const.yaml` does (the
/// same discovery of model sources), with the folder's `inventory.*` as
/// `--inventory`. Paths are relative to the package, as a user in the
/// checkout would type them.
pub fn check_project_dir(dir: &Path) -> Compiled {
    check_case(dir, None)
}

/// Checks a case as the command line would: a single file as
/// `stagec check FILE` does, a folder as `stagec check DIR/const.yaml`
/// (see [`case_project`]), with `selection` as `--select` gives it.
pub fn check_case(path: &Path, selection: Option<&Selection>) -> Compiled {
    stagec::compile(&case_project(path), &options(selection))
}

/// The project `stagec check` builds for a case: a single file on its own,
/// or a folder with its `const.yaml` and the model sources and training
/// files discovery finds; the folder's `inventory.*` is `--inventory`, its
/// `probe.json` `--probe-recording`, and Python files whose header has a
/// `# named:` line are named on the command line (with the folder's
/// experiment, or on their own when it has none).
pub fn case_project(path: &Path) -> Project {
    case_project_over(path, &Disk)
}

/// [`case_project`] with the texts `overlay` holds instead of the files'
/// (what `--fix` discovers again after editing).
pub fn case_project_over(path: &Path, overlay: &dyn Overlay) -> Project {
    if !path.is_dir() {
        let name = display_name(path);
        let bytes = match overlay.text(Path::new(&name)) {
            Some(text) => text.as_bytes().to_vec(),
            None => std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        };
        return Project::config_only(name, bytes);
    }
    let dir = path;
    let relative = PathBuf::from(display_name(dir));
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    let inventory = entries
        .iter()
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("inventory."))
        })
        .map(|p| relative.join(p.file_name().unwrap_or_default()));
    let probe = entries
        .iter()
        .find(|p| p.file_name().is_some_and(|n| n == "probe.json"))
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            stagec::hardware::probe::load_recorded(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        });
    let spec = SourceSpec {
        inventory,
        probe,
        ..SourceSpec::default()
    };
    let scan = ContextScan::new(&relative);
    assert!(scan.problems.is_empty(), "{:?}", scan.problems);
    let named = named_files(dir);
    if !named.is_empty() && !dir.join("const.yaml").exists() {
        // No experiment in the folder: the named files on their own.
        let (project, problems) = Project::python_only(&named, &scan, overlay);
        assert!(problems.is_empty(), "{problems:?}");
        return project;
    }
    let (project, problems): (Project, Vec<String>) =
        Project::discover_with(&relative.join("const.yaml"), &spec, Some(&scan), overlay, &named)
            .unwrap_or_else(|e| panic!("{e}"));
    assert!(problems.is_empty(), "{problems:?}");
    project
}

/// Python files under `dir`, recursively.
pub fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            python_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

/// The Python files of a folder whose header says they are named on the
/// command line, as the context scan names them.
pub fn named_files(dir: &Path) -> Vec<PathBuf> {
    let relative = PathBuf::from(display_name(dir));
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
