//! Where values come from: backwards through names, parameters,
//! attributes of `self`, returns and containers.

use super::*;

/// Lightning's command-line interface, which builds the Trainer, the
/// model and the data module from a YAML config
/// (`lightning.pytorch.cli.LightningCLI`, `pytorch_lightning.cli.LightningCLI`,
/// and the older `pytorch_lightning.utilities.cli.LightningCLI`).
pub const LIGHTNING_CLI: &[&str] = &["lightning.cli.LightningCLI", "lightning.utilities.cli.LightningCLI"];

/// Most calls of a function read for the values of one of its parameters.
const MAX_PARAM_SITES: usize = 64;
/// Deepest chain of steps a value's origins are followed back through: a
/// config handed through a chain of `cfg = add_defaults(cfg)` helpers
/// (solo-learn's `parse_cfg`, seven deep) takes three steps a helper. The
/// budget bounds the work whatever the depth.
const SOURCES_DEPTH: u32 = 48;

impl Program {
    /// The origins of `e`'s value in `scope`.
    pub fn sources<'p>(&'p self, scope: Scope, e: &'p Expr) -> Sources<'p> {
        self.sources_with(scope, e, Vec::new())
    }

    /// The origins of `e` with projections to apply (`e.attr`, `e[k]`).
    pub fn sources_with<'p>(&'p self, scope: Scope, e: &'p Expr, proj: Vec<Proj>) -> Sources<'p> {
        let mut out = Sources::default();
        let mut budget = Budget::default();
        let mut seen = HashSet::default();
        self.go(scope, e, proj, &mut out, &mut budget, &mut seen, 0);
        out
    }

    /// [`Program::sources`], not following the local assignments `skip`
    /// says to leave out (given their function's scope and the value
    /// assigned): a binding on a branch the caller knows is not taken.
    pub fn sources_skipping<'p>(&'p self, scope: Scope, e: &'p Expr, skip: Skip<'_>) -> Sources<'p> {
        let mut out = Sources::default();
        let mut budget = Budget {
            skip: Some(skip),
            ..Budget::default()
        };
        let mut seen = HashSet::default();
        self.go(scope, e, Vec::new(), &mut out, &mut budget, &mut seen, 0);
        out
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn go<'p>(
        &'p self,
        scope: Scope,
        e: &'p Expr,
        proj: Vec<Proj>,
        out: &mut Sources<'p>,
        budget: &mut Budget<'_>,
        seen: &mut HashSet<(usize, usize)>,
        depth: u32,
    ) {
        if depth > SOURCES_DEPTH || !budget.take() {
            out.unknown = true;
            return;
        }
        if !seen.insert((e as *const Expr as usize, proj.len())) {
            return;
        }
        let term = |out: &mut Sources<'p>, proj: Vec<Proj>| out.terms.push(Term { scope, expr: e, proj });
        match &e.kind {
            ExprKind::Name(n) => {
                if let Some(fid) = self.binding_func(scope, n) {
                    let fscope = fid.scope();
                    for d in self.local_defs(fid, n) {
                        match d {
                            LocalDef::Assign { value, proj: p } => {
                                if budget.skip.is_some_and(|skip| skip(fscope, value)) {
                                    continue;
                                }
                                self.go(fscope, value, concat(p, &proj), out, budget, seen, depth + 1)
                            }
                            LocalDef::Iter { iter, proj: p } => {
                                let mut full = vec![Proj::Iter];
                                full.extend(p);
                                full.extend(proj.iter().cloned());
                                self.go(fscope, iter, full, out, budget, seen, depth + 1)
                            }
                            LocalDef::With(ctx) => self.go(fscope, ctx, proj.clone(), out, budget, seen, depth + 1),
                            LocalDef::Param(i) => {
                                if self.param_overwritten(fid, scope, n, e) {
                                    continue;
                                }
                                if self.self_class(fscope, e).is_some() {
                                    term(out, proj.clone());
                                } else {
                                    self.param_sources(fid, i, &proj, out, budget, seen, depth + 1)
                                }
                            }
                            LocalDef::Sym(_) => term(out, proj.clone()),
                            LocalDef::Other => out.unknown = true,
                        }
                    }
                    return;
                }
                // Module level; an object another module of the program
                // assigns at its own top level and this one imports by name
                // (`from lib.config import cfg`, re-exported by the package as
                // `from .default import _C as cfg`) is that module's value.
                let (m, bindings) = self.imported_object(scope.m, n);
                match bindings {
                    Some(bindings) => {
                        let assigns: Vec<&ModBinding> = bindings
                            .iter()
                            .filter(|b| matches!(b, ModBinding::Assign { .. }))
                            .collect();
                        if assigns.is_empty() {
                            term(out, proj);
                            return;
                        }
                        for b in assigns {
                            if let ModBinding::Assign { value, proj: p, c } = b {
                                let s = Scope { m, c: *c, f: None };
                                self.go(s, value, concat(p.clone(), &proj), out, budget, seen, depth + 1);
                            }
                        }
                    }
                    None => term(out, proj),
                }
            }
            ExprKind::Attribute { value, attr } => {
                if let Some(k) = self.self_class(scope, value) {
                    self.attr_sources(k, attr, &proj, out, budget, seen, depth + 1);
                    return;
                }
                if self.expr_sym(scope, e).is_some() {
                    term(out, proj);
                    return;
                }
                let mut p = vec![Proj::Attr(attr.clone())];
                p.extend(proj);
                self.go(scope, value, p, out, budget, seen, depth + 1);
            }
            ExprKind::Subscript { value, index } => match literal_key(index) {
                Some(k) => {
                    let mut p = vec![Proj::Key(k)];
                    p.extend(proj);
                    self.go(scope, value, p, out, budget, seen, depth + 1);
                }
                None => term(out, proj),
            },
            ExprKind::Call { func, args, .. } => match self.callee(scope, func) {
                // An entry of `zip(a, b, …)` or `enumerate(a)` iterated: the
                // entry of the argument it takes from.
                Callee::External(p) if zipped(&p, args, &proj).is_some() => {
                    if let Some((arg, rest)) = zipped(&p, args, &proj) {
                        let mut full = vec![Proj::Iter];
                        full.extend(rest.iter().cloned());
                        self.go(scope, arg, full, out, budget, seen, depth + 1);
                    }
                }
                // An entry of `sorted(xs)`, `list(xs)`, `tuple(xs)` or
                // `reversed(xs)` iterated: an entry of `xs`.
                Callee::External(p)
                    if matches!(proj.first(), Some(Proj::Iter))
                        && matches!(
                            p.as_str(),
                            "builtins.sorted" | "builtins.list" | "builtins.tuple" | "builtins.reversed"
                        )
                        && matches!(args.first(), Some(Arg::Pos(_))) =>
                {
                    if let Some(Arg::Pos(xs)) = args.first() {
                        self.go(scope, xs, proj.clone(), out, budget, seen, depth + 1);
                    }
                }
                // A value of a mapping iterated by its `items()` (the
                // second of each pair) or `values()`: `for phase, opt in
                // cfg["datasets"].items()` reads each entry of that mapping.
                Callee::Unknown if mapping_values(func, args, &proj).is_some() => {
                    if let Some((m, rest)) = mapping_values(func, args, &proj) {
                        let mut full = vec![Proj::Value];
                        full.extend(rest.iter().cloned());
                        self.go(scope, m, full, out, budget, seen, depth + 1);
                    }
                }
                // A recursive copy of its argument (`dict_to_nonedict(opt)`,
                // which rebuilds each nested mapping as a `NoneDict`): its
                // keys and values are the argument's.
                Callee::Func(f) => match self.mirrored_param(f) {
                    Some(i) => {
                        let arg = match args.get(i) {
                            Some(Arg::Pos(a)) if args.iter().take(i).all(|a| matches!(a, Arg::Pos(_))) => Some(a),
                            _ => None,
                        };
                        match arg {
                            Some(a) if !matches!(a.kind, ExprKind::Starred(_)) => {
                                self.go(scope, a, proj, out, budget, seen, depth + 1)
                            }
                            _ => out.unknown = true,
                        }
                    }
                    None => {
                        let rets = self.returns(f);
                        if rets.is_empty() {
                            out.unknown = true;
                        }
                        for r in rets {
                            self.go(f.scope(), r, proj.clone(), out, budget, seen, depth + 1);
                        }
                    }
                },
                Callee::Class(k) => match proj.split_first() {
                    Some((Proj::Attr(a), rest)) => {
                        let found = self.attr_sources(k, a, rest, out, budget, seen, depth + 1);
                        if !found {
                            term(out, proj.clone());
                        }
                    }
                    _ => term(out, proj),
                },
                // `dict(NUM_WORKERS=5, …)` read at a key: the keyword's value,
                // as for a dict literal (only keywords: a positional mapping
                // or a splat may hold the key too).
                Callee::External(p)
                    if p == "builtins.dict"
                        && matches!(proj.first(), Some(Proj::Key(Key::Str(_))))
                        && args.iter().all(|a| matches!(a, Arg::Kw { .. })) =>
                {
                    let Some((Proj::Key(Key::Str(k)), rest)) = proj.split_first() else {
                        return;
                    };
                    match args.iter().find_map(|a| match a {
                        Arg::Kw { name, value, .. } if name == k => Some(value),
                        _ => None,
                    }) {
                        Some(v) => self.go(scope, v, rest.to_vec(), out, budget, seen, depth + 1),
                        None => out.unknown = true,
                    }
                }
                // `tyro.cli(Options)`: an instance of the config class, its
                // fields the class's defaults unless the command line
                // gives others (as an argparse flag's default).
                Callee::External(p) if p == "tyro.cli" => {
                    let class = args.iter().find_map(|a| match a {
                        Arg::Pos(e) => Some(e),
                        _ => None,
                    });
                    match (class.and_then(|c| self.expr_sym(scope, c)), proj.split_first()) {
                        (Some(Sym::Class(k)), Some((Proj::Attr(a), rest))) => {
                            if !self.attr_sources(k, a, rest, out, budget, seen, depth + 1) {
                                term(out, proj.clone());
                            }
                        }
                        _ => term(out, proj),
                    }
                }
                _ => term(out, proj),
            },
            ExprKind::IfExp { test, body, orelse } => {
                if proj.is_empty() {
                    if let Some((x, other)) = none_guard(test, body, orelse) {
                        self.none_guarded(scope, x, other, out, budget, seen, depth + 1);
                        return;
                    }
                }
                self.go(scope, body, proj.clone(), out, budget, seen, depth + 1);
                self.go(scope, orelse, proj, out, budget, seen, depth + 1);
            }
            ExprKind::BoolOp { left, right, .. } => {
                self.go(scope, left, proj.clone(), out, budget, seen, depth + 1);
                self.go(scope, right, proj, out, budget, seen, depth + 1);
            }
            ExprKind::Named { value, .. } | ExprKind::Await(value) => {
                self.go(scope, value, proj, out, budget, seen, depth + 1)
            }
            ExprKind::List(items) | ExprKind::Tuple(items) => match proj.split_first() {
                Some((Proj::Key(Key::Int(i)), rest)) => {
                    let idx = if *i < 0 { items.len() as i64 + i } else { *i };
                    match usize::try_from(idx).ok().and_then(|i| items.get(i)) {
                        Some(item) if !items.iter().any(|x| matches!(x.kind, ExprKind::Starred(_))) => {
                            self.go(scope, item, rest.to_vec(), out, budget, seen, depth + 1)
                        }
                        _ => out.unknown = true,
                    }
                }
                Some((Proj::Iter, rest)) => {
                    for item in items {
                        match &item.kind {
                            ExprKind::Starred(inner) => {
                                let mut p = vec![Proj::Iter];
                                p.extend(rest.iter().cloned());
                                self.go(scope, inner, p, out, budget, seen, depth + 1)
                            }
                            _ => self.go(scope, item, rest.to_vec(), out, budget, seen, depth + 1),
                        }
                    }
                }
                _ => term(out, proj),
            },
            ExprKind::Dict(items) => match proj.split_first() {
                Some((Proj::Value, rest)) => {
                    for item in items {
                        match item {
                            DictItem::Pair { value, .. } => {
                                self.go(scope, value, rest.to_vec(), out, budget, seen, depth + 1)
                            }
                            DictItem::Splat(_) => out.unknown = true,
                        }
                    }
                }
                Some((Proj::Key(k @ (Key::Str(_) | Key::Int(_))), rest)) => {
                    let mut found = false;
                    for item in items {
                        match item {
                            DictItem::Pair { key, value, .. } => {
                                let same = match (&key.kind, k) {
                                    (ExprKind::Str(s), Key::Str(k)) => s == k,
                                    (ExprKind::Int(i), Key::Int(k)) => i == k,
                                    _ => false,
                                };
                                if same {
                                    found = true;
                                    self.go(scope, value, rest.to_vec(), out, budget, seen, depth + 1);
                                }
                            }
                            DictItem::Splat(_) => out.unknown = true,
                        }
                    }
                    if !found {
                        out.unknown = true;
                    }
                }
                _ => term(out, proj),
            },
            _ => term(out, proj),
        }
    }

    /// `x if x is not None else other`: `x`'s origins other than a literal
    /// `None`, and `other`'s unless every origin of `x` is a literal that
    /// is not `None` (the fallback is then never taken).
    #[allow(clippy::too_many_arguments)]
    fn none_guarded<'p>(
        &'p self,
        scope: Scope,
        x: &'p Expr,
        other: &'p Expr,
        out: &mut Sources<'p>,
        budget: &mut Budget<'_>,
        seen: &mut HashSet<(usize, usize)>,
        depth: u32,
    ) {
        let mut mine = Sources::default();
        let mut seen_x = seen.clone();
        self.go(scope, x, Vec::new(), &mut mine, budget, &mut seen_x, depth);
        let is_none = |t: &Term<'_>| t.proj.is_empty() && matches!(t.expr.kind, ExprKind::None);
        let never_none = !mine.unknown
            && !mine.terms.is_empty()
            && mine.terms.iter().all(|t| {
                t.proj.is_empty()
                    && matches!(
                        t.expr.kind,
                        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) | ExprKind::Bool(_)
                    )
            });
        out.unknown |= mine.unknown;
        out.terms.extend(mine.terms.into_iter().filter(|t| !is_none(t)));
        seen.extend(seen_x);
        if !never_none {
            self.go(scope, other, Vec::new(), out, budget, seen, depth);
        }
    }

    /// The function whose local `name` is (the innermost enclosing one
    /// that binds it).
    pub(super) fn binding_func(&self, scope: Scope, name: &str) -> Option<FuncId> {
        let mut f = scope.func();
        let mut guard = 0;
        while let Some(fid) = f {
            guard += 1;
            if guard > MAX_DEPTH {
                return None;
            }
            if !self.local_defs(fid, name).is_empty() {
                return Some(fid);
            }
            f = self.parent_func(fid);
        }
        None
    }

    /// Whether the parameter `n` of `f` cannot reach the read `e` (in
    /// `scope`): a statement of `f`'s own body, not nested in a branch or a
    /// loop, assigns `n` before the read (`def parse_args(*args): args =
    /// parser.parse_args(); return args`).
    fn param_overwritten(&self, f: FuncId, scope: Scope, n: &str, e: &Expr) -> bool {
        if scope.func() != Some(f) {
            return false;
        }
        self.body(f.scope()).iter().any(|st| {
            st.span.end <= e.span.start
                && match &st.kind {
                    StmtKind::Assign { targets, .. } => {
                        targets.iter().any(|t| matches!(&t.kind, ExprKind::Name(x) if x == n))
                    }
                    StmtKind::AnnAssign { target, value: Some(_) } => {
                        matches!(&target.kind, ExprKind::Name(x) if x == n)
                    }
                    _ => false,
                }
        })
    }

    /// The `LightningCLI(…)` call that builds an instance of the class whose
    /// `__init__` is `f` (`model_class=`, `datamodule_class=`, or the first
    /// two positions), with its scope and the config section it fills the
    /// parameters from (`"model"`, `"data"`).
    pub fn cli_instantiation(&self, f: FuncId) -> Option<(Scope, &Expr, &'static str)> {
        let k = self.class_of(f)?;
        if self.func(f)?.name != "__init__" {
            return None;
        }
        for m in self.code_modules() {
            let chunks: Vec<u32> = self.chunks_mentioning(m, &["LightningCLI"]).collect();
            for c in chunks {
                for scope in self.scopes(m, c) {
                    let mut found = None;
                    self.walk_exprs(scope, &mut |_, e| {
                        let ExprKind::Call { func, args, .. } = &e.kind else {
                            return;
                        };
                        if found.is_some()
                            || !self
                                .external(scope, func)
                                .is_some_and(|p| LIGHTNING_CLI.contains(&p.as_str()))
                        {
                            return;
                        }
                        for (section, kw, at) in [("model", "model_class", 0), ("data", "datamodule_class", 1)] {
                            let given = args
                                .iter()
                                .find_map(|a| match a {
                                    Arg::Kw { name, value, .. } if name == kw => Some(value),
                                    _ => None,
                                })
                                .or_else(|| {
                                    args.iter()
                                        .filter_map(|a| match a {
                                            Arg::Pos(v) => Some(v),
                                            _ => None,
                                        })
                                        .nth(at)
                                });
                            if given.is_some_and(|g| matches!(self.expr_sym(scope, g), Some(Sym::Class(x)) if x == k)) {
                                found = Some((scope, e, section));
                            }
                        }
                    });
                    if found.is_some() {
                        return found;
                    }
                }
            }
        }
        None
    }

    /// For the `__init__` `f` of a module-level class: a call in its
    /// program that builds objects from classes config files name
    /// (`hydra.utils.instantiate`/`call`, a `LightningCLI` or a subclass
    /// of the code, a function of the code named `instantiate_from_config`),
    /// with its scope and the class's dotted path.
    pub fn config_instantiation(&self, f: FuncId) -> Option<(Scope, &Expr, String)> {
        let k = self.class_of(f)?;
        let class = self.class(k)?;
        if self.func(f)?.name != "__init__" || class.parent != crate::python::ast::Parent::Module {
            return None;
        }
        let dotted = format!("{}.{}", self.module_name(k.m), class.name);
        let programs = self.programs(k.m);
        for m in self.code_modules() {
            if programs != 0 && self.programs(m) & programs == 0 {
                continue;
            }
            let chunks: Vec<u32> = self.chunks_mentioning(m, &["instantiate", "CLI"]).collect();
            for c in chunks {
                for scope in self.scopes(m, c) {
                    let mut found = None;
                    self.walk_exprs(scope, &mut |_, e| {
                        let ExprKind::Call { func, .. } = &e.kind else {
                            return;
                        };
                        if found.is_none() && self.builds_by_name(scope, func) {
                            found = Some((scope, e));
                        }
                    });
                    if let Some((scope, e)) = found {
                        return Some((scope, e, dotted));
                    }
                }
            }
        }
        None
    }

    /// Whether calling `func` builds objects from classes config files name
    /// (see [`Program::config_instantiation`]).
    fn builds_by_name(&self, scope: Scope, func: &Expr) -> bool {
        match self.callee(scope, func) {
            Callee::External(p) => {
                matches!(p.as_str(), "hydra.utils.instantiate" | "hydra.utils.call")
                    || LIGHTNING_CLI.contains(&p.as_str())
            }
            Callee::Class(k) => self.derives_from(k, LIGHTNING_CLI),
            Callee::Func(g) => self.func(g).is_some_and(|x| x.name == "instantiate_from_config"),
            _ => false,
        }
    }

    /// [`Program::param_sources`] for `**kwargs`, read at key `proj[0]`:
    /// at each call, the keyword argument of that name, else the entry of
    /// the one mapping splatted there. A call with neither leaves the key
    /// out (reading it raises, or `.get` gives its default), one with two
    /// splats or a key not written as a constant is not known.
    #[allow(clippy::too_many_arguments)]
    fn kwargs_entry_sources<'p>(
        &'p self,
        f: FuncId,
        sites: &[(Scope, &'p Expr)],
        proj: &[Proj],
        out: &mut Sources<'p>,
        budget: &mut Budget<'_>,
        seen: &mut HashSet<(usize, usize)>,
        depth: u32,
    ) {
        let Some((Proj::Key(Key::Str(key)), rest)) = proj.split_first() else {
            out.unknown = true;
            return;
        };
        // A key a named parameter takes never reaches `**kwargs`.
        if self.func(f).is_some_and(|func| {
            func.params
                .iter()
                .any(|p| p.name == *key && p.kind != crate::python::ast::ParamKind::VarArgs)
        }) {
            out.unknown = true;
            return;
        }
        let mut bound = 0;
        for (scope, call) in sites {
            let ExprKind::Call { args, .. } = &call.kind else {
                out.unknown = true;
                continue;
            };
            if let Some(v) = args.iter().find_map(|a| match a {
                Arg::Kw { name, value, .. } if name == key => Some(value),
                _ => None,
            }) {
                bound += 1;
                self.go(*scope, v, rest.to_vec(), out, budget, seen, depth + 1);
                continue;
            }
            let splats: Vec<&Expr> = args
                .iter()
                .filter_map(|a| match a {
                    Arg::StarStar(m) => Some(m),
                    _ => None,
                })
                .collect();
            match splats.as_slice() {
                [] => {}
                [m] => {
                    bound += 1;
                    self.go(*scope, m, proj.to_vec(), out, budget, seen, depth + 1);
                }
                _ => out.unknown = true,
            }
        }
        if bound == 0 {
            out.unknown = true;
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn param_sources<'p>(
        &'p self,
        f: FuncId,
        index: usize,
        proj: &[Proj],
        out: &mut Sources<'p>,
        budget: &mut Budget<'_>,
        seen: &mut HashSet<(usize, usize)>,
        depth: u32,
    ) {
        // The config Hydra composes and hands to the function it wraps
        // (`@hydra.main(…) def main(cfg):`, called as `main()`): the
        // decorator's call stands for it, whose values come from the
        // project's YAML files.
        if index == 0 {
            if let Some(hydra) = self.hydra_main(f) {
                out.terms.push(Term {
                    scope: hydra.0,
                    expr: hydra.1,
                    proj: proj.to_vec(),
                });
                return;
            }
        }
        let sites = self.call_sites(f);
        // Calls made where the function was handed cannot be read: what
        // they pass is unknown (`Process(target=init, args=(rank, …))` beside
        // a single-process `init(0, …)`).
        // A parameter bound at very many calls (a helper a generated table
        // calls thousands of times) is not followed: each call would be read.
        // The `__init__` of a class a `LightningCLI` instantiates from its
        // config's `model:` or `data:` section: the term of that call, read
        // at the section's key of the parameter's name.
        // Or the `__init__` of a class no code calls, which the project's
        // config files name for code to build by name (`_target_:`,
        // `class_path:`, `target:`), in a program that builds classes so:
        // the term of the call that builds them, read in those files at the
        // parameter's name.
        if sites.is_empty() {
            let param = self.func(f).and_then(|x| x.params.get(index));
            let built = match self.cli_instantiation(f) {
                Some((scope, call, section)) => Some((scope, call, Proj::Key(Key::Str(section.into())))),
                None => param
                    .filter(|p| {
                        matches!(
                            p.kind,
                            crate::python::ast::ParamKind::Normal | crate::python::ast::ParamKind::KwOnly
                        )
                    })
                    .and_then(|_| self.config_instantiation(f))
                    .map(|(scope, call, class)| (scope, call, Proj::Config { class, init: f })),
            };
            if let (Some((scope, call, head)), Some(param)) = (built, param) {
                let mut p = vec![head, Proj::Key(Key::Str(param.name.clone()))];
                p.extend(proj.iter().cloned());
                out.terms.push(Term {
                    scope,
                    expr: call,
                    proj: p,
                });
                return;
            }
        }
        if sites.is_empty() || sites.len() > MAX_PARAM_SITES || self.escapes(f) {
            out.unknown = true;
            return;
        }
        let Some(func) = self.func(f) else {
            out.unknown = true;
            return;
        };
        // An entry of `**kwargs` (`kwargs["num_workers"]`): the keyword of
        // that name at each call, else the entry of the mapping the call
        // splats (`DataModule(**vars(args))`).
        if func
            .params
            .get(index)
            .is_some_and(|p| p.kind == crate::python::ast::ParamKind::KwArgs)
        {
            self.kwargs_entry_sources(f, &sites, proj, out, budget, seen, depth);
            return;
        }
        let def_scope = self.def_scope(f.m, f.c, func.parent);
        // A call that leaves the parameter out (a script's `main()` for a
        // `def main(args)` its launcher calls as `main(params)`) raises
        // before the body runs: it binds nothing, where other calls do.
        let mut bound = 0;
        // A call made in a module-level function that nothing in the program
        // calls (a runner the package imports but no script runs) adds what
        // it passes where that can be followed, and leaves the value alone
        // where it cannot (its own parameters, bound by no call) while a
        // call the program makes binds the parameter.
        let idle = |scope: &Scope| {
            scope.func().is_some_and(|g| {
                g != f
                    && self.class_of(g).is_none()
                    && self
                        .func(g)
                        .is_some_and(|x| x.parent == crate::training::ast::Parent::Module)
                    && self.call_sites(g).is_empty()
            })
        };
        let (idle, live): (Vec<_>, Vec<_>) = sites.into_iter().partition(|(scope, _)| idle(scope));
        let any_live = live
            .iter()
            .any(|(scope, call)| !matches!(self.bind_at(*scope, f, call, index), Bound::Missing));
        for (scope, call) in live {
            match self.bind_at(scope, f, call, index) {
                Bound::Given(e) => {
                    bound += 1;
                    self.go(scope, e, proj.to_vec(), out, budget, seen, depth)
                }
                Bound::Default(d) => {
                    bound += 1;
                    self.go(def_scope, d, proj.to_vec(), out, budget, seen, depth)
                }
                // `**cfg`: the mapping's entry of the parameter's name, and
                // the default where the mapping may lack it.
                Bound::Splat { mapping, default } => {
                    let Some(param) = func.params.get(index) else {
                        out.unknown = true;
                        continue;
                    };
                    bound += 1;
                    let mut keyed = vec![Proj::Key(Key::Str(param.name.clone()))];
                    keyed.extend(proj.iter().cloned());
                    self.go(scope, mapping, keyed, out, budget, seen, depth);
                    if let Some(d) = default {
                        self.go(def_scope, d, proj.to_vec(), out, budget, seen, depth)
                    }
                }
                Bound::Missing => {}
                Bound::Unknown => out.unknown = true,
            }
        }
        for (scope, call) in idle {
            let (at, e) = match self.bind_at(scope, f, call, index) {
                Bound::Given(e) => (scope, e),
                Bound::Default(d) => (def_scope, d),
                Bound::Missing => continue,
                Bound::Unknown | Bound::Splat { .. } => {
                    out.unknown |= !any_live;
                    continue;
                }
            };
            if !any_live {
                bound += 1;
                self.go(at, e, proj.to_vec(), out, budget, seen, depth);
                continue;
            }
            let mut own = Sources::default();
            let mut own_seen = seen.clone();
            self.go(at, e, proj.to_vec(), &mut own, budget, &mut own_seen, depth);
            if !own.unknown {
                bound += 1;
                out.terms.extend(own.terms);
                *seen = own_seen;
            }
        }
        if bound == 0 {
            out.unknown = true;
        }
    }

    /// The `@hydra.main(…)` decorator of `f`, with the scope it is
    /// evaluated in, if `f` has one.
    pub fn hydra_main(&self, f: FuncId) -> Option<(Scope, &Expr)> {
        let func = self.func(f)?;
        let at = self.def_scope(f.m, f.c, func.parent);
        func.decorators.iter().find_map(|d| {
            let ExprKind::Call { func: callee, .. } = &d.kind else {
                return None;
            };
            (self.external(at, callee).as_deref() == Some("hydra.main")).then_some((at, d))
        })
    }

    /// The module-level bindings of name `n` in module `m`, followed
    /// through `from <program module> import n` (and `… import x as n`) to
    /// the module that assigns it, a few imports deep: the module they are
    /// in and the bindings. A name no import of the program moves stays
    /// with `m`.
    pub(super) fn imported_object(&self, m: ModId, n: &str) -> (ModId, Option<&Vec<ModBinding>>) {
        let mut at = m;
        let mut name = n.to_string();
        for _ in 0..4 {
            let Some(bindings) = self.tables.get(at as usize).and_then(|t| t.get(name.as_str())) else {
                return (at, None);
            };
            let [ModBinding::From { module, name: orig }] = bindings.as_slice() else {
                return (at, Some(bindings));
            };
            match self.module_from(Some(at), module.as_str()) {
                Some(m2)
                    if m2 != at
                        && (!self.by_module.contains_key(&format!("{module}.{orig}")) || self.binds(m2, orig)) =>
                {
                    at = m2;
                    name = orig.clone();
                }
                _ => return (at, Some(bindings)),
            }
        }
        (at, self.tables.get(at as usize).and_then(|t| t.get(name.as_str())))
    }

    /// The values assigned to `self.<attr>` in a class (its methods and
    /// its project bases), and class-level `attr = …`. Returns whether any
    /// assignment was found.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn attr_sources<'p>(
        &'p self,
        k: ClassId,
        attr: &str,
        proj: &[Proj],
        out: &mut Sources<'p>,
        budget: &mut Budget<'_>,
        seen: &mut HashSet<(usize, usize)>,
        depth: u32,
    ) -> bool {
        let assigns = self.self_assignments(k, attr);
        if assigns.is_empty() && attr == "hparams" {
            if let Some(init) = self.saved_hyperparameters(k) {
                self.hparams_sources(init, proj, out, budget, seen, depth);
                return true;
            }
        }
        if assigns.is_empty() {
            // A subclass of an outside class (a yacs/fvcore `CfgNode`) whose
            // attributes are set from outside (`_C.DATA.WORKERS = 8` at
            // module level): the caller keeps the instance with its
            // projection, for those stores to answer. Otherwise unknown.
            if self.external_bases(k).is_empty() {
                out.unknown = true;
            }
            return false;
        }
        for (scope, value, p) in assigns {
            match value {
                Some(v) => self.go(scope, v, concat(p, proj), out, budget, seen, depth),
                None => out.unknown = true,
            }
        }
        true
    }

    /// The `__init__` of Lightning class `k` (or of a project base) that
    /// calls `self.save_hyperparameters(…)`: Lightning then fills
    /// `self.hparams` from that call's arguments, or from the parameters of
    /// that `__init__` where it is given none.
    fn saved_hyperparameters(&self, k: ClassId) -> Option<(FuncId, &Expr)> {
        if !self.external_bases(k).iter().any(|b| b.starts_with("lightning.")) {
            return None;
        }
        let mut classes = vec![k];
        classes.extend(self.bases(k));
        for cur in classes.into_iter().take(8) {
            let Some(init) = self.own_method(cur, "__init__") else {
                continue;
            };
            let mut found = None;
            self.walk_exprs(init.scope(), &mut |_, e| {
                if let ExprKind::Call { func, .. } = &e.kind {
                    if matches!(&func.kind, ExprKind::Attribute { value, attr }
                        if attr == "save_hyperparameters" && matches!(&value.kind, ExprKind::Name(n) if n == "self"))
                    {
                        found = found.or(Some(e));
                    }
                }
            });
            if let Some(call) = found {
                return Some((init, call));
            }
        }
        None
    }

    /// `self.hparams.x` (or `self.hparams["x"]`) of a class whose
    /// `__init__` calls `self.save_hyperparameters(…)`: with one mapping or
    /// namespace given, its `x`; with none, the `__init__`'s parameter `x`
    /// (unknown where `ignore=` or a second argument may change that).
    #[allow(clippy::too_many_arguments)]
    fn hparams_sources<'p>(
        &'p self,
        (init, call): (FuncId, &'p Expr),
        proj: &[Proj],
        out: &mut Sources<'p>,
        budget: &mut Budget<'_>,
        seen: &mut HashSet<(usize, usize)>,
        depth: u32,
    ) {
        let (Some((Proj::Attr(x) | Proj::Key(Key::Str(x)), rest)), ExprKind::Call { args, .. }) =
            (proj.split_first(), &call.kind)
        else {
            out.unknown = true;
            return;
        };
        // Changed after it is saved (`self.hparams.num_workers = 0`,
        // `self.hparams.update(…)`): not the value saved.
        if self.hparams_changed(x) {
            out.unknown = true;
            return;
        }
        let positional: Vec<&Expr> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Pos(e) => Some(e),
                _ => None,
            })
            .collect();
        let plain = args.iter().all(|a| match a {
            Arg::Pos(_) => true,
            Arg::Kw { name, .. } => name == "logger",
            _ => false,
        });
        match positional.as_slice() {
            _ if !plain => out.unknown = true,
            [] => {
                let index = self.func(init).and_then(|f| {
                    f.params.iter().position(|p| {
                        p.name == *x
                            && p.kind != crate::python::ast::ParamKind::VarArgs
                            && p.kind != crate::python::ast::ParamKind::KwArgs
                    })
                });
                match index {
                    Some(i) => self.param_sources(init, i, rest, out, budget, seen, depth + 1),
                    None => out.unknown = true,
                }
            }
            // A namespace or mapping handed whole: read by attribute, as
            // the parsed arguments are.
            [h] => {
                let mut p = vec![Proj::Attr(x.clone())];
                p.extend(rest.iter().cloned());
                self.go(init.scope(), h, p, out, budget, seen, depth + 1)
            }
            _ => out.unknown = true,
        }
    }

    /// Whether some statement of the code changes entry `x` of an object's
    /// `hparams`: a store to `….hparams.x` or `….hparams["x"]`, or a call of
    /// `….hparams.update(…)`.
    fn hparams_changed(&self, x: &str) -> bool {
        let on_hparams = |e: &Expr| matches!(&e.kind, ExprKind::Attribute { attr, .. } if attr == "hparams");
        let stored = |_: Scope, t: &Expr| match &t.kind {
            ExprKind::Attribute { value, attr } => attr == x && on_hparams(value),
            ExprKind::Subscript { value, index } => {
                on_hparams(value) && matches!(&index.kind, ExprKind::Str(k) if k == x)
            }
            _ => false,
        };
        if self.any_store("hparams", &stored) {
            return true;
        }
        self.code_modules().any(|m| {
            let chunks: Vec<u32> = self.chunks_mentioning(m, &["hparams"]).collect();
            chunks.into_iter().any(|c| {
                self.scopes(m, c).into_iter().any(|scope| {
                    let mut hit = false;
                    self.walk_exprs(scope, &mut |_, e| {
                        if let ExprKind::Call { func, .. } = &e.kind {
                            hit |= matches!(&func.kind, ExprKind::Attribute { value, attr }
                                if attr == "update" && on_hparams(value));
                        }
                    });
                    hit
                })
            })
        })
    }

    /// Every assignment to `self.<attr>` in a class's methods (and its
    /// project bases), plus class-level assignments: the scope, the value
    /// (`None` for augmented or opaque assignments) and the unpacking
    /// projection.
    pub fn self_assignments(&self, k: ClassId, attr: &str) -> Vec<(Scope, Option<&Expr>, Vec<Proj>)> {
        let mut out = Vec::new();
        let mut classes = vec![k];
        let mut i = 0;
        while i < classes.len() && i < 8 {
            let cur = classes[i];
            let more: Vec<ClassId> = self.bases(cur).into_iter().filter(|b| !classes.contains(b)).collect();
            classes.extend(more);
            i += 1;
        }
        for cur in classes {
            let Some(class) = self.class(cur) else { continue };
            let class_scope = self.def_scope(cur.m, cur.c, class.parent);
            for s in &class.body {
                match &s.kind {
                    StmtKind::Assign { targets, value } => {
                        for t in targets {
                            bind_target(t, attr, &mut Vec::new(), &mut |p| {
                                out.push((class_scope, Some(value), p))
                            });
                        }
                    }
                    StmtKind::FunctionDef(f) => {
                        let fid = FuncId {
                            m: cur.m,
                            c: cur.c,
                            f: *f,
                        };
                        let Some(func) = self.func(fid) else { continue };
                        let Some(me) = func.params.first().map(|p| p.name.as_str()) else {
                            continue;
                        };
                        let scope = fid.scope();
                        self.walk_stmts(scope, &mut |_, st| match &st.kind {
                            StmtKind::Assign { targets, value } => {
                                for t in targets {
                                    bind_self_target(t, me, attr, &mut Vec::new(), &mut |p| {
                                        out.push((scope, Some(value), p))
                                    });
                                }
                            }
                            StmtKind::AnnAssign {
                                target,
                                value: Some(value),
                            } => {
                                bind_self_target(target, me, attr, &mut Vec::new(), &mut |p| {
                                    out.push((scope, Some(value), p))
                                });
                            }
                            StmtKind::AugAssign { target, .. } => {
                                bind_self_target(target, me, attr, &mut Vec::new(), &mut |p| {
                                    out.push((scope, None, p))
                                });
                            }
                            StmtKind::For { target, .. } => {
                                bind_self_target(target, me, attr, &mut Vec::new(), &mut |p| {
                                    out.push((scope, None, p))
                                });
                            }
                            _ => {}
                        });
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// The parameter a function hands back as a deep copy of itself, where
    /// it is one: the function calls itself (on the parameter's entries)
    /// and some `return` gives the parameter unchanged (the case of a
    /// leaf), as `dict_to_nonedict(opt)` and `to_easydict(cfg)` do. Its
    /// result has the parameter's keys and leaves.
    pub fn mirrored_param(&self, f: FuncId) -> Option<usize> {
        let func = self.func(f)?;
        let mut returned: Option<usize> = None;
        let mut others = false;
        for r in self.returns(f) {
            match &r.kind {
                ExprKind::Name(n) => match func.params.iter().position(|p| &p.name == n) {
                    Some(i) if returned.is_none_or(|j| j == i) => returned = Some(i),
                    _ => others = true,
                },
                _ => others = true,
            }
        }
        let i = returned?;
        if !others {
            return None;
        }
        let mut recursive = false;
        self.walk_exprs(f.scope(), &mut |_, e| {
            if let ExprKind::Call { func: callee, .. } = &e.kind {
                if !recursive && matches!(&callee.kind, ExprKind::Name(n) if *n == func.name) {
                    recursive = self.callee(f.scope(), callee) == Callee::Func(f);
                }
            }
        });
        recursive.then_some(i)
    }

    /// The expressions a function returns (its own `return` statements).
    pub fn returns(&self, f: FuncId) -> Vec<&Expr> {
        let mut out = Vec::new();
        self.walk_stmts(f.scope(), &mut |_, s| {
            if let StmtKind::Return(Some(e)) = &s.kind {
                out.push(e);
            }
        });
        out
    }
}

/// `x if x is not None else other` and `other if x is None else x`, with
/// `x` a name or an attribute chain: `(x, other)`.
fn none_guard<'e>(test: &'e Expr, body: &'e Expr, orelse: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
    let ExprKind::Compare { left, rest } = &test.kind else {
        return None;
    };
    let [(op, right)] = rest.as_slice() else { return None };
    if !matches!(right.kind, ExprKind::None) || !plain_path(left) {
        return None;
    }
    let same = |e: &Expr| plain_path(e) && same_path(e, left);
    match op.as_str() {
        "is not" if same(body) => Some((body, orelse)),
        "is" if same(orelse) => Some((orelse, body)),
        _ => None,
    }
}

fn plain_path(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) => true,
        ExprKind::Attribute { value, .. } => plain_path(value),
        _ => false,
    }
}

fn same_path(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Name(x), ExprKind::Name(y)) => x == y,
        (ExprKind::Attribute { value: v, attr: x }, ExprKind::Attribute { value: w, attr: y }) => {
            x == y && same_path(v, w)
        }
        _ => false,
    }
}

/// `m.items()` iterated and unpacked at position 1 (`for k, v in
/// m.items()`), or `m.values()` iterated: the mapping `m`, and the
/// projections after the value. `None` for anything else (the key of
/// `items()`, a method given arguments).
fn mapping_values<'p, 'q>(func: &'p Expr, args: &[Arg], proj: &'q [Proj]) -> Option<(&'p Expr, &'q [Proj])> {
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return None;
    };
    if !args.is_empty() {
        return None;
    }
    match (attr.as_str(), proj) {
        ("items", [Proj::Iter, Proj::Key(Key::Int(1)), rest @ ..]) => Some((value, rest)),
        ("values", [Proj::Iter, rest @ ..]) => Some((value, rest)),
        _ => None,
    }
}

/// `zip(a, b, …)` iterated and unpacked at position `i` (`for x, y in
/// zip(a, b)`), or `enumerate(a)` at position 1: the argument the entry
/// comes from, and the projections after it. `None` for anything else (the
/// index `enumerate` counts, arguments given with `*`).
fn zipped<'p, 'q>(path: &str, args: &'p [Arg], proj: &'q [Proj]) -> Option<(&'p Expr, &'q [Proj])> {
    let [Proj::Iter, Proj::Key(Key::Int(i)), rest @ ..] = proj else {
        return None;
    };
    let positional: Vec<&Expr> = args
        .iter()
        .map(|a| match a {
            Arg::Pos(e) => Some(Some(e)),
            Arg::Kw { .. } => Some(None),
            _ => None,
        })
        .collect::<Option<Vec<Option<&Expr>>>>()?
        .into_iter()
        .flatten()
        .collect();
    if positional.iter().any(|e| matches!(e.kind, ExprKind::Starred(_))) {
        return None;
    }
    let i = usize::try_from(*i).ok()?;
    match path {
        "builtins.zip" => positional.get(i).map(|e| (*e, rest)),
        "builtins.enumerate" if i == 1 => positional.first().map(|e| (*e, rest)),
        _ => None,
    }
}
