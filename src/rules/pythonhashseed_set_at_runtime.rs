declare_rule! {
    /// ## What it checks
    /// `os.environ["PYTHONHASHSEED"] = …` (and `os.environ.setdefault(…)`,
    /// `os.environ.update(…)`, `os.putenv(…)`) in the training code — also in
    /// Python files checked without an experiment config — when the experiment's
    /// environment does not set `PYTHONHASHSEED` and the code around the assignment
    /// (its function, their callers and what they call) does not start fresh Python
    /// interpreters (`torch.multiprocessing.spawn`, `subprocess`, `os.exec*`), which
    /// would read it. Commands known to start another program (`git`, `gsutil`,
    /// `tar`, a `bash` script) do not count, and neither does a spawn of a
    /// function the same code also calls directly (`if args.deepspeed:
    /// worker(…)` beside `mp.spawn(worker, …)`): on that path the training runs
    /// in an interpreter that started before the assignment.
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
use crate::source::Span;
use crate::training::ast::{Expr, ExprKind, StmtKind};
use crate::training::program::{Anc, FuncId, ModId, Scope};
use crate::training::runtime;
use crate::training::runtime::kw;
use crate::training::values::Const;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    // Without an experiment config (Python files checked on their own) the
    // assignment is as late as with one; the fix then goes to the launch.
    if (code.cfg.present && code.cfg.sets_env("PYTHONHASHSEED")) || plan_environment(cx) {
        return;
    }
    let assignments = env_assignments(&code, "PYTHONHASHSEED");
    for (scope, stmt, span) in assignments {
        // Process starts in code that runs with the assignment (not in an
        // export script of the same package).
        if starts_interpreters(&code, scope) {
            continue;
        }
        let d = out.at_loc(
            code.loc(scope.m, span),
            "PYTHONHASHSEED is read only when Python starts; assigning it here changes string hashing neither in this process nor on the other ranks",
        );
        if code.cfg.present {
            d.help("set it in the experiment's environment.environment_variables, which every rank starts with");
        } else {
            d.help("set it where the job is launched (`PYTHONHASHSEED=0 torchrun …`, or the experiment's environment.environment_variables), so that every rank's interpreter starts with it");
        }
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

/// Whether the code around an assignment in `at` starts new Python
/// interpreters, which read the
/// variable at their start-up: `torch.multiprocessing.spawn` and the like,
/// or a process-starting call (`subprocess.*`, `os.system`, `os.exec*`)
/// whose command is not known to start another program (`git`, `gsutil`,
/// `tar`, a `bash` script).
fn starts_interpreters(code: &Code<'_>, at: Scope) -> bool {
    let prog = code.prog;
    // The code around the assignment: its function, the functions that call
    // it (a few levels up) and what those call, and the module level of
    // their modules. A process started elsewhere in the package (an export
    // script's compiler call) does not read this assignment.
    let mut funcs: Vec<FuncId> = Vec::new();
    // For a caller, the calls in it that lead down to the assignment: a
    // process it started before them (`mp.spawn` in the other arm of
    // `if world_size > 1: … else: main_func(*cfg)`) ran before the
    // assignment did.
    let mut leads: Vec<(FuncId, Span)> = Vec::new();
    let mut modules: Vec<ModId> = vec![at.m];
    let mut frontier: Vec<FuncId> = at.func().into_iter().collect();
    for _ in 0..4 {
        let mut next = Vec::new();
        for f in frontier {
            if funcs.contains(&f) || funcs.len() > 64 {
                continue;
            }
            funcs.push(f);
            for (s, call) in prog.call_sites(f) {
                // The process a spawner starts (`mp.spawn(worker, …)`, or
                // a launcher's handing `main` on to it) runs the assignment
                // after it started: that start reads nothing it sets.
                if prog.spawns(s, call) {
                    continue;
                }
                match s.func() {
                    Some(g) => {
                        leads.push((g, call.span));
                        next.push(g);
                    }
                    None if !modules.contains(&s.m) => modules.push(s.m),
                    None => {}
                }
            }
        }
        frontier = next;
    }
    let callers = funcs.clone();
    for f in callers {
        for g in prog.callees_of(f.scope(), prog.body(f.scope()), 1) {
            if !funcs.contains(&g) {
                funcs.push(g);
            }
        }
    }
    let related = |scope: Scope| match scope.func() {
        Some(f) => funcs.contains(&f),
        None => modules.contains(&scope.m),
    };
    // A start in a caller that comes before every call leading down, and
    // not in a loop around one of them.
    let before_leads = |scope: Scope, anc: &[Anc<'_>], start: &Expr| {
        let Some(g) = scope.func() else { return false };
        if Some(g) == at.func() {
            return false;
        }
        let calls: Vec<Span> = leads.iter().filter(|(h, _)| *h == g).map(|(_, s)| *s).collect();
        !calls.is_empty()
            && calls.iter().all(|c| start.span.end <= c.start)
            && !anc.iter().any(|a| {
                matches!(a, Anc::Stmt(st) if matches!(st.kind, StmtKind::For { .. } | StmtKind::While { .. })
                    && calls.iter().any(|c| st.span.start <= c.start && c.end <= st.span.end))
            })
    };
    let needles = [
        "spawn",
        "subprocess",
        "exec",
        "system",
        "start_method",
        "get_context",
        "Popen",
        "start_processes",
        "check_output",
        "check_call",
    ];
    for scope in code.scopes(&needles) {
        if !related(scope) {
            continue;
        }
        let mut hit = false;
        prog.walk_exprs(scope, &mut |anc, e| {
            if hit {
                return;
            }
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            let Some(p) = prog.external(scope, func) else { return };
            let spawns = matches!(
                p.as_str(),
                "torch.multiprocessing.spawn"
                    | "torch.multiprocessing.start_processes"
                    | "multiprocessing.set_start_method"
                    | "multiprocessing.get_context"
                    | "torch.multiprocessing.set_start_method"
                    | "torch.multiprocessing.get_context"
            );
            let command = p == "os.system"
                || p.starts_with("subprocess.")
                || p.starts_with("os.exec")
                || p.starts_with("os.spawn")
                || p.starts_with("os.posix_spawn");
            if before_leads(scope, anc, e) {
                return;
            }
            if spawns {
                // The spawned function also called directly in the same
                // function (`if args.deepspeed: worker(…) elif dist: mp.spawn(worker, …)`):
                // on that path the training runs in this interpreter (or
                // in processes a launcher started), which the assignment
                // reaches too late.
                hit = !called_directly_beside(prog, scope, args);
            } else if command {
                // `os.execv(path, argv)`: the program is the first argument too.
                let cmd = runtime::pos(args, 0).or_else(|| kw(args, "args"));
                hit = cmd.is_none_or(|c| !other_program(code, scope, anc, c));
            }
        });
        if hit {
            return true;
        }
    }
    false
}

/// Whether the function a spawner is handed (`mp.spawn(worker, …)`, its
/// first argument) is also called directly in `scope`.
fn called_directly_beside(
    prog: &crate::training::program::Program,
    scope: Scope,
    args: &[crate::training::ast::Arg],
) -> bool {
    use crate::training::program::Callee;
    let Some(target) = runtime::pos(args, 0).or_else(|| kw(args, "fn")) else {
        return false;
    };
    let Callee::Func(f) = prog.callee(scope, target) else {
        return false;
    };
    let mut direct = false;
    prog.walk_exprs(scope, &mut |_, e| {
        if let ExprKind::Call { func, .. } = &e.kind {
            direct |= prog.callee(scope, func) == Callee::Func(f);
        }
    });
    direct
}

/// Whether the command `cmd` is known to start a program other than
/// Python: a literal command (or argument list) whose program is not
/// `python…` or a Python launcher, or a name tested just above with
/// `cmd.startswith("bash ")`-style guards.
fn other_program(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], cmd: &Expr) -> bool {
    match &cmd.kind {
        ExprKind::List(items) | ExprKind::Tuple(items) => items
            .first()
            .is_some_and(|first| other_program(code, scope, anc, first)),
        ExprKind::Str(s) => program_word(s).is_some_and(|w| !python_word(w)),
        // `f"git -C {path} describe"`: the literal text before the first field.
        ExprKind::FString => {
            let text = code.text(scope.m, cmd.span);
            let body = text
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .trim_start_matches(['"', '\'']);
            let head = body.split('{').next().unwrap_or("");
            head.contains(' ') && program_word(head).is_some_and(|w| !python_word(w))
        }
        ExprKind::Name(n) => {
            if let Some(Const::Str(s)) = runtime::constant(code.prog, code.cfg, code.rt, scope, cmd)
                .as_ref()
                .and_then(|r| r.single())
            {
                return program_word(s).is_some_and(|w| !python_word(w));
            }
            // `elif n.startswith("bash "): subprocess.run(n, …)`
            anc.iter().any(|a| {
                let Anc::Stmt(st) = a else { return false };
                let StmtKind::If { test, body, .. } = &st.kind else { return false };
                let inside = body.first().zip(body.last()).is_some_and(|(f, l)| f.span.start <= cmd.span.start && cmd.span.end <= l.span.end);
                let ExprKind::Call { func, args, .. } = &test.kind else { return false };
                let ExprKind::Attribute { value, attr } = &func.kind else { return false };
                inside
                    && attr == "startswith"
                    && matches!(&value.kind, ExprKind::Name(v) if v == n)
                    && matches!(runtime::pos(args, 0), Some(Expr { kind: ExprKind::Str(s), .. }) if program_word(s).is_some_and(|w| !python_word(w)) && s.ends_with(' '))
            })
        }
        _ => false,
    }
}

/// The program of a shell command: its first word, without a path.
fn program_word(s: &str) -> Option<&str> {
    let w = s.split_whitespace().next()?;
    Some(w.rsplit('/').next().unwrap_or(w))
}

/// Whether `w` starts Python (an interpreter or a launcher that starts one).
fn python_word(w: &str) -> bool {
    w.starts_with("python")
        || matches!(
            w,
            "torchrun"
                | "deepspeed"
                | "accelerate"
                | "env"
                | "exec"
                | "nohup"
                | "srun"
                | "mpirun"
                | "horovodrun"
                | "det"
        )
}
