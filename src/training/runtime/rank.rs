//! Ranks and world sizes: which expressions give a process's rank or the
//! number of processes, and which branches only some ranks take.

use super::*;

/// What a rank expression gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankKind {
    /// The rank (global or local; -1 where not distributed).
    Rank,
    /// A boolean: whether this is rank 0 (`is_chief`, `is_main_process`).
    IsZero,
}

pub(super) const RANK_NAMES: &[&str] = &[
    "rank",
    "local_rank",
    "global_rank",
    "world_rank",
    "node_rank",
    "gpu_rank",
];
/// The parameter names a function takes a rank by.
pub const RANK_PARAMS: &[&str] = RANK_NAMES;
pub(super) const RANK_ATTRS: &[&str] = &[
    "rank",
    "local_rank",
    "global_rank",
    "gpu_rank",
    "process_index",
    "local_process_index",
    "cross_rank",
];
pub(super) const ZERO_ATTRS: &[&str] = &[
    "is_chief",
    "is_main_process",
    "is_local_main_process",
    "is_global_zero",
    "is_local_zero",
];

/// Whether `e` is (derived only from) this process's rank.
pub fn rank_kind(prog: &Program, scope: Scope, e: &Expr) -> Option<RankKind> {
    rank_kind_at(prog, scope, e, 0)
}

pub(super) fn rank_kind_at(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> Option<RankKind> {
    if depth > 6 {
        return None;
    }
    match &e.kind {
        ExprKind::Call { func, args, .. } => {
            if let Some(path) = prog.external(scope, func) {
                match path.as_str() {
                    "torch.distributed.get_rank"
                    | "deepspeed.comm.get_rank"
                    | "horovod.rank"
                    | "horovod.local_rank"
                    | "deepspeed.comm.get_local_rank" => return Some(RankKind::Rank),
                    "builtins.int" | "builtins.str" => {
                        return pos(args, 0).and_then(|a| rank_kind_at(prog, scope, a, depth + 1))
                    }
                    "os.getenv" | "os.environ.get" => return pos(args, 0).and_then(env_rank),
                    // mpi4py: `MPI.COMM_WORLD.Get_rank()`, `comm.Get_rank()`.
                    p if p.starts_with("mpi4py.") && p.ends_with(".Get_rank") && args.is_empty() => {
                        return Some(RankKind::Rank)
                    }
                    _ => {}
                }
            }
            // A helper of the training code: `get_rank()` that returns the
            // rank, or 0 where torch.distributed is not initialized.
            if let Callee::Func(f) = prog.callee(scope, func) {
                return helper_rank(prog, f, depth);
            }
            if let ExprKind::Attribute { value, attr } = &func.kind {
                match attr.as_str() {
                    "get_rank" | "get_local_rank" | "get_global_rank" if args.is_empty() => {
                        if let ExprKind::Attribute { attr: d, .. } = &value.kind {
                            if d == "distributed" {
                                return Some(RankKind::Rank);
                            }
                        }
                        if matches!(prog.external(scope, value).as_deref(), Some(p) if p.starts_with("torch.distributed") || p.starts_with("deepspeed"))
                        {
                            return Some(RankKind::Rank);
                        }
                    }
                    "Get_rank"
                        if args.is_empty() && prog.external(scope, value).is_some_and(|p| p.starts_with("mpi4py.")) =>
                    {
                        return Some(RankKind::Rank);
                    }
                    "get" if is_environ(prog, scope, value) => return pos(args, 0).and_then(env_rank),
                    _ => {}
                }
            }
            None
        }
        ExprKind::Subscript { value, index } if is_environ(prog, scope, value) => env_rank(index),
        // `opt['rank']` of an options dict (BasicSR's and KAIR's `opt['rank'],
        // opt['world_size'] = get_dist_info()`): a rank by its key, as
        // `args.rank` is by its attribute.
        ExprKind::Subscript { index, .. } if matches!(&index.kind, ExprKind::Str(k) if RANK_NAMES.contains(&k.as_str())) => {
            Some(RankKind::Rank)
        }
        ExprKind::Attribute { value, attr } => {
            if ZERO_ATTRS.contains(&attr.as_str()) {
                return Some(RankKind::IsZero);
            }
            if RANK_ATTRS.contains(&attr.as_str()) {
                // `self.rank` assigned from something else is not a rank.
                if prog.self_class(scope, value).is_some() {
                    return match follow(prog, scope, e, depth) {
                        Some(k) => Some(k),
                        None => (!assigned_elsewise(prog, scope, e)).then_some(RankKind::Rank),
                    };
                }
                return Some(RankKind::Rank);
            }
            // A property of a training-code class that returns a rank test
            // (`def is_main(self): return self.accelerator.is_main_process`
            // under `@property`): `trainer.is_main` is that test.
            if let Callee::Func(f) = prog.callee(scope, e) {
                let property = prog.func(f).is_some_and(|x| {
                    x.decorators
                        .iter()
                        .any(|d| matches!(&d.kind, ExprKind::Name(n) if n == "property"))
                });
                if property {
                    return helper_rank(prog, f, depth);
                }
            }
            follow(prog, scope, e, depth)
        }
        // The first parameter of a function `mp.spawn` starts: the process
        // index, which the spawning code makes the rank (a direct call of the
        // same function for one process passes 0, rank 0).
        ExprKind::Name(_) if spawned_rank_param(prog, scope, e) => Some(RankKind::Rank),
        // A parameter every caller passes its own rank (`train(rank, …)`
        // from a spawned `run(rank, …)` that a single-process path calls
        // with `0`): the rank, whatever reaches those callers.
        ExprKind::Name(_) if rank_param_of_callers(prog, scope, e, depth) => Some(RankKind::Rank),
        ExprKind::Name(n) => match follow(prog, scope, e, depth) {
            Some(k) => Some(k),
            None if RANK_NAMES.contains(&n.as_str()) => (!assigned_elsewise(prog, scope, e)).then_some(RankKind::Rank),
            None => None,
        },
        _ => None,
    }
}

/// Whether `e` (a name) reads parameter 0 of its function, unchanged,
/// where some call site of that function is a spawner's
/// (`mp.spawn(train, args=(cfg,), nprocs=n)` runs `train(i, cfg)`).
fn spawned_rank_param(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let (Some(f), ExprKind::Name(n)) = (scope.func(), &e.kind) else {
        return false;
    };
    if !matches!(
        prog.local_defs(f, n).as_slice(),
        [crate::training::program::LocalDef::Param(0)]
    ) {
        return false;
    }
    if prog.class_of(f).is_some() {
        return false;
    }
    prog.call_sites(f).into_iter().any(|(s, call)| prog.spawns(s, call)) || process_target(prog, f)
}

/// Whether `e` (a name) reads a parameter of its function, unchanged, that
/// each of its (at most 8) call sites binds to a rank expression.
fn rank_param_of_callers(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> bool {
    let (Some(f), ExprKind::Name(n)) = (scope.func(), &e.kind) else {
        return false;
    };
    let defs = prog.local_defs(f, n);
    let [crate::training::program::LocalDef::Param(k)] = defs.as_slice() else {
        return false;
    };
    let k = *k;
    let sites = prog.call_sites(f);
    if sites.is_empty() || sites.len() > 8 {
        return false;
    }
    sites.into_iter().all(|(s, call)| match prog.bind(f, call, k) {
        crate::training::program::Bound::Given(arg) => {
            matches!(arg.kind, ExprKind::Name(_)) && rank_kind_at(prog, s, arg, depth + 1) == Some(RankKind::Rank)
        }
        _ => false,
    })
}

/// Whether `f` is started as `multiprocessing.Process(target=f, args=(i,
/// …))` with `i` the variable of a loop over `range(…)` around it: one
/// process per index, the index its first argument.
fn process_target(prog: &Program, f: FuncId) -> bool {
    let Some(name) = prog.func(f).map(|x| x.name.clone()) else {
        return false;
    };
    for m in prog.code_modules() {
        let named = prog.chunks_with_words(m, &[name.as_str()]);
        for c in prog.chunks_with_words(m, &["Process"]) {
            if !named.contains(&c) {
                continue;
            }
            for scope in prog.scopes(m, c) {
                let mut hit = false;
                prog.walk_exprs(scope, &mut |anc, e| {
                    let ExprKind::Call { func, args, .. } = &e.kind else {
                        return;
                    };
                    if hit
                        || !matches!(
                            prog.external(scope, func).as_deref(),
                            Some("multiprocessing.Process" | "torch.multiprocessing.Process")
                        )
                    {
                        return;
                    }
                    let Some(target) = super::kw(args, "target") else {
                        return;
                    };
                    if prog.callee(scope, target) != Callee::Func(f) {
                        return;
                    }
                    let Some(ExprKind::Tuple(items)) = super::kw(args, "args").map(|a| &a.kind) else {
                        return;
                    };
                    let Some(ExprKind::Name(i)) = items.first().map(|x| &x.kind) else {
                        return;
                    };
                    hit = anc.iter().any(|a| {
                        let Anc::Stmt(st) = a else { return false };
                        let StmtKind::For { target, iter, .. } = &st.kind else {
                            return false;
                        };
                        matches!(&target.kind, ExprKind::Name(t) if t == i)
                            && matches!(&iter.kind, ExprKind::Call { func, .. }
                                if prog.external(scope, func).as_deref() == Some("builtins.range"))
                    });
                });
                if hit {
                    return true;
                }
            }
        }
    }
    false
}

/// What a helper function of the training code returns: the rank (every
/// return is a rank expression or an integer literal, one at least a rank),
/// or whether this is rank 0 (`get_rank() == 0`, or boolean literals).
pub(super) fn helper_rank(prog: &Program, f: FuncId, depth: u32) -> Option<RankKind> {
    let scope = f.scope();
    let returns = prog.returns(f);
    let mut kind = None;
    let mut literals = 0;
    for r in &returns {
        let k = match &r.kind {
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Unary { .. } => {
                literals += 1;
                continue;
            }
            ExprKind::Compare { .. } | ExprKind::BoolOp { .. } | ExprKind::IfExp { .. } => {
                if zero_test(prog, scope, r, depth + 1) {
                    RankKind::IsZero
                } else {
                    return None;
                }
            }
            _ => rank_kind_at(prog, scope, r, depth + 1)?,
        };
        if kind.is_some_and(|x| x != k) {
            return None;
        }
        kind = Some(k);
    }
    let _ = literals;
    kind
}

/// Whether a returned boolean says "this is rank 0": `rank == 0`, an
/// is-zero expression, `not dist.is_initialized() or rank == 0`,
/// `dist.is_initialized() and rank == 0`, or a conditional expression whose
/// both arms are such tests (`is_local(args) if local else is_global(args)`).
fn zero_test(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    match &e.kind {
        ExprKind::Compare { left, rest } => match rest.as_slice() {
            [(op, right)] if op == "==" => {
                let zero = |x: &Expr| matches!(x.kind, ExprKind::Int(0));
                (zero(right) && rank_kind_at(prog, scope, left, depth + 1) == Some(RankKind::Rank))
                    || (zero(left) && rank_kind_at(prog, scope, right, depth + 1) == Some(RankKind::Rank))
            }
            _ => false,
        },
        ExprKind::BoolOp { and, left, right } => {
            let guard = distributed_test(prog, scope, left);
            let ok_guard = if *and {
                guard == Some(true)
            } else {
                guard == Some(false)
            };
            ok_guard && zero_test(prog, scope, right, depth + 1)
        }
        ExprKind::IfExp { body, orelse, .. } => {
            zero_test(prog, scope, body, depth + 1) && zero_test(prog, scope, orelse, depth + 1)
        }
        _ => rank_kind_at(prog, scope, e, depth + 1) == Some(RankKind::IsZero),
    }
}

thread_local! {
    // The expressions one `depends_on_rank` question has explored, each
    // with the least depth it was explored at, and how many questions are
    // open (a question asks others through `returns` and sources).
    static DEPENDS_SEEN: std::cell::RefCell<(u32, std::collections::HashMap<usize, u32>)> = std::cell::RefCell::default();
}

/// Whether `e`'s value depends on the rank: a rank expression anywhere in
/// it, or in what its names hold and its helper calls return (a few steps
/// deep).
pub fn depends_on_rank(prog: &Program, scope: Scope, e: &Expr) -> bool {
    DEPENDS_SEEN.with(|d| d.borrow_mut().0 += 1);
    let found = depends_at(prog, scope, e, 0);
    DEPENDS_SEEN.with(|d| {
        let mut d = d.borrow_mut();
        d.0 = d.0.saturating_sub(1);
        if d.0 == 0 {
            d.1.clear();
        }
    });
    found
}

pub(super) fn depends_at(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    // An expression explored before at this depth or less found nothing
    // (a finding ends the question): a name reassigned from itself
    // (`img = np.array(img)`, `img = img[..., :3]`) is explored once, not
    // once per path to it, which grew exponentially with the depth.
    let key = e as *const Expr as usize;
    let fresh = DEPENDS_SEEN.with(|d| {
        let mut d = d.borrow_mut();
        match d.1.get(&key) {
            Some(&at) if at <= depth => false,
            _ => {
                d.1.insert(key, depth);
                true
            }
        }
    });
    if !fresh {
        return false;
    }
    if mentions_rank(prog, scope, e) {
        return true;
    }
    let mut names: Vec<&Expr> = Vec::new();
    let mut stack = Vec::new();
    crate::training::program::walk_expr(e, &mut stack, &mut |_, n| {
        if let Node::Expr(x) = n {
            if matches!(
                x.kind,
                ExprKind::Name(_) | ExprKind::Call { .. } | ExprKind::Attribute { .. }
            ) {
                names.push(x);
            }
        }
    });
    for x in names {
        if let ExprKind::Call { func, .. } = &x.kind {
            if let Callee::Func(f) = prog.callee(scope, func) {
                if prog
                    .returns(f)
                    .iter()
                    .any(|r| depends_at(prog, f.scope(), r, depth + 1))
                {
                    return true;
                }
            }
            continue;
        }
        // `seed += self.rank` before the seed is used.
        if let ExprKind::Name(n) = &x.kind {
            if scope.func().is_some() && aug_assigned_from_rank(prog, scope, n, depth) {
                return true;
            }
        }
        let s = prog.sources(scope, x);
        for t in &s.terms {
            // `fabric.global_rank` passed as an argument: its origin is the
            // object (`L.Fabric(...)`), with the rank attribute left to read.
            if matches!(t.proj.last(), Some(crate::training::program::Proj::Attr(a)) if RANK_ATTRS.contains(&a.as_str()))
            {
                return true;
            }
            if !std::ptr::eq(t.expr, x) && depends_at(prog, t.scope, t.expr, depth + 1) {
                return true;
            }
        }
    }
    false
}

/// Whether function scope `scope` adds something rank-dependent to local
/// `name` in place (`seed += self.rank`).
fn aug_assigned_from_rank(prog: &Program, scope: Scope, name: &str, depth: u32) -> bool {
    let mut values: Vec<&Expr> = Vec::new();
    prog.walk_stmts(scope, &mut |_, st| {
        if let StmtKind::AugAssign { target, value, .. } = &st.kind {
            if matches!(&target.kind, ExprKind::Name(t) if t == name) {
                values.push(value);
            }
        }
    });
    values.into_iter().any(|v| depends_at(prog, scope, v, depth + 1))
}

/// Whether a statement or expression (its ancestors `anc`) sits on the
/// path that runs only without distribution: the `else` of `if
/// args.distributed:` / `if dist.is_initialized():` / `if world_size > 1:`,
/// or the body of their negation (`if local_rank == -1:`).
pub fn non_distributed_path(prog: &Program, scope: Scope, anc: &[Anc<'_>], node: *const ()) -> bool {
    on_branch(anc, node, |test, in_body| {
        distributed_test(prog, scope, test).is_some_and(|positive| positive != in_body)
    })
}

/// Whether a condition asks "is this run distributed?": `Some(true)` for
/// the question, `Some(false)` for its negation.
pub fn distributed_test(prog: &Program, scope: Scope, e: &Expr) -> Option<bool> {
    // Compared without case: a yacs config's `cfg.MODEL.DIST_TRAIN`.
    const FLAGS: &[&str] = &[
        "distributed",
        "is_distributed",
        "ddp",
        "use_ddp",
        "multi_gpu",
        "use_multi_gpu",
        "multi_gpus",
        "use_multi_gpus",
        "multiprocessing_distributed",
        "use_distributed",
        "dist_train",
        "distributed_training",
    ];
    let flag = |n: &str| FLAGS.iter().any(|f| f.eq_ignore_ascii_case(n));
    match &e.kind {
        ExprKind::Not(x) => distributed_test(prog, scope, x).map(|b| !b),
        // A parameter or local named `dist` (`def create_dataloader(…,
        // dist=False)`), not the imported `torch.distributed`.
        ExprKind::Name(n) if n == "dist" => scope
            .func()
            .is_some_and(|f| {
                prog.local_defs(f, n).iter().all(|d| {
                    matches!(
                        d,
                        crate::training::program::LocalDef::Param(_)
                            | crate::training::program::LocalDef::Assign { .. }
                    )
                }) && !prog.local_defs(f, n).is_empty()
            })
            .then_some(true),
        ExprKind::Name(n) => flag(n).then_some(true),
        // `args.dist`, `opt["dist"]` (BasicSR's options): `dist` is a flag
        // where it is a field, not the module.
        ExprKind::Attribute { attr, .. } => (flag(attr) || attr == "dist").then_some(true),
        ExprKind::Subscript { index, .. } => {
            matches!(&index.kind, ExprKind::Str(k) if flag(k) || k == "dist").then_some(true)
        }
        ExprKind::Call { func, .. } => {
            let name = match &func.kind {
                ExprKind::Name(n) => n.as_str(),
                ExprKind::Attribute { attr, .. } => attr.as_str(),
                _ => return None,
            };
            (name == "is_initialized"
                || name == "is_available"
                || name == "is_dist_avail_and_initialized"
                || name == "is_distributed")
                .then_some(true)
        }
        ExprKind::Compare { left, rest } => {
            let [(op, right)] = rest.as_slice() else { return None };
            let lit = match right.kind {
                ExprKind::Int(i) => i,
                ExprKind::Unary { ref op, ref operand } if op == "-" => match operand.kind {
                    ExprKind::Int(i) => -i,
                    _ => return None,
                },
                _ => return None,
            };
            let world = is_world(prog, scope, left);
            let rank = rank_kind(prog, scope, left) == Some(RankKind::Rank);
            match (op.as_str(), lit) {
                (">", 1) if world => Some(true),
                ("<=" | "==", 1) if world => Some(false),
                ("!=", -1) if rank => Some(true),
                ("==", -1) if rank => Some(false),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The rank kind of every origin of `e`, when they agree.
pub(super) fn follow(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> Option<RankKind> {
    let s = prog.sources(scope, e);
    if s.unknown || s.terms.is_empty() {
        return None;
    }
    let mut kind = None;
    // `rank = 0` beside a rank (`try: rank = dist.get_rank() except: rank =
    // 0`, `rank = 0` then `if distributed: rank = dist.get_rank()`): rank 0
    // of a run without a process group.
    let mut zero = false;
    for t in &s.terms {
        if std::ptr::eq(t.expr, e) {
            return None;
        }
        if t.proj.is_empty() && matches!(t.expr.kind, ExprKind::Int(0)) {
            zero = true;
            continue;
        }
        // `is_main = accelerator.is_main_process`: the object's rank test,
        // read once into a name (its source is the object, projected).
        let k = match t.proj.as_slice() {
            [] => rank_kind_at(prog, t.scope, t.expr, depth + 1)?,
            [crate::training::program::Proj::Attr(a)] if ZERO_ATTRS.contains(&a.as_str()) => RankKind::IsZero,
            _ => return None,
        };
        if kind.is_some_and(|x| x != k) {
            return None;
        }
        kind = Some(k);
    }
    match kind {
        Some(RankKind::Rank) | None => kind,
        // A zero beside a rank test (`True`/`False`) is neither.
        Some(_) if zero => None,
        Some(_) => kind,
    }
}

/// Whether a name that looks like a rank has an origin that is clearly
/// something else (a literal, a hyperparameter).
pub(super) fn assigned_elsewise(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let s = prog.sources(scope, e);
    s.terms.iter().any(|t| {
        matches!(
            t.expr.kind,
            ExprKind::Int(_) | ExprKind::Str(_) | ExprKind::Float(_) | ExprKind::Dict(_) | ExprKind::List(_)
        ) || matches!(&t.expr.kind, ExprKind::Call { func, .. } if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr.starts_with("get_hparam")))
    })
}

pub(super) fn env_rank(key: &Expr) -> Option<RankKind> {
    match &key.kind {
        ExprKind::Str(s)
            if matches!(
                s.as_str(),
                "RANK" | "LOCAL_RANK" | "GROUP_RANK" | "OMPI_COMM_WORLD_RANK" | "SLURM_PROCID" | "DET_RANK"
            ) =>
        {
            Some(RankKind::Rank)
        }
        _ => None,
    }
}

pub(super) fn is_environ(prog: &Program, scope: Scope, e: &Expr) -> bool {
    prog.external(scope, e).as_deref() == Some("os.environ")
}

/// Whether `e` mentions a rank expression anywhere.
pub fn mentions_rank(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    crate::training::program::walk_expr(e, &mut stack, &mut |_, n| {
        if found {
            return;
        }
        if let Node::Expr(x) = n {
            if matches!(
                x.kind,
                ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Call { .. } | ExprKind::Subscript { .. }
            ) && rank_kind(prog, scope, x).is_some()
            {
                found = true;
            }
        }
    });
    found
}

/// Whether `e` is the world size.
pub fn is_world(prog: &Program, scope: Scope, e: &Expr) -> bool {
    is_world_at(prog, scope, e, 0)
}

pub(super) fn is_world_at(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    match &e.kind {
        ExprKind::Call { func, args, .. } => {
            if let Some(p) = prog.external(scope, func) {
                match p.as_str() {
                    "torch.distributed.get_world_size" | "horovod.size" | "deepspeed.comm.get_world_size" => {
                        return true
                    }
                    "builtins.int" => return pos(args, 0).is_some_and(|a| is_world_at(prog, scope, a, depth + 1)),
                    "os.getenv" | "os.environ.get" => {
                        return pos(args, 0).is_some_and(|k| matches!(&k.kind, ExprKind::Str(s) if s == "WORLD_SIZE"))
                    }
                    _ => {}
                }
            }
            if let Callee::Func(f) = prog.callee(scope, func) {
                let returns = prog.returns(f);
                return returns.iter().any(|r| is_world_at(prog, f.scope(), r, depth + 1))
                    && returns
                        .iter()
                        .all(|r| matches!(r.kind, ExprKind::Int(_)) || is_world_at(prog, f.scope(), r, depth + 1));
            }
            if let ExprKind::Attribute { value, attr } = &func.kind {
                if matches!(attr.as_str(), "get_size" | "get_world_size") {
                    return matches!(&value.kind, ExprKind::Attribute { attr, .. } if attr == "distributed")
                        || prog
                            .external(scope, value)
                            .is_some_and(|p| p.starts_with("torch.distributed"));
                }
                if attr == "get" && is_environ(prog, scope, value) {
                    return pos(args, 0).is_some_and(|k| matches!(&k.kind, ExprKind::Str(s) if s == "WORLD_SIZE"));
                }
            }
            false
        }
        ExprKind::Subscript { value, index } if is_environ(prog, scope, value) => {
            matches!(&index.kind, ExprKind::Str(s) if s == "WORLD_SIZE")
        }
        ExprKind::Attribute { attr, .. }
            if matches!(attr.as_str(), "size" | "world_size" | "num_processes" | "num_replicas") =>
        {
            let s = prog.sources(scope, e);
            if !s.unknown && !s.terms.is_empty() && !s.terms.iter().any(|t| std::ptr::eq(t.expr, e)) {
                return s.terms.iter().all(|t| is_world_at(prog, t.scope, t.expr, depth + 1));
            }
            true
        }
        ExprKind::Name(n) => {
            let s = prog.sources(scope, e);
            if !s.unknown && !s.terms.is_empty() && !s.terms.iter().any(|t| std::ptr::eq(t.expr, e)) {
                return s
                    .terms
                    .iter()
                    .all(|t| t.proj.is_empty() && is_world_at(prog, t.scope, t.expr, depth + 1));
            }
            matches!(
                n.as_str(),
                "world_size" | "world" | "num_replicas" | "n_gpus" | "ngpus" | "num_gpus"
            )
        }
        _ => false,
    }
}

/// Whether a statement or expression (its ancestors `anc`) runs on one rank
/// at most: the body of `if rank == 0:`, `if is_main_process():`, `if
/// args.rank in [-1, 0]:`, `if local_rank <= 0:` (or of an `and` with
/// one of them), or the `else` of `if rank != 0:`.
pub fn one_rank_path(prog: &Program, scope: Scope, anc: &[Anc<'_>], node: *const ()) -> bool {
    on_branch(anc, node, |test, in_body| one_rank_test(prog, scope, test, in_body))
        || after_one_rank_guard(prog, scope, anc, node)
}

/// Whether a statement before `node` in one of the blocks around it sends
/// all ranks but one away: `if not is_main_process(): return` (or `raise`,
/// or `continue` in a loop): what follows runs where the test is false.
fn after_one_rank_guard<'a>(prog: &'a Program, scope: Scope, anc: &[Anc<'a>], node: *const ()) -> bool {
    let guard_before = |block: &[Stmt], child: *const ()| {
        for st in block {
            if std::ptr::eq(st as *const Stmt as *const (), child) {
                return false;
            }
            if let StmtKind::If { test, body, .. } = &st.kind {
                let leaves = matches!(
                    body.last().map(|b| &b.kind),
                    Some(StmtKind::Return(_) | StmtKind::Raise(_) | StmtKind::Continue)
                );
                if leaves && one_rank_test(prog, scope, test, false) {
                    return true;
                }
            }
        }
        false
    };
    let mut block: Option<&'a [Stmt]> = Some(prog.body(scope));
    for (i, a) in anc.iter().enumerate() {
        let next: *const () = match anc.get(i + 1) {
            Some(Anc::Stmt(n)) => *n as *const Stmt as *const (),
            Some(Anc::Handler(h)) => *h as *const crate::training::ast::Handler as *const (),
            Some(_) => std::ptr::null(),
            None => node,
        };
        match a {
            Anc::Stmt(s) => {
                if block.is_some_and(|b| guard_before(b, *s as *const Stmt as *const ())) {
                    return true;
                }
                block = sub_block(s, next);
            }
            Anc::Handler(h) => {
                let holds = h.body.iter().any(|x| std::ptr::eq(x as *const Stmt as *const (), next));
                block = holds.then_some(h.body.as_slice());
            }
            _ => block = None,
        }
    }
    block.is_some_and(|b| guard_before(b, node))
}

/// The block of `s` (a body, an `else`, a `finally`) that holds `child`.
fn sub_block(s: &Stmt, child: *const ()) -> Option<&[Stmt]> {
    crate::training::program::blocks_of(s)
        .into_iter()
        .find(|b| b.iter().any(|x| std::ptr::eq(x as *const Stmt as *const (), child)))
}

/// Whether `node` (its ancestors `anc`) sits in an arm of an `if` statement
/// or expression for which `arm(test, in_body)` holds (`in_body`: the body,
/// else the `else`).
pub fn on_branch(anc: &[Anc<'_>], node: *const (), arm: impl Fn(&Expr, bool) -> bool) -> bool {
    let mut child: *const () = node;
    for a in anc.iter().rev() {
        match a {
            Anc::Stmt(s) => {
                if let StmtKind::If { test, body, orelse } = &s.kind {
                    let in_body = body.iter().any(|b| std::ptr::eq(b as *const Stmt as *const (), child));
                    let in_else = orelse
                        .iter()
                        .any(|b| std::ptr::eq(b as *const Stmt as *const (), child));
                    if (in_body || in_else) && arm(test, in_body) {
                        return true;
                    }
                }
                child = *s as *const Stmt as *const ();
            }
            Anc::Expr(p) => {
                if let ExprKind::IfExp { test, body, orelse } = &p.kind {
                    let in_body = std::ptr::eq(&**body as *const Expr as *const (), child);
                    let in_else = std::ptr::eq(&**orelse as *const Expr as *const (), child);
                    if (in_body || in_else) && arm(test, in_body) {
                        return true;
                    }
                }
                child = *p as *const Expr as *const ();
            }
            _ => {}
        }
    }
    false
}

/// Whether `node` (ancestors `anc`, in `scope`) runs on one rank at most:
/// on a one-rank path of its function ([`one_rank_path`]), or in a helper
/// every call site of which is (two calls deep).
pub fn runs_on_one_rank(prog: &Program, scope: Scope, anc: &[Anc<'_>], node: *const ()) -> bool {
    one_rank_path(prog, scope, anc, node) || rank_zero_only_scope(prog, scope) || called_on_one_rank(prog, scope, 0)
}

/// Whether `scope` is the body of a function decorated with Lightning's
/// `@rank_zero_only` (from any of its modules): other ranks return at
/// once.
pub fn rank_zero_only_scope(prog: &Program, scope: Scope) -> bool {
    let Some(f) = scope.func() else { return false };
    let Some(func) = prog.func(f) else { return false };
    let def = prog.def_scope_of(f);
    func.decorators.iter().any(|d| match prog.expr_sym(def, d) {
        Some(crate::training::program::Sym::External(p)) => {
            p.starts_with("lightning") && p.rsplit('.').next() == Some("rank_zero_only")
        }
        _ => false,
    })
}

fn called_on_one_rank(prog: &Program, scope: Scope, depth: u32) -> bool {
    let Some(f) = scope.func() else { return false };
    let sites = prog.call_sites(f);
    if depth > 1 || sites.is_empty() || sites.len() > 8 {
        return false;
    }
    sites.into_iter().all(|(s, call)| {
        prog.ancestors_of(s, call).is_some_and(|anc| {
            one_rank_path(prog, s, &anc, call as *const Expr as *const ())
                || rank_zero_only_scope(prog, s)
                || called_on_one_rank(prog, s, depth + 1)
        })
    })
}

/// Whether `test` comes out `want` on one of the ranks 0..16 at most (and
/// surely not on the others): what is not the rank stays unknown.
pub fn one_rank_test(prog: &Program, scope: Scope, test: &Expr, want: bool) -> bool {
    if !mentions_rank(prog, scope, test) {
        return false;
    }
    let mut may = 0;
    for r in 0..16 {
        match truth(rank_value(prog, scope, test, r, 0)) {
            Some(b) if b != want => {}
            _ => may += 1,
        }
        if may > 1 {
            return false;
        }
    }
    true
}

#[derive(Clone, Debug, PartialEq)]
enum RankVal {
    Int(i64),
    Bool(bool),
    List(Vec<Option<RankVal>>),
}

fn truth(v: Option<RankVal>) -> Option<bool> {
    match v? {
        RankVal::Int(i) => Some(i != 0),
        RankVal::Bool(b) => Some(b),
        RankVal::List(l) => Some(!l.is_empty()),
    }
}

/// The value of `e` on rank `r`, where it is known.
fn rank_value(prog: &Program, scope: Scope, e: &Expr, r: i64, depth: u32) -> Option<RankVal> {
    if depth > 8 {
        return None;
    }
    let value = |x: &Expr| rank_value(prog, scope, x, r, depth + 1);
    match &e.kind {
        ExprKind::Int(i) => Some(RankVal::Int(*i)),
        ExprKind::Bool(b) => Some(RankVal::Bool(*b)),
        ExprKind::Unary { op, operand } if op == "-" => match value(operand)? {
            RankVal::Int(i) => i.checked_neg().map(RankVal::Int),
            _ => None,
        },
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
            Some(RankVal::List(items.iter().map(value).collect()))
        }
        ExprKind::Not(x) => truth(value(x)).map(|b| RankVal::Bool(!b)),
        ExprKind::BoolOp { and, left, right } => {
            let (l, rt) = (truth(value(left)), truth(value(right)));
            let short = !*and;
            if l == Some(short) || rt == Some(short) {
                return Some(RankVal::Bool(short));
            }
            // Neither operand decides it: known, both give the other value.
            l?;
            rt?;
            Some(RankVal::Bool(!short))
        }
        ExprKind::Compare { left, rest } => {
            let mut cur = value(left);
            let mut all = Some(true);
            for (op, right) in rest {
                let rhs = value(right);
                match compare_ranks(op, cur.as_ref(), rhs.as_ref()) {
                    Some(false) => return Some(RankVal::Bool(false)),
                    Some(true) => {}
                    None => all = None,
                }
                cur = rhs;
            }
            all.map(RankVal::Bool)
        }
        _ => match rank_kind(prog, scope, e)? {
            RankKind::Rank => Some(RankVal::Int(r)),
            RankKind::IsZero => Some(RankVal::Bool(r == 0)),
        },
    }
}

fn compare_ranks(op: &str, a: Option<&RankVal>, b: Option<&RankVal>) -> Option<bool> {
    let num = |v: &RankVal| match v {
        RankVal::Int(i) => Some(*i),
        RankVal::Bool(b) => Some(i64::from(*b)),
        RankVal::List(_) => None,
    };
    if op == "in" || op == "not in" {
        let RankVal::List(items) = b? else { return None };
        let x = num(a?)?;
        let mut unknown = false;
        for i in items {
            match i.as_ref().and_then(num) {
                Some(v) if v == x => return Some(op == "in"),
                Some(_) => {}
                None => unknown = true,
            }
        }
        return (!unknown).then_some(op != "in");
    }
    let (x, y) = (num(a?)?, num(b?)?);
    Some(match op {
        "==" | "is" => x == y,
        "!=" | "is not" => x != y,
        "<" => x < y,
        "<=" => x <= y,
        ">" => x > y,
        ">=" => x >= y,
        _ => return None,
    })
}
