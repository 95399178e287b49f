declare_rule! {
    /// ## What it checks
    /// A training forward that runs the module a `DistributedDataParallel`
    /// wrapper holds instead of the wrapper: `model.module(x)`, a method of
    /// it that runs a submodule (`model.module.compute_loss(batch)`, a
    /// submodule itself such as `model.module.encoder(x)`), a name bound to
    /// the unwrapped module (`unwrapped = model.module if isinstance(model,
    /// DDP) else model`), a wrapper dropped where it is made (`self.model =
    /// DDP(net, …).module`, also its methods read as values), or
    /// Accelerate's `accelerator.unwrap_model(model)` called — where that
    /// forward's output reaches a backward that an optimizer step follows (in
    /// the same function, in a caller the function returns it to, or inside
    /// a `loss_scaler(loss, …)` or a function of the code that runs
    /// `backward()` on the value), in code that runs once per rank.
    ///
    /// Silent where the forward runs with gradients off (`torch.no_grad()`,
    /// `inference_mode`), inside `with model.no_sync():`, where the output
    /// is detached before the loss, for the module's parameters, state and
    /// generation (`parameters()`, `state_dict()`, `generate()`), for a
    /// method of the code that calls no submodule (`no_weight_decay()`, a
    /// batch builder), where the same function also runs a forward through
    /// the wrapper (DDP then prepares the step's reduction), where the code
    /// averages gradients itself (`all_reduce` of a `.grad`), for a
    /// backward no optimizer step follows (a saliency map in an evaluation),
    /// and past the statement that puts the wrapper back where the unwrapped
    /// model was stored for a while (`self.model =
    /// accelerator.unwrap_model(self.model)` to save, then `self.model =
    /// model_ddp` later in the same block, with no exit in between).
    ///
    /// ## Why
    /// DDP averages gradients through hooks that are armed by its own
    /// `forward`: the wrapper tells its reducer a backward is coming, and only
    /// then do the hooks all-reduce each gradient as it is made. A forward
    /// through `model.module` skips that, so the backward that follows leaves
    /// every rank with the gradients of its own shard of the batch. Each rank
    /// steps its own copy, the copies drift apart from the first step, and
    /// nothing fails: the loss curve (usually rank 0's) looks like training
    /// on `1/world_size` of the data, and the checkpoint rank 0 saves is one
    /// of several different models. Call the wrapper for the training
    /// forward (route a method other than `forward` through it), or average
    /// the gradients yourself before the optimizer step.
    ///
    /// ## Example
    /// ```python
    /// model = DistributedDataParallel(model, device_ids=[local_rank])
    /// for batch in loader:
    ///     unwrapped = model.module if isinstance(model, DistributedDataParallel) else model
    ///     loss = unwrapped(batch["input_ids"], labels=batch["labels"]).loss  # warning
    ///     loss.backward()
    ///     optimizer.step()
    ///
    /// # fix: run the training forward through the wrapper
    /// loss = model(batch["input_ids"], labels=batch["labels"]).loss
    /// ```
    pub static DDP_FORWARD_BYPASSED = {
        code: "T117",
        name: "ddp-forward-bypassed",
        family: Training,
        severity: Warning,
        summary: "A training forward runs the module DistributedDataParallel wraps, so its gradients are never averaged",
    };
}

use std::collections::HashSet;

use super::rank_zero_ddp_forward::grad_disabled;
use super::training_support::{called_name, code, excerpt, Code};
use super::{Cx, Sink};
use crate::training::ast::{Arg, Expr, ExprKind, StmtKind};
use crate::training::program::{Anc, Callee, Flow, ModId, Scope, SAME_MODULE};
use crate::training::runtime;

const DDP: &str = "torch.nn.parallel.DistributedDataParallel";

/// Methods of a module that do not run its forward (or run it without
/// gradients): their results carry no gradient DDP would average.
const NOT_A_FORWARD: &[&str] = &[
    "parameters",
    "named_parameters",
    "buffers",
    "named_buffers",
    "modules",
    "named_modules",
    "children",
    "named_children",
    "state_dict",
    "load_state_dict",
    "save_pretrained",
    "generate",
    "get_input_embeddings",
    "get_output_embeddings",
    "zero_grad",
    "requires_grad_",
    "apply",
    "register_buffer",
    "register_forward_hook",
    "gradient_checkpointing_enable",
];

/// Calls whose result keeps nothing of the gradient of their receiver.
const DETACHING: &[&str] = &["detach", "detach_", "item", "tolist", "numpy"];

/// A forward through the wrapper: its scope, call and ancestors.
type Forward<'p> = (Scope, &'p Expr, Vec<Anc<'p>>);

/// A forward that bypasses the wrapper.
struct Bypass<'p> {
    scope: Scope,
    call: &'p Expr,
    anc: Vec<Anc<'p>>,
    /// `DDP(…).module` kept where the wrapper is made: the attribute.
    dropped_at: Option<(Scope, &'p Expr)>,
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    let prog = code.prog;
    let mut reported: HashSet<(ModId, usize)> = HashSet::new();
    let mut averaged: Option<bool> = None;
    for (scope, anc, wrap, _) in runtime::calls(prog, &[DDP]) {
        if !code.rt.world_at(prog, scope.m).distributed() {
            continue;
        }
        let (bypasses, forwards) = uses_of_wrapper(&code, scope, &anc, wrap);
        // The forwards through the wrapper with gradients on (a call that
        // reaches the wrapped module too, `unwrapped = model.module if
        // isinstance(model, DDP) else model`, is the wrapped module's on a
        // multi-rank run).
        let through: Vec<(Scope, &Expr)> = forwards
            .iter()
            .filter(|(s, c, a)| !bypasses.iter().any(|b| std::ptr::eq(b.call, *c)) && !grad_disabled(&code, *s, a))
            .map(|(s, c, _)| (*s, *c))
            .collect();
        for b in &bypasses {
            if *averaged.get_or_insert_with(|| grads_averaged_by_hand(&code)) {
                return;
            }
            report(cx, &code, out, &mut reported, b, Some((scope, wrap)), &through);
        }
    }
    for (scope, anc, unwrap) in accelerate_unwraps(&code) {
        if !code.rt.world_at(prog, scope.m).distributed() {
            continue;
        }
        for b in calls_of_module(&code, scope, anc, unwrap, None) {
            if *averaged.get_or_insert_with(|| grads_averaged_by_hand(&code)) {
                return;
            }
            report(cx, &code, out, &mut reported, &b, None, &[]);
        }
    }
}

fn report(
    cx: &Cx<'_>,
    code: &Code<'_>,
    out: &mut Sink<'_>,
    reported: &mut HashSet<(ModId, usize)>,
    b: &Bypass<'_>,
    wrap: Option<(Scope, &Expr)>,
    through_wrapper: &[(Scope, &Expr)],
) {
    if grad_disabled(code, b.scope, &b.anc) || in_no_sync(&b.anc) {
        return;
    }
    let Some((bs, backward)) = reaches_backward(code, b.scope, b.call, 0) else {
        return;
    };
    // A forward through the wrapper in the function that runs the backward
    // (or in the one that holds this call) arms DDP's hooks for the step.
    let holders = [bs.func(), b.scope.func()];
    if through_wrapper
        .iter()
        .any(|(s, _)| s.func().is_some() && holders.contains(&s.func()))
    {
        return;
    }
    let ExprKind::Call { func, .. } = &b.call.kind else {
        return;
    };
    let (at_scope, at) = b.dropped_at.unwrap_or((b.scope, b.call));
    if !reported.insert((at_scope.m, at.span.start)) {
        return;
    }
    let called = excerpt(code.text(b.scope.m, func.span));
    let back = excerpt(code.text(bs.m, backward.span));
    let back_at = cx
        .compiled
        .sources
        .get(code.file(bs.m))
        .map(|f| format!("{}:{}", f.name, f.line_col(backward.span.start).0))
        .unwrap_or_default();
    let effect = "DDP averages a backward's gradients only after a forward through the wrapper, so every rank steps with the gradients of its own batch alone and the ranks' copies of the model drift apart from the first step, without an error";
    let d = match b.dropped_at {
        Some(_) => out.at_loc(
            code.loc(at_scope.m, at.span),
            format!(
                "`.module` keeps the module DistributedDataParallel wraps and drops the wrapper: the training forward `{called}(…)` runs without DDP and its output reaches `{back}` at {back_at}; {effect}"
            ),
        ),
        None if wrap.is_none() => out.at_loc(
            code.loc(b.scope.m, b.call.span),
            format!(
                "`{called}(…)` runs the model `unwrap_model` takes out of the DistributedDataParallel wrapper `accelerator.prepare` put it in (a multi-GPU `accelerate launch` without DeepSpeed or FSDP), and its output reaches `{back}` at {back_at}: {effect}"
            ),
        ),
        None => out.at_loc(
            code.loc(b.scope.m, b.call.span),
            format!(
                "`{called}(…)` runs the module DistributedDataParallel wraps, not the wrapper, and its output reaches `{back}` at {back_at}: {effect}"
            ),
        ),
    };
    d.help("run the training forward through the wrapper (`model(…)`; route a method other than `forward` through the wrapper's forward), or average the gradients yourself before the optimizer step (`dist.all_reduce` of each parameter's `.grad`, divided by the world size)");
    if b.dropped_at.is_some() {
        d.label(code.file(b.scope.m), b.call.span, "the training forward, without DDP");
    }
    d.label(
        code.file(bs.m),
        backward.span,
        "the backward whose gradients stay per rank",
    );
    if let Some((ws, w)) = wrap {
        d.label(code.file(ws.m), w.span, "wrapped here");
    }
    if let (Some((s, attr)), Some((ws, w))) = (b.dropped_at, wrap) {
        if s.m == ws.m {
            d.unsafe_fix(
                "keep the wrapper (code that reads the module's own attributes then needs `.module`)",
                vec![crate::edit::replace(
                    code.file(s.m),
                    attr.span,
                    code.text(ws.m, w.span).to_string(),
                )],
            );
        }
    }
}

/// The forwards of `wrap`'s wrapped module that bypass the wrapper, and
/// the calls of the wrapper itself.
fn uses_of_wrapper<'p>(
    code: &Code<'p>,
    scope: Scope,
    anc: &[Anc<'p>],
    wrap: &'p Expr,
) -> (Vec<Bypass<'p>>, Vec<Forward<'p>>) {
    let prog = code.prog;
    let mut bypasses = Vec::new();
    let mut forwards = Vec::new();
    let mut work: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = vec![(scope, anc.to_vec(), wrap)];
    let mut modules: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
    let mut steps = 0;
    while let Some((s0, a0, e0)) = work.pop() {
        steps += 1;
        if steps > 8 {
            break;
        }
        prog.flows(s0, &a0, e0, &|_, _| false, &mut |flow| match flow {
            Flow::Called { scope, call, anc } => forwards.push((scope, call, anc)),
            Flow::Method { scope, call, name, anc } if SAME_MODULE.contains(&name) => {
                work.push((scope, anc, call));
            }
            // `model.module(x)`.
            Flow::Method {
                scope,
                call,
                name: "module",
                anc,
            } => bypasses.push(Bypass {
                scope,
                call,
                anc,
                dropped_at: None,
            }),
            Flow::Attr {
                scope,
                expr,
                name: "module",
                anc,
            } => modules.push((scope, anc, expr)),
            _ => {}
        });
    }
    for (s, a, module) in modules.into_iter().take(16) {
        // `DDP(net, …).module` where the wrapper is made: it is dropped.
        let dropped = matches!(&module.kind, ExprKind::Attribute { value, .. } if std::ptr::eq(&**value, wrap));
        bypasses.extend(calls_of_module(code, s, a, module, dropped.then_some((s, module))));
    }
    (bypasses, forwards)
}

/// The calls that run the module `module` (the unwrapped one): called, or a
/// method of it other than [`NOT_A_FORWARD`] called.
fn calls_of_module<'p>(
    code: &Code<'p>,
    scope: Scope,
    anc: Vec<Anc<'p>>,
    module: &'p Expr,
    dropped_at: Option<(Scope, &'p Expr)>,
) -> Vec<Bypass<'p>> {
    let prog = code.prog;
    let mut out = Vec::new();
    // The module itself, and its methods read as values (`loss_func =
    // loss_func or self.model.calculate_loss`): a call of either runs it.
    let rebinding = rebinds_itself(scope, &anc, module);
    let window = restored_later(code, scope, &anc, module);
    let mut work: Vec<(Scope, Vec<Anc<'p>>, &'p Expr, bool)> = vec![(scope, anc, module, true)];
    let mut steps = 0;
    while let Some((s0, a0, e0, whole)) = work.pop() {
        steps += 1;
        if steps > 12 {
            break;
        }
        prog.flows(s0, &a0, e0, &|_, _| false, &mut |flow| match flow {
            Flow::Called { scope, call, anc } => out.push(Bypass {
                scope,
                call,
                anc,
                dropped_at,
            }),
            Flow::Method { scope, call, name, anc } if whole && SAME_MODULE.contains(&name) => {
                work.push((scope, anc, call, true));
            }
            Flow::Method { scope, call, name, anc } if whole && runs_forward(prog, name) => out.push(Bypass {
                scope,
                call,
                anc,
                dropped_at,
            }),
            Flow::Attr { scope, expr, name, anc } if whole && runs_forward(prog, name) => {
                work.push((scope, anc, expr, false));
            }
            _ => {}
        });
    }
    // `model = model.module` (`if isinstance(model, DDP):` at the top of a
    // loss helper), `model = accelerator.unwrap_model(model)` (before the
    // final save): the name holds the unwrapped module only from there on.
    if let Some((s, end)) = rebinding {
        out.retain(|b| b.scope == s && b.call.span.start >= end);
    }
    // `self.model = accelerator.unwrap_model(self.model)` for a save, then
    // `self.model = model_ddp` later in the same block: the unwrapped module
    // is held there only in between.
    if let Some((from, to)) = window {
        out.retain(|b| b.scope == scope && from <= b.call.span.start && b.call.span.start < to);
    }
    out
}

/// Where the unwrapped `module` (ancestors `anc`), stored by a plain
/// assignment, is replaced by a later statement of the same block that
/// stores to the same target with nothing in between that leaves the
/// block (`model_ddp = self.model; self.model =
/// accelerator.unwrap_model(self.model); …; self.model = model_ddp`): the
/// end of the store and the start of the replacing one.
fn restored_later(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], module: &Expr) -> Option<(usize, usize)> {
    let prog = code.prog;
    let (Some(Anc::Stmt(st)), parent) = (anc.last(), anc.len().checked_sub(2).and_then(|i| anc.get(i))) else {
        return None;
    };
    let StmtKind::Assign { targets, value } = &st.kind else {
        return None;
    };
    let ([target], true) = (targets.as_slice(), std::ptr::eq(value, module)) else {
        return None;
    };
    let text = prog.text(scope.m);
    let said = |e: &Expr| text.get(e.span.start..e.span.end);
    let blocks: Vec<&[crate::training::ast::Stmt]> = match parent {
        None => vec![prog.body(scope)],
        Some(Anc::Stmt(p)) => crate::training::program::blocks_of(p),
        Some(Anc::Handler(h)) => vec![h.body.as_slice()],
        Some(_) => return None,
    };
    let block = blocks.into_iter().find(|b| b.iter().any(|x| std::ptr::eq(x, *st)))?;
    let at = block.iter().position(|x| std::ptr::eq(x, *st))?;
    for later in &block[at + 1..] {
        if let StmtKind::Assign { targets, .. } = &later.kind {
            if targets.iter().any(|t| said(t) == said(target)) {
                return Some((st.span.end, later.span.start));
            }
        }
        // A jump (at any depth) may leave with the unwrapped module held.
        let mut jumps = false;
        crate::training::program::walk_stmt(later, &mut Vec::new(), &mut |_, n| {
            if let crate::training::program::Node::Stmt(x) = n {
                jumps |= matches!(
                    x.kind,
                    StmtKind::Return(_) | StmtKind::Raise(_) | StmtKind::Break | StmtKind::Continue
                );
            }
        });
        if jumps {
            return None;
        }
    }
    None
}

/// Where the unwrapped `module` (ancestors `anc`) is stored back into the
/// name it was taken from (`model = model.module`, `model =
/// accelerator.unwrap_model(model)`): the scope and the end of that
/// statement.
fn rebinds_itself(scope: Scope, anc: &[Anc<'_>], module: &Expr) -> Option<(Scope, usize)> {
    let Some(Anc::Stmt(st)) = anc.last() else { return None };
    let StmtKind::Assign { targets, value } = &st.kind else {
        return None;
    };
    let ([target], true) = (targets.as_slice(), std::ptr::eq(value, module)) else {
        return None;
    };
    let ExprKind::Name(n) = &target.kind else { return None };
    let inner = match &module.kind {
        ExprKind::Attribute { value, .. } => value,
        ExprKind::Call { args, .. } => runtime::pos(args, 0)?,
        _ => return None,
    };
    matches!(&inner.kind, ExprKind::Name(m) if m == n).then_some((scope, st.span.end))
}

/// Whether a method of the wrapped module called by `name` runs its
/// forward, as far as the code shows: `forward…`; a submodule the code's
/// module classes set (`self.encoder = …`, then `model.encoder(x)`); or a
/// method of the code's classes that calls a submodule (or another such
/// method). Not the module's parameters, state or generation, and not a
/// method whose definitions only compute (`no_weight_decay()` returning
/// names, `create_biencoder_input(…)` tokenizing).
fn runs_forward(prog: &crate::training::program::Program, name: &str) -> bool {
    if NOT_A_FORWARD.contains(&name) || SAME_MODULE.contains(&name) {
        return false;
    }
    if name.starts_with("forward") {
        return true;
    }
    let set = format!("self.{name} =");
    let mut methods = Vec::new();
    let mut submodule = false;
    for k in prog.classes_mentioning(&[name]).into_iter().take(32) {
        match prog.own_method(k, name) {
            Some(f) => methods.push(f),
            None => {
                let Some(class) = prog.class(k) else { continue };
                submodule |= prog
                    .text(k.m)
                    .get(class.span.start..class.span.end)
                    .is_some_and(|t| t.contains(&set));
            }
        }
    }
    if methods.is_empty() {
        return submodule;
    }
    methods.into_iter().any(|f| calls_submodule(prog, f, 0))
}

/// Whether method `f` calls a submodule of its object (`self.encoder(x)`,
/// `self.blocks[i](x)`, `self(x)`), or a method of its class that does (a
/// few levels).
fn calls_submodule(prog: &crate::training::program::Program, f: crate::training::program::FuncId, depth: u32) -> bool {
    let (Some(def), Some(k)) = (prog.func(f), prog.class_of(f)) else {
        return false;
    };
    let Some(me) = def.params.first().map(|p| p.name.as_str()) else {
        return false;
    };
    let rooted = |e: &Expr| {
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Name(n) => return n == me,
                ExprKind::Attribute { value, .. } | ExprKind::Subscript { value, .. } => cur = value,
                _ => return false,
            }
        }
    };
    let mut found = false;
    prog.walk_exprs(f.scope(), &mut |_, e| {
        if found {
            return;
        }
        let ExprKind::Call { func, .. } = &e.kind else { return };
        match &func.kind {
            ExprKind::Name(n) if n == me => found = true,
            ExprKind::Subscript { .. } => found = rooted(func),
            ExprKind::Attribute { value, attr } if rooted(value) => {
                if NOT_A_FORWARD.contains(&attr.as_str()) || SAME_MODULE.contains(&attr.as_str()) {
                    return;
                }
                let own = matches!(&value.kind, ExprKind::Name(n) if n == me);
                match prog.method(k, attr) {
                    Some(g) if own => found = depth < 2 && g != f && calls_submodule(prog, g, depth + 1),
                    _ => found = attr == "forward" || !own || !is_module_api(attr),
                }
            }
            _ => {}
        }
    });
    found
}

/// Methods every `nn.Module` has that compute nothing of the model.
fn is_module_api(name: &str) -> bool {
    name.starts_with("named_")
        || name.starts_with("register_")
        || matches!(
            name,
            "parameters"
                | "buffers"
                | "modules"
                | "children"
                | "state_dict"
                | "get_submodule"
                | "get_parameter"
                | "extra_repr"
        )
}

/// `accelerator.unwrap_model(model)` calls, on an `Accelerator` of the code.
fn accelerate_unwraps<'p>(code: &Code<'p>) -> Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> {
    let prog = code.prog;
    let mut out = Vec::new();
    for scope in code.scopes_with_words(&["unwrap_model"]) {
        prog.walk_exprs(scope, &mut |anc, e| {
            let ExprKind::Call { func, .. } = &e.kind else { return };
            let ExprKind::Attribute { value, attr } = &func.kind else {
                return;
            };
            if attr == "unwrap_model" && prog.built_by(scope, value, "accelerate.Accelerator") {
                out.push((scope, anc.to_vec(), e));
            }
        });
    }
    out
}

/// Where the output of `call` (in `scope`) reaches a `backward()`: the
/// function's names that hold a value computed from it (assigned, added
/// to, appended, iterated), followed in the function and, where the
/// function returns such a value, at its callers (two levels up). The
/// backward's scope and call.
fn reaches_backward<'p>(code: &Code<'p>, scope: Scope, call: &'p Expr, depth: u32) -> Option<(Scope, &'p Expr)> {
    let prog = code.prog;
    let mut held: Vec<String> = Vec::new();
    for _ in 0..4 {
        let before = held.len();
        prog.walk_stmts(scope, &mut |_, st| {
            let from = |e: &Expr| mentions(e, call, &held);
            let mut taken: Vec<String> = Vec::new();
            match &st.kind {
                StmtKind::Assign { targets, value } if from(value) => {
                    for t in targets {
                        names_in(t, &mut taken);
                    }
                }
                StmtKind::AnnAssign { target, value: Some(v) } if from(v) => names_in(target, &mut taken),
                StmtKind::AugAssign { target, value, .. } if from(value) => names_in(target, &mut taken),
                StmtKind::For { target, iter, .. } if from(iter) => names_in(target, &mut taken),
                StmtKind::Expr(e) => {
                    if let ExprKind::Call { func, args, .. } = &e.kind {
                        if let ExprKind::Attribute { value, attr } = &func.kind {
                            if matches!(attr.as_str(), "append" | "extend" | "insert" | "update" | "add_")
                                && args.iter().any(|a| from(arg_value(a)))
                            {
                                names_in(value, &mut taken);
                            }
                        }
                    }
                }
                _ => {}
            }
            for n in taken {
                if !held.contains(&n) {
                    held.push(n);
                }
            }
        });
        if held.len() == before {
            break;
        }
    }
    // The sinks, by preference: `loss.backward()` (or
    // `scaler.scale(loss).backward()`), then a backward given the value
    // (`accelerator.backward(loss)`, a DeepSpeed engine's `backward(loss)`),
    // then a call that runs one (`loss_scaler(loss, optimizer, …)`, timm's
    // and MAE's `NativeScaler`; a function of the code that runs
    // `backward()` on the parameter the value is given to).
    let mut found: [Option<&'p Expr>; 3] = [None, None, None];
    let mut steps = false;
    prog.walk_exprs(scope, &mut |_, e| {
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return;
        };
        let held_arg = |a: &Arg| mentions(arg_value(a), call, &held);
        if let ExprKind::Attribute { value, attr } = &func.kind {
            steps |= attr == "step";
            if attr == "backward" {
                if found[0].is_none() && mentions(value, call, &held) {
                    found[0] = Some(e);
                } else if found[1].is_none() && args.iter().any(held_arg) {
                    found[1] = Some(e);
                }
                return;
            }
        }
        if found[2].is_none() {
            let first_held = runtime::pos(args, 0).is_some_and(|a| mentions(a, call, &held));
            if (first_held && scaler_call(func)) || backward_in_callee(prog, scope, e, call, &held) {
                found[2] = Some(e);
            }
        }
    });
    // A training backward: one the optimizer steps after (a backward for
    // saliency maps in an evaluation steps nothing), or a call that steps
    // itself.
    let found = match found {
        [Some(b), ..] | [None, Some(b), _] if steps => Some(b),
        [.., Some(b)] => Some(b),
        _ => None,
    };
    if let Some(b) = found {
        return Some((scope, b));
    }
    let f = scope.func()?;
    if depth >= 2 {
        return None;
    }
    let mut returned = false;
    prog.walk_stmts(scope, &mut |_, st| {
        if let StmtKind::Return(Some(v)) = &st.kind {
            returned |= mentions(v, call, &held);
        }
    });
    if !returned {
        return None;
    }
    let sites = prog.call_sites(f);
    if sites.len() > 6 {
        return None;
    }
    sites
        .into_iter()
        .find_map(|(s2, site)| reaches_backward(code, s2, site, depth + 1))
}

/// `loss_scaler(…)`, `self.loss_scaler(…)`: an instance of a gradient
/// scaler that is called (timm's `NativeScaler` runs `backward()`).
fn scaler_call(func: &Expr) -> bool {
    let name = match &func.kind {
        ExprKind::Name(n) => n,
        ExprKind::Attribute { attr, .. } => attr,
        _ => return false,
    };
    name.ends_with("loss_scaler") || name == "scaler_backward"
}

/// Whether the call `site` (in `scope`) runs a function of the code that
/// calls `backward()` on one of its parameters the call gives a value
/// (`self.backward_step(loss)`, a scaler class's `__call__(self, loss, …)`)
/// holding something of `call`'s output (`held`).
fn backward_in_callee(
    prog: &crate::training::program::Program,
    scope: Scope,
    site: &Expr,
    call: &Expr,
    held: &[String],
) -> bool {
    let ExprKind::Call { func, args, .. } = &site.kind else {
        return false;
    };
    let f = match prog.callee(scope, func) {
        Callee::Func(f) => f,
        Callee::Class(k) => match prog.method(k, "__call__") {
            Some(f) => f,
            None => return false,
        },
        _ => return false,
    };
    let Some(def) = prog.func(f) else { return false };
    let skip = usize::from(prog.class_of(f).is_some());
    let mut params: Vec<String> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if !mentions(arg_value(a), call, held) {
            continue;
        }
        let name = match a {
            Arg::Pos(_) => def.params.get(i + skip).map(|p| p.name.clone()),
            Arg::Kw { name, .. } => Some(name.clone()),
            _ => None,
        };
        params.extend(name);
    }
    if params.is_empty() {
        return false;
    }
    let mut found = false;
    prog.walk_exprs(f.scope(), &mut |_, e| {
        if found {
            return;
        }
        if let ExprKind::Call { func, .. } = &e.kind {
            if let ExprKind::Attribute { value, attr } = &func.kind {
                found = attr == "backward" && mentions(value, e, &params);
            }
        }
    });
    found
}

fn arg_value(a: &Arg) -> &Expr {
    match a {
        Arg::Pos(x) | Arg::Star(x) | Arg::StarStar(x) => x,
        Arg::Kw { value, .. } => value,
    }
}

/// Whether `e` holds something of `call`'s output: the call itself or a
/// name in `held`, not behind a `.detach()` (or `.item()`, …); in a
/// comprehension, through its element only (`[f.detach() for f in feats]`
/// holds nothing of `feats`' gradient).
fn mentions(e: &Expr, call: &Expr, held: &[String]) -> bool {
    mentions_at(e, call, held, 0)
}

fn mentions_at(e: &Expr, call: &Expr, held: &[String], depth: u32) -> bool {
    if std::ptr::eq(e, call) {
        return true;
    }
    if depth > 64 {
        return false;
    }
    let m = |x: &Expr| mentions_at(x, call, held, depth + 1);
    match &e.kind {
        ExprKind::Name(n) => held.contains(n),
        ExprKind::Call { func, args, .. } => {
            if let ExprKind::Attribute { attr, .. } = &func.kind {
                if DETACHING.contains(&attr.as_str()) {
                    return false;
                }
            }
            m(func) || args.iter().any(|a| m(arg_value(a)))
        }
        ExprKind::Attribute { value, .. } | ExprKind::Starred(value) | ExprKind::Await(value) => m(value),
        ExprKind::Named { value, .. } | ExprKind::Unary { operand: value, .. } | ExprKind::Not(value) => m(value),
        ExprKind::Subscript { value, index } => m(value) || m(index),
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => items.iter().any(m),
        ExprKind::Dict(items) => items.iter().any(|i| match i {
            crate::training::ast::DictItem::Pair { key, value, .. } => m(key) || m(value),
            crate::training::ast::DictItem::Splat(x) => m(x),
        }),
        ExprKind::BinOp { left, right, .. } | ExprKind::BoolOp { left, right, .. } => m(left) || m(right),
        ExprKind::Compare { left, rest } => m(left) || rest.iter().any(|(_, x)| m(x)),
        ExprKind::IfExp { body, orelse, .. } => m(body) || m(orelse),
        ExprKind::Comp { elt, value, gens, .. } => {
            let mut inner = held.to_vec();
            for g in gens {
                if mentions_at(&g.iter, call, &inner, depth + 1) {
                    names_in(&g.target, &mut inner);
                }
            }
            mentions_at(elt, call, &inner, depth + 1)
                || value
                    .as_deref()
                    .is_some_and(|v| mentions_at(v, call, &inner, depth + 1))
        }
        ExprKind::Yield(v) => v.as_deref().is_some_and(m),
        _ => false,
    }
}

/// The names a target binds (`a`, `a, (b, c)`, `*rest`), and the name a
/// subscript or attribute target stores into (`losses["l1"] = …`).
fn names_in(t: &Expr, out: &mut Vec<String>) {
    match &t.kind {
        ExprKind::Name(n) => out.push(n.clone()),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for i in items {
                names_in(i, out);
            }
        }
        ExprKind::Starred(inner) => names_in(inner, out),
        ExprKind::Subscript { value, .. } => {
            if let ExprKind::Name(n) = &value.kind {
                out.push(n.clone());
            }
        }
        _ => {}
    }
}

/// Inside `with model.no_sync():`: the code chose to skip the reduction.
fn in_no_sync(anc: &[Anc<'_>]) -> bool {
    anc.iter().any(|a| match a {
        Anc::Stmt(st) => match &st.kind {
            StmtKind::With { items, .. } => items.iter().any(|i| {
                matches!(&i.ctx.kind, ExprKind::Call { func, .. }
                    if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "no_sync"))
            }),
            _ => false,
        },
        _ => false,
    })
}

/// Whether the code averages gradients itself: an `all_reduce` (of torch
/// or a project helper named so) whose argument reads a `.grad`.
fn grads_averaged_by_hand(code: &Code<'_>) -> bool {
    let prog = code.prog;
    let mut found = false;
    for scope in code.scopes_with_words(&["all_reduce", "allreduce", "all_reduce_coalesced"]) {
        prog.walk_exprs(scope, &mut |_, e| {
            if found {
                return;
            }
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            let Some(name) = called_name(func) else { return };
            if !matches!(name, "all_reduce" | "allreduce" | "all_reduce_coalesced") {
                return;
            }
            found = args.iter().any(|a| {
                let text = code.text(scope.m, arg_value(a).span);
                text.contains("grad")
            });
        });
        if found {
            break;
        }
    }
    found
}
