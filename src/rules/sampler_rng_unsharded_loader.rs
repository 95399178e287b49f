//! T101 (`sampler-rng-shared-across-ranks`) on a training loader nothing
//! shards: a `DataLoader(shuffle=True)` that feeds the training loop of a job
//! whose model is wrapped for data parallelism (DDP, FSDP, DeepSpeed,
//! `accelerator.prepare`), with no sampler of its own, never handed to
//! `accelerator.prepare` or another loader manager, in a program whose ranks
//! do not seed the global RNG alike (no seed, or one per rank; the alike
//! case is T101's equal-indices report). Each rank then iterates the whole
//! dataset in an order of its own: the ranks' batches overlap, every epoch
//! reads the data once per rank, and the gradient average is over
//! duplicated samples.
//!
//! Silent where the program builds a `DistributedSampler` (or a project
//! sampler named or derived so) anywhere, where Lightning runs the ranks
//! (it puts its own sampler on the loader), for a loader built or passed
//! over on one rank only, for a dataset whose construction depends on the
//! rank (`files[rank::world]`, `Shard(rank=rank)`) or whose class mentions
//! the rank or world size itself (it shards its own samples), and for the
//! cases T101's shuffled-loader check leaves alone (a rank's own buffer, a
//! DataPipe).

use super::sampler_rng_shared_across_ranks::{live, over_datapipe, over_rank_buffer, shuffled_loader};
use super::training_support::{feeds_training, managed, Code};
use super::Sink;
use crate::training::ast::{Expr, ExprKind};
use crate::training::program::{Callee, ModId, Scope};
use crate::training::runtime::{self, kw, pos, Seeding};

const TORCH_LOADER: &str = "torch.utils.data.DataLoader";

pub(super) fn unsharded_loaders(code: &Code<'_>, seedings: &[(u64, Seeding)], out: &mut Sink<'_>) {
    let prog = code.prog;
    // The programs of module `m` whose ranks draw apart.
    let apart = |m: ModId| {
        code.rt
            .worlds_of(prog, m)
            .into_iter()
            .any(|(bit, w)| w.distributed() && seedings.iter().any(|(b, s)| *b == bit && *s == Seeding::NotIdentical))
    };
    let mut data_parallel: Option<bool> = None;
    for (scope, anc, call, _) in runtime::calls(prog, &[TORCH_LOADER]) {
        if !apart(scope.m) {
            continue;
        }
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        if shuffled_loader(code, scope, args).is_none()
            || !live(code, scope, &anc, call)
            || runtime::runs_on_one_rank(prog, scope, &anc, call as *const Expr as *const ())
        {
            continue;
        }
        if !*data_parallel
            .get_or_insert_with(|| runtime::data_parallel_model(prog, code.rt) || accelerate_prepares(code))
        {
            return;
        }
        if samplers_in_program(code, scope.m) || runtime::lightning_ranks(prog, scope.m) {
            continue;
        }
        let Some(dataset) = pos(args, 0).or_else(|| kw(args, "dataset")) else {
            continue;
        };
        if runtime::depends_on_rank(prog, scope, dataset) || shards_itself(code, scope, dataset) {
            continue;
        }
        if managed(code, scope, &anc, call)
            || over_rank_buffer(code, scope, args)
            || over_datapipe(code, scope, &anc, args)
            || !feeds_training(code, scope, &anc, call)
        {
            continue;
        }
        let d = out.at_loc(
            code.loc(scope.m, call.span),
            "this training DataLoader shuffles the whole dataset on every rank and nothing shards it (no sampler, no `accelerator.prepare`), in a job whose model is wrapped for data parallelism and whose ranks do not seed alike: each rank iterates every sample in an order of its own, so the ranks' batches overlap, every epoch reads the data once per rank, and the gradients are averaged over repeated samples".to_string(),
        );
        d.help("give it `sampler=DistributedSampler(dataset)` (drop `shuffle=True`, call `sampler.set_epoch(epoch)` every epoch), or hand the loader to `accelerator.prepare` with the model");
    }
}

/// Whether the code hands something to an `Accelerator`'s `prepare` (the
/// model among them, under a multi-GPU `accelerate launch`, is wrapped in
/// DDP).
fn accelerate_prepares(code: &Code<'_>) -> bool {
    let prog = code.prog;
    code.scopes_with_words(&["prepare"]).into_iter().any(|scope| {
        let mut found = false;
        prog.walk_exprs(scope, &mut |_, e| {
            if let ExprKind::Call { func, args, .. } = &e.kind {
                if let ExprKind::Attribute { value, attr } = &func.kind {
                    found |=
                        attr == "prepare" && !args.is_empty() && prog.built_by(scope, value, "accelerate.Accelerator");
                }
            }
        });
        found
    })
}

/// Whether a program module `m` runs in builds a `DistributedSampler`, a
/// project subclass of one, or a project sampler named so.
fn samplers_in_program(code: &Code<'_>, m: ModId) -> bool {
    let prog = code.prog;
    runtime::calls(
        prog,
        &[
            "torch.utils.data.DistributedSampler",
            "torch.utils.data.distributed.DistributedSampler",
        ],
    )
    .iter()
    .any(|(s, ..)| prog.same_program(s.m, m))
        || super::unsorted_directory_listing::distributed_sampler_class_in(code, m)
}

/// Whether the dataset (in `scope`) is made by a class of the code whose
/// text reads the rank or the world size (`dist.get_rank()`,
/// `self.rank`, `num_replicas`): it may take its own share of the samples.
/// A dataset whose making is not in sight counts as such too.
fn shards_itself(code: &Code<'_>, scope: Scope, dataset: &Expr) -> bool {
    let prog = code.prog;
    let sources = prog.sources(scope, dataset);
    if sources.unknown || sources.terms.is_empty() {
        return true;
    }
    sources.terms.iter().any(|t| {
        let ExprKind::Call { func, .. } = &t.expr.kind else {
            return !t.proj.is_empty();
        };
        match prog.callee(t.scope, func) {
            Callee::Class(k) => prog.ancestors(k).into_iter().take(4).any(|a| {
                prog.class(a).is_some_and(|c| {
                    let text = prog.text(a.m).get(c.span.start..c.span.end).unwrap_or("");
                    ["rank", "world_size", "num_replicas", "shard"]
                        .iter()
                        .any(|w| text.contains(w))
                })
            }),
            _ => false,
        }
    })
}
