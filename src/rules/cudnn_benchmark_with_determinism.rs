declare_rule! {
    /// ## What it checks
    /// An assignment of `True` to `torch.backends.cudnn.benchmark` (any import alias)
    /// in training code that also asks for deterministic results —
    /// `torch.use_deterministic_algorithms(True)`,
    /// `torch.backends.cudnn.deterministic = True` or
    /// `torch.set_deterministic_debug_mode(…)` — where both can hold together: not in
    /// the two arms of one `if`/`else`, and not in a branch whose condition is known
    /// to be false (an unset `--deterministic` flag). Also a determinism request
    /// made inside the function (or `__main__` block) that then starts the ranks
    /// with `torch.multiprocessing.spawn`, when the spawned code makes none itself:
    /// also through a seeding helper it calls (reported at that call), through a
    /// launcher helper whose body spawns the worker that runs the function it is
    /// handed (`launch(main_worker, …)`), and under a flag the run turns on
    /// (`if args.cudnn_deterministic:`), lost whenever the flag is given.
    /// Lightning's spellings count alike: `Trainer(benchmark=True)` sets
    /// `cudnn.benchmark`, `Trainer(deterministic=True)` asks for determinism.
    /// An assignment from a parameter (`cudnn.benchmark = benchmark` in a
    /// `set_initial_seed(self, benchmark)`) that the function's only call sets
    /// to a literal `True` is reported at that argument, where the fix goes.
    ///
    /// It also fires on a literal `cudnn.benchmark = True` in a program that seeds
    /// torch's global RNG with a reproducible value, under the same reach rules
    /// (same program, reachable, not a dead branch, not the other arm of one
    /// `if`/`else`; an assignment in a function called only from a script's
    /// main guard runs only in that script's program, not in the trainers
    /// that import the script's other helpers): `torch.manual_seed(x)`, `torch.cuda.manual_seed(_all)(x)`,
    /// `torch.random.manual_seed(x)`, Lightning's `seed_everything(x)`,
    /// `transformers.set_seed(x)`, `accelerate.utils.set_seed(x)`,
    /// `colossalai.utils.set_seed(x)`, timm's `random_seed(x, rank)` (also where
    /// a star import, `from timm.utils import *`, provides the name), MONAI's
    /// `set_determinism(x)` (which
    /// also turns benchmarking off; without a seed it seeds with its default,
    /// `seed=None` seeds nothing), or a project helper (one or two calls
    /// away: `fix_random_seeds(args.seed)`) whose body makes one of these calls.
    /// The seed counts as reproducible unless its value is drawn from the clock,
    /// `os.urandom`, `random`/`numpy.random`, `uuid`, `secrets`, `datetime`,
    /// `torch.seed()` or `torch.initial_seed()` wherever it comes from (an
    /// unresolved `args.seed`, a literal, an argparse default, a seed plus the
    /// rank and a configured seed drawn only when the options set none all
    /// count);
    /// `seed_everything()` without a seed does not count (Lightning 1.x draws a
    /// random seed, 2.x falls back to `PL_GLOBAL_SEED` or 0: no clear intent). Seeding
    /// only `random`/`numpy` does not count: it shows no intent to make torch's
    /// run reproducible. Silent in an evaluation script or function (`test.py`,
    /// `def test_pipeline`, `eval_*.py`, `inference.py`, `sample.py`) that trains
    /// nothing itself (at module level: no function of the module backpropagates;
    /// an `eval.py` whose `main` trains a linear probe trains), and where the assignment sits under an `if` whose
    /// condition names a benchmark/determinism/reproducibility flag
    /// (`if args.benchmark:`, `if not args.deterministic:`) or assigns a value
    /// other than the literal `True` (`= cfg.cudnn_benchmark`): a trade-off the
    /// user chose; a flag-guarded assignment beside a determinism request that
    /// sits under a condition of its own (`if deterministic:`) is left alone too:
    /// both are options the user picks. So is a request whose own function turns
    /// benchmarking off again (`cudnn.deterministic = True; cudnn.benchmark =
    /// False` in a seeding helper) and is called only after the assignment, in
    /// its function: wherever the request runs, it replaces the assignment. Likewise
    /// a seeding helper that sets `cudnn.benchmark` itself (off when its
    /// `deterministic` argument asks, on otherwise) and is called after the
    /// assignment in its function: wherever the seed is set, the helper decides —
    /// unless the helper's only assignment sits under a flag off by default that
    /// no call passes (`if deterministic:` in `set_random_seed(seed,
    /// deterministic=False)` called as `set_random_seed(args.seed)`), which never
    /// runs. Where the code also asks for
    /// determinism, that message wins.
    ///
    /// ## Why
    /// With benchmarking on, cuDNN times several convolution algorithms and keeps the
    /// fastest; timing noise can pick a different one in the next run, and results
    /// then differ between runs even though each algorithm is deterministic. Turn
    /// benchmarking off where results must be reproducible. A request made in the
    /// launching process does not reach ranks started by `mp.spawn`: each is a fresh
    /// interpreter that runs only the spawned function, so the ranks train with
    /// cuDNN's defaults (and without the seeds set beside the request). Make the
    /// request at the start of the spawned function. A fixed seed is the same
    /// promise: two runs with the same seed are expected to train alike, but
    /// with benchmarking on each run times the algorithms again and may pick
    /// others, so the seed does not make the run reproducible.
    ///
    /// ## Example
    /// ```python
    /// torch.use_deterministic_algorithms(True)
    /// torch.backends.cudnn.benchmark = True       # warning; fix: = False
    ///
    /// torch.manual_seed(args.seed)
    /// torch.backends.cudnn.benchmark = True       # warning; fix: = False
    /// ```
    pub static CUDNN_BENCHMARK_WITH_DETERMINISM = {
        code: "T108",
        name: "cudnn-benchmark-with-determinism",
        family: Training,
        severity: Warning,
        summary: "cudnn.benchmark = True in code that asks for deterministic results or seeds torch",
    };
}

use super::cudnn_benchmark_seeds::{evaluation_only, is_benchmark, nearest, report_seeded, seed_chains, speed_flag};
use super::training_support::{code, Code};
use super::{Cx, Sink};
use crate::source::Span;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{Anc, Callee, LocalDef, Scope};
use crate::training::runtime::{self, dead_branch, kw, pos};

/// A statement with its scope and ancestors.
pub(super) struct Site<'p> {
    pub(super) scope: Scope,
    pub(super) anc: Vec<Anc<'p>>,
    pub(super) stmt: &'p Stmt,
    pub(super) span: Span,
}

/// A benchmark switch: where, its literal `True` (the fix), what it is, and
/// the call that passes `True` into it where it is a parameter.
pub(super) type Benchmark<'p> = (Site<'p>, Option<Span>, &'static str, Option<Passed>);

/// A literal `True` passed into a benchmark switch's parameter.
pub(super) struct Passed {
    scope: Scope,
    /// The argument (`benchmark=True`).
    arg: Span,
    /// The `True` in it.
    value: Span,
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    let (benchmarks, requests) = switches(&code);
    let live = |site: &Site<'_>| !dead_branch(code.prog, code.cfg, code.rt, site.scope, &site.anc, site.stmt);
    // A request the run turns on with a flag (`if args.cudnn_deterministic:`,
    // off by default) is lost in the launching process all the same when
    // the flag is given.
    let flagged = |site: &Site<'_>| !off_whatever_the_flags(&code, site);
    let spawn_requests: Vec<&Site<'_>> = requests.iter().filter(|r| flagged(r)).collect();
    let requests: Vec<&Site<'_>> = requests.iter().filter(|r| live(r)).collect();
    before_spawn(&code, &spawn_requests, out);
    let chains = if benchmarks.is_empty() {
        Vec::new()
    } else {
        seed_chains(&code)
    };
    for (b, literal, what, passed) in &benchmarks {
        if !live(b) || never_constructed(&code, b.scope) {
            continue;
        }
        // A request in a program the assignment runs in too (the
        // experiment's, or a script named on the command line).
        let same = |r: &&&Site<'_>| code.prog.same_program(r.scope.m, b.scope.m);
        // Benchmarking behind a flag of its own and a request behind a
        // condition are two options the user picks (mmdetection's
        // `cfg.cudnn_benchmark` and `--deterministic`): whether both hold
        // is the user's choice, not the code's.
        let both_chosen = |r: &&&Site<'_>| {
            speed_flag(&code, b)
                && r.anc
                    .iter()
                    .any(|a| matches!(a, Anc::Stmt(s) if matches!(s.kind, StmtKind::If { .. })))
        };
        let Some(request) = requests
            .iter()
            .find(|r| same(r) && !exclusive(&code, b, r) && !both_chosen(r) && !overridden(&code, b, r))
        else {
            if literal.is_some() && !speed_flag(&code, b) && !evaluation_only(&code, b) {
                if let Some(chain) = nearest(&code, &chains, b) {
                    report_seeded(cx, &code, b, *literal, chain, what, out);
                }
            }
            continue;
        };
        // `set_initial_seed(benchmark=True)` → `cudnn.benchmark = benchmark`:
        // reported where the one call passes `True`, the edit that fixes it.
        if let Some(Passed { scope: ps, arg, value }) = passed {
            let d = out.at_loc(
                code.loc(ps.m, *arg),
                format!("`{}` turns cudnn.benchmark on, which lets cuDNN choose convolution algorithms by timing, so runs can differ, but this code asks for deterministic results", code.text(ps.m, *arg)),
            );
            d.help("pass False here where results must be reproducible");
            d.label(code.file(b.scope.m), b.span, "sets cudnn.benchmark from it");
            d.label(code.file(request.scope.m), request.span, "the determinism request");
            d.unsafe_fix(
                "turn benchmarking off",
                vec![crate::edit::replace(code.file(ps.m), *value, "False")],
            );
            continue;
        }
        let d = out.at_loc(
            code.loc(b.scope.m, b.span),
            format!("{what} lets cuDNN choose convolution algorithms by timing, so runs can differ, but this code asks for deterministic results"),
        );
        d.help("set torch.backends.cudnn.benchmark = False where results must be reproducible");
        d.label(code.file(request.scope.m), request.span, "the determinism request");
        if let Some(span) = literal {
            d.unsafe_fix(
                "turn benchmarking off",
                vec![crate::edit::replace(code.file(b.scope.m), *span, "False")],
            );
        }
    }
}

/// The benchmark switches and the determinism requests of the code: the
/// cuDNN assignments, Lightning's `Trainer(benchmark=…, deterministic=…)`
/// and torch's deterministic-algorithm calls, each where it is turned on.
pub(super) fn switches<'p>(code: &Code<'p>) -> (Vec<Benchmark<'p>>, Vec<Site<'p>>) {
    let mut benchmarks: Vec<Benchmark<'p>> = Vec::new();
    let mut requests: Vec<Site<'p>> = Vec::new();
    for scope in code.scopes(&["benchmark", "deterministic"]) {
        // Lightning's `Trainer(benchmark=True)` sets cudnn.benchmark;
        // `Trainer(deterministic=True)` asks for deterministic algorithms.
        code.prog.walk_exprs(scope, &mut |anc, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            if code.prog.external(scope, func).as_deref() != Some(runtime::TRAINER) {
                return;
            }
            let Some(stmt) = code.prog.stmt_of(anc) else { return };
            for a in args {
                let crate::training::ast::Arg::Kw { name, value, span, .. } = a else {
                    continue;
                };
                let on = runtime::is_true(code.prog, code.cfg, code.rt, scope, value) == Some(true);
                if !on || !matches!(value.kind, ExprKind::Bool(true)) && name == "deterministic" {
                    continue;
                }
                let site = Site {
                    scope,
                    anc: anc.to_vec(),
                    stmt,
                    span: *span,
                };
                match name.as_str() {
                    "benchmark" => {
                        let literal = matches!(value.kind, ExprKind::Bool(true)).then_some(value.span);
                        benchmarks.push((site, literal, "Trainer(benchmark=True)", None));
                    }
                    "deterministic" => requests.push(site),
                    _ => {}
                }
            }
        });
        code.prog.walk_stmts(scope, &mut |anc, s| match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    let ExprKind::Attribute { value: base, attr } = &t.kind else {
                        continue;
                    };
                    if code.prog.external(scope, base).as_deref() != Some("torch.backends.cudnn") {
                        continue;
                    }
                    let on = runtime::is_true(code.prog, code.cfg, code.rt, scope, value) == Some(true);
                    let site = Site {
                        scope,
                        anc: anc.to_vec(),
                        stmt: s,
                        span: s.span,
                    };
                    match attr.as_str() {
                        "benchmark" if on => {
                            let literal = matches!(value.kind, ExprKind::Bool(true)).then_some(value.span);
                            let passed = passed_true(code, scope, value);
                            benchmarks.push((site, literal, "cudnn.benchmark = True", passed));
                        }
                        "deterministic" if on => requests.push(site),
                        _ => {}
                    }
                }
            }
            StmtKind::Expr(e) => {
                let ExprKind::Call { func, args, .. } = &e.kind else {
                    return;
                };
                let path = code.prog.external(scope, func);
                let request = match path.as_deref() {
                    Some("torch.use_deterministic_algorithms" | "torch.set_deterministic") => {
                        kw(args, "mode")
                            .or_else(|| kw(args, "d"))
                            .or_else(|| pos(args, 0))
                            .and_then(|m| runtime::is_true(code.prog, code.cfg, code.rt, scope, m))
                            == Some(true)
                    }
                    Some("torch.set_deterministic_debug_mode") => {
                        pos(args, 0).or_else(|| kw(args, "debug_mode")).is_some_and(|m| {
                            !matches!(&m.kind, ExprKind::Int(0))
                                && !matches!(&m.kind, ExprKind::Str(s) if s == "default")
                        })
                    }
                    _ => false,
                };
                if request {
                    requests.push(Site {
                        scope,
                        anc: anc.to_vec(),
                        stmt: s,
                        span: e.span,
                    });
                }
            }
            _ => {}
        });
    }
    (benchmarks, requests)
}

/// Where `value`, a parameter of its function (`cudnn.benchmark =
/// benchmark`), is given a literal `True` by the function's only call: the
/// call's scope, the argument (`benchmark=True`, or the positional `True`)
/// and the `True` in it.
fn passed_true(code: &Code<'_>, scope: Scope, value: &Expr) -> Option<Passed> {
    let ExprKind::Name(n) = &value.kind else { return None };
    let prog = code.prog;
    let f = scope.func()?;
    let index = prog.func(f)?.params.iter().position(|p| p.name == *n)?;
    if prog.is_local(f, n) && !prog.local_defs(f, n).iter().all(|d| matches!(d, LocalDef::Param(_))) {
        return None;
    }
    let (site_scope, call, e) = prog.sole_binding(f, index, None)?;
    if !matches!(e.kind, ExprKind::Bool(true)) {
        return None;
    }
    // The whole keyword argument where there is one (`benchmark=True`).
    let ExprKind::Call { args, .. } = &call.kind else {
        return None;
    };
    let arg = args
        .iter()
        .find_map(|a| match a {
            crate::training::ast::Arg::Kw { value: v, span, .. } if std::ptr::eq(v, e) => Some(*span),
            _ => None,
        })
        .unwrap_or(e.span);
    Some(Passed {
        scope: site_scope,
        arg,
        value: e.span,
    })
}

/// Whether the request's own function turns benchmarking off after it
/// (`cudnn.deterministic = True; cudnn.benchmark = False` in an
/// `init_seeds(seed)`) and is called only from the function of the
/// benchmark assignment `b`, after it: wherever the request runs, it
/// replaces `b`'s value.
fn overridden(code: &Code<'_>, b: &Site<'_>, r: &Site<'_>) -> bool {
    let Some(f) = r.scope.func() else { return false };
    let mut off = false;
    code.prog.walk_stmts(r.scope, &mut |_, s| {
        let StmtKind::Assign { targets, value } = &s.kind else {
            return;
        };
        if s.span.start <= r.span.start || !matches!(value.kind, ExprKind::Bool(false)) {
            return;
        }
        off |= targets.iter().any(|t| is_benchmark(code, r.scope, t));
    });
    if !off {
        return false;
    }
    let sites = code.prog.call_sites(f);
    !sites.is_empty()
        && sites
            .iter()
            .all(|(s, call)| *s == b.scope && call.span.start >= b.span.end)
}

/// Whether two statements of one scope sit in the two arms of one `if`,
/// or in opposite arms of two sibling `if`s that ask the same question
/// (Palette's `if seed >= 0: torch.manual_seed(seed)` then `if seed >= 0:
/// cudnn.deterministic = True else: cudnn.benchmark = True`).
pub(super) fn exclusive(code: &Code<'_>, a: &Site<'_>, b: &Site<'_>) -> bool {
    if a.scope != b.scope {
        return false;
    }
    if same_question_apart(code, a, b) {
        return true;
    }
    for x in &a.anc {
        let Anc::Stmt(s) = x else { continue };
        let StmtKind::If { body, orelse, .. } = &s.kind else {
            continue;
        };
        if !b.anc.iter().any(|y| matches!(y, Anc::Stmt(t) if std::ptr::eq(*t, *s))) {
            continue;
        }
        let in_arm = |site: &Site<'_>, arm: &[Stmt]| {
            arm.iter().any(|st| std::ptr::eq(st, site.stmt))
                || site
                    .anc
                    .iter()
                    .any(|y| matches!(y, Anc::Stmt(t) if arm.iter().any(|st| std::ptr::eq(st, *t))))
        };
        if (in_arm(a, body) && in_arm(b, orelse)) || (in_arm(a, orelse) && in_arm(b, body)) {
            return true;
        }
    }
    false
}

/// Whether `a` and `b` sit in opposite arms of two `if`s of one block
/// whose tests read the same text.
fn same_question_apart(code: &Code<'_>, a: &Site<'_>, b: &Site<'_>) -> bool {
    // Each `if` enclosing the site, with the statement (or none, the
    // scope's body) it sits in, and whether the site is in its body.
    let ifs = |site: &Site<'_>| {
        let mut out = Vec::new();
        for (i, x) in site.anc.iter().enumerate() {
            let Anc::Stmt(s) = x else { continue };
            let StmtKind::If { test, body, .. } = &s.kind else {
                continue;
            };
            let parent = site.anc[..i].iter().rev().find_map(|y| match y {
                Anc::Stmt(t) => Some(*t as *const Stmt),
                _ => None,
            });
            let next = site.anc.get(i + 1).and_then(|y| match y {
                Anc::Stmt(t) => Some(*t),
                _ => None,
            });
            let holder = next.unwrap_or(site.stmt);
            let in_body = body.iter().any(|st| std::ptr::eq(st, holder));
            out.push((*s as *const Stmt, parent, code.text(site.scope.m, test.span), in_body));
        }
        out
    };
    let (xs, ys) = (ifs(a), ifs(b));
    xs.iter().any(|(s1, p1, t1, body1)| {
        ys.iter()
            .any(|(s2, p2, t2, body2)| s1 != s2 && p1 == p2 && !t1.is_empty() && t1 == t2 && body1 != body2)
    })
}

/// Whether a statement at module level sits under `if __name__ == "__main__":`
/// (code that a spawned interpreter, importing the module as `__mp_main__`,
/// does not run).
fn under_main_guard(anc: &[Anc<'_>]) -> bool {
    anc.iter().any(|a| {
        let Anc::Stmt(s) = a else { return false };
        let StmtKind::If { test, .. } = &s.kind else {
            return false;
        };
        let ExprKind::Compare { left, rest } = &test.kind else {
            return false;
        };
        let name = |e: &crate::training::ast::Expr| matches!(&e.kind, ExprKind::Name(n) if n == "__name__");
        let main = |e: &crate::training::ast::Expr| matches!(&e.kind, ExprKind::Str(v) if v == "__main__");
        match rest.as_slice() {
            [(op, right)] => op == "==" && ((name(left) && main(right)) || (main(left) && name(right))),
            _ => false,
        }
    })
}

/// Whether a site is in a branch that is off whatever the run's flags say:
/// its condition is false without an argparse default's say (a literal, a
/// constant); a branch off only by a flag's default may run.
pub(super) fn off_whatever_the_flags(code: &Code<'_>, site: &Site<'_>) -> bool {
    runtime::dead_branch_by(&site.anc, site.stmt, &|test| {
        if from_command_line(code, site.scope, test) {
            return None;
        }
        runtime::constant_or_default(code.prog, code.cfg, code.rt, site.scope, test)
            .filter(|r| r.default_at.is_none())
            .and_then(|r| r.as_bool())
    })
}

/// Whether a test reads the run's configuration (`args.cudnn_deterministic`,
/// `cfg.deterministic`), also through a helper's parameter the caller binds
/// to it.
fn from_command_line(code: &Code<'_>, scope: Scope, test: &Expr) -> bool {
    let prog = code.prog;
    let mut names: Vec<&Expr> = Vec::new();
    let mut stack = Vec::new();
    crate::training::program::walk_expr(test, &mut stack, &mut |_, n| {
        if let crate::training::program::Node::Expr(e) = n {
            if matches!(e.kind, ExprKind::Name(_) | ExprKind::Attribute { .. }) {
                names.push(e);
            }
        }
    });
    names.into_iter().take(8).any(|e| {
        prog.sources(scope, e)
            .terms
            .iter()
            .any(|t| runtime::run_configuration(prog, t))
    })
}

/// A fresh-interpreter spawn that follows a place in the launching
/// function: the spawn call, the scope it is in, the launcher helper's call
/// where it goes through one (`launch(main_worker, …)`), the functions the
/// ranks run (the spawned one, what it calls, and the functions handed to
/// the launcher) and the name of the function they run for messages.
pub(super) struct Spawn<'p> {
    pub(super) call: &'p Expr,
    pub(super) scope: Scope,
    pub(super) launcher: Option<&'p Expr>,
    pub(super) spawned: Vec<crate::training::program::FuncId>,
    /// The function the spawn starts (the launcher's worker for a launcher).
    pub(super) entry: crate::training::program::FuncId,
    pub(super) target: String,
}

/// The spawn of fresh interpreters (`mp.spawn`, `start_processes` not
/// forking) after `at` in `scope`: in the same function, or in a launcher
/// helper it calls after `at` whose body spawns a worker that runs the
/// function it was handed (detectron2's `launch`). Its target unresolved:
/// `None`.
pub(super) fn spawn_after<'p>(code: &Code<'p>, spawns: &[SpawnCall<'p>], scope: Scope, at: Span) -> Option<Spawn<'p>> {
    let prog = code.prog;
    let fresh = |call: &Expr| match &call.kind {
        ExprKind::Call { args, .. } => {
            !kw(args, "start_method").is_some_and(|m| matches!(&m.kind, ExprKind::Str(v) if v == "fork"))
        }
        _ => false,
    };
    let mut found: Option<(Scope, &'p Expr, Option<Launcher<'p>>)> = spawns
        .iter()
        .find(|(s, _, call, _)| *s == scope && call.span.start > at.end && fresh(call))
        .map(|(s, _, call, _)| (*s, *call, None));
    if found.is_none() {
        prog.walk_exprs(scope, &mut |_, e| {
            if found.is_some() || e.span.start <= at.end {
                return;
            }
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            let Callee::Func(l) = prog.callee(scope, func) else {
                return;
            };
            let Some((s, call)) = spawns
                .iter()
                .find(|(s, _, call, _)| s.func() == Some(l) && fresh(call))
                .map(|(s, _, call, _)| (*s, *call))
            else {
                return;
            };
            let handed: Vec<crate::training::program::FuncId> = args
                .iter()
                .filter_map(|a| match a {
                    crate::training::ast::Arg::Pos(v) | crate::training::ast::Arg::Kw { value: v, .. } => {
                        match prog.callee(scope, v) {
                            Callee::Func(g) => Some(g),
                            _ => None,
                        }
                    }
                    _ => None,
                })
                .collect();
            found = Some((s, call, Some((e, handed))));
        });
    }
    let (spawn_scope, call, via) = found?;
    let ExprKind::Call { args, .. } = &call.kind else {
        return None;
    };
    let target_expr = pos(args, 0).or_else(|| kw(args, "fn"))?;
    // The function the ranks run, and what it calls; unresolved: none.
    let Callee::Func(entry) = prog.callee(spawn_scope, target_expr) else {
        return None;
    };
    let mut starts = vec![entry];
    if let Some((_, handed)) = &via {
        // The launcher's worker calls the function it was handed.
        if handed.is_empty() {
            return None;
        }
        starts.extend(handed.iter().copied());
    }
    let mut spawned = Vec::new();
    for s0 in &starts {
        spawned.extend(prog.callees_of(s0.scope(), prog.body(s0.scope()), 4));
        spawned.push(*s0);
    }
    let target = match &via {
        Some((_, handed)) => handed.first().and_then(|g| prog.func(*g)).map_or_else(
            || code.text(spawn_scope.m, target_expr.span).to_string(),
            |f| f.name.clone(),
        ),
        None => code.text(scope.m, target_expr.span).to_string(),
    };
    let entry = match &via {
        Some((_, handed)) => handed.first().copied().unwrap_or(entry),
        None => entry,
    };
    Some(Spawn {
        call,
        scope: spawn_scope,
        launcher: via.map(|(l, _)| l),
        spawned,
        entry,
        target,
    })
}

/// A call of `torch.multiprocessing.spawn` or `start_processes`, as
/// [`runtime::calls`] lists it.
pub(super) type SpawnCall<'p> = (Scope, Vec<Anc<'p>>, &'p Expr, String);

/// The program's spawn calls, listed once per check.
pub(super) fn spawn_calls<'p>(code: &Code<'p>) -> Vec<SpawnCall<'p>> {
    runtime::calls(
        code.prog,
        &["torch.multiprocessing.spawn", "torch.multiprocessing.start_processes"],
    )
}

/// A launcher helper's call in the launching function, with the functions
/// of the code handed to it (`launch(main_worker, …)`).
type Launcher<'p> = (&'p Expr, Vec<crate::training::program::FuncId>);

/// Determinism requested in the launching process, which then starts the
/// ranks with `torch.multiprocessing.spawn`: the fresh interpreters never
/// run the request (nor the seeds set beside it). The request may sit in a
/// helper the launching function calls (`seed_everything(args.seed,
/// args.cudnn_deterministic)`: reported at that call), and the spawn in a
/// launcher helper it calls next (`launch(main_worker, …)` whose body calls
/// `mp.spawn(distributed_worker, args=(fn, …))`, detectron2's shape).
fn before_spawn(code: &Code<'_>, requests: &[&Site<'_>], out: &mut Sink<'_>) {
    let prog = code.prog;
    if requests.is_empty() {
        return;
    }
    let spawns = spawn_calls(code);
    if spawns.is_empty() {
        return;
    }
    let mut reported: Vec<(Scope, Span)> = Vec::new();
    for r in requests {
        // Where the request runs in the launching function: itself, or
        // the calls of the helper holding it (at most a few).
        let mut places: Vec<(Scope, Span, Vec<Anc<'_>>)> = vec![(r.scope, r.span, r.anc.clone())];
        if let Some(f) = r.scope.func() {
            let sites = prog.call_sites(f);
            if sites.len() <= 3 && !prog.escapes(f) {
                for (cs, call) in sites {
                    if let Some(a) = prog.ancestors_of(cs, call) {
                        places.push((cs, call.span, a));
                    }
                }
            }
        }
        for (scope, at, anc) in places {
            if reported.contains(&(scope, at)) || (scope.f.is_none() && !under_main_guard(&anc)) {
                continue;
            }
            let Some(spawn) = spawn_after(code, &spawns, scope, at) else {
                continue;
            };
            // The spawned code asks for determinism itself, or a module-level
            // request runs again when a spawned interpreter imports the module.
            if requests.iter().any(|o| {
                prog.same_program(o.scope.m, r.scope.m)
                    && (o.scope.func().is_some_and(|f| spawn.spawned.contains(&f))
                        || (o.scope.f.is_none() && !under_main_guard(&o.anc)))
            }) {
                continue;
            }
            let target = &spawn.target;
            let start_at = spawn.launcher.map_or(spawn.call.span, |l| l.span);
            // Seeds set in the launching function before the spawn, or in
            // the helper holding the request.
            let mut seeds: Vec<&str> = Vec::new();
            for (s, _, seed, path) in runtime::calls(
                prog,
                &[
                    "random.seed",
                    "numpy.random.seed",
                    "torch.manual_seed",
                    "torch.cuda.manual_seed",
                    "torch.cuda.manual_seed_all",
                ],
            ) {
                if (s == scope && seed.span.start < start_at.start) || (s == r.scope && r.scope != scope) {
                    let name = match path.as_str() {
                        "numpy.random.seed" => "np.random.seed",
                        "random.seed" => "random.seed",
                        "torch.manual_seed" => "torch.manual_seed",
                        _ => "torch.cuda.manual_seed",
                    };
                    if !seeds.contains(&name) {
                        seeds.push(name);
                    }
                }
            }
            reported.push((scope, at));
            let what = code.text(scope.m, at).lines().next().unwrap_or("").trim();
            let also = if seeds.is_empty() {
                String::new()
            } else {
                format!(
                    ", and the seeds set here ({}) do not reach them either",
                    seeds.join(", ")
                )
            };
            let d = out.at_loc(
                code.loc(scope.m, at),
                format!("`{what}` runs in the process that starts the ranks with mp.spawn; each spawned rank is a fresh interpreter that runs only `{target}`, so the ranks train without it{also}"),
            );
            if r.scope != scope {
                d.label(code.file(r.scope.m), r.span, "the request it makes");
            }
            d.label(code.file(spawn.scope.m), spawn.call.span, "starts fresh interpreters");
            if let Some(launch) = spawn.launcher {
                d.label(code.file(scope.m), launch.span, "through this launcher");
            }
            d.help(format!(
                "make the request{} at the start of `{target}`, which every rank runs",
                if seeds.is_empty() { "" } else { " and set the seeds" }
            ));
        }
    }
}

/// Whether `scope` is a method of a project class that no code of its
/// program instantiates, and that no other class derives from (an
/// inference-only stream loader next to the training loaders): the
/// assignment never runs in training.
fn never_constructed(code: &Code<'_>, scope: Scope) -> bool {
    let prog = code.prog;
    let Some(f) = scope.func() else { return false };
    let Some(k) = prog.class_of(f) else { return false };
    let Some(class) = prog.class(k) else { return false };
    let Some(init) = prog.method(k, "__init__") else {
        return false;
    };
    if init.m != k.m || init.c != k.c {
        // `__init__` inherited from a base: its call sites are the base's.
        return false;
    }
    let name = class.name.as_str();
    // A subclass (anywhere) may construct it through `super().__init__`.
    let derived = prog.classes_mentioning(&[name]).into_iter().any(|other| {
        other != k
            && prog
                .class(other)
                .is_some_and(|c| c.bases.iter().any(|b| code.text(other.m, b.span).contains(name)))
    });
    if derived {
        return false;
    }
    !prog
        .call_sites(init)
        .iter()
        .any(|(s, _)| prog.same_program(s.m, scope.m))
}
