declare_rule! {
    /// ## What it checks
    /// A seeding of the global RNGs (`torch.manual_seed`, `random.seed`,
    /// `np.random.seed`, Lightning's or PyG's `seed_everything`,
    /// `transformers`' or Accelerate's `set_seed`) that runs in the process which then starts the ranks as
    /// fresh interpreters (`torch.multiprocessing.spawn`, `start_processes`
    /// without `fork`): in the launching function itself, or in a seeding
    /// helper it calls (`set_seed(cfg.seed)` inside the `get_cfg(args)` that
    /// `main()` calls before `mp.spawn(main_worker, …)`), also when the ranks
    /// start through a launcher helper (`launch(main_worker, …)`). Reported
    /// at the seeding call of the launching path nearest to the code's own
    /// choice of seed: the call of the seeding helper where there is one.
    ///
    /// Silent where the spawned code seeds the RNGs itself (the spawned
    /// function, what it calls, or module-level code of the program that a
    /// spawned interpreter runs again on import), where the seeding (or the
    /// helper holding it) is also reached on a path that spawns nothing (an
    /// engine the ranks run by name may call it), where the spawn forks,
    /// where the target of the spawn is not known, and where the launching
    /// path also asks for determinism (`cudnn.deterministic = True`, T108
    /// reports that request and the seeds beside it).
    ///
    /// ## Why
    /// A spawned rank is a new Python interpreter: it imports the modules
    /// and runs only the spawned function. The global RNGs of that process
    /// start from the operating system's entropy, whatever the launcher
    /// seeded. The script reads as seeded, but every run initialises,
    /// augments and drops out differently, and `--seed` changes nothing.
    /// Seed at the start of the spawned function (adding the rank where the
    /// ranks must draw apart).
    ///
    /// ## Example
    /// ```python
    /// def main():
    ///     args = parse_args()
    ///     set_seed(args.seed)                       # warning: the ranks never run it
    ///     mp.spawn(main_worker, nprocs=ngpus, args=(args,))
    ///
    /// def main_worker(rank, args):
    ///     set_seed(args.seed + rank)                # fix: seed in every rank
    /// ```
    pub static SEED_BEFORE_SPAWN = {
        code: "T115",
        name: "seed-before-spawn",
        family: Training,
        severity: Warning,
        summary: "Seeds set before mp.spawn starts the ranks never reach them",
    };
}

use super::cudnn_benchmark_with_determinism::{
    off_whatever_the_flags, spawn_after, spawn_calls, switches, Site, Spawn,
};
use super::training_support::{code, excerpt, Code};
use super::{Cx, Sink};
use crate::source::Span;
use crate::training::ast::ExprKind;
use crate::training::program::Scope;
use crate::training::runtime;

/// The seeding calls of the global RNGs, besides [`runtime::SEED_EVERY_RNG`].
const SEEDINGS: &[&str] = &[
    "torch.manual_seed",
    "random.seed",
    "numpy.random.seed",
    "torch.cuda.manual_seed",
    "torch.cuda.manual_seed_all",
];

/// Most callers followed up from a seeding call to the launching function.
const CALLERS: u32 = 3;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    let prog = code.prog;
    // Most programs start no fresh interpreters: nothing to ask then.
    let spawns = spawn_calls(&code);
    if spawns.is_empty() {
        return;
    }
    let seedings = runtime::calls(prog, &[runtime::SEED_EVERY_RNG, SEEDINGS].concat());
    if seedings.is_empty() {
        return;
    }
    // One finding per launching function and spawn, at its first seeding
    // (`random.seed(…)`, `torch.manual_seed(…)`, … in one block).
    let mut found: Vec<Found<'_>> = Vec::new();
    // The determinism requests (T108's), gathered at the first spawn found.
    let mut requests: Option<Vec<Site<'_>>> = None;
    for (scope, _, call, _) in &seedings {
        // A seeding helper of the code's own (`set_seed(seed)`): reported
        // at the call that passes it the seed, on each launching path.
        let helper = scope
            .func()
            .and_then(|f| prog.func(f))
            .is_some_and(|x| x.name.to_ascii_lowercase().contains("seed"));
        // The launching paths: the seeding itself and its callers, a few
        // levels up, each place with its scope, the call there, and where
        // to report.
        let mut work: Vec<(Scope, Span, u32, (Scope, Span))> = vec![(*scope, call.span, 0, (*scope, call.span))];
        let mut seen: Vec<Scope> = Vec::new();
        // Every way up from the seeding, in the launching program, reaches
        // a spawn: a seeding helper also called on a path that spawns
        // nothing (the engine a rank runs by name, VISSL's
        // `set_seeds(cfg, dist_rank)`) may seed the ranks.
        let mut dead_ends: Vec<Scope> = Vec::new();
        let mut here: Vec<Found<'_>> = Vec::new();
        while let Some((s, at, depth, report_at)) = work.pop() {
            if seen.contains(&s) || seen.len() > 16 {
                continue;
            }
            seen.push(s);
            if let Some(spawn) = spawn_after(&code, &spawns, s, at) {
                // Those a flag may turn on count: T108 reports them.
                let requests = requests.get_or_insert_with(|| {
                    let mut all = switches(&code).1;
                    all.retain(|r| !off_whatever_the_flags(&code, r));
                    all
                });
                let asks = |at: Scope| requests.iter().any(|r| r.scope == at);
                if seeded_in_ranks(&code, &seedings, &spawn.spawned) || asks(s) || asks(*scope) {
                    continue;
                }
                here.push(Found {
                    key: (s, spawn.call.span),
                    at: report_at,
                    spawn,
                });
                continue;
            }
            let sites = s.func().map(|f| (prog.call_sites(f), prog.escapes(f)));
            match sites {
                Some((sites, false)) if depth < CALLERS && !sites.is_empty() && sites.len() <= 8 => {
                    for (cs, site) in sites {
                        let at_here = if depth == 0 && helper {
                            (cs, site.span)
                        } else {
                            report_at
                        };
                        work.push((cs, site.span, depth + 1, at_here));
                    }
                }
                _ => dead_ends.push(s),
            }
        }
        // Only a way up in the launching program counts (another script
        // calling the shared helper without spawning runs its own ranks).
        here.retain(|h| !dead_ends.iter().any(|d| prog.same_program(d.m, h.key.0.m)));
        for h in here {
            match found.iter_mut().find(|f| f.key == h.key) {
                Some(f) if h.at.1.start < f.at.1.start && h.at.0 == f.at.0 => f.at = h.at,
                Some(_) => {}
                None => found.push(h),
            }
        }
    }
    let mut reported: Vec<(Scope, Span)> = Vec::new();
    for Found { key, at, spawn } in found {
        if reported.contains(&at) {
            continue;
        }
        reported.push(at);
        let (rs, rat) = at;
        let what = excerpt(code.text(rs.m, rat));
        // `if args.multiprocessing_distributed: mp.spawn(main_worker, …)
        // else: main_worker(args.gpu, …)`: the direct call runs seeded.
        let direct = calls_directly(&code, key.0, spawn.entry);
        let when = if direct {
            format!(
                " (on the path that spawns them; `{}` called directly runs seeded)",
                spawn.target
            )
        } else {
            String::new()
        };
        let d = out.at_loc(
            code.loc(rs.m, rat),
            format!(
                "`{what}` seeds the process that then starts the ranks with mp.spawn{when}; each spawned rank is a fresh interpreter that runs only `{}`, so its RNGs start from the system's entropy and the run is not seeded at all",
                spawn.target
            ),
        );
        d.label(code.file(spawn.scope.m), spawn.call.span, "starts fresh interpreters");
        if let Some(l) = spawn.launcher {
            d.label(code.file(key.0.m), l.span, "through this launcher");
        }
        d.help(format!(
            "seed at the start of `{}`, which every rank runs (add the rank where the ranks must draw apart)",
            spawn.target
        ));
    }
}

/// A launching path whose seeding the spawned ranks never run: the
/// launching function and its spawn, where to report, and the spawn.
struct Found<'p> {
    key: (Scope, Span),
    at: (Scope, Span),
    spawn: Spawn<'p>,
}

/// Whether the launching function also calls the spawned function itself
/// (a path without spawning).
fn calls_directly(code: &Code<'_>, scope: Scope, entry: crate::training::program::FuncId) -> bool {
    let prog = code.prog;
    let mut found = false;
    prog.walk_exprs(scope, &mut |_, e| {
        if let ExprKind::Call { func, .. } = &e.kind {
            found |= prog.callee(scope, func) == crate::training::program::Callee::Func(entry);
        }
    });
    found
}

/// Whether a seeding runs in the ranks: in a function they run, or at
/// module level outside a main guard (run again on import).
fn seeded_in_ranks(
    code: &Code<'_>,
    seedings: &[(
        Scope,
        Vec<crate::training::program::Anc<'_>>,
        &crate::training::ast::Expr,
        String,
    )],
    spawned: &[crate::training::program::FuncId],
) -> bool {
    let prog = code.prog;
    seedings.iter().any(|(s, anc, _, _)| match s.func() {
        Some(f) => {
            spawned.contains(&f)
                || prog
                    .call_sites(f)
                    .iter()
                    .any(|(cs, _)| cs.func().is_some_and(|g| spawned.contains(&g)))
        }
        None => !runtime::in_main_guard(anc),
    })
}
