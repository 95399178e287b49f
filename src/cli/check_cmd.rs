//! `stagec check`.

use std::path::PathBuf;

use stagec::{check, project};

use super::{build_project, env_lookup, print_diagnostics, read_input, Format, SourceArgs};
use super::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};

pub(crate) fn run_check(files: &[PathBuf], sources: &SourceArgs, format: Format, deny_warnings: bool) -> u8 {
    let opts = check::Options {
        env: &env_lookup,
        ..check::Options::default()
    };
    let limit = opts.budgets.max_bytes;
    let mut unreadable = false;
    let mut fail = |msg: String| {
        eprintln!("stagec: {msg}");
        unreadable = true;
    };
    let mut results = Vec::new();
    for path in files {
        let config = match read_input(path, limit) {
            Ok(input) => input,
            Err(e) => {
                fail(e);
                continue;
            }
        };
        let project = build_project(config, path, sources, limit, &mut fail);
        results.push(project::check_project(&project, &opts));
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
