//! T103 (`swallowed-error-skips-collective`) on a Lightning
//! `training_step` that returns None for this rank's batch: from a handler
//! that swallows the error of computing the loss (`except Exception: return
//! None`), on a non-finite loss (`if torch.isnan(loss): return None`), or on
//! a test of the batch itself (`if batch is None: return`, after a collate
//! that drops the samples it cannot read).
//! Under automatic optimization Lightning then skips the backward and the
//! optimizer step of that batch on this rank, while the other ranks of a
//! multi-device Trainer enter the DDP gradient all-reduce of theirs and wait.
//!
//! The module's own programs may not show the Trainer that fits it: a
//! model class a config names is built by `instantiate` in a script that
//! never imports it, and a prediction script may import it beside. Its
//! `training_step` runs only under `fit`, so the module is taken to be
//! trained by the code's Trainer when one of its Trainers runs ranks.
//!
//! Silent where the module optimizes by hand (`automatic_optimization =
//! False`: its own `manual_backward` is what a skip passes, and the general
//! handler check reads that), where the Trainer runs one process, where the
//! value tested was reduced across ranks first, where the step returns None
//! on a test every rank shares (the global step), and outside `training_step`.

use super::skipped_nonfinite::{agreed, names_in, nonfinite_test};
use super::swallowed_error_skips_collective::{caught, swallowing_path};
use super::training_support::{excerpt, Code};
use super::Sink;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{walk_stmt, Anc, ClassId, Node};
use crate::training::runtime;

pub(super) fn lightning_step_skips(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    for (scope, k) in code.lightning_training_steps() {
        let Some(f) = scope.func() else { continue };
        if optimizes_by_hand(code, k) {
            continue;
        }
        // Run by a multi-rank program, or trained where the programs do not
        // show it (a model class a config names) by the code's Trainer,
        // when one of its Trainers runs ranks.
        let world = code.rt.world_at(prog, scope.m);
        if !world.distributed() && !runtime::lightning_ranks_anywhere(prog) {
            continue;
        }
        let body = prog.body(scope);
        // The step's normal path hands Lightning a loss.
        if !body.iter().any(returns_value) {
            continue;
        }
        let others = match world {
            runtime::World::Ranks(Some(n)) if n > 1 => format!("the other {} ranks", n - 1),
            _ => "the other ranks".to_string(),
        };
        // The step's batch parameter (`def training_step(self, batch,
        // batch_idx)`): each rank's own batch.
        let batch_param = prog
            .func(f)
            .and_then(|x| x.params.get(1))
            .map(|p| p.name.clone())
            .filter(|n| !n.contains("idx"));
        let mut hits: Vec<(crate::source::Span, String, &Stmt)> = Vec::new();
        prog.walk_stmts(scope, &mut |anc, s| match &s.kind {
            StmtKind::Try { handlers, .. } => {
                for h in handlers {
                    let Some((_, exc)) = caught(code, scope, h) else { continue };
                    let Some((path, _)) = swallowing_path(code, scope, h) else { continue };
                    if let Some(ret) = path.last().filter(|r| returns_none(r)) {
                        hits.push((h.keyword, format!("this handler swallows {exc} and returns None from `training_step`"), ret));
                        break;
                    }
                }
            }
            StmtKind::If { test, body, .. } => {
                if anc.iter().any(|a| matches!(a, Anc::Stmt(p) if matches!(p.kind, StmtKind::For { .. } | StmtKind::While { .. }))) {
                    return;
                }
                let Some(ret) = body.last().filter(|r| returns_none(r)) else { return };
                let head = code.first_line(scope.m, s.span);
                if let Some(value) = nonfinite_test(code, scope, test) {
                    if !agreed(code, scope, value, s) {
                        let what = excerpt(code.text(scope.m, value.span));
                        hits.push((
                            head,
                            format!("`{what}` is this rank's own loss, and a non-finite one returns None from `training_step`"),
                            ret,
                        ));
                    }
                    return;
                }
                // A test of the batch this rank drew (`if batch is None:
                // return`, after a collate that drops unreadable samples).
                if let Some(name) = batch_param.as_deref() {
                    if names_in(test).iter().any(|n| n == name) {
                        hits.push((
                            head,
                            format!("`{}` tests the batch this rank drew, and returns None from `training_step` when it holds",
                                excerpt(code.text(scope.m, test.span))),
                            ret,
                        ));
                    }
                }
            }
            _ => {}
        });
        for (at, lead, ret) in hits {
            let d = out.at_loc(
                code.loc(scope.m, at),
                format!("{lead}: Lightning then skips this batch's backward and optimizer step on this rank only, while {others} run theirs and wait in the DDP gradient all-reduce, and the job hangs until the collective times out"),
            );
            d.help("keep the step on every rank: return a zero loss that still reaches the parameters (`return out.sum() * 0.0`), or let the error propagate; to skip a batch everywhere, all_reduce a skip flag first");
            d.label(code.file(scope.m), ret.span, "where this rank skips its backward");
        }
    }
}

/// Whether the module may turn automatic optimization off: it stores
/// something other than `True` in `automatic_optimization` (`self.
/// automatic_optimization = False`, a flag of its own), or defines it
/// (a property returning False). `= True` keeps Lightning's backward.
fn optimizes_by_hand(code: &Code<'_>, k: ClassId) -> bool {
    let prog = code.prog;
    let Some(class) = prog.class(k) else { return true };
    let text = code.text(k.m, class.span);
    let mut rest = text;
    while let Some(at) = rest.find("automatic_optimization") {
        let after = rest[at + "automatic_optimization".len()..].trim_start();
        let kept_on = after
            .strip_prefix('=')
            .is_some_and(|v| !v.starts_with('=') && v.trim_start().starts_with("True"));
        if !kept_on {
            return true;
        }
        rest = &rest[at + "automatic_optimization".len()..];
    }
    false
}

/// `return None` or a bare `return`.
fn returns_none(s: &Stmt) -> bool {
    matches!(
        &s.kind,
        StmtKind::Return(None)
            | StmtKind::Return(Some(Expr {
                kind: ExprKind::None,
                ..
            }))
    )
}

/// Whether `s` (or a statement inside it) returns something other than None.
fn returns_value(s: &Stmt) -> bool {
    let mut found = false;
    walk_stmt(s, &mut Vec::new(), &mut |_, n| {
        if let Node::Stmt(Stmt {
            kind: StmtKind::Return(Some(e)),
            ..
        }) = n
        {
            found |= !matches!(e.kind, ExprKind::None);
        }
    });
    found
}
