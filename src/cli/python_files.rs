//! `stagec check train.py data.py`: Python files named on the command line
//! (as pre-commit passes the changed files) are checked as training code —
//! as part of the experiment(s) whose config is in their folder, or on
//! their own when there is none. Only the named files' diagnostics are
//! reported.

use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};

use stagec::project::{ContextScan, Disk, Project};
use stagec::Compiled;

use super::{context_dir, Loader, SourceArgs};

/// Most YAML files of a folder looked at for experiment configs.
const MAX_CONFIGS: usize = 64;

/// Whether a command-line path names a Python file.
pub(crate) fn is_python(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "py" || e == "pyi")
}

/// Projects for `files` (Python files): one per experiment config in each
/// file's folder (or one of the files on their own when there is none),
/// with the names of the files whose diagnostics are reported; and what
/// could not be read.
pub(crate) fn projects(files: &[PathBuf], sources: &SourceArgs, loader: &mut Loader) -> (Vec<Job>, Vec<String>) {
    let mut problems = Vec::new();
    let mut jobs = Vec::new();
    // By folder, in command-line order.
    let mut folders: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for f in files {
        match std::fs::metadata(f) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                problems.push(format!("{} is not a file", f.display()));
                continue;
            }
            Err(e) => {
                problems.push(format!("cannot read {}: {e}", f.display()));
                continue;
            }
        }
        let dir = context_dir(f, sources.context.as_deref());
        // As the context scan names it (`./train.py` for `train.py`).
        let named = match f.parent() {
            Some(p) if p.as_os_str().is_empty() => dir.join(f),
            _ => f.clone(),
        };
        folders.entry(dir).or_default().push(named);
    }
    // Files whose folder holds no config are read together, from the root
    // of their repository: a script in `tools/` imports `pkg.data` from
    // there (`pip install -e .`, `PYTHONPATH=.`, or a `sys.path` line), and
    // pre-commit passes only the changed files.
    let mut alone: BTreeMap<PathBuf, Vec<Alone>> = BTreeMap::new();
    for (dir, named) in folders {
        let configs = configs_in(&dir);
        if configs.is_empty() {
            let root = match sources.context.as_deref() {
                Some(_) => None,
                None => import_root(&dir),
            }
            .unwrap_or_else(|| dir.clone());
            // Named as the root's scan names them (`./tools/train.py`).
            let dot = root != dir && root == Path::new(".");
            let files = named.into_iter().map(|f| Alone {
                dir: dir.clone(),
                under_root: if dot && f.is_relative() && !f.starts_with(".") {
                    Path::new(".").join(&f)
                } else {
                    f.clone()
                },
                named: f,
            });
            alone.entry(root).or_default().extend(files);
            continue;
        }
        let names: Vec<String> = named.iter().map(|f| stagec::project::display_name(f)).collect();
        for config in &configs {
            let (project, more) = loader.project_with(config, &named);
            problems.extend(more);
            if let Some(project) = project {
                jobs.push(Job {
                    project,
                    names: names.clone(),
                });
            }
        }
    }
    for (root, files) in alone {
        let scan = ContextScan::listing(&root);
        if scan.problems.is_empty() || files.iter().all(|f| f.dir == root) {
            let named: Vec<PathBuf> = files.into_iter().map(|f| f.under_root).collect();
            jobs.push(python_job(&named, &scan, &mut problems));
            continue;
        }
        // A repository too large to list (or partly unreadable): each
        // folder on its own, as without one.
        let mut by_dir: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
        for f in files {
            by_dir.entry(f.dir).or_default().push(f.named);
        }
        for (dir, named) in by_dir {
            let scan = ContextScan::listing(&dir);
            jobs.push(python_job(&named, &scan, &mut problems));
        }
    }
    (jobs, problems)
}

/// A Python file named without a config: its folder, its path as named
/// there, and its path under the root it is read from.
struct Alone {
    dir: PathBuf,
    named: PathBuf,
    under_root: PathBuf,
}

/// The project of Python files `named` on their own in the context `scan`.
fn python_job(named: &[PathBuf], scan: &ContextScan, problems: &mut Vec<String>) -> Job {
    let names: Vec<String> = named.iter().map(|f| stagec::project::display_name(f)).collect();
    problems.extend(scan.problems.iter().cloned());
    let (project, more) = Project::python_only(named, scan, &Disk);
    problems.extend(more);
    Job { project, names }
}

/// The work tree `dir` is in ([`stagec::fsutil::repository_root`]). For a relative `dir`,
/// only a root at or below the current folder counts (as a relative path,
/// `.` for the current folder), so every name stays as written; run from
/// inside the work tree, the current folder is the root of the files below
/// it.
fn import_root(dir: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(dir).ok()?;
    let top = stagec::fsutil::repository_root(&absolute)?;
    if dir.is_absolute() {
        return Some(top);
    }
    let cwd = std::env::current_dir().ok()?;
    match top.strip_prefix(&cwd) {
        Ok(below) if below.as_os_str().is_empty() => Some(PathBuf::from(".")),
        Ok(below) => Some(below.to_path_buf()),
        // Run from a folder inside the work tree (`cd newcrfs && stagec
        // check train.py dataloaders/data.py`, as `python train.py` runs
        // there): the files below it are read together from it, where the
        // script's imports resolve.
        Err(_)
            if cwd.starts_with(&top)
                && dir
                    .components()
                    .all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) =>
        {
            Some(PathBuf::from("."))
        }
        Err(_) => None,
    }
}

/// A project checked for the Python files it was made for.
pub(crate) struct Job {
    pub(crate) project: Project,
    /// The files whose diagnostics are reported.
    pub(crate) names: Vec<String>,
}

/// Keeps, of each compilation, the diagnostics located in the named files,
/// each diagnostic once over all compilations (one per named file that has
/// any) and leaving out what a config checked in the same run (`reported`)
/// already reports: `stagec check const.yaml train.py` reports the training
/// code's findings once, through the config.
pub(crate) fn narrow(checked: Vec<(Compiled, &[String])>, reported: &[Compiled]) -> Vec<Compiled> {
    let mut seen: HashSet<(String, usize, usize, &'static str)> = HashSet::new();
    for c in reported {
        for d in &c.diagnostics {
            if let Some(file) = c.sources.get(d.file) {
                seen.insert((file.name.clone(), d.span.start, d.span.end, d.code));
            }
        }
    }
    let mut results = Vec::new();
    for (c, names) in checked {
        // What this compilation reports is checked against the earlier
        // ones only: two findings of one rule at one place (two loaders
        // sharing the `**kwargs` that sets their workers) both stand.
        let mut mine: Vec<(String, usize, usize, &'static str)> = Vec::new();
        for name in names {
            let Some((id, _)) = c.sources.iter().find(|(_, s)| s.name == *name) else {
                continue;
            };
            let mut one = c.clone();
            one.diagnostics.retain(|d| {
                let key = (name.clone(), d.span.start, d.span.end, d.code);
                let keep = d.file == id && !seen.contains(&key);
                if keep {
                    mine.push(key);
                }
                keep
            });
            results.push(one);
        }
        seen.extend(mine);
    }
    results
}

/// The experiment configs directly in `dir`, `const.yaml` first, then by
/// name.
pub(crate) fn configs_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for entry in listing.filter_map(Result::ok).take(MAX_CONFIGS * 16) {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_file()) && super::discover::is_experiment_config(&path) {
            out.push(path);
        }
        if out.len() >= MAX_CONFIGS {
            break;
        }
    }
    out.sort_by_key(|p| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (name != "const.yaml", name)
    });
    out
}
