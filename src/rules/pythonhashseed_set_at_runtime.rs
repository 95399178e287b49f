declare_rule! {
    /// ## What it checks
    /// `os.environ["PYTHONHASHSEED"] = …` (and `os.environ.setdefault(…)`,
    /// `os.environ.update(…)`, `os.putenv(…)`) in the training code, when the
    /// experiment's environment does not set `PYTHONHASHSEED` and the process does
    /// not start fresh Python interpreters afterwards (`torch.multiprocessing.spawn`,
    /// `subprocess`, `os.exec*`), which would read it.
    ///
    /// ## Why
    /// Python fixes its string-hash seed when the interpreter starts. Assigning the
    /// variable later changes only the environment of processes started afterwards:
    /// string hashes, and the order of sets and of anything built from them, stay
    /// random in this process and differ between ranks — while the code reads as if
    /// they were fixed. Set the variable in the experiment's environment, which
    /// Determined's launchers give every rank.
    ///
    /// ## Example
    /// ```python
    /// def set_seed(seed):
    ///     torch.manual_seed(seed)
    ///     os.environ["PYTHONHASHSEED"] = str(seed)   # warning: too late for this interpreter
    /// ```
    /// ```yaml
    /// environment:
    ///   environment_variables:
    ///     - PYTHONHASHSEED=42      # fix
    /// ```
    pub static PYTHONHASHSEED_SET_AT_RUNTIME = {
        code: "T106",
        name: "pythonhashseed-set-at-runtime",
        family: Training,
        severity: Warning,
        summary: "PYTHONHASHSEED assigned at run time has no effect on the running interpreter",
    };
}

use super::training_support::{code, env_assignments, env_var_edits, plan_environment, Code};
use super::{Cx, Sink};
use crate::training::ast::{ExprKind, StmtKind};
use crate::training::runtime;
use crate::training::values::Const;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.cfg.present || code.cfg.sets_env("PYTHONHASHSEED") || plan_environment(cx) {
        return;
    }
    let assignments = env_assignments(&code, "PYTHONHASHSEED");
    if assignments.is_empty() || starts_interpreters(&code) {
        return;
    }
    for (scope, stmt, span) in assignments {
        let d = out.at_loc(
            code.loc(scope.m, span),
            "PYTHONHASHSEED is read only when Python starts; assigning it here changes string hashing neither in this process nor on the other ranks",
        );
        d.help("set it in the experiment's environment.environment_variables, which every rank starts with");
        // The value, when it is a constant: the config edit.
        let value = match &stmt.kind {
            StmtKind::Assign { value, .. } => runtime::constant(code.prog, code.cfg, code.rt, scope, value),
            StmtKind::Expr(e) => match &e.kind {
                ExprKind::Call { args, .. } => {
                    runtime::pos(args, 1).and_then(|v| runtime::constant(code.prog, code.cfg, code.rt, scope, v))
                }
                _ => None,
            },
            _ => None,
        };
        let text = match value.as_ref().and_then(|r| r.single()) {
            Some(Const::Str(s)) if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) => Some(s.clone()),
            Some(Const::Int(i)) if *i >= 0 => Some(i.to_string()),
            _ => None,
        };
        if let Some(v) = text {
            if let Some(edits) = env_var_edits(cx, &format!("PYTHONHASHSEED={v}")) {
                d.fix(format!("set PYTHONHASHSEED={v} in the experiment's environment"), edits);
            }
        }
    }
}

/// Whether the code starts new Python interpreters, which read the
/// variable at their start-up.
fn starts_interpreters(code: &Code<'_>) -> bool {
    runtime::any_call(
        code.prog,
        &[
            "spawn",
            "subprocess",
            "exec",
            "system",
            "start_method",
            "get_context",
            "Popen",
            "start_processes",
        ],
        |p| {
            matches!(
                p,
                "torch.multiprocessing.spawn"
                    | "torch.multiprocessing.start_processes"
                    | "multiprocessing.set_start_method"
                    | "multiprocessing.get_context"
                    | "torch.multiprocessing.set_start_method"
                    | "torch.multiprocessing.get_context"
                    | "os.system"
            ) || p.starts_with("subprocess.")
                || p.starts_with("os.exec")
                || p.starts_with("os.spawn")
                || p.starts_with("os.posix_spawn")
        },
    )
}
