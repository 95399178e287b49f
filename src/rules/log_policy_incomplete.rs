declare_rule! {
    /// ## What it checks
    /// That every entry of `log_policies` has a `name`, or else (the legacy
    /// form) both a `pattern` and an `action`.
    ///
    /// ## Why
    /// Determined identifies a log policy by its `name`; a policy with only
    /// a `name` (and no `pattern`) disables the cluster's default policy of
    /// that name. Legacy policies without a name are accepted only when they
    /// have both `pattern` and `action`. Anything else is rejected by the
    /// master.
    ///
    /// ## Example
    /// ```yaml
    /// log_policies:
    ///   - pattern: ".*CUDA out of memory.*"   # error: no `name`
    /// ```
    pub static LOG_POLICY_INCOMPLETE = {
        code: "C207",
        name: "log-policy-incomplete",
        family: Determined,
        severity: Error,
        summary: "A log policy has neither a `name` nor both `pattern` and `action`",
    };
}

use serde_json::Value as Json;

use crate::rules::{Cx, Sink};
use crate::yaml::PathSeg;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(ctx) = cx.config() else { return };
    let Some(Json::Array(policies)) = ctx.get(&["log_policies"]) else {
        return;
    };
    let mut incomplete = Vec::new();
    for (i, p) in policies.iter().enumerate() {
        // Determined's check is on presence (`required`), as here.
        let Json::Object(p) = p else { continue };
        if p.contains_key("name") || (p.contains_key("pattern") && p.contains_key("action")) {
            continue;
        }
        incomplete.push((i, p.contains_key("pattern")));
    }
    for (i, has_pattern) in incomplete {
        let item = vec![PathSeg::Key("log_policies".into()), PathSeg::Index(i)];
        let help = if has_pattern {
            "add a `name` for the policy (shown in the UI when the pattern matches); a nameless legacy policy also needs an `action`"
        } else {
            "add a `name` and the `pattern` to match; a policy with only a `name` disables the default policy of that name"
        };
        out.at(
            ctx.file,
            ctx.head_span(&item),
            format!("`log_policies[{i}]` needs a `name`, or both `pattern` and `action`"),
        )
        .help(help);
    }
}
