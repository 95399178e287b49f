//! What a compilation reads: an experiment config, its model sources
//! (`*.py` with `@stage_decorator`, `stages.yaml`) and, optionally, a
//! cluster inventory or a probed host, each as a name and its bytes.
//!
//! [`Project::discover`] is the one way a project is assembled from the file
//! system, shared by the CLI, the language server (whose open buffers are an
//! [`Overlay`] over the disk) and the tests: the context folder is scanned
//! once ([`ContextScan`]) the way `det experiment create CONFIG CONTEXT`
//! uploads it, and every config in that folder reuses the scan.

use std::path::{Path, PathBuf};

use crate::fsutil::{self, FileLimit};
use crate::hardware::probe::ProbeReport;
pub use crate::source::{display_name, Input};
use crate::stages::python::STAGE_DECORATOR;

/// Largest input read, in bytes; a larger file is read to this size plus
/// one byte and then reported as too large.
pub const MAX_INPUT: usize = 8 * 1024 * 1024;

/// Most bytes of a requirements file (`pyproject.toml`, `requirements.txt`,
/// `setup.py`) read for its PyTorch pin.
const MAX_REQUIREMENTS: usize = 256 * 1024;

/// The newest PyTorch release the requirements files of folder `dir` allow,
/// where one bounds it (see [`crate::training::runtime::ConfigFacts::torch_pin_in`]).
fn torch_pin_at(dir: &Path) -> Option<(u32, u32)> {
    ["pyproject.toml", "requirements.txt", "setup.py"]
        .iter()
        .filter_map(|f| fsutil::read_limited(&dir.join(f), MAX_REQUIREMENTS).ok())
        .filter_map(|bytes| crate::training::runtime::ConfigFacts::torch_pin_in(&crate::source::lossy(&bytes)))
        .max()
}
/// Most JSON/YAML files of a context listed as config files the training
/// code may load at run time.
const MAX_RUN_FILES: usize = 400;
/// Largest such file read; a larger one (annotations, not a config) is
/// skipped.
const MAX_RUN_FILE: usize = 128 * 1024;
/// Most bytes of such files read for one check.
const MAX_RUN_FILE_BYTES: usize = 4 * 1024 * 1024;
/// What a training file must mention for the config files to be read.
const RUN_FILE_LOADERS: &[&str] = &["json.load", "yaml", "OmegaConf", "hydra", "LightningCLI"];

/// Whether a file name is a JSON or YAML file's.
fn is_run_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".json") || lower.ends_with(".yaml") || lower.ends_with(".yml")
}

/// Largest `.detignore` read.
pub const MAX_DETIGNORE: usize = 1024 * 1024;
/// Most directory entries a context scan looks at; beyond it the scan stops
/// with a problem that names the limit.
pub const MAX_SCAN_ENTRIES: usize = 100_000;
/// Deepest folder level a context scan descends to.
pub const MAX_SCAN_DEPTH: usize = 32;

/// What to compile together.
#[derive(Clone, Debug)]
pub struct Project {
    pub config: Input,
    /// The model sources: `.py` files are read for decorators, `.yaml`/`.yml`
    /// files as `stages.yaml`. `None` when stage declarations were not looked
    /// for (a config checked on its own): the pipeline is then not resolved.
    pub models: Option<Vec<Input>>,
    pub inventory: Option<Input>,
    /// The probed host, used as the inventory (`--probe`).
    pub probe: Option<ProbeReport>,
    /// Where the model sources were looked for, for messages.
    pub searched: String,
    /// The training code (the entrypoint's file and the context modules it
    /// imports); `None` when it was not looked for.
    pub training: Option<crate::training::TrainingSources>,
}

impl Project {
    /// A config checked on its own: no stage declarations are looked for.
    pub fn config_only(name: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Project {
        Project {
            config: Input {
                name: name.into(),
                bytes: bytes.into(),
            },
            models: None,
            inventory: None,
            probe: None,
            searched: String::new(),
            training: None,
        }
    }

    /// Assembles the project of the config at `config`: its model sources
    /// (the `--model` files when given, else those of the context `scan`,
    /// with the `overlay`'s buffers winning over the disk) and the inventory.
    /// `Err` when the config cannot be read; companions that cannot be read
    /// are returned as problems (the CLI exits 2 on them; the scan's own
    /// problems are the caller's to report once), and the project holds
    /// what could be read.
    pub fn discover(
        config: &Path,
        sources: &SourceSpec,
        scan: Option<&ContextScan>,
        overlay: &dyn Overlay,
    ) -> Result<(Project, Vec<String>), String> {
        Project::discover_with(config, sources, scan, overlay, &[])
    }

    /// [`Project::discover`], with Python files `named` (on the command
    /// line) read as training code of the experiment too.
    pub fn discover_with(
        config: &Path,
        sources: &SourceSpec,
        scan: Option<&ContextScan>,
        overlay: &dyn Overlay,
        named: &[PathBuf],
    ) -> Result<(Project, Vec<String>), String> {
        let mut problems = Vec::new();
        let config_input = read(config, overlay)?;
        let mut models = Vec::new();
        let searched = if sources.models.is_empty() {
            if let Some(scan) = scan {
                for path in scan.models_with(overlay) {
                    if path == config {
                        continue;
                    }
                    match read(&path, overlay) {
                        Ok(input) => models.push(input),
                        Err(e) => problems.push(e),
                    }
                }
                format!("`{}`", scan.dir.display())
            } else {
                "the editor".to_string()
            }
        } else {
            for path in &sources.models {
                match read(path, overlay) {
                    Ok(input) => models.push(input),
                    Err(e) => problems.push(e),
                }
            }
            "the `--model` files".to_string()
        };
        let inventory = sources.inventory.as_deref().and_then(|path| match read(path, overlay) {
            Ok(input) => Some(input),
            Err(e) => {
                problems.push(e);
                None
            }
        });
        // The training code, found in the context the scan walked.
        let training = scan.map(|scan| {
            let (found, more) = scan.training_sources(Some(&config_input), named, overlay, &models);
            problems.extend(more);
            found
        });
        let project = Project {
            config: config_input,
            models: Some(models),
            inventory,
            probe: sources.probe.clone(),
            searched,
            training,
        };
        Ok((project, problems))
    }
}

impl Project {
    /// Python files checked on their own, without an experiment config
    /// (`stagec check train.py`): the files, the context modules they
    /// import (found in `scan`), and the problems reading them.
    pub fn python_only(named: &[PathBuf], scan: &ContextScan, overlay: &dyn Overlay) -> (Project, Vec<String>) {
        let (training, problems) = scan.training_sources(None, named, overlay, &[]);
        let project = Project {
            training: Some(training),
            models: Some(Vec::new()),
            searched: format!("`{}`", scan.dir.display()),
            ..Project::config_only("", Vec::new())
        };
        (project, problems)
    }
}

/// Where a config's companions come from, as the command line states it.
#[derive(Clone, Debug, Default)]
pub struct SourceSpec {
    /// Model sources named explicitly (`--model`); they replace the scan.
    pub models: Vec<PathBuf>,
    /// The inventory file (`--inventory`).
    pub inventory: Option<PathBuf>,
    /// The probed host (`--probe`).
    pub probe: Option<ProbeReport>,
}

/// Text the caller holds for some paths (an editor's open buffers): it wins
/// over the file on disk.
pub trait Overlay {
    /// The held text of `path`, if any.
    fn text(&self, path: &Path) -> Option<&str>;
    /// Every path the caller holds text for.
    fn paths(&self) -> Vec<PathBuf>;
    /// The held paths under `dir`. An overlay holding many files (an
    /// editor's open documents) answers from an ordered index, so each
    /// discovery reads only its own folder's.
    fn paths_under(&self, dir: &Path) -> Vec<PathBuf> {
        self.paths().into_iter().filter(|p| p.starts_with(dir)).collect()
    }
}

impl Project {
    /// Every input's current text by path (config, model sources, training
    /// files), for discovering the project again through an overlay.
    pub fn texts(&self) -> Texts {
        let mut texts = Texts::default();
        let mut add = |i: &Input| {
            if let Ok(t) = std::str::from_utf8(&i.bytes) {
                texts.0.entry(PathBuf::from(&i.name)).or_insert_with(|| t.to_string());
            }
        };
        add(&self.config);
        self.models.iter().flatten().for_each(&mut add);
        if let Some(t) = &self.training {
            t.files.iter().for_each(|f| add(&f.input));
        }
        texts
    }
}

/// Texts held in memory by path: an [`Overlay`] over the disk.
#[derive(Clone, Debug, Default)]
pub struct Texts(pub std::collections::BTreeMap<PathBuf, String>);

impl Overlay for Texts {
    /// Keyed by input names, so `./model.py` finds `model.py`.
    fn text(&self, path: &Path) -> Option<&str> {
        self.0
            .get(path)
            .or_else(|| self.0.get(Path::new(&display_name(path))))
            .map(String::as_str)
    }

    fn paths(&self) -> Vec<PathBuf> {
        self.0.keys().cloned().collect()
    }
}

/// No overlay: everything comes from the disk.
pub struct Disk;

impl Overlay for Disk {
    fn text(&self, _: &Path) -> Option<&str> {
        None
    }

    fn paths(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

fn read(path: &Path, overlay: &dyn Overlay) -> Result<Input, String> {
    if let Some(text) = overlay.text(path) {
        return Ok(Input {
            name: display_name(path),
            bytes: text.as_bytes().to_vec(),
        });
    }
    fsutil::read_limited(path, MAX_INPUT)
        .map(|bytes| Input {
            name: display_name(path),
            bytes,
        })
        .map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Whether a model source's name makes it a `stages.yaml` (else Python).
pub fn is_stages_yaml(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml")
}

/// The model sources of a context folder, found on disk once and reused
/// for every config in the folder.
#[derive(Clone, Debug, Default)]
pub struct ContextScan {
    pub dir: PathBuf,
    /// The folder's own name (`mae_st` for `.` in a clone of that name):
    /// where a repository is itself the package its scripts import.
    pub name: Option<String>,
    /// The newest PyTorch release the folder's `pyproject.toml`,
    /// `requirements.txt` or `setup.py` allow, where one bounds it.
    pub torch_pin: Option<(u32, u32)>,
    /// Candidates in path order: `stages.yaml`/`stages.yml` at the top, and
    /// every Python file with whether it mentions `stage_decorator` on disk.
    candidates: Vec<Candidate>,
    /// The JSON and YAML files of the context (paths only, at most
    /// [`MAX_RUN_FILES`]): the config files training code may load at run
    /// time (`json.load(open(args.config))`).
    run_files: Vec<PathBuf>,
    /// What could not be read or where the scan stopped, for the user.
    pub problems: Vec<String>,
}

#[derive(Clone, Debug)]
struct Candidate {
    path: PathBuf,
    /// A `stages.yaml`, or a Python file that mentions `stage_decorator`.
    declares: bool,
    python: bool,
    /// For a link to a file of the context, that file (under the context
    /// folder as the scan names it): one module with two paths.
    link: Option<PathBuf>,
}

impl ContextScan {
    /// Scans `dir` the way Determined's CLI walks a context it uploads:
    /// `.detignore` (gitignore syntax, plus Determined's default patterns)
    /// excludes paths, and symbolic links to folders are not followed. Only
    /// regular files are opened (never a FIFO or a device), a link to a file
    /// only when it stays inside the context, and every read is bounded.
    /// Hidden folders, caches and virtual environments are skipped too.
    pub fn new(dir: &Path) -> ContextScan {
        Self::scan(dir, &mut |path| fsutil::read_limited(path, MAX_INPUT))
    }

    /// The same walk, listing the Python files without reading any: what a
    /// check of Python files without a config needs (their imports are
    /// found among the files; no model source is looked for).
    pub fn listing(dir: &Path) -> ContextScan {
        Self::scan(dir, &mut |_| Ok(Vec::new()))
    }

    /// The scan, with `read` reading each Python file it lists. An entry that
    /// is gone by the time it is read (a build or an editor replaced it) is
    /// skipped, as `git status` skips it: the folder changed, nothing failed.
    fn scan(dir: &Path, read: &mut dyn FnMut(&Path) -> std::io::Result<Vec<u8>>) -> ContextScan {
        let mut scan = ContextScan {
            dir: dir.to_path_buf(),
            name: std::fs::canonicalize(dir)
                .ok()
                .and_then(|d| d.file_name().and_then(|n| n.to_str()).map(str::to_string)),
            torch_pin: torch_pin_at(dir),
            ..ContextScan::default()
        };
        match std::fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                scan.problems
                    .push(format!("the context {} is not a directory", dir.display()));
                return scan;
            }
            Err(e) => {
                scan.problems
                    .push(format!("cannot read the context {}: {e}", dir.display()));
                return scan;
            }
        }
        let ignore = detignore(dir, &mut scan.problems);
        let ignored =
            |relative: &Path, is_dir: bool| ignore.as_ref().is_some_and(|i| i.matched(relative, is_dir).is_ignore());
        let mut root: Option<PathBuf> = None;
        let mut seen = 0usize;
        let mut stack = vec![(dir.to_path_buf(), 0usize)];
        'walk: while let Some((folder, depth)) = stack.pop() {
            let listing = match std::fs::read_dir(&folder) {
                Ok(listing) => listing,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && depth > 0 => continue,
                Err(e) => {
                    scan.problems.push(format!("cannot read {}: {e}", folder.display()));
                    continue;
                }
            };
            let mut entries: Vec<std::fs::DirEntry> = Vec::new();
            for entry in listing {
                seen += 1;
                if seen > MAX_SCAN_ENTRIES {
                    scan.problems.push(format!(
                        "the context {} has more than {MAX_SCAN_ENTRIES} entries; stagec stopped looking for model sources there (pass them with `--model`, or exclude folders in `.detignore`)",
                        dir.display()
                    ));
                    break 'walk;
                }
                match entry {
                    Ok(entry) => entries.push(entry),
                    Err(e) => scan.problems.push(format!("cannot read {}: {e}", folder.display())),
                }
            }
            entries.sort_by_key(std::fs::DirEntry::path);
            for entry in entries {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                let Ok(kind) = entry.file_type() else { continue };
                let relative = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
                if kind.is_dir() {
                    let skip = name.starts_with('.')
                        || matches!(
                            name.as_str(),
                            "__pycache__" | "node_modules" | "venv" | "site-packages" | "target"
                        );
                    if skip
                        || depth + 1 > MAX_SCAN_DEPTH
                        || ignored_by_default(&relative, &name)
                        || ignored(&relative, true)
                    {
                        continue;
                    }
                    stack.push((path, depth + 1));
                    continue;
                }
                if ignored(&relative, false) {
                    continue;
                }
                let stages = depth == 0 && (name == "stages.yaml" || name == "stages.yml");
                let python = name.ends_with(".py");
                if !stages && !python && is_run_file(&name) && kind.is_file() && scan.run_files.len() < MAX_RUN_FILES {
                    scan.run_files.push(path);
                    continue;
                }
                if !(stages || python) {
                    continue;
                }
                // A link is read only when it names a regular file inside the
                // context; folder links are never followed (above).
                let mut link = None;
                if kind.is_symlink() {
                    let root =
                        root.get_or_insert_with(|| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()));
                    let Some(target) = link_inside(&path, root) else {
                        continue;
                    };
                    link = target.strip_prefix(&*root).ok().map(|rel| dir.join(rel));
                }
                if !kind.is_file() && !kind.is_symlink() {
                    continue;
                }
                let declares = stages
                    || match read(&path) {
                        Ok(bytes) => mentions_stage_decorator(&bytes),
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                        Err(e) => {
                            scan.problems.push(format!("cannot read {}: {e}", path.display()));
                            false
                        }
                    };
                scan.candidates.push(Candidate {
                    path,
                    declares,
                    python,
                    link,
                });
            }
        }
        scan.candidates.sort_by(|a, b| a.path.cmp(&b.path));
        scan.run_files.sort();
        scan
    }

    /// The model sources, with `overlay`'s buffers deciding for themselves:
    /// a decorator typed into an open file counts, one deleted from it does
    /// not, and an open Python file under the context that is not on disk
    /// yet joins.
    pub fn models_with(&self, overlay: &dyn Overlay) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for c in &self.candidates {
            let declares = match overlay.text(&c.path) {
                Some(text) if c.python => mentions_stage_decorator(text.as_bytes()),
                _ => c.declares,
            };
            if declares {
                out.push(c.path.clone());
            }
        }
        // Held paths are looked up in a set: an editor holding many files
        // costs each discovery one pass over them, not one per candidate.
        let known: std::collections::HashSet<&Path> = self.candidates.iter().map(|c| c.path.as_path()).collect();
        let mut joined = Vec::new();
        for path in overlay.paths_under(&self.dir) {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let could_join = (name.ends_with(".py") && path.starts_with(&self.dir))
                || ((name == "stages.yaml" || name == "stages.yml") && path.parent() == Some(self.dir.as_path()));
            if !could_join || known.contains(path.as_path()) {
                continue;
            }
            let Some(text) = overlay.text(&path) else { continue };
            let joins = if name.ends_with(".py") {
                path.starts_with(&self.dir) && mentions_stage_decorator(text.as_bytes())
            } else {
                (name == "stages.yaml" || name == "stages.yml") && path.parent() == Some(self.dir.as_path())
            };
            if joins {
                joined.push(path);
            }
        }
        out.extend(joined);
        out.sort();
        out.dedup();
        out
    }
}

impl ContextScan {
    /// Every Python file of the context (after `.detignore`), with the
    /// `overlay`'s Python files under the context that are not on disk yet.
    pub fn python_files_with(&self, overlay: &dyn Overlay) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .candidates
            .iter()
            .filter(|c| c.python)
            .map(|c| c.path.clone())
            .collect();
        for path in overlay.paths_under(&self.dir) {
            let is_py = path.extension().is_some_and(|e| e == "py");
            if is_py && path.starts_with(&self.dir) {
                out.push(path);
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The context's Python files that are links to another of its Python
    /// files, with that file: `(link, target)`.
    pub fn python_links(&self) -> Vec<(PathBuf, PathBuf)> {
        self.candidates
            .iter()
            .filter(|c| c.python)
            .filter_map(|c| Some((c.path.clone(), c.link.clone()?)))
            .filter(|(_, target)| target.extension().is_some_and(|e| e == "py"))
            .collect()
    }

    /// The training code of the config `config` (or of `named` Python
    /// files alone when `config` is `None`), read through `overlay`, and
    /// what could not be read. A file among `read_before` (the model
    /// sources this discovery read) is taken from there, not read again:
    /// every reader of a check sees the same text of a file.
    pub fn training_sources(
        &self,
        config: Option<&Input>,
        named: &[PathBuf],
        overlay: &dyn Overlay,
        read_before: &[Input],
    ) -> (crate::training::TrainingSources, Vec<String>) {
        let files = self.python_files_with(overlay);
        let text = config.map(|c| crate::source::lossy(&c.bytes).into_owned());
        let before: std::collections::HashMap<&str, &Input> =
            read_before.iter().map(|i| (i.name.as_str(), i)).collect();
        let mut reader = |p: &Path| match before.get(display_name(p).as_str()) {
            Some(input) => Ok((*input).clone()),
            None => read(p, overlay),
        };
        // The config files, read once: by discovery where some module
        // builds classes they name, else below.
        let mut held: Option<Vec<Input>> = None;
        let mut named_classes = || {
            let inputs = self.run_file_inputs(overlay);
            let mut names = Vec::new();
            for i in &inputs {
                crate::training::discover::config_named_classes(&crate::source::lossy(&i.bytes), &mut names);
            }
            held = Some(inputs);
            names
        };
        let (mut sources, problems) = crate::training::discover::discover(
            text.as_deref(),
            &self.dir,
            self.name.as_deref(),
            &files,
            &self.python_links(),
            named,
            &mut reader,
            &mut named_classes,
        );
        // The requirements nearest the named files (a project's own folder
        // in a repository of several), else the context root's.
        sources.torch_pin = named
            .iter()
            .filter_map(|f| {
                f.parent()?
                    .ancestors()
                    .take_while(|d| {
                        !d.as_os_str().is_empty()
                            && *d != self.dir.as_path()
                            && (d.is_relative() || d.starts_with(&self.dir))
                    })
                    .find_map(torch_pin_at)
            })
            .max()
            .or(self.torch_pin);
        // Config files the code may load at run time: read only where some
        // training file loads JSON or YAML at all, each bounded, all of them
        // bounded together.
        let loads = sources
            .files
            .iter()
            .any(|f| RUN_FILE_LOADERS.iter().any(|l| mentions(&f.input.bytes, l)));
        if loads || held.is_some() {
            sources.run_files = match held {
                Some(inputs) => inputs,
                None => self.run_file_inputs(overlay),
            };
        }
        (sources, problems)
    }

    /// The context's JSON and YAML files, each bounded and all of them
    /// bounded together, with `overlay`'s buffers for their text.
    fn run_file_inputs(&self, overlay: &dyn Overlay) -> Vec<Input> {
        let mut out = Vec::new();
        let mut total = 0usize;
        for path in &self.run_files {
            if total >= MAX_RUN_FILE_BYTES {
                break;
            }
            let bytes = match overlay.text(path) {
                Some(text) => text.as_bytes().to_vec(),
                None => match fsutil::read_limited(path, MAX_RUN_FILE) {
                    Ok(bytes) => bytes,
                    Err(_) => continue,
                },
            };
            if bytes.len() > MAX_RUN_FILE {
                continue;
            }
            total += bytes.len();
            let rel = path.strip_prefix(&self.dir).unwrap_or(path);
            out.push(Input {
                name: rel.to_string_lossy().replace('\\', "/"),
                bytes,
            });
        }
        out
    }
}

/// Whether a Python source mentions the decorator at all (a cheap filter
/// before parsing).
pub fn mentions_stage_decorator(bytes: &[u8]) -> bool {
    mentions(bytes, STAGE_DECORATOR)
}

/// Whether `bytes` hold `needle` anywhere (a cheap filter before reading
/// further).
fn mentions(bytes: &[u8], needle: &str) -> bool {
    let needle = needle.as_bytes();
    !needle.is_empty() && bytes.windows(needle.len()).any(|w| w == needle)
}

/// The regular file inside `root` the link at `path` resolves to, if it
/// does.
fn link_inside(path: &Path, root: &Path) -> Option<PathBuf> {
    let target = std::fs::canonicalize(path).ok()?;
    (target.starts_with(root) && target.is_file()).then_some(target)
}

/// Folders Determined's CLI leaves out of every upload (its default
/// `.detignore` patterns that can name a folder holding Python sources; the
/// others name files stagec never reads, or hidden folders it skips anyway).
fn ignored_by_default(relative: &Path, name: &str) -> bool {
    matches!(name, "terraform" | "terraform_data")
        || name.starts_with(".terraform")
        || (name == "shared_fs" && relative.parent() == Some(Path::new("")))
}

/// The context's `.detignore`, when it has one (gitignore syntax, as
/// Determined reads it with `pathspec`).
fn detignore(dir: &Path, problems: &mut Vec<String>) -> Option<ignore::gitignore::Gitignore> {
    let path = dir.join(".detignore");
    let bytes = match fsutil::read_regular(&path, MAX_DETIGNORE) {
        Ok(FileLimit::Within(bytes)) => bytes,
        Ok(FileLimit::Beyond) => {
            problems.push(format!(
                "{} is larger than {MAX_DETIGNORE} bytes; stagec does not read it",
                path.display()
            ));
            return None;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            problems.push(format!("cannot read {}: {e}", path.display()));
            return None;
        }
    };
    let mut builder = ignore::gitignore::GitignoreBuilder::new(dir);
    for line in crate::source::lossy(&bytes).lines() {
        let _ = builder.add_line(Some(path.clone()), line);
    }
    builder.build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("stagec-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    const MODEL: &str = "@stage_decorator(stage_id=0)\nclass A: pass\n";

    #[test]
    fn run_config_files_are_read_bounded_and_only_where_code_loads_them() {
        let loads = "import json\ncfg = json.load(open('c.json'))\n";
        // More files than are listed (and a folder named like one).
        let dir = temp("runfiles-count");
        write(&dir.join("train.py"), loads);
        for i in 0..(MAX_RUN_FILES + 50) {
            write(&dir.join(format!("cfg/c{i:04}.yaml")), "num_workers: 4\n");
        }
        std::fs::create_dir_all(dir.join("folder.json")).unwrap_or_else(|e| panic!("{e}"));
        let scan = ContextScan::new(&dir);
        assert_eq!(scan.run_files.len(), MAX_RUN_FILES, "listed up to the count");
        assert!(!scan.run_files.iter().any(|p| p.ends_with("folder.json")));
        let _ = std::fs::remove_dir_all(&dir);

        // More bytes than are read, an oversized file, code that loads none.
        let dir = temp("runfiles-bytes");
        write(&dir.join("train.py"), loads);
        write(&dir.join("other.py"), "print(1)\n");
        let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(MAX_RUN_FILE / 2));
        // 80 × 64 KB: more than the total read.
        for i in 0..80 {
            write(&dir.join(format!("big/b{i:02}.json")), &big);
        }
        write(&dir.join("a/huge.json"), &"x".repeat(MAX_RUN_FILE + 1));
        let scan = ContextScan::new(&dir);
        assert_eq!(scan.run_files.len(), 81);
        let (sources, _) = scan.training_sources(None, &[dir.join("train.py")], &Disk, &[]);
        let total: usize = sources.run_files.iter().map(|i| i.bytes.len()).sum();
        assert!(!sources.run_files.is_empty());
        assert!(
            total <= MAX_RUN_FILE_BYTES + MAX_RUN_FILE,
            "read up to the total: {total}"
        );
        assert!(sources.run_files.iter().all(|i| i.bytes.len() <= MAX_RUN_FILE));
        assert!(!sources.run_files.iter().any(|i| i.name.ends_with("huge.json")));
        assert!(sources
            .run_files
            .iter()
            .all(|i| !i.name.starts_with('/') && !i.name.contains('\\')));
        let (quiet, _) = scan.training_sources(None, &[dir.join("other.py")], &Disk, &[]);
        assert!(quiet.run_files.is_empty(), "code that loads no JSON or YAML reads none");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn detignore_patterns_as_determined_reads_them() {
        let dir = temp("detignore");
        for p in [
            "model.py",
            "weights.ckpt.py",
            "sub/weights.ckpt.py",
            "old/model.py",
            "data/raw/model.py",
            "x/data/raw/model.py",
            "experiments/a/b/model.py",
            "keep.ckpt.py",
            "[ab].py",
            "b.py",
        ] {
            write(&dir.join(p), MODEL);
        }
        write(
            &dir.join(".detignore"),
            "# comment\n*.ckpt.py\nold/\n/data/raw\nexperiments/**/model.py\n!keep.ckpt.py\n[ab].py\n",
        );
        let found: Vec<String> = ContextScan::new(&dir)
            .models_with(&Disk)
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap_or(p).to_string_lossy().replace('\\', "/"))
            .collect();
        assert_eq!(found, ["[ab].py", "keep.ckpt.py", "model.py", "x/data/raw/model.py"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn scan_keeps_declaring_sources_only() {
        let dir = temp("scan");
        write(&dir.join("model.py"), MODEL);
        write(&dir.join("train.py"), "print(1)\n");
        write(&dir.join("stages.yaml"), "stages: []\n");
        write(&dir.join("sub/stages.yaml"), "stages: []\n");
        let found = ContextScan::new(&dir).models_with(&Disk);
        assert_eq!(found, vec![dir.join("model.py"), dir.join("stages.yaml")]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn names_drop_a_leading_dot_folder_only() {
        for (path, name) in [
            ("./model.py", "model.py"),
            ("./sub/model.py", "sub/model.py"),
            ("model.py", "model.py"),
            ("../model.py", "../model.py"),
            (".hidden/model.py", ".hidden/model.py"),
            (".", "."),
        ] {
            assert_eq!(display_name(Path::new(path)), name, "{path}");
        }
    }

    #[test]
    fn texts_are_found_by_the_path_the_scan_uses() {
        let mut texts = Texts::default();
        texts.0.insert(PathBuf::from("model.py"), "x".into());
        assert_eq!(texts.text(Path::new("./model.py")), Some("x"));
        assert_eq!(texts.text(Path::new("model.py")), Some("x"));
        assert_eq!(texts.text(Path::new("./train.py")), None);
    }

    #[test]
    fn an_entry_gone_before_it_is_read_is_skipped_and_a_failed_read_is_reported() {
        let dir = temp("vanished");
        write(&dir.join("model.py"), MODEL);
        write(&dir.join("gone.py"), MODEL);
        write(&dir.join("locked.py"), MODEL);
        let scan = ContextScan::scan(&dir, &mut |path| match path.file_name().and_then(|n| n.to_str()) {
            Some("gone.py") => Err(std::io::ErrorKind::NotFound.into()),
            Some("locked.py") => Err(std::io::ErrorKind::PermissionDenied.into()),
            _ => std::fs::read(path),
        });
        assert_eq!(scan.models_with(&Disk), vec![dir.join("model.py")]);
        assert_eq!(scan.problems.len(), 1, "{:?}", scan.problems);
        assert!(scan.problems[0].contains("locked.py"), "{:?}", scan.problems);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
