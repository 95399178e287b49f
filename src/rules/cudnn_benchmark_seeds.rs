//! T108's second reason: `cudnn.benchmark = True` in a program that seeds
//! torch's global RNG with a reproducible value (directly, or through a
//! project helper one or two calls away).

use super::cudnn_benchmark_with_determinism::{exclusive, Site};
use super::training_support::{body_trains, Code};
use super::{Cx, Sink};
use crate::source::Span;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{walk_expr, Anc, Node, Scope};
use crate::training::runtime::{self, dead_branch, kw, pos};

/// The calls that seed torch's global RNG (`seed_everything` and the
/// `set_seed`s seed torch among others), besides
/// [`runtime::SEED_EVERY_RNG`].
const SEEDS: &[&str] = &[
    "torch.manual_seed",
    "torch.random.manual_seed",
    "torch.cuda.manual_seed",
    "torch.cuda.manual_seed_all",
    "pytorch_lightning.seed_everything",
    "pytorch_lightning.utilities.seed.seed_everything",
    "lightning.pytorch.seed_everything",
    "lightning.fabric.utilities.seed.seed_everything",
    "lightning_fabric.seed_everything",
    "lightning_fabric.utilities.seed.seed_everything",
    "accelerate.utils.random.set_seed",
    "colossalai.utils.set_seed",
    "monai.utils.set_determinism",
    "monai.utils.misc.set_determinism",
    // timm's `random_seed(seed, rank)`: torch, numpy and `random` with
    // seed + rank.
    "timm.utils.random_seed",
    "timm.utils.random.random_seed",
];

/// Seeding calls whose seed, when none is given, is a fixed default:
/// MONAI's `set_determinism()` seeds with `np.iinfo(np.uint32).max` (only
/// `seed=None` turns it off).
const DEFAULT_SEEDED: &[&str] = &["monai.utils.set_determinism", "monai.utils.misc.set_determinism"];

/// Calls whose value differs from run to run: a seed drawn from them is
/// not meant to reproduce anything.
fn varies(path: &str) -> bool {
    [
        "time.",
        "os.urandom",
        "random.",
        "numpy.random.",
        "uuid.",
        "secrets.",
        "datetime.",
    ]
    .iter()
    .any(|p| path.starts_with(p))
        || matches!(
            path,
            "torch.seed" | "torch.initial_seed" | "torch.random.seed" | "torch.random.initial_seed"
        )
}

/// A seeding call and the calls that reach it: `chain[0]` is the call of
/// the seeding function, each next one a call of the project function that
/// holds the previous one.
pub(super) struct Chain<'p> {
    links: Vec<Site<'p>>,
    /// The seeding call's text (first line).
    call: String,
    /// The last link sits in a helper function nothing calls (its call
    /// left commented out: image-restoration-sde's `set_random_seed`).
    uncalled: Option<crate::training::program::FuncId>,
}

/// Every reproducible seeding of torch's global RNG in the training code,
/// with the calls (up to two) of the project helpers that hold it.
pub(super) fn seed_chains<'p>(code: &Code<'p>) -> Vec<Chain<'p>> {
    let prog = code.prog;
    let mut out = Vec::new();
    for (scope, anc, call, path) in runtime::calls(prog, &[runtime::SEED_EVERY_RNG, SEEDS].concat()) {
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        let seed = pos(args, 0).or_else(|| kw(args, "seed"));
        let reproducible = match seed {
            None => DEFAULT_SEEDED.contains(&path.as_str()),
            // `seed_everything()` picks a seed of its own (random in
            // Lightning 1.x, `PL_GLOBAL_SEED` or 0 in 2.x): no clear intent.
            Some(e) if matches!(e.kind, ExprKind::None) => false,
            Some(e) => !drawn(code, scope, e, 0),
        };
        if !reproducible || path.is_empty() {
            continue;
        }
        let Some(stmt) = prog.stmt_of(&anc) else {
            continue;
        };
        let first = Site {
            scope,
            anc,
            stmt,
            span: call.span,
        };
        let text = code
            .text(scope.m, call.span)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let mut chains = vec![vec![first]];
        // Up the calls of the helpers that hold the seeding: two levels.
        for _ in 0..2 {
            let mut next = Vec::new();
            for links in chains {
                let Some(last) = links.last() else { continue };
                let sites = match last.scope.func() {
                    Some(f) if prog.class_of(f).is_none() => prog.call_sites(f),
                    _ => Vec::new(),
                };
                let mut grown = false;
                for (s, c) in sites {
                    let Some(anc) = prog.ancestors_of(s, c) else { continue };
                    let Some(stmt) = prog.stmt_of(&anc) else { continue };
                    let mut longer: Vec<Site<'p>> = links
                        .iter()
                        .map(|l| Site {
                            scope: l.scope,
                            anc: l.anc.clone(),
                            stmt: l.stmt,
                            span: l.span,
                        })
                        .collect();
                    longer.push(Site {
                        scope: s,
                        anc,
                        stmt,
                        span: c.span,
                    });
                    next.push(longer);
                    grown = true;
                }
                if !grown {
                    next.push(links);
                }
            }
            chains = next;
        }
        for links in chains {
            let uncalled = links.last().and_then(|top| top.scope.func()).filter(|f| {
                prog.class_of(*f).is_none()
                    && prog.call_sites(*f).is_empty()
                    && !prog.escapes(*f)
                    && prog.func(*f).is_some_and(|x| !called_by_name(code, &x.name))
            });
            out.push(Chain {
                links,
                call: text.clone(),
                uncalled,
            });
        }
    }
    out
}

/// Whether the seed value `e` is drawn from something that differs between
/// runs (the clock, `os.urandom`, `random`, `torch.seed()`…) wherever it
/// comes from. A seed the run's options may set, drawn only when they do
/// not (`seed = opt.get('manual_seed')`, then `if seed is None: seed =
/// random.randint(…)`), is meant to reproduce the run once it is set.
fn drawn(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 3 {
        return false;
    }
    let prog = code.prog;
    let sources = prog.sources(scope, e);
    !sources.terms.is_empty()
        && sources.terms.iter().all(|t| {
            let mut found = false;
            let mut stack = Vec::new();
            walk_expr(t.expr, &mut stack, &mut |_, n| {
                let Node::Expr(x) = n else { return };
                if found {
                    return;
                }
                found = match &x.kind {
                    ExprKind::Call { func, .. } => prog.external(t.scope, func).is_some_and(|p| varies(&p)),
                    ExprKind::Name(_) if !std::ptr::eq(x, t.expr) => drawn(code, t.scope, x, depth + 1),
                    _ => false,
                };
            });
            found
        })
}

/// Whether `b` sits under a flag that chooses speed over reproducibility
/// (`if args.benchmark:`, `if not args.deterministic:`): a choice the user
/// makes, not a hazard.
pub(super) fn speed_flag(code: &Code<'_>, b: &Site<'_>) -> bool {
    b.anc.iter().any(|a| {
        let Anc::Stmt(s) = a else { return false };
        let StmtKind::If { test, .. } = &s.kind else {
            return false;
        };
        let t = code.text(b.scope.m, test.span).to_ascii_lowercase();
        ["bench", "determin", "reproduc"].iter().any(|w| t.contains(w))
    })
}

/// Whether `b` sits in an evaluation script or function (`test.py`,
/// `def test_pipeline`, `eval_*.py`, `inference.py`, `sample.py`, `demo.py`)
/// whose own body trains nothing (at module level: no function of the
/// module backpropagates either): the seed there picks the samples shown,
/// and benchmarking changes no training.
pub(super) fn evaluation_only(code: &Code<'_>, b: &Site<'_>) -> bool {
    const WORDS: [&str; 6] = ["test", "eval", "infer", "predict", "sample", "demo"];
    let prog = code.prog;
    let file = prog
        .module_name(b.scope.m)
        .rsplit('.')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let func = b
        .scope
        .func()
        .and_then(|f| prog.func(f))
        .map(|f| f.name.to_ascii_lowercase())
        .unwrap_or_default();
    let named = |n: &str| WORDS.iter().any(|w| n.starts_with(w)) && !n.contains("train");
    if !named(&file) && !named(&func) {
        return false;
    }
    // At module level, the module's own functions count: an evaluation
    // script that trains a probe on frozen features (`eval.py` whose
    // `main` steps an optimizer) trains.
    if b.scope.func().is_none() && prog.text(b.scope.m).contains(".backward(") {
        return false;
    }
    !body_trains(code, b.scope, prog.body(b.scope))
}

/// The chains that seed with `b`, those that reach `b`'s own function
/// first, then those of `b`'s module: the message names the nearest.
pub(super) fn nearest<'c, 'p>(code: &Code<'_>, chains: &'c [Chain<'p>], b: &Site<'_>) -> Option<&'c Chain<'p>> {
    let rank = |c: &Chain<'_>| {
        if c.links.iter().any(|l| l.scope == b.scope) {
            0
        } else if c.links.iter().any(|l| l.scope.m == b.scope.m) {
            1
        } else {
            2
        }
    };
    chains.iter().filter(|c| seeds_with(code, c, b)).min_by_key(|c| rank(c))
}

/// Whether the seeding of `chain` runs in the program of the benchmark
/// assignment `b`, both can hold together, and no call on the way sits in a
/// branch known to be false.
fn seeds_with(code: &Code<'_>, chain: &Chain<'_>, b: &Site<'_>) -> bool {
    let Some(top) = chain.links.last() else {
        return false;
    };
    let prog = code.prog;
    // A helper of the project that seeds but that nothing calls: the run
    // does not seed through it (unless the switch sits in it too).
    if chain.uncalled.is_some_and(|f| b.scope.func() != Some(f)) {
        return false;
    }
    let together = match main_guard_entries(code, b.scope) {
        None => prog.same_program(top.scope.m, b.scope.m),
        // Run only as that script: the seeding must run there too.
        Some(scripts) => scripts
            .iter()
            .any(|m| top.scope.m == *m || prog.scripts(*m) & prog.programs(top.scope.m) != 0),
    };
    together
        && chain
            .links
            .iter()
            .all(|l| !dead_branch(code.prog, code.cfg, code.rt, l.scope, &l.anc, l.stmt) && !exclusive(code, b, l))
        && !reset_after(code, chain, b)
}

/// Whether some code of the program calls a function of this name, by its
/// text (`utils.fix_random_seeds(args.seed)` where `utils` names another
/// module of the project too, so the call is not resolved to the helper):
/// a `name(` that is not its `def` nor in a comment.
fn called_by_name(code: &Code<'_>, name: &str) -> bool {
    let prog = code.prog;
    let call = format!("{name}(");
    prog.code_modules().any(|m| {
        let text = prog.text(m);
        text.match_indices(&call).any(|(i, _)| {
            let before = &text[..i];
            let word = before.ends_with(|c: char| c.is_alphanumeric() || c == '_');
            // Not in a comment (`# util.set_random_seed(seed)`).
            let line = &before[before.rfind('\n').map_or(0, |n| n + 1)..];
            !word && !line.contains('#') && !before.trim_end_matches(' ').ends_with("def")
        })
    })
}

/// The scripts a function runs in when it is called only from their main
/// guards (`if __name__ == "__main__": check_validation(None)` in
/// `valid.py`, which training scripts import for other helpers): it runs
/// only when one of them is the program run. `None` for code called
/// anywhere else (or from nowhere the code shows).
fn main_guard_entries(code: &Code<'_>, scope: Scope) -> Option<Vec<crate::training::program::ModId>> {
    let prog = code.prog;
    let sites = prog.call_sites(scope.func()?);
    if sites.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for (s, call) in sites {
        let guarded = s.func().is_none()
            && prog
                .ancestors_of(s, call)
                .is_some_and(|anc| runtime::in_main_guard(&anc));
        if !guarded {
            return None;
        }
        out.push(s.m);
    }
    Some(out)
}

/// Whether the seeding helper sets cudnn.benchmark itself (Point-MAE's
/// `set_random_seed(seed, deterministic)`: off when asked for determinism,
/// on otherwise) and is called in `b`'s function after `b`: wherever the
/// seed is set, the helper's value replaces `b`'s.
fn reset_after(code: &Code<'_>, chain: &Chain<'_>, b: &Site<'_>) -> bool {
    chain.links.iter().enumerate().skip(1).any(|(i, l)| {
        l.scope == b.scope
            && l.span.start >= b.span.end
            && chain.links[..i].iter().any(|inner| sets_benchmark(code, inner.scope))
    })
}

/// Whether `scope`'s own statements assign `torch.backends.cudnn.benchmark`
/// on a path its calls take: an assignment under `if deterministic:`, a
/// parameter off by default that no call of the helper passes (U2PL's
/// `set_random_seed(seed, deterministic=False)` called as
/// `set_random_seed(args.seed)`), never runs.
fn sets_benchmark(code: &Code<'_>, scope: Scope) -> bool {
    let Some(f) = scope.func() else {
        return false;
    };
    let mut found = false;
    code.prog.walk_stmts(scope, &mut |anc, s| {
        if let StmtKind::Assign { targets, .. } = &s.kind {
            if targets.iter().any(|t| is_benchmark(code, scope, t)) && !off_by_default(code, f, anc, s) {
                found = true;
            }
        }
    });
    found
}

/// Whether `s` sits in the body of an `if flag:` of function `f` whose
/// `flag` is a parameter defaulting to `False`, never rebound, that no call
/// of `f` passes.
fn off_by_default(code: &Code<'_>, f: crate::training::program::FuncId, anc: &[Anc<'_>], s: &Stmt) -> bool {
    let prog = code.prog;
    let Some(func) = prog.func(f) else {
        return false;
    };
    let mut child: *const Stmt = s;
    for a in anc.iter().rev() {
        let Anc::Stmt(st) = a else { continue };
        if let StmtKind::If { test, body, .. } = &st.kind {
            if body.iter().any(|b| std::ptr::eq(b, child)) {
                if let ExprKind::Name(n) = &test.kind {
                    if let Some(i) = func.params.iter().position(|p| p.name == *n) {
                        let off = func.params[i]
                            .default
                            .as_ref()
                            .is_some_and(|d| matches!(d.kind, ExprKind::Bool(false)));
                        let sites = prog.call_sites(f);
                        let passed = sites.iter().any(|(_, call)| match &call.kind {
                            ExprKind::Call { args, .. } => {
                                runtime::has_splat(args) || kw(args, n).is_some() || pos(args, i).is_some()
                            }
                            _ => true,
                        });
                        if off && !sites.is_empty() && !passed && prog.local_defs(f, n).len() == 1 {
                            return true;
                        }
                    }
                }
            }
        }
        child = *st;
    }
    false
}

/// Whether `target` is `torch.backends.cudnn.benchmark` (any import alias).
pub(super) fn is_benchmark(code: &Code<'_>, scope: Scope, target: &Expr) -> bool {
    matches!(&target.kind, ExprKind::Attribute { value, attr }
        if attr == "benchmark" && code.prog.external(scope, value).as_deref() == Some("torch.backends.cudnn"))
}

/// The finding for a benchmark assignment in seeded code.
pub(super) fn report_seeded(
    cx: &Cx<'_>,
    code: &Code<'_>,
    b: &Site<'_>,
    literal: Option<Span>,
    chain: &Chain<'_>,
    what: &str,
    out: &mut Sink<'_>,
) {
    let Some(seed) = chain.links.first() else { return };
    let file = code.file(seed.scope.m);
    let at = cx
        .compiled
        .sources
        .get(file)
        .map(|f| format!("{}:{}", f.name, f.line_col(seed.span.start).0))
        .unwrap_or_default();
    let d = out.at_loc(
        code.loc(b.scope.m, b.span),
        format!(
            "{what} in code that seeds torch for reproducibility (`{}` at {at}): cuDNN picks convolution algorithms by timing on each run, so two runs with the same seed can train differently; the seed does not make the run reproducible",
            chain.call
        ),
    );
    d.help("set torch.backends.cudnn.benchmark = False where runs must be reproducible (convolutions may be slower)");
    d.label(file, seed.span, "the seeding call");
    // The call of the seeding helper nearest to the assignment (none when
    // the seeding sits beside it).
    let helper = if seed.scope == b.scope {
        None
    } else {
        chain
            .links
            .iter()
            .skip(1)
            .find(|l| l.scope == b.scope)
            .or(chain.links.get(1))
    };
    if let Some(helper) = helper {
        d.label(code.file(helper.scope.m), helper.span, "calls the seeding helper");
    }
    if let Some(span) = literal {
        d.unsafe_fix(
            "turn benchmarking off",
            vec![crate::edit::replace(code.file(b.scope.m), span, "False")],
        );
    }
}
