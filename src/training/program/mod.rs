//! The training code as one program: modules and what their names are
//! bound to, functions and classes, who calls whom, and where a value comes
//! from ([`Program::sources`], backwards through names, parameters,
//! attributes of `self`, returns and containers) or goes
//! ([`Program::flows`], forwards through the same). Chunks are parsed when
//! a question reaches them, and every question has a step budget: when it
//! runs out, or the value passes through code stagec cannot see, the answer
//! says "unknown" and the rules stay silent.

// foldhash: these tables are hashed thousands of times a check (SipHash was
// a twentieth of a whole check's instructions); its seed is still per process.
use foldhash::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use super::ast::{Arg, ChunkAst, Class, CompFor, DictItem, Expr, ExprKind, Function, Handler, Parent, Stmt, StmtKind};
use super::scan::ChunkKind;
use super::{FileRole, ParsedFile, TrainingFile};
use crate::source::{FileId, Span};

mod calls;
mod classes;
mod flows;
mod locals;
mod names;
mod sources;
#[cfg(test)]
mod tests;
mod walk;

pub use flows::is_target;
pub use names::normalize;
pub use sources::LIGHTNING_CLI;
pub use walk::{blocks_of, if_arm, is_super_call, walk_expr, walk_stmt, Node};

use flows::{bind_self_target, bind_target, concat, literal_key};
use names::collect_bindings;

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
/// element of an unpacked tuple, any element of an iterated container, or
/// any value of a mapping (`for name, v in m.items()`, `for v in
/// m.values()`).
#[derive(Clone, Debug, PartialEq)]
pub enum Proj {
    Attr(String),
    Key(Key),
    Iter,
    Value,
    /// The mapping of a config file that names the class `class` (its
    /// dotted path) for code to build by name (Hydra's `_target_:`,
    /// LightningCLI's `class_path:`): the keyword arguments of its
    /// `__init__`, `init`, read by the keys that follow.
    Config {
        class: String,
        init: FuncId,
    },
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
    /// Passed, if at all, by the one `**mapping` of the call
    /// (`build_dataloader(ds, **cfg.dataloader.train)`): the mapping's
    /// entry of the parameter's name, else the default (if any).
    Splat {
        mapping: &'p Expr,
        default: Option<&'p Expr>,
    },
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
    /// Put in a list or tuple that is handed on as a whole (`Trainer(net,
    /// [loader])`): the flows after this one follow the container, so a
    /// name it is stored in holds the container, not the value.
    Contained { scope: Scope, container: &'p Expr },
    /// Returned from a function nobody in the training code calls.
    Returned { scope: Scope, func: Option<FuncId> },
    /// Stored somewhere the flow does not follow.
    Escapes { scope: Scope, at: &'p Expr },
    /// Passed to a parameter of the training code's function `func` at
    /// `call` (in `scope`), which the flow then follows into.
    Entered { scope: Scope, call: &'p Expr, func: FuncId },
    /// Called itself (`model(x)`, the value being a module or a function).
    Called {
        scope: Scope,
        call: &'p Expr,
        anc: Vec<Anc<'p>>,
    },
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
/// Most subclasses whose methods a `self.<attr>` is followed into.
const SUBCLASSES_READ: usize = 8;

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
    "eval",
];

struct FileEntry {
    parsed: Arc<ParsedFile>,
    file: FileId,
    path: String,
    module: String,
    package: bool,
    role: FileRole,
    programs: u64,
    scripts: u64,
}

/// Methods of a `torch.nn.Module` that return the module itself
/// (`model = model.cuda()`).
pub const SAME_MODULE: &[&str] = &[
    "to",
    "cuda",
    "cpu",
    "train",
    "eval",
    "float",
    "half",
    "bfloat16",
    "requires_grad_",
];

/// The paths of `torch.nn.Module`.
pub const TORCH_MODULE: &[&str] = &["torch.nn.Module", "torch.nn.modules.module.Module"];

/// Lightning's `LightningModule`, from the package or its defining module
/// (`pytorch_lightning.` and `lightning.pytorch.` normalise to `lightning.`).
pub const LIGHTNING_MODULE: &[&str] = &[
    "lightning.LightningModule",
    "lightning.core.LightningModule",
    "lightning.core.module.LightningModule",
];

/// Wrappers whose call runs the wrapped module's `forward` (their first
/// argument), or that hand back the module itself.
const MODULE_WRAPPERS: &[&str] = &[
    "torch.nn.parallel.DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel",
    "torch.nn.DataParallel",
    "torch.nn.parallel.DataParallel",
    "torch.distributed.fsdp.FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
    "torch.compile",
    "torch.nn.SyncBatchNorm.convert_sync_batchnorm",
    "apex.parallel.DistributedDataParallel",
];

/// The program: every training file, its top-level names, and the
/// questions rules ask.
pub struct Program {
    /// Whether the files include the experiment's program (bit 0 of
    /// [`Program::programs`]).
    experiment: bool,
    files: Vec<FileEntry>,
    by_module: HashMap<String, ModId>,
    /// The module names two or more files answer to (two projects' scripts
    /// each beside its own `utils/`), with those files.
    shared: HashMap<String, Vec<ModId>>,
    tables: Vec<HashMap<String, Vec<ModBinding>>>,
    /// The chunks each identifier occurs in (built on first use): where a
    /// function's call sites can be.
    words: OnceLock<WordIndex>,
    /// The call sites found for each function so far (scope and call
    /// span): following values through parameters asks for the same
    /// functions again and again.
    sites: Mutex<HashMap<FuncId, Arc<CallSites>>>,
    /// The calls through each module-level table of functions (module,
    /// name): read once per table, not once per entry.
    tables_called: Mutex<HashMap<(ModId, String), Arc<TableCalls>>>,
    /// Answers about one arm of one test, by the test's address and the arm
    /// (see [`Program::arm_memo`]).
    arms: Mutex<HashMap<(usize, bool), bool>>,
    /// The names each function binds (a superset), found once: most names
    /// a function uses are not its own, and need no walk of its body.
    bound: Mutex<HashMap<FuncId, Arc<HashSet<String>>>>,
    /// Each module's top-level names that stand for an external object,
    /// with its canonical path, sorted by name (found on first use: several
    /// rules ask which names a module binds to their targets).
    externals: Vec<OnceLock<Vec<(String, String)>>>,
    /// The names modules import an object under where they rename it
    /// (`from train import main as run`: `main` → `run`), found once.
    renamed: OnceLock<HashMap<String, Vec<String>>>,
    /// Yes/no facts about the whole program that checks ask at each call
    /// they look at (whether its MPI collectives are the job's, whether a
    /// program wraps a model), keyed by the question and a program mask.
    facts: Mutex<HashMap<(&'static str, u64), bool>>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program").field("modules", &self.files.len()).finish()
    }
}

/// Which assignments a question does not follow (given their function's
/// scope and the value assigned).
pub type Skip<'s> = &'s dyn Fn(Scope, &Expr) -> bool;

/// A question's budget of steps, and the bindings it leaves out.
pub struct Budget<'s> {
    steps: u32,
    /// Assignments not followed.
    skip: Option<Skip<'s>>,
}

impl Default for Budget<'_> {
    fn default() -> Self {
        Budget {
            steps: BUDGET,
            skip: None,
        }
    }
}

impl Budget<'_> {
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
                path: f.path.clone(),
                module: f.module.clone(),
                package: f.package,
                role: f.role,
                programs: f.programs,
                scripts: f.scripts,
            })
            .collect();
        let mut by_module = HashMap::default();
        let mut shared: HashMap<String, Vec<ModId>> = HashMap::default();
        for (i, f) in entries.iter().enumerate() {
            shared.entry(f.module.clone()).or_default().push(i as ModId);
            by_module.entry(f.module.clone()).or_insert(i as ModId);
            // `pkg.__main__` also answers to nothing else; a script is also
            // known by its stem (done by discovery).
        }
        // Other names imports give a file, after every file's own name.
        for (i, f) in files.iter().enumerate() {
            for alias in &f.aliases {
                by_module.entry(alias.clone()).or_insert(i as ModId);
            }
        }
        shared.retain(|name, ms| ms.len() > 1 && !name.is_empty());
        let experiment = entries.iter().any(|f| f.programs & 1 != 0);
        let mut program = Program {
            experiment,
            files: entries,
            by_module,
            shared,
            tables: Vec::new(),
            words: OnceLock::new(),
            sites: Mutex::new(HashMap::default()),
            tables_called: Mutex::new(HashMap::default()),
            arms: Mutex::new(HashMap::default()),
            bound: Mutex::new(HashMap::default()),
            externals: Vec::new(),
            renamed: OnceLock::new(),
            facts: Mutex::new(HashMap::default()),
        };
        program.externals = program.files.iter().map(|_| OnceLock::new()).collect();
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

    /// The programs module `m` starts (see
    /// [`crate::training::TrainingInput::scripts`]): where its `if __name__
    /// == "__main__":` block runs.
    pub fn scripts(&self, m: ModId) -> u64 {
        self.files.get(m as usize).map_or(0, |f| f.scripts)
    }

    /// Whether module `x` may run in one of the programs `bits` (a module
    /// of no known program, or `bits` empty, may run in any).
    pub fn in_programs(&self, bits: u64, x: ModId) -> bool {
        let own = self.programs(x);
        bits == 0 || own == 0 || own & bits != 0
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
    /// The answer to `question` (for the programs in `mask`), worked out by
    /// `answer` the first time it is asked.
    pub fn fact(&self, question: &'static str, mask: u64, answer: impl FnOnce() -> bool) -> bool {
        if let Some(known) = self.facts.lock().ok().and_then(|m| m.get(&(question, mask)).copied()) {
            return known;
        }
        let found = answer();
        if let Ok(mut m) = self.facts.lock() {
            m.insert((question, mask), found);
        }
        found
    }

    /// Whether `test` holds for some scope of a chunk that mentions one of
    /// `needles`, in the code modules `which` accepts.
    pub fn any_scope(
        &self,
        needles: &[&str],
        which: &dyn Fn(ModId) -> bool,
        test: &mut dyn FnMut(Scope) -> bool,
    ) -> bool {
        for m in self.code_modules().filter(|m| which(*m)) {
            let chunks: Vec<u32> = self.chunks_mentioning(m, needles).collect();
            for c in chunks {
                if self.scopes(m, c).into_iter().any(&mut *test) {
                    return true;
                }
            }
        }
        false
    }

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
    pub fn parent_func(&self, f: FuncId) -> Option<FuncId> {
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
}

/// The calls of one function: each call's scope and span, and whether the
/// function is also handed somewhere its calls cannot be followed
/// (`Process(target=f)`, a registry dict, `partial(f, …)`).
#[derive(Default)]
struct CallSites {
    sites: Vec<(Scope, Span)>,
    escapes: bool,
}

impl Program {
    /// `answer`'s value for the arm `body` of `test`, computed once per
    /// program: the tests stay where they are while the program lives.
    pub fn arm_memo(&self, test: &Expr, body: bool, answer: impl FnOnce() -> bool) -> bool {
        let key = (test as *const Expr as usize, body);
        if let Some(v) = self.arms.lock().ok().and_then(|m| m.get(&key).copied()) {
            return v;
        }
        let v = answer();
        if let Ok(mut m) = self.arms.lock() {
            m.insert(key, v);
        }
        v
    }
}

/// The calls made through a module-level table of functions
/// (`TABLE[k1][k2](…)`): each call with the keys it is made through
/// (`None` where a key is not written out); `None` where the program
/// uses the table otherwise than by calling, storing or testing it.
#[derive(Default)]
struct TableCalls {
    calls: Option<Vec<TableCall>>,
}

/// One call through a table: its scope, span, and the keys it names.
type TableCall = (Scope, Span, Vec<Option<String>>);

/// Which chunks each identifier occurs in.
type WordIndex = HashMap<Box<str>, Vec<(ModId, u32)>>;
