//! The training code as one program: modules and what their names are
//! bound to, functions and classes, who calls whom, and where a value comes
//! from ([`Program::sources`], backwards through names, parameters,
//! attributes of `self`, returns and containers) or goes
//! ([`Program::flows`], forwards through the same). Chunks are parsed when
//! a question reaches them, and every question has a step budget: when it
//! runs out, or the value passes through code stagec cannot see, the answer
//! says "unknown" and the rules stay silent.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use super::ast::{Arg, ChunkAst, Class, CompFor, DictItem, Expr, ExprKind, Function, Handler, Parent, Stmt, StmtKind};
use super::scan::ChunkKind;
use super::{FileRole, ParsedFile, TrainingFile};
use crate::source::{FileId, Span};

pub type ModId = u32;

/// A function: module, chunk, index in the chunk's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId {
    pub m: ModId,
    pub c: u32,
    pub f: u32,
}

/// A class: module, chunk, index in the chunk's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassId {
    pub m: ModId,
    pub c: u32,
    pub k: u32,
}

/// Where code runs: a function's body, or a module's top level (`f` is
/// `None`; `c` is the chunk).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope {
    pub m: ModId,
    pub c: u32,
    pub f: Option<u32>,
}

impl Scope {
    pub fn func(self) -> Option<FuncId> {
        self.f.map(|f| FuncId {
            m: self.m,
            c: self.c,
            f,
        })
    }
}

impl FuncId {
    pub fn scope(self) -> Scope {
        Scope {
            m: self.m,
            c: self.c,
            f: Some(self.f),
        }
    }
}

/// What a name or dotted expression denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sym {
    /// Something outside the training code, by its canonical dotted path
    /// (`torch.utils.data.DataLoader`, `builtins.sorted`).
    External(String),
    Module(ModId),
    Func(FuncId),
    Class(ClassId),
}

#[derive(Clone, Debug)]
enum ModBinding {
    Import(String),
    From { module: String, name: String },
    Def(FuncId),
    Class(ClassId),
    Assign { value: Box<Expr>, proj: Vec<Proj>, c: u32 },
    Other,
}

/// A projection still to apply to a value: `.attr`, `[key]`, the i-th
/// element of an unpacked tuple, or any element of an iterated container.
#[derive(Clone, Debug, PartialEq)]
pub enum Proj {
    Attr(String),
    Key(Key),
    Iter,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    Int(i64),
    Str(String),
}

/// Where a value comes from: an expression that is not a name, parameter,
/// attribute of `self` or call of a function of the training code, with
/// the projections that remain to apply to it.
#[derive(Clone, Debug)]
pub struct Term<'p> {
    pub scope: Scope,
    pub expr: &'p Expr,
    pub proj: Vec<Proj>,
}

/// The origins of a value.
#[derive(Clone, Debug, Default)]
pub struct Sources<'p> {
    pub terms: Vec<Term<'p>>,
    /// Whether some origin could not be followed.
    pub unknown: bool,
}

/// An ancestor of a node during a walk.
#[derive(Clone, Copy, Debug)]
pub enum Anc<'p> {
    Stmt(&'p Stmt),
    Expr(&'p Expr),
    Handler(&'p Handler),
    Comp(&'p CompFor),
}

/// What a local name is bound to in a function.
#[derive(Clone, Debug)]
pub enum LocalDef<'p> {
    Assign { value: &'p Expr, proj: Vec<Proj> },
    Param(usize),
    Iter { iter: &'p Expr, proj: Vec<Proj> },
    With(&'p Expr),
    Sym(Sym),
    Other,
}

/// How a call binds a parameter.
#[derive(Clone, Debug)]
pub enum Bound<'p> {
    Given(&'p Expr),
    Default(&'p Expr),
    Missing,
    Unknown,
}

/// What a call calls.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    Func(FuncId),
    Class(ClassId),
    External(String),
    Unknown,
}

/// How a value is used at one place (see [`Program::flows`]).
#[derive(Clone, Debug)]
pub enum Flow<'p> {
    /// Passed to a call the flow does not enter (`pos`: positional index or
    /// keyword).
    Arg {
        scope: Scope,
        call: &'p Expr,
        callee: Callee,
        pos: ArgPos<'p>,
        anc: Vec<Anc<'p>>,
    },
    /// `value.name(...)`.
    Method {
        scope: Scope,
        call: &'p Expr,
        name: &'p str,
        anc: Vec<Anc<'p>>,
    },
    /// `value.name` read (not called).
    Attr {
        scope: Scope,
        expr: &'p Expr,
        name: &'p str,
        anc: Vec<Anc<'p>>,
    },
    /// Stored in a name or attribute (which the flow then follows).
    Stored { scope: Scope, target: &'p Expr },
    /// `value[index]`.
    Index {
        scope: Scope,
        expr: &'p Expr,
        index: &'p Expr,
        anc: Vec<Anc<'p>>,
    },
    /// Iterated by a `for` statement (the statement) or a comprehension.
    Iterated {
        scope: Scope,
        stmt: Option<&'p Stmt>,
        anc: Vec<Anc<'p>>,
    },
    /// Returned from a function nobody in the training code calls.
    Returned { scope: Scope, func: Option<FuncId> },
    /// Stored somewhere the flow does not follow.
    Escapes { scope: Scope, at: &'p Expr },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgPos<'p> {
    Pos(usize),
    Kw(&'p str),
    Star,
}

/// Most steps one question may take.
const BUDGET: u32 = 4000;
/// Deepest chain of calls and names followed.
const MAX_DEPTH: u32 = 24;

/// Builtins stagec names (`builtins.X`) when nothing else binds them.
const BUILTINS: &[&str] = &[
    "len",
    "sorted",
    "set",
    "frozenset",
    "hash",
    "open",
    "int",
    "str",
    "float",
    "bool",
    "range",
    "enumerate",
    "zip",
    "iter",
    "next",
    "list",
    "dict",
    "tuple",
    "setattr",
    "getattr",
    "hasattr",
    "isinstance",
    "print",
    "super",
    "sum",
    "max",
    "min",
    "map",
    "filter",
    "reversed",
    "any",
    "all",
    "sum",
    "abs",
    "round",
    "type",
    "vars",
    "id",
    "repr",
];

struct FileEntry {
    parsed: Arc<ParsedFile>,
    file: FileId,
    module: String,
    role: FileRole,
    programs: u64,
}

/// The program: every training file, its top-level names, and the
/// questions rules ask.
pub struct Program {
    /// Whether the files include the experiment's program (bit 0 of
    /// [`Program::programs`]).
    experiment: bool,
    files: Vec<FileEntry>,
    by_module: HashMap<String, ModId>,
    tables: Vec<HashMap<String, Vec<ModBinding>>>,
    /// The chunks each identifier occurs in (built on first use): where a
    /// function's call sites can be.
    words: OnceLock<WordIndex>,
    /// The call sites found for each function so far (scope and call
    /// span): following values through parameters asks for the same
    /// functions again and again.
    sites: Mutex<HashMap<FuncId, CallSites>>,
    /// The names each function binds (a superset), found once: most names
    /// a function uses are not its own, and need no walk of its body.
    bound: Mutex<HashMap<FuncId, Arc<HashSet<String>>>>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program").field("modules", &self.files.len()).finish()
    }
}

/// A question's budget of steps.
pub struct Budget {
    steps: u32,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { steps: BUDGET }
    }
}

impl Budget {
    fn take(&mut self) -> bool {
        if self.steps == 0 {
            return false;
        }
        self.steps -= 1;
        true
    }
}

impl Program {
    pub fn new(files: &[TrainingFile]) -> Program {
        let entries: Vec<FileEntry> = files
            .iter()
            .map(|f| FileEntry {
                parsed: Arc::clone(&f.parsed),
                file: f.file,
                module: f.module.clone(),
                role: f.role,
                programs: f.programs,
            })
            .collect();
        let mut by_module = HashMap::new();
        for (i, f) in entries.iter().enumerate() {
            by_module.entry(f.module.clone()).or_insert(i as ModId);
            // `pkg.__main__` also answers to nothing else; a script is also
            // known by its stem (done by discovery).
        }
        let experiment = entries.iter().any(|f| f.programs & 1 != 0);
        let mut program = Program {
            experiment,
            files: entries,
            by_module,
            tables: Vec::new(),
            words: OnceLock::new(),
            sites: Mutex::new(HashMap::new()),
            bound: Mutex::new(HashMap::new()),
        };
        program.tables = (0..program.files.len() as ModId)
            .map(|m| program.module_table(m))
            .collect();
        program
    }

    // -----------------------------------------------------------------
    // Files, chunks, definitions

    pub fn modules(&self) -> impl Iterator<Item = ModId> {
        0..self.files.len() as ModId
    }

    pub fn file(&self, m: ModId) -> Option<FileId> {
        self.files.get(m as usize).map(|f| f.file)
    }

    pub fn role(&self, m: ModId) -> Option<FileRole> {
        self.files.get(m as usize).map(|f| f.role)
    }

    /// The programs module `m` runs in (see
    /// [`crate::training::TrainingInput::programs`]).
    pub fn programs(&self, m: ModId) -> u64 {
        self.files.get(m as usize).map_or(0, |f| f.programs)
    }

    /// Whether module `m` is code the experiment does not run: a file named
    /// on the command line outside the experiment's program, or one checked
    /// without an experiment.
    pub fn detached(&self, m: ModId) -> bool {
        self.role(m) != Some(FileRole::Model) && (!self.experiment || self.programs(m) & 1 == 0)
    }

    /// Whether modules `a` and `b` run in a program together.
    pub fn same_program(&self, a: ModId, b: ModId) -> bool {
        self.programs(a) & self.programs(b) != 0
    }

    pub fn module_name(&self, m: ModId) -> &str {
        self.files.get(m as usize).map_or("", |f| f.module.as_str())
    }

    pub fn parsed(&self, m: ModId) -> Option<&ParsedFile> {
        self.files.get(m as usize).map(|f| &*f.parsed)
    }

    pub fn text(&self, m: ModId) -> &str {
        self.parsed(m).map_or("", ParsedFile::text)
    }

    /// The modules that are training code (not only model sources).
    pub fn code_modules(&self) -> impl Iterator<Item = ModId> + '_ {
        self.modules().filter(|m| self.role(*m) != Some(FileRole::Model))
    }

    pub fn chunk(&self, m: ModId, c: u32) -> Option<&ChunkAst> {
        self.parsed(m)?.chunk(c as usize)
    }

    pub fn chunk_count(&self, m: ModId) -> u32 {
        self.parsed(m).map_or(0, |p| p.chunks().len() as u32)
    }

    /// The chunks of module `m` whose text mentions any of `needles`.
    pub fn chunks_mentioning<'a>(&'a self, m: ModId, needles: &'a [&'a str]) -> impl Iterator<Item = u32> + 'a {
        (0..self.chunk_count(m)).filter(move |c| self.parsed(m).is_some_and(|p| p.chunk_mentions(*c as usize, needles)))
    }

    pub fn func(&self, id: FuncId) -> Option<&Function> {
        self.chunk(id.m, id.c)?.funcs.get(id.f as usize)
    }

    pub fn class(&self, id: ClassId) -> Option<&Class> {
        self.chunk(id.m, id.c)?.classes.get(id.k as usize)
    }

    /// The class a function is a method of.
    pub fn class_of(&self, f: FuncId) -> Option<ClassId> {
        match self.func(f)?.parent {
            Parent::Class(k) => Some(ClassId { m: f.m, c: f.c, k }),
            _ => None,
        }
    }

    /// The function enclosing a nested function.
    fn parent_func(&self, f: FuncId) -> Option<FuncId> {
        match self.func(f)?.parent {
            Parent::Func(p) => Some(FuncId { m: f.m, c: f.c, f: p }),
            _ => None,
        }
    }

    /// The statements run in a scope.
    pub fn body(&self, scope: Scope) -> &[Stmt] {
        match scope.f {
            Some(f) => self
                .chunk(scope.m, scope.c)
                .and_then(|a| a.funcs.get(f as usize))
                .map_or(&[], |f| f.body.as_slice()),
            None => self.chunk(scope.m, scope.c).map_or(&[], |a| a.stmts.as_slice()),
        }
    }

    /// Every scope of a chunk: its top level, then each function.
    pub fn scopes(&self, m: ModId, c: u32) -> Vec<Scope> {
        let n = self.chunk(m, c).map_or(0, |a| a.funcs.len() as u32);
        std::iter::once(Scope { m, c, f: None })
            .chain((0..n).map(|f| Scope { m, c, f: Some(f) }))
            .collect()
    }

    /// The statements of class `k` and the functions of a chunk at module
    /// level, by name: the top-level definitions of a module.
    fn top_def(&self, m: ModId, c: u32, kind: ChunkKind) -> Option<Sym> {
        match kind {
            ChunkKind::Def => Some(Sym::Func(FuncId { m, c, f: 0 })),
            ChunkKind::Class => Some(Sym::Class(ClassId { m, c, k: 0 })),
            ChunkKind::Code => None,
        }
    }

    // -----------------------------------------------------------------
    // Names

    fn module_table(&self, m: ModId) -> HashMap<String, Vec<ModBinding>> {
        let mut table: HashMap<String, Vec<ModBinding>> = HashMap::new();
        let Some(parsed) = self.parsed(m) else { return table };
        let package = self.package_of(m);
        for (c, info) in parsed.chunks().iter().enumerate() {
            let c = c as u32;
            match info.kind {
                ChunkKind::Def | ChunkKind::Class => {
                    if let Some(sym) = self.top_def(m, c, info.kind) {
                        let b = match sym {
                            Sym::Func(f) => ModBinding::Def(f),
                            Sym::Class(k) => ModBinding::Class(k),
                            _ => ModBinding::Other,
                        };
                        table.entry(info.name.clone()).or_default().push(b);
                    }
                }
                ChunkKind::Code => {
                    let Some(ast) = parsed.chunk(c as usize) else { continue };
                    let mut out = Vec::new();
                    collect_bindings(&ast.stmts, &package, c, &mut out, 0);
                    for (name, b) in out {
                        table.entry(name).or_default().push(b);
                    }
                    // Definitions nested in top-level blocks (`if`, `try`).
                    for (i, f) in ast.funcs.iter().enumerate() {
                        if f.parent == Parent::Module {
                            table.entry(f.name.clone()).or_default().push(ModBinding::Def(FuncId {
                                m,
                                c,
                                f: i as u32,
                            }));
                        }
                    }
                    for (i, k) in ast.classes.iter().enumerate() {
                        if k.parent == Parent::Module {
                            table
                                .entry(k.name.clone())
                                .or_default()
                                .push(ModBinding::Class(ClassId { m, c, k: i as u32 }));
                        }
                    }
                }
            }
        }
        table
    }

    /// The package a module's relative imports start from.
    fn package_of(&self, m: ModId) -> String {
        let Some(f) = self.files.get(m as usize) else {
            return String::new();
        };
        if f.parsed.text().is_empty() && f.module.is_empty() {
            return String::new();
        }
        let name = &f.module;
        let is_init = self.files.get(m as usize).is_some_and(|_| name.ends_with("__init__"));
        if is_init {
            return name.trim_end_matches(".__init__").to_string();
        }
        name.rsplit_once('.').map_or(String::new(), |(p, _)| p.to_string())
    }

    /// The project module `dotted` names, or the project module a prefix
    /// names with the rest as an attribute path.
    fn project_module(&self, dotted: &str) -> Option<(ModId, String)> {
        if let Some(m) = self.by_module.get(dotted) {
            return Some((*m, String::new()));
        }
        let mut cut = dotted.len();
        while let Some(i) = dotted[..cut].rfind('.') {
            if let Some(m) = self.by_module.get(&dotted[..i]) {
                return Some((*m, dotted[i + 1..].to_string()));
            }
            cut = i;
        }
        None
    }

    fn dotted_sym(&self, dotted: &str, depth: u32) -> Option<Sym> {
        match self.project_module(dotted) {
            Some((m, rest)) if rest.is_empty() => Some(Sym::Module(m)),
            Some((m, rest)) => {
                let mut parts = rest.split('.');
                let first = parts.next()?;
                let mut sym = self.global(m, first, depth + 1)?;
                for p in parts {
                    sym = self.member(&sym, p, depth + 1)?;
                }
                Some(sym)
            }
            None => Some(Sym::External(normalize(dotted))),
        }
    }

    /// A module's top-level binding of `name` (the last one written).
    pub fn global(&self, m: ModId, name: &str, depth: u32) -> Option<Sym> {
        if depth > MAX_DEPTH {
            return None;
        }
        let binding = self.tables.get(m as usize)?.get(name)?.last()?;
        match binding {
            ModBinding::Import(path) => self.dotted_sym(path, depth),
            ModBinding::From { module, name } => {
                let full = if module.is_empty() {
                    name.clone()
                } else {
                    format!("{module}.{name}")
                };
                if let Some(m2) = self.by_module.get(&full) {
                    return Some(Sym::Module(*m2));
                }
                match self.by_module.get(module.as_str()) {
                    Some(m2) if *m2 != m => self.global(*m2, name, depth + 1),
                    Some(_) => None,
                    None => self.dotted_sym(&full, depth),
                }
            }
            ModBinding::Def(f) => Some(Sym::Func(*f)),
            ModBinding::Class(k) => Some(Sym::Class(*k)),
            ModBinding::Assign { value, proj, c } if proj.is_empty() => {
                self.expr_sym_at(Scope { m, c: *c, f: None }, value, depth + 1)
            }
            _ => None,
        }
    }

    fn member(&self, sym: &Sym, name: &str, depth: u32) -> Option<Sym> {
        match sym {
            Sym::External(p) => Some(Sym::External(normalize(&format!("{p}.{name}")))),
            Sym::Module(m) => {
                let sub = format!("{}.{name}", self.module_name(*m));
                if let Some(m2) = self.by_module.get(&sub) {
                    return Some(Sym::Module(*m2));
                }
                self.global(*m, name, depth + 1)
            }
            Sym::Class(k) => self.method(*k, name).map(Sym::Func),
            Sym::Func(_) => None,
        }
    }

    /// What a name or dotted expression denotes in `scope` (not variables).
    pub fn expr_sym(&self, scope: Scope, e: &Expr) -> Option<Sym> {
        self.expr_sym_at(scope, e, 0)
    }

    fn expr_sym_at(&self, scope: Scope, e: &Expr, depth: u32) -> Option<Sym> {
        if depth > MAX_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Name(n) => self.name_sym(scope, n, depth),
            ExprKind::Attribute { value, attr } => {
                let base = self.expr_sym_at(scope, value, depth + 1)?;
                self.member(&base, attr, depth + 1)
            }
            _ => None,
        }
    }

    fn name_sym(&self, scope: Scope, n: &str, depth: u32) -> Option<Sym> {
        let mut f = scope.func();
        let mut guard = 0;
        while let Some(fid) = f {
            guard += 1;
            if guard > MAX_DEPTH {
                return None;
            }
            let defs = self.local_defs(fid, n);
            if !defs.is_empty() {
                // A name bound in the function: a symbol only when every
                // binding is the same import or definition.
                let mut sym = None;
                for d in defs {
                    match d {
                        LocalDef::Sym(s) if sym.as_ref().is_none_or(|x| *x == s) => sym = Some(s),
                        _ => return None,
                    }
                }
                return sym;
            }
            f = self.parent_func(fid);
        }
        if let Some(s) = self.global(scope.m, n, depth) {
            return Some(s);
        }
        if self.tables.get(scope.m as usize).is_some_and(|t| t.contains_key(n)) {
            return None;
        }
        BUILTINS.contains(&n).then(|| Sym::External(format!("builtins.{n}")))
    }

    /// The canonical dotted path of an external name (`torch.nn.functional.interpolate`).
    pub fn external(&self, scope: Scope, e: &Expr) -> Option<String> {
        match self.expr_sym(scope, e)? {
            Sym::External(p) => Some(p),
            _ => None,
        }
    }

    /// The name module `m` binds to the external module `module` (`torch`
    /// for `import torch`, `th` for `import torch as th`), if any.
    pub fn module_alias(&self, m: ModId, module: &str) -> Option<String> {
        let table = self.tables.get(m as usize)?;
        let mut names: Vec<&String> = table.keys().collect();
        names.sort();
        names
            .into_iter()
            .find(|n| matches!(self.global(m, n, 0), Some(Sym::External(p)) if p == module))
            .cloned()
    }

    /// The words whose presence in a chunk's text makes a call to one of
    /// the external `targets` possible in module `m`: each target's last
    /// component, and the names the module binds to a target itself
    /// (`from torch.nn.functional import interpolate as resize`).
    pub fn needles_for(&self, m: ModId, targets: &[&str]) -> Vec<String> {
        let mut out: Vec<String> = targets
            .iter()
            .map(|t| t.rsplit('.').next().unwrap_or(t).to_string())
            .collect();
        out.extend(self.names_bound_to(m, targets));
        out.sort();
        out.dedup();
        out
    }

    /// The module-level assignments of module `m`: each name and a value it
    /// is assigned (before any unpacking).
    pub fn module_assignments(&self, m: ModId) -> Vec<(&str, &Expr)> {
        let mut out = Vec::new();
        if let Some(table) = self.tables.get(m as usize) {
            for (name, bindings) in table {
                for b in bindings {
                    if let ModBinding::Assign { value, .. } = b {
                        out.push((name.as_str(), &**value));
                    }
                }
            }
        }
        out.sort_by_key(|(n, v)| (*n, v.span.start));
        out
    }

    /// The names module `m` binds to one of the external `targets`, sorted.
    pub fn names_bound_to(&self, m: ModId, targets: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(table) = self.tables.get(m as usize) {
            let mut names: Vec<&String> = table.keys().collect();
            names.sort();
            for n in names {
                if let Some(Sym::External(p)) = self.global(m, n, 0) {
                    if targets.contains(&p.as_str()) {
                        out.push(n.clone());
                    }
                }
            }
        }
        out
    }

    // -----------------------------------------------------------------
    // Classes

    /// A method of a class or of its bases in the training code.
    pub fn method(&self, k: ClassId, name: &str) -> Option<FuncId> {
        self.method_at(k, name, 0)
    }

    fn method_at(&self, k: ClassId, name: &str, depth: u32) -> Option<FuncId> {
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
        let mut seen = HashSet::new();
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
    fn def_scope(&self, m: ModId, c: u32, parent: Parent) -> Scope {
        match parent {
            Parent::Func(f) => Scope { m, c, f: Some(f) },
            Parent::Class(k) => match self.chunk(m, c).and_then(|a| a.classes.get(k as usize)) {
                Some(class) => self.def_scope(m, c, class.parent),
                None => Scope { m, c, f: None },
            },
            Parent::Module => Scope { m, c, f: None },
        }
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

    // -----------------------------------------------------------------
    // Local names

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
    fn bound_names(&self, f: FuncId) -> Arc<HashSet<String>> {
        if let Some(kept) = self.bound.lock().ok().and_then(|m| m.get(&f).cloned()) {
            return kept;
        }
        let mut names: HashSet<String> = HashSet::new();
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

    fn collect_bound(&self, f: FuncId, body: &[Stmt], package: &str, out: &mut HashSet<String>, depth: u32) {
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

    fn collect_local<'p>(
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
                            ModBinding::Import(p) => self.dotted_sym(&p, 0),
                            ModBinding::From { module, name } => {
                                let full = if module.is_empty() {
                                    name
                                } else {
                                    format!("{module}.{name}")
                                };
                                self.dotted_sym(&full, 0)
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

    // -----------------------------------------------------------------
    // Calls

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
                    return Callee::Func(f);
                }
            }
        }
        Callee::Unknown
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

    /// Every call of function `f` in the training code: the calling scope
    /// and the call. Instantiations count as calls of `__init__`.
    pub fn call_sites(&self, f: FuncId) -> Vec<(Scope, &Expr)> {
        let kept = self.sites.lock().ok().and_then(|m| m.get(&f).cloned());
        let found = match kept {
            Some(found) => found,
            None => {
                let found: CallSites = self.find_call_sites(f).into();
                if let Ok(mut m) = self.sites.lock() {
                    m.insert(f, Arc::clone(&found));
                }
                found
            }
        };
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

    /// The calls of `f` (scope and span, grouped by scope in walk order),
    /// looked for in the chunks that mention its name.
    fn find_call_sites(&self, f: FuncId) -> Vec<(Scope, Span)> {
        let Some(func) = self.func(f) else { return Vec::new() };
        let class = self.class_of(f);
        let needle: &str = if func.name == "__init__" {
            match class.and_then(|k| self.class(k)) {
                Some(c) => c.name.as_str(),
                None => return Vec::new(),
            }
        } else {
            func.name.as_str()
        };
        let mut out = Vec::new();
        let chunks = self.chunks_with_word(needle);
        for &(m, c) in chunks {
            for scope in self.scopes(m, c) {
                self.walk_exprs(scope, &mut |_, e| {
                    if let ExprKind::Call { func: callee_expr, .. } = &e.kind {
                        let hit = match self.callee(scope, callee_expr) {
                            Callee::Func(g) => g == f,
                            Callee::Class(k) => func.name == "__init__" && Some(k) == class,
                            _ => false,
                        };
                        if hit {
                            out.push((scope, e.span));
                        }
                    }
                });
            }
        }
        out
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
    fn chunks_with_word(&self, word: &str) -> &[(ModId, u32)] {
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

    /// How a call binds parameter `index` of `f` (whose call it is).
    pub fn bind<'p>(&'p self, f: FuncId, call: &'p Expr, index: usize) -> Bound<'p> {
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
        let shift = usize::from(implicit_self);
        if index < shift {
            return Bound::Unknown;
        }
        let mut positional = 0usize;
        for a in args {
            match a {
                Arg::Pos(e) => {
                    if positional + shift == index && param.kind == super::ast::ParamKind::Normal {
                        return Bound::Given(e);
                    }
                    positional += 1;
                }
                Arg::Kw { name, value, .. } if *name == param.name => return Bound::Given(value),
                Arg::Star(_) => return Bound::Unknown,
                Arg::StarStar(_) => return Bound::Unknown,
                _ => {}
            }
        }
        match &param.default {
            Some(d) => Bound::Default(d),
            None => Bound::Missing,
        }
    }

    // -----------------------------------------------------------------
    // Walks

    /// Visits every expression of a scope's own statements (not nested
    /// definitions) with its ancestors.
    pub fn walk_exprs<'p>(&'p self, scope: Scope, visit: &mut dyn FnMut(&[Anc<'p>], &'p Expr)) {
        let mut stack = Vec::new();
        for s in self.body(scope) {
            walk_stmt(s, &mut stack, &mut |anc, node| {
                if let Node::Expr(e) = node {
                    visit(anc, e);
                }
            });
        }
    }

    /// Visits every statement of a scope with its ancestors.
    pub fn walk_stmts<'p>(&'p self, scope: Scope, visit: &mut dyn FnMut(&[Anc<'p>], &'p Stmt)) {
        let mut stack = Vec::new();
        for s in self.body(scope) {
            walk_stmt(s, &mut stack, &mut |anc, node| {
                if let Node::Stmt(st) = node {
                    visit(anc, st);
                }
            });
        }
    }

    // -----------------------------------------------------------------
    // Where values come from

    /// The origins of `e`'s value in `scope`.
    pub fn sources<'p>(&'p self, scope: Scope, e: &'p Expr) -> Sources<'p> {
        self.sources_with(scope, e, Vec::new())
    }

    /// The origins of `e` with projections to apply (`e.attr`, `e[k]`).
    pub fn sources_with<'p>(&'p self, scope: Scope, e: &'p Expr, proj: Vec<Proj>) -> Sources<'p> {
        let mut out = Sources::default();
        let mut budget = Budget::default();
        let mut seen = HashSet::new();
        self.go(scope, e, proj, &mut out, &mut budget, &mut seen, 0);
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn go<'p>(
        &'p self,
        scope: Scope,
        e: &'p Expr,
        proj: Vec<Proj>,
        out: &mut Sources<'p>,
        budget: &mut Budget,
        seen: &mut HashSet<(usize, usize)>,
        depth: u32,
    ) {
        if depth > MAX_DEPTH || !budget.take() {
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
                // Module level.
                match self.tables.get(scope.m as usize).and_then(|t| t.get(n.as_str())) {
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
                                let s = Scope {
                                    m: scope.m,
                                    c: *c,
                                    f: None,
                                };
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
            ExprKind::Call { func, .. } => match self.callee(scope, func) {
                Callee::Func(f) => {
                    let rets = self.returns(f);
                    if rets.is_empty() {
                        out.unknown = true;
                    }
                    for r in rets {
                        self.go(f.scope(), r, proj.clone(), out, budget, seen, depth + 1);
                    }
                }
                Callee::Class(k) => match proj.split_first() {
                    Some((Proj::Attr(a), rest)) => {
                        let found = self.attr_sources(k, a, rest, out, budget, seen, depth + 1);
                        if !found {
                            term(out, proj.clone());
                        }
                    }
                    _ => term(out, proj),
                },
                _ => term(out, proj),
            },
            ExprKind::IfExp { body, orelse, .. } => {
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
                Some((Proj::Key(Key::Str(k)), rest)) => {
                    let mut found = false;
                    for item in items {
                        match item {
                            DictItem::Pair { key, value, .. } => {
                                if matches!(&key.kind, ExprKind::Str(s) if s == k) {
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

    /// The function whose local `name` is (the innermost enclosing one
    /// that binds it).
    fn binding_func(&self, scope: Scope, name: &str) -> Option<FuncId> {
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

    #[allow(clippy::too_many_arguments)]
    fn param_sources<'p>(
        &'p self,
        f: FuncId,
        index: usize,
        proj: &[Proj],
        out: &mut Sources<'p>,
        budget: &mut Budget,
        seen: &mut HashSet<(usize, usize)>,
        depth: u32,
    ) {
        let sites = self.call_sites(f);
        if sites.is_empty() {
            out.unknown = true;
            return;
        }
        let Some(func) = self.func(f) else {
            out.unknown = true;
            return;
        };
        let def_scope = self.def_scope(f.m, f.c, func.parent);
        for (scope, call) in sites {
            match self.bind(f, call, index) {
                Bound::Given(e) => self.go(scope, e, proj.to_vec(), out, budget, seen, depth),
                Bound::Default(d) => self.go(def_scope, d, proj.to_vec(), out, budget, seen, depth),
                Bound::Missing | Bound::Unknown => out.unknown = true,
            }
        }
    }

    /// The values assigned to `self.<attr>` in a class (its methods and
    /// its project bases), and class-level `attr = …`. Returns whether any
    /// assignment was found.
    #[allow(clippy::too_many_arguments)]
    fn attr_sources<'p>(
        &'p self,
        k: ClassId,
        attr: &str,
        proj: &[Proj],
        out: &mut Sources<'p>,
        budget: &mut Budget,
        seen: &mut HashSet<(usize, usize)>,
        depth: u32,
    ) -> bool {
        let assigns = self.self_assignments(k, attr);
        if assigns.is_empty() {
            out.unknown = true;
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

    // -----------------------------------------------------------------
    // Where values go

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
        let mut seen_places: HashSet<Place> = HashSet::new();
        let mut queue: Vec<(Scope, Vec<Anc<'p>>, &'p Expr, u32)> = vec![(scope, anc.to_vec(), start, 0)];
        let mut seen_exprs: HashSet<usize> = HashSet::new();
        let mut complete = true;
        while let Some((scope, anc, e, depth)) = queue.pop() {
            if !budget.take() || depth > MAX_DEPTH {
                complete = false;
                break;
            }
            if !seen_exprs.insert(e as *const Expr as usize) {
                continue;
            }
            let mut places = Vec::new();
            self.classify(scope, &anc, e, through, &mut places, &mut queue, depth, visit);
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
    fn classify<'p>(
        &'p self,
        scope: Scope,
        anc: &[Anc<'p>],
        e: &'p Expr,
        through: &dyn Fn(&Callee, &ArgPos<'_>) -> bool,
        places: &mut Vec<Place>,
        queue: &mut Vec<(Scope, Vec<Anc<'p>>, &'p Expr, u32)>,
        depth: u32,
        visit: &mut dyn FnMut(Flow<'p>),
    ) {
        let Some((parent, up)) = anc.split_last() else { return };
        match parent {
            Anc::Expr(p) => match &p.kind {
                ExprKind::Call { func, args, .. } if std::ptr::eq(&**func, e) => {
                    // The value is called: nothing to follow.
                    let _ = args;
                }
                ExprKind::Call { func, args, .. } => {
                    let callee = self.callee(scope, func);
                    let pos = arg_pos(args, e);
                    if through(&callee, &pos) {
                        queue.push((scope, up.to_vec(), p, depth + 1));
                        return;
                    }
                    if let (Callee::Func(f), ArgPos::Pos(_) | ArgPos::Kw(_)) = (&callee, pos) {
                        if let Some(param) = self.param_for(*f, func, &pos) {
                            places.push(Place::Local(*f, param));
                            return;
                        }
                    }
                    if let (Callee::Class(k), ArgPos::Pos(_) | ArgPos::Kw(_)) = (&callee, pos) {
                        if let Some(init) = self.method(*k, "__init__") {
                            if let Some(param) = self.param_for(init, func, &pos) {
                                places.push(Place::Local(init, param));
                            }
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
                ExprKind::Comp { gens, .. } if gens.iter().any(|g| std::ptr::eq(&g.iter, e)) => {
                    visit(Flow::Iterated {
                        scope,
                        stmt: None,
                        anc: anc.to_vec(),
                    });
                }
                ExprKind::List(items) | ExprKind::Tuple(items) if items.iter().any(|i| std::ptr::eq(i, e)) => {
                    // An element of a container: followed when the
                    // container is iterated by a `for` whose target is a
                    // name; a container passed to a call carries it along.
                    match up.last() {
                        Some(Anc::Expr(gp)) if matches!(gp.kind, ExprKind::Call { .. }) => {
                            queue.push((scope, up.to_vec(), p, depth + 1));
                        }
                        _ => self.container_flow(scope, up, p, places, visit),
                    }
                }
                ExprKind::IfExp { body, orelse, .. } if std::ptr::eq(&**body, e) || std::ptr::eq(&**orelse, e) => {
                    queue.push((scope, up.to_vec(), p, depth + 1));
                }
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
                        let sites = self.call_sites(f);
                        if sites.is_empty() {
                            visit(Flow::Returned { scope, func: Some(f) });
                        }
                        for (s2, call) in sites {
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

    /// An element of a list/tuple literal `container`: when the container
    /// is assigned to a name that a `for` with a name target iterates, the
    /// target is where the element goes.
    fn container_flow<'p>(
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
                                    places.push(Place::Local(f, x.clone()));
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

    fn target_places<'p>(
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
                Some(f) => places.push(Place::Local(f, n.clone())),
                None => places.push(Place::Global(scope.m, n.clone())),
            },
            ExprKind::Attribute { value, attr } => match self.self_class(scope, value) {
                Some(k) => places.push(Place::SelfAttr(k, attr.clone())),
                None => visit(Flow::Escapes { scope, at: t }),
            },
            _ => visit(Flow::Escapes { scope, at: t }),
        }
    }

    /// The parameter of `f` an argument at `pos` binds.
    fn param_for(&self, f: FuncId, callee: &Expr, pos: &ArgPos<'_>) -> Option<String> {
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
                (p.kind == super::ast::ParamKind::Normal).then(|| p.name.clone())
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
    fn reads<'p>(&'p self, place: &Place) -> Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> {
        let mut out = Vec::new();
        match place {
            Place::Local(f, name) => {
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
                        if matches!(&e.kind, ExprKind::Name(n) if n == name) && !is_target(anc, e) {
                            out.push((scope, anc.to_vec(), e));
                        }
                    });
                }
            }
            Place::SelfAttr(k, attr) => {
                let mut classes = vec![*k];
                // Subclasses in the same chunk or elsewhere are not
                // searched; methods of project bases are.
                classes.extend(self.bases(*k));
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
enum Place {
    Local(FuncId, String),
    SelfAttr(ClassId, String),
    Global(ModId, String),
}

/// The argument position of `e` among `args`.
fn arg_pos<'p>(args: &'p [Arg], e: &Expr) -> ArgPos<'p> {
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

fn concat(mut a: Vec<Proj>, b: &[Proj]) -> Vec<Proj> {
    a.extend(b.iter().cloned());
    a
}

/// A literal subscript key.
fn literal_key(e: &Expr) -> Option<Key> {
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
fn bind_target(t: &Expr, name: &str, path: &mut Vec<Proj>, bind: &mut dyn FnMut(Vec<Proj>)) {
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
fn bind_self_target(t: &Expr, me: &str, attr: &str, path: &mut Vec<Proj>, bind: &mut dyn FnMut(Vec<Proj>)) {
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

/// Module-level bindings of statements (imports, assignments), recursing
/// into top-level blocks but not definitions.
fn collect_bindings(stmts: &[Stmt], package: &str, c: u32, out: &mut Vec<(String, ModBinding)>, depth: u32) {
    if depth > 32 {
        return;
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Import(names) => {
                for a in names {
                    match &a.alias {
                        Some(alias) => out.push((alias.clone(), ModBinding::Import(a.name.clone()))),
                        None => {
                            let first = a.name.split('.').next().unwrap_or("").to_string();
                            out.push((first.clone(), ModBinding::Import(first)));
                        }
                    }
                }
            }
            StmtKind::ImportFrom {
                module, level, names, ..
            } => {
                let absolute = if *level == 0 {
                    module.clone()
                } else {
                    let mut base: Vec<&str> = if package.is_empty() {
                        Vec::new()
                    } else {
                        package.split('.').collect()
                    };
                    for _ in 1..*level {
                        base.pop();
                    }
                    let mut m = base.join(".");
                    if !module.is_empty() {
                        m = if m.is_empty() {
                            module.clone()
                        } else {
                            format!("{m}.{module}")
                        };
                    }
                    m
                };
                for a in names {
                    let bound = a.alias.clone().unwrap_or_else(|| a.name.clone());
                    out.push((
                        bound,
                        ModBinding::From {
                            module: absolute.clone(),
                            name: a.name.clone(),
                        },
                    ));
                }
            }
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    collect_targets(t, &mut Vec::new(), &mut |name, proj| {
                        out.push((
                            name,
                            ModBinding::Assign {
                                value: Box::new(value.clone()),
                                proj,
                                c,
                            },
                        ));
                    });
                }
            }
            StmtKind::AnnAssign {
                target,
                value: Some(value),
            } => collect_targets(target, &mut Vec::new(), &mut |name, proj| {
                out.push((
                    name,
                    ModBinding::Assign {
                        value: Box::new(value.clone()),
                        proj,
                        c,
                    },
                ));
            }),
            StmtKind::AugAssign { target, .. } | StmtKind::For { target, .. } => {
                collect_targets(target, &mut Vec::new(), &mut |name, _| {
                    out.push((name, ModBinding::Other))
                });
                if let StmtKind::For { body, orelse, .. } = &s.kind {
                    collect_bindings(body, package, c, out, depth + 1);
                    collect_bindings(orelse, package, c, out, depth + 1);
                }
            }
            StmtKind::If { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                collect_bindings(body, package, c, out, depth + 1);
                collect_bindings(orelse, package, c, out, depth + 1);
            }
            StmtKind::With { body, items } => {
                for i in items {
                    if let Some(v) = &i.var {
                        collect_targets(v, &mut Vec::new(), &mut |name, _| out.push((name, ModBinding::Other)));
                    }
                }
                collect_bindings(body, package, c, out, depth + 1);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                collect_bindings(body, package, c, out, depth + 1);
                for h in handlers {
                    collect_bindings(&h.body, package, c, out, depth + 1);
                }
                collect_bindings(orelse, package, c, out, depth + 1);
                collect_bindings(finalbody, package, c, out, depth + 1);
            }
            _ => {}
        }
    }
}

fn collect_targets(t: &Expr, path: &mut Vec<Proj>, bind: &mut dyn FnMut(String, Vec<Proj>)) {
    match &t.kind {
        ExprKind::Name(n) => bind(n.clone(), path.clone()),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Proj::Key(Key::Int(i as i64)));
                collect_targets(item, path, bind);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Canonical names for the aliases modules export (`torch.utils.data.
/// distributed.DistributedSampler` is `torch.utils.data.DistributedSampler`).
pub fn normalize(path: &str) -> String {
    const PREFIXES: &[(&str, &str)] = &[
        ("torch.utils.data.dataloader.", "torch.utils.data."),
        ("torch.utils.data.distributed.", "torch.utils.data."),
        ("torch.utils.data.sampler.", "torch.utils.data."),
        ("torch.utils.data.dataset.", "torch.utils.data."),
        ("torch.nn.parallel.distributed.", "torch.nn.parallel."),
        ("torch.nn.modules.upsampling.", "torch.nn."),
        ("torch.nn.modules.loss.", "torch.nn."),
        ("torch.nn.modules.container.", "torch.nn."),
        ("torch.nn.modules.module.", "torch.nn."),
        ("torch.nn.modules.", "torch.nn."),
        (
            "torch.distributed.fsdp.fully_sharded_data_parallel.",
            "torch.distributed.fsdp.",
        ),
        ("torch.distributed.distributed_c10d.", "torch.distributed."),
        ("torch.random.manual_seed", "torch.manual_seed"),
        ("determined.pytorch._data.", "determined.pytorch."),
        ("determined.pytorch._pytorch_trial.", "determined.pytorch."),
        (
            "determined.pytorch.deepspeed._deepspeed_trial.",
            "determined.pytorch.deepspeed.",
        ),
        ("determined.core._context.", "determined.core."),
        ("pytorch_lightning.", "lightning.pytorch."),
        ("lightning.pytorch.", "lightning."),
        ("torch.backends.cudnn.", "torch.backends.cudnn."),
        ("horovod.torch.", "horovod."),
        ("accelerate.accelerator.", "accelerate."),
        ("deepspeed.comm.", "deepspeed.comm."),
    ];
    for (from, to) in PREFIXES {
        if let Some(rest) = path.strip_prefix(from) {
            return normalize(&format!("{to}{rest}"));
        }
    }
    match path {
        "pytorch_lightning" => "lightning".to_string(),
        "lightning.pytorch" => "lightning".to_string(),
        _ => path.to_string(),
    }
}

/// A node during a walk.
pub enum Node<'p> {
    Stmt(&'p Stmt),
    Expr(&'p Expr),
}

/// Pre-order walk of a statement: nested statements and expressions, not
/// into definitions (their bodies are other scopes), with ancestors.
pub fn walk_stmt<'p>(s: &'p Stmt, stack: &mut Vec<Anc<'p>>, visit: &mut dyn FnMut(&[Anc<'p>], Node<'p>)) {
    if stack.len() > 512 {
        return;
    }
    visit(stack, Node::Stmt(s));
    stack.push(Anc::Stmt(s));
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Raise(Some(e)) => walk_expr(e, stack, visit),
        StmtKind::Assign { targets, value } => {
            for t in targets {
                walk_expr(t, stack, visit);
            }
            walk_expr(value, stack, visit);
        }
        StmtKind::AugAssign { target, value, .. } => {
            walk_expr(target, stack, visit);
            walk_expr(value, stack, visit);
        }
        StmtKind::AnnAssign { target, value } => {
            walk_expr(target, stack, visit);
            if let Some(v) = value {
                walk_expr(v, stack, visit);
            }
        }
        StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
            walk_expr(test, stack, visit);
            for b in body.iter().chain(orelse) {
                walk_stmt(b, stack, visit);
            }
        }
        StmtKind::For {
            target,
            iter,
            body,
            orelse,
        } => {
            walk_expr(target, stack, visit);
            walk_expr(iter, stack, visit);
            for b in body.iter().chain(orelse) {
                walk_stmt(b, stack, visit);
            }
        }
        StmtKind::With { items, body } => {
            for i in items {
                walk_expr(&i.ctx, stack, visit);
                if let Some(v) = &i.var {
                    walk_expr(v, stack, visit);
                }
            }
            for b in body {
                walk_stmt(b, stack, visit);
            }
        }
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            for b in body {
                walk_stmt(b, stack, visit);
            }
            for h in handlers {
                stack.push(Anc::Handler(h));
                if let Some(t) = &h.types {
                    walk_expr(t, stack, visit);
                }
                for b in &h.body {
                    walk_stmt(b, stack, visit);
                }
                stack.pop();
            }
            for b in orelse.iter().chain(finalbody) {
                walk_stmt(b, stack, visit);
            }
        }
        _ => {}
    }
    stack.pop();
}

/// Pre-order walk of an expression with ancestors (lambdas included).
pub fn walk_expr<'p>(e: &'p Expr, stack: &mut Vec<Anc<'p>>, visit: &mut dyn FnMut(&[Anc<'p>], Node<'p>)) {
    if stack.len() > 512 {
        return;
    }
    visit(stack, Node::Expr(e));
    stack.push(Anc::Expr(e));
    match &e.kind {
        ExprKind::Attribute { value, .. } => walk_expr(value, stack, visit),
        ExprKind::Call { func, args, .. } => {
            walk_expr(func, stack, visit);
            for a in args {
                match a {
                    Arg::Pos(x) | Arg::Star(x) | Arg::StarStar(x) => walk_expr(x, stack, visit),
                    Arg::Kw { value, .. } => walk_expr(value, stack, visit),
                }
            }
        }
        ExprKind::Subscript { value, index } => {
            walk_expr(value, stack, visit);
            walk_expr(index, stack, visit);
        }
        ExprKind::Slice { lower, upper, step } => {
            for x in [lower, upper, step].into_iter().flatten() {
                walk_expr(x, stack, visit);
            }
        }
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
            for i in items {
                walk_expr(i, stack, visit);
            }
        }
        ExprKind::Dict(items) => {
            for i in items {
                match i {
                    DictItem::Pair { key, value, .. } => {
                        walk_expr(key, stack, visit);
                        walk_expr(value, stack, visit);
                    }
                    DictItem::Splat(x) => walk_expr(x, stack, visit),
                }
            }
        }
        ExprKind::Comp { elt, value, gens, .. } => {
            for g in gens {
                walk_expr(&g.iter, stack, visit);
                stack.push(Anc::Comp(g));
                walk_expr(&g.target, stack, visit);
                for c in &g.ifs {
                    walk_expr(c, stack, visit);
                }
                stack.pop();
            }
            // The element sees the generators' targets.
            let n = gens.len();
            for g in gens {
                stack.push(Anc::Comp(g));
            }
            walk_expr(elt, stack, visit);
            if let Some(v) = value {
                walk_expr(v, stack, visit);
            }
            for _ in 0..n {
                stack.pop();
            }
        }
        ExprKind::BinOp { left, right, .. } | ExprKind::BoolOp { left, right, .. } => {
            walk_expr(left, stack, visit);
            walk_expr(right, stack, visit);
        }
        ExprKind::Unary { operand: x, .. }
        | ExprKind::Not(x)
        | ExprKind::Lambda(x)
        | ExprKind::Starred(x)
        | ExprKind::Await(x)
        | ExprKind::Named { value: x, .. } => walk_expr(x, stack, visit),
        ExprKind::Yield(Some(x)) => walk_expr(x, stack, visit),
        ExprKind::Compare { left, rest } => {
            walk_expr(left, stack, visit);
            for (_, r) in rest {
                walk_expr(r, stack, visit);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            walk_expr(body, stack, visit);
            walk_expr(test, stack, visit);
            walk_expr(orelse, stack, visit);
        }
        _ => {}
    }
    stack.pop();
}

/// The identifiers of `text`: runs of ASCII letters, digits and `_` (and
/// of non-ASCII bytes, so a Unicode identifier stays whole) not starting
/// with a digit; comments and strings included.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
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

/// The calls of one function: each call's scope and span.
type CallSites = Arc<[(Scope, Span)]>;

/// Which chunks each identifier occurs in.
type WordIndex = HashMap<Box<str>, Vec<(ModId, u32)>>;
