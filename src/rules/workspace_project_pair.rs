declare_rule! {
    /// ## What it checks
    /// That `workspace` and `project` are set together or not at all.
    ///
    /// ## Why
    /// Determined places an experiment in a project named by both: with only
    /// one of them it refuses the experiment ("workspace and project must
    /// both be included in config if one is provided"). It checks after
    /// merging a config template, and not at all when `det experiment
    /// create` is given a project, so stagec warns.
    ///
    /// ## Example
    /// ```yaml
    /// workspace: vision   # warning: no `project`
    /// ```
    pub static WORKSPACE_PROJECT_PAIR = {
        code: "C214",
        name: "workspace-project-pair",
        family: Determined,
        severity: Warning,
        summary: "`workspace` is set without `project`, or `project` without `workspace`",
    };
}

use serde_json::Value as Json;

use crate::rules::{path, Cx, Sink};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    // Determined compares with the empty string: null and "" count as unset.
    let set = |k: &str| ctx.get(&[k]).and_then(Json::as_str).is_some_and(|s| !s.is_empty());
    let (missing, present) = match (set("workspace"), set("project")) {
        (true, false) => ("project", "workspace"),
        (false, true) => ("workspace", "project"),
        _ => return,
    };
    out.at(
        ctx.file,
        ctx.key_span(&path(&[present])),
        format!("`{present}` is set without `{missing}`: Determined refuses it unless a config template supplies `{missing}` or `det experiment create` names a project"),
    )
    .help(format!("add `{missing}`: Determined finds the project by both names"));
}
