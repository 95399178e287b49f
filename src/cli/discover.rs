//! `stagec check DIR` (and `stagec check` with no path: `.`): the experiment
//! configs under a folder, found as the language server recognises them
//! (`stagec::ide::classify`), skipping version-control folders, virtual
//! environments, build and cache folders, and what `.gitignore`, `.ignore`
//! and git's exclude file leave out (ripgrep's walker, as ruff uses).

use std::path::{Path, PathBuf};

use stagec::ide::{classify, DocumentKind};
use stagec::project::{MAX_DETIGNORE, MAX_INPUT};

/// Most files a folder walk looks at; the rest is reported, not read.
pub(crate) const MAX_WALK: usize = 200_000;

/// Folders never descended into (ruff's default excludes, and stagec's
/// own plan output).
const SKIPPED: &[&str] = &[
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pypackages__",
    "__pycache__",
    "_build",
    "buck-out",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
    "stagec-plan",
];

/// The experiment configs under `dir`, sorted by path, and what could not
/// be read.
pub(crate) fn configs_under(dir: &Path) -> (Vec<PathBuf>, Vec<String>) {
    let mut problems = Vec::new();
    let mut configs = Vec::new();
    // The walker reads the ignore files of `dir`, of the folders above it
    // and of each folder it enters, whole: each must be a regular file
    // within the budget, or the walk does not read it (nor what it governs).
    let absolute = std::env::current_dir().map(|cwd| stagec::fsutil::normalize(&cwd.join(dir)));
    for folder in absolute.iter().flat_map(|d| d.ancestors()) {
        if let Err(e) = ignore_files_fit(folder) {
            return (Vec::new(), vec![e]);
        }
    }
    let skipped: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let skipped_in_walk = skipped.clone();
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(false)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if !is_dir || e.depth() == 0 {
                return true;
            }
            let name = e.file_name().to_string_lossy();
            // A virtual environment, whatever its name.
            if SKIPPED.contains(&name.as_ref()) || e.path().join("pyvenv.cfg").is_file() {
                return false;
            }
            match ignore_files_fit(e.path()) {
                Ok(()) => true,
                Err(problem) => {
                    if let Ok(mut s) = skipped_in_walk.lock() {
                        s.push(problem);
                    }
                    false
                }
            }
        })
        .build();
    let mut seen = 0usize;
    for entry in walker {
        seen += 1;
        if seen > MAX_WALK {
            problems.push(format!(
                "{} has more than {MAX_WALK} entries; stagec stopped looking for configs there (name the configs or folders to check)",
                dir.display()
            ));
            break;
        }
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                problems.push(format!("cannot read part of {}: {e}", dir.display()));
                continue;
            }
        };
        // Regular files only: never a FIFO or a device.
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if is_experiment_config(entry.path()) {
            configs.push(entry.path().to_path_buf());
        }
    }
    if let Ok(mut s) = skipped.lock() {
        problems.append(&mut s);
    }
    configs.sort();
    (configs, problems)
}

/// The ignore files a folder walk reads in each folder.
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".git/info/exclude"];

/// Ok when each ignore file of `folder` is absent, or a regular file of at
/// most [`MAX_DETIGNORE`] bytes (a 7 MB `.gitignore` took 3 GB to compile;
/// a FIFO or `/dev/zero` would never end).
fn ignore_files_fit(folder: &Path) -> Result<(), String> {
    for name in IGNORE_FILES {
        let path = folder.join(name);
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        if !meta.is_file() {
            return Err(format!(
                "{} is not a regular file; stagec does not read it, nor the folder it governs",
                path.display()
            ));
        }
        if meta.len() > MAX_DETIGNORE as u64 {
            return Err(format!(
                "{} is larger than {MAX_DETIGNORE} bytes; stagec does not read it, nor the folder it governs",
                path.display()
            ));
        }
    }
    Ok(())
}

/// Whether `path` is a YAML file holding an experiment config, as the
/// language server recognises one. Only regular files are opened, and
/// only up to the input budget: a FIFO, a device or a file too large is
/// not a config here.
pub(crate) fn is_experiment_config(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    if !(name.ends_with(".yaml") || name.ends_with(".yml")) {
        return false;
    }
    let Ok(bytes) = stagec::fsutil::read_limited(path, MAX_INPUT) else {
        return false;
    };
    classify(&name, &stagec::source::lossy(&bytes)) == DocumentKind::Experiment
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_configs_and_skips_what_it_should() {
        let dir = std::env::temp_dir().join(format!("stagec-discover-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let write = |rel: &str, text: &str| {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap_or(&dir)).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(p, text).unwrap_or_else(|e| panic!("{e}"));
        };
        let config = "name: x\nentrypoint: python3 train.py\n";
        write("a/const.yaml", config);
        write("b/nested/exp.yml", config);
        write("a/k8s.yaml", "apiVersion: v1\nkind: Pod\n");
        write(".git/const.yaml", config);
        write("env/pyvenv.cfg", "home = /usr\n");
        write("env/lib/const.yaml", config);
        write("node_modules/x/const.yaml", config);
        write("ignored/const.yaml", config);
        write(".gitignore", "ignored/\n");
        let (found, problems) = configs_under(&dir);
        let rel: Vec<String> = found
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap_or(p).display().to_string())
            .collect();
        assert_eq!(rel, ["a/const.yaml", "b/nested/exp.yml"], "{problems:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
