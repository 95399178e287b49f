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
    /// or a subdirectory of host_path"). Its check compares the cleaned paths
    /// as strings, which stagec follows exactly for the error:
    ///
    /// - an absolute `storage_path` must start with the cleaned `host_path`
    ///   as a string;
    /// - a relative one must not start with `..` — which also refuses a
    ///   child directory whose name starts with two dots, such as `..data`.
    ///
    /// Where Determined's string comparison accepts a path that is not
    /// inside `host_path` component by component (`/mnt/data2` for
    /// `host_path: /mnt/data`), stagec warns instead: Determined runs the
    /// experiment, but that directory is not inside the mount and the
    /// checkpoints do not reach the shared filesystem.
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
        let accepted = determined_accepts(storage, host);
        if accepted && is_inside(storage, host) {
            continue;
        }
        let storage_path = path(&[section, "storage_path"]);
        if accepted {
            out.at(ctx.file, ctx.value_span(&storage_path),
                format!("`{section}.storage_path` (`{storage}`) is not inside `host_path` (`{host}`): Determined accepts it because it compares the paths as strings"),
            )
            .label(ctx.file, ctx.value_span(&path(&[section, "host_path"])), "the directory mounted into the container")
            .help("the directory is outside the mount, so checkpoints would not reach the shared filesystem; give a path under `host_path`, or one relative to it")
            .severity(crate::diagnostic::Severity::Warning);
            continue;
        }
        if !storage.starts_with('/') && is_inside(storage, host) {
            out.at(ctx.file, ctx.value_span(&storage_path),
                format!("`{section}.storage_path` (`{storage}`) starts with `..`: Determined refuses every relative `storage_path` that does"),
            )
            .help(format!(
                "write it as an absolute path under `host_path` (`{}/{}`), or rename the directory",
                host.trim_end_matches('/'),
                clean(storage)
            ));
            continue;
        }
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

/// Determined's own check (its `a_is_subdir_of_b`): both paths cleaned, an
/// absolute `storage` must start with `host` as a string, a relative one
/// must not start with `..`.
fn determined_accepts(storage: &str, host: &str) -> bool {
    let storage = clean(storage);
    if storage.starts_with('/') {
        storage.starts_with(&clean(host))
    } else {
        !storage.starts_with("..")
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
    fn determined_compares_cleaned_strings() {
        assert!(determined_accepts("/mnt/ckptfoo", "/mnt/ckpt"));
        assert!(determined_accepts("/database", "/data"));
        assert!(determined_accepts("//data/x", "/data"));
        assert!(!determined_accepts("..foo", "/"));
        assert!(!determined_accepts("a/../../b", "/mnt"));
        assert!(!determined_accepts("./..foo", "/"));
        assert!(determined_accepts("/mnt/..foo", "/mnt"));
        assert!(!determined_accepts("/scratch", "/mnt/ckpt"));
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
