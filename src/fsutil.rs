//! Atomic file output: write a temporary file beside the target, flush it to
//! disk, then rename it over the target, so readers never see half a file.

use std::io::Write;
use std::path::Path;

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
