//! T104 (`rank-conditional-collective`) on a flag a signal handler sets: a
//! handler registered with `signal.signal(SIGUSR2, handler)` (directly, or
//! handed to a helper that registers it) stores into a module-level object
//! (`preemption_flag["flag"] = True`, `global stop; stop = True`), and the
//! training loop tests it (`if preemption_flag["flag"]:`) to run a collective
//! (a distributed checkpoint save, a barrier) or to leave. Each process
//! receives the signal, and reaches the test, on its own: a rank that sees
//! the flag one step before the others enters the save's collectives while
//! they run the next step's, and the job hangs instead of saving.
//!
//! Silent where the test reads anything but the flag itself (a tensor the
//! code all-reduces first, `flag_tensor.item()`), where the branch neither
//! runs a collective nor leaves a loop that runs one, and in single-process
//! code.

use super::rank_conditional_collective::{exits_in, innermost_loop_collects, leaves};
use super::training_support::{excerpt, Code};
use super::Sink;
use crate::training::ast::{Expr, ExprKind, StmtKind};
use crate::training::program::{walk_stmt, Bound, Callee, FuncId, ModId, Node};
use crate::training::runtime::{self, first_collective};

/// Most handlers followed.
const HANDLERS: usize = 8;

pub(super) fn signal_flags(code: &Code<'_>, ddp: bool, out: &mut Sink<'_>) {
    let prog = code.prog;
    let handlers = handlers(code);
    if handlers.is_empty() {
        return;
    }
    // The module-level names each handler stores into.
    let mut flags: Vec<(ModId, String, FuncId)> = Vec::new();
    for h in handlers {
        for n in stored_globals(code, h) {
            if !flags.iter().any(|(m, x, _)| *m == h.m && *x == n) {
                flags.push((h.m, n, h));
            }
        }
    }
    for (m, name, handler) in flags {
        if !code.rt.world_at(prog, m).distributed() {
            continue;
        }
        let words = [name.as_str()];
        for c in prog.chunks_with_words(m, &words) {
            for scope in prog.scopes(m, c) {
                if scope.func().is_some_and(|f| f == handler) {
                    continue;
                }
                // The flag is the module's own object here, not a local.
                if scope.func().is_some_and(|f| prog.is_local(f, &name)) {
                    continue;
                }
                prog.walk_stmts(scope, &mut |anc, st| {
                    let StmtKind::If { test, body, .. } = &st.kind else {
                        return;
                    };
                    if !reads_flag(test, &name) {
                        return;
                    }
                    let collective = first_collective(prog, scope, body, ddp, 2);
                    let leaves_collecting_loop = collective.is_none()
                        && (leaves(body) || exits_in(prog, scope, body))
                        && innermost_loop_collects(code, scope, anc, ddp);
                    if collective.is_none() && !leaves_collecting_loop {
                        return;
                    }
                    let handler_name = prog.func(handler).map_or(String::new(), |f| f.name.clone());
                    let head = code.first_line(scope.m, st.span);
                    let (what, label) = match &collective {
                        Some((cs, call, c)) => (
                            format!("runs `{}` ({})", excerpt(code.text(cs.m, call.span)), c.label),
                            Some((*cs, call.span)),
                        ),
                        None => ("leaves the loop whose steps run collectives".to_string(), None),
                    };
                    let d = out.at_loc(
                        code.loc(scope.m, head),
                        format!(
                            "`{}` tests a flag the signal handler `{handler_name}` sets in each process on its own, and its branch {what}: a rank that sees the signal one step before the others does this while they run the next step's collectives, and the job hangs instead of stopping cleanly",
                            excerpt(code.text(scope.m, head))
                        ),
                    );
                    d.help("agree on the flag before acting on it: put it in a tensor, all_reduce it with MAX (every step, or every few steps on all ranks alike), and test the result");
                    if let Some((cs, span)) = label {
                        d.label(code.file(cs.m), span, "the collective only the ranks that saw the flag run");
                    }
                    d.label(code.file(handler.m), prog.scope_span(handler.scope()), "sets the flag when its process receives the signal");
                });
            }
        }
    }
}

/// The training-code functions registered as signal handlers:
/// `signal.signal(sig, handler)`, or a helper's parameter registered so
/// (`init_signal_handler(set_flag)` → `signal.signal(SIGUSR2, callable)`).
fn handlers(code: &Code<'_>) -> Vec<FuncId> {
    let prog = code.prog;
    let mut out = Vec::new();
    for (scope, _, call, _) in runtime::calls(prog, &["signal.signal"]) {
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        let Some(h) = runtime::pos(args, 1).or_else(|| runtime::kw(args, "handler")) else {
            continue;
        };
        match prog.callee(scope, h) {
            Callee::Func(f) => out.push(f),
            _ => {
                // A parameter of the registering helper: what its calls pass.
                let (ExprKind::Name(n), Some(g)) = (&h.kind, scope.func()) else {
                    continue;
                };
                let Some(index) = prog.func(g).and_then(|x| x.params.iter().position(|p| p.name == *n)) else {
                    continue;
                };
                for (s2, site) in prog.call_sites(g) {
                    if let Bound::Given(e) = prog.bind(g, site, index) {
                        if let Callee::Func(f) = prog.callee(s2, e) {
                            out.push(f);
                        }
                    }
                }
            }
        }
        if out.len() >= HANDLERS {
            break;
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The module-level names a handler stores into: `name[…] = …`,
/// `name.attr = …`, or `name = …` under `global name`.
fn stored_globals(code: &Code<'_>, h: FuncId) -> Vec<String> {
    let prog = code.prog;
    let Some(func) = prog.func(h) else { return Vec::new() };
    // `global stop, flag` lines of the handler (the parser keeps no
    // `global` statement).
    let body = match (func.body.first(), func.body.last()) {
        (Some(a), Some(b)) => crate::source::Span::new(a.span.start, b.span.end),
        _ => return Vec::new(),
    };
    let globals: Vec<String> = code
        .text(h.m, body)
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("global "))
        .flat_map(|rest| {
            let names = rest.split('#').next().unwrap_or("");
            names.split(',').map(|n| n.trim().to_string()).collect::<Vec<_>>()
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut stack = Vec::new();
    for s in &func.body {
        walk_stmt(s, &mut stack, &mut |_, n| {
            let Node::Stmt(st) = n else { return };
            let StmtKind::Assign { targets, .. } = &st.kind else {
                return;
            };
            for t in targets {
                let base = match &t.kind {
                    ExprKind::Subscript { value, .. } | ExprKind::Attribute { value, .. } => match &value.kind {
                        ExprKind::Name(b) if !prog.is_local(h, b) => Some(b.clone()),
                        _ => None,
                    },
                    ExprKind::Name(b) if globals.contains(b) => Some(b.clone()),
                    _ => None,
                };
                if let Some(b) = base {
                    if !out.contains(&b) {
                        out.push(b);
                    }
                }
            }
        });
    }
    out
}

/// Whether `test` is a read of the flag itself: `flag`, `flag["k"]`,
/// `flag.attr`, possibly negated or joined with `and`/`or`.
fn reads_flag(test: &Expr, name: &str) -> bool {
    match &test.kind {
        ExprKind::Name(n) => n == name,
        ExprKind::Subscript { value, .. } | ExprKind::Attribute { value, .. } => {
            matches!(&value.kind, ExprKind::Name(n) if n == name)
        }
        ExprKind::Not(operand) => reads_flag(operand, name),
        ExprKind::BoolOp { left, right, .. } => reads_flag(left, name) || reads_flag(right, name),
        _ => false,
    }
}
