//! T103's third shape: a handler that `continue`s past the `yield` of a
//! generator that feeds a rank's training loop — an `IterableDataset`'s
//! `__iter__` or a generator function that skips a file it cannot read.
//! The rank where the read fails yields one item fewer, leaves its
//! `for batch in loader:` a step early, and the other ranks wait in the
//! collective of their last step.
//!
//! Followed only when the skipped loop is a finite `for` (not inside a
//! `while` of the generator: an endless stream keeps no count), the
//! generator's items reach a `for` loop — directly, through `enumerate` and
//! the like, or through a `DataLoader` over the dataset — whose body runs a
//! collective, and that loop does not run under DDP's `join()` (which
//! handles uneven inputs).

use super::training_support::{iteration_wrapper, Code};
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{walk_stmt, Anc, ArgPos, Callee, Flow, Node, Scope};
use crate::training::runtime::{first_collective, Collective};

/// A generator whose skip makes the ranks' step counts differ.
pub(super) struct Uneven<'p> {
    /// The consuming loop's `for` statement and its scope.
    pub consumer: (Scope, &'p Stmt),
    /// The collective the consuming loop's body runs.
    pub collective: (Scope, &'p Expr, Collective),
}

/// The uneven generator a `continue`ing handler (`path`) of `try_stmt`
/// (ancestors `anc`, in `scope`) makes, if any; `rest`: what the
/// `continue` skips.
pub(super) fn uneven<'p>(
    code: &Code<'p>,
    scope: Scope,
    anc: &[Anc<'p>],
    rest: &[&'p [Stmt]],
    path: &[Stmt],
    ddp: bool,
) -> Option<Uneven<'p>> {
    if !matches!(path.last().map(|s| &s.kind), Some(StmtKind::Continue)) {
        return None;
    }
    let f = scope.func()?;
    // The innermost loop is a `for`, and no `while` surrounds it here.
    let loops: Vec<&Stmt> = anc
        .iter()
        .filter_map(|a| match a {
            Anc::Stmt(s) if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. }) => Some(*s),
            _ => None,
        })
        .collect();
    if !matches!(loops.last().map(|s| &s.kind), Some(StmtKind::For { .. }))
        || loops.iter().any(|s| matches!(s.kind, StmtKind::While { .. }))
    {
        return None;
    }
    // The skip drops an item: the loop yields after the handler, and the
    // handler yields no replacement.
    if !rest.iter().any(|b| yields(b)) || yields(path) {
        return None;
    }
    let func = code.prog.func(f)?;
    let starts: Vec<(Scope, &'p Expr)> = if func.name == "__iter__" {
        let k = code.prog.class_of(f)?;
        constructions(code, k)
    } else {
        code.prog.call_sites(f)
    };
    // A skipped shard (the items come from a loop or `yield from`) drops
    // many items; a single skipped item changes a batched loader's count
    // only sometimes, so it counts only where nothing batches the items.
    let many = rest.iter().any(|b| yields_many(code, scope, b));
    let batched = std::cell::Cell::new(false);
    let through = |callee: &Callee, pos: &ArgPos<'_>| {
        if loader_of(callee, pos) {
            batched.set(true);
            return true;
        }
        iteration_wrapper(callee, pos)
    };
    for (s, start) in starts {
        let Some(a) = code.prog.ancestors_of(s, start) else {
            continue;
        };
        let mut found = None;
        batched.set(false);
        code.prog.flows(s, &a, start, &through, &mut |flow| {
            let Flow::Iterated {
                scope: ls,
                stmt: Some(st),
                anc: la,
            } = flow
            else {
                return;
            };
            if found.is_some() || !code.rt.world_at(code.prog, ls.m).distributed() || joined(code, ls, &la) {
                return;
            }
            let StmtKind::For { body, .. } = &st.kind else { return };
            if let Some(c) = first_collective(code.prog, ls, body, ddp, 2) {
                found = Some(Uneven {
                    consumer: (ls, st),
                    collective: c,
                });
            }
        });
        if found.is_some() && (many || !batched.get()) {
            return found;
        }
    }
    None
}

/// Whether `stmts` yield many items at once: a `yield` inside a loop, or a
/// `yield from`.
fn yields_many(code: &Code<'_>, scope: Scope, stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => yields(body),
        StmtKind::With { body, .. } | StmtKind::If { body, .. } => yields_many(code, scope, body),
        StmtKind::Expr(_) => code.text(scope.m, s.span).trim_start().starts_with("yield from"),
        _ => false,
    })
}

/// Whether `stmts` yield (a generator's item).
fn yields(stmts: &[Stmt]) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    for s in stmts {
        walk_stmt(s, &mut stack, &mut |_, n| {
            if let Node::Expr(e) = n {
                found |= matches!(e.kind, ExprKind::Yield(_));
            }
        });
    }
    found
}

/// A `DataLoader` built over the value (its dataset).
fn loader_of(callee: &Callee, pos: &ArgPos<'_>) -> bool {
    let Callee::External(p) = callee else { return false };
    matches!(
        p.as_str(),
        "torch.utils.data.DataLoader" | "torch.utils.data.dataloader.DataLoader"
    ) && matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("dataset"))
}

/// Where the training code constructs class `k`.
fn constructions<'p>(code: &Code<'p>, k: crate::training::program::ClassId) -> Vec<(Scope, &'p Expr)> {
    let Some(class) = code.prog.class(k) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for scope in code.scopes_with_words(&[class.name.as_str()]) {
        code.prog.walk_exprs(scope, &mut |_, e| {
            if let ExprKind::Call { func, .. } = &e.kind {
                if matches!(code.prog.callee(scope, func), Callee::Class(c) if c == k) {
                    out.push((scope, e));
                }
            }
        });
    }
    out
}

/// Whether a loop runs under DDP's `join()` context (uneven inputs).
fn joined(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>]) -> bool {
    anc.iter().any(|a| match a {
        Anc::Stmt(s) => match &s.kind {
            StmtKind::With { .. } => {
                let head = code.text(scope.m, s.span);
                let head = head.lines().next().unwrap_or("");
                head.contains(".join(") || head.contains("Join(")
            }
            _ => false,
        },
        _ => false,
    })
}
