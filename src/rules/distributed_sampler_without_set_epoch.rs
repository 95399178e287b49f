declare_rule! {
    /// ## What it checks
    /// A shuffling `torch.utils.data.DistributedSampler` (or a subclass that keeps
    /// its epoch-seeded order, MONAI's among them) whose `DataLoader` (torch's or
    /// MONAI's) is iterated in an epoch loop that
    /// trains — the batches reach a backward pass or an optimizer step, also
    /// through an endless generator (`while True: for b in loader: yield b`) that a
    /// training loop draws from with `next(…)` (a generator that hands on
    /// what it is given, `MetricLogger.log_every(loader, …)`, trains where
    /// the call the loader went through feeds a loop that trains: an
    /// evaluation loader sharing the training loop's logger does not), or
    /// started over with `iter(loader)`
    /// inside a loop that trains (a step loop's `except StopIteration:` restart, a
    /// prefetcher's `reset()` at each epoch), or drawn by a training loop through
    /// a wrapper class of the code that passes over the loader
    /// (`PrefetchLoader(loader)`) and starts it over when it runs out
    /// (`InfiniteIterator(loader)`, whose `__iter__` calls `iter(self.iterable)`
    /// again) — when no
    /// `set_epoch` call reaches the sampler (also one a generator builds and
    /// yields, `for _, sampler, loader in get_loaders(files):`, followed to the
    /// loops over its calls): not on the sampler itself, not as
    /// `loader.sampler.set_epoch(…)`, not in a helper it is passed to. A sampler
    /// built by a data module two scripts share counts per program: the
    /// pre-training script's `set_epoch` does not reach the probe script that
    /// drops the sampler (`loader, _ = init_data(…)`), and the finding names both.
    /// A loader handed on in a list (`Trainer(net, [loader])`) is one of its
    /// entries wherever the list goes: a `….sampler.set_epoch(…)` anywhere in its
    /// program may tell it, so that keeps the rule silent, and a finding offers
    /// no fix (the trainer holds the list, not the loader). A test of the sampler
    /// (`shuffle=(self.train_sampler is None)`) keeps nothing of it; a sampler kept
    /// as `self.train_sampler` is told through any `….train_sampler.set_epoch(…)`
    /// in its program (a holder object the script keeps). A sampler put in a
    /// dict of a loader's keyword arguments that a helper fills and returns
    /// (`kwargs["sampler"] = DistributedSampler(…, shuffle=mode == "train")`,
    /// llama-recipes' `get_dataloader_kwargs`) is followed into each loader
    /// that takes the dict (`DataLoader(ds, **train_dl_kwargs)`), for the
    /// calls whose `mode` makes it shuffle. A loader factory whose sampler
    /// shuffles by a parameter (`shuffle=is_train`) is followed from the calls
    /// that pass `True` only. The fix (unsafe: it assumes the
    /// loader holds this sampler on every run) calls `set_epoch` at the top of
    /// the epoch loop, on the sampler or the loader's `.sampler` as the
    /// loop's function names it: a local, `self.x`, or the parameter every
    /// call hands it (`train(model, train_dataloader, …)`). A sampler built
    /// anew inside the loop with a seed that reads the loop's variable
    /// (`DistributedSampler(shard, seed=seed + epoch)` for each shard of each
    /// epoch) shuffles each pass its own way and is not reported.
    ///
    /// ## Why
    /// `DistributedSampler` shuffles with `seed + epoch`. Without `set_epoch(epoch)`
    /// every epoch sees exactly the order of the first one, on every rank. Call it at
    /// the start of each epoch, before iterating. Loaders prepared by Accelerate or
    /// Lightning call it themselves — but a `prepare` under a switch of the run
    /// (`if args.use_accelerate:`) leaves the runs without it to the sampler
    /// alone. A loader drawn from through `itertools.cycle` in a function that
    /// trains is reported too: the cycle keeps the
    /// first pass's batches and replays them, so no sampler is asked again;
    /// `determined.pytorch.samplers.DistributedSampler`
    /// is a different class without epochs; a sampler that escapes into code stagec
    /// cannot see is left alone.
    ///
    /// ## Example
    /// ```python
    /// sampler = DistributedSampler(train_set, shuffle=True)          # warning
    /// loader = DataLoader(train_set, batch_size=64, sampler=sampler)
    /// for epoch in range(epochs):
    ///     train_one_epoch(model, loader)        # fix: sampler.set_epoch(epoch) first
    /// ```
    pub static DISTRIBUTED_SAMPLER_WITHOUT_SET_EPOCH = {
        code: "T102",
        name: "distributed-sampler-without-set-epoch",
        family: Training,
        severity: Warning,
        summary: "A shuffling DistributedSampler is never told the epoch, so every epoch repeats the same order",
    };
}

use super::training_support::{
    accelerate_prepare, body_trains, code, iteration_wrapper, managed_always, trains, trains_entered, under_run_switch,
    Code,
};
use super::{Cx, Sink};
use crate::source::Span;
use crate::training::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{Anc, ArgPos, Callee, ClassId, Flow, FuncId, ModId, Scope};
use crate::training::runtime::{self, arg, has_splat};

const SAMPLER: &str = "torch.utils.data.DistributedSampler";

/// MONAI's subclass (`even_divisible` before torch's arguments, so
/// `shuffle` is its fifth): the same epoch-seeded order.
fn is_monai_sampler(path: &str) -> bool {
    matches!(
        path,
        "monai.data.DistributedSampler" | "monai.data.samplers.DistributedSampler"
    )
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() {
        return;
    }
    let subclasses = sampler_subclasses(&code);
    for scope in code.scopes_for(&[SAMPLER], &["Sampler"]) {
        if !code.rt.world_at(code.prog, scope.m).distributed() {
            continue;
        }
        code.prog.walk_exprs(scope, &mut |anc, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            if !is_epoch_sampler(&code, &subclasses, scope, func) || has_splat(args) {
                return;
            }
            let monai = matches!(code.prog.callee(scope, func), Callee::External(p) if is_monai_sampler(&p));
            let shuffle = arg(args, "shuffle", if monai { 4 } else { 3 });
            let shuffles =
                shuffle.is_none_or(|v| runtime::is_true(code.prog, code.cfg, code.rt, scope, v) == Some(true));
            // `shuffle=mode == "train"` in a helper that builds the loader's
            // arguments: it shuffles for the callers that pass "train".
            let per_call = match shuffle {
                Some(v) if !shuffles => match shuffling_calls(&code, scope, v) {
                    Some(calls) => Some(calls),
                    None => return,
                },
                _ => None,
            };
            // Built anew at each pass with a seed that follows the loop
            // (`seed=args.seed + epoch`): each pass shuffles its own order.
            let seed = arg(args, "seed", if monai { 5 } else { 4 });
            if seed.is_some_and(|v| reseeded_by_loop(v, anc)) {
                return;
            }
            if let Some(finding) = analyse(&code, scope, anc, e, per_call.as_deref()) {
                report(cx, &code, out, scope, e, finding);
            }
        });
    }
}

/// Whether the seed `v` of a sampler built in a loop reads a name that
/// loop binds (`for epoch in …: DistributedSampler(ds, seed=seed + epoch)`).
fn reseeded_by_loop(v: &Expr, anc: &[Anc<'_>]) -> bool {
    let read = super::skipped_nonfinite::names_in(v);
    anc.iter().any(|a| match a {
        Anc::Stmt(st) => match &st.kind {
            crate::training::ast::StmtKind::For { target, .. } => super::skipped_nonfinite::names_in(target)
                .iter()
                .any(|n| read.contains(n)),
            _ => false,
        },
        _ => false,
    })
}

/// Whether `func` is torch's `DistributedSampler`, or a training-code
/// subclass (one of `subclasses`) whose order still follows `self.epoch`.
fn is_epoch_sampler(code: &Code<'_>, subclasses: &[ClassId], scope: Scope, func: &Expr) -> bool {
    match code.prog.callee(scope, func) {
        Callee::External(p) => p == SAMPLER || is_monai_sampler(&p),
        Callee::Class(k) => subclasses.contains(&k) && keeps_epoch_order(code, k),
        _ => false,
    }
}

/// The training code's subclasses of `DistributedSampler`, directly or
/// through other project classes. Only the classes whose chunk names the
/// sampler (or an alias of it, or a subclass found so far) are parsed, so
/// the datasets and transforms instantiated next to a sampler are not.
fn sampler_subclasses(code: &Code<'_>) -> Vec<ClassId> {
    let prog = code.prog;
    let mut needles: Vec<String> = vec!["Sampler".to_string()];
    for m in prog.modules() {
        needles.extend(prog.needles_for(m, &[SAMPLER]));
    }
    let mut found: Vec<ClassId> = Vec::new();
    // Each round adds the names of the subclasses found; a chain of
    // project classes is followed a few levels deep.
    for _ in 0..4 {
        needles.sort();
        needles.dedup();
        let words: Vec<&str> = needles.iter().map(String::as_str).collect();
        let mut more = Vec::new();
        for k in prog.classes_mentioning(&words) {
            if !found.contains(&k) && prog.derives_from(k, &[SAMPLER]) {
                more.push(k);
            }
        }
        if more.is_empty() {
            break;
        }
        for k in &more {
            if let Some(class) = prog.class(*k) {
                needles.push(class.name.clone());
            }
        }
        found.extend(more);
    }
    found
}

fn keeps_epoch_order(code: &Code<'_>, k: ClassId) -> bool {
    match code.prog.method(k, "__iter__") {
        None => true,
        Some(f) => {
            let Some(func) = code.prog.func(f) else { return false };
            let text = code.text(f.m, func.span);
            text.contains("epoch")
        }
    }
}

/// What a sampler's life shows: the training loop that re-iterates its
/// loader, and the place to call `set_epoch` from.
struct Finding<'p> {
    /// The loop statement (`for epoch in …`) and its scope.
    epoch_loop: Option<(Scope, &'p Stmt)>,
    /// How the loop's function reaches the sampler.
    handle: Option<String>,
    loader: Option<String>,
    /// The loop passes over the loader with `iter(…)` (a step loop that
    /// starts the loader over when it runs out), not `for batch in loader`.
    anew: bool,
    /// A module of another program that calls set_epoch on the sampler,
    /// where this program does not.
    told_elsewhere: Option<ModId>,
    /// Where this program drops the sampler (`loader, _ = init_data(…)`).
    dropped: Option<(Scope, Span)>,
    /// `itertools.cycle(loader)` in a function whose loop trains: the
    /// cycle replays the loader's first pass.
    cycled: Option<(Scope, Span)>,
}

fn analyse<'p>(
    code: &Code<'p>,
    scope: Scope,
    anc: &[Anc<'p>],
    sampler: &'p Expr,
    per_call: Option<&[*const Expr]>,
) -> Option<Finding<'p>> {
    let prog = code.prog;
    // The modules that call set_epoch on the sampler.
    let mut set_epoch: Vec<ModId> = Vec::new();
    let mut escapes = false;
    let mut loaders: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
    let mut names: Vec<(Scope, &'p Expr)> = Vec::new();
    let mut entries: Vec<(Scope, &'p Expr)> = Vec::new();
    let through = |callee: &Callee, pos: &ArgPos<'_>| {
        matches!(callee, Callee::External(p) if p == "torch.utils.data.BatchSampler")
            && matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("sampler"))
    };
    let complete = prog.flows(scope, anc, sampler, &through, &mut |flow| match flow {
        Flow::Method {
            name: "set_epoch",
            scope: s,
            ..
        } => set_epoch.push(s.m),
        Flow::Arg {
            scope: s,
            call,
            callee,
            pos,
            anc,
        } => match &callee {
            Callee::External(p)
                if p == "torch.utils.data.DataLoader" || super::loader_workers_not_persistent::is_monai_loader(p) =>
            {
                if matches!(pos, ArgPos::Kw("sampler" | "batch_sampler") | ArgPos::Pos(3 | 4)) {
                    loaders.push((s, anc, call));
                }
            }
            Callee::External(p) if benign(p) => {}
            _ if prog.followed_into_init(&callee, call, &pos) => {}
            _ => escapes = true,
        },
        Flow::Stored { scope: s, target } => names.push((s, target)),
        // An entry of a dict of the loader's arguments (followed below).
        Flow::Escapes { scope: s, at } if loader_entry(at).is_some() && s.func().is_some() => entries.push((s, at)),
        Flow::Escapes { .. } | Flow::Returned { .. } => escapes = true,
        _ => {}
    });
    // Stored as an entry of a dict of the loader's arguments the function
    // returns (`kwargs["sampler"] = DistributedSampler(…)`, then
    // `DataLoader(ds, **get_dataloader_kwargs(…))` in the caller):
    // the loaders that take the dict.
    if !entries.is_empty() {
        if !loaders.is_empty() {
            return None;
        }
        for (s, at) in &entries {
            if let Some(d) = loader_entry(at) {
                loaders.extend(splatted_loaders(code, *s, d, per_call));
            }
        }
        // A dict no loader takes whole: it goes where it is not followed.
        if loaders.is_empty() {
            return None;
        }
    } else if let Some(calls) = per_call {
        // Shuffling depends on the caller (`mk_loader(cfg, is_train=True)`)
        // and the loader is built here: followed from the calls that
        // shuffle, as what they return (nothing, where it is not returned).
        let f = scope.func()?;
        if loaders.is_empty() {
            return None;
        }
        // The sampler is returned to the callers, which build the loaders
        // (`make_data_sampler(dataset, shuffle, distributed)`): its life
        // goes on from each call that shuffles, read as the sampler.
        if !loaders.iter().all(|(s, _, _)| s.func() == Some(f)) {
            if !returned_only(code, scope, anc, sampler) {
                return None;
            }
            return prog
                .call_sites(f)
                .into_iter()
                .filter(|(_, c)| calls.contains(&(*c as *const Expr)))
                .find_map(|(cs, c)| {
                    let a = prog.ancestors_of(cs, c)?;
                    analyse(code, cs, &a, c, None)
                });
        }
        loaders = prog
            .call_sites(f)
            .into_iter()
            .filter(|(_, c)| calls.contains(&(*c as *const Expr)))
            .filter_map(|(cs, c)| prog.ancestors_of(cs, c).map(|a| (cs, a, c)))
            .collect();
        if loaders.is_empty() {
            return None;
        }
    }
    if !complete || escapes || loaders.is_empty() {
        return None;
    }
    // Kept as `self.train_sampler` and told the epoch through an instance
    // the analysis does not follow (`dataloader.train_sampler.set_epoch(e)`
    // where the class stores it in two branches).
    if names.iter().any(|(s, t)| match &t.kind {
        ExprKind::Attribute { attr, .. } => told_by_name(code, s.m, attr),
        _ => false,
    }) {
        return None;
    }
    // A set_epoch call reaches the passes of a program it runs in (a
    // shared data module's sampler, told the epoch by the pre-training
    // script and not by the evaluation script that drops it): the programs
    // where some call is, every program where one sits in a module of no
    // known program.
    let covered = set_epoch.iter().fold(0u64, |acc, s| acc | prog.programs(*s));
    let anywhere = set_epoch.iter().any(|s| prog.programs(*s) == 0);
    // Only the programs that run the sampler's own module count: a loop in a
    // module other scripts import too runs this sampler only in the
    // programs that build it.
    let built = prog.programs(scope.m);
    let told = |m: ModId| !set_epoch.is_empty() && (anywhere || prog.programs(m) & built & !covered == 0);
    let mut training_loop: Option<(Scope, &'p Stmt)> = None;
    // The loop passes over the loader with `iter(…)`, not a `for`.
    let mut anew = false;
    let mut cycled: Option<(Scope, Span)> = None;
    let mut loader_names: Vec<(Scope, &'p Expr)> = Vec::new();
    let mut contained = false;
    for (s, a, loader) in loaders {
        if managed_always(code, s, &a, loader) {
            return None;
        }
        let mut attrs: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
        // The calls through which the loader entered a function of the code.
        let mut entered: Vec<*const Expr> = Vec::new();
        // Also a wrapper class of the code that passes over its loader
        // (`InfiniteIterator(PrefetchLoader(loader))`).
        // Asked once per class and argument.
        let wrappers: std::cell::RefCell<Vec<(ClassId, String, bool)>> = Default::default();
        let through = |callee: &Callee, pos: &ArgPos<'_>| {
            if iteration_wrapper(callee, pos) {
                return true;
            }
            let Callee::Class(k) = callee else { return false };
            let key = match pos {
                ArgPos::Pos(i) => i.to_string(),
                ArgPos::Kw(n) => (*n).to_string(),
                ArgPos::Star => return false,
            };
            if let Some((_, _, v)) = wrappers.borrow().iter().find(|(c, p, _)| c == k && *p == key) {
                return *v;
            }
            let v = prog.iterates_arg(*k, pos);
            wrappers.borrow_mut().push((*k, key, v));
            v
        };
        let ok = prog.flows(s, &a, loader, &through, &mut |flow| match flow {
            Flow::Attr { scope, expr, name, anc } if name == "sampler" || name == "batch_sampler" => {
                attrs.push((scope, anc, expr));
            }
            Flow::Iterated {
                scope,
                stmt: Some(st),
                anc,
            } if training_loop.is_none() && !told(scope.m) && trains_entered(code, scope, st, &entered) => {
                training_loop = epoch_loop(code, scope, &anc);
                // Through an endless wrapper that starts the loader over
                // (`for step, batch in enumerate(InfiniteIterator(loader)):`):
                // the step loop passes over it again and again.
                if training_loop.is_none() && restarted_by_wrapper(code, scope, st) {
                    training_loop = Some((scope, st));
                    anew = true;
                }
            }
            // `iter(loader)` again in a loop that trains (`except
            // StopIteration: it = iter(loader)` in a step loop, a
            // prefetcher's `reset()` at each epoch): each pass starts over
            // in the same order.
            // Only a loop of the function itself or of its direct caller:
            // a helper that makes the iterator for another pass (a
            // validation pass's prefetcher, built in `validate()` called
            // from the epoch loop) does not restart the training loader.
            Flow::Iterated { scope, stmt: None, anc } if training_loop.is_none() && !told(scope.m) => {
                if let Some((ls, l)) = restart_loop(code, scope, &anc) {
                    if loop_trains(code, ls, l) {
                        training_loop = Some((ls, l));
                        anew = true;
                    }
                }
            }
            Flow::Stored { scope, target } => loader_names.push((scope, target)),
            // In a list handed on (`Trainer(net, [loader])`): the names
            // after this hold the list, not the loader.
            Flow::Contained { .. } => contained = true,
            // `itertools.cycle(loader)` drawn from by a loop that trains
            // (`batch = next(train_dataloader)` in a step loop): the cycle
            // keeps the first pass's batches and replays them.
            Flow::Arg {
                callee: Callee::External(p),
                scope,
                call,
                ..
            } if p == "itertools.cycle" && cycled.is_none() && !told(scope.m) && function_trains(code, scope) => {
                cycled = Some((scope, call.span));
            }
            Flow::Arg {
                callee: Callee::External(p),
                ..
            } if benign(&p) => {}
            // Prepared by Accelerate on the runs a switch turns it on
            // (`if args.use_accelerate:`): the other runs keep the loader
            // as it is, and pass over it where the flow goes on.
            Flow::Arg { scope, call, anc, .. }
                if accelerate_prepare(prog, scope, call) && under_run_switch(code, scope, &anc, call) => {}
            Flow::Arg { callee, call, pos, .. } if prog.followed_into_init(&callee, call, &pos) => {}
            Flow::Arg { .. } | Flow::Escapes { .. } | Flow::Returned { .. } => escapes = true,
            Flow::Entered { call, .. } => entered.push(call as *const Expr),
            _ => {}
        });
        if !ok {
            return None;
        }
        // `loader.sampler.set_epoch(epoch)`.
        for (sc, a, attr) in attrs {
            let mut hit = false;
            prog.flows(sc, &a, attr, &|_, _| false, &mut |flow| {
                if let Flow::Method { name, .. } = flow {
                    hit |= name == "set_epoch";
                }
            });
            if hit {
                return None;
            }
        }
    }
    if escapes {
        return None;
    }
    // Handed on in a list (`Trainer(net, [loader])`), the loader is one of
    // the list's entries wherever the list goes; an entry's sampler told
    // the epoch anywhere in the program (`for loader in self.loaders:
    // loader.sampler.set_epoch(self.epoch)`) may be this one.
    if contained && told_through_entry(code, scope.m) {
        return None;
    }
    let Some((loop_scope, loop_stmt)) = training_loop else {
        return cycled.map(|c| Finding {
            epoch_loop: None,
            handle: None,
            loader: loader_names.first().map(|(s, t)| code.text(s.m, t.span).to_string()),
            anew: false,
            told_elsewhere: None,
            dropped: None,
            cycled: Some(c),
        });
    };
    // How the loop's function names the sampler: a local, `self.x`, or the
    // loader's `.sampler`.
    let handle = handle_in(code, loop_scope, &names)
        .or_else(|| param_handle(code, loop_scope, &names))
        .or_else(|| {
            if contained {
                return None;
            }
            handle_in(code, loop_scope, &loader_names)
                .or_else(|| param_handle(code, loop_scope, &loader_names))
                .map(|l| format!("{l}.sampler"))
        });
    // The first name that held the loader; where it was unpacked with
    // others (`data, loader = data_provider(args, "train")`), the one of
    // them the loop reads.
    let loader = loader_names.first().map(|(s, t)| {
        let first = code.text(s.m, t.span);
        let body = code.text(loop_scope.m, loop_stmt.span);
        let read = |n: &str| {
            body.match_indices(n).any(|(i, _)| {
                let word = |c: char| c.is_alphanumeric() || c == '_';
                !body[..i].ends_with(word) && !body[i + n.len()..].starts_with(word)
            })
        };
        let unpacked = prog.ancestors_of(*s, t).and_then(|a| match a.last() {
            Some(Anc::Expr(p)) if matches!(p.kind, ExprKind::Tuple(_)) => Some(*p),
            _ => None,
        });
        let sibling = unpacked.and_then(|tuple| {
            loader_names
                .iter()
                .filter(|(s2, t2)| s2 == s && tuple.span.start <= t2.span.start && t2.span.end <= tuple.span.end)
                .map(|(s2, t2)| code.text(s2.m, t2.span))
                .find(|n| read(n))
        });
        sibling.unwrap_or(first).to_string()
    });
    let dropped = names
        .iter()
        .find(|(s, t)| matches!(&t.kind, ExprKind::Name(n) if n == "_") && prog.same_program(s.m, loop_scope.m))
        .map(|(s, t)| (*s, t.span));
    Some(Finding {
        epoch_loop: Some((loop_scope, loop_stmt)),
        handle,
        loader,
        anew,
        told_elsewhere: set_epoch.first().copied(),
        dropped,
        cycled: None,
    })
}

/// Whether the function of `scope` has a loop that trains.
fn function_trains(code: &Code<'_>, scope: Scope) -> bool {
    let mut hit = false;
    code.prog.walk_stmts(scope, &mut |_, st| {
        if !hit && matches!(st.kind, StmtKind::For { .. } | StmtKind::While { .. }) {
            hit = loop_trains(code, scope, st);
        }
    });
    hit
}

/// The dict `d` of `d["sampler"]` / `d["batch_sampler"]`: an entry of a
/// loader's keyword arguments.
fn loader_entry(target: &Expr) -> Option<&str> {
    let ExprKind::Subscript { value, index } = &target.kind else {
        return None;
    };
    match (&value.kind, &index.kind) {
        (ExprKind::Name(d), ExprKind::Str(key)) if matches!(key.as_str(), "sampler" | "batch_sampler") => Some(d),
        _ => None,
    }
}

/// The calls of the function of `scope` for which `shuffle` (the
/// sampler's argument there) is true, where it compares a parameter with
/// a string (`mode == "train"`, `split != "val"`) and the call passes a
/// string for it; `None` when that is not the shape.
fn shuffling_calls(code: &Code<'_>, scope: Scope, shuffle: &Expr) -> Option<Vec<*const Expr>> {
    let prog = code.prog;
    // `shuffle=is_train`: the calls that pass `True`; `shuffle=mode ==
    // "train"`: those that pass the string compared with.
    let (param, want, equal) = match &shuffle.kind {
        ExprKind::Name(param) => (param, None, true),
        ExprKind::Compare { left, rest } => {
            let [(op, right)] = rest.as_slice() else { return None };
            let (ExprKind::Name(param), ExprKind::Str(want)) = (&left.kind, &right.kind) else {
                return None;
            };
            let equal = match op.as_str() {
                "==" => true,
                "!=" => false,
                _ => return None,
            };
            (param, Some(want), equal)
        }
        _ => return None,
    };
    let f = scope.func()?;
    // `shuffle=shuffle_flag`, a local set in the arms of a test of a
    // parameter (Time-Series-Library's `data_provider(args, flag)`: `if
    // flag == 'test': shuffle_flag = False else: shuffle_flag = True`).
    if want.is_none() && !prog.func(f)?.params.iter().any(|p| p.name == *param) {
        return flag_local_calls(code, f, param);
    }
    let index = unassigned_param(code, f, param)?;
    // A call passing something else (`split` handed on by another
    // helper) is left out: whether it shuffles is not known here.
    let mut calls = Vec::new();
    for (cs, call) in prog.call_sites(f) {
        let value = match prog.bind(f, call, index) {
            crate::training::program::Bound::Given(v) | crate::training::program::Bound::Default(v) => v,
            _ => continue,
        };
        let shuffles = match (&value.kind, want) {
            (ExprKind::Str(given), Some(want)) => (given == want) == equal,
            (ExprKind::Bool(b), None) => *b,
            // A name the caller sets per its own arguments (`shuffle =
            // True` under `if is_train:`, else `False`): the call may
            // shuffle, and where it does is told by the caller's own
            // callers (see `analyse`).
            (ExprKind::Name(n), None) => {
                // A local of the caller only: a parameter of it is decided
                // by its own callers, which this does not follow (dinov2's
                // `make_data_loader(shuffle=True)` default, where every
                // call that picks the distributed sampler passes `False`).
                let local = cs.func().is_some_and(|g| {
                    let defs = prog.local_defs(g, n);
                    !defs.is_empty()
                        && defs
                            .iter()
                            .all(|d| matches!(d, crate::training::program::LocalDef::Assign { .. }))
                });
                if !local {
                    continue;
                }
                let sources = prog.sources(cs, value);
                !sources.unknown
                    && sources
                        .terms
                        .iter()
                        .any(|t| t.proj.is_empty() && matches!(t.expr.kind, ExprKind::Bool(true)))
            }
            _ => continue,
        };
        if shuffles {
            calls.push(call as *const Expr);
        }
    }
    Some(calls)
}

/// The position of `f`'s parameter `name`, where `f` never binds it
/// again: each call's argument is its value throughout.
fn unassigned_param(code: &Code<'_>, f: crate::training::program::FuncId, name: &str) -> Option<usize> {
    let prog = code.prog;
    let index = prog.func(f)?.params.iter().position(|p| p.name == name)?;
    prog.local_defs(f, name)
        .iter()
        .all(|d| matches!(d, crate::training::program::LocalDef::Param(_)))
        .then_some(index)
}

/// An `if`/`elif` chain setting a flag: the parameter tested, each arm's
/// strings, whether equal means the arm, and the value it sets; the
/// `else`'s value.
type FlagChain = (String, Vec<(Vec<String>, bool, bool)>, Option<bool>);

/// The calls of `f` for which its local `name` is `True`, where every
/// assignment of `name` is a `True`/`False` in the arms of one `if`/`elif`
/// chain testing one parameter against strings (`flag == 'test'`, `mode
/// in ('val', 'test')`, `!=`) and each call passes a string for that
/// parameter. `None` for any other shape.
fn flag_local_calls(code: &Code<'_>, f: crate::training::program::FuncId, name: &str) -> Option<Vec<*const Expr>> {
    use crate::training::ast::{Stmt, StmtKind};
    let prog = code.prog;
    let defs = prog.local_defs(f, name);
    if defs.is_empty()
        || !defs.iter().all(|d| {
            matches!(d, crate::training::program::LocalDef::Assign { value, proj } if proj.is_empty() && matches!(value.kind, ExprKind::Bool(_)))
        })
    {
        return None;
    }
    // The value an arm gives: the one `name = <bool>` directly in it.
    let given = |arm: &[Stmt]| -> Option<bool> {
        let mut found = None;
        for st in arm {
            if let StmtKind::Assign { targets, value } = &st.kind {
                if targets.len() == 1 && matches!(&targets[0].kind, ExprKind::Name(t) if t == name) {
                    if let ExprKind::Bool(b) = value.kind {
                        if found.is_some() {
                            return None;
                        }
                        found = Some(b);
                    }
                }
            }
        }
        found
    };
    // One test: the parameter, the strings, and whether equal means true.
    let test_of = |e: &Expr| -> Option<(String, Vec<String>, bool)> {
        let ExprKind::Compare { left, rest } = &e.kind else {
            return None;
        };
        let [(op, right)] = rest.as_slice() else { return None };
        let ExprKind::Name(p) = &left.kind else { return None };
        let strings = match &right.kind {
            ExprKind::Str(x) => vec![x.clone()],
            ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => items
                .iter()
                .map(|i| match &i.kind {
                    ExprKind::Str(x) => Some(x.clone()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?,
            _ => return None,
        };
        let equal = match op.as_str() {
            "==" | "in" => true,
            "!=" | "not in" => false,
            _ => return None,
        };
        Some((p.clone(), strings, equal))
    };
    // The chain: (test, value) per arm, and the final `else`'s value.
    // Another `if` setting the flag, or a chain of another shape, leaves
    // the value unknown.
    let mut chain: Option<FlagChain> = None;
    let mut unknown = false;
    prog.walk_stmts(f.scope(), &mut |anc, st| {
        let StmtKind::If { test, body, orelse } = &st.kind else {
            return;
        };
        // The head of a chain only (an `elif` is read with its head).
        if let Some(crate::training::program::Anc::Stmt(parent)) = anc.last() {
            if let StmtKind::If { orelse: outer, .. } = &parent.kind {
                if outer.len() == 1 && std::ptr::eq(&outer[0], st) {
                    return;
                }
            }
        }
        let Some(first) = given(body) else { return };
        let Some((param, strings, equal)) = test_of(test).filter(|_| chain.is_none()) else {
            unknown = true;
            return;
        };
        let mut arms = vec![(strings, equal, first)];
        let mut rest: &[Stmt] = orelse;
        let last = loop {
            match rest {
                [one] if matches!(one.kind, StmtKind::If { .. }) => {
                    let StmtKind::If { test, body, orelse } = &one.kind else {
                        break None;
                    };
                    let (Some((p, strings, equal)), Some(v)) = (test_of(test), given(body)) else {
                        unknown = true;
                        break None;
                    };
                    if p != param {
                        unknown = true;
                        break None;
                    }
                    arms.push((strings, equal, v));
                    rest = orelse;
                }
                [] => break None,
                arm => break given(arm),
            }
        };
        chain = Some((param, arms, last));
    });
    if unknown {
        return None;
    }
    let (param, arms, last) = chain?;
    // Every assignment of the flag is one of the chain's (none hides in
    // a `with` or a loop).
    if defs.len() != arms.len() + usize::from(last.is_some()) {
        return None;
    }
    let index = unassigned_param(code, f, &param)?;
    let mut calls = Vec::new();
    for (_, call) in prog.call_sites(f) {
        let value = match prog.bind(f, call, index) {
            crate::training::program::Bound::Given(v) | crate::training::program::Bound::Default(v) => v,
            _ => continue,
        };
        let ExprKind::Str(passed) = &value.kind else { continue };
        let picked = arms
            .iter()
            .find(|(strings, equal, _)| strings.contains(passed) == *equal)
            .map(|(_, _, v)| *v)
            .or(last);
        if picked == Some(true) {
            calls.push(call as *const Expr);
        }
    }
    Some(calls)
}

/// Whether the function of `scope` hands the sampler on only by returning
/// it to its callers (`return DistributedSampler(…)`, or a local it
/// returns): in the function itself the sampler is only stored in names.
fn returned_only<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], sampler: &'p Expr) -> bool {
    let Some(f) = scope.func() else { return false };
    let mut only = true;
    let mut in_callers = false;
    code.prog.flows(scope, anc, sampler, &|_, _| false, &mut |flow| {
        let here = flow_scope(&flow).func() == Some(f);
        match flow {
            Flow::Stored { .. } if here => {}
            _ if here => only = false,
            _ => in_callers = true,
        }
    });
    only && in_callers
}

/// The scope a flow step happens in.
fn flow_scope(flow: &Flow<'_>) -> Scope {
    match flow {
        Flow::Arg { scope, .. }
        | Flow::Method { scope, .. }
        | Flow::Attr { scope, .. }
        | Flow::Stored { scope, .. }
        | Flow::Index { scope, .. }
        | Flow::Iterated { scope, .. }
        | Flow::Contained { scope, .. }
        | Flow::Returned { scope, .. }
        | Flow::Escapes { scope, .. }
        | Flow::Entered { scope, .. }
        | Flow::Called { scope, .. } => *scope,
    }
}

/// The loaders built from the dict `d` that the function of `scope`
/// fills and returns: `DataLoader(ds, **kwargs)` where the caller bound
/// `kwargs = f(…)`, or `DataLoader(ds, **f(…))` (only the calls in
/// `per_call`, where given).
fn splatted_loaders<'p>(
    code: &Code<'p>,
    scope: Scope,
    d: &str,
    per_call: Option<&[*const Expr]>,
) -> Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> {
    let prog = code.prog;
    let mut out = Vec::new();
    let Some(f) = scope.func() else { return out };
    let returned = prog.returns(f);
    if returned.is_empty() || !returned.iter().all(|r| matches!(&r.kind, ExprKind::Name(n) if n == d)) {
        return out;
    }
    let is_loader = |s: Scope, func: &Expr| {
        matches!(prog.callee(s, func), Callee::External(p)
            if p == "torch.utils.data.DataLoader" || super::loader_workers_not_persistent::is_monai_loader(&p))
    };
    for (cs, call) in prog.call_sites(f).into_iter().take(8) {
        if per_call.is_some_and(|calls| !calls.contains(&(call as *const Expr))) {
            continue;
        }
        // The name the caller binds the dict to (`kwargs = f(…)`), once.
        let mut bound: Option<String> = None;
        prog.walk_stmts(cs, &mut |_, st| {
            if let StmtKind::Assign { targets, value } = &st.kind {
                if let ([t], true) = (targets.as_slice(), std::ptr::eq(value, call)) {
                    if let ExprKind::Name(n) = &t.kind {
                        bound = Some(n.clone());
                    }
                }
            }
        });
        if let (Some(n), Some(g)) = (&bound, cs.func()) {
            if prog.local_defs(g, n).len() != 1 {
                continue;
            }
        }
        prog.walk_exprs(cs, &mut |anc, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            if !is_loader(cs, func) {
                return;
            }
            let takes = args.iter().any(|a| match a {
                crate::training::ast::Arg::StarStar(x) => {
                    std::ptr::eq(x, call) || matches!((&x.kind, &bound), (ExprKind::Name(n), Some(b)) if n == b)
                }
                _ => false,
            });
            if takes {
                out.push((cs, anc.to_vec(), e));
            }
        });
    }
    out
}

/// Whether some module of `m`'s programs calls `set_epoch` on a loader's
/// sampler (`loader.sampler.set_epoch(…)`, `.batch_sampler.set_epoch(…)`).
fn told_through_entry(code: &Code<'_>, m: ModId) -> bool {
    let prog = code.prog;
    prog.modules().any(|other| {
        prog.same_program(other, m) && {
            let text = prog.text(other);
            text.contains("sampler.set_epoch(")
        }
    })
}

/// Whether some module of `m`'s programs calls `set_epoch` on an attribute
/// named `attr` (`….train_sampler.set_epoch(…)`).
fn told_by_name(code: &Code<'_>, m: ModId, attr: &str) -> bool {
    let prog = code.prog;
    let needle = format!(".{attr}.set_epoch(");
    prog.modules()
        .any(|other| prog.same_program(other, m) && prog.text(other).contains(&needle))
}

/// External calls a sampler or loader may pass through without escaping.
fn benign(path: &str) -> bool {
    matches!(
        path,
        "builtins.len"
            | "builtins.print"
            | "builtins.isinstance"
            | "builtins.iter"
            | "builtins.next"
            | "builtins.enumerate"
            | "builtins.zip"
            | "builtins.hasattr"
            | "builtins.getattr"
            | "builtins.repr"
            | "builtins.str"
    ) || path.starts_with("logging.")
        || path.starts_with("tqdm.")
        || path.starts_with("itertools.")
}

/// The text naming a stored value in `scope`'s function: a local name of
/// it, or `self.x` in a method of the class that holds it.
fn handle_in(code: &Code<'_>, scope: Scope, stored: &[(Scope, &Expr)]) -> Option<String> {
    for (s, target) in stored {
        match &target.kind {
            ExprKind::Name(n) if *s == scope => return Some(n.clone()),
            ExprKind::Attribute { value, attr } => {
                let k = code.prog.self_class(*s, value)?;
                let f = scope.func()?;
                if code.prog.class_of(f) == Some(k) {
                    let me = code.prog.func(f)?.params.first()?.name.clone();
                    return Some(format!("{me}.{attr}"));
                }
            }
            _ => {}
        }
    }
    None
}

/// The parameter of `scope`'s function that every call hands one of the
/// `stored` names (`train(model, train_dataloader, …)` for the loader kept
/// as `train_dataloader` by the caller), where the function does not bind
/// it again.
fn param_handle(code: &Code<'_>, scope: Scope, stored: &[(Scope, &Expr)]) -> Option<String> {
    let prog = code.prog;
    let f = scope.func()?;
    let params = &prog.func(f)?.params;
    let sites = prog.call_sites(f);
    let mut found: Option<usize> = None;
    for (cs, call) in &sites {
        let held = |e: &Expr| {
            matches!(&e.kind, ExprKind::Name(a)
                if stored.iter().any(|(s, t)| s == cs && matches!(&t.kind, ExprKind::Name(n) if n == a)))
        };
        let at = (0..params.len())
            .find(|i| matches!(prog.bind(f, call, *i), crate::training::program::Bound::Given(v) if held(v)))?;
        match found {
            None => found = Some(at),
            Some(i) if i == at => {}
            Some(_) => return None,
        }
    }
    let i = found?;
    let name = &params.get(i)?.name;
    matches!(
        prog.local_defs(f, name).as_slice(),
        [crate::training::program::LocalDef::Param(_)]
    )
    .then(|| name.clone())
}

/// Whether a `for` passes over a wrapper of the code that starts what it
/// wraps over when it runs out (`InfiniteIterator(loader)`).
fn restarted_by_wrapper(code: &Code<'_>, scope: Scope, st: &Stmt) -> bool {
    let StmtKind::For { iter, .. } = &st.kind else {
        return false;
    };
    let prog = code.prog;
    let mut hit = false;
    let mut stack = Vec::new();
    crate::training::program::walk_expr(iter, &mut stack, &mut |_, n| {
        if let crate::training::program::Node::Expr(e) = n {
            if let ExprKind::Call { func, .. } = &e.kind {
                if let Callee::Class(k) = prog.callee(scope, func) {
                    hit |= prog.restarts_arg(k);
                }
            }
        }
    });
    hit
}

/// The epoch loop around an iteration: the innermost enclosing loop in the
/// same function, else the loop around a call of the function (up to three
/// callers up).
fn epoch_loop<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>]) -> Option<(Scope, &'p Stmt)> {
    // `anc` ends with the `for` over the loader itself.
    let inner = anc.iter().rev().find_map(|a| match a {
        Anc::Stmt(s) if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. }) => Some(*s),
        _ => None,
    });
    if let Some(s) = inner {
        return Some((scope, s));
    }
    let f = scope.func()?;
    caller_loop(code, f, 3)
}

/// The loop that starts an iterator over again: the innermost loop around
/// `iter(…)` in its own function, else a loop that calls that function
/// directly (`prefetcher.reset()` at the top of each epoch).
fn restart_loop<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>]) -> Option<(Scope, &'p Stmt)> {
    // Not a `for` over the iterator itself (`for b in iter(loader):`),
    // which starts it once per run of the loop.
    let inner = anc.iter().enumerate().rev().find_map(|(i, a)| match a {
        Anc::Stmt(s) => match &s.kind {
            StmtKind::For { iter, .. } => {
                // The call's own parent (the last ancestor) or an
                // expression on the way down is the `for`'s iterable.
                let in_iterable = match anc.get(i + 1) {
                    None => true,
                    Some(Anc::Expr(x)) => std::ptr::eq(*x, iter),
                    Some(_) => false,
                };
                (!in_iterable).then_some(*s)
            }
            StmtKind::While { .. } => Some(*s),
            _ => None,
        },
        _ => None,
    });
    match inner {
        Some(s) => Some((scope, s)),
        None => caller_loop(code, scope.func()?, 1),
    }
}

fn caller_loop<'p>(code: &Code<'p>, f: FuncId, depth: u32) -> Option<(Scope, &'p Stmt)> {
    if depth == 0 {
        return None;
    }
    for (s, call) in code.prog.call_sites(f) {
        let Some(anc) = code.prog.ancestors_of(s, call) else {
            continue;
        };
        // A loop that calls it at each pass (not one that iterates what a
        // single call returns, `for b in logger.log_every(loader, …)`).
        let hit = anc.iter().rev().find_map(|a| match a {
            Anc::Stmt(st) if st.repeats(call.span) => Some(*st),
            _ => None,
        });
        if let Some(st) = hit {
            return Some((s, st));
        }
        if let Some(g) = s.func() {
            if let Some(found) = caller_loop(code, g, depth - 1) {
                return Some(found);
            }
        }
    }
    None
}

fn report(cx: &Cx<'_>, code: &Code<'_>, out: &mut Sink<'_>, scope: Scope, sampler: &Expr, finding: Finding<'_>) {
    let name = |m: ModId| {
        let file = code.file(m);
        cx.compiled
            .sources
            .get(file)
            .map_or_else(String::new, |f| f.name.to_string())
    };
    let loader = finding
        .loader
        .map_or_else(|| "its DataLoader".to_string(), |l| format!("`{l}`"));
    if let Some((cs, cycle)) = finding.cycled {
        let d = out.at_loc(
            code.loc(scope.m, sampler.span),
            format!("DistributedSampler shuffles with seed + epoch, but {loader} is drawn from through `itertools.cycle`, which keeps the batches of the first pass and replays them: every later pass repeats epoch 0's batches in the same order (and the cycle holds a whole pass of batches in memory)"),
        );
        d.help("draw from the loader anew at each pass instead of cycling it: count the passes, call `sampler.set_epoch(passes)` and start `iter(loader)` again when it runs out");
        d.label(code.file(cs.m), cycle, "replays the first pass");
        return;
    }
    if finding.anew {
        let d = out.at_loc(
            code.loc(scope.m, sampler.span),
            format!("DistributedSampler shuffles with seed + epoch, but set_epoch is never called on it: each time the training loop starts {loader} over with `iter(…)`, the pass repeats the first pass's order, on every rank"),
        );
        d.help("count the passes and call `sampler.set_epoch(passes)` before each `iter(loader)`, so that every pass shuffles anew");
        if let Some((ls, st)) = finding.epoch_loop {
            d.label(
                code.file(ls.m),
                loop_header(st),
                "the training loop that starts the loader over",
            );
        }
        return;
    }
    let message = match (finding.told_elsewhere, finding.epoch_loop) {
        (Some(m), Some((ls, _))) => format!(
            "DistributedSampler shuffles with seed + epoch, but the program of {} never calls set_epoch on it (only {} does, in another program): every epoch of {loader} there repeats epoch 0's order",
            name(ls.m),
            name(m)
        ),
        _ => format!("DistributedSampler shuffles with seed + epoch, but set_epoch is never called on it: every epoch of {loader} repeats epoch 0's order"),
    };
    let d = out.at_loc(code.loc(scope.m, sampler.span), message);
    d.help("call `sampler.set_epoch(epoch)` at the start of every epoch, before iterating the loader");
    if let Some((ds, span)) = finding.dropped {
        d.label(
            code.file(ds.m),
            span,
            "the sampler is dropped here: keep it to call set_epoch",
        );
    }
    let Some((ls, st)) = finding.epoch_loop else { return };
    // Made in a helper (`sampler = data_sampler(dataset, shuffle=True, …)`):
    // the call in the epoch loop's module that makes it.
    let hands_back = |f: crate::training::program::FuncId| {
        code.prog.class_of(f).is_none()
            && code.prog.returns(f).iter().any(|r| {
                std::ptr::eq(*r, sampler)
                    || matches!(&r.kind, ExprKind::Name(n) if matches!(code.prog.local_defs(f, n).as_slice(),
                        [crate::training::program::LocalDef::Assign { value, .. }] if std::ptr::eq(*value, sampler)))
            })
    };
    if let Some(f) = scope.func().filter(|f| ls.func() != Some(*f) && hands_back(*f)) {
        let sites: Vec<_> = code
            .prog
            .call_sites(f)
            .into_iter()
            .filter(|(cs, _)| cs.m == ls.m)
            .collect();
        if let [(cs, call)] = sites.as_slice() {
            d.label(code.file(cs.m), call.span, "the sampler is made here");
        }
    }
    d.label(code.file(ls.m), loop_header(st), "the epoch loop");
    let (StmtKind::For { target, body, .. }, Some(handle)) = (&st.kind, finding.handle) else {
        return;
    };
    let ExprKind::Name(epoch) = &target.kind else { return };
    let Some(first) = body.first() else { return };
    let text = code.prog.text(ls.m);
    let line_start = text
        .get(..first.span.start)
        .map_or(0, |t| t.rfind('\n').map_or(0, |i| i + 1));
    let indent = text.get(line_start..first.span.start).unwrap_or("");
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return;
    }
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let edit = crate::edit::replace(
        code.file(ls.m),
        Span::at(first.span.start),
        format!("{handle}.set_epoch({epoch}){nl}{indent}"),
    );
    d.unsafe_fix(
        format!("call {handle}.set_epoch({epoch}) at the start of each epoch"),
        vec![edit],
    );
}

/// A loop statement's header: `for … in …` or `while …`.
fn loop_header(st: &Stmt) -> Span {
    let end = match &st.kind {
        StmtKind::For { iter, .. } => iter.span.end,
        StmtKind::While { test, .. } => test.span.end,
        _ => st.span.end,
    };
    Span::new(st.span.start, end)
}

/// Whether a loop's passes train: a `for` as [`trains`] says, a `while`
/// whose body reaches a backward pass or an optimizer step.
fn loop_trains(code: &Code<'_>, scope: Scope, st: &Stmt) -> bool {
    match &st.kind {
        StmtKind::While { body, .. } => body_trains(code, scope, body),
        _ => trains(code, scope, st),
    }
}
