//! T101 (`sampler-rng-shared-across-ranks`) on loader workers whose seed
//! adds the rank and the worker id as they are (`seed + local_rank +
//! worker_id`): worker 1 of rank 0 and worker 0 of rank 1, and every pair
//! whose sum is the same, get the same seed and draw the same random
//! numbers. The init function is followed through names, parameters and
//! files (a loader factory's `_worker_init_fn=` parameter, the factory
//! called through a local alias, also one star-imported), also where it is
//! defined in each arm of an `if` (every definition is looked at).
//!
//! Silent where the rank or the worker id is scaled (`1000 * rank +
//! worker_id`), where another part of the seed is not a plain value (a
//! call, `torch.initial_seed()`), and where the loader has fewer than 2
//! workers.

use super::sampler_rng_workers::{worker_loaders, LoaderCall};
use super::training_support::{excerpt, global_seeder, Code};
use super::Sink;
use crate::source::Span;
use crate::training::ast::{Expr, ExprKind};
use crate::training::program::{Bound, FuncId, LocalDef, Proj, Scope, Sym};
use crate::training::runtime::{self, depends_on_rank, kw, pos};
use crate::training::values::Const;

use super::sampler_rng_workers::WORKER_INFO;

pub(super) fn rank_plus_worker_seeds(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    let mut reported: Vec<FuncId> = Vec::new();
    for LoaderCall {
        scope, args, workers, ..
    } in worker_loaders(code)
    {
        // At least two workers, or a count not known (the init function
        // is written for workers).
        match runtime::constant(prog, code.cfg, code.rt, scope, workers) {
            None => {}
            Some(r) if matches!(r.single(), Some(Const::Int(i)) if *i >= 2) => {}
            Some(_) => continue,
        }
        let Some(init) = kw(args, "worker_init_fn").or_else(|| pos(args, 10)) else {
            continue;
        };
        for f in init_functions(code, scope, init) {
            if reported.contains(&f) {
                continue;
            }
            let Some(func) = prog.func(f) else { continue };
            let Some(worker_param) = func.params.first().map(|p| p.name.as_str()) else {
                continue;
            };
            let fs = f.scope();
            let mut hits: Vec<(Span, &'static str, Span, Span)> = Vec::new();
            prog.walk_exprs(fs, &mut |_, e| {
                let ExprKind::Call {
                    func: callee, args: a, ..
                } = &e.kind
                else {
                    return;
                };
                let Some(name) = prog.external(fs, callee).as_deref().and_then(global_seeder) else {
                    return;
                };
                let Some(v) = pos(a, 0).or_else(|| kw(a, "seed")) else {
                    return;
                };
                if let Some(r) = rank_plus_worker(code, fs, worker_param, v) {
                    hits.push((e.span, name, v.span, r.span));
                }
            });
            let Some(&(at, name, seed, _)) = hits.first() else {
                continue;
            };
            reported.push(f);
            let seed_text = excerpt(code.text(fs.m, seed));
            let d = out.at_loc(
                code.loc(fs.m, at),
                format!(
                    "worker_init_fn `{}` seeds {name} with {seed_text}, which adds the rank and the worker id: worker 1 of rank 0 and worker 0 of rank 1 (and every pair with the same sum) get the same seed, so loader workers of different ranks draw the same random numbers and their augmentations repeat",
                    func.name
                ),
            );
            d.label(code.file(scope.m), init.span, "every worker of this loader runs it");
            // Every seed of the function at once: fixed one by one, the
            // next would look like a new finding.
            let edits = hits
                .iter()
                .map(|(.., rank)| {
                    let scaled = format!("1000 * {}", code.text(fs.m, *rank));
                    crate::edit::replace(code.file(fs.m), *rank, scaled)
                })
                .collect();
            d.unsafe_fix("scale the rank past the workers: 1000 * rank", edits);
            d.help("give each (rank, worker) pair its own seed: scale the rank by more than the workers per rank (`seed + 1000 * rank + worker_id`), or start from `torch.initial_seed()`, which already differs per worker and rank when the ranks seed torch differently");
        }
    }
}

/// Every training-code function a `worker_init_fn=` argument may name:
/// directly, or through names and parameters (each definition of a name
/// defined in several arms, and the calls of a factory made through a local
/// alias, `get_loader = get_train_loader`); none when some origin is not a
/// function or `None`.
fn init_functions(code: &Code<'_>, scope: Scope, init: &Expr) -> Vec<FuncId> {
    let prog = code.prog;
    if let Some(Sym::Func(f)) = prog.expr_sym(scope, init) {
        return vec![f];
    }
    let ExprKind::Name(n) = &init.kind else {
        return Vec::new();
    };
    let s = prog.sources(scope, init);
    if s.unknown {
        // A parameter of a factory called through an alias.
        let Some(f) = scope.func() else { return Vec::new() };
        let i = match prog.local_defs(f, n).as_slice() {
            [LocalDef::Param(i)] => *i,
            _ => return Vec::new(),
        };
        let mut found = Vec::new();
        let sites = alias_calls(code, f);
        if sites.is_empty() {
            return Vec::new();
        }
        for (site, call) in sites {
            match prog.bind(f, call, i) {
                Bound::Given(e) => {
                    let fs = named_functions(code, site, e);
                    if fs.is_empty() {
                        return Vec::new();
                    }
                    found.extend(fs);
                }
                Bound::Default(d) if matches!(d.kind, ExprKind::None) => {}
                _ => return Vec::new(),
            }
        }
        found.dedup();
        return found;
    }
    let mut found = Vec::new();
    for t in &s.terms {
        if !t.proj.is_empty() {
            return Vec::new();
        }
        if matches!(t.expr.kind, ExprKind::None) {
            continue;
        }
        let fs = named_functions(code, t.scope, t.expr);
        if fs.is_empty() {
            return Vec::new();
        }
        found.extend(fs);
    }
    found.dedup();
    found
}

/// The functions a name names: each definition where the name is defined
/// in several arms (`def init(…)` in both arms of an `if`).
fn named_functions(code: &Code<'_>, scope: Scope, e: &Expr) -> Vec<FuncId> {
    let prog = code.prog;
    if let (ExprKind::Name(n), Some(g)) = (&e.kind, scope.func()) {
        let defs = prog.local_defs(g, n);
        let funcs: Vec<FuncId> = defs
            .iter()
            .filter_map(|d| match d {
                LocalDef::Sym(Sym::Func(f)) => Some(*f),
                _ => None,
            })
            .collect();
        if !funcs.is_empty() && funcs.len() == defs.len() {
            return funcs;
        }
    }
    match prog.expr_sym(scope, e) {
        Some(Sym::Func(f)) => vec![f],
        _ => Vec::new(),
    }
}

/// Whether `e` names function `f` (called `name`): bound to it, or, where
/// the name is not bound in the module, imported with `from <f's module>
/// import *` (which the name tables do not follow).
fn names_function(code: &Code<'_>, scope: Scope, e: &Expr, f: FuncId, name: &str) -> bool {
    let prog = code.prog;
    match prog.expr_sym(scope, e) {
        Some(Sym::Func(g)) => g == f,
        Some(_) => false,
        None => {
            let star = format!("from {} import *", prog.module_name(f.m));
            matches!(&e.kind, ExprKind::Name(n) if n == name)
                && !name.starts_with('_')
                && prog.global(scope.m, name, 0).is_none()
                && prog.text(scope.m).lines().any(|l| l.trim_end() == star)
        }
    }
}

/// The calls of `f` made through a local name bound to it
/// (`get_loader = get_train_loader` then `get_loader(…)`).
fn alias_calls<'p>(code: &Code<'p>, f: FuncId) -> Vec<(Scope, &'p Expr)> {
    let prog = code.prog;
    let Some(func) = prog.func(f) else { return Vec::new() };
    let mut out = Vec::new();
    for m in prog.code_modules() {
        for c in prog.chunks_with_words(m, &[func.name.as_str()]) {
            for scope in prog.scopes(m, c) {
                let Some(g) = scope.func() else { continue };
                prog.walk_exprs(scope, &mut |_, e| {
                    let ExprKind::Call { func: callee, .. } = &e.kind else {
                        return;
                    };
                    let ExprKind::Name(n) = &callee.kind else { return };
                    let aliased = prog.local_defs(g, n).iter().any(|d| {
                        matches!(d, LocalDef::Assign { value, proj }
                            if proj.is_empty() && names_function(code, scope, value, f, &func.name))
                    });
                    if aliased {
                        out.push((scope, e));
                    }
                });
            }
        }
    }
    out
}

/// The rank in the seed `e`, when `e` is a sum (possibly under `int(…)` or
/// `% n`) of the worker id, a rank as it is, and plain values the same
/// everywhere.
fn rank_plus_worker<'p>(code: &Code<'_>, scope: Scope, worker_param: &str, e: &'p Expr) -> Option<&'p Expr> {
    let mut leaves: Vec<&Expr> = Vec::new();
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if leaves.len() > 8 {
            return None;
        }
        match &x.kind {
            ExprKind::BinOp { left, op, right } if op == "+" => {
                todo.push(left);
                todo.push(right);
            }
            ExprKind::BinOp { left, op, right }
                if op == "%" && matches!(right.kind, ExprKind::Int(_) | ExprKind::BinOp { .. }) =>
            {
                todo.push(left)
            }
            ExprKind::Call { func, args, .. }
                if code.prog.external(scope, func).as_deref() == Some("builtins.int") && args.len() == 1 =>
            {
                todo.push(pos(args, 0)?);
            }
            _ => leaves.push(x),
        }
    }
    let mut worker = 0;
    let mut rank = Vec::new();
    for x in leaves {
        let plain = matches!(x.kind, ExprKind::Name(_) | ExprKind::Attribute { .. });
        if matches!(&x.kind, ExprKind::Name(n) if n == worker_param) || worker_id(code, scope, x) {
            worker += 1;
        } else if depends_on_rank(code.prog, scope, x) {
            if !plain_rank(code, scope, x) {
                return None;
            }
            rank.push(x);
        } else if !(plain || matches!(x.kind, ExprKind::Int(_))) {
            return None;
        }
    }
    match rank.as_slice() {
        [r] if worker == 1 => Some(r),
        _ => None,
    }
}

/// Whether `x` (which depends on the rank) is a rank as it is: a call
/// without arguments (`dist.get_rank()`), or a name or attribute whose
/// origins are no arithmetic (`base = seed + 100 * rank` is not).
fn plain_rank(code: &Code<'_>, scope: Scope, x: &Expr) -> bool {
    match &x.kind {
        ExprKind::Call { args, .. } => args.is_empty(),
        ExprKind::Name(_) | ExprKind::Attribute { .. } => {
            let s = code.prog.sources(scope, x);
            s.terms
                .iter()
                .all(|t| !matches!(t.expr.kind, ExprKind::BinOp { .. } | ExprKind::Unary { .. }))
        }
        _ => false,
    }
}

/// `get_worker_info().id`.
fn worker_id(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    let prog = code.prog;
    let s = prog.sources(scope, e);
    !s.unknown
        && !s.terms.is_empty()
        && s.terms.iter().all(|t| {
            matches!(t.proj.as_slice(), [Proj::Attr(a)] if a == "id")
                && matches!(&t.expr.kind, ExprKind::Call { func, .. } if prog.external(t.scope, func).as_deref() == Some(WORKER_INFO))
        })
}
