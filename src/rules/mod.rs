//! The rules: one file per rule, holding everything about it — the
//! documentation `stagec explain CODE` prints (the doc comment above its
//! declaration), its check, its messages and its fix. [`RULES`] is the one
//! registration table; a test keeps it complete, without duplicates and in
//! code order.
//!
//! Rules read the plain facts the phases produced (a [`crate::compiled::Compiled`] without
//! diagnostics) through a [`Cx`] and report through a [`Sink`], which stamps
//! every diagnostic with the rule's code: a rule can only speak for itself.
//! Only rules create diagnostics (a test keeps other modules from calling
//! `Diagnostic::new`).

pub use crate::rule::{Family, Rule};

mod context;
mod docs;
mod engine;
mod registry;
pub(crate) mod text;

pub(crate) use context::schema_types;
pub use context::{is_set, join, path, Config, Cx};
pub use docs::{docs_index, docs_page, docs_url, explanation_text, DOCS_BASE};
pub use engine::{cap_per_file, run, RunOptions, Sink};
pub use registry::{all, lookup, Registered, RULES};

// YAML: the text itself.
pub mod alias_budget;
pub mod complex_key;
pub mod duplicate_key;
pub mod file_too_large;
pub mod integer_out_of_range;
pub mod invalid_utf8;
pub mod line_separator;
pub mod merge_overrides_key;
pub mod merge_value;
pub mod multiple_documents;
pub mod nesting_depth;
pub mod non_finite_number;
pub mod root_not_mapping;
pub mod surrogate_escape;
pub mod under_indented_quote;
pub mod unsupported_tag;
pub mod yaml11_scalar;
pub mod yaml_syntax;
pub mod yaml_version;

// The experiment schema.
pub mod bad_format;
pub mod invalid_value;
pub mod missing_key;
pub mod out_of_range;
pub mod schema_violation;
pub mod unknown_key;
pub mod unknown_variant;
pub mod wrong_type;

// Stage declarations and pipeline.
pub mod batch_not_divisible;
pub mod device_mismatch;
pub mod dtype_unsupported_on_device;
pub mod duplicate_stage_id;
pub mod gpus_for_unknown_stage;
pub mod invalid_param_count;
pub mod narrowing_stage_cast;
pub mod no_stage_declarations;
pub mod pipeline_bubble;
pub mod pipeline_degree_mismatch;
pub mod python_syntax;
pub mod slots_not_multiple_of_stages;
pub mod stage_decorator_arguments;
pub mod stage_graph_cycle;
pub mod stage_id_gap;
pub mod stage_not_reaching_output;
pub mod stage_without_device;
pub mod too_few_micro_batches;
pub mod unknown_gpu;
pub mod unknown_stage_dtype;
pub mod unknown_stage_input;

// Hardware inventories.
pub mod availability_not_checked;
pub mod gpu_shortfall;
pub mod inventory_format;
pub mod inventory_unknown_gpu;
pub mod probe_found_no_gpu;
pub mod stage_memory;
pub mod unsatisfiable_request;

// Environment variables.
pub mod debug_switch;
pub mod deprecated_env_name;
pub mod env_overrides_default;
pub mod invalid_env_name;
pub mod invalid_env_value;
pub mod literal_credential_env;

// The image and drivers.
pub mod default_image;
pub mod driver_too_old;
pub mod image_accelerator;
pub mod image_lacks_dtype;
pub mod image_lacks_gpu_code;
pub mod image_unresolved;

// `${VAR}` references.
pub mod unset_variable;
pub mod variable_syntax;

// Determined's constraints beyond JSON Schema.
pub mod azure_credentials;
pub mod container_path_dot;
pub mod default_checkpoint_storage;
pub mod disallowed_property;
pub mod grid_count_missing;
pub mod incomplete_searcher;
pub mod log_bounds_look_like_values;
pub mod log_policy_incomplete;
pub mod min_not_below_max;
pub mod missing_entrypoint;
pub mod prefix_parent_dir;
pub mod removed_searcher;
pub mod storage_path_outside_host_path;
pub mod workspace_project_pair;

// The HPP extension.
pub mod unknown_dtype;

// Limits of the output.
pub mod diagnostics_capped;
pub mod too_many_ranks;
pub mod virtual_stages_without_interleaved;

// The training code.
mod cudnn_benchmark_seeds;
pub mod cudnn_benchmark_with_determinism;
pub mod ddp_forward_bypassed;
pub mod deterministic_without_cublas_workspace;
pub mod distributed_sampler_seed_per_rank;
pub mod distributed_sampler_without_set_epoch;
mod fp8_cast;
pub mod fp8_output_reaches_loss;
pub mod hash_order_dependent_structure;
pub mod implicit_align_corners;
pub mod loader_workers_not_persistent;
pub mod model_state_on_one_rank;
pub mod pythonhashseed_set_at_runtime;
pub mod rank_conditional_collective;
mod rank_zero_ddp_forward;
mod rank_zero_only_collective;
pub mod same_file_written_by_every_rank;
mod sampler_rng_base_seeds;
mod sampler_rng_constant_generator;
mod sampler_rng_dropped_generator;
mod sampler_rng_hf_shuffle;
pub mod sampler_rng_shared_across_ranks;
mod sampler_rng_shuffled_list;
mod sampler_rng_step_draws;
mod sampler_rng_unsharded_loader;
mod sampler_rng_worker_sums;
mod sampler_rng_workers;
pub mod seed_before_spawn;
mod signal_flag_collective;
mod skipped_lightning_step;
mod skipped_local_batch;
mod skipped_nonfinite;
mod skipped_yield;
pub mod swallowed_error_skips_collective;
mod swallowed_fallback;
pub mod training_code_not_analysed;
pub(crate) mod training_support;
pub mod trial_class_never_run;
pub mod unsorted_directory_listing;
pub mod visible_devices_pinned_on_every_rank;

/// Test support: compiles `text` as a config on its own and applies the
/// fixes of the diagnostics with `code`, returning the fixed text and all
/// diagnostics.
#[cfg(test)]
pub(crate) fn apply_fixes(text: &str, code: &str) -> (String, Vec<crate::diagnostic::Diagnostic>) {
    let compiled = crate::compile::check_experiment("test.yaml", text.as_bytes(), &crate::compile::Options::default());
    let edits = compiled
        .diagnostics
        .iter()
        .filter(|d| d.code == code)
        .filter_map(|d| d.fix.as_ref())
        .flat_map(|f| f.edits.iter())
        .map(|e| (e.span, e.replacement.as_str()));
    (crate::edit::apply(text, edits), compiled.diagnostics.clone())
}
