declare_rule! {
    /// ## What it checks
    /// A `try`/`except` in code that runs once per rank whose handler swallows
    /// the error (does not re-raise or exit on the path it takes) and so lets
    /// this rank run other collectives than the others:
    ///
    /// - the handler catches `OSError` (or a subclass: `FileNotFoundError`,
    ///   `IOError`, `PermissionError`, …), `RuntimeError` or
    ///   `torch.cuda.OutOfMemoryError` (the out-of-memory skip of a training
    ///   loop), `Exception`, `BaseException` or everything, and either leaves
    ///   with `continue`, `break` or `return` past a collective the normal path
    ///   runs, or guards a `try` body in which a collective follows the
    ///   statement that can fail — also inside a function of the training
    ///   code that the body calls, where a call that can fail comes before
    ///   one of its collectives (`evaluate_loop(…)` evaluating between two
    ///   barriers); not a collective the body runs on one rank only (`if
    ///   accelerator.is_main_process: … accelerator.save_state(…)`), in which
    ///   no other rank waits (T104 reports that guard);
    /// - the handler falls through with a fallback for a value the `try` reads
    ///   from a file (`epoch = 0` when the checkpoint cannot be read; not an
    ///   environment variable, the same on every rank), and that value bounds
    ///   the loop of the rank's steps (`for epoch in range(start_epoch,
    ///   epochs)` around a collective), in the same function or in a caller it
    ///   is returned to, with nothing rebinding it on the way (a later read in
    ///   a `try` whose handler goes on without it leaves the fallback where that
    ///   read fails too; a broadcast from
    ///   rank 0 is agreement; a rebinding under a flag that is a constant false,
    ///   `if skip_optimizer:` after `skip_optimizer = False`, runs on no rank;
    ///   `epoch += 1` inside the `try` moves the value read on). The fallback
    ///   may be a default set before the `try` (`epoch_str = 1`) that the read
    ///   replaces and the handler keeps. A
    ///   helper of the project's own (`utils.load_checkpoint(…)`, also through
    ///   its module) is taken to read a file; apex's DDP all-reduces in
    ///   backward like torch's;
    /// - the handler `continue`s past the `yield` of a generator — an
    ///   `IterableDataset`'s `__iter__` or a generator function that skips a
    ///   shard or record it cannot read (`OSError`, `ValueError`, `KeyError`,
    ///   …) — whose items reach a `for` loop that runs a collective: the rank
    ///   that skipped runs fewer steps. Left alone: a skip inside `while True`
    ///   (an endless stream), a handler that yields a replacement, a loop under
    ///   the DDP model's `join()`, and a single skipped item that a
    ///   `DataLoader` batches (the batch count changes only sometimes).
    ///
    /// A Lightning `training_step` (automatic optimization) that returns None
    /// from such a handler, on a non-finite loss of its own, or on a test of
    /// the batch it was handed (`if batch is None: return`), makes
    /// Lightning skip that rank's backward and optimizer step while the other
    /// ranks of a multi-device Trainer wait in the gradient all-reduce; a
    /// module that optimizes by hand, or a Trainer on one device, is left
    /// alone. A `LightningModule` whose programs do not show the Trainer (a
    /// class a config names) is taken to be fitted by the code's Trainer when
    /// one of them runs ranks.
    ///
    /// A handler that re-raises every error except an out-of-memory one
    /// (`if "out of memory" in str(e): …; continue` then `raise`, or
    /// `if "out of memory" not in str(e): raise`, also with a flag of the
    /// program's own: `if training and "out of memory" in str(e)`) is read on
    /// its out-of-memory branch; a condition about ranks
    /// (`and world_size == 1`) keeps it silent, and so does a branch that
    /// falls through to a `raise` after it (`if "out of memory" in str(e):
    /// log(…)` then `raise e`: every error ends the rank). Collectives:
    /// `torch.distributed` operations, a backward pass of a
    /// `DistributedDataParallel`/FSDP model or a DeepSpeed engine, Determined's
    /// `context.backward`/`step_optimizer`, `core.distributed.*`, Horovod and
    /// Accelerate synchronisation (`accelerator.backward` where Accelerate may
    /// wrap a model: not where every `prepare` is handed only dicts of modules,
    /// optimizers, loaders or objects of plain classes), and a Fabric's or a
    /// `LightningLite` subclass's own `barrier()` and `backward()`. The same holds for a step skipped on a
    /// non-finite loss (`if not math.isfinite(loss_value): continue`,
    /// `if torch.isnan(loss).any(): continue`, `if loss.isnan().item():
    /// continue` before a DeepSpeed engine's `engine_g.backward(loss)`) before such a collective, or the
    /// step loop left on one (`if torch.isnan(loss): break`) while the other ranks
    /// go on to the next step's: the loss
    /// is the rank's own, unless it was reduced across ranks first; a loop under
    /// the DDP model's `join()` context is left alone. The same holds for a
    /// step skipped on what the rank's own batch holds (`if any(len(t) < 1
    /// for t in targets): continue`, `if batch["lengths"].size(0) == 0:
    /// continue`, a clip made from the batch that is too short) in a loop
    /// over a loader, in a program that shards samples (each rank draws
    /// its own batches): a test that reads only the loop's counter, or
    /// what went through a gather or reduction first, or that asks a helper
    /// of the program which runs a collective itself (mmf's
    /// `validate_batch_sizes(n)`), is agreed across ranks and left alone, and so
    /// is `x is None` on what a component the object holds answered for the
    /// batch (`self.collector.collect_feedback(prompts)`, which may answer
    /// None for reasons of its own). So is a fallback after
    /// an earlier `try` whose read failure was only logged (its name unbound,
    /// the next `try` fails and falls back).
    /// A handler that re-raises only when a flag is off (`if fail_safe: …
    /// else: raise`) is read on the branch the flag takes on this run, where
    /// the flag is known (a parameter whose default every caller keeps, or
    /// passes as a constant). A method called on `self` (`self.train_epoch()`
    /// in a base trainer) is followed into the subclasses' overrides too.
    ///
    /// ## Why
    /// A collective completes only when every rank joins it. When a read fails on one
    /// rank only — a missing shard on one node, a flaky mount — or one rank runs out
    /// of memory on a large batch, and the handler logs and skips, that rank stops
    /// calling the collectives the others are waiting in (the gradient all-reduce of
    /// a DDP backward first), and the whole job hangs until the collective times
    /// out. Let the error propagate, or agree on skipping: record the failure in a
    /// flag, `all_reduce` it, and let every rank take the same decision; an
    /// out-of-memory batch can also be kept as a step with a zero loss.
    ///
    /// Left alone: handlers that run a collective themselves (also through
    /// helpers, two calls deep: a zero-loss forward and backward that catches
    /// up with the other ranks) or fall through to one, handlers that re-raise on the path that skips (a skip only when
    /// `get_world_size() == 1`, a helper of the program that always ends in
    /// `raise`), code that runs in one process, a `Dataset`'s
    /// `__getitem__` that returns another sample or `None` (the number of steps
    /// stays equal on every rank), loops that run no collective (an
    /// evaluation loop whose totals are all-reduced after it), and a `try`
    /// whose `finally` reports to a queue (`results_queue.put(("train_stopped",
    /// 1 + worker_id))`): the worker tells the process supervising it, which
    /// ends the job.
    ///
    /// ## Example
    /// ```python
    /// for path in my_shards:
    ///     try:
    ///         shard = torch.load(path)
    ///     except OSError:          # warning: `continue` skips loss.backward() (DDP all-reduce)
    ///         log.warning("skipping %s", path)
    ///         continue
    ///     loss = model(shard["x"]).mean()
    ///     loss.backward()
    /// ```
    pub static SWALLOWED_ERROR_SKIPS_COLLECTIVE = {
        code: "T103",
        name: "swallowed-error-skips-collective",
        family: Training,
        severity: Warning,
        summary: "An exception handler lets one rank skip a collective the other ranks enter",
    };
}

use super::training_support::{code, excerpt, Code};
use super::{Cx, Sink};
use crate::training::ast::{Arg, Expr, ExprKind, Handler, Stmt, StmtKind};
use crate::training::program::{blocks_of, walk_stmt, Anc, Node, Scope, Sym};
use crate::training::runtime::{self, first_collective};

const OS_ERRORS: &[&str] = &[
    "OSError",
    "IOError",
    "EnvironmentError",
    "FileNotFoundError",
    "PermissionError",
    "IsADirectoryError",
    "NotADirectoryError",
    "TimeoutError",
    "ConnectionError",
    "BlockingIOError",
    "InterruptedError",
];
const BROAD: &[&str] = &["Exception", "BaseException"];
/// What a CUDA allocation failure raises (`torch.cuda.OutOfMemoryError` is
/// a `RuntimeError`).
const RUNTIME_ERRORS: &[&str] = &["RuntimeError", "OutOfMemoryError"];
/// What reading a bad record raises (read only for a generator's skip).
const DATA_ERRORS: &[&str] = &[
    "ValueError",
    "KeyError",
    "IndexError",
    "JSONDecodeError",
    "UnicodeDecodeError",
    "UnidentifiedImageError",
    "DecompressionBombError",
    "EOFError",
];

/// What a handler catches.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Caught {
    Io,
    /// `RuntimeError` or an out-of-memory error: any call into torch can
    /// raise it.
    Runtime,
    Broad,
    /// A bad record (`ValueError`, `KeyError`, …): only a generator's skip
    /// is read for these.
    Data,
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() {
        return;
    }
    let ddp = runtime::data_parallel_model(code.prog, code.rt);
    super::skipped_nonfinite::nonfinite_skips(&code, ddp, out);
    super::skipped_local_batch::batch_skips(&code, ddp, out);
    super::skipped_lightning_step::lightning_step_skips(&code, out);
    for scope in code.scopes(&["except"]) {
        if !code.rt.world_at(code.prog, scope.m).distributed() {
            continue;
        }
        let mut found = Vec::new();
        let mut fallbacks = Vec::new();
        let mut unevens = Vec::new();
        code.prog.walk_stmts(scope, &mut |anc, s| {
            let StmtKind::Try {
                body,
                handlers,
                finalbody,
                ..
            } = &s.kind
            else {
                return;
            };
            // A worker that reports its end to the process that started it
            // (`finally: results_queue.put(("train_stopped", 1 + worker_id))`):
            // that supervisor learns of the failure and ends the job.
            if reports_to_parent(&code, scope, finalbody) {
                return;
            }
            for h in handlers {
                let Some(caught) = caught(&code, scope, h) else {
                    continue;
                };
                let Some((path, oom_branch)) = swallowing_path(&code, scope, h) else {
                    continue;
                };
                let oom = oom_branch || caught.0 == Caught::Runtime;
                let caught = match oom_branch {
                    true => (caught.0, format!("{} (out of memory)", caught.1)),
                    false => caught,
                };
                if first_collective(code.prog, scope, path, ddp, 2).is_some() {
                    continue;
                }
                if caught.0 == Caught::Data {
                    if let Some(rest) = rest_of_loop(anc, s) {
                        if let Some(u) = super::skipped_yield::uneven(&code, scope, anc, &rest, path, ddp) {
                            unevens.push((h.keyword, caught.1.clone(), u));
                            break;
                        }
                    }
                    continue;
                }
                if let Some(hit) = skipped(&code, scope, anc, s, body, path, caught.clone(), ddp) {
                    found.push((h.keyword, oom, hit));
                    break;
                }
                if let Some(rest) = rest_of_loop(anc, s) {
                    if let Some(u) = super::skipped_yield::uneven(&code, scope, anc, &rest, path, ddp) {
                        unevens.push((h.keyword, caught.1.clone(), u));
                        break;
                    }
                }
                let leaves = matches!(
                    path.last().map(|x| &x.kind),
                    Some(StmtKind::Continue | StmtKind::Break | StmtKind::Return(_))
                );
                // A fallback after a read (a file, a checkpoint): what fails
                // on one rank only. An environment variable or an argument
                // is the same on every rank.
                let reads = body.iter().any(|st| can_raise(&code, scope, st, Caught::Io))
                    || reads_earlier_read(&code, scope, s, body);
                if !leaves && reads {
                    if let Some(fb) = super::swallowed_fallback::fallback(&code, scope, s, body, path, ddp) {
                        fallbacks.push((h.keyword, caught.1, fb));
                        break;
                    }
                }
            }
        });
        let others = match code.rt.world_at(code.prog, scope.m) {
            runtime::World::Ranks(Some(n)) if n > 1 => format!("the other {} ranks", n - 1),
            _ => "the other ranks".to_string(),
        };
        for (at, oom, (exc, exit, skipped_scope, call, c)) in found {
            let what = match c.kind.as_str() {
                "backward" => format!("`{}` (the gradient all-reduce)", excerpt(&c.label)),
                _ => format!("`{}`", excerpt(&c.label)),
            };
            let d = out.at_loc(
                code.loc(scope.m, at),
                format!("this handler swallows {exc} and {exit}: the rank it happens on skips {what} while {others} wait in it, and the job hangs until the collective times out"),
            );
            let help = if oom {
                "agree across ranks before skipping: all_reduce an out-of-memory flag and let every rank skip the batch together, or keep the step on every rank with a zero loss (`loss = model(x).sum() * 0`)"
            } else {
                "let the error propagate, or agree on skipping: record the failure in a flag, all_reduce it, and let every rank take the same decision"
            };
            d.help(help);
            d.label(code.file(skipped_scope.m), call.span, "the collective this rank skips");
        }
        for (at, exc, u) in unevens {
            let (cs, call, c) = &u.collective;
            let what = match c.kind.as_str() {
                "backward" => format!("`{}` (the gradient all-reduce)", excerpt(&c.label)),
                _ => format!("`{}`", excerpt(&c.label)),
            };
            let (ls, st) = u.consumer;
            let head_span = code.first_line(ls.m, st.span);
            let head = code.text(ls.m, head_span);
            let d = out.at_loc(
                code.loc(scope.m, at),
                format!(
                    "this handler swallows {exc} and `continue`s past the generator's `yield`: the rank where it happens yields fewer items, leaves `{}` early, and {others} wait in {what} of the steps it no longer runs until the collective times out",
                    excerpt(head),
                ),
            );
            d.help("yield a replacement item instead of skipping (every rank keeps the same count), or run the loop under the DDP model's `join()` context, which handles uneven inputs");
            d.label(code.file(ls.m), head_span, "the loop that ends early on that rank");
            d.label(code.file(cs.m), call.span, "the collective the other ranks wait in");
        }
        for (at, exc, fb) in fallbacks {
            let (cs, call, c) = &fb.collective;
            let what = match c.kind.as_str() {
                "backward" => format!("`{}` (the gradient all-reduce)", excerpt(&c.label)),
                _ => format!("`{}`", excerpt(&c.label)),
            };
            let (rs, range) = fb.range;
            let how = if fb.kept { "keeps the default" } else { "falls back to" };
            let d = out.at_loc(
                code.loc(scope.m, at),
                format!(
                    "this handler swallows {exc} and {how} `{}`, which sets the loop `{}`: a rank whose read fails runs a different number of steps than {others}, so the ranks stop pairing {what} and the job hangs at the end",
                    excerpt(code.text(scope.m, fb.assign.span)),
                    excerpt(code.text(rs.m, range.span)),
                ),
            );
            d.help("let the error propagate, or make every rank use the same value: broadcast it from rank 0 (or all_reduce it with MIN) before the loop");
            d.label(code.file(rs.m), range.span, "the loop this value bounds");
            d.label(code.file(cs.m), call.span, "the collective its steps run");
        }
    }
}

/// Whether statements put something on a queue (`queue.put(…)`,
/// `put_nowait(…)`): a worker's message to the process that supervises it.
fn reports_to_parent(code: &Code<'_>, scope: Scope, stmts: &[Stmt]) -> bool {
    use crate::training::program::{walk_stmt, Node};
    let prog = code.prog;
    let mut found = false;
    let mut stack = Vec::new();
    for st in stmts {
        walk_stmt(st, &mut stack, &mut |_, n| {
            let Node::Expr(e) = n else { return };
            let ExprKind::Call { func, .. } = &e.kind else { return };
            let ExprKind::Attribute { attr, .. } = &func.kind else {
                return;
            };
            if matches!(attr.as_str(), "put" | "put_nowait") {
                // Not an HTTP client's `requests.put(…)`.
                found |= prog.external(scope, func).is_none_or(|p| !p.starts_with("requests."));
            }
        });
    }
    found
}

pub(super) fn caught(code: &Code<'_>, scope: Scope, h: &Handler) -> Option<(Caught, String)> {
    let Some(types) = &h.types else {
        return Some((Caught::Broad, "every exception".to_string()));
    };
    let items: Vec<&Expr> = match &types.kind {
        ExprKind::Tuple(items) => items.iter().collect(),
        _ => vec![types],
    };
    let mut best: Option<(Caught, String)> = None;
    for t in items {
        let name = match code.prog.expr_sym(scope, t) {
            Some(Sym::External(p)) => p.rsplit('.').next().unwrap_or("").to_string(),
            Some(_) => continue,
            None => match &t.kind {
                ExprKind::Name(n) => n.clone(),
                ExprKind::Attribute { attr, .. } => attr.clone(),
                _ => continue,
            },
        };
        if BROAD.contains(&name.as_str()) {
            return Some((Caught::Broad, format!("`{name}`")));
        }
        if RUNTIME_ERRORS.contains(&name.as_str()) && best.as_ref().is_none_or(|(c, _)| *c == Caught::Io) {
            best = Some((Caught::Runtime, format!("`{name}`")));
        }
        if OS_ERRORS.contains(&name.as_str()) && best.as_ref().is_none_or(|(c, _)| *c == Caught::Data) {
            best = Some((Caught::Io, format!("`{name}`")));
        }
        if DATA_ERRORS.contains(&name.as_str()) && best.is_none() {
            best = Some((Caught::Data, format!("`{name}`")));
        }
    }
    best
}

/// The statements of a handler on the path that swallows the error: the
/// whole body when it never re-raises, or the branch that handles an
/// out-of-memory error when only the other errors are re-raised
/// (`if "out of memory" in str(e): …; continue` then `raise`, or
/// `if "out of memory" not in str(e): raise` then the recovery), with
/// whether it is that branch. `None` when every path may re-raise or end
/// the process.
pub(super) fn swallowing_path<'p>(code: &Code<'_>, scope: Scope, h: &'p Handler) -> Option<(&'p [Stmt], bool)> {
    if !reraises(code, scope, &h.body) {
        return Some((&h.body, false));
    }
    let var = h.name.as_deref();
    for (i, s) in h.body.iter().enumerate() {
        let StmtKind::If { test, body, orelse } = &s.kind else {
            // Only statements that cannot leave may come before the test.
            if leaves(code, scope, s) {
                return None;
            }
            continue;
        };
        return match oom_test(code, scope, test, var) {
            // `if oom: recover` — the recovery must not re-raise, and must
            // leave the handler where the rest of it may raise (`if oom:
            // log(…)` then `raise e` swallows nothing).
            Some(true)
                if !reraises(code, scope, body) && (jumps_out(body) || !reraises(code, scope, &h.body[i + 1..])) =>
            {
                Some((body.as_slice(), true))
            }
            // `if not oom: raise` — the rest of the handler is the recovery.
            Some(false) if always_raises(body) && orelse.is_empty() && !reraises(code, scope, &h.body[i + 1..]) => {
                Some((&h.body[i + 1..], true))
            }
            Some(_) => None,
            // `if fail_safe: recover … else: raise` on a flag known on this
            // run (a parameter whose default no caller changes): the branch
            // the flag takes, when it neither re-raises nor falls through to
            // a raise.
            None => {
                let taken = match runtime::is_true(code.prog, code.cfg, code.rt, scope, test)? {
                    true => body.as_slice(),
                    false => orelse.as_slice(),
                };
                (!reraises(code, scope, taken) && (jumps_out(taken) || !reraises(code, scope, &h.body[i + 1..])))
                    .then_some((taken, false))
            }
        };
    }
    None
}

/// Whether `test` asks whether the caught error is an out-of-memory error
/// (`Some(true)`), or that it is not (`Some(false)`).
fn oom_test(code: &Code<'_>, scope: Scope, test: &Expr, var: Option<&str>) -> Option<bool> {
    match &test.kind {
        ExprKind::Not(inner) => oom_test(code, scope, inner, var).map(|b| !b),
        // `training and "out of memory" in str(e)`: the recovery runs on an
        // out-of-memory error when a flag of the program's own is set —
        // unless the flag is about ranks (`world_size == 1`), which keeps a
        // multi-rank job on the raising path.
        ExprKind::BoolOp { and: true, left, right } => {
            let other = match (oom_test(code, scope, left, var), oom_test(code, scope, right, var)) {
                (Some(true), None) => right,
                (None, Some(true)) => left,
                _ => return None,
            };
            let text = code.text(scope.m, other.span).to_ascii_lowercase();
            let about_ranks = [
                "world", "rank", "dist", "ddp", "gpu", "single", "raise", "parallel", "size",
            ]
            .iter()
            .any(|w| text.contains(w));
            (!about_ranks).then_some(true)
        }
        ExprKind::Compare { left, rest } if rest.len() == 1 => {
            let (op, right) = &rest[0];
            let ExprKind::Str(s) = &left.kind else { return None };
            if !s.to_ascii_lowercase().contains("out of memory") || !mentions_error(right, var?) {
                return None;
            }
            match op.as_str() {
                "in" => Some(true),
                "not in" => Some(false),
                _ => None,
            }
        }
        ExprKind::Call { func, args, .. } if matches!(&func.kind, ExprKind::Name(n) if n == "isinstance") => {
            let [Arg::Pos(a), Arg::Pos(t)] = args.as_slice() else {
                return None;
            };
            if !matches!(&a.kind, ExprKind::Name(n) if Some(n.as_str()) == var) {
                return None;
            }
            let name = match code.prog.expr_sym(scope, t) {
                Some(Sym::External(p)) => p,
                _ => return None,
            };
            name.ends_with("OutOfMemoryError").then_some(true)
        }
        _ => None,
    }
}

/// `str(e)`, `repr(e)`, `e.args[0]`, `str(e).lower()`: the text of the
/// caught error.
fn mentions_error(e: &Expr, var: &str) -> bool {
    match &e.kind {
        ExprKind::Name(n) => n == var,
        ExprKind::Call { func, args, .. } => match &func.kind {
            ExprKind::Name(f) if f == "str" || f == "repr" => {
                matches!(args.as_slice(), [Arg::Pos(a)] if mentions_error(a, var))
            }
            ExprKind::Attribute { value, attr } if attr == "lower" && args.is_empty() => mentions_error(value, var),
            _ => false,
        },
        ExprKind::Subscript { value, .. } => {
            matches!(&value.kind, ExprKind::Attribute { value: v, attr } if attr == "args" && mentions_error(v, var))
        }
        _ => false,
    }
}

/// Whether a statement of a handler may leave it (raise, exit, `continue`,
/// `break`, `return`).
fn leaves(code: &Code<'_>, scope: Scope, s: &Stmt) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    walk_stmt(s, &mut stack, &mut |_, n| {
        if let Node::Stmt(st) = n {
            if matches!(
                st.kind,
                StmtKind::Raise(_) | StmtKind::Continue | StmtKind::Break | StmtKind::Return(_)
            ) {
                found = true;
            }
        }
    });
    found || reraises(code, scope, std::slice::from_ref(s))
}

/// Whether a block ends by leaving the handler for the loop or the caller
/// (`continue`, `break`, `return`).
fn jumps_out(body: &[Stmt]) -> bool {
    matches!(
        body.last().map(|s| &s.kind),
        Some(StmtKind::Continue | StmtKind::Break | StmtKind::Return(_))
    )
}

/// Whether a block ends in `raise` on its only path.
fn always_raises(body: &[Stmt]) -> bool {
    matches!(body.last().map(|s| &s.kind), Some(StmtKind::Raise(_)))
}

/// Whether a handler raises or ends the process on some path.
fn reraises(code: &Code<'_>, scope: Scope, body: &[Stmt]) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    for s in body {
        walk_stmt(s, &mut stack, &mut |_, n| match n {
            Node::Stmt(st) if matches!(st.kind, StmtKind::Raise(_)) => found = true,
            Node::Expr(e) => {
                if let ExprKind::Call { func, .. } = &e.kind {
                    if let Some(p) = code.prog.external(scope, func) {
                        if matches!(p.as_str(), "sys.exit" | "os._exit" | "builtins.exit" | "os.abort") {
                            found = true;
                        }
                    }
                    if let ExprKind::Name(n) = &func.kind {
                        if n == "exit" || n == "quit" {
                            found = true;
                        }
                    }
                    // A helper of the program that always ends in `raise`
                    // (`log_and_raise(e)`).
                    if let crate::training::program::Callee::Func(f) = code.prog.callee(scope, func) {
                        let body = code.prog.body(f.scope());
                        if matches!(body.last().map(|s| &s.kind), Some(StmtKind::Raise(_))) {
                            found = true;
                        }
                    }
                }
            }
            _ => {}
        });
    }
    found
}

type Hit<'p> = (String, String, Scope, &'p Expr, runtime::Collective);

/// The collective a handler makes this rank skip, with what it catches and
/// how it leaves.
#[allow(clippy::too_many_arguments)]
fn skipped<'p>(
    code: &Code<'p>,
    scope: Scope,
    anc: &[Anc<'p>],
    try_stmt: &'p Stmt,
    body: &'p [Stmt],
    path: &'p [Stmt],
    (caught, exc): (Caught, String),
    ddp: bool,
) -> Option<Hit<'p>> {
    let prog = code.prog;
    // (b) a collective after the first statement that can raise.
    let mut armed = false;
    for s in body {
        if !armed && can_raise(code, scope, s, caught) {
            armed = true;
            // The collective may be in this statement, after the call.
            if let Some((s, (cs, call, c))) = shared_collective(code, scope, s, ddp) {
                if call.span.start > first_raising_call(code, scope, s, caught).unwrap_or(usize::MAX) {
                    return Some((exc, "jumps past the rest of the try block".into(), cs, call, c));
                }
                if raises_then_collective(code, scope, call, caught, ddp, 1) {
                    let name = match &call.kind {
                        ExprKind::Call { func, .. } => code.text(scope.m, func.span),
                        _ => "",
                    };
                    let exit = format!("leaves `{}` part-way when it raises there", excerpt(name));
                    return Some((exc, exit, cs, call, c));
                }
            }
            continue;
        }
        if armed {
            if let Some((_, (cs, call, c))) = shared_collective(code, scope, s, ddp) {
                return Some((exc, "jumps past the rest of the try block".into(), cs, call, c));
            }
        }
    }
    if !armed {
        return None;
    }
    // (a) the handler leaves the block: at its end, or in a branch of it
    // (`if len(all_ckpt) < 2: return …` before a second try).
    let exits = |st: &Stmt| matches!(st.kind, StmtKind::Continue | StmtKind::Break | StmtKind::Return(_));
    let last = match path.last() {
        Some(st) if exits(st) => st,
        _ => path.iter().find_map(|st| match &st.kind {
            StmtKind::If { body, .. } => body.last().filter(|b| exits(b)),
            _ => None,
        })?,
    };
    let (exit, region) = match &last.kind {
        StmtKind::Continue => ("continues the loop", rest_of_loop(anc, try_stmt)?),
        StmtKind::Break => ("leaves the loop", loop_body(anc)?),
        StmtKind::Return(_) => ("returns", rest_of_function(prog.body(scope), anc, try_stmt)),
        _ => return None,
    };
    for stmts in region {
        if let Some((cs, call, c)) = first_collective(prog, scope, stmts, ddp, 2) {
            return Some((exc, exit.to_string(), cs, call, c));
        }
    }
    None
}

/// The first collective statement `s` reaches that is not kept to one
/// rank, with the statement it is in: in an `if rank == 0: train(…) else:
/// train(…)`, the `else` arm's (whose ranks run only that arm).
type Reached<'p> = (&'p Stmt, (Scope, &'p Expr, runtime::Collective));

fn shared_collective<'p>(code: &Code<'p>, scope: Scope, s: &'p Stmt, ddp: bool) -> Option<Reached<'p>> {
    let prog = code.prog;
    let found = first_collective(prog, scope, std::slice::from_ref(s), ddp, 2)?;
    if !kept_to_one_rank(code, found.0, found.1) {
        return Some((s, found));
    }
    let StmtKind::If { body, orelse, .. } = &s.kind else {
        return None;
    };
    body.iter().chain(orelse).find_map(|st| {
        first_collective(prog, scope, std::slice::from_ref(st), ddp, 2)
            .filter(|(cs, call, _)| !kept_to_one_rank(code, *cs, call))
            .map(|f| (st, f))
    })
}

/// Whether the collective a try block reaches at `call` (in `scope`) runs
/// on one rank only (`if accelerator.is_main_process:
/// accelerator.save_state(…)`): the other ranks never wait in it, so an
/// error that skips it holds nobody up (T104 reports the guard itself).
fn kept_to_one_rank(code: &Code<'_>, scope: Scope, call: &Expr) -> bool {
    code.prog
        .ancestors_of(scope, call)
        .is_some_and(|anc| runtime::runs_on_one_rank(code.prog, scope, &anc, call as *const Expr as *const ()))
}

/// Whether `call`, a call into a function of the training code that leads
/// to a collective, runs something that can raise `caught` before a
/// collective of its own (`evaluate_loop(…)` whose loop evaluates between
/// two barriers): an error there leaves this rank out of the rest. Calls
/// that cannot fail in practice (`range`, `len`, `print`, …) do not count;
/// helpers it calls are followed the same way, `depth` more calls deep.
fn raises_then_collective(code: &Code<'_>, scope: Scope, call: &Expr, caught: Caught, ddp: bool, depth: u32) -> bool {
    const SAFE: &[&str] = &[
        "builtins.range",
        "builtins.len",
        "builtins.enumerate",
        "builtins.zip",
        "builtins.print",
        "builtins.isinstance",
        "builtins.hasattr",
        "builtins.min",
        "builtins.max",
        "builtins.str",
        "builtins.bool",
    ];
    let prog = code.prog;
    let ExprKind::Call { func, .. } = &call.kind else {
        return false;
    };
    if runtime::collective(prog, scope, call, ddp).is_some() {
        return false;
    }
    let crate::training::program::Callee::Func(f) = prog.callee(scope, func) else {
        return false;
    };
    let fs = f.scope();
    // The calls of its body in source order: where each collective starts,
    // where each call that can raise ends.
    let mut calls: Vec<&Expr> = Vec::new();
    let mut stack = Vec::new();
    for st in prog.body(fs) {
        walk_stmt(st, &mut stack, &mut |_, n| {
            if let Node::Expr(e) = n {
                if matches!(e.kind, ExprKind::Call { .. }) {
                    calls.push(e);
                }
            }
        });
    }
    let mut collectives: Vec<usize> = Vec::new();
    let mut raising: Vec<usize> = Vec::new();
    for e in calls {
        let ExprKind::Call { func: g, .. } = &e.kind else {
            continue;
        };
        if runtime::collective(prog, fs, e, ddp).is_some() {
            collectives.push(e.span.start);
            continue;
        }
        if let crate::training::program::Callee::Func(h) = prog.callee(fs, g) {
            let hs = h.scope();
            if first_collective(prog, hs, prog.body(hs), ddp, 1).is_some() {
                if depth > 0 && raises_then_collective(code, fs, e, caught, ddp, depth - 1) {
                    return true;
                }
                collectives.push(e.span.start);
                continue;
            }
        }
        if prog.external(fs, g).is_some_and(|p| SAFE.contains(&p.as_str())) {
            continue;
        }
        let can = match caught {
            Caught::Broad | Caught::Runtime | Caught::Data => true,
            Caught::Io => io_call(code, fs, e),
        };
        if can {
            raising.push(e.span.end);
        }
    }
    raising.iter().any(|r| collectives.iter().any(|c| c > r))
}

/// I/O calls an `OSError` comes from.
fn io_call(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    let ExprKind::Call { func, .. } = &e.kind else {
        return false;
    };
    if let Some(p) = code.prog.external(scope, func) {
        return p == "builtins.open"
            || p == "torch.load"
            || p == "torch.save"
            || p.starts_with("os.")
            || p.starts_with("shutil.")
            || p.starts_with("numpy.load")
            || p.starts_with("pickle.")
            || p.starts_with("json.load")
            || p.starts_with("PIL.Image.open")
            || p.starts_with("safetensors")
            || p.starts_with("h5py")
            || p.starts_with("pandas.read_")
            || p.starts_with("urllib.")
            || p.starts_with("requests.");
    }
    // A function of the training code may do I/O (`utils.load_checkpoint(…)`
    // through its module, too).
    if matches!(code.prog.callee(scope, func), crate::training::program::Callee::Func(_)) {
        return true;
    }
    match &func.kind {
        ExprKind::Attribute { attr, .. } => matches!(
            attr.as_str(),
            "read_text"
                | "read_bytes"
                | "write_text"
                | "write_bytes"
                | "open"
                | "load"
                | "read"
                | "mkdir"
                | "unlink"
                | "stat"
                | "iterdir"
        ),
        // A function of the training code may do I/O.
        _ => matches!(code.prog.callee(scope, func), crate::training::program::Callee::Func(_)),
    }
}

/// The start of the first call in `s` that can raise the caught type.
fn first_raising_call(code: &Code<'_>, scope: Scope, s: &Stmt, caught: Caught) -> Option<usize> {
    let mut at = None;
    let mut stack = Vec::new();
    walk_stmt(s, &mut stack, &mut |_, n| {
        if at.is_some() {
            return;
        }
        if let Node::Expr(e) = n {
            let hit = match caught {
                Caught::Broad | Caught::Runtime | Caught::Data => matches!(e.kind, ExprKind::Call { .. }),
                Caught::Io => io_call(code, scope, e),
            };
            if hit {
                at = Some(e.span.end);
            }
        }
    });
    at
}

/// Whether `body` (of the `try` statement `try_stmt`) uses a name that an
/// earlier `try` of the same scope binds from a read, with a handler that
/// goes on (`try: ckpt = torch.load(p)` / `except: log(…)`, then `try: epoch =
/// ckpt["epoch"]`): the read failing makes this body fail too.
fn reads_earlier_read(code: &Code<'_>, scope: Scope, try_stmt: &Stmt, body: &[Stmt]) -> bool {
    let mut used: Vec<&str> = Vec::new();
    let mut stack = Vec::new();
    for st in body {
        walk_stmt(st, &mut stack, &mut |_, n| {
            if let Node::Expr(e) = n {
                if let ExprKind::Name(name) = &e.kind {
                    used.push(name.as_str());
                }
            }
        });
    }
    if used.is_empty() {
        return false;
    }
    let mut hit = false;
    code.prog.walk_stmts(scope, &mut |_, s| {
        if hit || s.span.end > try_stmt.span.start {
            return;
        }
        let StmtKind::Try {
            body: earlier,
            handlers,
            ..
        } = &s.kind
        else {
            return;
        };
        let goes_on = handlers.iter().any(|h| swallowing_path(code, scope, h).is_some());
        if !goes_on {
            return;
        }
        hit = earlier.iter().any(|st| {
            let StmtKind::Assign { targets, .. } = &st.kind else {
                return false;
            };
            targets
                .iter()
                .any(|t| matches!(&t.kind, ExprKind::Name(n) if used.contains(&n.as_str())))
                && can_raise(code, scope, st, Caught::Io)
        });
    });
    hit
}

fn can_raise(code: &Code<'_>, scope: Scope, s: &Stmt, caught: Caught) -> bool {
    first_raising_call(code, scope, s, caught).is_some()
}

/// The statements after `stmt` up to the end of the innermost enclosing
/// loop's body (what `continue` skips).
pub(super) fn rest_of_loop<'p>(anc: &[Anc<'p>], stmt: &'p Stmt) -> Option<Vec<&'p [Stmt]>> {
    let mut out = Vec::new();
    let mut child: *const Stmt = stmt;
    for a in anc.iter().rev() {
        let Anc::Stmt(s) = a else { continue };
        let blocks: Vec<&'p [Stmt]> = blocks_of(s);
        for b in &blocks {
            if let Some(i) = b.iter().position(|x| std::ptr::eq(x, child)) {
                out.push(&b[i + 1..]);
            }
        }
        if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. }) {
            return Some(out);
        }
        child = *s;
    }
    None
}

/// The body of the innermost enclosing loop (what `break` skips in later
/// iterations).
pub(super) fn loop_body<'p>(anc: &[Anc<'p>]) -> Option<Vec<&'p [Stmt]>> {
    anc.iter().rev().find_map(|a| match a {
        Anc::Stmt(s) => match &s.kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => Some(vec![body.as_slice()]),
            _ => None,
        },
        _ => None,
    })
}

/// The statements after `stmt` to the end of the function, and the bodies
/// of the loops around it (what `return` skips).
fn rest_of_function<'p>(top: &'p [Stmt], anc: &[Anc<'p>], stmt: &'p Stmt) -> Vec<&'p [Stmt]> {
    let mut out = Vec::new();
    let mut child: *const Stmt = stmt;
    for a in anc.iter().rev() {
        let Anc::Stmt(s) = a else { continue };
        for b in blocks_of(s) {
            if let Some(i) = b.iter().position(|x| std::ptr::eq(x, child)) {
                out.push(&b[i + 1..]);
            }
        }
        if let StmtKind::For { body, .. } | StmtKind::While { body, .. } = &s.kind {
            out.push(body.as_slice());
        }
        child = *s;
    }
    if let Some(i) = top.iter().position(|x| std::ptr::eq(x, child)) {
        out.push(&top[i + 1..]);
    }
    out
}
