declare_rule! {
    /// ## What it checks
    /// That no `bind_mounts[*].container_path` is `.`.
    ///
    /// ## Why
    /// A relative `container_path` is resolved against the trial's working
    /// directory, where Determined places the experiment's code; mounting a
    /// host directory at `.` would hide it. Determined rejects the value
    /// (`container_path must not be "."`).
    ///
    /// ## Example
    /// ```yaml
    /// bind_mounts:
    ///   - host_path: /mnt/datasets
    ///     container_path: .      # error
    /// ```
    pub static CONTAINER_PATH_DOT = {
        code: "C205",
        name: "container-path-dot",
        family: Determined,
        severity: Error,
        summary: "A bind mount's `container_path` is `.`",
    };
}

use serde_json::Value as Json;

use crate::rules::{Cx, Sink};
use crate::yaml::PathSeg;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    let Some(Json::Array(mounts)) = ctx.get(&["bind_mounts"]) else {
        return;
    };
    let dots: Vec<usize> = mounts
        .iter()
        .enumerate()
        .filter(|(_, m)| m.get("container_path").and_then(Json::as_str) == Some("."))
        .map(|(i, _)| i)
        .collect();
    for i in dots {
        let p = vec![
            PathSeg::Key("bind_mounts".into()),
            PathSeg::Index(i),
            PathSeg::Key("container_path".into()),
        ];
        out.at(ctx.file, ctx.value_span(&p),
            format!("`bind_mounts[{i}].container_path` must not be `.`"),
        )
        .help("`.` is the working directory holding the experiment's code; mount at a subdirectory such as `./data` or an absolute path such as `/data`");
    }
}
