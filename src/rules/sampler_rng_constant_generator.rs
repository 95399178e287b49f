//! T101 (`sampler-rng-shared-across-ranks`) on the half-applied fix: a
//! `torch.Generator()` seeded with the same constant on every rank
//! (`g = torch.Generator(); g.manual_seed(777)`, `torch.Generator().manual_seed(seed)`
//! with `seed` a resolved constant, or the run's configured seed read from the
//! parser, Hydra's config or a config file the code loads, also through a
//! helper such as `get_generator(cfg.seed)`, reported at that call) handed to
//! a `DataLoader` in multi-rank code. The loader draws from it
//!
//! - its shuffle order (`shuffle=True`, no sampler of its own): every rank
//!   draws the same permutation of the same dataset and trains on the same
//!   batches — unless the dataset is already the rank's own part (its
//!   construction mentions the rank);
//! - each pass's worker base seed, when it has workers (`num_workers` known to
//!   be above 0, or `persistent_workers=True`, which requires some): worker k of
//!   every rank then seeds torch, `random` and numpy alike, and whatever random
//!   augmentation the workers draw repeats across ranks. Reported only where the
//!   training code draws random numbers somewhere outside the loader's own
//!   function (the augmentations that would repeat).
//!
//! Silent on a one-rank path, for a seed that is not a constant (one that
//! mixes in the rank does not resolve), where the generator also goes
//! anywhere else but the loaders, and for a loader that shards for you
//! (`accelerator.prepare`, Fabric's `setup_dataloaders`, Determined's), which
//! keeps one generator in step on every rank by design.

use super::training_support::{excerpt, Code};
use super::Sink;
use crate::training::ast::{Arg, Expr, ExprKind};
use crate::training::program::{Anc, ArgPos, Callee, Flow, LocalDef, Scope};
use crate::training::runtime::{self, kw, pos};
use crate::training::values::Const;

/// What the loader draws from the generator.
enum Draw {
    Order,
    WorkerSeeds,
}

pub(super) fn constant_generators(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    for m in prog.code_modules() {
        if !code.rt.world_at(prog, m).distributed() {
            continue;
        }
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &["Generator"]).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                let mut made: Vec<(Vec<Anc<'_>>, &Expr)> = Vec::new();
                prog.walk_exprs(scope, &mut |anc, e| {
                    if let ExprKind::Call { func, .. } = &e.kind {
                        if prog.external(scope, func).as_deref() == Some("torch.Generator") {
                            made.push((anc.to_vec(), e));
                        }
                    }
                });
                for (anc, call) in made {
                    check_generator(code, scope, &anc, call, out);
                }
            }
        }
    }
}

fn check_generator<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], gen: &'p Expr, out: &mut Sink<'_>) {
    let prog = code.prog;
    if !super::sampler_rng_shared_across_ranks::live(code, scope, anc, gen)
        || runtime::runs_on_one_rank(prog, scope, anc, gen as *const Expr as *const ())
    {
        return;
    }
    // `torch.Generator().manual_seed(s)` returns the generator: follow the
    // seeded one.
    let (start, start_anc, mut seeds): (&Expr, Vec<Anc<'p>>, Vec<(Scope, &'p Expr)>) = match anc.split_last() {
        Some((Anc::Expr(attr), up)) if matches!(&attr.kind, ExprKind::Attribute { attr: a, .. } if a == "manual_seed") => {
            match up.split_last() {
                Some((Anc::Expr(call), rest)) if matches!(&call.kind, ExprKind::Call { func, .. } if std::ptr::eq(&**func, *attr)) =>
                {
                    let ExprKind::Call { args, .. } = &call.kind else {
                        return;
                    };
                    let Some(seed) = pos(args, 0).or_else(|| kw(args, "seed")) else {
                        return;
                    };
                    (*call, rest.to_vec(), vec![(scope, seed)])
                }
                _ => return,
            }
        }
        _ => (gen, anc.to_vec(), Vec::new()),
    };
    let mut loaders: Vec<(Scope, &'p Expr)> = Vec::new();
    let mut other = false;
    let complete = prog.flows(scope, &start_anc, start, &|_, _| false, &mut |flow| match flow {
        Flow::Method {
            scope: s,
            call,
            name: "manual_seed",
            ..
        } => {
            let ExprKind::Call { args, .. } = &call.kind else {
                return;
            };
            match pos(args, 0).or_else(|| kw(args, "seed")) {
                Some(seed) => seeds.push((s, seed)),
                None => other = true,
            }
        }
        Flow::Arg {
            scope: s,
            call,
            callee: Callee::External(p),
            pos: ArgPos::Kw("generator"),
            ..
        } if p == "torch.utils.data.DataLoader" => loaders.push((s, call)),
        Flow::Stored { .. } => {}
        _ => other = true,
    });
    if !complete || other || loaders.is_empty() {
        return;
    }
    // One seed, the same constant wherever it runs.
    let [(seed_scope, seed)] = seeds.as_slice() else { return };
    if runtime::mentions_rank(prog, *seed_scope, seed) {
        return;
    }
    // A resolved constant, or the run's configured seed (`cfg.seed` of the
    // config Hydra composes, `args.seed` of the parser): the same on every
    // rank, whatever the run sets.
    let value = match runtime::constant(prog, code.cfg, code.rt, *seed_scope, seed).and_then(|r| r.single().cloned()) {
        Some(Const::Int(v)) => Some(v),
        _ if configured(code, *seed_scope, seed) => None,
        _ => return,
    };
    for (s, call) in loaders {
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        // A loader that shards for you (`accelerator.prepare`, Fabric,
        // Determined) keeps one generator in step on every rank by design.
        let Some(loader_anc) = prog.ancestors_of(s, call) else {
            continue;
        };
        // Fabric's `setup_dataloaders` swaps in a distributed sampler of its
        // own seed but keeps the generator, from which each pass draws the
        // workers' base seeds: those stay alike (co-tracker's `g.manual_seed(0)`).
        let draw = if super::training_support::managed(code, s, &loader_anc, call) {
            if !set_up_by_fabric(code, s, &loader_anc, call) {
                continue;
            }
            worker_draws(code, s, args)
        } else {
            draws(code, s, args)
        };
        let Some(draw) = draw else { continue };
        report(code, out, (*seed_scope, seed), value, (s, call), draw);
        // One finding for the seed, at the first loader it feeds.
        return;
    }
}

/// The argument the one call of the function around `seed` passes for
/// it, where `seed` is that function's parameter (a generator helper).
fn chosen_at<'p>(code: &Code<'p>, scope: Scope, seed: &'p Expr) -> Option<(Scope, &'p Expr)> {
    let prog = code.prog;
    let ExprKind::Name(n) = &seed.kind else { return None };
    let f = scope.func()?;
    let index = prog.func(f)?.params.iter().position(|p| p.name == *n)?;
    if prog.local_defs(f, n).iter().any(|d| !matches!(d, LocalDef::Param(_))) {
        return None;
    }
    let (site_scope, _, arg) = prog.sole_binding(f, index, None)?;
    Some((site_scope, arg))
}

/// Whether `seed` is read from the run's configuration only: an option of
/// the parser (`args.seed`), of the config Hydra composes (`cfg.seed`) or
/// of a config file the code loads (`OmegaConf.load(path).seed`), through
/// names and parameters — one value for every rank.
fn configured(code: &Code<'_>, scope: Scope, seed: &Expr) -> bool {
    let prog = code.prog;
    let sources = prog.sources(scope, seed);
    !sources.unknown
        && !sources.terms.is_empty()
        && sources.terms.iter().all(|t| {
            use crate::training::program::Proj;
            !t.proj.is_empty()
                && t.proj.iter().all(|p| matches!(p, Proj::Attr(_) | Proj::Key(_)))
                && runtime::run_configuration(prog, t)
        })
}

/// What a loader called with `args` draws from its generator, when that
/// makes ranks alike.
fn draws(code: &Code<'_>, scope: Scope, args: &[Arg]) -> Option<Draw> {
    let prog = code.prog;
    if args.iter().any(|a| matches!(a, Arg::Star(_) | Arg::StarStar(_))) {
        return None;
    }
    let truth = |e: &Expr| runtime::is_true(prog, code.cfg, code.rt, scope, e);
    let own_sampler = kw(args, "sampler").or_else(|| pos(args, 3)).is_some()
        || kw(args, "batch_sampler").or_else(|| pos(args, 4)).is_some();
    let shuffle = kw(args, "shuffle").or_else(|| pos(args, 2)).and_then(truth) == Some(true);
    let dataset = kw(args, "dataset").or_else(|| pos(args, 0));
    if shuffle && !own_sampler && !dataset.is_some_and(|d| rank_part(code, scope, d)) {
        return Some(Draw::Order);
    }
    worker_draws(code, scope, args)
}

/// [`draws`] of the workers only: a loader with workers, each pass drawing
/// their base seeds from its generator, where the training code draws
/// random numbers in them.
fn worker_draws(code: &Code<'_>, scope: Scope, args: &[Arg]) -> Option<Draw> {
    let prog = code.prog;
    if args.iter().any(|a| matches!(a, Arg::Star(_) | Arg::StarStar(_))) {
        return None;
    }
    let truth = |e: &Expr| runtime::is_true(prog, code.cfg, code.rt, scope, e);
    let workers = kw(args, "num_workers").or_else(|| pos(args, 5));
    let some_workers = workers
        .and_then(|w| runtime::constant_or_default(prog, code.cfg, code.rt, scope, w))
        .and_then(|r| r.ints())
        .is_some_and(|v| !v.is_empty() && v.iter().all(|n| *n > 0))
        // `persistent_workers=True` raises without workers.
        || kw(args, "persistent_workers").and_then(truth) == Some(true);
    (some_workers && draws_random_elsewhere(code, scope)).then_some(Draw::WorkerSeeds)
}

/// Whether the loader at `call` is handed to Lightning Fabric's (or Lite's)
/// `setup_dataloaders(…)`.
fn set_up_by_fabric<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], call: &'p Expr) -> bool {
    let mut found = false;
    code.prog.flows(scope, anc, call, &|_, _| false, &mut |flow| {
        if let Flow::Arg { call: c, .. } = flow {
            if let ExprKind::Call { func, .. } = &c.kind {
                found |= matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "setup_dataloaders");
            }
        }
    });
    found
}

/// Whether the dataset expression (or a local name's assignments) mentions
/// the rank: the rank's own part, shuffled alike harmlessly.
fn rank_part(code: &Code<'_>, scope: Scope, d: &Expr) -> bool {
    let prog = code.prog;
    if runtime::mentions_rank(prog, scope, d) {
        return true;
    }
    let (Some(f), ExprKind::Name(n)) = (scope.func(), &d.kind) else {
        return false;
    };
    prog.local_defs(f, n).iter().any(|def| match def {
        LocalDef::Assign { value, .. } => runtime::mentions_rank(prog, scope, value),
        _ => true,
    })
}

/// Whether some function of the training code other than `scope`'s draws
/// random numbers (`random.*`, `numpy.random.*`, `torch.rand*`): what loader
/// workers seeded alike would repeat.
fn draws_random_elsewhere(code: &Code<'_>, scope: Scope) -> bool {
    let prog = code.prog;
    let needles = [
        "random",
        "rand",
        "randint",
        "randn",
        "randperm",
        "bernoulli",
        "multinomial",
    ];
    for m in prog.code_modules() {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &needles).collect();
        for c in chunks {
            for s in prog.scopes(m, c) {
                if s.f.is_none() || s == scope {
                    continue;
                }
                let mut hit = false;
                prog.walk_exprs(s, &mut |_, e| {
                    if hit {
                        return;
                    }
                    let ExprKind::Call { func, .. } = &e.kind else { return };
                    if let Some(p) = prog.external(s, func) {
                        hit = super::training_support::draws_random(&p);
                    }
                });
                if hit {
                    return true;
                }
            }
        }
    }
    false
}

fn report(
    code: &Code<'_>,
    out: &mut Sink<'_>,
    (seed_scope, seed): (Scope, &Expr),
    value: Option<i64>,
    (loader_scope, loader): (Scope, &Expr),
    draw: Draw,
) {
    // `get_generator(cfg.seed)` → `g.manual_seed(seed)`: where the one
    // caller chooses the seed.
    let (seed_scope, seed) = chosen_at(code, seed_scope, seed).unwrap_or((seed_scope, seed));
    let text = excerpt(code.text(seed_scope.m, seed.span));
    let shown = match value {
        Some(v) if text == v.to_string() => text,
        Some(v) => format!("{text} = {v}"),
        None => format!("the run's configured seed (`{text}`)"),
    };
    let message = match draw {
        Draw::Order => format!(
            "this generator is seeded with {shown} on every rank and the DataLoader it is handed to shuffles with it: every rank draws the same order of the same dataset and reads the same batches"
        ),
        Draw::WorkerSeeds => format!(
            "this generator is seeded with {shown} on every rank and the DataLoader it is handed to draws each pass's worker seeds from it: worker k of every rank seeds torch, random and numpy alike, so the random augmentations the workers draw repeat across ranks"
        ),
    };
    let d = out.at_loc(code.loc(seed_scope.m, seed.span), message);
    d.label(
        code.file(loader_scope.m),
        loader.span,
        "the DataLoader that draws from it",
    );
    d.help("seed it differently on each data-parallel rank (add the rank to the seed), or, for a shuffle every rank must share, give the loader a DistributedSampler instead");
}
