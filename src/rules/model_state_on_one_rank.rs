declare_rule! {
    /// ## What it checks
    /// A method of a model class (a `LightningModule` or a torch
    /// `nn.Module`) decorated with Lightning's `@rank_zero_only` that
    /// changes the model's own state: registers a buffer or a parameter
    /// (`self.register_buffer("scale_factor", 1.0 / z.std())`), or writes a
    /// parameter's or buffer's data (`self.w.data = …`,
    /// `self.w.data.copy_(…)`, `self.w.data.fill_(…)`), in code that runs once
    /// per rank (a multi-rank program, or a module of the code whose Trainer
    /// runs several ranks). Lightning calls its hooks on every rank; the
    /// decorator makes the method a no-op on all but rank 0.
    ///
    /// Silent for methods that only log, print or save (what
    /// `@rank_zero_only` is for), for state the method keeps in plain
    /// attributes, and where no program of the code runs ranks.
    ///
    /// ## Why
    /// The ranks of a data-parallel job each hold a copy of the model and stay
    /// equal because they start equal and apply the same averaged gradients.
    /// A change made on rank 0 alone breaks that: the other ranks keep the old
    /// buffer or weights. DDP does not repair it — it broadcasts only the
    /// buffers it found when it wrapped the model, and a buffer registered
    /// again is a new tensor it does not know. This is latent diffusion's
    /// `on_train_batch_start` that sets `scale_factor = 1 / std` of the first
    /// batch's latents under `@rank_zero_only`: rank 0 trains on rescaled
    /// latents, every other rank on unscaled ones, and their gradients are
    /// averaged together. Compute the value on every rank (each from its own
    /// batch, then averaged, or broadcast from rank 0 with
    /// `self.trainer.strategy.broadcast(value)`), and keep `@rank_zero_only`
    /// for the printing.
    ///
    /// ## Example
    /// ```python
    /// class LatentDiffusion(pl.LightningModule):
    ///     @rank_zero_only                                    # warning: rank 0 only
    ///     @torch.no_grad()
    ///     def on_train_batch_start(self, batch, batch_idx):
    ///         if self.scale_by_std and self.global_step == 0 and batch_idx == 0:
    ///             z = self.encode(batch["image"])
    ///             del self.scale_factor
    ///             self.register_buffer("scale_factor", 1.0 / z.flatten().std())
    ///
    /// # fix: drop @rank_zero_only; compute the std on every rank and
    /// # average it (self.all_gather(std).mean()) before registering
    /// ```
    pub static MODEL_STATE_ON_ONE_RANK = {
        code: "T116",
        name: "model-state-on-one-rank",
        family: Training,
        severity: Warning,
        summary: "A method that runs on rank 0 only changes the model's buffers or weights",
    };
}

use super::training_support::{code, excerpt};
use super::{Cx, Sink};
use crate::training::ast::{Expr, ExprKind, StmtKind};
use crate::training::program::{ClassId, Program, Scope, Sym};
use crate::training::runtime;

/// In-place writes of a tensor's data.
const IN_PLACE: &[&str] = &[
    "copy_", "fill_", "zero_", "mul_", "add_", "sub_", "div_", "clamp_", "normal_", "uniform_",
];

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    let prog = code.prog;
    let mut ranks_anywhere: Option<bool> = None;
    for scope in code.scopes_with_words(&["rank_zero_only"]) {
        let Some(f) = scope.func() else { continue };
        let Some(func) = prog.func(f) else { continue };
        let Some(k) = prog.class_of(f) else { continue };
        let def = prog.def_scope_of(f);
        let Some(decorator) = func.decorators.iter().find(|d| rank_zero_only(prog, def, d)) else {
            continue;
        };
        if !model_class(prog, k) {
            continue;
        }
        if !code.rt.world_at(prog, scope.m).distributed()
            && !*ranks_anywhere.get_or_insert_with(|| runtime::lightning_ranks_anywhere(prog))
        {
            continue;
        }
        let Some((at, what)) = first_state_change(prog, scope) else {
            continue;
        };
        let d = out.at_loc(
            code.loc(scope.m, at.span),
            format!(
                "`{}` changes the model's state in `{}`, which `@rank_zero_only` runs on rank 0 alone: the other ranks keep the old {what}, and from here on the ranks train different models whose gradients are averaged together",
                excerpt(code.text(scope.m, at.span)),
                func.name,
            ),
        );
        d.help("compute the value on every rank and agree on it (average it with `self.all_gather(x).mean()`, or broadcast rank 0's with `self.trainer.strategy.broadcast(x)`) before storing it, and keep `@rank_zero_only` for printing and logging");
        d.label(code.file(scope.m), decorator.span, "runs on rank 0 only");
    }
}

/// Lightning's `rank_zero_only` (from any of its modules), or a decorator
/// of that name the code does not resolve.
fn rank_zero_only(prog: &Program, scope: Scope, d: &Expr) -> bool {
    match prog.expr_sym(scope, d) {
        Some(Sym::External(p)) => p.rsplit('.').next() == Some("rank_zero_only"),
        Some(_) => false,
        None => matches!(&d.kind, ExprKind::Name(n) if n == "rank_zero_only"),
    }
}

/// A `LightningModule` or a torch module of the code.
fn model_class(prog: &Program, k: ClassId) -> bool {
    prog.derives_from(k, crate::training::program::TORCH_MODULE) || runtime::lightning_module(prog, k)
}

/// The first change of the model's registered state in the method's body:
/// the expression, and what it changes (for the message).
fn first_state_change(prog: &Program, scope: Scope) -> Option<(&Expr, String)> {
    let mut found: Option<(&Expr, String)> = None;
    prog.walk_stmts(scope, &mut |_, st| {
        if found.is_some() {
            return;
        }
        let exprs: Vec<&Expr> = match &st.kind {
            StmtKind::Expr(e) => vec![e],
            StmtKind::Assign { targets, .. } => {
                // `self.w.data = …`
                if let Some(t) = targets.iter().find(|t| data_of_self(prog, scope, t)) {
                    found = Some((t, format!("value of `{}` (DDP averages gradients, not weights or buffers: nothing copies rank 0's change to them)", attr_path(t))));
                }
                return;
            }
            _ => return,
        };
        for e in exprs {
            let ExprKind::Call { func, args, .. } = &e.kind else { continue };
            let ExprKind::Attribute { value, attr } = &func.kind else { continue };
            match attr.as_str() {
                "register_buffer" | "register_parameter" if prog.self_class(scope, value).is_some() => {
                    let name = match runtime::pos(args, 0).map(|a| &a.kind) {
                        Some(ExprKind::Str(n)) => format!("`{n}`"),
                        _ => "one".to_string(),
                    };
                    let what = if attr == "register_buffer" {
                        format!("buffer {name} (DDP broadcasts only the buffers it found when it wrapped the model: a buffer registered again is a new tensor it does not copy)")
                    } else {
                        format!("parameter {name} (DDP keeps the ranks' weights equal only by averaging their gradients)")
                    };
                    found = Some((e, what));
                    return;
                }
                a if IN_PLACE.contains(&a) && data_of_self(prog, scope, value) => {
                    found = Some((e, format!("value of `{}` (DDP averages gradients, not weights or buffers: nothing copies rank 0's change to them)", attr_path(value))));
                    return;
                }
                _ => {}
            }
        }
    });
    found
}

/// Whether `e` is `self.<…>.data`.
fn data_of_self(prog: &Program, scope: Scope, e: &Expr) -> bool {
    let ExprKind::Attribute { value, attr } = &e.kind else {
        return false;
    };
    if attr != "data" {
        return false;
    }
    let mut cur: &Expr = value;
    while let ExprKind::Attribute { value, .. } = &cur.kind {
        if prog.self_class(scope, value).is_some() {
            return true;
        }
        cur = value;
    }
    false
}

/// `self.w.data` → `self.w`.
fn attr_path(e: &Expr) -> String {
    fn go(e: &Expr, out: &mut Vec<String>) -> bool {
        match &e.kind {
            ExprKind::Name(n) => {
                out.push(n.clone());
                true
            }
            ExprKind::Attribute { value, attr } => {
                let ok = go(value, out);
                out.push(attr.clone());
                ok
            }
            _ => false,
        }
    }
    let mut parts = Vec::new();
    if !go(e, &mut parts) {
        return "the tensor".to_string();
    }
    if parts.last().is_some_and(|p| p == "data") {
        parts.pop();
    }
    parts.join(".")
}
