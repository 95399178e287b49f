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
        family: Schema,
        severity: Error,
        summary: "A key is not part of the experiment config schema",
    };
}

use super::text::backticked;
use super::{Cx, Sink};
use crate::diagnostic::{Applicability, Edit};
use crate::edit;
use crate::schema::FindingKind;
use crate::source::{FileId, Span};
use crate::suggest::nearest;
use crate::yaml::{PathSeg, Tree, Value};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, _, doc) in cx.documents() {
        for f in &doc.findings {
            let FindingKind::UnknownKey { key, allowed } = &f.kind else {
                continue;
            };
            if out.full_for(file) {
                continue;
            }
            let place = if f.path.is_empty() {
                "at the top level".to_string()
            } else {
                format!("in `{}`", crate::yaml::display_path(&f.path))
            };
            let advice =
                known_confusion(file, cx.text(file), &doc.tree, &f.path, key, f.span).or_else(|| {
                    match nearest(key, allowed.iter().map(String::as_str)) {
                        Some(best) => Some(Advice {
                            help: format!("did you mean `{best}`?"),
                            fix: Some((
                                format!("Rename to `{best}`"),
                                vec![edit::replace(file, f.span, best)],
                                Applicability::Safe,
                            )),
                        }),
                        None if !allowed.is_empty() && allowed.len() <= 12 => Some(Advice {
                            help: format!("known keys here: {}", backticked(allowed)),
                            fix: None,
                        }),
                        None => None,
                    }
                });
            let d = out.at(
                file,
                f.span,
                format!("unknown key `{}` {place}", super::text::truncate(key)),
            );
            if let Some(advice) = advice {
                d.help(advice.help);
                match advice.fix {
                    Some((title, edits, Applicability::Safe)) => {
                        d.fix(title, edits);
                    }
                    Some((title, edits, Applicability::Unsafe)) => {
                        d.unsafe_fix(title, edits);
                    }
                    None => {}
                }
            }
        }
    }
}

/// Help for an unknown key, and a fix (title, edits, how safely it applies).
struct Advice {
    help: String,
    fix: Option<(String, Vec<Edit>, Applicability)>,
}

impl Advice {
    fn help(help: impl Into<String>) -> Option<Advice> {
        Some(Advice {
            help: help.into(),
            fix: None,
        })
    }
}

/// Mistakes seen in the wild, with the shape Determined expects.
fn known_confusion(file: FileId, text: &str, tree: &Tree, path: &[PathSeg], key: &str, span: Span) -> Option<Advice> {
    let at_root = path.is_empty();
    let in_storage = matches!(path, [PathSeg::Key(k)] if k == "checkpoint_storage" || k == "tensorboard_storage");
    match key {
        "checkpoints" | "checkpoint" | "checkpointing" | "checkpoint_config" if at_root => {
            Some(checkpoints_shape(file, text, tree, key, span))
        }
        "storage_type" if in_storage => Some(Advice {
            help: "Determined selects the storage backend with `type`".into(),
            fix: Some(("Rename to `type`".into(), vec![edit::replace(file, span, "type")], Applicability::Safe)),
        }),
        "config" if in_storage => Advice::help(
            "Determined takes the storage settings (`bucket`, `access_key`, ...) directly under `checkpoint_storage`, not nested in `config`",
        ),
        "PREPEND_PATH" | "PATH" | "LD_LIBRARY_PATH" if matches!(path, [PathSeg::Key(k)] if k == "environment") => {
            Advice::help(search_path_advice(key))
        }
        "region" | "region_name" | "aws_region" | "aws_default_region" if in_storage => Advice::help(
            "Determined's S3 storage has no region setting: the trial's boto3 client is made with `endpoint_url` and the \
             keys only, so it takes the region from the container's environment — add `AWS_DEFAULT_REGION=us-west-2` \
             to `environment.environment_variables` — or from a regional `endpoint_url` \
             (`https://s3.us-west-2.amazonaws.com`)",
        ),
        "use_ssl" | "ssl" | "secure" | "verify_ssl" if in_storage => Advice::help(
            "Determined's S3 storage has no TLS setting: the trial's boto3 client uses HTTPS unless `endpoint_url` is an \
             `http://` address, so HTTPS needs nothing here, and an S3-compatible store without TLS is reached with \
             `endpoint_url: http://HOST:PORT`",
        ),
        "nccl_timeout_seconds" | "nccl_timeout" => Advice::help(
            "Determined has no NCCL timeout setting; the collective timeout is `init_process_group(timeout=...)` in the training code (NCCL's default is 10 minutes)",
        ),
        "slots" | "gpus" | "num_gpus" if at_root || matches!(path, [PathSeg::Key(k)] if k == "resources") => {
            Advice::help("the number of GPUs per trial is `resources.slots_per_trial`")
        }
        _ => None,
    }
}

/// How to set a search path in the container. Determined passes each
/// `environment_variables` entry to the container as written: Docker does not
/// expand `$PATH` in it and Kubernetes expands only `$(VAR)`, so
/// `PATH=/usr/local/nvidia/bin:$PATH` would leave the container a PATH of
/// that folder and a literal `$PATH`, without `/usr/bin`.
fn search_path_advice(key: &str) -> String {
    let (var, dir, example) = if key == "LD_LIBRARY_PATH" {
        (
            "LD_LIBRARY_PATH",
            "/usr/local/nvidia/lib64",
            "LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64",
        )
    } else {
        (
            "PATH",
            "/usr/local/nvidia/bin",
            "PATH=/usr/local/nvidia/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        )
    };
    format!(
        "Determined sets environment variables through `environment.environment_variables`, each as written: \
         nothing expands `${var}` there (Docker passes the value as it is, Kubernetes expands only `$(VAR)`), \
         so give the whole value, e.g. `environment_variables: [\"{example}\"]` (the image's own `{var}` \
         is in `docker inspect IMAGE`), or add the folder in the image's Dockerfile \
         (`ENV {var}={dir}:${var}`, which Docker expands when it builds the image)"
    )
}

/// `checkpoints: {storage_type: s3, config: {bucket: ...}}` is not
/// Determined's; it expects `checkpoint_storage: {type: s3, bucket: ...}`:
/// show that shape, built from the user's own values, and offer it as a fix.
fn checkpoints_shape(file: FileId, text: &str, tree: &Tree, key: &str, span: Span) -> Advice {
    let generic = Advice {
        help: "Determined expects:\ncheckpoint_storage:\n  type: s3            # or shared_fs, gcs, azure, directory\n  bucket: my-bucket\n  access_key: ${S3_ACCESS_KEY}\n  secret_key: ${S3_SECRET_KEY}".into(),
        fix: None,
    };
    let Some(loc) = tree.locate(&[PathSeg::Key(key.to_string())]) else {
        return generic;
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
        return generic;
    }
    // Keep `type` first, as Determined's docs write it.
    lines.sort_by_key(|(k, _)| k != "type");
    // A credential written out is never copied into a message, nor into a
    // fix that JSON and SARIF output would carry.
    let literal_secret = |k: &str, v: &str| {
        crate::secrets::looks_like_credential(k) && !v.trim_matches(['"', '\'']).trim_start().starts_with("${")
    };
    let has_secret = lines.iter().any(|(k, v)| literal_secret(k, v));
    let shown = format!(
        "checkpoint_storage:\n{}",
        lines
            .iter()
            .map(|(k, v)| {
                let v = if literal_secret(k, v) { "…" } else { v.as_str() };
                format!("  {k}: {v}")
            })
            .collect::<Vec<_>>()
            .join("\n")
    );
    let block: Vec<String> = std::iter::once("checkpoint_storage:".to_string())
        .chain(lines.iter().map(|(k, v)| format!("  {k}: {v}")))
        .collect();
    let end = tree.span(loc.node).end.max(span.end);
    let fix = (!has_secret)
        .then(|| edit::rewrite_block(file, text, Span::new(span.start, end), &block))
        .flatten()
        .map(|e| {
            (
                "Rewrite as `checkpoint_storage`".to_string(),
                vec![e],
                Applicability::Unsafe,
            )
        });
    let mut help = format!("Determined expects the storage type in `type` and its settings beside it:\n{shown}");
    if has_secret {
        help.push_str(
            "\ncredentials written out in the config are stored with the experiment: reference them instead, e.g. `secret_key: ${S3_SECRET_KEY}`",
        );
    }
    Advice { help, fix }
}

#[cfg(test)]
mod search_path_tests {
    use super::search_path_advice;

    #[test]
    fn the_suggested_value_needs_no_expansion() {
        for key in ["PREPEND_PATH", "PATH", "LD_LIBRARY_PATH"] {
            let help = search_path_advice(key);
            let example = help
                .split("environment_variables: [\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_else(|| panic!("no example in {help}"));
            assert!(!example.contains('$'), "{key}: {example}");
            if key != "LD_LIBRARY_PATH" {
                assert!(
                    example.starts_with("PATH=") && example.contains(":/usr/bin:"),
                    "{example}"
                );
            }
        }
    }
}
