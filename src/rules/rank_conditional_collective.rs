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
    /// ends in a barrier of all ranks. A forward pass of a
    /// `DistributedDataParallel` model that runs on one rank only (a validation
    /// or NaN-logging pass under `if rank == 0:`, or in a helper called only
    /// there) is one too, where the wrapper broadcasts buffers (the default, or
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
    ///
    /// ## Why
    /// Every rank must enter a collective the same number of times and in the same
    /// order. `if rank == 0: dist.barrier()` leaves rank 0 waiting forever; a
    /// `restore_path()` on the chief only leaves it waiting for workers that never
    /// come. The balanced pattern — the other ranks wait at a barrier while rank 0
    /// prepares, then rank 0 reaches its own — is fine, as are point-to-point
    /// `send`/`recv` and chief-only uploads (`shard=False`).
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
use crate::training::program::{walk_stmt, Callee, FuncId, Node, Scope};
use crate::training::runtime::{self, collective, mentions_rank, rank_kind, RankKind};

/// The help for Lightning's `trainer.save_checkpoint` under a rank test.
const LIGHTNING_HELP: &str = "Trainer.save_checkpoint ends in a barrier of all ranks (and under DeepSpeed or FSDP every rank writes its shard), and Lightning writes the file from global rank 0 itself: call it on every rank, without the rank test";

/// Most parts of rank conditions that are tried both ways.
const MAX_ATOMS: usize = 6;
const RANKS: [i64; 3] = [0, 1, 2];

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() {
        return;
    }
    let ddp = runtime::data_parallel_model(code.prog, code.rt);
    super::rank_zero_ddp_forward::one_rank_forwards(&code, out);
    // Chunks that call a collective by name: `reduce` as a word, not
    // `reduce_dict`; `checkpoint` in `core.checkpoint`, not in
    // `save_checkpoint`.
    let mut words = runtime::collective_words(code.prog);
    // And the names of the training code's functions that run one (two
    // calls deep): `sync_params()` around `dist.broadcast`, a loader
    // around `MPI.COMM_WORLD.bcast`.
    words.extend(collective_helpers(&code, &words, ddp));
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    for scope in code.scopes_with_words(&words) {
        if !code.rt.world_at(code.prog, scope.m).distributed() {
            continue;
        }
        let cx = Counter {
            code: &code,
            ddp,
            atoms: Vec::new(),
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
            continue;
        }
        let mut atoms: Vec<Span> = Vec::new();
        for (_, test) in &branches {
            collect_atoms(&code, scope, test, &mut atoms);
        }
        if atoms.len() > MAX_ATOMS {
            continue;
        }
        let counter = Counter {
            code: &code,
            ddp,
            atoms: atoms.clone(),
        };
        let mut differ: Vec<String> = Vec::new();
        let mut resolved = true;
        'assignments: for bits in 0u32..(1 << atoms.len()) {
            let mut per_rank: Vec<BTreeMap<String, u32>> = Vec::new();
            for r in RANKS {
                match counter.count(scope, code.prog.body(scope), r, bits, 0) {
                    Some((c, _)) => per_rank.push(c),
                    None => {
                        resolved = false;
                        break 'assignments;
                    }
                }
            }
            let kinds: std::collections::BTreeSet<&String> = per_rank.iter().flat_map(|m| m.keys()).collect();
            for k in kinds {
                let n: Vec<u32> = per_rank.iter().map(|m| m.get(k).copied().unwrap_or(0)).collect();
                if n.iter().any(|x| *x != n[0]) && !differ.contains(k) {
                    differ.push(k.clone());
                }
            }
        }
        if !resolved || differ.is_empty() {
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
                            if !differ.contains(&c.kind) {
                                return;
                            }
                            reported.push(e.span);
                            let d = out.at_loc(code.loc(scope.m, e.span), direct_message(&c, &cond));
                            d.help(if c.kind.starts_with("accelerate.") {
                                "call it on every process and keep only your own file writes under the main-process test (Accelerate writes its checkpoint files from the right process itself)"
                            } else if c.kind == "lightning.save_checkpoint" {
                                LIGHTNING_HELP
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
                        let body = code.prog.body(f.scope());
                        let pred = |c: &runtime::Collective| differ.contains(&c.kind);
                        let Some((inner_scope, inner, c)) =
                            runtime::collective_site(code.prog, f.scope(), body, ddp, 1, &pred)
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
    /// The non-rank parts of rank conditions, each taken true or false by
    /// the bits of an assignment.
    atoms: Vec<Span>,
}

/// How a block ended for a rank.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Normal,
    /// `return`/`raise`: nothing after it in the function runs.
    Function,
    /// `continue`/`break`: nothing after it in the loop body runs.
    Loop,
}

impl Counter<'_, '_> {
    fn has_collective(&self, scope: Scope, stmts: &[Stmt]) -> bool {
        runtime::first_collective(self.code.prog, scope, stmts, self.ddp, 2).is_some()
    }

    /// The collectives `stmts` run for rank `r`; `None` when a rank
    /// condition cannot be decided.
    fn count(
        &self,
        scope: Scope,
        stmts: &[Stmt],
        r: i64,
        bits: u32,
        depth: u32,
    ) -> Option<(BTreeMap<String, u32>, End)> {
        let mut out: BTreeMap<String, u32> = BTreeMap::new();
        let add = |out: &mut BTreeMap<String, u32>, more: BTreeMap<String, u32>| {
            for (k, v) in more {
                *out.entry(k).or_default() += v;
            }
        };
        for s in stmts {
            match &s.kind {
                StmtKind::If { test, body, orelse } => {
                    add(&mut out, self.in_expr(scope, test, r, bits, depth)?);
                    // A rank branch that neither runs a collective nor
                    // leaves the block (`if rank == 0 and step % 10 == 0:
                    // print(...)`) counts nothing either way: its condition
                    // need not be decided.
                    let inert = !self.has_collective(scope, body)
                        && !self.has_collective(scope, orelse)
                        && !leaves(body)
                        && !leaves(orelse);
                    if !inert && mentions_rank(self.code.prog, scope, test) {
                        let taken = self.eval(scope, test, r, bits)?;
                        let (c, end) = self.count(scope, if taken { body } else { orelse }, r, bits, depth)?;
                        add(&mut out, c);
                        if end != End::Normal {
                            return Some((out, end));
                        }
                    } else {
                        // The same branch on every rank: both count alike.
                        add(&mut out, self.count(scope, body, r, bits, depth)?.0);
                        add(&mut out, self.count(scope, orelse, r, bits, depth)?.0);
                    }
                }
                StmtKind::For { iter, body, orelse, .. } => {
                    add(&mut out, self.in_expr(scope, iter, r, bits, depth)?);
                    add(&mut out, self.count(scope, body, r, bits, depth)?.0);
                    add(&mut out, self.count(scope, orelse, r, bits, depth)?.0);
                }
                StmtKind::While { test, body, orelse } => {
                    if mentions_rank(self.code.prog, scope, test) {
                        return None;
                    }
                    add(&mut out, self.in_expr(scope, test, r, bits, depth)?);
                    add(&mut out, self.count(scope, body, r, bits, depth)?.0);
                    add(&mut out, self.count(scope, orelse, r, bits, depth)?.0);
                }
                StmtKind::With { items, body } => {
                    for i in items {
                        add(&mut out, self.in_expr(scope, &i.ctx, r, bits, depth)?);
                    }
                    let (c, end) = self.count(scope, body, r, bits, depth)?;
                    add(&mut out, c);
                    if end != End::Normal {
                        return Some((out, end));
                    }
                }
                StmtKind::Try { body, finalbody, .. } => {
                    add(&mut out, self.count(scope, body, r, bits, depth)?.0);
                    add(&mut out, self.count(scope, finalbody, r, bits, depth)?.0);
                }
                StmtKind::Return(v) | StmtKind::Raise(v) => {
                    if let Some(v) = v {
                        add(&mut out, self.in_expr(scope, v, r, bits, depth)?);
                    }
                    return Some((out, End::Function));
                }
                StmtKind::Continue | StmtKind::Break => return Some((out, End::Loop)),
                StmtKind::Expr(e) => add(&mut out, self.in_expr(scope, e, r, bits, depth)?),
                StmtKind::Assign { value: e, .. }
                | StmtKind::AugAssign { value: e, .. }
                | StmtKind::AnnAssign { value: Some(e), .. } => add(&mut out, self.in_expr(scope, e, r, bits, depth)?),
                _ => {}
            }
        }
        Some((out, End::Normal))
    }

    /// The collectives an expression runs: its own calls, and the bodies
    /// of training-code functions it calls (two levels deep).
    fn in_expr(&self, scope: Scope, e: &Expr, r: i64, _bits: u32, depth: u32) -> Option<BTreeMap<String, u32>> {
        let prog = self.code.prog;
        let mut out: BTreeMap<String, u32> = BTreeMap::new();
        let mut calls = Vec::new();
        let mut stack = Vec::new();
        crate::training::program::walk_expr(e, &mut stack, &mut |_, n| {
            if let Node::Expr(x) = n {
                if matches!(x.kind, ExprKind::Call { .. }) {
                    calls.push(x);
                }
            }
        });
        for call in calls {
            if let Some(c) = collective(prog, scope, call, self.ddp) {
                *out.entry(c.kind).or_default() += 1;
                continue;
            }
            if depth >= 2 {
                continue;
            }
            let ExprKind::Call { func, .. } = &call.kind else {
                continue;
            };
            if let Callee::Func(f) = prog.callee(scope, func) {
                // A rank parameter given something other than this
                // process's rank (`create_loader(..., rank=-1)`): the
                // callee's rank tests cannot be decided from here.
                if rank_param_overridden(self.code, scope, call, f) {
                    return None;
                }
                // Conditions inside the callee: its own rank tests only.
                let inner = Counter {
                    code: self.code,
                    ddp: self.ddp,
                    atoms: Vec::new(),
                };
                let (c, _) = inner.count(f.scope(), prog.body(f.scope()), r, 0, depth + 1)?;
                for (k, v) in c {
                    *out.entry(k).or_default() += v;
                }
            }
        }
        Some(out)
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
        if let Some(i) = self.atoms.iter().position(|a| *a == e.span) {
            return Some(Val::Bool(bits & (1 << i) != 0));
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
                let (Val::Int(a), Val::Int(b)) =
                    (self.value(scope, left, r, bits)?, self.value(scope, right, r, bits)?)
                else {
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
            _ => {}
        }
        match rank_kind(prog, scope, e)? {
            RankKind::Rank => Some(Val::Int(r)),
            RankKind::IsZero => Some(Val::Bool(r == 0)),
        }
    }
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
fn collect_atoms(code: &Code<'_>, scope: Scope, e: &Expr, out: &mut Vec<Span>) {
    match &e.kind {
        ExprKind::BoolOp { left, right, .. } => {
            collect_atoms(code, scope, left, out);
            collect_atoms(code, scope, right, out);
        }
        ExprKind::Not(x) => collect_atoms(code, scope, x, out),
        _ => {
            if backend_test(code, scope, e).is_none() && !mentions_rank(code.prog, scope, e) && !out.contains(&e.span) {
                out.push(e.span);
            }
        }
    }
}

/// The names of training-code functions that run a collective directly
/// (`words`: the names collectives are called by), or call such a function.
fn collective_helpers(code: &Code<'_>, words: &[String], ddp: bool) -> Vec<String> {
    let prog = code.prog;
    let mut out: Vec<String> = Vec::new();
    let mut level: Vec<String> = words.to_vec();
    for depth in 0..2 {
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
    } else {
        format!("`{label}` is a collective, but only ranks where `{cond}` call it here; the other ranks never join a matching call")
    }
}

/// The message for a call of a helper that runs a collective.
fn helper_message(call: &str, c: &runtime::Collective, cond: &str) -> String {
    let label = excerpt(&c.label);
    let backend = if c.kind.starts_with("accelerate.") {
        " under DeepSpeed or FSDP (as `accelerate launch` may run this script)"
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
fn leaves(stmts: &[Stmt]) -> bool {
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
