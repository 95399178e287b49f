declare_rule! {
    /// ## What it checks
    /// That the `prefix` of `s3` and `gcs` storage (in `checkpoint_storage`
    /// and `tensorboard_storage`) has no `..` path component: no `/../`,
    /// no leading `../`, no trailing `/..`, and not `..` itself.
    ///
    /// ## Why
    /// Determined rejects such prefixes ("prefix cannot contain /../"): the
    /// prefix names a folder inside the bucket, and `..` would climb out of
    /// it. A name that merely contains dots, such as `runs..v2`, is fine.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoint_storage:
    ///   type: s3
    ///   bucket: my-bucket
    ///   prefix: team/../shared   # error: `..` component
    /// ```
    pub static PREFIX_PARENT_DIR = {
        code: "C203",
        name: "prefix-parent-dir",
        family: Determined,
        severity: Error,
        summary: "An S3/GCS storage `prefix` contains a `..` path component",
    };
}

use serde_json::Value as Json;

use crate::rules::{path, Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    for section in ["checkpoint_storage", "tensorboard_storage"] {
        if !matches!(ctx.get(&[section, "type"]).and_then(Json::as_str), Some("s3" | "gcs")) {
            continue;
        }
        let Some(prefix) = ctx.get(&[section, "prefix"]).and_then(Json::as_str) else {
            continue;
        };
        if !has_parent_component(prefix) {
            continue;
        }
        out.at(ctx.file, ctx.value_span(&path(&[section, "prefix"])),
            format!("`{section}.prefix` (`{prefix}`) cannot contain a `..` path component"),
        )
        .help("the prefix is a folder inside the bucket; name it without `..` (Determined: \"prefix cannot contain /../\")");
    }
}

/// Whether `..` appears as a whole `/`-separated component: Determined's
/// patterns `/\.\./`, `^\.\./`, `/\.\.$` and `^\.\.$` together.
fn has_parent_component(prefix: &str) -> bool {
    prefix.split('/').any(|c| c == "..")
}

#[cfg(test)]
mod tests {
    use super::has_parent_component;

    #[test]
    fn matches_determined_patterns() {
        for bad in ["..", "../a", "a/..", "a/../b", "a//../b", "/..", "../", "a/b/.."] {
            assert!(has_parent_component(bad), "{bad}");
        }
        for ok in [
            "", "a", "a/b", "..a", "a..", "a/..b/c", "a/b../c", "...", "a/.../b", "./a", "/a/",
        ] {
            assert!(!has_parent_component(ok), "{ok}");
        }
    }
}
