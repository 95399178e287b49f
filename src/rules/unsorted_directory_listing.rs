declare_rule! {
    /// ## What it checks
    /// `os.listdir`, `os.scandir`, `glob.glob`/`glob.iglob`, `Path.iterdir`,
    /// `Path.glob`, `Path.rglob` (of a `Path(…)`, also joined with `/`), `os.walk` and mmcv's `scandir` results that become the order ranks split samples
    /// by, in code that runs once per rank, without passing through `sorted(…)` or an
    /// in-place `.sort()`: a list sliced by rank (`files[rank::world]`, or a start
    /// computed from the rank, `files[rank * workers + wid :: world * workers]`) or
    /// indexed by it (`chunks[rank]`, also a list filled from the listing in a loop,
    /// and a class's `self.data` filled so and cut by a method to the rank's share,
    /// `self.data = self.data[rank::world]`), or a
    /// dataset attribute indexed in `__getitem__` (its own, or a base's that it
    /// hands the index to with `super().__getitem__(idx)`) of a dataset that a sharding sampler
    /// or loader consumes (`DistributedSampler`, a sampler wrapper named so,
    /// such as catalyst's `DistributedSamplerWrapper(WeightedRandomSampler(…))`,
    /// `determined.pytorch.DataLoader`, a
    /// loader prepared by Accelerate or Lightning, or handed to a Lightning Trainer's `fit`), possibly through `random_split`,
    /// `Subset`, `ConcatDataset` or dataset arithmetic (`a + b`, and `100 * a` where
    /// the class defines `__rmul__`) (the dataset constructed directly, or through a
    /// module's registry of classes: `_DATASETS[name](path, split)`), or indexed
    /// in a helper method that such a
    /// `__getitem__` calls (of the same class, directly or through a few of its
    /// methods — also methods it inherits from the training code's bases, where
    /// it defines none of that name, as doctr's datasets read `self.data` in a
    /// base's `_read_sample` — or of a wrapped object it holds).
    /// A dataset whose consumers are out of sight — no construction in the
    /// code (a registry filled by a decorator, a class named in a config, a
    /// library's users), or a loader over it returned from a function nothing
    /// calls — counts where its program shards samples somewhere (a
    /// `DistributedSampler` or subclass, Determined's loader, Accelerate,
    /// Fabric, a Lightning `Trainer` on several devices); constructions that
    /// all end in loaders nothing splits keep it silent, and so does a
    /// returned loader given no sampler in a program without Accelerate,
    /// Fabric or Lightning to shard it later (each rank reads all of it). The
    /// listing is followed through comprehensions, lists it is added to
    /// after they were made (`data = […]`, then `data += [… for p in
    /// root.glob("*.wav")]`; `train, valid = [], []`), the entries of a path's
    /// listing listed again (`for entry in root.iterdir(): entry.glob(…)`),
    /// modules a script loads by name (`importlib.import_module(
    /// f"tasks.{task}.expert")`, each a program of its own), progress bars (`tqdm(…)`),
    /// a `self.<attr>` it is kept in and read back in another method of the
    /// class or of a subclass (or outside the class, through an instance:
    /// `config.initialize()` lists into `self.train_data`, then
    /// `Dataset(root=config.train_data)`), through `for` loops that append
    /// its entries to a list (`for n in os.listdir(d): self.items.append(...)`,
    /// also through a per-sample list the loop fills first, `image.append(d + n)`
    /// then `self.images.append(image)`,
    /// or `db += [record]`, or into a mapping keyed by them whose keys are read
    /// back in order, `list(labels.keys())`,
    /// also a list made with `list()` and returned to the dataset, alone or
    /// in a tuple its constructor unpacks), and
    /// into lists it extends (`items.extend(listing)`, `items += listing`) or is
    /// joined into (`val_cities + trn_cities`) or repeated in (`listing * n`), and
    /// through pandas frames read per entry and stacked by `pd.concat` (rows read
    /// by position with `.iloc[index]`), and through the rows of each listed file
    /// (opened in a `with` block, `with h5py.File(name) as f:`) appended to a
    /// list stacked by `np.concatenate`/`np.vstack`/`torch.cat`. A
    /// list of files handed to a Hugging Face `load_dataset(…, data_files=…)`
    /// (also as an entry of a local dict of splits, `files["train"] = […]`)
    /// counts too: the dataset's rows come in the files' order; so do datasets
    /// made one per entry (in a `for` over the listing, also through
    /// `enumerate`) and joined by `concatenate_datasets`, or by torch's `ConcatDataset` in a
    /// program that shards its samples, and evaluation datasets made one per entry
    /// into a dict (`{p.stem: load(p) for p in paths}`) handed to a Hugging Face
    /// `Trainer` (or a subclass) as `eval_dataset`, which evaluates them one after
    /// another: ranks on different nodes evaluate different sets at the same time. A walk (`for root, dirs,
    /// files in os.walk(d)`) counts unless its body sorts `dirs` in place and reads
    /// `files` sorted: the descent follows `dirs`; so does one level of it
    /// (`next(os.walk(d))[1]`, whose fix sorts the entries taken).
    ///
    /// ## Why
    /// Directory order is whatever the file system returns: it differs between file
    /// systems, mounts and nodes, and changes when files are added. Samplers and rank
    /// slices hand out positions in the list, so ranks whose listings differ read
    /// overlapping files and skip others. Sort the listing (shuffling afterwards does
    /// not help: each rank shuffles its own order). Order-insensitive uses (`len`,
    /// `max`, membership, sets), torchvision's `ImageFolder` (which sorts) and
    /// single-process code are left alone.
    ///
    /// ## Example
    /// ```python
    /// self.files = [f for f in os.listdir(root) if f.endswith(".jpg")]   # warning
    /// # fix: sorted(os.listdir(root))
    /// ```
    pub static UNSORTED_DIRECTORY_LISTING = {
        code: "T110",
        name: "unsorted-directory-listing",
        family: Training,
        severity: Warning,
        summary: "A directory listing is used as the sample order without sorting",
    };
}

use super::training_support::{code, managed, Code, DET_LOADER};
use super::{Cx, Sink};
use crate::source::Span;
use crate::training::ast::{Arg, DictItem, Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{
    walk_expr, walk_stmt, Anc, ArgPos, Callee, ClassId, Flow, FuncId, Key, LocalDef, Node, Proj, Scope, Sym,
};
use crate::training::runtime::depends_on_rank;

/// How a listing is used as a sample order.
pub(super) enum Use {
    SlicedByRank,
    /// The `data_files=` of a Hugging Face `load_dataset(…)`: its rows come
    /// in the files' order.
    DataFiles,
    /// Datasets made one per entry and joined by `concatenate_datasets`.
    Concatenated,
    /// Datasets made one per entry and joined by torch's `ConcatDataset`, in
    /// a program that shards its samples.
    Joined,
    /// Kept as `self.<attr>` of a class; indexed in `__getitem__` of that
    /// class, or in a helper method (`via`: its name and the dataset class
    /// whose `__getitem__` calls it).
    /// `appended`: its entries are appended in a loop rather than stored.
    Dataset(ClassId, String, Option<(String, ClassId)>, bool),
    /// Evaluation datasets made one per entry, kept in a dict in that
    /// order and handed to a Hugging Face `Trainer` as `eval_dataset`,
    /// which evaluates them one after another.
    EvalSets,
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() {
        return;
    }
    for scope in code.scopes(&["listdir", "scandir", "glob", "iterdir", "walk"]) {
        if !code.rt.world_at(code.prog, scope.m).distributed() {
            continue;
        }
        let mut hits: Vec<(&Expr, String, Use, bool, Option<Span>)> = Vec::new();
        code.prog.walk_exprs(scope, &mut |anc, e| {
            let Some((name, fixable)) = listing(&code, scope, e) else {
                return;
            };
            if let Some(Anc::Expr(p)) = anc.last() {
                if let ExprKind::Call { func, .. } = &p.kind {
                    if code.prog.external(scope, func).as_deref() == Some("builtins.sorted") {
                        return;
                    }
                }
            }
            if let Some(Anc::Stmt(st)) = anc.last() {
                if walk_sorted(st, e) {
                    return;
                }
            }
            // `next(os.walk(root))[1]`: one level's folders (or files),
            // which `sorted(…)` orders.
            let taken = match anc {
                [.., Anc::Expr(sub), Anc::Expr(next)] => match (&sub.kind, &next.kind) {
                    (ExprKind::Subscript { value, .. }, ExprKind::Call { func, .. })
                        if std::ptr::eq(&**value, *next)
                            && code.prog.external(scope, func).as_deref() == Some("builtins.next") =>
                    {
                        Some(sub.span)
                    }
                    _ => None,
                },
                _ => None,
            };
            if let Some(u) = order_use(&code, scope, anc, e, 0) {
                hits.push((e, name, u, fixable, taken));
            }
        });
        for (call, name, u, fixable, taken) in hits {
            let why = match &u {
                Use::SlicedByRank => "each rank takes its entries by their position in the list (sliced or indexed by the rank)".to_string(),
                Use::DataFiles => "`load_dataset(data_files=…)` reads the files in that order: the dataset's rows, which a distributed trainer hands ranks by position, come in a different order on each rank".to_string(),
                Use::Concatenated => "the datasets made from its entries are joined in that order by `concatenate_datasets`: the rows, which a distributed trainer hands ranks by position, come in a different order on each rank".to_string(),
                Use::Joined => "the datasets made from its entries are joined in that order by `ConcatDataset`: its samples, which a sharding sampler hands ranks by position, come in a different order on each rank".to_string(),
                Use::EvalSets => "the evaluation datasets made from its entries are kept in that order in the dict handed to the Trainer as `eval_dataset`, which evaluates them one after another: ranks on different nodes evaluate different datasets at the same time, and the gathers of their evaluation loops pair up wrongly or hang".to_string(),
                Use::Dataset(k, attr, via, appended) => {
                    let name = |k: ClassId| code.prog.class(k).map_or(String::new(), |c| c.name.clone());
                    let class = name(*k);
                    let indexed = match via {
                        None => "indexed in __getitem__".to_string(),
                        Some((helper, d)) => format!("indexed in `{helper}`, which `{}.__getitem__` reaches", name(*d)),
                    };
                    let keeps = if *appended {
                        format!("appends its entries, in that order, to `self.{attr}`")
                    } else {
                        format!("keeps it as `self.{attr}`")
                    };
                    let consumer = via.as_ref().map_or(*k, |(_, d)| *d);
                    format!("`{class}` {keeps}, {indexed}, and {}", sharding(&code, consumer))
                }
            };
            let d = out.at_loc(
                code.loc(scope.m, call.span),
                format!("{name} returns directory order, which can differ between ranks, and {why}"),
            );
            d.help(if taken.is_some() {
                "sort the entries taken from the walk's first level; shuffling afterwards does not help, as each rank shuffles its own order"
            } else if name == "os.walk()" {
                "sort what the walk fills (`sorted(filelist)`), or sort `dirs` in place and read `sorted(files)` in the loop; shuffling afterwards does not help, as each rank shuffles its own order"
            } else {
                "sort the listing; shuffling afterwards does not help, as each rank shuffles its own order"
            });
            if let Some(sub) = taken {
                d.unsafe_fix("sort the entries", vec![code.sorted_edit(scope.m, sub, sub)]);
            } else if fixable {
                d.unsafe_fix(
                    "sort the listing",
                    vec![code.sorted_edit(scope.m, call.span, call.span)],
                );
            }
        }
    }
}

/// Whether `e` lists a directory: its name for messages and whether
/// `sorted(...)` around it is a fix (entries of `os.scandir`/`os.walk` do
/// not sort by name).
fn listing(code: &Code<'_>, scope: Scope, e: &Expr) -> Option<(String, bool)> {
    let ExprKind::Call { func, .. } = &e.kind else {
        return None;
    };
    if let Some(p) = code.prog.external(scope, func) {
        return match p.as_str() {
            "os.listdir" => Some(("os.listdir()".into(), true)),
            "glob.glob" | "glob.iglob" => Some((format!("{}()", p), true)),
            "os.scandir" => Some(("os.scandir()".into(), false)),
            // Each step's directories and files come in directory order,
            // and the walk descends in the order of its `dirs`: sorting
            // the walk's tuples fixes neither.
            "os.walk" => Some(("os.walk()".into(), false)),
            // mmcv's (and mmengine's) recursive `scandir` yields names in
            // `os.scandir` order.
            "mmcv.scandir" | "mmcv.utils.scandir" | "mmengine.scandir" | "mmengine.utils.scandir" => {
                Some((format!("{p}()"), true))
            }
            _ => None,
        };
    }
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return None;
    };
    if !matches!(attr.as_str(), "iterdir" | "glob" | "rglob") {
        return None;
    }
    path_valued(code, scope, value, 0).then(|| (format!("Path.{attr}()"), true))
}

/// Whether some origin of `e` is a `pathlib` path: `Path(…)`, a path
/// joined with `/` (`Path(cfg.ROOT) / split`), or one a path method makes
/// (`root.resolve()`, `root.joinpath(…)`, `root.parent`), or an entry of a
/// path's listing.
fn path_valued(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 3 {
        return false;
    }
    let s = code.prog.sources(scope, e);
    s.terms.iter().any(|t| match &t.expr.kind {
        ExprKind::Call { func, .. } => {
            matches!(
                code.prog.external(t.scope, func).as_deref(),
                Some("pathlib.Path" | "pathlib.PurePath" | "pathlib.PosixPath")
            ) || matches!(&func.kind, ExprKind::Attribute { value, attr }
                if matches!(attr.as_str(), "resolve" | "absolute" | "expanduser" | "joinpath" | "with_name")
                    && path_valued(code, t.scope, value, depth + 1))
                // An entry of a path's listing (`for entry in root.iterdir():
                // entry.glob("*.wav")`).
                || matches!(&func.kind, ExprKind::Attribute { value, attr }
                    if matches!(attr.as_str(), "iterdir" | "glob" | "rglob")
                        && matches!(t.proj.as_slice(), [Proj::Iter])
                        && path_valued(code, t.scope, value, depth + 1))
        }
        ExprKind::BinOp { left, op, .. } if op == "/" => path_valued(code, t.scope, left, depth + 1),
        ExprKind::Attribute { value, attr } if attr == "parent" => path_valued(code, t.scope, value, depth + 1),
        _ => false,
    })
}

/// How the listing at `e` becomes a sample order, if it does.
pub(super) fn order_use<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], e: &'p Expr, depth: u32) -> Option<Use> {
    if depth > 3 {
        return None;
    }
    let prog = code.prog;
    // `next(os.walk(root))[1]`: the first level's folders, in listing order.
    let walk =
        matches!(&e.kind, ExprKind::Call { func, .. } if prog.external(scope, func).as_deref() == Some("os.walk"));
    let through = |callee: &Callee, pos: &ArgPos<'_>| match callee {
        Callee::External(p) => match p.as_str() {
            "builtins.next" => walk && matches!(pos, ArgPos::Pos(0)),
            "builtins.list" | "builtins.tuple" | "builtins.enumerate" | "builtins.iter" => {
                matches!(pos, ArgPos::Pos(0))
            }
            // A progress bar yields what it wraps, in order.
            "tqdm.tqdm" | "tqdm.auto.tqdm" | "tqdm.notebook.tqdm" => {
                matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("iterable"))
            }
            "builtins.filter" | "builtins.map" => matches!(pos, ArgPos::Pos(1)),
            // Lists joined in order: `sum([glob(p) for p in patterns], [])`,
            // `itertools.chain.from_iterable(…)`.
            "builtins.sum" | "itertools.chain.from_iterable" => matches!(pos, ArgPos::Pos(0)),
            // Frames read one per listed file and stacked in that order.
            "pandas.concat" => matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("objs")),
            // The rows of each listed shard, stacked in that order
            // (`np.concatenate(all_data, axis=0)`).
            "numpy.concatenate" | "numpy.vstack" | "numpy.row_stack" | "torch.cat" | "torch.concat"
            | "torch.concatenate" | "torch.vstack" => matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("tensors")),
            _ => false,
        },
        _ => false,
    };
    let mut sorted = false;
    let mut by_rank = false;
    let mut data_files = false;
    let mut evaluated = false;
    let mut concatenated = false;
    let mut joined = false;
    let mut comps: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
    let mut stored: Vec<(Scope, &'p Expr, bool)> = Vec::new();
    let mut loops: Vec<(Scope, &'p Stmt)> = Vec::new();
    let mut extended: Vec<(Scope, &'p Expr)> = Vec::new();
    let mut picked: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
    prog.flows(scope, anc, e, &through, &mut |flow| match flow {
        Flow::Method { name: "sort", .. } => sorted = true,
        Flow::Arg {
            callee: Callee::External(p),
            ..
        } if p == "builtins.sorted" => sorted = true,
        Flow::Arg {
            callee: Callee::External(p),
            pos: ArgPos::Kw("data_files"),
            ..
        } if p.ends_with("load_dataset") => data_files = true,
        // `Trainer(…, eval_dataset={name: ds for …})`: evaluated in the
        // dict's order.
        Flow::Arg {
            callee,
            pos: ArgPos::Kw("eval_dataset"),
            ..
        } if hf_trainer(prog, &callee) => evaluated = true,
        Flow::Arg {
            callee: Callee::External(p),
            pos: ArgPos::Pos(0) | ArgPos::Kw("dsets"),
            ..
        } if p.ends_with("concatenate_datasets") => concatenated = true,
        // `ConcatDataset(datasets)`: sample i is found by walking the
        // datasets in the list's order.
        Flow::Arg {
            callee: Callee::External(p),
            pos: ArgPos::Pos(0) | ArgPos::Kw("datasets"),
            ..
        } if p == "torch.utils.data.ConcatDataset" || p == "torch.utils.data.dataset.ConcatDataset" => joined = true,
        // `files[rank::world]`, or `params[rank]`: each rank takes its
        // entries by position.
        Flow::Index { scope, index, .. } if depends_on_rank(prog, scope, index) => {
            by_rank = true;
        }
        // `next(os.walk(root))[1]` (the folders) or `[2]` (the files).
        Flow::Index {
            scope,
            expr,
            index,
            anc,
        } if walk && matches!(index.kind, ExprKind::Int(1 | 2)) => {
            picked.push((scope, anc, expr));
        }
        Flow::Iterated { scope, stmt: None, anc } => {
            // The listing feeds a comprehension: its result keeps the order.
            if let Some((Anc::Expr(comp), up)) = anc.split_last() {
                if let ExprKind::Comp { kind, .. } = &comp.kind {
                    if !matches!(kind, crate::training::ast::CompKind::Set) {
                        comps.push((scope, up.to_vec(), comp));
                    }
                }
            }
        }
        Flow::Iterated {
            scope, stmt: Some(st), ..
        } => loops.push((scope, st)),
        Flow::Stored { scope, target } => stored.push((scope, target, false)),
        // `X.extend(listing)`: X takes its entries in listing order.
        Flow::Arg {
            scope,
            call,
            pos: ArgPos::Pos(0),
            ..
        } => {
            if let ExprKind::Call { func, args, .. } = &call.kind {
                if let ExprKind::Attribute { value, attr } = &func.kind {
                    if attr == "extend" && args.len() == 1 {
                        extended.push((scope, &**value));
                    }
                }
            }
        }
        // `X += listing`; a listing that is each element of a list or
        // generator comprehension (`[glob(p) for p in patterns]`): the
        // comprehension holds the listings in their order.
        Flow::Escapes { scope, at } => {
            let a = prog.ancestors_of(scope, at).unwrap_or_default();
            // The generators of a comprehension sit between its element
            // and the comprehension itself.
            let end = a.iter().rposition(|x| !matches!(x, Anc::Comp(_))).map_or(0, |i| i + 1);
            let last = if end == a.len() {
                a.split_last()
            } else {
                a[..end].split_last()
            };
            match last {
                Some((Anc::Stmt(st), _)) if end == a.len() => {
                    if let StmtKind::AugAssign { target, op, value } = &st.kind {
                        if op == "+=" && std::ptr::eq(value, at) {
                            extended.push((scope, target));
                        }
                    }
                }
                Some((Anc::Expr(comp), up)) => {
                    if let ExprKind::Comp {
                        kind, elt, value: None, ..
                    } = &comp.kind
                    {
                        if std::ptr::eq(&**elt, at) && !matches!(kind, crate::training::ast::CompKind::Set) {
                            comps.push((scope, up.to_vec(), comp));
                        }
                    }
                    // `val_cities + trn_cities`: the joined list keeps the
                    // listing's entries in its order (followed as a
                    // comprehension is), and so does a list repeated
                    // (`[path.join(root, f) for f in listing] * multiplier`).
                    if end == a.len() {
                        if let ExprKind::BinOp { op, .. } = &comp.kind {
                            if op == "+" || op == "*" {
                                comps.push((scope, up.to_vec(), comp));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        _ => {}
    });
    // A comprehension over the listing that is sorted
    // (`paths = sorted(p for p in paths if …)`): the code sorts what it
    // keeps, so the name's later uses see a sorted list.
    sorted |= comps.iter().any(|(s, a, comp)| {
        let mut hit = false;
        prog.flows(*s, a, comp, &through, &mut |flow| match flow {
            Flow::Method { name: "sort", .. } => hit = true,
            Flow::Arg {
                callee: Callee::External(p),
                ..
            } if p == "builtins.sorted" => hit = true,
            _ => {}
        });
        hit
    });
    if sorted {
        return None;
    }
    if by_rank {
        return Some(Use::SlicedByRank);
    }
    for (s, a, x) in picked {
        if let Some(u) = order_use(code, s, &a, x, depth + 1) {
            return Some(u);
        }
    }
    if joined && shards_samples(code, scope.m) {
        return Some(Use::Joined);
    }
    if concatenated {
        return Some(Use::Concatenated);
    }
    if data_files {
        return Some(Use::DataFiles);
    }
    if evaluated {
        return Some(Use::EvalSets);
    }
    // `for name in listing: X.append(...name...)`, `X.extend(listing)`,
    // `X += listing`: X is filled in listing order. A `self.X` is a stored
    // listing; a local list is followed from where it is made (`X = []`).
    let mut locals: Vec<(Scope, &'p Expr)> = Vec::new();
    let mut filled: Vec<(Scope, &'p Expr)> = Vec::new();
    let mut keyed: Vec<(Scope, &'p Expr)> = Vec::new();
    for (s, st) in &loops {
        let (lists, dicts, joined) = accumulators(st);
        concatenated |= joined;
        filled.extend(lists.into_iter().map(|x| (*s, x)));
        keyed.extend(dicts.into_iter().map(|x| (*s, x)));
    }
    if concatenated {
        return Some(Use::Concatenated);
    }
    // `for vid in listing: labels[vid][t].append(…)`: the mapping's keys come
    // in listing order, and so does what is read from them in order
    // (`list(labels.keys())`, `for vid in labels`).
    for (s, x) in keyed {
        for (ks, ka, ke) in key_order_reads(code, s, x) {
            if let Some(u) = order_use(code, ks, &ka, ke, depth + 1) {
                return Some(u);
            }
        }
    }
    let filled = filled.into_iter().chain(extended);
    for (s, x) in filled {
        match &x.kind {
            ExprKind::Attribute { .. } => stored.push((s, x, true)),
            ExprKind::Name(n) => {
                let Some(f) = s.func() else { continue };
                for d in prog.local_defs(f, n) {
                    if let LocalDef::Assign { value, proj } = d {
                        // Made empty, or made a list already (`data = [… for
                        // x in data_list]`, then `data += [… for p in
                        // listing]`): the listing's entries come after, in
                        // its order.
                        if proj.is_empty() && (empty_list(prog, s, value) || made_list(value)) {
                            locals.push((s, value));
                        }
                        // `train, valid = [], []`: the part it takes.
                        if let ([Proj::Key(Key::Int(i))], ExprKind::Tuple(parts) | ExprKind::List(parts)) =
                            (proj.as_slice(), &value.kind)
                        {
                            let part = usize::try_from(*i).ok().and_then(|i| parts.get(i));
                            if let Some(part) = part.filter(|p| empty_list(prog, s, p) || made_list(p)) {
                                locals.push((s, part));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // `files["train"] = [f for f in listing if …]` into a local dict made
    // empty (`files = {}`): the dict, followed where it goes
    // (`load_dataset(…, data_files=files)`).
    for (s, target, _) in &stored {
        let ExprKind::Subscript { value, .. } = &target.kind else {
            continue;
        };
        let (ExprKind::Name(n), Some(f)) = (&value.kind, s.func()) else {
            continue;
        };
        for d in prog.local_defs(f, n) {
            if let LocalDef::Assign { value, proj } = d {
                let empty_dict = match &value.kind {
                    ExprKind::Dict(items) => items.is_empty(),
                    ExprKind::Call { func, args, .. } => {
                        args.is_empty() && prog.external(*s, func).as_deref() == Some("builtins.dict")
                    }
                    _ => false,
                };
                if proj.is_empty() && empty_dict {
                    if let Some(a) = prog.ancestors_of(*s, value) {
                        if let Some(u) = order_use(code, *s, &a, value, depth + 1) {
                            return Some(u);
                        }
                    }
                }
            }
        }
    }
    // `self.files = listing` in a dataset indexed in __getitem__.
    for (s, target, appended) in &stored {
        let ExprKind::Attribute { value, attr } = &target.kind else {
            continue;
        };
        let Some(k) = prog.self_class(*s, value) else { continue };
        if sorted_in_place(code, k, attr) {
            return None;
        }
        if let Some(via) = indexing_dataset(code, k, attr) {
            return Some(Use::Dataset(k, attr.clone(), via, *appended));
        }
        // `self.data = self.data[rank::world]` in a method of the class.
        if attr_sliced_by_rank(code, k, attr) {
            return Some(Use::SlicedByRank);
        }
        // Read back in another method, of the class or of a subclass
        // (YOLOP's `self.mask_list = root.iterdir()`, turned into the
        // indexed `self.db` by a subclass's `_get_db`).
        for (rs, ra, re) in attr_reads(code, k, attr, target) {
            if let Some(u) = order_use(code, rs, &ra, re, depth + 1) {
                return Some(u);
            }
        }
    }
    for (s, list) in locals {
        if let Some(a) = prog.ancestors_of(s, list) {
            if let Some(u) = order_use(code, s, &a, list, depth + 1) {
                return Some(u);
            }
        }
    }
    for (s, a, comp) in comps {
        if let Some(u) = order_use(code, s, &a, comp, depth + 1) {
            return Some(u);
        }
    }
    None
}

/// Whether `value` is a list display or a list comprehension.
fn made_list(value: &Expr) -> bool {
    matches!(
        &value.kind,
        ExprKind::List(_)
            | ExprKind::Comp {
                kind: crate::training::ast::CompKind::List,
                ..
            }
    )
}

/// Whether `value` makes an empty list: `[]` or `list()`.
fn empty_list(prog: &crate::training::program::Program, scope: Scope, value: &Expr) -> bool {
    match &value.kind {
        ExprKind::List(items) => items.is_empty(),
        ExprKind::Call { func, args, .. } => {
            args.is_empty() && prog.external(scope, func).as_deref() == Some("builtins.list")
        }
        _ => false,
    }
}

/// Whether `for root, dirs, files in os.walk(…)` (the loop `st` over
/// `walk`) visits in a fixed order: its body sorts `dirs` in place
/// (`dirs.sort()`, `dirs[:] = sorted(dirs)`), which orders the descent, and
/// reads `files` only through `sorted(files)` or after `files.sort()`.
fn walk_sorted(st: &Stmt, walk: &Expr) -> bool {
    let StmtKind::For { target, iter, body, .. } = &st.kind else {
        return false;
    };
    if !std::ptr::eq(iter, walk) {
        return false;
    }
    let ExprKind::Tuple(items) = &target.kind else {
        return false;
    };
    let name = |i: usize| match items.get(i).map(|e| &e.kind) {
        Some(ExprKind::Name(n)) => Some(n.as_str()),
        _ => None,
    };
    let (Some(dirs), Some(files)) = (name(1), name(2)) else {
        return false;
    };
    let is = |e: &Expr, n: &str| matches!(&e.kind, ExprKind::Name(x) if x == n);
    let mut dirs_sorted = false;
    let mut files_sorted_in_place = false;
    let mut files_unsorted_read = false;
    let mut stack = Vec::new();
    for b in body {
        walk_stmt(b, &mut stack, &mut |anc, n| match n {
            Node::Expr(e) => {
                if let ExprKind::Call { func, .. } = &e.kind {
                    if let ExprKind::Attribute { value, attr } = &func.kind {
                        if attr == "sort" && is(value, dirs) {
                            dirs_sorted = true;
                        }
                        if attr == "sort" && is(value, files) {
                            files_sorted_in_place = true;
                        }
                    }
                }
                // `files` read in its own order: iterated, or joined onto
                // a list (`len(files)`, `if not files` read no order).
                if is(e, files) {
                    let read_in_order = match anc.last() {
                        Some(Anc::Stmt(p)) => match &p.kind {
                            StmtKind::For { iter, .. } => std::ptr::eq(iter, e),
                            StmtKind::AugAssign { value, .. } => std::ptr::eq(value, e),
                            _ => false,
                        },
                        Some(Anc::Comp(g)) => std::ptr::eq(&g.iter, e),
                        Some(Anc::Expr(p)) => matches!(&p.kind, ExprKind::Call { func, .. }
                            if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "extend")
                                || matches!(&func.kind, ExprKind::Name(f) if f == "list" || f == "enumerate")),
                        _ => false,
                    };
                    files_unsorted_read |= read_in_order;
                }
            }
            Node::Stmt(s) => {
                // `dirs[:] = sorted(dirs)`
                if let StmtKind::Assign { targets, value } = &s.kind {
                    let slice_of_dirs = targets
                        .iter()
                        .any(|t| matches!(&t.kind, ExprKind::Subscript { value, .. } if is(value, dirs)));
                    let sorted_value = matches!(&value.kind, ExprKind::Call { func, .. } if matches!(&func.kind, ExprKind::Name(f) if f == "sorted"));
                    dirs_sorted |= slice_of_dirs && sorted_value;
                }
            }
        });
    }
    dirs_sorted && (files_sorted_in_place || !files_unsorted_read)
}

/// Whether a class sorts `self.<attr>` in place somewhere.
fn sorted_in_place(code: &Code<'_>, k: ClassId, attr: &str) -> bool {
    let Some(class) = code.prog.class(k) else { return false };
    let text = code.text(k.m, class.span);
    text.contains(&format!("self.{attr}.sort(")) || text.contains(&format!("sorted(self.{attr}"))
}

/// Whether a method of class `k` takes this rank's entries of
/// `self.<attr>` by position (`self.data[rank::world]`, `self.shards[rank]`).
fn attr_sliced_by_rank(code: &Code<'_>, k: ClassId, attr: &str) -> bool {
    let prog = code.prog;
    let Some(class) = prog.class(k) else { return false };
    class.body.iter().any(|st| {
        let StmtKind::FunctionDef(i) = st.kind else {
            return false;
        };
        let scope = FuncId { m: k.m, c: k.c, f: i }.scope();
        let mut hit = false;
        prog.walk_exprs(scope, &mut |_, e| {
            if hit {
                return;
            }
            let ExprKind::Subscript { value, index } = &e.kind else {
                return;
            };
            let on_attr = matches!(&value.kind, ExprKind::Attribute { value: me, attr: a }
                if a == attr && prog.self_class(scope, me) == Some(k));
            hit = on_attr && depends_on_rank(prog, scope, index);
        });
        hit
    })
}

/// The lists a `for` statement fills in its iteration order: `X.append(e)`,
/// `X.extend(e)` or `X += e` in its body, where `e` uses the loop variable (or a
/// name the body computes from it); the mappings it fills keyed by them
/// (`X[name] = …`, `X[name][t].append(…)`: `X`'s keys come in its order);
/// and whether the body joins datasets made from the entries with
/// `concatenate_datasets`.
fn accumulators(st: &Stmt) -> (Vec<&Expr>, Vec<&Expr>, bool) {
    let StmtKind::For { target, body, .. } = &st.kind else {
        return (Vec::new(), Vec::new(), false);
    };
    let mut vars: Vec<&str> = Vec::new();
    let names_in = |e: &Expr, out: &mut Vec<String>| {
        let mut stack = Vec::new();
        walk_expr(e, &mut stack, &mut |_, n| {
            if let Node::Expr(Expr {
                kind: ExprKind::Name(x),
                ..
            }) = n
            {
                out.push(x.clone());
            }
        });
    };
    let mut loop_names = Vec::new();
    names_in(target, &mut loop_names);
    vars.extend(loop_names.iter().map(String::as_str));
    // Names assigned in the body (at any depth: a `try` around a read)
    // from the loop variable or from names made from it (`path = d / name`,
    // `ds = load(path)`), a few steps deep.
    let mut derived: Vec<String> = Vec::new();
    for _ in 0..3 {
        let mut more: Vec<String> = Vec::new();
        let mut stack = Vec::new();
        for b in body {
            walk_stmt(b, &mut stack, &mut |_, n| {
                let Node::Stmt(st) = n else { return };
                // `x = f(entry)`, and `with h5py.File(entry) as f:` (the
                // file opened from the entry).
                let bound: Vec<(&Expr, &Expr)> = match &st.kind {
                    StmtKind::Assign { targets, value } => targets.iter().map(|t| (t, value)).collect(),
                    // `image.append(route_dir + "/rgb")`: a local list the
                    // body fills from the entry is made from it too (then
                    // `self.images.append(image)`).
                    StmtKind::Expr(call) => match &call.kind {
                        ExprKind::Call { func, args, .. } if args.len() == 1 => match (&func.kind, args.first()) {
                            (ExprKind::Attribute { value: list, attr }, Some(Arg::Pos(arg)))
                                if matches!(attr.as_str(), "append" | "extend")
                                    && matches!(list.kind, ExprKind::Name(_)) =>
                            {
                                vec![(&**list, arg)]
                            }
                            _ => return,
                        },
                        _ => return,
                    },
                    StmtKind::With { items, .. } => items
                        .iter()
                        .filter_map(|i| i.var.as_ref().map(|v| (v, &i.ctx)))
                        .collect(),
                    _ => return,
                };
                for (t, value) in bound {
                    let mut used = Vec::new();
                    names_in(value, &mut used);
                    let from_loop = used.iter().any(|u| vars.contains(&u.as_str()) || derived.contains(u));
                    if !from_loop {
                        continue;
                    }
                    if let ExprKind::Name(n) = &t.kind {
                        if !derived.contains(n) && !more.contains(n) {
                            more.push(n.clone());
                        }
                    }
                }
            });
        }
        if more.is_empty() {
            break;
        }
        derived.extend(more);
    }
    vars.extend(derived.iter().map(String::as_str));
    let mut out = Vec::new();
    let mut keyed: Vec<&Expr> = Vec::new();
    let mut joined = false;
    let mut stack = Vec::new();
    // `X[key]…`: the mapping `X` (a name or an attribute) when the first
    // key uses the entry.
    fn keyed_by_entry<'e>(e: &'e Expr, uses_entry: &dyn Fn(&Expr) -> bool) -> Option<&'e Expr> {
        let mut at = e;
        let mut first = None;
        while let ExprKind::Subscript { value, index } = &at.kind {
            first = Some(&**index);
            at = value;
        }
        (matches!(at.kind, ExprKind::Name(_) | ExprKind::Attribute { .. }) && uses_entry(first?)).then_some(at)
    }
    let uses_entry = |x: &Expr| {
        let mut used = Vec::new();
        names_in(x, &mut used);
        used.iter().any(|u| vars.contains(&u.as_str()))
    };
    for b in body {
        walk_stmt(b, &mut stack, &mut |_, n| {
            if let Node::Stmt(Stmt {
                kind: StmtKind::Assign { targets, .. },
                ..
            }) = n
            {
                keyed.extend(targets.iter().filter_map(|t| keyed_by_entry(t, &uses_entry)));
            }
            // `gt_db += rec`, with `rec` made from the entry.
            if let Node::Stmt(Stmt {
                kind: StmtKind::AugAssign { target, op, value },
                ..
            }) = n
            {
                if op == "+="
                    && matches!(target.kind, ExprKind::Name(_) | ExprKind::Attribute { .. })
                    && uses_entry(value)
                {
                    out.push(target);
                }
            }
            let Node::Expr(e) = n else { return };
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            // `all = concatenate_datasets([all, ds])` with `ds` made from the
            // entry: the joined rows follow the listing.
            let callee = match &func.kind {
                ExprKind::Attribute { attr, .. } | ExprKind::Name(attr) => attr.as_str(),
                _ => "",
            };
            if callee == "concatenate_datasets" {
                let mut used = Vec::new();
                for a in args {
                    if let Arg::Pos(x) | Arg::Kw { value: x, .. } = a {
                        names_in(x, &mut used);
                    }
                }
                joined |= used.iter().any(|u| vars.contains(&u.as_str()));
            }
            let ExprKind::Attribute { value, attr } = &func.kind else {
                return;
            };
            // `X[name][t].append(…)`, `X[name].add(…)`: filled keyed by the entry.
            if matches!(value.kind, ExprKind::Subscript { .. }) {
                keyed.extend(keyed_by_entry(value, &uses_entry));
            }
            if !matches!(attr.as_str(), "append" | "extend") || args.len() != 1 {
                return;
            }
            let Some(Arg::Pos(arg)) = args.first() else { return };
            let mut used = Vec::new();
            names_in(arg, &mut used);
            if used.iter().any(|u| vars.contains(&u.as_str())) {
                out.push(&**value);
            }
        });
    }
    (out, keyed, joined)
}

/// Most reads of a kept listing (or of a mapping keyed by its entries)
/// followed: each is followed a few steps on, so the work stays bounded in
/// classes that read a field hundreds of times.
const MAX_READS: usize = 16;

/// The reads of `self.<attr>` in the methods of class `k` and of its
/// subclasses in the training code (at most 8), other than the store
/// `target` itself and other stores (at most [`MAX_READS`]).
fn attr_reads<'p>(code: &Code<'p>, k: ClassId, attr: &str, target: &'p Expr) -> Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> {
    let prog = code.prog;
    let mut classes = vec![k];
    classes.extend(
        prog.classes_mentioning(&[attr])
            .into_iter()
            .filter(|c| *c != k && prog.ancestors(*c).contains(&k))
            .take(8),
    );
    let mut out = Vec::new();
    for c in classes.iter().copied() {
        for f in prog.own_methods(c) {
            let s = f.scope();
            prog.walk_exprs(s, &mut |anc, e| {
                let ExprKind::Attribute { value, attr: a } = &e.kind else {
                    return;
                };
                if a != attr || std::ptr::eq(e, target) || prog.self_class(s, value) != Some(c) {
                    return;
                }
                // A store (`self.x = …`, `self.x[i] = …`) is no read.
                let within = |t: &Expr| t.span.start <= e.span.start && e.span.end <= t.span.end;
                let stored = anc.iter().rev().find_map(|a| match a {
                    Anc::Stmt(st) => Some(st),
                    _ => None,
                });
                let stored = stored.is_some_and(|st| match &st.kind {
                    StmtKind::Assign { targets, .. } => targets.iter().any(within),
                    StmtKind::AugAssign { target, .. } => within(target),
                    _ => false,
                });
                if !stored && out.len() < MAX_READS {
                    out.push((s, anc.to_vec(), e));
                }
            });
        }
    }
    // Read through an instance outside the class (`config =
    // GlobalConfig()`, `config.initialize()` lists the folders into
    // `self.train_data`, then `CARLA_Data(root=config.train_data)`).
    let of_k = |s: Scope, x: &Expr| {
        if !matches!(x.kind, ExprKind::Name(_)) {
            return false;
        }
        let sources = prog.sources(s, x);
        !sources.unknown
            && !sources.terms.is_empty()
            && sources.terms.iter().all(|t| match &t.expr.kind {
                ExprKind::Call { func, .. } if t.proj.is_empty() => match prog.callee(t.scope, func) {
                    Callee::Class(c) => c == k || prog.ancestors(c).contains(&k),
                    _ => false,
                },
                _ => false,
            })
    };
    for m in prog.code_modules() {
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &[attr]).collect();
        for ch in chunks {
            for s in prog.scopes(m, ch) {
                if s.func()
                    .is_some_and(|f| prog.class_of(f).is_some_and(|c| classes.contains(&c)))
                {
                    continue;
                }
                prog.walk_exprs(s, &mut |anc, e| {
                    let ExprKind::Attribute { value, attr: a } = &e.kind else {
                        return;
                    };
                    if a != attr || out.len() >= MAX_READS || !of_k(s, value) {
                        return;
                    }
                    let in_target = anc.iter().rev().find_map(|x| match x {
                        Anc::Stmt(st) => Some(st),
                        _ => None,
                    });
                    let within = |t: &Expr| t.span.start <= e.span.start && e.span.end <= t.span.end;
                    let stored = in_target.is_some_and(|st| match &st.kind {
                        StmtKind::Assign { targets, .. } => targets.iter().any(within),
                        StmtKind::AugAssign { target, .. } => within(target),
                        _ => false,
                    });
                    if !stored {
                        out.push((s, anc.to_vec(), e));
                    }
                });
            }
        }
    }
    out
}

/// Whether an expression in a scope is the mapping [`key_order_reads`] follows.
type SameMapping<'p> = Box<dyn Fn(Scope, &Expr) -> bool + 'p>;

/// Where the code reads the keys of mapping `x` (filled keyed by a
/// listing's entries) in their order: `x.keys()`, `x.items()`,
/// `x.values()`, a `for` over `x`, or `list(x)` — in the function that
/// fills a local mapping, or in any method of the class for `self.<attr>`.
fn key_order_reads<'p>(code: &Code<'p>, scope: Scope, x: &'p Expr) -> Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> {
    let prog = code.prog;
    let (scopes, same): (Vec<Scope>, SameMapping<'p>) = match &x.kind {
        ExprKind::Name(n) => {
            let n = n.clone();
            let Some(f) = scope.func() else { return Vec::new() };
            if !prog.is_local(f, &n) {
                return Vec::new();
            }
            (
                vec![scope],
                Box::new(move |_, e: &Expr| matches!(&e.kind, ExprKind::Name(m) if *m == n)),
            )
        }
        ExprKind::Attribute { value, attr } => {
            let Some(k) = prog.self_class(scope, value) else {
                return Vec::new();
            };
            let attr = attr.clone();
            (
                prog.own_methods(k).into_iter().map(|f| f.scope()).collect(),
                Box::new(move |s, e: &Expr| {
                    matches!(&e.kind, ExprKind::Attribute { value, attr: a }
                        if *a == attr && prog.self_class(s, value) == Some(k))
                }),
            )
        }
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for s in scopes {
        prog.walk_exprs(s, &mut |anc, e| {
            if out.len() >= MAX_READS || !same(s, e) {
                return;
            }
            match anc.split_last() {
                // `x.keys()`: the call's result is the ordered read.
                Some((Anc::Expr(get), up))
                    if matches!(&get.kind,
                    ExprKind::Attribute { attr, .. } if matches!(attr.as_str(), "keys" | "items" | "values")) =>
                {
                    if let Some((Anc::Expr(call), up)) = up.split_last() {
                        if matches!(&call.kind, ExprKind::Call { func, args, .. }
                            if std::ptr::eq(&**func, *get) && args.is_empty())
                        {
                            out.push((s, up.to_vec(), *call));
                        }
                    }
                }
                // `for k in x:`
                Some((Anc::Stmt(st), _))
                    if matches!(&st.kind,
                    StmtKind::For { iter, .. } if std::ptr::eq(iter, e)) =>
                {
                    out.push((s, anc.to_vec(), e));
                }
                // `list(x)`
                Some((Anc::Expr(call), _))
                    if matches!(&call.kind,
                    ExprKind::Call { func, args, .. } if args.len() == 1
                        && prog.external(s, func).as_deref() == Some("builtins.list")) =>
                {
                    out.push((s, anc.to_vec(), e));
                }
                _ => {}
            }
        });
    }
    out
}

/// Whether method `f` calls `super().__getitem__(…)`.
fn calls_super_getitem(prog: &crate::training::program::Program, f: FuncId) -> bool {
    let mut found = false;
    prog.walk_exprs(f.scope(), &mut |_, e| {
        if let ExprKind::Call { func, .. } = &e.kind {
            if let ExprKind::Attribute { value, attr } = &func.kind {
                found |= attr == "__getitem__"
                    && matches!(&value.kind, ExprKind::Call { func: sup, .. } if matches!(&sup.kind, ExprKind::Name(n) if n == "super"));
            }
        }
    });
    found
}

/// The dataset class through whose `__getitem__` `self.<attr>` of class
/// `k` is indexed with a computed index, when a sharding sampler or loader
/// consumes that dataset: `k` itself, indexing in `__getitem__` (`None`),
/// or indexing in a helper method that `__getitem__` calls, of `k`
/// (`self.idx_to_name(idx)`) or of a dataset holding a `k`
/// (`self.raw.get_video(idx)`).
pub(super) fn indexing_dataset(code: &Code<'_>, k: ClassId, attr: &str) -> Option<Option<(String, ClassId)>> {
    let prog = code.prog;
    if let Some(f) = prog.method(k, "__getitem__") {
        // Or the base's, which the class's own hands the index to
        // (`wav = super().__getitem__(idx)`).
        let base = || {
            calls_super_getitem(prog, f)
                .then(|| {
                    prog.ancestors(k)
                        .into_iter()
                        .skip(1)
                        .find_map(|b| prog.own_method(b, "__getitem__"))
                })
                .flatten()
        };
        if indexes(code, f, attr) || base().is_some_and(|g| g != f && indexes(code, g, attr)) {
            return sharded_dataset(code, k).then_some(None);
        }
    }
    prog.class(k)?;
    // The class's own methods, then those it inherits from the training
    // code's bases (doctr's `CORD` filling `self.data`, read back by its
    // base's `_read_sample`, which the base's base's `__getitem__` calls).
    let lineage = prog.ancestors(k);
    let methods: Vec<FuncId> = lineage.iter().take(4).flat_map(|c| prog.own_methods(*c)).collect();
    for f in methods {
        let Some(func) = prog.func(f) else { continue };
        if func.name.starts_with("__") || !indexes(code, f, attr) {
            continue;
        }
        // Inherited, but this class defines its own: not the one it runs.
        if f.m != k.m || f.c != k.c {
            if let Some(own) = prog.method(k, &func.name) {
                if own != f {
                    continue;
                }
            }
        }
        // Called as `self.helper(idx)` from a `__getitem__`, or from a
        // method that `__getitem__` calls (`__getitem__` →
        // `prepare_train_data` → `get_data`), a few methods up.
        let mut frontier = vec![f];
        let mut seen = vec![f];
        for _ in 0..3 {
            let mut next = Vec::new();
            for h in frontier {
                for (s, _) in prog.call_sites(h) {
                    let Some(g) = s.func() else { continue };
                    let Some(d) = prog.class_of(g) else { continue };
                    if prog.func(g).is_some_and(|x| x.name == "__getitem__") {
                        // A base's `__getitem__` runs on this class's
                        // objects: this class's constructions say where,
                        // or the base's own.
                        if lineage.contains(&d) && d != k && sharded_dataset(code, k) {
                            return Some(Some((func.name.clone(), k)));
                        }
                        if sharded_dataset(code, d) {
                            return Some(Some((func.name.clone(), d)));
                        }
                    } else if !seen.contains(&g) && seen.len() < 16 {
                        seen.push(g);
                        next.push(g);
                    }
                }
            }
            frontier = next;
        }
        // Called as `self.raw.helper(idx)` from the `__getitem__` of a
        // dataset whose `self.raw` is made by `k(...)`.
        for d in prog.classes_mentioning(&[func.name.as_str()]) {
            if d == k {
                continue;
            }
            let Some(g) = prog.method(d, "__getitem__") else {
                continue;
            };
            if g.m != d.m || g.c != d.c {
                continue;
            }
            let mut holds = false;
            prog.walk_exprs(g.scope(), &mut |_, e| {
                let ExprKind::Call { func: callee, .. } = &e.kind else {
                    return;
                };
                let ExprKind::Attribute { value, attr: m } = &callee.kind else {
                    return;
                };
                if *m != func.name || holds {
                    return;
                }
                let ExprKind::Attribute { value: me, .. } = &value.kind else {
                    return;
                };
                if prog.self_class(g.scope(), me).is_none() {
                    return;
                }
                let s = prog.sources(g.scope(), value);
                holds = !s.terms.is_empty()
                    && s.terms.iter().all(|t| match &t.expr.kind {
                        ExprKind::Call { func, .. } => {
                            t.proj.is_empty() && matches!(prog.callee(t.scope, func), Callee::Class(c) if c == k)
                        }
                        _ => false,
                    });
            });
            if holds && sharded_dataset(code, d) {
                return Some(Some((func.name.clone(), d)));
            }
        }
    }
    None
}

/// Whether method `f` indexes `self.<attr>` with a computed index.
fn indexes(code: &Code<'_>, f: FuncId, attr: &str) -> bool {
    let mut found = false;
    code.prog.walk_exprs(f.scope(), &mut |_, e| {
        if let ExprKind::Subscript { value, index } = &e.kind {
            // A frame's rows by position: `self.annotation.iloc[index]`.
            let value = match &value.kind {
                ExprKind::Attribute { value: frame, attr: at } if at == "iloc" => frame,
                _ => value,
            };
            if let ExprKind::Attribute { value: me, attr: a } = &value.kind {
                if a == attr
                    && code.prog.self_class(f.scope(), me).is_some()
                    && !matches!(index.kind, ExprKind::Int(_) | ExprKind::Str(_))
                {
                    found = true;
                }
            }
        }
    });
    found
}

/// Whether instances of a dataset class reach a sharding consumer: one of
/// its constructions does, or the code never shows where they go (no
/// construction it can see: a registry filled by a decorator, a config's
/// class name, a library's user; or a construction whose dataset or loader
/// leaves through a function nothing in the code calls) while the program
/// shards samples somewhere. Constructions that all end where the flow sees
/// no sharding (a loader on one rank, a plain `DataLoader` iterated in
/// place) keep it silent.
fn sharded_dataset(code: &Code<'_>, k: ClassId) -> bool {
    let (sharded, unseen) = consumers(code, k);
    sharded || (unseen && shards_samples(code, k.m))
}

/// How a dataset class meets its sharding, for messages: a sampler or
/// loader the code shows, or (where its constructions are out of sight) the
/// program's sharding of the samples it loads.
pub(super) fn sharding(code: &Code<'_>, k: ClassId) -> &'static str {
    if consumers(code, k).0 {
        "a sharding sampler or loader hands ranks positions in it"
    } else {
        "the code that takes this dataset is not in sight, but this program shards the samples it loads (a distributed sampler, Accelerate or Lightning), which hands ranks positions in it"
    }
}

/// Whether a program module `m` runs in hands ranks samples by position
/// somewhere: a `DistributedSampler` (or a project subclass, or a project
/// sampler of its own named so, as detection codebases copy it), Determined's
/// loader, an Accelerate `Accelerator`, Lightning Fabric, or a Lightning
/// `Trainer` on several devices.
pub(super) fn shards_samples(code: &Code<'_>, m: crate::training::program::ModId) -> bool {
    let prog = code.prog;
    const SHARDERS: &[&str] = &[
        "torch.utils.data.DistributedSampler",
        DET_LOADER,
        "accelerate.Accelerator",
        "lightning.Fabric",
        "lightning.fabric.Fabric",
        // Hugging Face's: its loader hands each rank its part of the
        // sampler's positions.
        "transformers.Trainer",
        "transformers.Seq2SeqTrainer",
    ];
    crate::training::runtime::calls(prog, SHARDERS)
        .iter()
        .any(|(s, ..)| prog.same_program(s.m, m))
        || hf_trainer_built(prog, m)
        || distributed_sampler_class_in(code, m)
        || crate::training::runtime::lightning_ranks(prog, m)
        || lightning_lite_in(prog, m)
}

/// Whether a program module `m` runs in has a project subclass of
/// `DistributedSampler`, or a project sampler named so (Open-Sora-Plan's
/// `CustomDistributedSampler(Sampler)`).
pub(super) fn distributed_sampler_class_in(code: &Code<'_>, m: crate::training::program::ModId) -> bool {
    let prog = code.prog;
    prog.classes_mentioning(&["DistributedSampler"]).into_iter().any(|c| {
        prog.same_program(c.m, m)
            && (prog.derives_from(c, &["torch.utils.data.DistributedSampler"])
                || prog.class(c).is_some_and(|x| x.name.contains("DistributedSampler")))
    })
}

/// Whether a program module `m` runs in builds a project subclass of a
/// Hugging Face `Trainer` (`LLaVATrainer(Trainer)`, constructed).
fn hf_trainer_built(prog: &crate::training::program::Program, m: crate::training::program::ModId) -> bool {
    prog.classes_mentioning(&["Trainer"]).into_iter().any(|c| {
        prog.same_program(c.m, m)
            && prog.derives_from(c, &["transformers.Trainer", "transformers.Seq2SeqTrainer"])
            && prog
                .method(c, "__init__")
                .is_some_and(|f| !prog.call_sites(f).is_empty())
    })
}

/// What the constructions of dataset class `k` show: whether one reaches a
/// sharding consumer, and whether some end out of the code's sight (or
/// there is none to see).
fn consumers<'p>(code: &Code<'p>, k: ClassId) -> (bool, bool) {
    let prog = code.prog;
    let Some(init) = prog.method(k, "__init__") else {
        return (false, false);
    };
    let mut sharded = false;
    let mut unseen = false;
    let mut calls = prog.call_sites(init);
    calls.extend(registry_calls(code, k));
    // `super().__init__(…)` in a subclass's constructor is not a dataset of
    // its own: the subclass's constructions are.
    calls.retain(|(_, call)| {
        !matches!(&call.kind, ExprKind::Call { func, .. }
            if matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr == "__init__"))
    });
    if calls.is_empty() {
        return (false, true);
    }
    for (scope, call) in calls {
        let Some(anc) = prog.ancestors_of(scope, call) else {
            continue;
        };
        let through = |callee: &Callee, pos: &ArgPos<'_>| match callee {
            Callee::External(p) => match p.as_str() {
                "torch.utils.data.random_split" | "torch.utils.data.Subset" => {
                    matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("dataset"))
                }
                "torch.utils.data.ConcatDataset" => true,
                _ => false,
            },
            _ => false,
        };
        let mut loaders: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
        // Joined or repeated by dataset arithmetic (`100 * sintel + things`):
        // the expression the arithmetic makes, followed on.
        let joined: std::cell::RefCell<Vec<(Scope, Vec<Anc<'p>>, &'p Expr)>> = std::cell::RefCell::default();
        let mut on_flow = |flow: Flow<'p>| match flow {
            Flow::Arg {
                scope: s,
                call: c,
                callee: Callee::External(p),
                pos,
                anc,
            } => {
                let first = matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("dataset"));
                match p.as_str() {
                    // `dict(train_dataset=ds, …)`, the mapping a Hugging
                    // Face `Trainer(**data_module)` is handed: its consumer
                    // is out of sight.
                    "builtins.dict" if matches!(pos, ArgPos::Kw("train_dataset")) => unseen = true,
                    "torch.utils.data.DistributedSampler" if first => sharded = true,
                    DET_LOADER if first => sharded = true,
                    "torch.utils.data.DataLoader" if first => loaders.push((s, anc, c)),
                    _ => {}
                }
            }
            // A project subclass of `DistributedSampler` (a bucketing
            // sampler) shards as its base does, and so does a project
            // sampler of its own named so (Open-Sora-Plan's
            // `CustomDistributedSampler(Sampler)`), as `shards_samples` reads.
            Flow::Arg {
                callee: Callee::Class(c),
                pos: ArgPos::Pos(0) | ArgPos::Kw("dataset"),
                ..
            } if prog.derives_from(c, &["torch.utils.data.DistributedSampler"])
                || prog.class(c).is_some_and(|x| x.name.contains("DistributedSampler")) =>
            {
                sharded = true
            }
            Flow::Returned { func: None, .. } => unseen = true,
            Flow::Returned { func: Some(f), .. } if prog.call_sites(f).is_empty() => unseen = true,
            Flow::Escapes { scope: s, at } if joined.borrow().len() < 4 => {
                if let Some(j) = dataset_arithmetic(code, k, s, at) {
                    joined.borrow_mut().push(j);
                }
            }
            _ => {}
        };
        prog.flows(scope, &anc, call, &through, &mut on_flow);
        let mut round = 0;
        loop {
            let Some((s, a, e)) = joined.borrow_mut().pop() else {
                break;
            };
            round += 1;
            if round > 4 {
                break;
            }
            prog.flows(s, &a, e, &through, &mut on_flow);
        }
        for (s, a, c) in loaders {
            if managed(code, s, &a, c) || rank_sampler(code, s, c) {
                sharded = true;
            } else if returned_unused(code, s, &a, c) && (own_sampler(c) || rewraps_loaders(code, s.m)) {
                unseen = true;
            }
        }
    }
    (sharded, unseen)
}

/// The dataset arithmetic a dataset of class `k` at `at` (in `scope`) is an
/// operand of, where the result holds its samples in order: `a + b`
/// (PyTorch's `Dataset.__add__` makes a `ConcatDataset`) and `n * a` or
/// `a * n` where the class or a project base defines `__rmul__`/`__mul__`
/// (RAFT's flow datasets repeat their lists). The outermost such
/// expression, with its ancestors.
fn dataset_arithmetic<'p>(
    code: &Code<'p>,
    k: ClassId,
    scope: Scope,
    at: &'p Expr,
) -> Option<(Scope, Vec<Anc<'p>>, &'p Expr)> {
    let prog = code.prog;
    let anc = prog.ancestors_of(scope, at)?;
    let repeats = ["__rmul__", "__mul__"].iter().any(|m| prog.method(k, m).is_some());
    let mut top = at;
    let mut i = anc.len();
    while i > 0 {
        let Anc::Expr(p) = anc[i - 1] else { break };
        let ExprKind::BinOp { op, .. } = &p.kind else { break };
        match op.as_str() {
            "+" => {}
            "*" if repeats => {}
            _ => break,
        }
        top = p;
        i -= 1;
    }
    (!std::ptr::eq(top, at)).then(|| (scope, anc[..i].to_vec(), top))
}

/// Whether the `DataLoader(…)` call `loader` is given a sampler
/// (`sampler=`, `batch_sampler=`, or the fourth or fifth positional
/// argument), or arguments not spelled out: one that may shard.
fn own_sampler(loader: &Expr) -> bool {
    let ExprKind::Call { args, .. } = &loader.kind else {
        return true;
    };
    args.iter().enumerate().any(|(i, a)| match a {
        Arg::Kw { name, .. } => matches!(name.as_str(), "sampler" | "batch_sampler"),
        Arg::Pos(_) => i >= 3,
        _ => true,
    })
}

/// Whether a loader's sampler splits the samples by rank though the
/// dataset is not handed to it: a wrapper of another sampler
/// (`DistributedSamplerWrapper(WeightedRandomSampler(…))` of catalyst,
/// also chosen under `if dist.is_initialized():`), through local names.
fn rank_sampler(code: &Code<'_>, scope: Scope, loader: &Expr) -> bool {
    let prog = code.prog;
    let ExprKind::Call { args, .. } = &loader.kind else {
        return false;
    };
    let Some(sampler) = crate::training::runtime::kw(args, "sampler")
        .or_else(|| crate::training::runtime::kw(args, "batch_sampler"))
        .or_else(|| crate::training::runtime::pos(args, 3))
    else {
        return false;
    };
    prog.sources(scope, sampler).terms.iter().take(8).any(|t| {
        t.proj.is_empty()
            && matches!(&t.expr.kind, ExprKind::Call { func, .. } if distributed_sampler(code, t.scope, func))
    })
}

/// Whether `func` names a sampler that splits by rank: torch's
/// `DistributedSampler`, a library's or the project's class named so
/// (`DistributedSamplerWrapper`, `DistributedGroupSampler`), or a project
/// subclass of torch's.
fn distributed_sampler(code: &Code<'_>, scope: Scope, func: &Expr) -> bool {
    let prog = code.prog;
    match prog.callee(scope, func) {
        Callee::External(p) => p
            .rsplit('.')
            .next()
            .is_some_and(|last| last.contains("DistributedSampler")),
        Callee::Class(c) => {
            prog.derives_from(c, &["torch.utils.data.DistributedSampler"])
                || prog.class(c).is_some_and(|x| x.name.contains("DistributedSampler"))
        }
        _ => false,
    }
}

/// Whether a program that runs module `m` defines a `LightningLite`
/// subclass (Fabric's predecessor), whose `setup_dataloaders` puts a
/// distributed sampler in the loaders it is handed.
fn lightning_lite_in(prog: &crate::training::program::Program, m: crate::training::program::ModId) -> bool {
    prog.classes_mentioning(&["LightningLite"]).into_iter().any(|c| {
        prog.same_program(c.m, m)
            && prog
                .external_bases(c)
                .iter()
                .any(|b| b.starts_with("lightning") && b.ends_with(".LightningLite"))
    })
}

/// Whether the program module `m` runs in hands loaders to something that
/// shards them wherever they come from: an Accelerate `Accelerator`,
/// Lightning Fabric (or a `LightningLite` subclass), or a Lightning
/// `Trainer` on several devices. A loader
/// without a sampler returned out of sight is otherwise read whole by each
/// rank, in whatever order.
fn rewraps_loaders(code: &Code<'_>, m: crate::training::program::ModId) -> bool {
    let prog = code.prog;
    const WRAPPERS: &[&str] = &["accelerate.Accelerator", "lightning.Fabric", "lightning.fabric.Fabric"];
    crate::training::runtime::calls(prog, WRAPPERS)
        .iter()
        .any(|(s, ..)| prog.same_program(s.m, m))
        || crate::training::runtime::lightning_ranks(prog, m)
        || lightning_lite_in(prog, m)
}

/// Whether a loader leaves through a function nothing in the code calls
/// (a library's `get_dataloader(…)`): where its batches go is not seen.
fn returned_unused(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>], loader: &Expr) -> bool {
    let prog = code.prog;
    let mut out = false;
    prog.flows(
        scope,
        anc,
        loader,
        &super::training_support::iteration_wrapper,
        &mut |flow| {
            if let Flow::Returned { func, .. } = flow {
                out |= func.is_none_or(|f| prog.call_sites(f).is_empty() && !framework_hook(code, f));
            }
        },
    );
    out
}

/// Whether `f` is a method a framework calls: one of a class deriving from
/// a Lightning class (its `*_dataloader` hooks), whose loaders
/// [`managed`] judges.
fn framework_hook(code: &Code<'_>, f: FuncId) -> bool {
    code.prog.class_of(f).is_some_and(|k| {
        code.prog
            .external_bases(k)
            .iter()
            .any(|b| b.starts_with("lightning.") || b.starts_with("pytorch_lightning."))
    })
}

/// Calls that construct class `k` through a module's registry of classes:
/// `_DATASETS[name](path, split)` where the module assigns `_DATASETS` one
/// dict literal among whose values `k` is (pycls' shape).
fn registry_calls<'p>(code: &Code<'p>, k: ClassId) -> Vec<(Scope, &'p Expr)> {
    let prog = code.prog;
    let mut out = Vec::new();
    for m in prog.code_modules() {
        let assigned = prog.module_assignments(m);
        let registries: Vec<&str> = assigned
            .iter()
            .filter(|(name, value)| {
                assigned.iter().filter(|(n, _)| n == name).count() == 1
                    && matches!(&value.kind, ExprKind::Dict(items) if items.iter().any(|item| matches!(
                        item,
                        DictItem::Pair { value, .. }
                            if matches!(&value.kind, ExprKind::Name(n)
                                if matches!(prog.global(m, n, 0), Some(Sym::Class(c)) if c == k))
                    )))
            })
            .map(|(name, _)| *name)
            .collect();
        if registries.is_empty() {
            continue;
        }
        let chunks: Vec<u32> = prog.chunks_mentioning(m, &registries).collect();
        for c in chunks {
            for scope in prog.scopes(m, c) {
                prog.walk_exprs(scope, &mut |_, e| {
                    let ExprKind::Call { func, .. } = &e.kind else { return };
                    let ExprKind::Subscript { value, .. } = &func.kind else {
                        return;
                    };
                    let ExprKind::Name(n) = &value.kind else { return };
                    let local = scope.func().is_some_and(|f| prog.is_local(f, n));
                    if registries.contains(&n.as_str()) && !local {
                        out.push((scope, e));
                    }
                });
            }
        }
    }
    out
}

/// Whether `callee` is a Hugging Face trainer (`transformers.Trainer`,
/// `Seq2SeqTrainer`, TRL's trainers) or a class of the code deriving from
/// one: it evaluates an `eval_dataset` dict entry by entry.
fn hf_trainer(prog: &crate::training::program::Program, callee: &Callee) -> bool {
    let trainer = |p: &str| (p.starts_with("transformers.") || p.starts_with("trl.")) && p.ends_with("Trainer");
    match callee {
        Callee::External(p) => trainer(p),
        Callee::Class(k) => prog.external_bases(*k).iter().any(|b| trainer(b)),
        _ => false,
    }
}
