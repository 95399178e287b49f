declare_rule! {
    /// ## What it checks
    /// The values of environment variables that decide reproducibility and
    /// failure handling: `CUBLAS_WORKSPACE_CONFIG` (`:4096:8` or `:16:8`),
    /// `PYTHONHASHSEED` (`random` or 0…4294967295), `PYTORCH_CUDA_ALLOC_CONF`
    /// (known `key:value` pairs: `max_split_size_mb` ≥ 20, `expandable_segments`
    /// `True`/`False`, …) and `TORCH_NCCL_ASYNC_ERROR_HANDLING` (0–3).
    ///
    /// ## Why
    /// PyTorch raises at startup on unknown allocator keys and, in deterministic
    /// mode, on other cuBLAS workspace settings — on every rank, after the job was
    /// scheduled. A wrong `PYTHONHASHSEED` is ignored by Python with a fatal error.
    ///
    /// ## Example
    /// ```yaml
    /// environment:
    ///   environment_variables:
    ///     - CUBLAS_WORKSPACE_CONFIG=:4096:2        # error
    ///     - PYTORCH_CUDA_ALLOC_CONF=expandable_segments:true   # error: `True`
    /// ```
    pub static INVALID_ENV_VALUE = {
        code: "E101",
        name: "invalid-env-value",
        severity: Error,
        summary: "An environment variable PyTorch reads has an invalid value",
    };
}

/// Reports invalid values and deprecated names in
/// `environment.environment_variables`, and notes overridden defaults.
pub(crate) fn check(ctx: &mut crate::semantic::Ctx<'_>) {
    use crate::envvars as env;
    for e in env::entries(ctx.json) {
        let span = ctx.value_span(&e.path);
        if let Some(why) = env::invalid_reason(&e.name, &e.value) {
            ctx.report(&INVALID_ENV_VALUE, span, format!("`{}`: {why}", e.name));
        }
        if let Some((_, new)) = env::RENAMED.iter().find(|(old, _)| *old == e.name) {
            // The name starts the scalar, after an opening quote if any.
            let quoted = matches!(ctx.text.get(span.start..span.start + 1), Some("\"" | "'"));
            let start = span.start + usize::from(quoted);
            let name_span = crate::source::Span::new(start, start + e.name.len());
            let exact = ctx.text.get(name_span.start..name_span.end) == Some(e.name.as_str());
            let d = ctx.report(
                &super::deprecated_env_name::DEPRECATED_ENV_NAME,
                span,
                format!(
                    "`{}` was renamed `{new}` in PyTorch 2.2; the old name is deprecated",
                    e.name
                ),
            );
            d.help = Some(format!("use `{new}={}`", e.value));
            if exact {
                d.fix = Some(crate::diagnostic::Fix {
                    title: format!("Rename to `{new}`"),
                    edits: vec![crate::diagnostic::Edit {
                        file: d.file,
                        span: name_span,
                        replacement: (*new).to_string(),
                    }],
                });
            }
        }
        if matches!(e.variant.as_deref(), None | Some("cuda")) {
            if let Some((_, ours, why)) = env::DEFAULTS.iter().find(|(k, v, _)| *k == e.name && *v != e.value) {
                ctx.report(
                    &super::env_overrides_default::ENV_OVERRIDES_DEFAULT,
                    span,
                    format!(
                        "`{}={}` replaces stagec's default `{}={ours}` ({why}); the experiment's value is kept",
                        e.name, e.value, e.name
                    ),
                );
            }
        }
    }
}
