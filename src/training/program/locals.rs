//! Local names: what a function's names are bound to inside it.

use super::*;

impl Program {
    /// The bindings of `name` in a function's own body (not nested
    /// functions), in source order.
    pub fn local_defs(&self, f: FuncId, name: &str) -> Vec<LocalDef<'_>> {
        let Some(func) = self.func(f) else { return Vec::new() };
        if !self.bound_names(f).contains(name) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (i, p) in func.params.iter().enumerate() {
            if p.name == name {
                out.push(LocalDef::Param(i));
            }
        }
        let package = self.package_of(f.m);
        self.collect_local(f, &func.body, name, &package, &mut out, 0);
        out
    }

    /// Every name function `f` may bind: its parameters, and the names in
    /// its assignment, loop, `with`, `except`, import and definition
    /// targets (a superset of the names [`Program::local_defs`] finds).
    pub(super) fn bound_names(&self, f: FuncId) -> Arc<HashSet<String>> {
        if let Some(kept) = self.bound.lock().ok().and_then(|m| m.get(&f).cloned()) {
            return kept;
        }
        let mut names: HashSet<String> = HashSet::default();
        if let Some(func) = self.func(f) {
            names.extend(func.params.iter().map(|p| p.name.clone()));
            let package = self.package_of(f.m);
            self.collect_bound(f, &func.body, &package, &mut names, 0);
        }
        let names = Arc::new(names);
        if let Ok(mut m) = self.bound.lock() {
            m.insert(f, Arc::clone(&names));
        }
        names
    }

    pub(super) fn collect_bound(&self, f: FuncId, body: &[Stmt], package: &str, out: &mut HashSet<String>, depth: u32) {
        if depth > 64 {
            return;
        }
        // Every name inside a target (tuples and lists at any depth).
        fn target_names(t: &Expr, out: &mut HashSet<String>) {
            match &t.kind {
                ExprKind::Name(n) => {
                    out.insert(n.clone());
                }
                ExprKind::Tuple(items) | ExprKind::List(items) => {
                    for i in items {
                        target_names(i, out);
                    }
                }
                ExprKind::Starred(inner) => target_names(inner, out),
                _ => {}
            }
        }
        for s in body {
            match &s.kind {
                StmtKind::Assign { targets, .. } => targets.iter().for_each(|t| target_names(t, out)),
                StmtKind::AnnAssign { target, .. } | StmtKind::AugAssign { target, .. } => target_names(target, out),
                StmtKind::For {
                    target, body, orelse, ..
                } => {
                    target_names(target, out);
                    self.collect_bound(f, body, package, out, depth + 1);
                    self.collect_bound(f, orelse, package, out, depth + 1);
                }
                StmtKind::While { body, orelse, .. } | StmtKind::If { body, orelse, .. } => {
                    self.collect_bound(f, body, package, out, depth + 1);
                    self.collect_bound(f, orelse, package, out, depth + 1);
                }
                StmtKind::With { items, body } => {
                    for item in items {
                        if let Some(var) = &item.var {
                            target_names(var, out);
                        }
                    }
                    self.collect_bound(f, body, package, out, depth + 1);
                }
                StmtKind::Try {
                    body,
                    handlers,
                    orelse,
                    finalbody,
                } => {
                    self.collect_bound(f, body, package, out, depth + 1);
                    for h in handlers {
                        if let Some(n) = &h.name {
                            out.insert(n.clone());
                        }
                        self.collect_bound(f, &h.body, package, out, depth + 1);
                    }
                    self.collect_bound(f, orelse, package, out, depth + 1);
                    self.collect_bound(f, finalbody, package, out, depth + 1);
                }
                StmtKind::FunctionDef(i) => {
                    if let Some(x) = self.func(FuncId { m: f.m, c: f.c, f: *i }) {
                        out.insert(x.name.clone());
                    }
                }
                StmtKind::ClassDef(k) => {
                    if let Some(x) = self.class(ClassId { m: f.m, c: f.c, k: *k }) {
                        out.insert(x.name.clone());
                    }
                }
                StmtKind::Import(_) | StmtKind::ImportFrom { .. } => {
                    let mut bs = Vec::new();
                    collect_bindings(std::slice::from_ref(s), package, f.c, &mut bs, 0);
                    out.extend(bs.into_iter().map(|(n, _)| n));
                }
                _ => {}
            }
        }
    }

    pub(super) fn collect_local<'p>(
        &'p self,
        f: FuncId,
        body: &'p [Stmt],
        name: &str,
        package: &str,
        out: &mut Vec<LocalDef<'p>>,
        depth: u32,
    ) {
        if depth > 64 {
            return;
        }
        for s in body {
            match &s.kind {
                StmtKind::Assign { targets, value } => {
                    for t in targets {
                        bind_target(t, name, &mut Vec::new(), &mut |proj| {
                            out.push(LocalDef::Assign { value, proj });
                        });
                    }
                }
                StmtKind::AnnAssign { target, value: Some(v) } => {
                    bind_target(target, name, &mut Vec::new(), &mut |proj| {
                        out.push(LocalDef::Assign { value: v, proj });
                    });
                }
                StmtKind::AugAssign { target, .. } => {
                    if matches!(&target.kind, ExprKind::Name(n) if n == name) {
                        out.push(LocalDef::Other);
                    }
                }
                StmtKind::For {
                    target,
                    iter,
                    body,
                    orelse,
                } => {
                    bind_target(target, name, &mut Vec::new(), &mut |proj| {
                        out.push(LocalDef::Iter { iter, proj });
                    });
                    self.collect_local(f, body, name, package, out, depth + 1);
                    self.collect_local(f, orelse, name, package, out, depth + 1);
                }
                StmtKind::While { body, orelse, .. } => {
                    self.collect_local(f, body, name, package, out, depth + 1);
                    self.collect_local(f, orelse, name, package, out, depth + 1);
                }
                StmtKind::If { body, orelse, .. } => {
                    self.collect_local(f, body, name, package, out, depth + 1);
                    self.collect_local(f, orelse, name, package, out, depth + 1);
                }
                StmtKind::With { items, body } => {
                    for item in items {
                        if let Some(var) = &item.var {
                            bind_target(var, name, &mut Vec::new(), &mut |proj| {
                                if proj.is_empty() {
                                    out.push(LocalDef::With(&item.ctx));
                                } else {
                                    out.push(LocalDef::Other);
                                }
                            });
                        }
                    }
                    self.collect_local(f, body, name, package, out, depth + 1);
                }
                StmtKind::Try {
                    body,
                    handlers,
                    orelse,
                    finalbody,
                } => {
                    self.collect_local(f, body, name, package, out, depth + 1);
                    for h in handlers {
                        if h.name.as_deref() == Some(name) {
                            out.push(LocalDef::Other);
                        }
                        self.collect_local(f, &h.body, name, package, out, depth + 1);
                    }
                    self.collect_local(f, orelse, name, package, out, depth + 1);
                    self.collect_local(f, finalbody, name, package, out, depth + 1);
                }
                StmtKind::FunctionDef(i)
                    if self
                        .func(FuncId { m: f.m, c: f.c, f: *i })
                        .is_some_and(|x| x.name == name) =>
                {
                    out.push(LocalDef::Sym(Sym::Func(FuncId { m: f.m, c: f.c, f: *i })));
                }
                StmtKind::ClassDef(k)
                    if self
                        .class(ClassId { m: f.m, c: f.c, k: *k })
                        .is_some_and(|x| x.name == name) =>
                {
                    out.push(LocalDef::Sym(Sym::Class(ClassId { m: f.m, c: f.c, k: *k })));
                }
                StmtKind::Import(_) | StmtKind::ImportFrom { .. } => {
                    let mut bs = Vec::new();
                    collect_bindings(std::slice::from_ref(s), package, f.c, &mut bs, 0);
                    for (n, b) in bs {
                        if n != name {
                            continue;
                        }
                        let sym = match b {
                            ModBinding::Import(p) => self.dotted_sym_from(Some(f.m), &p, 0),
                            ModBinding::From { module, name } => {
                                let full = if module.is_empty() {
                                    name
                                } else {
                                    format!("{module}.{name}")
                                };
                                self.dotted_sym_from(Some(f.m), &full, 0)
                            }
                            _ => None,
                        };
                        out.push(sym.map_or(LocalDef::Other, LocalDef::Sym));
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether `name` is bound in function `f` (or a function enclosing it).
    pub fn is_local(&self, f: FuncId, name: &str) -> bool {
        let mut cur = Some(f);
        let mut guard = 0;
        while let Some(fid) = cur {
            guard += 1;
            if guard > MAX_DEPTH {
                return false;
            }
            if !self.local_defs(fid, name).is_empty() {
                return true;
            }
            cur = self.parent_func(fid);
        }
        false
    }
}
