//! `stagec check`: what to check (files, folders, stdin), checking in
//! parallel, and `--fix` / `--diff`.

use std::io::Read;
use std::path::{Path, PathBuf};

use stagec::fix::{self, Level};
use stagec::fsutil;
use stagec::project::{self, Project};
use stagec::{Compiled, Options};

use super::{discover, python_files, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use super::{env_lookup, print_diagnostics, Format, Loader, SourceArgs};

#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    /// Experiment configs (`const.yaml`, …); folders, searched recursively for experiment
    /// configs (default: `.`); Python files of the training code (checked as part of the
    /// experiment in their folder, or on their own); `-` reads a config from stdin.
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Exit with status 1 when there are warnings.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Show infos (such as "no inventory given") in the human, concise and GitHub formats;
    /// JSON and SARIF always carry them.
    #[arg(long)]
    pub show_infos: bool,
    /// Apply the safe fixes in place, then report what is left.
    #[arg(long)]
    pub fix: bool,
    /// With `--fix` or `--diff`: apply the unsafe fixes too (they change what the experiment
    /// does; review the result).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of writing them; exit 1 when there is one.
    #[arg(long)]
    pub diff: bool,
    /// The path of the config read from stdin (`-`): its name in diagnostics, and where its
    /// context folder is.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// The files named are the ones that changed, as pre-commit passes them: experiment
    /// configs among them are checked, other YAML (Kubernetes, CI) is left alone, and a model
    /// or training source (`*.py`, `stages.yaml`) checks the experiment configs in its folder.
    /// Nothing to check is a pass.
    #[arg(long)]
    pub changed: bool,
    /// Print the files that would be checked, one per line (each config, and the Python files
    /// named), and check nothing. Control characters in a name are shown escaped (`\n`,
    /// `\u{1b}`); `-z` prints names as they are.
    #[arg(long, conflicts_with_all = ["fix", "diff"])]
    pub show_files: bool,
    /// With `--show-files`: end each name with a NUL byte instead of a line break and print it
    /// as it is (as `git ls-files -z` does): no name can forge another.
    #[arg(short = 'z', long = "null", requires = "show_files")]
    pub null: bool,
    #[command(flatten)]
    pub sources: SourceArgs,
}

/// What one check is about.
enum Job {
    /// An experiment config (from the command line, a folder or stdin).
    Config(Project),
    /// Python files: only their diagnostics are reported.
    Python(python_files::Job),
}

impl Job {
    /// The project, leaving an empty one in its place.
    fn take_project(&mut self) -> Project {
        let p = match self {
            Job::Config(p) => p,
            Job::Python(j) => &mut j.project,
        };
        std::mem::replace(p, Project::config_only(p.config.name.clone(), Vec::new()))
    }

    fn project(&self) -> &Project {
        match self {
            Job::Config(p) => p,
            Job::Python(j) => &j.project,
        }
    }

    /// The file whose settings apply (`settings.rs`): the config, or the
    /// first of the Python files.
    fn settings_path(&self) -> PathBuf {
        match self {
            Job::Config(p) => PathBuf::from(&p.config.name),
            Job::Python(j) => j.names.first().map(PathBuf::from).unwrap_or_default(),
        }
    }
}

pub(crate) fn run_check(args: &CheckArgs) -> u8 {
    let options = Options {
        env: &env_lookup,
        determined: args.sources.determined.as_deref(),
        ..Options::default()
    };
    let mut loader = match Loader::new(&args.sources) {
        Ok(loader) => loader,
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    // The current folder's settings may deny warnings or show infos.
    let args = &CheckArgs {
        deny_warnings: args.deny_warnings || loader.settings.deny_warnings(),
        show_infos: args.show_infos || loader.settings.show_infos(),
        ..args.clone()
    };
    let (mut jobs, problems) = if args.changed {
        changed_jobs(args, &mut loader)
    } else {
        jobs(args, &mut loader)
    };
    for p in &problems {
        eprintln_escaped!("stagec: {p}");
    }
    if args.show_files {
        show_files(&jobs, args.null);
        return if problems.is_empty() { EXIT_OK } else { EXIT_USAGE };
    }
    if args.changed && jobs.is_empty() && problems.is_empty() {
        // Only files stagec has nothing to say about changed.
        return EXIT_OK;
    }
    // Each check's settings file (`settings.rs`): a broken one stops the run.
    let paths: Vec<PathBuf> = jobs.iter().map(Job::settings_path).collect();
    if let Err(e) = loader.settings.prepare(&paths) {
        eprintln_escaped!("stagec: {e}");
        return EXIT_USAGE;
    }
    let unreadable = !problems.is_empty();
    if args.fix || args.diff {
        return run_fix(args, jobs, &mut loader, &options, unreadable);
    }
    // The projects move into the compilation, which drops each once checked.
    let projects: Vec<Project> = jobs.iter_mut().map(Job::take_project).collect();
    let settings: Vec<_> = paths.iter().map(|p| loader.settings.resolved(p)).collect();
    let per_job: Vec<Options<'_>> = settings.iter().map(|s| s.options(&options)).collect();
    // One project needs no threads (nor the question how many there are).
    let threads = if projects.len() > 1 { jobs_available() } else { 1 };
    // With several projects each result keeps only what its output needs,
    // as soon as it is made. One project's result lives until the process
    // ends (below), which hands its memory back whole: freeing its trees
    // and tables one by one first would only cost time.
    let several = projects.len() > 1;
    let compiled = stagec::compile::compile_each_then(projects, &per_job, threads, |mut c| {
        if several {
            c.keep_for_output();
        }
        c
    });
    let results = narrow(&jobs, compiled);
    let status = finish(args, &results, unreadable);
    // The process ends here: its memory goes back to the system at once,
    // so the syntax trees and tables are not freed one by one first.
    std::mem::forget(results);
    status
}

/// `--show-files`: the files of `jobs`, one a line with control characters
/// escaped, or (`null`) each as it is and ended by a NUL byte.
fn show_files(jobs: &[Job], null: bool) {
    use std::io::Write as _;
    let names = jobs.iter().flat_map(|job| match job {
        Job::Config(p) => std::slice::from_ref(&p.config.name),
        Job::Python(j) => j.names.as_slice(),
    });
    let mut out = String::new();
    let mut escaped = false;
    for name in names {
        if null {
            out.push_str(name);
            out.push('\0');
        } else {
            let shown = stagec::escape::line(name);
            escaped |= shown != name.as_str();
            out.push_str(&shown);
            out.push('\n');
        }
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();
    if escaped {
        eprintln!(
            "stagec: control characters in file names are shown escaped; `--show-files -z` prints names as they are"
        );
    }
}

/// Prints the results and picks the exit status.
fn finish(args: &CheckArgs, results: &[Compiled], unreadable: bool) -> u8 {
    let summary = print_diagnostics(results, args.format, args.show_infos);
    if unreadable {
        EXIT_USAGE
    } else if summary.errors > 0 || (args.deny_warnings && summary.warnings > 0) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// Each Python job's diagnostics narrowed to its files.
fn narrow(jobs: &[Job], compiled: Vec<Compiled>) -> Vec<Compiled> {
    let mut results = Vec::new();
    let mut python: Vec<(Compiled, &[String])> = Vec::new();
    for (job, c) in jobs.iter().zip(compiled) {
        match job {
            Job::Config(_) => results.push(c),
            Job::Python(j) => python.push((c, &j.names)),
        }
    }
    let narrowed = python_files::narrow(python, &results);
    results.extend(narrowed);
    results
}

/// Threads for checking: one per core.
fn jobs_available() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The checks the command line asks for, in its order (folders expanded),
/// and what could not be read.
fn jobs(args: &CheckArgs, loader: &mut Loader) -> (Vec<Job>, Vec<String>) {
    let mut problems = Vec::new();
    let mut configs: Vec<PathBuf> = Vec::new();
    let mut python: Vec<PathBuf> = Vec::new();
    let mut stdin = false;
    let given: Vec<PathBuf> = if args.files.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.files.clone()
    };
    for path in given {
        if path.as_os_str() == "-" {
            stdin = true;
        } else if python_files::is_python(&path) {
            python.push(path);
        } else if path.is_dir() {
            let (found, more) = discover::configs_under(&path);
            problems.extend(more);
            if found.is_empty() {
                eprintln_escaped!("stagec: no experiment config under {}", path.display());
            }
            configs.extend(found.iter().map(|p| fsutil::strip_dot(p).to_path_buf()));
        } else {
            configs.push(path);
        }
    }
    let mut jobs = Vec::new();
    if stdin {
        match stdin_project(args, loader) {
            Ok(project) => jobs.push(Job::Config(project)),
            Err(e) => problems.push(e),
        }
    }
    let mut seen = std::collections::HashSet::new();
    for path in configs {
        if !seen.insert(path.clone()) {
            continue;
        }
        let (project, more) = loader.project(&path);
        problems.extend(more);
        if let Some(project) = project {
            jobs.push(Job::Config(project));
        }
    }
    if !python.is_empty() {
        let (found, more) = python_files::projects(&python, &args.sources, loader);
        problems.extend(more);
        jobs.extend(found.into_iter().map(Job::Python));
    }
    (jobs, problems)
}

/// The checks for `--changed`: the experiment configs among the files, and
/// those beside each changed source, each once, in the order first named.
fn changed_jobs(args: &CheckArgs, loader: &mut Loader) -> (Vec<Job>, Vec<String>) {
    let mut configs: Vec<PathBuf> = Vec::new();
    for path in &args.files {
        let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase());
        let source = python_files::is_python(path) || matches!(name.as_deref(), Some("stages.yaml" | "stages.yml"));
        if source {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            configs.extend(
                python_files::configs_in(dir)
                    .iter()
                    .map(|c| fsutil::strip_dot(c).to_path_buf()),
            );
        } else if discover::is_experiment_config(path) {
            configs.push(fsutil::strip_dot(path).to_path_buf());
        }
    }
    let mut seen = std::collections::HashSet::new();
    configs.retain(|c| seen.insert(c.clone()));
    let mut jobs = Vec::new();
    let mut problems = Vec::new();
    for path in configs {
        let (project, more) = loader.project(&path);
        problems.extend(more);
        jobs.extend(project.map(Job::Config));
    }
    (jobs, problems)
}

/// The config read from stdin, checked as if it were at `--stdin-filename`
/// (its context folder is that file's).
fn stdin_project(args: &CheckArgs, loader: &mut Loader) -> Result<Project, String> {
    let mut bytes = Vec::new();
    let limit = project::MAX_INPUT as u64 + 1;
    std::io::stdin()
        .lock()
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    let name = args.stdin_filename.clone().unwrap_or_else(|| PathBuf::from("-"));
    if bytes.len() as u64 >= limit {
        return Err(format!("stdin holds more than {} bytes", project::MAX_INPUT));
    }
    let text = String::from_utf8(bytes).map_err(|e| format!("stdin is not UTF-8 text: {e}"))?;
    let (project, problems) = loader.project_from(&name, &text);
    match project {
        Some(p) if problems.is_empty() => Ok(p),
        Some(_) | None => Err(problems.join("; ")),
    }
}

/// `--fix` / `--diff`: one project at a time (two configs may share a
/// model file), each written before the next is read.
fn run_fix(args: &CheckArgs, jobs: Vec<Job>, loader: &mut Loader, options: &Options<'_>, mut unreadable: bool) -> u8 {
    let level = if args.unsafe_fixes { Level::All } else { Level::Safe };
    let mut results = Vec::new();
    let mut python = Vec::new();
    let mut fixed_total = 0usize;
    let mut fixed_codes: std::collections::BTreeMap<&'static str, usize> = Default::default();
    let mut diffs = String::new();
    let mut diffed: std::collections::HashSet<String> = std::collections::HashSet::new();
    let stdin_name = args
        .stdin_filename
        .as_ref()
        .map_or_else(|| "-".to_string(), |p| p.display().to_string());
    let from_stdin = args.files.iter().any(|f| f.as_os_str() == "-");
    for job in jobs {
        // A project read before an earlier one was fixed may be stale:
        // read its files again.
        let project = match &job {
            Job::Config(p) if !args.diff && fixed_total > 0 && p.config.name != "-" => {
                loader.project(Path::new(&p.config.name)).0.unwrap_or_else(|| p.clone())
            }
            _ => job.project().clone(),
        };
        let named: Vec<PathBuf> = match &job {
            Job::Python(j) => j.names.iter().map(PathBuf::from).collect(),
            Job::Config(_) => Vec::new(),
        };
        // Discovered again from the fixed texts: a fixed entrypoint may run
        // other files. (Not for Python files without a config, nor stdin.)
        let standalone = project.config.name.is_empty() || project.config.name == "-";
        let settings = loader.settings.resolved(&job.settings_path());
        let job_options = settings.options(options);
        let mut refresh = |p: &Project| -> Option<Project> {
            if standalone {
                return None;
            }
            let texts = p.texts();
            loader.project_through(Path::new(&p.config.name), &named, &texts).0
        };
        let mut outcome = fix::fix(&project, &job_options, level, &|_| {}, &mut refresh);
        if args.diff {
            fixed_total += outcome.fixed_count();
            for (code, n) in &outcome.fixed {
                *fixed_codes.entry(code).or_default() += n;
            }
        }
        // Only what was written counts as fixed.
        let mut written: Vec<&fix::Changed> = Vec::new();
        let mut failed = false;
        for changed in &outcome.changed {
            if args.diff {
                if diffed.insert(changed.name.clone()) {
                    diffs.push_str(&unified_diff(changed));
                }
                continue;
            }
            if from_stdin && changed.name == stdin_name {
                // The fixed stdin config goes to stdout (ruff's behaviour).
                print!("{}", changed.after);
            } else if let Err(e) = stagec::fsutil::rewrite_atomic(
                Path::new(&changed.name),
                changed.before.as_bytes(),
                changed.after.as_bytes(),
            ) {
                eprintln_escaped!("stagec: cannot write {}: {e}", changed.name);
                unreadable = true;
                failed = true;
                continue;
            }
            written.push(changed);
            for (code, n) in &changed.fixed {
                fixed_total += n;
                *fixed_codes.entry(code).or_default() += n;
            }
        }
        if !written.is_empty() {
            let files: Vec<&str> = written.iter().map(|c| c.name.as_str()).collect();
            eprintln_escaped!("stagec: fixed {}", files.join(", "));
        }
        if failed {
            // What is left is what the files now hold.
            let texts: Vec<(&str, &str)> = written.iter().map(|c| (c.name.as_str(), c.after.as_str())).collect();
            let now = fix::with_texts(&project, &texts);
            let now = refresh(&now).unwrap_or(now);
            outcome.compiled = stagec::compile(&now, &job_options);
        }
        match job {
            Job::Config(_) => results.push(outcome.compiled),
            Job::Python(j) => python.push((outcome.compiled, j.names)),
        }
    }
    let python: Vec<(Compiled, &[String])> = python.iter().map(|(c, n)| (c.clone(), n.as_slice())).collect();
    let narrowed = python_files::narrow(python, &results);
    results.extend(narrowed);
    if args.diff {
        // Input's lines: their control characters escaped.
        print!("{}", stagec::escape::text(&diffs));
        let would = if fixed_total == 1 { "fix" } else { "fixes" };
        eprintln_escaped!("stagec: {fixed_total} {would} would be applied");
        return if unreadable {
            EXIT_USAGE
        } else if diffs.is_empty() {
            EXIT_OK
        } else {
            EXIT_FINDINGS
        };
    }
    let status = finish(args, &results, unreadable);
    let all: Vec<stagec::Diagnostic> = results.iter().flat_map(|c| c.diagnostics.iter().cloned()).collect();
    let left = fix::remaining(&all, level);
    let fixed: Vec<(&'static str, usize)> = fixed_codes.into_iter().collect();
    let line = fix_summary(&fixed, left, args.unsafe_fixes);
    if matches!(args.format, Format::Human | Format::Concise) {
        println!("{line}");
    } else {
        eprintln_escaped!("stagec: {line}");
    }
    status
}

/// What `--fix` did and what is left, in one line.
fn fix_summary(fixed: &[(&'static str, usize)], left: fix::Remaining, unsafe_fixes: bool) -> String {
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let total: usize = fixed.iter().map(|(_, n)| n).sum();
    let mut line = format!("Fixed {}", plural(total, "problem", "problems"));
    if !fixed.is_empty() {
        let codes: Vec<&str> = fixed.iter().map(|(c, _)| *c).collect();
        line.push_str(&format!(" ({})", codes.join(", ")));
    }
    line.push('.');
    let remaining = left.manual + left.unsafe_fixable;
    if remaining == 0 {
        line.push_str(" Nothing is left.");
        return line;
    }
    line.push_str(&format!(
        " {} left, each needing a human decision",
        plural(remaining, "finding is", "findings are")
    ));
    let mut parts = Vec::new();
    if left.unsafe_fixable > 0 && !unsafe_fixes {
        parts.push(format!(
            "{} a suggested fix that `--unsafe-fixes` applies (review the result)",
            plural(left.unsafe_fixable, "has", "have")
        ));
    }
    if left.manual > 0 && !parts.is_empty() {
        parts.push(format!("{} editing by hand", plural(left.manual, "needs", "need")));
    }
    if !parts.is_empty() {
        line.push_str(": ");
        line.push_str(&parts.join("; "));
    }
    line.push('.');
    line
}

/// A unified diff of one fixed file (`--- PATH` / `+++ PATH`, three lines
/// of context), as ruff's `--diff` prints it.
/// Credentials are masked on both sides, context and changed lines alike.
fn unified_diff(changed: &fix::Changed) -> String {
    let before = stagec::secrets::masked_text(&changed.name, &changed.before);
    let after = stagec::secrets::masked_text(&changed.name, &changed.after);
    let diff = similar::TextDiff::from_lines(&before, &after);
    diff.unified_diff()
        .context_radius(3)
        .header(
            &stagec::escape::line(&changed.name),
            &stagec::escape::line(&changed.name),
        )
        .to_string()
}
