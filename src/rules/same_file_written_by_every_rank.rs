declare_rule! {
    /// ## What it checks
    /// A `torch.save(obj, path)` that every rank of a multi-rank job runs, to a
    /// path that is the same on every rank: no test of the rank around it (`if
    /// rank == 0:`, `if accelerator.is_main_process:`, `if
    /// self.trainer.is_global_zero:`, an earlier `if rank != 0: return`), in
    /// its function or in the functions that call it (three calls up, every
    /// call site), not in a function decorated with Lightning's
    /// `@rank_zero_only`, and a path that reads no rank (`f"ckpt_{rank}.pt"`
    /// or a folder made per rank is each rank's own file). The path must be
    /// written as one: a string, an f-string, `os.path.join(…)`, a `Path`,
    /// or a parameter every call gives such a value; a buffer (`io.BytesIO`)
    /// or a path not followed is left alone. An f-string whose fields name a
    /// rank, process, device, host or time is taken as each rank's own.
    ///
    /// Silent in single-process code, in a function no code runs, on a branch
    /// no multi-rank run takes, and where any test of the rank guards the
    /// save (also the first process of each node, `rank % ngpus_per_node ==
    /// 0`, and a flag the module sets from one: `args.save_logs = args.logs
    /// and is_master(args)`, then `if args.save_logs:`). A test is read by
    /// its own names and attributes and what they were set to, not by what a
    /// call inside it reads: `if acc1 > best_acc1:` with `acc1 =
    /// validate(config, loader, model)` tests a metric, though `model` was
    /// built with `device_ids=[local_rank]`. Code that never reads a rank,
    /// the world size or the distributed setup, in its function, its class
    /// or three callers up, is one process's (an export or evaluation script
    /// that imports the trainer's helpers), and so is code that gives a
    /// world of its own as constants (`world_size=1, rank=0`). A path whose
    /// f-string fields name a local set to each rank's own folder
    /// (`logdir = f"{name}_rank_{dist.get_rank()}"`) is each rank's own, and
    /// so is a path that reads the item of a loop over data (`for prompt in
    /// prompts:` then `prompt[:32] + ".pt"`, often each rank's own share).
    ///
    /// Where some calls of the saving function are kept to one rank and
    /// others are not (`if iteration % n == 0 and save_to_disk:
    /// save_checkpoint(…)` in the loop, then a bare `save_checkpoint(…)`
    /// after it), the report goes to each call every rank runs, naming the
    /// save and a call that is kept to one rank. Not a call on another
    /// branch of the `if` that keeps the first one (`else: trainer.save()`
    /// after `if parallel:`), and not when the save sits under a test of
    /// the function's own parameters (`if model is not None:` in a helper
    /// that loads when given no model), nor where the call names each
    /// rank's own file in an f-string, nor where the only calls "kept" are
    /// in methods whose callers are not seen. A function wrapped by a
    /// decorator of the code that runs it on one rank (`@master_only`,
    /// whose wrapper tests `rank == 0`) is kept to one rank at every call.
    ///
    /// ## Why
    /// Each rank opens the file for writing on its own, and opening it
    /// truncates it: a rank that opens it while another is half-way through
    /// its write cuts that write short, and the writes interleave. The file
    /// left behind can be a torn zip archive that `torch.load` rejects, or,
    /// worse, one that loads and holds parts of different ranks' objects (a
    /// rank's own metrics, a model a few steps apart on ranks that drifted).
    /// On a filesystem shared by several nodes the writes also race across
    /// machines. The job itself goes on, so the damage shows up only when
    /// the checkpoint is read back. Write from one rank (the model is the
    /// same on every rank under DDP), or give each rank its own file.
    ///
    /// ## Example
    /// ```python
    /// for epoch in range(args.epochs):
    ///     train_one_epoch(model, loader, optimizer)
    ///     torch.save(model.state_dict(), os.path.join(args.output_dir, "last.pth"))  # warning
    ///
    /// # fix: save from one rank
    /// if dist.get_rank() == 0:
    ///     torch.save(model.module.state_dict(), os.path.join(args.output_dir, "last.pth"))
    /// ```
    pub static SAME_FILE_WRITTEN_BY_EVERY_RANK = {
        code: "T118",
        name: "same-file-written-by-every-rank",
        family: Training,
        severity: Warning,
        summary: "Every rank writes the same file with torch.save, so the writes race and can leave it torn",
    };
}

use super::training_support::{code, excerpt, Code};
use super::{Cx, Sink};
use crate::source::FileId;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::FuncId;
use crate::training::program::{Anc, Callee, Scope};
use crate::training::runtime::{self, kw, pos};
use std::collections::HashMap;

/// How many calls up the rank tests around a save are looked for.
const CALLERS_UP: u32 = 3;
/// Most call sites of one function looked at (any one under a test of
/// the rank keeps the save).
const MOST_SITES: usize = 16;

/// Parts of an f-string field that make the path each rank's own, or may
/// (a process id, a device, a host, the time).
const PER_PROCESS_WORDS: &[&str] = &[
    "rank", "gpu", "device", "proc", "pid", "host", "node", "worker", "time", "uuid", "random", "local",
];

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() {
        return;
    }
    let prog = code.prog;
    // The calls reported as forgotten (one report a call, however many
    // saves its function makes).
    let mut forgotten: Vec<(FileId, usize)> = Vec::new();
    // `may_run`'s answers, by function and depth (the same function saves
    // often, and helpers share callers).
    let mut runs: HashMap<(FuncId, u32), bool> = HashMap::new();
    for (scope, anc, call, _) in runtime::calls(prog, &["torch.save"]) {
        if !code.rt.world_at(prog, scope.m).distributed() {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        let Some(path) = pos(args, 1).or_else(|| kw(args, "f")) else {
            continue;
        };
        // Kept to one rank in its own function (the common case): nothing
        // to report, here or at its calls; asked first, as it is cheap.
        if kept_here(&code, scope, &anc, call as *const Expr as *const ()) {
            continue;
        }
        if !may_run(&code, scope, 0, &mut runs)
            || !rank_aware(&code, scope, &anc, 0)
            || !super::sampler_rng_shared_across_ranks::live(&code, scope, &anc, call)
            || !shared_path(&code, scope, &anc, path)
        {
            continue;
        }
        let shown = excerpt(code.text(scope.m, path.span));
        if rank_guarded(&code, scope, &anc, call as *const Expr as *const (), 0, false) {
            // Kept to one rank at some calls of its function: the calls
            // every rank runs beside them (a final `save_checkpoint(…)`
            // after the loop's guarded ones) are where the fix goes.
            for (s, site, kept_at) in forgotten_calls(&code, scope, &anc) {
                let key = (code.file(s.m), site.span.start);
                if forgotten.contains(&key) {
                    continue;
                }
                forgotten.push(key);
                let name = scope.func().and_then(|f| prog.func(f)).map_or("", |f| f.name.as_str());
                let d = out.at_loc(
                    code.loc(s.m, code.first_line(s.m, site.span)),
                    format!(
                        "every rank runs this call of `{name}`, which writes `{shown}` with `torch.save`, while its other calls are kept to one rank: each rank opens the file for writing on its own, truncating what another rank is still writing, so the file left behind can be torn or mix the ranks' writes"
                    ),
                );
                d.label(code.file(scope.m), call.span, "every rank writes here");
                d.label(
                    code.file(kept_at.0.m),
                    code.first_line(kept_at.0.m, kept_at.1.span),
                    "this call is kept to one rank",
                );
                d.help("keep this call to one rank as the others are (`if dist.get_rank() == 0:`)");
            }
            continue;
        }
        let d = out.at_loc(
            code.loc(scope.m, call.span),
            format!(
                "every rank runs this `torch.save` to the same path (`{shown}`): each rank opens the file for writing on its own, truncating what another rank is still writing, so the file left behind can be torn or mix the ranks' writes, and nothing fails until it is loaded"
            ),
        );
        d.help("save from one rank (`if dist.get_rank() == 0:`, `if accelerator.is_main_process:`, `if trainer.is_global_zero:`; under DDP every rank holds the same model), or put the rank in the file name where each rank saves its own data");
    }
}

/// Words of code that works with ranks (see [`rank_aware`]); not bare
/// "distributed", which licence headers say.
const RANK_AWARE_WORDS: &[&str] = &[
    "rank",
    "torch.distributed",
    "dist.",
    "DistributedDataParallel",
    "DDP(",
    "world_size",
    "init_process_group",
    "accelerator",
    "is_main_process",
    // Lightning's `trainer.fit(…)` runs the code after it on every device
    // the Trainer was given.
    "trainer.fit",
];

/// Whether the save sits in code that works with ranks: its function (or
/// its class, for a method; the top-level statement that runs it, at
/// module level) or a function that calls it, [`CALLERS_UP`] calls up,
/// names a rank, the world size or the distributed setup. A conversion or
/// export script that imports a trainer's helpers runs in a program with
/// ranks but saves in code that never sees them: it runs as one process.
fn rank_aware(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], depth: u32) -> bool {
    let prog = code.prog;
    let says = says_ranks;
    let Some(f) = scope.func() else {
        return match anc.first() {
            Some(Anc::Stmt(st)) => says(code.text(scope.m, st.span)),
            _ => false,
        };
    };
    let Some(func) = prog.func(f) else { return true };
    if says(code.text(f.m, func.span)) {
        return true;
    }
    if let Some(k) = prog.class_of(f) {
        if prog.class(k).is_some_and(|c| says(code.text(k.m, c.span))) {
            return true;
        }
    }
    depth < CALLERS_UP
        && prog.call_sites(f).iter().take(MOST_SITES).any(|(s, c)| {
            prog.ancestors_of(*s, c)
                .is_some_and(|a| rank_aware(code, *s, &a, depth + 1))
        })
}

/// Whether `text` says one of [`RANK_AWARE_WORDS`] other than as a
/// keyword given a constant (`init_pipe(…, world_size=1, rank=0)` makes
/// the one process its own world: it says there are no ranks).
fn says_ranks(text: &str) -> bool {
    RANK_AWARE_WORDS.iter().any(|w| {
        text.match_indices(w).any(|(at, _)| {
            let rest = &text[at + w.len()..];
            let Some(value) = rest.strip_prefix('=').filter(|v| !v.starts_with('=')) else {
                return true;
            };
            let constant = value.starts_with(|c: char| c.is_ascii_digit())
                || ["True", "False", "None"].iter().any(|k| value.starts_with(k));
            !constant
        })
    })
}

/// Whether the code of `scope` may run: module-level code, a method, or a
/// function some code that may run calls (not one only a library would).
fn may_run(code: &Code<'_>, scope: Scope, depth: u32, memo: &mut HashMap<(FuncId, u32), bool>) -> bool {
    let Some(f) = scope.func() else { return true };
    if let Some(v) = memo.get(&(f, depth)) {
        return *v;
    }
    let v = may_run_uncached(code, scope, depth, memo);
    memo.insert((f, depth), v);
    v
}

fn may_run_uncached(code: &Code<'_>, scope: Scope, depth: u32, memo: &mut HashMap<(FuncId, u32), bool>) -> bool {
    let prog = code.prog;
    let Some(f) = scope.func() else { return true };
    let Some(func) = prog.func(f) else { return true };
    if depth > 4 || prog.escapes(f) || prog.class_of(f).is_some() || prog.hydra_main(f).is_some() {
        return true;
    }
    // A function a decorator registers somewhere (a route, a task, a
    // command) is called by it; torch's and the standard library's
    // decorators (`@torch.no_grad()`, `@functools.lru_cache`) register
    // nothing.
    let def = prog.def_scope_of(f);
    let registers = |d: &Expr| {
        let head = match &d.kind {
            ExprKind::Call { func, .. } => &**func,
            _ => d,
        };
        !prog.external(def, head).is_some_and(|p| {
            p.starts_with("torch.")
                || p.starts_with("functools.")
                || p.starts_with("contextlib.")
                || p.starts_with("builtins.")
        })
    };
    if func.decorators.iter().any(registers) {
        return true;
    }
    prog.call_sites(f)
        .iter()
        .any(|(s, _)| may_run(code, *s, depth + 1, memo))
}

/// Whether a test of the rank decides whether `node` runs: an `if` around
/// it, an earlier `if …: return` (or `continue`, `raise`) in a block around
/// it, `@rank_zero_only` on its function, or the same at every call of its
/// function, [`CALLERS_UP`] calls up. With `tested`, only a test seen in
/// the code counts: a method whose callers are not seen is not taken as
/// kept to one rank.
fn rank_guarded(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], node: *const (), depth: u32, tested: bool) -> bool {
    let prog = code.prog;
    if kept_here(code, scope, anc, node) {
        return true;
    }
    let Some(f) = scope.func() else { return false };
    if depth >= CALLERS_UP {
        return false;
    }
    let mut sites = prog.call_sites(f);
    // A method no call of the code is seen to reach (`trainer.save()` on an
    // object not followed, a library's hook: transformers' `Trainer._save`
    // runs on the main process only): who calls it, and under which test, is
    // not known. Lightning's hooks run on every rank.
    if sites.is_empty() && prog.class_of(f).is_some() && !lightning_hook(code, f) {
        return !tested;
    }
    if sites.is_empty() {
        return false;
    }
    sites.truncate(MOST_SITES);
    // A call on the path a multi-rank run does not take (`else:
    // trainer.save()` after `if parallel:`, a module's own smoke test in its
    // `__main__` block) runs on one process; where some call is under a
    // test of the rank, the others are taken to be such paths too (the code
    // knows the save is one rank's). A call every rank runs, beside calls
    // on one-process paths only, keeps the save every rank's (a dataset's
    // cache written by its `__init__`, which the training script builds on
    // every rank and the module's smoke test builds once).
    // Each call: kept to one rank by a test (`Some(true)`), on a path that
    // runs as one process (`Some(false)`), or run by every rank (`None`).
    let kept: Vec<Option<bool>> = sites
        .into_iter()
        .map(|(s, call)| {
            let a = prog.ancestors_of(s, call)?;
            let at = call as *const Expr as *const ();
            if rank_guarded(code, s, &a, at, depth + 1, tested) {
                Some(true)
            } else if runtime::non_distributed_path(prog, s, &a, at) || code.rt.main_block_of_no_ranks(prog, s, &a) {
                Some(false)
            } else {
                None
            }
        })
        .collect();
    kept.contains(&Some(true)) || kept.iter().all(Option::is_some)
}

/// The calls of the function around a save that every rank runs, where
/// another call of it is kept to one rank by a test (with that call): the
/// save itself is not under a test, in its function or its callers'.
fn forgotten_calls<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>]) -> Vec<(Scope, &'p Expr, (Scope, &'p Expr))> {
    let prog = code.prog;
    let Some(f) = scope.func() else { return Vec::new() };
    // (`check` has already found the save not kept to one rank in its own
    // function: `kept_here` is asked there, first.)
    // A save under a test of the function's parameters (`if model is not
    // None:` in a helper that also loads) may not run at a given call.
    let params: Vec<&str> = prog
        .func(f)
        .map_or(Vec::new(), |x| x.params.iter().map(|p| p.name.as_str()).collect());
    let on_param = anc.iter().any(|a| match a {
        Anc::Stmt(st) => match &st.kind {
            StmtKind::If { test, .. } | StmtKind::While { test, .. } => super::skipped_nonfinite::names_in(test)
                .iter()
                .any(|n| params.contains(&n.as_str())),
            _ => false,
        },
        _ => false,
    });
    if on_param {
        return Vec::new();
    }
    let mut sites = prog.call_sites(f);
    sites.truncate(MOST_SITES);
    let mut kept = None;
    let mut every = Vec::new();
    for (s, site) in sites {
        let Some(a) = prog.ancestors_of(s, site) else { continue };
        let at = site as *const Expr as *const ();
        if rank_guarded(code, s, &a, at, 1, true) {
            kept.get_or_insert((s, site));
        } else if !runtime::non_distributed_path(prog, s, &a, at)
            && !code.rt.main_block_of_no_ranks(prog, s, &a)
            && code.rt.world_at(prog, s.m).distributed()
        {
            every.push((s, site));
        }
    }
    let Some(k) = kept else { return Vec::new() };
    // A call on another branch of the `if` that keeps the other call to
    // one rank (`if parallel: if rank == 0: trainer.save()` … `else:
    // trainer.save()`) is the path without ranks.
    every
        .into_iter()
        // A call that names each rank's own file (`save_state_dict(dir,
        // f"model/rank{get_global_rank()}.pt", …)`).
        .filter(|(s, site)| {
            let ExprKind::Call { args, .. } = &site.kind else {
                return false;
            };
            args.iter().all(|a| {
                let v = match a {
                    crate::training::ast::Arg::Pos(v) | crate::training::ast::Arg::Kw { value: v, .. } => v,
                    _ => return true,
                };
                fstrings_shared(code, *s, v)
            })
        })
        .filter(|(s, site)| {
            prog.ancestors_of(*s, site).is_some_and(|a| {
                !a.iter().any(|x| {
                    matches!(x, Anc::Stmt(st) if matches!(st.kind, StmtKind::If { .. })
                        && s.m == k.0.m && st.span.start <= k.1.span.start && k.1.span.end <= st.span.end)
                })
            })
        })
        .map(|(s, site)| (s, site, k))
        .collect()
}

/// Whether a test of the rank in the function of `scope` itself keeps
/// `node` to one rank: an `if` around it, an earlier `if …: return`,
/// `@rank_zero_only` or a decorator of the code that does the same.
fn kept_here(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], node: *const ()) -> bool {
    runtime::on_branch(anc, node, |test, _| rank_test(code, scope, test))
        || guard_before(code, scope, anc, node)
        || runtime::rank_zero_only_scope(code.prog, scope)
        || guarding_decorator(code, scope)
}

/// Whether the function of `scope` is wrapped by a decorator of the code
/// that runs it on one rank (BasicSR's `@master_only`, whose wrapper calls
/// the function under `if rank == 0:`): a decorator named for it, or one
/// whose own code tests the rank.
fn guarding_decorator(code: &Code<'_>, scope: Scope) -> bool {
    let prog = code.prog;
    let Some(f) = scope.func() else { return false };
    let Some(func) = prog.func(f) else { return false };
    let def = prog.def_scope_of(f);
    func.decorators.iter().any(|d| {
        let head = match &d.kind {
            ExprKind::Call { func, .. } => &**func,
            _ => d,
        };
        let named = match &head.kind {
            ExprKind::Name(n) | ExprKind::Attribute { attr: n, .. } => n.to_ascii_lowercase(),
            _ => return false,
        };
        if [
            "master_only",
            "main_process_only",
            "rank_zero",
            "rank0_only",
            "on_rank_0",
            "only_main",
        ]
        .iter()
        .any(|w| named.contains(w))
        {
            return true;
        }
        match prog.callee(def, head) {
            Callee::Func(g) => prog.func(g).is_some_and(|x| {
                let text = code.text(g.m, x.span);
                text.contains("rank") && (text.contains("== 0") || text.contains("!= 0"))
            }),
            _ => false,
        }
    })
}

/// Whether `f` is a hook Lightning calls on every rank: a method of a
/// `LightningModule` or a `Callback` named `on_…`, `…_step` or `…_epoch_end`.
fn lightning_hook(code: &Code<'_>, f: crate::training::program::FuncId) -> bool {
    let prog = code.prog;
    let (Some(k), Some(func)) = (prog.class_of(f), prog.func(f)) else {
        return false;
    };
    let name = func.name.as_str();
    let hook = name.starts_with("on_") || name.ends_with("_step") || name.ends_with("_epoch_end");
    hook && (runtime::lightning_module(prog, k)
        || prog
            .external_bases(k)
            .iter()
            .any(|b| b == "lightning.Callback" || b.starts_with("lightning.callbacks.")))
}

/// Whether `test` may read the rank: a rank expression, or a name that
/// says so (`cfg['RANK'] % ngpus == 0`, `is_master`, `trainer.is_global_zero`,
/// `args.main_process`): any of them keeps the save, where it is unsure,
/// the author's.
fn rank_test(code: &Code<'_>, scope: Scope, test: &Expr) -> bool {
    rank_test_at(code, scope, test, 0)
}

/// [`rank_test`], also through the local names the test reads (`val_cond
/// = (args.rank == 0) and …`, then `if val_cond:`), two names deep.
fn rank_test_at(code: &Code<'_>, scope: Scope, test: &Expr, depth: u32) -> bool {
    let prog = code.prog;
    if runtime::mentions_rank(prog, scope, test) {
        return true;
    }
    let text = code.text(scope.m, test.span).to_ascii_lowercase();
    if RANK_WORDS.iter().any(|w| text.contains(w)) {
        return true;
    }
    if depth >= 2 {
        return false;
    }
    let mut operands = Vec::new();
    test_operands(test, &mut operands);
    operands.iter().any(|x| match &x.kind {
        ExprKind::Name(n) => scope.func().is_some_and(|f| {
            prog.local_defs(f, n).iter().any(|d| match d {
                crate::training::program::LocalDef::Assign { value, .. } => rank_test_at(code, scope, value, depth + 1),
                _ => false,
            })
        }),
        // A flag kept on the arguments (`args.save_logs = args.logs and
        // is_master(args)` in `main`, then `if args.save_logs:` in the
        // training function it calls): what the module's code sets it to.
        ExprKind::Attribute { attr, .. } => {
            let operand = code.text(scope.m, x.span);
            let needles = [attr.as_str()];
            let chunks: Vec<u32> = prog.chunks_mentioning(scope.m, &needles).collect();
            let mut hit = false;
            for s in chunks.into_iter().flat_map(|c| prog.scopes(scope.m, c)) {
                prog.walk_stmts(s, &mut |_, st| {
                    if let StmtKind::Assign { targets, value, .. } = &st.kind {
                        if !hit && targets.iter().any(|t| code.text(s.m, t.span) == operand) {
                            hit = rank_test_at(code, s, value, depth + 1);
                        }
                    }
                });
                if hit {
                    break;
                }
            }
            hit
        }
        _ => false,
    })
}

/// The operands a test is made of: itself, or the operands of its `and`,
/// `or`, `not` and comparisons (`val_cond`, `is_best and args.save_now`),
/// names and attributes; not what a call or a subscript inside it reads
/// (`acc1 > best_acc1` with `acc1 = validate(cfg, loader, model)` reads no
/// rank, though `model` was built with `device_ids=[local_rank]`).
fn test_operands<'e>(test: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &test.kind {
        ExprKind::Name(_) | ExprKind::Attribute { .. } => out.push(test),
        ExprKind::Not(x) => test_operands(x, out),
        ExprKind::BoolOp { left, right, .. } => {
            test_operands(left, out);
            test_operands(right, out);
        }
        ExprKind::Compare { left, rest } => {
            test_operands(left, out);
            for (_, r) in rest {
                test_operands(r, out);
            }
        }
        _ => {}
    }
}

/// Words of a test that may read the rank (see [`rank_test`]).
const RANK_WORDS: &[&str] = &[
    "rank",
    "is_main",
    "main_process",
    "main_proc",
    "master",
    "global_zero",
    "is_zero",
    "chief",
    "primary",
    "leader",
    "first",
    "process_zero",
];

/// Whether a statement before `node`, in a block around it, sends some
/// ranks away on a test of the rank (`if not is_main_process(): return`).
fn guard_before(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], node: *const ()) -> bool {
    let prog = code.prog;
    let leaves = |b: &[Stmt]| {
        matches!(
            b.last().map(|s| &s.kind),
            Some(StmtKind::Return(_) | StmtKind::Raise(_) | StmtKind::Continue | StmtKind::Break)
        )
    };
    let sent_away = |block: &[Stmt], child: *const ()| {
        for st in block {
            if std::ptr::eq(st as *const Stmt as *const (), child) {
                return false;
            }
            if let StmtKind::If { test, body, orelse } = &st.kind {
                if (leaves(body) || leaves(orelse)) && rank_test(code, scope, test) {
                    return true;
                }
            }
        }
        false
    };
    let mut block: &[Stmt] = prog.body(scope);
    for (i, a) in anc.iter().enumerate() {
        let Anc::Stmt(s) = a else { return false };
        let next: *const () = match anc.get(i + 1) {
            Some(Anc::Stmt(n)) => *n as *const Stmt as *const (),
            Some(_) => return sent_away(block, *s as *const Stmt as *const ()),
            None => node,
        };
        if sent_away(block, *s as *const Stmt as *const ()) {
            return true;
        }
        block = match &s.kind {
            StmtKind::If { body, orelse, .. }
            | StmtKind::For { body, orelse, .. }
            | StmtKind::While { body, orelse, .. } => {
                if body.iter().any(|b| std::ptr::eq(b as *const Stmt as *const (), next)) {
                    body
                } else {
                    orelse
                }
            }
            StmtKind::With { body, .. } => body,
            StmtKind::Try { body, .. } => body,
            _ => return false,
        };
    }
    sent_away(block, node)
}

/// Whether `path` is a file path that reads no rank: every origin a path
/// written as one (a string, an f-string whose fields name nothing per
/// process, `os.path.join`, a `Path`, `str.format`, a concatenation), and
/// none depends on the rank.
fn shared_path(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], path: &Expr) -> bool {
    let prog = code.prog;
    if runtime::depends_on_rank(prog, scope, path) {
        return false;
    }
    let sources = prog.sources(scope, path);
    if sources.unknown || sources.terms.is_empty() {
        return false;
    }
    sources.terms.iter().all(|t| {
        if !t.proj.is_empty()
            || runtime::depends_on_rank(prog, t.scope, t.expr)
            || !fstrings_shared(code, t.scope, t.expr)
            || (t.scope == scope && per_item(code, scope, anc, t.expr))
            || (t.scope != scope && per_item(code, t.scope, &[], t.expr))
        {
            return false;
        }
        match &t.expr.kind {
            ExprKind::Str(_) => true,
            ExprKind::FString => fields_shared(code.text(t.scope.m, t.expr.span)),
            ExprKind::BinOp { op, .. } => op == "+" || op == "/",
            ExprKind::Call { func, .. } => match prog.callee(t.scope, func) {
                Callee::External(p) => matches!(
                    p.as_str(),
                    "os.path.join" | "pathlib.Path" | "pathlib.PurePath" | "posixpath.join" | "builtins.str"
                ),
                _ => matches!(&func.kind, ExprKind::Attribute { attr, value } if attr == "format" && matches!(value.kind, ExprKind::Str(_))),
            },
            _ => false,
        }
    })
}

/// Whether `e` names an item of a loop over data (`for prompt in
/// prompts:` then `prompt[:32] + ".pt"`): each item its own file, and the
/// items are often each rank's own share. A counter (`for epoch in
/// range(n)`, `enumerate`'s index) or a constant list's entry is the same
/// on every rank.
fn per_item(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], e: &Expr) -> bool {
    let prog = code.prog;
    let mut names = super::skipped_nonfinite::names_in(e);
    let mut stack = Vec::new();
    crate::training::program::walk_expr(e, &mut stack, &mut |_, n| {
        if let crate::training::program::Node::Expr(x) = n {
            if matches!(x.kind, ExprKind::FString) {
                names.extend(field_names(code.text(scope.m, x.span)));
            }
        }
    });
    // A loop around the save (also at module level) whose item the path
    // reads.
    let around = anc.iter().any(|a| match a {
        Anc::Stmt(st) => match &st.kind {
            StmtKind::For { target, iter, .. } => {
                matches!(&target.kind, ExprKind::Name(t) if names.iter().any(|n| n == t)) && !counted(code, scope, iter)
            }
            _ => false,
        },
        _ => false,
    });
    if around {
        return true;
    }
    let Some(f) = scope.func() else { return false };
    names.iter().any(|n| {
        prog.local_defs(f, n).iter().any(|d| match d {
            crate::training::program::LocalDef::Iter { iter, proj } => proj.is_empty() && !counted(code, scope, iter),
            _ => false,
        })
    })
}

/// Whether a loop over `iter` counts (`range(…)`, also wrapped in
/// `tqdm(…)`) or walks a constant list.
fn counted(code: &Code<'_>, scope: Scope, iter: &Expr) -> bool {
    match &iter.kind {
        ExprKind::List(_) | ExprKind::Tuple(_) => true,
        ExprKind::Call { func, args, .. } => match code.prog.callee(scope, func) {
            Callee::External(p) if p == "builtins.range" => true,
            Callee::External(p) if p.starts_with("tqdm.") => pos(args, 0).is_some_and(|a| counted(code, scope, a)),
            _ => false,
        },
        _ => false,
    }
}

/// Whether every f-string inside `e` (`os.path.join(out, f"preds_{rank}.pt")`)
/// names nothing per process in its fields.
fn fstrings_shared(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    fstrings_shared_at(code, scope, e, 0)
}

/// [`fstrings_shared`], also in what the local names `e` reads are bound
/// to (`opt_state_fn = f"optimizer.{dist.get_rank():05d}.pth"`), two names
/// deep.
fn fstrings_shared_at(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    let mut shared = true;
    // The names the f-strings' fields start with (`f"{logdir}/data.pt"`).
    let mut fields: Vec<String> = Vec::new();
    let mut stack = Vec::new();
    crate::training::program::walk_expr(e, &mut stack, &mut |_, n| {
        if let crate::training::program::Node::Expr(x) = n {
            if matches!(x.kind, ExprKind::FString) {
                let text = code.text(scope.m, x.span);
                shared &= fields_shared(text);
                fields.extend(field_names(text));
            }
        }
    });
    if !shared || depth >= 2 {
        return shared;
    }
    let Some(f) = scope.func() else { return true };
    let mut names = super::skipped_nonfinite::names_in(e);
    names.extend(fields);
    names.iter().all(|n| {
        code.prog.local_defs(f, n).iter().all(|d| match d {
            crate::training::program::LocalDef::Assign { value, .. } => {
                fstrings_shared_at(code, scope, value, depth + 1)
            }
            _ => true,
        })
    })
}

/// The fields of an f-string (its source text), outermost only, each
/// with what it nests (at most 16).
fn fstring_fields(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0u32;
    let mut field = String::new();
    for c in text.chars() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    field.clear();
                }
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 && out.len() < 16 {
                    out.push(std::mem::take(&mut field));
                }
            }
            _ if depth > 0 => field.push(c),
            _ => {}
        }
    }
    out
}

/// The names the fields of an f-string (its source text) start with:
/// `logdir` and `step` in `f"{logdir}/ckpt_{step:06d}.pt"`.
fn field_names(text: &str) -> Vec<String> {
    fstring_fields(text)
        .into_iter()
        .filter_map(|field| {
            let name: String = field
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                .then_some(name)
        })
        .collect()
}

/// Whether the fields of an f-string (its source text) name nothing that
/// differs between processes (see [`PER_PROCESS_WORDS`]).
fn fields_shared(text: &str) -> bool {
    fstring_fields(text).iter().all(|field| {
        let lower = field.to_ascii_lowercase();
        !PER_PROCESS_WORDS.iter().any(|w| lower.contains(w))
    })
}

#[cfg(test)]
mod tests {
    use super::{field_names, fields_shared};

    #[test]
    fn f_string_field_names_are_the_names_each_outer_field_starts_with() {
        assert_eq!(field_names("f\"{logdir}/ckpt_{step:06d}.pt\""), ["logdir", "step"]);
        assert_eq!(field_names("f\"{ args.out }/{x[0]}_{1 + n}\""), ["args", "x"]);
        assert_eq!(field_names("f\"{name:{width}}.pt\""), ["name"]);
        assert!(field_names("f'best.pt'").is_empty());
        assert_eq!(field_names(&"f\"{a}\"".repeat(40)).len(), 16);
    }

    #[test]
    fn f_string_fields_that_name_a_process_make_the_path_its_own() {
        assert!(fields_shared("f\"{args.output_dir}/checkpoint_{epoch:04d}.pth\""));
        assert!(fields_shared("f'best.pt'"));
        for own in [
            "f\"ckpt_{rank}.pt\"",
            "f\"{out}/{args.local_rank}.pth\"",
            "f\"{out}/emb_{dist.get_rank()}.pt\"",
            "f\"{out}/{socket.gethostname()}.pt\"",
            "f\"{out}/{time.time()}.pt\"",
            "f\"{out}/{device}.pt\"",
        ] {
            assert!(!fields_shared(own), "{own}");
        }
    }
}
