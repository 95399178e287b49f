//! T104 (`rank-conditional-collective`) in a function decorated with
//! Lightning's `@rank_zero_only`: the decorator runs the body on rank 0
//! and returns at once on every other rank, so a collective the body runs
//! (a barrier of the Trainer's strategy, a `torch.distributed` operation,
//! `trainer.save_checkpoint`), directly or in a function of the training
//! code it calls (three calls deep), waits on rank 0 for ranks that never
//! join it. A Lightning hook so decorated (`test_epoch_end` calling the
//! validation hook that ends in `self.trainer.strategy.barrier()`) is
//! still called on every rank by the Trainer; only rank 0 runs it.
//!
//! Silent in single-process code, and for a collective under the body's own
//! test that no multi-rank run takes (`if world_size == 1:`).

use super::training_support::{excerpt, Code};
use super::Sink;
use crate::training::runtime::{self, first_collective, rank_zero_only_scope};

/// How deep into the training code's calls a collective is looked for.
const CALL_DEPTH: u32 = 3;

pub(super) fn rank_zero_only_collectives(code: &Code<'_>, ddp: bool, out: &mut Sink<'_>) {
    let prog = code.prog;
    for scope in code.scopes_with_words(&["rank_zero_only"]) {
        let Some(f) = scope.func() else { continue };
        if !rank_zero_only_scope(prog, scope) || !code.rt.world_at(prog, scope.m).distributed() {
            continue;
        }
        let Some(func) = prog.func(f) else { continue };
        let body = prog.body(scope);
        let Some((_, call, c)) = first_collective(prog, scope, body, ddp, CALL_DEPTH) else {
            continue;
        };
        let written = excerpt(code.text(scope.m, call.span));
        let label = excerpt(&c.label);
        let what = if written == label {
            format!("`{label}` is a collective")
        } else {
            format!("`{written}` runs `{label}`, a collective")
        };
        let d = out.at_loc(
            code.loc(scope.m, call.span),
            format!(
                "{what}, but it runs in `{}`, which `@rank_zero_only` runs on rank 0 alone (every other rank returns at once): rank 0 waits in it for ranks that never join, and the job hangs until the collective times out",
                func.name
            ),
        );
        if let Some(inner) = runtime::collective_site(prog, scope, body, ddp, CALL_DEPTH, &|x| x.kind == c.kind) {
            if !std::ptr::eq(inner.1, call) {
                d.label(code.file(inner.0.m), inner.1.span, "the collective it runs");
            }
        }
        d.help("run the collective on every rank: drop `@rank_zero_only` from this function and keep it for the printing, logging or file writes only rank 0 should do");
    }
}
