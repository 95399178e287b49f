//! T105 at a helper's call sites: a loader built in a function from its
//! parameters (`make_loader(ds, num_workers, persistent_workers=False)`)
//! whose values differ between callers is judged at each call site, with
//! the site's own arguments, and reported there.

use super::{reiterated, Written, MANY};
use crate::diagnostic::Edit;
use crate::rules::training_support::{add_argument, Code};
use crate::training::ast::{Arg, Expr, ExprKind};
use crate::training::program::{Anc, Bound, FuncId, LocalDef, Scope};
use crate::training::runtime;

/// Most call sites of one helper looked at.
const MAX_SITES: usize = 16;

/// One call site where the loader starts many workers again at each pass.
pub(super) struct Hit<'p> {
    /// Where to report: the site's argument for the worker count (or for
    /// `persistent_workers`), with the count resolved there.
    pub workers: Written<'p>,
    pub edit: Option<Edit>,
    /// Built on every rank but passed over on one only: its workers start
    /// there alone.
    pub one_rank: bool,
}

/// The parameter of `f` that `e` (in `f`'s body) reads unchanged.
fn param_of(code: &Code<'_>, f: FuncId, e: &Expr) -> Option<(usize, String)> {
    let ExprKind::Name(n) = &e.kind else { return None };
    match code.prog.local_defs(f, n).as_slice() {
        [LocalDef::Param(i)] => Some((*i, n.clone())),
        _ => None,
    }
}

/// Whether `e` (in `scope`) is the function's own `**kwargs` parameter,
/// read unchanged.
pub(super) fn kwargs_param(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    let Some(f) = scope.func() else { return false };
    let Some((i, _)) = param_of(code, f, e) else {
        return false;
    };
    code.prog
        .func(f)
        .and_then(|x| x.params.get(i))
        .is_some_and(|p| p.kind == crate::training::ast::ParamKind::KwArgs)
}

/// The keyword `name` a call passes into the callee's `**kwargs`: given,
/// left out (`Missing`: the option keeps the loader's default), or not
/// known where the call splats a mapping of its own.
fn kwargs_bound<'p>(call: &'p Expr, name: &str) -> Bound<'p> {
    let ExprKind::Call { args, .. } = &call.kind else {
        return Bound::Unknown;
    };
    for a in args {
        match a {
            Arg::Kw { name: n, value, .. } if n == name => return Bound::Given(value),
            Arg::StarStar(_) => return Bound::Unknown,
            _ => {}
        }
    }
    Bound::Missing
}

/// The span of the argument of `call` whose value is `e` (a keyword
/// argument's whole `name=value`).
fn arg_span(call: &Expr, e: &Expr) -> Option<crate::source::Span> {
    let ExprKind::Call { args, .. } = &call.kind else {
        return None;
    };
    args.iter().find_map(|a| match a {
        Arg::Kw { value, span, .. } if std::ptr::eq(value, e) => Some(*span),
        Arg::Pos(v) if std::ptr::eq(v, e) => Some(v.span),
        _ => None,
    })
}

pub(super) fn hits<'p>(
    code: &Code<'p>,
    scope: Scope,
    loader: &'p Expr,
    _anc: &[Anc<'p>],
    workers: &Written<'p>,
    persistent: Option<&Written<'p>>,
    ranks: bool,
) -> Vec<Hit<'p>> {
    let prog = code.prog;
    let mut out = Vec::new();
    let Some(f) = scope.func() else { return out };
    // Only values written in the loader call itself (not a `**kwargs`
    // dict) are followed to the callers.
    if workers.scope != scope || persistent.is_some_and(|p| p.scope != scope) {
        return out;
    }
    let w_param = param_of(code, f, workers.value);
    let p_param = persistent.and_then(|p| param_of(code, f, p.value));
    if w_param.is_none() && p_param.is_none() {
        return out;
    }
    // The helper must hand the loader back to its callers.
    let returned = prog.returns(f).iter().any(|r| std::ptr::eq(*r, loader))
        || prog
            .returns(f)
            .iter()
            .any(|r| matches!(&r.kind, ExprKind::Name(n) if loader_bound_to(code, f, n, loader)));
    if !returned {
        return out;
    }
    let Some(func) = prog.func(f) else { return out };
    let def_scope = f.scope();
    let is_kwargs = |p: &Option<(usize, String)>| {
        p.as_ref()
            .and_then(|(i, _)| func.params.get(*i))
            .is_some_and(|p| p.kind == crate::training::ast::ParamKind::KwArgs)
    };
    let (w_kwargs, p_kwargs) = (is_kwargs(&w_param), is_kwargs(&p_param));
    let bind = |call: &'p Expr, i: usize, kwargs: bool, option: &str| match kwargs {
        true => kwargs_bound(call, option),
        false => prog.bind(f, call, i),
    };
    for (site_scope, call) in prog.call_sites(f).into_iter().take(MAX_SITES) {
        // The worker count at this site.
        let (w_expr, w_scope, w_span) = match &w_param {
            Some((i, _)) => match bind(call, *i, w_kwargs, "num_workers") {
                Bound::Given(e) => (e, site_scope, arg_span(call, e)),
                Bound::Default(d) => (d, def_scope, None),
                _ => continue,
            },
            None => (workers.value, scope, None),
        };
        // As at the loader: a config object's default, or the values of
        // the config files the code loads at run time, count.
        let resolved = runtime::constant_or_default(prog, code.cfg, code.rt, w_scope, w_expr);
        let n = resolved
            .as_ref()
            .and_then(|r| r.ints())
            .and_then(|v| v.into_iter().max());
        // Counts from config files: every file must start workers.
        let some_file_without = resolved
            .as_ref()
            .filter(|r| r.from_files.is_some())
            .is_some_and(|r| r.ints().is_none_or(|v| v.iter().any(|n| *n < MANY)));
        if n.is_none_or(|n| n < MANY) || some_file_without {
            continue;
        }
        // Whether this site keeps the workers.
        let mut p_given: Option<&Expr> = None;
        let keeps = match (&p_param, persistent) {
            (Some((i, _)), _) => match bind(call, *i, p_kwargs, "persistent_workers") {
                Bound::Given(e) => {
                    p_given = Some(e);
                    runtime::constant(prog, code.cfg, code.rt, site_scope, e).and_then(|r| r.as_bool())
                }
                Bound::Default(d) => runtime::constant(prog, code.cfg, code.rt, def_scope, d).and_then(|r| r.as_bool()),
                // Not passed into `**kwargs`: the loader's default, off.
                Bound::Missing if p_kwargs => Some(false),
                _ => None,
            },
            (None, Some(p)) => runtime::constant(prog, code.cfg, code.rt, p.scope, p.value).and_then(|r| r.as_bool()),
            (None, None) => Some(false),
        };
        if keeps != Some(false) {
            continue;
        }
        let Some(anc) = prog.ancestors_of(site_scope, call) else {
            continue;
        };
        if !reiterated(code, site_scope, &anc, call) || ranks && super::one_rank(code, site_scope, &anc, call) {
            continue;
        }
        // Passed over on one rank only (a validation loader under `if
        // accelerator.is_main_process:`): as at the loader itself, only a
        // count that holds the others up for long.
        let one_rank = ranks && super::iterated_on_one_rank(code, site_scope, &anc, call);
        if one_rank && n.is_none_or(|n| n < super::ONE_RANK_MANY) {
            continue;
        }
        // Where to report: the count's argument at the site, else the
        // `persistent_workers` argument there.
        let (at_scope, at_span, at_value) = match (w_span, p_given.and_then(|e| arg_span(call, e).map(|s| (s, e)))) {
            (Some(s), _) => (site_scope, s, w_expr),
            (None, Some((s, e))) => (site_scope, s, e),
            (None, None) => continue,
        };
        let file = code.file(site_scope.m);
        let edit = match (&p_param, p_given) {
            (Some(_), Some(e)) => match e.kind {
                ExprKind::Bool(false) => Some(crate::edit::replace(file, e.span, "True")),
                _ => None,
            },
            // Into `**kwargs`, handed on to the loader.
            (Some(_), None) if p_kwargs => add_argument(file, call, prog.text(site_scope.m), "persistent_workers=True"),
            (Some((_, name)), None) => {
                let open = func.params.iter().any(|p| p.name == *name);
                if open {
                    add_argument(file, call, prog.text(site_scope.m), &format!("{name}=True"))
                } else {
                    None
                }
            }
            // Not a parameter: the loader call's own edit.
            (None, _) => super::persistent_edit(code, workers, persistent, "persistent_workers"),
        };
        out.push(Hit {
            workers: Written {
                scope: at_scope,
                span: at_span,
                value: at_value,
                resolved,
                per_cpu: false,
                through: None,
            },
            edit,
            one_rank,
        });
    }
    out
}

/// Whether the local `name` of `f` is bound only to `loader`.
fn loader_bound_to(code: &Code<'_>, f: FuncId, name: &str, loader: &Expr) -> bool {
    let defs = code.prog.local_defs(f, name);
    !defs.is_empty()
        && defs
            .iter()
            .all(|d| matches!(d, LocalDef::Assign { value, proj } if proj.is_empty() && std::ptr::eq(*value, loader)))
}
