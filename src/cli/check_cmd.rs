//! `stagec check`.

use std::path::PathBuf;

use stagec::{compile, Options};

use super::{env_lookup, print_diagnostics, Format, Loader, SourceArgs};
use super::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};

pub(crate) fn run_check(files: &[PathBuf], sources: &SourceArgs, format: Format, deny_warnings: bool) -> u8 {
    let options = Options {
        env: &env_lookup,
        determined: sources.determined.as_deref(),
        ..Options::default()
    };
    let mut loader = match Loader::new(sources) {
        Ok(loader) => loader,
        Err(e) => {
            eprintln!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    // Settings files (`settings.rs`): a broken one stops the run.
    if let Err(e) = loader.settings.prepare(files) {
        eprintln!("stagec: {e}");
        return EXIT_USAGE;
    }
    let deny_warnings = deny_warnings || loader.settings.deny_warnings();
    let mut unreadable = false;
    let mut results = Vec::new();
    // Python files: training code (see `python_files`).
    let (python, files): (Vec<PathBuf>, Vec<PathBuf>) =
        files.iter().cloned().partition(|f| super::python_files::is_python(f));
    if !python.is_empty() {
        let (checked, problems) = super::python_files::check(&python, sources, &mut loader, &options);
        for p in &problems {
            eprintln!("stagec: {p}");
        }
        unreadable |= !problems.is_empty();
        results.extend(checked);
    }
    for path in &files {
        let (project, problems) = loader.project(path);
        for p in &problems {
            eprintln!("stagec: {p}");
        }
        unreadable |= !problems.is_empty();
        if let Some(project) = project {
            results.push(compile(&project, &loader.settings.resolved(path).options(&options)));
        }
    }
    let summary = print_diagnostics(&results, format);
    if unreadable {
        EXIT_USAGE
    } else if summary.errors > 0 || (deny_warnings && summary.warnings > 0) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}
