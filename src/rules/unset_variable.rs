declare_rule! {
    /// ## What it checks
    /// That every `${VAR}` referenced without a default (`${VAR:-default}`)
    /// is set in the environment stagec runs in.
    ///
    /// ## Why
    /// `stagec plan` needs the value and fails when it is missing. `stagec
    /// check` only warns, because CI jobs that validate configs often do not
    /// hold the secrets the cluster will have. Values are never printed.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoint_storage:
    ///   secret_key: ${S3_SECRET_KEY}   # warning when S3_SECRET_KEY is unset
    /// ```
    pub static UNSET_VARIABLE = {
        code: "V302",
        name: "unset-variable",
        family: Variables,
        severity: Warning,
        summary: "A referenced environment variable is not set",
    };
}

use super::{Cx, Sink};
use crate::diagnostic::Severity;
use crate::vars::{self, VarSite};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(config) = cx.config() else { return };
    for site in vars::sites(config.tree, config.text) {
        let VarSite::Reference { span, reference: r } = site else {
            continue;
        };
        if r.default.is_some() || (cx.env)(&r.name).is_some() {
            continue;
        }
        let severity = if cx.require_variables {
            Severity::Error
        } else {
            Severity::Warning
        };
        out.at(
            config.file,
            span,
            format!("environment variable `{}` is not set", r.name),
        )
        .help(format!(
            "set `{}` where the experiment is submitted, or give a default: `${{{}:-value}}`",
            r.name, r.name
        ))
        .severity(severity);
    }
}
