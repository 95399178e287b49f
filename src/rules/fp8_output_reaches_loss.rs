declare_rule! {
    /// ## What it checks
    /// Two shapes of float8 values reaching a loss with no `torch.nan_to_num`
    /// on the way:
    ///
    /// - In a model with a pipeline stage declared in a float8 dtype
    ///   (`float8_e4m3fn`, `float8_e5m2` and their `fnuz` variants), whether the
    ///   value the root model's `forward` gets from that stage reaches a loss —
    ///   computed in `forward`, or from the model's output in the training step —
    ///   when the stage does not scale its values (Transformer Engine's
    ///   `fp8_autocast`, torchao's float8 training, dividing the stage input by
    ///   its absolute maximum).
    /// - In any training code, a tensor cast to a `torch.float8_*` dtype
    ///   (`x.to(torch.float8_e4m3fn)`, `dtype=`, `.type(...)`, or a module-level
    ///   alias of the dtype) with no scaling before the cast, whose value then
    ///   reaches a loss (or a `.backward()`) in the same function, or is
    ///   returned by a module's `forward` whose model — or a model that builds
    ///   it as a member — the training code computes a loss from; a helper
    ///   that returns the value (`fp8_matmul(x, w)`) passes it on to its
    ///   callers. Only casts of values that are certainly unbounded are
    ///   followed: the input of a module's `forward`, a helper's parameter that
    ///   every caller fills with such a value, or a matrix product (`x @ w`,
    ///   `torch.matmul`, `F.linear`), through reshapes and upcasts. A value divided or
    ///   multiplied by a scale, clamped or clipped, computed by another call
    ///   (a norm, a helper that may scale), or a layer's own weight is left
    ///   alone, and so is a cast whose value reaches no loss (a benchmark).
    ///
    /// Transformer Engine regions are never reported: TE's modules keep an amax
    /// history per tensor, derive each cast's scale from it (delayed scaling)
    /// and saturate what still exceeds the range, so a cast does not turn into
    /// NaN; ordinary `fp8_autocast` use is what the format needs.
    ///
    /// ## Why
    /// float8 formats have a tiny range: ±448 for e4m3fn, which has no infinity and
    /// turns an overflow into NaN when a tensor is cast without saturation (as
    /// `Tensor.to` does); ±57344 for e5m2. One overflowing activation makes the
    /// value NaN or inf, the loss follows, and the next optimizer step spreads it
    /// into every weight. Keep values in range with scaling, clamp them before the
    /// cast, or sanitise the result with `torch.nan_to_num` before the loss.
    ///
    /// ## Example
    /// ```python
    /// @stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)
    /// class Block(nn.Module): ...
    ///
    /// def forward(self, x):
    ///     x = self.block(x)        # warning
    ///     # fix: x = torch.nan_to_num(self.block(x), nan=0.0, posinf=448.0, neginf=-448.0)
    ///     return self.head(x)
    ///
    /// class Fp8Linear(nn.Module):
    ///     def forward(self, x):
    ///         x8 = x.to(torch.float8_e4m3fn)   # warning (when a loss is computed from the model)
    ///         # fix: x8 = x.clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    ///         return torch._scaled_mm(x8, self.w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    /// ```
    pub static FP8_OUTPUT_REACHES_LOSS = {
        code: "T112",
        name: "fp8-output-reaches-loss",
        family: Training,
        severity: Warning,
        summary: "A float8 stage's output or an unscaled float8 cast reaches the loss with no NaN guard or scaling",
    };
}

use std::collections::HashMap;

use super::text::number;
use super::training_support::{code, Code};
use super::{Cx, Sink};
use crate::dtype::DType;
use crate::source::FileId;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{walk_expr, Callee, ClassId, ModId, Node, Scope, Sym};

/// One float8 stage of the root model: its member attribute, class, id and
/// dtype.
struct Fp8Stage {
    attr: String,
    class: String,
    id: i64,
    dtype: DType,
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    super::fp8_cast::check(&code, out);
    // The float8 stages, by the file that declares them.
    let mut by_file: HashMap<FileId, Vec<(String, i64, DType)>> = HashMap::new();
    for d in cx.decls() {
        let Some(dtype) = d.dtype.as_ref().and_then(|t| crate::dtype::parse(&t.value)) else {
            continue;
        };
        if dtype.is_fp8() {
            by_file
                .entry(d.name.loc.file)
                .or_default()
                .push((d.name.value.clone(), d.id.value, dtype));
        }
    }
    if by_file.is_empty() {
        return;
    }
    let mut files: Vec<FileId> = by_file.keys().copied().collect();
    files.sort();
    for file in files {
        let Some(root) = cx
            .compiled
            .unit(file)
            .and_then(|u| u.python.as_ref())
            .and_then(|p| p.root.as_ref())
        else {
            continue;
        };
        let Some(m) = code.prog.file_ids().find(|(_, f)| *f == file).map(|(m, _)| m) else {
            continue;
        };
        let Some(model) = cx.compiled.unit(file).and_then(|u| u.python.as_ref()) else {
            continue;
        };
        let stages: Vec<Fp8Stage> = root
            .members
            .iter()
            .filter_map(|member| {
                let class = &model.stage_classes.get(member.stage_class?)?.class_name;
                let (_, id, dtype) = by_file.get(&file)?.iter().find(|(c, _, _)| c == class)?;
                Some(Fp8Stage {
                    attr: member.attr.clone(),
                    class: class.clone(),
                    id: *id,
                    dtype: *dtype,
                })
            })
            .filter(|s| !scaled_stage(&code, m, &s.class))
            .collect();
        if stages.is_empty() {
            continue;
        }
        let Some(Sym::Class(k)) = code.prog.global(m, &root.class_name, 0) else {
            continue;
        };
        let Some(forward) = code.prog.method(k, "forward") else {
            continue;
        };
        let scope = forward.scope();
        let Some(finding) = follow(&code, scope, &stages) else {
            continue;
        };
        let (stage_call, stage, loss_at) = match finding {
            Reach::Loss(call, stage, loss) => (call, stage, Some((scope.m, loss.span))),
            Reach::Output(call, stage) => match training_loss(&code, k) {
                Some((lm, span)) => (call, stage, Some((lm, span))),
                None => continue,
            },
        };
        let max = stage.dtype.max_finite();
        let d = out.at_loc(
            code.loc(scope.m, stage_call.span),
            format!(
                "stage {} ({}) is declared {}; its output reaches the loss with no torch.nan_to_num or scaling, so one overflow beyond ±{} makes the loss {}",
                stage.id,
                stage.class,
                stage.dtype.canonical_name(),
                number(max),
                if stage.dtype.has_inf() { "inf" } else { "NaN" }
            ),
        );
        d.help("scale the stage's values into range (Transformer Engine's fp8_autocast, amax scaling), or sanitise its output with torch.nan_to_num before the loss");
        if let Some((lm, span)) = loss_at {
            d.label(code.file(lm), span, "the loss");
        }
        if let Some(torch) = code.torch(scope.m) {
            let text = code.text(scope.m, stage_call.span);
            let limit = format!("{max:.1}");
            d.unsafe_fix(
                "sanitise the stage output with torch.nan_to_num",
                vec![crate::edit::replace(
                    code.file(scope.m),
                    stage_call.span,
                    format!("{torch}.nan_to_num({text}, nan=0.0, posinf={limit}, neginf=-{limit})"),
                )],
            );
        }
    }
}

/// Whether a stage class scales its own values (Transformer Engine,
/// torchao float8 training).
fn scaled_stage(code: &Code<'_>, m: ModId, class: &str) -> bool {
    let Some(Sym::Class(k)) = code.prog.global(m, class, 0) else {
        return false;
    };
    let Some(c) = code.prog.class(k) else { return false };
    let text = code.text(k.m, c.span);
    text.contains("fp8_autocast")
        || text.contains("convert_to_float8_training")
        || text.contains("Float8Linear")
        || text.contains("amax")
        || text.contains("nan_to_num")
}

/// Where a float8 stage's output goes in `forward`.
enum Reach<'p, 's> {
    /// Into a loss computed in `forward`.
    Loss(&'p Expr, &'s Fp8Stage, &'p Expr),
    /// Into `forward`'s return value.
    Output(&'p Expr, &'s Fp8Stage),
}

fn follow<'p, 's>(code: &Code<'p>, scope: Scope, stages: &'s [Fp8Stage]) -> Option<Reach<'p, 's>> {
    let mut tainted: HashMap<String, (&'p Expr, &'s Fp8Stage)> = HashMap::new();
    let mut found = None;
    walk_body(code, scope, code.prog.body(scope), stages, &mut tainted, &mut found);
    found
}

fn walk_body<'p, 's>(
    code: &Code<'p>,
    scope: Scope,
    body: &'p [Stmt],
    stages: &'s [Fp8Stage],
    tainted: &mut HashMap<String, (&'p Expr, &'s Fp8Stage)>,
    found: &mut Option<Reach<'p, 's>>,
) {
    for s in body {
        if found.is_some() {
            return;
        }
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                if let Some(loss) = loss_of(code, scope, value, stages, tainted) {
                    *found = Some(loss);
                    return;
                }
                let t = taint(code, scope, value, stages, tainted);
                for target in targets {
                    for name in names(target) {
                        match t {
                            Some(src) => {
                                tainted.insert(name, src);
                            }
                            None => {
                                tainted.remove(&name);
                            }
                        }
                    }
                }
            }
            StmtKind::AugAssign { target, value, .. } => {
                if let (Some(src), ExprKind::Name(n)) = (taint(code, scope, value, stages, tainted), &target.kind) {
                    tainted.insert(n.clone(), src);
                }
            }
            StmtKind::Return(Some(v)) => {
                if let Some(loss) = loss_of(code, scope, v, stages, tainted) {
                    *found = Some(loss);
                    return;
                }
                if let Some((call, stage)) = taint(code, scope, v, stages, tainted) {
                    *found = Some(Reach::Output(call, stage));
                    return;
                }
            }
            StmtKind::Expr(e) => {
                if let Some(loss) = loss_of(code, scope, e, stages, tainted) {
                    *found = Some(loss);
                    return;
                }
            }
            StmtKind::If { body, orelse, .. } => {
                walk_body(code, scope, body, stages, tainted, found);
                walk_body(code, scope, orelse, stages, tainted, found);
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::With { body, .. } => {
                walk_body(code, scope, body, stages, tainted, found);
            }
            _ => {}
        }
    }
}

fn names(t: &Expr) -> Vec<String> {
    match &t.kind {
        ExprKind::Name(n) => vec![n.clone()],
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().flat_map(names).collect(),
        _ => Vec::new(),
    }
}

/// Whether a call sanitises NaN/inf (`torch.nan_to_num`, `.nan_to_num()`,
/// `torch.where` on `isfinite`/`isnan`).
pub(super) fn guard(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    let ExprKind::Call { func, .. } = &e.kind else {
        return false;
    };
    if let Some(p) = code.prog.external(scope, func) {
        if p == "torch.nan_to_num" || p == "torch.nan_to_num_" {
            return true;
        }
        if p == "torch.where" {
            let text = code.text(scope.m, e.span);
            return text.contains("isfinite") || text.contains("isnan") || text.contains("isinf");
        }
    }
    matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "nan_to_num" || attr == "nan_to_num_")
}

/// The unguarded float8 stage output inside `e`: a stage call, or a
/// tainted name.
fn taint<'p, 's>(
    code: &Code<'p>,
    scope: Scope,
    e: &'p Expr,
    stages: &'s [Fp8Stage],
    tainted: &HashMap<String, (&'p Expr, &'s Fp8Stage)>,
) -> Option<(&'p Expr, &'s Fp8Stage)> {
    let mut hit = None;
    let mut stack = Vec::new();
    walk_expr(e, &mut stack, &mut |anc, n| {
        if hit.is_some() {
            return;
        }
        let Node::Expr(x) = n else { return };
        let guarded = anc
            .iter()
            .any(|a| matches!(a, crate::training::program::Anc::Expr(p) if guard(code, scope, p)));
        if guarded {
            return;
        }
        match &x.kind {
            ExprKind::Name(v) => {
                if let Some(src) = tainted.get(v) {
                    hit = Some(*src);
                }
            }
            ExprKind::Call { func, args, .. } => {
                let ExprKind::Attribute { value, attr } = &func.kind else {
                    return;
                };
                if code.prog.self_class(scope, value).is_none() {
                    return;
                }
                let Some(stage) = stages.iter().find(|s| s.attr == *attr) else {
                    return;
                };
                // Input divided by its absolute maximum: scaled.
                let scaled = args.iter().any(|a| match a {
                    crate::training::ast::Arg::Pos(x) => divided_by_amax(code, scope, x),
                    _ => false,
                });
                if !scaled {
                    hit = Some((x, stage));
                }
            }
            _ => {}
        }
    });
    hit
}

fn divided_by_amax(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    let ExprKind::BinOp { op, right, .. } = &e.kind else {
        return false;
    };
    if op != "/" {
        return false;
    }
    let mentions_max = |s: Scope, x: &Expr| {
        let t = code.text(s.m, x.span);
        t.contains("amax") || t.contains(".abs().max(") || t.contains("absmax")
    };
    if mentions_max(scope, right) {
        return true;
    }
    let s = code.prog.sources(scope, right);
    !s.terms.is_empty() && s.terms.iter().all(|t| mentions_max(t.scope, t.expr))
}

/// A loss call in `e` with a float8 stage output among its arguments.
fn loss_of<'p, 's>(
    code: &Code<'p>,
    scope: Scope,
    e: &'p Expr,
    stages: &'s [Fp8Stage],
    tainted: &HashMap<String, (&'p Expr, &'s Fp8Stage)>,
) -> Option<Reach<'p, 's>> {
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
        if !is_loss(code, scope, func) {
            return;
        }
        for a in args {
            let value = match a {
                crate::training::ast::Arg::Pos(v) => v,
                crate::training::ast::Arg::Kw { value, .. } => value,
                _ => continue,
            };
            if let Some((call, stage)) = taint(code, scope, value, stages, tainted) {
                found = Some(Reach::Loss(call, stage, x));
                return;
            }
        }
    });
    found
}

/// Whether `func` computes a loss: `torch.nn.functional.*loss*`,
/// `cross_entropy`, or an instance of a `torch.nn.*Loss` class.
pub(super) fn is_loss(code: &Code<'_>, scope: Scope, func: &Expr) -> bool {
    let prog = code.prog;
    if let Some(p) = prog.external(scope, func) {
        if let Some(name) = p.strip_prefix("torch.nn.functional.") {
            return name.contains("loss") || name.contains("cross_entropy") || name == "kl_div";
        }
        return false;
    }
    let s = prog.sources(scope, func);
    !s.terms.is_empty()
        && s.terms.iter().all(|t| match &t.expr.kind {
            ExprKind::Call { func, .. } => prog
                .external(t.scope, func)
                .is_some_and(|p| p.starts_with("torch.nn.") && p.ends_with("Loss")),
            _ => false,
        })
}

/// A loss computed from the output of the root model `k` somewhere in the
/// training code: its module and span.
pub(super) fn training_loss(code: &Code<'_>, k: ClassId) -> Option<(ModId, crate::source::Span)> {
    let prog = code.prog;
    for scope in code.scopes(&["loss", "cross_entropy", "Loss"]) {
        let mut hit = None;
        prog.walk_exprs(scope, &mut |_, e| {
            if hit.is_some() {
                return;
            }
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            if !is_loss(code, scope, func) {
                return;
            }
            let mut stack = Vec::new();
            for a in args {
                let crate::training::ast::Arg::Pos(v) = a else { continue };
                walk_expr(v, &mut stack, &mut |_, n| {
                    let Node::Expr(x) = n else { return };
                    if let ExprKind::Call { func: f, .. } = &x.kind {
                        if model_of(code, scope, f, 0) == Some(k) {
                            hit = Some((scope.m, e.span));
                        }
                    }
                });
            }
        });
        if hit.is_some() {
            return hit;
        }
    }
    None
}

/// The model class an expression holds, looking through wrappers
/// (`context.wrap_model`, `DistributedDataParallel`, `.cuda()`, `.to()`).
fn model_of(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> Option<ClassId> {
    if depth > 6 {
        return None;
    }
    let prog = code.prog;
    let s = prog.sources(scope, e);
    for t in &s.terms {
        if !t.proj.is_empty() {
            continue;
        }
        let ExprKind::Call { func, args, .. } = &t.expr.kind else {
            continue;
        };
        match prog.callee(t.scope, func) {
            Callee::Class(k) => return Some(k),
            Callee::External(p) => {
                let wrapper = matches!(
                    p.as_str(),
                    "torch.nn.parallel.DistributedDataParallel"
                        | "torch.distributed.fsdp.FullyShardedDataParallel"
                        | "torch.compile"
                        | "torch.nn.DataParallel"
                );
                if wrapper {
                    if let Some(inner) = crate::training::runtime::pos(args, 0) {
                        if let Some(k) = model_of(code, t.scope, inner, depth + 1) {
                            return Some(k);
                        }
                    }
                }
            }
            _ => {
                if let ExprKind::Attribute { value, attr } = &func.kind {
                    match attr.as_str() {
                        "wrap_model" | "prepare" => {
                            if let Some(inner) = crate::training::runtime::pos(args, 0) {
                                if let Some(k) = model_of(code, t.scope, inner, depth + 1) {
                                    return Some(k);
                                }
                            }
                        }
                        "cuda" | "to" | "half" | "bfloat16" | "float" | "train" => {
                            if let Some(k) = model_of(code, t.scope, value, depth + 1) {
                                return Some(k);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    None
}
