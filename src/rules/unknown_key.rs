declare_rule! {
    /// ## What it checks
    /// That every key is one Determined (or stagec's HPP extension) knows at
    /// that place in the config.
    ///
    /// ## Why
    /// Determined rejects unknown keys only when the experiment reaches the
    /// master, without a line number; a misspelled optional key may instead
    /// go unnoticed while its setting silently keeps the default. stagec
    /// points at the key, suggests the nearest known one, and recognises
    /// common confusions, such as the `checkpoints: {storage_type, config}`
    /// shape, which Determined spells `checkpoint_storage: {type, ...}`.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoints:            # error: unknown key; Determined expects:
    ///   storage_type: s3      # checkpoint_storage:
    ///   config:               #   type: s3
    ///     bucket: my-bucket   #   bucket: my-bucket
    /// ```
    pub static UNKNOWN_KEY = {
        code: "C101",
        name: "unknown-key",
        severity: Error,
        summary: "A key is not part of the experiment config schema",
    };
}

use crate::diagnostic::{Diagnostic, Edit};
use crate::source::{FileId, Span};
use crate::yaml::{PathSeg, Tree, Value};

/// Builds the diagnostic for `key`, unknown in the mapping at `path`.
/// `allowed` are the keys valid there and not yet present.
pub fn diagnose(
    file: FileId,
    text: &str,
    tree: &Tree,
    path: &[PathSeg],
    key: &str,
    span: Span,
    allowed: &[&str],
) -> Diagnostic {
    let place = if path.is_empty() {
        "at the top level".to_string()
    } else {
        format!("in `{}`", crate::yaml::display_path(path))
    };
    let d = Diagnostic::new(&UNKNOWN_KEY, file, span, format!("unknown key `{key}` {place}"));
    if let Some(d2) = known_confusion(d.clone(), file, text, tree, path, key, span) {
        return d2;
    }
    match crate::schema::nearest(key, allowed.iter().copied()) {
        Some(best) => d.with_help(format!("did you mean `{best}`?")).with_fix(
            format!("Rename to `{best}`"),
            vec![Edit {
                file,
                span,
                replacement: best.to_string(),
            }],
        ),
        None if !allowed.is_empty() && allowed.len() <= 12 => d.with_help(format!(
            "known keys here: {}",
            allowed.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
        )),
        None => d,
    }
}

/// Mistakes seen in the wild, with the shape Determined expects.
fn known_confusion(
    d: Diagnostic,
    file: FileId,
    text: &str,
    tree: &Tree,
    path: &[PathSeg],
    key: &str,
    span: Span,
) -> Option<Diagnostic> {
    let at_root = path.is_empty();
    let in_storage = matches!(path, [PathSeg::Key(k)] if k == "checkpoint_storage" || k == "tensorboard_storage");
    match key {
        "checkpoints" | "checkpoint" | "checkpointing" | "checkpoint_config" if at_root => Some(checkpoints_shape(d, file, text, tree, key, span)),
        "storage_type" if in_storage => Some(d.with_help("Determined selects the storage backend with `type`").with_fix(
            "Rename to `type`",
            vec![Edit { file, span, replacement: "type".into() }],
        )),
        "config" if in_storage => Some(d.with_help(
            "Determined takes the storage settings (`bucket`, `access_key`, ...) directly under `checkpoint_storage`, not nested in `config`",
        )),
        "PREPEND_PATH" | "PATH" | "LD_LIBRARY_PATH" if matches!(path, [PathSeg::Key(k)] if k == "environment") => Some(d.with_help(
            "Determined sets environment variables through `environment.environment_variables`, e.g. `environment_variables: [\"PATH=/usr/local/nvidia/bin:$PATH\"]`",
        )),
        "nccl_timeout_seconds" | "nccl_timeout" => Some(d.with_help(
            "Determined has no NCCL timeout setting; the collective timeout is `init_process_group(timeout=...)` in the training code (NCCL's default is 10 minutes)",
        )),
        "slots" | "gpus" | "num_gpus" if at_root || matches!(path, [PathSeg::Key(k)] if k == "resources") => Some(
            d.with_help("the number of GPUs per trial is `resources.slots_per_trial`"),
        ),
        _ => None,
    }
}

/// The field notes write `checkpoints: {storage_type: s3, config: {bucket: ...}}`.
/// Determined expects `checkpoint_storage: {type: s3, bucket: ...}`: show
/// that shape, built from the user's own values, and offer it as a fix.
fn checkpoints_shape(d: Diagnostic, file: FileId, text: &str, tree: &Tree, key: &str, span: Span) -> Diagnostic {
    let generic = "Determined expects:\ncheckpoint_storage:\n  type: s3            # or shared_fs, gcs, azure, directory\n  bucket: my-bucket\n  access_key: ${S3_ACCESS_KEY}\n  secret_key: ${S3_SECRET_KEY}";
    let Some(loc) = tree.locate(&[PathSeg::Key(key.to_string())]) else {
        return d.with_help(generic);
    };
    let mut lines: Vec<(String, String)> = Vec::new();
    let mut ok = true;
    let mut push = |k: &str, v: crate::yaml::NodeId, lines: &mut Vec<(String, String)>| {
        let node = tree.node(v);
        let scalar = !matches!(tree.value(v), Value::Map(_) | Value::Seq(_));
        match text.get(node.span.start..node.span.end) {
            Some(src) if scalar && !src.contains('\n') => lines.push((k.to_string(), src.to_string())),
            _ => ok = false,
        }
    };
    for (k, e) in tree.merged_entries(loc.node) {
        match k.as_str() {
            "storage_type" | "type" => push("type", e.value, &mut lines),
            "config" if matches!(tree.value(e.value), Value::Map(_)) => {
                for (ck, ce) in tree.merged_entries(e.value) {
                    push(&ck, ce.value, &mut lines);
                }
            }
            other => push(other, e.value, &mut lines),
        }
    }
    if !ok || lines.is_empty() || !lines.iter().any(|(k, _)| k == "type") {
        return d.with_help(generic);
    }
    // Keep `type` first, as Determined's docs write it.
    lines.sort_by_key(|(k, _)| k != "type");
    let line_start = text.get(..span.start).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    let indent = " ".repeat(text.get(line_start..span.start).map_or(0, |t| t.chars().count()));
    let body: Vec<String> = lines.iter().map(|(k, v)| format!("{indent}  {k}: {v}")).collect();
    let replacement = format!("checkpoint_storage:\n{}", body.join("\n"));
    let shown = format!(
        "checkpoint_storage:\n{}",
        lines
            .iter()
            .map(|(k, v)| format!("  {k}: {v}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let end = tree.span(loc.node).end.max(span.end);
    d.with_help(format!(
        "Determined expects the storage type in `type` and its settings beside it:\n{shown}"
    ))
    .with_fix(
        "Rewrite as `checkpoint_storage`",
        vec![Edit {
            file,
            span: Span::new(span.start, end),
            replacement,
        }],
    )
}
