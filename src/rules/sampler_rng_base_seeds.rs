//! T101 (`sampler-rng-shared-across-ranks`) on the workers' base seed: every
//! rank seeds torch's global RNG with the same value (`torch.manual_seed(0)`,
//! `seed_everything(cfg.seed)`), and a `DataLoader` with workers, no
//! `generator=` and no `worker_init_fn`, draws each pass's base seed from that
//! RNG. Worker k of every rank then seeds torch, `random` and numpy with the
//! same number (PyTorch seeds them from the base seed and the worker id), so
//! the random augmentations the dataset draws in the workers repeat across
//! ranks: rank 0's sample i and rank 1's sample j get the same crop, flip and
//! jitter.
//!
//! Reported where the workers are known to draw: the loader's dataset (a
//! training-code class, or a library dataset built with a transform) draws
//! random numbers or builds a random transform (`transforms.RandomResizedCrop`)
//! — also in the project's helper functions its methods call, and for a
//! class picked from a registry (`_DATASETS[name](…)`) only when every class
//! the registry holds draws — or, where the dataset cannot be followed (or
//! is looked up by name: `eval('datasets.' + cfg.DATASET)(…)`), a
//! training-code dataset class does; or where the loader's `collate_fn` (a
//! training-code function, or an instance of a class whose methods draw:
//! a masking collator) draws, which runs in the workers too. A count of 0 (the dataset draws in the
//! rank's own process) or one the code does not resolve is reported only
//! where the same function also seeds the RNG the draw reads (`random`,
//! numpy) alike on every rank — alike with workers or without — and not for
//! a test, an evaluation script, a program that runs no backward pass, a
//! seeding helper nothing calls, or a loader built in a function nothing
//! calls.
//! Silent otherwise for a worker count not known to be above 0, a loader with its
//! own generator or an init function that seeds from anything but the
//! base seed (one that only re-seeds from `torch.initial_seed()` leaves it
//! in charge, and is reported like no init function), one built on one rank, a loader that
//! shuffles itself (the rule's main check reports that; not one handed to a
//! Lightning Trainer's `fit`, which swaps the shuffle for its distributed
//! sampler and keeps the workers' seeds as torch makes them), one that shards for
//! you (`accelerator.prepare`, Fabric, Determined: equal seeds are their
//! design), Lightning's `seed_everything(…, workers=True)` (which gives each
//! rank's workers their own seeds), a seed that mixes in the rank, and code
//! that runs tensor or pipeline model parallelism (Megatron's data-parallel
//! rank, a model-parallel RNG): the ranks of a model-parallel group must
//! read the same samples, drawn alike.

use super::sampler_rng_shared_across_ranks::live;
use super::sampler_rng_workers::{alike_all, from_base_seed, worker_loaders, LoaderCall};
use super::training_support::{draws_random, excerpt, Code, ModelParallel, DET_LOADER};
use super::Sink;
use crate::source::Span;
use crate::training::ast::{Expr, ExprKind, StmtKind};
use crate::training::program::{walk_expr, Anc, ArgPos, Bound, Callee, ClassId, Flow, ModId, Node, Program, Scope};
use crate::training::runtime::{self, kw, pos, Seeding};
use crate::training::values::Const;

/// Most steps one question about a dataset's randomness takes.
const STEPS: u32 = 4096;

/// Where a loader's workers draw random numbers: the call, and what it is.
struct DrawSite {
    scope: Scope,
    span: Span,
    what: String,
    /// The draw's external path (`random.choice`, `torchvision.transforms.RandomCrop`).
    path: String,
}

/// The seeding calls of the global RNGs a draw at `path` reads, besides
/// torch's: Python's `random`, numpy's, both for augmentation libraries
/// that use either, none for torch and torchvision.
fn other_rngs(path: &str) -> &'static [&'static str] {
    if path.starts_with("random.") {
        &["random.seed"]
    } else if path.starts_with("numpy.random.") {
        &["numpy.random.seed"]
    } else if path.starts_with("torch.") || path.starts_with("torchvision.") {
        &[]
    } else {
        &["random.seed", "numpy.random.seed"]
    }
}

/// Whether module `m` is a test (`tests/…`, `test_*.py`) or an evaluation
/// or inference script (`eval_retrieval.py`, `infer.py`) that runs no
/// backward pass.
fn test_or_evaluation(code: &Code<'_>, m: ModId) -> bool {
    let prog = code.prog;
    let name = prog.module_name(m).to_ascii_lowercase();
    if name
        .split('.')
        .any(|s| s == "tests" || s == "test" || s.starts_with("test_"))
    {
        return true;
    }
    let file = name.rsplit('.').next().unwrap_or("");
    ["eval", "infer", "predict", "sample", "demo"]
        .iter()
        .any(|w| file.starts_with(w))
        && !file.contains("train")
        && !prog.text(m).contains(".backward(")
}

/// Whether some module of the programs module `m` runs in makes a
/// backward pass.
fn program_trains(code: &Code<'_>, m: ModId) -> bool {
    let prog = code.prog;
    prog.code_modules()
        .any(|x| (x == m || prog.same_program(x, m)) && prog.text(x).contains(".backward("))
}

/// Whether the function holding a torch seeding (`scope`) also seeds each
/// of `rngs` with a value that does not depend on the rank
/// (`random.seed(args.seed)` beside `torch.manual_seed(args.seed)`).
fn seeds_alike_beside(code: &Code<'_>, scope: Scope, rngs: &[&str]) -> bool {
    let prog = code.prog;
    rngs.iter().all(|rng| {
        let mut alike = false;
        prog.walk_exprs(scope, &mut |_, e| {
            if let ExprKind::Call { func, args, .. } = &e.kind {
                if prog.external(scope, func).as_deref() == Some(*rng) {
                    alike |= pos(args, 0).is_some_and(|a| !runtime::depends_on_rank(prog, scope, a));
                }
            }
        });
        alike
    })
}

pub(super) fn base_seeds_alike(code: &Code<'_>, seedings: &[(u64, Seeding)], out: &mut Sink<'_>) {
    let prog = code.prog;
    let mut reported: Vec<(Scope, Span)> = Vec::new();
    // Whether each seeding module's programs train, asked once per module
    // (the answer scans the text of every module of the program).
    let mut trains: std::collections::HashMap<ModId, bool> = Default::default();
    // Read once, where a loader seeded alike needs it.
    let model_parallel: std::cell::OnceCell<ModelParallel> = std::cell::OnceCell::new();
    for LoaderCall {
        scope,
        call,
        anc,
        args,
        workers,
    } in worker_loaders(code)
    {
        // The seedings of each program the loader runs in (a shared data
        // module's loader, built by scripts that each seed).
        let seeded: Vec<(u64, runtime::World, Scope, Span, Option<Span>)> = alike_all(code, seedings, scope.m)
            .into_iter()
            .filter_map(|(bit, world, s)| match s {
                Seeding::Call { scope, call, arg } => Some((bit, world, *scope, *call, *arg)),
                _ => None,
            })
            .collect();
        if seeded.is_empty() {
            continue;
        }
        // Model parallelism: the ranks of a tensor-parallel group must read
        // the same samples, drawn alike.
        if model_parallel
            .get_or_init(|| ModelParallel::of(code))
            .runs(code, scope.m)
        {
            continue;
        }
        // Its own generator or init function: what the workers are seeded
        // from is the code's choice, read by the other checks.
        let given = |name: &str, at: usize| {
            kw(args, name)
                .or_else(|| pos(args, at))
                .is_some_and(|e| !matches!(e.kind, ExprKind::None))
        };
        if given("generator", 12) {
            continue;
        }
        // An init function that only re-seeds from the worker's base seed
        // (`np.random.seed(torch.initial_seed() % 2**32)`) leaves the base
        // seed in charge; any other is the code's choice.
        let init = match kw(args, "worker_init_fn").or_else(|| pos(args, 10)) {
            Some(e) if !matches!(e.kind, ExprKind::None) => match from_base_seed(code, scope, e) {
                Some(name) => Some(name),
                None => continue,
            },
            _ => None,
        };
        // A loader that shuffles the whole dataset with the global RNG is the
        // main check's (every rank draws the same order) — unless a
        // Lightning Trainer takes it, which swaps its shuffle for a
        // distributed sampler and leaves the workers' seeds as they are.
        let own_sampler = given("sampler", 3) || given("batch_sampler", 4);
        let shuffles = kw(args, "shuffle")
            .or_else(|| pos(args, 2))
            .and_then(|e| runtime::is_true(prog, code.cfg, code.rt, scope, e))
            == Some(true);
        if shuffles && !own_sampler && !handed_to_lightning(code, scope, &anc, call) {
            continue;
        }
        // Read in a fixed order (`shuffle=False`, on the loader or its
        // sampler): an evaluation loader, whose draws do not train.
        if fixed_order(code, scope, args) {
            continue;
        }
        let resolved = runtime::constant_or_default(prog, code.cfg, code.rt, scope, workers)
            .and_then(|r| r.ints())
            .filter(|v| !v.is_empty());
        // No workers (`num_workers=0`, an argparse default of 0): the
        // dataset draws in the rank's own process, from the global RNGs.
        let zero = resolved.as_ref().is_some_and(|v| v.iter().all(|n| *n == 0));
        let count = resolved.filter(|v| v.iter().all(|n| *n >= 1));
        // A node's count shared out over its ranks, rounded up: 1 or more
        // on each, how many unknown.
        let count = count.or_else(|| {
            crate::rules::loader_workers_not_persistent::shared::node_total_at(code, scope, workers, workers.span)
                .filter(|n| *n >= 1)
                .map(|_| Vec::new())
        });
        // A count the code does not resolve (`Config(**vars(args))`): the
        // dataset draws in workers or in the rank's process, alike either
        // way where the RNGs it reads are all seeded alike.
        let (count, unknown) = match count {
            Some(c) => (c, false),
            None if zero => (vec![0], false),
            None => (vec![-1], true),
        };
        // Where the draws are the rank's own (no workers, or a count not
        // known), a test or an evaluation script's loader trains nothing.
        if (zero || unknown) && test_or_evaluation(code, scope.m) {
            continue;
        }
        // Nor a loader of a plain function nothing calls (a detection
        // package's test-loader builder that the package only exports).
        if (zero || unknown)
            && scope
                .func()
                .is_some_and(|f| prog.class_of(f).is_none() && prog.call_sites(f).is_empty() && !prog.escapes(f))
        {
            continue;
        }
        let Some(call_expr) = loader_call(prog, scope, args) else {
            continue;
        };
        let Some(anc) = prog.ancestors_of(scope, call_expr) else {
            continue;
        };
        if !live(code, scope, &anc, call_expr)
            || runtime::runs_on_one_rank(prog, scope, &anc, call_expr as *const Expr as *const ())
            || sharded_for_you(code, scope, &anc, call_expr)
        {
            continue;
        }
        let Some(dataset) = kw(args, "dataset").or_else(|| pos(args, 0)) else {
            continue;
        };
        // What the dataset draws, else what the batches' collate function
        // draws (a masking collator's `np.random.permutation`), which runs
        // where the dataset's items are fetched.
        let collate = kw(args, "collate_fn").or_else(|| pos(args, 5));
        let Some((draw, by)) = workers_draw(prog, scope, dataset).map(|d| (d, "dataset")).or_else(|| {
            collate
                .and_then(|c| collate_draws(prog, scope, c))
                .map(|d| (d, "collate_fn"))
        }) else {
            continue;
        };
        for (bit, world, seed_scope, call, arg) in seeded {
            // Reported once where the seed is chosen: the seeding itself,
            // or the call of the seeding helper in this program (a data
            // module shared by two scripts that each call
            // `set_random_seed(args.seed)`: at each script's call).
            let at = outer_call(code, seed_scope, arg, Some(bit))
                .or_else(|| caller_call(code, seed_scope, arg, bit, scope))
                .unwrap_or((seed_scope, call));
            if reported.contains(&at) || workers_seeded_apart(code, seed_scope, call) {
                continue;
            }
            // In the rank's own process the draw reads its own library's
            // RNG: that one must be seeded alike too.
            // The seeding of a test or evaluation script, or of a program
            // that runs no backward pass (a FLOPs counter), trains nothing.
            if (zero || unknown)
                && (!seeds_alike_beside(code, seed_scope, other_rngs(&draw.path))
                    || test_or_evaluation(code, seed_scope.m)
                    || !*trains
                        .entry(seed_scope.m)
                        .or_insert_with(|| program_trains(code, seed_scope.m))
                    || seed_scope.func().is_some_and(|f| prog.call_sites(f).is_empty()))
            {
                continue;
            }
            reported.push(at);
            report(
                code,
                out,
                (seed_scope, call, arg, at),
                (scope, call_expr),
                (&count, init.as_deref()),
                (&draw, by),
                world,
            );
        }
    }
}

/// A dataset whose constructor seeds a global RNG with a constant
/// (`random.seed(1234)` in HiFi-GAN-style `__init__`s), read by a loader
/// without workers on every rank of a multi-rank program: the draws of its
/// items (`random.randint` for the crop) come from that RNG in the rank's
/// own process, so every rank draws the same numbers. With workers, torch
/// reseeds `random`, numpy and torch in each worker from its base seed, and
/// the other checks read that.
pub(super) fn constructor_seeds_alike(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    // Most code seeds in no constructor: nothing to follow then.
    let in_constructors = runtime::calls(prog, &["random.seed", "numpy.random.seed", "torch.manual_seed"])
        .iter()
        .any(|(s, ..)| {
            s.func()
                .and_then(|f| prog.func(f))
                .is_some_and(|x| x.name == "__init__")
        });
    if !in_constructors {
        return;
    }
    let mut reported: Vec<Span> = Vec::new();
    for (scope, anc, call, _) in runtime::calls(prog, &["torch.utils.data.DataLoader"]) {
        if !code.rt.world_at(prog, scope.m).distributed() {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        if runtime::has_splat(args) {
            continue;
        }
        // No workers: `num_workers=0`, or left out.
        let zero = match kw(args, "num_workers").or_else(|| pos(args, 5)) {
            None => true,
            Some(w) => runtime::constant_or_default(prog, code.cfg, code.rt, scope, w)
                .and_then(|r| r.ints())
                .is_some_and(|v| !v.is_empty() && v.iter().all(|n| *n == 0)),
        };
        if !zero
            || !live(code, scope, &anc, call)
            || runtime::runs_on_one_rank(prog, scope, &anc, call as *const Expr as *const ())
            || sharded_for_you(code, scope, &anc, call)
            || test_or_evaluation(code, scope.m)
        {
            continue;
        }
        let Some(dataset) = kw(args, "dataset").or_else(|| pos(args, 0)) else {
            continue;
        };
        for t in prog.sources(scope, dataset).terms.iter().take(4) {
            let ExprKind::Call { func, .. } = &t.expr.kind else {
                continue;
            };
            let Callee::Class(k) = prog.callee(t.scope, func) else {
                continue;
            };
            let Some((seed_scope, seed_call, module)) = constructor_seed(code, k) else {
                continue;
            };
            if reported.contains(&seed_call.span) {
                continue;
            }
            let mut steps = STEPS;
            let Some(draw) = class_draws(prog, k, 0, &mut steps, &fixed_attrs(prog, k, t.expr)) else {
                continue;
            };
            if !draw.path.starts_with(module) {
                continue;
            }
            reported.push(seed_call.span);
            let class = prog.class(k).map_or(String::new(), |c| c.name.clone());
            let d = out.at_loc(
                code.loc(seed_scope.m, seed_call.span),
                format!(
                    "`{}` in `{class}.__init__` seeds the same constant on every rank, and the DataLoader reads the dataset without workers: what its items draw (`{}`) comes from that RNG in each rank's own process, so every rank draws the same numbers for its own samples",
                    excerpt(code.text(seed_scope.m, seed_call.span)),
                    draw.what
                ),
            );
            d.label(code.file(scope.m), call.span, "read here without workers");
            d.label(code.file(draw.scope.m), draw.span, "drawn here");
            d.help("seed with a value that differs per rank (`random.seed(1234 + rank)`), or leave the seeding to the program's own, per-rank choice");
        }
    }
}

/// A seeding of a global RNG with an integer literal in the constructor of
/// class `k` (or a base's): its scope, the call, and the prefix of the
/// draws it seeds (`random.`, `numpy.random.`, `torch.`).
fn constructor_seed<'p>(code: &Code<'p>, k: ClassId) -> Option<(Scope, &'p Expr, &'static str)> {
    let prog = code.prog;
    let init = prog.method(k, "__init__")?;
    let scope = init.scope();
    let mut found = None;
    prog.walk_exprs(scope, &mut |anc, e| {
        if found.is_some() {
            return;
        }
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return;
        };
        let module = match prog.external(scope, func).as_deref() {
            Some("random.seed") => "random.",
            Some("numpy.random.seed") => "numpy.random.",
            Some("torch.manual_seed") => "torch.",
            _ => return,
        };
        let literal =
            matches!(args.as_slice(), [crate::training::ast::Arg::Pos(a)] if matches!(a.kind, ExprKind::Int(_)));
        if literal
            && !anc
                .iter()
                .any(|a| matches!(a, Anc::Stmt(st) if matches!(st.kind, StmtKind::If { .. })))
        {
            found = Some((scope, e, module));
        }
    });
    found
}

/// Whether the loader, or the sampler it is given, is told not to shuffle.
fn fixed_order(code: &Code<'_>, scope: Scope, args: &[crate::training::ast::Arg]) -> bool {
    let prog = code.prog;
    let off = |s: Scope, a: &[crate::training::ast::Arg]| {
        kw(a, "shuffle").and_then(|e| runtime::is_true(prog, code.cfg, code.rt, s, e)) == Some(false)
    };
    // With a sampler the loader's own `shuffle=False` is required, and
    // says nothing: the sampler's order counts.
    let Some(sampler) = kw(args, "sampler").or_else(|| kw(args, "batch_sampler")) else {
        return off(scope, args);
    };
    let sources = prog.sources(scope, sampler);
    !sources.unknown
        && !sources.terms.is_empty()
        && sources.terms.iter().all(|t| match &t.expr.kind {
            ExprKind::Call { args, .. } if t.proj.is_empty() => off(t.scope, args),
            _ => false,
        })
}

/// The `DataLoader(…)` call whose arguments are `args`.
fn loader_call<'p>(prog: &'p Program, scope: Scope, args: &'p [crate::training::ast::Arg]) -> Option<&'p Expr> {
    let mut found = None;
    prog.walk_exprs(scope, &mut |_, e| {
        if let ExprKind::Call { args: a, .. } = &e.kind {
            if std::ptr::eq(a.as_slice(), args) {
                found = Some(e);
            }
        }
    });
    found
}

/// Lightning's `seed_everything(…, workers=True)` (or `PL_SEED_WORKERS` set
/// in the code): each rank's workers get seeds of their own.
fn workers_seeded_apart(code: &Code<'_>, scope: Scope, call: Span) -> bool {
    let prog = code.prog;
    let mut apart = false;
    prog.walk_exprs(scope, &mut |_, e| {
        if e.span != call {
            return;
        }
        if let ExprKind::Call { args, .. } = &e.kind {
            apart = kw(args, "workers")
                .or_else(|| pos(args, 1))
                .is_some_and(|w| runtime::is_true(prog, code.cfg, code.rt, scope, w) != Some(false));
        }
    });
    apart
        || prog
            .code_modules()
            .any(|m| prog.chunks_mentioning(m, &["PL_SEED_WORKERS"]).next().is_some())
}

/// Whether the loader built with `args` in `scope` is handed to a Lightning
/// Trainer's `fit` (`trainer.fit(model, loader)`, `train_dataloaders=`)
/// that puts its distributed sampler in (`use_distributed_sampler` left on).
fn handed_to_lightning<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], loader: &'p Expr) -> bool {
    let mut yes = false;
    let no = |_: &Callee, _: &ArgPos<'_>| false;
    code.prog.flows(scope, anc, loader, &no, &mut |flow| {
        if let Flow::Arg { scope, call, .. } = flow {
            yes |= super::training_support::lightning_takes(code, scope, call, &["fit"]);
        }
    });
    yes
}

/// Handed to something that shards and seeds for the ranks together:
/// `accelerator.prepare`, Fabric's `setup_dataloaders`, Determined.
fn sharded_for_you<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], loader: &'p Expr) -> bool {
    let prog = code.prog;
    let mut yes = false;
    let no = |_: &Callee, _: &ArgPos<'_>| false;
    prog.flows(scope, anc, loader, &no, &mut |flow| {
        if let Flow::Arg { scope, call, .. } = flow {
            if let ExprKind::Call { func, .. } = &call.kind {
                if let ExprKind::Attribute { attr, .. } = &func.kind {
                    yes |= matches!(attr.as_str(), "prepare" | "prepare_data_loader" | "setup_dataloaders");
                }
                if let Some(p) = prog.external(scope, func) {
                    yes |= p.starts_with("accelerate.") || p.starts_with("lightning.fabric") || p == DET_LOADER;
                }
            }
        }
    });
    yes
}

/// Whether a call to the external `path` draws random numbers, or builds a
/// transform that draws them each time it runs.
fn draws(path: &str) -> bool {
    draws_random(path) || random_transform(path)
}

/// Whether `path` builds a transform that draws random numbers each time it
/// is applied (where a dataset applies it: in the workers).
fn random_transform(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path);
    if path.starts_with("torchvision.transforms.") {
        return last.starts_with("Random")
            || matches!(
                last,
                "ColorJitter" | "RandAugment" | "AutoAugment" | "TrivialAugmentWide" | "AugMix" | "ElasticTransform"
            );
    }
    if path.starts_with("albumentations.") {
        return last.starts_with("Random")
            || last.ends_with("Flip")
            || last == "ShiftScaleRotate"
            || last == "ColorJitter";
    }
    path == "timm.data.create_transform"
}

/// Where the workers of a loader over `dataset` draw random numbers: the
/// dataset's construction (its class's methods, its transforms), or, where
/// that cannot be followed, a training-code dataset class that draws.
fn workers_draw(prog: &Program, scope: Scope, dataset: &Expr) -> Option<DrawSite> {
    let mut steps = STEPS;
    let sources = prog.sources(scope, dataset);
    let built = sources
        .terms
        .iter()
        .any(|t| matches!(t.expr.kind, ExprKind::Call { .. }));
    if let Some(d) = expr_draws(prog, scope, dataset, 0, &mut steps) {
        return Some(d);
    }
    // `train_dataset.transform = transforms.Compose([RandomResizedCrop(…), …])`
    // after the dataset is made (swav's linear evaluation).
    if let ExprKind::Name(n) = &dataset.kind {
        let mut set: Vec<&Expr> = Vec::new();
        prog.walk_stmts(scope, &mut |_, st| {
            if let StmtKind::Assign { targets, value } = &st.kind {
                let on_dataset = targets.iter().any(|t| {
                    matches!(&t.kind, ExprKind::Attribute { value: v, attr }
                        if matches!(attr.as_str(), "transform" | "transforms")
                            && matches!(&v.kind, ExprKind::Name(x) if x == n))
                });
                if on_dataset {
                    set.push(value);
                }
            }
        });
        if let Some(d) = set.into_iter().find_map(|v| expr_draws(prog, scope, v, 0, &mut steps)) {
            return Some(d);
        }
    }
    // Built from a name looked up at run time (`eval('datasets.' +
    // cfg.DATASET)(…)`, `getattr(datasets, name)(…)`): one of the training
    // code's dataset classes, not known which.
    let by_name = sources.terms.iter().any(|t| match &t.expr.kind {
        ExprKind::Call { func, .. } => match &func.kind {
            ExprKind::Call { func: lookup, .. } => matches!(
                prog.external(t.scope, lookup).as_deref(),
                Some("builtins.eval" | "builtins.getattr")
            ),
            _ => false,
        },
        _ => false,
    });
    if sources.unknown || !built || by_name {
        return any_dataset_draws(prog, &mut steps);
    }
    None
}

/// A random draw of the loader's collate function, which runs where the
/// dataset's items are fetched (in the workers): a training-code function
/// that draws (or calls a helper that does), or an instance of a
/// training-code class that does (a masking collator's `__call__`).
fn collate_draws(prog: &Program, scope: Scope, collate: &Expr) -> Option<DrawSite> {
    let mut steps = STEPS;
    // An instance's `__call__` (the name bound to one) reaches its class's
    // other methods.
    if let Callee::Func(f) = prog.callee(scope, collate) {
        return match prog.class_of(f) {
            Some(k) => class_draws(prog, k, 0, &mut steps, &[]),
            None => scope_draws(prog, f.scope(), false, &mut steps),
        };
    }
    let sources = prog.sources(scope, collate);
    if sources.unknown {
        return None;
    }
    sources.terms.iter().find_map(|t| {
        let ExprKind::Call { func, .. } = &t.expr.kind else {
            return None;
        };
        if !t.proj.is_empty() {
            return None;
        }
        match prog.callee(t.scope, func) {
            // Its methods (what `__call__` reaches), not its construction.
            Callee::Class(k) if prog.method(k, "__call__").is_some() => class_draws(prog, k, 0, &mut steps, &[]),
            _ => None,
        }
    })
}

/// A random draw in `e` or in what it is built from (followed `depth`
/// levels through names, calls and classes).
fn expr_draws(prog: &Program, scope: Scope, e: &Expr, depth: u32, steps: &mut u32) -> Option<DrawSite> {
    if depth > 3 || *steps == 0 {
        return None;
    }
    let mut found = None;
    let mut names: Vec<&Expr> = Vec::new();
    // Each call, and whether it sits in a lambda (run where the value is
    // applied: in the workers, for a transform).
    let mut calls: Vec<(&Expr, bool)> = Vec::new();
    let mut stack = Vec::new();
    walk_expr(e, &mut stack, &mut |anc, node| {
        let Node::Expr(x) = node else { return };
        match &x.kind {
            ExprKind::Call { .. } => {
                let lambda = anc
                    .iter()
                    .any(|a| matches!(a, Anc::Expr(p) if matches!(p.kind, ExprKind::Lambda(_))));
                calls.push((x, lambda));
            }
            ExprKind::Name(_) => {
                // Not the callee of a call: that is asked about as the call.
                let callee = matches!(anc.last(), Some(Anc::Expr(p)) if matches!(&p.kind, ExprKind::Call { func, .. } if std::ptr::eq(&**func, x)));
                if !callee {
                    names.push(x);
                }
            }
            _ => {}
        }
    });
    for (c, lambda) in calls {
        *steps = steps.saturating_sub(1);
        if *steps == 0 {
            return None;
        }
        let ExprKind::Call { func, .. } = &c.kind else { continue };
        // `_DATASETS[name](path, split)`: a class picked from a registry
        // draws when every class it may pick does.
        if let Some(classes) = prog.registry_classes(scope, func) {
            let mut first = None;
            for k in classes {
                match class_draws(prog, k, 0, steps, &[]) {
                    Some(d) => first = first.or(Some(d)),
                    None => {
                        first = None;
                        break;
                    }
                }
            }
            if first.is_some() {
                return first;
            }
            continue;
        }
        match prog.callee(scope, func) {
            // A draw while the dataset is built runs in the rank's process;
            // a random transform built then, or a draw in a lambda, runs in
            // the workers.
            Callee::External(p) if random_transform(&p) || (lambda && draws(&p)) => {
                found = Some(DrawSite {
                    scope,
                    span: c.span,
                    what: excerpt(prog.text(scope.m).get(func.span.start..func.span.end).unwrap_or("")),
                    path: p,
                });
            }
            Callee::Class(k) => found = class_draws(prog, k, 0, steps, &fixed_attrs(prog, k, c)),
            Callee::Func(f) => {
                found = scope_draws(prog, f.scope(), true, steps).or_else(|| {
                    prog.returns(f)
                        .into_iter()
                        .find_map(|r| expr_draws(prog, f.scope(), r, depth + 1, steps))
                });
            }
            _ => {}
        }
        if found.is_some() {
            return found;
        }
    }
    for n in names {
        let s = prog.sources(scope, n);
        for t in &s.terms {
            if std::ptr::eq(t.expr, n) {
                continue;
            }
            if let Some(d) = expr_draws(prog, t.scope, t.expr, depth + 1, steps) {
                return Some(d);
            }
        }
        // A list of transforms grown in place (`ts = []`, then `ts +=
        // [RandomResizedCrop(…)]`, `ts.append(…)`): what it is grown with.
        if let ExprKind::Name(name) = &n.kind {
            for added in list_additions(prog, scope, name) {
                if let Some(d) = expr_draws(prog, scope, added, depth + 1, steps) {
                    return Some(d);
                }
            }
        }
    }
    None
}

/// What a local list `name` of `scope` is grown with: the right side of
/// `name += …`, the arguments of `name.append(…)`, `.extend(…)`,
/// `.insert(…)`.
fn list_additions<'p>(prog: &'p Program, scope: Scope, name: &str) -> Vec<&'p Expr> {
    let mut out = Vec::new();
    prog.walk_stmts(scope, &mut |_, st| match &st.kind {
        StmtKind::AugAssign { target, op, value } if op == "+=" => {
            if matches!(&target.kind, ExprKind::Name(t) if t == name) {
                out.push(value);
            }
        }
        StmtKind::Expr(e) => {
            if let ExprKind::Call { func, args, .. } = &e.kind {
                if let ExprKind::Attribute { value, attr } = &func.kind {
                    if matches!(&value.kind, ExprKind::Name(t) if t == name)
                        && matches!(attr.as_str(), "append" | "extend" | "insert")
                    {
                        out.extend(args.iter().map(|a| match a {
                            crate::training::ast::Arg::Pos(e)
                            | crate::training::ast::Arg::Star(e)
                            | crate::training::ast::Arg::StarStar(e)
                            | crate::training::ast::Arg::Kw { value: e, .. } => e,
                        }));
                    }
                }
            }
        }
        _ => {}
    });
    out
}

/// A random draw in a function's body; with `built_only`, only a random
/// transform built there (a constructor runs in the rank's process, the
/// transforms it builds in the workers). Otherwise the training-code
/// functions it calls are searched too, two calls deep (a dataset's
/// `_prepare_im` calling `transforms.random_sized_crop`, which draws).
fn scope_draws(prog: &Program, scope: Scope, built_only: bool, steps: &mut u32) -> Option<DrawSite> {
    helper_draws(prog, scope, built_only, 0, steps, &|_, _, _| false, true)
}

/// `skip`: draws that repeat nothing across ranks (by path and call).
fn helper_draws(
    prog: &Program,
    scope: Scope,
    built_only: bool,
    depth: u32,
    steps: &mut u32,
    skip: &dyn Fn(&str, &Expr, &[Anc<'_>]) -> bool,
    transforms_too: bool,
) -> Option<DrawSite> {
    let mut found = None;
    let mut helpers: Vec<Scope> = Vec::new();
    let mut transforms: Vec<ClassId> = Vec::new();
    prog.walk_exprs(scope, &mut |anc, e| {
        if found.is_some() || *steps == 0 {
            return;
        }
        *steps -= 1;
        let ExprKind::Call { func, .. } = &e.kind else { return };
        if let Some(p) = prog.external(scope, func) {
            if if built_only { random_transform(&p) } else { draws(&p) } && !skip(&p, e, anc) {
                found = Some(DrawSite {
                    scope,
                    span: e.span,
                    what: excerpt(prog.text(scope.m).get(func.span.start..func.span.end).unwrap_or("")),
                    path: p,
                });
            }
        } else if depth < 2 {
            match prog.callee(scope, func) {
                // A module-level helper (methods of the class are searched
                // as the class is).
                Callee::Func(f)
                    if !built_only
                        && prog.class_of(f).is_none()
                        && !helpers.contains(&f.scope())
                        && f.scope() != scope =>
                {
                    helpers.push(f.scope());
                }
                // A transform of the training code built here (`Compose([
                // RandomFlip(), …])`, an instance with `__call__`): it is
                // applied where the samples are made, in the workers.
                Callee::Class(k)
                    if transforms_too
                        && !built_only
                        && prog.method(k, "__call__").is_some()
                        && !transforms.contains(&k) =>
                {
                    transforms.push(k);
                }
                _ => {}
            }
        }
    });
    if found.is_some() {
        return found;
    }
    helpers
        .into_iter()
        .find_map(|h| helper_draws(prog, h, built_only, depth + 1, steps, skip, transforms_too))
        .or_else(|| transforms.into_iter().find_map(|k| transform_draws(prog, k, steps)))
}

/// A random draw where an instance of the training code's transform class
/// `k` is applied: its `__call__`, and the helpers that calls (not the
/// transforms it builds in turn).
fn transform_draws(prog: &Program, k: ClassId, steps: &mut u32) -> Option<DrawSite> {
    let call = prog.method(k, "__call__")?;
    helper_draws(prog, call.scope(), false, 0, steps, &|_, _, _| false, false)
}

/// A random draw in a training-code class's methods or its bases'.
/// `fixed`: the attributes the construction fixes (see [`fixed_attrs`]);
/// a draw in an arm they rule out (`if self.mode == 'train':` in a dataset
/// built with `mode="test"`) does not count.
fn class_draws(
    prog: &Program,
    k: ClassId,
    depth: u32,
    steps: &mut u32,
    fixed: &[(String, String)],
) -> Option<DrawSite> {
    if depth > 3 {
        return None;
    }
    prog.class(k)?;
    let methods = prog.own_methods(k);
    let apart = DrawnApart::of(prog, &methods);
    let skip = |p: &str, e: &Expr, anc: &[Anc<'_>]| {
        apart.skips(p, e)
            || (!fixed.is_empty()
                && prog
                    .stmt_of(anc)
                    .is_some_and(|st| runtime::dead_branch_by(anc, st, &|test| fixed_test(test, fixed))))
    };
    // PyTorch Geometric's datasets build their files once, in the rank's
    // own process (`process()`, `download()`), before any loader runs.
    let pyg = prog.external_bases(k).iter().any(|b| b.starts_with("torch_geometric."));
    for id in methods {
        // Construction runs in the rank's own process, not in a
        // worker: only the random transforms it builds count.
        let built_only = construction_only(prog, id, 0)
            || prog.func(id).is_some_and(|x| {
                pyg && matches!(
                    x.name.as_str(),
                    "process" | "download" | "raw_file_names" | "processed_file_names"
                )
            });
        if let Some(d) = helper_draws(prog, id.scope(), built_only, 0, steps, &skip, true) {
            return Some(d);
        }
    }
    prog.bases(k)
        .into_iter()
        .find_map(|b| class_draws(prog, b, depth + 1, steps, fixed))
}

/// Whether method `f` runs only while the dataset is built or measured, in
/// the rank's own process: `__init__`, `__len__`, `__repr__`, or a helper
/// only they call (`self.inter_data = self._process_test_data()` in
/// `__init__`), a couple of calls down.
fn construction_only(prog: &Program, f: crate::training::program::FuncId, depth: u32) -> bool {
    let Some(func) = prog.func(f) else { return false };
    if matches!(func.name.as_str(), "__init__" | "__len__" | "__repr__") {
        return true;
    }
    if depth >= 2 || func.name.starts_with("__") || prog.escapes(f) {
        return false;
    }
    let sites = prog.call_sites(f);
    !sites.is_empty()
        && sites.len() <= 8
        && sites.iter().all(|(s, _)| {
            s.func()
                .is_some_and(|g| g != f && construction_only(prog, g, depth + 1))
        })
}

/// The attributes a construction `call` of class `k` fixes to a string:
/// `self.mode = mode` in `__init__`, where the call passes `mode="test"`
/// (or leaves a literal default). At most a few.
fn fixed_attrs(prog: &Program, k: ClassId, call: &Expr) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(init) = prog.method(k, "__init__") else {
        return out;
    };
    let Some(func) = prog.func(init) else { return out };
    prog.walk_stmts(init.scope(), &mut |_, st| {
        let StmtKind::Assign { targets, value } = &st.kind else {
            return;
        };
        let ExprKind::Name(param) = &value.kind else { return };
        let Some(index) = func.params.iter().position(|p| p.name == *param) else {
            return;
        };
        for t in targets {
            let ExprKind::Attribute { value: me, attr } = &t.kind else {
                continue;
            };
            if !matches!(&me.kind, ExprKind::Name(n) if n == "self") || out.len() >= 4 {
                continue;
            }
            if let Bound::Given(v) | Bound::Default(v) = prog.bind(init, call, index) {
                if let ExprKind::Str(lit) = &v.kind {
                    out.push((attr.clone(), lit.clone()));
                }
            }
        }
    });
    // An attribute assigned twice is not fixed by the call.
    let mut kept: Vec<(String, String)> = Vec::new();
    for (a, v) in &out {
        if out.iter().filter(|(b, _)| b == a).count() == 1 {
            kept.push((a.clone(), v.clone()));
        }
    }
    kept
}

/// The truth of a test on a fixed attribute (`self.mode == 'train'`,
/// `self.split != "test"`, `self.mode in ("train", "trainval")`).
fn fixed_test(test: &Expr, fixed: &[(String, String)]) -> Option<bool> {
    let ExprKind::Compare { left, rest } = &test.kind else {
        return None;
    };
    let [(op, right)] = rest.as_slice() else { return None };
    let attr_of = |e: &Expr| match &e.kind {
        ExprKind::Attribute { value, attr } if matches!(&value.kind, ExprKind::Name(n) if n == "self") => {
            fixed.iter().find(|(a, _)| a == attr).map(|(_, v)| v.as_str())
        }
        _ => None,
    };
    fn lit(e: &Expr) -> Option<&str> {
        match &e.kind {
            ExprKind::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }
    let (value, other) = match (attr_of(left), attr_of(right)) {
        (Some(v), None) => (v, right),
        (None, Some(v)) if op != "in" && op != "not in" => (v, &**left),
        _ => return None,
    };
    match op.as_str() {
        "==" => lit(other).map(|l| l == value),
        "!=" => lit(other).map(|l| l != value),
        "in" | "not in" => {
            let (ExprKind::Tuple(items) | ExprKind::List(items)) = &other.kind else {
                return None;
            };
            let lits: Option<Vec<&str>> = items.iter().map(lit).collect();
            let inside = lits?.contains(&value);
            Some(if op == "in" { inside } else { !inside })
        }
        _ => None,
    }
}

/// What a dataset class's methods draw that repeats nothing across ranks
/// although every rank's workers start from the same seeds: the draws of
/// a generator the class reseeds from the system's entropy
/// (`random.seed(None)`, `np.random.seed()`), and a shuffle of a list
/// the class cuts to this rank's share (`self.data =
/// self.data[rank::world]`): each rank orders other samples.
///
/// Nor a shuffle that decides the order the loader workers take their
/// parts of (a worker-splitting `__iter__` shuffling `self.files` and
/// reading `self.files[idx]`, or a helper it calls storing its shuffled
/// lists there): that order must be the same on every rank.
struct DrawnApart {
    /// `random.`, `numpy.random.`: the generators reseeded from entropy.
    reseeded: Vec<&'static str>,
    /// The attributes of `self` sliced from the rank.
    sharded: Vec<String>,
    /// The shuffles ordering the records a worker-splitting `__iter__`
    /// takes its part of (see [`super::sampler_rng_workers::worker_split_shuffles`]).
    split_shuffles: Vec<Span>,
}

impl DrawnApart {
    fn of(prog: &Program, methods: &[crate::training::program::FuncId]) -> Self {
        let mut me = DrawnApart {
            reseeded: Vec::new(),
            sharded: Vec::new(),
            split_shuffles: Vec::new(),
        };
        for id in methods {
            me.worker_split(prog, *id);
            let scope = id.scope();
            prog.walk_exprs(scope, &mut |_, e| {
                let ExprKind::Call { func, args, .. } = &e.kind else {
                    return;
                };
                let Some(p) = prog.external(scope, func) else { return };
                let from_entropy = match args.as_slice() {
                    [] => true,
                    [crate::training::ast::Arg::Pos(a)] => matches!(a.kind, ExprKind::None),
                    _ => false,
                };
                let module = match p.as_str() {
                    "random.seed" => "random.",
                    "numpy.random.seed" => "numpy.random.",
                    _ => return,
                };
                if from_entropy && !me.reseeded.contains(&module) {
                    me.reseeded.push(module);
                }
            });
            prog.walk_stmts(scope, &mut |_, st| {
                let StmtKind::Assign { targets, value } = &st.kind else {
                    return;
                };
                let ExprKind::Subscript { index, .. } = &value.kind else {
                    return;
                };
                let ExprKind::Slice { lower: Some(lower), .. } = &index.kind else {
                    return;
                };
                if !runtime::mentions_rank(prog, scope, lower) {
                    return;
                }
                for t in targets {
                    if let ExprKind::Attribute { value: me_, attr } = &t.kind {
                        if matches!(&me_.kind, ExprKind::Name(n) if n == "self") && !me.sharded.contains(attr) {
                            me.sharded.push(attr.clone());
                        }
                    }
                }
            });
        }
        me
    }

    /// The shuffles that order the records `__iter__` (`id`) takes its
    /// worker's part of.
    fn worker_split(&mut self, prog: &Program, id: crate::training::program::FuncId) {
        self.split_shuffles
            .extend(super::sampler_rng_workers::worker_split_shuffles(prog, id));
    }

    fn skips(&self, path: &str, call: &Expr) -> bool {
        if self.reseeded.iter().any(|m| path.starts_with(m)) {
            return true;
        }
        if !matches!(path, "random.shuffle" | "numpy.random.shuffle") {
            return false;
        }
        if self.split_shuffles.contains(&call.span) {
            return true;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            return false;
        };
        matches!(args.first(), Some(crate::training::ast::Arg::Pos(a))
            if matches!(&a.kind, ExprKind::Attribute { value, attr }
                if matches!(&value.kind, ExprKind::Name(n) if n == "self") && self.sharded.contains(attr)))
    }
}

/// A training-code dataset class (deriving from torch's `Dataset` or
/// `IterableDataset`) whose methods draw random numbers.
fn any_dataset_draws(prog: &Program, steps: &mut u32) -> Option<DrawSite> {
    for k in prog.classes_mentioning(&["Dataset"]) {
        if !prog.derives_from(k, &["torch.utils.data.Dataset", "torch.utils.data.IterableDataset"]) {
            continue;
        }
        if let Some(d) = class_draws(prog, k, 0, steps, &[]) {
            return Some(d);
        }
    }
    None
}

fn report(
    code: &Code<'_>,
    out: &mut Sink<'_>,
    (seed_scope, call, arg, (at_scope, at)): (Scope, Span, Option<Span>, (Scope, Span)),
    (loader_scope, loader): (Scope, &Expr),
    (count, init): (&[i64], Option<&str>),
    (draw, by): (&DrawSite, &str),
    world: runtime::World,
) {
    let prog = code.prog;
    let seeding = excerpt(code.text(at_scope.m, at));
    let value = arg
        .and_then(|a| {
            let mut v = None;
            prog.walk_exprs(seed_scope, &mut |_, e| {
                if e.span == a && v.is_none() {
                    v = runtime::constant(prog, code.cfg, code.rt, seed_scope, e).and_then(|r| r.single().cloned());
                }
            });
            v
        })
        .and_then(|c| match c {
            Const::Int(i) => Some(format!(" (= {i})")),
            _ => None,
        })
        .unwrap_or_default();
    let workers = match count {
        [n] => format!("{n} workers"),
        _ => "workers".to_string(),
    };
    let ranks = match world {
        runtime::World::Ranks(Some(n)) => format!("all {n} ranks"),
        _ => "every rank".to_string(),
    };
    let given = match init {
        Some(f) => format!("no generator=; its worker_init_fn `{f}` seeds from torch.initial_seed(), which is that base seed plus the worker id"),
        None => "no generator=, no worker_init_fn".to_string(),
    };
    let message = if count == [-1] {
        format!(
            "`{seeding}` seeds the global RNGs with the same value{value} on {ranks}, and what the DataLoader's {by} draws at random (`{}`) comes from them whatever its worker count: in the workers, whose base seeds are drawn from that torch RNG, or, with num_workers=0, in the rank's own process; either way each rank's draws repeat the other ranks'",
            draw.what
        )
    } else if count == [0] {
        format!(
            "`{seeding}` seeds the global RNGs with the same value{value} on {ranks}, and the DataLoader with num_workers=0 runs its {by} in each rank's own process, where what it draws at random (`{}`) comes from those RNGs: each rank's i-th sample gets the draws of every other rank's i-th sample",
            draw.what
        )
    } else {
        format!(
            "`{seeding}` seeds torch's global RNG with the same value{value} on {ranks}, and the DataLoader with {workers} ({given}) draws each pass's worker base seed from it: worker k of every rank seeds torch, random and numpy alike, so what its {by} draws at random (`{}`) repeats across ranks",
            draw.what
        )
    };
    let d = out.at_loc(code.loc(at_scope.m, at), message);
    if at != call || at_scope != seed_scope {
        d.label(code.file(seed_scope.m), call, "seeds the global RNG with it");
    }
    if count == [0] || count == [-1] {
        d.label(code.file(loader_scope.m), loader.span, "the loader over that dataset");
        d.label(code.file(draw.scope.m), draw.span, "drawn alike on every rank");
        d.help("seed each rank apart once the model is built (add the rank to the seed after wrapping the model in DDP, which broadcasts rank 0's weights), or draw the dataset's randomness from a generator seeded per rank");
        return;
    }
    d.label(
        code.file(loader_scope.m),
        loader.span,
        "its workers' base seed is drawn from that RNG",
    );
    d.label(code.file(draw.scope.m), draw.span, "the workers draw here");
    d.help("give the loader a generator of its own seeded per rank (`generator=torch.Generator().manual_seed(seed + rank)`), which leaves the model's initialisation alike on every rank; or add the rank to this seed where nothing needs the ranks to draw alike");
}

/// The one call site of the seeding helper around `call`, when the seed is
/// the helper's parameter; with `programs` (a mask of
/// [`Program::programs`]), the one site among those in these programs (four
/// entry scripts each calling `fix_random_seeds(args.seed)`: the script of
/// the program whose loader is reported).
pub(super) fn outer_call(
    code: &Code<'_>,
    scope: Scope,
    arg: Option<Span>,
    programs: Option<u64>,
) -> Option<(Scope, Span)> {
    let prog = code.prog;
    let text = code.text(scope.m, arg?);
    let f = scope.func()?;
    let func = prog.func(f)?;
    let index = func.params.iter().position(|p| p.name == text)?;
    prog.sole_binding(f, index, programs)
        .map(|(site_scope, site, _)| (site_scope, site.span))
}

/// Where a seeding helper called more than once in the program (bit
/// `bit`) is called on the way to the loader in `loader`: the one call
/// site in a function that calls the loader's function, at most four
/// callers up, or in that function itself (a script's `start_training()`
/// beside its `start_inference()`, each calling `set_random_seed(cfg.seed)`).
fn caller_call(code: &Code<'_>, scope: Scope, arg: Option<Span>, bit: u64, loader: Scope) -> Option<(Scope, Span)> {
    let prog = code.prog;
    let text = code.text(scope.m, arg?);
    let f = scope.func()?;
    let index = prog.func(f)?.params.iter().position(|p| p.name == text)?;
    if prog.escapes(f) {
        return None;
    }
    // The loader's function and its callers, a few levels up.
    let mut callers = vec![loader.func()?];
    let mut i = 0;
    while i < callers.len() && callers.len() < 32 {
        let at = callers[i];
        i += 1;
        if i > 4 * 8 {
            break;
        }
        for (s, _) in prog.call_sites(at) {
            if let Some(g) = s.func() {
                if !callers.contains(&g) {
                    callers.push(g);
                }
            }
        }
    }
    let mut found: Vec<(Scope, &Expr)> = prog
        .call_sites(f)
        .into_iter()
        .filter(|(s, _)| prog.programs(s.m) & bit != 0 && s.func().is_some_and(|g| callers.contains(&g)))
        .collect();
    // The training path's, where the script's inference entry builds the
    // same loaders (`start_inference()` beside `start_training()`).
    if found.len() > 1 {
        let inference = |s: &Scope| {
            s.func().and_then(|g| prog.func(g)).is_some_and(|x| {
                let name = x.name.to_ascii_lowercase();
                ["infer", "eval", "test", "predict"].iter().any(|w| name.contains(w)) && !name.contains("train")
            })
        };
        found.retain(|(s, _)| !inference(s));
    }
    let [(site_scope, site)] = found.as_slice() else {
        return None;
    };
    let (site_scope, site) = (*site_scope, *site);
    matches!(prog.bind(f, site, index), crate::training::program::Bound::Given(_)).then_some((site_scope, site.span))
}
