declare_rule! {
    /// ## What it checks
    /// That `${VAR}` and `${VAR:-default}` references in string values are
    /// well-formed: a closing `}` and a name of letters, digits and `_` that
    /// does not start with a digit. Write `$${` for a literal `${`.
    ///
    /// ## Why
    /// stagec resolves these references when it writes a plan; a malformed
    /// one would reach the cluster as literal text, typically as a wrong
    /// bucket name or credential that fails hours later.
    ///
    /// ## Example
    /// ```yaml
    /// checkpoint_storage:
    ///   type: s3
    ///   bucket: ${BUCKET        # error: missing `}`
    ///   secret_key: ${1SECRET}  # error: invalid name
    /// ```
    pub static VARIABLE_SYNTAX = {
        code: "V301",
        name: "variable-syntax",
        family: Variables,
        severity: Error,
        summary: "A `${VAR}` reference is malformed",
    };
}

use super::{Cx, Sink};
use crate::vars::{self, Malformed, VarSite};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(config) = cx.config() else { return };
    for site in vars::sites(config.tree, config.text) {
        let VarSite::Malformed { span, problem } = site else {
            continue;
        };
        let message = match problem {
            Malformed::Unclosed => "`${` is never closed with `}`".to_string(),
            Malformed::EmptyName => "empty variable name in `${}`".to_string(),
            Malformed::InvalidName(name) => {
                format!("`{name}` is not a valid variable name (letters, digits and `_`, not starting with a digit)")
            }
        };
        out.at(config.file, span, message)
            .help("write `${NAME}` or `${NAME:-default}`; `$${` is a literal `${`");
    }
}
