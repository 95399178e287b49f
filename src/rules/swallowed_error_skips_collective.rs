declare_rule! {
    /// ## What it checks
    /// A `try`/`except` in code that runs once per rank whose handler catches
    /// `OSError` (or a subclass: `FileNotFoundError`, `IOError`, `PermissionError`,
    /// …), `Exception`, `BaseException` or everything, does not re-raise or exit, and
    /// either leaves with `continue`, `break` or `return` past a collective operation
    /// the normal path runs, or guards a `try` body in which a collective follows the
    /// statement that can fail. Collectives: `torch.distributed` operations, a
    /// backward pass of a `DistributedDataParallel`/FSDP model, Determined's
    /// `context.backward`/`step_optimizer`, `core.distributed.*`, Horovod and
    /// Accelerate synchronisation.
    ///
    /// ## Why
    /// A collective completes only when every rank joins it. When a read fails on one
    /// rank only — a missing shard on one node, a flaky mount — and the handler logs
    /// and skips, that rank stops calling the collectives the others are waiting in,
    /// and the whole job hangs until the collective times out. Let the error
    /// propagate, or agree on skipping: record the failure in a flag, `all_reduce` it,
    /// and let every rank take the same decision (handlers that call a collective
    /// themselves, or fall through to one, are left alone).
    ///
    /// ## Example
    /// ```python
    /// for path in my_shards:
    ///     try:
    ///         shard = torch.load(path)
    ///     except OSError:          # warning: `continue` skips loss.backward() (DDP all-reduce)
    ///         log.warning("skipping %s", path)
    ///         continue
    ///     loss = model(shard["x"]).mean()
    ///     loss.backward()
    /// ```
    pub static SWALLOWED_ERROR_SKIPS_COLLECTIVE = {
        code: "T103",
        name: "swallowed-error-skips-collective",
        family: Training,
        severity: Warning,
        summary: "An exception handler lets one rank skip a collective the other ranks enter",
    };
}

use super::training_support::{code, excerpt, Code};
use super::{Cx, Sink};
use crate::training::ast::{Expr, ExprKind, Handler, Stmt, StmtKind};
use crate::training::program::{walk_stmt, Anc, Node, Scope, Sym};
use crate::training::runtime::{self, first_collective};

const OS_ERRORS: &[&str] = &[
    "OSError",
    "IOError",
    "EnvironmentError",
    "FileNotFoundError",
    "PermissionError",
    "IsADirectoryError",
    "NotADirectoryError",
    "TimeoutError",
    "ConnectionError",
    "BlockingIOError",
    "InterruptedError",
];
const BROAD: &[&str] = &["Exception", "BaseException"];

/// What a handler catches.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Caught {
    Io,
    Broad,
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() {
        return;
    }
    let ddp = runtime::data_parallel_model(code.prog, code.rt);
    for scope in code.scopes(&["except"]) {
        if !code.rt.world_at(code.prog, scope.m).distributed() {
            continue;
        }
        let mut found = Vec::new();
        code.prog.walk_stmts(scope, &mut |anc, s| {
            let StmtKind::Try { body, handlers, .. } = &s.kind else {
                return;
            };
            for h in handlers {
                let Some(caught) = caught(&code, scope, h) else {
                    continue;
                };
                if reraises(&code, scope, &h.body) || first_collective(code.prog, scope, &h.body, ddp, 1).is_some() {
                    continue;
                }
                if let Some(hit) = skipped(&code, scope, anc, s, body, h, caught, ddp) {
                    found.push((h.keyword, hit));
                    break;
                }
            }
        });
        for (at, (exc, exit, skipped_scope, call, label)) in found {
            let d = out.at_loc(
                code.loc(scope.m, at),
                format!("this handler swallows {exc} and {exit}, skipping `{}` on this rank while the other ranks wait in it", excerpt(&label)),
            );
            d.help("let the error propagate, or agree on skipping: record the failure in a flag, all_reduce it, and let every rank take the same decision");
            d.label(code.file(skipped_scope.m), call.span, "the collective this rank skips");
        }
    }
}

fn caught(code: &Code<'_>, scope: Scope, h: &Handler) -> Option<(Caught, String)> {
    let Some(types) = &h.types else {
        return Some((Caught::Broad, "every exception".to_string()));
    };
    let items: Vec<&Expr> = match &types.kind {
        ExprKind::Tuple(items) => items.iter().collect(),
        _ => vec![types],
    };
    let mut best: Option<(Caught, String)> = None;
    for t in items {
        let name = match code.prog.expr_sym(scope, t) {
            Some(Sym::External(p)) => p.rsplit('.').next().unwrap_or("").to_string(),
            Some(_) => continue,
            None => match &t.kind {
                ExprKind::Name(n) => n.clone(),
                ExprKind::Attribute { attr, .. } => attr.clone(),
                _ => continue,
            },
        };
        if BROAD.contains(&name.as_str()) {
            return Some((Caught::Broad, format!("`{name}`")));
        }
        if OS_ERRORS.contains(&name.as_str()) && best.is_none() {
            best = Some((Caught::Io, format!("`{name}`")));
        }
    }
    best
}

/// Whether a handler raises or ends the process on some path.
fn reraises(code: &Code<'_>, scope: Scope, body: &[Stmt]) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    for s in body {
        walk_stmt(s, &mut stack, &mut |_, n| match n {
            Node::Stmt(st) if matches!(st.kind, StmtKind::Raise(_)) => found = true,
            Node::Expr(e) => {
                if let ExprKind::Call { func, .. } = &e.kind {
                    if let Some(p) = code.prog.external(scope, func) {
                        if matches!(p.as_str(), "sys.exit" | "os._exit" | "builtins.exit" | "os.abort") {
                            found = true;
                        }
                    }
                    if let ExprKind::Name(n) = &func.kind {
                        if n == "exit" || n == "quit" {
                            found = true;
                        }
                    }
                }
            }
            _ => {}
        });
    }
    found
}

type Hit<'p> = (String, String, Scope, &'p Expr, String);

/// The collective a handler makes this rank skip, with what it catches and
/// how it leaves.
#[allow(clippy::too_many_arguments)]
fn skipped<'p>(
    code: &Code<'p>,
    scope: Scope,
    anc: &[Anc<'p>],
    try_stmt: &'p Stmt,
    body: &'p [Stmt],
    h: &'p Handler,
    (caught, exc): (Caught, String),
    ddp: bool,
) -> Option<Hit<'p>> {
    let prog = code.prog;
    // (b) a collective after the first statement that can raise.
    let mut armed = false;
    for s in body {
        if !armed && can_raise(code, scope, s, caught) {
            armed = true;
            // The collective may be in this statement, after the call.
            if let Some((cs, call, c)) = first_collective(prog, scope, std::slice::from_ref(s), ddp, 2) {
                if call.span.start > first_raising_call(code, scope, s, caught).unwrap_or(usize::MAX) {
                    return Some((exc, "jumps past the rest of the try block".into(), cs, call, c.label));
                }
            }
            continue;
        }
        if armed {
            if let Some((cs, call, c)) = first_collective(prog, scope, std::slice::from_ref(s), ddp, 2) {
                return Some((exc, "jumps past the rest of the try block".into(), cs, call, c.label));
            }
        }
    }
    if !armed {
        return None;
    }
    // (a) the handler leaves the block.
    let last = h.body.last()?;
    let (exit, region) = match &last.kind {
        StmtKind::Continue => ("continues the loop", rest_of_loop(anc, try_stmt)?),
        StmtKind::Break => ("leaves the loop", loop_body(anc)?),
        StmtKind::Return(_) => ("returns", rest_of_function(prog.body(scope), anc, try_stmt)),
        _ => return None,
    };
    for stmts in region {
        if let Some((cs, call, c)) = first_collective(prog, scope, stmts, ddp, 2) {
            return Some((exc, exit.to_string(), cs, call, c.label));
        }
    }
    None
}

/// I/O calls an `OSError` comes from.
fn io_call(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    let ExprKind::Call { func, .. } = &e.kind else {
        return false;
    };
    if let Some(p) = code.prog.external(scope, func) {
        return p == "builtins.open"
            || p == "torch.load"
            || p == "torch.save"
            || p.starts_with("os.")
            || p.starts_with("shutil.")
            || p.starts_with("numpy.load")
            || p.starts_with("pickle.")
            || p.starts_with("json.load")
            || p.starts_with("PIL.Image.open")
            || p.starts_with("safetensors")
            || p.starts_with("h5py")
            || p.starts_with("pandas.read_")
            || p.starts_with("urllib.")
            || p.starts_with("requests.");
    }
    match &func.kind {
        ExprKind::Attribute { attr, .. } => matches!(
            attr.as_str(),
            "read_text"
                | "read_bytes"
                | "write_text"
                | "write_bytes"
                | "open"
                | "load"
                | "read"
                | "mkdir"
                | "unlink"
                | "stat"
                | "iterdir"
        ),
        // A function of the training code may do I/O.
        _ => matches!(code.prog.callee(scope, func), crate::training::program::Callee::Func(_)),
    }
}

/// The start of the first call in `s` that can raise the caught type.
fn first_raising_call(code: &Code<'_>, scope: Scope, s: &Stmt, caught: Caught) -> Option<usize> {
    let mut at = None;
    let mut stack = Vec::new();
    walk_stmt(s, &mut stack, &mut |_, n| {
        if at.is_some() {
            return;
        }
        if let Node::Expr(e) = n {
            let hit = match caught {
                Caught::Broad => matches!(e.kind, ExprKind::Call { .. }),
                Caught::Io => io_call(code, scope, e),
            };
            if hit {
                at = Some(e.span.end);
            }
        }
    });
    at
}

fn can_raise(code: &Code<'_>, scope: Scope, s: &Stmt, caught: Caught) -> bool {
    first_raising_call(code, scope, s, caught).is_some()
}

/// The statements after `stmt` up to the end of the innermost enclosing
/// loop's body (what `continue` skips).
fn rest_of_loop<'p>(anc: &[Anc<'p>], stmt: &'p Stmt) -> Option<Vec<&'p [Stmt]>> {
    let mut out = Vec::new();
    let mut child: *const Stmt = stmt;
    for a in anc.iter().rev() {
        let Anc::Stmt(s) = a else { continue };
        let blocks: Vec<&'p [Stmt]> = blocks_of(s);
        for b in &blocks {
            if let Some(i) = b.iter().position(|x| std::ptr::eq(x, child)) {
                out.push(&b[i + 1..]);
            }
        }
        if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. }) {
            return Some(out);
        }
        child = *s;
    }
    None
}

/// The body of the innermost enclosing loop (what `break` skips in later
/// iterations).
fn loop_body<'p>(anc: &[Anc<'p>]) -> Option<Vec<&'p [Stmt]>> {
    anc.iter().rev().find_map(|a| match a {
        Anc::Stmt(s) => match &s.kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => Some(vec![body.as_slice()]),
            _ => None,
        },
        _ => None,
    })
}

/// The statements after `stmt` to the end of the function, and the bodies
/// of the loops around it (what `return` skips).
fn rest_of_function<'p>(top: &'p [Stmt], anc: &[Anc<'p>], stmt: &'p Stmt) -> Vec<&'p [Stmt]> {
    let mut out = Vec::new();
    let mut child: *const Stmt = stmt;
    for a in anc.iter().rev() {
        let Anc::Stmt(s) = a else { continue };
        for b in blocks_of(s) {
            if let Some(i) = b.iter().position(|x| std::ptr::eq(x, child)) {
                out.push(&b[i + 1..]);
            }
        }
        if let StmtKind::For { body, .. } | StmtKind::While { body, .. } = &s.kind {
            out.push(body.as_slice());
        }
        child = *s;
    }
    if let Some(i) = top.iter().position(|x| std::ptr::eq(x, child)) {
        out.push(&top[i + 1..]);
    }
    out
}

fn blocks_of(s: &Stmt) -> Vec<&[Stmt]> {
    match &s.kind {
        StmtKind::If { body, orelse, .. }
        | StmtKind::For { body, orelse, .. }
        | StmtKind::While { body, orelse, .. } => {
            vec![body, orelse]
        }
        StmtKind::With { body, .. } => vec![body],
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            let mut v: Vec<&[Stmt]> = vec![body, orelse, finalbody];
            v.extend(handlers.iter().map(|h| h.body.as_slice()));
            v
        }
        _ => Vec::new(),
    }
}
