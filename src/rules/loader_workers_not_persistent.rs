declare_rule! {
    /// ## What it checks
    /// A `DataLoader` (torch's, `determined.pytorch.DataLoader`, MONAI's
    /// `monai.data.DataLoader`, or a project
    /// subclass of torch's that leaves the workers to it — also one with its
    /// own signature that hands its `num_workers` to torch's unchanged but has
    /// no `persistent_workers` to hand on, pytracking's `LTRLoader`, reported
    /// without a fix and with the class named; not one whose own `__iter__`
    /// yields from one iterator it took once, CoCLR's `FastDataLoader`,
    /// which keeps its workers) whose `num_workers`
    /// resolves to 1 or more — written out, through module constants and
    /// `**kwargs` dicts (literals or `dict(k=v, …)`), argparse defaults (with the
    /// counts the code's own stores make of them, `args.num_workers =
    /// min(args.num_workers, 16)` or `args.workers //= 2`, as further candidates;
    /// unknown where a store may set 0 or anything else; also
    /// `parser.set_defaults(…)`, with a config file's values where it splats one the
    /// code loads, `set_defaults(**cfg)`, and into the workers `mp.spawn(fn, (args,))` starts), config
    /// objects filled in at module level (a yacs `_C.DATA.NUM_WORKERS = 8`, also
    /// through `_C.clone()`; where the code merges a file or the command line into
    /// it, `merge_from_file`/`merge_from_list`, the default is reported as one, named,
    /// with a fix that holds for any count the file sets; an `ml_collections.ConfigDict` or `AttrDict` of a dict
    /// literal, also one a YAML config is rewrapped in, `config = DotMap(config)`,
    /// and a subclass of the project's `AttrDict` whose `__init__` loads the
    /// YAML file it is given and hands it to `super().__init__`),
    /// a `None` default's fallback (`n if n is not None else bs * 2`), the default
    /// of a `.get("NumLoaderWorkers", 4)` on a JSON or YAML config loaded at run
    /// time where no config file of the project sets the key (reported as a
    /// default the run's file may replace), a dataclass's field default through
    /// `tyro.cli(Options)`, `min(…)`/`max(…)` of such counts, a share of the
    /// CPUs an option is filled in with when the command line leaves it out
    /// (`if not isinstance(args.workers, int): args.workers = min(16,
    /// cpu_count())`: 2 or more on a node that runs ranks), an entry of
    /// `**kwargs` (the call's keyword, or the entry of the mapping it
    /// splats: `DataModule(**vars(args))`), a Lightning module's
    /// `self.hparams.x` after `self.save_hyperparameters()` (the `__init__`'s
    /// parameter `x`) or `self.save_hyperparameters(args)` (the namespace's
    /// `x`; not where code changes the saved entry), a parameter of a model or
    /// data module `LightningCLI` builds (the project's YAML configs'
    /// `data.num_workers`, or `data.init_args.num_workers`), a parameter of a
    /// class no code calls that the project's config files name for code to
    /// build by name (Hydra's `_target_:` beside its arguments, a
    /// `class_path:` with `init_args:`, `instantiate_from_config`'s `target:`
    /// with `params:`; the values of every mapping that names it, with the
    /// parameter's default where one leaves it out), `cfg = OmegaConf.merge(cfg, cli)` of a loaded file and the
    /// command line's overrides, or
    /// through `context.get_hparam(…)`, `context.get_data_config()[…]` and
    /// `self.hparams.x` back to the experiment's `hyperparameters` and `data` —
    /// without `persistent_workers=True`, in code that runs once per rank (a
    /// multi-rank launch, or code that shows ranks itself: a process group, a
    /// `DistributedSampler`, DDP/FSDP, Accelerate, Fabric, a Lightning `Trainer` on
    /// several devices, or naming a per-device strategy outright beside a device count
    /// read from a setting (`strategy="ddp", devices=args.gpus_per_node`, a flag
    /// defaulting to 1; not `devices=1` written at the call) (`devices=-1`: every GPU of the node; also a
    /// `Trainer.from_argparse_args(args)` whose flags' defaults say so, a
    /// `LightningCLI` whose `trainer_defaults=` or YAML configs' `trainer:` do) or with a
    /// DDP/FSDP/DeepSpeed strategy, the launcher's `RANK`
    /// variables) or in an experiment with pipeline stages, when the loader is
    /// iterated more than once: inside a loop (not one that binds the loader's
    /// name anew at each pass, `for dl in loaders: for x in dl:`, which passes
    /// over each of the loaders once; a list of loaders built in a loop and
    /// handed whole to a function or trainer class of the code is followed to
    /// the loops there over its entries; also `while True: yield from
    /// loader` in a generator, an iterator's `__next__` that starts it over when
    /// it runs out, mmcv's `IterLoader`, and through a logging method or a
    /// function called from one — also a function handed to a helper that
    /// calls it, `gpu_timer(load_imgs)` in the loop — on the calls that carry this loader: a logging
    /// helper the epoch loop calls for the training loader does not make a test
    /// loader iterated once re-iterated; a method that reads the loader where
    /// it was kept, `self.val_loader` in a trainer's `validation()`, passes
    /// over it at each of its calls, from whichever loop; so does one that
    /// hands it from there to a function passing over it, a searcher's
    /// `is_legal()` calling `evaluate(self.val_loader, …)` for each
    /// candidate), as a Determined trial's validation loader, as a
    /// Lightning data hook's loader (`train_dataloader()`, `val_dataloader()`; not
    /// `test_dataloader()`, whose loader `trainer.test()` makes anew and passes over once) or a
    /// loader handed to a Lightning Trainer's `fit` (`trainer.fit(model, loader)`,
    /// `val_dataloaders=`), or
    /// handed to a pipeline framework's `wrap_data_loader(loader, …)` (HPP plugins
    /// have one), which passes over it every epoch. A loader a helper builds from
    /// its parameters is judged at each call site with that caller's values, and
    /// reported there (also the keywords a caller passes into the `**kwargs` a
    /// helper hands to the loader, `get_dataloader(ds, **kwargs)`; a caller's
    /// loader passed over on one rank only counts as a one-rank loader); a builder chosen at run time is called where it is chosen,
    /// by a dispatcher that returns it (`get_dataset_fn(kind)(args, …)`) or from
    /// a module's table of builders (`LOADERS[name]["train"](args, tok)`, a
    /// table used in no other way). The loader is followed through a dict of
    /// loaders its function returns (`data = get_data(args)`, then
    /// `data["train"]` where `data` is handed on), a dataclass or `NamedTuple`
    /// record holding it (`DataInfo(dataloader, sampler)`, read back as
    /// `.dataloader`), a dataclass trainer that keeps it as a field its own
    /// methods pass over (`TrainLoop(train_dl=loader, …).run()`, where no
    /// code outside the class reads that field) and a tuple unpacked beside it (`loader, sampler =
    /// info.dataloader, info.sampler`); a loop that makes the dict or the
    /// record anew at each pass makes the loader anew. An argparse count that each spawned rank divides over
    /// the node's GPUs, rounded up (`args.workers = int((args.workers + ngpus -
    /// 1) / ngpus)`, `// ngpus` or `math.ceil`, with `ngpus` from
    /// `torch.cuda.device_count()`), is reported with the node's total: a
    /// rank's share is unknown but at least 1, and the node starts at least
    /// the flag's value; divided over the job's world size the same way
    /// (`dist.get_world_size()`, a project helper returning it), at least 1
    /// on every rank; so is a local bound only to such a share of a known
    /// count of 1 or more (`workers = int((cfg["NUM_WORKERS"] + ngpus - 1) /
    /// ngpus)`, with `cfg` a `dict(NUM_WORKERS=5, …)` of the code, also kept
    /// under an int key); rounded down, divided by anything else,
    /// or stored to elsewhere too, it is left alone. A loader built on one rank only (under `if rank == 0:`,
    /// `if is_main_process():`, or in a function called only there) in a multi-rank
    /// job, or every rank builds but only one iterates, is reported from 2 workers up, as that rank's: its workers are one
    /// process's, not the node's ranks', but each pass restarts them while the other
    /// ranks wait for that rank at their next collective. A loader built, or
    /// passed over, only on the path without distribution (the `else` of `if
    /// args.distributed:`, `if cfg.MODEL.DIST_TRAIN:`) is no rank's: it is left
    /// alone, and its passes there do not count; so is one in the `if __name__ ==
    /// "__main__":` block of a module the training script imports (a dataset
    /// module's smoke test, which runs only when that module is run alone).
    /// So is a loader whose dataset the code changes between passes
    /// (`train_set.set_epoch(epoch)`, `loader.dataset.epoch = epoch`): workers
    /// kept alive would go on with their stale copy of it. So is a loader made
    /// anew by the loop that passes over it — built in its body, or kept there
    /// from a call of the function that builds it (`train_loader =
    /// make_loader(epoch)` in the epoch loop, a test loader built per test set
    /// in the evaluation's loop), or made and passed over in a function that
    /// keeps it nowhere else, called in a loop (a tracker's `detect()` per
    /// video): each pass has a new loader, which persistent_workers cannot keep.
    /// A loader made again only at scheduled passes (`if e >= skip_epochs[0]:
    /// loader = renew_loader(skip)`, `if epoch % 10 == 0:`) is still passed over
    /// again at the others, and is reported; at every pass but the first (`if
    /// epoch != 0:`) counts as every pass. A count read through a holder whose
    /// `__getitem__` is `return self.args[key]` (`para['num_workers']` over
    /// `vars(parser.parse_args())`), or through `vars(args)[…]`, is the
    /// parser's, unless some code stores to a field of that name.
    /// A count read from a JSON or YAML config file the code loads at run time
    /// (`json.load(f)[…]`, `yaml.safe_load(f)[…]`, `OmegaConf.load(p).…`, also
    /// through an `AttrDict` of it, or the config `@hydra.main` composes and hands
    /// to the function it wraps, `cfg.data.num_workers`, also through helpers
    /// that take and return it) is taken from the project's files: the file
    /// the code names where its path is a constant (`--config` with a default),
    /// else every file of that format in the context that sets the path — reported
    /// only where each of them sets 1 or more, with the first named in the message
    /// and a fix that holds whatever the run's file sets.
    /// A count of one worker per CPU (`os.cpu_count()`,
    /// `multiprocessing.cpu_count()`, `len(os.sched_getaffinity(0))`, also
    /// through a local name) is not known but is 1 or more on any machine, and
    /// is reported as such, and so is the smaller of it and a count of 1 or
    /// more (`min(args.max_workers, os.cpu_count())`, with its cap in the
    /// message); a count computed from it otherwise (`os.cpu_count() // 8`,
    /// `min(4, cpus - 1)`) may be 0 and is not.
    /// A name rebound only on a branch the run with the defaults does not take
    /// (`if args.ckpt is not None: args = ckpt["args"]`) keeps the value it
    /// has on that run. Values stagec cannot resolve
    /// (argparse flags without a default or overwritten by the
    /// code, config paths a function overwrites, a config field the code stores
    /// to, files outside the context) are left alone.
    ///
    /// ## Why
    /// Each worker is a process with its own copy of the dataset's touched memory and
    /// its prefetch buffers, and every rank of a node starts its own: 10 workers on
    /// 8 local ranks are 80 processes. Without `persistent_workers=True` the workers
    /// stop at the end of each pass over the loader and start again at the next one,
    /// so every rank stalls at the start of each epoch while they fork, and the
    /// node's memory peaks again — on a pipeline stage's host on top of the stages'
    /// own processes, the out-of-memory kills of busy workers. Keep them alive, and
    /// consider fewer. Determined iterates a trial's training loader through one
    /// iterator for the whole trial, so its workers start once and it is not
    /// reported.
    ///
    /// ## Example
    /// ```python
    /// return DataLoader(val_set, batch_size=64,
    ///                   num_workers=self.context.get_hparam("eval_workers"))   # warning: 12
    /// # fix: add persistent_workers=True
    /// ```
    pub static LOADER_WORKERS_NOT_PERSISTENT = {
        code: "T105",
        name: "loader-workers-not-persistent",
        family: Training,
        severity: Warning,
        summary: "Loader workers on every rank are restarted at every pass",
    };
}

use super::training_support::{code, excerpt, Code, DET_LOADER};
use super::{Cx, Sink};
use crate::diagnostic::Edit;
use crate::source::Span;
use crate::training::ast::{Arg, DictItem, Expr, ExprKind, StmtKind};
use crate::training::program::{Anc, ArgPos, ClassId, Flow, FuncId, Scope};
use crate::training::runtime::{self, called_in_loop_via};
use crate::training::values::Resolved;
use crate::yaml::{display_path, PathSeg};
use foldhash::HashMap;

pub(crate) mod shared;
mod sites;

/// Fewest workers reported: any. Each of them is forked again at every
/// pass, on every rank of the node.
const MANY: i64 = 1;

/// Fewest workers reported for a loader one rank builds (a validation
/// loader under `if rank == 0:`): one worker of one process restarts
/// quickly; several hold the other ranks up at their next collective.
pub(super) const ONE_RANK_MANY: i64 = 2;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    let stages = super::training_support::pipeline_degree(cx).unwrap_or(0);
    let declared = {
        let mut ids: Vec<i64> = cx.decls().iter().map(|d| d.id.value).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len() as i64
    };
    let pipeline = stages.max(declared) >= 2;
    if !pipeline && !code.rt.distributed_somewhere() {
        return;
    }
    for scope in code.scopes_for(
        &["torch.utils.data.DataLoader", DET_LOADER, MONAI_LOADER],
        &["num_workers"],
    ) {
        let host = if pipeline {
            // The pipeline's hosts run the experiment's code only.
            if code.prog.detached(scope.m) {
                continue;
            }
            Host::PipelineStage
        } else {
            // Any multi-rank job: every rank of a node starts its own.
            if !code.rt.world_at(code.prog, scope.m).distributed() {
                continue;
            }
            Host::Ranks(local_ranks(&code))
        };
        let mut hits = Vec::new();
        let mut sited = Vec::new();
        let mut shares = Vec::new();
        code.prog.walk_exprs(scope, &mut |anc, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            let external = code.prog.external(scope, func);
            let graph = external.as_deref().is_some_and(is_graph_loader);
            let torch_or_det = graph
                || external.as_deref().is_some_and(|path| {
                    path == "torch.utils.data.DataLoader" || path == DET_LOADER || is_monai_loader(path)
                });
            let subclass = if torch_or_det {
                None
            } else {
                match loader_subclass(&code, scope, func) {
                    Some(s) => Some(s),
                    None => return,
                }
            };
            // Built on one rank only (`if rank == 0:`): one process's
            // workers, not the node's ranks times workers; the other ranks
            // wait for its restarts at their next collective.
            // Built only where the run is not distributed (the `else` of
            // `if args.distributed:`): one process, no ranks to hold up.
            if matches!(host, Host::Ranks(_))
                && (runtime::non_distributed_path(code.prog, scope, anc, e as *const Expr as *const ())
                    || code.rt.main_block_of_no_ranks(code.prog, scope, anc))
            {
                return;
            }
            // Built on a branch no run takes: `if prefetch_mode == 'cpu':`
            // where every value the option can have (each of the project's
            // option files sets `prefetch_mode: ~`) answers no.
            if branch_never_taken(&code, scope, anc, e) {
                return;
            }
            let host = if matches!(host, Host::Ranks(_)) && one_rank(&code, scope, anc, e) {
                Host::OneRank
            } else {
                host
            };
            // A subclass's positions are its own: only `num_workers=` counts.
            let at = if subclass.is_some() || graph { usize::MAX } else { 5 };
            let closed = match subclass {
                Some(Subclass::Closed(k)) => Some(k),
                _ => None,
            };
            let Some(workers) = find_option(&code, scope, args, "num_workers", at) else {
                return;
            };
            // A dataset the code changes between passes (`train_set.set_epoch(epoch)`,
            // `loader.dataset.epoch = epoch`): workers kept alive would hold
            // their stale copy, so restarting them is the code's intent.
            if dataset_refreshed(&code, scope, args) {
                return;
            }
            // Keyword-only in torch's signature.
            let persistent = find_option(&code, scope, args, "persistent_workers", usize::MAX);
            let keeps = persistent
                .as_ref()
                .map(|p| runtime::constant(code.prog, code.cfg, code.rt, p.scope, p.value).and_then(|r| r.as_bool()));
            let most = resolved_max(&code, &workers);
            // A node's count divided over its ranks in the spawned
            // function: each rank's share is unknown, the node's total is not.
            if most.is_none() && matches!(host, Host::Ranks(_)) && matches!(keeps, None | Some(Some(false))) {
                if let Some(total) = shared::node_total(&code, &workers) {
                    if total.0 >= MANY && reiterated(&code, scope, anc, e) {
                        shares.push((workers, persistent, total, closed));
                    }
                    return;
                }
            }
            let least = if matches!(host, Host::OneRank) {
                ONE_RANK_MANY
            } else {
                MANY
            };
            // Counts read from the project's config files: every file that
            // sets one must start workers (a file with fewer shows runs
            // without them).
            let from_files = workers.resolved.as_ref().filter(|r| r.from_files.is_some());
            if from_files.is_some_and(|r| r.ints().is_none_or(|v| v.iter().any(|n| *n < least))) {
                return;
            }
            match (most, keeps) {
                (Some(n), _) if n < least => return,
                (Some(_), None | Some(Some(false))) => {}
                // Values a helper's callers pass (`make_loader(ds,
                // num_workers=8, persistent_workers=False)`), each call
                // site on its own.
                (None, Some(None) | Some(Some(false)) | None) | (Some(_), Some(None)) => {
                    if !matches!(host, Host::OneRank) && closed.is_none() {
                        sited.push((e, anc.to_vec(), workers, persistent));
                    }
                    return;
                }
                _ => return,
            }
            if !reiterated(&code, scope, anc, e) {
                return;
            }
            // Built on every rank but passed over on one only (a test
            // loader iterated under `if rank == 0:`): its workers start
            // there alone. Asked last: it follows the loader again.
            let host = if matches!(host, Host::Ranks(_)) && iterated_on_one_rank(&code, scope, anc, e) {
                let too_few = match workers.resolved.as_ref() {
                    Some(r) if r.from_files.is_some() => r.ints().is_none_or(|v| v.iter().any(|n| *n < ONE_RANK_MANY)),
                    _ => most.is_none_or(|n| n < ONE_RANK_MANY),
                };
                if too_few {
                    return;
                }
                Host::OneRank
            } else {
                host
            };
            // A count written outside the call (a `**loader_kwargs` dict,
            // perhaps shared by several loaders): the finding sits on the
            // loader's `**` argument it came through, the loader whose
            // passes restart them.
            let outside = !(e.span.start <= workers.span.start && workers.span.end <= e.span.end);
            let site = workers.through.filter(|_| outside);
            hits.push((workers, persistent, host, site, closed));
        });
        for (workers, persistent, host, site, closed) in hits {
            let edit = match closed {
                None => persistent_edit(&code, &workers, persistent.as_ref(), "persistent_workers"),
                Some(_) => None,
            };
            let site = site.map(|s| (scope, s));
            let d = report(&code, cx, out, &workers, edit, host, site);
            if let (Some(d), Some(k)) = (d, closed) {
                closed_note(&code, d, k);
            }
        }
        for (workers, persistent, total, closed) in shares {
            let edit = match closed {
                None => persistent_edit(&code, &workers, persistent.as_ref(), "persistent_workers"),
                Some(_) => None,
            };
            let d = shared::report(&code, out, &workers, edit, total);
            if let Some(k) = closed {
                closed_note(&code, d, k);
            }
        }
        for (loader, anc, workers, persistent) in sited {
            let ranks = matches!(host, Host::Ranks(_));
            for hit in sites::hits(&code, scope, loader, &anc, &workers, persistent.as_ref(), ranks) {
                let edit = hit.edit.clone();
                let host = if hit.one_rank { Host::OneRank } else { host };
                let _ = report(&code, cx, out, &hit.workers, edit, host, None);
            }
        }
    }
}

/// Whether the code changes the loader's dataset between passes: a
/// `set_epoch(…)` call on it or on some loader's `.dataset`, or a store to
/// one of its attributes (the dataset given by a name, `DataLoader(train_set,
/// …)` or `dataset=train_set`), anywhere in the loader's module.
fn dataset_refreshed(code: &Code<'_>, scope: Scope, args: &[Arg]) -> bool {
    let prog = code.prog;
    let dataset = args.iter().find_map(|a| match a {
        Arg::Kw { name, value, .. } if name == "dataset" => Some(value),
        _ => None,
    });
    let dataset = dataset.or_else(|| runtime::pos(args, 0));
    let name = match dataset.map(|d| &d.kind) {
        Some(ExprKind::Name(n)) => Some(n.as_str()),
        _ => None,
    };
    // `x.dataset` or the dataset's own name.
    let is_dataset = |e: &Expr| match &e.kind {
        ExprKind::Attribute { attr, .. } => attr == "dataset",
        ExprKind::Name(n) => Some(n.as_str()) == name,
        _ => false,
    };
    // Between passes: in a loop, or in a function called in one (a change
    // made once before training, `loader.dataset.transform = aug`, is not).
    let in_loop = |anc: &[Anc<'_>]| {
        anc.iter()
            .any(|a| matches!(a, Anc::Stmt(s) if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. })))
    };
    let m = scope.m;
    let chunks: Vec<u32> = prog.chunks_mentioning(m, &["set_epoch", "dataset"]).collect();
    for c in chunks {
        for s in prog.scopes(m, c) {
            // Changes to the dataset in this scope: whether each sits in a
            // loop here. The callers are asked about only when one does not.
            let mut changes: Vec<bool> = Vec::new();
            prog.walk_exprs(s, &mut |anc, e| {
                if let ExprKind::Call { func, .. } = &e.kind {
                    if let ExprKind::Attribute { value, attr } = &func.kind {
                        if attr == "set_epoch" && is_dataset(value) {
                            changes.push(in_loop(anc));
                        }
                    }
                }
            });
            prog.walk_stmts(s, &mut |anc, st| {
                let stored = match &st.kind {
                    StmtKind::Assign { targets, .. } => targets.iter().collect::<Vec<_>>(),
                    StmtKind::AugAssign { target, .. } => vec![target],
                    _ => return,
                };
                if stored
                    .iter()
                    .any(|t| matches!(&t.kind, ExprKind::Attribute { value, .. } if is_dataset(value)))
                {
                    changes.push(in_loop(anc));
                }
            });
            let hit = changes.iter().any(|looped| *looped)
                || !changes.is_empty() && s.func().is_some_and(|f| called_in_loop_via(prog, f, 3, &|_| true));
            if hit {
                return true;
            }
        }
    }
    false
}

/// Whether `e` sits in an arm of an `if` whose test compares a value with a
/// literal (`x == "cpu"`, `x != "cpu"`) and every value the project's
/// config files give `x` sends the run to the other arm.
fn branch_never_taken(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], e: &Expr) -> bool {
    runtime::on_branch(anc, e as *const Expr as *const (), |test, in_body| {
        let ExprKind::Compare { left, rest } = &test.kind else {
            return false;
        };
        let [(op, right)] = rest.as_slice() else { return false };
        let literal = match &right.kind {
            ExprKind::Str(s) => crate::training::values::Const::Str(s.clone()),
            ExprKind::Int(i) => crate::training::values::Const::Int(*i),
            _ => return false,
        };
        let equal = match op.as_str() {
            "==" => true,
            "!=" => false,
            _ => return false,
        };
        let Some(r) = runtime::constant_or_default_on_ranks(code.prog, code.cfg, code.rt, scope, left) else {
            return false;
        };
        // Only values every run has: those the project's config files
        // hold, not a flag's default the command line may replace
        // (`--task_name imputation`) nor a config object's default a
        // merged file may.
        if r.values.is_empty() || r.from_files.is_none() || r.default_at.is_some() {
            return false;
        }
        // The test's answer for each value; the arm needs `in_body`.
        r.values.iter().all(|v| ((*v == literal) == equal) != in_body)
    })
}

/// Whether every pass over the loader `e` is made on one rank at most (a
/// loader every rank builds, iterated only under `if rank == 0:`): its
/// workers start only there.
pub(super) fn iterated_on_one_rank(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], e: &Expr) -> bool {
    let prog = code.prog;
    let through = super::training_support::iteration_wrapper;
    let mut passes = 0;
    let mut all_one = true;
    prog.flows(scope, anc, e, &through, &mut |flow| {
        if let Flow::Iterated { scope, stmt, anc } = flow {
            // A pass made only without distribution is no rank's.
            let node = stmt.map(|s| s as *const crate::training::ast::Stmt as *const ());
            if node.is_some_and(|n| runtime::non_distributed_path(prog, scope, &anc, n)) {
                return;
            }
            passes += 1;
            all_one &= node.is_some_and(|n| runtime::runs_on_one_rank(prog, scope, &anc, n));
        }
    });
    passes > 0 && all_one
}

/// Whether `e` runs on one rank at most (the body of `if rank == 0:`).
fn one_rank(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], e: &Expr) -> bool {
    runtime::runs_on_one_rank(code.prog, scope, anc, e as *const Expr as *const ())
}

/// The note on a loader class that cannot be asked to keep its workers.
fn closed_note(code: &Code<'_>, d: &mut crate::Diagnostic, k: ClassId) {
    let Some(class) = code.prog.class(k) else { return };
    let note = format!(
        "`{}` takes no persistent_workers to hand to torch's DataLoader: add the parameter to its `__init__` and pass it on, then set it here",
        class.name
    );
    let help = match d.help.take() {
        Some(h) => format!("{h}. {note}"),
        None => note,
    };
    d.help(help);
    d.label(
        code.file(k.m),
        code.first_line(k.m, class.span),
        "the loader class, which does not hand persistent_workers on",
    );
}

/// How a project class deriving from torch's `DataLoader` passes the
/// workers on (see [`loader_subclass`]).
#[derive(Clone, Copy, PartialEq)]
enum Subclass {
    /// It leaves them to torch, `**kwargs` and all: `persistent_workers=`
    /// given to it reaches torch.
    Plain,
    /// Its `__init__` takes `num_workers` and hands it to torch's, but has no
    /// `persistent_workers` to hand on (pytracking's `LTRLoader`): the
    /// workers restart at each pass and the call cannot ask otherwise.
    Closed(ClassId),
}

/// A project class deriving from torch's `DataLoader` whose calls start
/// torch's workers as torch's own would: no class on the way names
/// `persistent_workers`, a class's own `__iter__` goes through
/// `super().__iter__()` (so each pass still starts the workers), and either no class names
/// `num_workers` and an `__init__` takes `**kwargs` and hands them on
/// ([`Subclass::Plain`]), or the class derives from torch's directly and
/// its `__init__` hands its own `num_workers` parameter to torch's
/// `__init__` unchanged, by name or at torch's position
/// ([`Subclass::Closed`]).
fn loader_subclass(code: &Code<'_>, scope: Scope, func: &Expr) -> Option<Subclass> {
    let prog = code.prog;
    let crate::training::program::Callee::Class(k) = prog.callee(scope, func) else {
        return None;
    };
    if !prog.derives_from(k, &["torch.utils.data.DataLoader"]) {
        return None;
    }
    let mut classes = vec![k];
    let mut i = 0;
    while i < classes.len() && i < 8 {
        let more: Vec<_> = prog
            .bases(classes[i])
            .into_iter()
            .filter(|b| !classes.contains(b))
            .collect();
        classes.extend(more);
        i += 1;
    }
    let text_of = |c: ClassId| {
        prog.class(c)
            .and_then(|class| prog.text(c.m).get(class.span.start..class.span.end))
    };
    // The class's own `__iter__`, where it has one: it must start a pass
    // through torch's (CoCLR's `FastDataLoader` takes one iterator in
    // `__init__` and yields from it at every pass: its workers stay).
    let iter_text = |c: ClassId| {
        prog.own_method(c, "__iter__")
            .and_then(|f| prog.func(f))
            .and_then(|func| prog.text(c.m).get(func.span.start..func.span.end))
    };
    let mut texts = Vec::new();
    for c in &classes {
        let text = text_of(*c)?;
        let restarts = iter_text(*c).is_none_or(|t| t.contains("super().__iter__()"));
        if text.contains("persistent_workers") || !restarts {
            return None;
        }
        texts.push(text);
    }
    let plain = classes.iter().zip(&texts).all(|(c, text)| {
        if text.contains("num_workers") {
            return false;
        }
        match prog.method(*c, "__init__").and_then(|f| prog.func(f)) {
            None => true,
            Some(init) => init.params.iter().any(|p| {
                matches!(p.kind, crate::training::ast::ParamKind::KwArgs) && text.contains(&format!("**{}", p.name))
            }),
        }
    });
    if plain {
        return Some(Subclass::Plain);
    }
    (classes.len() == 1 && hands_on_workers(code, k)).then_some(Subclass::Closed(k))
}

/// Whether class `k`'s `__init__` takes `num_workers` (a plain parameter,
/// never stored to) and hands it to torch's `__init__` as it came:
/// `super().__init__(…, num_workers=num_workers)`, or at torch's position
/// (`super().__init__(dataset, batch_size, shuffle, sampler, batch_sampler,
/// num_workers, …)`; one later in `DataLoader.__init__(self, …)`).
fn hands_on_workers(code: &Code<'_>, k: ClassId) -> bool {
    let prog = code.prog;
    let Some(init_id) = prog.method(k, "__init__") else {
        return false;
    };
    let Some(init) = prog.func(init_id) else {
        return false;
    };
    if !init.params.iter().any(|p| {
        p.name == "num_workers"
            && matches!(
                p.kind,
                crate::training::ast::ParamKind::Normal | crate::training::ast::ParamKind::KwOnly
            )
    }) {
        return false;
    }
    let is_param = |e: &Expr| matches!(&e.kind, ExprKind::Name(n) if n == "num_workers");
    // Bound again anywhere in `__init__` (assigned, a loop's target, …).
    let changed = prog
        .local_defs(init_id, "num_workers")
        .iter()
        .any(|d| !matches!(d, crate::training::program::LocalDef::Param(_)));
    let mut handed = false;
    prog.walk_exprs(init_id.scope(), &mut |_, e| {
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return;
        };
        let ExprKind::Attribute { value, attr } = &func.kind else {
            return;
        };
        if attr != "__init__" {
            return;
        }
        // `super().__init__(…)` / `super(Cls, self).__init__(…)`: torch's
        // positions; `DataLoader.__init__(self, …)`: one further.
        let offset = match &value.kind {
            _ if crate::training::program::is_super_call(value) => 0,
            _ if prog
                .external(init_id.scope(), value)
                .is_some_and(|p| p == "torch.utils.data.DataLoader") =>
            {
                1
            }
            _ => return,
        };
        let by_name = args
            .iter()
            .any(|a| matches!(a, Arg::Kw { name, value, .. } if name == "num_workers" && is_param(value)));
        let positional: Vec<&Expr> = args
            .iter()
            .map_while(|a| match a {
                Arg::Pos(x) => Some(x),
                _ => None,
            })
            .collect();
        let at = positional.get(5 + offset).is_some_and(|x| is_param(x));
        handed |= by_name || at;
    });
    handed && !changed
}

/// Where an option of the call is written: a keyword argument, a position,
/// or a pair of a dict literal splatted with `**`.
struct Written<'p> {
    scope: Scope,
    /// The argument (`num_workers=8`) or pair (`"num_workers": 8`).
    span: Span,
    value: &'p Expr,
    resolved: Option<Resolved>,
    /// The count is the machine's CPU count (`os.cpu_count()`): not known,
    /// but 1 or more wherever the loader runs.
    per_cpu: bool,
    /// The call's `**mapping` argument the option came through, where it
    /// is written in a dict outside the call.
    through: Option<Span>,
}

/// The value of option `name`: for the worker count, a config object's
/// default counts even where the run merges a file into that config (the
/// message then says so, and the fix does not assume the count).
fn option_value(code: &Code<'_>, scope: Scope, name: &str, e: &Expr) -> Option<Resolved> {
    if name == "num_workers" {
        runtime::constant_or_default_on_ranks(code.prog, code.cfg, code.rt, scope, e)
    } else {
        runtime::constant(code.prog, code.cfg, code.rt, scope, e)
    }
}

fn find_option<'p>(code: &Code<'p>, scope: Scope, args: &'p [Arg], name: &str, at: usize) -> Option<Written<'p>> {
    for a in args {
        if let Arg::Kw {
            name: n, value, span, ..
        } = a
        {
            if n == name {
                return Some(Written {
                    scope,
                    span: *span,
                    value,
                    resolved: option_value(code, scope, name, value),
                    per_cpu: name == "num_workers" && cpu_count(code, scope, value),
                    through: None,
                });
            }
        }
    }
    if let Some(v) = runtime::pos(args, at) {
        return Some(Written {
            scope,
            span: v.span,
            value: v,
            resolved: option_value(code, scope, name, v),
            per_cpu: name == "num_workers" && cpu_count(code, scope, v),
            through: None,
        });
    }
    // `**kwargs` of the function that builds the loader (`def
    // get_dataloader(ds, **kwargs): return DataLoader(ds, **kwargs)`): the
    // keyword its callers pass, judged at each call site.
    for a in args {
        let Arg::StarStar(e) = a else { continue };
        if sites::kwargs_param(code, scope, e) {
            return Some(Written {
                scope,
                span: e.span,
                value: e,
                resolved: None,
                per_cpu: false,
                through: None,
            });
        }
    }
    // `**loader_kwargs` of a dict literal, or of `dict(k=v, …)`.
    for a in args {
        let Arg::StarStar(e) = a else { continue };
        let sources = code.prog.sources(scope, e);
        if sources.unknown {
            return None;
        }
        for t in &sources.terms {
            if !t.proj.is_empty() {
                continue;
            }
            if let Some(w) = dict_call_option(code, t.scope, t.expr, name) {
                return Some(Written {
                    through: Some(e.span),
                    ..w
                });
            }
            let ExprKind::Dict(items) = &t.expr.kind else { continue };
            for item in items {
                if let DictItem::Pair { key, value, span } = item {
                    if matches!(&key.kind, ExprKind::Str(k) if k == name) {
                        return Some(Written {
                            scope: t.scope,
                            span: *span,
                            value,
                            resolved: option_value(code, t.scope, name, value),
                            per_cpu: name == "num_workers" && cpu_count(code, t.scope, value),
                            through: Some(e.span),
                        });
                    }
                }
            }
        }
    }
    None
}

/// Option `name` of `dict(k=v, …)` (keywords only: what a positional
/// mapping or `**` holds is not known, so such a call gives none).
fn dict_call_option<'p>(code: &Code<'p>, scope: Scope, e: &'p Expr, name: &str) -> Option<Written<'p>> {
    let ExprKind::Call { func, args, .. } = &e.kind else {
        return None;
    };
    if code.prog.external(scope, func).as_deref() != Some("builtins.dict")
        || !args.iter().all(|a| matches!(a, Arg::Kw { .. }))
    {
        return None;
    }
    args.iter().find_map(|a| match a {
        Arg::Kw {
            name: n, value, span, ..
        } if n == name => Some(Written {
            scope,
            span: *span,
            value,
            resolved: option_value(code, scope, name, value),
            per_cpu: name == "num_workers" && cpu_count(code, scope, value),
            through: None,
        }),
        _ => None,
    })
}

/// Whether `e` is the machine's CPU count, as every value it may take:
/// `os.cpu_count()`, `multiprocessing.cpu_count()`,
/// `len(os.sched_getaffinity(0))`, also through a local name.
fn cpu_count(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    cpu_share(code, scope, e).is_some()
}

/// Whether `e` is the machine's CPU count, as every value it may take, and
/// the cap a `min(…)` puts on it: `Some(None)` for the count itself,
/// `Some(Some(8))` for `min(8, os.cpu_count())` or `min(args.workers,
/// os.cpu_count())` with a flag whose every value is 1 or more (each side
/// 1 or more, so the smaller is too).
fn cpu_share(code: &Code<'_>, scope: Scope, e: &Expr) -> Option<Option<i64>> {
    let prog = code.prog;
    let is_count = |s: Scope, e: &Expr| {
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return false;
        };
        match prog.external(s, func).as_deref() {
            Some("os.cpu_count" | "multiprocessing.cpu_count") => args.is_empty(),
            Some("builtins.len") => matches!(runtime::pos(args, 0).map(|a| &a.kind), Some(ExprKind::Call { func, .. })
                if prog.external(s, func).as_deref() == Some("os.sched_getaffinity")),
            _ => false,
        }
    };
    let share = |s: Scope, e: &Expr| -> Option<Option<i64>> {
        if is_count(s, e) {
            return Some(None);
        }
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return None;
        };
        if prog.external(s, func).as_deref() != Some("builtins.min") || args.len() != 2 || runtime::has_splat(args) {
            return None;
        }
        let (a, b) = (runtime::pos(args, 0)?, runtime::pos(args, 1)?);
        let other = if is_count(s, a) {
            b
        } else if is_count(s, b) {
            a
        } else {
            return None;
        };
        let ints = runtime::constant(prog, code.cfg, code.rt, s, other)?.ints()?;
        let least = ints.iter().copied().min()?;
        (least >= 1).then(|| ints.iter().copied().max())
    };
    if let Some(c) = share(scope, e) {
        return Some(c);
    }
    if let Some(c) = filled_in_share(code, scope, e, &share) {
        return Some(c);
    }
    if !matches!(e.kind, ExprKind::Name(_)) {
        return None;
    }
    let sources = prog.sources(scope, e);
    if sources.unknown || sources.terms.is_empty() {
        return None;
    }
    let mut cap: Option<i64> = None;
    for t in &sources.terms {
        if !t.proj.is_empty() {
            return None;
        }
        if let Some(c) = share(t.scope, t.expr)? {
            cap = Some(cap.map_or(c, |x| x.max(c)));
        } else {
            // One of the bindings is the uncapped count.
            return Some(None);
        }
    }
    Some(cap)
}

/// `args.workers` where the function fills the option in when the command
/// line leaves it out (`if not isinstance(args.workers, int): args.workers
/// = min(16, multiprocessing.cpu_count())`, also `if args.workers is
/// None:`): the share of the CPUs that store makes (a value given on the
/// command line aside, as any flag's).
fn filled_in_share(
    code: &Code<'_>,
    scope: Scope,
    e: &Expr,
    share: &dyn Fn(Scope, &Expr) -> Option<Option<i64>>,
) -> Option<Option<i64>> {
    let ExprKind::Attribute { value: base, .. } = &e.kind else {
        return None;
    };
    if !matches!(base.kind, ExprKind::Name(_)) {
        return None;
    }
    let prog = code.prog;
    let read = code.text(scope.m, e.span);
    let mut found = None;
    prog.walk_stmts(scope, &mut |anc, st| {
        let StmtKind::Assign { targets, value } = &st.kind else {
            return;
        };
        if found.is_some() || st.span.start > e.span.start {
            return;
        }
        if !targets.iter().any(|t| code.text(scope.m, t.span) == read) {
            return;
        }
        // The `if` right around the store tests the option's absence.
        let Some(Anc::Stmt(parent)) = anc.last() else { return };
        let StmtKind::If { test, body, .. } = &parent.kind else {
            return;
        };
        if !body.iter().any(|b| std::ptr::eq(b, st)) {
            return;
        }
        let t = code.text(scope.m, test.span);
        let absent = t == format!("{read} is None")
            || t == format!("not {read}")
            || (t.starts_with("not isinstance(") && t.contains(read));
        if absent {
            found = share(scope, value);
        }
    });
    found
}

/// The most workers a loader call (its arguments `args`, in `scope`) may
/// start, as this rule reads its `num_workers` (written out, through
/// defaults, the hyperparameters a module saved, the project's configs);
/// `None` where unknown.
pub(super) fn most_workers(code: &Code<'_>, scope: Scope, args: &[Arg]) -> Option<i64> {
    resolved_max(code, &find_option(code, scope, args, "num_workers", 5)?)
}

fn resolved_max(code: &Code<'_>, w: &Written<'_>) -> Option<i64> {
    // A share of the CPUs: a node that runs several ranks has two CPUs or
    // more, so the share is two or more unless capped below that.
    if w.per_cpu {
        return Some(match cpu_share(code, w.scope, w.value) {
            Some(Some(cap)) => cap.clamp(MANY, ONE_RANK_MANY),
            _ => ONE_RANK_MANY,
        });
    }
    let ints = w.resolved.as_ref()?.ints()?;
    ints.into_iter().max()
}

/// Whether a loop's test holds at scheduled passes only: an equality or
/// membership (`epoch == switch_epoch`, `epoch in milestones`), a
/// comparison with an entry of a schedule (`e >= skip_epochs[0]`), or a
/// period (`epoch % 10 == 0`); `and` of any such, `or` of only such.
fn at_scheduled_passes(test: &Expr) -> bool {
    match &test.kind {
        ExprKind::BoolOp { and: true, left, right } => at_scheduled_passes(left) || at_scheduled_passes(right),
        ExprKind::BoolOp {
            and: false,
            left,
            right,
        } => at_scheduled_passes(left) && at_scheduled_passes(right),
        ExprKind::Compare { left, rest } => {
            let scheduled = |e: &Expr| {
                matches!(e.kind, ExprKind::Subscript { .. })
                    || matches!(&e.kind, ExprKind::BinOp { op, .. } if op == "%")
            };
            rest.iter().any(|(op, _)| op == "==" || op == "in")
                || scheduled(left)
                || rest.iter().any(|(_, e)| scheduled(e))
        }
        _ => false,
    }
}

/// Whether the loader's iterator is created more than once: a `for` or
/// comprehension over it inside a loop (or in a function called from one),
/// or a trial's validation loader, which Determined re-iterates.
pub(super) fn reiterated<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], loader: &'p Expr) -> bool {
    let prog = code.prog;
    // A loader built anew at each pass (`for x in DataLoader(part, …)` in the
    // epoch loop): its workers start with it whatever persistent_workers
    // says, and only building it once would keep them. Built in a loop that
    // does not iterate it (a factory's `for ds, n in zip(sets, workers):`),
    // it is built once and judged as any other.
    let built_in = runtime::repeats(anc, loader).then(|| innermost_loop(anc, loader));
    // The functions the loader is passed into, and those it is passed
    // from: a function that iterates it is called in a loop for this loader
    // only through calls in these (a logging helper iterating every loader
    // it is given is called in the epoch loop for the training loader, not
    // for a test loader run once).
    let mut carry: Vec<FuncId> = scope.func().into_iter().collect();
    let through = super::training_support::iteration_wrapper;
    let mut iterated: Vec<(Scope, bool)> = Vec::new();
    let mut again = false;
    let mut anew = false;
    // The loops that store the loader anew at each pass, and the function
    // that builds it.
    let rebuilt: std::cell::RefCell<Vec<*const crate::training::ast::Stmt>> = std::cell::RefCell::default();
    let built_by = scope.func();
    // Whether a function calls the builder, asked once per function.
    let builds: std::cell::RefCell<HashMap<FuncId, bool>> = std::cell::RefCell::default();
    let builder_sites: std::cell::OnceCell<BuilderSites> = std::cell::OnceCell::new();
    // Kept anew at each pass of a loop (`train_loader =
    // make_loader(epoch)` in the epoch loop, an evaluation building each
    // test set's loader in its loop over the sets): that loop repeats the
    // build as well as the pass, so it restarts nothing persistent_workers
    // would keep.
    let note_rebuilt = |scope: Scope, target: &Expr| {
        let made_here = prog.ancestors_of(scope, target).filter(|anc| {
            let sites = builder_sites.get_or_init(|| BuilderSites::of(prog, built_by));
            makes_loader(prog, scope, anc, target, built_by, sites, &mut builds.borrow_mut())
        });
        if let Some(anc) = made_here {
            // Only the loops that make it at (nearly) every pass: not one
            // that makes it again at scheduled passes only (`if e >=
            // skip_epochs[0]: loader = renew_loader(skip)`, `if epoch % 10
            // == 0:`), whose other passes go over the loader they kept. At
            // every pass but the first (`if epoch != 0:`) counts as every.
            let mut scheduled = false;
            for a in anc.iter().rev() {
                if let Anc::Stmt(s) = a {
                    if runtime::reruns(s, target) && !scheduled && !rebuilt.borrow().contains(&(*s as *const _)) {
                        rebuilt.borrow_mut().push(*s as *const _);
                    }
                    if let StmtKind::If { test, .. } = &s.kind {
                        scheduled |= at_scheduled_passes(test);
                    }
                }
            }
        }
    };
    // Stored as an entry of a local dict (`loaders[split] = DataLoader(…)`):
    // the dict's name, the key where it is a constant, and the scope.
    let entries: std::cell::RefCell<Vec<(Scope, String, Option<String>)>> = std::cell::RefCell::default();
    // Held in a field of a record made of it (`DataInfo(dataloader,
    // sampler)`, a dataclass or NamedTuple of the code): the record's
    // construction and the field.
    let wrapped: std::cell::RefCell<Vec<(Scope, &'p Expr, String)>> = std::cell::RefCell::default();
    // Made anew at each call of the function that makes it: a loader that
    // stays in that call (a local, passed to helpers that pass over it) is
    // a new one at each call, so a loop around the calls repeats the making
    // as well as the pass, and restarts nothing persistent_workers keeps.
    // Kept anywhere else (an attribute, a container, a caller) it may be
    // the same loader at the next call.
    let per_call = std::cell::Cell::new(built_by.is_some());
    // The callers that keep, in a local, the loader a call of the builder
    // made just then (`loader = get_test_loader(…)` in `run_test`, called
    // at each evaluation): a new loader at each of their calls too.
    let fresh_in: std::cell::RefCell<Vec<FuncId>> = std::cell::RefCell::default();
    let note_kept = |flow: &Flow<'p>| {
        let leaves = match flow {
            Flow::Stored { scope, target } if matches!(target.kind, ExprKind::Name(_)) && scope.func() != built_by => {
                let made = prog.ancestors_of(*scope, target).is_some_and(|anc| {
                    let sites = builder_sites.get_or_init(|| BuilderSites::of(prog, built_by));
                    makes_loader(prog, *scope, &anc, target, built_by, sites, &mut builds.borrow_mut())
                });
                match (made, scope.func()) {
                    (true, Some(g)) => {
                        fresh_in.borrow_mut().push(g);
                        false
                    }
                    _ => true,
                }
            }
            Flow::Stored { target, .. } => !matches!(target.kind, ExprKind::Name(_)),
            Flow::Returned { .. } | Flow::Escapes { .. } => true,
            Flow::Method { name, .. } => {
                matches!(*name, "append" | "extend" | "insert" | "add" | "update" | "setdefault")
            }
            Flow::Arg {
                callee: crate::training::program::Callee::Unknown,
                ..
            } => true,
            _ => false,
        };
        if leaves {
            per_call.set(false);
        }
    };
    // The classes that keep the loader in an attribute of `self`.
    let mut kept_in: Vec<crate::training::program::ClassId> = Vec::new();
    // Local dicts the loader is an entry of (`loaders[task] = loader`, or a
    // pair `(loader, ratio)`): a mixing wrapper may take the whole dict.
    let containers: std::cell::RefCell<Vec<(Scope, String)>> = std::cell::RefCell::default();
    // The functions the loader is handed to from inside the loop that
    // builds it (`get_results_of_one_sequence(sequence_loader=…)` in the
    // loop over sequences that makes a loader for each).
    let mut entered_in_build_loop: Vec<FuncId> = Vec::new();
    // Who handed the loader to whom (`evaluate(self.val_loader, …)` in a
    // searcher's `is_legal`): the caller and the function entered.
    let mut entered: Vec<(FuncId, FuncId)> = Vec::new();
    let mut on_flow = |flow: Flow<'p>| {
        note_kept(&flow);
        if let (Flow::Entered { scope: s, call, func }, Some(Some(l))) = (&flow, built_in) {
            if *s == scope && l.span.start <= call.span.start && call.span.end <= l.span.end {
                entered_in_build_loop.push(*func);
            }
        }
        if let Flow::Escapes { scope, at } | Flow::Contained { scope, container: at } = &flow {
            if let Some(d) = pair_entry(prog, *scope, at) {
                if containers.borrow().len() < 4 {
                    containers.borrow_mut().push((*scope, d));
                }
            }
        }
        if let Flow::Stored { scope, target } = &flow {
            if let ExprKind::Subscript { value, .. } = &target.kind {
                if let ExprKind::Name(d) = &value.kind {
                    if containers.borrow().len() < 4 {
                        containers.borrow_mut().push((*scope, d.clone()));
                    }
                }
            }
        }
        match flow {
            Flow::Entered { scope, func, .. } => {
                carry.extend(scope.func());
                carry.push(func);
                if let Some(g) = scope.func() {
                    if entered.len() < MAX_ENTERED {
                        entered.push((g, func));
                    }
                }
            }
            Flow::Stored { scope, target } => {
                // Returned into a caller that keeps it (`(loader, sampler) =
                // init_data(…)`): that function carries it too, also into the
                // functions nested in it (a `def train_step():` in the epoch loop
                // passing over it). Not a method of a class that keeps it in
                // `self` (`pbar = enumerate(self.loader_trn)` in a trainer
                // subclass's `train()`): that method reads it from where it
                // was kept, whoever calls it.
                if let ExprKind::Attribute { value, .. } = &target.kind {
                    kept_in.extend(prog.self_class(scope, value));
                }
                let reads_kept = scope
                    .func()
                    .and_then(|f| prog.class_of(f))
                    .is_some_and(|k| kept_in.iter().any(|c| *c == k || prog.ancestors(k).contains(c)));
                if !reads_kept {
                    carry.extend(scope.func());
                }
                note_rebuilt(scope, target);
                if let ExprKind::Subscript { value, index } = &target.kind {
                    if let (ExprKind::Name(d), Some(_)) = (&value.kind, scope.func()) {
                        let key = match &index.kind {
                            ExprKind::Str(k) => Some(k.clone()),
                            _ => None,
                        };
                        entries.borrow_mut().push((scope, d.clone(), key));
                    }
                }
            }
            Flow::Iterated { scope, anc, stmt } => {
                // Started over in an iterator's `__next__` (`except
                // StopIteration: self.iter_loader = iter(self._dataloader)`
                // in mmcv's `IterLoader`): at each draw that finds it run
                // out, as often as a loop draws.
                let in_next = scope
                    .func()
                    .and_then(|f| prog.func(f))
                    .is_some_and(|f| f.name == "__next__");
                // The name passed over (`for x in dl:`): a loop that binds
                // that name anew at each pass (`for dl in loaders:`) passes
                // over another entry each time, not this loader again.
                let name = match stmt.map(|st| &st.kind) {
                    Some(StmtKind::For { iter, .. }) => match &iter.kind {
                        ExprKind::Name(n) => Some(n.as_str()),
                        _ => None,
                    },
                    _ => None,
                };
                let rebinds = |s: &crate::training::ast::Stmt| matches!((&s.kind, name), (StmtKind::For { target, .. }, Some(n)) if matches!(&target.kind, ExprKind::Name(t) if t == n));
                // Where the pass is made: the `for` over the loader, else the
                // innermost expression holding it (`iter(loader)` in a
                // `for`'s header is evaluated once, not at each pass of that
                // `for`).
                let at = stmt.map(|st| st.span).or_else(|| {
                    anc.iter().rev().find_map(|a| match a {
                        Anc::Expr(e) => Some(e.span),
                        _ => None,
                    })
                });
                let in_loop = in_next
                    || anc.iter().any(|a| {
                        matches!(a, Anc::Stmt(s) if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. })
                        && at.is_none_or(|at| s.repeats(at))
                        && !rebuilt.borrow().contains(&(*s as *const _))
                        && !rebinds(s))
                    });
                if let Some(l) = built_in {
                    anew |= l.is_none_or(|l| anc.iter().any(|a| matches!(a, Anc::Stmt(s) if std::ptr::eq(*s, l))));
                }
                iterated.push((scope, in_loop));
            }
            Flow::Returned { func: Some(f), .. } => {
                let is_hook = prog.func(f).is_some_and(|x| x.name == "build_validation_data_loader");
                let in_trial = code.rt.trial_of(prog, f.scope()).is_some()
                    || code
                        .rt
                        .unlaunched_trial
                        .is_some_and(|(k, _)| prog.class_of(f) == Some(k));
                if is_hook && in_trial {
                    again = true;
                }
                if lightning_hook(code, f) {
                    again = true;
                }
            }
            Flow::Arg {
                scope: s,
                call,
                callee: crate::training::program::Callee::Class(k),
                pos,
                ..
            } if wrapped.borrow().len() < MAX_ENTRY_STORES => {
                if let Some(field) = record_field(prog, k, &pos) {
                    wrapped.borrow_mut().push((s, call, field));
                }
            }
            // Handed to a pipeline framework's loader wrapper
            // (`context.wrap_data_loader(loader, …)` of an HPP plugin;
            // Determined has no such method): it takes the loader
            // over for the run and, like a training loop, passes over it
            // every epoch.
            Flow::Arg {
                call,
                pos: ArgPos::Pos(0),
                ..
            } => {
                if let ExprKind::Call { func, .. } = &call.kind {
                    if matches!(&func.kind, ExprKind::Attribute { attr, .. } if is_loader_wrapper(attr)) {
                        again = true;
                    }
                }
            }
            // Handed to a Lightning Trainer's `fit` (`trainer.fit(model,
            // train_loader)`, `val_dataloaders=`): the Trainer passes over the
            // training loader every epoch, the validation loader at every
            // validation run.
            Flow::Arg {
                scope: s,
                call,
                pos: ArgPos::Pos(1 | 2) | ArgPos::Kw("train_dataloaders" | "val_dataloaders"),
                ..
            } => {
                if let ExprKind::Call { func, .. } = &call.kind {
                    if let ExprKind::Attribute { value, attr } = &func.kind {
                        if attr == "fit" && runtime::lightning_trainer(prog, s, value) {
                            again = true;
                        }
                    }
                }
            }
            _ => {}
        }
    };
    prog.flows(scope, anc, loader, &through, &mut on_flow);
    // The dict's entries read back (`loaders["train"]`, here or in the
    // function it is handed to) are the loader, followed on from there.
    // Each read is followed on its own budget: a function reading the
    // dict a thousand times is followed for the first few reads only.
    // The record followed, then its field read back (`data["train"].dataloader`
    // where the record went into a dict another function reads).
    let mut held: Vec<FuncId> = Vec::new();
    for (ws, call, field) in wrapped.take() {
        let Some(wanc) = prog.ancestors_of(ws, call) else {
            continue;
        };
        let reads: std::cell::RefCell<Vec<(Scope, Vec<Anc<'p>>, &'p Expr)>> = std::cell::RefCell::default();
        let rec_entries: std::cell::RefCell<Vec<(Scope, String, Option<String>)>> = std::cell::RefCell::default();
        let rec_held: std::cell::RefCell<Vec<FuncId>> = std::cell::RefCell::default();
        let mut on_record = |flow: Flow<'p>| match flow {
            Flow::Attr { scope, expr, name, anc } if name == field => reads.borrow_mut().push((scope, anc, expr)),
            Flow::Entered { scope, func, .. } => {
                rec_held.borrow_mut().extend(scope.func());
                rec_held.borrow_mut().push(func);
            }
            Flow::Stored { scope, target } => {
                rec_held.borrow_mut().extend(scope.func());
                note_rebuilt(scope, target);
                if let (ExprKind::Subscript { value, index }, Some(_)) = (&target.kind, scope.func()) {
                    if let ExprKind::Name(d) = &value.kind {
                        let key = match &index.kind {
                            ExprKind::Str(k) => Some(k.clone()),
                            _ => None,
                        };
                        rec_entries.borrow_mut().push((scope, d.clone(), key));
                    }
                }
            }
            _ => {}
        };
        prog.flows(ws, &wanc, call, &through, &mut on_record);
        let kept = rec_entries.take();
        for (s, d, key) in kept.iter().take(MAX_ENTRY_STORES) {
            let (entry_reads_, holders, anew) = entry_reads(code, *s, d, key.as_deref());
            rec_held.borrow_mut().extend(holders);
            rebuilt.borrow_mut().extend(anew);
            for (rs, ranc, read) in entry_reads_.into_iter().take(MAX_ENTRY_READS) {
                prog.flows(rs, &ranc, read, &through, &mut on_record);
            }
        }
        held.extend(rec_held.take());
        for (rs, ranc, read) in reads.take().into_iter().take(MAX_ENTRY_READS) {
            prog.flows(rs, &ranc, read, &through, &mut on_flow);
        }
    }
    let stored = entries.take();
    for (s, d, key) in stored.iter().take(MAX_ENTRY_STORES) {
        let (reads, holders, anew) = entry_reads(code, *s, d, key.as_deref());
        held.extend(holders);
        rebuilt.borrow_mut().extend(anew);
        for (rs, ranc, read) in reads.into_iter().take(MAX_ENTRY_READS) {
            prog.flows(rs, &ranc, read, &through, &mut on_flow);
        }
    }
    // Handed, in its dict, to a wrapper that starts the dict's loaders over
    // as they run out (a `MetaLoader` mixing tasks): passed over again and
    // again.
    for (s, d) in containers.take() {
        let Some(f) = s.func() else { continue };
        for def in prog.local_defs(f, &d).into_iter().take(2) {
            let crate::training::program::LocalDef::Assign { value, proj } = def else {
                continue;
            };
            if !proj.is_empty() {
                continue;
            }
            let Some(vanc) = prog.ancestors_of(s, value) else {
                continue;
            };
            prog.flows(s, &vanc, value, &through, &mut |flow| {
                if let Flow::Arg {
                    callee: crate::training::program::Callee::Class(k),
                    pos,
                    ..
                } = flow
                {
                    again |= prog.restarts_entries_of_arg(k, &pos);
                }
            });
        }
    }
    // Passed over once by a function the building loop calls with it: one
    // pass per loader made.
    anew |= iterated
        .iter()
        .any(|(s, in_loop)| !in_loop && s.func().is_some_and(|f| entered_in_build_loop.contains(&f)));
    // Built in a loop and passed over nowhere in sight: one loader per
    // pass of that loop, unless a framework passes over each again (a
    // Lightning `val_dataloader` returning the loaders its loop made).
    if anew || built_in.is_some() && iterated.is_empty() && !again {
        return false;
    }
    let via = |f: FuncId| carry.contains(&f) || held.contains(&f);
    let rebuilt = rebuilt.take();
    let skip = |s: &crate::training::ast::Stmt| rebuilt.contains(&(s as *const _));
    // A function that reads the loader where it was kept (`self.val_loader`
    // in a trainer's `validate()`), not from a parameter, passes over this
    // loader whoever calls it: each of its calls in a loop is a pass.
    let anyone = |_: FuncId| true;
    let fresh_in = fresh_in.take();
    let stop = |g: FuncId| per_call.get() && (Some(g) == built_by || fresh_in.contains(&g));
    // Such a function may hand the loader on (`evaluate(self.val_loader, …)`
    // in a searcher's `is_legal`, called in its search loop): the functions
    // that pass over it there carry it from that reader, which passes over
    // it again at each of its own calls, from whichever loop.
    let readers = kept_readers(prog, &entered, &kept_in, built_by);
    again
        || iterated.into_iter().any(|(s, in_loop)| {
            in_loop
                || s.func().is_some_and(|f| {
                    let callers: &dyn Fn(FuncId) -> bool = if via(f) { &via } else { &anyone };
                    runtime::called_in_loop_below(prog, f, 3, callers, &skip, &stop)
                        || handed_by(&entered, f, 3)
                            .into_iter()
                            .filter(|k| readers.contains(k))
                            .any(|k| runtime::called_in_loop_below(prog, k, 3, &anyone, &skip, &stop))
                })
        })
}

/// Most hand-overs of one loader followed.
const MAX_ENTERED: usize = 64;

/// The functions that hand on a loader they read where a class of theirs
/// kept it (`self.val_loader`), not from a parameter: methods of a class
/// that stores the loader in `self`, which hand it to others but were not
/// handed it themselves; not the function that builds it.
fn kept_readers(
    prog: &crate::training::program::Program,
    entered: &[(FuncId, FuncId)],
    kept_in: &[crate::training::program::ClassId],
    built_by: Option<FuncId>,
) -> Vec<FuncId> {
    let mut out: Vec<FuncId> = Vec::new();
    for (g, _) in entered {
        if Some(*g) == built_by || out.contains(g) || entered.iter().any(|(_, to)| to == g) {
            continue;
        }
        let keeps = prog
            .class_of(*g)
            .is_some_and(|k| kept_in.iter().any(|c| *c == k || prog.ancestors(k).contains(c)));
        if keeps {
            out.push(*g);
        }
    }
    out
}

/// The functions that handed the loader, directly or through up to `depth`
/// hand-overs, to `f`.
fn handed_by(entered: &[(FuncId, FuncId)], f: FuncId, depth: u32) -> Vec<FuncId> {
    let mut out: Vec<FuncId> = Vec::new();
    let mut front = vec![f];
    for _ in 0..depth {
        let mut next = Vec::new();
        for (from, to) in entered {
            if front.contains(to) && !out.contains(from) && *from != f {
                out.push(*from);
                next.push(*from);
            }
        }
        if next.is_empty() {
            break;
        }
        front = next;
    }
    out
}

/// The local dict a pair holding `at` is stored into (`loaders[task] =
/// (loader, ratio)`): its name.
fn pair_entry(prog: &crate::training::program::Program, scope: Scope, at: &Expr) -> Option<String> {
    let anc = prog.ancestors_of(scope, at)?;
    // Given the pair itself (the container the flow follows), or its item.
    let (st, pair) = match anc.as_slice() {
        [.., Anc::Stmt(st)] if matches!(at.kind, ExprKind::Tuple(_)) => (*st, at),
        [.., Anc::Stmt(st), Anc::Expr(pair)] if matches!(&pair.kind, ExprKind::Tuple(items) if items.iter().any(|x| std::ptr::eq(x, at))) => {
            (*st, *pair)
        }
        _ => return None,
    };
    let StmtKind::Assign { targets, value } = &st.kind else {
        return None;
    };
    if !std::ptr::eq(value, pair) {
        return None;
    }
    targets.iter().find_map(|t| match &t.kind {
        ExprKind::Subscript { value, .. } => match &value.kind {
            ExprKind::Name(d) => Some(d.clone()),
            _ => None,
        },
        _ => None,
    })
}

/// Whether the store of `target` (ancestors `anc`, in `scope`) keeps a
/// loader made by that very statement: an assignment from a call of the
/// function that builds it (`built_by`), or of a function that calls that
/// one (two calls deep: `self.build_evaluator(name)` calling
/// `build_test_loader(…)`). Not a `for` target or a name bound to a loader
/// made before (`for loader in (train, val):`, `loader = loaders[0]`).
fn makes_loader(
    prog: &crate::training::program::Program,
    scope: Scope,
    anc: &[Anc<'_>],
    target: &Expr,
    built_by: Option<FuncId>,
    sites: &BuilderSites,
    builds: &mut HashMap<FuncId, bool>,
) -> bool {
    let Some(builder) = built_by else { return false };
    let Some(Anc::Stmt(st)) = anc.iter().rev().find(|a| matches!(a, Anc::Stmt(_))) else {
        return false;
    };
    let StmtKind::Assign { targets, value } = &st.kind else {
        return false;
    };
    let ExprKind::Call { func, .. } = &value.kind else {
        return false;
    };
    let within = |t: &Expr| t.span.start <= target.span.start && target.span.end <= t.span.end;
    if !targets.iter().any(within) {
        return false;
    }
    let crate::training::program::Callee::Func(f) = prog.callee(scope, func) else {
        // Chosen by a dispatcher (`get_dataset_fn(kind)(args)`): a call of
        // the builder itself.
        return sites.calls.contains(&(value as *const Expr));
    };
    *builds
        .entry(f)
        .or_insert_with(|| calls_builder(prog, f, builder, sites, 2))
}

/// Whether `f` is `builder` or calls it (through up to `depth` more calls).
/// Where the function that builds a loader is called: the calls, and the
/// functions they are in (read once per loader).
struct BuilderSites {
    calls: Vec<*const Expr>,
    funcs: Vec<FuncId>,
}

impl BuilderSites {
    fn of(prog: &crate::training::program::Program, builder: Option<FuncId>) -> Self {
        let sites = builder.map(|b| prog.call_sites(b)).unwrap_or_default();
        let mut funcs: Vec<FuncId> = sites.iter().filter_map(|(s, _)| s.func()).collect();
        funcs.sort_unstable();
        funcs.dedup();
        BuilderSites {
            calls: sites.iter().map(|(_, c)| *c as *const Expr).collect(),
            funcs,
        }
    }
}

fn calls_builder(
    prog: &crate::training::program::Program,
    f: FuncId,
    builder: FuncId,
    sites: &BuilderSites,
    depth: u32,
) -> bool {
    if f == builder {
        return true;
    }
    if depth == 0 {
        return false;
    }
    // Through a dispatcher's choice (`get_dataset_fn(kind)(args)` in `f`).
    let mut found = sites.funcs.binary_search(&f).is_ok();
    let mut callees: Vec<FuncId> = Vec::new();
    prog.walk_exprs(f.scope(), &mut |_, e| {
        if let ExprKind::Call { func, .. } = &e.kind {
            if let crate::training::program::Callee::Func(g) = prog.callee(f.scope(), func) {
                found |= g == builder;
                if !callees.contains(&g) && callees.len() < 16 {
                    callees.push(g);
                }
            }
        }
    });
    found
        || callees
            .into_iter()
            .any(|g| g != f && calls_builder(prog, g, builder, sites, depth - 1))
}

/// Most dict stores of one loader followed to their reads.
const MAX_ENTRY_STORES: usize = 8;

/// Most reads of one dict entry followed (each a flow of its own).
const MAX_ENTRY_READS: usize = 32;

/// The field of record class `k` (a training-code dataclass or
/// `NamedTuple`: fields in the order the class annotates them) that
/// argument `pos` of its construction fills.
fn record_field(prog: &crate::training::program::Program, k: ClassId, pos: &ArgPos<'_>) -> Option<String> {
    let class = prog.class(k)?;
    let record = class.decorators.iter().any(|d| {
        let d = match &d.kind {
            ExprKind::Call { func, .. } => func,
            _ => d,
        };
        matches!(&d.kind, ExprKind::Name(n) | ExprKind::Attribute { attr: n, .. } if n == "dataclass")
    }) || class
        .bases
        .iter()
        .any(|b| matches!(&b.kind, ExprKind::Name(n) | ExprKind::Attribute { attr: n, .. } if n == "NamedTuple"));
    if !record {
        return None;
    }
    let fields: Vec<&str> = class
        .body
        .iter()
        .filter_map(|st| match &st.kind {
            StmtKind::AnnAssign { target, .. } => match &target.kind {
                ExprKind::Name(n) => Some(n.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    match pos {
        ArgPos::Pos(i) => fields.get(*i).map(|f| f.to_string()),
        ArgPos::Kw(name) => fields.contains(name).then(|| name.to_string()),
        ArgPos::Star => None,
    }
}

/// Most scopes a dict of loaders is followed into.
const MAX_HOLDERS: usize = 8;

/// The reads of entry `key` (any entry where `key` is not a constant) of
/// the local dict `d` of `scope`'s function: `d["train"]` there, and in
/// each training-code function `d` is handed to whole (`do_train(args,
/// model, loaders)`), the same read of its parameter.
#[allow(clippy::type_complexity)]
fn entry_reads<'p>(
    code: &Code<'p>,
    scope: Scope,
    d: &str,
    key: Option<&str>,
) -> (
    Vec<(Scope, Vec<Anc<'p>>, &'p Expr)>,
    Vec<FuncId>,
    Vec<*const crate::training::ast::Stmt>,
) {
    let prog = code.prog;
    let mut holders: Vec<(Scope, String)> = vec![(scope, d.to_string())];
    let mut anew: Vec<*const crate::training::ast::Stmt> = Vec::new();
    // The dict's holders: the function that fills it, the callers it is
    // returned to (`data = get_data(args)`), and the functions each hands
    // it to, a few steps.
    let mut next = 0;
    while next < holders.len() && holders.len() < MAX_HOLDERS {
        let (hs, hd) = holders[next].clone();
        next += 1;
        let mut more: Vec<(Scope, String)> = Vec::new();
        prog.walk_exprs(hs, &mut |_, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            let crate::training::program::Callee::Func(g) = prog.callee(hs, func) else {
                return;
            };
            let Some(def) = prog.func(g) else { return };
            if prog.class_of(g).is_some() {
                return;
            }
            let mut positional = 0usize;
            for a in args {
                let (value, param) = match a {
                    Arg::Pos(v) => {
                        positional += 1;
                        (v, def.params.get(positional - 1).map(|p| p.name.clone()))
                    }
                    Arg::Kw { name, value, .. } => (
                        value,
                        def.params.iter().find(|p| p.name == *name).map(|p| p.name.clone()),
                    ),
                    _ => continue,
                };
                if let (ExprKind::Name(n), Some(param)) = (&value.kind, param) {
                    if *n == hd {
                        more.push((g.scope(), param));
                    }
                }
            }
        });
        if let Some(f) = hs.func() {
            let returned = prog
                .returns(f)
                .iter()
                .any(|r| matches!(&r.kind, ExprKind::Name(n) if *n == hd));
            if returned {
                for (cs, call) in prog.call_sites(f).into_iter().take(MAX_HOLDERS) {
                    prog.walk_stmts(cs, &mut |anc, st| {
                        if let StmtKind::Assign { targets, value } = &st.kind {
                            if let ([t], true) = (targets.as_slice(), std::ptr::eq(value, call)) {
                                if let ExprKind::Name(n) = &t.kind {
                                    more.push((cs, n.clone()));
                                    // Made anew at each pass of a loop
                                    // around the call: so are its loaders.
                                    for a in anc {
                                        if let Anc::Stmt(l) = a {
                                            if runtime::reruns(l, call) {
                                                anew.push(*l as *const _);
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    });
                }
            }
        }
        for h in more {
            if !holders.contains(&h) {
                holders.push(h);
            }
        }
    }
    let mut out = Vec::new();
    let funcs: Vec<FuncId> = holders.iter().filter_map(|(hs, _)| hs.func()).collect();
    for (hs, name) in holders {
        prog.walk_exprs(hs, &mut |anc, e| {
            let ExprKind::Subscript { value, index } = &e.kind else {
                return;
            };
            if !matches!(&value.kind, ExprKind::Name(n) if *n == name) {
                return;
            }
            let read_key = match &index.kind {
                ExprKind::Str(k) => Some(k.as_str()),
                _ => None,
            };
            if matches!((key, read_key), (Some(a), Some(b)) if a != b) {
                return;
            }
            // Not a store into the dict.
            let stored = matches!(anc.last(), Some(Anc::Stmt(st)) if matches!(&st.kind, StmtKind::Assign { targets, .. } if targets.iter().any(|t| std::ptr::eq(t, e))));
            if !stored {
                out.push((hs, anc.to_vec(), e));
            }
        });
    }
    (out, funcs, anew)
}

/// The innermost `for`/`while` statement among `anc` that runs `e` again
/// at each pass (not one whose iterable `e` is part of); `None` where the
/// innermost repetition is a comprehension.
fn innermost_loop<'p>(anc: &[Anc<'p>], e: &Expr) -> Option<&'p crate::training::ast::Stmt> {
    for a in anc.iter().rev() {
        match a {
            Anc::Stmt(s) if runtime::reruns(s, e) => return Some(s),
            Anc::Comp(_) => return None,
            _ => {}
        }
    }
    None
}

/// A Lightning data hook (`train_dataloader`, `val_dataloader`, …) of a
/// `LightningDataModule` or `LightningModule`: the Trainer iterates the
/// loader it returns at every epoch (or every validation run).
fn lightning_hook(code: &Code<'_>, f: crate::training::program::FuncId) -> bool {
    let prog = code.prog;
    let hook = prog.func(f).is_some_and(|x| {
        matches!(
            x.name.as_str(),
            // Not `test_dataloader`/`predict_dataloader`: `trainer.test()`
            // and `predict()` ask for a new loader at each call and pass
            // over it once, and `fit` never asks.
            "train_dataloader" | "val_dataloader"
        )
    });
    // Not a hook of a datamodule no Trainer is handed (the per-dataset
    // modules a multitask module wraps, whose own loaders it replaces),
    // nor where no Trainer of the code fits or validates (a Trainer built
    // only to `test()` a checkpoint never asks for these loaders).
    hook && prog.class_of(f).is_some_and(|k| {
        !super::training_support::hook_never_run(code, f, k)
            && (runtime::lightning_module(prog, k)
                || prog.derives_from(
                    k,
                    &[
                        "lightning.LightningDataModule",
                        "lightning.core.LightningDataModule",
                        "lightning.core.datamodule.LightningDataModule",
                    ],
                ))
    }) && code.lightning_fits()
}

/// A method that takes a data loader over (`wrap_data_loader`,
/// `wrap_dataloader`): not Determined's API, a pipeline framework's.
/// MONAI's `DataLoader`: torch's, with MONAI's collate and worker seeding;
/// its workers start and stop as torch's do.
const MONAI_LOADER: &str = "monai.data.DataLoader";

pub(super) fn is_monai_loader(path: &str) -> bool {
    path == MONAI_LOADER || path == "monai.data.dataloader.DataLoader"
}

/// PyG's and DGL's loaders: subclasses of torch's `DataLoader` that hand
/// it their keyword arguments (`NeighborSampler(edge_index, sizes=[-1],
/// num_workers=6)`), workers and `persistent_workers` alike.
fn is_graph_loader(path: &str) -> bool {
    let class = path.rsplit('.').next().unwrap_or(path);
    let pyg = (path.starts_with("torch_geometric.loader.") || path.starts_with("torch_geometric.data."))
        && matches!(
            class,
            "DataLoader"
                | "NeighborSampler"
                | "NeighborLoader"
                | "LinkNeighborLoader"
                | "HGTLoader"
                | "ClusterLoader"
                | "GraphSAINTSampler"
                | "GraphSAINTNodeSampler"
                | "GraphSAINTEdgeSampler"
                | "GraphSAINTRandomWalkSampler"
                | "ShaDowKHopSampler"
                | "DataListLoader"
                | "DenseDataLoader"
        );
    let dgl = path.starts_with("dgl.dataloading.")
        && matches!(
            class,
            "DataLoader" | "GraphDataLoader" | "NodeDataLoader" | "EdgeDataLoader" | "DistNodeDataLoader"
        );
    pyg || dgl
}

fn is_loader_wrapper(name: &str) -> bool {
    matches!(name, "wrap_data_loader" | "wrap_dataloader" | "wrap_train_loader")
}

/// Where the loader's workers run.
#[derive(Clone, Copy)]
enum Host {
    /// A host of the experiment's pipeline stages.
    PipelineStage,
    /// A node of a multi-rank job: its local ranks, when the launch says.
    Ranks(Option<i64>),
    /// One rank of a multi-rank job (a loader built under `if rank == 0:`).
    OneRank,
}

/// The ranks each node runs, when the launch fixes it
/// (`torchrun --nproc_per_node 8`, `mp.spawn(…, nprocs=4)`, a Lightning
/// `Trainer(devices=8, …)`).
fn local_ranks(code: &Code<'_>) -> Option<i64> {
    if let Some(l) = &code.rt.launch {
        if let crate::training::entry::Procs::Fixed(n) = l.procs {
            return (n > 1).then_some(n);
        }
    }
    // Lightning's `Trainer(devices=8, …)`: one process per device.
    runtime::trainer_devices(code.prog)
}

fn report<'o>(
    code: &Code<'_>,
    cx: &Cx<'_>,
    out: &'o mut Sink<'_>,
    w: &Written<'_>,
    edit: Option<Edit>,
    host: Host,
    site: Option<(Scope, Span)>,
) -> Option<&'o mut crate::Diagnostic> {
    let unresolved = Resolved {
        values: Vec::new(),
        via: None,
        default_at: None,
        from_files: None,
    };
    let r = match (&w.resolved, w.per_cpu) {
        (Some(r), _) => r,
        (None, true) => &unresolved,
        (None, false) => return None,
    };
    let ints = r.ints().unwrap_or_default();
    let n = ints.iter().copied().max().unwrap_or(0);
    let via = r
        .via
        .as_ref()
        .map(|p| format!(" ({} in the experiment config)", display_path(p)));
    let least = ints.iter().copied().min().unwrap_or(0);
    let value = if ints.len() > 1 && r.from_files.is_some() {
        format!("num_workers={least} to {n}")
    } else if ints.len() > 1 {
        let list: Vec<String> = ints.iter().take(6).map(|i| i.to_string()).collect();
        format!("num_workers up to {n} (candidates {})", list.join(", "))
    } else if w.per_cpu {
        format!("num_workers={}", excerpt(code.text(w.scope.m, w.value.span)))
    } else {
        format!("num_workers={n}")
    };
    let mut via = via.unwrap_or_default();
    let default = r.default_at.and_then(|(m, span)| {
        let text = code.prog.text(m).get(span.start..span.end)?;
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        Some((m, span, text))
    });
    if let Some((_, _, text)) = &default {
        via = format!(" (the config's default, `{text}`, unless the config file merged at run time sets another)");
    }
    if let (Some((s, at)), true) = (site, via.is_empty()) {
        via = format!(" (from `{}`)", excerpt(code.text(s.m, at)));
    }
    if let Some(f) = &r.from_files {
        let at = format!("`{}` at {}:{}", f.first.text, f.first.file, f.first.line);
        let kind = f.format.noun();
        via = if f.named {
            format!(" ({at}, the config file the code loads)")
        } else if f.files == 1 {
            format!(" ({at}: the code loads a {kind} file named at run time, and this is the project's one {kind} file that sets it)")
        } else {
            format!(
                " ({at}: the code loads a {kind} file named at run time, and each of the project's {} {kind} files that set it sets 1 or more)",
                f.files
            )
        };
    }
    let processes = if n == 1 { "process" } else { "processes" };
    let started = if w.per_cpu {
        match cpu_share(code, w.scope, w.value).flatten() {
            Some(cap) => format!("one worker process per CPU (up to {cap})"),
            None => "one worker process per CPU".to_string(),
        }
    } else {
        format!("{n} worker {processes}")
    };
    let advice = if may_be_zero(r) {
        "set persistent_workers whenever the count is above 0"
    } else {
        "set persistent_workers=True"
    };
    let keep = if may_be_zero(r) {
        "persistent_workers=<count> > 0 (the count the run ends up with may be 0, where True would raise)"
    } else {
        "persistent_workers=True"
    };
    let primary = match site {
        Some((s, at)) => code.loc(s.m, at),
        None => code.loc(w.scope.m, w.span),
    };
    let d = match host {
        Host::PipelineStage => {
            let d = out.at_loc(
                primary,
                format!(
                    "{value}{via} starts {started} per rank and stops them after every pass over this loader; {advice}"
                ),
            );
            d.help(format!("on a pipeline stage's host the workers compete with the stage processes for memory; keep them alive with {keep}, and consider fewer"));
            d
        }
        Host::Ranks(local) => {
            let cap = if w.per_cpu {
                cpu_share(code, w.scope, w.value).flatten()
            } else {
                None
            };
            let node = match local {
                _ if w.per_cpu => match cap {
                    Some(c) => format!(
                        "the smaller of {c} and the node's CPU count, × the local ranks on each node: {} with 8 GPUs and {c} CPUs or more per node",
                        8 * c
                    ),
                    None => {
                        "the node's CPU count × its local ranks: each rank starts as many workers as the node has CPUs"
                            .to_string()
                    }
                },
                Some(l) => format!("{l} local ranks × {n} = {} worker processes on each node", l * n),
                None => format!("{n} × the local ranks on each node: {} with 8 GPUs per node", 8 * n),
            };
            let d = out.at_loc(
                primary,
                format!(
                    "{value}{via} starts {started} on every rank ({node}) and stops them after every pass over this loader, so each pass starts them all again; {advice}"
                ),
            );
            d.help(format!("every rank of a node forks its own workers, each with a copy of the dataset's touched memory and its prefetch buffers; restarting them at each pass stalls every rank at the start of the pass and raises the node's memory peak. Keep them alive with {keep}{}", if n >= 8 || w.per_cpu { ", and consider fewer" } else { "" }));
            d
        }
        Host::OneRank => {
            let d = out.at_loc(
                primary,
                format!(
                    "{value}{via} starts {started} on the one rank that runs this loader and stops them after every pass over it, so each pass forks them again while the other ranks wait for this one at their next collective; {advice}"
                ),
            );
            d.help(format!("the loader is built or iterated only where one rank runs (`if rank == 0:` or the like); its workers restart at every pass (each validation, each epoch), and the whole job waits for them. Keep them alive with {keep}"));
            d
        }
    };
    if site.is_some() {
        d.label(code.file(w.scope.m), w.span, "the worker count is written here");
    }
    if let (Some(path), Some(config)) = (&r.via, cx.config()) {
        let p: Vec<PathSeg> = path.clone();
        d.label(config.file, config.value_span(&p), "the value comes from here");
    }
    if let Some((m, span, _)) = default {
        d.label(
            code.file(m),
            span,
            "the default; a config file merged into it at run time may change it",
        );
    }
    if let Some(edit) = edit {
        let title = if may_be_zero(r) {
            "keep the workers alive whenever there are any: persistent_workers=<count> > 0"
        } else {
            "keep the workers alive: persistent_workers=True"
        };
        d.unsafe_fix(title, vec![edit]);
    }
    Some(d)
}

/// Whether the run may end up with another count than the one resolved,
/// 0 among them: a config default a file merged at run time can change, a
/// count read from whichever config file the run is given, or candidates
/// of which one is 0 (a factory's callers passing `[4, 0]`).
fn may_be_zero(r: &Resolved) -> bool {
    r.default_at.is_some()
        || r.from_files.as_ref().is_some_and(|f| !f.named)
        || r.ints().is_some_and(|v| v.iter().any(|n| *n < 1))
}

/// The edit keeping the workers alive: `False` → `True` where
/// `persistent` is written, else `<name>=True` after the workers' argument
/// (`name`: the keyword, a helper's parameter for its call sites).
fn persistent_edit(code: &Code<'_>, w: &Written<'_>, persistent: Option<&Written<'_>>, name: &str) -> Option<Edit> {
    let file = code.file(w.scope.m);
    let text = code.prog.text(w.scope.m);
    // A count the run may set to 0 (a config default a merged file can
    // change): `persistent_workers=True` would then raise, so the fix
    // keeps the workers alive whenever there are any.
    let keep = match w.resolved.as_ref().is_some_and(may_be_zero) {
        true => format!("{} > 0", text.get(w.value.span.start..w.value.span.end)?),
        false => "True".to_string(),
    };
    match persistent {
        Some(p) => match &p.value.kind {
            ExprKind::Bool(false) => Some(crate::edit::replace(file, p.value.span, keep)),
            _ => None,
        },
        None => {
            let in_dict = text
                .get(w.span.start..w.span.end)
                .is_some_and(|t| t.starts_with('"') || t.starts_with('\''));
            let insert = if in_dict {
                let quote = &text[w.span.start..w.span.start + 1];
                format!(", {quote}{name}{quote}: {keep}")
            } else {
                format!(", {name}={keep}")
            };
            Some(crate::edit::replace(file, Span::at(w.span.end), insert))
        }
    }
}
