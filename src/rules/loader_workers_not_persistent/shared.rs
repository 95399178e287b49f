//! T105 for a worker count shared out over a node's ranks: the spawned
//! function divides the node's count by the GPUs per node, rounded up
//! (`args.workers = int((args.workers + ngpus - 1) / ngpus)`, also with
//! `//` or `math.ceil(a / n)`). Each rank's count is then unknown, but at
//! least 1 when the node's count is, and the node as a whole starts at
//! least that count.

use super::Written;
use crate::rules::training_support::Code;
use crate::source::Span;
use crate::training::ast::{Arg, Expr, ExprKind, StmtKind};
use crate::training::program::{ModId, Proj, Scope};
use crate::training::values::{self, Env};

/// The fewest worker processes the node starts for the loader whose count
/// is `w`: an argparse flag `args.<dest>` of at least 1 that every store of
/// the code (`args.<dest> = …`, at least one, all in the loader's function
/// before it) divides over the GPUs per node, rounded up. Where a store
/// runs, each rank starts at least 1 and the node at least the flag's
/// value; where none does (a path that keeps the flag), each rank starts
/// the flag's value itself.
pub(super) fn node_total(code: &Code<'_>, w: &Written<'_>) -> Option<(i64, Over)> {
    shared_at(code, w.scope, w.value, w.span)
}

/// What a count is shared out over: the GPUs of a node, or every rank of
/// the job (`utils.get_world_size()`).
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Over {
    Node,
    World,
}

/// [`node_total`] of the count `value` written in `scope` at `at` (the
/// argument, which the stores it follows must precede in that scope).
pub(crate) fn node_total_at(code: &Code<'_>, scope: Scope, value: &Expr, at: Span) -> Option<i64> {
    shared_at(code, scope, value, at).map(|(n, _)| n)
}

/// [`node_total_at`], with what the count is shared over (the flag's value
/// is then the node's total, or the job's).
fn shared_at(code: &Code<'_>, scope: Scope, value: &Expr, at: Span) -> Option<(i64, Over)> {
    let prog = code.prog;
    let env = Env {
        config: code.cfg.json.as_ref(),
        argv: code.rt.argv(),
        merged_defaults: false,
        run_files: None,
        untaken: None,
    };
    // A name bound only to a share of a known count (`workers =
    // int((cfg['NUM_WORKERS'] + ngpus_per_node - 1) / ngpus_per_node)`).
    if let Some(share) = local_share(code, &env, scope, value) {
        return Some(share);
    }
    let ExprKind::Attribute {
        value: recv,
        attr: dest,
    } = &value.kind
    else {
        return None;
    };
    if !matches!(recv.kind, ExprKind::Name(_)) {
        return None;
    }
    // `args` is the parsed namespace (through parameters and `mp.spawn`).
    let sources = prog.sources(scope, value);
    let parsed = |t: &crate::training::program::Term<'_>| {
        matches!(t.proj.as_slice(), [Proj::Attr(a)] if a == dest)
            && matches!(&t.expr.kind, ExprKind::Call { func, .. }
                if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "parse_args"))
    };
    if sources.unknown || sources.terms.is_empty() || !sources.terms.iter().all(parsed) {
        return None;
    }
    let flag = values::parsed_flag(prog, &env, dest, 0, scope.m)?
        .ints()?
        .into_iter()
        .min()?;
    if flag < 1 {
        return None;
    }
    let written = code.text(scope.m, value.span);
    let mut stores = 0;
    let mut over = Over::Node;
    for (s, target, stored) in stores_to(code, dest, scope.m) {
        // `opt.n_threads = int((opt.n_threads + opt.ngpus_per_node - 1) /
        // opt.ngpus_per_node)`: the namespace's own count shared out, here
        // or in the function that then builds the loader (3D-ResNets'
        // `main_worker`); from a flag of 1 or more it stays 1 or more.
        let target_text = code.text(s.m, target.span);
        let here = s == scope && target.span.end <= at.start && target_text == written;
        let elsewhere = s != scope
            && matches!(&target.kind, ExprKind::Attribute { value: r, .. } if matches!(r.kind, ExprKind::Name(_)));
        let share = stored.and_then(|v| ceil_share(code, s, v));
        let shared = (here || elsewhere) && share.is_some_and(|(a, _)| code.text(s.m, a.span) == target_text);
        if !shared {
            return None;
        }
        if share.is_some_and(|(_, o)| o == Over::World) {
            over = Over::World;
        }
        stores += 1;
    }
    (stores > 0).then_some((flag, over))
}

/// The fewest a node or job starts for a count every origin of which is a
/// share, rounded up, of a count known to be 1 or more (the same count at
/// each origin).
fn local_share(code: &Code<'_>, env: &Env<'_>, scope: Scope, value: &Expr) -> Option<(i64, Over)> {
    if !matches!(value.kind, ExprKind::Name(_)) {
        return None;
    }
    let prog = code.prog;
    let sources = prog.sources(scope, value);
    if sources.unknown || sources.terms.is_empty() {
        return None;
    }
    let mut out: Option<(i64, Over)> = None;
    for t in &sources.terms {
        if !t.proj.is_empty() {
            return None;
        }
        let (a, over) = ceil_share(code, t.scope, t.expr)?;
        let least = values::constant(prog, env, t.scope, a)?.ints()?.into_iter().min()?;
        if least < 1 {
            return None;
        }
        match out {
            Some(o) if o != (least, over) => return None,
            _ => out = Some((least, over)),
        }
    }
    out
}

/// Every store to `<name>.<dest>` in the program of module `at`: its
/// scope, the target and the value (`None` for an augmented assignment).
fn stores_to<'p>(code: &Code<'p>, dest: &str, at: ModId) -> Vec<(Scope, &'p Expr, Option<&'p Expr>)> {
    let prog = code.prog;
    let mut out = Vec::new();
    let stored = |t: &Expr| matches!(&t.kind, ExprKind::Attribute { value, attr } if attr == dest && matches!(value.kind, ExprKind::Name(_)));
    for m in prog.code_modules().filter(|m| prog.same_program(*m, at)) {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &[dest]).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                prog.walk_stmts(scope, &mut |_, st| match &st.kind {
                    StmtKind::Assign { targets, value, .. } => {
                        for t in targets.iter().filter(|t| stored(t)) {
                            out.push((scope, t, Some(value)));
                        }
                    }
                    StmtKind::AugAssign { target, .. } if stored(target) => out.push((scope, target, None)),
                    _ => {}
                });
            }
        }
    }
    out
}

/// `a` of `int((a + n - 1) / n)`, `(a + n - 1) // n`, `math.ceil(a / n)`
/// or `int(math.ceil(a / n))`, when `n` is the node's GPU count or the
/// job's world size (SLIP's `utils.get_world_size()`).
fn ceil_share<'p>(code: &Code<'_>, scope: Scope, e: &'p Expr) -> Option<(&'p Expr, Over)> {
    let prog = code.prog;
    let (num, den) = match &e.kind {
        ExprKind::Call { func, args, .. } => {
            let [Arg::Pos(inner)] = args.as_slice() else {
                return None;
            };
            match prog.external(scope, func)?.as_str() {
                "builtins.int" => match &inner.kind {
                    ExprKind::BinOp { left, op, right } if op == "/" => {
                        (round_up_numerator(code, scope, left, right)?, right)
                    }
                    ExprKind::Call { .. } => return ceil_share(code, scope, inner),
                    _ => return None,
                },
                "math.ceil" => match &inner.kind {
                    ExprKind::BinOp { left, op, right } if op == "/" => (&**left, right),
                    _ => return None,
                },
                _ => return None,
            }
        }
        ExprKind::BinOp { left, op, right } if op == "//" => (round_up_numerator(code, scope, left, right)?, right),
        _ => return None,
    };
    if gpus_per_node(code, scope, den) {
        Some((num, Over::Node))
    } else if crate::training::runtime::is_world(prog, scope, den) {
        Some((num, Over::World))
    } else {
        None
    }
}

/// `a` of the numerator `a + n - 1` (or `n + a - 1`) over the divisor `n`.
fn round_up_numerator<'p>(code: &Code<'_>, scope: Scope, num: &'p Expr, den: &Expr) -> Option<&'p Expr> {
    let ExprKind::BinOp { left, op, right } = &num.kind else {
        return None;
    };
    if op != "-" || !matches!(right.kind, ExprKind::Int(1)) {
        return None;
    }
    let ExprKind::BinOp { left: a, op, right: b } = &left.kind else {
        return None;
    };
    if op != "+" {
        return None;
    }
    let text = |x: &Expr| code.text(scope.m, x.span).split_whitespace().collect::<String>();
    let n = text(den);
    if text(b) == n {
        Some(a)
    } else if text(a) == n {
        Some(b)
    } else {
        None
    }
}

/// Whether `n` is the number of GPUs of the node (`torch.cuda.device_count()`,
/// also through names, parameters and `mp.spawn`'s arguments), or 1 where
/// the code runs one process without spawning (`main_worker(0, 1, args)`).
fn gpus_per_node(code: &Code<'_>, scope: Scope, n: &Expr) -> bool {
    let prog = code.prog;
    let sources = prog.sources(scope, n);
    let counted = |t: &crate::training::program::Term<'_>| {
        t.proj.is_empty()
            && matches!(&t.expr.kind, ExprKind::Call { func, args, .. }
                if args.is_empty() && prog.external(t.scope, func).as_deref() == Some("torch.cuda.device_count"))
    };
    let traced = !sources.unknown
        && sources.terms.iter().any(counted)
        && sources
            .terms
            .iter()
            .all(|t| counted(t) || t.proj.is_empty() && matches!(t.expr.kind, ExprKind::Int(1)));
    // A field of the run's namespace every store of which is the count
    // (`opt.ngpus_per_node = torch.cuda.device_count()` before `mp.spawn`).
    traced
        || match &n.kind {
            ExprKind::Attribute { value, attr } if matches!(value.kind, ExprKind::Name(_)) => {
                let stores = stores_to(code, attr, scope.m);
                !stores.is_empty()
                    && stores.iter().all(|(s, _, v)| {
                        v.is_some_and(|v| {
                            matches!(&v.kind, ExprKind::Call { func, args, .. }
                            if args.is_empty() && prog.external(*s, func).as_deref() == Some("torch.cuda.device_count"))
                        })
                    })
            }
            _ => false,
        }
}

/// Reports a loader whose node starts at least `total` workers at each pass.
pub(super) fn report<'o>(
    code: &Code<'_>,
    out: &'o mut crate::rules::Sink<'_>,
    w: &Written<'_>,
    edit: Option<crate::diagnostic::Edit>,
    (total, over): (i64, Over),
) -> &'o mut crate::Diagnostic {
    let text = crate::rules::training_support::excerpt(code.text(w.scope.m, w.value.span));
    let message = match over {
        Over::Node => format!(
            "num_workers={text} is {total} workers divided over the node's ranks (rounded up, so at least 1 per rank): every pass over this loader stops and starts again at least {total} worker processes on each node; set persistent_workers=True"
        ),
        Over::World => format!(
            "num_workers={text} is {total} workers divided over all ranks of the job (rounded up, so at least 1 per rank): every pass over this loader stops and starts again at least 1 worker process on every rank; set persistent_workers=True"
        ),
    };
    let d = out.at_loc(code.loc(w.scope.m, w.span), message);
    d.help("each rank forks its share of the node's workers, each with a copy of the dataset's touched memory and its prefetch buffers; restarting them at each pass stalls every rank at the start of the pass. Keep them alive with persistent_workers=True");
    if let Some(edit) = edit {
        d.unsafe_fix("keep the workers alive: persistent_workers=True", vec![edit]);
    }
    d
}
