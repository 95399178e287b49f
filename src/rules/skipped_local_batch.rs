//! T103 (`swallowed-error-skips-collective`) on a step skipped for what
//! this rank's own batch holds: `if any(len(t) < 1 for t in targets):
//! continue`, `if batch["lengths"].size(0) == 0: continue`, `if x is None:
//! continue`, `if gt.size(-1) < 80: continue` — a test that reads the
//! batch the loop drew from its loader (or a name the loop's body made from
//! it), before a collective the rest of the loop runs (the DDP backward's
//! gradient all-reduce, a loss reduction, a barrier). Each rank draws its
//! own batch, so the rank whose batch passes the test skips the collective
//! while the others wait in it.
//!
//! Silent where the test reads only the loop's counter (`enumerate`'s index,
//! an accumulation step, a resume offset), where what it reads was reduced
//! across ranks first, where the loop runs under a DDP model's `join()`
//! context, where the test is a non-finite check (reported as such by
//! [`super::skipped_nonfinite`]), on one rank's path, and where the loop
//! iterates a `range`, a literal or a name bound to one.

use super::skipped_nonfinite::{
    agreed, ends_in_continue, names_in, nonfinite_test, report_skip, skipped_collective, under_join,
};
use super::training_support::{excerpt, Code};
use super::Sink;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{walk_stmt, Anc, LocalDef, Node, Scope};
use crate::training::runtime;

pub(super) fn batch_skips(code: &Code<'_>, ddp: bool, out: &mut Sink<'_>) {
    let prog = code.prog;
    for scope in code.scopes_with_words(&["continue"]) {
        if !code.rt.world_at(prog, scope.m).distributed() {
            continue;
        }
        let mut hits: Vec<(&Stmt, &Expr, Scope, &Expr, runtime::Collective)> = Vec::new();
        prog.walk_stmts(scope, &mut |anc, s| {
            let StmtKind::If { test, body, .. } = &s.kind else {
                return;
            };
            if !ends_in_continue(body) || nonfinite_test(code, scope, test).is_some() {
                return;
            }
            if !reads_own_batch(code, scope, anc, s, test) {
                return;
            }
            if agreed(code, scope, test, s) || under_join(anc) || joined(code, scope, anc) {
                return;
            }
            if let Some((cs, call, c)) = skipped_collective(code, scope, anc, s, ddp) {
                hits.push((s, test, cs, call, c));
            }
        });
        for (s, test, cs, call, c) in hits {
            let test = excerpt(code.text(scope.m, test.span));
            report_skip(
                code,
                out,
                scope,
                s,
                (cs, call, &c),
                |what, others| format!("`{test}` tests this rank's own batch: a rank whose batch meets it `continue`s past {what} while {others} wait in it, and the job hangs until the collective times out (or the ranks' later collectives pair up wrongly)"),
                "agree before skipping: all_reduce a skip flag and let every rank skip the step together, keep the step on every rank with a zero loss, or filter such samples out of the dataset so no batch needs skipping",
            );
        }
    }
}

/// Whether the test `test` of `s` reads the batch of the innermost loop
/// around `s` (its target, without `enumerate`'s counter), directly or
/// through names the loop's body assigns before `s` (also lists it
/// appends to), and none of what it reads went through a call whose result
/// every rank shares (`accelerator.gather(lengths)` then a clip length made
/// from it). `false` when the loop iterates no loader, or the program
/// shards no samples (every rank may draw the same batches).
fn reads_own_batch(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], s: &Stmt, test: &Expr) -> bool {
    let Some((target, iter, body)) = anc.iter().rev().find_map(|a| match a {
        Anc::Stmt(st) => match &st.kind {
            StmtKind::For { target, iter, body, .. } => Some((target, iter, body)),
            _ => None,
        },
        _ => None,
    }) else {
        return false;
    };
    let prog = code.prog;
    // `enumerate(loader, start)`: the first name is the counter.
    let (iterated, counter) = match &iter.kind {
        ExprKind::Call { func, args, .. } if prog.external(scope, func).as_deref() == Some("builtins.enumerate") => {
            match runtime::pos(args, 0) {
                Some(a) => (a, true),
                None => return false,
            }
        }
        _ => (iter, false),
    };
    let mut batch: Vec<String> = match (&target.kind, counter) {
        (ExprKind::Tuple(items), true) => items.iter().skip(1).flat_map(names_in).collect(),
        (_, true) => return false,
        _ => names_in(target),
    };
    batch.retain(|n| n != "_");
    if batch.is_empty() {
        return false;
    }
    // What each name the body binds before the test is made from, and the
    // names bound from a result every rank shares.
    let mut deps: Vec<(String, Vec<String>)> = Vec::new();
    // The names bound from what a component of the object answers.
    let mut called: Vec<String> = Vec::new();
    let mut shared: Vec<String> = Vec::new();
    let mut stack = Vec::new();
    for b in body {
        if b.span.start >= s.span.start {
            break;
        }
        walk_stmt(b, &mut stack, &mut |_, n| {
            let Node::Stmt(st) = n else { return };
            if st.span.start >= s.span.start {
                return;
            }
            let (targets, value): (Vec<&Expr>, &Expr) = match &st.kind {
                StmtKind::Assign { targets, value } => (targets.iter().collect(), value),
                StmtKind::AugAssign { target, value, .. } => (vec![target], value),
                // `xs.append(e)`, `xs.extend(e)`: the list holds what `e` is.
                StmtKind::Expr(call) => match &call.kind {
                    ExprKind::Call { func, args, .. } if args.len() == 1 => match &func.kind {
                        ExprKind::Attribute { value: list, attr }
                            if matches!(attr.as_str(), "append" | "extend")
                                && matches!(list.kind, ExprKind::Name(_)) =>
                        {
                            match runtime::pos(args, 0) {
                                Some(a) => (vec![&**list], a),
                                None => return,
                            }
                        }
                        _ => return,
                    },
                    _ => return,
                },
                _ => return,
            };
            let used = names_in(value);
            let agreed_value = shares_result(value);
            // A method of a component the object holds
            // (`self.collector.collect_feedback(…)`).
            let from_call = match &value.kind {
                ExprKind::Call { func, .. } => match &func.kind {
                    ExprKind::Attribute { value: holder, .. } => matches!(&holder.kind,
                        ExprKind::Attribute { value: me, .. } if matches!(&me.kind, ExprKind::Name(n) if n == "self")),
                    _ => false,
                },
                _ => false,
            };
            for t in targets {
                if from_call && matches!(st.kind, StmtKind::Assign { .. }) {
                    called.extend(names_in(t));
                }
                for n in names_in(t) {
                    if agreed_value && !shared.contains(&n) {
                        shared.push(n.clone());
                    }
                    deps.push((n, used.clone()));
                }
            }
        });
    }
    // Everything the test reads, back through the body's bindings.
    let mut read: Vec<String> = names_in(test);
    let mut i = 0;
    while i < read.len() && read.len() < 256 {
        let name = read[i].clone();
        for (n, used) in &deps {
            if *n == name {
                for u in used {
                    if !read.contains(u) {
                        read.push(u.clone());
                    }
                }
            }
        }
        i += 1;
    }
    if !read.iter().any(|n| batch.contains(n)) || read.iter().any(|n| shared.contains(n)) {
        return false;
    }
    // `if feedback is None: continue` where `feedback` is what a component
    // answered for the batch (`self.collector.collect_feedback(prompts)`):
    // it may answer None for reasons of its own (an asynchronous collector
    // still filling, the same on every rank), not for what this rank's
    // batch holds.
    if let Some(x) = none_test(test) {
        if !batch.contains(&x.to_string()) && called.iter().any(|n| n == x) {
            return false;
        }
    }
    // A test that asks a helper of the program which runs a collective
    // itself (mmf's `validate_batch_sizes(n)` gathering every rank's size
    // and comparing): its answer is agreed, or at least not this rank's alone.
    if agreed_by_helper(code, scope, test) {
        return false;
    }
    loader_like(code, scope, iterated) && super::unsorted_directory_listing::shards_samples(code, scope.m)
}

/// The name an `x is None` test asks about.
fn none_test(test: &Expr) -> Option<&str> {
    let ExprKind::Compare { left, rest } = &test.kind else {
        return None;
    };
    let [(op, right)] = rest.as_slice() else { return None };
    match (&left.kind, op.as_str(), &right.kind) {
        (ExprKind::Name(x), "is", ExprKind::None) => Some(x),
        _ => None,
    }
}

/// Whether `test` calls a function of the training code that runs a
/// collective (directly or one call further) before it answers.
fn agreed_by_helper(code: &Code<'_>, scope: Scope, test: &Expr) -> bool {
    let prog = code.prog;
    let mut hit = false;
    let mut stack = Vec::new();
    crate::training::program::walk_expr(test, &mut stack, &mut |_, n| {
        if hit {
            return;
        }
        if let Node::Expr(x) = n {
            if let ExprKind::Call { func, .. } = &x.kind {
                if let crate::training::program::Callee::Func(f) = prog.callee(scope, func) {
                    hit = runtime::first_collective(prog, f.scope(), prog.body(f.scope()), false, 1).is_some();
                }
            }
        }
    });
    hit
}

/// Whether an expression calls something whose result every rank shares
/// (a gather, a reduction, a broadcast).
fn shares_result(e: &Expr) -> bool {
    let mut hit = false;
    let mut stack = Vec::new();
    crate::training::program::walk_expr(e, &mut stack, &mut |_, n| {
        if let Node::Expr(x) = n {
            if let ExprKind::Call { func, .. } = &x.kind {
                let name = match &func.kind {
                    ExprKind::Attribute { attr, .. } => attr.as_str(),
                    ExprKind::Name(n) => n.as_str(),
                    _ => "",
                };
                hit |= super::skipped_nonfinite::AGREED.contains(&name);
            }
        }
    });
    hit
}

/// Whether a loop's iterable is a loader: a `DataLoader` (torch's,
/// Determined's, or a project subclass) by its sources, or a name or
/// attribute called one (`data_loader`, `train_dl`), through `tqdm(…)` and
/// `iter(…)`; and not a `range`, a literal or a name bound only to those.
fn loader_like(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    let prog = code.prog;
    let e = match &e.kind {
        ExprKind::Call { func, args, .. }
            if matches!(
                prog.external(scope, func).as_deref(),
                Some("builtins.iter" | "tqdm.tqdm" | "tqdm.auto.tqdm")
            ) =>
        {
            match runtime::pos(args, 0) {
                Some(a) => a,
                None => return false,
            }
        }
        _ => e,
    };
    let named = match &e.kind {
        ExprKind::Name(n) => Some(n.as_str()),
        ExprKind::Attribute { attr, .. } => Some(attr.as_str()),
        _ => None,
    };
    let called_loader = named.is_some_and(|n| {
        let n = n.to_ascii_lowercase();
        n.contains("loader") || n == "dl" || n.ends_with("_dl") || n.starts_with("dl_")
    });
    let built = {
        let s = prog.sources(scope, e);
        !s.unknown
            && !s.terms.is_empty()
            && s.terms.iter().any(|t| {
                t.proj.is_empty()
                    && matches!(&t.expr.kind, ExprKind::Call { func, .. } if match prog.callee(t.scope, func) {
                        crate::training::program::Callee::External(p) => p == "torch.utils.data.DataLoader" || p == super::training_support::DET_LOADER,
                        crate::training::program::Callee::Class(k) => prog.derives_from(k, &["torch.utils.data.DataLoader"]),
                        _ => false,
                    })
            })
    };
    if !called_loader && !built {
        return false;
    }
    let plain = |s: Scope, x: &Expr| match &x.kind {
        ExprKind::List(_) | ExprKind::Tuple(_) | ExprKind::Set(_) | ExprKind::Dict(_) | ExprKind::Comp { .. } => true,
        ExprKind::Call { func, .. } => {
            matches!(
                prog.external(s, func).as_deref(),
                Some(
                    "builtins.range"
                        | "builtins.zip"
                        | "builtins.sorted"
                        | "builtins.list"
                        | "builtins.reversed"
                        | "os.listdir"
                        | "glob.glob"
                )
            ) || matches!(&func.kind, ExprKind::Attribute { attr, .. } if matches!(attr.as_str(), "items" | "keys" | "values" | "split" | "readlines"))
        }
        _ => false,
    };
    if plain(scope, e) {
        return false;
    }
    if let ExprKind::Name(_) = &e.kind {
        let s = prog.sources(scope, e);
        if !s.unknown && !s.terms.is_empty() && s.terms.iter().all(|t| t.proj.is_empty() && plain(t.scope, t.expr)) {
            return false;
        }
    }
    true
}

/// Whether an enclosing `with ctx():` enters a DDP model's `join()` through
/// a name bound to it (`model_context = model.join`, or an arm of a
/// conditional expression on the uneven-input path).
fn joined(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>]) -> bool {
    let Some(f) = scope.func() else { return false };
    anc.iter().any(|a| match a {
        Anc::Stmt(st) => match &st.kind {
            StmtKind::With { items, .. } => items.iter().any(|i| {
                let ExprKind::Call { func, .. } = &i.ctx.kind else {
                    return false;
                };
                let ExprKind::Name(n) = &func.kind else { return false };
                let join = |e: &Expr| matches!(&e.kind, ExprKind::Attribute { attr, .. } if attr == "join");
                code.prog.local_defs(f, n).iter().any(|d| match d {
                    LocalDef::Assign { value, .. } => match &value.kind {
                        ExprKind::IfExp { body, orelse, .. } => join(body) || join(orelse),
                        _ => join(value),
                    },
                    _ => false,
                })
            }),
            _ => false,
        },
        _ => false,
    })
}
