//! The one registration table: every rule with its check, in code order
//! (a test keeps it complete, without duplicates and in code order).

use super::*;

/// A rule and its check.
pub struct Registered {
    pub rule: &'static Rule,
    pub check: fn(&Cx<'_>, &mut Sink<'_>),
}

/// Registers `module::STATIC` with `module::check`.
macro_rules! register {
    ($module:ident :: $rule:ident) => {
        Registered {
            rule: &$module::$rule,
            check: $module::check,
        }
    };
}

/// Every rule with its check, in code order: the one registration.
pub static RULES: &[Registered] = &[
    register!(unknown_key::UNKNOWN_KEY),
    register!(wrong_type::WRONG_TYPE),
    register!(missing_key::MISSING_KEY),
    register!(invalid_value::INVALID_VALUE),
    register!(out_of_range::OUT_OF_RANGE),
    register!(bad_format::BAD_FORMAT),
    register!(unknown_variant::UNKNOWN_VARIANT),
    register!(schema_violation::SCHEMA_VIOLATION),
    register!(min_not_below_max::MIN_NOT_BELOW_MAX),
    register!(storage_path_outside_host_path::STORAGE_PATH_OUTSIDE_HOST_PATH),
    register!(prefix_parent_dir::PREFIX_PARENT_DIR),
    register!(azure_credentials::AZURE_CREDENTIALS),
    register!(container_path_dot::CONTAINER_PATH_DOT),
    register!(grid_count_missing::GRID_COUNT_MISSING),
    register!(log_policy_incomplete::LOG_POLICY_INCOMPLETE),
    register!(disallowed_property::DISALLOWED_PROPERTY),
    register!(incomplete_searcher::INCOMPLETE_SEARCHER),
    register!(default_checkpoint_storage::DEFAULT_CHECKPOINT_STORAGE),
    register!(log_bounds_look_like_values::LOG_BOUNDS_LOOK_LIKE_VALUES),
    register!(removed_searcher::REMOVED_SEARCHER),
    register!(missing_entrypoint::MISSING_ENTRYPOINT),
    register!(workspace_project_pair::WORKSPACE_PROJECT_PAIR),
    register!(invalid_env_value::INVALID_ENV_VALUE),
    register!(deprecated_env_name::DEPRECATED_ENV_NAME),
    register!(env_overrides_default::ENV_OVERRIDES_DEFAULT),
    register!(debug_switch::DEBUG_SWITCH),
    register!(invalid_env_name::INVALID_ENV_NAME),
    register!(literal_credential_env::LITERAL_CREDENTIAL_ENV),
    register!(virtual_stages_without_interleaved::VIRTUAL_STAGES_WITHOUT_INTERLEAVED),
    register!(unknown_dtype::UNKNOWN_DTYPE),
    register!(diagnostics_capped::DIAGNOSTICS_CAPPED),
    register!(too_many_ranks::TOO_MANY_RANKS),
    register!(invalid_param_count::INVALID_PARAM_COUNT),
    register!(python_syntax::PYTHON_SYNTAX),
    register!(stage_decorator_arguments::STAGE_DECORATOR_ARGUMENTS),
    register!(no_stage_declarations::NO_STAGE_DECLARATIONS),
    register!(duplicate_stage_id::DUPLICATE_STAGE_ID),
    register!(stage_id_gap::STAGE_ID_GAP),
    register!(pipeline_degree_mismatch::PIPELINE_DEGREE_MISMATCH),
    register!(stage_graph_cycle::STAGE_GRAPH_CYCLE),
    register!(unknown_stage_input::UNKNOWN_STAGE_INPUT),
    register!(stage_not_reaching_output::STAGE_NOT_REACHING_OUTPUT),
    register!(gpus_for_unknown_stage::GPUS_FOR_UNKNOWN_STAGE),
    register!(slots_not_multiple_of_stages::SLOTS_NOT_MULTIPLE_OF_STAGES),
    register!(batch_not_divisible::BATCH_NOT_DIVISIBLE),
    register!(too_few_micro_batches::TOO_FEW_MICRO_BATCHES),
    register!(pipeline_bubble::PIPELINE_BUBBLE),
    register!(stage_without_device::STAGE_WITHOUT_DEVICE),
    register!(unknown_gpu::UNKNOWN_GPU),
    register!(device_mismatch::DEVICE_MISMATCH),
    register!(unknown_stage_dtype::UNKNOWN_STAGE_DTYPE),
    register!(dtype_unsupported_on_device::DTYPE_UNSUPPORTED_ON_DEVICE),
    register!(narrowing_stage_cast::NARROWING_STAGE_CAST),
    register!(inventory_format::INVENTORY_FORMAT),
    register!(inventory_unknown_gpu::INVENTORY_UNKNOWN_GPU),
    register!(availability_not_checked::AVAILABILITY_NOT_CHECKED),
    register!(gpu_shortfall::GPU_SHORTFALL),
    register!(unsatisfiable_request::UNSATISFIABLE_REQUEST),
    register!(stage_memory::STAGE_MEMORY),
    register!(probe_found_no_gpu::PROBE_FOUND_NO_GPU),
    register!(image_unresolved::IMAGE_UNRESOLVED),
    register!(default_image::DEFAULT_IMAGE),
    register!(image_lacks_gpu_code::IMAGE_LACKS_GPU_CODE),
    register!(image_lacks_dtype::IMAGE_LACKS_DTYPE),
    register!(driver_too_old::DRIVER_TOO_OLD),
    register!(image_accelerator::IMAGE_ACCELERATOR),
    register!(training_code_not_analysed::TRAINING_CODE_NOT_ANALYSED),
    register!(sampler_rng_shared_across_ranks::SAMPLER_RNG_SHARED_ACROSS_RANKS),
    register!(distributed_sampler_without_set_epoch::DISTRIBUTED_SAMPLER_WITHOUT_SET_EPOCH),
    register!(swallowed_error_skips_collective::SWALLOWED_ERROR_SKIPS_COLLECTIVE),
    register!(rank_conditional_collective::RANK_CONDITIONAL_COLLECTIVE),
    register!(loader_workers_not_persistent::LOADER_WORKERS_NOT_PERSISTENT),
    register!(pythonhashseed_set_at_runtime::PYTHONHASHSEED_SET_AT_RUNTIME),
    register!(deterministic_without_cublas_workspace::DETERMINISTIC_WITHOUT_CUBLAS_WORKSPACE),
    register!(cudnn_benchmark_with_determinism::CUDNN_BENCHMARK_WITH_DETERMINISM),
    register!(hash_order_dependent_structure::HASH_ORDER_DEPENDENT_STRUCTURE),
    register!(unsorted_directory_listing::UNSORTED_DIRECTORY_LISTING),
    register!(implicit_align_corners::IMPLICIT_ALIGN_CORNERS),
    register!(fp8_output_reaches_loss::FP8_OUTPUT_REACHES_LOSS),
    register!(trial_class_never_run::TRIAL_CLASS_NEVER_RUN),
    register!(distributed_sampler_seed_per_rank::DISTRIBUTED_SAMPLER_SEED_PER_RANK),
    register!(seed_before_spawn::SEED_BEFORE_SPAWN),
    register!(model_state_on_one_rank::MODEL_STATE_ON_ONE_RANK),
    register!(ddp_forward_bypassed::DDP_FORWARD_BYPASSED),
    register!(same_file_written_by_every_rank::SAME_FILE_WRITTEN_BY_EVERY_RANK),
    register!(visible_devices_pinned_on_every_rank::VISIBLE_DEVICES_PINNED_ON_EVERY_RANK),
    register!(variable_syntax::VARIABLE_SYNTAX),
    register!(unset_variable::UNSET_VARIABLE),
    register!(yaml_syntax::YAML_SYNTAX),
    register!(duplicate_key::DUPLICATE_KEY),
    register!(alias_budget::ALIAS_BUDGET),
    register!(nesting_depth::NESTING_DEPTH),
    register!(file_too_large::FILE_TOO_LARGE),
    register!(invalid_utf8::INVALID_UTF8),
    register!(multiple_documents::MULTIPLE_DOCUMENTS),
    register!(root_not_mapping::ROOT_NOT_MAPPING),
    register!(unsupported_tag::UNSUPPORTED_TAG),
    register!(complex_key::COMPLEX_KEY),
    register!(integer_out_of_range::INTEGER_OUT_OF_RANGE),
    register!(yaml11_scalar::YAML11_SCALAR),
    register!(merge_value::MERGE_VALUE),
    register!(merge_overrides_key::MERGE_OVERRIDES_KEY),
    register!(non_finite_number::NON_FINITE_NUMBER),
    register!(yaml_version::YAML_VERSION),
    register!(under_indented_quote::UNDER_INDENTED_QUOTE),
    register!(surrogate_escape::SURROGATE_ESCAPE),
    register!(line_separator::LINE_SEPARATOR),
];

/// Every rule, in code order.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    RULES.iter().map(|r| r.rule)
}

/// Looks a rule up by code (case-insensitive) or by name.
pub fn lookup(code_or_name: &str) -> Option<&'static Rule> {
    all().find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}
