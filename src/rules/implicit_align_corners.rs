declare_rule! {
    /// ## What it checks
    /// `torch.nn.functional.interpolate` (any import path or alias) and
    /// `torch.nn.Upsample` in a linear mode — `linear`, `bilinear`, `bicubic`,
    /// `trilinear` — without an `align_corners` argument. Nearest-neighbour modes,
    /// `nn.UpsamplingBilinear2d`, calls whose mode or arguments stagec cannot read,
    /// and resizers outside PyTorch (OpenCV, PIL, torchvision transforms) are left
    /// alone.
    ///
    /// ## Why
    /// For these modes `align_corners` decides whether the corner pixels of input and
    /// output line up (`True`) or the pixel areas do (`False`). Left out, PyTorch
    /// uses `False` without saying so (releases before 0.4 used `True`). Code ported
    /// from elsewhere, or a model that passes `align_corners=True` in other places,
    /// then resamples feature maps on two different grids and misaligns multi-scale
    /// features by a fraction of a pixel. Writing the value keeps every call site
    /// deliberate. It is a warning when another call in the same file passes
    /// `align_corners=True` (a call in another package, a vocoder's resampling
    /// beside a feature pyramid, says nothing of this one's grid).
    ///
    /// ## Example
    /// ```python
    /// up = F.interpolate(x, size=skip.shape[-2:], mode="bilinear")                       # info
    /// up = F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False)  # fix
    /// ```
    pub static IMPLICIT_ALIGN_CORNERS = {
        code: "T111",
        name: "implicit-align-corners",
        family: Training,
        severity: Info,
        summary: "Linear-mode interpolation relies on the implicit align_corners default",
    };
}

use super::training_support::{add_argument, code, Code};
use super::{Cx, Sink};
use crate::diagnostic::Severity;
use crate::source::Span;
use crate::training::ast::{Expr, ExprKind};
use crate::training::program::{ModId, Scope};
use crate::training::runtime::{arg, has_splat, kw};

const LINEAR: &[&str] = &["linear", "bilinear", "bicubic", "trilinear"];

/// The call's kind: `(mode position, align_corners position)`.
fn kind(path: &str) -> Option<(usize, usize)> {
    match path {
        "torch.nn.functional.interpolate" | "torch.nn.functional.upsample" => Some((3, 4)),
        "torch.nn.Upsample" => Some((2, 3)),
        _ => None,
    }
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    let mut implicit: Vec<(ModId, &Expr, String)> = Vec::new();
    let mut explicit_true: Vec<(ModId, Span)> = Vec::new();
    for scope in code.scopes_for(
        &[
            "torch.nn.functional.interpolate",
            "torch.nn.functional.upsample",
            "torch.nn.Upsample",
        ],
        &[],
    ) {
        code.prog.walk_exprs(scope, &mut |_, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            let Some(path) = code.prog.external(scope, func) else {
                return;
            };
            let Some((mode_at, align_at)) = kind(&path) else { return };
            if let Some(a) = arg(args, "align_corners", align_at) {
                if matches!(a.kind, ExprKind::Bool(true)) && !explicit_true.iter().any(|(m, _)| *m == scope.m) {
                    explicit_true.push((scope.m, e.span));
                }
                return;
            }
            if has_splat(args) {
                return;
            }
            if let Some(mode) = linear_mode(&code, scope, args, mode_at) {
                implicit.push((scope.m, e, mode));
            }
        });
    }
    for (m, call, mode) in implicit {
        let d = out.at_loc(
            code.loc(m, call.span),
            format!("mode=\"{mode}\" without align_corners uses align_corners=False implicitly"),
        );
        // Only a call of the same file makes it a warning: a vocoder
        // package's resampling elsewhere says nothing of this call's grid.
        if let Some((tm, span)) = explicit_true.iter().find(|(tm, _)| *tm == m) {
            d.severity(Severity::Warning);
            d.message
                .push_str(", while another call in this file passes align_corners=True");
            d.label(code.file(*tm), *span, "align_corners=True here");
        }
        d.help("write the value: align_corners=False keeps today's behaviour; True aligns the corner pixels");
        if let Some(edit) = add_argument(code.file(m), call, code.prog.text(m), "align_corners=False") {
            d.fix("add align_corners=False (the current behaviour)", vec![edit]);
        }
    }
}

/// The call's linear mode, when it resolves to one.
fn linear_mode(code: &Code<'_>, scope: Scope, args: &[crate::training::ast::Arg], at: usize) -> Option<String> {
    let mode = kw(args, "mode").or_else(|| crate::training::runtime::pos(args, at))?;
    let r = crate::training::runtime::constant(code.prog, code.cfg, code.rt, scope, mode)?;
    let s = r.as_str()?;
    LINEAR.contains(&s).then(|| s.to_string())
}
