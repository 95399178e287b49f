//! T101 (`sampler-rng-shared-across-ranks`) on the training step's own
//! draws: every rank seeds torch's global RNG with the same value
//! (`torch.manual_seed(args.seed)`, Accelerate's `set_seed(seed)`), and the
//! loop that trains draws from that RNG at every step — a diffusion model's
//! timesteps and noise (`torch.randint(0, T, (b,))`, `torch.randn_like(x)`),
//! a masking ratio, a dropout of conditions. Each rank then draws exactly
//! the numbers the others draw, step after step: the N ranks' different
//! samples share one set of timesteps and noise, and the global batch holds
//! the variety of one rank's.
//!
//! Reported at the seeding call, with the draw: a call of `torch.randn`,
//! `randn_like`, `rand`, `rand_like`, `randint`, `randint_like`, `normal`,
//! or `bernoulli` without `generator=` (not a `randperm` or `multinomial`
//! pick among the rank's own rows: alike indices, different rows), in the
//! body of a loop that trains (a backward pass or an optimizer step in the
//! same body) or in a function of the training code such a body calls (two
//! calls deep). Left alone: a loop in the main guard of a module the seeded
//! program only imports (a kernel's benchmark), a draw on one rank only, a seed that mixes in
//! the rank (or `set_seed(…, device_specific=True)`), Determined trials
//! (their seeding is Determined's), and code with a tensor-parallel RNG of
//! its own (Megatron's or fairscale's model-parallel seeds: equal draws are
//! their design).

use super::sampler_rng_base_seeds::outer_call;
use super::sampler_rng_workers::alike;
use super::training_support::{body_trains, excerpt, Code, ModelParallel};
use super::Sink;
use crate::source::Span;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{walk_stmt, Callee, Node, Scope};
use crate::training::runtime::{self, kw, Seeding};

/// Torch's draws from the global RNG.
const DRAWS: &[&str] = &[
    "torch.randn",
    "torch.randn_like",
    "torch.rand",
    "torch.rand_like",
    "torch.randint",
    "torch.randint_like",
    "torch.normal",
    "torch.bernoulli",
];

struct Draw {
    scope: Scope,
    span: Span,
    what: String,
}

pub(super) fn step_draws_alike(code: &Code<'_>, seedings: &[(u64, Seeding)], out: &mut Sink<'_>) {
    let prog = code.prog;
    let mut reported: Vec<(Scope, Span)> = Vec::new();
    // Read once, where a scope seeded alike needs it.
    let model_parallel: std::cell::OnceCell<ModelParallel> = std::cell::OnceCell::new();
    for scope in code.scopes(&["backward", "step"]) {
        let Some((
            world,
            Seeding::Call {
                scope: seed_scope,
                call,
                arg,
            },
        )) = alike(code, seedings, scope.m)
        else {
            continue;
        };
        if model_parallel
            .get_or_init(|| ModelParallel::of(code))
            .runs(code, scope.m)
        {
            continue;
        }
        // Through a seeding helper (`set_random_seed(cfg.seed)`): reported
        // where the program calls it, once per such call (two scripts
        // calling one helper are two findings).
        let helper = seed_scope
            .func()
            .and_then(|f| prog.func(f))
            .is_some_and(|f| f.name.to_ascii_lowercase().contains("seed"));
        let caller_here = seed_scope.func().and_then(|f| {
            prog.call_sites(f)
                .into_iter()
                .find(|(s, _)| s.m == scope.m)
                .map(|(s, e)| (s, e.span))
        });
        let (at_scope, at) = match helper {
            true => outer_call(code, *seed_scope, *arg, Some(prog.programs(scope.m)))
                .or(caller_here)
                .unwrap_or((*seed_scope, *call)),
            false => (*seed_scope, *call),
        };
        if reported.contains(&(at_scope, at))
            || seeds_apart_or_in_step(code, *seed_scope, *call)
            || !reached_from(prog, *seed_scope, scope.m, 3)
        {
            continue;
        }
        let mut found: Option<Draw> = None;
        prog.walk_stmts(scope, &mut |anc, s| {
            if found.is_some() {
                return;
            }
            let body = match &s.kind {
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => body,
                _ => return,
            };
            // A loop in a module's main guard runs only when that module is
            // the script: the seeding must run in its program, not in a
            // trainer that imports the module for its functions.
            // So does a function only that block calls (a module's
            // `_test_max_eig()` self-test under its main guard).
            let guarded = match scope.func() {
                None => runtime::in_main_guard(anc),
                Some(f) => only_from_main_guard(prog, f),
            };
            if guarded && !reached_in_script(prog, *seed_scope, scope.m, 3) {
                return;
            }
            if runtime::runs_on_one_rank(prog, scope, anc, s as *const Stmt as *const ())
                || !body_trains(code, scope, body)
                || !reads_data(code, scope, s)
            {
                return;
            }
            // The innermost loop that trains: a loop around it is searched
            // through it.
            let inner_trains = body.iter().any(|b| {
                let mut hit = false;
                let mut stack = Vec::new();
                walk_stmt(b, &mut stack, &mut |_, n| {
                    if let Node::Stmt(x) = n {
                        if let StmtKind::For { body, .. } | StmtKind::While { body, .. } = &x.kind {
                            hit |= body_trains(code, scope, body);
                        }
                    }
                });
                hit
            });
            if !inner_trains {
                found = draw_in(code, scope, body, 2);
            }
        });
        let Some(draw) = found else { continue };
        reported.push((at_scope, at));
        report(code, out, world, (at_scope, at), (*seed_scope, *call), &draw);
    }
    lightning_step_draws(code, seedings, &model_parallel, &mut reported, out);
}

/// Lightning's step: the Trainer calls a `LightningModule`'s
/// `training_step` at every step, so its draws (and those of the methods it
/// calls: `shared_step`, `self(x)`'s `forward`, `p_losses`, three calls
/// deep) are a step's draws. Reported at the seeding as for a loop.
fn lightning_step_draws(
    code: &Code<'_>,
    seedings: &[(u64, Seeding)],
    model_parallel: &std::cell::OnceCell<ModelParallel>,
    reported: &mut Vec<(Scope, Span)>,
    out: &mut Sink<'_>,
) {
    let prog = code.prog;
    for (scope, _) in code.lightning_training_steps() {
        let Some((
            world,
            Seeding::Call {
                scope: seed_scope,
                call,
                arg,
            },
        )) = alike(code, seedings, scope.m).or_else(|| trained_by_one_script(code, seedings, scope.m))
        else {
            continue;
        };
        if model_parallel
            .get_or_init(|| ModelParallel::of(code))
            .runs(code, scope.m)
            || seeds_apart_or_in_step(code, *seed_scope, *call)
        {
            continue;
        }
        let (at_scope, at) =
            outer_call(code, *seed_scope, *arg, Some(prog.programs(scope.m))).unwrap_or((*seed_scope, *call));
        if reported.contains(&(at_scope, at)) {
            continue;
        }
        let Some(draw) = draw_in(code, scope, prog.body(scope), 3) else {
            continue;
        };
        reported.push((at_scope, at));
        report(code, out, world, (at_scope, at), (*seed_scope, *call), &draw);
    }
}

/// For a `LightningModule` in no program's imports (a class a config
/// names, built by `instantiate_from_config`): the one script that runs a
/// multi-rank Lightning `Trainer` and seeds alike, its world and seeding.
/// `None` where there is not exactly one.
fn trained_by_one_script<'s>(
    code: &Code<'_>,
    seedings: &'s [(u64, Seeding)],
    m: crate::training::program::ModId,
) -> Option<(runtime::World, &'s Seeding)> {
    let prog = code.prog;
    if !code.rt.worlds_of(prog, m).is_empty() {
        return None;
    }
    let mut found = code.rt.scripts.iter().filter_map(|(bit, w)| {
        let s = seedings.iter().find(|(b, _)| b == bit).map(|(_, s)| s)?;
        (w.distributed() && *s != Seeding::NotIdentical && runtime::lightning_ranks_in_program(prog, *bit))
            .then_some((*w, s))
    });
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

/// The finding at the seeding `at` (the call itself or the outer call of
/// the helper holding it), with the seeding call and the draw.
fn report(
    code: &Code<'_>,
    out: &mut Sink<'_>,
    world: runtime::World,
    (at_scope, at): (Scope, Span),
    (seed_scope, call): (Scope, Span),
    draw: &Draw,
) {
    let seeding = excerpt(code.text(at_scope.m, at));
    let ranks = match world {
        runtime::World::Ranks(Some(n)) => format!("all {n} ranks"),
        _ => "every rank".to_string(),
    };
    let d = out.at_loc(
        code.loc(at_scope.m, at),
        format!(
            "`{seeding}` seeds torch's global RNG with the same value on {ranks}, and every training step draws `{}` from it: each rank draws the same numbers at the same step, so the ranks' different samples share one set of noise, timesteps or masks instead of each drawing its own",
            draw.what
        ),
    );
    if at != call || at_scope != seed_scope {
        d.label(code.file(seed_scope.m), call, "seeds the global RNG with it");
    }
    d.label(code.file(draw.scope.m), draw.span, "drawn alike on every rank");
    let seeded = code.text(seed_scope.m, call).trim_start();
    let accelerate = seeded.starts_with("set_seed");
    let lightning = seeded.starts_with("seed_everything") || seeded.contains(".seed_everything(");
    d.help(if accelerate {
        "seed each rank apart once the model is built: `set_seed(seed, device_specific=True)` adds the process index to the seed (Accelerate's DDP wrapping broadcasts rank 0's weights, so the model stays alike)"
    } else if lightning {
        "seed each rank apart once the model is built: call `seed_everything(seed + trainer.global_rank)` in the module's `setup()` (DDP broadcasts rank 0's weights when it wraps the model), or draw the step's noise from a generator seeded per rank"
    } else {
        "seed each rank apart once the model is built (`torch.manual_seed(seed + rank)` after wrapping it in DDP, which broadcasts rank 0's weights), or draw the step's noise from a generator seeded per rank"
    });
}

/// Whether loop `s` passes over data (a `for` over something other than
/// `range(…)`, or a body that draws batches with `next(…)`): a loop of
/// synthetic inputs drawn in the step (`for i in range(n): x =
/// torch.rand(…)`, a tensor-parallel demo) feeds every rank alike on purpose.
fn reads_data(code: &Code<'_>, scope: Scope, s: &Stmt) -> bool {
    let text = code.text(scope.m, s.span);
    match &s.kind {
        StmtKind::For { iter, body, .. } => {
            let ranged = matches!(&iter.kind, ExprKind::Call { func, .. }
                if matches!(code.prog.external(scope, func).as_deref(), Some("builtins.range" | "itertools.count")));
            !ranged || body.iter().any(|b| code.text(scope.m, b.span).contains("next("))
        }
        _ => text.contains("next("),
    }
}

/// Whether the seeding in `seed` runs on the way to module `m`'s code: in
/// `m` itself, or in a function called from `m` (through up to `depth`
/// callers). A seeding only another script's entry point calls does not.
fn reached_from(
    prog: &crate::training::program::Program,
    seed: Scope,
    m: crate::training::program::ModId,
    depth: u32,
) -> bool {
    if seed.m == m {
        return true;
    }
    let Some(f) = seed.func() else {
        // Module level of an imported module: runs at import.
        return true;
    };
    if depth == 0 {
        return false;
    }
    prog.call_sites(f)
        .into_iter()
        .take(8)
        .any(|(s, _)| reached_from(prog, s, m, depth - 1))
}

/// Whether function `f` is called, and only at module level under the
/// `if __name__ == "__main__":` block of its own module.
fn only_from_main_guard(prog: &crate::training::program::Program, f: crate::training::program::FuncId) -> bool {
    let sites = prog.call_sites(f);
    !sites.is_empty()
        && sites.iter().all(|(s, call)| {
            s.func().is_none()
                && s.m == f.m
                && prog
                    .ancestors_of(*s, call)
                    .is_some_and(|anc| runtime::in_main_guard(&anc))
        })
}

/// Whether the seeding in `seed` runs when module `m` is the script: in `m`
/// itself, at module level of a module that script's program imports, or
/// in a function called from there (through up to `depth` callers).
fn reached_in_script(
    prog: &crate::training::program::Program,
    seed: Scope,
    m: crate::training::program::ModId,
    depth: u32,
) -> bool {
    if seed.m == m {
        return true;
    }
    let Some(f) = seed.func() else {
        return prog.scripts(m) & prog.programs(seed.m) != 0;
    };
    depth > 0
        && prog
            .call_sites(f)
            .into_iter()
            .take(8)
            .any(|(s, _)| reached_in_script(prog, s, m, depth - 1))
}

/// Whether the seeding call at `call` keeps the ranks apart or in step on
/// purpose: Accelerate's `set_seed(seed, device_specific=True)` adds the
/// process index; a seeding inside a loop (`torch.manual_seed(i)` at each
/// iteration) keeps the ranks' draws equal by design.
fn seeds_apart_or_in_step(code: &Code<'_>, scope: Scope, call: Span) -> bool {
    let mut yes = false;
    code.prog.walk_exprs(scope, &mut |anc, e| {
        if e.span != call {
            return;
        }
        let looped = anc.iter().any(|a| {
            matches!(a, crate::training::program::Anc::Stmt(st)
                if matches!(st.kind, StmtKind::For { .. } | StmtKind::While { .. }))
        });
        let specific = matches!(&e.kind, ExprKind::Call { args, .. }
            if kw(args, "device_specific")
                .is_some_and(|v| runtime::is_true(code.prog, code.cfg, code.rt, scope, v) != Some(false)));
        yes |= looped || specific;
    });
    yes
}

/// The first draw from torch's global RNG in `body`, or in functions of the
/// training code it calls (`depth` calls deep).
fn draw_in(code: &Code<'_>, scope: Scope, body: &[Stmt], depth: u32) -> Option<Draw> {
    let prog = code.prog;
    let mut found: Option<Draw> = None;
    let mut calls: Vec<&Expr> = Vec::new();
    let mut stack = Vec::new();
    for s in body {
        walk_stmt(s, &mut stack, &mut |anc, n| {
            if found.is_some() {
                return;
            }
            let Node::Expr(e) = n else { return };
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            match prog.callee(scope, func) {
                Callee::External(p)
                    if DRAWS.contains(&p.as_str())
                        && kw(args, "generator").is_none()
                        && !runtime::runs_on_one_rank(prog, scope, anc, e as *const Expr as *const ())
                        && !gathered_before(code, scope, e.span) =>
                {
                    found = Some(Draw {
                        scope,
                        span: e.span,
                        what: excerpt(code.text(scope.m, func.span)),
                    });
                }
                Callee::Func(_) => calls.push(e),
                _ => {}
            }
        });
        if found.is_some() {
            return found;
        }
    }
    if depth == 0 {
        return None;
    }
    for call in calls {
        let ExprKind::Call { func, .. } = &call.kind else {
            continue;
        };
        let Callee::Func(f) = prog.callee(scope, func) else {
            continue;
        };
        // Called on what every rank gathered: its draws must repeat too.
        if gathered_before(code, scope, call.span) {
            continue;
        }
        // A method the training code's subclasses override (a trainer's
        // abstract `compute_loss`, each model's trainer implementing it).
        let mut targets = vec![f];
        targets.extend(prog.overrides(f));
        for g in targets {
            let gs = g.scope();
            if let Some(d) = draw_in(code, gs, prog.body(gs), depth - 1) {
                return Some(d);
            }
        }
    }
    None
}

/// Whether the function of `scope` gathers every rank's values before
/// `at` (`dist.all_gather(…)`, a broadcast): what it computes after is the
/// same on every rank (a partial-FC head sampling the feature columns of
/// the gathered embeddings), so a draw there must repeat across ranks.
fn gathered_before(code: &Code<'_>, scope: Scope, at: Span) -> bool {
    let prog = code.prog;
    if scope.func().is_none() {
        return false;
    }
    let mut found = false;
    prog.walk_exprs(scope, &mut |_, e| {
        if found || e.span.end > at.start || !matches!(e.kind, ExprKind::Call { .. }) {
            return;
        }
        found = runtime::collective(prog, scope, e, false).is_some_and(|c| {
            matches!(
                c.kind.as_str(),
                "all_gather" | "all_gather_into_tensor" | "all_gather_object" | "_all_gather_base" | "broadcast"
            )
        });
    });
    found
}
