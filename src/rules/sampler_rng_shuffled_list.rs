//! T101 (`sampler-rng-shared-across-ranks`) on a sample list shuffled in
//! place: `random.shuffle(records)` or `np.random.shuffle(records)` in
//! multi-rank code that never seeds that RNG, where the shuffled order then
//! decides which samples each part or rank gets (a train/eval split by
//! slices, a slice by rank, or a dataset attribute a sharding sampler hands
//! out positions in). Each rank's interpreter starts its global RNG from
//! its own entropy, so each rank shuffles into its own order: the split
//! differs between ranks, and shards taken by position overlap.
//!
//! Silent where the code seeds that RNG anywhere in the program
//! (`random.seed`, `np.random.seed`, a `set_seed`/`seed_everything` helper,
//! any call whose name mentions a seed or determinism but torch's own), in a
//! Determined trial (Determined seeds every RNG with the trial seed), for a
//! shuffle on one rank only or a list broadcast from one rank afterwards,
//! and where the order reaches no split and no shard.

use super::training_support::{excerpt, Code};
use super::unsorted_directory_listing::{indexing_dataset, order_use, Use};
use super::Sink;
use crate::training::ast::{Expr, ExprKind, StmtKind};
use crate::training::program::{Anc, ArgPos, Callee, Flow, FuncId, LocalDef, ModId, Scope};
use crate::training::runtime::{self, pos};

/// How the shuffled order decides the samples.
enum Order {
    /// Cut into parts by slices (`records[:cut]`, `records[cut:]`).
    Split,
    /// As the T110 uses: sliced by rank, or kept by a sharded dataset.
    Sharded(Use),
    /// Shuffled in a sampler's `__iter__` that then cuts this rank's part;
    /// `true` where the sampler is a `DistributedSampler`, which keeps
    /// `self.seed` and `self.epoch`.
    SamplerPart(bool),
}

pub(super) fn shuffled_apart(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    for (scope, anc, call, path) in runtime::calls(prog, &["random.shuffle", "numpy.random.shuffle"]) {
        if !code.rt.world_at(prog, scope.m).distributed()
            || !super::sampler_rng_shared_across_ranks::live(code, scope, &anc, call)
            || runtime::runs_on_one_rank(prog, scope, &anc, call as *const Expr as *const ())
        {
            continue;
        }
        let numpy = path == "numpy.random.shuffle";
        let ExprKind::Call { func, args, .. } = &call.kind else {
            continue;
        };
        let Some(list) = pos(args, 0) else { continue };
        // In a loader worker, torch seeds the global RNGs anew for each
        // worker: whatever the rank seeded, the workers shuffle apart.
        if let Some(iter) = worker_iter(code, scope, call) {
            if several_workers(code, scope.m) {
                report_in_workers(code, scope, call, list, numpy, iter, out);
                continue;
            }
        }
        if seeded(code, scope.m, if numpy { "numpy.random.seed" } else { "random.seed" }) {
            continue;
        }
        let Some(order) = order_of(code, scope, list) else {
            continue;
        };
        let name = excerpt(code.text(scope.m, list.span));
        let what = if numpy { "np.random.shuffle" } else { "random.shuffle" };
        let rng = if numpy {
            "numpy's global RNG"
        } else {
            "Python's global RNG"
        };
        let harm = match &order {
            Order::Split => "the parts it is cut into differ between ranks: one rank's training part holds samples other ranks hold out".to_string(),
            Order::SamplerPart(_) | Order::Sharded(Use::SlicedByRank) => "the rank slices come from different orders: ranks read overlapping samples and skip others".to_string(),
            Order::Sharded(Use::Concatenated) => "the datasets made from it are joined in that order by `concatenate_datasets`: ranks read overlapping rows and skip others".to_string(),
            Order::Sharded(Use::Joined) => "the datasets made from it are joined in that order by `ConcatDataset`: ranks read overlapping samples and skip others".to_string(),
            Order::Sharded(Use::EvalSets) => "the Trainer evaluates the datasets made from it in that order (`eval_dataset`): ranks evaluate different datasets at the same time, and the gathers of their evaluation loops pair up wrongly or hang".to_string(),
            Order::Sharded(Use::DataFiles) => "`load_dataset(data_files=…)` reads the files in that order: the dataset's rows, handed to ranks by position, come in a different order on each rank".to_string(),
            Order::Sharded(Use::Dataset(k, attr, _, _)) => {
                let class = prog.class(*k).map_or(String::new(), |c| c.name.clone());
                format!("`{class}` keeps that order as `self.{attr}`, where a sharding sampler hands out positions: ranks read overlapping samples and skip others")
            }
        };
        let d = out.at_loc(
            code.loc(scope.m, call.span),
            format!("{what}({name}) draws from {rng}, which this code never seeds: each rank's interpreter seeds it from its own entropy, so each rank shuffles `{name}` into a different order, and {harm}"),
        );
        d.help("shuffle with a generator seeded alike on every rank (random.Random(0).shuffle(…), np.random.default_rng(0).shuffle(…)), or seed the global RNG with the same value on every rank before this runs");
        // `random.shuffle` → `random.Random(0).shuffle` (the module's own
        // name as the code writes it); in a `DistributedSampler`, seeded
        // with its seed and epoch, as torch's own shuffle is. A sampler
        // without them has no seed of an epoch to offer.
        let seed = match order {
            Order::SamplerPart(true) => Some("self.seed + self.epoch"),
            Order::SamplerPart(false) => None,
            _ => Some("0"),
        };
        if let (ExprKind::Attribute { value, attr }, Some(seed)) = (&func.kind, seed) {
            if attr == "shuffle" {
                let m = code.text(scope.m, value.span);
                let seeded = if numpy {
                    format!("{m}.default_rng({seed}).shuffle")
                } else {
                    format!("{m}.Random({seed}).shuffle")
                };
                d.unsafe_fix(
                    "shuffle with a generator seeded alike on every rank",
                    vec![crate::edit::replace(code.file(scope.m), func.span, seeded)],
                );
            }
        }
    }
}

/// The worker-splitting `__iter__` whose records the shuffle `call` (in
/// `scope`) orders before the worker takes its part (see
/// [`super::sampler_rng_workers::worker_split_shuffles`]): the shuffle's
/// own function, or the one function that calls it.
fn worker_iter(code: &Code<'_>, scope: Scope, call: &Expr) -> Option<FuncId> {
    let prog = code.prog;
    let f = scope.func()?;
    let sites = prog.call_sites(f);
    let iter = match sites.first() {
        _ if prog.func(f).is_some_and(|x| x.name == "__iter__") => f,
        Some((s, _)) if sites.iter().all(|(t, _)| t.func() == s.func()) => s.func()?,
        _ => return None,
    };
    super::sampler_rng_workers::worker_split_shuffles(prog, iter)
        .contains(&call.span)
        .then_some(iter)
}

/// Whether a loader of the program of module `m` starts two or more
/// workers (a count resolved to 2 or more): its workers then shuffle
/// apart on each rank.
fn several_workers(code: &Code<'_>, m: ModId) -> bool {
    let prog = code.prog;
    super::sampler_rng_workers::worker_loaders(code).iter().any(|l| {
        prog.same_program(l.scope.m, m)
            && super::loader_workers_not_persistent::most_workers(code, l.scope, l.args).is_some_and(|n| n >= 2)
    })
}

/// Reports a shuffle that runs in each loader worker before the worker
/// takes its part of the records by position.
fn report_in_workers(
    code: &Code<'_>,
    scope: Scope,
    call: &Expr,
    list: &Expr,
    numpy: bool,
    iter: FuncId,
    out: &mut Sink<'_>,
) {
    let prog = code.prog;
    let name = excerpt(code.text(scope.m, list.span));
    let what = if numpy { "np.random.shuffle" } else { "random.shuffle" };
    let rng = if numpy { "numpy's" } else { "Python's" };
    let class = prog
        .class_of(iter)
        .and_then(|k| prog.class(k))
        .map_or(String::new(), |c| c.name.clone());
    // Shuffled in a helper: reported at the `__iter__`'s call of it, the
    // line that runs the shuffle in the workers.
    let helper = (scope.func() != Some(iter))
        .then(|| scope.func())
        .flatten()
        .and_then(|f| prog.call_sites(f).into_iter().next());
    let runs = format!("runs in each loader worker (`{class}.__iter__`, which splits the records by worker), where torch seeds {rng} global RNG apart for every worker (its base seed plus the worker id), whatever the rank seeded: each worker shuffles into its own order and then takes its part by position, so the workers' parts come from different orders: they overlap and skip records");
    let message = match helper {
        Some((_, c)) => {
            let callee = match &c.kind {
                ExprKind::Call { func, .. } => excerpt(code.text(iter.scope().m, func.span)),
                _ => String::new(),
            };
            format!(
                "`{callee}` shuffles with {what}({name}) and {}",
                runs.replacen("runs in", "runs here in", 1)
            )
        }
        None => format!("{what}({name}) {runs}"),
    };
    let at = match helper {
        Some((s, c)) => code.loc(s.m, c.span),
        None => code.loc(scope.m, call.span),
    };
    let d = out.at_loc(at, message);
    if helper.is_some() {
        d.label(code.file(scope.m), call.span, "the shuffle, in each worker");
    }
    d.help("shuffle with a generator every worker and rank seeds alike (random.Random(seed + epoch).shuffle(…), with the epoch handed to the dataset), or shuffle once before the workers start and let each worker take its part of that one order");
}

/// Whether the program of module `m` seeds the RNG (`seed`: its seeding
/// function), or may: a Determined trial, a helper that seeds every RNG, or
/// any call whose name mentions a seed or determinism (a project's own
/// `set_random_seed`, MONAI's `set_determinism`) other than torch's.
pub(super) fn seeded(code: &Code<'_>, m: ModId, seed: &str) -> bool {
    trial(code) || !seeding_calls(code, m, seed, false).is_empty()
}

/// Whether the RNG may be seeded before `draw` (in `scope`): [`seeded`],
/// leaving out seeding calls in the draw's own scope after it (`seed =
/// random.randint(1, 10000)`, then `random.seed(seed)`), and those in
/// functions that the draw's function reaches only from its statements
/// after the draw (`get_model(cfg, seed=args.seed)` calling
/// `set_random_seed(seed)` once the seed is drawn).
pub(super) fn seeded_before(code: &Code<'_>, scope: Scope, draw: &Expr, seed: &str) -> bool {
    if trial(code) {
        return true;
    }
    let calls = seeding_calls(code, scope.m, seed, true);
    if calls.is_empty() {
        return false;
    }
    let prog = code.prog;
    let body = prog.body(scope);
    let split = body
        .iter()
        .position(|st| st.span.end > draw.span.start)
        .unwrap_or(body.len());
    let (before, rest) = body.split_at(split);
    // The statement holding the draw may call anything before it.
    let (holding, after) = rest.split_at(rest.len().min(1));
    let mut reached_before = prog.callees_of(scope, before, 4);
    reached_before.extend(prog.callees_of(scope, holding, 4));
    let after_only: Vec<_> = prog
        .callees_of(scope, after, 4)
        .into_iter()
        .filter(|f| !reached_before.contains(f) && Some(*f) != scope.func())
        .collect();
    calls.iter().any(|(s, span)| {
        if *s == scope {
            return span.start < draw.span.end;
        }
        !s.func().is_some_and(|f| after_only.contains(&f))
    })
}

fn trial(code: &Code<'_>) -> bool {
    !code.rt.trials.is_empty() || code.rt.unlaunched_trial.is_some()
}

/// The calls of the program of module `m` that seed the RNG (`seed`), or
/// may (see [`seeded`]), with their scopes and spans; `own_only`: of the
/// calls named for a seed, only the training code's own helpers (not
/// another library's seeding, `np.random.seed` for `random`).
fn seeding_calls(code: &Code<'_>, m: ModId, seed: &str, own_only: bool) -> Vec<(Scope, crate::source::Span)> {
    let prog = code.prog;
    let mut out = Vec::new();
    let mut targets = vec![seed];
    targets.extend_from_slice(runtime::SEED_EVERY_RNG);
    for (s, _, call, _) in runtime::calls(prog, &targets) {
        if prog.same_program(s.m, m) && may_run(prog, s, 0) {
            out.push((s, call.span));
        }
    }
    for mm in prog.code_modules().filter(|x| prog.same_program(*x, m)) {
        let chunks: Vec<u32> = prog.chunks_mentioning(mm, &["seed"]).collect();
        for c in chunks {
            for scope in prog.scopes(mm, c) {
                prog.walk_exprs(scope, &mut |_, e| {
                    let ExprKind::Call { func, .. } = &e.kind else { return };
                    let name = match &func.kind {
                        ExprKind::Name(n) => n.as_str(),
                        ExprKind::Attribute { attr, .. } => attr.as_str(),
                        _ => return,
                    };
                    let torch = matches!(name, "manual_seed" | "manual_seed_all" | "initial_seed" | "seed_all");
                    let lower = name.to_ascii_lowercase();
                    let library = own_only && prog.external(scope, func).is_some();
                    if (lower.contains("seed") || lower.contains("determinis"))
                        && !torch
                        && !library
                        && may_run(prog, scope, 0)
                    {
                        out.push((scope, e.span));
                    }
                });
            }
        }
    }
    out
}

/// Whether the code of `scope` may run: module-level code, a method other
/// than `__init__` (called through objects the analysis does not follow),
/// a function handed on as a value, or a function or `__init__` with a
/// call (a construction) in code that may run itself. A library vendored
/// into the project (`trl/core.py`'s `set_seed`, called only by trainers
/// the project never builds) seeds nothing by being there.
fn may_run(prog: &crate::training::program::Program, scope: Scope, depth: u32) -> bool {
    let Some(f) = scope.func() else { return true };
    let Some(func) = prog.func(f) else { return true };
    if depth > 4 || prog.escapes(f) || (prog.class_of(f).is_some() && func.name != "__init__") {
        return true;
    }
    prog.call_sites(f).iter().any(|(s, _)| may_run(prog, *s, depth + 1))
}

/// How the order of `list` (shuffled in place) decides the samples: a
/// local list followed from where it is made, or `self.<attr>` of a dataset.
fn order_of(code: &Code<'_>, scope: Scope, list: &Expr) -> Option<Order> {
    let prog = code.prog;
    match &list.kind {
        ExprKind::Attribute { value, attr } => {
            let k = prog.self_class(scope, value)?;
            indexing_dataset(code, k, attr).map(|via| Order::Sharded(Use::Dataset(k, attr.clone(), via, false)))
        }
        ExprKind::Name(n) => {
            let f = scope.func()?;
            let defs = prog.local_defs(f, n);
            let [LocalDef::Assign { value, proj }] = defs.as_slice() else {
                return sampler_part(code, scope, list).or_else(|| kept_by_dataset(code, scope, n, list.span.end));
            };
            if !proj.is_empty() {
                return None;
            }
            let anc = prog.ancestors_of(scope, value)?;
            if broadcast(code, scope, &anc, value) {
                return None;
            }
            if let Some(u) = order_use(code, scope, &anc, value, 0) {
                return Some(Order::Sharded(u));
            }
            split(code, scope, &anc, value).then_some(Order::Split)
        }
        // `random.shuffle(indices[i])`: a part of a local list.
        ExprKind::Subscript { value, .. } if matches!(value.kind, ExprKind::Name(_)) => sampler_part(code, scope, list),
        _ => None,
    }
}

/// The dataset attribute a list the code shuffled goes into, later in the
/// same function: `self.records.extend(name)`, `self.records += name` or
/// `self.records = name` (rebinding the name only to a slice of itself on
/// the way, `name = name[:n]`), where `records` is indexed in the dataset's
/// `__getitem__` and a sharding sampler hands out positions in it (each
/// file of a list of files read, shuffled and cut to a random subset).
fn kept_by_dataset(code: &Code<'_>, scope: Scope, n: &str, after: usize) -> Option<Order> {
    let prog = code.prog;
    let is_name = |e: &Expr| matches!(&e.kind, ExprKind::Name(x) if x == n);
    let mut found: Option<(crate::training::program::ClassId, String)> = None;
    let mut rebound = false;
    prog.walk_stmts(scope, &mut |_, st| {
        if found.is_some() || rebound || st.span.start < after {
            return;
        }
        let into = |target: &Expr| match &target.kind {
            ExprKind::Attribute { value, attr } => prog.self_class(scope, value).map(|k| (k, attr.clone())),
            _ => None,
        };
        match &st.kind {
            StmtKind::Assign { targets, value } => {
                if targets.iter().any(is_name) {
                    // `name = name[:n]` keeps the shuffled order.
                    rebound = !matches!(&value.kind, ExprKind::Subscript { value: v, .. } if is_name(v));
                } else if let ([t], true) = (targets.as_slice(), is_name(value)) {
                    found = into(t);
                }
            }
            StmtKind::AugAssign { target, op, value } if op == "+=" && is_name(value) => found = into(target),
            StmtKind::Expr(Expr {
                kind: ExprKind::Call { func, args, .. },
                ..
            }) => {
                if let (ExprKind::Attribute { value: held, attr }, Some(arg)) = (&func.kind, pos(args, 0)) {
                    if attr == "extend" && args.len() == 1 && is_name(arg) {
                        found = into(held);
                    }
                }
            }
            _ => {}
        }
    });
    let (k, attr) = found?;
    let via = indexing_dataset(code, k, &attr)?;
    Some(Order::Sharded(Use::Dataset(k, attr, via, false)))
}

/// Whether the local list `list` (a name, or an entry of one) is shuffled
/// in the `__iter__` of a sampler class (one deriving from torch's
/// `Sampler`) that then takes this rank's part of a local list by
/// position (`indices[start:end]`, `start = self.rank * per_rank`): the
/// order each rank shuffles into is the order its part is cut from.
fn sampler_part(code: &Code<'_>, scope: Scope, list: &Expr) -> Option<Order> {
    let prog = code.prog;
    let f = scope.func()?;
    if prog.func(f).is_none_or(|x| x.name != "__iter__") {
        return None;
    }
    let k = prog.class_of(f)?;
    let bases = prog.external_bases(k);
    if !bases
        .iter()
        .any(|b| b.starts_with("torch.utils.data.") && b.ends_with("Sampler"))
    {
        return None;
    }
    let distributed = bases.iter().any(|b| b.ends_with(".DistributedSampler"));
    let mut cut = false;
    prog.walk_exprs(scope, &mut |_, e| {
        if cut || e.span.start < list.span.end {
            return;
        }
        if let ExprKind::Subscript { value, index } = &e.kind {
            cut = matches!(value.kind, ExprKind::Name(_)) && runtime::depends_on_rank(prog, scope, index);
        }
    });
    cut.then_some(Order::SamplerPart(distributed))
}

/// Whether the list made at `e` is cut into two parts or more by slices.
fn split<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], e: &'p Expr) -> bool {
    let through = |_: &Callee, _: &ArgPos<'_>| false;
    let mut cuts = 0;
    let mut sorted = false;
    code.prog.flows(scope, anc, e, &through, &mut |flow| match flow {
        Flow::Index { index, .. } if matches!(index.kind, ExprKind::Slice { .. }) => cuts += 1,
        Flow::Method { name: "sort", .. } => sorted = true,
        Flow::Arg {
            callee: Callee::External(p),
            ..
        } if p == "builtins.sorted" => sorted = true,
        _ => {}
    });
    cuts >= 2 && !sorted
}

/// Whether the list made at `e` is broadcast from one rank
/// (`dist.broadcast_object_list(order, src=0)`): every rank then has that
/// rank's order.
fn broadcast<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], e: &'p Expr) -> bool {
    let through = |_: &Callee, _: &ArgPos<'_>| false;
    let mut sent = false;
    code.prog.flows(scope, anc, e, &through, &mut |flow| {
        if let Flow::Arg {
            callee: Callee::External(p),
            ..
        } = flow
        {
            sent |= p.ends_with(".broadcast_object_list") || p.ends_with(".broadcast");
        }
    });
    sent
}
