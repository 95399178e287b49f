//! stagec: a compiler and validator for Determined experiment configs with
//! heterogeneous pipeline stages.
//!
//! One pipeline, one front door: [`compile`] takes a [`project::Project`]
//! (discovered with [`project::Project::discover`]) and returns a
//! [`Compiled`] — every file's parse, the typed settings, the resolved
//! pipeline and the diagnostics. The CLI, the language server and the tests
//! all go through it.
//!
//! # Layers
//!
//! Every module stands on a floor. A module uses (`crate::…`) modules of
//! its own floor and lower ones, never a higher floor, and no two modules
//! need each other, directly or around a circle. A test reads this list and
//! every source file (tests and comments left out) and fails on a use of a
//! higher floor or a circle, naming the files; a new module needs a floor
//! here for that test to pass.
//!
//! * floor 0: `escape`, `fsutil`, `python_grammar`, `rule`, `spec`, `suggest` — leaves: escaping, files and paths, the grammar, what a rule is, the config's types, near-miss suggestions
//! * floor 1: `diagnostic`, `dtype`, `python`, `source`, `yaml` — text: source files and spans, diagnostics, dtypes, the Python and YAML front ends
//! * floor 2: `document`, `edit`, `envvars`, `schema`, `secrets`, `settings`, `suppress`, `vars` — readers and editors over text and trees, typed settings
//! * floor 3: `hardware`, `pipeline`, `project`, `runtime`, `stages`, `training` — the domain: GPUs and inventories, images, stage declarations, the pipeline, training code, a project's files
//! * floor 4: `compiled` — what a compilation produced: the facts, then the diagnostics
//! * floor 5: `rules` — every rule, the registry and the engine
//! * floor 6: `compile`, `selection` — the driver and which rules it reports
//! * floor 7: `fix`, `ide`, `plan`, `render`, `schemas`, `settings_file` — what is built on a compilation: fixes, editor features, plans, output, settings files, the JSON Schemas
//!
//! Documentation links may point anywhere; the CLI (`src/cli`) is a client
//! of the library, outside the floors.

pub mod compile;
pub mod compiled;
pub mod diagnostic;
pub mod document;
pub mod dtype;
pub mod edit;
pub mod envvars;
pub mod escape;
pub mod fix;
pub mod fsutil;
pub mod hardware;
pub mod ide;
pub mod pipeline;
pub mod plan;
pub mod project;
pub mod python;
pub mod python_grammar;
pub mod render;
#[macro_use]
pub mod rule;
pub mod rules;
pub mod runtime;
pub mod schema;
pub mod schemas;
pub mod secrets;
pub mod selection;
pub mod settings;
pub mod settings_file;
pub mod source;
pub mod spec;
pub mod stages;
pub mod suggest;
pub mod suppress;
pub mod training;
pub mod vars;
pub mod yaml;

pub use compile::{check_experiment, compile, compile_all, compile_each, Compiled, Options};
pub use diagnostic::{Diagnostic, Severity};

#[cfg(test)]
mod layering;
