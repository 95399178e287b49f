declare_rule! {
    /// ## What it checks
    /// `RandomSampler`, `WeightedRandomSampler`, `SubsetRandomSampler`,
    /// `DataLoader(shuffle=True)` and a `torch.randperm` used as the sample order (not one drawn in a
    /// model class's methods, a pick among the forward pass's inputs, nor one sized by a
    /// `for` counter over a `range`, nor by a
    /// tensor, `x.shape[0]` (also unpacked, `n, device = x.shape[0], x.device`) or a
    /// mask's `.sum().item()`: a pick among the rank's
    /// own rows or pixels, nor one whose first entries only become a `Subset`'s
    /// indices, `Subset(ds, torch.randperm(n)[:k])`, in a program that shards its
    /// samples: the ranks must hold the same subset for the shards to split it),
    /// without `generator=`, feeding a plain `torch.utils.data.DataLoader` in code that
    /// runs once per rank, when every rank seeds the global torch RNG with the same
    /// value (`torch.manual_seed(42)` at start-up, or a Determined trial, which gives
    /// all ranks the trial seed); a seeding that runs on one rank only (under
    /// `if accelerator.is_main_process:`, or in a helper, or an object's `__call__`,
    /// called only there) seeds no ranks alike.
    ///
    /// ## Why
    /// Without a generator these samplers draw from the global random number
    /// generator. Seeded alike on every rank, every rank draws the same indices and
    /// trains on the same batches: the job does the work of one GPU N times, and
    /// weighted sampling repeats the same heavy samples everywhere. Give the sampler
    /// its own generator whose seed differs per data-parallel replica (in a
    /// pipeline, the same on every stage of a replica: the first stage's
    /// inputs and the last stage's labels must be the same samples). Where the
    /// entrypoint runs the training command through `stagec exec`, that seed is
    /// `STAGEC_DATA_SEED` in every rank's environment, and the fix reads it
    /// (when the file imports `os`; otherwise it seeds from the code's own seed
    /// plus the replica, and the help says to import `os`). Loaders that
    /// shard for you — `determined.pytorch.DataLoader`, `accelerator.prepare`,
    /// Lightning's sampler injection, `DistributedSampler` — need the shared stream
    /// instead (a per-rank generator there makes shards overlap), and are left alone,
    /// as are a loader over a DataPipe (torch shares its shuffle seed across the
    /// ranks and shards after shuffling), a loader over a buffer its object
    /// fills at run time (`self.pi_buffer.append(…)`: each rank's own rollouts,
    /// so an equal shuffle orders different samples), a subset sampler over
    /// this rank's own slice of the indices (Swin's `SubsetRandomSampler(
    /// np.arange(rank, n, world))`, torch's or a sampler class of the code
    /// built only with a rank-dependent argument: the same permutation
    /// orders different samples), a `randperm` ordering a scheduler class of
    /// the code's own in a program that neither wraps a model for data
    /// parallelism nor shards samples (ranks that split one batch's work
    /// between them must draw it alike), a Lightning data hook of
    /// a class no Trainer is handed, explicit generators and literal seeds, draws made on one rank only
    /// (under `if rank == 0:`, or in a helper called only there) and a
    /// `randperm` broadcast from one rank (`dist.broadcast(perm, 0)`). `random_split` is the
    /// opposite case: the split must be the same everywhere, so it is reported
    /// without `generator=` in multi-rank code whose ranks do *not* seed the
    /// global RNG alike (no seed, or a seed that depends on the rank): each rank
    /// then splits differently, its training part overlaps the other ranks'
    /// held-out parts, and a sampler's shards come from different sets. So is
    /// `random.shuffle(list)` or `np.random.shuffle(list)` of a sample list in
    /// multi-rank code that never seeds that RNG (nor calls a seeding helper,
    /// nor runs as a Determined trial; a seeding function that nothing of the
    /// program calls, in a library vendored into the project, seeds nothing), when the shuffled order is then cut into
    /// parts (`rows[:cut]`, `rows[cut:]`), sliced by rank, or kept by a dataset a
    /// sharding sampler or a Hugging Face `Trainer` reads (also through
    /// `self.records.extend(rows)` after the shuffle, cut or not: each data file's
    /// random subset), or shuffled in a sampler's `__iter__` (a subclass of
    /// torch's samplers) that then cuts this rank's part of its index lists by
    /// position (`indices[start:end]`, `start = self.rank * per_rank`): each rank
    /// shuffles into its own order (a shuffle on one rank, or broadcast from one,
    /// is left alone; a `DistributedSampler`'s fix shuffles with
    /// `random.Random(self.seed + self.epoch)`, as torch's own does). Seeded
    /// or not, such a shuffle in an `IterableDataset`'s `__iter__` that reads
    /// `get_worker_info()` and then takes its worker's part of the shuffled
    /// records by position (`random.shuffle(self.files)` before
    /// `self.files[idx]`, or a helper it calls whose shuffled lists it stores
    /// there, reported at that call) is reported where a loader of the program
    /// starts 2 workers or more: torch seeds each worker's RNGs with its own
    /// seed, so each worker shuffles into its own order and the parts overlap;
    /// not a shuffle of the part a worker already cut for itself. The same holds for a
    /// Hugging Face `datasets` dataset (from `load_dataset`, `load_from_disk`,
    /// `Dataset.from_*`, through its splits and order-keeping methods) shuffled
    /// with `.shuffle()` and no `seed=`/`generator=` where numpy's global RNG is
    /// never seeded: `datasets` then draws the seed from that RNG, and the
    /// dataset reaching a `Trainer`'s `train_dataset`/`eval_dataset`, a
    /// `DistributedSampler` or `split_dataset_by_node` is handed out by
    /// position from a different order on each rank. A
    /// `worker_init_fn` that seeds numpy, `random` or torch with a resolved
    /// constant (not from the worker id or `torch.initial_seed()`) of a loader
    /// with workers (a count not known to be 0: the init function was written
    /// for workers) is reported too: every worker of every rank draws alike. So is
    /// one that adds the worker id to a constant (`1234 + worker_id`) or to the
    /// parent's RNG state (`random.getstate()[1][0] + worker_id`) where the
    /// ranks seed alike: the workers of a rank differ, but worker k of every rank
    /// draws the same numbers. Numpy's first state word
    /// (`np.random.seed(np.random.get_state()[1][0] + worker_id)`) is reported
    /// however the ranks seed: PyTorch (1.9 and later) seeds numpy in each
    /// worker from an array before the init function runs, which makes that
    /// word 2147483648 in every worker of every rank, at every epoch (a seed that mixes in the rank or starts from
    /// `torch.initial_seed()` is left alone); an instance of a training-code
    /// class passed as the init function (`worker_init_fn=SeedWorkers(seed)`) is
    /// read through its `__call__`, and a base it keeps from a draw of torch's
    /// global RNG (`torch.randint(…).item()`) counts as that RNG's state. lhotse's
    /// `fix_random_seed`, MONAI's `set_determinism(seed=…)` and MMEngine's
    /// `set_random_seed` (without `diff_rank_seed=True`) seed like
    /// `torch.manual_seed` (and `random`, numpy); a
    /// seeding call in a function with a worker-id parameter, or one seeded from
    /// `get_worker_info()`, runs in the workers and says nothing of how the ranks
    /// seed. A map-style dataset that seeds in its own methods from the worker id
    /// and constants only (RAFT's `__getitem__`: `torch.manual_seed(
    /// get_worker_info().id)` once per worker) is reported in multi-rank code whose
    /// program starts loader workers: worker k of every rank gets the same seed
    /// (not where the dataset's text names ranks). One that adds the rank and the
    /// worker id as they are (`seed + local_rank + worker_id`, also through a
    /// loader factory's parameter, a local alias of the factory (also one
    /// star-imported, `from loaders import *`), or a function
    /// defined in each arm of an `if`): worker 1 of rank 0 and worker 0 of
    /// rank 1 get the same seed. The half-applied fix too: a `torch.Generator()`
    /// seeded with the same constant on every rank (`g.manual_seed(777)`) handed to
    /// a `DataLoader` that shuffles the whole dataset with it (every rank draws the
    /// same order), or that has workers (`num_workers` above 0, or
    /// `persistent_workers=True`) where the training code draws random numbers
    /// elsewhere: the loader draws each pass's worker seeds from it, so worker k of
    /// every rank draws the same augmentations (also through Lightning Fabric's
    /// `setup_dataloaders`, which swaps in its own distributed sampler but keeps
    /// the generator for the workers' seeds; not through `accelerator.prepare`,
    /// which keeps that generator in step on purpose). Last, an `IterableDataset` whose
    /// `__iter__` splits its records by `get_worker_info()` but nowhere by rank,
    /// read through a plain `DataLoader` in multi-rank code: every rank yields the
    /// same records. And the same without a generator at all: every rank
    /// seeds torch's global RNG with the same value (`torch.manual_seed(0)`,
    /// also through a seeding helper, reported at its call), and a loader with
    /// workers (a count known to be above 0), no `generator=` and no
    /// `worker_init_fn` draws each pass's base seed from it, where its dataset
    /// is seen to draw in the workers (a training-code dataset's methods other
    /// than `__init__`, or a random transform such as
    /// `transforms.RandomResizedCrop` it is built with, or a transform class of
    /// the training code whose `__call__` draws, built where the samples are made:
    /// `Compose([RandomCrop(), …])` in a helper `__getitem__` calls; any training-code
    /// dataset that draws, where the loader's cannot be followed), or where
    /// its `collate_fn` draws (a masking collator's `np.random.choice`, which
    /// runs in the workers too): worker k of
    /// every rank then crops, flips and jitters alike — also for a shuffling
    /// loader handed to a Lightning Trainer, whose distributed sampler
    /// replaces the shuffle but not the workers' seeds (Lightning's
    /// `seed_everything(seed)` without `workers=True`). With no workers
    /// (`num_workers=0`), or a count the code does not resolve, the dataset
    /// draws in the rank's own process or in workers seeded from that torch
    /// RNG: alike either way where the function that seeds torch also seeds
    /// the module the draw reads (`random.seed(args.seed)`,
    /// `np.random.seed(args.seed)`) with the same value on every rank — not
    /// for tests, evaluation scripts, programs without a backward pass,
    /// seeding helpers nothing calls, or code that runs tensor or pipeline
    /// model parallelism (a sampler over Megatron's data-parallel rank: the
    /// ranks of a model-parallel group must read the same samples). What a dataset draws only while it is
    /// built (`__init__`, or a helper only the constructor calls, such as
    /// `self.data = self._subsample()`) runs in the rank's own process, not
    /// the workers, and a draw in an arm the construction rules out (`if
    /// self.mode == "train":` in a dataset built with `mode="test"`) does not
    /// count. A dataset whose constructor seeds a global RNG with a literal
    /// (`random.seed(1234)`, HiFi-GAN style) read by a loader without workers
    /// on every rank is reported at that seeding: the items' draws from that
    /// RNG (`random.randint` for the crop) repeat on every rank. A
    /// `worker_init_fn` that seeds each worker from the rank, the worker id
    /// and the run's seed only (mmdetection's
    /// `num_workers * rank + worker_id + seed`, bound with `partial`) on a loader that restarts its workers at
    /// each pass (no `persistent_workers`, passed over in a loop) is reported
    /// too: each pass's workers get the last pass's seeds, so every epoch
    /// draws the same numbers (one that adds `torch.initial_seed()`, drawn
    /// anew at each pass, is left alone). A dataset class that
    /// reseeds `random` or numpy's RNG from the system's entropy
    /// (`random.seed(None)`, `np.random.seed()`) draws apart with that module,
    /// and a shuffle of the list it cut to this rank's share (`self.data =
    /// self.data[rank::world]`) orders other samples on each rank: neither
    /// counts. Loaders that read in a
    /// fixed order (`shuffle=False` on the loader without a sampler, or on its
    /// sampler: evaluation), loaders built on one rank, prepared by
    /// Accelerate or Fabric, seeds that mix in the rank (also timm's
    /// `random_seed(seed, rank)`) and Lightning's `seed_everything(…,
    /// workers=True)` are left alone, and so is seeding in an `if __name__ ==
    /// "__main__":` block of a module the program imports rather than runs, and
    /// a loader or a shuffle in such a block (a dataset module's smoke test, run
    /// alone as one process).
    /// Seeding that never reaches the ranks counts as none: in the launcher
    /// before `mp.spawn` starts them (a function that spawns, or the `__main__`
    /// block that does: each rank is a fresh interpreter, seeded from the
    /// system's entropy, that imports the module without running the block),
    /// or scoped to one block (inside `with torch.random.fork_rng():`, or a
    /// context manager whose class saves and restores the RNG state).
    /// Where the ranks do not seed alike (no seed, or one per rank), a training
    /// `DataLoader(shuffle=True)` that nothing shards is reported instead, in a
    /// job whose model is wrapped for data parallelism (DDP, FSDP, DeepSpeed,
    /// or handed to `accelerator.prepare`): no sampler, never prepared itself,
    /// no `DistributedSampler` anywhere in the program, not run by Lightning
    /// (which puts its own sampler on it), over a dataset whose making does not
    /// depend on the rank and whose class does not read the rank or world size:
    /// every rank iterates every sample in an order of its own (seed-vc's
    /// `build_ft_dataloader`, which the trainer never prepares).
    /// Last, a dropped generator: a function handed a `generator` (in
    /// multi-rank code, or one that takes a `world_size`) that calls a helper
    /// drawing with its own (`torch.randperm(n, generator=generator)`) but
    /// passes it `generator=None` — LLaVA's per-modality shuffles inside the
    /// length-grouped sampler — so that draw comes from each rank's global
    /// RNG, not the generator the ranks keep in step (unsafe fix: pass it on).
    /// And the training step's own draws: where every rank seeds alike, a
    /// loop that trains (a backward pass or an optimizer step in its body —
    /// an optimizer's `.step()`, not a sampler's `scheduler.step(model_output,
    /// t, sample)`) drawing from torch's global RNG without `generator=` — a diffusion
    /// model's `torch.randint(0, T, (b,))` timesteps and `torch.randn_like(x)`
    /// noise, in its body or two calls down (a call of the model, held
    /// directly, through `DistributedDataParallel` or through what
    /// `accelerator.prepare` hands back, runs its class's `forward`) — draws the same numbers on every
    /// rank at every step, so the ranks' different samples share one set of
    /// noise and timesteps. A `LightningModule`'s `training_step` is such a
    /// step too (the Trainer runs it at every step), with the draws three
    /// calls down (`shared_step` → `self(x)`'s `forward` → `p_losses`); a
    /// module no script imports (a class a config names) is seeded by the one
    /// script running a multi-rank Trainer. Reported at the seeding call; left alone are draws
    /// on one rank, draws after the function gathers every rank's values
    /// (`dist.all_gather`, a broadcast: a partial-FC head sampling columns or
    /// classes of the gathered embeddings must draw alike), also in a helper
    /// it calls after gathering, a `randperm` in a helper that seeds from its
    /// own `seed` parameter right there (a pick it means to repeat), loops a module's main guard alone runs (also in a
    /// self-test function only that block calls) when the module is not the
    /// program's script, `set_seed(…, device_specific=True)`, and code with a
    /// model-parallel RNG of its own (Megatron's or fairscale's seeds, where
    /// tensor-parallel ranks must draw alike).
    ///
    /// ## Example
    /// ```python
    /// torch.manual_seed(42)
    /// loader = DataLoader(ds, batch_size=64,
    ///                     sampler=WeightedRandomSampler(weights, len(ds), replacement=True))  # warning
    /// # fix: WeightedRandomSampler(weights, len(ds), replacement=True,
    /// #          generator=torch.Generator().manual_seed(42 + dist.get_rank()))
    /// # under `stagec exec`: generator=torch.Generator().manual_seed(int(os.environ["STAGEC_DATA_SEED"]))
    /// ```
    pub static SAMPLER_RNG_SHARED_ACROSS_RANKS = {
        code: "T101",
        name: "sampler-rng-shared-across-ranks",
        family: Training,
        severity: Warning,
        summary: "A sampler without generator= draws the same indices on every rank",
    };
}

use super::sampler_rng_workers::{worker_loaders, LoaderCall};
use super::training_support::{add_argument, code, excerpt, feeds_training, global_seeder, managed, Code};
use super::{Cx, Sink};
use crate::source::Span;
use crate::training::ast::{Arg, Expr, ExprKind};
use crate::training::program::{Anc, ArgPos, Callee, Flow, ModId, Scope};
use crate::training::runtime::{self, has_splat, kw, pos, Seeding};

const TORCH_LOADER: &str = "torch.utils.data.DataLoader";
use super::training_support::DET_LOADER;

/// The sampler classes and the position of their `generator` argument.
fn sampler_generator_at(path: &str) -> Option<(&'static str, usize)> {
    match path {
        "torch.utils.data.RandomSampler" => Some(("RandomSampler", 3)),
        "torch.utils.data.WeightedRandomSampler" => Some(("WeightedRandomSampler", 3)),
        "torch.utils.data.SubsetRandomSampler" => Some(("SubsetRandomSampler", 1)),
        _ => None,
    }
}

/// One finding: where, what draws, the loader it reaches, and the call to
/// add `generator=` to.
struct Hit<'p> {
    m: ModId,
    scope: Scope,
    at: Span,
    what: String,
    call: &'p Expr,
    loader: Option<(ModId, Span)>,
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    // A function that splits by world size shows its ranks itself.
    super::sampler_rng_dropped_generator::dropped_generators(&code, out);
    if !code.rt.distributed_somewhere() {
        return;
    }
    // Each program (the experiment's, and each script named on the command
    // line that it never runs) is seeded, or not, by its own code.
    let mut seedings: Vec<(u64, Seeding)> = vec![(1, runtime::seeding_of(code.prog, code.rt, 1))];
    for (bit, _) in &code.rt.scripts {
        seedings.push((*bit, runtime::seeding_of(code.prog, code.rt, *bit)));
    }
    // The program of module `m` whose ranks all draw alike: its world and
    // seeding.
    let shared = |m: ModId| -> Option<(runtime::World, &Seeding)> {
        code.rt.worlds_of(code.prog, m).into_iter().find_map(|(bit, w)| {
            let s = seedings.iter().find(|(b, _)| *b == bit).map(|(_, s)| s)?;
            (w.distributed() && *s != Seeding::NotIdentical).then_some((w, s))
        })
    };
    let applies = |m: ModId| shared(m).is_some();
    random_splits(&code, &seedings, out);
    super::sampler_rng_shuffled_list::shuffled_apart(&code, out);
    super::sampler_rng_hf_shuffle::unseeded_dataset_shuffles(&code, out);
    super::sampler_rng_constant_generator::constant_generators(&code, out);
    super::sampler_rng_worker_sums::rank_plus_worker_seeds(&code, out);
    constant_worker_seeds(&code, out);
    super::sampler_rng_workers::worker_seeds_alike(&code, &seedings, out);
    super::sampler_rng_workers::epoch_repeating_worker_seeds(&code, out);
    super::sampler_rng_workers::dataset_seeds_from_worker_id(&code, out);
    super::sampler_rng_base_seeds::base_seeds_alike(&code, &seedings, out);
    super::sampler_rng_base_seeds::constructor_seeds_alike(&code, out);
    super::sampler_rng_step_draws::step_draws_alike(&code, &seedings, out);
    super::sampler_rng_workers::iterable_split_by_worker_only(&code, out);
    super::sampler_rng_unsharded_loader::unsharded_loaders(&code, &seedings, out);
    if seedings.iter().all(|(_, s)| *s == Seeding::NotIdentical) {
        return;
    }
    let mut hits: Vec<Hit<'_>> = Vec::new();
    let mut data_parallel: Option<bool> = None;
    let prog = code.prog;
    let targets = [
        "torch.utils.data.RandomSampler",
        "torch.utils.data.WeightedRandomSampler",
        "torch.utils.data.SubsetRandomSampler",
        "torch.randperm",
    ];
    for scope in code.scopes_for(&targets, &["shuffle"]) {
        if !applies(scope.m) {
            continue;
        }
        code.prog.walk_exprs(scope, &mut |anc, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            let Some(path) = code.prog.external(scope, func) else {
                return;
            };
            // Drawn on one rank only (`if rank == 0:`): the other ranks do
            // not draw alike, they do not draw at all.
            if !live(&code, scope, anc, e) || one_rank(&code, scope, anc, e) {
                return;
            }
            if let Some((name, at)) = sampler_generator_at(&path) {
                if has_splat(args) || kw(args, "generator").is_some() || pos(args, at).is_some() {
                    return;
                }
                // A subset of this rank's own (`SubsetRandomSampler(
                // np.arange(rank, n, world))`): the same draw orders
                // different samples on each rank.
                if path == "torch.utils.data.SubsetRandomSampler"
                    && pos(args, 0)
                        .or_else(|| kw(args, "indices"))
                        .is_some_and(|i| runtime::depends_on_rank(prog, scope, i))
                {
                    return;
                }
                if let Some(loader) = plain_consumer(&code, scope, anc, e) {
                    hits.push(Hit {
                        m: scope.m,
                        scope,
                        at: e.span,
                        what: name.to_string(),
                        call: e,
                        loader: Some(loader),
                    });
                }
            } else if path == TORCH_LOADER {
                if let Some(at) = shuffled_loader(&code, scope, args) {
                    if !managed(&code, scope, anc, e)
                        && !over_rank_buffer(&code, scope, args)
                        && !over_datapipe(&code, scope, anc, args)
                        && (feeds_training(&code, scope, anc, e) || drawn_through_wrapper(&code, scope, anc, e))
                    {
                        hits.push(Hit {
                            m: scope.m,
                            scope,
                            at,
                            what: "DataLoader(shuffle=True)".to_string(),
                            call: e,
                            loader: None,
                        });
                    }
                }
            } else if path == "torch.randperm" {
                if has_splat(args) || kw(args, "generator").is_some() {
                    return;
                }
                // Drawn in a method of a class of the code that is no torch
                // dataset or sampler, in a program that neither wraps its
                // model for data parallelism nor shards samples: an order
                // of the code's own scheduling, which ranks that split the
                // work of one batch between them (Grendel-GS's renderers
                // dividing each camera batch) must draw alike.
                let mut own_schedule = || {
                    scope.func().and_then(|f| prog.class_of(f)).is_some_and(|k| {
                        !prog
                            .external_bases(k)
                            .iter()
                            .any(|b| b.starts_with("torch.utils.data."))
                    }) && !*data_parallel.get_or_insert_with(|| runtime::data_parallel_model(prog, code.rt))
                        && !super::unsorted_directory_listing::shards_samples(&code, scope.m)
                };
                if sample_order(&code, scope, anc, e) && !own_schedule() && !rank_subset_sampler(&code, scope) {
                    hits.push(Hit {
                        m: scope.m,
                        scope,
                        at: e.span,
                        what: "torch.randperm".to_string(),
                        call: e,
                        loader: None,
                    });
                }
            }
        });
    }
    let degree = super::training_support::pipeline_degree(cx);
    let via_stagec = super::training_support::runs_stagec_exec(cx);
    for hit in hits {
        let Some((world, seeding)) = shared(hit.m) else {
            continue;
        };
        let world = match world {
            runtime::World::Ranks(Some(n)) => format!("all {n} ranks"),
            _ => "all ranks".to_string(),
        };
        // A helper that seeds from its own parameter and then draws
        // (`def filter_train(mapping, n, seed): torch.manual_seed(seed);
        // torch.randperm(…)`) makes a pick it means to repeat: on every rank
        // and in every run alike.
        if let Seeding::Call {
            scope, arg: Some(arg), ..
        } = seeding
        {
            if *scope == hit.scope && seeded_from_parameter(&code, *scope, *arg) {
                continue;
            }
        }
        let source = match seeding {
            Seeding::Trial => "Determined's trial seed".to_string(),
            Seeding::Call { scope, call, .. } => format!("`{}`", excerpt(code.text(scope.m, *call))),
            Seeding::NotIdentical => continue,
        };
        let d = out.at_loc(
            code.loc(hit.m, hit.at),
            format!(
                "{} draws from the global RNG, which {source} seeds identically on every rank: {world} get the same indices",
                hit.what
            ),
        );
        // Through `stagec exec` every rank of the experiment has the plan's
        // data seed (base + replica) in its environment.
        let planned = via_stagec && !code.prog.detached(hit.m);
        let os = if planned {
            code.prog.module_alias(hit.m, "os")
        } else {
            None
        };
        const SHARDED: &str =
            "loaders that shard for you (determined.pytorch.DataLoader, accelerator.prepare) need the shared stream instead";
        if planned {
            let import = if os.is_none() { " (with `import os`)" } else { "" };
            d.help(format!("give it its own generator seeded from `int(os.environ[\"STAGEC_DATA_SEED\"])`{import}: the data seed `stagec exec` sets on every rank, the same on every stage of a replica and different between replicas; {SHARDED}"));
        } else if degree.is_some_and(|p| p > 1) && !code.prog.detached(hit.m) {
            d.help(format!("give it its own generator whose seed differs per data-parallel replica and is the same on every stage of a replica (the plan's STAGEC_DATA_SEED, which `stagec exec` sets on every rank); {SHARDED}"));
        } else {
            d.help(format!(
                "give it its own generator whose seed differs per data-parallel replica; {SHARDED}"
            ));
        }
        if let Some((lm, span)) = hit.loader {
            if !(lm == hit.m && span.start <= hit.at.start && hit.at.end <= span.end) {
                d.label(code.file(lm), span, "the plain torch DataLoader it feeds");
            }
        }
        if let Seeding::Call { scope, call, .. } = seeding {
            d.label(code.file(scope.m), *call, "every rank seeds the global RNG alike here");
        }
        let degree = if code.prog.detached(hit.m) { None } else { degree };
        // With `os` bound in the file, the fix reads the plan's data seed;
        // without it (an edit must not add an unresolved name) it seeds per
        // replica from the code's own seed, as outside `stagec exec`.
        let planned_fix = os.as_deref().and_then(|os| {
            let torch = code.torch(hit.m)?;
            Some(format!(
                "generator={torch}.Generator().manual_seed(int({os}.environ[\"STAGEC_DATA_SEED\"]))"
            ))
        });
        let (title, text) = match planned_fix {
            Some(text) => ("give the sampler a generator seeded from STAGEC_DATA_SEED", Some(text)),
            None => (
                "give the sampler a generator seeded per replica",
                generator(&code, seeding, hit.scope, degree),
            ),
        };
        if let Some(text) = text {
            if let Some(edit) = add_argument(code.file(hit.m), hit.call, code.prog.text(hit.m), &text) {
                d.unsafe_fix(title, vec![edit]);
            }
        }
    }
}

/// The plain torch DataLoader a sampler reaches (through `BatchSampler`,
/// names, attributes and parameters), when it reaches one and nothing on
/// the way shards it.
fn plain_consumer(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], sampler: &Expr) -> Option<(ModId, Span)> {
    let prog = code.prog;
    let through = |callee: &Callee, pos: &ArgPos<'_>| {
        matches!(callee, Callee::External(p) if p == "torch.utils.data.BatchSampler")
            && matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("sampler"))
    };
    let mut plain: Option<(Scope, Vec<Anc<'_>>, &Expr)> = None;
    let mut sharded = false;
    prog.flows(scope, anc, sampler, &through, &mut |flow| {
        if let Flow::Arg {
            scope: s,
            call,
            callee,
            pos,
            anc,
        } = flow
        {
            match &callee {
                Callee::External(p)
                    if p == TORCH_LOADER
                        && matches!(pos, ArgPos::Kw("sampler" | "batch_sampler") | ArgPos::Pos(3 | 4))
                        && plain.is_none() =>
                {
                    plain = Some((s, anc, call));
                }
                Callee::External(p) if p == DET_LOADER => sharded = true,
                Callee::External(p)
                    if p.ends_with("DistributedSamplerWrapper")
                        || p.starts_with("determined.pytorch.samplers")
                        || p.ends_with("DistributedSampler") =>
                {
                    sharded = true
                }
                // A sampler class of the training code wraps it: stagec
                // cannot tell whether it shards.
                Callee::Class(_) => sharded = true,
                _ => {}
            }
        }
    });
    if sharded {
        return None;
    }
    let (s, a, call) = plain?;
    if managed(code, s, &a, call) || !feeds_training(code, s, &a, call) {
        return None;
    }
    Some((s.m, call.span))
}

/// The `shuffle=True` argument of a DataLoader that builds its own
/// `RandomSampler` from the global RNG.
pub(super) fn shuffled_loader(code: &Code<'_>, scope: Scope, args: &[Arg]) -> Option<Span> {
    if has_splat(args) {
        return None;
    }
    for k in ["sampler", "batch_sampler", "generator"] {
        if kw(args, k).is_some() {
            return None;
        }
    }
    if pos(args, 3).is_some() {
        return None;
    }
    let (value, span) = args.iter().find_map(|a| match a {
        Arg::Kw { name, value, span, .. } if name == "shuffle" => Some((value, *span)),
        _ => None,
    })?;
    let on = runtime::is_true(code.prog, code.cfg, code.rt, scope, value)?;
    on.then_some(span)
}

/// Whether the loader's dataset is made from a buffer its object fills at
/// run time (`self.pi_buffer = deque(…)`, `self.pi_buffer.append(pref)`,
/// then `DataLoader(builder(buffer=self.pi_buffer), shuffle=True)`): the
/// rank's own rollouts or feedback, different on every rank, so an equal
/// shuffle orders different samples.
pub(super) fn over_rank_buffer(code: &Code<'_>, scope: Scope, args: &[Arg]) -> bool {
    let prog = code.prog;
    let Some(dataset) = kw(args, "dataset").or_else(|| pos(args, 0)) else {
        return false;
    };
    let sources = prog.sources(scope, dataset);
    if sources.unknown || sources.terms.is_empty() {
        return false;
    }
    let filled = |s: Scope, e: &Expr| {
        let ExprKind::Attribute { value, attr } = &e.kind else {
            return false;
        };
        let Some(k) = prog.self_class(s, value) else {
            return false;
        };
        let assigns = prog.self_assignments(k, attr);
        let empty_container = !assigns.is_empty()
            && assigns.iter().all(|(sc, v, p)| {
                p.is_empty()
                    && v.is_some_and(|v| match &v.kind {
                        ExprKind::List(items) => items.is_empty(),
                        ExprKind::Call { func, args, .. } => {
                            matches!(
                                prog.external(*sc, func).as_deref(),
                                Some("collections.deque" | "builtins.list")
                            ) && args.iter().all(|a| !matches!(a, Arg::Pos(_)))
                        }
                        _ => false,
                    })
            });
        if !empty_container {
            return false;
        }
        // Filled by the class: `self.<attr>.append(…)` / `.extend(…)`.
        let needle_a = format!("self.{attr}.append(");
        let needle_e = format!("self.{attr}.extend(");
        prog.code_modules().any(|m| {
            let text = prog.text(m);
            text.contains(&needle_a) || text.contains(&needle_e)
        })
    };
    sources.terms.iter().all(|t| {
        t.proj.is_empty()
            && match &t.expr.kind {
                ExprKind::Call { args: a, .. } => a.iter().any(|x| match x {
                    Arg::Pos(v) | Arg::Kw { value: v, .. } => filled(t.scope, v),
                    _ => false,
                }),
                _ => filled(t.scope, t.expr),
            }
    })
}

/// Whether the loader's dataset is a DataPipe (an `if isinstance(ds,
/// IterDataPipe):` around the loader, or a pipe built with
/// `.sharding_filter()` or from `torchdata`): torch's DataLoader then
/// shares one shuffle seed across the ranks on purpose and shards after
/// shuffling, so equal draws are its design.
pub(super) fn over_datapipe(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], args: &[Arg]) -> bool {
    let prog = code.prog;
    let Some(dataset) = kw(args, "dataset").or_else(|| pos(args, 0)) else {
        return false;
    };
    let ds_text = code.text(scope.m, dataset.span);
    let pipe_type = |e: &Expr| {
        let t = code.text(scope.m, e.span);
        t.ends_with("DataPipe")
    };
    let guarded = anc.iter().any(|a| match a {
        Anc::Stmt(st) => match &st.kind {
            crate::training::ast::StmtKind::If { test, .. } => match &test.kind {
                ExprKind::Call { func, args: a, .. }
                    if prog.external(scope, func.as_ref()).as_deref() == Some("builtins.isinstance") =>
                {
                    pos(a, 0).is_some_and(|x| code.text(scope.m, x.span) == ds_text)
                        && pos(a, 1).is_some_and(|ty| match &ty.kind {
                            ExprKind::Tuple(items) => items.iter().any(pipe_type),
                            _ => pipe_type(ty),
                        })
                }
                _ => false,
            },
            _ => false,
        },
        _ => false,
    });
    if guarded {
        return true;
    }
    let sources = prog.sources(scope, dataset);
    !sources.terms.is_empty()
        && sources.terms.iter().all(|t| match &t.expr.kind {
            ExprKind::Call { func, .. } => {
                matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "sharding_filter")
                    || prog
                        .external(t.scope, func)
                        .is_some_and(|p| p.starts_with("torchdata.") || p.contains(".datapipes."))
            }
            _ => false,
        })
}

/// Whether a `torch.randperm` result is consumed as a sample order:
/// iterated, taken in slices, or made into a `Subset`/sampler, and never
/// sliced by rank nor broadcast from one rank (`dist.broadcast(perm, 0)`:
/// every rank then uses one rank's draw, on purpose).
fn sample_order(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], perm: &Expr) -> bool {
    if tensor_sized(code, scope, perm)
        || in_module_method(code, scope)
        || in_item_method(code, scope)
        || sized_by_range_step(code, scope, perm)
    {
        return false;
    }
    let mut uses = PermUses::default();
    perm_uses(code, scope, anc, perm, 0, &mut uses);
    // The indices of a `Subset` only (`Subset(ds, torch.randperm(n)[:k])`)
    // pick the samples a dataset holds; in a program that shards its
    // samples (a `DistributedSampler`, Accelerate, …) the ranks must pick
    // the same ones for the shards to split one set, so an equal draw is
    // what the code needs.
    let picks_shared_set =
        uses.subset && !uses.order && super::unsorted_directory_listing::shards_samples(code, scope.m);
    (uses.order || uses.subset) && !picks_shared_set && !uses.by_rank && !uses.broadcast
}

/// Whether `scope` is a method of a sampler class of the code (a torch
/// `Sampler` subclass) whose every construction is handed something that
/// depends on the rank (Swin's `SubsetRandomSampler(np.arange(rank, n,
/// world))`): a permutation of its own subset orders this rank's samples,
/// different ones on each rank, however alike the draw.
fn rank_subset_sampler(code: &Code<'_>, scope: Scope) -> bool {
    let prog = code.prog;
    let Some(k) = scope.func().and_then(|f| prog.class_of(f)) else {
        return false;
    };
    if !prog
        .external_bases(k)
        .iter()
        .any(|b| b.starts_with("torch.utils.data.") && b.ends_with("Sampler"))
    {
        return false;
    }
    let Some(init) = prog.method(k, "__init__") else {
        return false;
    };
    let sites = prog.call_sites(init);
    !sites.is_empty()
        && sites.iter().all(|(s, call)| {
            let ExprKind::Call { args, .. } = &call.kind else {
                return false;
            };
            args.iter().any(|a| match a {
                crate::training::ast::Arg::Pos(v) | crate::training::ast::Arg::Kw { value: v, .. } => {
                    runtime::depends_on_rank(prog, *s, v)
                }
                _ => false,
            })
        })
}

/// Whether the seeding's argument at `arg` is a parameter of the function
/// of `scope` (`torch.manual_seed(seed)` in `def pick(items, seed):`).
fn seeded_from_parameter(code: &Code<'_>, scope: Scope, arg: Span) -> bool {
    let text = code.text(scope.m, arg);
    scope
        .func()
        .and_then(|f| code.prog.func(f))
        .is_some_and(|func| func.params.iter().any(|p| p.name == text))
}

/// Whether `scope` is a method of a model class (a `torch.nn.Module`
/// subclass): a permutation drawn there picks among what the forward pass
/// is given (Cutie's reference frames, `torch.randperm(ti)[:k]`), not the
/// order of the dataset's samples.
fn in_module_method(code: &Code<'_>, scope: Scope) -> bool {
    scope
        .func()
        .and_then(|f| code.prog.class_of(f))
        .is_some_and(|k| code.prog.derives_from(k, crate::training::program::TORCH_MODULE))
}

/// Whether `scope` is a method of a dataset class (a `torch.utils.data.Dataset`
/// subclass) other than its constructor: a permutation drawn there picks
/// within one sample (co-tracker's `torch.randperm(len(visible))[:n]` of a
/// clip's trajectories), not the order of the dataset's samples.
fn in_item_method(code: &Code<'_>, scope: Scope) -> bool {
    scope.func().is_some_and(|f| {
        code.prog.func(f).is_some_and(|x| x.name != "__init__")
            && code
                .prog
                .class_of(f)
                .is_some_and(|k| code.prog.derives_from(k, &["torch.utils.data.Dataset"]))
    })
}

/// Whether the permutation's size is the counter of a `for` over a
/// `range(…)` in its function (`for ti in range(1, seq_length):
/// torch.randperm(ti)[:k]`): a pick among the first few frames or items
/// of a step, not the order of the dataset's samples.
fn sized_by_range_step(code: &Code<'_>, scope: Scope, perm: &Expr) -> bool {
    let ExprKind::Call { args, .. } = &perm.kind else {
        return false;
    };
    let Some(ExprKind::Name(n)) = pos(args, 0).map(|a| &a.kind) else {
        return false;
    };
    let Some(f) = scope.func() else { return false };
    let defs = code.prog.local_defs(f, n);
    !defs.is_empty()
        && defs.iter().all(|d| match d {
            crate::training::program::LocalDef::Iter { iter, proj } => {
                proj.is_empty()
                    && matches!(&iter.kind, ExprKind::Call { func, .. }
                        if code.prog.external(scope, func).as_deref() == Some("builtins.range"))
            }
            _ => false,
        })
}

/// Whether the permutation's size comes from a tensor (`x.shape[0]`,
/// `feats.size(0)`, `int(mask.sum().item())`, also through a local name):
/// a pick among the rows, pixels or boxes of the rank's own batch, not an
/// order of the dataset's samples.
fn tensor_sized(code: &Code<'_>, scope: Scope, perm: &Expr) -> bool {
    const TENSOR: [&str; 5] = [".shape", ".size(", ".numel(", ".item()", ".sum("];
    let ExprKind::Call { args, .. } = &perm.kind else {
        return false;
    };
    let Some(n) = pos(args, 0) else { return false };
    let of_tensor = |s: Scope, e: &Expr| {
        let text = code.text(s.m, e.span);
        TENSOR.iter().any(|t| text.contains(t))
    };
    if of_tensor(scope, n) {
        return true;
    }
    let ExprKind::Name(name) = &n.kind else {
        return false;
    };
    // `num_samples, device = samples.shape[0], samples.device`: the
    // element of the tuple the name is unpacked from.
    if let Some(f) = scope.func() {
        let defs = code.prog.local_defs(f, name);
        let element = |d: &crate::training::program::LocalDef<'_>| match d {
            crate::training::program::LocalDef::Assign { value, proj } => match (&value.kind, proj.as_slice()) {
                (
                    ExprKind::Tuple(items),
                    [crate::training::program::Proj::Key(crate::training::program::Key::Int(i))],
                ) => usize::try_from(*i)
                    .ok()
                    .and_then(|i| items.get(i))
                    .is_some_and(|e| of_tensor(scope, e)),
                _ => false,
            },
            _ => false,
        };
        if !defs.is_empty() && defs.iter().all(element) {
            return true;
        }
    }
    let sources = code.prog.sources(scope, n);
    !sources.terms.is_empty() && sources.terms.iter().all(|t| of_tensor(t.scope, t.expr))
}

#[derive(Default)]
struct PermUses {
    /// Used as a sample order (iterated, sliced, a sampler's indices).
    order: bool,
    /// Made into a `Subset`'s indices, whole or its first `k`
    /// (`perm[:k]`): which samples a dataset holds.
    subset: bool,
    by_rank: bool,
    broadcast: bool,
}

fn perm_uses<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], perm: &'p Expr, depth: u32, uses: &mut PermUses) {
    let prog = code.prog;
    let through = |callee: &Callee, pos: &ArgPos<'_>| {
        matches!(callee, Callee::External(p) if p == "builtins.list")
            || matches!(pos, ArgPos::Pos(0)) && matches!(callee, Callee::External(p) if p.ends_with(".tolist"))
    };
    // The same permutation on a device or in another integer type.
    let mut moved: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
    // Its first `k` entries (`perm[:k]`), followed on their own.
    let mut prefixes: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
    prog.flows(scope, anc, perm, &through, &mut |flow| match flow {
        Flow::Iterated { .. } => uses.order = true,
        Flow::Index {
            scope,
            index,
            expr,
            anc,
        } => {
            if let ExprKind::Slice { lower, step, .. } = &index.kind {
                if runtime::mentions_rank(prog, scope, index) {
                    uses.by_rank = true;
                } else if lower.is_none() && step.is_none() && depth < 3 {
                    prefixes.push((scope, anc, expr));
                } else {
                    uses.order = true;
                }
            }
        }
        Flow::Method {
            scope,
            call,
            name: "cuda" | "to" | "long" | "int",
            anc,
        } => {
            moved.push((scope, anc, call));
        }
        Flow::Arg {
            callee: Callee::External(p),
            pos,
            ..
        } => {
            match p.as_str() {
                "torch.utils.data.Subset" if matches!(pos, ArgPos::Pos(1) | ArgPos::Kw("indices")) => {
                    uses.subset = true
                }
                "torch.utils.data.Subset" | "torch.utils.data.SubsetRandomSampler" | "itertools.islice" => {
                    uses.order = true
                }
                _ => {}
            }
            if matches!(
                p.as_str(),
                "torch.distributed.broadcast" | "torch.distributed.broadcast_object_list" | "deepspeed.comm.broadcast"
            ) && matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("tensor" | "object_list"))
            {
                uses.broadcast = true;
            }
        }
        _ => {}
    });
    if depth < 3 {
        for (s, a, call) in moved {
            perm_uses(code, s, &a, call, depth + 1, uses);
        }
    }
    for (s, a, prefix) in prefixes {
        let mut own = PermUses::default();
        perm_uses(code, s, &a, prefix, depth + 1, &mut own);
        uses.by_rank |= own.by_rank;
        uses.broadcast |= own.broadcast;
        // A prefix kept only as a `Subset`'s indices picks samples; any
        // other use (or none the flow sees) is an order, as before.
        if own.subset && !own.order {
            uses.subset = true;
        } else {
            uses.order = true;
        }
    }
}

/// The `generator=` argument of the fix, when a seed and a rank valid at
/// `scope` can be written.
fn generator(code: &Code<'_>, seeding: &Seeding, scope: Scope, degree: Option<i64>) -> Option<String> {
    let prog = code.prog;
    let torch = code.torch(scope.m)?;
    let in_trial = code.rt.trial_of(prog, scope).is_some()
        || code
            .rt
            .unlaunched_trial
            .is_some_and(|(k, _)| scope.func().and_then(|f| prog.class_of(f)) == Some(k));
    let context = if in_trial { trial_context(code, scope) } else { None };
    let seed = match (seeding, &context) {
        (Seeding::Trial, Some(ctx)) => format!("{ctx}.get_trial_seed()"),
        (
            Seeding::Call {
                scope: s, arg: Some(a), ..
            },
            _,
        ) => seed_text(code, *s, *a, scope).unwrap_or_else(|| format!("{torch}.initial_seed()")),
        _ => format!("{torch}.initial_seed()"),
    };
    let rank = match &context {
        Some(ctx) => format!("{ctx}.distributed.get_rank()"),
        None => match prog.module_alias(scope.m, "torch.distributed") {
            Some(dist) => format!("{dist}.get_rank()"),
            None => match prog.module_alias(scope.m, "horovod") {
                Some(hvd) => format!("{hvd}.rank()"),
                None => format!("{torch}.distributed.get_rank()"),
            },
        },
    };
    let replica = match degree {
        Some(p) if p > 1 => format!("{rank} // {p}"),
        _ => rank,
    };
    Some(format!("generator={torch}.Generator().manual_seed({seed} + {replica})"))
}

/// `self.context` or `context`: the trial context visible at `scope`.
fn trial_context(code: &Code<'_>, scope: Scope) -> Option<String> {
    let prog = code.prog;
    let f = scope.func()?;
    let func = prog.func(f)?;
    if let Some(k) = prog.class_of(f) {
        if !prog.self_assignments(k, "context").is_empty() && func.name != "__init__" {
            return Some("self.context".to_string());
        }
        if func.params.iter().any(|p| p.name == "context") {
            return Some("context".to_string());
        }
        if !prog.self_assignments(k, "context").is_empty() {
            return Some("self.context".to_string());
        }
    }
    None
}

/// The seed argument `arg` (written in `at`) as text valid at `scope`: a
/// literal; a name or attribute chain written in the same scope; or, for a
/// parameter of a seeding helper called once from `scope`, the argument of
/// that call.
fn seed_text(code: &Code<'_>, at: Scope, arg: Span, scope: Scope) -> Option<String> {
    let prog = code.prog;
    let text = code.text(at.m, arg);
    if text.parse::<i64>().is_ok() {
        return Some(text.to_string());
    }
    let simple = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if !simple(text) {
        return None;
    }
    if at == scope {
        return Some(text.to_string());
    }
    // `set_seeds(args.seed)` → `torch.manual_seed(seed)`.
    let f = at.func()?;
    let func = prog.func(f)?;
    let index = func.params.iter().position(|p| p.name == text)?;
    let sites = prog.call_sites(f);
    let [(site_scope, call)] = sites.as_slice() else {
        return None;
    };
    if *site_scope != scope {
        return None;
    }
    match prog.bind(f, call, index) {
        crate::training::program::Bound::Given(e) => {
            let t = code.text(scope.m, e.span);
            simple(t).then(|| t.to_string())
        }
        _ => None,
    }
}

/// Whether a sampler made at `e` runs with several ranks: not in a branch
/// known to be dead, nor on the path that runs only without distribution
/// (`else: RandomSampler(...)` after `if args.distributed:`).
pub(super) fn live(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], e: &Expr) -> bool {
    if runtime::non_distributed_path(code.prog, scope, anc, e as *const Expr as *const ())
        || code.rt.main_block_of_no_ranks(code.prog, scope, anc)
    {
        return false;
    }
    match code.prog.stmt_of(anc) {
        Some(stmt) => !runtime::dead_branch(code.prog, code.cfg, code.rt, scope, anc, stmt),
        None => true,
    }
}

/// Whether `e` runs on one rank at most (the body of `if rank == 0:`).
fn one_rank(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], e: &Expr) -> bool {
    runtime::runs_on_one_rank(code.prog, scope, anc, e as *const Expr as *const ())
}

/// `random_split` without `generator=` in multi-rank code whose ranks do not
/// seed the global torch RNG alike: every rank draws its own split.
fn random_splits(code: &Code<'_>, seedings: &[(u64, Seeding)], out: &mut Sink<'_>) {
    const SPLIT: &str = "torch.utils.data.random_split";
    // The program of module `m` whose ranks split differently: its world.
    let apart = |m: ModId| -> Option<runtime::World> {
        code.rt.worlds_of(code.prog, m).into_iter().find_map(|(bit, w)| {
            let s = seedings.iter().find(|(b, _)| *b == bit).map(|(_, s)| s)?;
            (w.distributed() && *s == Seeding::NotIdentical).then_some(w)
        })
    };
    for (scope, anc, call, _) in runtime::calls(code.prog, &[SPLIT]) {
        let Some(world) = apart(scope.m) else { continue };
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        if has_splat(args) || kw(args, "generator").is_some() || pos(args, 2).is_some() {
            continue;
        }
        if !live(code, scope, &anc, call) || one_rank(code, scope, &anc, call) {
            continue;
        }
        let world = match world {
            runtime::World::Ranks(Some(n)) => format!("each of the {n} ranks"),
            _ => "each rank".to_string(),
        };
        let d = out.at_loc(
            code.loc(scope.m, call.span),
            format!("random_split without generator= draws from the global RNG, which this code does not seed alike on every rank: {world} splits differently, so one rank's training part holds other ranks' held-out samples and the shards no longer partition one set"),
        );
        d.help("pass a generator seeded with the same constant on every rank, e.g. generator=torch.Generator().manual_seed(0)");
        if let Some(torch) = code.torch(scope.m) {
            if let Some(edit) = add_argument(
                code.file(scope.m),
                call,
                code.prog.text(scope.m),
                &format!("generator={torch}.Generator().manual_seed(0)"),
            ) {
                d.unsafe_fix("split with a generator seeded alike on every rank", vec![edit]);
            }
        }
    }
}

/// Whether a loader is handed to a project class that iterates it for the
/// training code (a class with `__next__`, such as an endless
/// `InfiniteIterator(loader)`), and that wrapper is drawn from by a loop
/// that trains: iterated by it, or read with `next(wrapper)` in it.
fn drawn_through_wrapper(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], loader: &Expr) -> bool {
    use super::training_support::{iteration_wrapper, trains};
    use crate::training::ast::StmtKind;
    let prog = code.prog;
    let mut wrappers = Vec::new();
    prog.flows(scope, anc, loader, &iteration_wrapper, &mut |flow| {
        if let Flow::Arg {
            scope,
            call,
            callee: Callee::Class(k),
            anc,
            ..
        } = flow
        {
            if prog.method(k, "__next__").is_some() {
                wrappers.push((scope, anc, call));
            }
        }
    });
    let mut training = false;
    for (s, a, call) in wrappers {
        prog.flows(s, &a, call, &iteration_wrapper, &mut |flow| match flow {
            Flow::Iterated {
                scope, stmt: Some(st), ..
            } if trains(code, scope, st) => training = true,
            Flow::Arg {
                scope,
                callee: Callee::External(p),
                pos: ArgPos::Pos(0),
                anc,
                ..
            } if p == "builtins.next" => {
                let inner = anc.iter().rev().find_map(|x| match x {
                    Anc::Stmt(st) if matches!(st.kind, StmtKind::For { .. }) => Some(*st),
                    _ => None,
                });
                if inner.is_some_and(|st| trains(code, scope, st)) {
                    training = true;
                }
            }
            _ => {}
        });
        if training {
            return true;
        }
    }
    false
}

/// A `worker_init_fn` that seeds numpy, `random` or torch with one constant
/// (not the worker id, not `torch.initial_seed()`): on multi-rank code every
/// loader worker of every rank then draws the same random augmentations.
fn constant_worker_seeds(code: &Code<'_>, out: &mut Sink<'_>) {
    use crate::training::program::Sym;
    use crate::training::values::Const;
    let prog = code.prog;
    for LoaderCall {
        scope, args, workers, ..
    } in worker_loaders(code)
    {
        // Workers must exist: a `num_workers` that is not known to be 0 (an
        // unresolved count, `int(opt.nThreads / num_gpu)`, is taken as the
        // workers the init function was written for).
        let n = runtime::constant(prog, code.cfg, code.rt, scope, workers);
        let count = match n.as_ref().and_then(|r| r.single()) {
            Some(Const::Int(i)) if *i > 0 => Some(*i),
            Some(_) => continue,
            None if n.is_some() => continue,
            None => None,
        };
        let Some(init) = kw(args, "worker_init_fn").or_else(|| pos(args, 10)) else {
            continue;
        };
        let Some(Sym::Func(f)) = prog.expr_sym(scope, init) else {
            continue;
        };
        let Some(func) = prog.func(f) else { continue };
        let params: Vec<&str> = func.params.iter().map(|p| p.name.as_str()).collect();
        let fs = f.scope();
        let mut hits: Vec<(Span, String, i64)> = Vec::new();
        prog.walk_exprs(fs, &mut |_, e| {
            let ExprKind::Call {
                func: callee, args: a, ..
            } = &e.kind
            else {
                return;
            };
            let Some(path) = prog.external(fs, callee) else { return };
            let Some(name) = global_seeder(&path) else { return };
            let Some(v) = pos(a, 0) else { return };
            // Anything derived from the worker id or another parameter varies.
            let text = code.text(fs.m, v.span);
            if params
                .iter()
                .any(|p| text.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == *p))
            {
                return;
            }
            let value = runtime::constant(prog, code.cfg, code.rt, fs, v);
            if let Some(Const::Int(i)) = value.as_ref().and_then(|r| r.single()) {
                hits.push((e.span, name.to_string(), *i));
            }
        });
        let Some((at, name, value)) = hits.into_iter().next() else {
            continue;
        };
        let workers = match count {
            Some(i) => format!("{i} workers"),
            None => "workers".to_string(),
        };
        let d = out.at_loc(
            code.loc(fs.m, at),
            format!("worker_init_fn `{}` calls {name}({value}) in every loader worker: the {workers} of each rank, and the workers of every rank, draw the same random numbers, so their augmentations repeat", func.name),
        );
        d.label(code.file(scope.m), init.span, "every worker of this loader runs it");
        d.help("seed from the worker: `torch.initial_seed() % 2**32` differs per worker (and per rank when the ranks seed torch differently), or add the worker id and the rank to the seed");
    }
}
