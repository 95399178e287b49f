//! T101 (`sampler-rng-shared-across-ranks`) on loader workers, the part
//! where the seed or the split is per worker but not per rank:
//!
//! - a `worker_init_fn` that seeds numpy, `random` or torch with the worker
//!   id plus a constant (`1234 + worker_id`), or plus the parent process's
//!   RNG state (`random.getstate()[1][0] + worker_id`) where every rank
//!   seeds alike: the workers of one rank differ, but worker k of every rank
//!   draws the same numbers; numpy's first state word
//!   (`np.random.get_state()[1][0]`) however the ranks seed, as PyTorch has
//!   set it to 0x80000000 in every worker by then;
//! - an `IterableDataset` whose `__iter__` splits its records by
//!   `get_worker_info()` and never by rank, read through a plain
//!   `DataLoader` in multi-rank code: every rank yields the same records.
//!
//! The constant seed without the worker id is `constant_worker_seeds` in
//! the rule's own module.

use super::sampler_rng_shared_across_ranks::live;
use super::training_support::{excerpt, feeds_training, global_seeder, managed, Code};
use super::Sink;
use crate::source::Span;
use crate::training::ast::{Arg, Expr, ExprKind, StmtKind};
use crate::training::program::{walk_expr, Anc, Callee, ClassId, FuncId, ModId, Node, Proj, Scope, Sym};
use crate::training::runtime::{self, depends_on_rank, has_splat, kw, pos, Seeding, World};
use crate::training::values::Const;

const TORCH_LOADER: &str = "torch.utils.data.DataLoader";
pub(super) const WORKER_INFO: &str = "torch.utils.data.get_worker_info";

/// One summand of a worker seed.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    /// The worker id: a parameter of the init function or
    /// `get_worker_info().id`.
    Worker,
    /// A resolved integer.
    Const,
    /// Drawn from the process's own RNG state (`np.random.get_state()`).
    Parent,
    /// `np.random.get_state()[1][0]`: in a worker, after PyTorch (1.9 or
    /// later) has seeded numpy there from an array, the first word of the
    /// key is always 0x80000000, in every worker of every rank.
    NumpyWord,
}

/// What a worker seed adds the worker id to.
#[derive(Clone, Copy, PartialEq)]
enum From {
    Const,
    Parent,
    NumpyWord,
}

/// The program of module `m` whose ranks all seed alike, with its world.
pub(super) fn alike<'s>(code: &Code<'_>, seedings: &'s [(u64, Seeding)], m: ModId) -> Option<(World, &'s Seeding)> {
    code.rt.worlds_of(code.prog, m).into_iter().find_map(|(bit, w)| {
        let s = seedings.iter().find(|(b, _)| *b == bit).map(|(_, s)| s)?;
        (w.distributed() && *s != Seeding::NotIdentical).then_some((w, s))
    })
}

/// Every program of module `m` whose ranks all seed alike, with its world
/// (a loader in a shared data module, built by two scripts that each seed).
pub(super) fn alike_all<'s>(
    code: &Code<'_>,
    seedings: &'s [(u64, Seeding)],
    m: ModId,
) -> Vec<(u64, World, &'s Seeding)> {
    code.rt
        .worlds_of(code.prog, m)
        .into_iter()
        .filter_map(|(bit, w)| {
            let s = seedings.iter().find(|(b, _)| *b == bit).map(|(_, s)| s)?;
            (w.distributed() && *s != Seeding::NotIdentical).then_some((bit, w, s))
        })
        .collect()
}

fn ranks(world: Option<World>) -> String {
    match world {
        Some(World::Ranks(Some(n))) => format!("all {n} ranks"),
        _ => "every rank".to_string(),
    }
}

/// A `torch.utils.data.DataLoader(...)` call in multi-rank code that runs,
/// its arguments spelled out (no `**kwargs`) and a `num_workers` given.
pub(super) struct LoaderCall<'p> {
    pub scope: Scope,
    /// The `DataLoader(…)` call, and its ancestors.
    pub call: &'p Expr,
    pub anc: Vec<Anc<'p>>,
    pub args: &'p [Arg],
    /// The `num_workers` argument as written.
    pub workers: &'p Expr,
}

/// The loaders the worker-seed checks read (each decides what the count
/// must be).
pub(super) fn worker_loaders<'p>(code: &Code<'p>) -> Vec<LoaderCall<'p>> {
    let prog = code.prog;
    let mut out = Vec::new();
    for (scope, anc, call, _) in runtime::calls(prog, &[TORCH_LOADER]) {
        if !code.rt.world_at(prog, scope.m).distributed() || !live(code, scope, &anc, call) {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        if has_splat(args) {
            continue;
        }
        let Some(workers) = kw(args, "num_workers").or_else(|| pos(args, 5)) else {
            continue;
        };
        out.push(LoaderCall {
            scope,
            call,
            anc,
            args,
            workers,
        });
    }
    out
}

/// `worker_init_fn`s seeding with the worker id plus a value every rank
/// shares.
pub(super) fn worker_seeds_alike(code: &Code<'_>, seedings: &[(u64, Seeding)], out: &mut Sink<'_>) {
    let prog = code.prog;
    let mut reported: Vec<Span> = Vec::new();
    for LoaderCall {
        scope, args, workers, ..
    } in worker_loaders(code)
    {
        // Workers must exist: a `num_workers` not known to be 0 (the init
        // function only runs in workers; an unresolved count is taken as
        // the workers it was written for).
        let n = runtime::constant(prog, code.cfg, code.rt, scope, workers);
        let workers = match n.as_ref().and_then(|r| r.single()) {
            Some(Const::Int(i)) if *i >= 1 => Some(*i),
            Some(_) => continue,
            None if n.is_some() => continue,
            None => None,
        };
        let Some(init) = kw(args, "worker_init_fn").or_else(|| pos(args, 10)) else {
            continue;
        };
        let Some((f, bound)) = init_function(code, scope, init) else {
            continue;
        };
        // The parameters the loader passes (the worker id; not `self` of a
        // callable instance's `__call__`); those a `partial` binds are
        // values of the parent.
        let Some((params, shown)) = worker_params(prog, f, &bound) else {
            continue;
        };
        // A bound value that mixes in the rank seeds each rank apart.
        if bound.iter().any(|b| depends_on_rank(prog, b.scope, b.value)) {
            continue;
        }
        let params = Params {
            worker: &params,
            bound: &bound,
        };
        let fs = f.scope();
        let mut hits: Vec<(Span, &'static str, &Expr, From)> = Vec::new();
        for (e, name, v) in seedings_in(prog, fs) {
            let Some(v) = v else { continue };
            let Some(parts) = seed_parts(code, fs, &params, v) else {
                continue;
            };
            if parts.contains(&Part::Worker) {
                let from = if parts.contains(&Part::NumpyWord) {
                    From::NumpyWord
                } else if parts.contains(&Part::Parent) {
                    From::Parent
                } else {
                    From::Const
                };
                hits.push((e.span, name, v, from));
            }
        }
        let workers = match workers {
            Some(n) => format!("{n} workers"),
            None => "workers".to_string(),
        };
        // One finding per kind of seed in the function, at its first
        // seeding call (`random.seed`, `np.random.seed` and
        // `torch.manual_seed` of one seed are one hazard), the others shown.
        let mut firsts: Vec<(Span, &'static str, &Expr, From, Vec<Span>)> = Vec::new();
        for (at, name, seed, parent) in hits {
            match firsts.iter_mut().find(|f| f.3 == parent) {
                Some(f) => f.4.push(at),
                None => firsts.push((at, name, seed, parent, Vec::new())),
            }
        }
        for (at, name, seed, parent, also) in firsts {
            if reported.contains(&at) {
                continue;
            }
            let shared = alike(code, seedings, scope.m);
            let seed_text = excerpt(code.text(fs.m, seed.span));
            let message = if parent == From::NumpyWord {
                format!(
                    "worker_init_fn `{}` calls {name}({seed_text}): in a loader worker PyTorch (1.9 or later) has already seeded numpy from an array, which makes `np.random.get_state()[1][0]` 2147483648 in every worker, so the seed is that constant plus the worker id: worker k of every rank, at every epoch, draws the same random numbers and their augmentations repeat",
                    shown
                )
            } else if parent == From::Parent {
                let Some((world, seeding)) = shared else { continue };
                let by = match seeding {
                    Seeding::Trial => "Determined's trial seed".to_string(),
                    Seeding::Call { scope, call, .. } => format!("`{}`", excerpt(code.text(scope.m, *call))),
                    Seeding::NotIdentical => continue,
                };
                format!(
                    "worker_init_fn `{}` calls {name}({seed_text}): the worker id separates the {workers} of one rank, but the RNG state it adds to is the same on {} ({by} seeds every rank alike), so worker k of every rank draws the same random numbers and their augmentations repeat across ranks",
                    shown,
                    ranks(Some(world))
                )
            } else {
                format!(
                    "worker_init_fn `{}` calls {name}({seed_text}): the worker id separates the {workers} of one rank, but the rest of the seed is a constant, the same on {}, so worker k of every rank draws the same random numbers and their augmentations repeat across ranks",
                    shown,
                    ranks(shared.map(|(w, _)| w))
                )
            };
            reported.push(at);
            let d = out.at_loc(code.loc(fs.m, at), message);
            d.label(code.file(scope.m), init.span, "every worker of this loader runs it");
            if parent == From::Parent {
                for (s, span) in seed_draws(code, fs, seed) {
                    d.label(
                        code.file(s.m),
                        span,
                        "drawn from torch's RNG in the parent, which every rank seeded alike",
                    );
                }
            }
            for other in also {
                d.label(code.file(fs.m), other, "seeded the same way here");
            }
            if parent == From::NumpyWord {
                d.help("drop the re-seeding (PyTorch seeds numpy in each worker from the loader's base seed and the worker id), or seed from that: `np.random.seed(torch.initial_seed() % 2**32)`");
            } else {
                d.help("mix the rank into the seed: read it in the parent and pass it in (`worker_init_fn=functools.partial(init, rank=dist.get_rank())`, then `seed + 1000 * rank + worker_id`), as a worker started with spawn has no process group");
            }
        }
    }
}

/// `worker_init_fn`s that seed each worker apart from the rank and the
/// worker id but the same at every pass (mmdetection's
/// `num_workers * rank + worker_id + seed`), on a loader that restarts its workers at each
/// pass: every epoch's workers draw the random numbers of the last, where
/// torch's own seeding (from a base seed drawn at each pass) would not.
pub(super) fn epoch_repeating_worker_seeds(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    let mut reported: Vec<Span> = Vec::new();
    for (scope, anc, call, _) in runtime::calls(prog, &[TORCH_LOADER]) {
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        // The init function first: most loaders have none.
        let Some(init) = kw(args, "worker_init_fn").or_else(|| pos(args, 10)) else {
            continue;
        };
        if has_splat(args) || !code.rt.world_at(prog, scope.m).distributed() || !live(code, scope, &anc, call) {
            continue;
        }
        let Some(workers) = kw(args, "num_workers").or_else(|| pos(args, 5)) else {
            continue;
        };
        let n = runtime::constant(prog, code.cfg, code.rt, scope, workers);
        if n.as_ref()
            .and_then(|r| r.ints())
            .is_some_and(|v| v.is_empty() || v.iter().any(|n| *n < 1))
        {
            continue;
        }
        // Workers kept alive keep their streams going from pass to pass.
        if kw(args, "persistent_workers")
            .is_some_and(|p| runtime::is_true(prog, code.cfg, code.rt, scope, p) != Some(false))
        {
            continue;
        }
        let Some((f, bound)) = init_function(code, scope, init) else {
            continue;
        };
        let Some((worker, shown)) = worker_params(prog, f, &bound) else {
            continue;
        };
        let params = Params {
            worker: &worker,
            bound: &bound,
        };
        // Seeded by rank (the seeds alike across ranks are the other
        // check's): a bound value or the seed itself reads it.
        let by_rank = bound.iter().any(|b| depends_on_rank(prog, b.scope, b.value));
        let fs = f.scope();
        let mut first: Option<(Span, &Expr)> = None;
        let mut every = true;
        for (e, _, v) in seedings_in(prog, fs) {
            match v {
                Some(v) if fixed_per_loader(code, fs, &params, v, 0) => {
                    if first.is_none() {
                        first = Some((e.span, v));
                    }
                }
                _ => every = false,
            }
        }
        let Some((at, seed)) = first else { continue };
        if !every || reported.contains(&at) || !(by_rank || depends_on_rank(prog, fs, seed)) {
            continue;
        }
        if !super::loader_workers_not_persistent::reiterated(code, scope, &anc, call) {
            continue;
        }
        reported.push(at);
        // The seed as computed, where it is a local (`worker_seed =
        // num_workers * rank + worker_id + seed`).
        let src = prog.sources(fs, seed);
        let computed = match src.terms.as_slice() {
            [t] if matches!(seed.kind, ExprKind::Name(_)) && t.scope == fs && !std::ptr::eq(t.expr, seed) => t.expr,
            _ => seed,
        };
        let d = out.at_loc(
            code.loc(fs.m, at),
            format!(
                "worker_init_fn `{shown}` seeds each worker from its rank and worker id only (`{}`): the loader starts its workers again at every pass (no persistent_workers), and each pass's workers get the seeds of the last, so every epoch draws the same random numbers as the one before",
                excerpt(code.text(fs.m, computed.span))
            ),
        );
        d.label(code.file(scope.m), init.span, "every worker of every pass runs it");
        d.help("mix in what changes at each pass: the worker's own base seed (`torch.initial_seed()`, which torch draws anew at every pass, plus the rank), or keep the workers with persistent_workers=True");
    }
}

/// Whether a worker seed is the same at every pass of the loader: built by
/// arithmetic from the worker id, values a `partial` bound when the loader
/// was made, the function's locals computed from those, and integers.
fn fixed_per_loader(code: &Code<'_>, scope: Scope, params: &Params<'_, '_>, e: &Expr, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    match &e.kind {
        ExprKind::Int(_) => true,
        ExprKind::BinOp { left, op, right } if matches!(op.as_str(), "+" | "-" | "*" | "%" | "//" | "^") => {
            fixed_per_loader(code, scope, params, left, depth + 1)
                && fixed_per_loader(code, scope, params, right, depth + 1)
        }
        ExprKind::Call { func, args, .. }
            if code.prog.external(scope, func).as_deref() == Some("builtins.int") && args.len() == 1 =>
        {
            pos(args, 0).is_some_and(|a| fixed_per_loader(code, scope, params, a, depth + 1))
        }
        ExprKind::Name(n) if params.worker.contains(&n.as_str()) || params.bound.iter().any(|b| b.name == *n) => true,
        ExprKind::Name(_) => {
            let src = code.prog.sources(scope, e);
            match src.terms.as_slice() {
                [t] if !src.unknown && t.proj.is_empty() && t.scope == scope && !std::ptr::eq(t.expr, e) => {
                    fixed_per_loader(code, scope, params, t.expr, depth + 1)
                }
                _ => is_int(code, scope, e),
            }
        }
        _ => worker_id(code, scope, e),
    }
}

/// The shown name of a `worker_init_fn` that only re-seeds from the
/// worker's base seed: every seeding call in it (`random.seed`,
/// `np.random.seed`, `torch.manual_seed`) takes `torch.initial_seed()`
/// (in a worker, the loader's base seed plus the worker id), optionally
/// plus the worker id and constants, `% 2**32`. Such a function changes
/// nothing about what the base seed decides: where every rank draws the
/// same base seed, its workers still draw alike.
pub(super) fn from_base_seed(code: &Code<'_>, scope: Scope, init: &Expr) -> Option<String> {
    let prog = code.prog;
    let (f, bound) = init_function(code, scope, init)?;
    if !bound.is_empty() {
        return None;
    }
    let (worker, shown) = worker_params(prog, f, &bound)?;
    let fs = f.scope();
    let mut seeded = 0;
    let mut other = false;
    for (_, _, v) in seedings_in(prog, fs) {
        match v {
            Some(v) if initial_derived(code, fs, &worker, v, &mut Vec::new()) == Some(true) => seeded += 1,
            _ => other = true,
        }
    }
    if seeded == 0 || other {
        return None;
    }
    Some(shown)
}

/// Whether `e` is computed from `torch.initial_seed()` (`Some(true)`), or
/// only from the worker id and constants (`Some(false)`), through `+`,
/// `%`, `int()` and the function's own locals (`visiting`: the locals
/// being followed; one met again adds nothing its other bindings do not);
/// `None` for anything else.
fn initial_derived(
    code: &Code<'_>,
    scope: Scope,
    worker: &[&str],
    e: &Expr,
    visiting: &mut Vec<String>,
) -> Option<bool> {
    if visiting.len() > 6 {
        return None;
    }
    let prog = code.prog;
    match &e.kind {
        ExprKind::Call { func, args, .. } => match prog.external(scope, func).as_deref() {
            Some("torch.initial_seed") if args.is_empty() => Some(true),
            Some("builtins.int") if args.len() == 1 => initial_derived(code, scope, worker, pos(args, 0)?, visiting),
            _ => None,
        },
        ExprKind::BinOp { left, op, right } if op == "+" || op == "%" => {
            let l = initial_derived(code, scope, worker, left, visiting)?;
            let r = initial_derived(code, scope, worker, right, visiting)?;
            Some(l || r)
        }
        ExprKind::Name(n) if worker.contains(&n.as_str()) => Some(false),
        ExprKind::Name(n) if visiting.contains(n) => Some(false),
        ExprKind::Name(n) => {
            // A local bound only in this function, each binding derived
            // (`torch_seed = torch.initial_seed()`, then `torch_seed % 2**32`).
            let s = prog.sources(scope, e);
            if s.unknown || s.terms.is_empty() || s.terms.iter().any(|t| t.scope != scope || !t.proj.is_empty()) {
                return is_int(code, scope, e).then_some(false);
            }
            visiting.push(n.clone());
            let mut any = Some(false);
            for t in &s.terms {
                if std::ptr::eq(t.expr, e) {
                    any = None;
                    break;
                }
                match initial_derived(code, scope, worker, t.expr, visiting) {
                    Some(d) => any = any.map(|a| a || d),
                    None => {
                        any = None;
                        break;
                    }
                }
            }
            visiting.pop();
            any
        }
        _ => is_int(code, scope, e).then_some(false),
    }
}

/// A parameter of the init function that `functools.partial` binds in the
/// parent: its name, and the value written at the `partial` call.
struct Bound<'p> {
    name: String,
    scope: Scope,
    value: &'p Expr,
}

/// The init function's parameters: those the loader passes (the worker
/// id), and those bound by a `partial`.
struct Params<'a, 'p> {
    worker: &'a [&'a str],
    bound: &'a [Bound<'p>],
}

/// What an init function `f` (bound with `bound`) is given by the loader:
/// its parameters other than `self` and those a `partial` binds (the
/// worker id), and the name to show (a callable instance's class).
fn worker_params<'f>(
    prog: &'f crate::training::program::Program,
    f: FuncId,
    bound: &[Bound<'_>],
) -> Option<(Vec<&'f str>, String)> {
    let func = prog.func(f)?;
    let class = prog.class_of(f);
    let skip = usize::from(class.is_some());
    let params = func
        .params
        .iter()
        .skip(skip)
        .map(|p| p.name.as_str())
        .filter(|n| !bound.iter().any(|b| b.name == *n))
        .collect();
    let shown = match class.and_then(|k| prog.class(k)) {
        Some(c) => c.name.clone(),
        None => func.name.clone(),
    };
    Some((params, shown))
}

/// The calls in the function of `scope` that seed numpy's, `random`'s or
/// torch's global RNG (`np.random.seed(s)`, also lhotse's
/// `fix_random_seed(s)`, which seeds all three), with their shown name
/// and first argument.
fn seedings_in(prog: &crate::training::program::Program, scope: Scope) -> Vec<(&Expr, &'static str, Option<&Expr>)> {
    let mut out = Vec::new();
    prog.walk_exprs(scope, &mut |_, e| {
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return;
        };
        let Some(path) = prog.external(scope, func) else { return };
        let name = match path.as_str() {
            "numpy.random.seed" => "np.random.seed",
            "random.seed" => "random.seed",
            "torch.manual_seed" => "torch.manual_seed",
            "lhotse.utils.fix_random_seed" => "fix_random_seed",
            _ => return,
        };
        out.push((e, name, pos(args, 0)));
    });
    out
}

/// The training-code function a `worker_init_fn=` argument names: directly,
/// through `functools.partial(f, seed=seed)` (with the parameters it binds
/// by keyword), or through a name every assignment of which is that
/// function or `None` (`init_fn = worker_init_fn if iterable else None`).
fn init_function<'p>(code: &Code<'p>, scope: Scope, init: &'p Expr) -> Option<(FuncId, Vec<Bound<'p>>)> {
    let prog = code.prog;
    if let Some(Sym::Func(f)) = prog.expr_sym(scope, init) {
        return Some((f, Vec::new()));
    }
    // `worker_init_fn=SeedWorkers(seed)`: the instance's `__call__`.
    if let ExprKind::Call { func, args, .. } = &init.kind {
        return match prog.callee(scope, func) {
            Callee::Class(k) => prog.method(k, "__call__").map(|f| (f, Vec::new())),
            Callee::External(p) if p == "functools.partial" => {
                let Some(Sym::Func(f)) = pos(args, 0).and_then(|x| prog.expr_sym(scope, x)) else {
                    return None;
                };
                // Only keywords bind past the worker id, which the loader
                // passes first.
                let mut bound = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    match a {
                        Arg::Kw { name, value, .. } => bound.push(Bound {
                            name: name.clone(),
                            scope,
                            value,
                        }),
                        Arg::Pos(_) if i == 0 => {}
                        _ => return None,
                    }
                }
                Some((f, bound))
            }
            _ => None,
        };
    }
    if !matches!(init.kind, ExprKind::Name(_)) {
        return None;
    }
    let s = prog.sources(scope, init);
    if s.unknown {
        return None;
    }
    // The one function every assignment names (or `None`), with what a
    // `partial` among them binds.
    let mut found: Option<(FuncId, Vec<Bound<'p>>)> = None;
    for t in &s.terms {
        if !t.proj.is_empty() {
            return None;
        }
        let this = match &t.expr.kind {
            ExprKind::None => continue,
            // An instance of a training-code class the loader calls
            // (`_SeedWorkers(seed)`): its `__call__`; or a `partial`.
            ExprKind::Call { .. } => init_function(code, t.scope, t.expr)?,
            _ => match prog.expr_sym(t.scope, t.expr) {
                Some(Sym::Func(f)) => (f, Vec::new()),
                _ => return None,
            },
        };
        match &found {
            None => found = Some(this),
            Some((g, b)) if *g == this.0 && b.is_empty() && this.1.is_empty() => {}
            Some(_) => return None,
        }
    }
    found
}

/// The summands of a seed expression (`a + b + c`, under `% n` or
/// `int(...)`), each classified; `None` when one is something else: the
/// rank (the seed differs per rank), `torch.initial_seed()` or a value
/// stagec cannot resolve.
fn seed_parts(code: &Code<'_>, scope: Scope, params: &Params<'_, '_>, e: &Expr) -> Option<Vec<Part>> {
    if depends_on_rank(code.prog, scope, e) {
        return None;
    }
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
            ExprKind::BinOp { left, op, right } if op == "%" && is_int(code, scope, right) => todo.push(left),
            ExprKind::Call { func, args, .. }
                if code.prog.external(scope, func).as_deref() == Some("builtins.int") && args.len() == 1 =>
            {
                todo.push(pos(args, 0)?);
            }
            // A local the function computes once (`worker_seed =
            // worker_id + seed`): what it is computed from.
            ExprKind::Name(n) if !params.worker.contains(&n.as_str()) && !params.bound.iter().any(|b| b.name == *n) => {
                let src = code.prog.sources(scope, x);
                match src.terms.as_slice() {
                    [t] if !src.unknown
                        && t.proj.is_empty()
                        && t.scope == scope
                        && matches!(t.expr.kind, ExprKind::BinOp { .. }) =>
                    {
                        todo.push(t.expr)
                    }
                    _ => leaves.push(x),
                }
            }
            _ => leaves.push(x),
        }
    }
    leaves.into_iter().map(|x| part(code, scope, params, x)).collect()
}

fn is_int(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    is_int_at(code, scope, e, 0)
}

/// Whether `e` is one integer, the same wherever it runs: resolved, or
/// arithmetic on such (`2**32`, `base = args.seed + 100`).
fn is_int_at(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    let v = runtime::constant(code.prog, code.cfg, code.rt, scope, e);
    if matches!(v.as_ref().and_then(|r| r.single()), Some(Const::Int(_))) {
        return true;
    }
    match &e.kind {
        ExprKind::BinOp { left, right, .. } => {
            is_int_at(code, scope, left, depth + 1) && is_int_at(code, scope, right, depth + 1)
        }
        ExprKind::Name(_) => {
            let s = code.prog.sources(scope, e);
            !s.unknown
                && s.terms.len() == 1
                && s.terms.iter().all(|t| {
                    t.proj.is_empty()
                        && matches!(t.expr.kind, ExprKind::BinOp { .. })
                        && is_int_at(code, t.scope, t.expr, depth + 1)
                })
        }
        _ => false,
    }
}

fn part(code: &Code<'_>, scope: Scope, params: &Params<'_, '_>, e: &Expr) -> Option<Part> {
    let prog = code.prog;
    if let ExprKind::Name(n) = &e.kind {
        if params.worker.contains(&n.as_str()) {
            return Some(Part::Worker);
        }
        // A value the `partial` binds: a constant where every value it
        // can hold is an integer, or `None` (which the function must test
        // for before adding to it: `seed=666 if args.fix_seed else None`).
        if let Some(b) = params.bound.iter().find(|b| b.name == *n) {
            if is_int(code, b.scope, b.value) {
                return Some(Part::Const);
            }
            let r = runtime::constant(prog, code.cfg, code.rt, b.scope, b.value)?;
            let ints = r.values.iter().filter(|v| matches!(v, Const::Int(_))).count();
            let all = r.values.iter().all(|v| matches!(v, Const::Int(_) | Const::None));
            return (ints > 0 && all).then_some(Part::Const);
        }
    }
    if worker_id(code, scope, e) {
        return Some(Part::Worker);
    }
    // `np.random.get_state()[1][0]`: a subscript chain on the state.
    let mut root = e;
    let mut keys = Vec::new();
    while let ExprKind::Subscript { value, index } = &root.kind {
        keys.push(match index.kind {
            ExprKind::Int(i) => Some(i),
            _ => None,
        });
        root = value;
    }
    if let ExprKind::Call { func, .. } = &root.kind {
        if prog.external(scope, func).as_deref() == Some("numpy.random.get_state") && keys == [Some(0), Some(1)] {
            return Some(Part::NumpyWord);
        }
    }
    if let ExprKind::Call { func, .. } = &root.kind {
        if matches!(
            prog.external(scope, func).as_deref(),
            Some("numpy.random.get_state" | "random.getstate")
        ) && !std::ptr::eq(root, e)
        {
            return Some(Part::Parent);
        }
    }
    if drawn_from_torch(code, scope, e) {
        return Some(Part::Parent);
    }
    is_int(code, scope, e).then_some(Part::Const)
}

/// Whether every value `e` can hold (an attribute an instance keeps from
/// its constructor, `self.seed`) is drawn from torch's global RNG in the
/// parent process: `torch.randint(…).item()`, `int(torch.randint(…))`.
fn drawn_from_torch(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    torch_draws(code, scope, e).is_some()
}

/// Where the values of `e` are drawn from torch's global RNG in the parent
/// (see [`drawn_from_torch`]): each draw's scope and span, when every
/// value is one.
fn torch_draws(code: &Code<'_>, scope: Scope, e: &Expr) -> Option<Vec<(Scope, Span)>> {
    let prog = code.prog;
    if !matches!(e.kind, ExprKind::Attribute { .. } | ExprKind::Name(_)) {
        return None;
    }
    let s = prog.sources(scope, e);
    let draw = |ts: Scope, x: &Expr| {
        let mut x = x;
        if let ExprKind::Call { func, args, .. } = &x.kind {
            match &func.kind {
                ExprKind::Attribute { value, attr } if attr == "item" && args.is_empty() => x = value,
                _ if prog.external(ts, func).as_deref() == Some("builtins.int") => match pos(args, 0) {
                    Some(a) => x = a,
                    None => return false,
                },
                _ => {}
            }
        }
        let ExprKind::Call { func, args, .. } = &x.kind else {
            return false;
        };
        matches!(
            prog.external(ts, func).as_deref(),
            Some("torch.randint" | "torch.rand" | "torch.randn")
        ) && kw(args, "generator").is_none()
    };
    let all = !s.unknown && !s.terms.is_empty() && s.terms.iter().all(|t| t.proj.is_empty() && draw(t.scope, t.expr));
    all.then(|| s.terms.iter().map(|t| (t.scope, t.expr.span)).collect())
}

/// The parent's draws of torch's RNG that the seed expression `seed` adds
/// the worker id to (`self.seed`, kept from `torch.randint(…).item()`).
fn seed_draws(code: &Code<'_>, scope: Scope, seed: &Expr) -> Vec<(Scope, Span)> {
    let mut out = Vec::new();
    walk_expr(seed, &mut Vec::new(), &mut |_, node| {
        let Node::Expr(x) = node else { return };
        for f in torch_draws(code, scope, x).unwrap_or_default() {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    });
    out
}

/// `get_worker_info().id`, directly or through names.
fn worker_id(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    let prog = code.prog;
    let info = |s: Scope, x: &Expr| matches!(&x.kind, ExprKind::Call { func, .. } if prog.external(s, func).as_deref() == Some(WORKER_INFO));
    let s = prog.sources(scope, e);
    !s.unknown
        && !s.terms.is_empty()
        && s.terms.iter().all(|t| match (&t.expr.kind, t.proj.as_slice()) {
            (ExprKind::Call { .. }, [Proj::Attr(a)]) => a == "id" && info(t.scope, t.expr),
            (ExprKind::Attribute { value, attr }, []) => {
                attr == "id" && {
                    let v = prog.sources(t.scope, value);
                    !v.terms.is_empty() && v.terms.iter().all(|u| u.proj.is_empty() && info(u.scope, u.expr))
                }
            }
            _ => false,
        })
}

/// A map-style dataset that seeds the RNGs in its own methods from the
/// worker id and constants only (RAFT's `__getitem__`: `worker_info =
/// get_worker_info(); if worker_info is not None:
/// torch.manual_seed(worker_info.id)`), in multi-rank code whose program
/// starts loader workers: worker k of every rank gets the same seed. Not a
/// dataset whose text names ranks (it may shard or seed by rank itself).
pub(super) fn dataset_seeds_from_worker_id(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    let loaders: Vec<LoaderCall<'_>> = worker_loaders(code)
        .into_iter()
        .filter(|l| {
            let n = runtime::constant(prog, code.cfg, code.rt, l.scope, l.workers);
            match n.as_ref().and_then(|r| r.single()) {
                Some(Const::Int(i)) => *i >= 1,
                Some(_) => false,
                None => n.is_none(),
            }
        })
        .collect();
    if loaders.is_empty() {
        return;
    }
    let no_params = Params {
        worker: &[],
        bound: &[],
    };
    for k in prog.classes_mentioning(&["get_worker_info"]) {
        if !prog.derives_from(k, &["torch.utils.data.Dataset"])
            || prog.derives_from(k, &["torch.utils.data.IterableDataset"])
            || !code.rt.world_at(prog, k.m).distributed()
            || !loaders.iter().any(|l| prog.same_program(l.scope.m, k.m))
        {
            continue;
        }
        let Some(class) = prog.class(k) else { continue };
        let mut hits: Vec<(Scope, Span, &'static str, &Expr, String)> = Vec::new();
        for f in prog.own_methods(k) {
            let fs = f.scope();
            let Some(method) = prog.func(f) else { continue };
            prog.walk_exprs(fs, &mut |_, e| {
                let ExprKind::Call { func: callee, args, .. } = &e.kind else {
                    return;
                };
                let Some(name) = prog.external(fs, callee).as_deref().and_then(global_seeder) else {
                    return;
                };
                let Some(v) = pos(args, 0) else { return };
                let Some(parts) = seed_parts(code, fs, &no_params, v) else {
                    return;
                };
                if parts.contains(&Part::Worker) && parts.iter().all(|p| matches!(p, Part::Worker | Part::Const)) {
                    hits.push((fs, e.span, name, v, method.name.clone()));
                }
            });
        }
        let Some((fs, at, name, seed, method)) = hits.first() else {
            continue;
        };
        // Its own text only (ranks it reads through calls are asked no
        // further: a seed of the worker id and constants does not read them).
        let ranked = prog.ancestors(k).into_iter().any(|c| {
            prog.class(c)
                .is_none_or(|x| RANK_WORDS.iter().any(|w| code.text(c.m, x.span).contains(w)))
        });
        if ranked {
            continue;
        }
        let d = out.at_loc(
            code.loc(fs.m, *at),
            format!(
                "`{}.{method}` calls {name}({}) in each loader worker: the seed is made of the worker id and constants only, so worker k of every rank gets the same seed and draws the same random numbers, and the augmentations repeat across ranks",
                class.name,
                excerpt(code.text(fs.m, seed.span))
            ),
        );
        for (s, other, ..) in hits.iter().skip(1) {
            d.label(code.file(s.m), *other, "seeded the same way here");
        }
        d.help("seed from the worker's base seed, which PyTorch draws per rank and per epoch: `torch.initial_seed() % 2**32` (or add the rank to the worker id)");
    }
}

/// Words that show a dataset class knows about ranks or shards by process.
const RANK_WORDS: &[&str] = &[
    "rank",
    "world",
    "replica",
    "process_index",
    "num_processes",
    "node",
    "distributed",
    "accelerator",
    "environ",
    "getenv",
    "split_dataset_by",
];

/// `IterableDataset`s split by worker only, read by a plain loader on
/// every rank.
pub(super) fn iterable_split_by_worker_only(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    for (scope, anc, call, _) in runtime::calls(prog, &[TORCH_LOADER]) {
        let world = code.rt.world_at(prog, scope.m);
        if !world.distributed() || !live(code, scope, &anc, call) {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        if has_splat(args) || kw(args, "sampler").is_some() || kw(args, "batch_sampler").is_some() {
            continue;
        }
        let Some(ds) = pos(args, 0).or_else(|| kw(args, "dataset")) else {
            continue;
        };
        let s = prog.sources(scope, ds);
        if s.unknown || s.terms.len() != 1 {
            continue;
        }
        let t = &s.terms[0];
        let ExprKind::Call {
            func, args: ctor_args, ..
        } = &t.expr.kind
        else {
            continue;
        };
        if !t.proj.is_empty() {
            continue;
        }
        let Callee::Class(k) = prog.callee(t.scope, func) else {
            continue;
        };
        if !prog.derives_from(k, &["torch.utils.data.IterableDataset"]) {
            continue;
        }
        if ctor_args.iter().any(|a| arg_mentions_rank(code, t.scope, a)) {
            continue;
        }
        let Some(iter) = prog.method(k, "__iter__") else {
            continue;
        };
        if !splits_by_worker(code, iter) || knows_ranks(code, k) {
            continue;
        }
        if let Some(init) = kw(args, "worker_init_fn") {
            let text = code.text(scope.m, init.span);
            if RANK_WORDS.iter().any(|w| text.contains(w)) {
                continue;
            }
            if let Some(Sym::Func(f)) = prog.expr_sym(scope, init) {
                if let Some(func) = prog.func(f) {
                    let body = code.text(f.m, func.span);
                    if RANK_WORDS.iter().any(|w| body.contains(w)) {
                        continue;
                    }
                }
            }
        }
        if managed(code, scope, &anc, call) || !feeds_training(code, scope, &anc, call) {
            continue;
        }
        let class = prog.class(k).map_or(String::new(), |c| c.name.clone());
        let d = out.at_loc(
            code.loc(t.scope.m, t.expr.span),
            format!(
                "`{class}` is an IterableDataset whose __iter__ splits its records by loader worker (get_worker_info) but never by rank, and this plain DataLoader gives it no sampler: {}, so the job trains on the same batches {}",
                match world {
                    World::Ranks(Some(n)) => format!("all {n} ranks iterate the same records"),
                    _ => "every rank iterates the same records".to_string(),
                },
                match world {
                    World::Ranks(Some(n)) => format!("{n} times over"),
                    _ => "once per rank".to_string(),
                }
            ),
        );
        d.label(
            code.file(scope.m),
            call.span,
            "the plain torch DataLoader every rank iterates",
        );
        d.help("split the records by rank as well as by worker: take every (world_size × num_workers)-th record starting at rank × num_workers + worker id");
    }
}

fn arg_mentions_rank(code: &Code<'_>, scope: Scope, a: &crate::training::ast::Arg) -> bool {
    use crate::training::ast::Arg;
    match a {
        Arg::Pos(e) | Arg::Star(e) | Arg::StarStar(e) => depends_on_rank(code.prog, scope, e),
        Arg::Kw { value, .. } => depends_on_rank(code.prog, scope, value),
    }
}

/// The global-RNG shuffles (`random.shuffle`, `np.random.shuffle`) that
/// order the records an `IterableDataset`'s `__iter__` (`iter`, reading
/// `get_worker_info()`) then takes its worker's part of by position: a
/// shuffle of `self.files` in `__iter__` before `self.files[idx]`, with no
/// part cut from `self.files` before it, or one in a helper whose result
/// `__iter__` stores there first (`self.files, self.targets =
/// shuffle_two_list(…)`). Empty where `iter` is not such an `__iter__`.
pub(super) fn worker_split_shuffles(prog: &crate::training::program::Program, iter: FuncId) -> Vec<Span> {
    let scope = iter.scope();
    let mut out = Vec::new();
    let splits = prog.func(iter).is_some_and(|f| f.name == "__iter__")
        && prog
            .class_of(iter)
            .is_some_and(|k| prog.derives_from(k, &["torch.utils.data.IterableDataset"]));
    if !splits {
        return out;
    }
    if !reads_worker_info(prog, scope) {
        return out;
    }
    let is_self = |e: &Expr| matches!(&e.kind, ExprKind::Name(n) if n == "self");
    let self_attr = |e: &Expr| match &e.kind {
        ExprKind::Attribute { value, attr } if is_self(value) => Some(attr.clone()),
        _ => None,
    };
    // Where `self.<attr>` is read by position, and where a part is cut
    // from it into itself (`self.data = self.data[info.id::n]`).
    let mut taken: Vec<(String, usize)> = Vec::new();
    let mut cut: Vec<(String, usize)> = Vec::new();
    prog.walk_exprs(scope, &mut |_, e| {
        if let ExprKind::Subscript { value, .. } = &e.kind {
            if let Some(a) = self_attr(value) {
                taken.push((a, e.span.start));
            }
        }
    });
    prog.walk_stmts(scope, &mut |_, st| {
        if let StmtKind::Assign { targets, value } = &st.kind {
            if let ExprKind::Subscript { value: v, .. } = &value.kind {
                if let Some(a) = self_attr(v) {
                    if targets.iter().any(|t| self_attr(t).as_deref() == Some(a.as_str())) {
                        cut.push((a, st.span.start));
                    }
                }
            }
        }
    });
    // Ordered at `at` for `attr`: taken by position after, not cut before.
    let orders = |attr: &str, at: Span| {
        taken.iter().any(|(a, p)| a == attr && *p > at.end) && !cut.iter().any(|(a, p)| a == attr && *p < at.start)
    };
    let global_shuffle = |s: Scope, func: &Expr| {
        prog.external(s, func)
            .is_some_and(|p| matches!(p.as_str(), "random.shuffle" | "numpy.random.shuffle"))
    };
    prog.walk_exprs(scope, &mut |_, e| {
        if let ExprKind::Call { func, args, .. } = &e.kind {
            if global_shuffle(scope, func) {
                if let Some(a) = pos(args, 0).and_then(self_attr) {
                    if orders(&a, e.span) {
                        out.push(e.span);
                    }
                }
            }
        }
    });
    prog.walk_stmts(scope, &mut |_, st| {
        let StmtKind::Assign { targets, value } = &st.kind else {
            return;
        };
        let ExprKind::Call { func, .. } = &value.kind else {
            return;
        };
        let Callee::Func(h) = prog.callee(scope, func) else {
            return;
        };
        let stores = targets.iter().any(|t| {
            let parts: Vec<&Expr> = match &t.kind {
                ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().collect(),
                _ => vec![t],
            };
            parts
                .iter()
                .any(|p| self_attr(p).is_some_and(|a| orders(&a, value.span)))
        });
        if !stores {
            return;
        }
        prog.walk_exprs(h.scope(), &mut |_, e| {
            if let ExprKind::Call { func, .. } = &e.kind {
                if global_shuffle(h.scope(), func) && out.len() < 16 {
                    out.push(e.span);
                }
            }
        });
    });
    out
}

/// Whether the code of `scope` calls `get_worker_info()`.
fn reads_worker_info(prog: &crate::training::program::Program, scope: Scope) -> bool {
    let mut info = false;
    prog.walk_exprs(scope, &mut |_, e| {
        if let ExprKind::Call { func, .. } = &e.kind {
            info |= !info && prog.external(scope, func).as_deref() == Some(WORKER_INFO);
        }
    });
    info
}

/// Whether `__iter__` reads `get_worker_info()` and indexes or slices by it.
fn splits_by_worker(code: &Code<'_>, iter: FuncId) -> bool {
    let prog = code.prog;
    let scope = iter.scope();
    if !reads_worker_info(prog, scope) {
        return false;
    }
    let mut split = false;
    prog.walk_exprs(scope, &mut |_, e| {
        if let ExprKind::Subscript { index, .. } = &e.kind {
            let mut stack = Vec::new();
            walk_expr(index, &mut stack, &mut |_, n| {
                if let Node::Expr(x) = n {
                    if matches!(x.kind, ExprKind::Name(_) | ExprKind::Attribute { .. })
                        && (worker_id(code, scope, x)
                            || matches!(&x.kind, ExprKind::Attribute { attr, .. } if attr == "id"))
                    {
                        split = true;
                    }
                }
            });
        }
    });
    split
}

/// Whether a dataset class (or one of its bases in the training code)
/// mentions ranks, the world or the process layout anywhere.
fn knows_ranks(code: &Code<'_>, k: ClassId) -> bool {
    let prog = code.prog;
    for c in prog.ancestors(k) {
        let Some(class) = prog.class(c) else { return true };
        let text = code.text(c.m, class.span);
        if RANK_WORDS.iter().any(|w| text.contains(w)) {
            return true;
        }
        for st in &class.body {
            if let StmtKind::FunctionDef(i) = st.kind {
                let f = FuncId { m: c.m, c: c.c, f: i };
                let mut ranked = false;
                prog.walk_exprs(f.scope(), &mut |_, e| {
                    if !ranked && matches!(e.kind, ExprKind::Call { .. }) && depends_on_rank(prog, f.scope(), e) {
                        ranked = true;
                    }
                });
                if ranked {
                    return true;
                }
            }
        }
    }
    false
}
