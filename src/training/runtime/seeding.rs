//! Seeding: how the global torch RNG is seeded on the ranks.

use super::*;

/// How the global torch RNG is seeded on the ranks.
#[derive(Clone, Debug, PartialEq)]
pub enum Seeding {
    /// Identically on every rank, by Determined's trial seed.
    Trial,
    /// Identically, by a seeding call: its scope, span and argument.
    Call {
        scope: Scope,
        call: crate::source::Span,
        arg: Option<crate::source::Span>,
    },
    /// Differently per rank, or not at all.
    NotIdentical,
}

/// The libraries' helpers that seed Python's `random`, numpy's and torch's
/// global RNGs alike with one seed: every list of seeding calls holds them.
pub const SEED_EVERY_RNG: &[&str] = &[
    "transformers.set_seed",
    "transformers.trainer_utils.set_seed",
    "accelerate.utils.set_seed",
    "lightning.seed_everything",
    "lightning.fabric.seed_everything",
    // PyG's.
    "torch_geometric.seed_everything",
    "torch_geometric.seed.seed_everything",
];

/// The other seeding calls [`seeding_of`] reads.
const SEEDS_TORCH: &[&str] = &[
    "torch.manual_seed",
    // lhotse's: `random`, numpy and torch with one seed.
    "lhotse.utils.fix_random_seed",
    // timm's: torch, numpy and `random` with `seed + rank`.
    "timm.utils.random_seed",
    // ColossalAI's: `random`, numpy and torch (all devices) with one
    // seed.
    "colossalai.utils.set_seed",
    "colossalai.utils.common.set_seed",
    // MONAI's: torch, numpy and `random` with `seed` (a random seed
    // of the process's own where it is `None`).
    "monai.utils.set_determinism",
    "monai.utils.misc.set_determinism",
    // MMEngine's: `random`, numpy and torch, plus the rank where
    // `diff_rank_seed=True`.
    "mmengine.runner.set_random_seed",
    "mmengine.runner.utils.set_random_seed",
];

/// Whether every rank seeds the global torch RNG with the same value.
pub fn seeding(prog: &Program, runtime: &Runtime) -> Seeding {
    seeding_of(prog, runtime, 1)
}

/// [`seeding`] in the program `bit` (see [`Program::programs`]; bit 0 the
/// experiment's): only its seeding calls and trial classes count.
pub fn seeding_of(prog: &Program, runtime: &Runtime, bit: u64) -> Seeding {
    let experiment = bit == 1;
    let within = |m: ModId| {
        if experiment {
            !prog.detached(m)
        } else {
            prog.programs(m) & bit != 0
        }
    };
    let seed_calls = calls(prog, &[SEED_EVERY_RNG, SEEDS_TORCH].concat());
    let mut first = None;
    let mut first_reached = 0u8;
    for (scope, anc, call, path) in &seed_calls {
        if !within(scope.m) || in_worker_init(prog, *scope) || scoped(prog, *scope, anc) {
            continue;
        }
        // A seeding helper only other programs call (`npu_config.seed_everything`,
        // called by another training script of the package).
        if let Some(f) = scope.func() {
            let sites = prog.call_sites(f);
            if !sites.is_empty() && !sites.iter().any(|(s, _)| within(s.m)) {
                continue;
            }
            // A seeding helper called only by loader workers' init functions
            // (detectron2's `seed_all_rng(np.random.randint(2 ** 31) +
            // worker_id)`): it seeds the workers, not the rank.
            if !sites.is_empty() && sites.iter().all(|(s, _)| in_worker_init(prog, *s)) {
                continue;
            }
            // A method of an object another module holds (`npu_config =
            // NPUConfig()`), whose calls are not resolved: called by name
            // only in other programs (a method nothing names, such as a
            // trial's, is called by its framework).
            if sites.is_empty() && prog.class_of(f).is_some() {
                let elsewhere = prog.func(f).is_some_and(|x| {
                    !called_by_name(prog, &x.name, &within) && called_by_name(prog, &x.name, &|m| !within(m))
                });
                if elsewhere {
                    continue;
                }
            }
        }
        // Run on one rank only (`if accelerator.is_main_process:` around
        // the sampling that seeds, or a helper called only there): it seeds
        // that rank, not the ranks alike.
        if runs_on_one_rank(prog, *scope, anc, *call as *const Expr as *const ()) {
            continue;
        }
        // A module's `if __name__ == "__main__":` block runs only in the
        // program the module starts.
        if in_main_guard(anc) && prog.scripts(scope.m) & bit == 0 {
            continue;
        }
        // Seeded in the launcher before `mp.spawn(train, …)` starts the
        // ranks: each rank is a fresh interpreter whose torch RNG starts
        // from its own random seed, not this one.
        if launches_fresh_ranks(prog, *scope, &within) || spawned_from_main_guard(prog, *scope, anc) {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        let a = pos(args, 0).or_else(|| kw(args, "seed"));
        // Seeded from the loader worker's id (`torch.manual_seed(
        // get_worker_info().id)` in a dataset's `__getitem__`): it runs in
        // the workers, not on the rank.
        if a.is_some_and(|a| from_worker_info(prog, *scope, a)) {
            continue;
        }
        if a.is_some_and(|a| depends_on_rank(prog, *scope, a)) {
            return Seeding::NotIdentical;
        }
        // `random_seed(args.seed, args.rank)`: timm adds the rank.
        if path == "timm.utils.random_seed"
            && pos(args, 1)
                .or_else(|| kw(args, "rank"))
                .is_some_and(|r| !matches!(r.kind, ExprKind::Int(0)))
        {
            return Seeding::NotIdentical;
        }
        if path == "accelerate.utils.set_seed"
            && kw(args, "device_specific").is_some_and(|d| matches!(d.kind, ExprKind::Bool(true)))
        {
            return Seeding::NotIdentical;
        }
        if path.starts_with("mmengine.")
            && kw(args, "diff_rank_seed").is_some_and(|d| !matches!(d.kind, ExprKind::Bool(false)))
        {
            return Seeding::NotIdentical;
        }
        // MONAI's `set_determinism(seed=None)` seeds each process from its
        // own entropy (and with no argument from its default seed, alike).
        if path.starts_with("monai.") && a.is_some_and(|a| matches!(a.kind, ExprKind::None)) {
            return Seeding::NotIdentical;
        }
        // A call in a function the program is seen to call wins over one at
        // module level (which runs first, at import, and which the
        // function's seeds over), and that over one in a function nothing
        // calls (a package's unused `set_random_seed`).
        let reached = match scope.func() {
            None => 1,
            Some(f) if !prog.call_sites(f).is_empty() => 2,
            Some(_) => 0,
        };
        if first.is_none() || reached > first_reached {
            first_reached = reached;
            first = Some(Seeding::Call {
                scope: *scope,
                call: call.span,
                arg: a.map(|a| a.span),
            });
        }
    }
    // A seeding call the code makes wins over the trial seed Determined set
    // before it ran (both are the same on every rank).
    let trial = runtime.trials.iter().any(|(k, _)| within(k.m)) || (experiment && runtime.unlaunched_trial.is_some());
    match first {
        Some(call) => call,
        None if trial => Seeding::Trial,
        None => Seeding::NotIdentical,
    }
}

/// Whether a seeding call at `scope` (ancestors `anc`) seeds for one block
/// only and gives the RNG its state back after it: inside `with
/// torch.random.fork_rng():`, or in the `__init__`/`__enter__` of a context
/// manager whose class saves and restores the RNG state (`with
/// set_torch_seed(init_seed):` around a model's weight init). The ranks'
/// own draws go on from the state they had.
fn scoped(prog: &Program, scope: Scope, anc: &[Anc<'_>]) -> bool {
    let forked = anc.iter().any(|a| {
        let Anc::Stmt(st) = a else { return false };
        let StmtKind::With { items, .. } = &st.kind else {
            return false;
        };
        items.iter().any(|i| {
            matches!(&i.ctx.kind, ExprKind::Call { func, .. }
                if prog.external(scope, func).is_some_and(|p| p == "torch.random.fork_rng" || p == "torch.fork_rng"))
        })
    });
    if forked {
        return true;
    }
    let Some(f) = scope.func() else { return false };
    let (Some(func), Some(k)) = (prog.func(f), prog.class_of(f)) else {
        return false;
    };
    if !matches!(func.name.as_str(), "__init__" | "__enter__") || prog.method(k, "__exit__").is_none() {
        return false;
    }
    let Some(class) = prog.class(k) else { return false };
    prog.text(k.m)
        .get(class.span.start..class.span.end)
        .is_some_and(|t| t.contains("get_rng_state") && t.contains("set_rng_state"))
}

/// Whether some module `within` the program calls a function or method
/// named `name` (`obj.name(…)`, `name(…)`).
fn called_by_name(prog: &Program, name: &str, within: &dyn Fn(ModId) -> bool) -> bool {
    let named = |_: Scope, e: &Expr| {
        let ExprKind::Call { func, .. } = &e.kind else {
            return false;
        };
        match &func.kind {
            ExprKind::Attribute { attr, .. } => attr == name,
            ExprKind::Name(n) => n == name,
            _ => false,
        }
    };
    super::any_expr_in(prog, &[name], &named, within)
}

/// Whether `scope` (or, for a seeding helper, each function calling it)
/// starts the ranks as new interpreters: `torch.multiprocessing.spawn`, or
/// `start_processes` with its default start method.
fn launches_fresh_ranks(prog: &Program, scope: Scope, within: &dyn Fn(ModId) -> bool) -> bool {
    // No module of the code mentions a spawn: nothing to look for.
    if !prog.code_modules().any(|m| {
        prog.chunks_mentioning(m, &["spawn", "start_processes"])
            .next()
            .is_some()
    }) {
        return false;
    }
    // A spawn in the function, or in a launcher helper it calls
    // (`launch(main_worker, …)` whose body calls `mp.spawn`).
    let spawns_in = |s: Scope| {
        let mut found = false;
        prog.walk_exprs(s, &mut |_, e| found = found || spawns_fresh(prog, s, e));
        found
    };
    let spawns_here = |s: Scope| {
        let mut found = spawns_in(s);
        if !found {
            prog.walk_exprs(s, &mut |_, e| {
                if found {
                    return;
                }
                if let ExprKind::Call { func, .. } = &e.kind {
                    if let Callee::Func(l) = prog.callee(s, func) {
                        found = l.scope() != s && spawns_in(l.scope());
                    }
                }
            });
        }
        found
    };
    if scope.func().is_none() {
        return false;
    }
    if spawns_here(scope) {
        return true;
    }
    let Some(f) = scope.func() else { return false };
    // The calls in this program (a helper two scripts share: each script's
    // own launch decides).
    let sites: Vec<_> = prog.call_sites(f).into_iter().filter(|(s, _)| within(s.m)).collect();
    !sites.is_empty() && sites.len() <= 4 && sites.iter().all(|(s, _)| s.func().is_some() && spawns_here(*s))
}

/// Whether a module-level seeding call sits in an `if __name__ ==
/// "__main__":` block that then starts the ranks with
/// `torch.multiprocessing.spawn` (univnet's `trainer.py`): the spawned
/// interpreters import the module without running that block, so the seed
/// never reaches them.
fn spawned_from_main_guard(prog: &Program, scope: Scope, anc: &[Anc<'_>]) -> bool {
    if scope.func().is_some() {
        return false;
    }
    let Some(guard) = anc.iter().find_map(|a| match a {
        Anc::Stmt(st) if in_main_guard(std::slice::from_ref(a)) => Some(*st),
        _ => None,
    }) else {
        return false;
    };
    let mut found = false;
    let mut stack = Vec::new();
    crate::training::program::walk_stmt(guard, &mut stack, &mut |_, n| {
        if let crate::training::program::Node::Expr(e) = n {
            found = found || spawns_fresh(prog, scope, e);
        }
    });
    found
}

/// Whether `e` starts ranks as new interpreters: `torch.multiprocessing.spawn`,
/// or `start_processes` with its default start method.
fn spawns_fresh(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let ExprKind::Call { args, .. } = &e.kind else {
        return false;
    };
    prog.spawns(scope, e)
        && kw(args, "start_method").is_none_or(|m| matches!(&m.kind, ExprKind::Str(x) if x == "spawn"))
}

/// Whether `scope` is a loader worker's init function by its parameters
/// (`def worker_init_fn(worker_id)`, a callable's `__call__(self,
/// worker_id)`): seeding there runs in the workers, not on the rank.
fn in_worker_init(prog: &Program, scope: Scope) -> bool {
    let Some(f) = scope.func().and_then(|f| prog.func(f)) else {
        return false;
    };
    f.params
        .iter()
        .any(|p| matches!(p.name.as_str(), "worker_id" | "worker_idx" | "worker_index" | "wid"))
}

/// Whether `e` reads a loader worker's info (`get_worker_info().id`),
/// directly or through a local name bound to `get_worker_info()`.
fn from_worker_info(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let info = |s: Scope, x: &Expr| {
        matches!(&x.kind, ExprKind::Call { func, .. }
            if prog.external(s, func).as_deref() == Some("torch.utils.data.get_worker_info"))
    };
    let mut found = false;
    crate::training::program::walk_expr(e, &mut Vec::new(), &mut |_, node| {
        let crate::training::program::Node::Expr(x) = node else {
            return;
        };
        if found || info(scope, x) {
            found = true;
            return;
        }
        if let ExprKind::Name(_) = &x.kind {
            let sources = prog.sources(scope, x);
            found = sources.terms.iter().any(|t| info(t.scope, t.expr));
        }
    });
    found
}

/// Whether a node with ancestors `anc` sits in an `if __name__ ==
/// "__main__":` block.
pub fn in_main_guard(anc: &[Anc<'_>]) -> bool {
    anc.iter().any(|a| {
        let Anc::Stmt(st) = a else { return false };
        let StmtKind::If { test, .. } = &st.kind else {
            return false;
        };
        let ExprKind::Compare { left, rest } = &test.kind else {
            return false;
        };
        let [(op, right)] = rest.as_slice() else { return false };
        let name = |e: &Expr| matches!(&e.kind, ExprKind::Name(n) if n == "__name__");
        let main = |e: &Expr| matches!(&e.kind, ExprKind::Str(s) if s == "__main__");
        op == "==" && ((name(left) && main(right)) || (main(left) && name(right)))
    })
}
