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
//! Every module stands on a floor and uses (`crate::…`) only modules on
//! lower floors: no module reaches up, so no two modules need each other.
//! A test reads this list and every source file (tests and comments left
//! out) and fails on a use of the same or a higher floor, naming the file;
//! a new module gets a floor here before it builds.
//!
//! * floor 0: `escape`, `fsutil`, `python_grammar`, `rule`, `spec`, `suggest` — leaves: escaping, file reading and paths, the grammar, what a rule is, the config's types, near-miss suggestions
//! * floor 1: `dtype`, `source` — dtypes, source files and spans
//! * floor 2: `diagnostic`, `yaml` — the diagnostic type, the YAML parser
//! * floor 3: `edit`, `envvars`, `schema`, `secrets`, `suppress`, `vars` — readers and editors over text and trees
//! * floor 4: `document`, `settings` — a YAML document with its schema findings, typed settings
//! * floor 5: `hardware`, `runtime`, `stages`, `training` — the domain facts: GPUs and inventories, images, stage declarations, training code
//! * floor 6: `pipeline`, `project` — the resolved pipeline, the files of a project
//! * floor 7: `compiled` — what a compilation produced (facts, then diagnostics)
//! * floor 8: `rules` — every rule, the registry and the engine
//! * floor 9: `selection` — which rules are enabled
//! * floor 10: `compile` — the driver
//! * floor 11: `fix`, `ide`, `render`, `settings_file` — fixes, editor features, output, settings files
//! * floor 12: `plan` — `stage_plan.json` and the launch outputs
//! * floor 13: `schemas` — the generated JSON Schemas
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
