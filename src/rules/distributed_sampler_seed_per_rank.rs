declare_rule! {
    /// ## What it checks
    /// The `seed=` of a shuffling `torch.utils.data.DistributedSampler` in code that
    /// runs once per rank, where that seed can differ between ranks: it depends on
    /// the rank (`seed=args.seed + rank`), or it can be drawn from the process's own
    /// entropy — `random.randint(…)`, `random.random()`,
    /// `numpy.random.randint(…)` and the like from a generator the program has not
    /// seeded before the draw, `time.time()`, `os.getpid()` — on the way to the
    /// sampler (`seed = opt['manual_seed']`, then `if seed is None: seed =
    /// random.randint(1, 10000)`), also stored into the parsed flag
    /// (`if args.randomized_seed: args.seed = random.randint(0, 10000)`). A
    /// seeding call counts as before the draw unless it sits after it in the
    /// same function, or in a function reached only from there.
    ///
    /// ## Why
    /// `DistributedSampler` shuffles the whole dataset with `seed + epoch` on every
    /// rank and then gives each rank every n-th index of that one permutation. That
    /// only partitions the data when every rank draws the same permutation: with a
    /// seed of its own, each rank takes its slice of a different order, so ranks
    /// train on overlapping samples and skip others, every epoch. The seed must be
    /// the same on every rank (a constant, the run's seed, or one rank's draw
    /// broadcast to the others); per-rank seeds belong to the global RNGs
    /// (augmentation), not to the sampler. Seeds drawn after a seeding call that
    /// runs on every rank with the same value, and samplers that do not shuffle, are
    /// left alone.
    ///
    /// ## Example
    /// ```python
    /// seed = cfg.seed if cfg.seed is not None else random.randint(1, 10000)
    /// sampler = DistributedSampler(train_set, shuffle=True, seed=seed)   # warning
    /// # fix: draw the seed on rank 0 and broadcast it, or require a fixed one
    /// ```
    pub static DISTRIBUTED_SAMPLER_SEED_PER_RANK = {
        code: "T114",
        name: "distributed-sampler-seed-per-rank",
        family: Training,
        severity: Warning,
        summary: "A DistributedSampler's seed can differ between ranks, so their shards overlap",
    };
}

use super::sampler_rng_shuffled_list::seeded_before;
use super::training_support::{code, excerpt};
use super::{Cx, Sink};
use crate::training::ast::{Expr, ExprKind};
use crate::training::runtime::{self, depends_on_rank, kw, pos};

const SAMPLER: &str = "torch.utils.data.DistributedSampler";

/// Draws from the process's own entropy, with the generator whose seeding
/// makes them the same on every rank (`None`: no seeding does).
const DRAWS: &[(&str, Option<&str>)] = &[
    ("random.randint", Some("random.seed")),
    ("random.randrange", Some("random.seed")),
    ("random.random", Some("random.seed")),
    ("random.getrandbits", Some("random.seed")),
    ("numpy.random.randint", Some("numpy.random.seed")),
    ("numpy.random.rand", Some("numpy.random.seed")),
    ("numpy.random.random", Some("numpy.random.seed")),
    ("time.time", None),
    ("time.time_ns", None),
    ("os.getpid", None),
];

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    let prog = code.prog;
    for (scope, _, call, _) in runtime::calls(prog, &[SAMPLER]) {
        if !code.rt.world_at(prog, scope.m).distributed() {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        let Some(seed) = kw(args, "seed").or_else(|| pos(args, 4)) else {
            continue;
        };
        // A sampler that does not shuffle uses no seed.
        if let Some(shuffle) = kw(args, "shuffle").or_else(|| pos(args, 3)) {
            if runtime::is_true(prog, code.cfg, code.rt, scope, shuffle) == Some(false) {
                continue;
            }
        }
        if depends_on_rank(prog, scope, seed) {
            let text = excerpt(code.text(scope.m, seed.span));
            let d = out.at_loc(
                code.loc(scope.m, seed.span),
                format!(
                    "the DistributedSampler's seed `{text}` depends on the rank: each rank shuffles the dataset into its own permutation and takes its slice of that, so ranks train on overlapping samples and skip others, every epoch"
                ),
            );
            d.help("give every rank's sampler the same seed (the run's seed without the rank); keep per-rank seeds for the global RNGs that drive augmentation");
            continue;
        }
        let Some((draw_scope, draw, path, only)) = entropy_draw(&code, scope, seed) else {
            continue;
        };
        let becomes = if only { "becomes" } else { "can become" };
        let text = excerpt(code.text(draw_scope.m, draw.span));
        let d = out.at_loc(
            code.loc(draw_scope.m, draw.span),
            format!(
                "`{text}` {path}, and the value {becomes} the seed of a DistributedSampler: each rank draws its own, shuffles the dataset into its own permutation and takes its slice of that, so ranks train on overlapping samples and skip others, every epoch"
            ),
        );
        d.label(code.file(scope.m), seed.span, "the sampler's seed");
        d.help("give the sampler a seed that is the same on every rank: require a fixed one, or draw it on rank 0 and broadcast it (`dist.broadcast_object_list`) before building the sampler");
    }
}

/// A draw from the process's entropy among the values `seed` can take
/// (through names), with what it reads and whether it is the only value:
/// not where its generator is seeded before the draw.
fn entropy_draw<'p>(
    code: &super::training_support::Code<'p>,
    scope: crate::training::program::Scope,
    seed: &'p Expr,
) -> Option<(crate::training::program::Scope, &'p Expr, &'static str, bool)> {
    let prog = code.prog;
    let sources = prog.sources(scope, seed);
    // The values to look at: the sources without projection, and what the
    // code stores into a parsed flag (`args.seed = random.randint(0, 10000)`
    // under `if args.randomized_seed:`), which the parser's own default does
    // not show.
    let mut values: Vec<(crate::training::program::Scope, &'p Expr, bool)> = Vec::new();
    for t in &sources.terms {
        if t.proj.is_empty() {
            values.push((t.scope, t.expr, false));
        } else if let [crate::training::program::Proj::Attr(dest)] = t.proj.as_slice() {
            values.extend(
                flag_stores(code, t.scope, t.expr, dest)
                    .into_iter()
                    .map(|(s, e)| (s, e, true)),
            );
        }
    }
    for (t_scope, t_expr, stored) in values {
        // `int(time.time())`: the value converted.
        let mut e = t_expr;
        if let ExprKind::Call { func, args, .. } = &e.kind {
            if prog.external(t_scope, func).as_deref() == Some("builtins.int") {
                if let Some(inner) = pos(args, 0) {
                    e = inner;
                }
            }
        }
        let ExprKind::Call { func, .. } = &e.kind else {
            continue;
        };
        let Some(p) = prog.external(t_scope, func) else {
            continue;
        };
        let Some((name, seeding)) = DRAWS.iter().find(|(d, _)| *d == p) else {
            continue;
        };
        if let Some(seeding) = seeding {
            if seeded_before(code, t_scope, e, seeding) {
                continue;
            }
        }
        let shown = match *name {
            n if n.starts_with("numpy.random") => {
                "draws from numpy's global RNG, which nothing seeds alike on every rank before it"
            }
            n if n.starts_with("random.") => {
                "draws from Python's `random`, which nothing seeds alike on every rank before it (each interpreter starts it from its own entropy)"
            }
            "os.getpid" => "is the process id, different on every rank",
            _ => "reads the clock, which differs between ranks",
        };
        return Some((t_scope, e, shown, sources.terms.len() == 1 && !stored));
    }
    None
}

/// The values the code stores into the flag `dest` of the namespace the
/// parse `parsed` returns (`args.seed = …` where `args = parse_args()`
/// returns `parser.parse_args()`), anywhere in its program (at most 8).
fn flag_stores<'p>(
    code: &super::training_support::Code<'p>,
    scope: crate::training::program::Scope,
    parsed: &'p Expr,
    dest: &str,
) -> Vec<(crate::training::program::Scope, &'p Expr)> {
    use crate::training::ast::StmtKind;
    let prog = code.prog;
    if !crate::training::runtime::parses_command_line(parsed) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for m in prog.code_modules().filter(|m| prog.same_program(*m, scope.m)) {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &[dest]).collect();
        for c in chunks {
            for s in prog.scopes(m, c) {
                prog.walk_stmts(s, &mut |_, st| {
                    let StmtKind::Assign { targets, value } = &st.kind else {
                        return;
                    };
                    for t in targets {
                        let ExprKind::Attribute { value: recv, attr } = &t.kind else {
                            continue;
                        };
                        if attr != dest || !matches!(recv.kind, ExprKind::Name(_)) || out.len() >= 8 {
                            continue;
                        }
                        let same = prog
                            .sources(s, recv)
                            .terms
                            .iter()
                            .any(|r| r.proj.is_empty() && std::ptr::eq(r.expr, parsed));
                        if same {
                            out.push((s, value));
                        }
                    }
                });
            }
        }
    }
    out
}
