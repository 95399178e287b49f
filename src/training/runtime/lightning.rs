//! Lightning's `Trainer`: how many processes it starts, and what its
//! objects do across ranks (`trainer.save_checkpoint` ends in a barrier).

use super::*;

/// The Trainer's external path (`pytorch_lightning.Trainer`,
/// `lightning.pytorch.Trainer` and `lightning.Trainer` normalise to it).
pub const TRAINER: &str = "lightning.Trainer";

/// `Trainer.from_argparse_args(args, **kwargs)`: a Trainer as well.
pub const TRAINER_FROM_ARGS: &str = "lightning.Trainer.from_argparse_args";

/// Whether a strategy name runs one process per device (`"ddp"`,
/// `"ddp_spawn"`, `"fsdp"`, `"deepspeed_stage_2"`, …).
fn per_device_name(s: &str) -> bool {
    ["ddp", "fsdp", "deepspeed"].iter().any(|p| s.starts_with(p))
}

/// Whether a `strategy=` value starts one process per device
/// (`Some(true)`: DDP, FSDP, DeepSpeed, as a name or a strategy object),
/// runs one process (`Some(false)`: `"dp"`, `"single_device"`), or is
/// left to Lightning or unknown (`None`).
fn strategy_ranks(prog: &Program, scope: Scope, e: &Expr) -> Option<bool> {
    if let Some(s) = values::constant(prog, &DEFAULT_RUN, scope, e).and_then(|r| r.as_str().map(str::to_string)) {
        let per_device = per_device_name(&s);
        return match s.as_str() {
            _ if per_device => Some(true),
            "dp" | "single_device" | "single_xla" => Some(false),
            _ => None,
        };
    }
    let ExprKind::Call { func, .. } = &e.kind else {
        return None;
    };
    per_device_strategy(&prog.external(scope, func)?).then_some(true)
}

/// Whether an external path names one of Lightning's strategies that run
/// one process per device, from the package or from its defining module
/// (`lightning.pytorch.strategies.DDPStrategy`,
/// `lightning.pytorch.strategies.ddp.DDPStrategy`).
pub(super) fn per_device_strategy(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("lightning.strategies.") else {
        return false;
    };
    let class = rest.rsplit('.').next().unwrap_or(rest);
    matches!(
        class,
        "DDPStrategy" | "FSDPStrategy" | "DeepSpeedStrategy" | "ModelParallelStrategy"
    )
}

/// Whether an external path names one of Lightning 1.x's training-type
/// plugins that run one process per device
/// (`pytorch_lightning.plugins.DDPPlugin`, `DeepSpeedPlugin`, …), the
/// spelling `strategy=` replaced.
fn per_device_plugin(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("lightning.plugins.") else {
        return false;
    };
    let class = rest.rsplit('.').next().unwrap_or(rest);
    matches!(
        class,
        "DDPPlugin"
            | "DDPSpawnPlugin"
            | "DDPShardedPlugin"
            | "DDPSpawnShardedPlugin"
            | "DDPFullyShardedPlugin"
            | "FullyShardedPlugin"
            | "DeepSpeedPlugin"
    )
}

/// Whether a `plugins=` value holds a per-device training-type plugin
/// (`plugins=DDPPlugin(find_unused_parameters=False)`, or one in a list).
fn plugins_per_device(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let is_plugin = |e: &Expr| {
        matches!(&e.kind, ExprKind::Call { func, .. }
            if prog.external(scope, func).is_some_and(|p| per_device_plugin(&p)))
    };
    match &e.kind {
        ExprKind::List(items) | ExprKind::Tuple(items) => items.iter().any(is_plugin),
        _ => is_plugin(e),
    }
}

/// Whether a Trainer's arguments name a per-device strategy: `strategy=`
/// (or the older `accelerator="ddp"`) or a per-device `plugins=` entry.
fn names_per_device(prog: &Program, scope: Scope, args: &[Arg]) -> bool {
    ["strategy", "accelerator"]
        .iter()
        .any(|k| kw(args, k).is_some_and(|v| strategy_ranks(prog, scope, v) == Some(true)))
        || kw(args, "plugins").is_some_and(|v| plugins_per_device(prog, scope, v))
}

/// The values are read as the run with the flags' defaults has them.
const DEFAULT_RUN: Env<'static> = Env {
    config: None,
    argv: &[],
    merged_defaults: false,
    run_files: None,
    untaken: None,
};

/// A device count: an integer, or a list of device indices; [`ALL_DEVICES`]
/// for `-1`.
fn device_count(prog: &Program, scope: Scope, e: &Expr) -> Option<i64> {
    if let ExprKind::List(items) | ExprKind::Tuple(items) = &e.kind {
        return i64::try_from(items.len()).ok();
    }
    count_value(values::constant(prog, &DEFAULT_RUN, scope, e)?.single()?)
}

/// Whether the Trainer's device and node counts are written out at the
/// call (`devices=1`, `gpus=[0]`, no `num_nodes=` or a number), rather than
/// read from a setting.
fn written_at_call(args: &[Arg]) -> bool {
    let written = |e: &Expr| matches!(&e.kind, ExprKind::Int(_) | ExprKind::List(_) | ExprKind::Tuple(_));
    ["devices", "gpus", "num_nodes"]
        .iter()
        .all(|k| kw(args, k).is_none_or(&written))
}

/// `devices=-1` (`gpus=-1`): every GPU of the node, one process each where
/// there are several.
const ALL_DEVICES: i64 = -1;

fn count_value(v: &Const) -> Option<i64> {
    match v {
        Const::Int(n) if *n >= ALL_DEVICES => Some(*n),
        _ => None,
    }
}

/// Whether the namespace a `Trainer.from_argparse_args(args)` is built
/// from runs one process per device on the default run: its `strategy`
/// (or older `accelerator`) flag names a per-device strategy, or its
/// `devices`/`gpus` flag asks for every GPU (`-1`) or for more than one, or
/// `num_nodes` for more than one node.
fn namespace_per_device(prog: &Program, scope: Scope, args: &[Arg]) -> bool {
    let Some(ns) = pos(args, 0) else { return false };
    let field = |name: &str| values::field_constant(prog, &DEFAULT_RUN, scope, ns, name);
    let per_device = |name: &str| {
        field(name)
            .and_then(|r| r.as_str().map(per_device_name))
            .unwrap_or(false)
    };
    let many = |name: &str| {
        field(name)
            .and_then(|r| r.single().and_then(count_value))
            .is_some_and(|n| n == ALL_DEVICES || n > 1)
    };
    per_device("strategy") || per_device("accelerator") || many("devices") || many("gpus") || many("num_nodes")
}

/// Who a `Trainer(…)` call's arguments make run the code: `Some(Single)`
/// for one device on one node, `Some(Ranks(n))` for a multi-process
/// strategy or several devices or nodes, `None` when the arguments do not
/// say (`devices="auto"`, a count from the command line).
pub fn trainer_world(prog: &Program, scope: Scope, args: &[Arg]) -> Option<World> {
    if has_splat(args) {
        return None;
    }
    let count = |name: &str| kw(args, name).map(|e| device_count(prog, scope, e));
    // `gpus=` is the older spelling of `devices=`.
    let devices = count("devices").or_else(|| count("gpus"));
    let nodes = count("num_nodes");
    let mut strategy = kw(args, "strategy").map(|e| strategy_ranks(prog, scope, e));
    if strategy == Some(Some(false)) {
        return Some(World::Single);
    }
    if kw(args, "plugins").is_some_and(|v| plugins_per_device(prog, scope, v)) {
        strategy = Some(Some(true));
    }
    let nodes = match nodes {
        None => 1,
        Some(Some(n)) => n.max(1),
        // A node count read from a config: a per-device strategy still
        // runs one process per device.
        Some(None) if strategy == Some(Some(true)) => return Some(World::Ranks(None)),
        Some(None) => return None,
    };
    match devices {
        Some(Some(ALL_DEVICES)) => Some(World::Ranks(None)),
        Some(Some(d)) => {
            let total = d.checked_mul(nodes)?;
            Some(if total > 1 {
                World::Ranks(Some(total))
            } else if strategy == Some(Some(true)) && !written_at_call(args) {
                // One device by the default of a setting the run gives
                // (`devices=args.gpus_per_node`, a flag defaulting to 1)
                // beside a per-device strategy named outright: the strategy
                // is there for the runs that set more, one process each.
                World::Ranks(None)
            } else {
                World::Single
            })
        }
        // `devices` left to Lightning ("auto") or unresolved: ranks only
        // when the strategy or the node count says so.
        _ if nodes > 1 || strategy == Some(Some(true)) => Some(World::Ranks(None)),
        _ => None,
    }
}

/// Whether a module `which` accepts builds a `Trainer` that runs one
/// process per device: `Trainer(strategy="ddp", devices=8)`,
/// `Trainer.from_argparse_args(args, strategy="ddp")`, or a Trainer built
/// from arguments the module sets to such a strategy
/// (`trainer_config["accelerator"] = "ddp"`, the older spelling) or
/// builds one of (`Trainer(**kwargs)` beside a `DDPStrategy(…)`).
pub(super) fn trainer_ranks_in(prog: &Program, which: &dyn Fn(ModId) -> bool) -> bool {
    for m in prog.code_modules().filter(|m| which(*m)) {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &["Trainer"]).collect();
        let mut builds = false;
        for c in chunks {
            for scope in prog.scopes(m, c) {
                let mut hit = false;
                prog.walk_exprs(scope, &mut |_, e| {
                    if hit {
                        return;
                    }
                    let ExprKind::Call { func, args, .. } = &e.kind else {
                        return;
                    };
                    match prog.external(scope, func).as_deref() {
                        Some(TRAINER) => {
                            let world = trainer_world(prog, scope, args);
                            builds |= world.is_none();
                            hit = world.is_some_and(World::distributed);
                        }
                        Some(TRAINER_FROM_ARGS) => {
                            builds = true;
                            hit = names_per_device(prog, scope, args) || namespace_per_device(prog, scope, args);
                        }
                        _ => {}
                    }
                });
                if hit {
                    return true;
                }
            }
        }
        if builds && (strategy_stored(prog, m) || strategy_built(prog, m) || written_for_ranks(prog, m)) {
            return true;
        }
    }
    false
}

/// Whether module `m`, which builds a Trainer whose devices the command line
/// or a config chooses (`Trainer.from_argparse_args(args)`), is written for
/// a run of several ranks: it runs torch's collectives itself
/// (`dist.all_reduce(sum_Q)` in a Sinkhorn step, `all_gather` of
/// embeddings) or asks whether the Trainer's plugin is a per-device one
/// (`isinstance(trainer.training_type_plugin, DDPPlugin)`).
fn written_for_ranks(prog: &Program, m: ModId) -> bool {
    const COLLECTIVES: &[&str] = &[
        "torch.distributed.all_reduce",
        "torch.distributed.all_gather",
        "torch.distributed.broadcast",
        "torch.distributed.reduce_scatter",
    ];
    let words = [
        "all_reduce",
        "all_gather",
        "broadcast",
        "reduce_scatter",
        "Plugin",
        "Strategy",
    ];
    let chunks: Vec<u32> = prog.chunks_mentioning(m, &words).collect();
    chunks.into_iter().any(|c| {
        prog.scopes(m, c).into_iter().any(|scope| {
            let mut hit = false;
            prog.walk_exprs(scope, &mut |anc, e| {
                if hit {
                    return;
                }
                match &e.kind {
                    ExprKind::Call { func, .. } => {
                        hit = prog
                            .external(scope, func)
                            .is_some_and(|p| COLLECTIVES.contains(&p.as_str()));
                    }
                    // A plugin or strategy class named in an `isinstance`
                    // test (not called: a call is `strategy_built`'s).
                    ExprKind::Name(_) | ExprKind::Attribute { .. } => {
                        let called = matches!(anc.last(), Some(Anc::Expr(p))
                            if matches!(&p.kind, ExprKind::Call { func, .. } if std::ptr::eq(&**func, e)));
                        hit = !called
                            && prog
                                .external(scope, e)
                                .is_some_and(|p| per_device_plugin(&p) || per_device_strategy(&p));
                    }
                    _ => {}
                }
            });
            hit
        })
    })
}

/// Whether module `m` builds one of Lightning's per-device strategy objects
/// (`"strategy": DDPStrategy(find_unused_parameters=False)` in the keyword
/// arguments a `Trainer(**kwargs)` receives).
fn strategy_built(prog: &Program, m: ModId) -> bool {
    let chunks: Vec<u32> = prog.chunks_mentioning(m, &["Strategy"]).collect();
    chunks.into_iter().any(|c| {
        prog.scopes(m, c).into_iter().any(|scope| {
            let mut hit = false;
            prog.walk_exprs(scope, &mut |_, e| {
                if let ExprKind::Call { func, .. } = &e.kind {
                    hit |= prog.external(scope, func).is_some_and(|p| per_device_strategy(&p));
                }
            });
            hit
        })
    })
}

/// Whether module `m` stores a per-device strategy name under `strategy`
/// or `accelerator` (`cfg["strategy"] = "ddp"`, `opts.accelerator = "ddp"`).
fn strategy_stored(prog: &Program, m: ModId) -> bool {
    let keyed = |t: &Expr| match &t.kind {
        ExprKind::Subscript { index, .. } => {
            matches!(&index.kind, ExprKind::Str(k) if k == "strategy" || k == "accelerator")
        }
        ExprKind::Attribute { attr, .. } => attr == "strategy" || attr == "accelerator",
        _ => false,
    };
    let chunks: Vec<u32> = prog.chunks_mentioning(m, &["ddp", "fsdp", "deepspeed"]).collect();
    chunks.into_iter().any(|c| {
        prog.scopes(m, c).into_iter().any(|scope| {
            let mut hit = false;
            prog.walk_stmts(scope, &mut |_, st| {
                if let StmtKind::Assign { targets, value } = &st.kind {
                    if matches!(&value.kind, ExprKind::Str(s) if per_device_name(s)) && targets.iter().any(keyed) {
                        hit = true;
                    }
                }
            });
            hit
        })
    })
}

/// Whether `recv` is a Lightning `Trainer`: built by `Trainer(…)`, a
/// parameter annotated `Trainer`, the `trainer` parameter of a Lightning
/// `Callback`'s method, or `self.trainer` in a `LightningModule`.
pub(super) fn trainer(prog: &Program, scope: Scope, recv: &Expr) -> bool {
    let s = prog.sources(scope, recv);
    if s.terms.iter().any(|t| {
        t.proj.is_empty()
            && matches!(&t.expr.kind, ExprKind::Call { func, .. }
                if matches!(prog.external(t.scope, func).as_deref(), Some(TRAINER | TRAINER_FROM_ARGS)))
    }) {
        return true;
    }
    let Some(f) = scope.func() else { return false };
    let class_base = |pred: &dyn Fn(&str) -> bool| {
        prog.class_of(f)
            .is_some_and(|k| prog.external_bases(k).iter().any(|b| pred(b)))
    };
    match &recv.kind {
        ExprKind::Name(n) => {
            let Some(p) = prog.func(f).and_then(|func| func.params.iter().find(|p| p.name == *n)) else {
                return false;
            };
            match &p.annotation {
                Some(a) => match &a.kind {
                    ExprKind::Str(text) => matches!(
                        text.as_str(),
                        "pl.Trainer"
                            | "L.Trainer"
                            | "lightning.Trainer"
                            | "pytorch_lightning.Trainer"
                            | "lightning.pytorch.Trainer"
                    ),
                    _ => prog.external(scope, a).as_deref() == Some(TRAINER),
                },
                None => {
                    n == "trainer"
                        && class_base(&|b| b == "lightning.Callback" || b.starts_with("lightning.callbacks."))
                }
            }
        }
        ExprKind::Attribute { value, attr } if attr == "trainer" => {
            matches!(&value.kind, ExprKind::Name(me) if me == "self") && class_base(&|b| LIGHTNING_MODULE.contains(&b))
        }
        _ => false,
    }
}

/// Whether class `k` of the code derives from Lightning's `LightningModule`.
pub fn lightning_module(prog: &Program, k: ClassId) -> bool {
    prog.derives_from(k, LIGHTNING_MODULE)
}

/// The devices per node of the training code's multi-process `Trainer`s,
/// when they all name the same count.
pub fn trainer_devices(prog: &Program) -> Option<i64> {
    let mut found: Option<i64> = None;
    for (scope, _, call, _) in calls(prog, &[TRAINER]) {
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        if !trainer_world(prog, scope, args).is_some_and(World::distributed) {
            continue;
        }
        let d = kw(args, "devices")
            .or_else(|| kw(args, "gpus"))
            .and_then(|e| device_count(prog, scope, e))?;
        match found {
            Some(f) if f != d => return None,
            _ => found = Some(d),
        }
    }
    found.filter(|d| *d > 1)
}

/// Whether a module `which` accepts calls `LightningCLI(…)` whose Trainer
/// runs one process per device: its `trainer_defaults=` dict names a
/// per-device strategy or asks for every GPU or several, or the project's
/// YAML configs do in their `trainer:` section (every file that sets
/// `strategy` names a per-device one, or every file that sets `devices`,
/// `gpus` or `num_nodes` asks for more than one, `-1` for every GPU).
pub(super) fn cli_ranks_in(
    prog: &Program,
    which: &dyn Fn(ModId) -> bool,
    run_files: &crate::training::run_files::RunFiles,
) -> bool {
    let calls: Vec<_> = calls(prog, crate::training::program::LIGHTNING_CLI)
        .into_iter()
        .filter(|(scope, ..)| which(scope.m))
        .collect();
    if calls.is_empty() {
        return false;
    }
    let defaults_say = calls.iter().any(|(scope, _, call, _)| {
        let ExprKind::Call { args, .. } = &call.kind else {
            return false;
        };
        let Some(ExprKind::Dict(items)) = kw(args, "trainer_defaults").map(|d| &d.kind) else {
            return false;
        };
        items.iter().any(|i| {
            let crate::training::ast::DictItem::Pair { key, value, .. } = i else {
                return false;
            };
            match &key.kind {
                ExprKind::Str(k) if k == "strategy" => strategy_ranks(prog, *scope, value) == Some(true),
                ExprKind::Str(k) if k == "devices" || k == "gpus" || k == "num_nodes" => {
                    device_count(prog, *scope, value).is_some_and(|n| n == ALL_DEVICES || n > 1)
                }
                _ => false,
            }
        })
    });
    defaults_say || files_run_ranks(run_files)
}

/// Whether the project's YAML configs' `trainer:` section runs one process
/// per device (see [`cli_ranks_in`]).
fn files_run_ranks(run_files: &crate::training::run_files::RunFiles) -> bool {
    use crate::training::run_files::{Format, Seg};
    use crate::yaml::{PathSeg, Value};
    let at = |key: &str| {
        run_files.lookup(
            Format::Yaml,
            None,
            &[
                Seg::At(PathSeg::Key("trainer".into())),
                Seg::At(PathSeg::Key(key.into())),
            ],
        )
    };
    let all = |key: &str, ok: &dyn Fn(&Value) -> bool| {
        let found = at(key);
        !found.is_empty() && found.iter().all(|f| ok(&f.value))
    };
    let many = |v: &Value| matches!(v, Value::Int(n) if *n == ALL_DEVICES || *n > 1);
    all("strategy", &|v| matches!(v, Value::Str(s) if per_device_name(s)))
        || all("devices", &many)
        || all("gpus", &many)
        || all("num_nodes", &many)
}
