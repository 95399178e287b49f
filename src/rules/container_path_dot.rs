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
        severity: Error,
        summary: "A bind mount's `container_path` is `.`",
    };
}

use serde_json::Value as Json;

use crate::diagnostic::Diagnostic;
use crate::semantic::Ctx;
use crate::yaml::PathSeg;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
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
        let d = Diagnostic::new(
            &CONTAINER_PATH_DOT,
            ctx.file,
            ctx.value_span(&p),
            format!("`bind_mounts[{i}].container_path` must not be `.`"),
        )
        .with_help("`.` is the working directory holding the experiment's code; mount at a subdirectory such as `./data` or an absolute path such as `/data`");
        ctx.push(d);
    }
}
