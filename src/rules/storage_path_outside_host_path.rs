declare_rule! {
    /// ## What it checks
    /// For `shared_fs` storage (in `checkpoint_storage` and
    /// `tensorboard_storage`), that `storage_path` is a relative path that
    /// stays inside `host_path`, or an absolute path under `host_path`.
    /// Paths are compared after cleaning (`.`, `..` and repeated `/`
    /// resolved), component by component.
    ///
    /// ## Why
    /// Determined mounts `host_path` into the trial container and writes
    /// checkpoints to `storage_path` inside it; it rejects a `storage_path`
    /// outside `host_path` ("storage_path must either be a relative directory
    /// or a subdirectory of host_path"). Determined compares the cleaned
    /// paths as strings, so it lets `/mnt/data2` pass for `host_path:
    /// /mnt/data`; stagec compares whole path components and reports that
    /// case too, because such a directory is not inside the mount and the
    /// checkpoints would not reach the shared filesystem.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoint_storage:
    ///   type: shared_fs
    ///   host_path: /mnt/checkpoints
    ///   storage_path: /scratch/ckpt   # error: not under `host_path`
    /// ```
    pub static STORAGE_PATH_OUTSIDE_HOST_PATH = {
        code: "C202",
        name: "storage-path-outside-host-path",
        family: Determined,
        severity: Error,
        summary: "A shared_fs `storage_path` is not inside `host_path`",
    };
}

use serde_json::Value as Json;

use crate::rules::{path, Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    for section in ["checkpoint_storage", "tensorboard_storage"] {
        if ctx.get(&[section, "type"]).and_then(Json::as_str) != Some("shared_fs") {
            continue;
        }
        let storage = ctx.get(&[section, "storage_path"]).and_then(Json::as_str);
        let host = ctx.get(&[section, "host_path"]).and_then(Json::as_str);
        let (Some(storage), Some(host)) = (storage, host) else {
            continue;
        };
        if is_inside(storage, host) {
            continue;
        }
        let storage_path = path(&[section, "storage_path"]);
        let help = if storage.starts_with('/') {
            format!("give `storage_path` relative to `host_path` (e.g. `storage_path: determined` for `{host}/determined`), or an absolute path under `{host}`")
        } else {
            "a relative `storage_path` is taken inside `host_path` and may not climb out of it with `..`".to_string()
        };
        out.at(ctx.file, ctx.value_span(&storage_path),
            format!("`{section}.storage_path` (`{storage}`) must be a relative directory or a subdirectory of `host_path` (`{host}`)"),
        )
        .label(ctx.file, ctx.value_span(&path(&[section, "host_path"])), "the directory mounted into the container")
        .help(help);
    }
}

/// Whether `storage` (relative to `host`, or absolute) names `host` or a
/// directory below it.
fn is_inside(storage: &str, host: &str) -> bool {
    let storage = clean(storage);
    if storage.starts_with('/') {
        let host = clean(host);
        let s: Vec<&str> = components(&storage).collect();
        let h: Vec<&str> = components(&host).collect();
        host.starts_with('/') && s.starts_with(&h)
    } else {
        components(&storage).next() != Some("..")
    }
}

fn components(p: &str) -> impl Iterator<Item = &str> {
    p.split('/').filter(|c| !c.is_empty() && *c != ".")
}

/// Lexical path cleaning as Go's `filepath.Clean` does it on Unix: repeated
/// separators collapse, `.` components go, `..` removes the component before
/// it (at the root it is dropped; a relative path keeps its leading `..`).
fn clean(p: &str) -> String {
    let absolute = p.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => match out.last() {
                Some(&last) if last != ".." => {
                    out.pop();
                }
                _ if absolute => {}
                _ => out.push(".."),
            },
            c => out.push(c),
        }
    }
    let joined = out.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleans_like_go() {
        assert_eq!(clean("/a/b/../c/./d//"), "/a/c/d");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(clean("a/../../b"), "../b");
        assert_eq!(clean("a/.."), ".");
        assert_eq!(clean(""), ".");
        assert_eq!(clean("/"), "/");
        assert_eq!(clean("../../x"), "../../x");
    }

    #[test]
    fn relative_paths_stay_inside() {
        assert!(is_inside("determined", "/mnt/ckpt"));
        assert!(is_inside("a/../b", "/mnt/ckpt"));
        assert!(is_inside(".", "/mnt/ckpt"));
        assert!(is_inside("..data", "/mnt/ckpt"));
        assert!(!is_inside("../other", "/mnt/ckpt"));
        assert!(!is_inside("a/../../other", "/mnt/ckpt"));
    }

    #[test]
    fn absolute_paths_compare_components() {
        assert!(is_inside("/mnt/ckpt", "/mnt/ckpt"));
        assert!(is_inside("/mnt/ckpt/exp1", "/mnt/ckpt/"));
        assert!(is_inside("/mnt/./ckpt//exp1", "/mnt/x/../ckpt"));
        assert!(!is_inside("/mnt/ckpt2", "/mnt/ckpt"));
        assert!(!is_inside("/mnt/ckpt/../other", "/mnt/ckpt"));
        assert!(!is_inside("/scratch", "/mnt/ckpt"));
        assert!(!is_inside("/mnt/ckpt/x", "mnt/ckpt"));
        assert!(is_inside("/anything", "/"));
    }
}
