//! Collectives: the calls every rank must make together, and what the
//! process wraps models in (so that `loss.backward()` is one).

use super::*;

/// What the process wraps models in (so that `loss.backward()` is a
/// gradient all-reduce).
pub fn data_parallel_model(prog: &Program, runtime: &Runtime) -> bool {
    if !runtime.trials.is_empty() || runtime.unlaunched_trial.is_some() {
        return true;
    }
    any_call(prog, &WRAP_WORDS, wraps)
}

/// Whether a model is wrapped for data parallelism in a program module `m`
/// runs in: a module of one of `m`'s programs (or of none) wraps one, or no
/// module wraps any (the evidence is then a Determined trial's). A script
/// checked in the same run as another that wraps in DDP (a repository of
/// examples checked whole) is not wrapped by it.
fn wrapped_where(prog: &Program, m: ModId) -> bool {
    let bits = prog.programs(m);
    bits == 0
        || prog.fact("wrapped in program", bits, || {
            super::any_call_in(prog, &WRAP_WORDS, wraps, &|x| prog.in_programs(bits, x))
        })
        || !prog.fact("wrapped anywhere", 0, || any_call(prog, &WRAP_WORDS, wraps))
}

const WRAP_WORDS: [&str; 8] = [
    "DistributedDataParallel",
    "DDP",
    "FullyShardedDataParallel",
    "FSDP",
    "fully_shard",
    "DistributedOptimizer",
    "deepspeed",
    "prepare",
];

fn wraps(p: &str) -> bool {
    matches!(
        p,
        "torch.nn.parallel.DistributedDataParallel"
            // apex's all-reduces the gradients in backward too.
            | "apex.parallel.DistributedDataParallel"
            | "torch.distributed.fsdp.FullyShardedDataParallel"
            | "torch.distributed.fsdp.fully_shard"
            | "torch.distributed._composable.fsdp.fully_shard"
            | "horovod.DistributedOptimizer"
            | "deepspeed.initialize"
    )
}

pub(super) const DIST_COLLECTIVES: &[&str] = &[
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
pub(super) const OTHER_COLLECTIVE_NAMES: &[&str] = &[
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
    // mpi4py communicators (`MPI.COMM_WORLD.bcast(...)`)
    "bcast",
    "Bcast",
    "Barrier",
    "Allreduce",
    "Allgather",
    "Gather",
    "Scatter",
    "Reduce",
    "Alltoall",
    // Accelerate checkpointing (a collective under DeepSpeed or FSDP)
    "save_state",
    "get_state_dict",
    "save_model",
    "pad_across_processes",
    // Lightning Fabric (`fabric.save(path, state)` on every process)
    "save",
    "load",
    // Lightning's Trainer (a strategy barrier at the end)
    "save_checkpoint",
    // FSDP's full state dicts (gathered from every rank's shard)
    "state_dict",
    "optim_state_dict",
    "full_optim_state_dict",
];

/// mpi4py communicator methods that every rank of the communicator must
/// call (lower-case: pickled objects; capitalised: buffers).
pub(super) const MPI_COLLECTIVES: &[&str] = &[
    "bcast",
    "Bcast",
    "barrier",
    "Barrier",
    "allreduce",
    "Allreduce",
    "allgather",
    "Allgather",
    "gather",
    "Gather",
    "scatter",
    "Scatter",
    "reduce",
    "Reduce",
    "alltoall",
    "Alltoall",
];

/// The Accelerate methods that gather or save sharded state on every rank
/// when the job runs under DeepSpeed or FSDP (and are local under plain
/// DDP).
pub const ACCELERATE_SHARDED: &[&str] = &["save_state", "get_state_dict", "save_model"];

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

/// Whether the ranks of the job are MPI's, so that an MPI collective waits
/// for them: the program starts no torch process group, or starts it where
/// it reads MPI (guided-diffusion's `setup_dist` sets `RANK` from
/// `MPI.COMM_WORLD`). A group started from torchrun's environment alone
/// (`init_process_group(init_method="env://")` with no MPI beside it)
/// runs each rank as an MPI world of its own, where `bcast` returns at
/// once.
fn mpi_world_is_the_jobs(prog: &Program) -> bool {
    prog.fact("MPI starts the ranks", 0, || {
        let mut inits = 0;
        let beside_mpi = prog.any_scope(&["init_process_group"], &|_| true, &mut |scope| {
            let (mut init, mut mpi) = (false, false);
            prog.walk_exprs(scope, &mut |_, e| match &e.kind {
                ExprKind::Call { func, .. }
                    if prog
                        .external(scope, func)
                        .is_some_and(|p| p == "torch.distributed.init_process_group") =>
                {
                    init = true
                }
                ExprKind::Name(_) | ExprKind::Attribute { .. }
                    if prog.external(scope, e).is_some_and(|p| p.starts_with("mpi4py")) =>
                {
                    mpi = true
                }
                _ => {}
            });
            inits += usize::from(init);
            init && mpi
        });
        beside_mpi || inits == 0
    })
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
        if let Some(name) = path.strip_prefix("mpi4py.MPI.") {
            // `MPI.COMM_WORLD.bcast(x)`, `comm.bcast(x)` with `comm = MPI.COMM_WORLD`.
            if let Some((_, method)) = name.rsplit_once('.') {
                if MPI_COLLECTIVES.contains(&method) && mpi_world_is_the_jobs(prog) {
                    return Some(Collective {
                        kind: format!("mpi.{}", method.to_ascii_lowercase()),
                        label: label(),
                    });
                }
            }
            return None;
        }
        // `FSDP.full_optim_state_dict(model, optim)`, `FSDP.optim_state_dict(…)`:
        // every rank's optimizer shard is gathered.
        if let Some(name) = path
            .strip_prefix("torch.distributed.fsdp.FullyShardedDataParallel.")
            .or_else(|| {
                path.strip_prefix("torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel.")
            })
        {
            if matches!(name, "full_optim_state_dict" | "optim_state_dict") && full_state_dicts(prog, scope.m) {
                return Some(Collective {
                    kind: "fsdp.state_dict".into(),
                    label: label(),
                });
            }
            return None;
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
        "backward" if positional == 0 && ddp && training_step(prog, scope) && wrapped_where(prog, scope.m) => {
            Some(Collective {
                kind: "backward".into(),
                label: label(),
            })
        }
        "backward"
            if positional >= 1
                && is_engine_like(prog, scope, recv)
                && !(accelerator(prog, scope, recv) && accelerate_wraps_no_model(prog, scope.m)) =>
        {
            Some(Collective {
                kind: "backward".into(),
                label: label(),
            })
        }
        "step_optimizer" => Some(Collective {
            kind: "step_optimizer".into(),
            label: label(),
        }),
        // The full state dict of an FSDP model: each rank holds a shard,
        // and `state_dict()` all-gathers them (FULL_STATE_DICT, FSDP's
        // default), on every rank.
        "state_dict" if args.is_empty() && fsdp_model(prog, scope, recv) => Some(Collective {
            kind: "fsdp.state_dict".into(),
            label: label(),
        }),
        a if ACCELERATE_SHARDED.contains(&a) && accelerator(prog, scope, recv) => Some(Collective {
            kind: format!("accelerate.{attr}"),
            label: label(),
        }),
        "gather" | "reduce" | "pad_across_processes" if accelerator(prog, scope, recv) => Some(Collective {
            kind: attr.clone(),
            label: label(),
        }),
        // Lightning Fabric: `save` and `load` must be called on every
        // process (each writes or reads its part, and they synchronise).
        // (`LightningLite.save` has no barrier: under DDP rank 0 writes.)
        "barrier" | "all_reduce" | "all_gather" | "broadcast" | "save" | "load"
            if fabric(prog, scope, recv)
                && !(matches!(attr.as_str(), "save" | "load") && lightning_lite_self(prog, scope, recv)) =>
        {
            Some(Collective {
                kind: format!("fabric.{attr}"),
                label: label(),
            })
        }
        // The Trainer's strategy (`self.trainer.strategy.barrier()`, and
        // the older `accelerator_backend` and `training_type_plugin`): its
        // collectives wait for every process.
        "barrier" | "broadcast" | "all_gather" | "reduce" | "reduce_boolean_decision"
            if matches!(&recv.kind, ExprKind::Attribute { value: t, attr: a }
                if matches!(a.as_str(), "strategy" | "accelerator_backend" | "training_type_plugin")
                    && super::lightning::trainer(prog, scope, t)) =>
        {
            Some(Collective {
                kind: format!("lightning.strategy.{attr}"),
                label: label(),
            })
        }
        // Lightning's `trainer.save_checkpoint(path)` ends in the
        // strategy's barrier (and under DeepSpeed or FSDP every rank writes
        // its shard): every process must call it.
        "save_checkpoint" if super::lightning::trainer(prog, scope, recv) => Some(Collective {
            kind: "lightning.save_checkpoint".into(),
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

/// Whether the programs `m` is in hand Accelerate only what is not a model:
/// there are `accelerator.prepare(…)` calls, and every argument of each is
/// known to be something else — a dict of modules (`Munch(…)`, `{…}`, which
/// Accelerate passes back untouched), an optimizer, a scheduler, a data
/// loader, an object of a plain class of the project. Accelerate then wraps
/// no model in DDP, and `accelerator.backward(loss)` all-reduces nothing.
fn accelerate_wraps_no_model(prog: &Program, m: ModId) -> bool {
    let bits = prog.programs(m);
    let which = move |x: ModId| prog.in_programs(bits, x);
    let prepare = |scope: Scope, e: &Expr| -> Option<bool> {
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return None;
        };
        let ExprKind::Attribute { value: recv, attr } = &func.kind else {
            return None;
        };
        if !matches!(attr.as_str(), "prepare" | "prepare_model") || !accelerator(prog, scope, recv) {
            return None;
        }
        Some(args.iter().any(|a| match a {
            Arg::Pos(x) => !not_a_model(prog, scope, x),
            _ => true,
        }))
    };
    prog.fact("accelerate prepares", bits, || {
        super::any_expr_in(
            prog,
            &["prepare", "prepare_model"],
            &|s, e| prepare(s, e).is_some(),
            &which,
        )
    }) && !prog.fact("accelerate may prepare a model", bits, || {
        super::any_expr_in(
            prog,
            &["prepare", "prepare_model"],
            &|s, e| prepare(s, e) == Some(true),
            &which,
        )
    })
}

/// Whether `e` is known not to be a model (see [`accelerate_wraps_no_model`]).
fn not_a_model(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let s = prog.sources(scope, e);
    !s.unknown
        && !s.terms.is_empty()
        && s.terms.iter().all(|t| {
            // What `prepare` hands back for it (`model, opt = accelerator.prepare(model, opt)`
            // rebinds the name): the same kind of object.
            if let ExprKind::Call { func, .. } = &t.expr.kind {
                if let ExprKind::Attribute { value, attr } = &func.kind {
                    if attr == "prepare" && accelerator(prog, t.scope, value) {
                        return true;
                    }
                }
            }
            if !t.proj.is_empty() {
                return false;
            }
            match &t.expr.kind {
                ExprKind::Dict(_) | ExprKind::None => true,
                ExprKind::Call { func, .. } => match prog.callee(t.scope, func) {
                    Callee::External(p) => {
                        matches!(
                            p.as_str(),
                            "builtins.dict"
                                | "munch.Munch"
                                | "munch.munchify"
                                | "easydict.EasyDict"
                                | "collections.OrderedDict"
                                | "types.SimpleNamespace"
                        ) || p.starts_with("torch.optim.")
                            || p.starts_with("torch.utils.data.")
                    }
                    Callee::Class(k) => prog.class(k).is_some_and(|c| {
                        c.bases.is_empty()
                            || c.bases
                                .iter()
                                .all(|b| matches!(&b.kind, ExprKind::Name(n) if n == "object"))
                    }),
                    _ => false,
                },
                _ => false,
            }
        })
}

/// `self.context`, `context`, `accelerator`, `engine`, `model_engine`, a
/// name with `engine` as one of its words (`engine_G`, `ds_engine`):
/// receivers whose `backward(loss)` all-reduces.
pub(super) fn is_engine_like(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    let name = match &recv.kind {
        ExprKind::Name(n) => n.as_str(),
        ExprKind::Attribute { attr, .. } => attr.as_str(),
        _ => return false,
    };
    if matches!(name, "context" | "ctx" | "accelerator" | "fabric")
        || name.split('_').any(|w| w.eq_ignore_ascii_case("engine"))
        || lightning_lite_self(prog, scope, recv)
    {
        return true;
    }
    let s = prog.sources(scope, recv);
    s.terms.iter().any(|t| {
        matches!(&t.expr.kind, ExprKind::Call { func, .. }
            if matches!(prog.external(t.scope, func).as_deref(), Some("accelerate.Accelerator" | "deepspeed.initialize" | "lightning.Fabric")))
    })
}

pub(super) fn accelerator(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    prog.built_by(scope, recv, "accelerate.Accelerator")
}

/// The paths of FSDP's wrapper class (FSDP1, whose `state_dict()` gathers
/// the full parameters; FSDP2's `fully_shard` returns sharded tensors).
const FSDP_CLASS: &[&str] = &[
    "torch.distributed.fsdp.FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
];

/// Whether the programs of module `m` take FSDP's full state dicts: some
/// module wraps a model in FSDP, and none chooses a state dict type
/// (`FSDP.state_dict_type(…)`, `StateDictType.SHARDED_STATE_DICT`, …): code
/// that does handles FSDP's state dicts on purpose (a `SHARDED_STATE_DICT`
/// or `LOCAL_STATE_DICT` one gathers nothing; a save path of its own for
/// FSDP runs, which the rank-0 path of other engines never sees), and which
/// holds where is not known here.
fn full_state_dicts(prog: &Program, m: ModId) -> bool {
    let bits = prog.programs(m);
    prog.fact("wraps in FSDP", bits, || {
        super::any_call_in(
            prog,
            &["FullyShardedDataParallel", "FSDP"],
            |p| FSDP_CLASS.contains(&p),
            &|x| prog.in_programs(bits, x),
        )
    }) && !prog.fact("FSDP state dict types chosen", 0, || {
        prog.code_modules().any(|x| {
            prog.chunks_mentioning(x, &["state_dict_type", "StateDictType"])
                .next()
                .is_some()
        })
    })
}

/// Whether `recv` is a model wrapped in FSDP (in one of the ways its value
/// is made: `model = FSDP(model, …)` when the run asks for FSDP) whose state
/// dict is the full one.
fn fsdp_model(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    if !full_state_dicts(prog, scope.m) {
        return false;
    }
    let s = prog.sources(scope, recv);
    s.terms.iter().any(|t| {
        t.proj.is_empty()
            && matches!(&t.expr.kind, ExprKind::Call { func, .. }
                if prog.external(t.scope, func).is_some_and(|p| FSDP_CLASS.contains(&p.as_str())))
    })
}

/// Whether `recv` is a Lightning `Fabric`: built by `Fabric(...)`, or a
/// parameter annotated `Fabric`.
pub(super) fn fabric(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    const FABRIC: &[&str] = &["lightning.Fabric", "lightning.fabric.Fabric", "lightning_fabric.Fabric"];
    let s = prog.sources(scope, recv);
    if s.terms.iter().any(|t| {
        matches!(&t.expr.kind, ExprKind::Call { func, .. }
            if prog.external(t.scope, func).is_some_and(|p| FABRIC.contains(&p.as_str())))
    }) {
        return true;
    }
    if let (ExprKind::Name(n), Some(f)) = (&recv.kind, scope.func()) {
        if let Some(p) = prog.func(f).and_then(|func| func.params.iter().find(|p| p.name == *n)) {
            if let Some(a) = &p.annotation {
                return prog.external(scope, a).is_some_and(|p| FABRIC.contains(&p.as_str()));
            }
        }
    }
    lightning_lite_self(prog, scope, recv)
}

/// Whether `recv` is `self` in a method of a `LightningLite` subclass
/// (Fabric's predecessor, `pytorch_lightning.lite.LightningLite`): its
/// `barrier()`, `all_gather()` and `backward()` are the strategy's
/// collectives, as Fabric's are.
fn lightning_lite_self(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    prog.self_class(scope, recv).is_some_and(|k| {
        prog.external_bases(k)
            .iter()
            .any(|b| b.starts_with("lightning") && b.ends_with(".LightningLite"))
    })
}

/// Whether `X` in `X.checkpoint`/`X.preempt` is a Core API context.
pub(super) fn core_context(prog: &Program, scope: Scope, recv: &Expr) -> bool {
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
    first_collective_matching(prog, scope, stmts, ddp, depth, &|_| true)
}

/// [`first_collective`] among the collectives `pred` accepts.
pub fn first_collective_matching<'p>(
    prog: &'p Program,
    scope: Scope,
    stmts: &'p [Stmt],
    ddp: bool,
    depth: u32,
    pred: &dyn Fn(&Collective) -> bool,
) -> Option<(Scope, &'p Expr, Collective)> {
    find_collective(prog, scope, stmts, ddp, depth, pred, false)
}

/// [`first_collective_matching`], but the collective call itself (in the
/// function that makes it) rather than the call in `scope` that leads to it.
pub fn collective_site<'p>(
    prog: &'p Program,
    scope: Scope,
    stmts: &'p [Stmt],
    ddp: bool,
    depth: u32,
    pred: &dyn Fn(&Collective) -> bool,
) -> Option<(Scope, &'p Expr, Collective)> {
    find_collective(prog, scope, stmts, ddp, depth, pred, true)
}

fn find_collective<'p>(
    prog: &'p Program,
    scope: Scope,
    stmts: &'p [Stmt],
    ddp: bool,
    depth: u32,
    pred: &dyn Fn(&Collective) -> bool,
    innermost: bool,
) -> Option<(Scope, &'p Expr, Collective)> {
    let mut stack = Vec::new();
    let mut found: Option<(Scope, &'p Expr, Collective)> = None;
    let mut calls: Vec<&'p Expr> = Vec::new();
    for s in stmts {
        walk_stmt(s, &mut stack, &mut |anc, n| {
            if found.is_some() {
                return;
            }
            if let Node::Expr(e) = n {
                if matches!(e.kind, ExprKind::Call { .. }) && !super::in_untaken_default_arm(prog, scope, anc, e) {
                    match collective(prog, scope, e, ddp) {
                        Some(c) if pred(&c) => found = Some((scope, e, c)),
                        Some(_) => {}
                        None => calls.push(e),
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
        // A method called on `self` runs the subclass's override where the
        // object is one (a base trainer's `self.train_epoch()`, abstract
        // there, each trainer implementing it).
        let mut targets = vec![f];
        if matches!(&func.kind, ExprKind::Attribute { value, .. } if matches!(&value.kind, ExprKind::Name(n) if n == "self"))
        {
            targets.extend(prog.overrides(f));
        }
        for f in targets {
            let body = prog.body(f.scope());
            if let Some(hit) = find_collective(prog, f.scope(), body, ddp, depth - 1, pred, innermost) {
                if innermost {
                    return Some(hit);
                }
                // Reported at the call in this scope, naming the collective.
                return Some((scope, call, hit.2));
            }
        }
    }
    None
}

/// Whether a plain `loss.backward()` in `scope` is a training step's (so the
/// gradients of the wrapped model are all-reduced): its function, the class
/// it is a method of, or a function that calls it steps an optimizer
/// (`opt.step()`, `zero_grad()`). A profiling helper that backpropagates
/// through arbitrary modules to time them steps nothing.
fn training_step(prog: &Program, scope: Scope) -> bool {
    fn steps(text: &str) -> bool {
        text.contains(".step(") || text.contains("zero_grad(")
    }
    let Some(f) = scope.func() else {
        return true;
    };
    let Some(func) = prog.func(f) else {
        return true;
    };
    let text = prog.text(scope.m);
    let span_text = |sp: crate::source::Span| text.get(sp.start..sp.end).unwrap_or("");
    if steps(span_text(func.span)) {
        return true;
    }
    if let Some(k) = prog.class_of(f).and_then(|k| prog.class(k)) {
        if steps(span_text(k.span)) {
            return true;
        }
    }
    // A caller (by name, one level up).
    let words = [func.name.as_str()];
    for m in prog.code_modules() {
        let mtext = prog.text(m);
        for c in prog.chunks_with_words(m, &words) {
            for caller in prog.scopes(m, c) {
                let Some(cf) = caller.func().and_then(|cf| prog.func(cf)) else {
                    continue;
                };
                if cf.name == func.name {
                    continue;
                }
                let body = mtext.get(cf.span.start..cf.span.end).unwrap_or("");
                if steps(body) && body.contains(func.name.as_str()) {
                    return true;
                }
            }
        }
    }
    false
}
