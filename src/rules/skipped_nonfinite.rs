//! T103 (`swallowed-error-skips-collective`) on a step skipped for a
//! non-finite loss: `if not math.isfinite(loss_value): continue` (also
//! `torch.isnan(loss)`, `math.isnan(x)`, `not torch.isfinite(loss).all()`,
//! `x != x`) in a rank's step loop, when the rest of the loop runs a
//! collective (the DDP backward's gradient all-reduce, an optimizer step of
//! a sharded model, a barrier). The loss is the rank's own: a rank whose
//! batch overflows skips the collective while the others wait in it. A
//! `break` on such a test (`if torch.isnan(loss): break`) leaves the step
//! loop on that rank while the others go on to the next step's collective.
//!
//! Silent where the checked value is the same on every rank (computed from
//! an `all_reduce`/`reduce`/`gather`/`broadcast` result, or reduced in place
//! before the test), where the loop runs under a DDP model's `join()`
//! context (which shadows the collectives of ranks that run out), and where
//! the skip ends neither in `continue` nor in `break`.

use super::swallowed_error_skips_collective::{loop_body, rest_of_loop};
use super::training_support::{excerpt, Code};
use super::Sink;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{walk_expr, Anc, LocalDef, Node, Scope};
use crate::training::runtime::{self, first_collective};

/// Calls whose result every rank shares.
pub(super) const AGREED: &[&str] = &[
    "all_reduce",
    "reduce",
    "all_gather",
    "gather",
    "broadcast",
    "reduce_dict",
    "reduce_tensor",
    "reduce_mean",
    "all_reduce_mean",
    "reduce_loss",
    "reduce_value",
    "allreduce",
];

pub(super) fn nonfinite_skips(code: &Code<'_>, ddp: bool, out: &mut Sink<'_>) {
    let prog = code.prog;
    for scope in code.scopes(&["isfinite", "isnan", "isinf"]) {
        if !code.rt.world_at(prog, scope.m).distributed() {
            continue;
        }
        let mut hits: Vec<(&Stmt, &Expr, Scope, &Expr, runtime::Collective, bool)> = Vec::new();
        prog.walk_stmts(scope, &mut |anc, s| {
            let StmtKind::If { test, body, .. } = &s.kind else {
                return;
            };
            let Some(value) = nonfinite_test(code, scope, test) else {
                return;
            };
            if agreed(code, scope, value, s) || under_join(anc) {
                return;
            }
            if ends_in_continue(body) {
                if let Some((cs, call, c)) = skipped_collective(code, scope, anc, s, ddp) {
                    hits.push((s, value, cs, call, c, false));
                }
            } else if ends_in_break(body) {
                // `if torch.isnan(loss): break`: the rank leaves its step loop
                // while the others go on to the next step's collectives.
                if runtime::runs_on_one_rank(prog, scope, anc, s as *const Stmt as *const ()) {
                    return;
                }
                let found = loop_body(anc).and_then(|blocks| {
                    blocks
                        .into_iter()
                        .find_map(|b| first_collective(prog, scope, b, ddp, 2))
                });
                if let Some((cs, call, c)) = found {
                    hits.push((s, value, cs, call, c, true));
                }
            }
        });
        for (s, value, cs, call, c, leaves) in hits {
            let value = excerpt(code.text(scope.m, value.span));
            report_skip(
                code,
                out,
                scope,
                s,
                (cs, call, &c),
                |what, others| if leaves {
                    format!("`{value}` is this rank's own loss: the rank whose batch overflows leaves the loop with `break`, while {others} go on to {what} of the next step and wait in it, and the job hangs until the collective times out")
                } else {
                    format!("`{value}` is this rank's own loss: the rank whose batch overflows `continue`s past {what} while {others} wait in it, and the job hangs until the collective times out")
                },
                "agree before skipping: all_reduce a non-finite flag and let every rank skip the step together, or keep the step on every rank (zero the loss, or let the gradient scaler skip the update, which it does on every rank alike)",
            );
        }
    }
}

/// The collective a `continue` at `s` jumps past: the first the rest of
/// the loop runs (through calls, two deep), unless `s` runs on one rank
/// only (then the others skip nothing it does).
pub(super) fn skipped_collective<'p>(
    code: &Code<'p>,
    scope: Scope,
    anc: &[Anc<'p>],
    s: &'p Stmt,
    ddp: bool,
) -> Option<(Scope, &'p Expr, runtime::Collective)> {
    if runtime::runs_on_one_rank(code.prog, scope, anc, s as *const Stmt as *const ()) {
        return None;
    }
    rest_of_loop(anc, s)?
        .into_iter()
        .find_map(|stmts| first_collective(code.prog, scope, stmts, ddp, 2))
}

/// Reports a skip `s` (an `if … : continue`) past collective `skipped`:
/// at the `if` line, with the message `lead` makes of what is skipped and
/// who waits, and a label at the collective.
pub(super) fn report_skip(
    code: &Code<'_>,
    out: &mut Sink<'_>,
    scope: Scope,
    s: &Stmt,
    skipped: (Scope, &Expr, &runtime::Collective),
    lead: impl FnOnce(&str, &str) -> String,
    help: &str,
) {
    let (cs, call, c) = skipped;
    let what = match c.kind.as_str() {
        "backward" => format!("`{}` (the gradient all-reduce)", excerpt(&c.label)),
        _ => format!("`{}`", excerpt(&c.label)),
    };
    let others = match code.rt.world_at(code.prog, scope.m) {
        runtime::World::Ranks(Some(n)) if n > 1 => format!("the other {} ranks", n - 1),
        _ => "the other ranks".to_string(),
    };
    let head = code.first_line(scope.m, s.span);
    let d = out.at_loc(code.loc(scope.m, head), lead(&what, &others));
    d.help(help);
    if let StmtKind::If { body, .. } = &s.kind {
        if let Some(skip) = first_continue(body) {
            if skip.span.start >= head.end {
                d.label(code.file(scope.m), skip.span, "where this rank leaves the step");
            }
        }
    }
    d.label(code.file(cs.m), call.span, "the collective this rank skips");
}

/// The first `continue` of `body`, directly or in an `if` inside it.
fn first_continue(body: &[Stmt]) -> Option<&Stmt> {
    body.iter().find_map(|s| match &s.kind {
        StmtKind::Continue => Some(s),
        StmtKind::If { body, orelse, .. } => first_continue(body).or_else(|| first_continue(orelse)),
        _ => None,
    })
}

/// The value a non-finite test checks: `not math.isfinite(v)`,
/// `not torch.isfinite(v).all()`, `math.isnan(v)`, `torch.isnan(v)`,
/// `torch.isnan(v).any()`, `v.isnan().item()`, `torch.isinf(v)`, `v != v`,
/// or an `or` of them.
pub(super) fn nonfinite_test<'p>(code: &Code<'p>, scope: Scope, test: &'p Expr) -> Option<&'p Expr> {
    let prog = code.prog;
    let check = |e: &'p Expr, want: &[&str]| -> Option<&'p Expr> {
        // `f(v)`, `f(v).any()`, `f(v).all()`, `v.isnan()`, and any of
        // them read out with `.item()` (`loss.isnan().item()`).
        let mut e = e;
        while let ExprKind::Call { func, args, .. } = &e.kind {
            match &func.kind {
                ExprKind::Attribute { value, attr }
                    if args.is_empty() && matches!(attr.as_str(), "any" | "all" | "item") =>
                {
                    e = value
                }
                _ => break,
            }
        }
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return None;
        };
        if let Some(p) = prog.external(scope, func) {
            let name = p.rsplit('.').next().unwrap_or("");
            let module_ok = p.starts_with("math.") || p.starts_with("torch.") || p.starts_with("numpy.");
            if module_ok && want.contains(&name) {
                return runtime::pos(args, 0);
            }
        }
        match &func.kind {
            ExprKind::Attribute { value, attr } if args.is_empty() && want.contains(&attr.as_str()) => Some(value),
            _ => None,
        }
    };
    match &test.kind {
        ExprKind::Not(inner) => check(inner, &["isfinite"]),
        ExprKind::BoolOp {
            and: false,
            left,
            right,
        } => nonfinite_test(code, scope, left).or_else(|| nonfinite_test(code, scope, right)),
        ExprKind::Compare { left, rest } => match rest.as_slice() {
            [(op, right)] if op == "!=" && code.text(scope.m, left.span) == code.text(scope.m, right.span) => {
                Some(left)
            }
            _ => None,
        },
        _ => check(test, &["isnan", "isinf"]),
    }
}

/// Whether a path through `body` ends in `continue` (directly, or in an
/// `if` inside it).
pub(super) fn ends_in_continue(body: &[Stmt]) -> bool {
    first_continue(body).is_some()
}

/// Whether `body` ends in `break` (its last statement).
fn ends_in_break(body: &[Stmt]) -> bool {
    matches!(body.last().map(|s| &s.kind), Some(StmtKind::Break))
}

/// Whether the checked value is the same on every rank: it mentions, or a
/// local name in it is assigned from, a reducing call, or a reducing call
/// takes it (in place) before the test.
pub(super) fn agreed(code: &Code<'_>, scope: Scope, value: &Expr, test_stmt: &Stmt) -> bool {
    let prog = code.prog;
    let reduces = |e: &Expr| {
        let mut hit = false;
        let mut stack = Vec::new();
        walk_expr(e, &mut stack, &mut |_, n| {
            if let Node::Expr(x) = n {
                if let ExprKind::Call { func, .. } = &x.kind {
                    let name = match &func.kind {
                        ExprKind::Attribute { attr, .. } => attr.as_str(),
                        ExprKind::Name(n) => n.as_str(),
                        _ => "",
                    };
                    hit |= AGREED.contains(&name);
                }
            }
        });
        hit
    };
    if reduces(value) {
        return true;
    }
    let names = names_in(value);
    let Some(f) = scope.func() else { return false };
    for name in &names {
        for d in prog.local_defs(f, name) {
            if let LocalDef::Assign { value, .. } = d {
                if reduces(value) {
                    return true;
                }
                // `loss_value = loss.item()`: the names it is made from.
                let inner = names_in(value);
                if names_reduced_before(code, scope, &inner, test_stmt) {
                    return true;
                }
            }
        }
    }
    names_reduced_before(code, scope, &names, test_stmt)
}

/// The names an expression reads.
pub(super) fn names_in(e: &Expr) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = Vec::new();
    walk_expr(e, &mut stack, &mut |_, n| {
        if let Node::Expr(x) = n {
            if let ExprKind::Name(name) = &x.kind {
                names.push(name.clone());
            }
        }
    });
    names
}

/// Whether a reducing call takes one of `names` before `stmt`
/// (`dist.all_reduce(loss)`).
fn names_reduced_before(code: &Code<'_>, scope: Scope, names: &[String], stmt: &Stmt) -> bool {
    let mut hit = false;
    code.prog.walk_exprs(scope, &mut |_, e| {
        if hit || e.span.start >= stmt.span.start {
            return;
        }
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return;
        };
        let Some(name) = super::training_support::called_name(func) else {
            return;
        };
        if AGREED.contains(&name) {
            hit = matches!(runtime::pos(args, 0).map(|a| &a.kind), Some(ExprKind::Name(n)) if names.contains(n));
        }
    });
    hit
}

/// Whether an enclosing `with` enters a DDP model's `join()` context.
pub(super) fn under_join(anc: &[Anc<'_>]) -> bool {
    anc.iter().any(|a| match a {
        Anc::Stmt(s) => match &s.kind {
            StmtKind::With { items, .. } => items.iter().any(|i| {
                matches!(&i.ctx.kind, ExprKind::Call { func, .. } if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "join"))
            }),
            _ => false,
        },
        _ => false,
    })
}
