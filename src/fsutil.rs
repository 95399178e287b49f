//! The file system edge shared by the CLI and the language server: bounded
//! reads of regular files only, and atomic output: one file written to a
//! temporary beside its target (`.NAME.stagec-tmp-PID-N`, locked while its
//! run lives), flushed, then renamed over it; a set of
//! files written to a fresh directory swapped in for the old one (so
//! readers never see half a file or a mixed set). The checking pipeline
//! itself never touches the file system.

use std::io::Write;
use std::path::Path;

/// Writes `path` atomically: the bytes go to a temporary file beside it
/// (see [`Temporary`]), flushed, then renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    remove_stale_temporaries(dir, &name);
    let mut tmp = Temporary::create(dir, &name)?;
    let result = (|| {
        tmp.file.write_all(bytes)?;
        tmp.file.sync_all()?;
        std::fs::rename(&tmp.path, path)
    })();
    tmp.finish(result.is_ok());
    result
}

/// Rewrites an existing file atomically (`stagec check --fix`) when it
/// still holds `expected` (what was read and fixed): the new bytes go to a
/// temporary file beside the real one (a symlink is followed to the file
/// it names, which is replaced), which gets the old file's owner and
/// permissions and is renamed over it.
///
/// Refused, with the reason, when the file is read-only (its owner may not
/// write it: root too respects that), when this process may not write it,
/// when its owner or group cannot be given to the new file (a rename would
/// hand another user's file to this one), and when it no longer holds
/// `expected` (an edit saved meanwhile is never overwritten). Temporaries
/// of dead runs beside it are removed first.
pub fn rewrite_atomic(path: &Path, expected: &[u8], bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    let target = std::fs::canonicalize(path)?;
    let meta = std::fs::metadata(&target)?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "it is not a regular file"));
    }
    #[cfg(unix)]
    let read_only = {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o200 == 0
    };
    #[cfg(not(unix))]
    let read_only = meta.permissions().readonly();
    if read_only {
        return Err(Error::new(ErrorKind::PermissionDenied, "it is read-only"));
    }
    // May this process write the file itself? (Opened without truncating,
    // and without blocking should it have become a FIFO.)
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(O_NONBLOCK);
    }
    if let Err(e) = options.open(&target) {
        return Err(Error::new(e.kind(), format!("it cannot be written: {e}")));
    }
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    remove_stale_temporaries(dir, &name);
    let mut tmp = Temporary::create(dir, &name)?;
    let result = (|| {
        tmp.file.write_all(bytes)?;
        keep_owner(&tmp.file, &meta)?;
        tmp.file.set_permissions(meta.permissions())?;
        tmp.file.sync_all()?;
        // The last moment before the swap: is the file still what was read?
        let now = read_limited(&target, expected.len())?;
        if now != expected {
            return Err(Error::other(
                "it changed since stagec read it (saved meanwhile?); not overwritten, run again",
            ));
        }
        std::fs::rename(&tmp.path, &target)
    })();
    tmp.finish(result.is_ok());
    result
}

/// Gives the new file the old one's owner and group, or says why it
/// cannot be done.
#[cfg(unix)]
fn keep_owner(new: &std::fs::File, old: &std::fs::Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let ours = new.metadata()?;
    let (uid, gid) = (old.uid(), old.gid());
    if (ours.uid(), ours.gid()) == (uid, gid) {
        return Ok(());
    }
    std::os::unix::fs::fchown(new, Some(uid), Some(gid)).map_err(|e| {
        let whose = if ours.uid() != uid {
            format!("it belongs to another user (uid {uid})")
        } else {
            format!("it belongs to group {gid}")
        };
        std::io::Error::new(
            e.kind(),
            format!("{whose}, and replacing it would change its owner ({e})"),
        )
    })
}

#[cfg(not(unix))]
fn keep_owner(_: &std::fs::File, _: &std::fs::Metadata) -> std::io::Result<()> {
    Ok(())
}

/// The temporary file an atomic write fills before renaming it over its
/// target: `.NAME.stagec-tmp-PID-N` beside it, created new and held under
/// an exclusive lock for as long as the run lives, so that
/// [`remove_stale_temporaries`] can tell a dead run's leftover (no one
/// holds its lock) from a live run's.
struct Temporary {
    path: std::path::PathBuf,
    file: std::fs::File,
}

/// Numbers a process's temporaries.
static TEMPORARIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn temporary_prefix(name: &str) -> String {
    format!(".{name}.stagec-tmp-")
}

impl Temporary {
    fn create(dir: &Path, name: &str) -> std::io::Result<Temporary> {
        let pid = std::process::id();
        let mut last = None;
        // A run cleaning up may take a fresh temporary before it is locked:
        // then another name is tried.
        for _ in 0..8 {
            let n = TEMPORARIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = dir.join(format!("{}{pid}-{n}", temporary_prefix(name)));
            let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&path)?;
            let tmp = Temporary { path, file };
            if tmp.file.try_lock().is_ok() && same_file(&tmp.path, &tmp.file) {
                return Ok(tmp);
            }
            tmp.finish(false);
            last = Some(tmp_lost());
        }
        Err(last.unwrap_or_else(tmp_lost))
    }

    /// Removes the temporary unless it was renamed into place.
    fn finish(self, renamed: bool) {
        if !renamed && same_file(&self.path, &self.file) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn tmp_lost() -> std::io::Error {
    std::io::Error::other("another process removed the temporary file")
}

/// Whether `path` still names the file `file` is open on.
fn same_file(path: &Path, file: &std::fs::File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::symlink_metadata(path), file.metadata()) {
            (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        path.exists()
    }
}

/// Removes the temporaries of `name` in `dir` ([`Temporary`]) that no live
/// run holds: what killed runs left. Only names of exactly that form are
/// looked at, and only regular files removed; what cannot be removed stays.
pub fn remove_stale_temporaries(dir: &Path, name: &str) {
    let prefix = temporary_prefix(name);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let entry_name = entry.file_name();
        let Some(rest) = entry_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let numbered = rest.split_once('-').is_some_and(|(pid, n)| {
            [pid, n]
                .iter()
                .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        });
        if !numbered || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = std::fs::File::open(&path) else {
            continue;
        };
        // Held: a live run's. Free: its run is dead (a lock dies with its
        // process), and holding it now keeps a new run from taking it.
        if file.try_lock().is_ok() && same_file(&path, &file) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Replaces the directory `dir` with a new one holding exactly `files`,
/// so that the set appears at once: readers see the previous set or the
/// new one, never a mix (between the two renames of the swap `dir` is
/// briefly absent). `private` files get mode 0600 (they may hold secrets).
///
/// - Concurrent runs are serialised by an exclusive lock on the parent
///   directory (a lock file beside `dir` where directories cannot be
///   locked), so the last to finish wins whole; a lock held longer than
///   [`LOCK_WAIT`] is an error.
/// - The new set is written and flushed in a sibling `.NAME.stagec-new-PID`
///   directory first; the old one is renamed to `.NAME.stagec-old-PID` and
///   removed after the swap. What a killed run left behind (siblings of
///   these names) is removed by the next run, under the lock.
/// - An existing `dir` is replaced only when it holds nothing but `files`
///   (and the temporaries of older stagec versions): `--out ~` must not
///   delete a home directory.
pub fn replace_dir_atomic(dir: &Path, files: &[(&str, &[u8], bool)]) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n != "." && n != "..")
        .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "the output directory needs a name"))?;
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)?;
    let _lock = lock_dir(&parent, &name)?;

    // Leftovers of killed runs (nobody else holds the lock).
    let new_prefix = format!(".{name}.stagec-new-");
    let old_prefix = format!(".{name}.stagec-old-");
    for entry in std::fs::read_dir(&parent)?.flatten() {
        let entry_name = entry.file_name().to_string_lossy().into_owned();
        if entry_name.starts_with(&new_prefix) || entry_name.starts_with(&old_prefix) {
            remove_any(&entry.path())?;
        }
    }

    match std::fs::symlink_metadata(dir) {
        Ok(meta) if !meta.is_dir() => {
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                format!("{} exists and is not a directory", dir.display()),
            ))
        }
        Ok(_) => {
            let names: Vec<&str> = files.iter().map(|(n, _, _)| *n).collect();
            for entry in std::fs::read_dir(dir)?.flatten() {
                let entry_name = entry.file_name().to_string_lossy().into_owned();
                if !names.contains(&entry_name.as_str()) && !is_old_temporary(&entry_name, &names) {
                    return Err(Error::new(
                        ErrorKind::AlreadyExists,
                        format!(
                            "{} holds `{entry_name}`, which is not part of a plan; stagec replaces only a directory of its own output",
                            dir.display()
                        ),
                    ));
                }
            }
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }

    let pid = std::process::id();
    let staged = parent.join(format!("{new_prefix}{pid}"));
    let result = (|| {
        std::fs::create_dir(&staged)?;
        for (file, bytes, private) in files {
            let mut f = std::fs::File::create(staged.join(file))?;
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
        sync_dir(&staged);
        let old = parent.join(format!("{old_prefix}{pid}"));
        let had_old = match std::fs::rename(dir, &old) {
            Ok(()) => true,
            Err(e) if e.kind() == ErrorKind::NotFound => false,
            Err(e) => return Err(e),
        };
        if let Err(e) = std::fs::rename(&staged, dir) {
            if had_old {
                let _ = std::fs::rename(&old, dir);
            }
            return Err(e);
        }
        sync_dir(&parent);
        if had_old {
            // The new set is in place; failing to delete the old one only
            // leaves a leftover the next run removes.
            let _ = std::fs::remove_dir_all(&old);
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staged);
    }
    result
}

/// `.NAME.PID.tmp`, the temporaries earlier stagec versions wrote beside
/// the plan's files.
fn is_old_temporary(entry: &str, names: &[&str]) -> bool {
    names.iter().any(|n| {
        entry
            .strip_prefix(&format!(".{n}."))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
    })
}

fn remove_any(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Flushes a directory's entries to disk, where the platform can.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// How long [`replace_dir_atomic`] waits for another process's lock on
/// the output's parent folder before giving up.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// An exclusive lock serialising replacements of `parent/name`, held until
/// dropped: the parent directory itself where it can be locked (Unix),
/// else a `.NAME.stagec-lock` file beside it. Waits at most [`LOCK_WAIT`]
/// for another holder (anyone who can open a shared `/tmp` can lock it),
/// then fails naming the folder.
fn lock_dir(parent: &Path, name: &str) -> std::io::Result<std::fs::File> {
    #[cfg(unix)]
    let f = {
        let _ = name;
        std::fs::File::open(parent)?
    };
    #[cfg(not(unix))]
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(parent.join(format!(".{name}.stagec-lock")))?;
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(5);
    loop {
        match f.try_lock() {
            Ok(()) => return Ok(f),
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
            Err(std::fs::TryLockError::WouldBlock) => {}
        }
        let waited = start.elapsed();
        if waited >= LOCK_WAIT {
            let shown = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
            return Err(std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                format!(
                    "another process has held the lock on {} for {} s (another `stagec plan` writing there, or anyone who can open that folder); try again, or choose another --out",
                    shown.display(),
                    LOCK_WAIT.as_secs()
                ),
            ));
        }
        std::thread::sleep(pause.min(LOCK_WAIT - waited));
        pause = (pause * 2).min(std::time::Duration::from_millis(200));
    }
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
    let (file, len) = open_regular_sized(path)?;
    // Room for the whole file (one byte more, to see its end), so it is read
    // in one call, not in reads of doubling size.
    let room = usize::try_from(len)
        .map_or(limit, |len| len.min(limit))
        .saturating_add(1);
    let mut bytes = Vec::with_capacity(room);
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
    open_regular_sized(path).map(|(file, _)| file)
}

/// [`open_regular`], and the file's length when it was opened.
fn open_regular_sized(path: &Path) -> std::io::Result<(std::fs::File, u64)> {
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
    let metadata = file.metadata()?;
    kind(&metadata)?;
    Ok((file, metadata.len()))
}

#[cfg(all(unix, any(target_os = "linux", target_os = "android")))]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
const O_NONBLOCK: i32 = 0x0004;

/// Reads a small text file that may or may not be there (a settings file
/// looked for): `Ok(None)` when there is no regular file at `path`, `Err`
/// with the reason when it cannot be read, is larger than `limit` bytes or
/// is not UTF-8.
pub fn read_text_if_file(path: &Path, limit: usize) -> Result<Option<String>, String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Ok(None),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None)
        }
        Err(e) => return Err(e.to_string()),
    }
    match read_regular(path, limit) {
        Ok(FileLimit::Within(bytes)) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| "not UTF-8 text".to_string()),
        Ok(FileLimit::Beyond) => Err(format!("larger than {limit} bytes")),
        Err(e) => Err(e.to_string()),
    }
}

/// The closest folder at or above `dir` that holds `.git` (a folder, or
/// the file of a worktree or submodule): the work tree `dir` is in.
pub fn repository_root(dir: &Path) -> Option<std::path::PathBuf> {
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// The project a settings file belongs to, whose files it may name: the
/// closest folder at or above it that holds `.git` (a folder, or the file
/// of a worktree or submodule); without one, `fallback` (the current
/// folder, the editor's workspace) when the settings file is inside it
/// and it is neither `/` nor the home folder, else the settings file's own
/// folder.
pub fn project_root(settings: &Path, fallback: Option<&Path>) -> std::path::PathBuf {
    let settings = normalize(settings);
    let dir = settings.parent().unwrap_or(Path::new("/"));
    if let Some(repo) = repository_root(dir) {
        return repo;
    }
    // `/` and the home folder hold far more than a project (`~/.aws`).
    let home = std::env::var_os("HOME").map(|h| normalize(Path::new(&h)));
    match fallback.map(normalize) {
        Some(f) if settings.starts_with(&f) && f.parent().is_some() && home.as_ref() != Some(&f) => f,
        _ => dir.to_path_buf(),
    }
}

/// Ok when `named` (a file a settings file names, absolute) lies inside
/// `root`, after symbolic links are resolved on both sides: neither `..`,
/// an absolute path nor a link leaves it. A file that does not exist is
/// judged by its path (reading it fails anyway). `Err` says where the
/// project is.
pub fn inside(root: &Path, named: &Path) -> Result<(), String> {
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| normalize(root));
    let real = std::fs::canonicalize(named).unwrap_or_else(|_| normalize(named));
    if real.starts_with(&real_root) || real.starts_with(normalize(root)) {
        return Ok(());
    }
    Err(format!("outside the project ({})", root.display()))
}

/// [`inside`] the [`project_root`] of `settings`: the check
/// `stagec::settings_file::find` and `load` are given.
pub fn inside_project(settings: &Path, named: &Path, fallback: Option<&Path>) -> Result<(), String> {
    inside(&project_root(settings, fallback), named)
}

/// `path` with `.` left out and `..` applied, without touching the file
/// system.
pub fn normalize(path: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A `/`-separated relative path (`./src/../train.py`) with `.` and empty
/// parts left out and `..` applied, without touching the file system;
/// `None` when it climbs out of where it starts or nothing remains.
pub fn normalize_relative(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// `path` less a leading `./`, as a user would name it (`./a/const.yaml`
/// → `a/const.yaml`); `.` itself stays `.`.
pub fn strip_dot(path: &Path) -> &Path {
    path.strip_prefix(".")
        .ok()
        .filter(|rest| !rest.as_os_str().is_empty())
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("stagec-fsutil-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch");
        dir
    }

    #[test]
    fn rewrite_refuses_a_file_changed_since_it_was_read() {
        let dir = scratch("changed");
        let path = dir.join("c.yaml");
        std::fs::write(&path, "saved meanwhile\n").expect("write");
        let err = rewrite_atomic(&path, b"as read\n", b"fixed\n").expect_err("must refuse");
        assert!(err.to_string().contains("changed since"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some("saved meanwhile\n")
        );
        // Nothing left beside it; and unchanged, it is rewritten.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        rewrite_atomic(&path, b"saved meanwhile\n", b"fixed\n").expect("rewrite");
        assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), Some("fixed\n"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn rewrite_keeps_permissions_and_refuses_read_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("mode");
        let path = dir.join("c.yaml");
        std::fs::write(&path, "a\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        rewrite_atomic(&path, b"a\n", b"b\n").expect("rewrite");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        let err = rewrite_atomic(&path, b"b\n", b"c\n").expect_err("read-only");
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), Some("b\n"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn stale_temporaries_go_live_and_foreign_ones_stay() {
        let dir = scratch("stale");
        let dead = dir.join(".c.yaml.stagec-tmp-1-2");
        let live = dir.join(".c.yaml.stagec-tmp-3-4");
        let foreign = [
            ".c.yaml.stagec-tmp-x",
            ".c.yaml.stagec-tmp-1-2-3",
            ".d.yaml.stagec-tmp-1-2",
            "c.yaml",
        ];
        for p in [&dead, &live] {
            std::fs::write(p, "x").expect("write");
        }
        for n in foreign {
            std::fs::write(dir.join(n), "x").expect("write");
        }
        let held = std::fs::File::open(&live).expect("open");
        held.lock().expect("lock");
        remove_stale_temporaries(&dir, "c.yaml");
        assert!(!dead.exists());
        assert!(live.exists());
        for n in foreign {
            assert!(dir.join(n).exists(), "{n} removed");
        }
        drop(held);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn lock_dir_gives_up_naming_the_folder() {
        let dir = scratch("lock");
        let held = lock_dir(&dir, "out").expect("first lock");
        // A second holder in this process: a separate open file, so the
        // lock conflicts as another process's would.
        let start = std::time::Instant::now();
        let err = lock_dir(&dir, "out").expect_err("held");
        assert!(start.elapsed() >= LOCK_WAIT);
        assert!(err.to_string().contains(&*dir.to_string_lossy()), "{err}");
        drop(held);
        lock_dir(&dir, "out").expect("free again");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod project_tests {
    use super::*;

    #[test]
    fn files_outside_the_project_are_refused_links_included() {
        let base = std::env::temp_dir().join(format!("stagec-fsutil-project-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let repo = base.join("repo");
        std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
        std::fs::create_dir_all(repo.join("exp")).expect("mkdir");
        std::fs::write(base.join("secret"), "s").expect("write");
        std::fs::write(repo.join("nodes.json"), "{}").expect("write");
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.join("secret"), repo.join("link")).expect("symlink");
        let settings = repo.join("exp/stagec.toml");
        assert_eq!(project_root(&settings, None), repo);
        assert!(inside_project(&settings, &repo.join("nodes.json"), None).is_ok());
        assert!(inside_project(&settings, &repo.join("exp/../nodes.json"), None).is_ok());
        assert!(inside_project(&settings, &repo.join("missing.json"), None).is_ok());
        let err = inside_project(&settings, &base.join("secret"), None).expect_err("outside");
        assert!(err.starts_with("outside the project ("), "{err}");
        assert!(inside_project(&settings, Path::new("/proc/self/environ"), None).is_err());
        assert!(inside_project(&settings, &repo.join("../secret"), None).is_err());
        #[cfg(unix)]
        assert!(inside_project(&settings, &repo.join("link"), None).is_err());
        // Without a repository: the fallback folder when the file is in it,
        // else the file's own folder.
        std::fs::remove_dir_all(repo.join(".git")).expect("rmdir");
        assert_eq!(project_root(&settings, Some(&repo)), repo);
        assert_eq!(project_root(&settings, Some(&base.join("elsewhere"))), repo.join("exp"));
        assert_eq!(project_root(&settings, None), repo.join("exp"));
        assert_eq!(project_root(&settings, Some(Path::new("/"))), repo.join("exp"));
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn paths_are_normalised_without_the_file_system() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), Path::new("/a/c"));
        assert_eq!(normalize(Path::new("../x/../y")), Path::new("../y"));
        assert_eq!(normalize_relative("./src/../train.py").as_deref(), Some("train.py"));
        assert_eq!(normalize_relative("a//b/./c").as_deref(), Some("a/b/c"));
        assert_eq!(normalize_relative("a/../../b"), None, "climbs out of where it starts");
        assert_eq!(normalize_relative("a/.."), None, "nothing remains");
        assert_eq!(strip_dot(Path::new("./a/const.yaml")), Path::new("a/const.yaml"));
        assert_eq!(strip_dot(Path::new(".")), Path::new("."));
        assert_eq!(strip_dot(Path::new("a/./b")), Path::new("a/./b"));
    }
}
