//! T112's second shape: a tensor cast to a `torch.float8_*` dtype with no
//! scaling before the cast (`x.to(torch.float8_e4m3fn)`), whose value then
//! reaches a loss — in the same function, or returned by a module's
//! `forward` whose model the training code computes a loss from; a helper
//! that returns the value passes it on to its callers (two calls deep).
//!
//! Only casts of values that are certainly unbounded are followed: the
//! input of a module's `forward`, a helper's parameter that every caller
//! fills with such a value, or a matrix product (`x @ w`, `torch.matmul`,
//! `F.linear`), through reshapes and upcasts. A
//! value divided or multiplied by anything, clamped, clipped, or computed by
//! any other call (a norm, a helper of the program that may scale) is left
//! alone, and so are the layer's own weights (`self.weight`).
//!
//! Transformer Engine's `fp8_autocast` is never reported: its modules keep
//! an amax history per tensor, derive each cast's scale from it (delayed
//! scaling) and saturate what still exceeds the format's range, so no value
//! becomes NaN in the cast. torchao's float8 training (`Float8Linear`,
//! `convert_to_float8_training`) scales the same way.

use std::collections::{HashMap, HashSet};

use super::text::number;
use super::training_support::Code;
use super::Sink;
use crate::dtype::DType;
use crate::source::Span;
use crate::training::ast::{Arg, Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{walk_expr, Anc, Callee, ClassId, FuncId, LocalDef, ModId, Node, Scope};

/// PyTorch's float8 dtypes.
const FP8_TORCH: &[&str] = &[
    "torch.float8_e4m3fn",
    "torch.float8_e5m2",
    "torch.float8_e4m3fnuz",
    "torch.float8_e5m2fnuz",
];

/// An unscaled cast: its scope, the call and the dtype it casts to.
type Cast<'p> = (Scope, &'p Expr, DType);

/// Functions of the program that return an unscaled float8 value, with
/// the cast it comes from.
type Funcs<'p> = HashMap<FuncId, Cast<'p>>;

pub(crate) fn check(code: &Code<'_>, out: &mut Sink<'_>) {
    let mut needles: Vec<String> = vec!["float8_".to_string()];
    for m in code.prog.code_modules() {
        needles.extend(code.prog.names_bound_to(m, FP8_TORCH));
    }
    needles.sort();
    needles.dedup();
    let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
    let mut seen: HashSet<(ModId, usize)> = HashSet::new();
    let mut funcs: Funcs<'_> = HashMap::new();
    // First the functions that cast, then (twice) the callers of those that
    // return the cast value: `forward` calling an `fp8_mm(x, w)` helper.
    let mut round: Vec<FuncId> = code.scopes(&needles).into_iter().filter_map(|s| s.func()).collect();
    for _ in 0..3 {
        let mut returning = Vec::new();
        for f in round {
            let scope = f.scope();
            let mut tainted: HashMap<String, Cast<'_>> = HashMap::new();
            let mut found = None;
            walk(code, &funcs, f, code.prog.body(scope), &mut tainted, &mut found);
            let Some(reach) = found else { continue };
            let (cast, loss_at) = match reach {
                Reach::Loss(cast, loss) => (cast, Some((scope.m, loss))),
                Reach::Returned(cast) => match forward_class(code, f) {
                    Some(k) => match loss_of_model(code, k) {
                        Some(at) => (cast, Some(at)),
                        None => continue,
                    },
                    None => {
                        if funcs.insert(f, cast).is_none() {
                            returning.push(f);
                        }
                        continue;
                    }
                },
            };
            if !seen.insert((cast.0.m, cast.1.span.start)) {
                continue;
            }
            report(code, cast, loss_at, out);
        }
        let mut next: Vec<FuncId> = Vec::new();
        for g in returning {
            next.extend(code.prog.call_sites(g).into_iter().filter_map(|(s, _)| s.func()));
        }
        next.sort();
        next.dedup();
        if next.is_empty() {
            break;
        }
        round = next;
    }
}

fn report(code: &Code<'_>, (scope, cast, dtype): Cast<'_>, loss_at: Option<(ModId, Span)>, out: &mut Sink<'_>) {
    let max = dtype.max_finite();
    let name = dtype.torch_name().unwrap_or(dtype.canonical_name());
    let overflow = if dtype.has_inf() {
        format!("any value beyond ±{} becomes inf", number(max))
    } else {
        format!(
            "{name} has no infinity, so any value beyond ±{} becomes NaN",
            number(max)
        )
    };
    let d = out.at_loc(
        code.loc(scope.m, cast.span),
        format!(
            "this cast to {name} scales nothing first: {overflow}, and the value reaches the loss with no torch.nan_to_num — one activation out of range makes the loss {} and the next optimizer step spreads it into every weight",
            if dtype.has_inf() { "inf or NaN" } else { "NaN" }
        ),
    );
    d.help("scale into range before the cast (divide by amax / the format's maximum and hand the inverse scale to torch._scaled_mm, as torchao does), or clamp to the format's range first");
    if let Some((lm, span)) = loss_at {
        d.label(code.file(lm), span, "the loss");
    }
    // One edit: saturate before the cast (what Transformer Engine does
    // after scaling), when the receiver is a plain postfix expression.
    let ExprKind::Call { func, .. } = &cast.kind else {
        return;
    };
    let ExprKind::Attribute { value: recv, .. } = &func.kind else {
        return;
    };
    if matches!(
        recv.kind,
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Call { .. } | ExprKind::Subscript { .. }
    ) {
        let limit = format!("{max:.1}");
        d.unsafe_fix(
            format!("clamp to ±{} before the cast", number(max)),
            vec![crate::edit::replace(
                code.file(scope.m),
                Span {
                    start: recv.span.end,
                    end: recv.span.end,
                },
                format!(".clamp(-{limit}, {limit})"),
            )],
        );
    }
}

/// Where an unscaled float8 value goes.
enum Reach<'p> {
    /// Into a loss (or a `.backward()`) in the same function: the cast and
    /// the loss's span.
    Loss(Cast<'p>, Span),
    /// Into the function's return value.
    Returned(Cast<'p>),
}

fn walk<'p>(
    code: &Code<'p>,
    funcs: &Funcs<'p>,
    f: FuncId,
    body: &'p [Stmt],
    tainted: &mut HashMap<String, Cast<'p>>,
    found: &mut Option<Reach<'p>>,
) {
    for s in body {
        if found.is_some() {
            return;
        }
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                if let Some(r) = loss_in(code, funcs, f, value, tainted) {
                    *found = Some(r);
                    return;
                }
                let t = taint(code, funcs, f, value, tainted);
                for target in targets {
                    if let ExprKind::Name(n) = &target.kind {
                        match t {
                            Some(c) => tainted.insert(n.clone(), c),
                            None => tainted.remove(n),
                        };
                    }
                }
            }
            StmtKind::AugAssign { target, value, .. } => {
                if let (Some(c), ExprKind::Name(n)) = (taint(code, funcs, f, value, tainted), &target.kind) {
                    tainted.insert(n.clone(), c);
                }
            }
            StmtKind::Expr(e) => {
                if let Some(r) = loss_in(code, funcs, f, e, tainted) {
                    *found = Some(r);
                    return;
                }
            }
            StmtKind::Return(Some(v)) => {
                if let Some(r) = loss_in(code, funcs, f, v, tainted) {
                    *found = Some(r);
                    return;
                }
                if let Some(c) = taint(code, funcs, f, v, tainted) {
                    *found = Some(Reach::Returned(c));
                    return;
                }
            }
            StmtKind::If { body, orelse, .. } => {
                walk(code, funcs, f, body, tainted, found);
                walk(code, funcs, f, orelse, tainted, found);
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::With { body, .. } => {
                walk(code, funcs, f, body, tainted, found);
            }
            StmtKind::Try {
                body,
                orelse,
                finalbody,
                ..
            } => {
                walk(code, funcs, f, body, tainted, found);
                walk(code, funcs, f, orelse, tainted, found);
                walk(code, funcs, f, finalbody, tainted, found);
            }
            _ => {}
        }
    }
}

/// A loss call with an unscaled float8 value among its arguments, or
/// `.backward()` on one.
fn loss_in<'p>(
    code: &Code<'p>,
    funcs: &Funcs<'p>,
    f: FuncId,
    e: &'p Expr,
    tainted: &HashMap<String, Cast<'p>>,
) -> Option<Reach<'p>> {
    let scope = f.scope();
    let mut found = None;
    let mut stack = Vec::new();
    walk_expr(e, &mut stack, &mut |_, n| {
        if found.is_some() {
            return;
        }
        let Node::Expr(x) = n else { return };
        let ExprKind::Call { func, args, .. } = &x.kind else {
            return;
        };
        if let ExprKind::Attribute { value, attr } = &func.kind {
            if attr == "backward" {
                if let Some(c) = taint(code, funcs, f, value, tainted) {
                    found = Some(Reach::Loss(c, x.span));
                }
                return;
            }
        }
        if !super::fp8_output_reaches_loss::is_loss(code, scope, func) {
            return;
        }
        for a in args {
            let (Arg::Pos(v) | Arg::Kw { value: v, .. }) = a else {
                continue;
            };
            if let Some(c) = taint(code, funcs, f, v, tainted) {
                found = Some(Reach::Loss(c, x.span));
                return;
            }
        }
    });
    found
}

/// Attributes and methods that read a tensor's metadata, not its values.
const METADATA: &[&str] = &[
    "shape", "dtype", "device", "size", "numel", "dim", "ndim", "is_cuda", "stride",
];

/// The unscaled float8 value inside `e`: an unscaled cast, or a tainted
/// name — not under `torch.nan_to_num` (or `torch.where` on `isfinite`),
/// and not only its metadata.
fn taint<'p>(
    code: &Code<'p>,
    funcs: &Funcs<'p>,
    f: FuncId,
    e: &'p Expr,
    tainted: &HashMap<String, Cast<'p>>,
) -> Option<Cast<'p>> {
    let scope = f.scope();
    let mut hit = None;
    let mut stack = Vec::new();
    walk_expr(e, &mut stack, &mut |anc, n| {
        if hit.is_some() {
            return;
        }
        let Node::Expr(x) = n else { return };
        let guarded = anc
            .iter()
            .any(|a| matches!(a, Anc::Expr(p) if super::fp8_output_reaches_loss::guard(code, scope, p)));
        if guarded {
            return;
        }
        match &x.kind {
            ExprKind::Name(v) => {
                let metadata = matches!(anc.last(), Some(Anc::Expr(p)) if matches!(&p.kind, ExprKind::Attribute { attr, .. } if METADATA.contains(&attr.as_str())));
                if !metadata {
                    if let Some(c) = tainted.get(v) {
                        hit = Some(*c);
                    }
                }
            }
            ExprKind::Call { func, .. } => {
                if let Some(dtype) = unscaled_cast(code, f, x) {
                    hit = Some((scope, x, dtype));
                } else if let Callee::Func(g) = code.prog.callee(scope, func) {
                    // A helper that returns an unscaled float8 value.
                    if let Some(c) = funcs.get(&g) {
                        hit = Some(*c);
                    }
                }
            }
            _ => {}
        }
    });
    hit
}

/// The float8 dtype `e` names (`torch.float8_e4m3fn`, or a module name
/// bound to it).
fn fp8_dtype(code: &Code<'_>, scope: Scope, e: &Expr) -> Option<DType> {
    let p = code.prog.external(scope, e)?;
    if !FP8_TORCH.contains(&p.as_str()) {
        return None;
    }
    crate::dtype::parse(&p).filter(|d| d.is_fp8())
}

/// Whether `e` is `x.to(<float8>)` / `x.to(dtype=<float8>)` /
/// `x.type(<float8>)` of an unbounded, unscaled `x`: its dtype.
fn unscaled_cast(code: &Code<'_>, f: FuncId, e: &Expr) -> Option<DType> {
    let scope = f.scope();
    let ExprKind::Call { func, args, .. } = &e.kind else {
        return None;
    };
    let ExprKind::Attribute { value: recv, attr } = &func.kind else {
        return None;
    };
    if attr != "to" && attr != "type" {
        return None;
    }
    let dtype = args.iter().find_map(|a| match a {
        Arg::Pos(v) => fp8_dtype(code, scope, v),
        Arg::Kw { name, value, .. } if name == "dtype" => fp8_dtype(code, scope, value),
        _ => None,
    })?;
    unbounded(code, f, recv, 0).then_some(dtype)
}

/// Reshapes and casts that keep a tensor's values.
const TRANSPARENT: &[&str] = &[
    "float",
    "bfloat16",
    "half",
    "to",
    "view",
    "reshape",
    "flatten",
    "t",
    "transpose",
    "permute",
    "contiguous",
    "squeeze",
    "unsqueeze",
    "detach",
    "cuda",
];

/// Matrix products: their values are not bounded by their inputs' range.
const PRODUCTS: &[&str] = &[
    "torch.matmul",
    "torch.mm",
    "torch.bmm",
    "torch.einsum",
    "torch.nn.functional.linear",
];

/// Whether `e`'s value is certainly unscaled and unbounded: a parameter of
/// `f` (not `self`), a matrix product, through reshapes and casts and
/// local names. Anything else (a division, a product with a scale, a clamp,
/// a call the analysis cannot see into, an attribute of `self`) is not.
fn unbounded(code: &Code<'_>, f: FuncId, e: &Expr, depth: u32) -> bool {
    if depth > 8 {
        return false;
    }
    let scope = f.scope();
    match &e.kind {
        ExprKind::Name(n) => {
            let defs = code.prog.local_defs(f, n);
            if defs.is_empty() {
                return false;
            }
            defs.iter().all(|d| match d {
                // The input of a module's `forward`: the activations.
                LocalDef::Param(i) if is_method(code, f) => *i > 0 && forward_class(code, f).is_some(),
                // A helper's parameter: what every caller passes.
                LocalDef::Param(i) => passed_unbounded(code, f, *i, depth),
                LocalDef::Assign { value, proj } => proj.is_empty() && unbounded(code, f, value, depth + 1),
                _ => false,
            })
        }
        ExprKind::BinOp { op, .. } => op == "@",
        ExprKind::Call { func, args, .. } => {
            if let Some(p) = code.prog.external(scope, func) {
                return PRODUCTS.contains(&p.as_str());
            }
            match &func.kind {
                ExprKind::Attribute { value, attr } if TRANSPARENT.contains(&attr.as_str()) => {
                    // `.to(...)` only as a cast to a wide float (or a device).
                    let narrowing = args.iter().any(|a| match a {
                        Arg::Pos(v) | Arg::Kw { value: v, .. } => fp8_dtype(code, scope, v).is_some(),
                        _ => false,
                    });
                    !narrowing && unbounded(code, f, value, depth + 1)
                }
                ExprKind::Attribute { attr, .. } if attr == "matmul" || attr == "mm" || attr == "bmm" => true,
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether every call of `f` passes an unbounded value as parameter `i`
/// (and there is a call).
fn passed_unbounded(code: &Code<'_>, f: FuncId, i: usize, depth: u32) -> bool {
    let sites = code.prog.call_sites(f);
    !sites.is_empty()
        && sites
            .iter()
            .all(|(s, call)| match (s.func(), code.prog.bind(f, call, i)) {
                (Some(caller), crate::training::program::Bound::Given(e)) => unbounded(code, caller, e, depth + 1),
                _ => false,
            })
}

/// Whether `f` is a method (its first parameter is `self`).
fn is_method(code: &Code<'_>, f: FuncId) -> bool {
    code.prog.class_of(f).is_some()
}

/// The class whose `forward` `f` is.
fn forward_class(code: &Code<'_>, f: FuncId) -> Option<ClassId> {
    let func = code.prog.func(f)?;
    if func.name != "forward" {
        return None;
    }
    code.prog.class_of(f)
}

/// A loss the training code computes from a model of class `k`, or of a
/// class that builds one as a member (up to three levels of nesting).
fn loss_of_model(code: &Code<'_>, k: ClassId) -> Option<(ModId, Span)> {
    let mut level = vec![k];
    let mut seen: HashSet<ClassId> = HashSet::from([k]);
    for _ in 0..4 {
        for c in &level {
            if let Some(at) = super::fp8_output_reaches_loss::training_loss(code, *c) {
                return Some(at);
            }
        }
        let mut next = Vec::new();
        for outer in code.prog.classes() {
            if seen.contains(&outer) {
                continue;
            }
            let Some(init) = code.prog.method(outer, "__init__") else {
                continue;
            };
            if code.prog.class_of(init) != Some(outer) {
                continue;
            }
            let mut builds = false;
            code.prog.walk_exprs(init.scope(), &mut |_, e| {
                if let ExprKind::Call { func, .. } = &e.kind {
                    if let Callee::Class(c) = code.prog.callee(init.scope(), func) {
                        builds |= level.contains(&c);
                    }
                }
            });
            if builds {
                seen.insert(outer);
                next.push(outer);
            }
        }
        if next.is_empty() {
            return None;
        }
        level = next;
    }
    None
}
