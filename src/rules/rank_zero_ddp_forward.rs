//! T104 (`rank-conditional-collective`) on a forward pass of a
//! `DistributedDataParallel` model that only some ranks run: `model(x)` under
//! `if rank == 0:` (a validation or sampling pass on the chief, the logging
//! of a NaN loss), directly or in a helper called only there. A DDP forward
//! is a collective when the wrapper broadcasts the module's buffers from
//! rank 0 first (`broadcast_buffers=True`, the default; BatchNorm running
//! statistics are such buffers): the one rank then waits in that broadcast
//! for ranks that never come. Calling the wrapped module (`model.module(x)`)
//! runs the same forward without it.
//!
//! Silent where the forward runs with gradients off (`with torch.no_grad():`,
//! `@torch.no_grad()`): DDP then broadcasts the buffers at most once and
//! skips that rank's next broadcast, so the counts still match. Silent where
//! the wrapper is made with `broadcast_buffers=False` (or a
//! value not known to be true), where the wrapped module has nothing to
//! broadcast as far as the code shows (a class of the training code whose
//! file uses no batch norm and registers no buffer; an unknown module), where
//! the forward runs on every rank, and for the wrapped module itself.

use super::training_support::{excerpt, Code};
use super::Sink;
use crate::training::ast::{Expr, ExprKind};
use crate::training::program::{Anc, Flow, FuncId, ModId, Scope, SAME_MODULE};
use crate::training::runtime::{self, kw};

/// What a DDP forward on one rank does to the job.
const BROADCAST_WAIT: &str = "DDP broadcasts the module's buffers (BatchNorm statistics) from rank 0 at the start of a forward, so this rank waits in that broadcast for ranks that never run it, and the job hangs until the collective times out";

pub(super) fn one_rank_forwards(code: &Code<'_>, out: &mut Sink<'_>) {
    let prog = code.prog;
    let mut reported: std::collections::HashSet<(ModId, usize)> = Default::default();
    for (scope, anc, wrap, _) in runtime::calls(prog, &["torch.nn.parallel.DistributedDataParallel"]) {
        if !code.rt.world_at(prog, scope.m).distributed() {
            continue;
        }
        let ExprKind::Call { args, .. } = &wrap.kind else {
            continue;
        };
        // `broadcast_buffers=False`, or a value not known to be true (a
        // flag the run's config file may set counts as the project's files
        // and the flag's default say: timm's `not args.no_ddp_bb`).
        let known_true = |v: &Expr| {
            runtime::constant_or_default(prog, code.cfg, code.rt, scope, v)
                .filter(|r| r.default_at.is_none())
                .and_then(|r| r.as_bool())
                == Some(true)
        };
        if kw(args, "broadcast_buffers").is_some_and(|v| !known_true(v)) {
            continue;
        }
        // Nothing to broadcast: a module of the training code's own classes
        // where that code registers no buffer and uses no batch norm.
        let Some(module) = kw(args, "module").or_else(|| runtime::pos(args, 0)) else {
            continue;
        };
        if !may_have_buffers(code, scope, module) {
            continue;
        }
        for (s, call, a) in forward_calls(code, scope, anc, wrap) {
            let ExprKind::Call { func, .. } = &call.kind else {
                continue;
            };
            // With gradients off, the forward leaves DDP's
            // `require_forward_param_sync` false: the first such forward on
            // the one rank broadcasts the buffers once, and that rank's next
            // training forward skips its broadcast, so the counts still
            // match (the one broadcast pairs with the other ranks' next
            // step). Not a hang stagec can be sure of.
            if grad_disabled(code, s, &a) {
                continue;
            }
            if !runtime::runs_on_one_rank(prog, s, &a, call as *const Expr as *const ()) {
                // A helper that runs the forward on every rank (a model
                // class's `net_forward()`, used by its training step), called
                // through a path only one rank takes (`if rank == 0:
                // model.test()`): reported at that call.
                for (site_scope, site) in one_rank_callers(code, s) {
                    if !reported.insert((site_scope.m, site.span.start)) {
                        continue;
                    }
                    let ExprKind::Call { func: site_func, .. } = &site.kind else {
                        continue;
                    };
                    let called = excerpt(code.text(site_scope.m, site_func.span));
                    let name = excerpt(code.text(s.m, func.span));
                    let d = out.at_loc(
                        code.loc(site_scope.m, site.span),
                        format!(
                            "`{called}(…)` runs on one rank only and reaches a DistributedDataParallel forward (`{name}(…)`): {BROADCAST_WAIT}"
                        ),
                    );
                    d.help(format!(
                        "on the one rank, call the wrapped module (`{name}.module(…)`), which runs the same forward without DDP's collectives, or run this call on every rank"
                    ));
                    d.label(code.file(s.m), call.span, "the DDP forward this call reaches");
                    d.label(code.file(scope.m), wrap.span, "wrapped here, broadcasting buffers");
                }
                continue;
            }
            if !reported.insert((s.m, call.span.start)) {
                continue;
            }
            let name = excerpt(code.text(s.m, func.span));
            let d = out.at_loc(
                code.loc(s.m, call.span),
                format!("`{name}(…)` is a DistributedDataParallel forward run on one rank only: {BROADCAST_WAIT}"),
            );
            d.help(format!(
                "call the wrapped module on the one rank (`{name}.module(…)`), which runs the same forward without DDP's collectives"
            ));
            d.label(code.file(scope.m), wrap.span, "wrapped here, broadcasting buffers");
            // In a helper only one rank calls (`validate(model)` under `if
            // rank == 0:`): where it is called.
            if !runtime::one_rank_path(prog, s, &a, call as *const Expr as *const ()) {
                if let Some(f) = s.func() {
                    for (cs, site) in prog.call_sites(f).into_iter().take(3) {
                        d.label(code.file(cs.m), site.span, "called on one rank only, here");
                    }
                }
            }
            d.unsafe_fix(
                "call the wrapped module",
                vec![crate::edit::replace(
                    code.file(s.m),
                    func.span,
                    format!("{}.module", code.text(s.m, func.span)),
                )],
            );
        }
    }
}

/// Whether code at `anc` in `scope` runs with gradients off: inside `with
/// torch.no_grad():`, `torch.inference_mode()` or
/// `torch.set_grad_enabled(False)`, or in a function decorated with
/// `@torch.no_grad()` or `@torch.inference_mode()`.
pub(super) fn grad_disabled(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>]) -> bool {
    use crate::training::ast::StmtKind;
    let prog = code.prog;
    let off = |e: &Expr| {
        let (callee, args) = match &e.kind {
            ExprKind::Call { func, args, .. } => (&**func, Some(args)),
            _ => (e, None),
        };
        match prog.external(scope, callee).as_deref() {
            Some(
                "torch.no_grad"
                | "torch.inference_mode"
                | "torch.autograd.no_grad"
                | "torch.autograd.grad_mode.no_grad",
            ) => {
                // `inference_mode(False)` turns it back on.
                args.and_then(|a| runtime::pos(a, 0).or_else(|| kw(a, "mode")))
                    .is_none_or(|v| !matches!(v.kind, ExprKind::Bool(false)))
            }
            Some("torch.set_grad_enabled") => args
                .and_then(|a| runtime::pos(a, 0))
                .is_some_and(|v| matches!(v.kind, ExprKind::Bool(false))),
            _ => false,
        }
    };
    let in_block = anc.iter().any(|a| match a {
        Anc::Stmt(st) => match &st.kind {
            StmtKind::With { items, .. } => items.iter().any(|i| off(&i.ctx)),
            _ => false,
        },
        _ => false,
    });
    in_block
        || scope
            .func()
            .and_then(|f| prog.func(f))
            .is_some_and(|f| f.decorators.iter().any(off))
}

/// The calls of the function holding `scope` that run on one rank only (on
/// a one-rank path of their own function), found up to three callers up:
/// `model.test()` under `if rank == 0:`, where `test()` calls the helper
/// that runs the forward. Functions called from more than a few places are
/// not followed.
fn one_rank_callers<'p>(code: &Code<'p>, scope: Scope) -> Vec<(Scope, &'p Expr)> {
    let prog = code.prog;
    let mut out = Vec::new();
    let mut work: Vec<(Scope, u32)> = vec![(scope, 0)];
    let mut seen: std::collections::HashSet<Scope> = Default::default();
    while let Some((s, depth)) = work.pop() {
        let Some(f) = s.func() else { continue };
        if !seen.insert(s) || seen.len() > 16 {
            continue;
        }
        let sites = prog.call_sites(f);
        if sites.len() > 8 {
            continue;
        }
        for (cs, call) in sites {
            if !code.rt.world_at(prog, cs.m).distributed() {
                continue;
            }
            let Some(anc) = prog.ancestors_of(cs, call) else {
                continue;
            };
            // Called with gradients off (`with torch.no_grad():
            // self.net_forward()` in a model class's `test()`): the forward
            // below broadcasts at most once on this path.
            if grad_disabled(code, cs, &anc) {
                continue;
            }
            if runtime::one_rank_path(prog, cs, &anc, call as *const Expr as *const ()) {
                // `if rank == 0: train(…, log=True) else: train(…)`: every
                // rank calls it.
                if !other_arm_calls(code, cs, &anc, call, f) {
                    out.push((cs, call));
                }
            } else if depth < 2 {
                work.push((cs, depth + 1));
            }
        }
    }
    out
}

/// The calls of the wrapper `wrap` (and of what its `.to(device)`,
/// `.cuda()`, `.train()` return: the same module), a few steps deep.
fn forward_calls<'p>(
    code: &Code<'p>,
    scope: Scope,
    anc: Vec<Anc<'p>>,
    wrap: &'p Expr,
) -> Vec<(Scope, &'p Expr, Vec<Anc<'p>>)> {
    let mut calls = Vec::new();
    let mut work = vec![(scope, anc, wrap)];
    let mut steps = 0;
    while let Some((s0, a0, e0)) = work.pop() {
        steps += 1;
        if steps > 8 {
            break;
        }
        code.prog.flows(s0, &a0, e0, &|_, _| false, &mut |flow| match flow {
            Flow::Called { scope, call, anc } => calls.push((scope, call, anc)),
            Flow::Method { scope, call, name, anc } if SAME_MODULE.contains(&name) => {
                work.push((scope, anc, call));
            }
            _ => {}
        });
    }
    calls
}

/// Whether the module DDP wraps may hold buffers: built by an outside
/// constructor (a torchvision or timm model, a `transformers` model, whose
/// layers are not known here), or by a class or factory of the training code
/// whose file uses batch norm or registers buffers. Unknown modules count as
/// having none.
fn may_have_buffers(code: &Code<'_>, scope: Scope, module: &Expr) -> bool {
    buffers_of(code, scope, module, &mut Vec::new()) == Some(true)
}

/// [`may_have_buffers`], `None` where a source is not known: a name bound
/// from another (`network = network.to(device)` of a parameter) is
/// followed a few steps.
fn buffers_of(code: &Code<'_>, scope: Scope, module: &Expr, seen: &mut Vec<*const Expr>) -> Option<bool> {
    use crate::training::program::Callee;
    let prog = code.prog;
    let sources = prog.sources(scope, module);
    if sources.unknown || sources.terms.is_empty() {
        return None;
    }
    let own_buffers = |m: crate::training::program::ModId| {
        let words = [
            "BatchNorm1d",
            "BatchNorm2d",
            "BatchNorm3d",
            "SyncBatchNorm",
            "BatchNorm",
            "register_buffer",
            "running_mean",
        ];
        let found = prog.chunks_mentioning(m, &words).next().is_some();
        found
    };
    let mut any = false;
    for t in &sources.terms {
        // `Net().cuda()`, `Net().to(device)`: the module itself.
        let mut e = t.expr;
        while let ExprKind::Call { func, .. } = &e.kind {
            match &func.kind {
                ExprKind::Attribute { value, attr } if SAME_MODULE.contains(&attr.as_str()) => e = value,
                _ => break,
            }
        }
        let ExprKind::Call { func, .. } = &e.kind else {
            // `network.to(device)` of a name bound elsewhere.
            if seen.contains(&(e as *const Expr)) {
                continue;
            }
            if seen.len() < 4 && t.proj.is_empty() && matches!(e.kind, ExprKind::Name(_) | ExprKind::Attribute { .. }) {
                seen.push(e);
                any |= buffers_of(code, t.scope, e, seen)?;
                continue;
            }
            return None;
        };
        any |= match prog.callee(t.scope, func) {
            // The name's other binding, the wrapper itself
            // (`model = DDP(model)`): what it wraps is the other term.
            Callee::External(p) if p == "torch.nn.parallel.DistributedDataParallel" => false,
            Callee::External(p) => !p.starts_with("builtins."),
            Callee::Class(k) => own_buffers(k.m),
            Callee::Func(f) => own_buffers(f.m),
            _ => false,
        };
    }
    Some(any)
}

/// Whether an `if` around `call` (ancestors `anc`) calls `f` in its other
/// arm too.
fn other_arm_calls(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], call: &Expr, f: FuncId) -> bool {
    use crate::training::ast::{Stmt, StmtKind};
    use crate::training::program::{walk_stmt, Callee, Node};
    let prog = code.prog;
    let calls_f = |stmts: &[Stmt]| {
        let mut found = false;
        let mut stack = Vec::new();
        for st in stmts {
            walk_stmt(st, &mut stack, &mut |_, n| {
                if let Node::Expr(e) = n {
                    if let ExprKind::Call { func, .. } = &e.kind {
                        found |= prog.callee(scope, func) == Callee::Func(f);
                    }
                }
            });
        }
        found
    };
    let mut child: *const () = call as *const Expr as *const ();
    for a in anc.iter().rev() {
        match a {
            Anc::Stmt(s) => {
                if let StmtKind::If { body, orelse, .. } = &s.kind {
                    let in_body = body.iter().any(|b| std::ptr::eq(b as *const Stmt as *const (), child));
                    let in_else = orelse
                        .iter()
                        .any(|b| std::ptr::eq(b as *const Stmt as *const (), child));
                    if (in_body && calls_f(orelse)) || (in_else && calls_f(body)) {
                        return true;
                    }
                }
                child = *s as *const Stmt as *const ();
            }
            Anc::Expr(e) => child = *e as *const Expr as *const (),
            _ => {}
        }
    }
    false
}
