declare_rule! {
    /// ## What it checks
    /// Entries of `environment.environment_variables` (the list form and the
    /// `cpu`/`cuda`/`rocm` lists) that set a credential written out: a
    /// credential's name (`WANDB_API_KEY`, `HF_TOKEN`,
    /// `AWS_SECRET_ACCESS_KEY`, `GITHUB_PAT`, …) with a literal value, or a
    /// value shaped like a credential whatever its name (a GitHub or Hugging
    /// Face token, the password of a URL) — the classifier every output of
    /// stagec uses. `${VAR}` references are what it suggests instead.
    ///
    /// ## Why
    /// The config is stored with the experiment, where everyone who can see
    /// the experiment can read it, and `stagec plan` has to copy the value
    /// into `determined.yaml`, since the job needs it. A `${VAR}` reference
    /// keeps it out of both: `stagec plan` keeps the reference for
    /// `envsubst` to fill in at submission, or writes the value into a
    /// `determined.yaml` of mode 0600 with `--resolve-secrets`. The fix is
    /// unsafe: the variable must then be set where the experiment is
    /// submitted.
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   environment_variables:
    ///     - WANDB_API_KEY=0123456789abcdef   # warning
    ///     - WANDB_API_KEY=${WANDB_API_KEY}   # fine: set at submission
    /// ```
    pub static LITERAL_CREDENTIAL_ENV = {
        code: "E106",
        name: "literal-credential-env",
        family: Environment,
        severity: Warning,
        summary: "An environment variable sets a credential written out in the config",
    };
}

use super::{Cx, Sink};
use crate::{envvars, secrets};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(config), Some(settings)) = (cx.config(), cx.settings()) else {
        return;
    };
    for e in &settings.environment_variables {
        let literal = !e.value.trim().is_empty() && !e.value.trim_start().starts_with("${");
        // An invalid name is E105's; the value is never shown.
        if !literal || !envvars::is_valid_name(&e.name) || !secrets::is_secret(&e.name, &e.value) {
            continue;
        }
        let reference = format!("{}=${{{}}}", e.name, e.name);
        // What messages show of the name: user text is cut at 60 characters.
        let name = super::text::truncate(&e.name);
        let d = out.at(
            config.file,
            config.value_span(&e.path),
            format!(
                "`{name}` is set to a credential written out in the config: it is stored with the experiment and copied into determined.yaml"
            ),
        );
        d.help(format!(
            "reference it instead (`{name}=${{{name}}}`) and set `{name}` where the experiment is submitted; `stagec plan` keeps the reference for `envsubst`, or writes the value with `--resolve-secrets`"
        ));
        if let Some(span) = config.own_scalar_span(&e.path) {
            let whole = format!("{}={}", e.name, e.value);
            let edit = crate::edit::replace_string(config.file, config.text, span, &whole, &reference);
            d.unsafe_fix(format!("Reference `${{{name}}}` instead"), vec![edit]);
        }
    }
}
