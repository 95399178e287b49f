//! Which files hold the training code: the file the entrypoint runs, and
//! every context module it imports, transitively, found the way Python's
//! import system finds them (the script's folder or the context root on the
//! search path, packages with `__init__.py`, relative imports against the
//! importing package). Imports are read from a scan of the text, without
//! parsing; a module outside the context (site-packages) is never read.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::entry::{self, Launch, NotPython, Target};
use super::{EntrySpec, FileRole, LeftOut, TrainingInput, TrainingSources, MAX_BYTES, MAX_FILES, MAX_FILE_BYTES};
use crate::source::Input;
use crate::yaml::{Budgets, Schema, Tree, YamlIssue};

/// The config as discovery parsed it to find the entrypoint (with the
/// default budgets, as a check parses it), kept so that the compilation
/// takes this parse instead of making a second one.
#[derive(Debug)]
pub struct ConfigParse {
    /// The text parsed.
    pub text: String,
    /// The budgets it was parsed under.
    pub budgets: Budgets,
    /// The spanned tree, as `yaml::parse_with` made it.
    pub tree: Tree,
    /// What the parse found wrong with the text.
    pub issues: Vec<YamlIssue>,
}

/// Discovery's parse of the config, held for the project's first
/// compilation, which takes it: the tree is never held twice, and a later
/// compilation of the same project parses the config itself.
#[derive(Debug, Default)]
pub struct KeptParse(Mutex<Option<ConfigParse>>);

impl KeptParse {
    /// The tree and issues, when they were made from `text` under `budgets`
    /// and no compilation took them yet.
    pub fn take(&self, text: &str, budgets: &Budgets) -> Option<(Tree, Vec<YamlIssue>)> {
        let mut slot = self.0.lock().ok()?;
        let kept = slot.take()?;
        (kept.budgets == *budgets && kept.text == text).then_some((kept.tree, kept.issues))
    }

    /// Whether a parse is still held.
    pub fn is_held(&self) -> bool {
        self.0.lock().is_ok_and(|slot| slot.is_some())
    }
}

/// Parses a config's text for discovery: `None` when it is over the input
/// budget (the check reads it no further, Y005; discovery neither).
pub fn parse_config(config_text: &str) -> Option<ConfigParse> {
    let budgets = Budgets::default();
    if config_text.len() > budgets.max_bytes {
        return None;
    }
    let (tree, issues) = crate::yaml::parse_with(config_text, &budgets, Schema::Master);
    Some(ConfigParse {
        text: config_text.to_string(),
        budgets,
        tree,
        issues,
    })
}

/// The entrypoint of a parsed config: `None` when there is none (or it is
/// neither a string nor a list of strings).
fn entrypoint_in(tree: &Tree) -> Option<Result<Launch, NotPython>> {
    let root = tree.root()?;
    let found = tree.get(root, "entrypoint")?;
    match tree.to_json(found.node, 10_000)? {
        serde_json::Value::String(s) => Some(entry::read_command(&s)),
        serde_json::Value::Array(items) => {
            let words: Option<Vec<String>> = items.iter().map(|i| i.as_str().map(str::to_string)).collect();
            Some(entry::read_argv(&words?))
        }
        _ => None,
    }
}

/// The context's Python files by path relative to the context root
/// (`/`-separated).
struct Context<'a> {
    root: &'a Path,
    /// The root folder's own name, when known.
    name: Option<&'a str>,
    files: BTreeMap<String, PathBuf>,
    /// Files that are links to another file of the context, with that
    /// file (icefall's recipes link one `asr_datamodule.py` into each).
    links: BTreeMap<String, String>,
    /// The links to each file that has any, by that file.
    linked_to: BTreeMap<String, Vec<String>>,
    /// The files named on the command line.
    named: BTreeSet<String>,
}

impl<'a> Context<'a> {
    fn new(
        root: &'a Path,
        name: Option<&'a str>,
        python_files: &[PathBuf],
        links: &[(PathBuf, PathBuf)],
        named: &[PathBuf],
    ) -> Context<'a> {
        let mut files = BTreeMap::new();
        for p in python_files {
            if let Some(rel) = relative(root, p) {
                files.insert(rel, p.clone());
            }
        }
        let links: BTreeMap<String, String> = links
            .iter()
            .filter_map(|(l, t)| Some((relative(root, l)?, relative(root, t)?)))
            .filter(|(l, t)| l != t && files.contains_key(t))
            .collect();
        let named = named.iter().filter_map(|p| relative(root, p)).collect();
        let mut linked_to: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (link, target) in &links {
            linked_to.entry(target.clone()).or_default().push(link.clone());
        }
        Context {
            root,
            name,
            files,
            links,
            linked_to,
            named,
        }
    }

    fn has(&self, rel: &str) -> bool {
        self.files.contains_key(rel)
    }

    /// Whether an import of `module` reaches the file `rel` through a link
    /// to it (a module of the link's folder): the name is the file's too.
    fn linked_as(&self, rel: &str, module: &str) -> bool {
        let path = module.replace('.', "/");
        let ends = [format!("{path}.py"), format!("{path}/__init__.py")];
        self.linked_to.get(rel).into_iter().flatten().any(|link| {
            ends.iter().any(|end| {
                link.strip_suffix(end.as_str())
                    .is_some_and(|before| before.is_empty() || before.ends_with('/'))
            })
        })
    }

    /// The file an import of `rel` reads as the module: the file a link
    /// names, so that one file is one module of the analysis, unless the
    /// link itself is named and that file is not (its findings belong to
    /// the path given).
    fn canonical(&self, rel: String) -> String {
        match self.links.get(&rel) {
            Some(target) if !self.named.contains(&rel) || self.named.contains(target) => target.clone(),
            _ => rel,
        }
    }

    /// The modules under `roots` whose dotted names match `pattern`, where
    /// each `*` stands for one part (`s3prl.downstream.*.expert`, what
    /// `import_module(f"s3prl.downstream.{task}.expert")` may load): at most
    /// [`MAX_MATCHED`], in name order.
    fn matching(&self, pattern: &str, roots: &[String]) -> Vec<String> {
        let want: Vec<&str> = pattern.split('.').collect();
        let mut out: Vec<String> = Vec::new();
        for root in roots {
            let prefix = if root.is_empty() {
                String::new()
            } else {
                format!("{root}/")
            };
            for rel in self.files.keys().filter(|r| r.starts_with(&prefix)) {
                let inner = &rel[prefix.len()..];
                let Some(stem) = inner.strip_suffix("/__init__.py").or_else(|| inner.strip_suffix(".py")) else {
                    continue;
                };
                let parts: Vec<&str> = stem.split('/').collect();
                let fits = parts.len() == want.len()
                    && parts.iter().zip(&want).all(|(p, w)| *w == "*" || p == w)
                    && parts.iter().all(|p| is_identifier(p));
                if fits {
                    let dotted = parts.join(".");
                    if !out.contains(&dotted) {
                        out.push(dotted);
                    }
                }
                if out.len() >= MAX_MATCHED {
                    return out;
                }
            }
        }
        out
    }

    /// The file of module `dotted` under one of `roots`, else in the
    /// project's `src` layout: `(relative path,
    /// module name)`.
    fn module(&self, dotted: &str, roots: &[String]) -> Option<(String, String)> {
        if dotted.is_empty() {
            return None;
        }
        let as_path = dotted.replace('.', "/");
        for root in roots {
            let base = join(root, &as_path);
            let file = format!("{base}.py");
            if self.has(&file) {
                return Some((self.canonical(file), dotted.to_string()));
            }
            let init = format!("{base}/__init__.py");
            if self.has(&init) {
                return Some((self.canonical(init), dotted.to_string()));
            }
        }
        // The `src` layout: the package lives in `src/<package>/` and runs
        // installed from there (`package_dir={"": "src"}`, `pip install -e
        // .`), so `prediff.datasets.sevir` is `src/prediff/datasets/sevir`.
        if let Some(top) = dotted.split('.').next() {
            if self.has(&format!("{SRC_LAYOUT}/{top}/__init__.py")) {
                let base = join(SRC_LAYOUT, &as_path);
                for file in [format!("{base}.py"), format!("{base}/__init__.py")] {
                    if self.has(&file) {
                        return Some((self.canonical(file), dotted.to_string()));
                    }
                }
            }
        }
        // The repository is the package itself, its folder named as the
        // package (`mae_st/engine_pretrain.py` in a clone named `mae_st`,
        // imported as `mae_st.engine_pretrain` once installed that way).
        let own = self.name.or_else(|| self.root.file_name().and_then(|n| n.to_str()))?;
        let rest = dotted.strip_prefix(own)?.strip_prefix('.')?;
        if self.has(&format!("{own}/__init__.py")) || self.has(&format!("{own}.py")) {
            return None;
        }
        let base = rest.replace('.', "/");
        for file in [format!("{base}.py"), format!("{base}/__init__.py")] {
            if self.has(&file) {
                return Some((self.canonical(file), dotted.to_string()));
            }
        }
        None
    }

    /// Whether `dotted` is a package (a folder with `__init__.py` or
    /// `__main__.py`) under `root`.
    fn package_main(&self, dotted: &str, root: &str) -> Option<String> {
        let base = join(root, &dotted.replace('.', "/"));
        let main = format!("{base}/__main__.py");
        self.has(&main).then_some(main)
    }
}

/// Most modules one name pattern of a dynamic import is read as.
const MAX_MATCHED: usize = 32;

/// The folder of the `src` layout, whose packages run installed.
const SRC_LAYOUT: &str = "src";

/// What a module mentions where it may build objects from classes its
/// config files name (see [`config_named_classes`]).
const INSTANTIATORS: [&str; 2] = ["instantiate", "LightningCLI"];

/// Most classes named by config files that discovery follows.
const MAX_CONFIG_NAMED: usize = 256;

/// The classes a config file names for code to build by name: the dotted
/// values of `_target_:` (Hydra), `class_path:` (LightningCLI) and
/// `target:` (`instantiate_from_config`) keys, in the order written,
/// each once. Read from the text, line by line (YAML, or JSON's
/// `"key": "value"`): a value that is not a dotted name of identifiers is
/// passed over.
pub fn config_named_classes(text: &str, out: &mut Vec<String>) {
    for line in text.lines() {
        if out.len() >= MAX_CONFIG_NAMED {
            return;
        }
        let line = line.trim_start().trim_start_matches("- ").trim_start();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().trim_matches('"').trim_matches('\'');
        if !matches!(key, "_target_" | "class_path" | "target") {
            continue;
        }
        let value = value
            .split(" #")
            .next()
            .unwrap_or("")
            .trim()
            .trim_end_matches(',')
            .trim();
        let value = value.trim_matches('"').trim_matches('\'');
        let parts: Vec<&str> = value.split('.').collect();
        if parts.len() < 2 || !parts.iter().all(|p| is_identifier(p)) {
            continue;
        }
        if !out.iter().any(|o| o == value) {
            out.push(value.to_string());
        }
    }
}

/// Most name patterns of dynamic imports one discovery expands (each
/// lists the context's files once).
const MAX_BY_NAME: usize = 64;

/// Most programs a script that loads a module by name is read as (one per
/// module it may load); with more, one program holds them all.
const MAX_VARIANTS: usize = 8;

/// Whether `s` is a Python identifier (a part of a module name).
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// `root/rest`, with an empty root meaning the context root.
fn join(root: &str, rest: &str) -> String {
    if root.is_empty() {
        rest.to_string()
    } else {
        format!("{}/{rest}", root.trim_end_matches('/'))
    }
}

/// `path` relative to `root`, `/`-separated; `None` outside it.
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            std::path::Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            std::path::Component::CurDir => {}
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// A path as written in a command (`./src/../train.py`), made relative to
/// the context root; `None` when it leaves the context or is absolute.
fn normalize(cwd: Option<&str>, written: &str) -> Option<String> {
    if written.starts_with('/') || written.starts_with('~') {
        return None;
    }
    let full = match cwd {
        Some(c) if !c.is_empty() => format!("{c}/{written}"),
        _ => written.to_string(),
    };
    if full.starts_with('/') {
        return None;
    }
    crate::fsutil::normalize_relative(&full)
}

/// The dotted module name of a file found under `root`.
fn module_name(rel: &str, root: &str) -> String {
    let inside = if root.is_empty() {
        rel
    } else {
        rel.strip_prefix(&format!("{}/", root.trim_end_matches('/')))
            .unwrap_or(rel)
    };
    let stem = inside.strip_suffix(".py").unwrap_or(inside);
    let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
    stem.replace('/', ".")
}

/// The folder a module name of a file in `dir` starts from: above the
/// packages (folders with `__init__.py`) that hold it, at most the root;
/// `dir` itself when it is not a package.
fn package_base(ctx: &Context<'_>, dir: &str) -> String {
    let mut base = dir.to_string();
    while !base.is_empty() && ctx.has(&format!("{base}/__init__.py")) {
        base = folder(&base);
    }
    base
}

/// Where a module imports its own top-level package from: for `importer`
/// at `a/pkg/sub/m.py` and an import of `pkg.x`, `a` (the folder holding
/// the nearest folder named `pkg` on the importer's path), since a package
/// imports itself by name only from there. `None` when no folder of the
/// path has that name. A folder inside a regular package is a subpackage
/// (`resnest/torch/` under `resnest/__init__.py`): its name is not a
/// top-level one, and `import torch` in it is the installed torch.
fn own_package_root(ctx: &Context<'_>, importer: &str, dotted: &str) -> Option<String> {
    let first = dotted.split('.').next()?;
    let mut dir = folder(importer);
    while !dir.is_empty() {
        let (parent, name) = dir.rsplit_once('/').unwrap_or(("", dir.as_str()));
        if name == first && (parent.is_empty() || !ctx.has(&format!("{parent}/__init__.py"))) {
            return Some(parent.to_string());
        }
        dir = parent.to_string();
    }
    None
}

/// The folder of a relative path (`""` at the root).
fn folder(rel: &str) -> String {
    rel.rsplit_once('/').map_or(String::new(), |(d, _)| d.to_string())
}

/// One file queued for reading.
struct Queued {
    rel: String,
    module: String,
    role: FileRole,
    /// Search roots for its absolute imports.
    roots: Vec<String>,
}

/// Finds the training code of the config `config_text` in the context
/// `root` (whose Python files are `python_files`; `root_name` is its folder's
/// own name where `root` does not show it, as `.` does not), plus `named` files
/// (named on the command line). `read` reads a file; what it cannot read
/// is returned as problems.
#[allow(clippy::too_many_arguments)]
pub fn discover(
    config_text: Option<&str>,
    root: &Path,
    root_name: Option<&str>,
    python_files: &[PathBuf],
    links: &[(PathBuf, PathBuf)],
    named: &[PathBuf],
    read: &mut dyn FnMut(&Path) -> Result<Input, String>,
    config_named: &mut dyn FnMut() -> Vec<String>,
) -> (TrainingSources, Vec<String>) {
    let ctx = Context::new(root, root_name, python_files, links, named);
    let mut queue: VecDeque<Queued> = VecDeque::new();
    let mut entry_rel: Option<String> = None;
    // Where the experiment's process starts: the entry and the packages
    // imported before it.
    let mut starts: Vec<String> = Vec::new();
    let config = config_text.and_then(parse_config);
    let spec = match config_text.map(|_| config.as_ref().and_then(|c| entrypoint_in(&c.tree))) {
        None => EntrySpec::Absent,
        Some(None) => EntrySpec::Absent,
        Some(Some(Err(why))) => EntrySpec::NotPython(why),
        Some(Some(Ok(launch))) => match locate(&ctx, &launch) {
            Ok(found) => {
                entry_rel = Some(found.rel.clone());
                starts.push(found.rel.clone());
                starts.push(found.entry.rel.clone());
                starts.extend(found.parents.iter().map(|p| p.rel.clone()));
                queue.extend(found.parents);
                queue.push_front(found.entry);
                EntrySpec::Found(launch, 0)
            }
            Err(what) => EntrySpec::Missing(launch, what),
        },
    };
    let mut named_rels: Vec<String> = Vec::new();
    for path in named {
        let Some(rel) = relative(root, path) else { continue };
        // A link named beside the file it links to: one module, read as
        // that file.
        if ctx.links.get(&rel).is_some_and(|t| ctx.named.contains(t)) {
            continue;
        }
        named_rels.push(rel.clone());
        let dir = folder(&rel);
        // Inside packages a file is their module (`pkg/data.py` is
        // `pkg.data`, as imports name it); a script elsewhere is a module of
        // its own folder.
        let module = module_name(&rel, &package_base(&ctx, &dir));
        queue.push_back(Queued {
            module,
            rel,
            role: FileRole::Named,
            roots: vec![dir, String::new()],
        });
    }

    let mut files: Vec<TrainingInput> = Vec::new();
    // Each file's context path, and the context files its imports name.
    let mut rels: Vec<String> = Vec::new();
    let mut edges: HashMap<String, Vec<String>> = HashMap::new();
    // The modules each file loads by one name pattern (`import_module(
    // f"evals.{name}.eval")`): alternatives, one of which a run loads; and
    // the files some import names outright.
    let mut alternatives: Vec<(String, Vec<String>)> = Vec::new();
    let mut by_name_left = MAX_BY_NAME;
    let mut named_imports: HashSet<String> = HashSet::new();
    let mut problems = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut bytes = 0usize;
    let mut left_out: Vec<LeftOut> = Vec::new();
    // Files read ahead of their turn (a path-setup module, read when its
    // import is resolved), by context path.
    // Its parse is held with it, so that reading it in turn takes the same
    // parse (`ParsedFile::shared`).
    let mut peeked: HashMap<String, (Input, Option<Arc<super::ParsedFile>>)> = HashMap::new();
    // The module names imports give each file.
    let mut imported_as: HashMap<String, Vec<String>> = HashMap::new();
    // The classes the project's config files name for code to build by
    // name (asked for once, where some file builds one).
    let mut by_config: Option<Vec<String>> = None;
    while let Some(q) = queue.pop_front() {
        if files.len() >= MAX_FILES || bytes >= MAX_BYTES {
            break;
        }
        if let Some(i) = files
            .iter()
            .position(|f: &TrainingInput| same(&f.input.name, &q.rel, &ctx))
        {
            // A named file the import graph reaches as well stays named.
            if q.role == FileRole::Named && files[i].role == FileRole::Imported {
                files[i].role = FileRole::Named;
            }
            if q.role == FileRole::Imported {
                adopt_name(&mut files[i], q.module);
            }
            continue;
        }
        if !seen.insert(q.rel.clone()) {
            continue;
        }
        let path = match ctx.files.get(&q.rel) {
            Some(p) => p.clone(),
            None => ctx.root.join(&q.rel),
        };
        let (input, _held) = match peeked.remove(&q.rel) {
            Some((input, held)) => (Ok(input), held),
            None => (read(&path), None),
        };
        let input = match input {
            Ok(input) => input,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        if input.bytes.len() > MAX_FILE_BYTES {
            left_out.push(LeftOut {
                name: input.name,
                bytes: input.bytes.len(),
                max: MAX_FILE_BYTES,
            });
            continue;
        }
        if bytes.saturating_add(input.bytes.len()) > MAX_BYTES {
            // The budget of the whole run is spent: this file and the rest
            // are left out, and the first is reported.
            left_out.push(LeftOut {
                name: input.name,
                bytes: input.bytes.len(),
                max: MAX_BYTES,
            });
            break;
        }
        bytes += input.bytes.len();
        let text = crate::source::lossy(&input.bytes);
        // Scanned once: the compilation takes this scan over.
        let scanned = super::ParsedFile::shared(&text);
        let imports = scanned.imports();
        let package = if q.rel.ends_with("__init__.py") {
            q.module.clone()
        } else {
            q.module.rsplit_once('.').map_or(String::new(), |(p, _)| p.to_string())
        };
        let mut targets = Vec::new();
        // A file run as the program: the entry, or a named file with a
        // main guard.
        let script = matches!(q.role, FileRole::Entry | FileRole::Named) && scanned.mentions(&["__main__"]);
        // The import path as this module's imports see it: with the
        // folders its own code puts on `sys.path`, and, from the import
        // on, those a sibling path-setup module adds (`import
        // _init_paths`), as the module runs when imported.
        let mut roots = q.roots.clone();
        add_roots(&mut roots, super::syspath::added_folders(&scanned, &q.rel));
        for imp in imports {
            // Each name pattern lists the context's files: a run expands a
            // bounded number of them (the others load nothing known).
            if imp.plain.iter().any(|m| m.contains('*')) {
                if by_name_left == 0 {
                    continue;
                }
                by_name_left -= 1;
            }
            let mut found = resolve_import(&ctx, imp, &package, &roots, &q.rel);
            // A script run from a folder above its own, with that folder on
            // the path (`cd multi_modality && PYTHONPATH=. torchrun
            // tasks/retrieval.py`, which imports `utils.basic_utils`): an
            // absolute import found nowhere else is looked up from the
            // script's enclosing folders, nearest first, and the folder
            // that has it stays on the path for the script's other imports
            // and for the modules it loads.
            if found.is_empty() && script && imp.level == 0 {
                let mut dir = folder(&folder(&q.rel));
                while !dir.is_empty() {
                    if !roots.contains(&dir) {
                        let tried = vec![dir.clone()];
                        let hit = resolve_import(&ctx, imp, &package, &tried, &q.rel);
                        if !hit.is_empty() {
                            roots.push(dir.clone());
                            found = hit;
                            break;
                        }
                    }
                    dir = folder(&dir);
                }
            }
            let pattern = imp.plain.iter().find(|m| m.contains('*'));
            match pattern {
                Some(p) => {
                    let parts = p.split('.').count();
                    let mut group: Vec<String> = found
                        .iter()
                        .filter(|(_, module)| module.split('.').count() == parts)
                        .map(|(rel, _)| rel.clone())
                        .collect();
                    group.dedup();
                    if group.len() > 1 {
                        alternatives.push((q.rel.clone(), group));
                    }
                }
                None => named_imports.extend(found.iter().map(|(rel, _)| rel.clone())),
            }
            for (rel, module) in found {
                targets.push(rel.clone());
                // Also a file of a package imported by a script beside it
                // under its name from there (`from engine import train`,
                // `import util.misc` in `mae/main.py`, where
                // `mae/__init__.py` makes the files `mae.engine` and
                // `mae.util.misc`): the script's folder is first on its path.
                // Not a module of the package that is only imported: its
                // `import torch` is torch, whatever sits beside it.
                if ctx.linked_as(&rel, &module) || (script && below(&rel, &folder(&q.rel))) {
                    let names = imported_as.entry(rel.clone()).or_default();
                    if !names.contains(&module) {
                        names.push(module.clone());
                    }
                }
                let sibling_setup = !imp.plain.is_empty()
                    && folder(&rel) == folder(&q.rel)
                    && !rel.ends_with("__init__.py")
                    && !seen.contains(&rel)
                    && !peeked.contains_key(&rel);
                if sibling_setup {
                    if let Some(p) = ctx.files.get(&rel) {
                        if let Ok(found) = read(p) {
                            let mut held = None;
                            if found.bytes.len() <= MAX_FILE_BYTES && memchr_sys_path(&found.bytes) {
                                let parsed = super::ParsedFile::shared(&crate::source::lossy(&found.bytes));
                                add_roots(&mut roots, super::syspath::added_folders(&parsed, &rel));
                                held = Some(parsed);
                            }
                            peeked.insert(rel.clone(), (found, held));
                        }
                    }
                }
                if let Some(f) = files.iter_mut().find(|f| same(&f.input.name, &rel, &ctx)) {
                    adopt_name(f, module);
                } else if let Some(named) = queue.iter_mut().find(|n| n.rel == rel) {
                    // A named file not read yet takes the import's name as well.
                    if named.role == FileRole::Named && module.ends_with(&format!(".{}", named.module)) {
                        named.module = module;
                    }
                } else if !seen.contains(&rel) {
                    queue.push_back(Queued {
                        rel,
                        module,
                        role: FileRole::Imported,
                        roots: roots.clone(),
                    });
                }
            }
        }
        // A module that builds objects from classes its config files name
        // (`hydra.utils.instantiate(cfg.data)` of a `_target_:`, a
        // `LightningCLI` reading `class_path:`, the `instantiate_from_config`
        // of `target:`) loads their modules at run time, as an import
        // would: they run in its program.
        if scanned.mentions(&INSTANTIATORS) {
            let names = by_config.get_or_insert_with(|| {
                let mut names = config_named();
                names.truncate(MAX_CONFIG_NAMED);
                names
            });
            for dotted in names.iter() {
                let Some((module, _class)) = dotted.rsplit_once('.') else {
                    continue;
                };
                let Some((rel, module)) = ctx.module(module, &roots) else {
                    continue;
                };
                if rel == q.rel || targets.contains(&rel) {
                    continue;
                }
                targets.push(rel.clone());
                let known = seen.contains(&rel)
                    || files.iter().any(|f| same(&f.input.name, &rel, &ctx))
                    || queue.iter().any(|n| n.rel == rel);
                if !known {
                    queue.push_back(Queued {
                        rel,
                        module,
                        role: FileRole::Imported,
                        roots: roots.clone(),
                    });
                }
            }
        }
        edges.insert(q.rel.clone(), targets);
        rels.push(q.rel);
        files.push(TrainingInput {
            input,
            module: q.module,
            aliases: Vec::new(),
            role: q.role,
            parsed: None,
            scanned: Some(scanned),
            programs: 0,
            scripts: 0,
        });
    }
    for (file, rel) in files.iter_mut().zip(&rels) {
        if let Some(names) = imported_as.get(rel) {
            file.aliases = names.iter().filter(|n| **n != file.module).cloned().collect();
        }
    }
    // The programs each file runs in: the experiment's (bit 0: what its
    // entry imports; everything when its entry was not found), and one per
    // named file that neither the experiment nor another named file imports
    // (a script of its own: what it imports runs in it).
    let reach_without = |from: &[&str], blocked: &HashSet<&str>| -> HashSet<String> {
        let mut reached: HashSet<String> = HashSet::new();
        let mut stack: Vec<&str> = from.to_vec();
        while let Some(rel) = stack.pop() {
            if blocked.contains(rel) || !reached.insert(rel.to_string()) {
                continue;
            }
            if let Some(next) = edges.get(rel) {
                stack.extend(next.iter().map(String::as_str));
            }
        }
        reached
    };
    let reach = |from: &[&str]| reach_without(from, &HashSet::new());
    // A script that loads one of several modules by name runs one of them:
    // each is a program of its own (the first such choice the script
    // reaches, of at most `MAX_VARIANTS` modules none imports outright),
    // as the variants of what `reached` holds.
    let variants = |from: &str, reached: &HashSet<String>| -> Vec<HashSet<String>> {
        let choice = alternatives.iter().find_map(|(importer, group)| {
            let open: Vec<&str> = group
                .iter()
                .filter(|m| !named_imports.contains(*m))
                .map(String::as_str)
                .collect();
            (reached.contains(importer) && (2..=MAX_VARIANTS).contains(&open.len())).then_some(open)
        });
        match choice {
            Some(open) => open
                .iter()
                .map(|chosen| {
                    let blocked: HashSet<&str> = open.iter().copied().filter(|m| m != chosen).collect();
                    reach_without(&[from], &blocked)
                })
                .collect(),
            None => vec![reached.clone()],
        }
    };
    let mut programs: Vec<(u64, HashSet<String>)> = Vec::new();
    // The files each program starts from.
    let mut roots: Vec<(u64, String)> = Vec::new();
    if config_text.is_some() {
        // An entrypoint not followed to its file: any of them may start it.
        let from = if starts.is_empty() { &rels } else { &starts };
        roots.extend(from.iter().map(|r| (1, r.clone())));
        if starts.is_empty() {
            programs.push((1, rels.iter().cloned().collect()));
        } else {
            let from: Vec<&str> = starts.iter().map(String::as_str).collect();
            programs.push((1, reach(&from)));
        }
    }
    let candidates: Vec<(&String, HashSet<String>)> = named_rels
        .iter()
        .filter(|r| !programs.iter().any(|(_, p)| p.contains(*r)))
        .map(|r| (r, reach(&[r.as_str()])))
        .collect();
    // Bit 0 is the experiment's; past 63 scripts the last bit is shared.
    let mut next_bit = 1u32;
    for (i, (rel, reached)) in candidates.iter().enumerate() {
        // Imported by another candidate that it does not import back: a
        // module of that script, not a script.
        let imported = candidates
            .iter()
            .enumerate()
            .any(|(j, (other, theirs))| j != i && theirs.contains(*rel) && !reached.contains(*other));
        if !imported {
            let mut each = variants(rel, reached);
            // Past 63 programs in all, the script's are one.
            if next_bit as usize + each.len() > 63 {
                each = vec![reached.clone()];
            }
            for reached in each {
                roots.push((1u64 << next_bit, (*rel).clone()));
                programs.push((1u64 << next_bit, reached));
                next_bit = (next_bit + 1).min(63);
            }
        }
    }
    for (f, rel) in files.iter_mut().zip(&rels) {
        f.programs = programs
            .iter()
            .filter(|(_, p)| p.contains(rel))
            .fold(0, |acc, (bit, _)| acc | bit);
        f.scripts = roots
            .iter()
            .filter(|(_, r)| r == rel)
            .fold(0, |acc, (bit, _)| acc | bit);
    }
    // The entry file first; the others keep their discovery order.
    let entry = match (&spec, &entry_rel) {
        (EntrySpec::Found(launch, _), Some(rel)) => match files.iter().position(|f| same(&f.input.name, rel, &ctx)) {
            Some(i) => {
                files[i].role = FileRole::Entry;
                EntrySpec::Found(launch.clone(), i)
            }
            None => EntrySpec::Missing(launch.clone(), rel.clone()),
        },
        _ => spec,
    };
    (
        TrainingSources {
            entry,
            files,
            standalone: config_text.is_none(),
            config: config.map(|c| Arc::new(KeptParse(Mutex::new(Some(c))))),
            left_out,
            torch_pin: None,
            run_files: Vec::new(),
        },
        problems,
    )
}

/// A named script an import reaches through its package (a namespace
/// package, without `__init__.py`) takes the name that import gives it,
/// which the importer's names refer to: `lit_llama.packed_dataset` for
/// `lit_llama/packed_dataset.py`, named as `packed_dataset`.
/// Whether the context file `rel` lies in folder `dir` or below it.
fn below(rel: &str, dir: &str) -> bool {
    dir.is_empty() || rel.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

fn adopt_name(file: &mut TrainingInput, module: String) {
    if file.role == FileRole::Named && module.ends_with(&format!(".{}", file.module)) {
        file.module = module;
    }
}

/// Whether the file read under `name` is the context file `rel`.
fn same(name: &str, rel: &str, ctx: &Context<'_>) -> bool {
    ctx.files
        .get(rel)
        .is_some_and(|p| crate::source::display_name(p) == name)
        || relative(ctx.root, Path::new(name)).as_deref() == Some(rel)
}

/// Where the entrypoint's code starts.
struct Located {
    rel: String,
    entry: Queued,
    /// Packages imported before the entry module (`a/__init__.py` for
    /// `python -m a.b`).
    parents: Vec<Queued>,
}

fn locate(ctx: &Context<'_>, launch: &Launch) -> Result<Located, String> {
    let cwd = launch
        .cwd
        .as_deref()
        .and_then(|c| normalize(None, c))
        .unwrap_or_default();
    let parents_of = |dotted: &str, root: &str| -> Vec<Queued> {
        let parts: Vec<&str> = dotted.split('.').collect();
        let mut out = Vec::new();
        for n in 1..parts.len() {
            let pkg = parts[..n].join(".");
            if let Some((rel, module)) = ctx.module(&pkg, &[root.to_string()]) {
                out.push(Queued {
                    rel,
                    module,
                    role: FileRole::Imported,
                    roots: vec![root.to_string()],
                });
            }
        }
        out
    };
    match &launch.target {
        Target::Script(written) => {
            let rel = normalize(launch.cwd.as_deref(), written)
                .ok_or_else(|| format!("`{written}` is outside the context"))?;
            if !ctx.has(&rel) {
                return Err(format!("`{rel}` is not in the context"));
            }
            let dir = folder(&rel);
            Ok(Located {
                rel: rel.clone(),
                entry: Queued {
                    module: module_name(&rel, &dir),
                    rel,
                    role: FileRole::Entry,
                    roots: vec![dir, cwd],
                },
                parents: Vec::new(),
            })
        }
        Target::Module(dotted) => {
            let roots = vec![cwd.clone()];
            let (rel, module) = match ctx.package_main(dotted, &cwd) {
                Some(main) => (main, format!("{dotted}.__main__")),
                None => ctx
                    .module(dotted, &roots)
                    .ok_or_else(|| format!("module `{dotted}` is not in the context"))?,
            };
            let mut parents = parents_of(dotted, &cwd);
            if module.ends_with(".__main__") {
                if let Some((init, m)) = ctx.module(dotted, &roots) {
                    parents.push(Queued {
                        rel: init,
                        module: m,
                        role: FileRole::Imported,
                        roots: roots.clone(),
                    });
                }
            }
            Ok(Located {
                rel: rel.clone(),
                entry: Queued {
                    rel,
                    module,
                    role: FileRole::Entry,
                    roots,
                },
                parents,
            })
        }
        Target::Trial { module: dotted, .. } => {
            let roots = vec![cwd.clone()];
            let (rel, module) = ctx
                .module(dotted, &roots)
                .ok_or_else(|| format!("module `{dotted}` is not in the context"))?;
            Ok(Located {
                rel: rel.clone(),
                entry: Queued {
                    rel,
                    module,
                    role: FileRole::Entry,
                    roots: roots.clone(),
                },
                parents: parents_of(dotted, &cwd),
            })
        }
    }
}

/// Puts `added` folders on a module's search roots: at the front or the
/// back, each once.
fn add_roots(roots: &mut Vec<String>, added: Vec<(super::syspath::At, String)>) {
    for (at, folder) in added {
        roots.retain(|r| *r != folder);
        match at {
            super::syspath::At::Front => roots.insert(0, folder),
            super::syspath::At::Back => roots.push(folder),
        }
    }
}

/// Whether a file's bytes mention `sys.path`.
fn memchr_sys_path(bytes: &[u8]) -> bool {
    bytes.windows(8).any(|w| w == b"sys.path")
}

/// The context files an import statement loads: `(relative path, module)`.
fn resolve_import(
    ctx: &Context<'_>,
    imp: &super::scan::ImportLine,
    package: &str,
    roots: &[String],
    importer: &str,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // An absolute import of the importer's own package finds it where it
    // is, after the search roots.
    // Where that package is a regular one (`pkg/__init__.py`), it comes
    // first: code inside `pkg` importing `pkg` runs as part of it, where
    // a module `pkg/pkg.py` beside the importer is `pkg.pkg`, not `pkg`.
    let with_own = |dotted: &str, roots: &[String]| -> Vec<String> {
        let mut all = roots.to_vec();
        if let Some(own) = own_package_root(ctx, importer, dotted) {
            let first = dotted.split('.').next().unwrap_or_default();
            let regular = ctx.has(&format!("{}/__init__.py", join(&own, first)));
            all.retain(|r| *r != own);
            if regular {
                all.insert(0, own);
            } else {
                all.push(own);
            }
        }
        all
    };
    let add_chain = |dotted: &str, roots: &[String], out: &mut Vec<(String, String)>| {
        let roots = with_own(dotted, roots);
        let parts: Vec<&str> = dotted.split('.').collect();
        for n in 1..=parts.len() {
            if let Some(found) = ctx.module(&parts[..n].join("."), &roots) {
                out.push(found);
            }
        }
    };
    if !imp.plain.is_empty() {
        for m in &imp.plain {
            if m.contains('*') {
                for found in ctx.matching(m, &with_own(m, roots)) {
                    add_chain(&found, roots, &mut out);
                }
            } else {
                add_chain(m, roots, &mut out);
            }
        }
        return out;
    }
    if imp.level == 0 {
        add_chain(&imp.module, roots, &mut out);
        for name in imp.names.iter().filter(|n| *n != "*") {
            let dotted = format!("{}.{name}", imp.module);
            if let Some(found) = ctx.module(&dotted, &with_own(&dotted, roots)) {
                out.push(found);
            }
        }
        return out;
    }
    // Relative: against the importing module's package, found under the
    // context root's module names.
    let mut base: Vec<&str> = if package.is_empty() {
        Vec::new()
    } else {
        package.split('.').collect()
    };
    for _ in 1..imp.level {
        if base.pop().is_none() {
            return out;
        }
    }
    let mut target = base.join(".");
    if !imp.module.is_empty() {
        target = if target.is_empty() {
            imp.module.clone()
        } else {
            format!("{target}.{}", imp.module)
        };
    }
    let all_roots: Vec<String> = roots.iter().cloned().chain(std::iter::once(String::new())).collect();
    if !target.is_empty() {
        add_chain(&target, &all_roots, &mut out);
    }
    for name in imp.names.iter().filter(|n| *n != "*") {
        let dotted = if target.is_empty() {
            name.clone()
        } else {
            format!("{target}.{name}")
        };
        if let Some(found) = ctx.module(&dotted, &all_roots) {
            out.push(found);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Discovery in a context `/ctx` holding `files`, for `config` (or
    /// none) and the `named` files.
    fn discover_in(files: &[(&str, &str)], config: Option<&str>, named: &[&str]) -> TrainingSources {
        discover_linked(files, &[], config, named)
    }

    /// [`discover_in`], with some files links to others (`(link, target)`).
    fn discover_linked(
        files: &[(&str, &str)],
        links: &[(&str, &str)],
        config: Option<&str>,
        named: &[&str],
    ) -> TrainingSources {
        discover_with_classes(files, links, config, named, &[])
    }

    /// [`discover_linked`], with the project's config files naming
    /// `classes` for code to build by name.
    fn discover_with_classes(
        files: &[(&str, &str)],
        links: &[(&str, &str)],
        config: Option<&str>,
        named: &[&str],
        classes: &[&str],
    ) -> TrainingSources {
        let root = PathBuf::from("/ctx");
        let links: Vec<(PathBuf, PathBuf)> = links.iter().map(|(l, t)| (root.join(l), root.join(t))).collect();
        let paths: Vec<PathBuf> = files.iter().map(|(p, _)| root.join(p)).collect();
        let named: Vec<PathBuf> = named.iter().map(|n| root.join(n)).collect();
        let mut read = |p: &Path| -> Result<Input, String> {
            let rel = relative(&root, p).unwrap_or_default();
            files
                .iter()
                .find(|(f, _)| *f == rel)
                .map(|(_, text)| Input {
                    name: p.display().to_string(),
                    bytes: text.as_bytes().to_vec(),
                })
                .ok_or_else(|| format!("cannot read {rel}"))
        };
        let mut asked = 0;
        let mut names = || {
            asked += 1;
            assert_eq!(asked, 1, "the config files are asked once");
            classes.iter().map(|c| c.to_string()).collect()
        };
        discover(config, &root, None, &paths, &links, &named, &mut read, &mut names).0
    }

    fn run(files: &[(&str, &str)], config: &str) -> TrainingSources {
        discover_in(files, Some(config), &[])
    }

    fn names(s: &TrainingSources) -> Vec<(String, String, FileRole)> {
        s.files
            .iter()
            .map(|f| {
                (
                    f.input.name.trim_start_matches("/ctx/").to_string(),
                    f.module.clone(),
                    f.role,
                )
            })
            .collect()
    }

    /// Named files without a config: `(name, module, role)` of each file
    /// discovery reads.
    fn named_alone(files: &[(&str, &str)], named: &[&str]) -> Vec<(String, String, FileRole)> {
        names(&discover_in(files, None, named))
    }

    #[test]
    fn named_files_take_their_package_names() {
        let files = [
            (
                "examples/sd/finetune.py",
                "from detsd import trainer
",
            ),
            ("examples/sd/detsd/__init__.py", ""),
            (
                "examples/sd/detsd/trainer.py",
                "from detsd import data
from detsd.utils import f
",
            ),
            ("examples/sd/detsd/data.py", ""),
            ("examples/sd/detsd/utils.py", ""),
            ("src/lib/loader.py", ""),
            (
                "tools/run.py",
                "from lib.loader import load
",
            ),
        ];
        // A package's module is named from above its packages, and imports
        // its own package by name from there.
        let got = named_alone(&files, &["examples/sd/detsd/trainer.py"]);
        let want = |rel: &str, module: &str, role| (rel.to_string(), module.to_string(), role);
        assert_eq!(
            got,
            vec![
                want("examples/sd/detsd/trainer.py", "detsd.trainer", FileRole::Named),
                want("examples/sd/detsd/__init__.py", "detsd", FileRole::Imported),
                want("examples/sd/detsd/data.py", "detsd.data", FileRole::Imported),
                want("examples/sd/detsd/utils.py", "detsd.utils", FileRole::Imported),
            ]
        );
        // A namespace package (no `__init__.py`) is not its own: `lib` is
        // not on `tools/run.py`'s path, so nothing is found.
        let got = named_alone(&files, &["tools/run.py"]);
        assert_eq!(got, vec![want("tools/run.py", "run", FileRole::Named)]);
        // A named script an import reaches takes the import's name,
        // whichever comes first.
        for order in [
            ["examples/sd/finetune.py", "examples/sd/detsd/utils.py"],
            ["examples/sd/detsd/utils.py", "examples/sd/finetune.py"],
        ] {
            let got = named_alone(&files, &order);
            assert!(
                got.contains(&want("examples/sd/detsd/utils.py", "detsd.utils", FileRole::Named)),
                "{got:?}"
            );
        }
    }

    #[test]
    fn a_script_inside_a_package_names_its_siblings_from_its_folder() {
        // scale-mae's layout: `mae/__init__.py` makes the files `mae.…`,
        // and the script `mae/main.py` imports `engine` and `util.misc`
        // from its own folder, first on its path. A module of a package
        // that is only imported (`strategies/base.py`) imports torch, not
        // the `strategies/torch.py` beside it.
        let files = [
            ("mae/__init__.py", ""),
            (
                "mae/main.py",
                "import util.misc as misc\nfrom engine import train_one_epoch\n\nif __name__ == \"__main__\":\n    train_one_epoch()\n",
            ),
            ("mae/engine.py", "def train_one_epoch():\n    pass\n"),
            ("mae/util/__init__.py", ""),
            ("mae/util/misc.py", ""),
            ("mae/strategies/__init__.py", ""),
            ("mae/strategies/base.py", "import torch\n"),
            ("mae/strategies/torch.py", ""),
        ];
        let s = discover_in(
            &files,
            None,
            &[
                "mae/main.py",
                "mae/engine.py",
                "mae/strategies/base.py",
                "mae/strategies/torch.py",
            ],
        );
        let aliases = |rel: &str| -> Vec<String> {
            s.files
                .iter()
                .find(|f| f.input.name.trim_start_matches("/ctx/") == rel)
                .map(|f| f.aliases.clone())
                .unwrap_or_default()
        };
        let module = |rel: &str| -> String {
            s.files
                .iter()
                .find(|f| f.input.name.trim_start_matches("/ctx/") == rel)
                .map(|f| f.module.clone())
                .unwrap_or_default()
        };
        assert_eq!(module("mae/engine.py"), "mae.engine");
        assert_eq!(aliases("mae/engine.py"), vec!["engine".to_string()]);
        // Read through the import only: it takes the import's name.
        assert_eq!(module("mae/util/misc.py"), "util.misc");
        assert_eq!(module("mae/strategies/torch.py"), "mae.strategies.torch");
        assert!(
            aliases("mae/strategies/torch.py").is_empty(),
            "{:?}",
            aliases("mae/strategies/torch.py")
        );
    }

    #[test]
    fn classes_config_files_name_run_in_the_program_that_builds_them() {
        let files = [
            (
                "train.py",
                "import hydra\n\n@hydra.main(config_path='configs')\ndef main(cfg):\n    dm = hydra.utils.instantiate(cfg.data)\n\nif __name__ == \"__main__\":\n    main()\n",
            ),
            ("tools/export.py", "import torch\n\nif __name__ == \"__main__\":\n    pass\n"),
            ("proj/__init__.py", ""),
            ("proj/data/__init__.py", ""),
            ("proj/data/dm.py", "from proj.data.sets import Clips\n"),
            ("proj/data/sets.py", ""),
        ];
        let named = ["train.py", "tools/export.py", "proj/data/dm.py"];
        let classes = [
            "proj.data.dm.TextDataModule",
            "lightning.pytorch.Trainer",
            "absent.mod.Class",
        ];
        let s = discover_with_classes(&files, &[], None, &named, &classes);
        let bits = |rel: &str| {
            s.files
                .iter()
                .find(|f| f.input.name.trim_start_matches("/ctx/") == rel)
                .map_or((0, 0), |f| (f.programs, f.scripts))
        };
        // The data module and what it imports run in the training script's
        // program, and are no script of their own; the script that builds
        // nothing by name keeps its own program.
        let (train, _) = bits("train.py");
        assert_ne!(train, 0);
        assert_eq!(bits("proj/data/dm.py"), (train, 0));
        assert_eq!(bits("proj/data/sets.py"), (train, 0));
        assert_eq!(bits("tools/export.py").0 & train, 0);
        // Without the names, the data module is a program of its own.
        let alone = discover_with_classes(&files, &[], None, &named, &[]);
        let dm = alone
            .files
            .iter()
            .find(|f| f.input.name.ends_with("proj/data/dm.py"))
            .map_or(0, |f| f.programs);
        let tr = alone
            .files
            .iter()
            .find(|f| f.input.name.ends_with("/train.py"))
            .map_or(0, |f| f.programs);
        assert_eq!(dm & tr, 0);
    }

    #[test]
    fn hostile_config_text_gives_a_bounded_list_of_names() {
        // 10,000 naming lines: at most MAX_CONFIG_NAMED names are kept.
        let many: String = (0..10_000).map(|i| format!("_target_: pkg.mod{i}.Cls\n")).collect();
        let mut out = Vec::new();
        config_named_classes(&many, &mut out);
        assert_eq!(out.len(), MAX_CONFIG_NAMED);
        assert_eq!(out[0], "pkg.mod0.Cls");
        // A 300 KB dotted name is one name, read in one pass; one that is
        // not a dotted name of identifiers, or a line without a key, is none.
        let long = format!("target: {}.Cls\n", vec!["part"; 60_000].join("."));
        let mut out = Vec::new();
        config_named_classes(&long, &mut out);
        assert_eq!(out.len(), 1);
        assert!(out[0].len() > 300_000);
        let mut out = Vec::new();
        config_named_classes(
            &format!("target: 1e400.2^70\n{}\n_target_: a..b\n", "x".repeat(300_000)),
            &mut out,
        );
        assert!(out.is_empty(), "{:?}", out.iter().map(|o| o.len()).collect::<Vec<_>>());
    }

    #[test]
    fn config_files_name_classes_by_their_keys() {
        let mut out = Vec::new();
        config_named_classes(
            "_target_: proj.data.dm.TextDataModule\ndata:\n  class_path: decoder.dataset.Vocos  # the module\nmodel:\n  target: \"ldm.models.LDM\"\n  target_key: a.b\nlist:\n  - target: x.Y\nloss:\n  target: 0.5\n  _target_: torch\n  _target_: ${oc.env:X}.Y\n",
            &mut out,
        );
        // Pretty-printed JSON: one key a line; a name already found is kept once.
        config_named_classes(
            "{\n  \"class_path\": \"a.b.C\",\n  \"target\": \"proj.data.dm.TextDataModule\"\n}",
            &mut out,
        );
        assert_eq!(
            out,
            vec![
                "proj.data.dm.TextDataModule",
                "decoder.dataset.Vocos",
                "ldm.models.LDM",
                "x.Y",
                "a.b.C",
            ]
        );
    }

    #[test]
    fn a_script_run_from_a_folder_above_finds_its_imports_there() {
        // unmasked_teacher's layout: `multi_modality/tasks/retrieval.py` is
        // run from `multi_modality/` with that folder on the path, and
        // imports `utils.basic_utils` and `tasks.pretrain` from there; the
        // module it loads (`tasks/pretrain.py`) finds `dataset` the same way.
        let files = [
            (
                "multi_modality/tasks/retrieval.py",
                "from utils.basic_utils import setup_seed\nfrom tasks.pretrain import setup_dataloaders\n\nif __name__ == \"__main__\":\n    setup_seed(0)\n",
            ),
            ("multi_modality/tasks/pretrain.py", "from dataset import create_loader\n"),
            ("multi_modality/utils/basic_utils.py", "def setup_seed(seed):\n    pass\n"),
            ("multi_modality/dataset/__init__.py", "def create_loader():\n    pass\n"),
            ("other/utils/basic_utils.py", ""),
        ];
        let s = discover_in(&files, None, &["multi_modality/tasks/retrieval.py"]);
        let module = |rel: &str| -> Option<String> {
            s.files
                .iter()
                .find(|f| f.input.name.trim_start_matches("/ctx/") == rel)
                .map(|f| f.module.clone())
        };
        assert_eq!(
            module("multi_modality/utils/basic_utils.py").as_deref(),
            Some("utils.basic_utils")
        );
        assert_eq!(
            module("multi_modality/tasks/pretrain.py").as_deref(),
            Some("tasks.pretrain")
        );
        assert_eq!(module("multi_modality/dataset/__init__.py").as_deref(), Some("dataset"));
        assert_eq!(module("other/utils/basic_utils.py"), None);
    }

    #[test]
    fn modules_loaded_by_name_are_the_ones_the_pattern_matches() {
        // s3prl's runner loads `s3prl.downstream.{task}.expert`: each task's
        // `expert.py` may run in the program, and nothing else below.
        let files = [
            (
                "s3prl/run.py",
                "from s3prl.runner import Runner\n\nif __name__ == \"__main__\":\n    Runner().train()\n",
            ),
            (
                "s3prl/runner.py",
                "import importlib\n\nclass Runner:\n    def train(self):\n        m = importlib.import_module(f\"s3prl.downstream.{self.task}.expert\")\n",
            ),
            ("s3prl/downstream/asr/expert.py", ""),
            ("s3prl/downstream/commands/expert.py", ""),
            ("s3prl/downstream/commands/dataset.py", ""),
            ("s3prl/downstream/expert.py", ""),
        ];
        let s = discover_in(&files, None, &["s3prl/run.py"]);
        let mut found: Vec<&str> = s
            .files
            .iter()
            .map(|f| f.input.name.trim_start_matches("/ctx/"))
            .collect();
        found.sort_unstable();
        assert_eq!(
            found,
            [
                "s3prl/downstream/asr/expert.py",
                "s3prl/downstream/commands/expert.py",
                "s3prl/run.py",
                "s3prl/runner.py"
            ]
        );
        // A run loads one of them: each is a program of its own, the
        // script and its runner in both.
        let bits = |rel: &str| -> (u64, u64) {
            s.files
                .iter()
                .find(|f| f.input.name.trim_start_matches("/ctx/") == rel)
                .map_or((0, 0), |f| (f.programs, f.scripts))
        };
        let (asr, commands) = (
            bits("s3prl/downstream/asr/expert.py").0,
            bits("s3prl/downstream/commands/expert.py").0,
        );
        assert!(asr != 0 && commands != 0 && asr & commands == 0, "{asr:b} {commands:b}");
        assert_eq!(bits("s3prl/runner.py").0, asr | commands);
        assert_eq!(bits("s3prl/run.py"), (asr | commands, asr | commands));
    }

    #[test]
    fn a_run_expands_a_bounded_number_of_name_patterns() {
        // Ten scripts, each loading sixteen modules by sixteen patterns:
        // 160 patterns, of which the first 64 expand.
        let mut owned: Vec<(String, String)> = Vec::new();
        for s in 0..10 {
            let text: String = (0..16)
                .map(|i| format!("m = importlib.import_module(f\"p{s}_{i}.{{x}}.m\")\n"))
                .collect();
            owned.push((
                format!("s{s}.py"),
                format!("{text}if __name__ == \"__main__\":\n    pass\n"),
            ));
            for i in 0..16 {
                owned.push((format!("p{s}_{i}/x/m.py"), String::new()));
            }
        }
        let files: Vec<(&str, &str)> = owned.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        let named: Vec<String> = (0..10).map(|s| format!("s{s}.py")).collect();
        let named: Vec<&str> = named.iter().map(String::as_str).collect();
        let s = discover_in(&files, None, &named);
        let loaded = s.files.iter().filter(|f| f.input.name.ends_with("/m.py")).count();
        assert_eq!(loaded, MAX_BY_NAME);
    }

    #[test]
    fn a_package_importing_itself_is_not_the_module_named_like_it() {
        // imagen-pytorch's layout: `pkg/pkg.py` beside `pkg/__init__.py`; the
        // package's own modules import `pkg` (the package), whose
        // `__init__.py` re-exports the trainer.
        let files = [
            (
                "pkg/__init__.py",
                "from pkg.pkg import Net\nfrom pkg.trainer import Trainer\n",
            ),
            ("pkg/pkg.py", ""),
            ("pkg/trainer.py", ""),
            ("pkg/cli.py", "from pkg import Trainer\n"),
            // A namespace package (no `__init__.py`): the folder beside the
            // script comes first, as Python puts it first on the path.
            ("tools/tools.py", ""),
            ("tools/run.py", "from tools import helper\n"),
        ];
        let want = |rel: &str, module: &str, role| (rel.to_string(), module.to_string(), role);
        let got = named_alone(&files, &["pkg/cli.py"]);
        assert!(
            got.contains(&want("pkg/__init__.py", "pkg", FileRole::Imported)),
            "{got:?}"
        );
        assert!(
            got.contains(&want("pkg/trainer.py", "pkg.trainer", FileRole::Imported)),
            "{got:?}"
        );
        assert!(
            got.contains(&want("pkg/pkg.py", "pkg.pkg", FileRole::Imported)),
            "{got:?}"
        );
        let got = named_alone(&files, &["tools/run.py"]);
        assert!(
            got.contains(&want("tools/tools.py", "tools", FileRole::Imported)),
            "{got:?}"
        );
    }

    #[test]
    fn a_repository_named_as_its_package_resolves_its_own_imports() {
        // mae_st's layout: the clone (here the context `/ctx`) is the package
        // `ctx` itself, with no `__init__.py`, and its scripts import
        // `ctx.engine` as they would once installed.
        let files = [
            (
                "main.py",
                "from ctx.engine import train_one_epoch\nimport ctx.util.misc as misc\n",
            ),
            ("engine.py", ""),
            ("util/misc.py", ""),
            ("other.py", ""),
        ];
        let want = |rel: &str, module: &str, role| (rel.to_string(), module.to_string(), role);
        for named in [&["main.py"][..], &["main.py", "engine.py", "util/misc.py"][..]] {
            let got = named_alone(&files, named);
            assert!(
                got.contains(&want("engine.py", "ctx.engine", FileRole::Imported))
                    || got.contains(&want("engine.py", "ctx.engine", FileRole::Named)),
                "{got:?}"
            );
            assert!(
                got.iter().any(|g| g.0 == "util/misc.py" && g.1 == "ctx.util.misc"),
                "{got:?}"
            );
        }
        // A folder of that name inside the repository is found as it is.
        let nested = [
            ("main.py", "from ctx.engine import train_one_epoch\n"),
            ("ctx/__init__.py", ""),
            ("ctx/engine.py", ""),
            ("engine.py", ""),
        ];
        let got = named_alone(&nested, &["main.py"]);
        assert!(
            got.contains(&want("ctx/engine.py", "ctx.engine", FileRole::Imported)),
            "{got:?}"
        );
        assert!(!got.iter().any(|g| g.0 == "engine.py"), "{got:?}");
    }

    #[test]
    fn legacy_package_with_relative_imports() {
        let s = run(
            &[
                ("seg/__init__.py", ""),
                (
                    "seg/trial.py",
                    "from seg.data import T\nfrom .nets import UNet\nimport torch\n",
                ),
                ("seg/data.py", "import os\n"),
                ("seg/nets.py", "from . import util\n"),
                ("seg/util.py", ""),
                ("other.py", ""),
            ],
            "entrypoint: seg.trial:TileSegTrial\n",
        );
        let got = names(&s);
        assert_eq!(got[0], ("seg/trial.py".into(), "seg.trial".into(), FileRole::Entry));
        let rels: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert!(
            rels.contains(&"seg/data.py")
                && rels.contains(&"seg/nets.py")
                && rels.contains(&"seg/util.py")
                && rels.contains(&"seg/__init__.py"),
            "{got:?}"
        );
        assert!(!rels.contains(&"other.py"));
        assert!(matches!(s.entry, EntrySpec::Found(_, 0)));
    }

    #[test]
    fn folders_a_script_puts_on_sys_path_resolve_its_later_imports() {
        let init_paths = "import os.path as osp\nimport sys\n\ndef add_path(path):\n    if path not in sys.path:\n        sys.path.insert(0, path)\n\nthis_dir = osp.dirname(__file__)\nadd_path(osp.join(this_dir, '..', 'lib'))\n";
        let files = [
            ("tools/_init_paths.py", init_paths),
            (
                "tools/train.py",
                "import config\nimport _init_paths\nfrom config import cfg\nfrom datasets import Cityscapes\n",
            ),
            ("tools/test.py", "import sys, os\nsys.path.append(os.path.join(os.path.dirname(__file__), '..', 'lib'))\nimport datasets\n"),
            ("lib/config/__init__.py", "from .default import cfg\n"),
            ("lib/config/default.py", "cfg = {}\n"),
            ("lib/datasets/__init__.py", "from .cityscapes import Cityscapes\n"),
            ("lib/datasets/cityscapes.py", "import config\n"),
        ];
        let got = named_alone(&files, &["tools/train.py"]);
        let found = |rel: &str| got.iter().find(|g| g.0 == rel).map(|g| g.1.clone());
        // After `import _init_paths` (not before it: the first `import
        // config` finds nothing), `lib` is searched, for the imported
        // modules' imports too.
        assert_eq!(found("lib/config/__init__.py").as_deref(), Some("config"), "{got:?}");
        assert_eq!(
            found("lib/config/default.py").as_deref(),
            Some("config.default"),
            "{got:?}"
        );
        assert_eq!(
            found("lib/datasets/cityscapes.py").as_deref(),
            Some("datasets.cityscapes"),
            "{got:?}"
        );
        let own = named_alone(&files, &["tools/test.py"]);
        assert!(
            own.iter()
                .any(|g| g.0 == "lib/datasets/__init__.py" && g.1 == "datasets"),
            "{own:?}"
        );
        // Without the path setup, nothing under lib is found.
        let plain = named_alone(
            &[("tools/train.py", "import config\n"), ("lib/config/__init__.py", "")],
            &["tools/train.py"],
        );
        assert_eq!(plain.len(), 1, "{plain:?}");
    }

    #[test]
    fn a_linked_module_is_the_file_it_links_to_under_both_names() {
        // icefall's recipes: `zipformer/asr_datamodule.py` links to the one
        // in `tdnn/`, which is a package there.
        let data = "from torch.utils.data import DataLoader\nclass DataModule:\n    pass\n";
        let files = [
            ("zipformer/train.py", "from asr_datamodule import DataModule\n"),
            ("zipformer/asr_datamodule.py", data),
            ("tdnn/__init__.py", ""),
            ("tdnn/asr_datamodule.py", data),
        ];
        let links = [("zipformer/asr_datamodule.py", "tdnn/asr_datamodule.py")];
        let named = ["zipformer/train.py", "tdnn/asr_datamodule.py"];
        let got = discover_linked(&files, &links, None, &named);
        let rels: Vec<String> = got
            .files
            .iter()
            .map(|f| relative(Path::new("/ctx"), Path::new(&f.input.name)).unwrap_or_default())
            .collect();
        // One file, read once, under the path named.
        assert_eq!(rels, ["zipformer/train.py", "tdnn/asr_datamodule.py"], "{rels:?}");
        let data = &got.files[1];
        assert_eq!(data.module, "tdnn.asr_datamodule");
        assert_eq!(data.aliases, ["asr_datamodule"]);
        // Named alone, the import still reads the file linked to.
        let alone = names(&discover_linked(&files, &links, None, &["zipformer/train.py"]));
        assert!(
            alone
                .iter()
                .any(|n| n.0 == "tdnn/asr_datamodule.py" && n.1 == "asr_datamodule"),
            "{alone:?}"
        );
        // A link named on its own keeps its own path.
        let link = names_of(&discover_linked(
            &files,
            &links,
            None,
            &["zipformer/train.py", "zipformer/asr_datamodule.py"],
        ));
        assert_eq!(link, ["zipformer/train.py", "zipformer/asr_datamodule.py"], "{link:?}");
        // The link named beside the file it links to: that file, once.
        let both = names_of(&discover_linked(
            &files,
            &links,
            None,
            &[
                "zipformer/train.py",
                "zipformer/asr_datamodule.py",
                "tdnn/asr_datamodule.py",
            ],
        ));
        assert_eq!(both, ["zipformer/train.py", "tdnn/asr_datamodule.py"], "{both:?}");
        // Only a link gives a file another name: a vendored package named
        // `torch` that its own modules reach as `torch` (BigVGAN's
        // `alias_free_activation/torch`) must not become torch for the
        // whole program.
        let vendored = [
            ("model.py", "from vendor.torch.act import Snake\n"),
            ("vendor/__init__.py", ""),
            ("vendor/torch/__init__.py", "from .act import *\n"),
            (
                "vendor/torch/act.py",
                "import torch\nclass Snake(torch.nn.Module):\n    pass\n",
            ),
        ];
        let got = discover_in(&vendored, None, &["model.py"]);
        assert!(
            got.files.iter().all(|f| f.aliases.is_empty()),
            "{:?}",
            got.files.iter().map(|f| (&f.module, &f.aliases)).collect::<Vec<_>>()
        );
        // Without the link, the import reads the file beside the script.
        let plain = names_of(&discover_linked(&files, &[], None, &["zipformer/train.py"]));
        assert!(plain.iter().any(|n| n == "zipformer/asr_datamodule.py"), "{plain:?}");
    }

    fn names_of(s: &TrainingSources) -> Vec<String> {
        names(s).into_iter().map(|n| n.0).collect()
    }

    #[test]
    fn module_entrypoint_runs_main() {
        let s = run(
            &[
                ("trainer/__init__.py", ""),
                ("trainer/__main__.py", "from trainer.main import run\n"),
                ("trainer/main.py", "from trainer import loop\n"),
                ("trainer/loop.py", ""),
            ],
            "entrypoint: python3 -m determined.launch.torch_distributed -- python3 -m trainer --epochs 6\n",
        );
        let got = names(&s);
        assert_eq!(got[0].0, "trainer/__main__.py");
        assert_eq!(got.len(), 4, "{got:?}");
    }

    #[test]
    fn missing_and_not_python() {
        let s = run(&[], "entrypoint: python train.py\n");
        assert!(matches!(&s.entry, EntrySpec::Missing(_, what) if what.contains("train.py")));
        let s = run(&[], "entrypoint: sh run.sh\n");
        assert!(matches!(s.entry, EntrySpec::NotPython(NotPython::Shell(_))));
        let s = run(&[], "name: x\n");
        assert_eq!(s.entry, EntrySpec::Absent);
        let s = run(&[("a.py", "")], "entrypoint: python ../a.py\n");
        assert!(matches!(&s.entry, EntrySpec::Missing(_, what) if what.contains("outside")));
    }

    #[test]
    fn budgets_leave_files_out_and_say_so() {
        let big = "x = 1\n".repeat(MAX_FILE_BYTES / 6 + 1);
        let mid = "y = 2\n".repeat(166_666);
        // A file over the per-file budget is left out; its neighbours stay.
        let s = run(
            &[
                ("train.py", "import big\nimport small\n"),
                ("big.py", &big),
                ("small.py", "z = 3\n"),
            ],
            "entrypoint: python train.py\n",
        );
        let names: Vec<&str> = s.files.iter().map(|f| f.input.name.as_str()).collect();
        assert_eq!(names, ["/ctx/train.py", "/ctx/small.py"]);
        assert_eq!(s.left_out.len(), 1);
        assert_eq!(
            (s.left_out[0].name.as_str(), s.left_out[0].max),
            ("/ctx/big.py", MAX_FILE_BYTES)
        );
        // Beyond the total, the first file that does not fit is named and
        // the rest are not read.
        let files: Vec<(String, String)> = std::iter::once((
            "train.py".to_string(),
            (0..6).map(|i| format!("import m{i}\n")).collect::<String>(),
        ))
        .chain((0..6).map(|i| (format!("m{i}.py"), mid.clone())))
        .collect();
        let files: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let s = run(&files, "entrypoint: python train.py\n");
        assert_eq!(s.files.len(), 5, "train.py and four modules of 1 MiB fit in 4 MiB");
        assert_eq!(s.left_out.len(), 1);
        assert_eq!(
            (s.left_out[0].name.as_str(), s.left_out[0].max),
            ("/ctx/m4.py", MAX_BYTES)
        );
    }
}
