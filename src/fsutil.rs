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
/// `stages.yml` and Python files mentioning `stage_decorator`. Like `det
/// experiment create`, it leaves out what `.detignore` excludes; hidden
/// folders, caches and virtual environments are skipped too, and the walk
/// is bounded.
pub fn discover_models(context: &Path) -> Vec<PathBuf> {
    const MAX_FILES: usize = 2000;
    const MAX_DEPTH: usize = 8;
    let ignore = std::fs::read_to_string(context.join(".detignore"))
        .map(|t| DetIgnore::parse(&t))
        .unwrap_or_default();
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
            let relative = path
                .strip_prefix(context)
                .map(|r| r.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            let is_dir = path.is_dir();
            if ignore.excludes(&relative, is_dir) {
                continue;
            }
            if is_dir {
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

/// `.detignore` patterns (gitignore syntax, as Determined's CLI reads them):
/// `#` comments, `!` negations, a trailing `/` for folders only, a leading
/// or inner `/` anchoring at the context root, `*` and `?` within a path
/// segment and `**` across segments. The last matching pattern wins.
#[derive(Debug, Default)]
struct DetIgnore {
    rules: Vec<(bool, bool, bool, Vec<String>)>, // (negated, dirs only, anchored, segments)
}

impl DetIgnore {
    fn parse(text: &str) -> Self {
        let mut rules = Vec::new();
        for line in text.lines() {
            let mut p = line.trim_end();
            if p.is_empty() || p.starts_with('#') {
                continue;
            }
            let negated = p.starts_with('!');
            p = p.trim_start_matches('!');
            let dirs_only = p.ends_with('/');
            p = p.trim_end_matches('/');
            let anchored = p.trim_start_matches('/').contains('/') || p.starts_with('/');
            let segments: Vec<String> = p.trim_start_matches('/').split('/').map(str::to_string).collect();
            if !segments.is_empty() {
                rules.push((negated, dirs_only, anchored, segments));
            }
        }
        DetIgnore { rules }
    }

    fn excludes(&self, relative: &str, is_dir: bool) -> bool {
        let parts: Vec<&str> = relative.split('/').filter(|s| !s.is_empty()).collect();
        let mut excluded = false;
        for (negated, dirs_only, anchored, segments) in &self.rules {
            if *dirs_only && !is_dir {
                continue;
            }
            let hit = if *anchored {
                match_segments(segments, &parts)
            } else {
                // Unanchored: matches the last component (gitignore's rule for
                // patterns without a slash).
                parts.last().is_some_and(|last| glob(&segments[0], last))
            };
            if hit {
                excluded = !negated;
            }
        }
        excluded
    }
}

fn match_segments(pattern: &[String], parts: &[&str]) -> bool {
    match (pattern.first(), parts.first()) {
        (None, None) => true,
        (Some(p), _) if p == "**" => (0..=parts.len()).any(|skip| match_segments(&pattern[1..], &parts[skip..])),
        (Some(p), Some(part)) => glob(p, part) && match_segments(&pattern[1..], &parts[1..]),
        _ => false,
    }
}

/// `*` (any run) and `?` (one character) within one path segment.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0usize, 0usize, None::<usize>, 0usize);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detignore_patterns() {
        let ig = DetIgnore::parse("# comment\n*.ckpt\nold/\n/data/raw\nexperiments/**/model.py\n!keep.ckpt\n");
        assert!(ig.excludes("weights.ckpt", false));
        assert!(ig.excludes("sub/weights.ckpt", false));
        assert!(!ig.excludes("keep.ckpt", false));
        assert!(ig.excludes("old", true) && !ig.excludes("old", false));
        assert!(ig.excludes("data/raw", true) && !ig.excludes("x/data/raw", true));
        assert!(ig.excludes("experiments/a/b/model.py", false) && ig.excludes("experiments/model.py", false));
        assert!(!ig.excludes("model.py", false));
    }

    #[test]
    fn discovery_honours_detignore() {
        let dir = std::env::temp_dir().join(format!("stagec-detignore-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("old")).unwrap();
        std::fs::write(dir.join("model.py"), "@stage_decorator(stage_id=0)\nclass A: pass\n").unwrap();
        std::fs::write(
            dir.join("old/model.py"),
            "@stage_decorator(stage_id=0)\nclass A: pass\n",
        )
        .unwrap();
        std::fs::write(dir.join("train.py"), "print(1)\n").unwrap();
        assert_eq!(discover_models(&dir).len(), 2);
        std::fs::write(dir.join(".detignore"), "old/\n").unwrap();
        assert_eq!(discover_models(&dir), vec![dir.join("model.py")]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
