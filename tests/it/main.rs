//! The root package's integration tests, in one binary (one link step
//! instead of one per file): a module per area. `tests/common` is the one
//! helper every data-driven test goes through; `tests/rules/` holds the
//! per-rule cases `rule_cases` runs.
//!
//! `tests/robustness_structured.rs` stays a binary of its own: it limits
//! the address space of its whole process, which no other test should share.
//!
//! Tests that need something a plain checkout may lack follow one switch
//! each (`support/tools.rs`): skipped with a notice by default, failing
//! when the switch is set (`.ci/run` sets them all).

#[path = "../common/mod.rs"]
mod common;
/// Runs the built binaries under limits (`hostile`, `fuzz_regressions`).
#[cfg(unix)]
#[path = "../hostile/harness.rs"]
mod harness;

mod action;
mod cli;
mod corpus;
mod differential;
mod docs_drift;
mod examples;
mod fix;
mod fixtures;
mod fuzz_regressions;
mod hostile;
mod plan;
mod pre_commit;
mod probe;
mod projects;
mod rank;
mod reference_schema;
mod robustness;
mod rule_cases;
mod rules;
mod schema_drift;
mod settings;
mod torchrun;
mod training;
