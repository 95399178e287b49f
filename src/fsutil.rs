//! The file system edge shared by the CLI and the language server: bounded
//! reads of regular files only, and atomic output (write a temporary file beside the target, flush it to disk, then
//! rename it over the target, so readers never see half a file). The
//! checking pipeline itself never touches the file system.

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

/// What a bounded read found.
#[derive(Debug, PartialEq, Eq)]
pub enum FileLimit {
    /// The whole file, within the limit.
    Within(Vec<u8>),
    /// The file is larger than the limit (nothing more was read).
    Beyond,
}

/// Reads at most `limit + 1` bytes, so a huge file costs no memory; the
/// checker then reports it as too large. Only regular files are read (see
/// [`open_regular`]).
pub fn read_limited(path: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads a regular file of at most `limit` bytes.
pub fn read_regular(path: &Path, limit: usize) -> std::io::Result<FileLimit> {
    let bytes = read_limited(path, limit)?;
    Ok(if bytes.len() > limit {
        FileLimit::Beyond
    } else {
        FileLimit::Within(bytes)
    })
}

/// Opens `path` for reading when it is a regular file (links followed). A
/// FIFO, socket or device is refused without being opened, so nothing
/// blocks on a writer that never comes; the file is opened non-blocking and
/// checked again, so one swapped in between is refused too.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let not_regular = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("is {what}"));
    let kind = |m: &std::fs::Metadata| {
        if m.is_dir() {
            Err(not_regular("a directory"))
        } else if !m.is_file() {
            Err(not_regular("not a regular file"))
        } else {
            Ok(())
        }
    };
    kind(&std::fs::metadata(path)?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(O_NONBLOCK);
    }
    let file = options.open(path)?;
    kind(&file.metadata()?)?;
    Ok(file)
}

#[cfg(all(unix, any(target_os = "linux", target_os = "android")))]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
const O_NONBLOCK: i32 = 0x0004;
