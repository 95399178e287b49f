declare_rule! {
    /// ## What it checks
    /// Names in `environment.environment_variables` (the list form and the
    /// `cpu`/`cuda`/`rocm` lists) that are not portable environment
    /// variable names: letters, digits and `_`, not starting with a digit
    /// (`[A-Za-z_][A-Za-z0-9_]*`). The name is the text before the first
    /// `=`, or the whole entry when it has none.
    ///
    /// ## Why
    /// Determined hands the names to the container as they are written; a
    /// shell cannot `export` any other name, Kubernetes refuses many of them
    /// when it creates the pod, and a name such as `HOME_$(touch PWNED)`
    /// would be a command to a shell that evaluates the environment (`eval
    /// "$(stagec env)"` on every rank). stagec plans no such config, and
    /// `stagec env` refuses a plan that holds such a name.
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   environment_variables:
    ///     - "HOME_$(touch PWNED)=1"   # error: `$` in the name
    ///     - MY-VAR=1                  # error: `-` in the name
    /// ```
    pub static INVALID_ENV_NAME = {
        code: "E105",
        name: "invalid-env-name",
        family: Environment,
        severity: Error,
        summary: "An environment variable's name is not a valid variable name",
    };
}

use super::{Cx, Sink};
use crate::envvars;
use crate::source::Span;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(config), Some(json)) = (cx.config(), cx.compiled.config_json()) else {
        return;
    };
    for (name, path) in envvars::names(json) {
        if envvars::is_valid_name(&name) {
            continue;
        }
        let span = config.value_span(&path);
        // The name starts the scalar, after an opening quote if any; where
        // it is written otherwise (escapes, a block scalar) the whole entry.
        let quoted = matches!(config.text.get(span.start..span.start + 1), Some("\"" | "'"));
        let start = span.start + usize::from(quoted);
        let name_span = Span::new(start, start + name.len());
        let at = if !name.is_empty() && config.text.get(name_span.start..name_span.end) == Some(name.as_str()) {
            name_span
        } else {
            span
        };
        let shown = super::text::truncate(&name.escape_debug().to_string());
        // Quoted as code, unless the name holds the quote itself.
        let shown = if shown.contains('`') {
            format!("\"{shown}\"")
        } else {
            format!("`{shown}`")
        };
        let message = match envvars::first_invalid_char(&name) {
            None => "an environment variable has an empty name".to_string(),
            Some(_) if name.starts_with(|c: char| c.is_ascii_digit()) => {
                format!("{shown} is not a valid environment variable name: it starts with a digit")
            }
            Some(c) => format!("{shown} is not a valid environment variable name: {c} is not a letter, digit or `_`"),
        };
        out.at(config.file, at, message).help(
            "name variables with letters, digits and `_`, not starting with a digit; Determined passes the name to the container as written",
        );
    }
}
