//! The rule registry: one file per rule, each with a stable code and the
//! documentation `stagec explain CODE` prints.
//!
//! A rule file declares its [`Rule`] with [`declare_rule!`]; the doc comment
//! written above the declaration *is* the explanation, so the text a user
//! reads and the text a maintainer reads are the same lines. Rules whose
//! check is a semantic pass over the experiment (rather than a phase such as
//! parsing) also define `pub(crate) fn check(ctx: &mut Ctx)`.

use crate::diagnostic::Severity;

/// A diagnostic's rule: its identity and its documentation.
#[derive(Debug)]
pub struct Rule {
    /// Stable code, e.g. `Y002`. Never reused.
    pub code: &'static str,
    /// Kebab-case name, e.g. `duplicate-key`.
    pub name: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// One line: what the rule reports.
    pub summary: &'static str,
    /// Markdown: what it checks, why, and an example (from the doc comment).
    pub explanation: &'static str,
}

/// Declares a rule from its doc comment and metadata.
macro_rules! declare_rule {
    (
        $(#[doc = $doc:expr])*
        pub static $id:ident = {
            code: $code:literal,
            name: $name:literal,
            severity: $severity:ident,
            summary: $summary:literal $(,)?
        };
    ) => {
        $(#[doc = $doc])*
        pub static $id: $crate::rules::Rule = $crate::rules::Rule {
            code: $code,
            name: $name,
            severity: $crate::diagnostic::Severity::$severity,
            summary: $summary,
            explanation: concat!($($doc, "\n"),*),
        };
    };
}

// YAML: the text itself.
pub mod alias_budget;
pub mod complex_key;
pub mod duplicate_key;
pub mod file_too_large;
pub mod invalid_utf8;
pub mod multiple_documents;
pub mod nesting_depth;
pub mod root_not_mapping;
pub mod unsupported_tag;
pub mod yaml_syntax;

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
pub mod deprecated_env_name;
pub mod env_overrides_default;
pub mod invalid_env_value;

// `${VAR}` references.
pub mod unset_variable;
pub mod variable_syntax;

// Semantic rules: Determined's constraints beyond JSON Schema.
pub mod azure_credentials;
pub mod container_path_dot;
pub mod default_checkpoint_storage;
pub mod disallowed_property;
pub mod grid_count_missing;
pub mod incomplete_searcher;
pub mod log_bounds_look_like_values;
pub mod log_policy_incomplete;
pub mod min_not_below_max;
pub mod prefix_parent_dir;
pub mod storage_path_outside_host_path;

// Semantic rules of the HPP extension.
pub mod unknown_dtype;
pub mod virtual_stages_without_interleaved;

/// Every rule, in code order.
pub fn all() -> Vec<&'static Rule> {
    let mut rules: Vec<&'static Rule> = vec![
        &yaml_syntax::YAML_SYNTAX,
        &duplicate_key::DUPLICATE_KEY,
        &alias_budget::ALIAS_BUDGET,
        &nesting_depth::NESTING_DEPTH,
        &file_too_large::FILE_TOO_LARGE,
        &invalid_utf8::INVALID_UTF8,
        &multiple_documents::MULTIPLE_DOCUMENTS,
        &root_not_mapping::ROOT_NOT_MAPPING,
        &unsupported_tag::UNSUPPORTED_TAG,
        &complex_key::COMPLEX_KEY,
        &unknown_key::UNKNOWN_KEY,
        &wrong_type::WRONG_TYPE,
        &missing_key::MISSING_KEY,
        &invalid_value::INVALID_VALUE,
        &out_of_range::OUT_OF_RANGE,
        &bad_format::BAD_FORMAT,
        &unknown_variant::UNKNOWN_VARIANT,
        &schema_violation::SCHEMA_VIOLATION,
        &invalid_param_count::INVALID_PARAM_COUNT,
        &python_syntax::PYTHON_SYNTAX,
        &stage_decorator_arguments::STAGE_DECORATOR_ARGUMENTS,
        &no_stage_declarations::NO_STAGE_DECLARATIONS,
        &duplicate_stage_id::DUPLICATE_STAGE_ID,
        &stage_id_gap::STAGE_ID_GAP,
        &pipeline_degree_mismatch::PIPELINE_DEGREE_MISMATCH,
        &stage_graph_cycle::STAGE_GRAPH_CYCLE,
        &unknown_stage_input::UNKNOWN_STAGE_INPUT,
        &stage_not_reaching_output::STAGE_NOT_REACHING_OUTPUT,
        &gpus_for_unknown_stage::GPUS_FOR_UNKNOWN_STAGE,
        &slots_not_multiple_of_stages::SLOTS_NOT_MULTIPLE_OF_STAGES,
        &batch_not_divisible::BATCH_NOT_DIVISIBLE,
        &too_few_micro_batches::TOO_FEW_MICRO_BATCHES,
        &pipeline_bubble::PIPELINE_BUBBLE,
        &stage_without_device::STAGE_WITHOUT_DEVICE,
        &unknown_gpu::UNKNOWN_GPU,
        &device_mismatch::DEVICE_MISMATCH,
        &unknown_stage_dtype::UNKNOWN_STAGE_DTYPE,
        &dtype_unsupported_on_device::DTYPE_UNSUPPORTED_ON_DEVICE,
        &narrowing_stage_cast::NARROWING_STAGE_CAST,
        &inventory_format::INVENTORY_FORMAT,
        &inventory_unknown_gpu::INVENTORY_UNKNOWN_GPU,
        &availability_not_checked::AVAILABILITY_NOT_CHECKED,
        &gpu_shortfall::GPU_SHORTFALL,
        &unsatisfiable_request::UNSATISFIABLE_REQUEST,
        &stage_memory::STAGE_MEMORY,
        &probe_found_no_gpu::PROBE_FOUND_NO_GPU,
        &invalid_env_value::INVALID_ENV_VALUE,
        &deprecated_env_name::DEPRECATED_ENV_NAME,
        &env_overrides_default::ENV_OVERRIDES_DEFAULT,
        &variable_syntax::VARIABLE_SYNTAX,
        &unset_variable::UNSET_VARIABLE,
        &min_not_below_max::MIN_NOT_BELOW_MAX,
        &storage_path_outside_host_path::STORAGE_PATH_OUTSIDE_HOST_PATH,
        &prefix_parent_dir::PREFIX_PARENT_DIR,
        &azure_credentials::AZURE_CREDENTIALS,
        &container_path_dot::CONTAINER_PATH_DOT,
        &grid_count_missing::GRID_COUNT_MISSING,
        &log_policy_incomplete::LOG_POLICY_INCOMPLETE,
        &disallowed_property::DISALLOWED_PROPERTY,
        &incomplete_searcher::INCOMPLETE_SEARCHER,
        &default_checkpoint_storage::DEFAULT_CHECKPOINT_STORAGE,
        &log_bounds_look_like_values::LOG_BOUNDS_LOOK_LIKE_VALUES,
        &virtual_stages_without_interleaved::VIRTUAL_STAGES_WITHOUT_INTERLEAVED,
        &unknown_dtype::UNKNOWN_DTYPE,
    ];
    rules.sort_by_key(|r| r.code);
    rules
}

/// Looks a rule up by code (case-insensitive) or by name.
pub fn lookup(code_or_name: &str) -> Option<&'static Rule> {
    all()
        .into_iter()
        .find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}

/// The explanation with the one leading space of each doc line removed.
pub fn explanation_text(rule: &Rule) -> String {
    let mut out = String::new();
    for line in rule.explanation.lines() {
        out.push_str(line.strip_prefix(' ').unwrap_or(line));
        out.push('\n');
    }
    out
}
