//! Constant values of expressions: literals, module constants, `int()`
//! and `str()`, dict literals and `**kwargs` of them, call-site arguments,
//! the experiment's `hyperparameters` and `data` (through
//! `context.get_hparam("k")`, `get_hparams()[…]`, `get_data_config()[…]`,
//! `AttrDict(…)`, `det.get_cluster_info().trial.hparams`) and `argparse`
//! arguments (the entrypoint's argv, else `default=`). Anything else is
//! unknown: a rule that needs the value stays silent.

use serde_json::Value as Json;

use super::ast::{Arg, Expr, ExprKind, StmtKind};
use super::program::{Anc, Callee, Key, Program, Proj, Scope, Sym, Term};
use crate::source::Span;
use crate::training::program::ModId;
use crate::training::run_files::{Format, Found, RunFiles, Seg};
use crate::yaml::PathSeg;

/// A constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
}

/// The values an expression may take (several for a searched
/// hyperparameter), and the config value it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub values: Vec<Const>,
    pub via: Option<Vec<PathSeg>>,
    /// A default the run may replace: the store (`_C.DATA.NUM_WORKERS = 8`)
    /// of a config object the code merges a file or the command line into
    /// at run time. Only where the caller asked for such defaults
    /// ([`Env::merged_defaults`]).
    pub default_at: Option<(ModId, Span)>,
    /// Read from the project's config files the code loads at run time
    /// (only where the caller asked for such values, [`Env::run_files`]).
    pub from_files: Option<FromFiles>,
}

/// Values read from config files the code loads at run time: where the
/// first is written, and how many files were read.
#[derive(Clone, Debug, PartialEq)]
pub struct FromFiles {
    pub format: Format,
    pub first: Found,
    /// The files that set the path (each holds one of the values).
    pub files: usize,
    /// Whether the code names the file (a constant path), rather than one
    /// given at run time (every such file of the project was read).
    pub named: bool,
}

impl Resolved {
    /// The one value, when there is exactly one.
    pub fn single(&self) -> Option<&Const> {
        match self.values.as_slice() {
            [v] => Some(v),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.single()? {
            Const::Bool(b) => Some(*b),
            Const::Int(i) => Some(*i != 0),
            Const::None => Some(false),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self.single()? {
            Const::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integers, when every value is one.
    pub fn ints(&self) -> Option<Vec<i64>> {
        self.values
            .iter()
            .map(|v| match v {
                Const::Int(i) => Some(*i),
                Const::Bool(b) => Some(i64::from(*b)),
                _ => None,
            })
            .collect()
    }
}

/// What values are resolved against: the config and the entrypoint's argv.
pub struct Env<'a> {
    pub config: Option<&'a Json>,
    pub argv: &'a [String],
    /// Whether a config object's default counts where the code merges a
    /// file or the command line into it at run time (the value is then
    /// marked [`Resolved::default_at`]); otherwise such a value is unknown.
    pub merged_defaults: bool,
    /// The project's config files the code may load at run time, read for
    /// values only where given (with [`Env::merged_defaults`]: values the
    /// run may replace); the value is then marked [`Resolved::from_files`].
    pub run_files: Option<&'a RunFiles>,
    /// Bindings the caller knows the run it asks about does not make (a
    /// loader of a multi-rank job: the `else` of `if opt["dist"]:`), left
    /// out.
    pub untaken: Option<super::program::Skip<'a>>,
}

/// The calls that load a config file's values at run time (read from the
/// project's files with [`Env::run_files`]).
const RUN_FILE_LOADERS: &[&str] = &[
    "json.load",
    "json.loads",
    "yaml.safe_load",
    "yaml.load",
    "yaml.full_load",
    "yaml.unsafe_load",
    "omegaconf.OmegaConf.load",
];

/// Most candidates a searched integer range is expanded to.
const MAX_CANDIDATES: i64 = 4096;
/// Deepest chain of terms followed for one value.
const MAX_DEPTH: u32 = 24;

/// The constant value of `e` in `scope`, if it has one.
pub fn constant(prog: &Program, env: &Env<'_>, scope: Scope, e: &Expr) -> Option<Resolved> {
    constant_at(prog, env, scope, e, 0)
}

fn constant_at(prog: &Program, env: &Env<'_>, scope: Scope, e: &Expr, depth: u32) -> Option<Resolved> {
    constant_before(prog, env, scope, e, depth, None)
}

/// The constant value of field `field` of `e` (`args.devices` for the
/// namespace `args`), if it has one.
pub fn field_constant(prog: &Program, env: &Env<'_>, scope: Scope, e: &Expr, field: &str) -> Option<Resolved> {
    let r = prog.sources_with(scope, e, vec![Proj::Attr(field.to_string())]);
    resolve_terms(prog, env, &r, 0)
}

/// [`constant_at`], leaving out the bindings inside `after` (the body of an
/// `if` whose test is read: its bindings come after the test).
fn constant_before(
    prog: &Program,
    env: &Env<'_>,
    scope: Scope,
    e: &Expr,
    depth: u32,
    after: Option<Span>,
) -> Option<Resolved> {
    if depth > 8 {
        return None;
    }
    // Bindings inside `after` come after the test that reads `e`.
    let later =
        |s: Scope, v: &Expr| after.is_some_and(|a| s.m == scope.m && a.start <= v.span.start && v.span.end <= a.end);
    let skipped = |s: Scope, v: &Expr| later(s, v) || env.untaken.is_some_and(|f| f(s, v));
    let sources = match (after, env.untaken) {
        (None, None) => prog.sources(scope, e),
        _ => prog.sources_skipping(scope, e, &skipped),
    };
    let several = sources.unknown || sources.terms.len() > 1;
    let unknown = sources.unknown;
    if let Some(r) = sources_value(prog, env, scope, sources, depth, after) {
        return Some(r);
    }
    // An object stagec cannot follow to its making, whose type the code
    // states (`def __init__(self, args: Args)`): a field default of that
    // config class (`num_workers: int = 8`).
    if unknown {
        if let Some(r) = annotated_field_default(prog, scope, e) {
            return Some(r);
        }
    }
    // A binding stagec cannot follow on a branch the default run does not
    // take (`if args.ckpt is not None: args = ckpt["args"]`, the
    // checkpoint's own arguments): the value read is the default run's.
    if !several {
        return None;
    }
    let skipping = prog.sources_skipping(scope, e, &|s, v| {
        skipped(s, v) || untaken_by_default(prog, env, s, v, depth)
    });
    sources_value(prog, env, scope, skipping, depth, after)
}

/// `obj.field` where `obj` is a parameter annotated with a config class
/// of the training code (`args: Args`), or `self.x` stored from one in
/// `__init__`: the class's own default for the field (`num_workers: int =
/// 8`, a dataclass's or a pydantic model's), where the class sets it in its
/// body, no method of it assigns the field, and no code stores to a field
/// of that name anywhere.
fn annotated_field_default(prog: &Program, scope: Scope, e: &Expr) -> Option<Resolved> {
    let ExprKind::Attribute { value, attr } = &e.kind else {
        return None;
    };
    let f = scope.func()?;
    let func = prog.func(f)?;
    let annotated = |func: &super::ast::Function, name: &str, fs: Scope| -> Option<super::program::ClassId> {
        let p = func.params.iter().find(|p| p.name == name)?;
        match prog.expr_sym(fs, p.annotation.as_ref()?) {
            Some(Sym::Class(k)) => Some(k),
            _ => None,
        }
    };
    let k = match &value.kind {
        ExprKind::Name(n) => annotated(func, n, scope)?,
        // `self.args.num_workers`, with `self.args = args` in `__init__`.
        ExprKind::Attribute { value: me, attr: held } => {
            let owner = prog.self_class(scope, me)?;
            let init = prog.method(owner, "__init__")?;
            let init_fn = prog.func(init)?;
            let is = init.scope();
            let mut from = None;
            prog.walk_stmts(is, &mut |_, st| {
                if let StmtKind::Assign { targets, value } = &st.kind {
                    let stores = targets
                        .iter()
                        .any(|t| matches!(&t.kind, ExprKind::Attribute { attr, .. } if attr == held));
                    if let (true, ExprKind::Name(p), None) = (stores, &value.kind, &from) {
                        from = Some(p.clone());
                    }
                }
            });
            annotated(init_fn, &from?, is)?
        }
        _ => return None,
    };
    let class = prog.class(k)?;
    let default = class.body.iter().find_map(|st| match &st.kind {
        StmtKind::AnnAssign { target, value: Some(v) } if matches!(&target.kind, ExprKind::Name(n) if n == attr) => {
            Some(v)
        }
        StmtKind::Assign { targets, value }
            if targets.len() == 1 && matches!(&targets[0].kind, ExprKind::Name(n) if n == attr) =>
        {
            Some(value)
        }
        _ => None,
    })?;
    let v = literal(default)?;
    if field_stored(prog, attr) {
        return None;
    }
    one(v)
}

/// The value of the origins `sources` of an expression in `scope`.
fn sources_value(
    prog: &Program,
    env: &Env<'_>,
    scope: Scope,
    mut sources: super::program::Sources<'_>,
    depth: u32,
    after: Option<Span>,
) -> Option<Resolved> {
    if let Some(a) = after {
        sources
            .terms
            .retain(|t| !(t.scope.m == scope.m && a.start <= t.expr.span.start && t.expr.span.end <= a.end));
    }
    if sources.unknown || sources.terms.is_empty() {
        return None;
    }
    let mut values = Vec::new();
    let mut via = None;
    let mut default_at = None;
    let mut from_files = None;
    for t in &sources.terms {
        // `args = get_parser(); args = args.parse_args()` at module level:
        // the parser itself has no option attributes, so that binding is
        // not the one an `args.workers` read sees.
        if parser_without_attr(prog, t) && sources.terms.len() > 1 {
            continue;
        }
        // `config = yaml.load(f)` then `config = DotMap(config)`: a plain
        // dict has no attributes, so the first binding is not the one a
        // read like `config.data.workers` sees.
        if sources.terms.len() > 1
            && plain_dict_read_by_attr(prog, t)
            && sources.terms.iter().any(|o| is_mapping_wrapper_call(prog, o))
        {
            continue;
        }
        // `params = None` before the real binding (`with open(f) as y:
        // params = yaml.load(y)`): `None` read with a key or attribute would
        // raise, so that binding is not the one a read like `params["data"]`
        // sees.
        if !t.proj.is_empty() && matches!(t.expr.kind, ExprKind::None) && sources.terms.len() > 1 {
            continue;
        }
        // `if args.ckpt is not None: args = ckpt["args"]`: a binding on a
        // branch the run with the flags' defaults does not take, beside the
        // one it keeps — the value read is the default run's, as a flag's
        // default is.
        if sources.terms.len() > 1 && untaken_by_default(prog, env, t.scope, t.expr, depth) {
            continue;
        }
        let r = term_value(prog, env, t, depth)?;
        if via.is_none() {
            via = r.via;
        }
        default_at = default_at.or(r.default_at);
        from_files = from_files.or(r.from_files);
        for v in r.values {
            if !values.contains(&v) {
                values.push(v);
            }
        }
    }
    Some(Resolved {
        values,
        via,
        default_at,
        from_files,
    })
}

/// Whether the binding of term `t` sits in the body of an `if` whose test
/// is false on the run with the flags' and configs' defaults: `x is not
/// None`, `x` (also `not x`, `x is None` in an `else`) with `x` resolved to
/// one value. The test is read only where it is that simple.
fn untaken_by_default(prog: &Program, env: &Env<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    let Some(anc) = prog.ancestors_of(scope, e) else {
        return false;
    };
    anc.iter().any(|a| {
        let Anc::Stmt(st) = a else { return false };
        let Some((test, taken)) = super::program::if_arm(st, e.span) else {
            return false;
        };
        let branches = Span::new(test.span.end, st.span.end);
        default_truth(prog, env, scope, test, depth, branches).is_some_and(|v| v != taken)
    })
}

/// The truth of a simple test on the default run: `x`, `not x`, `x is
/// None`, `x is not None`, with `x` resolved to exactly one value.
fn default_truth(prog: &Program, env: &Env<'_>, scope: Scope, test: &Expr, depth: u32, after: Span) -> Option<bool> {
    let single = |e: &Expr| {
        let r = constant_before(prog, env, scope, e, depth + 1, Some(after))?;
        match r.values.as_slice() {
            [v] => Some(v.clone()),
            _ => None,
        }
    };
    let truthy = |v: &Const| match v {
        Const::None => Some(false),
        Const::Bool(b) => Some(*b),
        Const::Int(i) => Some(*i != 0),
        Const::Str(s) => Some(!s.is_empty()),
        _ => None,
    };
    match &test.kind {
        ExprKind::Not(inner) => default_truth(prog, env, scope, inner, depth + 1, after).map(|b| !b),
        ExprKind::Compare { left, rest } => match rest.as_slice() {
            [(op, right)] if matches!(right.kind, ExprKind::None) && (op == "is" || op == "is not") => {
                let is_none = matches!(single(left)?, Const::None);
                Some(if op == "is" { is_none } else { !is_none })
            }
            _ => None,
        },
        ExprKind::Name(_) | ExprKind::Attribute { .. } => truthy(&single(test)?),
        _ => None,
    }
}

/// An `argparse.ArgumentParser(…)` read through an attribute that is not
/// one of its own (`parser.num_workers`).
fn parser_without_attr(prog: &Program, t: &Term<'_>) -> bool {
    let ExprKind::Call { func, .. } = &t.expr.kind else {
        return false;
    };
    let [Proj::Attr(a)] = t.proj.as_slice() else {
        return false;
    };
    !a.starts_with("parse_")
        && !a.starts_with("add_")
        && !a.starts_with("set_")
        && prog.external(t.scope, func).as_deref() == Some("argparse.ArgumentParser")
}

fn literal(e: &Expr) -> Option<Const> {
    Some(match &e.kind {
        ExprKind::Int(i) => Const::Int(*i),
        ExprKind::Float(f) => Const::Float(*f),
        ExprKind::Str(s) => Const::Str(s.clone()),
        ExprKind::Bool(b) => Const::Bool(*b),
        ExprKind::None => Const::None,
        ExprKind::Unary { op, operand } if op == "-" => match literal(operand)? {
            Const::Int(i) => Const::Int(-i),
            Const::Float(f) => Const::Float(-f),
            _ => return None,
        },
        _ => return None,
    })
}

fn one(v: Const) -> Option<Resolved> {
    Some(Resolved {
        values: vec![v],
        via: None,
        default_at: None,
        from_files: None,
    })
}

fn term_value(prog: &Program, env: &Env<'_>, t: &Term<'_>, depth: u32) -> Option<Resolved> {
    // A value read through itself (`config = DotMap(config)`, read again
    // through the wrapper's argument) ends here, not in the stack's end.
    if depth > MAX_DEPTH {
        return None;
    }
    if t.proj.is_empty() {
        if let Some(v) = literal(t.expr) {
            return one(v);
        }
    }
    if let Some(Proj::Config { class, init }) = t.proj.first() {
        return config_named_value(prog, env, t, class, *init, depth);
    }
    match &t.expr.kind {
        ExprKind::Not(inner) if t.proj.is_empty() => {
            let r = constant_at(prog, env, t.scope, inner, depth + 1)?;
            Some(Resolved {
                values: vec![Const::Bool(!r.as_bool()?)],
                via: r.via,
                default_at: r.default_at,
                from_files: r.from_files,
            })
        }
        ExprKind::Call { func, args, .. } => {
            call_value(prog, env, t, func, args, depth).or_else(|| module_object_attr(prog, env, t, depth))
        }
        ExprKind::BinOp { left, op, right } if t.proj.is_empty() => {
            let l = constant_at(prog, env, t.scope, left, depth + 1)?;
            let r = constant_at(prog, env, t.scope, right, depth + 1)?;
            if l.values.len().saturating_mul(r.values.len()) > 64 {
                return None;
            }
            let mut values = Vec::new();
            for a in &l.values {
                for b in &r.values {
                    let v = arithmetic(op, a, b)?;
                    if !values.contains(&v) {
                        values.push(v);
                    }
                }
            }
            Some(Resolved {
                values,
                via: l.via.or(r.via),
                default_at: l.default_at.or(r.default_at),
                from_files: l.from_files.or(r.from_files),
            })
        }
        ExprKind::Attribute { value, attr } => {
            // `<call>.trial.hparams[...]` and the like: re-enter with the
            // attribute as a projection of the call.
            let mut proj = vec![Proj::Attr(attr.clone())];
            proj.extend(t.proj.iter().cloned());
            if let ExprKind::Call { func, args, .. } = &value.kind {
                let inner = Term {
                    scope: t.scope,
                    expr: value,
                    proj,
                };
                return call_value(prog, env, &inner, func, args, depth);
            }
            None
        }
        _ => None,
    }
}

/// Whether `t` is what `json.load`/`yaml.load` returns (a plain dict or
/// list) read by attribute.
fn plain_dict_read_by_attr(prog: &Program, t: &Term<'_>) -> bool {
    let Some(path) = external_call(prog, t) else {
        return false;
    };
    RUN_FILE_LOADERS.contains(&path.as_str())
        && !path.starts_with("omegaconf.")
        && t.proj.iter().any(|p| matches!(p, Proj::Attr(_)))
}

/// The wrappers around a mapping whose attributes are its keys.
const MAPPING_WRAPPERS: &[&str] = &[
    "AttrDict",
    "EasyDict",
    "dict",
    "DotMap",
    "Box",
    "OmegaConf",
    "ConfigDict",
    "FrozenConfigDict",
];

/// Outside functions that wrap a mapping so, named by their whole path.
const MAPPING_WRAPPER_PATHS: &[&str] = &[
    "omegaconf.OmegaConf.create",
    "munch.Munch",
    "munch.Munch.fromDict",
    "munch.DefaultMunch.fromDict",
    "munch.munchify",
    "addict.Dict",
];

/// Whether the outside function or class `path` wraps a mapping whose
/// attributes are its keys: [`MAPPING_WRAPPERS`] by name,
/// [`MAPPING_WRAPPER_PATHS`] by path.
fn mapping_wrapper(path: &str) -> bool {
    MAPPING_WRAPPERS.contains(&path.rsplit('.').next().unwrap_or("")) || MAPPING_WRAPPER_PATHS.contains(&path)
}

/// Whether `t` is a call of a [`mapping_wrapper`].
fn is_mapping_wrapper_call(prog: &Program, t: &Term<'_>) -> bool {
    external_call(prog, t).is_some_and(|path| mapping_wrapper(&path))
}

/// The path of the outside function or class `t` is a call of.
fn external_call(prog: &Program, t: &Term<'_>) -> Option<String> {
    let ExprKind::Call { func, .. } = &t.expr.kind else {
        return None;
    };
    match prog.callee(t.scope, func) {
        Callee::External(path) => Some(path),
        _ => None,
    }
}

/// The format of the files a run-file loader (`json.load`, `yaml.safe_load`,
/// `OmegaConf.load`) reads.
fn loader_format(path: &str) -> Format {
    if path.starts_with("json.") {
        Format::Json
    } else {
        Format::Yaml
    }
}

/// `a op b` on numbers (`batch_size * 2`, `base + 1`): integers stay
/// integers except through `/`; `None` on overflow, division by zero or
/// anything else.
fn arithmetic(op: &str, a: &Const, b: &Const) -> Option<Const> {
    let float = |c: &Const| match c {
        Const::Int(i) => Some(*i as f64),
        Const::Float(f) => Some(*f),
        _ => None,
    };
    if let (Const::Int(x), Const::Int(y)) = (a, b) {
        return Some(Const::Int(match op {
            "+" => x.checked_add(*y)?,
            "-" => x.checked_sub(*y)?,
            "*" => x.checked_mul(*y)?,
            "//" if *y != 0 => x.checked_div_euclid(*y).filter(|_| *y > 0 || x % y == 0)?,
            "/" if *y != 0 => return Some(Const::Float(*x as f64 / *y as f64)),
            _ => return None,
        }));
    }
    let (x, y) = (float(a)?, float(b)?);
    let v = match op {
        "+" => x + y,
        "-" => x - y,
        "*" => x * y,
        "/" if y != 0.0 => x / y,
        _ => return None,
    };
    v.is_finite().then_some(Const::Float(v))
}

/// `min(a, b, …)` or `max(a, b, …)` over every combination of the
/// arguments' values (at most 64), numbers only; `None` for one argument
/// (an iterable) or anything not resolved.
fn min_max(prog: &Program, env: &Env<'_>, scope: Scope, max: bool, args: &[&Expr], depth: u32) -> Option<Resolved> {
    if args.len() < 2 || args.len() > 4 {
        return None;
    }
    let number = |c: &Const| match c {
        Const::Int(i) => Some(*i as f64),
        Const::Float(f) => Some(*f),
        _ => None,
    };
    let mut acc: Option<Resolved> = None;
    for a in args {
        let r = constant_at(prog, env, scope, a, depth + 1)?;
        if r.values.iter().any(|v| number(v).is_none()) {
            return None;
        }
        acc = Some(match acc {
            None => r,
            Some(prev) => {
                if prev.values.len().saturating_mul(r.values.len()) > 64 {
                    return None;
                }
                let mut values = Vec::new();
                for x in &prev.values {
                    for y in &r.values {
                        let (fx, fy) = (number(x)?, number(y)?);
                        let pick = if (fy > fx) == max && fy != fx { y } else { x };
                        if !values.contains(pick) {
                            values.push(pick.clone());
                        }
                    }
                }
                Resolved {
                    values,
                    via: prev.via.or(r.via),
                    default_at: prev.default_at.or(r.default_at),
                    from_files: prev.from_files.or(r.from_files),
                }
            }
        });
    }
    acc
}

/// The positional arguments of a call, in order.
fn positional_args(args: &[Arg]) -> Vec<&Expr> {
    args.iter()
        .filter_map(|a| match a {
            Arg::Pos(e) => Some(e),
            _ => None,
        })
        .collect()
}

fn call_value(prog: &Program, env: &Env<'_>, t: &Term<'_>, func: &Expr, args: &[Arg], depth: u32) -> Option<Resolved> {
    let callee = prog.callee(t.scope, func);
    let positional = positional_args(args);
    if let Callee::External(path) = &callee {
        match path.as_str() {
            "builtins.int" | "builtins.float" | "builtins.str" | "builtins.bool" if t.proj.is_empty() => {
                let [arg] = positional.as_slice() else { return None };
                let r = constant_at(prog, env, t.scope, arg, depth + 1)?;
                let values = r
                    .values
                    .iter()
                    .map(|v| convert(path, v))
                    .collect::<Option<Vec<Const>>>()?;
                return Some(Resolved {
                    values,
                    via: r.via,
                    default_at: r.default_at,
                    from_files: r.from_files,
                });
            }
            // `min(cfg.num_workers, batch_size)`, `max(4, cpus // 2)`: each
            // combination of the arguments' values (numbers only).
            "builtins.min" | "builtins.max" if t.proj.is_empty() && args.len() == positional.len() => {
                return min_max(prog, env, t.scope, path == "builtins.max", &positional, depth);
            }
            "determined.get_cluster_info" => {
                // `.trial.hparams[k]`
                return match t.proj.as_slice() {
                    [Proj::Attr(a), Proj::Attr(b), rest @ ..] if a == "trial" && b == "hparams" => {
                        config_value(env, &["hyperparameters"], rest)
                    }
                    _ => None,
                };
            }
            // A copy has the same values.
            "copy.deepcopy" | "copy.copy" => {
                let [arg] = positional.as_slice() else { return None };
                // Not when some code stores to a field of that name (the
                // copy is usually made to be changed).
                let leaf = match t.proj.last() {
                    Some(Proj::Attr(a) | Proj::Key(Key::Str(a))) => a,
                    _ => return None,
                };
                if field_stored(prog, leaf) {
                    return None;
                }
                let r = prog.sources_with(t.scope, arg, t.proj.clone());
                return resolve_terms(prog, env, &r, depth);
            }
            // `vars(args)["k"]`: the namespace's attribute.
            "builtins.vars" => {
                let [arg] = positional.as_slice() else { return None };
                let (Proj::Key(Key::Str(k)), rest) = t.proj.split_first()? else {
                    return None;
                };
                // A store through the dict (`vars(args)["k"] = …`) is not
                // the namespace's attribute store the parser's reading
                // looks for (an object's own `self.k = …` is neither).
                if field_stored_but(prog, k, false, true) {
                    return None;
                }
                let mut proj = vec![Proj::Attr(k.clone())];
                proj.extend(rest.iter().cloned());
                let r = prog.sources_with(t.scope, arg, proj);
                return resolve_terms(prog, env, &r, depth);
            }
            "argparse.ArgumentParser.parse_args" => {}
            // The config Hydra composes from the project's YAML files for
            // the function it wraps, chosen on the command line: read as
            // `OmegaConf.load` of a file named at run time.
            "hydra.main" if !t.proj.is_empty() => {
                return run_file_value(prog, env, t, "omegaconf.hydra", &[], depth);
            }
            // `OmegaConf.merge(file_cfg, cli_cfg)`: the last argument that
            // sets the key wins; one known not to set it (a namespace whose
            // parser has no such flag, the default run's empty command-line
            // overrides) is passed over.
            "omegaconf.OmegaConf.merge" if !t.proj.is_empty() && args.len() == positional.len() => {
                for a in positional.iter().rev() {
                    let mut r = prog.sources_with(t.scope, a, keyed(&t.proj));
                    // `cfg = OmegaConf.merge(cfg, cli)`: the name merged
                    // holds the merge too, afterwards; its value is the
                    // other binding's.
                    r.terms.retain(|x| !std::ptr::eq(x.expr, t.expr));
                    if let Some(v) = resolve_terms(prog, env, &r, depth + 1) {
                        return Some(v);
                    }
                    if !absent(prog, &r, depth + 1) {
                        return None;
                    }
                }
                return None;
            }
            // A parameter a `LightningCLI` fills from its YAML config
            // (`data: {num_workers: 8}`, or under the class's `init_args:`).
            p if super::program::LIGHTNING_CLI.contains(&p) => return cli_config_value(prog, env, t, depth),
            // A config file the code loads at run time.
            p if RUN_FILE_LOADERS.contains(&p) && !t.proj.is_empty() => {
                return run_file_value(prog, env, t, path, &positional, depth);
            }
            _ => {}
        }
        // Wrappers around a mapping: AttrDict, dict, EasyDict, Namespace.
        if mapping_wrapper(path) && !t.proj.is_empty() {
            let [arg] = positional.as_slice() else { return None };
            // Attribute access on these is key access, also into the
            // nested dicts (`ConfigDict({...}).data.num_workers`).
            let mut r = prog.sources_with(t.scope, arg, keyed(&t.proj));
            // `config = DotMap(config)`: the name the wrapper is handed
            // holds the wrapper too, afterwards; its value is the other
            // binding's.
            r.terms.retain(|x| !std::ptr::eq(x.expr, t.expr));
            let v = resolve_terms(prog, env, &r, depth)?;
            // A literal read by attribute: not when some code stores to a
            // field of that name (`c.loaders.num_workers = 2` on a copy).
            if v.via.is_none() {
                if let Some(Proj::Attr(leaf)) = t.proj.last() {
                    if field_stored(prog, leaf) {
                        return None;
                    }
                }
            }
            return Some(v);
        }
    }
    // A project class of the same kind (`class AttrDict(dict)` whose
    // `__init__` hands its arguments to `dict`): key access too.
    if let Callee::Class(k) = &callee {
        if !t.proj.is_empty() && mapping_class(prog, *k) {
            let [arg] = positional.as_slice() else { return None };
            let r = prog.sources_with(t.scope, arg, keyed(&t.proj));
            let v = resolve_terms(prog, env, &r, depth)?;
            // A file's values; others where no code stores to a field of
            // that name (a store to the wrapper would change it; one to an
            // object's own `self.<leaf>` does not).
            let stored = match t.proj.last() {
                Some(Proj::Attr(leaf) | Proj::Key(Key::Str(leaf))) => field_stored_but(prog, leaf, false, true),
                _ => true,
            };
            return (v.from_files.is_some() || !stored).then_some(v);
        }
        // A subclass of one that loads its own contents (`class
        // Config(AttrDict)` whose `__init__(filename)` reads a YAML file and
        // hands the mapping to `super().__init__(cfg)`): the file's values.
        if !t.proj.is_empty() {
            if let Some((init, handed)) = mapping_loaded_in_init(prog, *k) {
                let r = prog.sources_with(init, handed, keyed(&t.proj));
                let v = resolve_terms(prog, env, &r, depth)?;
                return v.from_files.is_some().then_some(v);
            }
        }
    }
    // `para['num_workers']` of a holder whose `__getitem__` reads
    // `self.args[key]`: that field's entry, unless some code stores to a
    // field of that name (`para['num_workers'] = …` through `__setitem__`,
    // `self.args['num_workers'] = …` after parsing).
    if let (Callee::Class(k), Some((Proj::Key(Key::Str(key)), _))) = (&callee, t.proj.split_first()) {
        let field = prog.item_field(*k)?;
        if field_stored(prog, key) {
            return None;
        }
        // Every assignment of the field, read as one set of sources.
        let mut all: Option<super::program::Sources<'_>> = None;
        for (scope, value, p) in prog.self_assignments(*k, field) {
            let mut full = p;
            full.extend(t.proj.iter().cloned());
            let r = prog.sources_with(scope, value?, full);
            match &mut all {
                None => all = Some(r),
                Some(acc) => {
                    acc.unknown |= r.unknown;
                    acc.terms.extend(r.terms);
                }
            }
        }
        return resolve_terms(prog, env, &all?, depth + 1);
    }
    let ExprKind::Attribute { value: recv, attr } = &func.kind else {
        return None;
    };
    let str_arg = |i: usize| {
        positional.get(i).and_then(|e| match &e.kind {
            ExprKind::Str(s) => Some(s.clone()),
            _ => None,
        })
    };
    match attr.as_str() {
        "get_hparam" => {
            let key = str_arg(0)?;
            config_value(env, &["hyperparameters", &key], &t.proj)
        }
        "get_hparams" if positional.is_empty() => config_value(env, &["hyperparameters"], &t.proj),
        "get_data_config" if positional.is_empty() => config_value(env, &["data"], &t.proj),
        "get_experiment_config" if positional.is_empty() => config_value(env, &[], &t.proj),
        // `_C.clone()` (yacs), `cfg.copy()`: the same values.
        "clone" | "copy" if positional.is_empty() && args.is_empty() && !t.proj.is_empty() => {
            let r = prog.sources_with(t.scope, recv, t.proj.clone());
            resolve_terms(prog, env, &r, depth)
        }
        "parse_args" => argparse_value(prog, env, &t.proj, depth, t.scope.m),
        "parse_known_args" => match t.proj.split_first() {
            Some((Proj::Key(Key::Int(0)), rest)) => argparse_value(prog, env, rest, depth, t.scope.m),
            _ => None,
        },
        "get" => {
            // `<mapping>.get("k", default)`.
            let key = str_arg(0)?;
            let mut proj = vec![Proj::Key(Key::Str(key))];
            proj.extend(t.proj.iter().cloned());
            let r = prog.sources_with(t.scope, recv, proj);
            match resolve_terms(prog, env, &r, depth) {
                Some(v) => Some(v),
                None => {
                    // Missing from the config: the default.
                    let from_config = r.terms.iter().all(|term| is_config_accessor(prog, term));
                    if from_config && !r.unknown {
                        positional
                            .get(1)
                            .and_then(|d| constant_at(prog, env, t.scope, d, depth + 1))
                            .or_else(|| one(Const::None))
                    } else if env.merged_defaults
                        && !r.unknown
                        && !r.terms.is_empty()
                        && r.terms.iter().all(|term| unset_in_run_files(prog, env, term))
                    {
                        // `json.load(f).get("NumLoaderWorkers", 4)` where no
                        // config file of the project sets the key: the
                        // code's default, which a run's own file may
                        // replace.
                        let d = positional.get(1)?;
                        let mut v = constant_at(prog, env, t.scope, d, depth + 1)?;
                        v.default_at = v.default_at.or(Some((t.scope.m, d.span)));
                        Some(v)
                    } else {
                        None
                    }
                }
            }
        }
        _ => None,
    }
}

/// Projections of a mapping whose attributes are its keys: each attribute
/// read as the key of that name.
fn keyed(proj: &[Proj]) -> Vec<Proj> {
    proj.iter()
        .map(|p| match p {
            Proj::Attr(a) => Proj::Key(Key::Str(a.clone())),
            p => p.clone(),
        })
        .collect()
}

/// The mapping a class hands to its base's `__init__`, where the base is a
/// [`mapping_class`] and the class's own `__init__` calls
/// `super().__init__(m)` (or `super(Cls, self).__init__(m)`) with that one
/// argument: the scope of that `__init__` and the argument.
fn mapping_loaded_in_init(prog: &Program, k: super::program::ClassId) -> Option<(Scope, &Expr)> {
    if !prog.bases(k).into_iter().any(|b| mapping_class(prog, b)) {
        return None;
    }
    let init = prog.own_method(k, "__init__")?.scope();
    let mut found: Option<&Expr> = None;
    let mut calls = 0;
    prog.walk_exprs(init, &mut |_, e| {
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return;
        };
        let ExprKind::Attribute { value, attr } = &func.kind else {
            return;
        };
        if attr != "__init__" {
            return;
        }
        if !super::program::is_super_call(value) {
            return;
        }
        calls += 1;
        if let [crate::training::ast::Arg::Pos(m)] = args.as_slice() {
            found = Some(m);
        }
    });
    (calls == 1).then_some((init, found?))
}

/// A project class deriving from `dict` whose attributes are its keys (an
/// `AttrDict` that sets `self.__dict__ = self`, a `dotdict` whose body
/// says `__getattr__ = dict.get`), taking a mapping to copy.
fn mapping_class(prog: &Program, k: super::program::ClassId) -> bool {
    let Some(class) = prog.class(k) else { return false };
    if !prog.derives_from(k, &["builtins.dict"]) {
        return false;
    }
    let text = prog.text(k.m).get(class.span.start..class.span.end).unwrap_or("");
    text.contains("__dict__ = self") || class.body.iter().any(getattr_is_dict_lookup)
}

/// `__getattr__ = dict.get` (or `dict.__getitem__`) in a class body: an
/// attribute read is a key lookup.
fn getattr_is_dict_lookup(st: &super::ast::Stmt) -> bool {
    let StmtKind::Assign { targets, value } = &st.kind else {
        return false;
    };
    let [target] = targets.as_slice() else { return false };
    matches!(&target.kind, ExprKind::Name(n) if n == "__getattr__")
        && matches!(&value.kind, ExprKind::Attribute { value: d, attr }
            if matches!(&d.kind, ExprKind::Name(n) if n == "dict") && (attr == "get" || attr == "__getitem__"))
}

/// `section.param…` of the YAML configs a `LightningCLI` call reads
/// (`[section, param, …]` of `t`'s projection, as
/// [`super::program::Program::param_sources`] makes it): where the
/// project's YAML files set it, directly or under the section's
/// `init_args:`; `None` where none does (the parameter's default then
/// stands, or the command line's value).
fn cli_config_value(prog: &Program, env: &Env<'_>, t: &Term<'_>, depth: u32) -> Option<Resolved> {
    let [Proj::Key(section), rest @ ..] = t.proj.as_slice() else {
        return None;
    };
    run_file_value(prog, env, t, "yaml.safe_load", &[], depth).or_else(|| {
        let mut proj = vec![Proj::Key(section.clone()), Proj::Key(Key::Str("init_args".into()))];
        proj.extend(rest.iter().cloned());
        let nested = Term {
            scope: t.scope,
            expr: t.expr,
            proj,
        };
        run_file_value(prog, env, &nested, "yaml.safe_load", &[], depth)
    })
}

/// `json.load(f)[k]…`, `yaml.safe_load(f)[k]…`, `OmegaConf.load(p).k…`: the
/// values the project's config files of that format hold at that path —
/// of the file the code names where its path is a constant, else of every
/// such file of the context that sets the path (the run picks one). Only
/// with [`Env::run_files`]; `None` where no file sets the path.
fn run_file_value(
    prog: &Program,
    env: &Env<'_>,
    t: &Term<'_>,
    loader: &str,
    positional: &[&Expr],
    depth: u32,
) -> Option<Resolved> {
    let files = env.run_files?;
    if files.is_empty() {
        return None;
    }
    let omegaconf = loader.starts_with("omegaconf.");
    let format = loader_format(loader);
    let keys: Vec<Seg> = t
        .proj
        .iter()
        .map(|p| match p {
            Proj::Key(Key::Str(k)) => Some(Seg::At(PathSeg::Key(k.clone()))),
            Proj::Key(Key::Int(i)) => usize::try_from(*i).ok().map(|i| Seg::At(PathSeg::Index(i))),
            Proj::Attr(a) if omegaconf => Some(Seg::At(PathSeg::Key(a.clone()))),
            Proj::Value => Some(Seg::Each),
            _ => None,
        })
        .collect::<Option<Vec<Seg>>>()?;
    // Not where some code stores to a field of that name: the value the
    // loader reads may be replaced before it does. A store to an object's
    // own field (`self.num_workers = num_workers` in a loader class) is not
    // one: the loaded mapping is no object of the code.
    if let Some(Seg::At(PathSeg::Key(leaf))) = keys.last() {
        if field_stored_with(prog, leaf, false) {
            return None;
        }
    }
    let named = positional
        .first()
        .and_then(|a| loaded_path(prog, env, t.scope, a, omegaconf, depth));
    // A path the project has no file for: written in the call
    // (`open("settings/eval.json")`), a file made elsewhere, unknown; a
    // default the command line replaces (`default='configs.yaml'` beside
    // `configs/pretrain/*.yaml`) cannot be what a run loads, so the run
    // names its own file, as with no default.
    let written = positional.first().is_some_and(|a| path_written(prog, t.scope, a));
    if let Some(n) = &named {
        if !files.has_any(format, n) && written {
            return None;
        }
    }
    let named = named.filter(|n| files.has_any(format, n));
    let found = files.lookup(format, named.as_deref(), &keys);
    files_value(&found, format, named.is_some(), Vec::new())
}

/// The values `found` in config files, with `values` known besides (a
/// parameter's default where some file leaves it): `None` where one is not
/// a scalar or none was found.
fn files_value(found: &[Found], format: Format, named: bool, mut values: Vec<Const>) -> Option<Resolved> {
    for f in found {
        let v = match &f.value {
            crate::yaml::Value::Int(i) => Const::Int(*i),
            crate::yaml::Value::Float(x) => Const::Float(*x),
            crate::yaml::Value::Bool(b) => Const::Bool(*b),
            crate::yaml::Value::Str(s) => Const::Str(s.clone()),
            crate::yaml::Value::Null => Const::None,
            _ => return None,
        };
        if !values.contains(&v) {
            values.push(v);
        }
    }
    let first = found.first()?.clone();
    let mut files_read: Vec<&str> = found.iter().map(|f| f.file.as_str()).collect();
    files_read.dedup();
    Some(Resolved {
        values,
        via: None,
        default_at: None,
        from_files: Some(FromFiles {
            format,
            first,
            files: files_read.len(),
            named,
        }),
    })
}

/// The keyword argument at `[param, …]` (`t`'s projection after its
/// [`Proj::Config`]) of the class `class` whose `__init__` is `init`, as
/// the project's config files that name the class give it: the values
/// they set, with the parameter's default where some mapping leaves the
/// parameter out. Only with [`Env::run_files`]; `None` where a mapping
/// holds something else there, or leaves out a path below the parameter,
/// or the default is not known.
fn config_named_value(
    prog: &Program,
    env: &Env<'_>,
    t: &Term<'_>,
    class: &str,
    init: super::program::FuncId,
    depth: u32,
) -> Option<Resolved> {
    let files = env.run_files?;
    let rest = t.proj.get(1..)?;
    let keys: Vec<Seg> = rest
        .iter()
        .map(|p| match p {
            Proj::Key(Key::Str(k)) | Proj::Attr(k) => Some(Seg::At(PathSeg::Key(k.clone()))),
            Proj::Key(Key::Int(i)) => usize::try_from(*i).ok().map(|i| Seg::At(PathSeg::Index(i))),
            Proj::Value => Some(Seg::Each),
            _ => None,
        })
        .collect::<Option<Vec<Seg>>>()?;
    let (Some(Seg::At(PathSeg::Key(param))), Some(Seg::At(PathSeg::Key(leaf)))) = (keys.first(), keys.last()) else {
        return None;
    };
    // A field below the parameter that some code stores to (`cfg.workers =
    // 0` on the object built from the mapping) may not be what it reads.
    if keys.len() > 1 && field_stored_with(prog, leaf, false) {
        return None;
    }
    let named = files.named_lookup(class, &keys)?;
    if named.other {
        return None;
    }
    let mut values = Vec::new();
    if named.lacking > 0 {
        if keys.len() > 1 {
            return None;
        }
        let default = prog
            .func(init)?
            .params
            .iter()
            .find(|p| p.name == *param)?
            .default
            .as_ref()?;
        values = constant_at(prog, env, prog.def_scope_of(init), default, depth + 1)?.values;
    }
    let format = Format::of(&named.found.first()?.file)?;
    files_value(&named.found, format, false, values)
}

/// Whether the loader's argument writes its path as a literal at the call:
/// `OmegaConf.load("conf/a.yaml")`, `json.load(open("a.json"))`.
fn path_written(prog: &Program, scope: Scope, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Str(_) => true,
        ExprKind::Call { func, args, .. } => {
            prog.external(scope, func).as_deref() == Some("builtins.open")
                && matches!(args.first(), Some(Arg::Pos(p)) if matches!(p.kind, ExprKind::Str(_)))
        }
        _ => false,
    }
}

/// The paths a loader's argument opens, where they are constants:
/// `open(p)`, a name bound to one (`with open(p) as f`), `f.read()` of
/// one, or the path itself for `OmegaConf.load(p)`. `None` where a path
/// is unknown or empty (a flag without a usable default).
fn loaded_path(prog: &Program, env: &Env<'_>, scope: Scope, e: &Expr, direct: bool, depth: u32) -> Option<Vec<String>> {
    if depth > 8 {
        return None;
    }
    let strings = |r: Resolved| -> Option<Vec<String>> {
        r.values
            .iter()
            .map(|v| match v {
                Const::Str(s) if !s.trim().is_empty() => Some(s.clone()),
                _ => None,
            })
            .collect()
    };
    if direct {
        return strings(constant_at(prog, env, scope, e, depth + 1)?);
    }
    let sources = prog.sources(scope, e);
    if sources.unknown || sources.terms.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for t in &sources.terms {
        if !t.proj.is_empty() {
            return None;
        }
        let ExprKind::Call { func, args, .. } = &t.expr.kind else {
            return None;
        };
        let first = args.iter().find_map(|a| match a {
            Arg::Pos(e) => Some(e),
            _ => None,
        });
        if prog.external(t.scope, func).as_deref() == Some("builtins.open") {
            out.extend(strings(constant_at(prog, env, t.scope, first?, depth + 1)?)?);
            continue;
        }
        // `f.read()`
        match &func.kind {
            ExprKind::Attribute { value, attr } if attr == "read" && args.is_empty() => {
                out.extend(loaded_path(prog, env, t.scope, value, false, depth + 1)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// `config.DATA.NUM_WORKERS` of a config object built at module level and
/// filled in by module-level stores (a yacs `_C = CN()` with
/// `_C.DATA.NUM_WORKERS = 8`, a `SimpleNamespace`): the value stored last
/// at the same path. `None` unless every projection is an attribute, the
/// object is bound to a module-level name, and a store names the path.
fn module_object_attr(prog: &Program, env: &Env<'_>, t: &Term<'_>, depth: u32) -> Option<Resolved> {
    if t.scope.f.is_some() || t.proj.is_empty() {
        return None;
    }
    let attrs: Vec<&str> = t
        .proj
        .iter()
        .map(|p| match p {
            Proj::Attr(a) => Some(a.as_str()),
            _ => None,
        })
        .collect::<Option<Vec<&str>>>()?;
    let m = t.scope.m;
    // The module-level name the object is bound to.
    let mut name = None;
    prog.walk_stmts(t.scope, &mut |_, st| {
        if let StmtKind::Assign { targets, value } = &st.kind {
            // The same expression (terms may hold a copy: compare spans).
            if value.span == t.expr.span {
                if let [Expr {
                    kind: ExprKind::Name(n),
                    ..
                }] = targets.as_slice()
                {
                    name = Some(n.clone());
                }
            }
        }
    });
    let name = name?;
    // The last module-level store to `name.<attrs>`.
    let mut last: Option<(Scope, &Expr, Span)> = None;
    for c in 0..prog.chunk_count(m) {
        let scope = Scope { m, c, f: None };
        prog.walk_stmts(scope, &mut |_, st| {
            let StmtKind::Assign { targets, value } = &st.kind else {
                return;
            };
            for target in targets {
                if attr_path(target, &name).is_some_and(|p| p == attrs) {
                    let store = Span {
                        start: target.span.start,
                        end: value.span.end,
                    };
                    last = Some((scope, value, store));
                }
            }
        });
    }
    let (scope, value, store) = last?;
    // A config merged from a file or the command line at run time
    // (`cfg.merge_from_file(args.cfg_file)`, yacs and detectron2's
    // `CfgNode`) may hold another value than its default: unknown, unless
    // the caller takes such defaults, marked as one.
    let merged = merges_config(prog);
    if merged && !env.merged_defaults {
        return None;
    }
    // A function that overwrites the same path (`cfg.DATA.NUM_WORKERS =
    // args.workers` in an `update_config(cfg, args)`) may change it.
    let leaf = attrs.last().copied().unwrap_or("");
    for m2 in prog.code_modules() {
        let chunks: Vec<u32> = prog.chunks_mentioning(m2, &[leaf]).collect();
        for c in chunks {
            for fs in prog.scopes(m2, c).into_iter().filter(|s| s.f.is_some()) {
                let mut overwritten = false;
                prog.walk_stmts(fs, &mut |_, st| {
                    let StmtKind::Assign { targets, .. } = &st.kind else {
                        return;
                    };
                    overwritten |= targets.iter().any(|t| attr_suffix(t).ends_with(&attrs));
                });
                if overwritten {
                    return None;
                }
            }
        }
    }
    let mut r = constant_at(prog, env, scope, value, depth + 1)?;
    if merged {
        r.default_at = Some((m, store));
    }
    Some(r)
}

/// Whether some statement of the training code stores to a field named
/// `leaf` (`x.y.leaf = …`, `x["leaf"] = …`, augmented or not, or
/// `x.update(leaf=…)`, `x.update({"leaf": …})`).
fn field_stored(prog: &Program, leaf: &str) -> bool {
    field_stored_with(prog, leaf, true)
}

/// [`field_stored`], counting stores to `self.<leaf>` only where `on_self`.
fn field_stored_with(prog: &Program, leaf: &str, on_self: bool) -> bool {
    field_stored_but(prog, leaf, on_self, false)
}

/// [`field_stored_with`], leaving out stores to the attribute of a
/// `parse_args()` namespace where `off_namespace` (`args.num_workers =
/// min(args.num_workers, 16)`: the namespace's reading counts those).
fn field_stored_but(prog: &Program, leaf: &str, on_self: bool, off_namespace: bool) -> bool {
    if updated(prog, leaf) {
        return true;
    }
    let named = |scope: Scope, t: &Expr| match &t.kind {
        ExprKind::Attribute { value, attr } => {
            attr == leaf
                && (on_self || !matches!(&value.kind, ExprKind::Name(n) if n == "self"))
                && !(off_namespace && parsed_namespace(prog, scope, value))
        }
        ExprKind::Subscript { index, .. } => matches!(&index.kind, ExprKind::Str(k) if k == leaf),
        _ => false,
    };
    prog.any_store(leaf, &named)
}

/// Whether the training code merges values from outside into a config
/// object (`cfg.merge_from_file(…)`, `merge_from_list`, `merge_from_other_cfg`,
/// `merge_from_dict`: the `CfgNode` methods of yacs, fvcore and detectron2).
fn merges_config(prog: &Program) -> bool {
    const MERGES: [&str; 4] = [
        "merge_from_file",
        "merge_from_list",
        "merge_from_other_cfg",
        "merge_from_dict",
    ];
    prog.code_modules()
        .any(|m| prog.chunks_mentioning(m, &MERGES).next().is_some())
}

/// Whether some `….update(…)` call of the training code names `leaf`.
fn updated(prog: &Program, leaf: &str) -> bool {
    any_method_call(prog, &|_| true, &["update"], &mut |attr, args| {
        attr == "update"
            && args.iter().any(|a| match a {
                Arg::Kw { name, .. } => name == leaf,
                Arg::Pos(d) => match &d.kind {
                    ExprKind::Dict(items) => items.iter().any(|i| {
                        matches!(i, super::ast::DictItem::Pair { key, .. } if matches!(&key.kind, ExprKind::Str(k) if k == leaf))
                    }),
                    _ => false,
                },
                _ => false,
            })
    })
}

/// Whether some method call `….<attr>(args)` in the code modules `within`
/// keeps, among the chunks that mention one of `words`, makes `hit` true:
/// the scan that the questions about updates and flags share.
fn any_method_call(
    prog: &Program,
    within: &dyn Fn(ModId) -> bool,
    words: &[&str],
    hit: &mut dyn FnMut(&str, &[Arg]) -> bool,
) -> bool {
    for m in prog.code_modules().filter(|m| within(*m)) {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, words).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                let mut found = false;
                prog.walk_exprs(scope, &mut |_, e| {
                    if found {
                        return;
                    }
                    if let ExprKind::Call { func, args, .. } = &e.kind {
                        if let ExprKind::Attribute { attr, .. } = &func.kind {
                            found = hit(attr, args);
                        }
                    }
                });
                if found {
                    return true;
                }
            }
        }
    }
    false
}

/// The attributes of an attribute chain (`x.a.b` → `["a", "b"]`), whatever
/// its root.
fn attr_suffix(e: &Expr) -> Vec<&str> {
    match &e.kind {
        ExprKind::Attribute { value, attr } => {
            let mut p = attr_suffix(value);
            p.push(attr.as_str());
            p
        }
        _ => Vec::new(),
    }
}

/// `root.a.b` as `["a", "b"]` when `e` is an attribute chain on the name
/// `root`.
fn attr_path<'e>(e: &'e Expr, root: &str) -> Option<Vec<&'e str>> {
    match &e.kind {
        ExprKind::Attribute { value, attr } => {
            let mut p = attr_path(value, root)?;
            p.push(attr.as_str());
            Some(p)
        }
        ExprKind::Name(n) if n == root => Some(Vec::new()),
        _ => None,
    }
}

/// Whether `t` is a mapping a config file loaded at run time holds
/// (`json.load(f)["k"]`, `yaml.safe_load(f)["k"]`) at a path no config
/// file of the project of that format sets.
fn unset_in_run_files(prog: &Program, env: &Env<'_>, t: &Term<'_>) -> bool {
    let Some(path) = external_call(prog, t) else {
        return false;
    };
    if !RUN_FILE_LOADERS.contains(&path.as_str()) || path.starts_with("omegaconf.") {
        return false;
    }
    let Some(keys) = t
        .proj
        .iter()
        .map(|p| match p {
            Proj::Key(Key::Str(k)) => Some(Seg::At(PathSeg::Key(k.clone()))),
            Proj::Value => Some(Seg::Each),
            _ => None,
        })
        .collect::<Option<Vec<Seg>>>()
    else {
        return false;
    };
    if keys.is_empty() {
        return false;
    }
    env.run_files
        .is_none_or(|files| files.lookup(loader_format(&path), None, &keys).is_empty())
}

fn is_config_accessor(prog: &Program, t: &Term<'_>) -> bool {
    let ExprKind::Call { func, .. } = &t.expr.kind else {
        return false;
    };
    let _ = prog;
    matches!(&func.kind, ExprKind::Attribute { attr, .. } if matches!(attr.as_str(), "get_hparams" | "get_data_config" | "get_experiment_config"))
}

fn resolve_terms(prog: &Program, env: &Env<'_>, r: &super::program::Sources<'_>, depth: u32) -> Option<Resolved> {
    if r.unknown || r.terms.is_empty() {
        return None;
    }
    let mut values = Vec::new();
    let mut via = None;
    let mut default_at = None;
    let mut from_files = None;
    for t in &r.terms {
        let v = term_value(prog, env, t, depth + 1)?;
        if via.is_none() {
            via = v.via;
        }
        default_at = default_at.or(v.default_at);
        from_files = from_files.or(v.from_files);
        for x in v.values {
            if !values.contains(&x) {
                values.push(x);
            }
        }
    }
    Some(Resolved {
        values,
        via,
        default_at,
        from_files,
    })
}

fn convert(path: &str, v: &Const) -> Option<Const> {
    Some(match (path, v) {
        ("builtins.int", Const::Int(i)) => Const::Int(*i),
        ("builtins.int", Const::Float(f)) if f.is_finite() => Const::Int(f.trunc() as i64),
        ("builtins.int", Const::Str(s)) => Const::Int(s.trim().parse().ok()?),
        ("builtins.int", Const::Bool(b)) => Const::Int(i64::from(*b)),
        ("builtins.float", Const::Int(i)) => Const::Float(*i as f64),
        ("builtins.float", Const::Float(f)) => Const::Float(*f),
        ("builtins.str", Const::Int(i)) => Const::Str(i.to_string()),
        ("builtins.str", Const::Str(s)) => Const::Str(s.clone()),
        ("builtins.bool", v) => Const::Bool(match v {
            Const::Bool(b) => *b,
            Const::Int(i) => *i != 0,
            Const::Str(s) => !s.is_empty(),
            Const::None => false,
            Const::Float(f) => *f != 0.0,
        }),
        _ => return None,
    })
}

/// The value at `base` + the keys of `proj` in the config, hyperparameter
/// types applied at the hyperparameter itself.
fn config_value(env: &Env<'_>, base: &[&str], proj: &[Proj]) -> Option<Resolved> {
    let config = env.config?;
    let mut path: Vec<PathSeg> = base.iter().map(|k| PathSeg::Key((*k).to_string())).collect();
    for p in proj {
        match p {
            Proj::Attr(k) | Proj::Key(Key::Str(k)) => path.push(PathSeg::Key(k.clone())),
            Proj::Key(Key::Int(i)) => path.push(PathSeg::Index(usize::try_from(*i).ok()?)),
            Proj::Iter | Proj::Value | Proj::Config { .. } => return None,
        }
    }
    let mut v = config;
    for (i, seg) in path.iter().enumerate() {
        // A typed hyperparameter inside `hyperparameters`: its value.
        if i >= 2 && path.first() == Some(&PathSeg::Key("hyperparameters".into())) {
            if let Some(vals) = typed_values(v) {
                // Deeper keys into a typed value are not followed.
                let _ = vals;
                return None;
            }
        }
        v = match seg {
            PathSeg::Key(k) => v.get(k)?,
            PathSeg::Index(i) => v.get(*i)?,
        };
    }
    let values = if path.first() == Some(&PathSeg::Key("hyperparameters".into())) && path.len() >= 2 {
        typed_values(v).unwrap_or_else(|| json_const(v).into_iter().collect())
    } else {
        json_const(v).into_iter().collect()
    };
    if values.is_empty() {
        return None;
    }
    Some(Resolved {
        values,
        via: Some(path),
        default_at: None,
        from_files: None,
    })
}

/// The candidates of a typed hyperparameter (`const`, `int`,
/// `categorical`); `None` when `v` is not one.
fn typed_values(v: &Json) -> Option<Vec<Const>> {
    let map = v.as_object()?;
    let kind = map.get("type")?.as_str()?;
    Some(match kind {
        "const" => json_const(map.get("val")?).into_iter().collect(),
        "categorical" => map.get("vals")?.as_array()?.iter().filter_map(json_const).collect(),
        "int" => {
            let lo = map.get("minval")?.as_i64()?;
            let hi = map.get("maxval")?.as_i64()?;
            if hi < lo {
                return Some(Vec::new());
            }
            if hi - lo > MAX_CANDIDATES {
                vec![Const::Int(lo), Const::Int(hi)]
            } else {
                (lo..=hi).map(Const::Int).collect()
            }
        }
        _ => Vec::new(),
    })
}

fn json_const(v: &Json) -> Option<Const> {
    Some(match v {
        Json::Bool(b) => Const::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Const::Int(i),
            None => {
                let f = n.as_f64()?;
                if f.fract() == 0.0 && f.abs() < 9e15 {
                    Const::Int(f as i64)
                } else {
                    Const::Float(f)
                }
            }
        },
        Json::String(s) => Const::Str(s.clone()),
        Json::Null => Const::None,
        _ => return None,
    })
}

/// Whether every origin of `r` is known to hold no value at its path: the
/// default run's command-line overrides (`OmegaConf.from_cli()`,
/// `OmegaConf.from_dotlist(rest)`), `parse_args()` read by an attribute no
/// flag of its program defines ([`parser_lacks`]), through `vars(…)` and
/// mapping wrappers (`OmegaConf.create(vars(args))`).
fn absent(prog: &Program, r: &super::program::Sources<'_>, depth: u32) -> bool {
    absent_seen(prog, r, depth, &mut Vec::new())
}

/// [`absent`], with the origins already being asked about in `seen` (a
/// name rebound to a wrapper of itself, `args = OmegaConf.create(vars(args))`,
/// reaches its own binding again: that adds nothing).
fn absent_seen(prog: &Program, r: &super::program::Sources<'_>, depth: u32, seen: &mut Vec<*const Expr>) -> bool {
    if depth > MAX_DEPTH || r.unknown || r.terms.is_empty() {
        return false;
    }
    r.terms.iter().all(|t| {
        let key = t.expr as *const Expr;
        if seen.contains(&key) {
            return true;
        }
        seen.push(key);
        let ExprKind::Call { func, args, .. } = &t.expr.kind else {
            return false;
        };
        let mut absent = |scope: Scope, e: &Expr, proj: Vec<Proj>| {
            absent_seen(prog, &prog.sources_with(scope, e, proj), depth + 1, seen)
        };
        // A helper of the code returning it (`args = get_args()`): what it
        // returns, read at the same path.
        if let Callee::Func(f) = prog.callee(t.scope, func) {
            let returns = prog.returns(f);
            return !returns.is_empty() && returns.into_iter().all(|ret| absent(f.scope(), ret, t.proj.clone()));
        }
        let first = args.iter().find_map(|a| match a {
            Arg::Pos(e) => Some(e),
            _ => None,
        });
        match external_call(prog, t).as_deref() {
            Some("omegaconf.OmegaConf.from_cli" | "omegaconf.OmegaConf.from_dotlist") => true,
            Some("builtins.vars") => match (first, t.proj.split_first()) {
                (Some(ns), Some((Proj::Key(Key::Str(k)), rest))) => {
                    let mut proj = vec![Proj::Attr(k.clone())];
                    proj.extend(rest.iter().cloned());
                    absent(t.scope, ns, proj)
                }
                _ => false,
            },
            Some(p) if mapping_wrapper(p) && args.len() == 1 => {
                first.is_some_and(|x| absent(t.scope, x, keyed(&t.proj)))
            }
            _ => match (&func.kind, t.proj.as_slice()) {
                // Read by key too where a name holds both the namespace and
                // its mapping wrapper (`args = OmegaConf.create(vars(args))`).
                (ExprKind::Attribute { attr, .. }, [Proj::Attr(dest) | Proj::Key(Key::Str(dest)), ..])
                    if attr == "parse_args" =>
                {
                    parser_lacks(prog, dest, t.scope.m)
                }
                _ => false,
            },
        }
    })
}

/// Whether `parse_args()` in module `at` gives no attribute `dest`: no
/// `add_argument` of its program names that destination (and every one
/// is read), no `set_defaults` call might set it, and no code stores it.
fn parser_lacks(prog: &Program, dest: &str, at: ModId) -> bool {
    if !namespace_attr_stores(prog, dest, at).is_empty() {
        return false;
    }
    let within = |m: ModId| together(prog, at, m);
    !any_method_call(
        prog,
        &within,
        &["add_argument", "set_defaults"],
        &mut |attr, args| match attr {
            // A flag of that destination, or one whose destination is not read.
            "add_argument" => ArgSpec::read(args).is_none_or(|spec| spec.dest == dest),
            "set_defaults" => args.iter().any(|a| match a {
                Arg::Kw { name, .. } => name == dest,
                _ => true,
            }),
            _ => false,
        },
    )
}

/// `args.<dest>` of `parser.parse_args()`.
fn argparse_value(prog: &Program, env: &Env<'_>, proj: &[Proj], depth: u32, at: ModId) -> Option<Resolved> {
    let [Proj::Attr(dest)] = proj else { return None };
    let stores = namespace_attr_stores(prog, dest, at);
    let flag = parsed_flag(prog, env, dest, depth, at);
    let mut parsed = match config_set_on_namespace(prog, env, dest, depth, at) {
        None => flag,
        // No file of the project sets the key: the flag's value stands.
        Some(None) => flag,
        // The files' values; a flag's default too, for a run whose file
        // leaves the key out.
        Some(Some(mut files)) => {
            if let Some(f) = flag {
                for v in f.values {
                    if !files.values.contains(&v) {
                        files.values.push(v);
                    }
                }
            }
            Some(files)
        }
    }?;
    // The code's own stores (`args.num_workers = min(args.num_workers, 16)`
    // under a condition, `args.workers //= 2`): each may or may not run
    // before the read, so the values are the parsed ones and those each
    // store makes of them. Only for counts: integers, and no store that may
    // make it 0 or less (`args.workers = 0` in a debug branch would leave a
    // run with no workers, whether it runs first cannot be told); a flag or
    // a string the code sets (`args.distributed = world_size > 1`) stays
    // unknown.
    if !stores.is_empty() && !parsed.values.iter().all(|v| matches!(v, Const::Int(_))) {
        return None;
    }
    for (scope, st) in stores {
        for v in restored(prog, env, scope, st, dest, &parsed.values, depth)? {
            if !matches!(v, Const::Int(i) if i >= 1) {
                return None;
            }
            if !parsed.values.contains(&v) {
                parsed.values.push(v);
            }
        }
        if parsed.values.len() > 64 {
            return None;
        }
    }
    Some(parsed)
}

/// The values a store to the namespace's `dest` makes of its current
/// values `now`: a value that does not read the field (`args.workers = 8`),
/// `min`/`max` of the field and constants, `int` of the field, or an
/// augmented store with a constant integer (`+=`, `-=`, `*=`, `//=`).
/// `None` for any other store: it may make anything of it.
fn restored(
    prog: &Program,
    env: &Env<'_>,
    scope: Scope,
    st: &super::ast::Stmt,
    dest: &str,
    now: &[Const],
    depth: u32,
) -> Option<Vec<Const>> {
    let is_field = |e: &Expr| matches!(&e.kind, ExprKind::Attribute { value, attr } if attr == dest && matches!(value.kind, ExprKind::Name(_)));
    let reads_field = |e: &Expr| {
        let mut hit = false;
        super::program::walk_expr(e, &mut Vec::new(), &mut |_, n| {
            if let super::program::Node::Expr(x) = n {
                hit |= is_field(x);
            }
        });
        hit
    };
    let ints = |values: &[Const]| -> Option<Vec<i64>> {
        values
            .iter()
            .map(|v| match v {
                Const::Int(i) => Some(*i),
                _ => None,
            })
            .collect()
    };
    match &st.kind {
        StmtKind::Assign { value, .. } if !reads_field(value) => {
            let r = constant_at(prog, env, scope, value, depth + 1)?;
            (!r.values.is_empty()).then_some(r.values)
        }
        StmtKind::Assign { value, .. } => {
            let ExprKind::Call { func, args, .. } = &value.kind else {
                return None;
            };
            let path = prog.external(scope, func)?;
            let positional = args
                .iter()
                .map(|a| match a {
                    Arg::Pos(e) => Some(e),
                    _ => None,
                })
                .collect::<Option<Vec<&Expr>>>()?;
            match (path.as_str(), positional.as_slice()) {
                ("builtins.int", [x]) if is_field(x) => Some(now.to_vec()),
                ("builtins.min" | "builtins.max", [_, _, ..]) if positional.len() <= 4 => {
                    let max = path == "builtins.max";
                    let mut bound: Vec<i64> = Vec::new();
                    let mut own = false;
                    for a in &positional {
                        if is_field(a) {
                            own = true;
                        } else if reads_field(a) {
                            return None;
                        } else {
                            let vs = ints(&constant_at(prog, env, scope, a, depth + 1)?.values)?;
                            let [v] = vs.as_slice() else { return None };
                            bound.push(*v);
                        }
                    }
                    if !own {
                        return None;
                    }
                    let pick = |x: i64| {
                        bound
                            .iter()
                            .fold(x, |acc, b| if max { acc.max(*b) } else { acc.min(*b) })
                    };
                    Some(ints(now)?.into_iter().map(|x| Const::Int(pick(x))).collect())
                }
                _ => None,
            }
        }
        StmtKind::AugAssign { op, value, .. } => {
            if reads_field(value) {
                return None;
            }
            let ks = ints(&constant_at(prog, env, scope, value, depth + 1)?.values)?;
            let [k] = ks.as_slice() else { return None };
            let k = *k;
            ints(now)?
                .into_iter()
                .map(|x| {
                    let y = match op.as_str() {
                        "+=" => x.checked_add(k),
                        "-=" => x.checked_sub(k),
                        "*=" => x.checked_mul(k),
                        "//=" if k != 0 => Some(x.div_euclid(k)),
                        _ => None,
                    };
                    y.map(Const::Int)
                })
                .collect()
        }
        _ => None,
    }
}

/// The values a config file the code loads gives the namespace's `dest`
/// where the code copies every key of the file onto the parsed arguments:
/// `for k, v in config.items(): setattr(args, k, v)`, `vars(args).update(config)`,
/// `args.__dict__.update(config)` (in a module of `at`'s program). `None`
/// where the code does no such copy; `Some(None)` where it does and no
/// file of the project sets the key (or its values are not known).
fn config_set_on_namespace(
    prog: &Program,
    env: &Env<'_>,
    dest: &str,
    depth: u32,
    at: ModId,
) -> Option<Option<Resolved>> {
    if env.run_files.is_none_or(|f| f.is_empty()) || depth > 8 {
        return None;
    }
    // The mappings copied: each with its scope.
    let mut copied: Vec<(Scope, &Expr)> = Vec::new();
    for m in prog.code_modules().filter(|m| together(prog, at, *m)) {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &["setattr", "update"]).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                prog.walk_stmts(scope, &mut |_, st| match &st.kind {
                    StmtKind::For { target, iter, body, .. } => {
                        let ExprKind::Tuple(kv) = &target.kind else { return };
                        let [k, v] = kv.as_slice() else { return };
                        let (ExprKind::Name(k), ExprKind::Name(v)) = (&k.kind, &v.kind) else {
                            return;
                        };
                        let ExprKind::Call { func, args, .. } = &iter.kind else { return };
                        let ExprKind::Attribute { value: mapping, attr } = &func.kind else {
                            return;
                        };
                        if attr != "items" || !args.is_empty() {
                            return;
                        }
                        let sets = body.iter().any(|b| {
                            let StmtKind::Expr(e) = &b.kind else { return false };
                            let ExprKind::Call { func, args, .. } = &e.kind else { return false };
                            matches!(&func.kind, ExprKind::Name(n) if n == "setattr")
                                && matches!(args.as_slice(), [Arg::Pos(ns), Arg::Pos(a), Arg::Pos(b)]
                                    if parsed_namespace(prog, scope, ns)
                                        && matches!(&a.kind, ExprKind::Name(x) if x == k)
                                        && matches!(&b.kind, ExprKind::Name(y) if y == v))
                        });
                        if sets {
                            copied.push((scope, mapping));
                        }
                    }
                    StmtKind::Expr(e) => {
                        let ExprKind::Call { func, args, .. } = &e.kind else { return };
                        let ExprKind::Attribute { value, attr } = &func.kind else {
                            return;
                        };
                        let [Arg::Pos(mapping)] = args.as_slice() else { return };
                        let ns = match &value.kind {
                            ExprKind::Attribute { value: ns, attr: d } if d == "__dict__" => Some(&**ns),
                            ExprKind::Call { func: v, args: a, .. } if matches!(&v.kind, ExprKind::Name(n) if n == "vars") => {
                                match a.as_slice() {
                                    [Arg::Pos(ns)] => Some(ns),
                                    _ => None,
                                }
                            }
                            _ => None,
                        };
                        if attr == "update" && ns.is_some_and(|ns| parsed_namespace(prog, scope, ns)) {
                            copied.push((scope, mapping));
                        }
                    }
                    _ => {}
                });
            }
        }
    }
    if copied.is_empty() {
        return None;
    }
    let mut out: Option<Resolved> = None;
    for (scope, mapping) in copied {
        let sources = prog.sources_with(scope, mapping, vec![Proj::Key(Key::Str(dest.to_string()))]);
        if sources.unknown {
            return Some(None);
        }
        for t in &sources.terms {
            let Some(path) = external_call(prog, t) else {
                return Some(None);
            };
            if !RUN_FILE_LOADERS.contains(&path.as_str()) {
                return Some(None);
            }
            let ExprKind::Call { args, .. } = &t.expr.kind else {
                return Some(None);
            };
            let Some(r) = run_file_value(prog, env, t, &path, &positional_args(args), depth + 1) else {
                continue;
            };
            match &mut out {
                None => out = Some(r),
                Some(o) => {
                    for v in r.values {
                        if !o.values.contains(&v) {
                            o.values.push(v);
                        }
                    }
                }
            }
        }
    }
    Some(out)
}

/// Whether `ns` (in `scope`) is the namespace `parse_args()` returns.
fn parsed_namespace(prog: &Program, scope: Scope, ns: &Expr) -> bool {
    let s = prog.sources(scope, ns);
    !s.unknown
        && !s.terms.is_empty()
        && s.terms.iter().all(|t| {
            t.proj.is_empty()
                && matches!(&t.expr.kind, ExprKind::Call { func, .. }
                    if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "parse_args"))
        })
}

/// Whether module `b` runs in a program with module `a` (where the parser
/// `a` parses with can be): another script named beside it has parsers of
/// its own.
fn together(prog: &Program, a: ModId, b: ModId) -> bool {
    a == b || prog.programs(a) == 0 || prog.same_program(a, b)
}

/// The value `parse_args()` (in module `at`) gives flag `dest`, whatever
/// the code stores to it afterwards.
pub fn parsed_flag(prog: &Program, env: &Env<'_>, dest: &str, depth: u32, at: ModId) -> Option<Resolved> {
    let mut found: Option<Resolved> = None;
    let mut given = false;
    for m in prog.code_modules().filter(|m| together(prog, at, *m)) {
        let needles = ["add_argument"];
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &needles).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                let mut result: Option<Option<Resolved>> = None;
                prog.walk_exprs(scope, &mut |_, e| {
                    let ExprKind::Call { func, args, .. } = &e.kind else {
                        return;
                    };
                    if !matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "add_argument") {
                        return;
                    }
                    let Some(spec) = ArgSpec::read(args) else { return };
                    if spec.dest != *dest {
                        return;
                    }
                    given |= spec.given(env).is_some();
                    let value = spec.value(prog, env, scope, depth);
                    result = Some(match (result.take(), value) {
                        (None, v) => v,
                        (Some(Some(a)), Some(b)) if a == b => Some(a),
                        _ => None,
                    });
                });
                match (found.take(), result) {
                    (f, None) => found = f,
                    (None, Some(Some(r))) => found = Some(r),
                    (Some(a), Some(Some(b))) if a == b => found = Some(a),
                    _ => return None,
                }
            }
        }
    }
    // `parser.set_defaults(dest=…)` overrides the argument's own default
    // (not a value given on the command line).
    if !given {
        if let Some(d) = set_defaults_value(prog, env, dest, depth, at, found.as_ref()) {
            return d;
        }
    }
    found
}

/// The value `parser.set_defaults(<dest>=…)` gives: `None` when no call
/// names `dest`, `Some(None)` when the calls disagree or do not resolve.
/// `parser.set_defaults(**cfg)` of a config file the code loads at run time
/// (timm's `cfg = yaml.safe_load(f)`) gives, with [`Env::run_files`], the
/// values the project's files set for `dest` together with the flag's own
/// default `own` (a run given no file, or one that does not set it), where
/// some file of the project sets it.
fn set_defaults_value(
    prog: &Program,
    env: &Env<'_>,
    dest: &str,
    depth: u32,
    at: ModId,
    own: Option<&Resolved>,
) -> Option<Option<Resolved>> {
    let mut out: Option<Option<Resolved>> = None;
    for m in prog.code_modules().filter(|m| together(prog, at, *m)) {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &["set_defaults"]).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                prog.walk_exprs(scope, &mut |_, e| {
                    let ExprKind::Call { func, args, .. } = &e.kind else {
                        return;
                    };
                    if !matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "set_defaults") {
                        return;
                    }
                    let splat = args.iter().any(|a| matches!(a, Arg::StarStar(_)));
                    let value = args.iter().find_map(|a| match a {
                        Arg::Kw { name, value, .. } if name == dest => Some(value),
                        _ => None,
                    });
                    let v = match (value, splat) {
                        (Some(v), _) => constant_at(prog, env, scope, v, depth + 1),
                        (None, true) => splat_from_files(prog, env, scope, args, dest, depth, own),
                        (None, false) => return,
                    };
                    out = Some(match (out.take(), v) {
                        (None, v) => v,
                        (Some(Some(a)), Some(b)) if a == b => Some(a),
                        _ => None,
                    });
                });
            }
        }
    }
    out
}

/// `parser.set_defaults(**cfg)` where every value of `cfg` is a JSON or
/// YAML file the code loads at run time: the values the project's files of
/// that kind set for `dest`, with `own` (the flag's default, which a file
/// without the key, or no file, leaves). `None` where anything is unknown
/// or no file sets it.
fn splat_from_files(
    prog: &Program,
    env: &Env<'_>,
    scope: Scope,
    args: &[Arg],
    dest: &str,
    depth: u32,
    own: Option<&Resolved>,
) -> Option<Resolved> {
    env.run_files?;
    let own = own?;
    let [Arg::StarStar(cfg)] = args else { return None };
    let loads = prog.sources(scope, cfg);
    let all_loads = !loads.unknown
        && !loads.terms.is_empty()
        && loads.terms.iter().all(|t| {
            t.proj.is_empty()
                && matches!(&t.expr.kind, ExprKind::Call { func, .. }
                    if prog.external(t.scope, func).is_some_and(|p| RUN_FILE_LOADERS.contains(&p.as_str())))
        });
    if !all_loads {
        return None;
    }
    let keyed = prog.sources_with(scope, cfg, vec![Proj::Key(Key::Str(dest.to_string()))]);
    // Where no file sets it, or the files are not known, nothing is said:
    // a file outside the project may set it.
    let files = resolve_terms(prog, env, &keyed, depth + 1)?;
    files.from_files.as_ref()?;
    let mut out = own.clone();
    for v in files.values {
        if !out.values.contains(&v) {
            out.values.push(v);
        }
    }
    out.from_files = files.from_files;
    Some(out)
}

/// The statements that store to `<name>.<dest>` (`args.workers =
/// int(args.workers / ngpus)` in each spawned rank), with their scopes: the
/// parsed flag may then not be the value the code reads.
fn namespace_attr_stores<'p>(prog: &'p Program, dest: &str, at: ModId) -> Vec<(Scope, &'p super::ast::Stmt)> {
    let mut out = Vec::new();
    for m in prog.code_modules().filter(|m| together(prog, at, *m)) {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &[dest]).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                // Not an object's own field (`self.num_workers =
                // num_workers` in a data module's `__init__`): that object
                // is no namespace.
                let stored = |t: &Expr| {
                    matches!(&t.kind, ExprKind::Attribute { value, attr }
                        if attr == dest && matches!(value.kind, ExprKind::Name(_)) && prog.self_class(scope, value).is_none())
                };
                prog.walk_stmts(scope, &mut |_, st| {
                    let hit = match &st.kind {
                        StmtKind::Assign { targets, .. } => targets.iter().any(stored),
                        StmtKind::AugAssign { target, .. } => stored(target),
                        _ => false,
                    };
                    if hit {
                        out.push((scope, st));
                    }
                });
            }
        }
    }
    out
}

/// One `add_argument(...)` call.
struct ArgSpec<'p> {
    options: Vec<String>,
    dest: String,
    action: Option<String>,
    kind: Option<&'p Expr>,
    default: Option<&'p Expr>,
}

impl<'p> ArgSpec<'p> {
    fn read(args: &'p [Arg]) -> Option<ArgSpec<'p>> {
        let mut options = Vec::new();
        let mut dest = None;
        let mut action = None;
        let mut kind = None;
        let mut default = None;
        for a in args {
            match a {
                Arg::Pos(Expr {
                    kind: ExprKind::Str(s), ..
                }) => options.push(s.clone()),
                Arg::Kw { name, value, .. } => match name.as_str() {
                    "dest" => {
                        if let ExprKind::Str(s) = &value.kind {
                            dest = Some(s.clone());
                        }
                    }
                    "action" => {
                        if let ExprKind::Str(s) = &value.kind {
                            action = Some(s.clone());
                        }
                    }
                    "type" => kind = Some(value),
                    "default" => default = Some(value),
                    _ => {}
                },
                _ => return None,
            }
        }
        let dest = dest.or_else(|| {
            let long = options.iter().find(|o| o.starts_with("--"));
            let first = long.or(options.first())?;
            Some(first.trim_start_matches('-').replace('-', "_"))
        })?;
        Some(ArgSpec {
            options,
            dest,
            action,
            kind,
            default,
        })
    }

    /// The option as the entrypoint's argv gives it: `Some(value)` when
    /// given (`Some(None)`: the flag without a value).
    fn given<'e>(&self, env: &Env<'e>) -> Option<Option<&'e str>> {
        let mut given: Option<Option<&str>> = None;
        for (i, w) in env.argv.iter().enumerate() {
            for o in &self.options {
                if w == o {
                    given = Some(env.argv.get(i + 1).map(String::as_str));
                } else if let Some(v) = w.strip_prefix(o.as_str()).and_then(|r| r.strip_prefix('=')) {
                    given = Some(Some(v));
                }
            }
        }
        given
    }

    fn value(&self, prog: &Program, env: &Env<'_>, scope: Scope, depth: u32) -> Option<Resolved> {
        // Given on the command line?
        let given = self.given(env);
        match self.action.as_deref() {
            Some("store_true") => return one(Const::Bool(given.is_some())),
            Some("store_false") => return one(Const::Bool(given.is_none())),
            Some(_) => return None,
            None => {}
        }
        if let Some(text) = given {
            let text = text?;
            let kind = self.kind.and_then(|k| match prog.expr_sym(scope, k) {
                Some(Sym::External(p)) => Some(p),
                _ => None,
            });
            return one(match kind.as_deref() {
                Some("builtins.int") => Const::Int(text.parse().ok()?),
                Some("builtins.float") => Const::Float(text.parse().ok()?),
                None | Some("builtins.str") => Const::Str(text.to_string()),
                _ => return None,
            });
        }
        match self.default {
            Some(d) => constant_at(prog, env, scope, d, depth + 1),
            None => one(Const::None),
        }
    }
}
