//! Who runs the training code and what the ranks share: how many
//! processes the launcher starts, whether the code is a Determined trial,
//! whether every rank seeds the global torch RNG alike, and the vocabulary
//! the checks share — rank and world-size expressions, collective
//! operations, the config's environment and image.

use serde_json::Value as Json;

use super::ast::{Arg, Expr, ExprKind, Stmt, StmtKind};
use super::entry::{Launch, Launcher, Procs, Target};
use super::program::{walk_stmt, Anc, Callee, ClassId, FuncId, ModId, Node, Program, Scope, Sym};
use super::values::{self, Const, Env};
use super::{EntrySpec, FileRole, Training};

/// The config facts the training checks read.
#[derive(Clone, Debug, Default)]
pub struct ConfigFacts {
    /// Whether an experiment config came with the code.
    pub present: bool,
    /// `resources.slots_per_trial` (1 when unset; `None` when invalid).
    pub slots: Option<i64>,
    /// `environment.environment_variables` names and values (all forms).
    pub env: Vec<(String, String)>,
    /// `environment.image`: `None` for Determined's default images,
    /// `Some(None)` for a form stagec does not read.
    pub image: Option<Option<String>>,
    /// The config as JSON (hyperparameters, data).
    pub json: Option<Json>,
}

impl ConfigFacts {
    /// Reads the facts from the config's JSON and settings; `present`:
    /// whether there is a config at all.
    pub fn read(json: Option<&Json>, settings: Option<&crate::settings::Settings>, present: bool) -> ConfigFacts {
        let image = match json.and_then(|j| j.pointer("/environment/image")) {
            None | Some(Json::Null) => None,
            Some(Json::String(s)) => Some(Some(s.clone())),
            Some(Json::Object(m)) => Some(
                m.get("cuda")
                    .or_else(|| m.get("gpu"))
                    .and_then(Json::as_str)
                    .map(str::to_string),
            ),
            Some(_) => Some(None),
        };
        ConfigFacts {
            present,
            slots: settings.map_or(Some(1), |s| s.slots_per_trial.count()),
            env: settings
                .map(|s| {
                    s.environment_variables
                        .iter()
                        .map(|e| (e.name.clone(), e.value.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            image,
            json: json.cloned(),
        }
    }

    /// Whether the experiment's environment sets `name`.
    pub fn sets_env(&self, name: &str) -> bool {
        self.env.iter().any(|(n, _)| n == name)
    }
}

/// How many processes run the training code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum World {
    /// One process: nothing is shared across ranks.
    Single,
    /// One process per rank; the count when known.
    Ranks(Option<i64>),
}

impl World {
    pub fn distributed(self) -> bool {
        matches!(self, World::Ranks(n) if n.is_none_or(|n| n > 1))
    }
}

/// The Determined trial API a class implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrialKind {
    PyTorch,
    DeepSpeed,
}

pub const PYTORCH_TRIAL: &str = "determined.pytorch.PyTorchTrial";
pub const DEEPSPEED_TRIAL: &str = "determined.pytorch.deepspeed.DeepSpeedTrial";

/// What runs the code.
#[derive(Clone, Debug)]
pub struct Runtime {
    pub world: World,
    /// The trial classes of the training code.
    pub trials: Vec<(ClassId, TrialKind)>,
    /// When the entry script only defines a trial class that nothing runs
    /// (`python train.py` around a `PyTorchTrial`): the class, analysed as
    /// Determined would run it once the entrypoint names it.
    pub unlaunched_trial: Option<(ClassId, TrialKind)>,
    /// The launch, when the entrypoint was read.
    pub launch: Option<Launch>,
    /// Who runs each program other than the experiment's (the scripts
    /// named on the command line, [`Program::programs`]), worked out from
    /// their own code: its bit and its world.
    pub scripts: Vec<(u64, World)>,
}

impl Runtime {
    pub fn compute(training: &Training, prog: &Program, config: &ConfigFacts) -> Runtime {
        let trials = trial_classes(prog);
        let launch = match &training.entry {
            EntrySpec::Found(l, _) | EntrySpec::Missing(l, _) => Some(l.clone()),
            _ => None,
        };
        let slots = config.slots;
        let mut unlaunched_trial = None;
        let main = |m: ModId| !prog.detached(m);
        let has_main = prog.code_modules().any(main);
        let world = if !has_main {
            World::Single
        } else if !config.present {
            // Files on their own: distributed when the code says so.
            if distributed_markers(prog, &main) || trials.iter().any(|(k, _)| main(k.m)) {
                World::Ranks(None)
            } else {
                World::Single
            }
        } else {
            // A script or module that only defines a trial class runs
            // nothing, with or without a launcher in front (Determined's
            // launcher, torchrun, `stagec exec`); checked as Determined
            // would run the class.
            if let Some(l) = &launch {
                let entry = prog.modules().find(|m| prog.role(*m) == Some(FileRole::Entry));
                let only_defines = entry.is_some_and(|m| only_definitions(prog, m));
                if matches!(l.target, Target::Script(_) | Target::Module(_)) && only_defines {
                    unlaunched_trial = trials.iter().copied().find(|(k, _)| Some(k.m) == entry);
                }
            }
            match &launch {
                Some(l) => match (l.launcher, l.procs) {
                    (Launcher::None, _) => {
                        if unlaunched_trial.is_some() {
                            slots_world(slots)
                        } else if matches!(l.target, Target::Trial { .. }) {
                            // `determined.exec.harness` directly: one process.
                            World::Single
                        } else {
                            spawned_world(prog, slots, &main)
                        }
                    }
                    (_, Procs::Slots) => slots_world(slots),
                    (_, Procs::Fixed(n)) => {
                        if n > 1 {
                            World::Ranks(Some(n))
                        } else {
                            World::Single
                        }
                    }
                    (_, Procs::One) => World::Single,
                },
                None => {
                    if distributed_markers(prog, &main) {
                        World::Ranks(None)
                    } else {
                        World::Single
                    }
                }
            }
        };
        let mut scripts: Vec<(u64, World)> = Vec::new();
        let bits = prog.code_modules().fold(0u64, |acc, m| acc | prog.programs(m)) & !1;
        for i in 1..64 {
            let bit = 1u64 << i;
            if bits & bit == 0 {
                continue;
            }
            let mine = |m: ModId| prog.programs(m) & bit != 0;
            let w = if distributed_markers(prog, &mine) || trials.iter().any(|(k, _)| mine(k.m)) {
                World::Ranks(None)
            } else {
                World::Single
            };
            scripts.push((bit, w));
        }
        Runtime {
            world,
            trials,
            unlaunched_trial,
            launch,
            scripts,
        }
    }

    /// The programs module `m` runs in, each with who runs it: the
    /// experiment's (bit 0) and the scripts'.
    pub fn worlds_of(&self, prog: &Program, m: ModId) -> Vec<(u64, World)> {
        let mut out = Vec::new();
        if !prog.detached(m) {
            out.push((1, self.world));
        }
        let bits = prog.programs(m);
        out.extend(self.scripts.iter().copied().filter(|(b, _)| bits & b != 0));
        out
    }

    /// Who runs the code of module `m` (once per rank when any program it
    /// runs in does).
    pub fn world_at(&self, prog: &Program, m: ModId) -> World {
        let worlds = self.worlds_of(prog, m);
        worlds
            .iter()
            .map(|(_, w)| *w)
            .find(|w| w.distributed())
            .or_else(|| worlds.first().map(|(_, w)| *w))
            .unwrap_or(World::Single)
    }

    /// Whether some of the code runs once per rank.
    pub fn distributed_somewhere(&self) -> bool {
        self.world.distributed() || self.scripts.iter().any(|(_, w)| w.distributed())
    }

    /// The entrypoint's arguments.
    pub fn argv(&self) -> &[String] {
        self.launch.as_ref().map_or(&[], |l| l.argv.as_slice())
    }

    /// The trial class whose method `scope` is in (directly, or through
    /// helper methods of the same class).
    pub fn trial_of(&self, prog: &Program, scope: Scope) -> Option<(ClassId, TrialKind)> {
        let k = prog.class_of(scope.func()?)?;
        self.trials
            .iter()
            .copied()
            .find(|(t, _)| *t == k || prog.bases(k).contains(t))
    }
}

fn slots_world(slots: Option<i64>) -> World {
    match slots {
        Some(n) if n > 1 => World::Ranks(Some(n)),
        _ => World::Single,
    }
}

/// Whether a module only imports, defines and assigns (nothing runs).
fn only_definitions(prog: &Program, m: ModId) -> bool {
    for c in 0..prog.chunk_count(m) {
        let kind = prog.parsed(m).and_then(|p| p.chunks().get(c as usize)).map(|i| i.kind);
        if kind != Some(super::scan::ChunkKind::Code) {
            continue;
        }
        let Some(ast) = prog.chunk(m, c) else { continue };
        for s in &ast.stmts {
            match &s.kind {
                StmtKind::Import(_)
                | StmtKind::ImportFrom { .. }
                | StmtKind::FunctionDef(_)
                | StmtKind::ClassDef(_)
                | StmtKind::Pass
                | StmtKind::Other => {}
                StmtKind::Assign { value, .. } | StmtKind::AnnAssign { value: Some(value), .. } => {
                    if !matches!(
                        value.kind,
                        ExprKind::Str(_)
                            | ExprKind::Int(_)
                            | ExprKind::Float(_)
                            | ExprKind::Bool(_)
                            | ExprKind::None
                            | ExprKind::Name(_)
                            | ExprKind::Attribute { .. }
                            | ExprKind::List(_)
                            | ExprKind::Tuple(_)
                            | ExprKind::Dict(_)
                    ) {
                        return false;
                    }
                }
                StmtKind::Expr(e) if matches!(e.kind, ExprKind::Str(_)) => {}
                _ => return false,
            }
        }
    }
    true
}

/// The process count when plain `python script.py` spawns ranks itself
/// (`torch.multiprocessing.spawn`, Lightning with several devices).
fn spawned_world(prog: &Program, slots: Option<i64>, which: &dyn Fn(ModId) -> bool) -> World {
    for m in prog.code_modules().filter(|m| which(*m)) {
        let needles = ["spawn", "start_processes", "Trainer"];
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &needles).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                let mut found = None;
                prog.walk_exprs(scope, &mut |_, e| {
                    let ExprKind::Call { func, args, .. } = &e.kind else {
                        return;
                    };
                    let Some(path) = prog.external(scope, func) else { return };
                    match path.as_str() {
                        "torch.multiprocessing.spawn" | "torch.multiprocessing.start_processes" => {
                            let n = kw(args, "nprocs").and_then(literal_int);
                            found = Some(match n {
                                Some(n) if n <= 1 => World::Single,
                                Some(n) => World::Ranks(Some(n)),
                                None => World::Ranks(slots.filter(|s| *s > 1)),
                            });
                        }
                        "lightning.Trainer" => {
                            let devices = kw(args, "devices").and_then(literal_int);
                            let strategy = kw(args, "strategy").and_then(|e| match &e.kind {
                                ExprKind::Str(s) => Some(s.clone()),
                                _ => None,
                            });
                            let ddp = strategy.as_deref().is_some_and(|s| {
                                s.starts_with("ddp") || s.starts_with("fsdp") || s.starts_with("deepspeed")
                            });
                            if ddp {
                                found = Some(match devices {
                                    Some(n) if n <= 1 => World::Single,
                                    Some(n) => World::Ranks(Some(n)),
                                    None => World::Ranks(slots.filter(|s| *s > 1)),
                                });
                            }
                        }
                        _ => {}
                    }
                });
                if let Some(w) = found {
                    return match w {
                        World::Ranks(None) => World::Ranks(None),
                        w => w,
                    };
                }
            }
        }
    }
    World::Single
}

/// Code that only makes sense with several ranks (for files checked on
/// their own), in the modules `which` accepts.
fn distributed_markers(prog: &Program, which: &dyn Fn(ModId) -> bool) -> bool {
    const MARKERS: &[&str] = &[
        "torch.distributed.init_process_group",
        "torch.nn.parallel.DistributedDataParallel",
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "horovod.init",
        "deepspeed.init_distributed",
        "deepspeed.initialize",
        "torch.multiprocessing.spawn",
    ];
    let needles = [
        "init_process_group",
        "DistributedDataParallel",
        "DDP",
        "FullyShardedDataParallel",
        "FSDP",
        "hvd",
        "horovod",
        "deepspeed",
        "spawn",
    ];
    any_call_in(prog, &needles, |path| MARKERS.contains(&path), which)
}

/// Whether some call of the training code resolves to an external path
/// `pred` accepts (only chunks mentioning `needles` are parsed).
pub fn any_call(prog: &Program, needles: &[&str], pred: impl Fn(&str) -> bool) -> bool {
    any_call_in(prog, needles, pred, &|_| true)
}

/// [`any_call`] in the modules `which` accepts.
fn any_call_in(prog: &Program, needles: &[&str], pred: impl Fn(&str) -> bool, which: &dyn Fn(ModId) -> bool) -> bool {
    for m in prog.code_modules().filter(|m| which(*m)) {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, needles).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                let mut hit = false;
                prog.walk_exprs(scope, &mut |_, e| {
                    if hit {
                        return;
                    }
                    if let ExprKind::Call { func, .. } = &e.kind {
                        if let Some(p) = prog.external(scope, func) {
                            hit = pred(&p);
                        }
                    }
                });
                if hit {
                    return true;
                }
            }
        }
    }
    false
}

/// Every call of the training code to one of the external `targets`:
/// `(scope, ancestors, call, path)`.
pub fn calls<'p>(prog: &'p Program, targets: &[&str]) -> Vec<(Scope, Vec<Anc<'p>>, &'p Expr, String)> {
    let mut out = Vec::new();
    for m in prog.code_modules() {
        let needles = prog.needles_for(m, targets);
        let words: Vec<&str> = needles.iter().map(String::as_str).collect();
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &words).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                prog.walk_exprs(scope, &mut |anc, e| {
                    if let ExprKind::Call { func, .. } = &e.kind {
                        if let Some(p) = prog.external(scope, func) {
                            if targets.contains(&p.as_str()) {
                                out.push((scope, anc.to_vec(), e, p));
                            }
                        }
                    }
                });
            }
        }
    }
    out
}

/// The trial classes (subclasses of `PyTorchTrial` / `DeepSpeedTrial`).
pub fn trial_classes(prog: &Program) -> Vec<(ClassId, TrialKind)> {
    let mut out = Vec::new();
    for k in prog.classes_mentioning(&["Trial"]) {
        let bases = prog.external_bases(k);
        if bases.iter().any(|b| b == DEEPSPEED_TRIAL) {
            out.push((k, TrialKind::DeepSpeed));
        } else if bases.iter().any(|b| b == PYTORCH_TRIAL) {
            out.push((k, TrialKind::PyTorch));
        }
    }
    out
}

/// A keyword argument's value.
pub fn kw<'a>(args: &'a [Arg], name: &str) -> Option<&'a Expr> {
    args.iter().find_map(|a| match a {
        Arg::Kw { name: n, value, .. } if n == name => Some(value),
        _ => None,
    })
}

/// The `i`-th positional argument.
pub fn pos(args: &[Arg], i: usize) -> Option<&Expr> {
    args.iter()
        .filter_map(|a| match a {
            Arg::Pos(e) => Some(e),
            _ => None,
        })
        .nth(i)
}

/// An argument by keyword, or else by position.
pub fn arg<'a>(args: &'a [Arg], name: &str, i: usize) -> Option<&'a Expr> {
    kw(args, name).or_else(|| pos(args, i))
}

/// Whether the call passes `*args` or `**kwargs`.
pub fn has_splat(args: &[Arg]) -> bool {
    args.iter().any(|a| matches!(a, Arg::Star(_) | Arg::StarStar(_)))
}

pub fn literal_int(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(i) => Some(*i),
        _ => None,
    }
}

// ---------------------------------------------------------------------
// Ranks and world sizes

/// What a rank expression gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankKind {
    /// The rank (global or local; -1 where not distributed).
    Rank,
    /// A boolean: whether this is rank 0 (`is_chief`, `is_main_process`).
    IsZero,
}

const RANK_NAMES: &[&str] = &["rank", "local_rank", "global_rank", "world_rank", "node_rank"];
const RANK_ATTRS: &[&str] = &[
    "rank",
    "local_rank",
    "global_rank",
    "process_index",
    "local_process_index",
    "cross_rank",
];
const ZERO_ATTRS: &[&str] = &[
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

fn rank_kind_at(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> Option<RankKind> {
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
                    "get" if is_environ(prog, scope, value) => return pos(args, 0).and_then(env_rank),
                    _ => {}
                }
            }
            None
        }
        ExprKind::Subscript { value, index } if is_environ(prog, scope, value) => env_rank(index),
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
            follow(prog, scope, e, depth)
        }
        ExprKind::Name(n) => match follow(prog, scope, e, depth) {
            Some(k) => Some(k),
            None if RANK_NAMES.contains(&n.as_str()) => (!assigned_elsewise(prog, scope, e)).then_some(RankKind::Rank),
            None => None,
        },
        _ => None,
    }
}

/// What a helper function of the training code returns: the rank (every
/// return is a rank expression or an integer literal, one at least a rank),
/// or whether this is rank 0 (`get_rank() == 0`, or boolean literals).
fn helper_rank(prog: &Program, f: FuncId, depth: u32) -> Option<RankKind> {
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
            ExprKind::Compare { left, rest } => match (rest.as_slice(), rank_kind_at(prog, scope, left, depth + 1)) {
                ([(op, right)], Some(RankKind::Rank)) if op == "==" && matches!(right.kind, ExprKind::Int(0)) => {
                    RankKind::IsZero
                }
                _ => return None,
            },
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

/// Whether `e`'s value depends on the rank: a rank expression anywhere in
/// it, or in what its names hold and its helper calls return (a few steps
/// deep).
pub fn depends_on_rank(prog: &Program, scope: Scope, e: &Expr) -> bool {
    depends_at(prog, scope, e, 0)
}

fn depends_at(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    if mentions_rank(prog, scope, e) {
        return true;
    }
    let mut names: Vec<&Expr> = Vec::new();
    let mut stack = Vec::new();
    super::program::walk_expr(e, &mut stack, &mut |_, n| {
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
        let s = prog.sources(scope, x);
        for t in &s.terms {
            if !std::ptr::eq(t.expr, x) && depends_at(prog, t.scope, t.expr, depth + 1) {
                return true;
            }
        }
    }
    false
}

/// Whether a statement or expression (its ancestors `anc`) sits on the
/// path that runs only without distribution: the `else` of `if
/// args.distributed:` / `if dist.is_initialized():` / `if world_size > 1:`,
/// or the body of their negation (`if local_rank == -1:`).
pub fn non_distributed_path(prog: &Program, scope: Scope, anc: &[Anc<'_>], node: *const ()) -> bool {
    let mut child: *const () = node;
    for a in anc.iter().rev() {
        match a {
            Anc::Stmt(s) => {
                if let StmtKind::If { test, body, orelse } = &s.kind {
                    let in_body = body.iter().any(|b| std::ptr::eq(b as *const Stmt as *const (), child));
                    let in_else = orelse
                        .iter()
                        .any(|b| std::ptr::eq(b as *const Stmt as *const (), child));
                    if let Some(positive) = distributed_test(prog, scope, test) {
                        if (in_else && positive) || (in_body && !positive) {
                            return true;
                        }
                    }
                }
                child = *s as *const Stmt as *const ();
            }
            Anc::Expr(p) => {
                if let ExprKind::IfExp { test, body, orelse } = &p.kind {
                    let in_body = std::ptr::eq(&**body as *const Expr as *const (), child);
                    let in_else = std::ptr::eq(&**orelse as *const Expr as *const (), child);
                    if let Some(positive) = distributed_test(prog, scope, test) {
                        if (in_else && positive) || (in_body && !positive) {
                            return true;
                        }
                    }
                }
                child = *p as *const Expr as *const ();
            }
            _ => {}
        }
    }
    false
}

/// Whether a condition asks "is this run distributed?": `Some(true)` for
/// the question, `Some(false)` for its negation.
fn distributed_test(prog: &Program, scope: Scope, e: &Expr) -> Option<bool> {
    const FLAGS: &[&str] = &[
        "distributed",
        "is_distributed",
        "ddp",
        "use_ddp",
        "multi_gpu",
        "multiprocessing_distributed",
        "use_distributed",
    ];
    match &e.kind {
        ExprKind::Not(x) => distributed_test(prog, scope, x).map(|b| !b),
        ExprKind::Name(n) => FLAGS.contains(&n.as_str()).then_some(true),
        ExprKind::Attribute { attr, .. } => FLAGS.contains(&attr.as_str()).then_some(true),
        ExprKind::Call { func, .. } => {
            let name = match &func.kind {
                ExprKind::Name(n) => n.as_str(),
                ExprKind::Attribute { attr, .. } => attr.as_str(),
                _ => return None,
            };
            (name == "is_initialized" || name == "is_dist_avail_and_initialized" || name == "is_distributed")
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
fn follow(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> Option<RankKind> {
    let s = prog.sources(scope, e);
    if s.unknown || s.terms.is_empty() {
        return None;
    }
    let mut kind = None;
    for t in &s.terms {
        if !t.proj.is_empty() || std::ptr::eq(t.expr, e) {
            return None;
        }
        let k = rank_kind_at(prog, t.scope, t.expr, depth + 1)?;
        if kind.is_some_and(|x| x != k) {
            return None;
        }
        kind = Some(k);
    }
    kind
}

/// Whether a name that looks like a rank has an origin that is clearly
/// something else (a literal, a hyperparameter).
fn assigned_elsewise(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let s = prog.sources(scope, e);
    s.terms.iter().any(|t| {
        matches!(
            t.expr.kind,
            ExprKind::Int(_) | ExprKind::Str(_) | ExprKind::Float(_) | ExprKind::Dict(_) | ExprKind::List(_)
        ) || matches!(&t.expr.kind, ExprKind::Call { func, .. } if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr.starts_with("get_hparam")))
    })
}

fn env_rank(key: &Expr) -> Option<RankKind> {
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

fn is_environ(prog: &Program, scope: Scope, e: &Expr) -> bool {
    prog.external(scope, e).as_deref() == Some("os.environ")
}

/// Whether `e` mentions a rank expression anywhere.
pub fn mentions_rank(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    super::program::walk_expr(e, &mut stack, &mut |_, n| {
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

fn is_world_at(prog: &Program, scope: Scope, e: &Expr, depth: u32) -> bool {
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

// ---------------------------------------------------------------------
// Collectives

/// What the process wraps models in (so that `loss.backward()` is a
/// gradient all-reduce).
pub fn data_parallel_model(prog: &Program, runtime: &Runtime) -> bool {
    if !runtime.trials.is_empty() || runtime.unlaunched_trial.is_some() {
        return true;
    }
    let needles = [
        "DistributedDataParallel",
        "DDP",
        "FullyShardedDataParallel",
        "FSDP",
        "fully_shard",
        "DistributedOptimizer",
        "deepspeed",
        "prepare",
    ];
    any_call(prog, &needles, |p| {
        matches!(
            p,
            "torch.nn.parallel.DistributedDataParallel"
                | "torch.distributed.fsdp.FullyShardedDataParallel"
                | "torch.distributed.fsdp.fully_shard"
                | "torch.distributed._composable.fsdp.fully_shard"
                | "horovod.DistributedOptimizer"
                | "deepspeed.initialize"
        )
    })
}

const DIST_COLLECTIVES: &[&str] = &[
    "barrier",
    "all_reduce",
    "all_gather",
    "all_gather_object",
    "all_gather_into_tensor",
    "all_to_all",
    "all_to_all_single",
    "broadcast",
    "broadcast_object_list",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "gather",
    "gather_object",
    "scatter",
    "scatter_object_list",
    "monitored_barrier",
];

/// The names [`collective`] recognises as collectives (method or function
/// names, as whole identifiers) besides those of torch.distributed and
/// deepspeed.comm ([`DIST_COLLECTIVES`]): a chunk that has none of them, nor
/// a name its module binds to one ([`collective_words`]), calls none
/// directly.
const OTHER_COLLECTIVE_NAMES: &[&str] = &[
    // torch.distributed.checkpoint (its functions' names are common
    // words: the names bound to them and to the module are added)
    "checkpoint",
    // Horovod
    "allreduce",
    "allreduce_",
    "allgather",
    "broadcast_",
    "broadcast_parameters",
    "broadcast_optimizer_state",
    "broadcast_object",
    "alltoall",
    // (`hvd.join` is left out: `join` is mostly `os.path.join`.)
    // engines, Accelerate, Determined
    "backward",
    "step_optimizer",
    "wait_for_everyone",
    "gather_for_metrics",
    "broadcast_local",
    "allgather_local",
    "gather_local",
    "restore_path",
    "download",
    "store_path",
    "upload",
    "should_preempt",
];

/// The words a chunk that calls a collective directly has as identifiers:
/// [`DIST_COLLECTIVES`], [`OTHER_COLLECTIVE_NAMES`], and the names the training code's modules bind to
/// collective functions or to `torch.distributed.checkpoint`
/// (`from torch.distributed import all_reduce as ar`, `import
/// torch.distributed.checkpoint as dcp`).
pub fn collective_words(prog: &Program) -> Vec<String> {
    let mut targets: Vec<String> = Vec::new();
    for name in DIST_COLLECTIVES {
        targets.push(format!("torch.distributed.{name}"));
        targets.push(format!("deepspeed.comm.{name}"));
    }
    for name in ["save", "load", "save_state_dict", "load_state_dict"] {
        targets.push(format!("torch.distributed.checkpoint.{name}"));
    }
    let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
    let mut out: Vec<String> = DIST_COLLECTIVES
        .iter()
        .chain(OTHER_COLLECTIVE_NAMES)
        .map(|n| n.to_string())
        .collect();
    for m in prog.code_modules() {
        out.extend(prog.names_bound_to(m, &targets));
        out.extend(prog.module_alias(m, "torch.distributed.checkpoint"));
    }
    out.sort();
    out.dedup();
    out
}

/// A collective operation: its kind (what must match across ranks) and
/// how to name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collective {
    pub kind: String,
    pub label: String,
}

/// Whether `call` (in `scope`) is a collective operation; `ddp`: whether
/// the process wraps its model for data parallelism.
pub fn collective(prog: &Program, scope: Scope, call: &Expr, ddp: bool) -> Option<Collective> {
    let ExprKind::Call { func, args, .. } = &call.kind else {
        return None;
    };
    let text = |e: &Expr| {
        prog.text(scope.m)
            .get(e.span.start..e.span.end)
            .unwrap_or("")
            .to_string()
    };
    let label = || {
        let t = text(call);
        if t.len() > 60 || t.contains('\n') {
            format!("{}(…)", text(func))
        } else {
            t
        }
    };
    if let Some(path) = prog.external(scope, func) {
        for prefix in ["torch.distributed.", "deepspeed.comm."] {
            if let Some(name) = path.strip_prefix(prefix) {
                if DIST_COLLECTIVES.contains(&name) {
                    return Some(Collective {
                        kind: name.to_string(),
                        label: label(),
                    });
                }
            }
        }
        if let Some(name) = path.strip_prefix("torch.distributed.checkpoint.") {
            if matches!(name, "save" | "load" | "save_state_dict" | "load_state_dict") {
                return Some(Collective {
                    kind: format!("dcp.{name}"),
                    label: label(),
                });
            }
        }
        if let Some(name) = path.strip_prefix("horovod.") {
            if matches!(
                name,
                "allreduce"
                    | "allreduce_"
                    | "allgather"
                    | "broadcast"
                    | "broadcast_"
                    | "broadcast_parameters"
                    | "broadcast_optimizer_state"
                    | "broadcast_object"
                    | "alltoall"
                    | "join"
                    | "barrier"
            ) {
                return Some(Collective {
                    kind: format!("hvd.{name}"),
                    label: label(),
                });
            }
        }
        return None;
    }
    let ExprKind::Attribute { value: recv, attr } = &func.kind else {
        return None;
    };
    let positional = args.iter().filter(|a| matches!(a, Arg::Pos(_))).count();
    let recv_attr = match &recv.kind {
        ExprKind::Attribute { attr, .. } => Some(attr.as_str()),
        _ => None,
    };
    match attr.as_str() {
        "backward" if positional == 0 && ddp => Some(Collective {
            kind: "backward".into(),
            label: label(),
        }),
        "backward" if positional >= 1 && is_engine_like(prog, scope, recv) => Some(Collective {
            kind: "backward".into(),
            label: label(),
        }),
        "step_optimizer" => Some(Collective {
            kind: "step_optimizer".into(),
            label: label(),
        }),
        "wait_for_everyone" | "gather_for_metrics" if accelerator(prog, scope, recv) => Some(Collective {
            kind: attr.clone(),
            label: label(),
        }),
        "broadcast" | "broadcast_local" | "allgather" | "allgather_local" | "gather" | "gather_local"
            if recv_attr == Some("distributed") =>
        {
            Some(Collective {
                kind: format!("core.{attr}"),
                label: label(),
            })
        }
        "restore_path" | "download" if recv_attr == Some("checkpoint") && core_context(prog, scope, recv) => {
            let mode = kw(args, "download_mode");
            let shared = mode.is_none_or(|m| {
                prog.text(scope.m)
                    .get(m.span.start..m.span.end)
                    .is_some_and(|t| t.ends_with("LocalWorkersShareDownload"))
            });
            shared.then(|| Collective {
                kind: "checkpoint.restore".into(),
                label: label(),
            })
        }
        "store_path" | "upload" if recv_attr == Some("checkpoint") && core_context(prog, scope, recv) => {
            let shard = kw(args, "shard").is_some_and(|s| matches!(s.kind, ExprKind::Bool(true)));
            shard.then(|| Collective {
                kind: "checkpoint.store".into(),
                label: label(),
            })
        }
        "should_preempt" if recv_attr == Some("preempt") && core_context(prog, scope, recv) => Some(Collective {
            kind: "preempt".into(),
            label: label(),
        }),
        _ => None,
    }
}

/// `self.context`, `context`, `accelerator`, `engine`, `model_engine`:
/// receivers whose `backward(loss)` all-reduces.
fn is_engine_like(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    let name = match &recv.kind {
        ExprKind::Name(n) => n.as_str(),
        ExprKind::Attribute { attr, .. } => attr.as_str(),
        _ => return false,
    };
    if matches!(
        name,
        "context" | "ctx" | "accelerator" | "engine" | "model_engine" | "fabric"
    ) {
        return true;
    }
    let s = prog.sources(scope, recv);
    s.terms.iter().any(|t| {
        matches!(&t.expr.kind, ExprKind::Call { func, .. }
            if matches!(prog.external(t.scope, func).as_deref(), Some("accelerate.Accelerator" | "deepspeed.initialize" | "lightning.Fabric")))
    })
}

fn accelerator(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    let s = prog.sources(scope, recv);
    s.terms.iter().any(|t| {
        matches!(&t.expr.kind, ExprKind::Call { func, .. } if prog.external(t.scope, func).as_deref() == Some("accelerate.Accelerator"))
    })
}

/// Whether `X` in `X.checkpoint`/`X.preempt` is a Core API context.
fn core_context(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    let ExprKind::Attribute { value, .. } = &recv.kind else {
        return false;
    };
    let s = prog.sources(scope, value);
    if s.terms.iter().any(|t| {
        matches!(&t.expr.kind, ExprKind::Call { func, .. }
            if matches!(prog.external(t.scope, func).as_deref(), Some("determined.core.init" | "determined.core._context.init")))
    }) {
        return true;
    }
    // A parameter annotated `det.core.Context`.
    if let (ExprKind::Name(n), Some(f)) = (&value.kind, scope.func()) {
        if let Some(func) = prog.func(f) {
            if let Some(p) = func.params.iter().find(|p| p.name == *n) {
                if let Some(a) = &p.annotation {
                    return prog.external(scope, a).is_some_and(|p| p == "determined.core.Context");
                }
            }
        }
    }
    false
}

/// The collectives a list of statements runs, directly or in functions of
/// the training code it calls (up to `depth` calls deep): the first one
/// found with its scope.
pub fn first_collective<'p>(
    prog: &'p Program,
    scope: Scope,
    stmts: &'p [Stmt],
    ddp: bool,
    depth: u32,
) -> Option<(Scope, &'p Expr, Collective)> {
    let mut stack = Vec::new();
    let mut found: Option<(Scope, &'p Expr, Collective)> = None;
    let mut calls: Vec<&'p Expr> = Vec::new();
    for s in stmts {
        walk_stmt(s, &mut stack, &mut |_, n| {
            if found.is_some() {
                return;
            }
            if let Node::Expr(e) = n {
                if matches!(e.kind, ExprKind::Call { .. }) {
                    if let Some(c) = collective(prog, scope, e, ddp) {
                        found = Some((scope, e, c));
                    } else {
                        calls.push(e);
                    }
                }
            }
        });
        if found.is_some() {
            return found;
        }
    }
    if depth == 0 {
        return None;
    }
    for call in calls {
        let ExprKind::Call { func, .. } = &call.kind else {
            continue;
        };
        let f = match prog.callee(scope, func) {
            Callee::Func(f) => f,
            _ => continue,
        };
        let body = prog.body(f.scope());
        if let Some(hit) = first_collective(prog, f.scope(), body, ddp, depth - 1) {
            // Reported at the call in this scope, naming the collective.
            return Some((scope, call, hit.2));
        }
    }
    None
}

// ---------------------------------------------------------------------
// Seeding

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
        ],
    );
    let mut first = None;
    for (scope, _, call, path) in &seed_calls {
        if !within(scope.m) {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        let a = pos(args, 0).or_else(|| kw(args, "seed"));
        if a.is_some_and(|a| depends_on_rank(prog, *scope, a)) {
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

// ---------------------------------------------------------------------
// Small shared facts

/// The value of `e` as a constant, resolved against the config and argv.
pub fn constant(
    prog: &Program,
    config: &ConfigFacts,
    runtime: &Runtime,
    scope: Scope,
    e: &Expr,
) -> Option<values::Resolved> {
    let env = Env {
        config: config.json.as_ref(),
        argv: runtime.argv(),
    };
    values::constant(prog, &env, scope, e)
}

/// Whether `e` is `True` as a constant.
pub fn is_true(prog: &Program, config: &ConfigFacts, runtime: &Runtime, scope: Scope, e: &Expr) -> Option<bool> {
    constant(prog, config, runtime, scope, e).and_then(|r| r.as_bool())
}

/// Whether the scope is reachable code: not in a branch whose condition is
/// known to be false (an `if args.deterministic:` whose flag is unset).
pub fn dead_branch(
    prog: &Program,
    config: &ConfigFacts,
    runtime: &Runtime,
    scope: Scope,
    anc: &[Anc<'_>],
    node: *const Stmt,
) -> bool {
    let mut child: *const Stmt = node;
    for a in anc.iter().rev() {
        if let Anc::Stmt(s) = a {
            if let StmtKind::If { test, body, orelse } = &s.kind {
                let in_body = body.iter().any(|b| std::ptr::eq(b, child));
                let in_else = orelse.iter().any(|b| std::ptr::eq(b, child));
                if in_body || in_else {
                    if let Some(v) = is_true(prog, config, runtime, scope, test) {
                        if (in_body && !v) || (in_else && v) {
                            return true;
                        }
                    }
                }
            }
            child = *s;
        }
    }
    false
}

/// The call's keyword `name` as a constant (`None` when absent).
pub fn kw_const(
    prog: &Program,
    config: &ConfigFacts,
    runtime: &Runtime,
    scope: Scope,
    args: &[Arg],
    name: &str,
) -> Option<Option<Const>> {
    match kw(args, name) {
        None => Some(None),
        Some(e) => constant(prog, config, runtime, scope, e)
            .and_then(|r| r.single().cloned())
            .map(Some),
    }
}

/// The function `f`'s call sites inside loops (directly, or through
/// callers up to `depth`): each loop statement found.
pub fn called_in_loop(prog: &Program, f: FuncId, depth: u32) -> bool {
    if depth == 0 {
        return false;
    }
    for (scope, call) in prog.call_sites(f) {
        if let Some(anc) = prog.ancestors_of(scope, call) {
            if anc
                .iter()
                .any(|a| matches!(a, Anc::Stmt(s) if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. })))
                || anc.iter().any(|a| matches!(a, Anc::Comp(_)))
            {
                return true;
            }
        }
        if let Some(g) = scope.func() {
            if called_in_loop(prog, g, depth - 1) {
                return true;
            }
        }
    }
    false
}

/// The module holding a trial's files' main code, when the file is not a
/// model-only source.
pub fn is_code(prog: &Program, m: ModId) -> bool {
    prog.role(m) != Some(FileRole::Model)
}

/// Whether the symbol is an external path.
pub fn external_is(sym: Option<Sym>, path: &str) -> bool {
    matches!(sym, Some(Sym::External(p)) if p == path)
}
