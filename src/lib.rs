//! stagec: a compiler and validator for Determined experiment configs with
//! heterogeneous pipeline stages.
//!
//! One pipeline, one front door: [`compile`] takes a [`project::Project`]
//! (discovered with [`project::Project::discover`]) and returns a
//! [`Compiled`] — every file's parse, the typed settings, the resolved
//! pipeline and the diagnostics. The CLI, the language server and the tests
//! all go through it.

pub mod compile;
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
