//! The file system edge shared by the CLI and the language server: bounded
//! reads, discovery of model sources in a context directory, and atomic
//! output (write a temporary file beside the target, flush it to disk, then
//! rename it over the target, so readers never see half a file). The
//! checking pipeline itself never touches the file system.

use std::io::Write;
use std::path::{Path, PathBuf};

pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes several files into `dir` all-or-nothing: every file goes to a
/// temporary beside its target first; only when all are written are they
/// renamed into place. On failure no temporary is left behind. `private`
/// files get mode 0600 (they may hold secrets).
pub fn write_all_atomic(dir: &Path, files: &[(&str, &[u8], bool)]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut temps = Vec::new();
    let result = (|| {
        for (name, bytes, private) in files {
            let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
            temps.push((tmp.clone(), dir.join(name)));
            let mut f = std::fs::File::create(&tmp)?;
            #[cfg(unix)]
            if *private {
                use std::os::unix::fs::PermissionsExt;
                f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            }
            #[cfg(not(unix))]
            let _ = private;
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        for (tmp, target) in &temps {
            std::fs::rename(tmp, target)?;
        }
        Ok(())
    })();
    if result.is_err() {
        for (tmp, _) in &temps {
            let _ = std::fs::remove_file(tmp);
        }
    }
    result
}

/// Reads at most `limit + 1` bytes, so a huge file costs no memory; the
/// checker then reports it as too large.
pub fn read_limited(path: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "is a directory"));
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Files in a context directory that declare stages: `stages.yaml` /
/// `stages.yml` and Python files mentioning `stage_decorator`. Hidden
/// folders, caches and virtual environments are skipped, and the walk is
/// bounded.
pub fn discover_models(context: &Path) -> Vec<PathBuf> {
    const MAX_FILES: usize = 2000;
    const MAX_DEPTH: usize = 8;
    let mut found = Vec::new();
    let mut seen = 0usize;
    let mut stack = vec![(context.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            seen += 1;
            if seen > MAX_FILES {
                return found;
            }
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if path.is_dir() {
                let skip = name.starts_with('.')
                    || matches!(
                        name.as_str(),
                        "__pycache__" | "node_modules" | "venv" | "site-packages" | "target"
                    );
                if !skip && depth < MAX_DEPTH {
                    stack.push((path, depth + 1));
                }
                continue;
            }
            if depth == 0 && (name == "stages.yaml" || name == "stages.yml") {
                found.push(path);
            } else if name.ends_with(".py") {
                let mentions = read_limited(&path, 1024 * 1024)
                    .map(|b| b.windows(15).any(|w| w == b"stage_decorator"))
                    .unwrap_or(false);
                if mentions {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    found
}
