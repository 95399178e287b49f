declare_rule! {
    /// ## What it checks
    /// `os.environ["CUDA_VISIBLE_DEVICES"] = "2"` (also through
    /// `os.environ.setdefault(…)`, `os.environ.update(…)` and `os.putenv(…)`):
    /// one GPU, written as a constant, in code that every rank of a multi-rank
    /// job runs — the module level of the training script a launcher starts
    /// once per rank (torchrun, `accelerate launch`, `deepspeed`), or a
    /// function each rank calls.
    ///
    /// Silent where the value is not a constant naming exactly one device (a
    /// list such as `"0,1,2,3"`, a value read from the command line or a
    /// config, one computed from the rank), where the assignment runs on one
    /// rank only or only on the path without distribution (the `else` of
    /// `if args.distributed:`), in a program that starts its ranks itself
    /// with `torch.multiprocessing.spawn` (which then sizes the job by the
    /// devices the parent sees), and in a dataset module's own `__main__`
    /// block or a function only such blocks (or one-process paths) call, up
    /// to three callers away (OpenPCDet's Waymo data preparation).
    ///
    /// ## Why
    /// The launcher gives each rank its own GPU through `LOCAL_RANK` and
    /// leaves every GPU of the node visible; the rank then picks
    /// `cuda:{local_rank}`. A pinned `CUDA_VISIBLE_DEVICES` — usually left
    /// over from a one-GPU debugging run — makes every rank see the same one
    /// GPU as `cuda:0`: the ranks past the first fail on a device ordinal that
    /// no longer exists, or, where the code always uses `cuda:0`, every rank
    /// crowds onto one GPU while the others idle. Choose the visible devices
    /// where the job is launched (`CUDA_VISIBLE_DEVICES=2 python train.py` for
    /// the one-GPU run), not in the code every rank runs.
    ///
    /// ## Example
    /// ```python
    /// import os
    /// os.environ["CUDA_VISIBLE_DEVICES"] = "0"    # warning: every rank sees only GPU 0
    ///
    /// import torch
    /// import torch.distributed as dist
    ///
    /// dist.init_process_group("nccl")
    /// local_rank = int(os.environ["LOCAL_RANK"])
    /// torch.cuda.set_device(local_rank)           # fails on every rank but the first
    /// ```
    pub static VISIBLE_DEVICES_PINNED_ON_EVERY_RANK = {
        code: "T119",
        name: "visible-devices-pinned-on-every-rank",
        family: Training,
        severity: Warning,
        summary: "CUDA_VISIBLE_DEVICES is set to one GPU in code every rank runs, so the ranks share or lose their devices",
    };
}

use super::training_support::{code, env_assignments, Code};
use super::{Cx, Sink};
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::Scope;
use crate::training::runtime;

const NAME: &str = "CUDA_VISIBLE_DEVICES";

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() {
        return;
    }
    let prog = code.prog;
    let assignments = env_assignments(&code, NAME);
    if assignments.is_empty() {
        return;
    }
    // Ranks started by the code itself: the spawning parent decides how
    // many from what it sees, so a pinned device there is a one-process run.
    let spawned = super::cudnn_benchmark_with_determinism::spawn_calls(&code);
    for (scope, stmt, span) in assignments {
        if !code.rt.world_at(prog, scope.m).distributed()
            || spawned.iter().any(|(s, ..)| prog.same_program(s.m, scope.m))
        {
            continue;
        }
        let Some(value) = assigned(stmt) else { continue };
        let Some(device) = one_device(value) else {
            continue;
        };
        let Some(anc) = prog.ancestors_of(scope, value) else {
            continue;
        };
        let node = value as *const Expr as *const ();
        if runtime::runs_on_one_rank(prog, scope, &anc, node)
            || runtime::non_distributed_path(prog, scope, &anc, node)
            || code.rt.main_block_of_no_ranks(prog, scope, &anc)
            || one_process_only(&code, scope, 0)
        {
            continue;
        }
        let d = out.at_loc(
            code.loc(scope.m, span),
            format!("CUDA_VISIBLE_DEVICES is set to \"{device}\" in code every rank runs: each rank then sees only that one GPU, as its cuda:0, so the ranks past the first fail on `cuda:{{local_rank}}`, or every rank crowds onto GPU {device} while the node's other GPUs idle"),
        );
        d.help("choose the visible devices where the job is launched (`CUDA_VISIBLE_DEVICES=2 python train.py` for a one-GPU run; torchrun and accelerate give each rank its own GPU through LOCAL_RANK), not in the code every rank runs");
    }
}

/// Whether the function of `scope` is called only on paths a multi-rank
/// run does not take (a data-preparation function of a dataset module that
/// only its own `__main__` block calls, the `else` of `if args.distributed:`),
/// directly or through up to three callers.
fn one_process_only(code: &Code<'_>, scope: Scope, depth: u32) -> bool {
    let prog = code.prog;
    let Some(f) = scope.func() else { return false };
    if depth > 3 {
        return false;
    }
    let sites = prog.call_sites(f);
    !sites.is_empty()
        && !prog.escapes(f)
        && sites.into_iter().take(MOST_SITES).all(|(s, call)| {
            prog.ancestors_of(s, call).is_some_and(|a| {
                let at = call as *const Expr as *const ();
                runtime::non_distributed_path(prog, s, &a, at)
                    || code.rt.main_block_of_no_ranks(prog, s, &a)
                    || one_process_only(code, s, depth + 1)
            })
        })
}

/// Most call sites of a function looked at.
const MOST_SITES: usize = 16;

/// The value an assignment of the variable stores: `os.environ[NAME] = v`,
/// `os.environ.setdefault(NAME, v)`, `os.putenv(NAME, v)`, or the entry of
/// `os.environ.update({NAME: v})` / `update(NAME=v)`.
fn assigned(stmt: &Stmt) -> Option<&Expr> {
    match &stmt.kind {
        StmtKind::Assign { value, .. } => Some(value),
        StmtKind::Expr(e) => {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return None;
            };
            let ExprKind::Attribute { attr, .. } = &func.kind else {
                return None;
            };
            match attr.as_str() {
                "setdefault" | "putenv" => runtime::pos(args, 1),
                "update" => runtime::kw(args, NAME).or_else(|| {
                    let ExprKind::Dict(items) = &runtime::pos(args, 0)?.kind else {
                        return None;
                    };
                    items.iter().find_map(|i| match i {
                        crate::training::ast::DictItem::Pair { key, value, .. } => {
                            matches!(&key.kind, ExprKind::Str(k) if k == NAME).then_some(value)
                        }
                        _ => None,
                    })
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The one device a value written out names (`"2"`, `2`, `"GPU-…"`);
/// `None` for a list of devices, an empty value, or a value read from
/// elsewhere (a flag, a config, the rank), which the run may set apart.
fn one_device(value: &Expr) -> Option<String> {
    let text = match &value.kind {
        ExprKind::Str(s) => s.trim().to_string(),
        ExprKind::Int(i) if *i >= 0 => i.to_string(),
        _ => return None,
    };
    let one = !text.is_empty()
        && !text.contains(',')
        && (text.chars().all(|c| c.is_ascii_digit()) || text.starts_with("GPU-") || text.starts_with("MIG-"));
    one.then_some(text)
}
