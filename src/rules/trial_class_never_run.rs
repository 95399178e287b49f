declare_rule! {
    /// ## What it checks
    /// An entrypoint that runs a Python file as a script (`python train.py`) when the
    /// file only defines a Determined trial class (a `PyTorchTrial` or
    /// `DeepSpeedTrial` subclass) and nothing in it creates or fits the trial.
    ///
    /// ## Why
    /// Determined runs a trial class only when the entrypoint names it
    /// (`python3 -m determined.launch.torch_distributed --trial train:MyTrial`, or the
    /// deprecated `train:MyTrial`), or when the script fits it with the Trainer API
    /// (`pytorch.Trainer(MyTrial(ctx), ctx).fit()`). The launcher runs `--trial
    /// train:MyTrial` as `python3 -m determined.exec.harness train:MyTrial` on each
    /// rank, which is also the command to give `stagec exec` (`… torch_distributed
    /// -- stagec exec -- python3 -m determined.exec.harness train:MyTrial`). Run as a
    /// script, the file defines the class and exits: the trial trains nothing and
    /// reports no metrics, on as many slots as the experiment asks for. stagec checks the rest of the
    /// training code as Determined would run it once the entrypoint names the class.
    ///
    /// ## Example
    /// ```yaml
    /// entrypoint: python train.py   # warning: train.py only defines HybridTrial
    /// # fix: python3 -m determined.launch.torch_distributed --trial train:HybridTrial
    /// ```
    pub static TRIAL_CLASS_NEVER_RUN = {
        code: "T113",
        name: "trial-class-never-run",
        family: Training,
        severity: Warning,
        summary: "The entrypoint runs a file that only defines a trial class, so nothing trains",
    };
}

use super::training_support::code;
use super::{path, Cx, Sink};
use crate::training::runtime::TrialKind;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(code), Some(config)) = (code(cx), cx.config()) else {
        return;
    };
    let Some((k, kind)) = code.rt.unlaunched_trial else {
        return;
    };
    let Some(class) = code.prog.class(k) else { return };
    let Some(launch) = &code.rt.launch else { return };
    let module = code.prog.module_name(k.m).to_string();
    let launcher = match kind {
        TrialKind::PyTorch => "determined.launch.torch_distributed",
        TrialKind::DeepSpeed => "determined.launch.deepspeed",
    };
    let script = match &launch.target {
        crate::training::entry::Target::Script(s) => s.clone(),
        crate::training::entry::Target::Module(m) => format!("-m {m}"),
        crate::training::entry::Target::Trial { .. } => return,
    };
    let entry_path = path(&["entrypoint"]);
    let value = config.json.get("entrypoint").and_then(|v| v.as_str()).unwrap_or("");
    // Through `stagec exec`, the class runs as the launcher's `--trial`
    // runs it (Determined's harness), with stagec exec kept in front.
    let via_stagec = crate::training::entry::runs_stagec_exec(value);
    let command = if via_stagec {
        format!(
            "python3 -m {launcher} -- stagec exec -- python3 -m determined.exec.harness {module}:{}",
            class.name
        )
    } else {
        format!("python3 -m {launcher} --trial {module}:{}", class.name)
    };
    let d = out
        .at_loc(
            config.loc(&entry_path),
            format!(
                "the entrypoint runs `{script}` as a script, but it only defines the trial class `{}`: nothing creates or fits it, so the trial trains nothing",
                class.name
            ),
        )
        .help(format!(
            "name the class in the entrypoint (`{command}`), or fit it with the Trainer API in an `if __name__ == \"__main__\":` block; stagec checks the code as Determined would run the class"
        ));
    d.label(code.file(k.m), class.name_span, "the trial class");
    // A plain module name only: a dotted or nested path may not be importable
    // from the context root.
    let simple = !module.is_empty() && module.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    // A fix would drop the `stagec exec` options the entrypoint gives.
    if via_stagec {
        return;
    }
    if let (Some(span), true, None) = (config.own_scalar_span(&entry_path), simple, launch.cwd.as_ref()) {
        let written = config.text.get(span.start..span.end).unwrap_or("");
        let edit = crate::edit::replace_string(config.file, config.text, span, value, &command);
        if !written.contains('\n') {
            d.unsafe_fix(format!("run `{module}:{}` with {launcher}", class.name), vec![edit]);
        }
    }
}
