//! The `plan` and `diff` commands: file output and exit codes around the
//! library's plan builder.

use std::path::{Path, PathBuf};

use stagec::compile::EnvLookup;
use stagec::{check_experiment, compile, plan, project, Options};

use super::{self as cli, Format, SourceArgs, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};

pub(crate) fn run_diff(a: &Path, b: &Path) -> u8 {
    let load = |p: &Path| -> Result<plan::StagePlan, String> {
        let bytes = stagec::fsutil::read_limited(p, 64 * 1024 * 1024)
            .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        serde_json::from_slice(&bytes).map_err(|e| format!("{} is not a stage plan: {e}", p.display()))
    };
    let (plan_a, plan_b) = match (load(a), load(b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    let lines = plan::diff::diff(&plan_a, &plan_b);
    for line in &lines {
        println!("{}", stagec::escape::line(line));
    }
    if lines.is_empty() {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    }
}

pub(crate) fn run_plan(
    file: &Path,
    sources: &SourceArgs,
    out: Option<&Path>,
    resolve_secrets: bool,
    format: Format,
    show_infos: bool,
) -> u8 {
    let options = Options {
        env: &cli::env_lookup,
        require_variables: true,
        determined: sources.determined.as_deref(),
        ..Options::default()
    };
    let mut loader = match cli::Loader::new(sources) {
        Ok(loader) => loader,
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    if let Err(e) = loader.settings.prepare(std::slice::from_ref(&file.to_path_buf())) {
        eprintln_escaped!("stagec: {e}");
        return EXIT_USAGE;
    }
    let show_infos = show_infos || loader.settings.show_infos();
    let (project, problems) = loader.project(file);
    for p in &problems {
        eprintln_escaped!("stagec: {p}");
    }
    let Some(project) = project.filter(|_| problems.is_empty()) else {
        return EXIT_USAGE;
    };
    let settings = loader.settings.resolved(file);
    let compiled = compile(&project, &settings.options(&options));
    if compiled.error_count() > 0 {
        cli::print_diagnostics(std::slice::from_ref(&compiled), format, show_infos);
        eprintln_escaped!("stagec: the experiment has errors; no plan written");
        return EXIT_FINDINGS;
    }
    let context = cli::context_dir(file, sources.context.as_deref());
    let out_dir: PathBuf = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| context.join("stagec-plan"));
    let plan_path = plan_path_for_trial(&context, &out_dir);

    let mut files: Vec<(plan::InputRole, &str, &[u8])> = vec![(
        plan::InputRole::Config,
        project.config.name.as_str(),
        project.config.bytes.as_slice(),
    )];
    for m in project.models.iter().flatten() {
        let role = if project::is_stages_yaml(&m.name) {
            plan::InputRole::Stages
        } else {
            plan::InputRole::Model
        };
        files.push((role, m.name.as_str(), m.bytes.as_slice()));
    }
    if let Some(inv) = &project.inventory {
        files.push((plan::InputRole::Inventory, inv.name.as_str(), inv.bytes.as_slice()));
    }
    let probe_summary = project.probe.as_ref().map(|r| plan::ProbeSummary {
        fingerprint: r.fingerprint(),
        cuda_version: r.driver.as_ref().map(|d| d.cuda_version.clone()),
        cuda_driver_version: r.driver.as_ref().map(|d| d.cuda_driver_version),
        kernel_driver: r.kernel_driver.as_ref().map(|k| k.version.clone()),
        devices: r.devices.iter().map(|d| d.name.clone()).collect(),
    });
    // Names such as `<probe>` are no files.
    let recorded_path = |file: &str| match file.starts_with('<') || file.is_empty() {
        true => file.to_string(),
        false => context_relative(&context, Path::new(file)),
    };
    let inputs = plan::PlanInputs {
        files,
        probe: probe_summary,
        env: &cli::env_lookup,
        plan_path: plan_path.clone(),
        recorded_path: &recorded_path,
    };
    let (Some(built), Some(json)) = (plan::build(&compiled, &inputs), compiled.config_json()) else {
        if !settings.selection.keeps_everything() {
            // Errors the rule selection hides stop the plan.
            eprintln_escaped!(
                "stagec: the experiment cannot be planned: rule selection (settings, --select, --ignore) \
                 hides the errors that stop it; `stagec check --isolated` shows them"
            );
            return EXIT_FINDINGS;
        }
        eprintln_escaped!("stagec: internal error: the checked experiment could not be planned");
        return EXIT_USAGE;
    };
    let resolver: Option<EnvLookup<'_>> = if resolve_secrets { Some(&cli::env_lookup) } else { None };
    let det = plan::determined::config(json, &plan_path, resolver);
    let det_text = plan::determined::render(&det, &recorded_path(&project.config.name), resolve_secrets);
    // The written config must itself check clean (minus stagec's extension).
    let mut self_check = check_experiment(
        "determined.yaml",
        det_text.as_bytes(),
        &Options {
            env: &|_| Some(String::new()),
            ..Options::default()
        },
    );
    // What the rule selection leaves out of the config, it leaves out here.
    self_check
        .diagnostics
        .retain(|d| settings.selection.keeps(d, &project.config.name));
    if self_check.error_count() > 0 {
        eprintln_escaped!("stagec: internal error: the generated determined.yaml does not validate:");
        cli::print_diagnostics(std::slice::from_ref(&self_check), Format::Human, false);
        return EXIT_USAGE;
    }
    let outputs = [
        ("stage_plan.json", built.plan_json.as_bytes(), false),
        ("stage_plan.env", built.env_file.as_bytes(), false),
        ("determined.yaml", det_text.as_bytes(), resolve_secrets),
    ];
    if let Err(e) = stagec::fsutil::replace_dir_atomic(&out_dir, &outputs) {
        eprintln_escaped!("stagec: cannot write the plan to {}: {e}", out_dir.display());
        return EXIT_USAGE;
    }
    let infos = compiled
        .diagnostics
        .iter()
        .any(|d| d.severity == stagec::Severity::Info);
    if compiled.warning_count() > 0 || (show_infos && infos) {
        cli::print_diagnostics(std::slice::from_ref(&compiled), format, show_infos);
    }
    if compiled.settings.as_ref().is_some_and(|s| s.experiment_seed.is_none()) {
        eprintln_escaped!("stagec plan: warning: {NO_EXPERIMENT_SEED}");
    }
    for (name, _, _) in outputs {
        eprintln_escaped!("wrote {}", out_dir.join(name).display());
    }
    EXIT_OK
}

/// Why the rank seeds are not reproducible without an experiment seed.
const NO_EXPERIMENT_SEED: &str = "reproducibility.experiment_seed is not set: Determined picks one from the clock \
     for each experiment (each trial's DET_TRIAL_SEED follows from it), so a rerun draws other samples, and \
     outside Determined `stagec env` and `stagec exec` set no STAGEC_DATA_SEED or STAGEC_RANK_SEED unless \
     given --seed; set it to make the seeds reproducible";

/// `STAGEC_PLAN`: the plan's path relative to the context directory, which
/// is the trial's working directory; absolute when the plan lies outside.
fn plan_path_for_trial(context: &Path, out_dir: &Path) -> String {
    let plan = out_dir.join("stage_plan.json");
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    match abs(&plan).strip_prefix(abs(context)) {
        Ok(rel) => rel.display().to_string().replace('\\', "/"),
        Err(_) => plan.display().to_string(),
    }
}

/// `file`'s path relative to the context directory, with `/` separators
/// and `..` where it lies outside: what the plan records, the same from
/// any working directory. Both are made absolute against the working
/// directory and compared by their components (symbolic links are not
/// followed, as `det` uploads the context by its path).
fn context_relative(context: &Path, file: &Path) -> String {
    use std::path::Component;
    let components = |p: &Path| -> Vec<std::ffi::OsString> {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let mut out: Vec<std::ffi::OsString> = Vec::new();
        for c in abs.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other.as_os_str().to_os_string()),
            }
        }
        out
    };
    let (base, target) = (components(context), components(file));
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    if common == 0 {
        // Another root or drive: nothing relative to say.
        return file.display().to_string().replace('\\', "/");
    }
    let mut parts: Vec<String> = vec!["..".to_string(); base.len() - common];
    parts.extend(target[common..].iter().map(|c| c.to_string_lossy().into_owned()));
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::context_relative;
    use std::path::Path;

    #[test]
    fn paths_are_recorded_relative_to_the_context() {
        let rel = |c: &str, f: &str| context_relative(Path::new(c), Path::new(f));
        assert_eq!(rel("/w/exp", "/w/exp/const.yaml"), "const.yaml");
        assert_eq!(rel("/w/exp", "/w/exp/./sub/../model.py"), "model.py");
        assert_eq!(rel("/w/exp/", "/w/inv/nodes.json"), "../inv/nodes.json");
        assert_eq!(rel("/w/exp", "/w/exp/a/b.py"), "a/b.py");
    }
}
