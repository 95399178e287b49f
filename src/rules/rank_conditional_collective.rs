declare_rule! {
    /// ## What it checks
    /// A collective operation inside a branch whose condition depends on the rank
    /// (`if rank == 0:`, `if core.distributed.rank == 0:`, `if
    /// accelerator.is_main_process:`, also behind a property of a training-code
    /// class that returns such a test, `if trainer.is_main:`, or a name that reads
    /// it once, `is_main = accelerator.is_main_process`) when, counting per function the collectives
    /// each rank runs — rank 0, rank 1 and another rank, for every combination of the
    /// condition's other parts — the ranks do not run the same number of them.
    /// Collectives include `torch.distributed` operations and, in Determined's Core
    /// API, `core.distributed.broadcast/allgather/gather`,
    /// `checkpoint.restore_path()`/`download()` in the default download mode,
    /// `checkpoint.store_path()`/`upload()` with `shard=True`, and
    /// `preempt.should_preempt()`; in Lightning, `trainer.save_checkpoint()`, which
    /// ends in a barrier of all ranks; with FSDP, `model.state_dict()` of a model
    /// wrapped in `FullyShardedDataParallel` (on some path of the run: `model =
    /// FSDP(model)` when it asks for FSDP) and `FSDP.optim_state_dict()`, which
    /// all-gather every rank's shard for the full state dict, FSDP's default (code
    /// that chooses a state dict type anywhere, `FSDP.state_dict_type(…)`,
    /// handles FSDP's saving on purpose and turns this off). Collectives are
    /// followed into the training code's functions up to three calls deep (a
    /// save helper calling a common saver calling the state saver that runs
    /// `accelerator.save_state`); a helper's single-process fallback (`if not
    /// ddp:`, `if not dist.is_initialized():`) is an arm no rank of a
    /// multi-rank run takes, and such a question inside a test
    /// (`dist.is_initialized() and is_master()`) is answered yes. A rank read as `dist.get_rank()` or `0` (`try: rank =
    /// dist.get_rank() except: rank = 0`) is the rank; `rank % ngpus_per_node == 0`
    /// with the per-node count unknown is the first process of each node, not
    /// every rank. A forward pass of a
    /// `DistributedDataParallel` model that runs on one rank only (a validation
    /// or NaN-logging pass under `if rank == 0:`, or in a helper called only
    /// there) with gradients on is one too (under `torch.no_grad()` DDP
    /// broadcasts at most once and skips that rank's next broadcast, so the
    /// counts still match), where the wrapper broadcasts buffers (the default, or
    /// a flag known to be true: its argparse default together with what each of
    /// the project's config files sets where the code merges one into the
    /// parser, `parser.set_defaults(**yaml.safe_load(f))`)
    /// and the wrapped module may have some (a model from outside, or a class
    /// whose file uses batch norm or registers buffers): the fix calls
    /// `model.module(…)`. Where the forward sits in a helper every rank's
    /// training step runs too (a model class's `net_forward()`), the call that
    /// reaches it on one rank only (`model.test()` under `if rank == 0:`, up to
    /// three calls up) is reported instead, without a fix: the helper's
    /// training use needs the wrapper.
    /// Code after a guard that sends all ranks but one away (`if not
    /// is_master(args): return`, or `continue` in a loop) runs on that one
    /// rank, as a branch's body does.
    /// A rank that leaves alone is one too: an exit (`sys.exit`, `os._exit`,
    /// `exit()`, here or in a function called from here, two calls deep), a
    /// `break` out of the training loop, a `continue` past the rest of a
    /// step or a `return` under a rank test (early stopping decided on rank
    /// 0, `if epoch >= total and rank == 0: os._exit(0)` inside the epoch
    /// function), where the other ranks go on to collectives the leaving
    /// ranks never join: loops count as running more than once, the other
    /// parts of the tests (of the rank test around the leave, and of the
    /// next one out: `if rank == 0 and epoch % k == 0:` around `if mode and
    /// rank == 0: … break`) and the tests of every rank's own exits are tried
    /// both ways (a flag read again elsewhere in the function — a parameter,
    /// or an attribute of one the function never assigns, `args.parallel_eval`
    /// in `if not args.parallel_eval: if not is_master(args): return` and in
    /// `if args.parallel_eval: gather(…)` — takes one value in both), and a
    /// leave is reported where it alone makes the ranks'
    /// counts differ while taking all of them out makes them agree. Where
    /// that cannot be judged for all of them together (too many parts to
    /// try both ways, or the ranks differ with every leave taken out: rank 0
    /// training alone under `--find-lr` beside an early stop on rank 0),
    /// each leave is judged on its own, with the other leaves' tests taken
    /// false (their options off). A test every run takes one way (`if
    /// val_times > 0:` inside `for val_times in [0]:`) is not tried both
    /// ways. A
    /// process index started by `multiprocessing.Process(target=run,
    /// args=(i, …))` in a loop over `range(…)` is a rank, as is a parameter
    /// every caller passes one (`train(rank, …)`). Error paths (`raise`) are
    /// not followed.
    /// A flag a signal handler sets (`signal.signal(SIGUSR2, handler)`,
    /// directly or through a helper that registers what it is handed; the
    /// handler stores into a module-level object) is per process too: a test
    /// of the raw flag whose branch runs a collective or leaves a loop whose
    /// steps run one is reported (a preemption save that one rank starts a
    /// step before the others). Testing a tensor the ranks all-reduced
    /// first is left alone. So is a collective not known to run: in the arm
    /// of `if gathered is None:` (or its conditional expression) where
    /// `gathered` defaults to `None` and every call passes it (a method
    /// whose receivers are not followed: every `x.name(…)` call in the
    /// program), or in a search's fallback (`name = None`, a loop that may
    /// set it, then `if name is None:`).
    /// A function decorated with Lightning's `@rank_zero_only` runs on rank 0
    /// alone (the other ranks return at once): a collective it runs, directly
    /// or three calls deep, is reported at the call in its body that leads
    /// to it (a `test_epoch_end` hook that calls the validation hook ending
    /// in `self.trainer.strategy.barrier()`). The Trainer's strategy's
    /// `barrier`, `broadcast`, `all_gather` and `reduce` (also through the
    /// older `accelerator_backend` and `training_type_plugin`) are
    /// collectives, and a DDP forward in such a function runs on one rank.
    ///
    /// ## Why
    /// Every rank must enter a collective the same number of times and in the same
    /// order. `if rank == 0: dist.barrier()` leaves rank 0 waiting forever; a
    /// `restore_path()` on the chief only leaves it waiting for workers that never
    /// come. The balanced pattern — the other ranks wait at a barrier while rank 0
    /// prepares, then rank 0 reaches its own — is fine (also when both tests ask
    /// the same other question, `mpi_size > 1 and local_rank > 0` … `mpi_size > 1
    /// and local_rank == 0`), as are point-to-point `send`/`recv` and chief-only
    /// uploads (`shard=False`). A nested function handed to an optimizer's step
    /// (`optimizer.step(closure)`, L-BFGS's closure) runs as often as that call
    /// runs it, in a protocol the code around it defines: its collectives are
    /// left alone, there and where it is handed on; so is a function handed to
    /// a library's call as its callback (`fn=`, `func=`, `function=`,
    /// `target=`, `callback=`: `wandb.agent(sweep_id, function=trainer.train)` on
    /// rank 0 while the other ranks call `trainer.train()`: the library runs
    /// it). A context manager whose `__enter__` and `__exit__` together run
    /// each collective as often on every rank (alpaca_farm's staggered
    /// construction: even ranks wait on entry, odd ranks on exit, all once
    /// more) is balanced. A rank test that cannot be
    /// decided but whose arms end the function alike (`if not distributed or
    /// gpu == 0: return summary`, then `return None`) counts either way.
    ///
    /// ## Example
    /// ```python
    /// if core.distributed.rank == 0:
    ///     with core.checkpoint.restore_path(ckpt) as path:   # warning: all workers must call it
    ///         state = load(path)
    /// ```
    pub static RANK_CONDITIONAL_COLLECTIVE = {
        code: "T104",
        name: "rank-conditional-collective",
        family: Training,
        severity: Warning,
        summary: "A collective runs only on some ranks",
    };
}

use std::collections::BTreeMap;

use super::training_support::{code, excerpt, Code};
use super::{Cx, Sink};
use crate::source::Span;
use crate::training::ast::{Arg, Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{is_target, walk_stmt, Anc, Callee, FuncId, LocalDef, ModId, Node, Scope};
use crate::training::runtime::{self, collective, mentions_rank, rank_kind, RankKind};

/// The help for Lightning's `trainer.save_checkpoint` under a rank test.
const FSDP_HELP: &str = "take the state dict on every rank (with `FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, FullStateDictConfig(offload_to_cpu=True, rank0_only=True))` only rank 0 receives it), and keep only the file write under the rank test";
const LIGHTNING_HELP: &str = "Trainer.save_checkpoint ends in a barrier of all ranks (and under DeepSpeed or FSDP every rank writes its shard), and Lightning writes the file from global rank 0 itself: call it on every rank, without the rank test";

/// Most parts of rank conditions that are tried both ways.
const MAX_ATOMS: usize = 6;
/// Most calls followed down from a rank branch to a collective: a save
/// helper calling a common saver calling the state saver that runs
/// `accelerator.save_state` (kohya's sd-scripts) is three.
const CALL_DEPTH: u32 = 3;
const RANKS: [i64; 3] = [0, 1, 2];

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() {
        return;
    }
    let ddp = runtime::data_parallel_model(code.prog, code.rt);
    super::rank_zero_ddp_forward::one_rank_forwards(&code, out);
    super::signal_flag_collective::signal_flags(&code, ddp, out);
    super::rank_zero_only_collective::rank_zero_only_collectives(&code, ddp, out);
    // Chunks that call a collective by name: `reduce` as a word, not
    // `reduce_dict`; `checkpoint` in `core.checkpoint`, not in
    // `save_checkpoint`.
    let mut words = runtime::collective_words(code.prog);
    // And the names of the training code's functions that run one (three
    // calls deep): `sync_params()` around `dist.broadcast`, a loader
    // around `MPI.COMM_WORLD.bcast`.
    words.extend(collective_helpers(&code, &words, ddp));
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    // The leaves reported (from the function that has them, or a caller).
    let mut left: std::collections::HashSet<(ModId, usize)> = Default::default();
    let exiting = code.scopes_with_words(&EXIT_WORDS);
    let exits = one_rank_exits(&code, &exiting);
    let memo = Memo::default();
    for scope in code.scopes_with_words(&words) {
        if !code.rt.world_at(code.prog, scope.m).distributed() {
            continue;
        }
        // A closure handed to a call (`optimizer.step(closure)`, LBFGS's):
        // how often each rank runs it, and what the code around it pairs
        // its collectives with, is that call's.
        if scope.func().is_some_and(|f| handed_to_an_optimizer_step(&code, f)) {
            continue;
        }
        let cx = Counter {
            code: &code,
            ddp,
            atoms: Vec::new(),
            same: Vec::new(),
            leaving: false,
            neutral: Vec::new(),
            pinned: Vec::new(),
            exiting: &exiting,
            memo: &memo,
        };
        // Rank-dependent branches holding a collective.
        let mut branches: Vec<(&Stmt, &Expr)> = Vec::new();
        code.prog.walk_stmts(scope, &mut |_, s| {
            if let StmtKind::If { test, body, orelse } = &s.kind {
                // The collective first: most branches have none, and
                // following a condition's names to the rank can be long.
                if (cx.has_collective(scope, body) || cx.has_collective(scope, orelse))
                    && mentions_rank(code.prog, scope, test)
                {
                    branches.push((s, test));
                }
            }
        });
        if branches.is_empty() {
            leaving_ranks(&code, scope, ddp, out, &mut left, &exits, &exiting);
            continue;
        }
        let mut atoms: Vec<(ModId, Span)> = Vec::new();
        for (_, test) in &branches {
            collect_atoms(&code, scope, test, &mut atoms);
        }
        // `if rank != 0 and distributed: barrier()` … `if rank == 0 and
        // distributed: barrier()`: both tests read the same value.
        let (atoms, same) = merge_repeated_atoms(&code, scope, atoms);
        if atoms.len() > MAX_ATOMS {
            continue;
        }
        let counter = Counter {
            code: &code,
            ddp,
            atoms,
            same,
            leaving: false,
            neutral: Vec::new(),
            pinned: Vec::new(),
            exiting: &exiting,
            memo: &memo,
        };
        let Some(differ) = counter.differ(scope) else {
            leaving_ranks(&code, scope, ddp, out, &mut left, &exits, &exiting);
            continue;
        };
        if differ.is_empty() || staggered(&code, &cx, scope) {
            leaving_ranks(&code, scope, ddp, out, &mut left, &exits, &exiting);
            continue;
        }
        // Report the collectives inside the rank-dependent branches.
        let mut reported: Vec<Span> = Vec::new();
        for (s, test) in branches {
            let StmtKind::If { body, orelse, .. } = &s.kind else {
                continue;
            };
            for (branch, negated) in [(body, false), (orelse, true)] {
                let mut stack = Vec::new();
                for b in branch.iter() {
                    walk_stmt(b, &mut stack, &mut |_, n| {
                        let Node::Expr(e) = n else { return };
                        if reported.contains(&e.span) {
                            return;
                        }
                        let cond = excerpt(code.text(scope.m, test.span));
                        let cond = if negated { format!("not ({cond})") } else { cond };
                        if let Some(c) = collective(code.prog, scope, e, ddp) {
                            if !differ.contains(&c.kind) || !counter.reached_by_some_rank(scope, e) {
                                return;
                            }
                            reported.push(e.span);
                            let d = out.at_loc(code.loc(scope.m, e.span), direct_message(&c, &cond));
                            d.help(if c.kind.starts_with("accelerate.") {
                                "call it on every process and keep only your own file writes under the main-process test (Accelerate writes its checkpoint files from the right process itself)"
                            } else if c.kind == "lightning.save_checkpoint" {
                                LIGHTNING_HELP
                            } else if c.kind == "fsdp.state_dict" {
                                FSDP_HELP
                            } else {
                                "every rank must run the same collectives in the same order: move it out of the branch, or give the other ranks a matching call"
                            });
                            d.label(code.file(scope.m), test.span, "the rank condition");
                            return;
                        }
                        // A call of the training code that runs one of the
                        // collectives the ranks disagree on.
                        let ExprKind::Call { func, .. } = &e.kind else { return };
                        let Callee::Func(f) = code.prog.callee(scope, func) else {
                            return;
                        };
                        if !counter.reached_by_some_rank(scope, e) {
                            return;
                        }
                        let body = code.prog.body(f.scope());
                        let pred = |c: &runtime::Collective| differ.contains(&c.kind);
                        let Some((inner_scope, inner, c)) =
                            runtime::collective_site(code.prog, f.scope(), body, ddp, CALL_DEPTH - 1, &pred)
                        else {
                            return;
                        };
                        reported.push(e.span);
                        let call = excerpt(code.text(scope.m, e.span));
                        let d = out.at_loc(code.loc(scope.m, e.span), helper_message(&call, &c, &cond));
                        d.help(if c.kind.starts_with("accelerate.") {
                            "call it on every process and keep only your own file writes under the main-process test (Accelerate writes its checkpoint files from the right process itself)"
                        } else if c.kind == "lightning.save_checkpoint" {
                            LIGHTNING_HELP
                        } else if c.kind == "fsdp.state_dict" {
                            FSDP_HELP
                        } else {
                            "every rank must run the same collectives in the same order: call it on every rank, or give the other ranks a matching call"
                        });
                        d.label(code.file(scope.m), test.span, "the rank condition");
                        d.label(code.file(inner_scope.m), inner.span, "the collective it runs");
                    });
                }
            }
        }
    }
}

/// Counts the collectives a rank runs.
struct Counter<'c, 'p> {
    code: &'c Code<'p>,
    ddp: bool,
    /// The non-rank parts of rank conditions (and, when `leaving`, the
    /// tests of branches that leave), each taken true or false by the bits
    /// of an assignment.
    atoms: Vec<(ModId, Span)>,
    /// Other reads of an atom that is a parameter its function never
    /// rebinds, with the atom's index: the same value, so the same bit.
    same: Vec<((ModId, Span), usize)>,
    /// Leaving is modelled: a process exit (`sys.exit`, `os._exit`) ends
    /// the count, a loop runs its body more than once unless the rank
    /// leaves it, and a `raise` (an error path) is not followed.
    leaving: bool,
    /// Statements taken as absent (which leave explains a difference).
    neutral: Vec<*const Stmt>,
    /// Conditions' parts taken false on every assignment: where leaving is
    /// modelled with more atoms than can be tried both ways, the parts of
    /// the other leaves' tests (their options off), one leave at a time.
    pinned: Vec<Atom>,
    /// The scopes whose text names an exit (`exit`, `_exit`, `quit`,
    /// `abort`): only their branches are searched for one.
    exiting: &'c [Scope],
    /// The counts of the functions a rank calls, by function, rank and
    /// depth, where leaving is not modelled (they depend on nothing else):
    /// a helper called from many places is counted once per rank.
    memo: &'c Memo,
}

/// [`Counter::memo`].
type Memo = std::cell::RefCell<std::collections::HashMap<(FuncId, i64, u32), Option<(Counts, End)>>>;

/// How a block ended for a rank.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Normal,
    /// `return`/`raise`: nothing after it in the function runs.
    Function,
    /// `continue` (and, unless leaving is modelled, `break`): nothing after
    /// it in the loop body runs.
    Loop,
    /// `break`, when leaving is modelled: the loop ends.
    Break,
    /// The process exits.
    Process,
}

type Counts = BTreeMap<String, u32>;

/// Whether `scope` is the `__enter__` or `__exit__` of a context manager
/// whose two methods, run one after the other, run each collective as
/// often on every rank (alpaca_farm's staggered construction: even ranks
/// wait at a barrier on entry, odd ranks on exit, and all once more).
fn staggered(code: &Code<'_>, cx: &Counter<'_, '_>, scope: Scope) -> bool {
    let prog = code.prog;
    let Some(f) = scope.func() else { return false };
    if !prog
        .func(f)
        .is_some_and(|x| matches!(x.name.as_str(), "__enter__" | "__exit__"))
    {
        return false;
    }
    let Some(k) = prog.class_of(f) else { return false };
    let (Some(enter), Some(exit)) = (prog.method(k, "__enter__"), prog.method(k, "__exit__")) else {
        return false;
    };
    let scopes = [enter.scope(), exit.scope()];
    let mut atoms: Vec<(ModId, Span)> = Vec::new();
    for s in scopes {
        prog.walk_stmts(s, &mut |_, st| {
            if let StmtKind::If { test, body, orelse } = &st.kind {
                if mentions_rank(prog, s, test) || cx.has_collective(s, body) || cx.has_collective(s, orelse) {
                    collect_atoms(code, s, test, &mut atoms);
                }
            }
        });
    }
    // `self.world_size > 1` read in both: one value.
    let (atoms, same) = merge_repeated_atoms(code, scopes[0], atoms);
    if atoms.len() > MAX_ATOMS {
        return false;
    }
    let counter = Counter {
        code,
        ddp: cx.ddp,
        atoms,
        same,
        leaving: false,
        neutral: Vec::new(),
        pinned: Vec::new(),
        exiting: cx.exiting,
        memo: cx.memo,
    };
    counter.differ_over(&scopes).is_some_and(|d| d.is_empty())
}

fn add(out: &mut Counts, more: Counts, times: u32) {
    for (k, v) in more {
        *out.entry(k).or_default() += v * times;
    }
}

impl Counter<'_, '_> {
    fn has_collective(&self, scope: Scope, stmts: &[Stmt]) -> bool {
        runtime::first_collective(self.code.prog, scope, stmts, self.ddp, CALL_DEPTH).is_some()
    }

    /// The kinds of collective the ranks (0, 1 and 2) run a different
    /// number of times in `scope`, over every assignment of the atoms;
    /// `None` when a rank condition cannot be decided.
    fn differ(&self, scope: Scope) -> Option<Vec<String>> {
        self.differ_over(&[scope])
    }

    /// [`Counter::differ`] over the functions of `scopes` run one after
    /// the other (a context manager's `__enter__` and `__exit__`).
    fn differ_over(&self, scopes: &[Scope]) -> Option<Vec<String>> {
        let mut differ: Vec<String> = Vec::new();
        for bits in 0u32..(1 << self.atoms.len()) {
            let mut per_rank: Vec<Counts> = Vec::new();
            for r in RANKS {
                let mut total = Counts::new();
                for scope in scopes {
                    add(
                        &mut total,
                        self.count(*scope, self.code.prog.body(*scope), r, bits, 0)?.0,
                        1,
                    );
                }
                per_rank.push(total);
            }
            let kinds: std::collections::BTreeSet<&String> = per_rank.iter().flat_map(|m| m.keys()).collect();
            for k in kinds {
                let n: Vec<u32> = per_rank.iter().map(|m| m.get(k).copied().unwrap_or(0)).collect();
                if n.iter().any(|x| *x != n[0]) && !differ.contains(k) {
                    differ.push(k.clone());
                }
            }
        }
        Some(differ)
    }

    /// Whether some rank, under some reading of the conditions' other
    /// parts, passes every rank test around `e` the way that leads to it: a
    /// barrier under `if local_rank not in [-1, 0]:` inside `if local_rank
    /// in [-1, 0]:` runs on no rank (Oscar's dead first-rank-first barrier).
    fn reached_by_some_rank(&self, scope: Scope, e: &Expr) -> bool {
        let Some(anc) = self.code.prog.ancestors_of(scope, e) else {
            return true;
        };
        let within = |stmts: &[Stmt]| {
            stmts
                .iter()
                .any(|b| b.span.start <= e.span.start && e.span.end <= b.span.end)
        };
        let arms: Vec<(&Expr, bool)> = anc
            .iter()
            .filter_map(|a| match a {
                Anc::Stmt(s) => match &s.kind {
                    StmtKind::If { test, body, orelse } if within(body) => Some((test, true)),
                    StmtKind::If { test, orelse, .. } if within(orelse) => Some((test, false)),
                    _ => None,
                },
                _ => None,
            })
            .filter(|(t, _)| mentions_rank(self.code.prog, scope, t))
            .collect();
        if arms.len() < 2 {
            return true;
        }
        (0u32..(1 << self.atoms.len())).any(|bits| {
            RANKS.iter().any(|r| {
                arms.iter()
                    .all(|(t, want)| self.eval(scope, t, *r, bits).is_none_or(|v| v == *want))
            })
        })
    }

    fn is_atom(&self, scope: Scope, e: &Expr) -> bool {
        self.atoms.contains(&(scope.m, e.span))
    }

    /// Whether a boolean test reads an atom again (`not collect_by_master`).
    fn reads_atom(&self, scope: Scope, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::BoolOp { left, right, .. } => self.reads_atom(scope, left) || self.reads_atom(scope, right),
            ExprKind::Not(x) => self.reads_atom(scope, x),
            _ => self.is_atom(scope, e) || self.same.iter().any(|(a, _)| *a == (scope.m, e.span)),
        }
    }

    /// The collectives `stmts` run for rank `r`; `None` when a rank
    /// condition cannot be decided.
    fn count(&self, scope: Scope, stmts: &[Stmt], r: i64, bits: u32, depth: u32) -> Option<(Counts, End)> {
        let mut out = Counts::new();
        let prog = self.code.prog;
        // An expression's collectives; the process may exit in a call.
        macro_rules! expr {
            ($e:expr) => {{
                let (c, exited) = self.in_expr(scope, $e, r, bits, depth)?;
                add(&mut out, c, 1);
                if exited {
                    return Some((out, End::Process));
                }
            }};
        }
        for (at, s) in stmts.iter().enumerate() {
            if self.leaving && self.neutral.contains(&(s as *const Stmt)) {
                continue;
            }
            match &s.kind {
                StmtKind::If { test, body, orelse } => {
                    expr!(test);
                    // A rank branch that neither runs a collective nor
                    // leaves the block (`if rank == 0 and step % 10 == 0:
                    // print(...)`) counts nothing either way: its condition
                    // need not be decided.
                    let leave = |b: &[Stmt]| {
                        leaves(b) || (self.leaving && self.exiting.contains(&scope) && exits_in(prog, scope, b))
                    };
                    let inert = !self.has_collective(scope, body)
                        && !self.has_collective(scope, orelse)
                        && !leave(body)
                        && !leave(orelse);
                    if runtime::untaken_default_arm(prog, scope, test, true)
                        || runtime::untaken_default_arm(prog, scope, test, false)
                    {
                        // `if gathered is None:` where every call passes it:
                        // the other arm, alike on every rank.
                        let arm = if runtime::untaken_default_arm(prog, scope, test, true) {
                            orelse
                        } else {
                            body
                        };
                        let (c, end) = self.count(scope, arm, r, bits, depth)?;
                        add(&mut out, c, 1);
                        if end != End::Normal {
                            return Some((out, end));
                        }
                    } else if let Some(positive) = (!inert && !mentions_rank(prog, scope, test))
                        .then(|| runtime::distributed_test(prog, scope, test))
                        .flatten()
                    {
                        // `if not ddp:` / `if args.distributed:`: every rank
                        // of a multi-rank run takes the distributed arm (a
                        // helper's single-process fallback runs on none).
                        let arm = if positive { body } else { orelse };
                        let (c, end) = self.count(scope, arm, r, bits, depth)?;
                        add(&mut out, c, 1);
                        if end != End::Normal {
                            return Some((out, end));
                        }
                    } else if !inert
                        && (mentions_rank(prog, scope, test)
                            || self.is_atom(scope, test)
                            || self.reads_atom(scope, test))
                    {
                        let Some(taken) = self.eval(scope, test, r, bits) else {
                            // Undecided (a flag the analysis cannot read
                            // here), but both ways end alike for this rank
                            // (`if not distributed or gpu == 0: return
                            // summary` then `return None`): either is the
                            // rank's count.
                            let rest = self.count(scope, &stmts[at + 1..], r, bits, depth)?;
                            let either = |arm: &[Stmt]| -> Option<(Counts, End)> {
                                let (mut c, end) = self.count(scope, arm, r, bits, depth)?;
                                if end != End::Normal {
                                    return Some((c, end));
                                }
                                add(&mut c, rest.0.clone(), 1);
                                Some((c, rest.1))
                            };
                            let (a, b) = (either(body)?, either(orelse)?);
                            let nonzero = |c: &Counts| {
                                c.iter()
                                    .filter(|(_, n)| **n > 0)
                                    .map(|(k, n)| (k.clone(), *n))
                                    .collect::<Counts>()
                            };
                            if a.1 != b.1 || nonzero(&a.0) != nonzero(&b.0) {
                                return None;
                            }
                            add(&mut out, a.0, 1);
                            return Some((out, a.1));
                        };
                        let (c, end) = self.count(scope, if taken { body } else { orelse }, r, bits, depth)?;
                        add(&mut out, c, 1);
                        if end != End::Normal {
                            return Some((out, end));
                        }
                    } else if self.leaving && (leave(body) || leave(orelse)) {
                        // The same branch on every rank, whichever it is:
                        // the one that does not leave (`if not batch:
                        // continue` in a step every rank runs).
                        let arm = if leave(body) { orelse } else { body };
                        let (c, end) = self.count(scope, arm, r, bits, depth)?;
                        add(&mut out, c, 1);
                        if end != End::Normal {
                            return Some((out, end));
                        }
                    } else {
                        // The same branch on every rank: both count alike.
                        add(&mut out, self.count(scope, body, r, bits, depth)?.0, 1);
                        add(&mut out, self.count(scope, orelse, r, bits, depth)?.0, 1);
                    }
                }
                StmtKind::For { iter, body, orelse, .. } => {
                    expr!(iter);
                    if let Some(end) = self.count_loop(scope, body, orelse, r, bits, depth, &mut out)? {
                        return Some((out, end));
                    }
                }
                StmtKind::While { test, body, orelse } => {
                    if mentions_rank(prog, scope, test) {
                        return None;
                    }
                    expr!(test);
                    if let Some(end) = self.count_loop(scope, body, orelse, r, bits, depth, &mut out)? {
                        return Some((out, end));
                    }
                }
                StmtKind::With { items, body } => {
                    for i in items {
                        expr!(&i.ctx);
                    }
                    let (c, end) = self.count(scope, body, r, bits, depth)?;
                    add(&mut out, c, 1);
                    if end != End::Normal {
                        return Some((out, end));
                    }
                }
                StmtKind::Try { body, finalbody, .. } => {
                    let (c, end) = self.count(scope, body, r, bits, depth)?;
                    add(&mut out, c, 1);
                    add(&mut out, self.count(scope, finalbody, r, bits, depth)?.0, 1);
                    if self.leaving && end == End::Process {
                        return Some((out, end));
                    }
                }
                StmtKind::Raise(_) if self.leaving => {}
                StmtKind::Return(v) | StmtKind::Raise(v) => {
                    if let Some(v) = v {
                        expr!(v);
                    }
                    return Some((out, End::Function));
                }
                StmtKind::Break if self.leaving => return Some((out, End::Break)),
                StmtKind::Continue | StmtKind::Break => return Some((out, End::Loop)),
                StmtKind::Expr(e) => {
                    expr!(e);
                    if self.leaving && exit_call(prog, scope, e) {
                        return Some((out, End::Process));
                    }
                }
                StmtKind::Assign { value: e, .. }
                | StmtKind::AugAssign { value: e, .. }
                | StmtKind::AnnAssign { value: Some(e), .. } => expr!(e),
                _ => {}
            }
        }
        Some((out, End::Normal))
    }

    /// A loop's body and `else`, added to `out`: once, or (when leaving is
    /// modelled) twice for a rank that does not leave it, so a rank that
    /// leaves early runs fewer of its collectives. `Some(end)` when the
    /// rank leaves the function or the process in it.
    #[allow(clippy::too_many_arguments)]
    fn count_loop(
        &self,
        scope: Scope,
        body: &[Stmt],
        orelse: &[Stmt],
        r: i64,
        bits: u32,
        depth: u32,
        out: &mut Counts,
    ) -> Option<Option<End>> {
        let (c, end) = self.count(scope, body, r, bits, depth)?;
        if !self.leaving {
            add(out, c, 1);
            add(out, self.count(scope, orelse, r, bits, depth)?.0, 1);
            return Some(None);
        }
        match end {
            End::Function | End::Process => {
                add(out, c, 1);
                return Some(Some(end));
            }
            End::Break => add(out, c, 1),
            End::Normal | End::Loop => {
                add(out, c, 2);
                let (c, end) = self.count(scope, orelse, r, bits, depth)?;
                add(out, c, 1);
                if end != End::Normal {
                    return Some(Some(end));
                }
            }
        }
        Some(None)
    }

    /// The collectives an expression runs: its own calls, and the bodies
    /// of training-code functions it calls ([`CALL_DEPTH`] levels deep); and whether
    /// one of those functions exits the process (when leaving is modelled).
    fn in_expr(&self, scope: Scope, e: &Expr, r: i64, bits: u32, depth: u32) -> Option<(Counts, bool)> {
        let prog = self.code.prog;
        let mut out = Counts::new();
        let mut calls = Vec::new();
        let mut stack = Vec::new();
        crate::training::program::walk_expr(e, &mut stack, &mut |anc, n| {
            if let Node::Expr(x) = n {
                if matches!(x.kind, ExprKind::Call { .. }) && !runtime::in_untaken_default_arm(prog, scope, anc, x) {
                    calls.push(x);
                }
            }
        });
        for call in calls {
            if let Some(c) = collective(prog, scope, call, self.ddp) {
                *out.entry(c.kind).or_default() += 1;
                continue;
            }
            if depth >= CALL_DEPTH {
                continue;
            }
            let ExprKind::Call { func, args, .. } = &call.kind else {
                continue;
            };
            // A function of the training code that runs a collective, handed
            // to an optimizer's step (`optimizer.step(closure)`, L-BFGS's
            // closure): it runs as often as the optimizer calls it, which is
            // not known here.
            // So is one handed to a library's call as its callback
            // (`wandb.agent(sweep, function=trainer.train)`, which runs it for
            // the sweep).
            let stepping = matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "step");
            let runs_collectives = |v: &Expr| {
                matches!(v.kind, ExprKind::Name(_) | ExprKind::Attribute { .. })
                    && matches!(prog.callee(scope, v), Callee::Func(g)
                        if self.has_collective(g.scope(), prog.body(g.scope())))
            };
            let handed = |a: &crate::training::ast::Arg| match a {
                crate::training::ast::Arg::Pos(v) | crate::training::ast::Arg::Kw { value: v, .. } if stepping => {
                    runs_collectives(v)
                }
                crate::training::ast::Arg::Kw { name, value: v, .. } => {
                    ["fn", "func", "function", "target", "callback"].contains(&name.as_str())
                        && runs_collectives(v)
                        && matches!(prog.callee(scope, func), Callee::External(_))
                }
                _ => false,
            };
            if args.iter().any(handed) {
                return None;
            }
            if let Callee::Func(f) = prog.callee(scope, func) {
                // A rank parameter given something other than this
                // process's rank (`create_loader(..., rank=-1)`): the
                // callee's rank tests cannot be decided from here.
                if rank_param_overridden(self.code, scope, call, f) {
                    return None;
                }
                // Conditions inside the callee: its own rank tests only
                // (and, when leaving is modelled, the atoms of its exits).
                let inner = Counter {
                    code: self.code,
                    ddp: self.ddp,
                    atoms: if self.leaving { self.atoms.clone() } else { Vec::new() },
                    same: if self.leaving { self.same.clone() } else { Vec::new() },
                    leaving: self.leaving,
                    neutral: self.neutral.clone(),
                    pinned: if self.leaving { self.pinned.clone() } else { Vec::new() },
                    exiting: self.exiting,
                    memo: self.memo,
                };
                let counted = if self.leaving {
                    inner.count(f.scope(), prog.body(f.scope()), r, bits, depth + 1)
                } else {
                    let key = (f, r, depth + 1);
                    let known = self.memo.borrow().get(&key).cloned();
                    match known {
                        Some(v) => v,
                        None => {
                            let v = inner.count(f.scope(), prog.body(f.scope()), r, 0, depth + 1);
                            self.memo.borrow_mut().insert(key, v.clone());
                            v
                        }
                    }
                };
                let (c, end) = counted?;
                add(&mut out, c, 1);
                if end == End::Process {
                    return Some((out, true));
                }
            }
        }
        Some((out, false))
    }

    /// Whether a rank condition holds for rank `r` (atoms from `bits`).
    fn eval(&self, scope: Scope, e: &Expr, r: i64, bits: u32) -> Option<bool> {
        match self.value(scope, e, r, bits)? {
            Val::Bool(b) => Some(b),
            Val::Int(i) => Some(i != 0),
            Val::None => Some(false),
            Val::Str(s) => Some(!s.is_empty()),
            Val::List(l) => Some(!l.is_empty()),
        }
    }

    fn value(&self, scope: Scope, e: &Expr, r: i64, bits: u32) -> Option<Val> {
        // `dist.is_initialized() and is_master()`: every rank of a
        // multi-rank run is past the question (a helper's single-process
        // fallback runs on none).
        if !mentions_rank(self.code.prog, scope, e) {
            if let Some(positive) = runtime::distributed_test(self.code.prog, scope, e) {
                return Some(Val::Bool(positive));
            }
        }
        if let Some(i) = self.atoms.iter().position(|a| *a == (scope.m, e.span)) {
            return Some(Val::Bool(bits & (1 << i) != 0));
        }
        if let Some((_, i)) = self.same.iter().find(|(a, _)| *a == (scope.m, e.span)) {
            return Some(Val::Bool(bits & (1 << i) != 0));
        }
        if self.pinned.contains(&(scope.m, e.span)) {
            return Some(Val::Bool(false));
        }
        let prog = self.code.prog;
        if let Some(b) = backend_test(self.code, scope, e) {
            return Some(Val::Bool(b));
        }
        match &e.kind {
            ExprKind::Int(i) => return Some(Val::Int(*i)),
            ExprKind::Bool(b) => return Some(Val::Bool(*b)),
            ExprKind::None => return Some(Val::None),
            ExprKind::Str(s) => return Some(Val::Str(s.clone())),
            ExprKind::Unary { op, operand } if op == "-" => {
                if let Val::Int(i) = self.value(scope, operand, r, bits)? {
                    return Some(Val::Int(-i));
                }
                return None;
            }
            ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
                return items
                    .iter()
                    .map(|i| self.value(scope, i, r, bits))
                    .collect::<Option<Vec<_>>>()
                    .map(Val::List)
            }
            ExprKind::Not(x) => return self.eval(scope, x, r, bits).map(|b| Val::Bool(!b)),
            ExprKind::BoolOp { and, left, right } => {
                let l = self.eval(scope, left, r, bits)?;
                let rv = self.eval(scope, right, r, bits)?;
                return Some(Val::Bool(if *and { l && rv } else { l || rv }));
            }
            ExprKind::Compare { left, rest } => {
                let mut cur = self.value(scope, left, r, bits)?;
                for (op, right) in rest {
                    let rhs = self.value(scope, right, r, bits)?;
                    if !compare(op, &cur, &rhs)? {
                        return Some(Val::Bool(false));
                    }
                    cur = rhs;
                }
                return Some(Val::Bool(true));
            }
            ExprKind::BinOp { left, op, right } => {
                let lv = self.value(scope, left, r, bits)?;
                let rv = self.value(scope, right, r, bits);
                // `args.rank % ngpus_per_node == 0` (the first rank of each
                // node) with the per-node count unknown: a node holds more
                // processes than the ranks tried here, so the rank is its
                // own remainder.
                if op == "%" && rv.is_none() && matches!(rank_kind(prog, scope, left), Some(RankKind::Rank)) {
                    return Some(lv);
                }
                let (Val::Int(a), Val::Int(b)) = (lv, rv?) else {
                    return None;
                };
                return Some(Val::Int(match op.as_str() {
                    "+" => a.checked_add(b)?,
                    "-" => a.checked_sub(b)?,
                    "*" => a.checked_mul(b)?,
                    "%" if b != 0 => a.rem_euclid(b),
                    "//" if b != 0 => a.div_euclid(b),
                    _ => return None,
                }));
            }
            // `for val_times in [0]:`: the one value of a loop over a
            // literal list.
            ExprKind::Name(n) => {
                if let Some(v) = loop_constant(prog, scope, n) {
                    return Some(v);
                }
            }
            _ => {}
        }
        match rank_kind(prog, scope, e)? {
            RankKind::Rank => Some(Val::Int(r)),
            RankKind::IsZero => Some(Val::Bool(r == 0)),
        }
    }
}

/// The value of `n` in the function of `scope` where its only bindings are
/// as the target of loops over literal lists or tuples whose items are all
/// one literal (`for val_times in [0]:`).
fn loop_constant(prog: &crate::training::program::Program, scope: Scope, n: &str) -> Option<Val> {
    let f = scope.func()?;
    let defs = prog.local_defs(f, n);
    let mut found: Option<Val> = None;
    for d in &defs {
        let crate::training::program::LocalDef::Iter { iter, proj } = d else {
            return None;
        };
        let (ExprKind::List(items) | ExprKind::Tuple(items)) = &iter.kind else {
            return None;
        };
        if !proj.is_empty() || items.is_empty() {
            return None;
        }
        for i in items {
            let v = match &i.kind {
                ExprKind::Int(x) => Val::Int(*x),
                ExprKind::Bool(b) => Val::Bool(*b),
                ExprKind::Str(t) => Val::Str(t.clone()),
                _ => return None,
            };
            if found.as_ref().is_some_and(|f| *f != v) {
                return None;
            }
            found = Some(v);
        }
    }
    found
}

#[derive(Clone, Debug, PartialEq)]
enum Val {
    Int(i64),
    Bool(bool),
    Str(String),
    None,
    List(Vec<Val>),
}

fn compare(op: &str, a: &Val, b: &Val) -> Option<bool> {
    let num = |v: &Val| match v {
        Val::Int(i) => Some(*i),
        Val::Bool(b) => Some(i64::from(*b)),
        _ => None,
    };
    Some(match op {
        "==" | "is" => a == b || (num(a).is_some() && num(a) == num(b)),
        "!=" | "is not" => !(a == b || (num(a).is_some() && num(a) == num(b))),
        "<" => num(a)? < num(b)?,
        "<=" => num(a)? <= num(b)?,
        ">" => num(a)? > num(b)?,
        ">=" => num(a)? >= num(b)?,
        "in" | "not in" => {
            let Val::List(items) = b else { return None };
            let found = items.iter().any(|i| i == a || (num(i).is_some() && num(i) == num(a)));
            if op == "in" {
                found
            } else {
                !found
            }
        }
        _ => return None,
    })
}

/// The parts of a rank condition that do not depend on the rank, where a
/// boolean is expected.
fn collect_atoms(code: &Code<'_>, scope: Scope, e: &Expr, out: &mut Vec<(ModId, Span)>) {
    match &e.kind {
        ExprKind::BoolOp { left, right, .. } => {
            collect_atoms(code, scope, left, out);
            collect_atoms(code, scope, right, out);
        }
        ExprKind::Not(x) => collect_atoms(code, scope, x, out),
        _ => {
            if backend_test(code, scope, e).is_none()
                && !mentions_rank(code.prog, scope, e)
                && !out.contains(&(scope.m, e.span))
            {
                out.push((scope.m, e.span));
            }
        }
    }
}

/// A condition's part taken true or false: its module and span.
type Atom = (ModId, Span);

/// The atoms with repeated reads of one value folded into the first: the
/// same name or attribute chain (`distributed`, `self.distributed`), read
/// again in the same function, which assigns it nowhere in its body. The
/// folded reads are returned with the index of the atom they read.
fn merge_repeated_atoms(code: &Code<'_>, scope: Scope, atoms: Vec<Atom>) -> (Vec<Atom>, Vec<(Atom, usize)>) {
    let prog = code.prog;
    // A name, an attribute chain, or a comparison or arithmetic of them and
    // literals (`mpi_size > 1`): no call, so reading it twice reads the same
    // value when none of its names is assigned in between.
    let plain = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || " _.<>=!+-*/%".contains(c));
    let names = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .filter(|w| w.starts_with(|c: char| c.is_alphabetic() || c == '_'))
            .map(str::to_string)
            .collect()
    };
    let mut assigned: Vec<&str> = Vec::new();
    prog.walk_stmts(scope, &mut |_, st| match &st.kind {
        StmtKind::Assign { targets, .. } => {
            assigned.extend(targets.iter().map(|t| code.text(scope.m, t.span)));
        }
        StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => {
            assigned.push(code.text(scope.m, target.span))
        }
        StmtKind::For { target, .. } => assigned.push(code.text(scope.m, target.span)),
        _ => {}
    });
    let mut kept: Vec<Atom> = Vec::new();
    let mut same: Vec<(Atom, usize)> = Vec::new();
    for a in atoms {
        let text = code.text(a.0, a.1);
        let earlier =
            (plain(text) && !assigned.contains(&text) && names(text).iter().all(|n| !assigned.contains(&n.as_str())))
                .then(|| kept.iter().position(|k| code.text(k.0, k.1) == text))
                .flatten();
        match earlier {
            Some(i) => same.push((a, i)),
            None => kept.push(a),
        }
    }
    (kept, same)
}

/// The other reads, in `scopes`, of the atoms that are a parameter their
/// function never rebinds (`collect_by_master` in `if collect_by_master and
/// rank != 0: return` and again in `if not collect_by_master:
/// synchronize()`), or an attribute chain of such a parameter the function
/// never assigns (`args.parallel_eval` in `if not args.parallel_eval: if
/// not is_master(args): return` and again in `if args.parallel_eval:
/// gather(…)`), each with its atom's index.
fn same_reads(code: &Code<'_>, scopes: &[Scope], atoms: &[(ModId, Span)]) -> Vec<((ModId, Span), usize)> {
    let prog = code.prog;
    let mut out = Vec::new();
    for s in scopes {
        let Some(f) = s.func() else { continue };
        // Names and attribute chains read, with their text and root name.
        let mut reads: Vec<(Span, &str, &str)> = Vec::new();
        let mut assigned: Vec<&str> = Vec::new();
        prog.walk_exprs(*s, &mut |anc, e| {
            if let Some(root) = chain_root(e) {
                if is_target(anc, e) {
                    assigned.push(code.text(s.m, e.span));
                } else {
                    reads.push((e.span, code.text(s.m, e.span), root));
                }
            }
        });
        for (i, atom) in atoms.iter().enumerate() {
            if atom.0 != s.m {
                continue;
            }
            let Some(&(_, text, root)) = reads.iter().find(|(span, _, _)| *span == atom.1) else {
                continue;
            };
            if !matches!(prog.local_defs(f, root).as_slice(), [LocalDef::Param(_)]) || assigned.contains(&text) {
                continue;
            }
            for (span, other, _) in &reads {
                if *other == text && *span != atom.1 && !atoms.contains(&(s.m, *span)) {
                    out.push(((s.m, *span), i));
                }
            }
        }
    }
    out
}

/// The name a plain chain of attributes starts from (`args` for
/// `args.eval.parallel`, `flag` for `flag`); `None` for anything else.
fn chain_root(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(n) => Some(n),
        ExprKind::Attribute { value, .. } => chain_root(value),
        _ => None,
    }
}

/// The names of training-code functions that run a collective directly
/// (`words`: the names collectives are called by), or call such a function.
fn collective_helpers(code: &Code<'_>, words: &[String], ddp: bool) -> Vec<String> {
    let prog = code.prog;
    let mut out: Vec<String> = Vec::new();
    let mut level: Vec<String> = words.to_vec();
    for depth in 0..CALL_DEPTH {
        let names: Vec<&str> = level.iter().map(String::as_str).collect();
        let mut next: Vec<String> = Vec::new();
        for scope in code.scopes_with_words(&names) {
            let Some(func) = scope.func().and_then(|f| prog.func(f)) else {
                continue;
            };
            // `__init__`/`__call__` are not called by name.
            if func.name.starts_with("__")
                || out.contains(&func.name)
                || next.contains(&func.name)
                || words.contains(&func.name)
            {
                continue;
            }
            if runtime::first_collective(prog, scope, prog.body(scope), ddp, depth).is_some() {
                next.push(func.name.clone());
            }
        }
        if next.is_empty() {
            break;
        }
        out.extend(next.iter().cloned());
        level = next;
    }
    out
}

/// The message for a collective called directly in a rank branch.
fn direct_message(c: &runtime::Collective, cond: &str) -> String {
    let label = excerpt(&c.label);
    if c.kind.starts_with("accelerate.") {
        format!(
            "`{label}` is a collective when `accelerate launch` runs this script with DeepSpeed or FSDP (every rank saves or gathers its shards), but only ranks where `{cond}` call it here: they wait for ranks that never join, and the job hangs (plain DDP gathers nothing here)"
        )
    } else if c.kind == "fsdp.state_dict" {
        format!("`{label}` of a FullyShardedDataParallel model is a collective: each rank holds a shard, and the full state dict (FSDP's default type) is all-gathered from every rank, but only ranks where `{cond}` call it here: they wait for ranks that never join, and the job hangs")
    } else {
        format!("`{label}` is a collective, but only ranks where `{cond}` call it here; the other ranks never join a matching call")
    }
}

/// The message for a call of a helper that runs a collective.
fn helper_message(call: &str, c: &runtime::Collective, cond: &str) -> String {
    let label = excerpt(&c.label);
    let backend = if c.kind.starts_with("accelerate.") {
        " under DeepSpeed or FSDP (as `accelerate launch` may run this script)"
    } else if c.kind == "fsdp.state_dict" {
        " (FSDP gathers the full state dict from every rank's shard)"
    } else {
        ""
    };
    format!(
        "`{call}` runs `{label}`, a collective{backend}, but only ranks where `{cond}` call it here: they wait in it for ranks that never join, so the job hangs (or their later collectives pair with the wrong calls)"
    )
}

/// A test of Accelerate's backend (`accelerator.distributed_type ==
/// DistributedType.DEEPSPEED`): taken as the backend under which
/// Accelerate's checkpointing is a collective (DeepSpeed, FSDP, Megatron-LM).
fn backend_test(code: &Code<'_>, scope: Scope, e: &Expr) -> Option<bool> {
    let ExprKind::Compare { left, rest } = &e.kind else {
        return None;
    };
    let [(op, right)] = rest.as_slice() else { return None };
    if !matches!(&left.kind, ExprKind::Attribute { attr, .. } if attr == "distributed_type") {
        return None;
    }
    let text = code.text(scope.m, right.span);
    let sharded = ["DEEPSPEED", "FSDP", "MEGATRON_LM"].iter().any(|b| text.contains(b));
    match op.as_str() {
        "==" | "is" | "in" => Some(sharded),
        "!=" | "is not" | "not in" => Some(!sharded),
        _ => None,
    }
}

/// Whether a block has a `return`, `raise`, `break` or `continue` (at any
/// depth outside nested functions).
pub(super) fn leaves(stmts: &[Stmt]) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    for st in stmts {
        walk_stmt(st, &mut stack, &mut |_, n| {
            if let Node::Stmt(x) = n {
                if matches!(
                    x.kind,
                    StmtKind::Return(_) | StmtKind::Raise(_) | StmtKind::Break | StmtKind::Continue
                ) {
                    found = true;
                }
            }
        });
    }
    found
}

/// Whether `call` passes, for a parameter of `f` that the callee takes as
/// a rank (`rank`, `local_rank`, …), a value that is not this process's
/// rank (a literal such as `-1`, a constant, another expression).
fn rank_param_overridden(code: &Code<'_>, scope: Scope, call: &Expr, f: FuncId) -> bool {
    let ExprKind::Call { func, args, .. } = &call.kind else {
        return false;
    };
    let Some(def) = code.prog.func(f) else {
        return false;
    };
    let mut params: Vec<&str> = def.params.iter().map(|p| p.name.as_str()).collect();
    // `obj.method(...)`: the first parameter is bound to `obj`.
    if matches!(func.kind, ExprKind::Attribute { .. }) && matches!(params.first(), Some(&"self") | Some(&"cls")) {
        params.remove(0);
    }
    let rank_named = |n: &str| runtime::RANK_PARAMS.contains(&n);
    let mut i = 0;
    for a in args {
        let (name, value) = match a {
            Arg::Pos(v) => {
                let n = params.get(i).copied();
                i += 1;
                (n, v)
            }
            Arg::Kw { name, value, .. } => (Some(name.as_str()), value),
            _ => continue,
        };
        if let Some(n) = name {
            if rank_named(n) && rank_kind(code.prog, scope, value) != Some(RankKind::Rank) {
                return true;
            }
        }
    }
    false
}

/// Whether the nested function `f` is handed, by its name, to an
/// optimizer's step in the function around it (`optimizer.step(closure)`,
/// L-BFGS's closure, which the optimizer calls as often as it needs). A
/// signal handler or a thread's target is not such a protocol.
fn handed_to_an_optimizer_step(code: &Code<'_>, f: FuncId) -> bool {
    let prog = code.prog;
    let (Some(parent), Some(func)) = (prog.parent_func(f), prog.func(f)) else {
        return false;
    };
    let mut found = false;
    prog.walk_exprs(parent.scope(), &mut |_, e| {
        let ExprKind::Call { func: callee, args, .. } = &e.kind else {
            return;
        };
        if !matches!(&callee.kind, ExprKind::Attribute { attr, .. } if attr == "step") {
            return;
        }
        found |= args.iter().any(|a| match a {
            crate::training::ast::Arg::Pos(v) => matches!(&v.kind, ExprKind::Name(n) if *n == func.name),
            crate::training::ast::Arg::Kw { name, value, .. } => {
                name == "closure" && matches!(&value.kind, ExprKind::Name(n) if *n == func.name)
            }
            _ => false,
        });
    });
    found
}

/// Whether `e` ends the process: `sys.exit(…)`, `os._exit(…)`, `exit()`,
/// `quit()`.
fn exit_call(prog: &crate::training::program::Program, scope: Scope, e: &Expr) -> bool {
    let ExprKind::Call { func, .. } = &e.kind else {
        return false;
    };
    prog.external(scope, func).is_some_and(|p| {
        matches!(
            p.as_str(),
            "sys.exit" | "os._exit" | "os.abort" | "builtins.exit" | "builtins.quit"
        )
    })
}

/// Whether a block exits the process in one of its statements (at any
/// depth outside nested functions).
pub(super) fn exits_in(prog: &crate::training::program::Program, scope: Scope, stmts: &[Stmt]) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    for st in stmts {
        walk_stmt(st, &mut stack, &mut |_, n| {
            if let Node::Stmt(x) = n {
                if let StmtKind::Expr(e) = &x.kind {
                    found |= exit_call(prog, scope, e);
                }
            }
        });
    }
    found
}

/// The words an exit is called by.
const EXIT_WORDS: [&str; 4] = ["exit", "_exit", "quit", "abort"];

/// Most atoms tried both ways when leaving is modelled: the rank tests'
/// other parts and the tests of the branches that leave.
const MAX_LEAVE_ATOMS: usize = 6;

/// Most leaves tried in one scope (each is counted on its own).
const MAX_LEAVES: usize = 8;

/// How a rank leaves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Leave {
    Exit,
    Break,
    Continue,
    Return,
}

/// A statement by which only some ranks leave: under a rank test of its own
/// function, in the scope analysed (`break`, `continue`, `return`, an
/// exit) or in a function it calls (an exit).
#[derive(Clone, Copy)]
struct Candidate<'p> {
    scope: Scope,
    stmt: &'p Stmt,
    test: &'p Expr,
    /// The next rank test out, where the leave sits under two
    /// (`if rank == 0 and epoch % k == 0:` around `if mode and rank == 0:`):
    /// its other parts are tried both ways too.
    outer: Option<&'p Expr>,
    negated: bool,
    how: Leave,
}

/// The innermost `if` around `node` whose test mentions the rank, and
/// whether `node` is in its `else`; `None` where a loop (for `break` and
/// `continue`, `within_loop`) closes first.
fn rank_branch<'p>(
    prog: &crate::training::program::Program,
    scope: Scope,
    anc: &[Anc<'p>],
    node: &'p Stmt,
    within_loop: bool,
) -> Option<(&'p Expr, bool)> {
    let mut child: *const Stmt = node;
    for a in anc.iter().rev() {
        let Anc::Stmt(s) = a else { return None };
        match &s.kind {
            StmtKind::If { test, body, orelse } => {
                let in_body = body.iter().any(|b| std::ptr::eq(b, child));
                let in_else = orelse.iter().any(|b| std::ptr::eq(b, child));
                if (in_body || in_else) && mentions_rank(prog, scope, test) {
                    return Some((test, in_else));
                }
            }
            StmtKind::For { .. } | StmtKind::While { .. } if within_loop => return None,
            _ => {}
        }
        child = *s;
    }
    None
}

/// The rank test of the `if` next out from the one testing `inner`, among
/// the ancestors `anc` of a leave (not beyond a function).
fn outer_rank_test<'p>(
    prog: &crate::training::program::Program,
    scope: Scope,
    anc: &[Anc<'p>],
    inner: &'p Expr,
) -> Option<&'p Expr> {
    let mut past_inner = false;
    for a in anc.iter().rev() {
        let Anc::Stmt(s) = a else { return None };
        if let StmtKind::If { test, .. } = &s.kind {
            if past_inner && mentions_rank(prog, scope, test) {
                return Some(test);
            }
            past_inner |= std::ptr::eq(test, inner);
        }
    }
    None
}

/// Whether the innermost loop among `anc` runs a collective in its body.
pub(super) fn innermost_loop_collects(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], ddp: bool) -> bool {
    anc.iter()
        .rev()
        .find_map(|a| match a {
            Anc::Stmt(s) => match &s.kind {
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => Some(body),
                _ => None,
            },
            _ => None,
        })
        .is_some_and(|body| runtime::first_collective(code.prog, scope, body, ddp, 2).is_some())
}

/// Whether `node`'s ancestors hold a loop (for `break`/`continue`).
fn in_loop(anc: &[Anc<'_>]) -> bool {
    anc.iter()
        .any(|a| matches!(a, Anc::Stmt(s) if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. })))
}

/// The leaves of `scope` itself (`break`, `continue`, `return`, an exit
/// under a rank test), and the one-rank exits of the functions it calls,
/// two calls deep (`exits`: every one-rank exit of the code, with the
/// scopes that reach it).
fn candidates<'p>(
    code: &Code<'p>,
    scope: Scope,
    ddp: bool,
    exits: &[(Candidate<'p>, Vec<Scope>)],
    exiting: &[Scope],
) -> Vec<Candidate<'p>> {
    let prog = code.prog;
    let may_exit = exiting.contains(&scope);
    let mut out = Vec::new();
    prog.walk_stmts(scope, &mut |anc, st| {
        let how = match &st.kind {
            StmtKind::Break if in_loop(anc) => Leave::Break,
            StmtKind::Continue if in_loop(anc) => Leave::Continue,
            StmtKind::Return(_) => Leave::Return,
            StmtKind::Expr(e) if may_exit && exit_call(prog, scope, e) => Leave::Exit,
            _ => return,
        };
        let within_loop = matches!(how, Leave::Break | Leave::Continue);
        // A `break` or `continue` matters where its loop runs a collective.
        if within_loop && !innermost_loop_collects(code, scope, anc, ddp) {
            return;
        }
        if let Some((test, negated)) = rank_branch(prog, scope, anc, st, within_loop) {
            out.push(Candidate {
                scope,
                stmt: st,
                test,
                outer: outer_rank_test(prog, scope, anc, test),
                negated,
                how,
            });
        }
    });
    for (c, reach) in exits {
        if c.scope != scope && reach.contains(&scope) {
            out.push(Candidate { ..*c });
        }
    }
    out
}

/// Every exit of the code under a rank test of its own function, with the
/// scopes that call that function, directly or through one more call.
fn one_rank_exits<'p>(code: &Code<'p>, exiting: &[Scope]) -> Vec<(Candidate<'p>, Vec<Scope>)> {
    let prog = code.prog;
    let mut out = Vec::new();
    for &fs in exiting {
        let Some(f) = fs.func() else { continue };
        let mut found = Vec::new();
        prog.walk_stmts(fs, &mut |anc, st| {
            let StmtKind::Expr(e) = &st.kind else { return };
            if !exit_call(prog, fs, e) {
                return;
            }
            if let Some((test, negated)) = rank_branch(prog, fs, anc, st, false) {
                found.push(Candidate {
                    scope: fs,
                    stmt: st,
                    test,
                    outer: None,
                    negated,
                    how: Leave::Exit,
                });
            }
        });
        if found.is_empty() {
            continue;
        }
        let mut reach: Vec<Scope> = Vec::new();
        for (s, _) in prog.call_sites(f) {
            if !reach.contains(&s) {
                reach.push(s);
            }
            if let Some(g) = s.func() {
                for (s2, _) in prog.call_sites(g) {
                    if !reach.contains(&s2) {
                        reach.push(s2);
                    }
                }
            }
        }
        for c in found {
            out.push((c, reach.clone()));
        }
    }
    out
}

/// T104 for a rank that leaves alone: an exit, a `break` out of the
/// training loop, a `return` or a `continue` that only the ranks of a rank
/// test take, where the other ranks go on to collectives the leaving ranks
/// never join (`if rank == 0 and epoch >= total: os._exit(0)` inside the
/// epoch, early stopping decided on rank 0). Reported where taking that
/// statement out makes every rank's count agree.
fn leaving_ranks(
    code: &Code<'_>,
    scope: Scope,
    ddp: bool,
    out: &mut Sink<'_>,
    reported: &mut std::collections::HashSet<(ModId, usize)>,
    exits: &[(Candidate<'_>, Vec<Scope>)],
    exiting: &[Scope],
) {
    let prog = code.prog;
    let cands = candidates(code, scope, ddp, exits, exiting);
    if cands.is_empty() || cands.len() > MAX_LEAVES {
        return;
    }
    let mut atoms: Vec<(ModId, Span)> = Vec::new();
    for c in &cands {
        collect_atoms(code, c.scope, c.test, &mut atoms);
        if let Some(o) = c.outer {
            collect_atoms(code, c.scope, o, &mut atoms);
        }
    }
    // The `if` each leaving branch's atom tests (none for the rank tests').
    let mut branch_of: Vec<(ModId, Span)> = vec![(scope.m, Span::new(0, 0)); atoms.len()];
    // What a test is without atoms: its value where it has one on every run.
    let memo = Memo::default();
    let fixed = Counter {
        code,
        ddp,
        atoms: Vec::new(),
        same: Vec::new(),
        leaving: true,
        neutral: Vec::new(),
        pinned: Vec::new(),
        exiting,
        memo: &memo,
    };
    // The tests of branches that leave, in the scope and where its
    // candidates are: every rank takes them alike, either way.
    let mut scopes: Vec<Scope> = vec![scope];
    for c in &cands {
        if !scopes.contains(&c.scope) {
            scopes.push(c.scope);
        }
    }
    for s in &scopes {
        prog.walk_stmts(*s, &mut |_, st| {
            if let StmtKind::If { test, body, orelse } = &st.kind {
                let leave = |b: &[Stmt]| leaves(b) || (exiting.contains(s) && exits_in(prog, *s, b));
                if !mentions_rank(prog, *s, test) && (leave(body) || leave(orelse)) {
                    // `if not args.parallel_eval:` reads the flag itself (so
                    // its other reads fold into it); a compound test stays
                    // one atom (each part would double the assignments).
                    let mut atom = test;
                    while let ExprKind::Not(x) = &atom.kind {
                        atom = x;
                    }
                    if matches!(atom.kind, ExprKind::BoolOp { .. }) {
                        atom = test;
                    }
                    // Not a test every run takes one way (`if val_times >
                    // 0:` in `for val_times in [0]:`).
                    if fixed.eval(*s, atom, 0, 0).is_some() {
                        return;
                    }
                    if !atoms.contains(&(s.m, atom.span)) {
                        atoms.push((s.m, atom.span));
                        branch_of.push((s.m, st.span));
                    }
                }
            }
        });
    }
    let leave = Leaving {
        code,
        scope,
        ddp,
        scopes: &scopes,
        exiting,
        cands: &cands,
    };
    if atoms.len() <= MAX_LEAVE_ATOMS && leave.judge(atoms.clone(), Vec::new(), &cands, out, reported) {
        return;
    }
    // Too many to try both ways together, or the ranks differ with every
    // leave taken out (rank 0 trains alone under `--find-lr` beside an
    // early stop on rank 0): each leave on its own, with the parts of its
    // own test and of the leaving branches around it, the other tests'
    // parts taken false (their options off).
    if cands.len() < 2 && atoms.len() <= MAX_LEAVE_ATOMS {
        return;
    }
    for c in &cands {
        let mut own: Vec<Atom> = Vec::new();
        collect_atoms(code, c.scope, c.test, &mut own);
        if let Some(o) = c.outer {
            collect_atoms(code, c.scope, o, &mut own);
        }
        for (a, (m, st)) in atoms.iter().zip(&branch_of) {
            let around = *m == c.scope.m && st.start <= c.stmt.span.start && c.stmt.span.end <= st.end;
            if around && !own.contains(a) {
                own.push(*a);
            }
        }
        if own.len() > MAX_LEAVE_ATOMS {
            continue;
        }
        let pinned: Vec<Atom> = atoms.iter().filter(|a| !own.contains(a)).copied().collect();
        // Pinning nothing judges as above.
        if !pinned.is_empty() {
            leave.judge(own, pinned, std::slice::from_ref(c), out, reported);
        }
    }
}

/// The leaves of one scope, judged by [`Leaving::judge`].
struct Leaving<'c, 'p> {
    code: &'c Code<'p>,
    scope: Scope,
    ddp: bool,
    /// The scope and those of its candidates.
    scopes: &'c [Scope],
    exiting: &'c [Scope],
    /// Every candidate of the scope (those not judged are taken out).
    cands: &'c [Candidate<'p>],
}

impl Leaving<'_, '_> {
    /// Reports each leave of `judged` that alone makes the ranks' counts
    /// differ, counting with `atoms` tried both ways and `pinned` taken
    /// false, where taking every leave out makes them agree. `false` where
    /// they differ with every leave taken out (or cannot be counted), so
    /// that no leave explains the difference.
    fn judge(
        &self,
        atoms: Vec<Atom>,
        mut pinned: Vec<Atom>,
        judged: &[Candidate<'_>],
        out: &mut Sink<'_>,
        reported: &mut std::collections::HashSet<(ModId, usize)>,
    ) -> bool {
        let (code, scope) = (self.code, self.scope);
        let same = same_reads(code, self.scopes, &atoms);
        // The pinned parts' other reads are the same value.
        if !pinned.is_empty() {
            let again: Vec<Atom> = same_reads(code, self.scopes, &pinned)
                .into_iter()
                .map(|(a, _)| a)
                .collect();
            pinned.extend(again);
        }
        // Not read when leaving is modelled; the field wants one.
        let memo = Memo::default();
        let counter = Counter {
            code,
            ddp: self.ddp,
            atoms,
            same,
            leaving: true,
            neutral: Vec::new(),
            pinned,
            exiting: self.exiting,
            memo: &memo,
        };
        match counter.differ(scope) {
            None => return false,
            Some(d) if d.is_empty() => return true,
            Some(_) => {}
        }
        // Each leave alone, the others taken out: reported where it alone
        // makes the ranks differ, and only when taking them all out makes
        // every rank's count agree (the difference is the leaving's).
        let all: Vec<*const Stmt> = self.cands.iter().map(|c| c.stmt as *const Stmt).collect();
        let with_only = |keep: Option<*const Stmt>| Counter {
            neutral: all.iter().copied().filter(|p| Some(*p) != keep).collect(),
            atoms: counter.atoms.clone(),
            same: counter.same.clone(),
            pinned: counter.pinned.clone(),
            ..counter
        };
        if with_only(None).differ(scope).is_none_or(|d| !d.is_empty()) {
            return false;
        }
        for c in judged {
            if !reported.insert((c.scope.m, c.stmt.span.start)) {
                continue;
            }
            match with_only(Some(c.stmt as *const Stmt)).differ(scope) {
                Some(d) if !d.is_empty() => report_leave(code, out, scope, self.ddp, &d, c),
                _ => {
                    reported.remove(&(c.scope.m, c.stmt.span.start));
                }
            }
        }
        true
    }
}

fn report_leave(code: &Code<'_>, out: &mut Sink<'_>, scope: Scope, ddp: bool, differ: &[String], c: &Candidate<'_>) {
    let prog = code.prog;
    let pred = |k: &runtime::Collective| differ.contains(&k.kind);
    let Some((cs, site, coll)) = runtime::collective_site(prog, scope, prog.body(scope), ddp, 2, &pred) else {
        return;
    };
    let cond = excerpt(code.text(c.scope.m, c.test.span));
    let cond = if c.negated { format!("not ({cond})") } else { cond };
    let what = excerpt(code.text(c.scope.m, c.stmt.span));
    let label = excerpt(&coll.label);
    let backend = if coll.kind.starts_with("accelerate.") {
        " (under DeepSpeed or FSDP, as `accelerate launch` may run this script)"
    } else {
        ""
    };
    let message = match c.how {
        Leave::Exit => format!(
            "`{what}` ends the process only on ranks where `{cond}`: the other ranks go on to `{label}`, a collective{backend}, and wait there for it, so the job hangs until the collective times out"
        ),
        Leave::Break => format!(
            "`break` leaves the loop only on ranks where `{cond}`: the other ranks go on to the next iteration's `{label}`, a collective{backend}, and wait there for ranks that have left, so the job hangs"
        ),
        Leave::Continue => format!(
            "`continue` skips the rest of the iteration only on ranks where `{cond}`, `{label}` with it: the other ranks run that collective{backend}, so from here the ranks' collectives pair with the wrong calls or hang"
        ),
        Leave::Return => format!(
            "`{what}` leaves the function only on ranks where `{cond}`: the other ranks go on to `{label}`, a collective{backend}, and wait there for ranks that never come, so the job hangs"
        ),
    };
    let d = out.at_loc(code.loc(c.scope.m, c.stmt.span), message);
    d.help("decide on every rank alike: compute the decision on one rank and broadcast it (`dist.broadcast_object_list([stop], src=0)`), then let every rank leave together");
    d.label(code.file(c.scope.m), c.test.span, "the rank condition");
    d.label(code.file(cs.m), site.span, "the collective the other ranks wait in");
}
