//! Where values go: forwards through the same.

use super::*;

impl Program {
    /// Follows the value of the expression `start` (in `scope`, with its
    /// ancestors `anc`) forwards: through assignments to local names and
    /// `self` attributes, into the parameters of training-code functions it
    /// is passed to, out of returns to the callers, and through calls
    /// `through` says keep the value (wrappers such as `enumerate`).
    /// Every use it does not follow is reported to `visit`.
    pub fn flows<'p>(
        &'p self,
        scope: Scope,
        anc: &[Anc<'p>],
        start: &'p Expr,
        through: &dyn Fn(&Callee, &ArgPos<'_>) -> bool,
        visit: &mut dyn FnMut(Flow<'p>),
    ) -> bool {
        let mut budget = Budget::default();
        let mut seen_places: HashSet<Place> = HashSet::default();
        let mut queue: Vec<(Scope, Vec<Anc<'p>>, &'p Expr, u32)> = vec![(scope, anc.to_vec(), start, 0)];
        let mut seen_exprs: HashSet<usize> = HashSet::default();
        let mut complete = true;
        // The calls through which the value entered each function (as an
        // argument): what such a function returns goes back there only.
        let entered: Entered = std::cell::RefCell::default();
        while let Some((scope, anc, e, depth)) = queue.pop() {
            if !budget.take() || depth > MAX_DEPTH {
                complete = false;
                break;
            }
            if !seen_exprs.insert(e as *const Expr as usize) {
                continue;
            }
            let mut places = Vec::new();
            self.classify(scope, &anc, e, through, &mut places, &mut queue, depth, &entered, visit);
            for place in places {
                if !seen_places.insert(place.clone()) {
                    continue;
                }
                for (s, a, occ) in self.reads(&place) {
                    queue.push((s, a, occ, depth + 1));
                }
            }
        }
        complete
    }

    /// One use of a value at `e`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn classify<'p>(
        &'p self,
        scope: Scope,
        anc: &[Anc<'p>],
        e: &'p Expr,
        through: &dyn Fn(&Callee, &ArgPos<'_>) -> bool,
        places: &mut Vec<Place>,
        queue: &mut Vec<(Scope, Vec<Anc<'p>>, &'p Expr, u32)>,
        depth: u32,
        entered: &Entered,
        visit: &mut dyn FnMut(Flow<'p>),
    ) {
        let Some((parent, up)) = anc.split_last() else { return };
        match parent {
            Anc::Expr(p) => match &p.kind {
                ExprKind::Call { func, .. } if std::ptr::eq(&**func, e) => {
                    // The value is called: nothing to follow.
                    visit(Flow::Called {
                        scope,
                        call: p,
                        anc: up.to_vec(),
                    });
                }
                ExprKind::Call { func, args, .. } => {
                    let callee = self.callee(scope, func);
                    let pos = arg_pos(args, e);
                    // `iter(loader)` (a prefetcher's `self.it = iter(loader)`,
                    // then `next(self.it)`): an iteration, as a `for` is.
                    if matches!(&callee, Callee::External(path) if path == "builtins.iter")
                        && matches!(pos, ArgPos::Pos(0))
                        && args.len() == 1
                    {
                        visit(Flow::Iterated {
                            scope,
                            stmt: None,
                            anc: up.to_vec(),
                        });
                        return;
                    }
                    // A method of a receiver not followed is asked about by
                    // its name alone (`reporter.measure_iter_time(loader, …)`
                    // on a reporter handed in from a `with`): `?.name`.
                    let by_name = match (&callee, &func.kind) {
                        (Callee::Unknown, ExprKind::Attribute { attr, .. }) => {
                            through(&Callee::External(format!("?.{attr}")), &pos)
                        }
                        _ => false,
                    };
                    if by_name || through(&callee, &pos) {
                        queue.push((scope, up.to_vec(), p, depth + 1));
                        return;
                    }
                    // `xs.append(v)` in a loop that builds a list of the
                    // same expression's values (a loader factory's
                    // `for ds, n in zip(sets, workers): loaders.append(DataLoader(…))`):
                    // every entry of the list `xs` holds such a value.
                    if matches!(pos, ArgPos::Pos(0)) && args.len() == 1 {
                        if let ExprKind::Attribute { value: list, attr } = &func.kind {
                            if let (ExprKind::Name(list), "append", Some(f)) = (&list.kind, attr.as_str(), scope.func())
                            {
                                let looped = up.iter().any(|a| {
                                    matches!(a, Anc::Stmt(st) if matches!(st.kind, StmtKind::For { .. } | StmtKind::While { .. }))
                                });
                                if looped && self.list_entries(f, list, places, queue, depth, visit) {
                                    return;
                                }
                            }
                        }
                    }
                    if let (Callee::Func(f), ArgPos::Pos(_) | ArgPos::Kw(_)) = (&callee, pos) {
                        if let Some(param) = self.param_for(*f, func, &pos) {
                            entered.borrow_mut().push((*f, *p as *const Expr as usize));
                            visit(Flow::Entered {
                                scope,
                                call: p,
                                func: *f,
                            });
                            places.push(Place::Local(*f, param, None));
                            return;
                        }
                    }
                    if let (Callee::Class(k), ArgPos::Pos(_) | ArgPos::Kw(_)) = (&callee, pos) {
                        if let Some(init) = self.method(*k, "__init__") {
                            if let Some(param) = self.param_for(init, func, &pos) {
                                places.push(Place::Local(init, param, None));
                            }
                        } else if let Some(field) = self.dataclass_field(*k, &pos) {
                            // A dataclass's generated `__init__` keeps the
                            // argument as the field its methods read.
                            places.push(Place::SelfAttr(*k, field));
                        }
                    }
                    visit(Flow::Arg {
                        scope,
                        call: p,
                        callee,
                        pos,
                        anc: up.to_vec(),
                    });
                }
                ExprKind::Attribute { attr, .. } => {
                    if let Some(Anc::Expr(gp)) = up.last() {
                        if let ExprKind::Call { func, .. } = &gp.kind {
                            if std::ptr::eq(&**func, *p) {
                                visit(Flow::Method {
                                    scope,
                                    call: gp,
                                    name: attr,
                                    anc: up[..up.len() - 1].to_vec(),
                                });
                                return;
                            }
                        }
                    }
                    visit(Flow::Attr {
                        scope,
                        expr: p,
                        name: attr,
                        anc: up.to_vec(),
                    });
                }
                ExprKind::Subscript { value, index } if std::ptr::eq(&**value, e) => {
                    visit(Flow::Index {
                        scope,
                        expr: p,
                        index,
                        anc: up.to_vec(),
                    });
                }
                // `yield from loader`: the generator passes over it.
                ExprKind::Yield(Some(v)) if std::ptr::eq(&**v, e) && self.yields_from(scope, p, v) => {
                    visit(Flow::Iterated {
                        scope,
                        stmt: None,
                        anc: anc.to_vec(),
                    });
                }
                // `yield loader` in a generator: the loops over its calls
                // (`for loader in loaders(…):`, `next(loaders(…))`) bind it.
                ExprKind::Yield(Some(v)) if std::ptr::eq(&**v, e) => self.yielded(scope, p, None, places, visit),
                ExprKind::Comp { gens, .. } if gens.iter().any(|g| std::ptr::eq(&g.iter, e)) => {
                    visit(Flow::Iterated {
                        scope,
                        stmt: None,
                        anc: anc.to_vec(),
                    });
                }
                // `loader, sampler = info.loader, info.sampler`: the
                // matching target holds it.
                ExprKind::Tuple(_) if bound_target(anc, e).is_some() => {
                    if let Some(t) = bound_target(anc, e) {
                        self.target_places(scope, t, places, visit);
                    }
                }
                // A value of a dict display handed on whole (`CombinedLoader(
                // {"t2i": a, "lm": b})`, also through a name it is kept in):
                // the dict carries it along, as a list does.
                ExprKind::Dict(items)
                    if items.iter().any(
                        |i| matches!(i, crate::training::ast::DictItem::Pair { value, .. } if std::ptr::eq(value, e)),
                    ) =>
                {
                    let handed = match up.last() {
                        Some(Anc::Expr(gp)) => matches!(gp.kind, ExprKind::Call { .. }),
                        Some(Anc::Stmt(st)) => matches!(&st.kind, StmtKind::Assign { targets, value }
                            if std::ptr::eq(value, *p) && targets.iter().all(|t| matches!(t.kind, ExprKind::Name(_)))),
                        _ => false,
                    };
                    if handed {
                        visit(Flow::Contained { scope, container: p });
                        queue.push((scope, up.to_vec(), p, depth + 1));
                    } else {
                        visit(Flow::Escapes { scope, at: e });
                    }
                }
                ExprKind::List(items) | ExprKind::Tuple(items) if items.iter().any(|i| std::ptr::eq(i, e)) => {
                    // An element of a container: followed when the
                    // container is iterated by a `for` whose target is a
                    // name; a container passed to a call carries it along.
                    match up.last() {
                        Some(Anc::Expr(gp)) if matches!(gp.kind, ExprKind::Call { .. }) => {
                            visit(Flow::Contained { scope, container: p });
                            queue.push((scope, up.to_vec(), p, depth + 1));
                        }
                        // `yield dataset, sampler, loader`: the matching
                        // target of the loops over the generator's calls.
                        Some(Anc::Expr(gp))
                            if matches!(&gp.kind, ExprKind::Yield(Some(v)) if std::ptr::eq(&**v, *p))
                                && matches!(p.kind, ExprKind::Tuple(_))
                                && !self.yields_from(scope, gp, p) =>
                        {
                            match items.iter().position(|i| std::ptr::eq(i, e)) {
                                Some(i) => self.yielded(scope, gp, Some((i, items.len())), places, visit),
                                None => visit(Flow::Escapes { scope, at: p }),
                            }
                        }
                        Some(Anc::Stmt(st))
                            if matches!(&st.kind, StmtKind::Return(Some(v)) if std::ptr::eq(v, *p))
                                && matches!(p.kind, ExprKind::Tuple(_)) =>
                        {
                            match items.iter().position(|i| std::ptr::eq(i, e)) {
                                Some(i) => self.returned_element(scope, p, i, items.len(), places, entered, visit, 0),
                                None => visit(Flow::Escapes { scope, at: p }),
                            }
                        }
                        // `loader = [train_loader, val_loader]`: the list's
                        // `i`-th entry, read back as `loader[i]` here or,
                        // where it is returned, at the callers.
                        Some(Anc::Stmt(st)) if self.bound_entry(scope, st, p, items, e, queue, depth) => {}
                        _ => self.container_flow(scope, up, p, places, visit),
                    }
                }
                ExprKind::IfExp { body, orelse, .. } if std::ptr::eq(&**body, e) || std::ptr::eq(&**orelse, e) => {
                    queue.push((scope, up.to_vec(), p, depth + 1));
                }
                // `sampler is None` (`shuffle=(sampler is None)`), `x == y`:
                // a comparison reads the value and keeps nothing of it.
                ExprKind::Compare { .. } => {}
                ExprKind::BoolOp { .. } | ExprKind::Named { .. } | ExprKind::Await(_) => {
                    queue.push((scope, up.to_vec(), p, depth + 1));
                }
                _ => visit(Flow::Escapes { scope, at: e }),
            },
            Anc::Stmt(s) => match &s.kind {
                StmtKind::Assign { targets, value } if std::ptr::eq(value, e) => {
                    for t in targets {
                        self.target_places(scope, t, places, visit);
                    }
                }
                StmtKind::AnnAssign { target, value: Some(v) } if std::ptr::eq(v, e) => {
                    self.target_places(scope, target, places, visit);
                }
                StmtKind::Return(Some(v)) if std::ptr::eq(v, e) => match scope.func() {
                    Some(f) => {
                        let sites = returns_to(self.call_sites(f), f, entered);
                        if sites.is_empty() {
                            visit(Flow::Returned { scope, func: Some(f) });
                        }
                        for (s2, call) in sites {
                            if self.spawns(s2, call) {
                                continue;
                            }
                            if let Some(a) = self.ancestors_of(s2, call) {
                                queue.push((s2, a, call, depth + 1));
                            }
                        }
                    }
                    None => visit(Flow::Escapes { scope, at: e }),
                },
                StmtKind::For { iter, .. } if std::ptr::eq(iter, e) => visit(Flow::Iterated {
                    scope,
                    stmt: Some(s),
                    anc: up.to_vec(),
                }),
                StmtKind::With { items, .. } => {
                    for item in items {
                        if std::ptr::eq(&item.ctx, e) {
                            if let Some(var) = &item.var {
                                self.target_places(scope, var, places, visit);
                            }
                        }
                    }
                }
                StmtKind::Expr(_) => {}
                // `if sampler:` tests the value and keeps nothing of it.
                StmtKind::If { test, .. } | StmtKind::While { test, .. } if std::ptr::eq(test, e) => {}
                _ => visit(Flow::Escapes { scope, at: e }),
            },
            Anc::Comp(g) if std::ptr::eq(&g.iter, e) => {
                visit(Flow::Iterated {
                    scope,
                    stmt: None,
                    anc: anc.to_vec(),
                });
            }
            _ => visit(Flow::Escapes { scope, at: e }),
        }
    }

    /// Element `i` of the tuple `container` (of `n` elements) a function
    /// returns: at each call site unpacked into as many targets
    /// (`train, val = loaders()`), the `i`-th target holds it; a call site
    /// that keeps the tuple whole is where the flow stops following, and one
    /// that returns it as it is (`return build_finetune(cfg)`, a dispatching
    /// helper) hands it on to that function's own callers.
    #[allow(clippy::too_many_arguments)]
    fn returned_element<'p>(
        &'p self,
        scope: Scope,
        container: &'p Expr,
        i: usize,
        n: usize,
        places: &mut Vec<Place>,
        entered: &Entered,
        visit: &mut dyn FnMut(Flow<'p>),
        depth: u32,
    ) {
        let Some(f) = scope.func() else {
            visit(Flow::Escapes { scope, at: container });
            return;
        };
        let sites = returns_to(self.call_sites(f), f, entered);
        if sites.is_empty() {
            visit(Flow::Returned { scope, func: Some(f) });
            return;
        }
        for (s2, call) in sites {
            if self.spawns(s2, call) {
                continue;
            }
            let anc = self.ancestors_of(s2, call);
            let forwarded = anc.as_ref().is_some_and(|a| {
                matches!(a.last(), Some(Anc::Stmt(st)) if matches!(&st.kind, StmtKind::Return(Some(v)) if std::ptr::eq(v, call)))
            });
            // Dispatching helpers nest shallowly; a function returning its
            // own call is not followed round.
            if forwarded && depth < 3 && s2.func() != Some(f) {
                self.returned_element(s2, call, i, n, places, entered, visit, depth + 1);
                continue;
            }
            let bound = anc.and_then(|a| bound_target(&a, call));
            let mut target = bound.and_then(|t| unpacked(t, i, n));
            // `result = loaders(opt)` then `train, val = result`: the
            // name's one unpacking, where that is all the function does
            // with it.
            if let (None, Some(ExprKind::Name(y)), Some(g)) = (target, bound.map(|t| &t.kind), s2.func()) {
                target = self.sole_unpacking(g, y).and_then(|t| unpacked(t, i, n));
            }
            match target {
                Some(t) => self.target_places(s2, t, places, visit),
                None => visit(Flow::Escapes { scope: s2, at: call }),
            }
        }
    }

    /// What the generator of `scope` yields at `y` (element `i` of `n`
    /// where it yields a tuple): at each of its calls that a `for` passes
    /// over (`for _, loader in loaders(files):`) or `next(…)` draws from
    /// into names (`_, loader = next(loaders(files))`), the target, or
    /// its `i`-th element, holds it. Anywhere else it escapes, and so it
    /// does where the generator is called nowhere the code shows or is
    /// handed on by name.
    fn yielded<'p>(
        &'p self,
        scope: Scope,
        y: &'p Expr,
        element: Option<(usize, usize)>,
        places: &mut Vec<Place>,
        visit: &mut dyn FnMut(Flow<'p>),
    ) {
        let Some(f) = scope.func() else {
            visit(Flow::Escapes { scope, at: y });
            return;
        };
        // A generator called nowhere stagec sees, or handed on by name
        // (`Dataset.from_generator(gen)`): whoever draws from it is unknown.
        let sites = self.call_sites(f);
        if sites.is_empty() || self.escapes(f) {
            visit(Flow::Escapes { scope, at: y });
            return;
        }
        let plain = |items: &[Expr]| !items.iter().any(|t| matches!(t.kind, ExprKind::Starred(_)));
        for (s2, call) in sites {
            let anc = self.ancestors_of(s2, call).unwrap_or_default();
            let target = match anc.split_last() {
                Some((Anc::Stmt(st), _)) => match &st.kind {
                    StmtKind::For { target, iter, .. } if std::ptr::eq(iter, call) => Some(target),
                    _ => None,
                },
                Some((Anc::Expr(n), up)) => match &n.kind {
                    ExprKind::Call { func, args, .. }
                        if args.len() == 1
                            && matches!(args.first(), Some(Arg::Pos(a)) if std::ptr::eq(a, call))
                            && self.external(s2, func).as_deref() == Some("builtins.next") =>
                    {
                        bound_target(up, n)
                    }
                    _ => None,
                },
                _ => None,
            };
            let target = match (target, element) {
                (Some(t), None) => Some(t),
                (Some(t), Some((i, n))) => match &t.kind {
                    ExprKind::Tuple(ts) | ExprKind::List(ts) if ts.len() == n && plain(ts) => ts.get(i),
                    _ => None,
                },
                (None, _) => None,
            };
            match target {
                Some(t) => self.target_places(s2, t, places, visit),
                None => visit(Flow::Escapes { scope: s2, at: call }),
            }
        }
    }

    /// Where the entries of the local list `list` of `f` go: a `for` over
    /// it in `f` binds its target to them; a `return list` hands them to
    /// each call site that unpacks the call into names (`train, val =
    /// make_loaders(…)`: each name) or indexes it (`make_loaders(…)[0]`).
    /// Returned from a function nobody in the code calls (a Lightning
    /// `val_dataloader` returning its list of loaders): each entry is
    /// returned from it. `false` (nothing followed) where the list goes
    /// anywhere else.
    fn list_entries<'p>(
        &'p self,
        f: FuncId,
        list: &str,
        places: &mut Vec<Place>,
        queue: &mut Vec<(Scope, Vec<Anc<'p>>, &'p Expr, u32)>,
        depth: u32,
        visit: &mut dyn FnMut(Flow<'p>),
    ) -> bool {
        let mut returned = false;
        let mut iterated = Vec::new();
        self.walk_stmts(f.scope(), &mut |_, st| match &st.kind {
            StmtKind::Return(Some(v)) if matches!(&v.kind, ExprKind::Name(n) if n == list) => returned = true,
            StmtKind::For { target, iter, .. } if matches!(&iter.kind, ExprKind::Name(n) if n == list) => {
                if let ExprKind::Name(x) = &target.kind {
                    iterated.push(x.clone());
                }
            }
            _ => {}
        });
        let mut followed = false;
        for x in iterated {
            places.push(Place::Local(f, x, None));
            followed = true;
        }
        // Handed whole to a function or class of the code (`Trainer(model,
        // valid_data_loader=loaders)`): the loops there over the parameter,
        // or over the attribute `__init__` keeps it in, bind the entries.
        for x in self.handed_list_entries(f, list) {
            places.push(x);
            followed = true;
        }
        if !returned {
            return followed;
        }
        let sites = self.call_sites(f);
        if sites.is_empty() {
            visit(Flow::Returned {
                scope: f.scope(),
                func: Some(f),
            });
            return true;
        }
        for (s2, call) in sites {
            let Some(anc) = self.ancestors_of(s2, call) else {
                continue;
            };
            match anc.last() {
                Some(Anc::Stmt(st)) => {
                    if let StmtKind::Assign { targets, value } = &st.kind {
                        if std::ptr::eq(value, call) && targets.len() == 1 {
                            if let ExprKind::Tuple(ts) | ExprKind::List(ts) = &targets[0].kind {
                                for t in ts {
                                    if let (ExprKind::Name(n), Some(g)) = (&t.kind, s2.func()) {
                                        places.push(Place::Local(g, n.clone(), None));
                                        followed = true;
                                    }
                                }
                            }
                        }
                    }
                }
                Some(Anc::Expr(p)) => {
                    if let ExprKind::Subscript { value, index } = &p.kind {
                        if std::ptr::eq(&**value, call) && matches!(index.kind, ExprKind::Int(_)) {
                            queue.push((s2, anc[..anc.len() - 1].to_vec(), p, depth + 1));
                            followed = true;
                        }
                    }
                }
                _ => {}
            }
        }
        followed
    }

    /// The loop targets that take the entries of local list `list` of `f`
    /// where `f` hands the list to a function or class of the code: `for x
    /// in p` over the parameter `p` it binds, or `for x in self.a` in the
    /// class's methods where `__init__` keeps it as `self.a = p`. Nothing
    /// where the list also goes anywhere else the analysis does not follow
    /// (an argument of an unknown call, a store, a return).
    fn handed_list_entries(&self, f: FuncId, list: &str) -> Vec<Place> {
        let scope = f.scope();
        let mut params: Vec<(FuncId, String)> = Vec::new();
        let mut lost = false;
        self.walk_exprs(scope, &mut |anc, e| {
            if lost || !matches!(&e.kind, ExprKind::Name(n) if n == list) || is_target(anc, e) {
                return;
            }
            let parent = match anc.last() {
                Some(Anc::Expr(parent)) => parent,
                // `return xs`, `for x in xs`: read by `list_entries`.
                Some(Anc::Stmt(st)) => {
                    let read = match &st.kind {
                        StmtKind::For { iter, .. } => std::ptr::eq(iter, e),
                        StmtKind::Return(Some(v)) => std::ptr::eq(v, e),
                        _ => false,
                    };
                    lost |= !read;
                    return;
                }
                _ => {
                    lost = true;
                    return;
                }
            };
            match &parent.kind {
                // `xs.append(…)`, `len(xs)`.
                ExprKind::Attribute { attr, .. } if matches!(attr.as_str(), "append" | "extend") => {}
                ExprKind::Call { func, args, .. } if !std::ptr::eq(&**func, e) => {
                    let pos = arg_pos(args, e);
                    let param = match self.callee(scope, func) {
                        Callee::Func(g) => self.param_for(g, func, &pos).map(|p| (g, p)),
                        Callee::Class(k) => self
                            .method(k, "__init__")
                            .and_then(|init| self.param_for(init, func, &pos).map(|p| (init, p))),
                        Callee::External(p) if p == "builtins.len" => return,
                        _ => None,
                    };
                    match param {
                        Some(x) => params.push(x),
                        None => lost = true,
                    }
                }
                _ => lost = true,
            }
        });
        if lost {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (g, p) in params {
            let gs = g.scope();
            let mut kept: Vec<String> = Vec::new();
            self.walk_stmts(gs, &mut |_, st| match &st.kind {
                StmtKind::For { target, iter, .. } => {
                    if let (ExprKind::Name(x), ExprKind::Name(i)) = (&target.kind, &iter.kind) {
                        if *i == p {
                            out.push(Place::Local(g, x.clone(), None));
                        }
                    }
                }
                StmtKind::Assign { targets, value } if matches!(&value.kind, ExprKind::Name(v) if *v == p) => {
                    for t in targets {
                        if let ExprKind::Attribute { value: me, attr } = &t.kind {
                            if self.self_class(gs, me).is_some() {
                                kept.push(attr.clone());
                            }
                        }
                    }
                }
                _ => {}
            });
            let Some(k) = self.class_of(g) else { continue };
            for m in self.own_methods(k) {
                let ms = m.scope();
                self.walk_stmts(ms, &mut |_, st| {
                    let StmtKind::For { target, iter, .. } = &st.kind else {
                        return;
                    };
                    let (ExprKind::Name(x), ExprKind::Attribute { value: me, attr }) = (&target.kind, &iter.kind)
                    else {
                        return;
                    };
                    if kept.contains(attr) && self.self_class(ms, me).is_some() {
                        out.push(Place::Local(m, x.clone(), None));
                    }
                });
            }
        }
        out
    }

    /// The target of the one statement of `g` that unpacks its local `y`
    /// (`a, b = y`), where `y` has one binding and is read nowhere else.
    fn sole_unpacking<'p>(&'p self, g: FuncId, y: &str) -> Option<&'p Expr> {
        if self.local_defs(g, y).len() != 1 {
            return None;
        }
        let mut reads = 0;
        self.walk_exprs(g.scope(), &mut |anc, x| {
            if matches!(&x.kind, ExprKind::Name(n) if n == y) && !is_target(anc, x) {
                reads += 1;
            }
        });
        if reads != 1 {
            return None;
        }
        let mut found = None;
        self.walk_stmts(g.scope(), &mut |_, st| {
            if let StmtKind::Assign { targets, value } = &st.kind {
                if let ([t], ExprKind::Name(n)) = (targets.as_slice(), &value.kind) {
                    if n == y && matches!(t.kind, ExprKind::Tuple(_) | ExprKind::List(_)) {
                        found = Some(t);
                    }
                }
            }
        });
        found
    }

    /// Whether `e`, an entry of the list or tuple literal `container` (with
    /// `items`) that statement `st` of a function binds to one name, is
    /// followed by [`Self::literal_entry`].
    #[allow(clippy::too_many_arguments)]
    fn bound_entry<'p>(
        &'p self,
        scope: Scope,
        st: &Stmt,
        container: &Expr,
        items: &[Expr],
        e: &Expr,
        queue: &mut Vec<(Scope, Vec<Anc<'p>>, &'p Expr, u32)>,
        depth: u32,
    ) -> bool {
        let StmtKind::Assign { targets, value } = &st.kind else {
            return false;
        };
        let ([target], Some(f)) = (targets.as_slice(), scope.func()) else {
            return false;
        };
        let ExprKind::Name(list) = &target.kind else {
            return false;
        };
        std::ptr::eq(value, container)
            && items
                .iter()
                .position(|i| std::ptr::eq(i, e))
                .is_some_and(|i| self.literal_entry(f, list, i, queue, depth))
    }

    /// Entry `i` of the list literal bound to the local `list` of `f` (its
    /// only binding to a container): its reads `list[i]` in `f`, and, where
    /// `f` returns `list`, the reads `y[i]` of each caller's `y = f(…)`.
    /// False where neither is seen, or `f` reads the list otherwise (the
    /// caller then treats the list as before).
    fn literal_entry<'p>(
        &'p self,
        f: FuncId,
        list: &str,
        i: usize,
        queue: &mut Vec<(Scope, Vec<Anc<'p>>, &'p Expr, u32)>,
        depth: u32,
    ) -> bool {
        // The one container the name is bound to (another binding, the test
        // loader of `if args.test_mode: loader = test_loader`, is no list).
        let containers = self
            .local_defs(f, list)
            .iter()
            .filter(|d| {
                !matches!(d, LocalDef::Assign { value, proj } if proj.is_empty()
                    && !matches!(value.kind, ExprKind::List(_) | ExprKind::Tuple(_)))
            })
            .count();
        if containers != 1 {
            return false;
        }
        let index_reads = |scope: Scope, name: &str, queue: &mut Vec<(Scope, Vec<Anc<'p>>, &'p Expr, u32)>| {
            let mut found = false;
            let mut other = false;
            self.walk_exprs(scope, &mut |anc, x| {
                let ExprKind::Name(n) = &x.kind else { return };
                if n != name {
                    return;
                }
                match anc.last() {
                    Some(Anc::Expr(p)) => match &p.kind {
                        ExprKind::Subscript { value, index } if std::ptr::eq(&**value, x) => {
                            if matches!(index.kind, ExprKind::Int(k) if k == i as i64) {
                                queue.push((scope, anc[..anc.len() - 1].to_vec(), p, depth + 1));
                                found = true;
                            } else if !matches!(index.kind, ExprKind::Int(_)) {
                                other = true;
                            }
                        }
                        _ => other = true,
                    },
                    Some(Anc::Stmt(st)) if matches!(&st.kind, StmtKind::Return(Some(v)) if std::ptr::eq(v, x)) => {}
                    Some(Anc::Stmt(st)) if matches!(&st.kind, StmtKind::Assign { targets, .. } if targets.iter().any(|t| std::ptr::eq(t, x))) => {}
                    _ => other = true,
                }
            });
            (found, other)
        };
        let (mut followed, other) = index_reads(f.scope(), list, queue);
        if other {
            return false;
        }
        let mut returned = false;
        self.walk_stmts(f.scope(), &mut |_, st| {
            if matches!(&st.kind, StmtKind::Return(Some(v)) if matches!(&v.kind, ExprKind::Name(n) if n == list)) {
                returned = true;
            }
        });
        if !returned {
            return followed;
        }
        for (s2, call) in self.call_sites(f) {
            let Some(anc) = self.ancestors_of(s2, call) else {
                continue;
            };
            let (Some(Anc::Stmt(st)), Some(g)) = (anc.last(), s2.func()) else {
                continue;
            };
            let StmtKind::Assign { targets, value } = &st.kind else {
                continue;
            };
            if !std::ptr::eq(value, call) || targets.len() != 1 {
                continue;
            }
            let ExprKind::Name(y) = &targets[0].kind else { continue };
            if self.local_defs(g, y).len() != 1 {
                continue;
            }
            let (found, _) = index_reads(g.scope(), y, queue);
            followed |= found;
        }
        followed
    }

    /// An element of a list/tuple literal `container`: when the container
    /// is assigned to a name that a `for` with a name target iterates, the
    /// target is where the element goes.
    pub(super) fn container_flow<'p>(
        &'p self,
        scope: Scope,
        up: &[Anc<'p>],
        container: &'p Expr,
        places: &mut Vec<Place>,
        visit: &mut dyn FnMut(Flow<'p>),
    ) {
        let Some(Anc::Stmt(s)) = up.last() else {
            visit(Flow::Escapes { scope, at: container });
            return;
        };
        match &s.kind {
            StmtKind::For { target, iter, .. } if std::ptr::eq(iter, container) => {
                self.target_places(scope, target, places, visit);
            }
            StmtKind::Assign { targets, value } if std::ptr::eq(value, container) => {
                let Some(f) = scope.func() else {
                    visit(Flow::Escapes { scope, at: container });
                    return;
                };
                for t in targets {
                    let ExprKind::Name(list) = &t.kind else {
                        visit(Flow::Escapes { scope, at: container });
                        continue;
                    };
                    // `for x in list:` in the same function.
                    let mut found = false;
                    self.walk_stmts(f.scope(), &mut |_, st| {
                        if let StmtKind::For { target, iter, .. } = &st.kind {
                            if matches!(&iter.kind, ExprKind::Name(n) if n == list) {
                                if let ExprKind::Name(x) = &target.kind {
                                    places.push(Place::Local(f, x.clone(), None));
                                    found = true;
                                }
                            }
                        }
                    });
                    if !found {
                        visit(Flow::Escapes { scope, at: container });
                    }
                }
            }
            _ => visit(Flow::Escapes { scope, at: container }),
        }
    }

    pub(super) fn target_places<'p>(
        &'p self,
        scope: Scope,
        t: &'p Expr,
        places: &mut Vec<Place>,
        visit: &mut dyn FnMut(Flow<'p>),
    ) {
        if !matches!(t.kind, ExprKind::Tuple(_) | ExprKind::List(_)) {
            visit(Flow::Stored { scope, target: t });
        }
        match &t.kind {
            // Unpacked: each part may hold (a piece of) the value.
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for item in items {
                    let inner = match &item.kind {
                        ExprKind::Starred(x) => x,
                        _ => item,
                    };
                    self.target_places(scope, inner, places, visit);
                }
            }
            ExprKind::Name(n) => match scope.func() {
                Some(f) => places.push(Place::Local(f, n.clone(), Some(t.span))),
                None => places.push(Place::Global(scope.m, n.clone())),
            },
            ExprKind::Attribute { value, attr } => match self.self_class(scope, value) {
                Some(k) => {
                    places.push(Place::SelfAttr(k, attr.clone()));
                    places.push(Place::Instance(k, attr.clone(), scope, t.span));
                }
                None => visit(Flow::Escapes { scope, at: t }),
            },
            _ => visit(Flow::Escapes { scope, at: t }),
        }
    }

    /// The reads `x.<attr>` of an instance of class `k` (or of a subclass)
    /// outside its methods, where the name `x` holds only instances
    /// constructed in sight (`loader = NewDataLoader(args, "train")`, then
    /// `loader.data`, also in a helper it is passed to), or `x` is the
    /// construction itself (`DepthDataLoader(config, "train").data`): looked
    /// for in the chunks reading the attribute in modules naming the class. Where the class's methods
    /// store the attribute more than once (one loader per `mode` branch),
    /// only the instances whose construction takes the branches of the
    /// store at `store` (in `store_scope`): each `if p == "…"` around it in
    /// `__init__` decided by the literal the construction passes for `p`.
    fn instance_reads<'p>(
        &'p self,
        k: ClassId,
        attr: &str,
        store_scope: Scope,
        store: crate::source::Span,
        out: &mut Vec<(Scope, Vec<Anc<'p>>, &'p Expr)>,
    ) {
        let Some(class) = self.class(k) else { return };
        let mut stores = 0;
        for f in self.own_methods(k) {
            let scope = f.scope();
            self.walk_exprs(scope, &mut |anc, e| {
                if let ExprKind::Attribute { value, attr: a } = &e.kind {
                    if a == attr && is_target(anc, e) && self.self_class(scope, value).is_some() {
                        stores += 1;
                    }
                }
            });
        }
        if stores == 0 {
            return;
        }
        // The tests of the branches the store sits in, each with the arm
        // it needs; `None` where the store is not one `__init__` makes
        // under such tests only.
        let guards = if stores == 1 {
            Some(Vec::new())
        } else {
            self.store_guards(k, store_scope, store)
        };
        let Some(guards) = guards else { return };
        // The chunks reading the attribute in modules naming the class (a
        // helper the instance is passed to names only the attribute).
        let mut modules: Vec<ModId> = self.chunks_with_word(&class.name).iter().map(|(m, _)| *m).collect();
        modules.dedup();
        for at in self.chunks_with_word(attr) {
            if modules.binary_search(&at.0).is_err() {
                continue;
            }
            for scope in self.scopes(at.0, at.1) {
                if scope.func().is_some_and(|f| self.class_of(f) == Some(k)) {
                    continue;
                }
                self.walk_exprs(scope, &mut |anc, e| {
                    let ExprKind::Attribute { value, attr: a } = &e.kind else {
                        return;
                    };
                    if a != attr || is_target(anc, e) {
                        return;
                    }
                    let ctor = match &value.kind {
                        ExprKind::Name(_) if self.self_class(scope, value).is_none() => {
                            self.instance_ctor(scope, value)
                        }
                        ExprKind::Call { func, .. } => match self.expr_sym(scope, func) {
                            Some(Sym::Class(c)) => Some((c, &**value)),
                            _ => None,
                        },
                        _ => None,
                    };
                    let Some((ik, call)) = ctor else { return };
                    if ik != k && !self.ancestors(ik).contains(&k) {
                        return;
                    }
                    if guards.is_empty() || self.takes_branches(ik, call, &guards) {
                        out.push((scope, anc.to_vec(), e));
                    }
                });
            }
        }
    }

    /// The branch tests around the store of `self.<attr>` spanning `store`
    /// in `scope`, a method of class `k`'s `__init__`: each `(parameter,
    /// literal, equal)` saying the store runs where the parameter equals
    /// (or differs from) the literal. `None` where the store is elsewhere,
    /// or under a test of another shape.
    fn store_guards(
        &self,
        k: ClassId,
        scope: Scope,
        store: crate::source::Span,
    ) -> Option<Vec<(String, String, bool)>> {
        let f = scope.func()?;
        let func = self.func(f)?;
        if func.name != "__init__" || self.class_of(f) != Some(k) {
            return None;
        }
        let mut anc_found: Option<Vec<Anc<'_>>> = None;
        self.walk_exprs(scope, &mut |anc, e| {
            if anc_found.is_none() && e.span == store && is_target(anc, e) {
                anc_found = Some(anc.to_vec());
            }
        });
        let anc = anc_found?;
        let mut out = Vec::new();
        for a in &anc {
            let Anc::Stmt(st) = a else { continue };
            let Some((test, in_body)) = if_arm(st, store) else {
                continue;
            };
            let ExprKind::Compare { left, rest } = &test.kind else {
                return None;
            };
            let [(op, right)] = rest.as_slice() else { return None };
            let equal = match op.as_str() {
                "==" => true,
                "!=" => false,
                _ => return None,
            };
            let (param, lit) = match (&left.kind, &right.kind) {
                (ExprKind::Name(p), ExprKind::Str(c)) | (ExprKind::Str(c), ExprKind::Name(p)) => (p, c),
                _ => return None,
            };
            if !func.params.iter().any(|x| x.name == *param) {
                return None;
            }
            out.push((param.clone(), lit.clone(), equal == in_body));
        }
        (!out.is_empty()).then_some(out)
    }

    /// Whether the construction `call` of class `ik` passes, for each
    /// guard's parameter of the `__init__` it runs, a literal that takes
    /// the guard's arm.
    fn takes_branches(&self, ik: ClassId, call: &Expr, guards: &[(String, String, bool)]) -> bool {
        let Some(init) = self.method(ik, "__init__") else {
            return false;
        };
        let Some(func) = self.func(init) else { return false };
        guards.iter().all(|(param, lit, equal)| {
            let Some(index) = func.params.iter().position(|p| p.name == *param) else {
                return false;
            };
            let given = match self.bind(init, call, index) {
                Bound::Given(e) | Bound::Default(e) => e,
                _ => return false,
            };
            matches!(&given.kind, ExprKind::Str(s) if (s == lit) == *equal)
        })
    }

    /// Whether [`Program::flows`] followed an argument of the constructor
    /// call `call` (at `pos`) into the parameter of the class's own
    /// `__init__`: the value's uses there are reported too, so the
    /// [`Flow::Arg`] it also reports is no escape.
    pub fn followed_into_init(&self, callee: &Callee, call: &Expr, pos: &ArgPos<'_>) -> bool {
        let (Callee::Class(k), ExprKind::Call { func, .. }) = (callee, &call.kind) else {
            return false;
        };
        if !matches!(pos, ArgPos::Pos(_) | ArgPos::Kw(_)) {
            return false;
        }
        match self.method(*k, "__init__") {
            Some(init) => self.param_for(init, func, pos).is_some(),
            None => self.dataclass_field(*k, pos).is_some(),
        }
    }

    /// The field of dataclass `k` (decorated `@dataclass`, with no
    /// `__init__` of its own or of a base) an argument at `pos` of its
    /// constructor fills: by keyword, or by position where the class has
    /// no bases of the code (whose fields would come first) and before a
    /// `_: KW_ONLY` marker. `None` where some code outside the class's
    /// methods reads an attribute of that name (`info.loader`): the
    /// argument is followed only where every read of it is a method's
    /// `self.<field>`.
    pub(super) fn dataclass_field(&self, k: ClassId, pos: &ArgPos<'_>) -> Option<String> {
        let class = self.class(k)?;
        let scope = self.def_scope(k.m, k.c, class.parent);
        let dataclass = class.decorators.iter().any(|d| {
            let target = match &d.kind {
                ExprKind::Call { func, .. } => &**func,
                _ => d,
            };
            matches!(self.expr_sym(scope, target), Some(Sym::External(p)) if p == "dataclasses.dataclass")
        });
        if !dataclass {
            return None;
        }
        // The fields in order, and how many of them come before a
        // `KW_ONLY` marker (`_: KW_ONLY`, `_ = KW_ONLY`).
        let mut fields: Vec<&str> = Vec::new();
        let mut positional = usize::MAX;
        let kw_only = |e: &Expr| match &e.kind {
            ExprKind::Name(n) => n == "KW_ONLY",
            ExprKind::Attribute { attr, .. } => attr == "KW_ONLY",
            _ => false,
        };
        for st in &class.body {
            match &st.kind {
                StmtKind::AnnAssign { target, .. } => match &target.kind {
                    ExprKind::Name(n) if n == "_" => positional = positional.min(fields.len()),
                    ExprKind::Name(n) => fields.push(n.as_str()),
                    _ => {}
                },
                StmtKind::Assign { value, .. } if kw_only(value) => positional = positional.min(fields.len()),
                _ => {}
            }
        }
        let field = match pos {
            ArgPos::Kw(name) => fields.iter().find(|f| *f == name).copied()?,
            ArgPos::Pos(i) if self.bases(k).is_empty() && *i < positional => fields.get(*i).copied()?,
            _ => return None,
        };
        let methods = self.own_methods(k);
        for &(m, c) in self.chunks_with_word(field) {
            for scope in self.scopes(m, c) {
                if scope.func().is_some_and(|f| methods.contains(&f)) {
                    continue;
                }
                let mut outside = false;
                self.walk_exprs(scope, &mut |anc, e| {
                    if let ExprKind::Attribute { value, attr } = &e.kind {
                        outside |= attr == field && !is_target(anc, e) && self.self_class(scope, value).is_none();
                    }
                });
                if outside {
                    return None;
                }
            }
        }
        Some(field.to_string())
    }

    /// The parameter of `f` an argument at `pos` binds.
    pub(super) fn param_for(&self, f: FuncId, callee: &Expr, pos: &ArgPos<'_>) -> Option<String> {
        let func = self.func(f)?;
        match pos {
            ArgPos::Kw(k) => func.params.iter().find(|p| p.name == *k).map(|p| p.name.clone()),
            ArgPos::Pos(i) => {
                let implicit_self = self.class_of(f).is_some()
                    && !func
                        .decorators
                        .iter()
                        .any(|d| matches!(&d.kind, ExprKind::Name(n) if n == "staticmethod"))
                    && !matches!(&callee.kind, ExprKind::Attribute { value, .. } if matches!(self.expr_sym(Scope { m: f.m, c: f.c, f: None }, value), Some(Sym::Class(_))));
                let idx = i + usize::from(implicit_self);
                let p = func.params.get(idx)?;
                (p.kind == crate::python::ast::ParamKind::Normal).then(|| p.name.clone())
            }
            ArgPos::Star => None,
        }
    }

    /// The ancestors of expression `target` in `scope`.
    pub fn ancestors_of<'p>(&'p self, scope: Scope, target: &'p Expr) -> Option<Vec<Anc<'p>>> {
        let mut found = None;
        self.walk_exprs(scope, &mut |anc, e| {
            if found.is_none() && std::ptr::eq(e, target) {
                found = Some(anc.to_vec());
            }
        });
        found
    }

    /// Where a place is read: its occurrences that are not assignment
    /// targets.
    pub(super) fn reads<'p>(&'p self, place: &Place) -> Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> {
        let mut out = Vec::new();
        match place {
            Place::Local(f, name, bound) => {
                // A read in the function's own body before the assignment
                // that stored the value, in no loop around that
                // assignment, reads an earlier value (two loops that each
                // fill `names`).
                let unreached =
                    |scope: Scope, anc: &[Anc<'_>], e: &Expr| {
                        let Some(b) = bound else { return false };
                        scope.f == Some(f.f) && e.span.end <= b.start && !anc.iter().any(|a| {
                            matches!(a, Anc::Stmt(s) if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. })
                                && s.span.start <= b.start && b.end <= s.span.end)
                        })
                    };
                // The function and the functions nested in it.
                let mut scopes = vec![f.scope()];
                if let Some(ast) = self.chunk(f.m, f.c) {
                    for (i, g) in ast.funcs.iter().enumerate() {
                        let mut p = g.parent;
                        let mut guard = 0;
                        while let Parent::Func(pf) = p {
                            guard += 1;
                            if guard > MAX_DEPTH {
                                break;
                            }
                            if pf == f.f {
                                scopes.push(Scope {
                                    m: f.m,
                                    c: f.c,
                                    f: Some(i as u32),
                                });
                                break;
                            }
                            p = ast.funcs.get(pf as usize).map_or(Parent::Module, |x| x.parent);
                        }
                    }
                }
                for scope in scopes {
                    if scope.f != Some(f.f)
                        && self
                            .func(FuncId {
                                m: f.m,
                                c: f.c,
                                f: scope.f.unwrap_or(0),
                            })
                            .is_some_and(|g| g.params.iter().any(|p| p.name == *name))
                    {
                        continue;
                    }
                    self.walk_exprs(scope, &mut |anc, e| {
                        if matches!(&e.kind, ExprKind::Name(n) if n == name)
                            && !is_target(anc, e)
                            && !unreached(scope, anc, e)
                        {
                            out.push((scope, anc.to_vec(), e));
                        }
                    });
                }
            }
            Place::SelfAttr(k, attr) => {
                let mut classes = vec![*k];
                // Methods of project bases, and of the training code's
                // subclasses that read the attribute (a trainer template's
                // `__init__` keeps the loader, each subclass's `train()`
                // passes over it): at most [`SUBCLASSES_READ`] of them.
                classes.extend(self.bases(*k));
                classes.extend(self.subclasses_mentioning(*k, attr, SUBCLASSES_READ));
                for cur in classes {
                    let Some(class) = self.class(cur) else { continue };
                    for s in &class.body {
                        let StmtKind::FunctionDef(f) = s.kind else { continue };
                        let scope = FuncId { m: cur.m, c: cur.c, f }.scope();
                        self.walk_exprs(scope, &mut |anc, e| {
                            if let ExprKind::Attribute { value, attr: a } = &e.kind {
                                if a == attr && !is_target(anc, e) && self.self_class(scope, value).is_some() {
                                    out.push((scope, anc.to_vec(), e));
                                }
                            }
                        });
                    }
                }
            }
            Place::Instance(k, attr, scope, span) => self.instance_reads(*k, attr, *scope, *span, &mut out),
            Place::Global(m, name) => {
                let needles = [name.as_str()];
                let chunks: Vec<u32> = self.chunks_mentioning(*m, &needles).collect();
                for c in chunks {
                    for scope in self.scopes(*m, c) {
                        if let Some(f) = scope.func() {
                            if self.is_local(f, name) {
                                continue;
                            }
                        }
                        self.walk_exprs(scope, &mut |anc, e| {
                            if matches!(&e.kind, ExprKind::Name(n) if n == name) && !is_target(anc, e) {
                                out.push((scope, anc.to_vec(), e));
                            }
                        });
                    }
                }
            }
        }
        out
    }

    /// Every function that is (transitively, up to `depth` calls) called
    /// from `scope`'s statements `body`, including `scope`'s own function
    /// when `body` is `None`.
    pub fn callees_of(&self, scope: Scope, stmts: &[Stmt], depth: u32) -> Vec<FuncId> {
        let mut out: Vec<FuncId> = Vec::new();
        let mut frontier: Vec<(Scope, Vec<&Expr>)> = Vec::new();
        let mut calls = Vec::new();
        let mut stack = Vec::new();
        for s in stmts {
            walk_stmt(s, &mut stack, &mut |_, n| {
                if let Node::Expr(e) = n {
                    if matches!(e.kind, ExprKind::Call { .. }) {
                        calls.push(e);
                    }
                }
            });
        }
        frontier.push((scope, calls));
        let mut level = 0;
        while let Some((sc, calls)) = frontier.pop() {
            for call in calls {
                let ExprKind::Call { func, .. } = &call.kind else {
                    continue;
                };
                let f = match self.callee(sc, func) {
                    Callee::Func(f) => Some(f),
                    Callee::Class(k) => self.method(k, "__init__"),
                    _ => None,
                };
                if let Some(f) = f {
                    if !out.contains(&f) && out.len() < 256 {
                        out.push(f);
                        if level < depth {
                            let mut inner = Vec::new();
                            self.walk_exprs(f.scope(), &mut |_, e| {
                                if matches!(e.kind, ExprKind::Call { .. }) {
                                    inner.push(e);
                                }
                            });
                            frontier.push((f.scope(), inner));
                        }
                    }
                }
            }
            level += 1;
            if level > depth + 1 {
                break;
            }
        }
        out
    }

    /// The statement of `scope` that holds expression `e`, with the
    /// statement's ancestors.
    pub fn stmt_of<'p>(&'p self, anc: &[Anc<'p>]) -> Option<&'p Stmt> {
        anc.iter().rev().find_map(|a| match a {
            Anc::Stmt(s) => Some(*s),
            _ => None,
        })
    }

    /// All files, for iteration with their ids.
    pub fn file_ids(&self) -> impl Iterator<Item = (ModId, FileId)> + '_ {
        self.files.iter().enumerate().map(|(i, f)| (i as ModId, f.file))
    }

    /// The span of a scope's function name, or of its chunk.
    pub fn scope_span(&self, scope: Scope) -> Span {
        match scope.func().and_then(|f| self.func(f)) {
            Some(f) => f.name_span,
            None => self
                .parsed(scope.m)
                .and_then(|p| p.chunks().get(scope.c as usize))
                .map_or(Span::default(), |c| Span::new(c.range.start, c.range.start)),
        }
    }
}

/// A place a value can be stored in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Place {
    /// A local of a function; where the value was stored by an assignment
    /// to the name, that target's span (a read before it, in no loop
    /// around it, cannot see the value).
    Local(FuncId, String, Option<crate::source::Span>),
    SelfAttr(ClassId, String),
    /// `self.<attr>` stored at the target spanning `Span` in `Scope`, read
    /// on instances of the class outside its methods.
    Instance(ClassId, String, Scope, crate::source::Span),
    Global(ModId, String),
}

/// The argument position of `e` among `args`.
pub(super) fn arg_pos<'p>(args: &'p [Arg], e: &Expr) -> ArgPos<'p> {
    let mut positional = 0usize;
    for a in args {
        match a {
            Arg::Pos(x) => {
                if std::ptr::eq(x, e) {
                    return ArgPos::Pos(positional);
                }
                positional += 1;
            }
            Arg::Kw { name, value, .. } if std::ptr::eq(value, e) => return ArgPos::Kw(name),
            Arg::Star(x) | Arg::StarStar(x) if std::ptr::eq(x, e) => return ArgPos::Star,
            _ => {}
        }
    }
    ArgPos::Star
}

/// Whether `e` is written to (an assignment, `for`, `with … as` or
/// comprehension target) rather than read.
pub fn is_target(anc: &[Anc<'_>], e: &Expr) -> bool {
    // Walk up through tuple/list/starred targets.
    let mut cur: *const Expr = e;
    for a in anc.iter().rev() {
        match a {
            Anc::Expr(p) => match &p.kind {
                ExprKind::Tuple(_) | ExprKind::List(_) | ExprKind::Starred(_) => cur = *p,
                _ => return false,
            },
            Anc::Stmt(s) => {
                return match &s.kind {
                    StmtKind::Assign { targets, .. } => targets.iter().any(|t| std::ptr::eq(t, cur)),
                    StmtKind::AnnAssign { target, .. } | StmtKind::AugAssign { target, .. } => {
                        std::ptr::eq(target, cur)
                    }
                    StmtKind::For { target, .. } => std::ptr::eq(target, cur),
                    StmtKind::With { items, .. } => items
                        .iter()
                        .any(|i| i.var.as_ref().is_some_and(|v| std::ptr::eq(v, cur))),
                    _ => false,
                }
            }
            Anc::Comp(g) => return std::ptr::eq(&g.target, cur),
            Anc::Handler(_) => return false,
        }
    }
    false
}

pub(super) fn concat(mut a: Vec<Proj>, b: &[Proj]) -> Vec<Proj> {
    a.extend(b.iter().cloned());
    a
}

/// A literal subscript key.
pub(super) fn literal_key(e: &Expr) -> Option<Key> {
    match &e.kind {
        ExprKind::Int(i) => Some(Key::Int(*i)),
        ExprKind::Str(s) => Some(Key::Str(s.clone())),
        ExprKind::Unary { op, operand } if op == "-" => match operand.kind {
            ExprKind::Int(i) => Some(Key::Int(-i)),
            _ => None,
        },
        _ => None,
    }
}

/// Calls `bind` with the unpacking projection for each place in target `t`
/// that is the name `name`.
pub(super) fn bind_target(t: &Expr, name: &str, path: &mut Vec<Proj>, bind: &mut dyn FnMut(Vec<Proj>)) {
    match &t.kind {
        ExprKind::Name(n) if n == name => bind(path.clone()),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            if items.iter().any(|i| matches!(i.kind, ExprKind::Starred(_))) {
                return;
            }
            for (i, item) in items.iter().enumerate() {
                path.push(Proj::Key(Key::Int(i as i64)));
                bind_target(item, name, path, bind);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Like [`bind_target`], for `self.<attr>` targets (`me` is the method's
/// first parameter).
pub(super) fn bind_self_target(t: &Expr, me: &str, attr: &str, path: &mut Vec<Proj>, bind: &mut dyn FnMut(Vec<Proj>)) {
    match &t.kind {
        ExprKind::Attribute { value, attr: a } if a == attr && matches!(&value.kind, ExprKind::Name(n) if n == me) => {
            bind(path.clone())
        }
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            if items.iter().any(|i| matches!(i.kind, ExprKind::Starred(_))) {
                return;
            }
            for (i, item) in items.iter().enumerate() {
                path.push(Proj::Key(Key::Int(i as i64)));
                bind_self_target(item, me, attr, path, bind);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The one target the value `e` (its ancestors `anc`) is assigned to:
/// `t = e`, or the matching element of a tuple target where `e` is an
/// element of a tuple value (`(a, b), (c, d) = f(x), f(y)`).
/// Element `i` of the tuple or list target `t` of `n` plain names.
fn unpacked(t: &Expr, i: usize, n: usize) -> Option<&Expr> {
    match &t.kind {
        ExprKind::Tuple(ts) | ExprKind::List(ts)
            if ts.len() == n && !ts.iter().any(|t| matches!(t.kind, ExprKind::Starred(_))) =>
        {
            ts.get(i)
        }
        _ => None,
    }
}

fn bound_target<'p>(anc: &[Anc<'p>], e: &Expr) -> Option<&'p Expr> {
    let plain = |items: &[Expr]| !items.iter().any(|t| matches!(t.kind, ExprKind::Starred(_)));
    match anc.split_last()? {
        (Anc::Stmt(st), _) => match &st.kind {
            StmtKind::Assign { targets, value } if std::ptr::eq(value, e) && targets.len() == 1 => targets.first(),
            _ => None,
        },
        // `t = f(x) if c else (None, None)`: the arm's value is `t`'s.
        (Anc::Expr(p), up) if matches!(&p.kind, ExprKind::IfExp { body, orelse, .. } if std::ptr::eq(&**body, e) || std::ptr::eq(&**orelse, e)) => {
            bound_target(up, p)
        }
        (Anc::Expr(p), up) => {
            let ExprKind::Tuple(items) = &p.kind else { return None };
            let j = items.iter().position(|x| std::ptr::eq(x, e))?;
            let Some(Anc::Stmt(st)) = up.last() else { return None };
            let StmtKind::Assign { targets, value } = &st.kind else {
                return None;
            };
            if !std::ptr::eq(value, *p) || targets.len() != 1 || !plain(items) {
                return None;
            }
            match &targets[0].kind {
                ExprKind::Tuple(ts) | ExprKind::List(ts) if ts.len() == items.len() && plain(ts) => ts.get(j),
                _ => None,
            }
        }
        _ => None,
    }
}

impl Program {
    /// Whether the `yield` expression `y` (of `scope`'s module) with value
    /// `v` is a `yield from v`: the parser keeps both as one kind.
    fn yields_from(&self, scope: Scope, y: &Expr, v: &Expr) -> bool {
        self.text(scope.m)
            .get(y.span.start..v.span.start)
            .is_some_and(|t| t.split_whitespace().nth(1) == Some("from"))
    }
}

/// The calls through which a followed value entered each function, by
/// function and call (its address).
type Entered = std::cell::RefCell<Vec<(FuncId, usize)>>;

/// The call sites what `f` returns goes back to: those the value entered
/// `f` through, where it entered as an argument (`dist_tqdm(loader)`
/// returning `obj` hands it back to that call, not to every caller of
/// `dist_tqdm`); all of them for a value `f` made itself.
fn returns_to<'p>(sites: Vec<(Scope, &'p Expr)>, f: FuncId, entered: &Entered) -> Vec<(Scope, &'p Expr)> {
    let calls: Vec<usize> = entered
        .borrow()
        .iter()
        .filter(|(g, _)| *g == f)
        .map(|(_, c)| *c)
        .collect();
    if calls.is_empty() {
        return sites;
    }
    sites
        .into_iter()
        .filter(|(_, call)| calls.contains(&(*call as *const Expr as usize)))
        .collect()
}
