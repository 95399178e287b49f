//! The rules: one file per rule, holding everything about it — the
//! documentation `stagec explain CODE` prints (the doc comment above its
//! declaration), its check, its messages and its fix. [`RULES`] is the one
//! registration table; a test keeps it complete, without duplicates and in
//! code order.
//!
//! Rules read the plain facts the phases produced (a [`Compiled`] without
//! diagnostics) through a [`Cx`] and report through a [`Sink`], which stamps
//! every diagnostic with the rule's code: a rule can only speak for itself.
//! Only rules create diagnostics (a test keeps other modules from calling
//! `Diagnostic::new`).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value as Json;

use crate::compiled::{Compiled, Role, Unit};
use crate::diagnostic::{Diagnostic, Severity};
use crate::document::Document;
use crate::pipeline::Pipeline;
pub use crate::rule::{Family, Rule};
use crate::schema::value_span;
use crate::settings::Settings;
use crate::source::{FileId, Loc, Span};
use crate::stages::StageDecl;
use crate::vars::EnvLookup;
use crate::yaml::{Located, PathSeg, Tree, Value};

pub(crate) mod text;

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

// The training code (issue #12).
pub mod cudnn_benchmark_with_determinism;
pub mod deterministic_without_cublas_workspace;
pub mod distributed_sampler_without_set_epoch;
pub mod fp8_output_reaches_loss;
pub mod hash_order_dependent_structure;
pub mod implicit_align_corners;
pub mod loader_workers_not_persistent;
pub mod pythonhashseed_set_at_runtime;
pub mod rank_conditional_collective;
pub mod sampler_rng_shared_across_ranks;
pub mod swallowed_error_skips_collective;
pub mod training_code_not_analysed;
pub(crate) mod training_support;
pub mod trial_class_never_run;
pub mod unsorted_directory_listing;

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

/// Where the rule documentation pages (`docs/rules/`, generated from
/// `stagec explain`) are published: the repository's copy.
pub const DOCS_BASE: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/rules/");

/// The documentation page of `rule` under `base` (default [`DOCS_BASE`]):
/// `<base><name>.md`, as `docs/rules/` names its files.
pub fn docs_url(rule: &Rule, base: Option<&str>) -> String {
    let base = base.unwrap_or(DOCS_BASE);
    let sep = if base.ends_with('/') { "" } else { "/" };
    format!("{base}{sep}{}.md", rule.name)
}

/// The documentation page of a rule, as `docs/rules/<name>.md` holds it:
/// what `stagec explain` prints, with a title.
pub fn docs_page(rule: &Rule) -> String {
    format!(
        "# {} `{}` ({})

{}

{}",
        rule.code,
        rule.name,
        rule.severity.as_str(),
        rule.summary,
        explanation_text(rule)
    )
}

/// `docs/rules/README.md`: every rule with a link to its page.
pub fn docs_index() -> String {
    let mut out = String::from(
        "# stagec rules

Generated by `stagec rules --docs docs/rules` from the rules' own documentation
(`stagec explain CODE` prints the same text); a test fails when these pages are stale.

| Code | Name | Severity | Summary |\n|---|---|---|---|\n",
    );
    for r in all() {
        out.push_str(&format!(
            "| {} | [{}]({}.md) | {} | {} |\n",
            r.code,
            r.name,
            r.name,
            r.severity.as_str(),
            r.summary.replace('|', "\\|")
        ));
    }
    out
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

/// What a run of the rules is told beside the facts: how the environment
/// is seen, whether every `${VAR}` must be set, whether the per-rule caps
/// apply, and which rules are enabled (rule selection lives with the
/// driver; the engine only asks).
#[derive(Clone, Copy)]
pub struct RunOptions<'a> {
    /// `${VAR}` lookups.
    pub env: EnvLookup<'a>,
    /// Whether an unset `${VAR}` is an error (`stagec plan`) rather than a
    /// warning.
    pub require_variables: bool,
    /// List every diagnostic, without the per-rule cap (L001).
    pub uncapped: bool,
    /// Whether a rule's diagnostics are reported, by code.
    pub enabled: &'a (dyn Fn(&str) -> bool + Sync),
}

impl Default for RunOptions<'_> {
    fn default() -> Self {
        RunOptions {
            env: &|_| None,
            require_variables: false,
            uncapped: false,
            enabled: &|_| true,
        }
    }
}

/// Runs every rule over a compilation's facts. A rule lists at most
/// [`diagnostics_capped::PER_RULE`] diagnostics per file; what it leaves out
/// is counted and noted.
pub fn run(compiled: &Compiled, options: &RunOptions<'_>) -> Vec<Diagnostic> {
    let cx = Cx {
        compiled,
        env: options.env,
        require_variables: options.require_variables,
    };
    let mut out = Vec::new();
    let mut from_yaml: Vec<bool> = Vec::new();
    let mut notes = Vec::new();
    for r in RULES {
        // A rule no file reports is not run; YAML rules always are, since
        // what they reject keeps the other families quiet at that value.
        let selected = (options.enabled)(r.rule.code);
        if !selected && r.rule.family != Family::Yaml {
            continue;
        }
        let mut sink = Sink {
            rule: r.rule,
            out: &mut out,
            listed: HashMap::new(),
            cap: if options.uncapped {
                usize::MAX
            } else {
                diagnostics_capped::PER_RULE
            },
            left_out: BTreeMap::new(),
            scratch: Diagnostic::new(r.rule, FileId(0), Span::default(), ""),
        };
        (r.check)(&cx, &mut sink);
        let left_out = std::mem::take(&mut sink.left_out);
        for (file, n) in left_out.into_iter().filter(|_| selected) {
            let severity = out
                .iter()
                .filter(|d| d.code == r.rule.code && d.file == file)
                .map(|d| d.severity)
                .min()
                .unwrap_or(r.rule.severity);
            notes.push(diagnostics_capped::note(file, n, Some(r.rule.code), severity));
        }
        from_yaml.resize(out.len(), r.rule.family == Family::Yaml);
    }
    // A value the YAML layer already rejected (a bad tag, a duplicate key)
    // is not reported again by the rules of other families; a YAML warning
    // rejects nothing.
    let rejected: HashSet<(FileId, Span)> = out
        .iter()
        .zip(&from_yaml)
        .filter(|(d, yaml)| **yaml && d.severity == Severity::Error)
        .map(|(d, _)| (d.file, d.span))
        .collect();
    if !rejected.is_empty() {
        let mut flags = from_yaml.into_iter();
        out.retain(|d| flags.next().unwrap_or(false) || !rejected.contains(&(d.file, d.span)));
    }
    out.extend(notes);
    redact(compiled, &mut out);
    out
}

/// Credentials never reach a diagnostic's text (message, help, labels, fix
/// title), whichever rule wrote it: what a credential key holds in the
/// file and secrets found by their shape become `****`
/// ([`Compiled::redact`]). Fix edits keep their text: outputs that show
/// them mask them (the renderers' `Report::shown_replacement`, `check
/// --diff`).
fn redact(compiled: &Compiled, diags: &mut [Diagnostic]) {
    for d in diags.iter_mut() {
        let file = d.file;
        let clean = |s: &mut String| *s = compiled.redact(file, s);
        clean(&mut d.message);
        if let Some(help) = &mut d.help {
            clean(help);
        }
        for label in &mut d.labels {
            clean(&mut label.message);
        }
        if let Some(fix) = &mut d.fix {
            clean(&mut fix.title);
        }
    }
}

/// Keeps at most [`diagnostics_capped::PER_FILE`] of a file's (sorted)
/// diagnostics, noting how many more there were.
pub fn cap_per_file(diags: &mut Vec<Diagnostic>) {
    let mut per_file: BTreeMap<FileId, usize> = BTreeMap::new();
    for d in diags.iter() {
        *per_file.entry(d.file).or_default() += 1;
    }
    if per_file.values().all(|n| *n <= diagnostics_capped::PER_FILE) {
        return;
    }
    let mut seen: BTreeMap<FileId, usize> = BTreeMap::new();
    let mut worst: BTreeMap<FileId, Severity> = BTreeMap::new();
    diags.retain(|d| {
        let n = seen.entry(d.file).or_default();
        *n += 1;
        let keep = *n <= diagnostics_capped::PER_FILE;
        if keep {
            let w = worst.entry(d.file).or_insert(Severity::Info);
            *w = (*w).min(d.severity);
        }
        keep
    });
    for (file, n) in per_file {
        if n > diagnostics_capped::PER_FILE {
            let severity = worst.get(&file).copied().unwrap_or(Severity::Info);
            diags.push(diagnostics_capped::note(
                file,
                n - diagnostics_capped::PER_FILE,
                None,
                severity,
            ));
        }
    }
    crate::diagnostic::sort_and_dedup(diags);
}

/// Where a rule reports: every diagnostic carries the rule's code and
/// default severity.
pub struct Sink<'o> {
    rule: &'static Rule,
    out: &'o mut Vec<Diagnostic>,
    /// Diagnostics listed per file.
    listed: HashMap<FileId, usize>,
    /// Most diagnostics listed per file ([`diagnostics_capped::PER_RULE`],
    /// or none with [`RunOptions::uncapped`]).
    cap: usize,
    /// Diagnostics left out per file, beyond the cap.
    left_out: BTreeMap<FileId, usize>,
    /// Where a left-out diagnostic is built (and forgotten).
    scratch: Diagnostic,
}

impl Sink<'_> {
    /// Reports `message` at `span` of `file`.
    pub fn at(&mut self, file: FileId, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        let listed = self.listed.entry(file).or_default();
        if *listed >= self.cap {
            *self.left_out.entry(file).or_default() += 1;
            self.scratch = Diagnostic::new(self.rule, file, span, "");
            return &mut self.scratch;
        }
        *listed += 1;
        self.out
            .push(Diagnostic::new(self.rule, file, span, text::bounded(message.into())));
        let last = self.out.len() - 1;
        &mut self.out[last]
    }

    /// Whether `file` has all the diagnostics of this rule it lists: if so,
    /// one more is counted as left out, and the rule need not work out its
    /// message (a hostile file can hold hundreds of thousands).
    pub fn full_for(&mut self, file: FileId) -> bool {
        let full = self.listed.get(&file).is_some_and(|n| *n >= self.cap);
        if full {
            *self.left_out.entry(file).or_default() += 1;
        }
        full
    }

    /// Reports `message` at `loc`.
    pub fn at_loc(&mut self, loc: Loc, message: impl Into<String>) -> &mut Diagnostic {
        self.at(loc.file, loc.span, message)
    }
}

/// What a rule sees: the compilation's facts, how the environment is seen,
/// and whether every `${VAR}` must be set.
pub struct Cx<'a> {
    pub compiled: &'a Compiled,
    /// `${VAR}` lookups.
    pub env: EnvLookup<'a>,
    /// Whether an unset `${VAR}` is an error rather than a warning.
    pub require_variables: bool,
}

impl<'a> Cx<'a> {
    /// Every input file with its facts.
    pub fn units(&self) -> impl Iterator<Item = (FileId, &'a Unit)> + 'a {
        self.compiled
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| (FileId(i as u32), u))
    }

    /// Every YAML document (config, `stages.yaml`, YAML/JSON inventory).
    pub fn documents(&self) -> impl Iterator<Item = (FileId, Role, &'a Document)> + 'a {
        self.units()
            .filter_map(|(id, u)| u.yaml.as_ref().map(|d| (id, u.role, d)))
    }

    /// The text of a file.
    pub fn text(&self, file: FileId) -> &'a str {
        self.compiled.text(file)
    }

    /// The experiment config, when it parsed into a mapping.
    pub fn config(&self) -> Option<Config<'a>> {
        let file = self.compiled.config;
        let doc = self.compiled.config_document()?;
        Some(Config {
            file,
            text: self.text(file),
            tree: &doc.tree,
            json: doc.json.as_ref()?,
        })
    }

    /// The config's typed settings.
    pub fn settings(&self) -> Option<&'a Settings> {
        self.compiled.settings.as_ref()
    }

    /// The resolved pipeline.
    pub fn pipeline(&self) -> Option<&'a Pipeline> {
        self.compiled.pipeline.as_ref()
    }

    /// Every stage declaration.
    pub fn decls(&self) -> &'a [StageDecl] {
        &self.compiled.decls
    }

    /// The GPU stages' image, and where the config names it: the image's
    /// value, or the start of the config when Determined's default is used.
    pub fn image(&self) -> Option<(&'a crate::runtime::Runtime, Loc)> {
        let runtime = self.compiled.runtime.as_ref()?;
        let config = self.config()?;
        let span = match &runtime.source {
            crate::runtime::ImageSource::Config { path } => config.value_span(path),
            crate::runtime::ImageSource::Default { .. } => Span::at(0),
        };
        Some((
            runtime,
            Loc {
                file: config.file,
                span,
            },
        ))
    }

    /// What the stages need of an image: their GPUs' architectures and the
    /// PyTorch release their dtypes need.
    pub fn image_needs(&self) -> crate::runtime::Needs {
        let mut needs = crate::runtime::Needs::default();
        for (stage, ccs) in self.stage_architectures() {
            for (_, cc) in ccs {
                if !needs.ccs.contains(&cc) {
                    needs.ccs.push(cc);
                }
            }
            if let Some(v) = stage.dtype.and_then(crate::runtime::compat::torch_for_dtype) {
                needs.torch = needs.torch.max(Some(v));
            }
        }
        needs
    }

    /// A `help` naming the smallest image change that gives the stages
    /// what they need, and the fix that makes it.
    pub fn image_suggestion(&self, runtime: &crate::runtime::Runtime) -> Option<(String, String)> {
        let determined = match &runtime.source {
            crate::runtime::ImageSource::Default { determined } => determined.clone(),
            _ => crate::runtime::image::latest_determined().to_string(),
        };
        let image = crate::runtime::suggest(&runtime.reference, &self.image_needs(), &determined)?;
        Some((
            format!(
                "use an image that has it, e.g. `{}` ({})",
                image.reference,
                image.summary()
            ),
            image.reference,
        ))
    }

    /// What a diagnostic about the image (`image`, at `loc`) adds: a label
    /// where the experiment states the image's versions, the help of
    /// `suggestion` ([`Cx::image_suggestion`]) or else `otherwise`, and,
    /// for an image the config names and does not describe, the change as
    /// an unsafe fix.
    pub fn advise_image(
        &self,
        d: &mut Diagnostic,
        runtime: &crate::runtime::Runtime,
        loc: Loc,
        suggestion: &Option<(String, String)>,
        otherwise: impl FnOnce() -> String,
    ) {
        if runtime.stated {
            if let Some(config) = self.config() {
                let at = config.key_span(&crate::runtime::image_provides_path());
                d.label(config.file, at, "the image's versions, as stated here");
            }
        }
        match suggestion {
            Some((help, reference)) => {
                d.help(help.clone());
                if matches!(runtime.source, crate::runtime::ImageSource::Config { .. }) && !runtime.stated {
                    d.unsafe_fix(
                        format!("Use `{reference}`"),
                        vec![crate::diagnostic::Edit {
                            file: loc.file,
                            span: loc.span,
                            replacement: reference.clone(),
                        }],
                    );
                }
            }
            None => {
                d.help(otherwise());
            }
        }
    }

    /// Each stage with GPUs: the stage and the compute capabilities of its
    /// acceptable GPU types, by type (types the catalog does not know left
    /// out).
    pub fn stage_architectures(&self) -> Vec<(&'a crate::pipeline::Stage, Vec<(String, crate::runtime::Version)>)> {
        let Some(pipeline) = self.pipeline() else {
            return Vec::new();
        };
        pipeline
            .stages
            .iter()
            .filter(|s| !s.gpu_types.is_empty())
            .map(|s| {
                let mut ccs: Vec<(String, crate::runtime::Version)> = Vec::new();
                for t in &s.gpu_types {
                    for g in crate::hardware::catalog::resolve_quietly(t).resolution.variants() {
                        let cc = crate::runtime::Version::new(g.compute_capability.0, g.compute_capability.1);
                        if !ccs.iter().any(|(name, c)| name == t && *c == cc) {
                            ccs.push((t.clone(), cc));
                        }
                    }
                }
                (s, ccs)
            })
            .collect()
    }

    /// The training code, when it was looked for.
    pub fn training(&self) -> Option<&'a crate::training::Training> {
        self.compiled.training.as_ref()
    }
}

/// The experiment config as rules read it: its text, tree and JSON.
#[derive(Clone, Copy)]
pub struct Config<'a> {
    pub file: FileId,
    pub text: &'a str,
    pub tree: &'a Tree,
    pub json: &'a Json,
}

impl<'a> Config<'a> {
    /// The JSON value at `path`.
    pub fn get(&self, path: &[&str]) -> Option<&'a Json> {
        let mut v: &'a Json = self.json;
        for k in path {
            v = v.get(*k)?;
        }
        Some(v)
    }

    /// The JSON value at a path of keys and list indices.
    pub fn get_at(&self, path: &[PathSeg]) -> Option<&'a Json> {
        crate::schema::json_at(self.json, path)
    }

    /// Span of the value at `path` (its key when the value is empty).
    pub fn value_span(&self, path: &[PathSeg]) -> Span {
        value_span(self.tree, path)
    }

    /// The location of the value at `path`.
    pub fn loc(&self, path: &[PathSeg]) -> Loc {
        Loc {
            file: self.file,
            span: self.value_span(path),
        }
    }

    /// Span of the key naming the value at `path`.
    pub fn key_span(&self, path: &[PathSeg]) -> Span {
        match self.tree.locate(path).and_then(|l| l.key) {
            Some(k) => self.tree.span(k),
            None => self.value_span(path),
        }
    }

    /// Span of the key naming the value at `path`; for a list item (which
    /// has no key), the span of its first key, or of the item itself.
    pub fn head_span(&self, path: &[PathSeg]) -> Span {
        match self.tree.locate(path) {
            Some(Located { key: Some(k), .. }) => self.tree.span(k),
            Some(Located { node, key: None }) => match self.tree.entries(node).first() {
                Some(e) => self.tree.span(e.key),
                None => self.value_span(path),
            },
            None => self.value_span(path),
        }
    }

    /// Span of the scalar at `path` when it is written out in place (see
    /// [`crate::edit::own_node`]), for fixes that replace it.
    pub fn own_scalar_span(&self, path: &[PathSeg]) -> Option<Span> {
        let loc = crate::edit::own_node(self.tree, path)?;
        let node = self.tree.node(loc.node);
        match node.value {
            Value::Map(_) | Value::Seq(_) | Value::Alias(_) => None,
            _ if node.span.is_empty() => None,
            _ => Some(node.span),
        }
    }

    /// Every typed hyperparameter (a mapping with a `type` key) under
    /// `hyperparameters`, with its path, following nested mappings (such as
    /// `hpp_config`) and, when `through_lists`, lists too. The values of
    /// typed hyperparameters (`val`, `vals`) are not searched.
    pub fn typed_hyperparameters(&self, through_lists: bool) -> Vec<(Vec<PathSeg>, &'a serde_json::Map<String, Json>)> {
        fn walk<'j>(
            v: &'j Json,
            path: &mut Vec<PathSeg>,
            through_lists: bool,
            out: &mut Vec<(Vec<PathSeg>, &'j serde_json::Map<String, Json>)>,
        ) {
            if path.len() > 64 {
                return;
            }
            match v {
                Json::Object(map) if map.contains_key("type") => out.push((path.clone(), map)),
                Json::Object(map) => {
                    for (k, child) in map {
                        path.push(PathSeg::Key(k.clone()));
                        walk(child, path, through_lists, out);
                        path.pop();
                    }
                }
                Json::Array(items) if through_lists => {
                    for (i, child) in items.iter().enumerate() {
                        path.push(PathSeg::Index(i));
                        walk(child, path, through_lists, out);
                        path.pop();
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        if let Some(Json::Object(hps)) = self.json.get("hyperparameters") {
            let mut path = vec![PathSeg::Key("hyperparameters".into())];
            for (k, v) in hps {
                path.push(PathSeg::Key(k.clone()));
                walk(v, &mut path, through_lists, &mut out);
                path.pop();
            }
        }
        out
    }
}

/// The JSON types the schema of a document's `role` names at `path` of
/// `json` (`type` of every schema that applies there); `None` when the
/// role has no schema or no schema there names a type.
pub(crate) fn schema_types(role: Role, path: &[PathSeg], json: &Json) -> Option<Vec<String>> {
    let index = role.schema_index()?;
    let mut types = Vec::new();
    for schema in index.schemas_at(path, json) {
        match schema.get("type") {
            Some(Json::String(t)) => types.push(t.clone()),
            Some(Json::Array(ts)) => types.extend(ts.iter().filter_map(|t| t.as_str().map(String::from))),
            _ => {}
        }
    }
    (!types.is_empty()).then_some(types)
}

/// Builds a path from a prefix and one more key.
pub fn join(base: &[PathSeg], key: &str) -> Vec<PathSeg> {
    let mut p = base.to_vec();
    p.push(PathSeg::Key(key.to_string()));
    p
}

/// Builds a path from string keys.
pub fn path(keys: &[&str]) -> Vec<PathSeg> {
    keys.iter().map(|k| PathSeg::Key((*k).to_string())).collect()
}

/// Whether a JSON value is present and not null (Determined's
/// `eventuallyRequired` treats null as unset).
pub fn is_set(v: Option<&Json>) -> bool {
    v.is_some_and(|v| !v.is_null())
}

/// Test support: compiles `text` as a config on its own and applies the
/// fixes of the diagnostics with `code`, returning the fixed text and all
/// diagnostics.
#[cfg(test)]
pub(crate) fn apply_fixes(text: &str, code: &str) -> (String, Vec<Diagnostic>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_lists_at_most_its_cap_and_notes_the_rest() {
        let mut diags: Vec<Diagnostic> = (0..1_500)
            .map(|i| Diagnostic::new(&unknown_key::UNKNOWN_KEY, FileId(0), Span::at(i), "x"))
            .chain((0..10).map(|i| Diagnostic::new(&unknown_key::UNKNOWN_KEY, FileId(1), Span::at(i), "y")))
            .collect();
        cap_per_file(&mut diags);
        let in_file = |f: u32| diags.iter().filter(|d| d.file == FileId(f)).count();
        assert_eq!(in_file(0), diagnostics_capped::PER_FILE + 1);
        assert_eq!(in_file(1), 10);
        let note = diags.iter().find(|d| d.code == "L001");
        assert_eq!(
            note.map(|d| d.message.as_str()),
            Some("500 more diagnostics in this file are not shown")
        );
        assert_eq!(note.map(|d| d.severity), Some(Severity::Error));
    }
}
