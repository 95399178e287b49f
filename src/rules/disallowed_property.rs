declare_rule! {
    /// ## What it checks
    /// Keys that Determined's schema names as not allowed (its
    /// `disallowProperties`):
    ///
    /// - `tensorboard_storage.save_experiment_best`, `save_trial_best` and
    ///   `save_trial_latest` are deprecated and ignored (reported as a
    ///   warning);
    /// - `environment.pod_spec.name` and `environment.pod_spec.name_space`
    ///   (Determined names the pod and picks its namespace);
    /// - `resources.slots`, a legacy key Determined's schema still lists but
    ///   its master refuses in every experiment (`slots_per_trial` replaced it);
    /// - in `environment.pod_spec.spec.containers`, the container named
    ///   `determined-container` may not set `image`, `command`, `args`,
    ///   `working_dir`, `ports`, `liveness_probe`, `readiness_probe`,
    ///   `startup_probe`, `lifecycle`, `termination_message_path`,
    ///   `termination_message_policy`, `image_pull_policy` or
    ///   `security_context`. Determined's schema applies this to a container
    ///   without `name` too (its condition on `name` holds when the key is
    ///   missing), and refuses an entry that is not a mapping at all.
    ///
    /// The container fields are matched with the snake_case spellings that
    /// Determined's schema uses. A Kubernetes manifest spells them in
    /// camelCase (`workingDir`, `imagePullPolicy`, ...); Determined's check
    /// does not look at those spellings, and neither does this rule (some,
    /// such as `securityContext`, Determined merges into its own settings).
    ///
    /// ## Why
    /// Determined runs the trial in `determined-container` and sets these
    /// fields itself (the image comes from `environment.image`, the command
    /// from `entrypoint`); the master rejects experiments that try to set
    /// them through the pod spec.
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   pod_spec:
    ///     spec:
    ///       containers:
    ///         - name: determined-container
    ///           image: my/image:latest   # error: set `environment.image`
    /// ```
    pub static DISALLOWED_PROPERTY = {
        code: "C208",
        name: "disallowed-property",
        family: Determined,
        severity: Error,
        summary: "A key Determined does not allow (or ignores) at this place",
    };
}

use serde_json::Value as Json;

use crate::diagnostic::Severity;
use crate::rules::{path, Config, Cx, Sink};
use crate::yaml::{display_path, PathSeg};

/// Fields of `determined-container` that Determined's schema disallows
/// (its spellings), with the advice to give.
const CONTAINER_FIELDS: &[(&str, &str)] = &[
    ("image", "set the image with `environment.image`"),
    ("command", "Determined runs `entrypoint` in this container"),
    ("args", "pass arguments in `entrypoint`"),
    (
        "working_dir",
        "Determined runs the trial in the directory holding the experiment's code",
    ),
    ("ports", "expose ports with `environment.proxy_ports`"),
    ("liveness_probe", "Determined manages the container's lifecycle"),
    ("readiness_probe", "Determined manages the container's lifecycle"),
    ("startup_probe", "Determined manages the container's lifecycle"),
    ("lifecycle", "Determined manages the container's lifecycle"),
    (
        "termination_message_path",
        "Determined manages the container's lifecycle",
    ),
    (
        "termination_message_policy",
        "Determined manages the container's lifecycle",
    ),
    ("image_pull_policy", "set `environment.force_pull_image` instead"),
    (
        "security_context",
        "set it in the experiment config (`environment.add_capabilities`, `drop_capabilities`)",
    ),
];

const TENSORBOARD_FIELDS: &[&str] = &["save_experiment_best", "save_trial_best", "save_trial_latest"];

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    tensorboard(&ctx, out);
    pod_spec(&ctx, out);
    legacy_slots(&ctx, out);
}

/// `resources.slots`: still in Determined's schema, refused by its master.
fn legacy_slots(ctx: &Config<'_>, out: &mut Sink<'_>) {
    let slots = ctx.get(&["resources", "slots"]);
    if slots.is_none_or(Json::is_null) {
        return;
    }
    let p = path(&["resources", "slots"]);
    let d = out
        .at(
            ctx.file,
            ctx.key_span(&p),
            "`resources.slots` is not allowed: Determined's master refuses every experiment that sets it",
        )
        .help("the number of GPUs a trial uses is `resources.slots_per_trial`");
    if ctx.get(&["resources", "slots_per_trial"]).is_none() {
        // Only a key written in this mapping (not one merged in) is renamed.
        if let Some(key) = crate::edit::own_node(ctx.tree, &p).and_then(|l| l.key) {
            d.unsafe_fix(
                "Rename to `slots_per_trial`",
                vec![crate::edit::replace(ctx.file, ctx.tree.span(key), "slots_per_trial")],
            );
        }
    }
}

fn tensorboard(ctx: &Config<'_>, out: &mut Sink<'_>) {
    let Some(Json::Object(tb)) = ctx.get(&["tensorboard_storage"]) else {
        return;
    };
    let present: Vec<&str> = TENSORBOARD_FIELDS
        .iter()
        .copied()
        .filter(|f| tb.contains_key(*f))
        .collect();
    for field in present {
        let p = path(&["tensorboard_storage", field]);
        let d = out
            .at(
                ctx.file,
                ctx.key_span(&p),
                format!("`tensorboard_storage.{field}` is deprecated and ignored"),
            )
            .severity(Severity::Warning)
            .help(
                "checkpoint retention is set in `checkpoint_storage`; TensorBoard files are kept with the experiment",
            );
        if let Some(edit) = crate::edit::delete_entry(ctx.file, ctx.text, ctx.tree, &p) {
            d.fix(format!("Remove `{field}`"), vec![edit]);
        }
    }
}

fn pod_spec(ctx: &Config<'_>, out: &mut Sink<'_>) {
    let Some(Json::Object(pod)) = ctx.get(&["environment", "pod_spec"]) else {
        return;
    };
    let mut found: Vec<(Vec<PathSeg>, String)> = Vec::new();
    for (field, what) in [("name", "the pod's name"), ("name_space", "the pod's namespace")] {
        if pod.contains_key(field) {
            found.push((
                path(&["environment", "pod_spec", field]),
                format!("Determined chooses {what} itself; remove this key"),
            ));
        }
    }
    if let Some(Json::Array(containers)) = pod.get("spec").and_then(|s| s.get("containers")) {
        for (i, c) in containers.iter().enumerate() {
            let entry = vec![
                PathSeg::Key("environment".into()),
                PathSeg::Key("pod_spec".into()),
                PathSeg::Key("spec".into()),
                PathSeg::Key("containers".into()),
                PathSeg::Index(i),
            ];
            let Json::Object(c) = c else {
                let found = match c {
                    Json::Null => "null",
                    Json::Bool(_) => "a boolean",
                    Json::Number(_) => "a number",
                    Json::String(_) => "a string",
                    _ => "a list",
                };
                out.at(
                    ctx.file,
                    ctx.value_span(&entry),
                    format!(
                        "`{}` must be a container (a mapping), not {found}",
                        display_path(&entry)
                    ),
                )
                .help("each entry of `containers` is a Kubernetes container: `{name: ..., ...}`");
                continue;
            };
            let unnamed = !c.contains_key("name");
            if !unnamed && c.get("name").and_then(Json::as_str) != Some("determined-container") {
                continue;
            }
            for (field, advice) in CONTAINER_FIELDS {
                if c.contains_key(*field) {
                    let p = vec![
                        PathSeg::Key("environment".into()),
                        PathSeg::Key("pod_spec".into()),
                        PathSeg::Key("spec".into()),
                        PathSeg::Key("containers".into()),
                        PathSeg::Index(i),
                        PathSeg::Key((*field).to_string()),
                    ];
                    let help = if unnamed {
                        format!("a container without `name` is checked as `determined-container`, which Determined configures itself: {advice}; or name the container")
                    } else {
                        format!("Determined configures `determined-container` itself: {advice}")
                    };
                    found.push((p, help));
                }
            }
        }
    }
    for (p, help) in found {
        out.at(
            ctx.file,
            ctx.key_span(&p),
            format!("`{}` is not configurable", display_path(&p)),
        )
        .help(help);
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::apply_fixes;

    #[test]
    fn removes_deprecated_tensorboard_fields() {
        let text =
            "tensorboard_storage:\n  type: s3\n  bucket: b\n  save_trial_best: 1  # old\n  save_trial_latest: 2\n";
        let (out, diags) = apply_fixes(text, "C208");
        assert_eq!(out, "tensorboard_storage:\n  type: s3\n  bucket: b\n");
        assert_eq!(diags.iter().filter(|d| d.code == "C208").count(), 2);
    }

    #[test]
    fn no_fix_without_a_line_of_its_own() {
        let text = "tensorboard_storage: {type: s3, bucket: b, save_trial_best: 1}\n";
        let (out, diags) = apply_fixes(text, "C208");
        assert_eq!(out, text);
        assert!(diags.iter().any(|d| d.code == "C208"));
    }
}
