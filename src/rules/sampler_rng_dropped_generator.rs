//! T101 (`sampler-rng-shared-across-ranks`) on a dropped generator: a
//! function handed a `generator` calls a helper that draws with one
//! (`torch.randperm(n, generator=generator)`) but passes it
//! `generator=None`, in code whose order every rank must agree on (multi-rank
//! code, or a function that splits by `world_size`). LLaVA's
//! `get_modality_length_grouped_indices` is the shape: the sampler's
//! generator, which Accelerate keeps in step on every rank, orders the
//! megabatches, while the per-modality shuffles inside draw from each rank's
//! own global RNG — the same on every rank only while nothing has drawn from
//! it differently, and otherwise a different split on each rank.

use super::training_support::Code;
use super::Sink;
use crate::training::ast::{Arg, Expr, ExprKind};
use crate::training::program::{Callee, FuncId, Program};
use crate::training::runtime::kw;

/// Parameters that say a function splits its order over the ranks.
const WORLD_PARAMS: &[&str] = &["world_size", "num_replicas", "num_processes"];

pub(super) fn dropped_generators(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    for m in prog.code_modules() {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &["generator"]).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                let Some(f) = scope.func() else { continue };
                if !has_param(prog, f, &["generator"]) {
                    continue;
                }
                let world = code.rt.world_at(prog, m).distributed() || has_param(prog, f, WORLD_PARAMS);
                if !world {
                    continue;
                }
                let mut hits: Vec<(&Expr, &Expr, FuncId, String)> = Vec::new();
                prog.walk_exprs(scope, &mut |_, e| {
                    let ExprKind::Call { func, args, .. } = &e.kind else {
                        return;
                    };
                    let Some(none) = kw(args, "generator").filter(|g| matches!(g.kind, ExprKind::None)) else {
                        return;
                    };
                    let Callee::Func(g) = prog.callee(scope, func) else {
                        return;
                    };
                    if let Some(draw) = draws_with_generator(prog, g) {
                        hits.push((e, none, g, draw));
                    }
                });
                for (call, none, g, draw) in hits {
                    let name = prog.func(g).map(|x| x.name.clone()).unwrap_or_default();
                    let outer = prog.func(f).map(|x| x.name.clone()).unwrap_or_default();
                    let d = out.at_loc(
                        code.loc(m, none.span),
                        format!(
                            "`{outer}` is handed a generator but calls `{name}` with generator=None, so its `{draw}` draws from each rank's global RNG instead: the order every rank must agree on (split by world size) is the same on all ranks only while their global RNGs happen to be in step, which the generator the sampler is given (and Accelerate synchronises) does not guarantee"
                        ),
                    );
                    d.label(code.file(m), call.span, "drops the generator here");
                    d.unsafe_fix(
                        "pass the generator on",
                        vec![crate::edit::replace(code.file(m), none.span, "generator")],
                    );
                    d.help("pass the generator on (`generator=generator`); where two shuffles must differ, derive a second generator from it");
                }
            }
        }
    }
}

fn has_param(prog: &Program, f: FuncId, names: &[&str]) -> bool {
    prog.func(f)
        .is_some_and(|x| x.params.iter().any(|p| names.contains(&p.name.as_str())))
}

/// The torch draw in `g` that uses its `generator` parameter
/// (`torch.randperm(n, generator=generator)`), shown as written.
fn draws_with_generator(prog: &Program, g: FuncId) -> Option<String> {
    if !has_param(prog, g, &["generator"]) {
        return None;
    }
    let scope = g.scope();
    let mut found = None;
    prog.walk_exprs(scope, &mut |_, e| {
        if found.is_some() {
            return;
        }
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return;
        };
        let passes = args
            .iter()
            .any(|a| matches!(a, Arg::Kw { name, value, .. } if name == "generator" && matches!(&value.kind, ExprKind::Name(n) if n == "generator")));
        if !passes {
            return;
        }
        if let Some(p) = prog.external(scope, func) {
            if matches!(
                p.as_str(),
                "torch.randperm" | "torch.randint" | "torch.rand" | "torch.randn" | "torch.multinomial"
            ) {
                found = Some(p);
            }
        }
    });
    found
}
