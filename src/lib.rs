//! stagec: a compiler and validator for Determined experiment configs with
//! heterogeneous pipeline stages.
//!
//! The pipeline is text → spanned YAML → JSON → schema and semantic checks →
//! typed spec; [`check::check_experiment`] is its front door.

pub mod check;
pub mod diagnostic;
pub mod dtype;
pub mod envvars;
pub mod fsutil;
pub mod graph;
pub mod hardware;
pub mod ide;
pub mod plan;
pub mod project;
pub mod render;
pub mod rules;
pub mod schema;
pub mod schemas;
pub mod secrets;
pub mod semantic;
pub mod source;
pub mod spec;
pub mod stages;
pub mod suppress;
pub mod vars;
pub mod yaml;

pub use check::{check_experiment, Checked, Options};
pub use diagnostic::{Diagnostic, Severity};
