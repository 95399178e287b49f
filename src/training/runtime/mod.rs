//! Who runs the training code and what the ranks share: how many
//! processes the launcher starts, whether the code is a Determined trial,
//! whether every rank seeds the global torch RNG alike, and the vocabulary
//! the checks share — rank and world-size expressions, collective
//! operations, the config's environment and image.

use serde_json::Value as Json;

use super::ast::{Arg, Expr, ExprKind, Stmt, StmtKind};
use super::entry::{Launch, Launcher, Procs, Target};
use super::program::{walk_stmt, Anc, Callee, ClassId, FuncId, ModId, Node, Program, Scope, Sym, LIGHTNING_MODULE};
use super::values::{self, Const, Env};
use super::{EntrySpec, FileRole, Training};

mod collective;
mod lightning;
mod rank;
mod seeding;

pub use collective::*;
pub use lightning::{lightning_module, trainer_devices, trainer_world, TRAINER};

/// Whether `recv` is a Lightning `Trainer` (built here, or a parameter
/// annotated as one).
pub fn lightning_trainer(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    lightning::trainer(prog, scope, recv)
}
pub use rank::*;
pub use seeding::*;

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
    /// The newest PyTorch release the repository's own requirements allow
    /// (`torch==2.8.0`, `torch<2.10` in `pyproject.toml` or
    /// `requirements.txt` at its root), where they bound it.
    pub torch_pin: Option<(u32, u32)>,
    /// The context's config files the code may load at run time.
    pub run_files: std::sync::Arc<crate::training::run_files::RunFiles>,
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
            torch_pin: None,
            run_files: Default::default(),
        }
    }

    /// The newest PyTorch release that requirements `text` (a
    /// `pyproject.toml`, `requirements.txt` or `setup.py`) allow, where a
    /// `torch` requirement bounds it from above: `torch==2.8.0` gives 2.8,
    /// `torch<=2.4` 2.4, `torch<2.10` 2.9 (read as the release before). A
    /// lower bound alone (`torch>=2.1`) bounds nothing.
    pub fn torch_pin_in(text: &str) -> Option<(u32, u32)> {
        let mut best: Option<(u32, u32)> = None;
        let bytes = text.as_bytes();
        let mut from = 0;
        while let Some(i) = text.get(from..).and_then(|t| t.find("torch")) {
            let at = from + i;
            from = at + "torch".len();
            // The name alone: not `torchaudio`, `pytorch-lightning`, `einx[torch]`.
            let before = at.checked_sub(1).and_then(|b| bytes.get(b)).copied();
            let after = bytes.get(from).copied();
            let name_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.';
            if before.is_some_and(|c| name_char(c) || c == b'[') || after.is_some_and(name_char) {
                continue;
            }
            // Not in a comment.
            let line_start = text.get(..at).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
            if text.get(line_start..at).is_some_and(|t| t.contains('#')) {
                continue;
            }
            let rest = text.get(from..).unwrap_or("");
            let spec: String = rest
                .chars()
                .take_while(|c| !matches!(c, '"' | '\'' | '\n' | ';' | '#' | ']'))
                .collect();
            for part in spec.split(',') {
                let part = part.trim();
                let (op, version) = match part {
                    p if p.starts_with("==") => ("==", &p[2..]),
                    p if p.starts_with("<=") => ("<=", &p[2..]),
                    p if p.starts_with('<') => ("<", &p[1..]),
                    _ => continue,
                };
                let mut nums = version.trim().split('.').map(|n| n.trim().parse::<u32>().ok());
                let (Some(Some(major)), Some(Some(minor))) = (nums.next(), nums.next()) else {
                    continue;
                };
                let top = match op {
                    "<" if minor > 0 => (major, minor - 1),
                    "<" if major > 0 => (major - 1, u32::MAX),
                    "<" => continue,
                    _ => (major, minor),
                };
                best = Some(best.map_or(top, |b| b.max(top)));
            }
        }
        best
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
            if distributed_markers(prog, &main, &config.run_files) || trials.iter().any(|(k, _)| main(k.m)) {
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
                    if distributed_markers(prog, &main, &config.run_files) {
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
            let w = if distributed_markers(prog, &mine, &config.run_files) || trials.iter().any(|(k, _)| mine(k.m)) {
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

    /// Whether the node with ancestors `anc` at the module level of
    /// `scope` sits in an `if __name__ == "__main__":` block that no
    /// multi-rank program runs: the block runs only in the programs its
    /// module starts (a dataset module's own smoke test is not run by the
    /// training script that imports the module).
    pub fn main_block_of_no_ranks(&self, prog: &Program, scope: Scope, anc: &[Anc<'_>]) -> bool {
        if scope.func().is_some() || !seeding::in_main_guard(anc) {
            return false;
        }
        let own = prog.scripts(scope.m);
        !self
            .worlds_of(prog, scope.m)
            .iter()
            .any(|(bit, w)| bit & own != 0 && w.distributed())
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
                            if let Some(w) = lightning::trainer_world(prog, scope, args) {
                                found = Some(match w {
                                    World::Ranks(None) => World::Ranks(slots.filter(|s| *s > 1)),
                                    w => w,
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
/// their own), in the modules `which` accepts: the process group's set-up
/// and wrappers, and what only a rank of a multi-rank job asks or builds
/// (its rank, the world's size, a barrier, a `DistributedSampler`, an
/// Accelerate `Accelerator`, a Lightning `Fabric` or a `Trainer` on several
/// devices or nodes, MPI's world
/// communicator, the launcher's `RANK`/`LOCAL_RANK`/`WORLD_SIZE`, a
/// Determined `core_context.distributed`, `transformers`' `main_process_first()`). A helper module the entry
/// imports counts as much as the entry: both run in every rank.
fn distributed_markers(
    prog: &Program,
    which: &dyn Fn(ModId) -> bool,
    run_files: &crate::training::run_files::RunFiles,
) -> bool {
    let needles = [
        "init_process_group",
        "DistributedDataParallel",
        "DDP",
        "FullyShardedDataParallel",
        "FSDP",
        "fully_shard",
        "hvd",
        "horovod",
        "deepspeed",
        "spawn",
        "get_rank",
        "get_world_size",
        "barrier",
        "DistributedSampler",
        "Accelerator",
        "PartialState",
        "Fabric",
        "COMM_WORLD",
        "Strategy",
    ];
    if any_call_in(prog, &needles, is_distributed_marker, which) {
        return true;
    }
    // Lightning's `Trainer(strategy="ddp", devices=8)`.
    if lightning::trainer_ranks_in(prog, which) || lightning::cli_ranks_in(prog, which, run_files) {
        return true;
    }
    any_expr_in(
        prog,
        &["RANK", "WORLD_SIZE", "distributed", "main_process_first"],
        &|scope, e| launcher_env_read(prog, scope, e) || core_distributed(e) || main_process_first(e),
        which,
    )
}

/// Whether a program module `m` runs in builds a Lightning `Trainer` that
/// runs several ranks (which shards each loader it is handed).
pub fn lightning_ranks(prog: &Program, m: ModId) -> bool {
    lightning::trainer_ranks_in(prog, &|x| prog.same_program(x, m))
}

/// Whether a module of program `bit` (a script's) builds a Lightning
/// `Trainer` that runs several ranks.
pub fn lightning_ranks_in_program(prog: &Program, bit: u64) -> bool {
    lightning::trainer_ranks_in(prog, &|x| prog.programs(x) & bit != 0)
}

/// Whether any module of the code builds a Lightning `Trainer` that runs
/// several ranks: the Trainer a `LightningModule` no script imports is
/// handed to (a model class a config names, built by `instantiate`).
pub fn lightning_ranks_anywhere(prog: &Program) -> bool {
    lightning::trainer_ranks_in(prog, &|_| true)
}

/// The external calls [`distributed_markers`] takes as proof of ranks.
fn is_distributed_marker(path: &str) -> bool {
    const MARKERS: &[&str] = &[
        "torch.distributed.init_process_group",
        "torch.nn.parallel.DistributedDataParallel",
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_shard",
        "torch.distributed._composable.fsdp.fully_shard",
        "horovod.init",
        "deepspeed.init_distributed",
        "deepspeed.initialize",
        "torch.multiprocessing.spawn",
        "torch.distributed.get_rank",
        "torch.distributed.get_world_size",
        "torch.distributed.barrier",
        "deepspeed.comm.get_rank",
        "deepspeed.comm.get_world_size",
        "deepspeed.comm.barrier",
        "torch.utils.data.DistributedSampler",
        "accelerate.Accelerator",
        // The process state of an `accelerate launch` (MOTIP's utilities).
        "accelerate.PartialState",
        "accelerate.state.PartialState",
        "lightning.Fabric",
        "lightning.fabric.Fabric",
    ];
    // Lightning's multi-process strategies, built to hand to a Trainer.
    MARKERS.contains(&path) || path.starts_with("mpi4py.MPI.COMM_WORLD.") || lightning::per_device_strategy(path)
}

/// `training_args.main_process_first(…)`: the `transformers` context that
/// holds the other ranks at a barrier while the main process prepares data,
/// written for a job of several processes.
fn main_process_first(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { func, .. }
        if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "main_process_first"))
}

/// The launcher's per-rank variables.
const LAUNCHER_ENV: &[&str] = &["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE"];

/// `os.environ["RANK"]`, `os.environ.get("LOCAL_RANK", …)`,
/// `os.getenv("WORLD_SIZE")`: a read of a variable only a multi-rank
/// launcher sets.
fn launcher_env_read(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let named = |k: &Expr| matches!(&k.kind, ExprKind::Str(s) if LAUNCHER_ENV.contains(&s.as_str()));
    match &e.kind {
        ExprKind::Subscript { value, index } => {
            named(index) && prog.external(scope, value).as_deref() == Some("os.environ")
        }
        ExprKind::Call { func, args, .. } => {
            pos(args, 0).is_some_and(named)
                && matches!(
                    prog.external(scope, func).as_deref(),
                    Some("os.environ.get" | "os.getenv")
                )
        }
        _ => false,
    }
}

/// `core_context.distributed.rank` (or `.size`, `.get_rank()`, a
/// gather): Determined's distributed context of a Core API script.
fn core_distributed(e: &Expr) -> bool {
    const USES: &[&str] = &[
        "rank",
        "size",
        "local_rank",
        "local_size",
        "cross_rank",
        "cross_size",
        "get_rank",
        "get_size",
        "get_local_rank",
        "get_local_size",
        "allgather",
        "gather",
        "broadcast",
        "allgather_local",
        "gather_local",
        "broadcast_local",
    ];
    let ExprKind::Attribute { value, attr } = &e.kind else {
        return false;
    };
    if !USES.contains(&attr.as_str()) {
        return false;
    }
    let ExprKind::Attribute {
        value: owner,
        attr: mid,
    } = &value.kind
    else {
        return false;
    };
    if mid != "distributed" {
        return false;
    }
    let name = match &owner.kind {
        ExprKind::Name(n) => n.as_str(),
        ExprKind::Attribute { attr, .. } => attr.as_str(),
        _ => return false,
    };
    matches!(name, "core_context" | "core_ctx")
}

/// Whether some expression of the modules `which` accepts (in chunks
/// mentioning one of `needles`) satisfies `pred`.
pub(super) fn any_expr_in(
    prog: &Program,
    needles: &[&str],
    pred: &dyn Fn(Scope, &Expr) -> bool,
    which: &dyn Fn(ModId) -> bool,
) -> bool {
    prog.any_scope(needles, which, &mut |scope| {
        let mut hit = false;
        prog.walk_exprs(scope, &mut |_, e| {
            if !hit && pred(scope, e) {
                hit = true;
            }
        });
        hit
    })
}

/// Whether some call of the training code resolves to an external path
/// `pred` accepts (only chunks mentioning `needles` are parsed).
pub fn any_call(prog: &Program, needles: &[&str], pred: impl Fn(&str) -> bool) -> bool {
    any_call_in(prog, needles, pred, &|_| true)
}

/// [`any_call`] in the modules `which` accepts.
pub(super) fn any_call_in(
    prog: &Program,
    needles: &[&str],
    pred: impl Fn(&str) -> bool,
    which: &dyn Fn(ModId) -> bool,
) -> bool {
    any_expr_in(
        prog,
        needles,
        &|scope, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return false;
            };
            prog.external(scope, func)
                .is_some_and(|p| pred(&p) && !one_device(&p, args))
        },
        which,
    )
}

/// A Lightning `Fabric(devices=1)`: one process, whatever else it sets.
fn one_device(path: &str, args: &[Arg]) -> bool {
    matches!(path, "lightning.Fabric" | "lightning.fabric.Fabric")
        && kw(args, "devices").is_some_and(|d| matches!(d.kind, ExprKind::Int(1)))
        && kw(args, "num_nodes").is_none()
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
                        } else if let ExprKind::Name(n) = &func.kind {
                            // A name no code binds, which a star import of an
                            // outside module provides (`from timm.utils import *`
                            // then `random_seed(seed, rank)`).
                            if let Some(p) = prog
                                .star_paths(scope, n)
                                .into_iter()
                                .find(|p| targets.contains(&p.as_str()))
                            {
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
// Small shared facts

/// The value of `e` as a constant, resolved against the config and argv.
pub fn constant(
    prog: &Program,
    config: &ConfigFacts,
    runtime: &Runtime,
    scope: Scope,
    e: &Expr,
) -> Option<values::Resolved> {
    constant_with(prog, config, runtime, scope, e, false, false)
}

/// [`constant`], also taking a config object's default where the code
/// merges a file or the command line into that object at run time (the
/// value is then marked with the default's store, `default_at`).
pub fn constant_or_default(
    prog: &Program,
    config: &ConfigFacts,
    runtime: &Runtime,
    scope: Scope,
    e: &Expr,
) -> Option<values::Resolved> {
    constant_with(prog, config, runtime, scope, e, true, false)
}

/// [`constant_or_default`] of a value a multi-rank run reads: a binding
/// only a run without distribution makes (the `else` of `if opt["dist"]:`,
/// `num_workers = n * len(gpu_ids)` for `DataParallel`) is left out.
pub fn constant_or_default_on_ranks(
    prog: &Program,
    config: &ConfigFacts,
    runtime: &Runtime,
    scope: Scope,
    e: &Expr,
) -> Option<values::Resolved> {
    constant_with(prog, config, runtime, scope, e, true, true)
}

fn constant_with(
    prog: &Program,
    config: &ConfigFacts,
    runtime: &Runtime,
    scope: Scope,
    e: &Expr,
    merged_defaults: bool,
    on_ranks: bool,
) -> Option<values::Resolved> {
    let single_process = |s: Scope, v: &Expr| {
        prog.ancestors_of(s, v)
            .is_some_and(|anc| rank::non_distributed_path(prog, s, &anc, v as *const Expr as *const ()))
    };
    let env = Env {
        config: config.json.as_ref(),
        argv: runtime.argv(),
        merged_defaults,
        run_files: merged_defaults.then_some(&*config.run_files),
        untaken: on_ranks.then_some(&single_process as super::program::Skip<'_>),
    };
    values::constant(prog, &env, scope, e)
}

/// Whether `e` is the call that parses the command line
/// (`parser.parse_args()`, `parser.parse_known_args()`).
pub fn parses_command_line(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { func, .. }
        if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "parse_args" || attr == "parse_known_args"))
}

/// The calls a run's configuration comes from besides the command line:
/// the config Hydra composes and config files the code loads.
const CONFIG_SOURCES: &[&str] = &[
    "hydra.main",
    "omegaconf.OmegaConf.load",
    "json.load",
    "yaml.safe_load",
    "yaml.load",
    "yaml.full_load",
];

/// Whether a source term is the run's configuration, one value for every
/// rank that the user picks: the parsed command line, Hydra's config, a
/// config file the code loads (the term's expression is the call that
/// gives it; [`super::program::Term::proj`] says what is read of it).
pub fn run_configuration(prog: &Program, t: &super::program::Term<'_>) -> bool {
    parses_command_line(t.expr)
        || matches!(&t.expr.kind, ExprKind::Call { func, .. }
            if prog.external(t.scope, func).is_some_and(|p| CONFIG_SOURCES.contains(&p.as_str())))
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
    dead_branch_by(anc, node, &|test| is_true(prog, config, runtime, scope, test))
}

/// [`dead_branch`], with the conditions' truth as `truth` answers it
/// (`None`: not known).
pub fn dead_branch_by(anc: &[Anc<'_>], node: *const Stmt, truth: &dyn Fn(&Expr) -> Option<bool>) -> bool {
    let mut child: *const Stmt = node;
    for a in anc.iter().rev() {
        if let Anc::Stmt(s) = a {
            if let StmtKind::If { test, body, orelse } = &s.kind {
                let in_body = body.iter().any(|b| std::ptr::eq(b, child));
                let in_else = orelse.iter().any(|b| std::ptr::eq(b, child));
                if in_body || in_else {
                    if let Some(v) = truth(test) {
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

/// Whether `node` (its ancestors `anc`, in `scope`) sits in the body of an
/// `if p:` on a parameter `p` of its function that defaults to a falsy
/// literal (`keep_reproducibility=False`) and that no call of the function
/// passes: an opt-in arm no caller in the code opts into (a helper nothing
/// calls included, unless it escapes to code stagec cannot see).
pub fn opt_in_arm_off(prog: &Program, scope: Scope, anc: &[Anc<'_>], node: *const Stmt) -> bool {
    let Some(f) = scope.func() else { return false };
    let Some(func) = prog.func(f) else { return false };
    if prog.escapes(f) {
        return false;
    }
    let off = |test: &Expr| -> Option<bool> {
        let ExprKind::Name(n) = &test.kind else { return None };
        let index = func.params.iter().position(|p| p.name == *n)?;
        let falsy = func.params[index]
            .default
            .as_ref()
            .is_some_and(|d| matches!(d.kind, ExprKind::Bool(false) | ExprKind::None | ExprKind::Int(0)));
        if !falsy
            || prog
                .local_defs(f, n)
                .iter()
                .any(|d| !matches!(d, crate::training::program::LocalDef::Param(_)))
        {
            return None;
        }
        let passed = prog.call_sites(f).into_iter().any(|(_, call)| {
            !matches!(
                prog.bind(f, call, index),
                crate::training::program::Bound::Default(_) | crate::training::program::Bound::Missing
            )
        });
        (!passed).then_some(false)
    };
    dead_branch_by(anc, node, &off)
}

/// Whether `test` (in `scope`) is `p is None` or `p is not None` on a
/// parameter `p` of the function it is in whose default is `None` and
/// that every call of the function gives a value other than a literal
/// `None` (`show(step, gathered=metrics)` at each call site): the arm
/// that takes the default is not known to run (`want`: the arm asked
/// about, true for the test's body).
pub fn untaken_default_arm(prog: &Program, scope: Scope, test: &Expr, want: bool) -> bool {
    let ExprKind::Compare { left, rest } = &test.kind else {
        return false;
    };
    let [(op, right)] = rest.as_slice() else { return false };
    let ExprKind::Name(n) = &left.kind else { return false };
    if !matches!(right.kind, ExprKind::None) {
        return false;
    }
    // The arm run when the parameter keeps its default.
    let default_arm = match op.as_str() {
        "is" => true,
        "is not" => false,
        _ => return false,
    };
    if want != default_arm {
        return false;
    }
    let Some(f) = scope.func() else { return false };
    let Some(func) = prog.func(f) else { return false };
    let Some(index) = func.params.iter().position(|p| p.name == *n) else {
        return false;
    };
    if !func.params[index]
        .default
        .as_ref()
        .is_some_and(|d| matches!(d.kind, ExprKind::None))
    {
        return false;
    }
    // Rebound in the body: the test reads another value.
    if prog.local_defs(f, n).len() != 1 || prog.escapes(f) {
        return false;
    }
    // A method whose receivers are not followed: every `x.name(…)` call.
    let mut sites = prog.call_sites(f);
    if sites.is_empty() && prog.class_of(f).is_some() {
        sites = prog.attribute_calls(&func.name).unwrap_or_default();
    }
    !sites.is_empty()
        && sites.iter().all(|(_, call)| {
            matches!(prog.bind(f, call, index), crate::training::program::Bound::Given(e) if !matches!(e.kind, ExprKind::None))
        })
}

/// Whether `test` (in `scope`) is `x is None` or `not x` on a local the
/// function sets to `None` and then in a loop before the test (`name =
/// None; for h in logger.handlers: if …: name = …; break`): the body is the
/// search's fallback, run only when the loop finds nothing, which is not
/// known to happen.
fn search_fallback(prog: &Program, scope: Scope, test: &Expr) -> bool {
    let x = match &test.kind {
        ExprKind::Compare { left, rest } if matches!(rest.as_slice(), [(op, r)] if op == "is" && matches!(r.kind, ExprKind::None)) => {
            left
        }
        ExprKind::Not(inner) => inner,
        _ => return false,
    };
    let ExprKind::Name(n) = &x.kind else { return false };
    if scope.func().is_none() {
        return false;
    }
    let body = prog.body(scope);
    let before = body.iter().take_while(|st| st.span.end <= test.span.start);
    let mut set_none = false;
    let mut found_in_loop = false;
    let assigns = |st: &Stmt| match &st.kind {
        StmtKind::Assign { targets, .. } => targets.iter().any(|t| matches!(&t.kind, ExprKind::Name(v) if v == n)),
        _ => false,
    };
    for st in before {
        match &st.kind {
            StmtKind::Assign { value, .. } if assigns(st) => set_none = matches!(value.kind, ExprKind::None),
            StmtKind::For { .. } if set_none => {
                let mut stack = Vec::new();
                crate::training::program::walk_stmt(st, &mut stack, &mut |_, node| {
                    if let Node::Stmt(inner) = node {
                        found_in_loop |= assigns(inner);
                    }
                });
            }
            _ => {}
        }
    }
    set_none && found_in_loop
}

/// Whether `node` (with ancestors `anc`, in `scope`) sits in an arm of an
/// `if`/conditional expression that [`untaken_default_arm`] rules out.
pub fn in_untaken_default_arm(prog: &Program, scope: Scope, anc: &[Anc<'_>], node: &Expr) -> bool {
    let mut child: *const () = node as *const Expr as *const ();
    for a in anc.iter().rev() {
        let (test, in_body, in_else) = match a {
            Anc::Expr(p) => {
                let here = match &p.kind {
                    ExprKind::IfExp { test, body, orelse } => Some((
                        &**test,
                        std::ptr::eq(&**body as *const Expr as *const (), child),
                        std::ptr::eq(&**orelse as *const Expr as *const (), child),
                    )),
                    _ => None,
                };
                child = *p as *const Expr as *const ();
                match here {
                    Some(h) => h,
                    None => continue,
                }
            }
            Anc::Stmt(s) => {
                let here = match &s.kind {
                    StmtKind::If { test, body, orelse } => Some((
                        test,
                        body.iter().any(|b| std::ptr::eq(b as *const Stmt as *const (), child)),
                        orelse
                            .iter()
                            .any(|b| std::ptr::eq(b as *const Stmt as *const (), child)),
                    )),
                    _ => None,
                };
                child = *s as *const Stmt as *const ();
                match here {
                    Some(h) => h,
                    None => continue,
                }
            }
            _ => continue,
        };
        if (in_body || in_else)
            && prog.arm_memo(test, in_body, || {
                untaken_default_arm(prog, scope, test, in_body) || in_body && search_fallback(prog, scope, test)
            })
        {
            return true;
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
    called_in_loop_via(prog, f, depth, &|_| true)
}

/// [`called_in_loop`], through call sites in module-level code or in the
/// functions `via` accepts only (those a value was passed through, so the
/// calls that carry it).
pub fn called_in_loop_via(prog: &Program, f: FuncId, depth: u32, via: &dyn Fn(FuncId) -> bool) -> bool {
    called_in_loop_beyond(prog, f, depth, via, &|_| false)
}

/// [`called_in_loop_via`], not counting the loops `skip` names (those
/// that also make the value anew at each pass, so each pass has its own).
pub fn called_in_loop_beyond(
    prog: &Program,
    f: FuncId,
    depth: u32,
    via: &dyn Fn(FuncId) -> bool,
    skip: &dyn Fn(&crate::training::ast::Stmt) -> bool,
) -> bool {
    called_in_loop_below(prog, f, depth, via, skip, &|_| false)
}

/// [`called_in_loop_beyond`], not asking about the callers of a function
/// `stop` names (a function that makes the value anew at each call: a loop
/// around its calls repeats the making too).
pub fn called_in_loop_below(
    prog: &Program,
    f: FuncId,
    depth: u32,
    via: &dyn Fn(FuncId) -> bool,
    skip: &dyn Fn(&crate::training::ast::Stmt) -> bool,
    stop: &dyn Fn(FuncId) -> bool,
) -> bool {
    if depth == 0 || stop(f) {
        return false;
    }
    let repeated = |s: Scope, c: &Expr| prog.ancestors_of(s, c).is_some_and(|anc| repeats_beyond(&anc, c, skip));
    for (scope, call) in prog.call_sites(f) {
        // Called by a helper it is handed to (`gpu_timer(load_imgs)`, whose
        // `closure()` runs it): where it is handed is where it runs, and
        // only there (the helper called in a loop with another function
        // does not run this one there).
        if let Some(handed) = handed_at(prog, f, scope, call) {
            if handed.into_iter().any(|(s, c)| {
                s.func().is_none_or(&via)
                    && (repeated(s, c)
                        || s.func()
                            .is_some_and(|g| called_in_loop_below(prog, g, depth - 1, via, skip, stop)))
            }) {
                return true;
            }
            continue;
        }
        if scope.func().is_some_and(|g| !via(g)) {
            continue;
        }
        if repeated(scope, call) {
            return true;
        }
        if let Some(g) = scope.func() {
            if called_in_loop_below(prog, g, depth - 1, via, skip, stop) {
                return true;
            }
        }
    }
    false
}

/// Where `f` is handed to the function that calls it at `call` (in
/// `scope`) through a parameter of that function (`def gpu_timer(closure):
/// … closure()` and `gpu_timer(load_imgs)`): the calls handing `f`, when
/// `call` calls such a parameter; `None` when it calls `f` by name.
fn handed_at<'p>(prog: &'p Program, f: FuncId, scope: Scope, call: &'p Expr) -> Option<Vec<(Scope, &'p Expr)>> {
    let ExprKind::Call { func, .. } = &call.kind else {
        return None;
    };
    let ExprKind::Name(n) = &func.kind else {
        return None;
    };
    let g = scope.func()?;
    let index = prog.func(g)?.params.iter().position(|p| p.name == *n)?;
    let mut out = Vec::new();
    for (s, c) in prog.call_sites(g).into_iter().take(16) {
        if let crate::training::program::Bound::Given(arg) = prog.bind(g, c, index) {
            if prog.callee(s, arg) == Callee::Func(f) {
                out.push((s, c));
            }
        }
    }
    Some(out)
}

/// Whether `e`, with ancestors `anc`, runs again for each pass of a loop:
/// in a loop's body or condition, or in a comprehension — not in the
/// iterable of a `for`, which is evaluated once.
pub fn repeats(anc: &[Anc<'_>], e: &Expr) -> bool {
    repeats_beyond(anc, e, &|_| false)
}

/// [`repeats`], not counting the loops `skip` names.
pub fn repeats_beyond(anc: &[Anc<'_>], e: &Expr, skip: &dyn Fn(&crate::training::ast::Stmt) -> bool) -> bool {
    anc.iter().any(|a| match a {
        Anc::Stmt(s) => reruns(s, e) && !skip(s),
        Anc::Comp(_) => true,
        _ => false,
    })
}

/// Whether the statement `s` (an ancestor of `e`) runs `e` again at each
/// pass: a `while`, or a `for` whose iterable `e` is not part of.
pub fn reruns(s: &crate::training::ast::Stmt, e: &Expr) -> bool {
    match &s.kind {
        StmtKind::For { iter, .. } => !(iter.span.start <= e.span.start && e.span.end <= iter.span.end),
        StmtKind::While { .. } => true,
        _ => false,
    }
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
