//! Calls: what a call calls, where a function is called from (an index of
//! identifiers), and which argument a parameter is bound to.

use super::*;

impl Program {
    /// What a call's function expression calls (without following
    /// variables, except `self.method`).
    pub fn callee(&self, scope: Scope, func: &Expr) -> Callee {
        match self.expr_sym(scope, func) {
            Some(Sym::Func(f)) => return Callee::Func(f),
            Some(Sym::Class(k)) => return Callee::Class(k),
            Some(Sym::External(p)) => return Callee::External(p),
            _ => {}
        }
        if let ExprKind::Attribute { value, attr } = &func.kind {
            if let Some(k) = self.self_class(scope, value) {
                if let Some(f) = self.method(k, attr) {
                    return Callee::Func(self.sole_override(k, f, attr).unwrap_or(f));
                }
            }
            // `args.set_initial_seed(…)` on a parameter annotated with a
            // training-code class (`def build(args: arg_util.Args)`).
            if let ExprKind::Name(n) = &value.kind {
                if let Some(k) = self.annotated_class(scope, n) {
                    if let Some(f) = self.method(k, attr) {
                        return Callee::Func(f);
                    }
                }
            }
            // `logger.log_every(…)` on a local name bound only to
            // instances of one training-code class (`logger =
            // utils.MetricLogger()`): that class's method.
            if let ExprKind::Name(_) = &value.kind {
                if let Some(k) = self.instance_class(scope, value) {
                    if let Some(f) = self.method(k, attr) {
                        return Callee::Func(f);
                    }
                }
            }
            // `model.module.inference(…)` on a local bound only to one
            // training-code module, wrapped (`model = DDP(SAGE(…))`): the
            // wrapped module's method.
            if let ExprKind::Attribute {
                value: inner,
                attr: module,
            } = &value.kind
            {
                if module == "module" && matches!(inner.kind, ExprKind::Name(_)) {
                    if let Some(k) = self.instance_class(scope, inner) {
                        if let Some(f) = self.method(k, attr) {
                            return Callee::Func(f);
                        }
                    }
                }
            }
            // `metric_logger.log_every(…)` on a local bound only to
            // instances of an outside `MetricLogger` (DeiT's and MAE's
            // `misc.MetricLogger()`, from a module not in the context):
            // that class's method, by its path.
            if let (ExprKind::Name(n), Some(f)) = (&value.kind, scope.func()) {
                let defs = self.local_defs(f, n);
                let paths: Vec<Option<String>> = defs
                    .iter()
                    .map(|d| match d {
                        LocalDef::Assign { value: v, proj } if proj.is_empty() => match &v.kind {
                            ExprKind::Call { func: ctor, .. } => self
                                .external(f.scope(), ctor)
                                .filter(|p| p.ends_with(".MetricLogger") || p == "MetricLogger"),
                            _ => None,
                        },
                        _ => None,
                    })
                    .collect();
                if let [Some(p), rest @ ..] = paths.as_slice() {
                    if rest.iter().all(|q| q.as_deref() == Some(p.as_str())) {
                        return Callee::External(format!("{p}.{attr}"));
                    }
                }
            }
            // `DataModule(…).train_dataloader()`: a method of the
            // training-code class constructed right there.
            if let ExprKind::Call { func: ctor, .. } = &value.kind {
                if let Some(Sym::Class(k)) = self.expr_sym(scope, ctor) {
                    if let Some(f) = self.method(k, attr) {
                        return Callee::Func(f);
                    }
                }
            }
        }
        // `self(x)` in a method of a module class of the code (a
        // LightningModule's `shared_step` computing `self(x, c)`): its
        // `__call__`, else its `forward`.
        if let (ExprKind::Name(n), Some(f)) = (&func.kind, scope.func()) {
            let first = self
                .func(f)
                .and_then(|x| x.params.first())
                .is_some_and(|p| p.name == *n);
            if n == "self" && first {
                if let Some(k) = self.class_of(f) {
                    if let Some(g) = self.method(k, "__call__") {
                        return Callee::Func(g);
                    }
                    if self.derives_from(k, TORCH_MODULE) || self.derives_from(k, LIGHTNING_MODULE) {
                        if let Some(g) = self.method(k, "forward") {
                            return Callee::Func(g);
                        }
                    }
                }
            }
        }
        // `sampler(prompt=…)` on a local bound only to instances of one
        // training-code class (`sampler = XFluxSampler(…)`): its `__call__`.
        // `model(x)` on an instance of a training-code `nn.Module` (held
        // through DDP or Accelerate): its `forward`.
        if let ExprKind::Name(_) = &func.kind {
            if let Some(k) = self.instance_class(scope, func) {
                if let Some(f) = self.method(k, "__call__") {
                    return Callee::Func(f);
                }
                if self.derives_from(k, TORCH_MODULE) {
                    if let Some(f) = self.method(k, "forward") {
                        return Callee::Func(f);
                    }
                }
            }
        }
        Callee::Unknown
    }

    /// The training-code class parameter `n` of the function of `scope` is
    /// annotated with, where the function does not bind `n` again.
    fn annotated_class(&self, scope: Scope, n: &str) -> Option<ClassId> {
        let f = scope.func()?;
        let p = self.func(f)?.params.iter().find(|p| p.name == n)?;
        let annotation = p.annotation.as_ref()?;
        let Some(Sym::Class(k)) = self.expr_sym(scope, annotation) else {
            return None;
        };
        self.local_defs(f, n)
            .iter()
            .all(|d| !matches!(d, LocalDef::Assign { .. }))
            .then_some(k)
    }

    /// The training-code class every value of the local name `e` is an
    /// instance of, when each of its assignments in the function is a
    /// direct constructor call of it (`logger = utils.MetricLogger()`).
    pub(super) fn instance_class(&self, scope: Scope, e: &Expr) -> Option<ClassId> {
        let ExprKind::Name(n) = &e.kind else { return None };
        let Some(f) = self.binding_func(scope, n) else {
            return self.module_instance_class(scope.m, n);
        };
        let defs = self.local_defs(f, n);
        if defs.is_empty() {
            return None;
        }
        let mut class = None;
        // `trainer = trainer.cuda()`: a module's `.cuda()`, `.to(…)`, … give
        // the module itself (checked against the class below).
        let mut moved = false;
        for d in defs {
            let LocalDef::Assign { value, proj } = d else {
                return None;
            };
            if self.wraps_itself(f.scope(), n, value, &proj) {
                moved = true;
                continue;
            }
            if !proj.is_empty() {
                return None;
            }
            // `Net().cuda(local_rank)`: the module built, moved; also
            // wrapped where it is built (`DDP(Net().to(rank), …)`).
            let mut value = value;
            while let ExprKind::Call { func, args, .. } = &value.kind {
                match &func.kind {
                    ExprKind::Attribute { value: recv, attr } if SAME_MODULE.contains(&attr.as_str()) => {
                        moved = true;
                        value = recv;
                    }
                    _ => {
                        let wrapped = match args.first() {
                            Some(Arg::Pos(inner))
                                if self
                                    .external(f.scope(), func)
                                    .is_some_and(|p| MODULE_WRAPPERS.contains(&p.as_str())) =>
                            {
                                inner
                            }
                            _ => break,
                        };
                        moved = true;
                        value = wrapped;
                    }
                }
            }
            let ExprKind::Call { func, .. } = &value.kind else {
                return None;
            };
            let Some(Sym::Class(k)) = self.expr_sym(f.scope(), func) else {
                return None;
            };
            match class {
                None => class = Some(k),
                Some(c) if c == k => {}
                Some(_) => return None,
            }
        }
        if moved && !class.is_some_and(|k| self.derives_from(k, TORCH_MODULE)) {
            return None;
        }
        class
    }

    /// Whether `value` (taken at `proj`) hands back the module the name `n`
    /// already holds, or a wrapper whose call runs that module's
    /// `forward`: `model.cuda()`, `DDP(model, …)`, `torch.compile(model)`,
    /// `accelerator.prepare(model)`, the matching entry of `vae, model =
    /// accelerator.prepare(vae, model)`, the engine of
    /// `deepspeed.initialize(model=model, …)`.
    fn wraps_itself(&self, scope: Scope, n: &str, value: &Expr, proj: &[Proj]) -> bool {
        let ExprKind::Call { func, args, .. } = &value.kind else {
            return false;
        };
        let is_n = |e: &Expr| matches!(&e.kind, ExprKind::Name(r) if r == n);
        let positional = |i: usize| {
            args.iter()
                .filter_map(|a| match a {
                    Arg::Pos(x) => Some(x),
                    _ => None,
                })
                .nth(i)
        };
        if let ExprKind::Attribute { value: recv, attr } = &func.kind {
            if proj.is_empty() && is_n(recv) && SAME_MODULE.contains(&attr.as_str()) {
                return true;
            }
            if matches!(attr.as_str(), "prepare" | "prepare_model")
                && self.built_by(scope, recv, "accelerate.Accelerator")
            {
                return match proj {
                    [] => args.len() == 1 && positional(0).is_some_and(is_n),
                    [Proj::Key(Key::Int(i))] => usize::try_from(*i).ok().and_then(positional).is_some_and(is_n),
                    _ => false,
                };
            }
        }
        let Some(path) = self.external(scope, func) else {
            return false;
        };
        if path == "deepspeed.initialize" {
            return matches!(proj, [Proj::Key(Key::Int(0))])
                && args
                    .iter()
                    .any(|a| matches!(a, Arg::Kw { name: k, value: v, .. } if k == "model" && is_n(v)));
        }
        proj.is_empty() && MODULE_WRAPPERS.contains(&path.as_str()) && positional(0).is_some_and(is_n)
    }

    /// Whether some binding of `recv` is a call of the external `ctor`
    /// (`accelerator = Accelerator(…)`).
    pub fn built_by(&self, scope: Scope, recv: &Expr, ctor: &str) -> bool {
        self.sources(scope, recv).terms.iter().any(|t| {
            matches!(&t.expr.kind, ExprKind::Call { func, .. } if self.external(t.scope, func).as_deref() == Some(ctor))
        })
    }

    /// The class and the one construction the local name `e` is bound to
    /// (`loader = NewDataLoader(args, "train")`), where the function binds
    /// it once, to a direct constructor call of a training-code class.
    pub(super) fn instance_ctor<'p>(&'p self, scope: Scope, e: &Expr) -> Option<(ClassId, &'p Expr)> {
        let ExprKind::Name(n) = &e.kind else { return None };
        let f = self.binding_func(scope, n)?;
        let defs = self.local_defs(f, n);
        // A parameter of a helper (`online_eval(model, dataloader_eval)`)
        // whose every call passes a name bound so, to constructions that
        // are all one: each call site's construction, where they agree.
        if let [LocalDef::Param(index)] = defs.as_slice() {
            let index = *index;
            let sites = self.call_sites(f);
            if sites.is_empty() || sites.len() > 4 || self.escapes(f) {
                return None;
            }
            let mut found: Option<(ClassId, &'p Expr)> = None;
            for (s, call) in sites {
                let Bound::Given(arg) = self.bind(f, call, index) else {
                    return None;
                };
                if !matches!(arg.kind, ExprKind::Name(_)) || s.func().is_some_and(|g| g == f) {
                    return None;
                }
                let ExprKind::Name(a) = &arg.kind else { return None };
                let g = self.binding_func(s, a)?;
                let arg_defs = self.local_defs(g, a);
                let [LocalDef::Assign { value, proj }] = arg_defs.as_slice() else {
                    return None;
                };
                if !proj.is_empty() {
                    return None;
                }
                let ExprKind::Call { func: ctor, .. } = &value.kind else {
                    return None;
                };
                let Some(Sym::Class(k)) = self.expr_sym(g.scope(), ctor) else {
                    return None;
                };
                match found {
                    None => found = Some((k, *value)),
                    Some((fk, fv)) if fk == k && std::ptr::eq(fv, *value) => {}
                    Some(_) => return None,
                }
            }
            return found;
        }
        let [LocalDef::Assign { value, proj }] = defs.as_slice() else {
            return None;
        };
        if !proj.is_empty() {
            return None;
        }
        let ExprKind::Call { func, .. } = &value.kind else {
            return None;
        };
        match self.expr_sym(f.scope(), func) {
            Some(Sym::Class(k)) => Some((k, *value)),
            _ => None,
        }
    }

    /// The training-code class every module-level binding of `n` in module
    /// `m` (followed through imports) constructs directly (`options =
    /// Options()` in a script's `if __name__ == "__main__":` block).
    fn module_instance_class(&self, m: ModId, n: &str) -> Option<ClassId> {
        let (at, bindings) = self.imported_object(m, n);
        let bindings = bindings?;
        let mut class = None;
        for b in bindings {
            let ModBinding::Assign { value, proj, c } = b else {
                return None;
            };
            if !proj.is_empty() {
                return None;
            }
            let ExprKind::Call { func, .. } = &value.kind else {
                return None;
            };
            let Some(Sym::Class(k)) = self.expr_sym(Scope { m: at, c: *c, f: None }, func) else {
                return None;
            };
            match class {
                None => class = Some(k),
                Some(x) if x == k => {}
                Some(_) => return None,
            }
        }
        class
    }

    /// The class of `self` when `e` is the first parameter of a method.
    pub fn self_class(&self, scope: Scope, e: &Expr) -> Option<ClassId> {
        let ExprKind::Name(n) = &e.kind else { return None };
        let mut f = scope.func()?;
        let mut guard = 0;
        loop {
            guard += 1;
            if guard > MAX_DEPTH {
                return None;
            }
            let func = self.func(f)?;
            if let Some(k) = self.class_of(f) {
                let first = func.params.first()?;
                let decorated_static = func
                    .decorators
                    .iter()
                    .any(|d| matches!(&d.kind, ExprKind::Name(n) if n == "staticmethod"));
                return (first.name == *n && !decorated_static).then_some(k);
            }
            // A function nested in a method sees its `self`.
            if func.params.iter().any(|p| p.name == *n) {
                return None;
            }
            f = self.parent_func(f)?;
        }
    }

    /// The classes a registry lookup may call: `func` is `REG[key]` or
    /// `REG.get(key)` (with a key that is not a literal) on a dict literal
    /// every value of which is a training-code class (`_DATASETS =
    /// {"cifar10": Cifar10, "imagenet": ImageNet}`). `None` for anything
    /// else, or a dict with another value or a `**` splat.
    pub fn registry_classes(&self, scope: Scope, func: &Expr) -> Option<Vec<ClassId>> {
        // `Dataset = DATASETS[args.dataset]` then `Dataset(…)`: the lookup
        // the name is bound to, where it is bound to nothing else.
        if let ExprKind::Name(_) = &func.kind {
            let sources = self.sources(scope, func);
            let [t] = sources.terms.as_slice() else { return None };
            if sources.unknown || !t.proj.is_empty() || !matches!(t.expr.kind, ExprKind::Subscript { .. }) {
                return None;
            }
            return self.registry_lookup(t.scope, t.expr);
        }
        self.registry_lookup(scope, func)
    }

    /// [`Program::registry_classes`] of the lookup itself.
    fn registry_lookup(&self, scope: Scope, func: &Expr) -> Option<Vec<ClassId>> {
        // `dataset_map[key][0](**kwargs)` of a table of tuples (DROID-SLAM's
        // `{'tartan': (TartanAir, )}`): the tuples' entry at that index.
        let mut entry: Option<usize> = None;
        let func = match &func.kind {
            ExprKind::Subscript { value, index } => match (&value.kind, &index.kind) {
                (ExprKind::Subscript { .. }, ExprKind::Int(i)) => {
                    entry = Some(usize::try_from(*i).ok()?);
                    &**value
                }
                _ => func,
            },
            _ => func,
        };
        let table = match &func.kind {
            ExprKind::Subscript { value, index } if !matches!(index.kind, ExprKind::Str(_) | ExprKind::Int(_)) => {
                &**value
            }
            ExprKind::Call { func: get, args, .. } => match &get.kind {
                ExprKind::Attribute { value, attr } if attr == "get" && args.len() == 1 => &**value,
                _ => return None,
            },
            _ => return None,
        };
        let sources = self.sources(scope, table);
        let [t] = sources.terms.as_slice() else { return None };
        if sources.unknown || !t.proj.is_empty() {
            return None;
        }
        let ExprKind::Dict(items) = &t.expr.kind else {
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            let crate::training::ast::DictItem::Pair { value, .. } = item else {
                return None;
            };
            let value = match (entry, &value.kind) {
                (None, _) => value,
                (Some(i), ExprKind::Tuple(items) | ExprKind::List(items)) => items.get(i)?,
                (Some(_), _) => return None,
            };
            match self.expr_sym(t.scope, value) {
                Some(Sym::Class(k)) => {
                    if !out.contains(&k) {
                        out.push(k);
                    }
                }
                _ => return None,
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// Every call of function `f` in the training code: the calling scope
    /// and the call. Instantiations count as calls of `__init__`.
    pub fn call_sites(&self, f: FuncId) -> Vec<(Scope, &Expr)> {
        let found = self.found_sites(f);
        let found = found.sites.as_slice();
        // The calls themselves, found again in their scopes by span.
        let mut out = Vec::with_capacity(found.len());
        let mut i = 0;
        while i < found.len() {
            let scope = found[i].0;
            let mut j = i;
            while j < found.len() && found[j].0 == scope {
                j += 1;
            }
            let spans = &found[i..j];
            self.walk_exprs(scope, &mut |_, e| {
                if matches!(e.kind, ExprKind::Call { .. }) && spans.iter().any(|(_, s)| *s == e.span) {
                    out.push((scope, e));
                }
            });
            i = j;
        }
        out
    }

    /// The one call of `f` (among those in the programs of the mask
    /// `programs` ([`Program::programs`]), where given and `f` has several) and the argument it writes for
    /// parameter `index` (not a default, not a `**kwargs` splat), where `f`
    /// is called nowhere else that could be read: the place a value passed
    /// into a helper is chosen (`fix_random_seeds(args.seed)`).
    pub fn sole_binding(&self, f: FuncId, index: usize, programs: Option<u64>) -> Option<(Scope, &Expr, &Expr)> {
        if self.escapes(f) {
            return None;
        }
        let mut sites = self.call_sites(f);
        if let Some(bits) = programs {
            if sites.len() > 1 {
                sites.retain(|(s, _)| self.programs(s.m) & bits != 0);
            }
        }
        let [(scope, call)] = sites.as_slice() else {
            return None;
        };
        match self.bind(f, call, index) {
            Bound::Given(e) => Some((*scope, *call, e)),
            _ => None,
        }
    }

    /// Whether `f` is also handed, as a value, somewhere its calls are not
    /// followed (`Process(target=f, args=…)`, `partial(f, …)`, a registry
    /// dict): [`Program::call_sites`] may then miss calls, and what they
    /// pass.
    pub fn escapes(&self, f: FuncId) -> bool {
        self.found_sites(f).escapes
    }

    fn found_sites(&self, f: FuncId) -> Arc<CallSites> {
        let kept = self.sites.lock().ok().and_then(|m| m.get(&f).cloned());
        match kept {
            Some(found) => found,
            None => {
                let found = Arc::new(self.find_call_sites(f));
                if let Ok(mut m) = self.sites.lock() {
                    m.insert(f, Arc::clone(&found));
                }
                found
            }
        }
    }

    /// The calls of `f` (scope and span, grouped by scope in walk order),
    /// looked for in the chunks that mention its name.
    fn find_call_sites(&self, f: FuncId) -> CallSites {
        let Some(func) = self.func(f) else {
            return CallSites::default();
        };
        let class = self.class_of(f);
        let needle: &str = if func.name == "__init__" {
            match class.and_then(|k| self.class(k)) {
                Some(c) => c.name.as_str(),
                None => return CallSites::default(),
            }
        } else {
            func.name.as_str()
        };
        let mut out = Vec::new();
        let mut handed = Vec::new();
        let mut dispatched: Vec<(Scope, Span)> = Vec::new();
        let mut escapes = false;
        // The chunks naming the function, or a name a module imports it as
        // (`from train import main as run`: `run(params)` calls it).
        // Aliases of aliases too (`from .runner import run_net as
        // pretrain_run_net` in a package's `__init__.py`, then `from tools
        // import pretrain_run_net as pretrain`), a few steps.
        let mut words: Vec<&str> = vec![needle];
        // An instance called (`sampler(…)` runs `__call__`) is found where it
        // is built: by the name of the class or of a subclass that inherits
        // the method.
        // Likewise a class's `__init__` runs where a subclass that does not
        // define its own is instantiated (`TrainerX(configs)` of a
        // `TrainerX(TrainerBase)` with no `__init__` of its own).
        let makers: Vec<String> = match class {
            Some(k) if func.name == "__call__" || func.name == "__init__" => {
                // Subclasses of subclasses too (a few levels), by name.
                let mut out: Vec<String> = self.class(k).map(|c| c.name.clone()).into_iter().collect();
                let mut i = 0;
                while i < out.len() && i < 4 && out.len() < 8 {
                    let name = out[i].clone();
                    for sub in self.classes_mentioning(&[name.as_str()]).into_iter().take(32) {
                        if sub != k && self.method(sub, &func.name) == Some(f) {
                            if let Some(c) = self.class(sub) {
                                if !out.contains(&c.name) {
                                    out.push(c.name.clone());
                                }
                            }
                        }
                        if out.len() >= 8 {
                            break;
                        }
                    }
                    i += 1;
                }
                out
            }
            _ => Vec::new(),
        };
        words.extend(makers.iter().map(String::as_str));
        let mut i = 0;
        while i < words.len() && words.len() < 16 {
            if let Some(aliases) = self.renamed().get(words[i]) {
                for a in aliases {
                    if !words.contains(&a.as_str()) {
                        words.push(a);
                    }
                }
            }
            i += 1;
        }
        let mut chunks: Vec<(ModId, u32)> = words
            .iter()
            .flat_map(|w| self.chunks_with_word(w).iter().copied())
            .collect();
        chunks.sort_unstable();
        chunks.dedup();
        for (m, c) in chunks {
            for scope in self.scopes(m, c) {
                self.walk_exprs(scope, &mut |anc, e| {
                    // The function named as a value, not called: handed to
                    // a function whose calls of it are followed (below), or
                    // somewhere they are not.
                    let named = match &e.kind {
                        ExprKind::Name(n) | ExprKind::Attribute { attr: n, .. } => words.contains(&n.as_str()),
                        _ => false,
                    };
                    if named && !escapes && self.callee(scope, e) == Callee::Func(f) && !self.handed(scope, anc, e) {
                        // Chosen by a dispatcher that returns it or from a
                        // module's table of functions, and called there.
                        match self.dispatched(scope, anc, e, f) {
                            Some(calls) => dispatched.extend(calls),
                            None => escapes = true,
                        }
                    }
                    if let ExprKind::Call { func: callee_expr, .. } = &e.kind {
                        let hit = match self.callee(scope, callee_expr) {
                            Callee::Func(g) => g == f || self.dispatched_from_base(scope, callee_expr, f, class),
                            Callee::Unknown => {
                                self.dispatched_from_base(scope, callee_expr, f, class)
                                    || self.method_of_one_instance(scope, callee_expr, f, class)
                            }
                            Callee::Class(k) => {
                                func.name == "__init__" && (Some(k) == class || self.method(k, "__init__") == Some(f))
                            }
                            // `mp.spawn(f, (args,), nprocs)` calls `f(i, args)`.
                            Callee::External(p) if SPAWNERS.contains(&p.as_str()) => {
                                spawned(e).is_some_and(|(target, _)| self.callee(scope, target) == Callee::Func(f))
                            }
                            _ => false,
                        };
                        if hit {
                            out.push((scope, e.span));
                        }
                        // `launch_job(cfg, func=train)`: `train` handed to a
                        // function of the training code (or, through a
                        // spawner's `args`, to the function it starts) is
                        // called where that function calls the parameter.
                        let is_f = |a: &Expr| match &a.kind {
                            ExprKind::Name(n) | ExprKind::Attribute { attr: n, .. } => {
                                words.contains(&n.as_str()) && self.callee(scope, a) == Callee::Func(f)
                            }
                            _ => false,
                        };
                        for (g, param) in self.value_params(scope, e, &is_f) {
                            self.param_calls(g, &param, 0, &mut handed);
                        }
                    }
                });
            }
        }
        handed.extend(dispatched);
        handed.sort_unstable();
        handed.dedup();
        handed.retain(|s| !out.contains(s));
        out.extend(handed);
        CallSites { sites: out, escapes }
    }

    /// Whether `x.<name>(…)` at `callee` may call the method `f` of
    /// `class`: `x` is a local every binding of which builds an instance of
    /// a class of the code (`prefetcher = CPUPrefetcher(loader)` on one
    /// branch, `CUDAPrefetcher(loader, opt)` on the other), and one of
    /// those classes has `f` as its method of that name.
    fn method_of_one_instance(&self, scope: Scope, callee: &Expr, f: FuncId, class: Option<ClassId>) -> bool {
        let ExprKind::Attribute { value, attr } = &callee.kind else {
            return false;
        };
        let (ExprKind::Name(n), Some(_), Some(g)) = (&value.kind, class, scope.func()) else {
            return false;
        };
        if self.binding_func(scope, n) != Some(g) {
            return false;
        }
        let defs = self.local_defs(g, n);
        if defs.len() < 2 {
            // One binding is [`Program::instance_class`]'s to resolve.
            return false;
        }
        let mut classes = Vec::new();
        for d in &defs {
            let LocalDef::Assign { value, proj } = d else {
                return false;
            };
            let ExprKind::Call { func, .. } = &value.kind else {
                return false;
            };
            match self.callee(g.scope(), func) {
                Callee::Class(k) if proj.is_empty() => classes.push(k),
                _ => return false,
            }
        }
        classes.iter().any(|k| self.method(*k, attr) == Some(f))
    }

    /// Whether `self.<name>(…)` at `callee` (in a method of a base class of
    /// `f`'s class `class`) calls the override `f` when `self` is an
    /// instance of that class: the method holding the call is one the class
    /// inherits (a template's `run_epoch` calling `self.train(…)`, which
    /// each trainer subclass defines).
    fn dispatched_from_base(&self, scope: Scope, callee: &Expr, f: FuncId, class: Option<ClassId>) -> bool {
        let ExprKind::Attribute { value, attr } = &callee.kind else {
            return false;
        };
        let (Some(c), Some(func)) = (class, self.func(f)) else {
            return false;
        };
        if *attr != func.name {
            return false;
        }
        let Some(b) = self.self_class(scope, value) else {
            return false;
        };
        if b == c || self.method(c, attr) != Some(f) || !self.ancestors(c).contains(&b) {
            return false;
        }
        // The method whose `self` it is (the call may sit in a function
        // nested in it), inherited as it is.
        let mut holder = scope.func();
        let mut guard = 0;
        while let Some(h) = holder {
            guard += 1;
            if guard > MAX_DEPTH {
                return false;
            }
            if self.class_of(h).is_some() {
                break;
            }
            holder = self.parent_func(h);
        }
        let Some(h) = holder else { return false };
        self.func(h).is_some_and(|hf| self.method(c, &hf.name) == Some(h))
    }

    /// The calls of `f` where its name `e` (in `scope`, ancestors `anc`) is
    /// a value a dispatcher chooses: returned by a function whose calls are
    /// called at once (`get_dataset_fn(kind)(args, …)`), or an entry of a
    /// module-level table of functions called through its keys
    /// (`LOADERS[args.data]["train"](args, tok)`, a key written out matching
    /// the entry's). `None` where the value goes anywhere else (the function
    /// escapes).
    fn dispatched(&self, scope: Scope, anc: &[Anc<'_>], e: &Expr, f: FuncId) -> Option<Vec<(Scope, Span)>> {
        thread_local! {
            static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        }
        if DEPTH.with(|d| d.get()) >= 2 {
            return None;
        }
        DEPTH.with(|d| d.set(d.get() + 1));
        let found = match anc.last() {
            Some(Anc::Stmt(st)) => match &st.kind {
                StmtKind::Return(Some(v)) if std::ptr::eq(v, e) => self.returned_then_called(scope, f),
                _ => None,
            },
            Some(Anc::Expr(_)) => self.table_calls(scope, anc, e),
            _ => None,
        };
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        found
    }

    /// The calls `g(…)(…)` of the module-level function `g` (the function
    /// of `scope`) that returns `f`, where every call of `g` is one.
    fn returned_then_called(&self, scope: Scope, f: FuncId) -> Option<Vec<(Scope, Span)>> {
        let g = scope.func()?;
        if g == f || self.class_of(g).is_some() || self.escapes(g) {
            return None;
        }
        let sites = self.call_sites(g);
        if sites.is_empty() || sites.len() > 16 {
            return None;
        }
        let mut out = Vec::new();
        for (s, call) in sites {
            let mut outer = None;
            self.walk_exprs(s, &mut |_, x| {
                if let ExprKind::Call { func, .. } = &x.kind {
                    if std::ptr::eq(&**func, call) {
                        outer = Some(x.span);
                    }
                }
            });
            out.push((s, outer?));
        }
        Some(out)
    }

    /// The calls through the keys of a module-level table whose entry is
    /// `e` (see [`Program::dispatched`]).
    fn table_calls(&self, scope: Scope, anc: &[Anc<'_>], e: &Expr) -> Option<Vec<(Scope, Span)>> {
        if scope.f.is_some() {
            return None;
        }
        // The entry's keys, innermost first, up to the statement.
        let mut keys: Vec<String> = Vec::new();
        let mut child: *const Expr = e;
        let mut stmt = None;
        for a in anc.iter().rev() {
            match a {
                Anc::Expr(p) => {
                    let ExprKind::Dict(items) = &p.kind else { return None };
                    let key = items.iter().find_map(|i| match i {
                        DictItem::Pair { key, value, .. } if std::ptr::eq(value, child) => match &key.kind {
                            ExprKind::Str(k) => Some(k.clone()),
                            _ => None,
                        },
                        _ => None,
                    })?;
                    keys.push(key);
                    child = *p;
                }
                Anc::Stmt(st) => {
                    stmt = Some(*st);
                    break;
                }
                _ => return None,
            }
        }
        let StmtKind::Assign { targets, value } = &stmt?.kind else {
            return None;
        };
        if !std::ptr::eq(value, child) || targets.len() != 1 {
            return None;
        }
        // `TABLE = {…}` or `TABLE["msrvtt"] = {…}`.
        let mut target = &targets[0];
        while let ExprKind::Subscript { value, index } = &target.kind {
            let ExprKind::Str(k) = &index.kind else { return None };
            keys.push(k.clone());
            target = value;
        }
        let ExprKind::Name(table) = &target.kind else {
            return None;
        };
        keys.reverse();
        let found = self.table_calls_of(scope.m, table);
        let calls = found.calls.as_ref()?;
        Some(
            calls
                .iter()
                .filter(|(_, _, path)| {
                    path.len() == keys.len() && path.iter().zip(&keys).all(|(p, k)| p.as_ref().is_none_or(|p| p == k))
                })
                .map(|(s, span, _)| (*s, *span))
                .collect(),
        )
    }

    /// [`TableCalls`] of the table `table` that module `m` assigns, read
    /// once.
    fn table_calls_of(&self, m: ModId, table: &str) -> Arc<TableCalls> {
        let key = (m, table.to_string());
        if let Some(found) = self.tables_called.lock().ok().and_then(|t| t.get(&key).cloned()) {
            return found;
        }
        let found = Arc::new(self.scan_table_calls(m, table));
        if let Ok(mut t) = self.tables_called.lock() {
            t.insert(key, Arc::clone(&found));
        }
        found
    }

    fn scan_table_calls(&self, def: ModId, table: &str) -> TableCalls {
        let mut out = Vec::new();
        let mut other = false;
        for &(m, c) in self.chunks_with_word(table) {
            if m != def && self.imported_object(m, table).0 != def {
                continue;
            }
            for s in self.scopes(m, c) {
                self.walk_exprs(s, &mut |up, x| {
                    if other || !matches!(&x.kind, ExprKind::Name(n) if n == table) {
                        return;
                    }
                    // The subscripts over the table, outermost last.
                    let mut at: &Expr = x;
                    let mut path: Vec<Option<String>> = Vec::new();
                    let mut rest = up.iter().rev();
                    let mut next = rest.next();
                    while let Some(Anc::Expr(p)) = next {
                        match &p.kind {
                            ExprKind::Subscript { value, index } if std::ptr::eq(&**value, at) => {
                                path.push(match &index.kind {
                                    ExprKind::Str(k) => Some(k.clone()),
                                    _ => None,
                                });
                                at = p;
                                next = rest.next();
                            }
                            _ => break,
                        }
                    }
                    if let Some(Anc::Expr(p)) = next {
                        if !path.is_empty()
                            && matches!(&p.kind, ExprKind::Call { func, .. } if std::ptr::eq(&**func, at))
                        {
                            out.push((s, p.span, path));
                            return;
                        }
                    }
                    // Stored into, tested (`kind in TABLE`, `TABLE[k]["test"]
                    // is not None`), or read at a shorter path to be
                    // tested: no call.
                    let benign = match next {
                        Some(Anc::Stmt(st)) => matches!(&st.kind, StmtKind::Assign { targets, .. }
                            if targets.iter().any(|t| std::ptr::eq(t, at))),
                        Some(Anc::Expr(p)) => matches!(p.kind, ExprKind::Compare { .. }),
                        _ => false,
                    };
                    if !benign {
                        other = true;
                    }
                });
            }
        }
        TableCalls {
            calls: (!other && out.len() <= 64).then_some(out),
        }
    }

    /// Whether the function value `e` is called right there, or handed to
    /// a call whose use of it [`Program::find_call_sites`] follows (a
    /// training-code function's parameter, a spawner's target or `args`).
    fn handed(&self, scope: Scope, anc: &[Anc<'_>], e: &Expr) -> bool {
        let mut up = anc.iter().rev();
        let call = match up.next() {
            Some(Anc::Expr(p)) => match &p.kind {
                ExprKind::Call { func, .. } if std::ptr::eq(&**func, e) => return true,
                ExprKind::Call { .. } => *p,
                // An item of a spawner's `args` tuple.
                ExprKind::Tuple(_) => match up.next() {
                    Some(Anc::Expr(c)) if matches!(c.kind, ExprKind::Call { .. }) => *c,
                    _ => return false,
                },
                _ => return false,
            },
            _ => return false,
        };
        if let Some((target, _)) = spawned(call).filter(|_| self.spawns(scope, call)) {
            if std::ptr::eq(target, e) {
                return true;
            }
        }
        !self.value_params(scope, call, &|a| std::ptr::eq(a, e)).is_empty()
    }

    /// The parameters of training-code functions that call `call` binds to
    /// an argument `is_value` accepts: `g(…, func=x)` binds `func` of `g`,
    /// `mp.spawn(run, args=(n, x))` the third parameter of `run` (the rank
    /// comes first). Starred arguments bind nothing known.
    fn value_params(&self, scope: Scope, call: &Expr, is_value: &dyn Fn(&Expr) -> bool) -> Vec<(FuncId, String)> {
        let ExprKind::Call { func, args, .. } = &call.kind else {
            return Vec::new();
        };
        // Most calls hand no such value on: they need no resolving.
        let direct = args
            .iter()
            .any(|a| matches!(a, Arg::Pos(v) | Arg::Kw { value: v, .. } if is_value(v)));
        let in_tuple = spawn_call(func)
            && spawned(call)
                .and_then(|(_, a)| a)
                .is_some_and(|t| matches!(&t.kind, ExprKind::Tuple(items) if items.iter().any(is_value)));
        if !direct && !in_tuple {
            return Vec::new();
        }
        let mut out = Vec::new();
        match self.callee(scope, func) {
            Callee::Func(g) => {
                for a in args {
                    let (Arg::Pos(v) | Arg::Kw { value: v, .. }) = a else {
                        continue;
                    };
                    if is_value(v) {
                        if let Some(p) = self.param_for(g, func, &flows::arg_pos(args, v)) {
                            out.push((g, p));
                        }
                    }
                }
            }
            Callee::External(p) if SPAWNERS.contains(&p.as_str()) && spawn_call(func) => {
                let Some((target, Some(spawn_args))) = spawned(call) else {
                    return out;
                };
                let (Callee::Func(h), ExprKind::Tuple(items)) = (self.callee(scope, target), &spawn_args.kind) else {
                    return out;
                };
                if items.iter().any(|i| matches!(i.kind, ExprKind::Starred(_))) {
                    return out;
                }
                let Some(hf) = self.func(h) else { return out };
                for (i, v) in items.iter().enumerate() {
                    if is_value(v) {
                        if let Some(p) = hf
                            .params
                            .get(i + 1)
                            .filter(|p| p.kind == crate::python::ast::ParamKind::Normal)
                        {
                            out.push((h, p.name.clone()));
                        }
                    }
                }
            }
            _ => {}
        }
        out
    }

    /// The calls of parameter `param` in `g`'s body (`func(cfg=cfg)`), and
    /// of the parameters `g` hands it on to, a few functions deep.
    fn param_calls(&self, g: FuncId, param: &str, depth: u32, out: &mut Vec<(Scope, Span)>) {
        let Some(func) = self.func(g) else { return };
        if depth > 3 || !func.params.iter().any(|p| p.name == param) {
            return;
        }
        let scope = g.scope();
        let is_param = |a: &Expr| matches!(&a.kind, ExprKind::Name(n) if n == param);
        let mut onward = Vec::new();
        self.walk_exprs(scope, &mut |_, e| {
            if let ExprKind::Call { func: callee, .. } = &e.kind {
                if is_param(callee) {
                    out.push((scope, e.span));
                }
                onward.extend(self.value_params(scope, e, &is_param));
            }
        });
        for (h, p) in onward {
            if h != g {
                self.param_calls(h, &p, depth + 1, out);
            }
        }
    }

    /// The names modules import objects under where they rename them:
    /// each imported name's aliases, sorted.
    fn renamed(&self) -> &HashMap<String, Vec<String>> {
        self.renamed.get_or_init(|| {
            let mut out: HashMap<String, Vec<String>> = HashMap::default();
            for table in &self.tables {
                for (bound, bindings) in table.iter() {
                    for b in bindings {
                        if let ModBinding::From { name, .. } = b {
                            if name != bound && name != "*" {
                                out.entry(name.clone()).or_default().push(bound.clone());
                            }
                        }
                    }
                }
            }
            for v in out.values_mut() {
                v.sort();
                v.dedup();
            }
            out
        })
    }

    /// Every call of a method named `name` on some object (`x.name(…)`),
    /// where the program names it nowhere else (not handed on as
    /// `x.name`, not called bare): the calls that can reach a method whose
    /// receivers are not followed. `None` where it is named otherwise or
    /// called in more than 64 places.
    pub fn attribute_calls(&self, name: &str) -> Option<Vec<(Scope, &Expr)>> {
        let mut out = Vec::new();
        let mut other = false;
        for &(m, c) in self.chunks_with_word(name) {
            for scope in self.scopes(m, c) {
                self.walk_exprs(scope, &mut |anc, e| match &e.kind {
                    ExprKind::Attribute { attr, .. } if attr == name => {
                        let called = matches!(anc.last(), Some(Anc::Expr(p))
                            if matches!(&p.kind, ExprKind::Call { func, .. } if std::ptr::eq(&**func, e)));
                        if !called {
                            other = true;
                        }
                    }
                    ExprKind::Name(n) if n == name => other = true,
                    ExprKind::Call { func, .. } => {
                        if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == name) {
                            out.push((scope, e));
                        }
                    }
                    _ => {}
                });
            }
        }
        (!other && out.len() <= 64).then_some(out)
    }

    /// The chunks of module `m` whose text has one of `words` as a whole
    /// identifier (`checkpoint` in `core.checkpoint.store_path`, not in
    /// `save_checkpoint`), in chunk order.
    pub fn chunks_with_words(&self, m: ModId, words: &[&str]) -> Vec<u32> {
        let mut out: Vec<u32> = words
            .iter()
            .flat_map(|w| self.chunks_with_word(w).iter())
            .filter(|(at, _)| *at == m)
            .map(|(_, c)| *c)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The chunks (in module and chunk order) whose text has `word` as a
    /// whole identifier.
    pub(super) fn chunks_with_word(&self, word: &str) -> &[(ModId, u32)] {
        let index = self.words.get_or_init(|| {
            let mut index = WordIndex::default();
            for m in self.modules() {
                let Some(p) = self.parsed(m) else { continue };
                for (c, info) in p.chunks().iter().enumerate() {
                    let Some(text) = p.text().get(info.range.clone()) else {
                        continue;
                    };
                    let at = (m, c as u32);
                    for w in identifiers(text) {
                        match index.get_mut(w) {
                            Some(list) => {
                                if list.last() != Some(&at) {
                                    list.push(at);
                                }
                            }
                            None => {
                                index.insert(w.into(), vec![at]);
                            }
                        }
                    }
                }
            }
            index
        });
        index.get(word).map_or(&[], Vec::as_slice)
    }

    /// Whether `call` starts processes running a function
    /// (`mp.spawn(f, …)`) rather than calling it: the function's return
    /// value does not come back there.
    pub fn spawns(&self, scope: Scope, call: &Expr) -> bool {
        let ExprKind::Call { func, .. } = &call.kind else {
            return false;
        };
        spawn_call(func) && matches!(self.callee(scope, func), Callee::External(p) if SPAWNERS.contains(&p.as_str()))
    }

    /// How a call binds parameter `index` of `f` (whose call it is).
    pub fn bind<'p>(&'p self, f: FuncId, call: &'p Expr, index: usize) -> Bound<'p> {
        self.bind_with(f, call, index, &|_| None)
    }

    /// [`Program::bind`] for a call in `scope`, reading past a starred
    /// argument whose length is known there (`build_dataloader(*dataset,
    /// is_train, opts)`, where every value `dataset` can hold is a pair).
    pub fn bind_at<'p>(&'p self, scope: Scope, f: FuncId, call: &'p Expr, index: usize) -> Bound<'p> {
        self.bind_with(f, call, index, &|e| self.star_len(scope, e))
    }

    /// How many items a starred argument spreads: every value it can hold
    /// is a tuple or list display of that length.
    fn star_len(&self, scope: Scope, e: &Expr) -> Option<usize> {
        let sources = self.sources(scope, e);
        if sources.unknown || sources.terms.is_empty() {
            return None;
        }
        let mut len = None;
        for t in &sources.terms {
            let (ExprKind::Tuple(items) | ExprKind::List(items)) = &t.expr.kind else {
                return None;
            };
            if !t.proj.is_empty() || items.iter().any(|i| matches!(i.kind, ExprKind::Starred(_))) {
                return None;
            }
            if len.is_some_and(|n| n != items.len()) {
                return None;
            }
            len = Some(items.len());
        }
        len
    }

    fn bind_with<'p>(
        &'p self,
        f: FuncId,
        call: &'p Expr,
        index: usize,
        star_len: &dyn Fn(&Expr) -> Option<usize>,
    ) -> Bound<'p> {
        let Some(func) = self.func(f) else {
            return Bound::Unknown;
        };
        let ExprKind::Call { func: callee, args, .. } = &call.kind else {
            return Bound::Unknown;
        };
        let Some(param) = func.params.get(index) else {
            return Bound::Unknown;
        };
        // A method called on an instance (or a class instantiated) binds
        // `self` implicitly.
        let implicit_self = self.class_of(f).is_some()
            && !func
                .decorators
                .iter()
                .any(|d| matches!(&d.kind, ExprKind::Name(n) if n == "staticmethod"))
            && match &callee.kind {
                ExprKind::Attribute { value, .. } => !matches!(
                    self.expr_sym(
                        Scope {
                            m: f.m,
                            c: f.c,
                            f: None
                        },
                        value
                    ),
                    Some(Sym::Class(_))
                ),
                _ => true,
            };
        // `mp.spawn(f, (a, b), nprocs)`: `f(rank, a, b)`.
        if let Some((target, spawn_args)) = spawned(call).filter(|_| spawn_call(callee)) {
            let named_f = match &target.kind {
                ExprKind::Name(n) | ExprKind::Attribute { attr: n, .. } => *n == func.name,
                _ => false,
            };
            if named_f && !implicit_self && param.kind == crate::python::ast::ParamKind::Normal {
                return bind_spawned(param, spawn_args, index);
            }
        }
        let shift = usize::from(implicit_self);
        if index < shift {
            return Bound::Unknown;
        }
        let mut positional = 0usize;
        let mut splat: Option<&Expr> = None;
        for a in args {
            match a {
                Arg::Pos(e) => {
                    if positional + shift == index && param.kind == crate::python::ast::ParamKind::Normal {
                        return Bound::Given(e);
                    }
                    positional += 1;
                }
                Arg::Kw { name, value, .. } if *name == param.name => return Bound::Given(value),
                Arg::Star(e) => {
                    let Some(n) = star_len(e) else { return Bound::Unknown };
                    // The parameter is one of the spread items: not known
                    // which expression gives it.
                    if (positional + shift..positional + shift + n).contains(&index) {
                        return Bound::Unknown;
                    }
                    positional += n;
                }
                // A name given after the splat is read on; a second splat
                // leaves the binding unknown.
                Arg::StarStar(e)
                    if splat.is_none()
                        && matches!(
                            param.kind,
                            crate::python::ast::ParamKind::Normal | crate::python::ast::ParamKind::KwOnly
                        ) =>
                {
                    splat = Some(e)
                }
                Arg::StarStar(_) => return Bound::Unknown,
                _ => {}
            }
        }
        if let Some(mapping) = splat {
            return Bound::Splat {
                mapping,
                default: param.default.as_ref(),
            };
        }
        match &param.default {
            Some(d) => Bound::Default(d),
            None => Bound::Missing,
        }
    }
}

/// The functions that start processes running `fn(i, *args)`.
pub(super) const SPAWNERS: &[&str] = &["torch.multiprocessing.spawn", "torch.multiprocessing.start_processes"];

/// Whether a call's function expression looks like a spawner's
/// (`mp.spawn`, `torch.multiprocessing.start_processes`, `spawn`).
fn spawn_call(callee: &Expr) -> bool {
    match &callee.kind {
        ExprKind::Name(n) | ExprKind::Attribute { attr: n, .. } => n == "spawn" || n == "start_processes",
        _ => false,
    }
}

/// A spawner call's target function expression (`fn`, first) and its
/// `args` tuple, when given.
pub(super) fn spawned(call: &Expr) -> Option<(&Expr, Option<&Expr>)> {
    let ExprKind::Call { args, .. } = &call.kind else {
        return None;
    };
    if args.iter().any(|a| matches!(a, Arg::Star(_) | Arg::StarStar(_))) {
        return None;
    }
    let nth = |i: usize, name: &str| {
        args.iter()
            .filter(|a| matches!(a, Arg::Pos(_)))
            .nth(i)
            .or_else(|| args.iter().find(|a| matches!(a, Arg::Kw { name: n, .. } if n == name)))
    };
    fn value(a: &Arg) -> Option<&Expr> {
        match a {
            Arg::Pos(e) => Some(e),
            Arg::Kw { value, .. } => Some(value),
            _ => None,
        }
    }
    let target = nth(0, "fn").and_then(value)?;
    let spawn_args = nth(1, "args").and_then(value);
    Some((target, spawn_args))
}

/// Parameter `index` of a spawned function: the rank for the first, else
/// the matching item of the `args` tuple literal (its default past the
/// tuple's end).
fn bind_spawned<'p>(param: &'p crate::python::ast::Param, spawn_args: Option<&'p Expr>, index: usize) -> Bound<'p> {
    if index == 0 {
        return Bound::Unknown;
    }
    let items: &[Expr] = match spawn_args.map(|e| &e.kind) {
        None => &[],
        Some(ExprKind::Tuple(items)) if !items.iter().any(|i| matches!(i.kind, ExprKind::Starred(_))) => items,
        Some(_) => return Bound::Unknown,
    };
    match items.get(index - 1) {
        Some(e) => Bound::Given(e),
        None => match &param.default {
            Some(d) => Bound::Default(d),
            None => Bound::Missing,
        },
    }
}

/// The identifiers of `text`: runs of ASCII letters, digits and `_` (and
/// of non-ASCII bytes, so a Unicode identifier stays whole) not starting
/// with a digit; comments and strings included.
pub(super) fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || !b.is_ascii();
    let mut i = 0usize;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            while i < bytes.len() && !word(bytes[i]) {
                i += 1;
            }
            let start = i;
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
            // Both ends are ASCII bytes or the text's ends: char boundaries.
            if start < i && !bytes[start].is_ascii_digit() {
                return text.get(start..i);
            }
        }
        None
    })
}
