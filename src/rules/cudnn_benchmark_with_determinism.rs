declare_rule! {
    /// ## What it checks
    /// An assignment of `True` to `torch.backends.cudnn.benchmark` (any import alias)
    /// in training code that also asks for deterministic results —
    /// `torch.use_deterministic_algorithms(True)`,
    /// `torch.backends.cudnn.deterministic = True` or
    /// `torch.set_deterministic_debug_mode(…)` — where both can hold together: not in
    /// the two arms of one `if`/`else`, and not in a branch whose condition is known
    /// to be false (an unset `--deterministic` flag).
    ///
    /// ## Why
    /// With benchmarking on, cuDNN times several convolution algorithms and keeps the
    /// fastest; timing noise can pick a different one in the next run, and results
    /// then differ between runs even though each algorithm is deterministic. Turn
    /// benchmarking off where results must be reproducible.
    ///
    /// ## Example
    /// ```python
    /// torch.use_deterministic_algorithms(True)
    /// torch.backends.cudnn.benchmark = True       # warning; fix: = False
    /// ```
    pub static CUDNN_BENCHMARK_WITH_DETERMINISM = {
        code: "T108",
        name: "cudnn-benchmark-with-determinism",
        family: Training,
        severity: Warning,
        summary: "cudnn.benchmark = True in code that asks for deterministic results",
    };
}

use super::training_support::{code, Code};
use super::{Cx, Sink};
use crate::source::Span;
use crate::training::ast::{ExprKind, Stmt, StmtKind};
use crate::training::program::{Anc, Scope};
use crate::training::runtime::{self, dead_branch, kw, pos};

/// A statement with its scope and ancestors.
struct Site<'p> {
    scope: Scope,
    anc: Vec<Anc<'p>>,
    stmt: &'p Stmt,
    span: Span,
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    let mut benchmarks: Vec<(Site<'_>, Option<Span>)> = Vec::new();
    let mut requests: Vec<Site<'_>> = Vec::new();
    for scope in code.scopes(&["benchmark", "deterministic"]) {
        code.prog.walk_stmts(scope, &mut |anc, s| match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    let ExprKind::Attribute { value: base, attr } = &t.kind else {
                        continue;
                    };
                    if code.prog.external(scope, base).as_deref() != Some("torch.backends.cudnn") {
                        continue;
                    }
                    let on = runtime::is_true(code.prog, code.cfg, code.rt, scope, value) == Some(true);
                    let site = Site {
                        scope,
                        anc: anc.to_vec(),
                        stmt: s,
                        span: s.span,
                    };
                    match attr.as_str() {
                        "benchmark" if on => {
                            let literal = matches!(value.kind, ExprKind::Bool(true)).then_some(value.span);
                            benchmarks.push((site, literal));
                        }
                        "deterministic" if on => requests.push(site),
                        _ => {}
                    }
                }
            }
            StmtKind::Expr(e) => {
                let ExprKind::Call { func, args, .. } = &e.kind else {
                    return;
                };
                let path = code.prog.external(scope, func);
                let request = match path.as_deref() {
                    Some("torch.use_deterministic_algorithms") => {
                        kw(args, "mode")
                            .or_else(|| pos(args, 0))
                            .and_then(|m| runtime::is_true(code.prog, code.cfg, code.rt, scope, m))
                            == Some(true)
                    }
                    Some("torch.set_deterministic_debug_mode") => {
                        pos(args, 0).or_else(|| kw(args, "debug_mode")).is_some_and(|m| {
                            !matches!(&m.kind, ExprKind::Int(0))
                                && !matches!(&m.kind, ExprKind::Str(s) if s == "default")
                        })
                    }
                    _ => false,
                };
                if request {
                    requests.push(Site {
                        scope,
                        anc: anc.to_vec(),
                        stmt: s,
                        span: e.span,
                    });
                }
            }
            _ => {}
        });
    }
    let live = |site: &Site<'_>| !dead_branch(code.prog, code.cfg, code.rt, site.scope, &site.anc, site.stmt);
    let requests: Vec<&Site<'_>> = requests.iter().filter(|r| live(r)).collect();
    for (b, literal) in &benchmarks {
        if !live(b) {
            continue;
        }
        // A request in a program the assignment runs in too (the
        // experiment's, or a script named on the command line).
        let same = |r: &&&Site<'_>| code.prog.same_program(r.scope.m, b.scope.m);
        let Some(request) = requests.iter().find(|r| same(r) && !exclusive(&code, b, r)) else {
            continue;
        };
        let d = out.at_loc(
            code.loc(b.scope.m, b.span),
            "cudnn.benchmark = True lets cuDNN choose convolution algorithms by timing, so runs can differ, but this code asks for deterministic results",
        );
        d.help("set torch.backends.cudnn.benchmark = False where results must be reproducible");
        d.label(code.file(request.scope.m), request.span, "the determinism request");
        if let Some(span) = literal {
            d.unsafe_fix(
                "turn benchmarking off",
                vec![crate::edit::replace(code.file(b.scope.m), *span, "False")],
            );
        }
    }
}

/// Whether two statements of one scope sit in the two arms of one `if`.
fn exclusive(_code: &Code<'_>, a: &Site<'_>, b: &Site<'_>) -> bool {
    if a.scope != b.scope {
        return false;
    }
    for x in &a.anc {
        let Anc::Stmt(s) = x else { continue };
        let StmtKind::If { body, orelse, .. } = &s.kind else {
            continue;
        };
        if !b.anc.iter().any(|y| matches!(y, Anc::Stmt(t) if std::ptr::eq(*t, *s))) {
            continue;
        }
        let in_arm = |site: &Site<'_>, arm: &[Stmt]| {
            arm.iter().any(|st| std::ptr::eq(st, site.stmt))
                || site
                    .anc
                    .iter()
                    .any(|y| matches!(y, Anc::Stmt(t) if arm.iter().any(|st| std::ptr::eq(st, *t))))
        };
        if (in_arm(a, body) && in_arm(b, orelse)) || (in_arm(a, orelse) && in_arm(b, body)) {
            return true;
        }
    }
    false
}
