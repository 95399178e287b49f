//! T103's second shape: a handler that falls back to a default for a value
//! the normal path reads (`epoch = 0` when the checkpoint cannot be read),
//! where that value bounds the loop that runs the rank's training steps
//! (`for epoch in range(start_epoch, epochs)` around a DDP backward) — in the
//! same function, or returned to a caller that loops over it. A rank whose
//! read fails then runs a different number of steps than the others.
//!
//! Followed only when the value reaches `range(...)` unchanged: the name is
//! bound nowhere after the read (or the call that returns it) in the
//! function that loops — a default before it is fine, a broadcast or
//! all_reduce result that replaces it is agreement — and the loop's body
//! runs a collective.

use super::training_support::Code;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{if_arm, walk_expr, walk_stmt, Anc, FuncId, LocalDef, Node, Scope};
use crate::training::runtime::{self, first_collective, Collective};

/// An expression and its scope.
type Site<'p> = (Scope, &'p Expr);

/// A fallback that sets a loop's step count.
pub(super) struct Fallback<'p> {
    /// The assignment in the handler (`epoch = 0`), or the default before
    /// the `try` that the handler keeps.
    pub assign: &'p Stmt,
    /// Whether `assign` is that default.
    pub kept: bool,
    /// The loop's `range(...)` and its scope.
    pub range: Site<'p>,
    /// The collective the loop's body runs.
    pub collective: (Scope, &'p Expr, Collective),
}

/// The fallback of handler path `path` (which falls through) of `try_stmt`
/// in `scope` that bounds a training loop.
pub(super) fn fallback<'p>(
    code: &Code<'p>,
    scope: Scope,
    try_stmt: &'p Stmt,
    body: &'p [Stmt],
    path: &'p [Stmt],
    ddp: bool,
) -> Option<Fallback<'p>> {
    let f = scope.func()?;
    // `epoch += 1` after the read, inside the `try`: the value read, moved
    // on, not a binding of its own.
    let in_try = |p: usize| try_stmt.span.start <= p && p < try_stmt.span.end;
    let bound_within = |name: &str, ok: &dyn Fn(&Expr) -> bool| {
        let defs = code.prog.local_defs(f, name);
        let others = defs.iter().filter(|d| matches!(d, LocalDef::Other)).count();
        let augs = aug_assigns(code, scope, name);
        defs.iter().all(|d| match d {
            LocalDef::Assign { value, .. } => ok(value),
            LocalDef::Other => true,
            _ => false,
        }) && others == augs.len()
            && augs.iter().all(|p| in_try(*p))
    };
    for s in path {
        let StmtKind::Assign { targets, .. } = &s.kind else {
            continue;
        };
        let [target] = targets.as_slice() else { continue };
        let ExprKind::Name(name) = &target.kind else { continue };
        if !assigns(body, name) {
            continue;
        }
        // The loop in the same function (the name bound in the `try`, its
        // handler, or before them).
        let within = |value: &Expr| {
            value.span.end <= try_stmt.span.end
                || never_runs(code, scope, value)
                || later_swallowed_read(code, scope, try_stmt, value, name)
        };
        if bound_within(name, &within) {
            if let Some((range, collective)) = bounded_loop(code, scope, name, try_stmt.span.end, ddp) {
                return Some(Fallback {
                    assign: s,
                    kept: false,
                    range: (scope, range),
                    collective,
                });
            }
        }
        // Returned to a caller that loops over it.
        if let Some((range, collective)) = returned_to_loop(code, f, name, ddp) {
            return Some(Fallback {
                assign: s,
                kept: false,
                range,
                collective,
            });
        }
    }
    // A default set before the `try` that the read replaces and the
    // handler keeps (`epoch_str = 1`, then `try: …, epoch_str =
    // load_checkpoint(…)` and `except: pass`).
    let mut names: Vec<&str> = Vec::new();
    for st in body {
        if let StmtKind::Assign { targets, .. } = &st.kind {
            for t in targets {
                bound_names(t, &mut names);
            }
        }
    }
    for name in names {
        if assigns(path, name) {
            continue;
        }
        let mut default: Option<&'p Stmt> = None;
        code.prog.walk_stmts(scope, &mut |_, st| {
            if st.span.end > try_stmt.span.start {
                return;
            }
            if let StmtKind::Assign { targets, value } = &st.kind {
                if matches!(targets.as_slice(), [t] if binds(t, name)) && matches!(value.kind, ExprKind::Int(_)) {
                    default = Some(st);
                }
            }
        });
        let Some(default) = default else { continue };
        let within = |value: &Expr| value.span.end <= default.span.end || in_try(value.span.start);
        if !bound_within(name, &within) {
            continue;
        }
        if let Some((range, collective)) = bounded_loop(code, scope, name, try_stmt.span.end, ddp) {
            return Some(Fallback {
                assign: default,
                kept: true,
                range: (scope, range),
                collective,
            });
        }
    }
    None
}

/// Whether `value` (a later binding of `name`) is read in the body of a
/// later `try` whose handlers all go on without binding `name` (a second
/// resume `try` that reads `epoch_str` again, `except Exception: print(e)`):
/// where that read fails too, the first handler's fallback is the value the
/// loop gets.
fn later_swallowed_read(code: &Code<'_>, scope: Scope, first: &Stmt, value: &Expr, name: &str) -> bool {
    let mut hit = false;
    code.prog.walk_stmts(scope, &mut |_, st| {
        if hit
            || st.span.start < first.span.end
            || !(st.span.start <= value.span.start && value.span.end <= st.span.end)
        {
            return;
        }
        let StmtKind::Try { body, handlers, .. } = &st.kind else {
            return;
        };
        let in_body = body
            .iter()
            .any(|b| b.span.start <= value.span.start && value.span.end <= b.span.end);
        hit = in_body
            && !handlers.is_empty()
            && handlers.iter().all(|h| {
                !assigns(&h.body, name)
                    && super::swallowed_error_skips_collective::swallowing_path(code, scope, h)
                        .is_some_and(|(path, _)| !path.iter().any(|p| matches!(p.kind, StmtKind::Return(_))))
            });
    });
    hit
}

/// The names a target binds (`_, _, _, epoch = …`).
fn bound_names<'e>(t: &'e Expr, out: &mut Vec<&'e str>) {
    match &t.kind {
        ExprKind::Name(n) if !out.contains(&n.as_str()) => out.push(n),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for i in items {
                bound_names(i, out);
            }
        }
        _ => {}
    }
}

/// Where `scope` rebinds `name` with an augmented assignment (`name += 1`).
fn aug_assigns(code: &Code<'_>, scope: Scope, name: &str) -> Vec<usize> {
    let mut out = Vec::new();
    code.prog.walk_stmts(scope, &mut |_, st| {
        if let StmtKind::AugAssign { target, .. } = &st.kind {
            if matches!(&target.kind, ExprKind::Name(n) if n == name) {
                out.push(st.span.start);
            }
        }
    });
    out
}

/// Whether the statement binding `value` sits on a branch no run takes:
/// the body of `if flag:` with `flag` a constant false (`skip_optimizer =
/// False` a few lines up), or its `else` when the constant is true.
fn never_runs(code: &Code<'_>, scope: Scope, value: &Expr) -> bool {
    let Some(anc) = code.prog.ancestors_of(scope, value) else {
        return false;
    };
    anc.iter().any(|a| {
        let Anc::Stmt(st) = a else { return false };
        let Some((test, taken_when)) = if_arm(st, value.span) else {
            return false;
        };
        let r = runtime::constant(code.prog, code.cfg, code.rt, scope, test);
        r.and_then(|r| r.as_bool()).is_some_and(|b| b != taken_when)
    })
}

/// Whether `body` assigns `name` (on the normal path).
fn assigns(body: &[Stmt], name: &str) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    for s in body {
        walk_stmt(s, &mut stack, &mut |_, n| {
            if let Node::Stmt(st) = n {
                if let StmtKind::Assign { targets, .. } = &st.kind {
                    found |= targets.iter().any(|t| binds(t, name));
                }
            }
        });
    }
    found
}

fn binds(t: &Expr, name: &str) -> bool {
    match &t.kind {
        ExprKind::Name(n) => n == name,
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().any(|i| binds(i, name)),
        _ => false,
    }
}

/// A `for … in range(…)` of `scope` after byte `after` whose arguments
/// mention `name` and whose body runs a collective.
fn bounded_loop<'p>(
    code: &Code<'p>,
    scope: Scope,
    name: &str,
    after: usize,
    ddp: bool,
) -> Option<(&'p Expr, (Scope, &'p Expr, Collective))> {
    let mut found = None;
    code.prog.walk_stmts(scope, &mut |_, s| {
        if found.is_some() || s.span.start < after {
            return;
        }
        let StmtKind::For { iter, body, .. } = &s.kind else {
            return;
        };
        let ExprKind::Call { func, args, .. } = &iter.kind else {
            return;
        };
        if code.prog.external(scope, func).as_deref() != Some("builtins.range") {
            return;
        }
        let mentions = args.iter().any(|a| {
            let mut hit = false;
            let mut stack = Vec::new();
            let e = match a {
                crate::training::ast::Arg::Pos(e) | crate::training::ast::Arg::Kw { value: e, .. } => e,
                _ => return false,
            };
            walk_expr(e, &mut stack, &mut |_, n| {
                if let Node::Expr(x) = n {
                    hit |= matches!(&x.kind, ExprKind::Name(n) if n == name);
                }
            });
            hit
        });
        if !mentions {
            return;
        }
        if let Some(c) =
            first_collective(code.prog, scope, body, ddp, 2).or_else(|| nested_step(code, scope, body, ddp))
        {
            found = Some((iter, c));
        }
    });
    found
}

/// A collective in a function defined inside `body` and used there (a
/// `train_step` closure handed to a timer): the collective call itself.
fn nested_step<'p>(
    code: &Code<'p>,
    scope: Scope,
    body: &'p [Stmt],
    ddp: bool,
) -> Option<(Scope, &'p Expr, Collective)> {
    let mut defs = Vec::new();
    let mut stack = Vec::new();
    for s in body {
        walk_stmt(s, &mut stack, &mut |_, n| {
            if let Node::Stmt(st) = n {
                if let StmtKind::FunctionDef(idx) = st.kind {
                    defs.push(FuncId {
                        m: scope.m,
                        c: scope.c,
                        f: idx,
                    });
                }
            }
        });
    }
    for f in defs {
        let Some(func) = code.prog.func(f) else { continue };
        // Used in the loop: its name appears outside its own definition.
        let used = body.iter().any(|s| {
            let text = code.text(scope.m, s.span);
            text.match_indices(func.name.as_str()).count() > usize::from(text.contains(&format!("def {}", func.name)))
        });
        if !used {
            continue;
        }
        if let Some(hit) = first_collective(code.prog, f.scope(), code.prog.body(f.scope()), ddp, 2) {
            return Some(hit);
        }
    }
    None
}

/// When `f` returns `name` (alone or in a tuple), a caller that binds it
/// to a name of its own, binds that name nowhere else, and loops over a
/// `range` of it around a collective.
fn returned_to_loop<'p>(
    code: &Code<'p>,
    f: FuncId,
    name: &str,
    ddp: bool,
) -> Option<(Site<'p>, (Scope, &'p Expr, Collective))> {
    let returns = code.prog.returns(f);
    let mut index = None;
    for r in &returns {
        let i = match &r.kind {
            ExprKind::Name(n) if n == name => None,
            ExprKind::Tuple(items) => Some(
                items
                    .iter()
                    .position(|x| matches!(&x.kind, ExprKind::Name(n) if n == name))?,
            ),
            _ => return None,
        };
        if index.is_some_and(|j| j != i) {
            return None;
        }
        index = Some(i);
    }
    let index = index?;
    for (cs, call) in code.prog.call_sites(f) {
        if !code.rt.world_at(code.prog, cs.m).distributed() {
            continue;
        }
        let Some(caller) = cs.func() else { continue };
        let Some(anc) = code.prog.ancestors_of(cs, call) else {
            continue;
        };
        let Some(stmt) = code.prog.stmt_of(&anc) else { continue };
        let StmtKind::Assign { targets, value } = &stmt.kind else {
            continue;
        };
        if !std::ptr::eq(value, call) {
            continue;
        }
        let [target] = targets.as_slice() else { continue };
        let bound = match (&target.kind, index) {
            (ExprKind::Name(n), None) => n,
            (ExprKind::Tuple(items) | ExprKind::List(items), Some(i)) => match items.get(i).map(|x| &x.kind) {
                Some(ExprKind::Name(n)) => n,
                _ => continue,
            },
            _ => continue,
        };
        // Bound here, and otherwise only before (a default the call
        // overwrites: `start_epoch = 0` then `…, start_epoch = load(…)`).
        let before = |d: &LocalDef<'_>| match d {
            LocalDef::Assign { value, .. } => std::ptr::eq(*value, call) || value.span.end <= stmt.span.start,
            _ => false,
        };
        if !code.prog.local_defs(caller, bound).iter().all(before) {
            continue;
        }
        if let Some((range, c)) = bounded_loop(code, cs, bound, stmt.span.end, ddp) {
            return Some(((cs, range), c));
        }
    }
    None
}
