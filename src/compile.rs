//! The front door: a [`Project`] in, one [`Compiled`] out — every file's
//! parse, the typed settings, the stage declarations, the resolved pipeline
//! with its GPU allocation, and the diagnostics. The CLI, the plan, the
//! language server and the tests all call [`compile`]; none reaches past it.
//!
//! Phases, each a plain-data boundary, data flowing one way:
//! bytes → text ([`decode`]) → YAML documents and Python models (never
//! fail: trees plus issues) → schema findings ([`Document`]) → typed
//! [`Settings`] and [`StageDecl`]s → the [`pipeline::Pipeline`] → rules (every
//! diagnostic, worded in its rule's file) → suppression and sorting, once.

use crate::diagnostic::sort_and_dedup;
use crate::document::Document;
use crate::hardware::inventory;
use crate::pipeline;
use crate::project::{is_stages_yaml, Input, Project};
use crate::schema;
use crate::settings::Settings;
use crate::source::{decode, DecodeIssue, FileId, SourceFile, SourceMap};
use crate::stages::python;
use crate::stages::stages_yaml;
use crate::stages::{from_python, StageDecl};
use crate::yaml::Budgets;
use crate::{rules, suppress};

pub use crate::compiled::{Compiled, Role, Unit};
pub use crate::vars::EnvLookup;

/// Settings of one compilation.
pub struct Options<'a> {
    pub env: EnvLookup<'a>,
    pub budgets: Budgets,
    /// Whether every `${VAR}` must be set: `stagec plan` resolves them, so an
    /// unset one is an error there and only a warning in `check`.
    pub require_variables: bool,
    /// The Determined release the experiment targets (its default image);
    /// `None`: the newest release stagec knows.
    pub determined: Option<&'a str>,
    /// Which diagnostics are reported (rule selection, per-file ignores, a
    /// severity floor: see [`crate::selection`]); `None`: all of them.
    pub selection: Option<&'a crate::selection::Selection>,
    /// List every diagnostic, without the per-rule and per-file caps (L001):
    /// `--fix` compares what a round reports with what it reported before,
    /// so it must see what the caps would hide.
    pub uncapped: bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            env: &|_| None,
            budgets: Budgets::default(),
            require_variables: false,
            determined: None,
            selection: None,
            uncapped: false,
        }
    }
}

/// Compiles several projects on up to `jobs` threads; the results come in
/// the projects' order, whatever the threads' timing.
pub fn compile_all(projects: &[Project], options: &Options<'_>, jobs: usize) -> Vec<Compiled> {
    compile_each(projects, std::slice::from_ref(options), jobs)
}

/// [`compile_all`] with options per project (each checked file's settings):
/// project `i` is compiled with `options[i]` (the last options where there
/// are fewer; the defaults where there are none).
pub fn compile_each(projects: &[Project], options: &[Options<'_>], jobs: usize) -> Vec<Compiled> {
    let defaults = Options::default();
    let options_of = |i: usize| options.get(i).or(options.last()).unwrap_or(&defaults);
    on_threads(projects.len(), jobs, |i| {
        projects.get(i).map(|p| compile(p, options_of(i)))
    })
}

/// [`compile_each`] over projects it owns: each project is dropped once
/// compiled (with the parses its training code kept), and its compilation
/// passed through `then` on the thread that made it, so a run over many
/// projects holds only what `then` keeps of each — `stagec check DIR` keeps
/// what its output needs ([`Compiled::keep_for_output`]).
pub fn compile_each_then<T: Send>(
    projects: Vec<Project>,
    options: &[Options<'_>],
    jobs: usize,
    then: impl Fn(Compiled) -> T + Sync,
) -> Vec<T> {
    let defaults = Options::default();
    let options_of = |i: usize| options.get(i).or(options.last()).unwrap_or(&defaults);
    let slots: Vec<std::sync::Mutex<Option<Project>>> =
        projects.into_iter().map(|p| std::sync::Mutex::new(Some(p))).collect();
    on_threads(slots.len(), jobs, |i| {
        let project = slots.get(i)?.lock().ok()?.take()?;
        let compiled = compile(&project, options_of(i));
        drop(project);
        Some(then(compiled))
    })
}

/// `f(0)`, …, `f(n - 1)` on up to `jobs` threads, in order, whatever the
/// threads' timing; `None`s are left out.
fn on_threads<T: Send>(n: usize, jobs: usize, f: impl Fn(usize) -> Option<T> + Sync) -> Vec<T> {
    let jobs = jobs.clamp(1, n.max(1));
    if jobs == 1 {
        return (0..n).filter_map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<T>> = Vec::new();
    slots.resize_with(n, || None);
    let done: Vec<Vec<(usize, T)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        if let Some(t) = f(i) {
                            out.push((i, t));
                        }
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| match w.join() {
                Ok(out) => out,
                // A panic there is a bug like one here: it goes on as such.
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    for (i, t) in done.into_iter().flatten() {
        if let Some(slot) = slots.get_mut(i) {
            *slot = Some(t);
        }
    }
    slots.into_iter().flatten().collect()
}

/// Compiles a project: every phase, then every rule, then suppressions and
/// sorting.
pub fn compile(project: &Project, options: &Options<'_>) -> Compiled {
    let budgets = &options.budgets;
    let mut sources = SourceMap::new();
    let mut units = Vec::new();
    let mut add = |input: &Input, role: Role| -> FileId {
        let (text, problem) = decode(&input.bytes, budgets.max_bytes);
        units.push(Unit::new(role, problem));
        sources.add(SourceFile::new(input.name.clone(), text))
    };

    let config = add(&project.config, Role::Config);
    // Python files checked without a config (`stagec check train.py`): the
    // config slot holds nothing to read.
    let standalone = project.training.as_ref().is_some_and(|t| t.standalone);
    let models: Vec<FileId> = project
        .models
        .iter()
        .flatten()
        .map(|m| {
            add(
                m,
                if is_stages_yaml(&m.name) {
                    Role::Stages
                } else {
                    Role::Model
                },
            )
        })
        .collect();
    let inventory_file = project.inventory.as_ref().map(|i| add(i, Role::Inventory));
    let probe = project.probe.as_ref().map(|report| {
        let id = sources.add(SourceFile::new("<probe>", report.to_json()));
        units.push(Unit::new(Role::Probe, None));
        (id, report.clone())
    });

    let readable = |units: &[Unit], id: FileId| units.get(id.0 as usize).is_some_and(|u| u.decode.is_none());
    let text_of = |sources: &SourceMap, id: FileId| sources.get(id).map_or("", |f| f.text.as_str()).to_string();

    // The experiment config: YAML, the gate, the schema, typed settings
    // (Python files checked without a config: nothing to read there).
    let mut settings = None;
    if readable(&units, config) && !standalone {
        let text = text_of(&sources, config);
        // Discovery parsed the same text to find the entrypoint: taken, not
        // parsed again.
        let discovered = project
            .training
            .as_ref()
            .and_then(|t| t.config.as_deref())
            .and_then(|kept| kept.take(&text, budgets));
        let mut doc = match discovered {
            Some((tree, issues)) => Document::from_parse(tree, issues),
            None => Document::parse(&text, budgets, crate::yaml::Schema::Master),
        };
        if doc.gate(budgets) {
            if let Some(json) = &doc.json {
                let findings = doc.map(schema::experiment, schema::experiment_errors(json));
                settings = Some(Settings::read(json));
                doc.findings = findings;
            }
        }
        units[config.0 as usize].yaml = Some(doc);
    }

    // Model sources: declarations from Python and `stages.yaml`.
    let mut decls: Vec<StageDecl> = Vec::new();
    // The Python model sources as the stage reader read them: the training
    // analysis reads the same files (one parse each).
    let mut model_files: Vec<(FileId, std::sync::Arc<crate::python::ParsedFile>)> = Vec::new();
    for &id in &models {
        if !readable(&units, id) {
            continue;
        }
        let text = text_of(&sources, id);
        let unit = &mut units[id.0 as usize];
        if unit.role == Role::Stages {
            let read = stages_yaml::read(id, &text, budgets);
            decls.extend(read.decls);
            unit.yaml = Some(read.document);
            unit.stages = read.issues;
        } else {
            let file = crate::python::ParsedFile::shared(&text);
            let model = python::read_model_in(&file);
            model_files.push((id, file));
            decls.extend(from_python::stage_decls(id, &model));
            unit.python = Some(model);
        }
    }

    // The inventory, read or probed.
    let mut inventory = None;
    if let Some(id) = inventory_file.filter(|&id| readable(&units, id)) {
        let read = inventory::read(id, &text_of(&sources, id), budgets);
        let unit = &mut units[id.0 as usize];
        unit.yaml = read.document;
        unit.inventory = read.issues;
        inventory = read.inventory;
    }
    if let Some((id, report)) = &probe {
        inventory = Some(report.to_inventory_in(*id));
    }

    // The pipeline, when declarations were looked for.
    let searched = project.models.as_ref().map(|_| project.searched.clone());
    let determined: &str = match options.determined {
        Some(release) => release,
        None => crate::runtime::image::latest_determined(),
    };
    let runtime = settings.as_ref().and_then(|s| crate::runtime::resolve(s, determined));
    let pipeline = match (&settings, &searched) {
        (Some(settings), Some(_)) => {
            let tree = units[config.0 as usize].yaml.as_ref().map(|d| &d.tree);
            tree.and_then(|tree| {
                pipeline::resolve(config, tree, settings, &decls, inventory.as_ref(), runtime.as_ref())
            })
        }
        _ => None,
    };

    // The training code: registered after every other file, parsed chunk
    // by chunk when a rule asks.
    let training = project.training.as_ref().map(|t| {
        let config_json = units[config.0 as usize].yaml.as_ref().and_then(|d| d.json.as_ref());
        let mut facts = crate::training::runtime::ConfigFacts::read(config_json, settings.as_ref(), !standalone);
        facts.torch_pin = t.torch_pin;
        facts.run_files = std::sync::Arc::new(crate::training::run_files::RunFiles::new(t.run_files.clone()));
        let models: Vec<(FileId, String, std::sync::Arc<crate::python::ParsedFile>)> = model_files
            .iter()
            .filter_map(|(id, file)| {
                sources
                    .get(*id)
                    .map(|f| (*id, f.name.clone(), std::sync::Arc::clone(file)))
            })
            .collect();
        let mut register = |input: &Input| -> Option<crate::training::Registered> {
            if let Some((id, f)) = sources.iter().find(|(_, f)| f.name == input.name) {
                let usable = units.get(id.0 as usize).is_some_and(|u| u.decode.is_none());
                return usable.then(|| crate::training::Registered {
                    file: id,
                    text: f.text.clone(),
                });
            }
            let (text, problem) = decode(&input.bytes, budgets.max_bytes);
            if problem.is_some() {
                return None;
            }
            units.push(Unit::new(Role::Training, None));
            let file = sources.add(SourceFile::new(input.name.clone(), text.clone()));
            Some(crate::training::Registered { file, text })
        };
        crate::training::attach(t, &mut register, &models, facts)
    });
    // Training files left out for a budget: named, never read (Y005).
    for left in project.training.iter().flat_map(|t| t.left_out.iter()) {
        if sources.iter().any(|(_, f)| f.name == left.name) {
            continue;
        }
        units.push(Unit::new(
            Role::Training,
            Some(DecodeIssue::TooLarge {
                len: left.bytes,
                max: left.max,
            }),
        ));
        sources.add(SourceFile::new(left.name.clone(), String::new()));
    }

    let mut compiled = Compiled {
        sources,
        units,
        config,
        settings,
        decls,
        searched,
        inventory,
        probe,
        runtime,
        pipeline,
        training,
        diagnostics: Vec::new(),
    };
    let enabled = |code: &str| options.selection.is_none_or(|s| s.is_enabled(code));
    let context = rules::RunOptions {
        env: options.env,
        require_variables: options.require_variables,
        uncapped: options.uncapped,
        enabled: &enabled,
    };
    let mut diagnostics = rules::run(&compiled, &context);
    for (id, source) in compiled.sources.iter() {
        suppress::apply(id, source, &mut diagnostics);
    }
    if let Some(selection) = options.selection {
        selection.apply(&mut diagnostics, &compiled.sources);
    }
    sort_and_dedup(&mut diagnostics);
    if !options.uncapped {
        rules::cap_per_file(&mut diagnostics);
    }
    compiled.diagnostics = diagnostics;
    compiled
}

/// Checks one experiment config on its own (no stage declarations looked
/// for), given as bytes under the name the user gave it.
pub fn check_experiment(name: &str, bytes: &[u8], options: &Options<'_>) -> Compiled {
    compile(&Project::config_only(name, bytes), options)
}
