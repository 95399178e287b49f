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
    let seed_calls = calls(
        prog,
        &[
            "torch.manual_seed",
            "lightning.seed_everything",
            "lightning.fabric.seed_everything",
            "transformers.set_seed",
            "accelerate.utils.set_seed",
            "transformers.trainer_utils.set_seed",
            // lhotse's: `random`, numpy and torch with one seed.
            "lhotse.utils.fix_random_seed",
            // timm's: torch, numpy and `random` with `seed + rank`.
            "timm.utils.random_seed",
        ],
    );
    let mut first = None;
    for (scope, anc, call, path) in &seed_calls {
        if !within(scope.m) || in_worker_init(prog, *scope) {
            continue;
        }
        // A module's `if __name__ == "__main__":` block runs only in the
        // program the module starts.
        if in_main_guard(anc) && prog.scripts(scope.m) & bit == 0 {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        let a = pos(args, 0).or_else(|| kw(args, "seed"));
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
        if first.is_none() {
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
