//! Classes: methods, bases (in the program and outside it), and the
//! classes that mention a name.

use super::*;

/// At most this many classes in a linearisation.
const ANCESTORS: usize = 32;
/// Bases are read this many levels up.
const ANCESTOR_DEPTH: u32 = 8;
/// The first this many bases of each class are read.
const BASES_READ: usize = 8;

impl Program {
    /// A method of a class or of its bases in the training code, found in
    /// Python's method resolution order ([`Program::ancestors`]).
    pub fn method(&self, k: ClassId, name: &str) -> Option<FuncId> {
        // The class's own first: most lookups end there, without the bases.
        self.own_method(k, name).or_else(|| {
            self.ancestors(k)
                .into_iter()
                .skip(1)
                .find_map(|c| self.own_method(c, name))
        })
    }

    /// `self.name(…)` in class `k`, where `f` (the method it finds) is
    /// abstract — its body only raises `NotImplementedError` — and exactly
    /// one training-code class below `k` defines the method: that class's
    /// (a base trainer's `train()` calling `self._train_epoch(epoch)`, which
    /// the one trainer of the recipe implements).
    pub fn sole_override(&self, k: ClassId, f: FuncId, name: &str) -> Option<FuncId> {
        // Asked at every `self.x()` a callee lookup resolves: no allocation
        // before the body is known to be abstract.
        let mut stmts = self
            .func(f)?
            .body
            .iter()
            .filter(|s| !matches!(&s.kind, StmtKind::Expr(e) if matches!(e.kind, ExprKind::Str(_))));
        let abstract_ = match (stmts.next(), stmts.next()) {
            (Some(s), None) => match &s.kind {
                StmtKind::Raise(Some(e)) => {
                    let callee = match &e.kind {
                        ExprKind::Call { func, .. } => func,
                        _ => e,
                    };
                    matches!(&callee.kind, ExprKind::Name(n) if n == "NotImplementedError")
                }
                _ => false,
            },
            _ => false,
        };
        if !abstract_ {
            return None;
        }
        let owner = self.class_of(f)?;
        // Past eight subclasses naming the method, which one runs is not
        // known.
        let subs = self.subclasses_mentioning(owner, name, 9);
        if subs.len() > 8 {
            return None;
        }
        let mut found: Option<FuncId> = None;
        for sub in subs {
            if sub == k {
                continue;
            }
            if let Some(g) = self.own_method(sub, name) {
                if found.is_some_and(|x| x != g) {
                    return None;
                }
                found = Some(g);
            }
        }
        found
    }

    /// The field a class's `__getitem__` hands every key to, where the
    /// method is the one line `return self.<field>[key]` (a config holder
    /// around `vars(parser.parse_args())`: `para['num_workers']` is
    /// `para.args['num_workers']`).
    pub fn item_field(&self, k: ClassId) -> Option<&str> {
        let f = self.func(self.method(k, "__getitem__")?)?;
        let [me, key] = f.params.as_slice() else { return None };
        let [stmt] = f.body.as_slice() else { return None };
        let StmtKind::Return(Some(ret)) = &stmt.kind else {
            return None;
        };
        let ExprKind::Subscript { value, index } = &ret.kind else {
            return None;
        };
        let ExprKind::Attribute { value: holder, attr } = &value.kind else {
            return None;
        };
        let on_self = matches!(&holder.kind, ExprKind::Name(n) if *n == me.name);
        let by_key = matches!(&index.kind, ExprKind::Name(n) if *n == key.name);
        (on_self && by_key).then_some(attr.as_str())
    }

    /// Whether instances of class `k` pass over what their constructor
    /// takes at `pos`: `__init__` keeps that parameter as `self.<x>` and
    /// `__iter__` iterates `self.<x>` (`for batch in self.loader: yield …`,
    /// `self.iterator = iter(self.iterable)` in an endless loop) — a
    /// prefetcher or an endless iterator around a loader.
    pub fn iterates_arg(&self, k: ClassId, pos: &ArgPos<'_>) -> bool {
        self.passes_over_arg(k, pos).is_some()
    }

    /// Whether the instances of class `k` start over on what they wrap
    /// when it runs out (`except StopIteration: self.iterator =
    /// iter(self.iterable)` in `__iter__`'s endless loop): iterating one
    /// passes over the wrapped loader again and again.
    pub fn restarts_arg(&self, k: ClassId) -> bool {
        (0..4).any(|i| self.passes_over_arg(k, &ArgPos::Pos(i)) == Some(true))
    }

    /// Whether instances of class `k` keep the entries of a mapping their
    /// constructor takes at `pos` (`for n, l in loaders.items():
    /// self.name2loader[n] = l`, also unpacking a `(loader, ratio)` pair)
    /// and start one over inside a loop of `__iter__` (`iter_ =
    /// iter(self.name2loader[task])` when it runs out): UNITER's and
    /// ClipBERT's `MetaLoader`, mixing the loaders of several tasks.
    pub fn restarts_entries_of_arg(&self, k: ClassId, pos: &ArgPos<'_>) -> bool {
        let (Some(init), Some(iter_fn)) = (self.method(k, "__init__"), self.method(k, "__iter__")) else {
            return false;
        };
        let Some(init_fn) = self.func(init) else { return false };
        let param = match pos {
            ArgPos::Pos(i) => init_fn.params.get(i + 1),
            ArgPos::Kw(name) => init_fn.params.iter().skip(1).find(|p| p.name == *name),
            ArgPos::Star => None,
        };
        let Some(param) = param.filter(|p| p.kind == crate::python::ast::ParamKind::Normal) else {
            return false;
        };
        let Some(me) = init_fn.params.first().map(|p| p.name.as_str()) else {
            return false;
        };
        let over_param = |e: &Expr| match &e.kind {
            ExprKind::Name(n) => *n == param.name,
            ExprKind::Call { func, args, .. } => {
                args.is_empty()
                    && matches!(&func.kind, ExprKind::Attribute { value, attr }
                        if matches!(attr.as_str(), "items" | "values")
                            && matches!(&value.kind, ExprKind::Name(n) if *n == param.name))
            }
            _ => false,
        };
        // `self.<x>[…] = …` inside a loop over the parameter.
        let mut kept: Vec<String> = Vec::new();
        self.walk_stmts(init.scope(), &mut |anc, st| {
            let StmtKind::Assign { targets, .. } = &st.kind else {
                return;
            };
            let in_loop = anc.iter().any(
                |a| matches!(a, Anc::Stmt(s) if matches!(&s.kind, StmtKind::For { iter, .. } if over_param(iter))),
            );
            if !in_loop {
                return;
            }
            for t in targets {
                if let ExprKind::Subscript { value, .. } = &t.kind {
                    if let ExprKind::Attribute { value: base, attr } = &value.kind {
                        if matches!(&base.kind, ExprKind::Name(n) if n == me) && !kept.contains(attr) {
                            kept.push(attr.clone());
                        }
                    }
                }
            }
        });
        if kept.is_empty() {
            return false;
        }
        let Some(it_me) = self
            .func(iter_fn)
            .and_then(|f| f.params.first())
            .map(|p| p.name.clone())
        else {
            return false;
        };
        let mut found = false;
        self.walk_exprs(iter_fn.scope(), &mut |anc, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            if !matches!(&func.kind, ExprKind::Name(n) if n == "iter") {
                return;
            }
            let entry = matches!(args.first(), Some(crate::python::ast::Arg::Pos(a))
                if matches!(&a.kind, ExprKind::Subscript { value, .. }
                    if matches!(&value.kind, ExprKind::Attribute { value: base, attr }
                        if kept.contains(attr) && matches!(&base.kind, ExprKind::Name(n) if *n == it_me))));
            let looped = anc
                .iter()
                .any(|a| matches!(a, Anc::Stmt(s) if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. })));
            found |= entry && looped;
        });
        found
    }

    /// [`Program::iterates_arg`], with whether `__iter__` passes over the
    /// kept value inside a loop of its own (starting it over).
    fn passes_over_arg(&self, k: ClassId, pos: &ArgPos<'_>) -> Option<bool> {
        let (init, iter_fn) = (self.method(k, "__init__")?, self.method(k, "__iter__")?);
        let init_fn = self.func(init)?;
        let param = match pos {
            ArgPos::Pos(i) => init_fn.params.get(i + 1),
            ArgPos::Kw(name) => init_fn.params.iter().skip(1).find(|p| p.name == *name),
            ArgPos::Star => None,
        };
        let param = param.filter(|p| p.kind == crate::python::ast::ParamKind::Normal)?;
        let me = init_fn.params.first().map(|p| p.name.as_str())?;
        // `self.<x> = <param>` at the top of `__init__`.
        let kept: Vec<&str> = init_fn
            .body
            .iter()
            .filter_map(|st| match &st.kind {
                StmtKind::Assign { targets, value } if matches!(&value.kind, ExprKind::Name(n) if *n == param.name) => {
                    targets.iter().find_map(|t| match &t.kind {
                        ExprKind::Attribute { value, attr } if matches!(&value.kind, ExprKind::Name(n) if n == me) => {
                            Some(attr.as_str())
                        }
                        _ => None,
                    })
                }
                _ => None,
            })
            .collect();
        if kept.is_empty() {
            return None;
        }
        let iter_def = self.func(iter_fn)?;
        let it_me = iter_def.params.first().map(|p| p.name.as_str())?;
        let is_kept = |e: &Expr| {
            matches!(&e.kind, ExprKind::Attribute { value, attr }
                if kept.contains(&attr.as_str()) && matches!(&value.kind, ExprKind::Name(n) if n == it_me))
        };
        let looped = |anc: &[Anc<'_>]| {
            anc.iter()
                .any(|a| matches!(a, Anc::Stmt(s) if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. })))
        };
        let mut found: Option<bool> = None;
        self.walk_stmts(iter_fn.scope(), &mut |anc, st| {
            if let StmtKind::For { iter, .. } = &st.kind {
                if is_kept(iter) {
                    found = Some(found.unwrap_or(false) || looped(anc));
                }
            }
        });
        self.walk_exprs(iter_fn.scope(), &mut |anc, e| {
            if let ExprKind::Call { func, args, .. } = &e.kind {
                if matches!(&func.kind, ExprKind::Name(n) if n == "iter")
                    && matches!(args.first(), Some(crate::python::ast::Arg::Pos(a)) if is_kept(a))
                {
                    found = Some(found.unwrap_or(false) || looped(anc));
                }
            }
        });
        found
    }

    /// The methods the class's own body defines, in their order.
    pub fn own_methods(&self, k: ClassId) -> Vec<FuncId> {
        self.class(k).map_or_else(Vec::new, |class| {
            class
                .body
                .iter()
                .filter_map(|s| match s.kind {
                    StmtKind::FunctionDef(f) => Some(FuncId { m: k.m, c: k.c, f }),
                    _ => None,
                })
                .collect()
        })
    }

    /// A method the class's own body defines.
    pub fn own_method(&self, k: ClassId, name: &str) -> Option<FuncId> {
        let class = self.class(k)?;
        class.body.iter().find_map(|s| match s.kind {
            StmtKind::FunctionDef(f) => {
                let id = FuncId { m: k.m, c: k.c, f };
                self.func(id).is_some_and(|x| x.name == name).then_some(id)
            }
            _ => None,
        })
    }

    /// The class and its project bases in Python's method resolution
    /// order: the C3 linearisation, or, where the bases contradict each
    /// other (Python refuses such a class; a project may still hold one in
    /// dead code), each class after its first occurrence depth-first.
    /// Bounded for hostile hierarchies: [`ANCESTORS`] classes, bases read
    /// [`ANCESTOR_DEPTH`] levels up and the first [`BASES_READ`] bases of
    /// each class, each class linearised once.
    pub fn ancestors(&self, k: ClassId) -> Vec<ClassId> {
        let mut memo = HashMap::default();
        self.linearize(k, 0, &mut memo)
    }

    fn linearize(&self, k: ClassId, depth: u32, memo: &mut HashMap<ClassId, Vec<ClassId>>) -> Vec<ClassId> {
        if let Some(l) = memo.get(&k) {
            return l.clone();
        }
        let mut out = vec![k];
        let mut bases = self.bases(k);
        bases.truncate(BASES_READ);
        if depth < ANCESTOR_DEPTH && !bases.is_empty() {
            let mut seqs: Vec<Vec<ClassId>> = bases.iter().map(|b| self.linearize(*b, depth + 1, memo)).collect();
            seqs.push(bases);
            loop {
                seqs.retain(|s| !s.is_empty());
                if seqs.is_empty() || out.len() >= ANCESTORS {
                    break;
                }
                // The first head that is in no other sequence's tail.
                let head = seqs
                    .iter()
                    .map(|s| s[0])
                    .find(|h| !seqs.iter().any(|s| s[1..].contains(h)));
                let Some(h) = head else {
                    for c in seqs.into_iter().flatten() {
                        if !out.contains(&c) {
                            out.push(c);
                        }
                    }
                    break;
                };
                if !out.contains(&h) {
                    out.push(h);
                }
                for s in &mut seqs {
                    if s.first() == Some(&h) {
                        s.remove(0);
                    }
                }
            }
            out.truncate(ANCESTORS);
        }
        memo.insert(k, out.clone());
        out
    }

    /// The project classes a class derives from.
    pub fn bases(&self, k: ClassId) -> Vec<ClassId> {
        let Some(class) = self.class(k) else { return Vec::new() };
        let scope = self.def_scope(k.m, k.c, class.parent);
        class
            .bases
            .iter()
            .filter_map(|b| match self.expr_sym(scope, b) {
                Some(Sym::Class(c)) if c != k => Some(c),
                _ => None,
            })
            .collect()
    }

    /// The external bases of a class and of its project bases, canonical.
    pub fn external_bases(&self, k: ClassId) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![(k, 0u32)];
        let mut seen = HashSet::default();
        while let Some((k, depth)) = stack.pop() {
            if depth > 8 || !seen.insert(k) {
                continue;
            }
            let Some(class) = self.class(k) else { continue };
            let scope = self.def_scope(k.m, k.c, class.parent);
            for b in &class.bases {
                match self.expr_sym(scope, b) {
                    Some(Sym::External(p)) => out.push(p),
                    Some(Sym::Class(c)) => stack.push((c, depth + 1)),
                    _ => {}
                }
            }
        }
        out
    }

    /// Whether a class derives (in the training code or outside) from one
    /// of `externals`.
    pub fn derives_from(&self, k: ClassId, externals: &[&str]) -> bool {
        self.external_bases(k).iter().any(|b| externals.contains(&b.as_str()))
    }

    /// The scope function `f` is defined in (where its decorators and
    /// defaults are evaluated).
    pub fn def_scope_of(&self, f: FuncId) -> Scope {
        match self.func(f) {
            Some(func) => self.def_scope(f.m, f.c, func.parent),
            None => Scope {
                m: f.m,
                c: f.c,
                f: None,
            },
        }
    }

    /// The scope a definition's header (decorators, defaults, bases) is
    /// evaluated in.
    pub(super) fn def_scope(&self, m: ModId, c: u32, parent: Parent) -> Scope {
        match parent {
            Parent::Func(f) => Scope { m, c, f: Some(f) },
            Parent::Class(k) => match self.chunk(m, c).and_then(|a| a.classes.get(k as usize)) {
                Some(class) => self.def_scope(m, c, class.parent),
                None => Scope { m, c, f: None },
            },
            Parent::Module => Scope { m, c, f: None },
        }
    }

    /// The methods of the training code's subclasses that override method
    /// `f`: a trainer's abstract `compute_loss`, each model's trainer
    /// implementing it. At most 8.
    pub fn overrides(&self, f: FuncId) -> Vec<FuncId> {
        let (Some(k), Some(func)) = (self.class_of(f), self.func(f)) else {
            return Vec::new();
        };
        let name = func.name.as_str();
        let mut out = Vec::new();
        for sub in self.classes_mentioning(&[name]) {
            let line = self.ancestors(sub);
            if sub == k || !line.contains(&k) {
                continue;
            }
            let found = line.into_iter().find_map(|c| self.own_method(c, name));
            if let Some(g) = found.filter(|g| *g != f && !out.contains(g)) {
                out.push(g);
            }
            if out.len() >= 8 {
                break;
            }
        }
        out
    }

    /// Every class of the training code (parses every class chunk).
    pub fn classes(&self) -> Vec<ClassId> {
        let mut out = Vec::new();
        for m in self.modules() {
            for c in 0..self.chunk_count(m) {
                let kind = self.parsed(m).and_then(|p| p.chunks().get(c as usize)).map(|i| i.kind);
                if kind == Some(ChunkKind::Def) {
                    continue;
                }
                // Class chunks, and code chunks that mention `class`.
                if kind == Some(ChunkKind::Code)
                    && !self
                        .parsed(m)
                        .is_some_and(|p| p.chunk_mentions(c as usize, &["class "]))
                {
                    continue;
                }
                if let Some(ast) = self.chunk(m, c) {
                    out.extend((0..ast.classes.len() as u32).map(|k| ClassId { m, c, k }));
                }
            }
        }
        out
    }

    /// The classes whose header mentions one of `needles` (cheap: only
    /// those chunks are parsed).
    /// The training code's classes that derive from `k` (through its project
    /// bases) and whose chunk mentions `word`: at most `most` of them.
    pub fn subclasses_mentioning(&self, k: ClassId, word: &str, most: usize) -> Vec<ClassId> {
        let mut out = Vec::new();
        for sub in self.classes_mentioning(&[word]) {
            if out.len() >= most {
                break;
            }
            if sub != k && self.ancestors(sub).contains(&k) {
                out.push(sub);
            }
        }
        out
    }

    pub fn classes_mentioning(&self, needles: &[&str]) -> Vec<ClassId> {
        let mut out = Vec::new();
        for m in self.modules() {
            for c in self.chunks_mentioning(m, needles).collect::<Vec<_>>() {
                if let Some(ast) = self.chunk(m, c) {
                    out.extend((0..ast.classes.len() as u32).map(|k| ClassId { m, c, k }));
                }
            }
        }
        out
    }
}
