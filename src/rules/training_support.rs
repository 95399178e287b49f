//! What the training-code rules (`T…`) share: access to the program and
//! its runtime, locations in Python files, and the edits their fixes make.

use super::Cx;
use crate::diagnostic::Edit;
use crate::source::{FileId, Loc, Span};
use crate::training::ast::{Arg, Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{Anc, ArgPos, Callee, Flow};
use crate::training::program::{FuncId, ModId, Program, Scope};
use crate::training::runtime::{self, kw};
use crate::training::runtime::{ConfigFacts, Runtime};

/// Calls that keep iterating the loader they are given.
pub(crate) fn iteration_wrapper(callee: &Callee, pos: &ArgPos<'_>) -> bool {
    let Callee::External(p) = callee else { return false };
    let first = matches!(pos, ArgPos::Pos(0));
    match p.as_str() {
        "builtins.enumerate" | "builtins.iter" | "tqdm.tqdm" | "tqdm.auto.tqdm" | "tqdm.notebook.tqdm"
        | "itertools.islice" => first,
        "builtins.zip" | "itertools.chain" => matches!(pos, ArgPos::Pos(_)),
        // DeiT's and MAE's `MetricLogger.log_every(iterable, print_freq,
        // header)`, copied into most of their descendants' `misc.py` and
        // `utils.py`: it yields what it is given, in order, timing each
        // item. Where that module is not in the context (a submodule left
        // out), the method is still known by its name.
        p if p.ends_with("MetricLogger.log_every") => first,
        // ESPnet's `Reporter.measure_iter_time(iterable, name)`, kept by the
        // speech toolkits descended from it: yields what it is given, timing
        // each item; known by the method's name on any receiver.
        p if p.ends_with(".measure_iter_time") => first,
        // Lightning's `CombinedLoader({"t2i": a, "lm": b}, mode=…)`: passes
        // over each loader it holds (Show-o's training loop).
        // (`lightning.pytorch.utilities`, read as `lightning.utilities`;
        // older releases' `trainer.supporters`).
        p if p.starts_with("lightning.") && p.ends_with(".CombinedLoader") => {
            matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("iterables"))
        }
        _ => false,
    }
}

/// The training code of a compilation, ready for questions.
pub(crate) struct Code<'a> {
    pub prog: &'a Program,
    pub rt: &'a Runtime,
    pub cfg: &'a ConfigFacts,
    /// [`Code::lightning_fits`], asked once.
    fits: std::cell::OnceCell<bool>,
}

/// The training code, when there is any to check.
pub(crate) fn code<'a>(cx: &Cx<'a>) -> Option<Code<'a>> {
    let training = cx.training()?;
    if training.files.is_empty() {
        return None;
    }
    Some(Code {
        prog: training.program(),
        rt: training.runtime(),
        cfg: &training.config,
        fits: std::cell::OnceCell::new(),
    })
}

impl<'a> Code<'a> {
    /// The `training_step` methods of the code's `LightningModule`s: the
    /// scope of each, with its class. The Trainer runs each at every step.
    pub fn lightning_training_steps(&self) -> Vec<(Scope, crate::training::program::ClassId)> {
        let prog = self.prog;
        self.scopes_with_words(&["training_step"])
            .into_iter()
            .filter_map(|scope| {
                let f = scope.func()?;
                if prog.func(f)?.name != "training_step" {
                    return None;
                }
                let k = prog.class_of(f)?;
                runtime::lightning_module(prog, k).then_some((scope, k))
            })
            .collect()
    }

    /// Whether some code calls a Lightning Trainer's `fit`, `validate` or
    /// `tune` (`trainer.fit(model, datamodule=dm)`), on a Trainer the code
    /// shows or on a receiver named for one (`self.trainer.fit(…)`, a
    /// trainer passed in): only then does a Trainer ask a module for its
    /// training and validation loaders. Asked once per check.
    pub fn lightning_fits(&self) -> bool {
        *self.fits.get_or_init(|| {
            let prog = self.prog;
            self.scopes_with_words(&["fit", "validate", "tune"])
                .into_iter()
                .any(|scope| {
                    let mut hit = false;
                    prog.walk_exprs(scope, &mut |_, e| {
                        if hit {
                            return;
                        }
                        let ExprKind::Call { func, .. } = &e.kind else { return };
                        let ExprKind::Attribute { value, attr } = &func.kind else {
                            return;
                        };
                        if matches!(attr.as_str(), "fit" | "validate" | "tune") {
                            let named = matches!(&value.kind, ExprKind::Name(n) if n.contains("trainer"))
                                || matches!(&value.kind, ExprKind::Attribute { attr: a, .. } if a.contains("trainer"));
                            hit = named || runtime::lightning_trainer(prog, scope, value);
                        }
                    });
                    hit
                })
        })
    }

    pub fn file(&self, m: ModId) -> FileId {
        self.prog.file(m).unwrap_or(FileId(0))
    }

    pub fn loc(&self, m: ModId, span: Span) -> Loc {
        Loc {
            file: self.file(m),
            span,
        }
    }

    pub fn text(&self, m: ModId, span: Span) -> &'a str {
        self.prog.text(m).get(span.start..span.end).unwrap_or("")
    }

    /// The first line of `span` (a statement's header, `for x in loader:`,
    /// or a call's first line), without trailing blanks: what a label on a
    /// many-line statement underlines.
    pub fn first_line(&self, m: ModId, span: Span) -> Span {
        let head = self.text(m, span).lines().next().unwrap_or("").trim_end();
        Span::new(span.start, span.start + head.len())
    }

    /// The scopes of training-code chunks (not model-only sources) that
    /// mention one of `needles`.
    pub fn scopes(&self, needles: &[&str]) -> Vec<Scope> {
        let mut out = Vec::new();
        for m in self.prog.code_modules() {
            let chunks: Vec<u32> = self.prog.chunks_mentioning(m, needles).collect();
            for c in chunks {
                out.extend(self.prog.scopes(m, c));
            }
        }
        out
    }

    /// The scopes of training-code chunks that have one of `words` as a
    /// whole identifier (cheaper and more selective than [`Code::scopes`]
    /// for names: `reduce` does not pick `reduce_dict`).
    pub fn scopes_with_words(&self, words: &[&str]) -> Vec<Scope> {
        let mut out = Vec::new();
        for m in self.prog.code_modules() {
            for c in self.prog.chunks_with_words(m, words) {
                out.extend(self.prog.scopes(m, c));
            }
        }
        out
    }

    /// The scopes of training-code chunks that may call one of the external
    /// `targets` (by name or by an alias the module imports), or mention
    /// one of `extra`.
    pub fn scopes_for(&self, targets: &[&str], extra: &[&str]) -> Vec<Scope> {
        let mut out = Vec::new();
        for m in self.prog.code_modules() {
            let mut needles = self.prog.needles_for(m, targets);
            needles.extend(extra.iter().map(|e| e.to_string()));
            let words: Vec<&str> = needles.iter().map(String::as_str).collect();
            let chunks: Vec<u32> = self.prog.chunks_mentioning(m, &words).collect();
            for c in chunks {
                out.extend(self.prog.scopes(m, c));
            }
        }
        out
    }

    /// The edit that puts `sorted(<the text at inner>)` in place of `at`
    /// (the listing itself, or `list(…)` of a set).
    pub fn sorted_edit(&self, m: ModId, at: Span, inner: Span) -> Edit {
        crate::edit::replace(self.file(m), at, format!("sorted({})", self.text(m, inner)))
    }

    /// The name the file binds to the `torch` module (for fixes that call
    /// it), when it binds one.
    pub fn torch(&self, m: ModId) -> Option<String> {
        self.prog.module_alias(m, "torch")
    }
}

/// The edit adding `text` (`name=value`) as the last argument of `call`.
pub(crate) fn add_argument(file: FileId, call: &Expr, source: &str, text: &str) -> Option<Edit> {
    let ExprKind::Call { args, args_span, .. } = &call.kind else {
        return None;
    };
    if !source.get(args_span.start..args_span.end)?.starts_with('(') {
        return None;
    }
    match args.last() {
        None => Some(crate::edit::replace(file, Span::at(args_span.start + 1), text)),
        Some(last) => Some(crate::edit::replace(
            file,
            Span::at(last_end(last)),
            format!(", {text}"),
        )),
    }
}

fn last_end(a: &Arg) -> usize {
    a.span().end
}

/// A one-line excerpt of source text, for messages.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 50;
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > MAX {
        let cut: String = one.chars().take(MAX).collect();
        format!("{cut}…")
    } else {
        one
    }
}

/// The experiment's pipeline degree: the resolved pipeline's, else a fixed
/// `pipeline_parallel_degree`.
pub(crate) fn pipeline_degree(cx: &Cx<'_>) -> Option<i64> {
    if let Some(p) = cx.pipeline() {
        return i64::try_from(p.degree).ok();
    }
    crate::settings::Settings::fixed(cx.settings()?.pipeline_parallel_degree.as_ref())
}

/// Whether the experiment's entrypoint runs the training command through
/// `stagec exec`, which gives every rank the plan's environment
/// (`STAGEC_DATA_SEED`, `STAGEC_RANK_SEED`, …).
pub(crate) fn runs_stagec_exec(cx: &Cx<'_>) -> bool {
    use crate::spec::Entrypoint;
    match cx.settings().and_then(|s| s.entrypoint.as_ref()) {
        Some(Entrypoint::Command(c)) => crate::training::entry::runs_stagec_exec(c),
        Some(Entrypoint::Argv(words)) => crate::training::entry::argv_runs_stagec_exec(words),
        None => false,
    }
}

/// Determined's sharding loader.
pub(crate) const DET_LOADER: &str = "determined.pytorch.DataLoader";

/// How a message names a call that seeds one of the process's global
/// random number generators (`numpy.random.seed` → `np.random.seed`), for
/// the three a worker or a rank seeds.
pub(crate) fn global_seeder(path: &str) -> Option<&'static str> {
    match path {
        "numpy.random.seed" => Some("np.random.seed"),
        "random.seed" => Some("random.seed"),
        "torch.manual_seed" => Some("torch.manual_seed"),
        _ => None,
    }
}

/// Names of a model-parallel RNG (Megatron's, fairscale's): the ranks of a
/// tensor-parallel group must draw alike.
const MODEL_PARALLEL_RNG: &[&str] = &[
    "model_parallel_cuda_manual_seed",
    "get_cuda_rng_tracker",
    "model_parallel_random_seed",
];

/// Names of ranks grouped apart from the data-parallel ones (a sampler
/// over Megatron's data-parallel rank): the ranks of a model-parallel
/// group read the same samples.
const MODEL_PARALLEL_RANKS: &[&str] = &[
    "get_data_parallel_rank",
    "get_tensor_model_parallel_rank",
    "tensor_model_parallel_size",
];

/// Where the training code uses model parallelism, read once per check:
/// the programs whose modules seed a model-parallel RNG.
pub(crate) struct ModelParallel {
    programs: u64,
    any: bool,
    /// The modules that group their ranks by model parallelism.
    grouped: Vec<crate::training::program::ModId>,
}

impl ModelParallel {
    pub(crate) fn of(code: &Code<'_>) -> Self {
        let prog = code.prog;
        let mut mp = ModelParallel {
            programs: 0,
            any: false,
            grouped: Vec::new(),
        };
        for m in prog.code_modules() {
            if prog.chunks_mentioning(m, MODEL_PARALLEL_RNG).next().is_some() {
                mp.any = true;
                mp.programs |= prog.programs(m);
            }
            if prog.chunks_mentioning(m, MODEL_PARALLEL_RANKS).next().is_some() {
                mp.grouped.push(m);
            }
        }
        mp
    }

    /// Whether module `m` runs model parallelism: a program that runs it
    /// seeds a model-parallel RNG (any module, where `m` is in no known
    /// program), or `m` itself groups its ranks by model parallelism.
    /// Another script of the repository that runs Megatron, or a vendored
    /// engine that merely accepts a model-parallel unit, says nothing
    /// about this one.
    pub(crate) fn runs(&self, code: &Code<'_>, m: crate::training::program::ModId) -> bool {
        let rng = match code.prog.programs(m) {
            0 => self.any,
            mine => self.programs & mine != 0,
        };
        rng || self.grouped.contains(&m)
    }
}

/// Whether a torch DataLoader is handed to something that shards it:
/// `accelerator.prepare`, a Lightning Trainer's `fit`, or returned by a
/// Lightning data hook.
pub(crate) fn managed(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], loader: &Expr) -> bool {
    managed_where(code, scope, anc, loader, true)
}

/// [`managed`] on every run: an `accelerator.prepare(…)` under a switch of
/// the run (`if args.use_accelerate:`, `if accelerator is not None:`) leaves
/// the loader as it is on the runs without it (BiRefNet's `--dist` arm
/// beside its `--use_accelerate` one). A test of the prepared value itself
/// (`if val_loader is not None:`) is no such switch.
pub(crate) fn managed_always(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], loader: &Expr) -> bool {
    managed_where(code, scope, anc, loader, false)
}

fn managed_where(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], loader: &Expr, switched: bool) -> bool {
    let prog = code.prog;
    let mut managed = false;
    let mut lost = false;
    let no = |_: &Callee, _: &ArgPos<'_>| false;
    prog.flows(scope, anc, loader, &no, &mut |flow| match flow {
        Flow::Arg { scope, call, anc, .. } => {
            if let ExprKind::Call { .. } = &call.kind {
                if !switched && under_run_switch(code, scope, &anc, call) {
                    return;
                }
                // Handed to a Lightning Trainer (`trainer.fit(model,
                // loader)`), which puts a distributed sampler in it.
                if lightning_takes(code, scope, call, &["fit", "validate", "test", "predict"]) {
                    managed = true;
                }
                if accelerate_prepare(prog, scope, call) {
                    managed = true;
                }
                if let Some(p) = prog.external(scope, call_func(call)) {
                    if p.starts_with("accelerate.") || p == DET_LOADER {
                        managed = true;
                    }
                }
                // Lightning Fabric's `setup_dataloaders(train, val)` puts a
                // distributed sampler (wrapping the loader's own) in each,
                // unless told not to.
                if let ExprKind::Call { func, args, .. } = &call.kind {
                    if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "setup_dataloaders")
                        && !runtime::kw(args, "use_distributed_sampler")
                            .is_some_and(|v| matches!(v.kind, ExprKind::Bool(false)))
                    {
                        managed = true;
                    }
                }
            }
        }
        Flow::Returned { func: Some(f), .. } => {
            lost = true;
            if let (Some(func), Some(k)) = (prog.func(f), prog.class_of(f)) {
                let hook = func.name.ends_with("_dataloader");
                let lightning = prog.external_bases(k).iter().any(|b| b.starts_with("lightning."));
                // Sharded by the Trainer, or a hook Lightning never calls
                // (the datamodules the Trainer is handed are of other
                // classes: ViLT's per-dataset modules under a multitask
                // module that makes its own loaders).
                if hook && lightning && (!lightning_sampler_off(code) || hook_never_run(code, f, k)) {
                    managed = true;
                }
            }
        }
        // Kept where the flow does not follow it: see below.
        Flow::Returned { .. } | Flow::Escapes { .. } => lost = true,
        _ => {}
    });
    // A loader whose way is lost in a module that hands its loaders to
    // `accelerator.prepare(…)` (returned in a tuple from a helper that a
    // test swaps for a mock): taken as prepared, so nothing is said.
    managed || (lost && prepares_loaders(code, scope.m))
}

/// Whether `call` is `accelerator.prepare(…)` (or `prepare_data_loader`) on
/// an Accelerate `Accelerator`.
pub(crate) fn accelerate_prepare(prog: &crate::training::program::Program, scope: Scope, call: &Expr) -> bool {
    let ExprKind::Call { func, .. } = &call.kind else {
        return false;
    };
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return false;
    };
    (attr == "prepare" || attr == "prepare_data_loader") && prog.built_by(scope, value, "accelerate.Accelerator")
}

/// Whether `call` (ancestors `anc`) sits in an arm of an `if` whose test
/// reads none of the call's arguments: a switch of the run, not a test of
/// the value handed over.
pub(crate) fn under_run_switch(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], call: &Expr) -> bool {
    let ExprKind::Call { args, .. } = &call.kind else {
        return false;
    };
    let text = code.prog.text(scope.m);
    let handed: Vec<&str> = args
        .iter()
        .filter_map(|a| match a {
            crate::training::ast::Arg::Pos(v) | crate::training::ast::Arg::Kw { value: v, .. } => {
                text.get(v.span.start..v.span.end)
            }
            _ => None,
        })
        .collect();
    runtime::on_branch(anc, call as *const Expr as *const (), |test, _| {
        let t = text.get(test.span.start..test.span.end).unwrap_or("");
        !handed.iter().any(|h| !h.is_empty() && t.contains(h))
    })
}

/// Whether the data hook `f` of the Lightning class `k` never runs: nothing
/// calls it, and every datamodule the program hands a Trainer
/// (`trainer.fit(model, datamodule=dm)`) is built by a class of the code
/// that is neither `k` nor derives from it. `false` where no such hand-over
/// is seen, or one is not known.
pub(crate) fn hook_never_run(code: &Code<'_>, f: FuncId, k: crate::training::program::ClassId) -> bool {
    let prog = code.prog;
    if !prog.call_sites(f).is_empty() || prog.escapes(f) {
        return false;
    }
    let mut handed = 0usize;
    let mut other = true;
    for m in prog.code_modules() {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &["datamodule"]).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                prog.walk_exprs(scope, &mut |_, e| {
                    let ExprKind::Call { func, args, .. } = &e.kind else {
                        return;
                    };
                    let ExprKind::Attribute { value, attr } = &func.kind else {
                        return;
                    };
                    if !matches!(attr.as_str(), "fit" | "validate" | "test" | "predict" | "tune")
                        || !runtime::lightning_trainer(prog, scope, value)
                    {
                        return;
                    }
                    let Some(dm) = kw(args, "datamodule") else { return };
                    handed += 1;
                    let sources = prog.sources(scope, dm);
                    other &= !sources.unknown
                        && !sources.terms.is_empty()
                        && sources.terms.iter().all(|t| match &t.expr.kind {
                            ExprKind::Call { func, .. } if t.proj.is_empty() => match prog.callee(t.scope, func) {
                                Callee::Class(c) => c != k && !prog.ancestors(c).contains(&k),
                                _ => false,
                            },
                            _ => false,
                        });
                });
            }
        }
    }
    handed > 0 && other
}

/// Whether module `m` calls `prepare(…)` on an Accelerate `Accelerator`.
fn prepares_loaders(code: &Code<'_>, m: crate::training::program::ModId) -> bool {
    let prog = code.prog;
    let chunks: Vec<u32> = prog.chunks_mentioning(m, &["prepare"]).collect();
    chunks.into_iter().any(|c| {
        prog.scopes(m, c).into_iter().any(|scope| {
            let mut hit = false;
            prog.walk_exprs(scope, &mut |_, e| {
                if hit {
                    return;
                }
                let ExprKind::Call { func, args, .. } = &e.kind else {
                    return;
                };
                let ExprKind::Attribute { attr, .. } = &func.kind else {
                    return;
                };
                if attr != "prepare" {
                    return;
                }
                // Some argument may be a loader: not a call that prepares
                // only the model, optimizer and scheduler
                // (`accelerator.prepare(model, optimizer, lr_scheduler)`).
                let loader_like = args.iter().any(|a| match a {
                    crate::training::ast::Arg::Pos(v) | crate::training::ast::Arg::Kw { value: v, .. } => {
                        let text = prog
                            .text(scope.m)
                            .get(v.span.start..v.span.end)
                            .unwrap_or("")
                            .to_ascii_lowercase();
                        !["model", "optim", "sched", "net"].iter().any(|w| text.contains(w))
                    }
                    _ => true,
                });
                if !loader_like {
                    return;
                }
                hit = accelerate_prepare(prog, scope, e);
            });
            hit
        })
    })
}

fn call_func(call: &Expr) -> &Expr {
    match &call.kind {
        ExprKind::Call { func, .. } => func,
        _ => call,
    }
}

/// Whether `call` (in `scope`) is one of a Lightning `Trainer`'s
/// `methods` (`trainer.fit(model, loader)`), where the Trainer puts its
/// distributed sampler in the loaders it is handed (its sampler handling
/// left on).
pub(crate) fn lightning_takes(code: &Code<'_>, scope: Scope, call: &Expr, methods: &[&str]) -> bool {
    let ExprKind::Call { func, .. } = &call.kind else {
        return false;
    };
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return false;
    };
    methods.contains(&attr.as_str())
        && runtime::lightning_trainer(code.prog, scope, value)
        && !lightning_sampler_off(code)
}

/// Whether a Lightning `Trainer` turns its sampler handling off.
pub(crate) fn lightning_sampler_off(code: &Code<'_>) -> bool {
    let trainers = runtime::calls(code.prog, &["lightning.Trainer"]);
    trainers.iter().any(|(_, _, call, _)| {
        let ExprKind::Call { args, .. } = &call.kind else {
            return false;
        };
        ["use_distributed_sampler", "replace_sampler_ddp"]
            .iter()
            .any(|k| kw(args, k).is_some_and(|v| matches!(v.kind, ExprKind::Bool(false))))
    })
}

/// The edits adding `NAME=value` to the experiment's
/// `environment.environment_variables` (to each of `cpu`/`cuda`/`rocm` in
/// the per-device form), creating the key or the section when missing.
pub(crate) fn env_var_edits(cx: &Cx<'_>, entry: &str) -> Option<Vec<Edit>> {
    use crate::yaml::PathSeg;
    let config = cx.config()?;
    let key = |k: &str| PathSeg::Key(k.to_string());
    let base = vec![key("environment"), key("environment_variables")];
    match config.json.pointer("/environment/environment_variables") {
        Some(serde_json::Value::Array(_)) => Some(vec![append_item(&config, &base, entry)?]),
        Some(serde_json::Value::Object(map)) => {
            let mut edits = Vec::new();
            for variant in ["cpu", "cuda", "rocm", "gpu"] {
                if map.get(variant).is_some_and(|v| v.is_array()) {
                    let mut p = base.clone();
                    p.push(key(variant));
                    edits.push(append_item(&config, &p, entry)?);
                }
            }
            (!edits.is_empty()).then_some(edits)
        }
        Some(serde_json::Value::Null) | None => {
            let flow = format!("[\"{entry}\"]");
            match config.json.get("environment") {
                Some(serde_json::Value::Object(_)) => Some(vec![crate::edit::insert_entry(
                    config.file,
                    config.text,
                    config.tree,
                    &[key("environment")],
                    "environment_variables",
                    &flow,
                )?]),
                None => Some(vec![crate::edit::insert_entry(
                    config.file,
                    config.text,
                    config.tree,
                    &[],
                    "environment",
                    &format!("{{environment_variables: {flow}}}"),
                )?]),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The edit appending `item` to the list at `path` (block or flow style).
fn append_item(config: &super::Config<'_>, path: &[crate::yaml::PathSeg], item: &str) -> Option<Edit> {
    use crate::yaml::Value;
    let loc = crate::edit::own_node(config.tree, path)?;
    let Value::Seq(items) = &config.tree.node(loc.node).value else {
        return None;
    };
    let span = config.tree.span(loc.node);
    let text = config.text;
    let src = text.get(span.start..span.end)?;
    if src.starts_with('[') && src.ends_with(']') {
        let insert = if items.is_empty() {
            format!("\"{item}\"")
        } else {
            format!(", \"{item}\"")
        };
        return Some(crate::edit::replace(config.file, Span::at(span.end - 1), insert));
    }
    let last = config.tree.span(*items.last()?);
    let line_start = text.get(..last.start)?.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let before = text.get(line_start..last.start)?;
    let dash = before.trim_end();
    if !dash.ends_with('-') || !dash[..dash.len() - 1].chars().all(|c| c == ' ') {
        return None;
    }
    let indent = &dash[..dash.len() - 1];
    let rest = text.get(last.end..)?;
    let line_end = last.end + rest.find(['\n', '\r']).unwrap_or(rest.len());
    let tail = text.get(last.end..line_end)?.trim();
    if !(tail.is_empty() || tail.starts_with('#')) {
        return None;
    }
    Some(crate::edit::replace(
        config.file,
        Span::at(line_end),
        format!("{}{indent}- {item}", config.tree.newline()),
    ))
}

/// Whether this compilation writes a plan (`stagec plan`), whose
/// environment carries stagec's defaults (`CUBLAS_WORKSPACE_CONFIG`,
/// `PYTHONHASHSEED`) to every rank.
pub(crate) fn plan_environment(cx: &Cx<'_>) -> bool {
    cx.require_variables
}

/// Whether the code assigns environment variable `name` (`os.environ[...]
/// = …`, `setdefault`, `update`, `putenv`): the statements' scopes and
/// spans.
pub(crate) fn env_assignments<'p>(code: &Code<'p>, name: &str) -> Vec<(Scope, &'p crate::training::ast::Stmt, Span)> {
    use crate::training::ast::StmtKind;
    let prog = code.prog;
    let mut out = Vec::new();
    for scope in code.scopes(&[name]) {
        prog.walk_stmts(scope, &mut |_, s| match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    if let ExprKind::Subscript { value, index } = &t.kind {
                        if prog.external(scope, value).as_deref() == Some("os.environ")
                            && matches!(&index.kind, ExprKind::Str(k) if k == name)
                        {
                            out.push((scope, s, s.span));
                        }
                    }
                }
            }
            StmtKind::Expr(e) => {
                let ExprKind::Call { func, args, .. } = &e.kind else { return };
                let Some(path) = prog.external(scope, func) else { return };
                let named = |i: usize| runtime::pos(args, i).is_some_and(|a| matches!(&a.kind, ExprKind::Str(k) if k == name));
                let hit = match path.as_str() {
                    "os.environ.setdefault" | "os.putenv" => named(0),
                    "os.environ.update" => kw(args, name).is_some()
                        || runtime::pos(args, 0).is_some_and(|d| match &d.kind {
                            ExprKind::Dict(items) => items.iter().any(|i| matches!(i, crate::training::ast::DictItem::Pair { key, .. } if matches!(&key.kind, ExprKind::Str(k) if k == name))),
                            _ => false,
                        }),
                    _ => false,
                };
                if hit {
                    out.push((scope, s, e.span));
                }
            }
            _ => {}
        });
    }
    out
}

/// The name a call's function is written with: `f` of `f(…)` and of
/// `x.f(…)`; `None` for anything else (`fs[0](…)`).
pub(crate) fn called_name(func: &Expr) -> Option<&str> {
    match &func.kind {
        ExprKind::Attribute { attr, .. } => Some(attr.as_str()),
        ExprKind::Name(n) => Some(n.as_str()),
        _ => None,
    }
}

/// Whether the body of a `for` over batches trains: a backward pass or an
/// optimizer step, directly or in functions it calls.
pub(crate) fn trains(code: &Code<'_>, scope: Scope, st: &Stmt) -> bool {
    trains_entered(code, scope, st, &[])
}

/// [`trains`], for a loop a flow reached by entering its function at the
/// calls `entered` (`Flow::Entered`): where the loop hands its batches on
/// (`MetricLogger.log_every(iterable)`, which both the training and the
/// evaluation loops call), only what those calls' callers do with them
/// counts, not what every caller of the generator does.
pub(crate) fn trains_entered(code: &Code<'_>, scope: Scope, st: &Stmt, entered: &[*const Expr]) -> bool {
    let StmtKind::For { body, target, .. } = &st.kind else {
        return false;
    };
    if body_trains(code, scope, body) {
        return true;
    }
    // A generator handing the batches on (`while True: for b in loader:
    // yield b`, also `for i, b in enumerate(loader): yield b`): it trains
    // where what it yields is consumed.
    let names: Vec<&str> = match &target.kind {
        ExprKind::Name(name) => vec![name.as_str()],
        ExprKind::Tuple(items) => items
            .iter()
            .filter_map(|x| match &x.kind {
                ExprKind::Name(n) => Some(n.as_str()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    match scope.func() {
        Some(f) if names.iter().any(|n| yields_name(body, n)) => generator_trains(code, f, entered),
        _ => false,
    }
}

/// Whether `body` yields the name `name` as it is (`yield batch`).
fn yields_name(body: &[Stmt], name: &str) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    for b in body {
        crate::training::program::walk_stmt(b, &mut stack, &mut |_, n| {
            if let crate::training::program::Node::Expr(e) = n {
                if let ExprKind::Yield(Some(v)) = &e.kind {
                    found |= matches!(&v.kind, ExprKind::Name(x) if x == name);
                }
            }
        });
    }
    found
}

/// Whether the generator function `f` is consumed by training: its
/// generator iterated by a `for` that trains, or drawn from with `next(…)`
/// inside a loop whose body trains. Where some of its calls are among
/// `only`, those calls alone are asked.
fn generator_trains(code: &Code<'_>, f: FuncId, only: &[*const Expr]) -> bool {
    let prog = code.prog;
    let mut sites = prog.call_sites(f);
    if sites.iter().any(|(_, c)| only.contains(&(*c as *const Expr))) {
        sites.retain(|(_, c)| only.contains(&(*c as *const Expr)));
    }
    for (s, call) in sites.into_iter().take(8) {
        let Some(anc) = prog.ancestors_of(s, call) else {
            continue;
        };
        let mut hit = false;
        prog.flows(s, &anc, call, &iteration_wrapper, &mut |flow| match flow {
            Flow::Iterated {
                scope, stmt: Some(st), ..
            } => {
                if let StmtKind::For { body, .. } = &st.kind {
                    hit |= body_trains(code, scope, body);
                }
            }
            Flow::Arg {
                scope,
                callee: Callee::External(p),
                anc,
                ..
            } if p == "builtins.next" => {
                let body = anc.iter().rev().find_map(|a| match a {
                    Anc::Stmt(st) => match &st.kind {
                        StmtKind::For { body, .. } | StmtKind::While { body, .. } => Some(body),
                        _ => None,
                    },
                    _ => None,
                });
                hit |= body.is_some_and(|b| body_trains(code, scope, b));
            }
            _ => {}
        });
        if hit {
            return true;
        }
    }
    false
}

/// Whether `body` runs a backward pass or an optimizer step, directly or
/// in functions it calls.
pub(crate) fn body_trains(code: &Code<'_>, scope: Scope, body: &[Stmt]) -> bool {
    let prog = code.prog;
    let text = |s: Scope, span: Span| code.text(s.m, span);
    let mut found = false;
    let mut stack = Vec::new();
    let mut calls = Vec::new();
    for b in body {
        crate::training::program::walk_stmt(b, &mut stack, &mut |_, n| {
            if let crate::training::program::Node::Expr(e) = n {
                if let ExprKind::Call { .. } = &e.kind {
                    found |= training_step_call(e);
                    calls.push(e);
                }
            }
        });
    }
    if found {
        return true;
    }
    let mut callees = prog.callees_of(scope, body, 2);
    // A method of an object the code does not follow to its class
    // (`trainer = ppo_trainer(engine, args)` with the class chosen by a
    // flag, then `trainer.train_rlhf(exp)`): the code's methods of that
    // name, where few classes define one.
    for e in &calls {
        let ExprKind::Call { func, .. } = &e.kind else { continue };
        let ExprKind::Attribute { attr, .. } = &func.kind else {
            continue;
        };
        if prog.callee(scope, func) != Callee::Unknown {
            continue;
        }
        let classes = prog.classes_mentioning(&[attr.as_str()]);
        let defs: Vec<FuncId> = classes.iter().filter_map(|k| prog.own_method(*k, attr)).collect();
        if !defs.is_empty() && defs.len() <= 4 {
            callees.extend(defs);
        }
    }
    callees.iter().any(|f| {
        let cheap = prog.func(*f).is_some_and(|func| {
            let t = text(f.scope(), func.span);
            t.contains(".backward(") || t.contains(".step(") || t.contains("step_optimizer(")
        });
        if !cheap {
            return false;
        }
        let mut hit = false;
        prog.walk_exprs(f.scope(), &mut |_, e| hit |= training_step_call(e));
        hit
    })
}

/// Whether `e` is a training step's call: `loss.backward()`,
/// `step_optimizer(…)`, or an optimizer's (or LR scheduler's) `.step()`,
/// which takes at most a closure or an epoch — not a diffusion sampler's
/// `scheduler.step(model_output, t, sample)`.
fn training_step_call(e: &Expr) -> bool {
    let ExprKind::Call { func, args, .. } = &e.kind else {
        return false;
    };
    let attr = match &func.kind {
        ExprKind::Attribute { attr, .. } => attr,
        ExprKind::Name(n) => return n == "step_optimizer",
        _ => return false,
    };
    match attr.as_str() {
        "backward" | "step_optimizer" => true,
        "step" => args.len() <= 1,
        _ => false,
    }
}

/// Whether a DataLoader feeds training: iterated by a loop that trains,
/// returned as a Determined trial's training loader, or kept under a name
/// that says so (`train_loader`) where its use is out of sight.
pub(crate) fn feeds_training(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], loader: &Expr) -> bool {
    let prog = code.prog;
    let mut training = false;
    prog.flows(scope, anc, loader, &iteration_wrapper, &mut |flow| match flow {
        Flow::Iterated {
            scope, stmt: Some(st), ..
        } if trains(code, scope, st) => training = true,
        Flow::Returned { func: Some(f), .. }
            if prog
                .func(f)
                .is_some_and(|x| x.name == "build_training_data_loader" || x.name == "train_dataloader") =>
        {
            training = true;
        }
        Flow::Stored { target, .. } => {
            let name = match &target.kind {
                ExprKind::Name(n) => n.as_str(),
                ExprKind::Attribute { attr, .. } => attr.as_str(),
                _ => "",
            }
            .to_ascii_lowercase();
            if name.contains("train") && !["val", "test", "eval"].iter().any(|x| name.contains(x)) {
                training = true;
            }
        }
        _ => {}
    });
    training
}

/// Whether a call to the external `path` draws random numbers from a global
/// or module-level RNG (`random.randint`, `np.random.rand`, `torch.randperm`),
/// not seeds, saves or builds one.
pub(crate) fn draws_random(path: &str) -> bool {
    if let Some(rest) = path.strip_prefix("random.") {
        return !matches!(rest, "seed" | "getstate" | "setstate" | "Random" | "SystemRandom");
    }
    if let Some(rest) = path.strip_prefix("numpy.random.") {
        return !matches!(
            rest,
            "seed" | "get_state" | "set_state" | "default_rng" | "RandomState" | "Generator" | "SeedSequence"
        );
    }
    matches!(
        path,
        "torch.rand"
            | "torch.randint"
            | "torch.randn"
            | "torch.randperm"
            | "torch.bernoulli"
            | "torch.multinomial"
            | "torch.normal"
    )
}
