//! Classes: methods, bases (in the program and outside it), and the
//! classes that mention a name.

use super::*;

impl Program {
    /// A method of a class or of its bases in the training code.
    pub fn method(&self, k: ClassId, name: &str) -> Option<FuncId> {
        self.method_at(k, name, 0)
    }

    pub(super) fn method_at(&self, k: ClassId, name: &str, depth: u32) -> Option<FuncId> {
        if depth > 8 {
            return None;
        }
        let class = self.class(k)?;
        for s in &class.body {
            if let StmtKind::FunctionDef(f) = s.kind {
                if self.func(FuncId { m: k.m, c: k.c, f }).is_some_and(|x| x.name == name) {
                    return Some(FuncId { m: k.m, c: k.c, f });
                }
            }
        }
        for base in self.bases(k) {
            if let Some(f) = self.method_at(base, name, depth + 1) {
                return Some(f);
            }
        }
        None
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

    /// The methods of the training code's subclasses (up to four classes
    /// down) that override method `f`: a trainer's abstract `compute_loss`,
    /// each model's trainer implementing it. At most 8.
    pub fn overrides(&self, f: FuncId) -> Vec<FuncId> {
        let (Some(k), Some(func)) = (self.class_of(f), self.func(f)) else {
            return Vec::new();
        };
        let name = func.name.as_str();
        let mut out = Vec::new();
        for sub in self.classes_mentioning(&[name]) {
            if sub == k {
                continue;
            }
            let mut frontier = self.bases(sub);
            let mut derives = false;
            for _ in 0..4 {
                if frontier.contains(&k) {
                    derives = true;
                    break;
                }
                frontier = frontier.into_iter().flat_map(|b| self.bases(b)).collect();
            }
            if let Some(g) = self
                .method(sub, name)
                .filter(|g| derives && *g != f && !out.contains(g))
            {
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
