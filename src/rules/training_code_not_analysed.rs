declare_rule! {
    /// ## What it checks
    /// That the experiment's `entrypoint` names Python code stagec can read in the
    /// context directory: a script (`python3 train.py`), a module (`python3 -m
    /// trainer`), or a trial class (`model_def:MyTrial`, `--trial model_def:MyTrial`),
    /// after the launch layers in front of it (`python3 -m
    /// determined.launch.torch_distributed`, `torchrun`, `deepspeed`, `accelerate
    /// launch`) are taken off.
    ///
    /// ## Why
    /// The training-code rules (`T…`) read the file that runs on every rank and the
    /// context modules it imports. A shell script, an executable stagec does not
    /// know, or a file outside the context leaves nothing to read; this note says so
    /// instead of reporting silence as success. A script missing from the context is
    /// also missing from what `det experiment create` uploads.
    ///
    /// ## Example
    /// ```yaml
    /// entrypoint: sh run_all.sh      # info: a shell script; training code not analysed
    /// ```
    pub static TRAINING_CODE_NOT_ANALYSED = {
        code: "T100",
        name: "training-code-not-analysed",
        family: Training,
        severity: Info,
        summary: "The entrypoint does not name Python code in the context, so the training code was not checked",
    };
}

use super::{path, Cx, Sink};
use crate::training::entry::{NotPython, Target};
use crate::training::program::Sym;
use crate::training::EntrySpec;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let (Some(training), Some(config)) = (cx.training(), cx.config()) else {
        return;
    };
    if !training.config.present {
        return;
    }
    let context = cx.compiled.searched.as_deref().unwrap_or("");
    let why = match &training.entry {
        EntrySpec::Absent => return,
        EntrySpec::NotPython(NotPython::Shell(cmd)) => format!("`{cmd}` runs a shell script"),
        EntrySpec::NotPython(NotPython::InlineCode) => "`python -c` runs code written in the command".to_string(),
        EntrySpec::NotPython(NotPython::Unknown(exe)) => {
            format!("`{exe}` is not a Python interpreter or a launcher stagec knows")
        }
        EntrySpec::NotPython(NotPython::Empty) => "the entrypoint names no script".to_string(),
        EntrySpec::Missing(_, what) if what.is_empty() => "the entry file is not readable text".to_string(),
        // A trial or module of an installed library (Determined's model hub,
        // Determined itself): there is no training code of the experiment's own.
        EntrySpec::Missing(launch, _) if from_library(&launch.target) => return,
        EntrySpec::Missing(_, what) if context.starts_with('`') => format!("{what} {context}"),
        EntrySpec::Missing(_, what) => what.clone(),
        EntrySpec::Found(launch, _) => {
            // A trial class must be in its module.
            let Target::Trial { module, qualname } = &launch.target else {
                return;
            };
            let prog = training.program();
            let Some(m) = prog
                .modules()
                .find(|m| prog.role(*m) == Some(crate::training::FileRole::Entry))
            else {
                return;
            };
            let first = qualname.split('.').next().unwrap_or("");
            if matches!(prog.global(m, first, 0), Some(Sym::Class(_))) || prog.global(m, first, 0).is_some() {
                return;
            }
            format!("module `{module}` has no class `{qualname}`")
        }
    };
    out.at_loc(
        config.loc(&path(&["entrypoint"])),
        format!("training code not analysed: {why}"),
    )
    .help("stagec checks the Python the entrypoint runs and the context modules it imports; pass `--context DIR` when the code lives in another folder");
}

/// Packages whose trials and modules live in the image, not the context.
const LIBRARIES: &[&str] = &[
    "model_hub",
    "determined",
    "transformers",
    "torch",
    "deepspeed",
    "accelerate",
];

fn from_library(target: &Target) -> bool {
    let module = match target {
        Target::Module(m) | Target::Trial { module: m, .. } => m,
        Target::Script(_) => return false,
    };
    LIBRARIES.contains(&module.split('.').next().unwrap_or(""))
}
