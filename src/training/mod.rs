//! The experiment's training code, read statically: the file `entrypoint`
//! runs and the context's modules it imports (never executed), plus Python
//! files named on the command line.
//!
//! Phases, each plain data:
//! * [`discover`] (when a project is discovered): the entry
//!   file and its imports as [`TrainingSources`], found the way Python finds
//!   them inside the context (a cheap scan of import lines, no parsing);
//! * [`ParsedFile`] (the Python front end, [`crate::python`]): a file's
//!   top-level chunks, each an owned [`ast`] made only when a check asks for
//!   it, from the one parse of the file that the stage declarations read
//!   too; parsed files are shared (`Arc`) so the language server keeps them
//!   for unchanged files ([`Cache`]);
//! * [`program::Program`] (built on first use by a rule): names, scopes,
//!   calls, where values come from and go, with bounded work per question;
//! * [`runtime`]: which processes run the code (launcher, slots, spawns),
//!   under which runtime (Determined trial, Core API, torch.distributed,
//!   Accelerate, Lightning, …), and what every rank shares.
//!
//! The `T…` rules (`src/rules/`) read these facts and report.

use std::sync::{Arc, OnceLock};

use crate::source::FileId;
use crate::source::Input;

pub mod discover;
pub mod entry;
pub mod program;
pub mod run_files;
pub mod runtime;
pub mod syspath;
pub mod values;

pub use crate::python::{ast, scan, ParsedFile};

/// Most files the training code is read from; imports beyond it are not
/// followed.
pub const MAX_FILES: usize = 512;
/// Most bytes of training code read in all (a run reads each config's):
/// what does not fit is left out and reported (Y005), with the files
/// discovery would have read after it.
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// Largest training file read: a larger one is left out and reported
/// (Y005). Scanning and parsing Python costs far more than its bytes (an
/// 8 MB module took seconds and a gigabyte).
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// A training file discovery left out for a budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// The name it is reported under.
    pub name: String,
    /// Its size.
    pub bytes: usize,
    /// The budget it does not fit: [`MAX_FILE_BYTES`] or [`MAX_BYTES`].
    pub max: usize,
}

/// What the entrypoint names, as discovery found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntrySpec {
    /// The config has no readable `entrypoint`.
    Absent,
    /// The entrypoint does not run Python code stagec can read.
    NotPython(entry::NotPython),
    /// The script or module is not in the context (what was looked for).
    Missing(entry::Launch, String),
    /// The entry file: an index into [`TrainingSources::files`].
    Found(entry::Launch, usize),
}

/// Why a file is read as training code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileRole {
    /// The file the entrypoint runs (or whose class it names).
    Entry,
    /// Imported, directly or not, by the entry file or a named file.
    Imported,
    /// Named on the command line.
    Named,
    /// A model source outside the import graph, read only for its stage
    /// code (T112).
    Model,
}

/// One file of the training code, as read from disk or the editor.
#[derive(Clone, Debug)]
pub struct TrainingInput {
    pub input: Input,
    /// Its dotted module name (`seg.trial`, `trainer.__main__`, `train`).
    pub module: String,
    /// Other names the code's imports give the same file: a file a link
    /// makes a module of another folder (`tdnn_lstm_ctc/asr_datamodule.py`,
    /// in a package there, is `asr_datamodule` to `zipformer/train.py`
    /// through `zipformer/asr_datamodule.py`). A name another file holds as
    /// its own stays that file's.
    pub aliases: Vec<String>,
    pub role: FileRole,
    /// A parse kept from an earlier compilation of the same text (the
    /// language server's [`Cache`]); used only when its text matches.
    pub parsed: Option<Arc<ParsedFile>>,
    /// The file as discovery scanned it for imports (nothing parsed yet),
    /// so the compilation does not scan it again; used only when its text
    /// matches.
    pub scanned: Option<Arc<ParsedFile>>,
    /// The programs the file runs in, one bit each: bit 0 the experiment's
    /// (the files its entrypoint imports), the others one per file named on
    /// the command line that runs as a script of its own (neither the
    /// experiment nor another named file imports it). A file outside the
    /// experiment's program is analysed as code on its own.
    pub programs: u64,
    /// The programs the file starts (a subset of `programs`): the
    /// experiment's entry, or the named file that is a script of its own.
    /// Its `if __name__ == "__main__":` block runs there, and only there.
    pub scripts: u64,
}

/// The training code of an experiment, as discovery found it.
#[derive(Clone, Debug)]
pub struct TrainingSources {
    pub entry: EntrySpec,
    pub files: Vec<TrainingInput>,
    /// Whether the files were checked without an experiment config.
    pub standalone: bool,
    /// The config's parse discovery made to read the entrypoint, for the
    /// compilation to take.
    pub config: Option<Arc<discover::KeptParse>>,
    /// Files not read for a budget (reported as Y005).
    pub left_out: Vec<LeftOut>,
    /// The newest PyTorch release the repository's requirements allow (see
    /// [`runtime::ConfigFacts::torch_pin`]), found by whoever read them.
    pub torch_pin: Option<(u32, u32)>,
    /// The context's JSON and YAML files the code may load at run time
    /// (names relative to the context), read where the code loads any.
    pub run_files: Vec<Input>,
}

/// One training file of a compilation.
#[derive(Clone, Debug)]
pub struct TrainingFile {
    pub file: FileId,
    /// Its path in the context (`/`-separated): where two files answer to
    /// one module name (two projects' `utils/data_utils.py`), an import
    /// takes the one nearest the importer.
    pub path: String,
    pub module: String,
    /// See [`TrainingInput::aliases`].
    pub aliases: Vec<String>,
    /// Whether the file is a package's `__init__.py`: its relative imports
    /// start from the package it names, not from that package's parent.
    pub package: bool,
    pub role: FileRole,
    pub parsed: Arc<ParsedFile>,
    /// Whether this compilation parsed the file (not reused from a cache).
    pub fresh: bool,
    /// See [`TrainingInput::programs`].
    pub programs: u64,
    /// See [`TrainingInput::scripts`].
    pub scripts: u64,
}

/// The training code of a compilation: plain facts for the `T…` rules.
#[derive(Debug)]
pub struct Training {
    pub entry: EntrySpec,
    pub files: Vec<TrainingFile>,
    /// What the experiment config says that the checks read.
    pub config: runtime::ConfigFacts,
    program: OnceLock<program::Program>,
    runtime: OnceLock<runtime::Runtime>,
}

impl Clone for Training {
    fn clone(&self) -> Self {
        Training::new(self.entry.clone(), self.files.clone(), self.config.clone())
    }
}

impl Training {
    pub fn new(entry: EntrySpec, files: Vec<TrainingFile>, config: runtime::ConfigFacts) -> Training {
        Training {
            entry,
            files,
            config,
            program: OnceLock::new(),
            runtime: OnceLock::new(),
        }
    }

    /// The program index, built on first use.
    pub fn program(&self) -> &program::Program {
        self.program.get_or_init(|| program::Program::new(&self.files))
    }

    /// Who runs the code, worked out on first use.
    pub fn runtime(&self) -> &runtime::Runtime {
        self.runtime
            .get_or_init(|| runtime::Runtime::compute(self, self.program(), &self.config))
    }

    /// Whether any file is training code (not only model sources).
    pub fn has_code(&self) -> bool {
        self.files.iter().any(|f| f.role != FileRole::Model)
    }

    /// The entry file, when the entrypoint names one in the context.
    pub fn entry_file(&self) -> Option<&TrainingFile> {
        self.files.iter().find(|f| f.role == FileRole::Entry)
    }
}

/// Parsed files kept between compilations by path and text (the language
/// server's): an unchanged file is not parsed again.
#[derive(Debug, Default)]
pub struct Cache {
    files: std::collections::HashMap<String, Arc<ParsedFile>>,
}

impl Cache {
    /// Hands the kept parse of every unchanged file to `sources`.
    pub fn fill(&self, sources: &mut TrainingSources) {
        for f in &mut sources.files {
            if let Some(kept) = self.files.get(&f.input.name) {
                if std::str::from_utf8(&f.input.bytes).is_ok_and(|t| kept.same_text(t)) {
                    f.parsed = Some(Arc::clone(kept));
                }
            }
        }
    }

    /// Keeps the parses of a compilation (by file name), replacing older
    /// ones, and forgets files it no longer has when `prune`.
    pub fn keep(&mut self, training: &Training, names: impl Fn(FileId) -> Option<String>) {
        for f in &training.files {
            if let Some(name) = names(f.file) {
                self.files.insert(name, Arc::clone(&f.parsed));
            }
        }
    }

    /// Forgets every kept parse whose file name is not in `live`.
    pub fn retain(&mut self, live: &std::collections::HashSet<String>) {
        self.files.retain(|name, _| live.contains(name));
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// A training file as the compilation registered it: its id and text.
pub struct Registered {
    pub file: FileId,
    pub text: String,
}

/// Builds a compilation's training facts: registers each file through
/// `register` (which returns `None` for a file that is not usable text),
/// reuses cached parses, and adds the model sources (`models`: id, name
/// and the file the stage reader read) the import graph does not reach.
pub fn attach(
    sources: &TrainingSources,
    register: &mut dyn FnMut(&Input) -> Option<Registered>,
    models: &[(FileId, String, Arc<ParsedFile>)],
    config: runtime::ConfigFacts,
) -> Training {
    let mut files: Vec<TrainingFile> = Vec::new();
    let mut entry = sources.entry.clone();
    let mut index_of: Vec<Option<usize>> = Vec::new();
    for t in &sources.files {
        let Some(reg) = register(&t.input) else {
            index_of.push(None);
            continue;
        };
        let (parsed, fresh) = match (&t.parsed, &t.scanned) {
            (Some(p), _) if p.same_text(&reg.text) => (Arc::clone(p), false),
            // Discovery's scan of the file, when it has one.
            (_, Some(s)) if s.same_text(&reg.text) => (Arc::clone(s), true),
            // The stage reader's file, when it read this one as a model.
            _ => match models.iter().find(|m| m.0 == reg.file) {
                Some(m) if m.2.same_text(&reg.text) => (Arc::clone(&m.2), true),
                _ => (ParsedFile::shared(&reg.text), true),
            },
        };
        index_of.push(Some(files.len()));
        let package = std::path::Path::new(&t.input.name)
            .file_name()
            .is_some_and(|n| n == "__init__.py");
        files.push(TrainingFile {
            file: reg.file,
            path: t.input.name.clone(),
            module: t.module.clone(),
            aliases: t.aliases.clone(),
            package,
            role: t.role,
            parsed,
            fresh,
            programs: t.programs,
            scripts: t.scripts,
        });
    }
    if let EntrySpec::Found(launch, i) = &entry {
        entry = match index_of.get(*i).copied().flatten() {
            Some(j) => EntrySpec::Found(launch.clone(), j),
            None => EntrySpec::Missing(launch.clone(), String::new()),
        };
    }
    for (id, name, parsed) in models {
        if files.iter().any(|f| f.file == *id) {
            continue;
        }
        let module = std::path::Path::new(name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        files.push(TrainingFile {
            file: *id,
            path: name.to_string(),
            module,
            aliases: Vec::new(),
            package: false,
            role: FileRole::Model,
            parsed: Arc::clone(parsed),
            fresh: true,
            programs: 0,
            scripts: 0,
        });
    }
    Training::new(entry, files, config)
}
