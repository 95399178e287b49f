//! The program's pieces on small programs of two modules.

use std::sync::Arc;

use super::*;

/// A program of `files` (module name, text): the first is the entry file;
/// a name ending in `.__init__` is that package's `__init__.py`.
fn program(files: &[(&str, &str)]) -> Program {
    let files: Vec<TrainingFile> = files
        .iter()
        .enumerate()
        .map(|(i, (module, text))| TrainingFile {
            file: FileId(i as u32),
            path: format!("{}.py", module.replace('.', "/")),
            module: module.trim_end_matches(".__init__").to_string(),
            aliases: Vec::new(),
            package: module.ends_with(".__init__"),
            role: if i == 0 { FileRole::Entry } else { FileRole::Imported },
            parsed: Arc::new(ParsedFile::new(text)),
            fresh: true,
            programs: 1,
            scripts: 1,
        })
        .collect();
    Program::new(&files)
}

/// The function named `name` (top level or method) in module `m`.
fn func(p: &Program, m: ModId, name: &str) -> FuncId {
    for c in 0..p.chunk_count(m) {
        let Some(chunk) = p.chunk(m, c) else { continue };
        if let Some(f) = chunk.funcs.iter().position(|f| f.name == name) {
            return FuncId { m, c, f: f as u32 };
        }
    }
    panic!("no function {name}")
}

/// The class named `name`.
fn class(p: &Program, name: &str) -> ClassId {
    match p
        .classes()
        .into_iter()
        .find(|&k| p.class(k).is_some_and(|c| c.name == name))
    {
        Some(k) => k,
        None => panic!("no class {name}"),
    }
}

/// The calls in `scope`, in source order.
fn calls_in(p: &Program, scope: Scope) -> Vec<&Expr> {
    let mut out = Vec::new();
    p.walk_exprs(scope, &mut |_, e| {
        if matches!(e.kind, ExprKind::Call { .. }) {
            out.push(e);
        }
    });
    out
}

const TRAIN: &str = "import torch.distributed as dist\nfrom torch.utils.data.distributed import DistributedSampler\nfrom helpers import build, Base\n\n\nclass Trial(Base):\n    def train_batch(self, batch):\n        return build(batch)\n\n\ndef main():\n    n = 4\n    m = n\n    dist.barrier()\n    return build(m, 3)\n";
const HELPERS: &str = "from determined.pytorch import PyTorchTrial\n\n\nclass Base(PyTorchTrial):\n    def setup(self):\n        pass\n\n\ndef build(x, y=2):\n    return x\n";

#[test]
fn a_package_init_imports_relative_to_its_own_package() {
    // SimMIM's shape: `from data import build_loader`, which `data/__init__.py`
    // imports from `.data_simmim` (the package's own module, not a top-level one).
    let p = program(&[
        ("main", "from data import build\n\nbuild()\n"),
        ("data.__init__", "from .simmim import build\n"),
        ("data.simmim", "def build():\n    return 1\n"),
        ("simmim", "def build():\n    return 2\n"),
    ]);
    assert_eq!(p.module_name(1), "data");
    assert_eq!(p.global(0, "build", 0), Some(Sym::Func(func(&p, 2, "build"))));
    // A plain module's relative import starts from its parent package.
    let q = program(&[
        ("pkg.main", "from .simmim import build\n"),
        ("pkg.simmim", "def build():\n    return 1\n"),
    ]);
    assert_eq!(q.global(0, "build", 0), Some(Sym::Func(func(&q, 1, "build"))));
}

#[test]
fn a_package_binding_shadows_its_submodule_of_the_same_name() {
    // TransReID's shape: `datasets/__init__.py` re-exports the function of
    // its submodule `make_dataloader` under the submodule's own name.
    let p = program(&[
        (
            "main",
            "import datasets\nfrom datasets import make_dataloader\n\nmake_dataloader(1)\ndatasets.make_dataloader(2)\n",
        ),
        ("datasets.__init__", "from .make_dataloader import make_dataloader\n"),
        ("datasets.make_dataloader", "def make_dataloader(cfg):\n    return cfg\n"),
        ("other.__init__", "x = 1\n"),
        ("other.make_dataloader", "def make_dataloader(cfg):\n    return cfg\n"),
        ("user", "from other import make_dataloader\n"),
    ]);
    let f = func(&p, 2, "make_dataloader");
    assert_eq!(p.global(0, "make_dataloader", 0), Some(Sym::Func(f)));
    let main = Scope { m: 0, c: 0, f: None };
    let calls: Vec<Callee> = (0..p.chunk_count(0))
        .flat_map(|c| calls_in(&p, Scope { c, ..main }))
        .map(|call| match &call.kind {
            ExprKind::Call { func, .. } => p.callee(Scope { c: 0, ..main }, func),
            _ => Callee::Unknown,
        })
        .collect();
    assert!(calls.iter().all(|c| *c == Callee::Func(f)), "{calls:?}");
    // A package that does not bind the name: the submodule.
    assert_eq!(p.global(5, "make_dataloader", 0), Some(Sym::Module(4)));
}

#[test]
fn star_imports_of_program_modules_bind_what_those_modules_bind() {
    // EfficientFormer's shape: `from util import *`, and `util/__init__.py`
    // star-imports its own modules.
    let p = program(&[
        (
            "main",
            "from util import *\nfrom timm.utils import *\n\ntrain_one_epoch()\n",
        ),
        ("util.__init__", "from .engine import *\nfrom .samplers import *\n"),
        ("util.engine", "def train_one_epoch():\n    return 1\n"),
        ("util.samplers", "class RASampler:\n    pass\n"),
    ]);
    assert_eq!(
        p.global(0, "train_one_epoch", 0),
        Some(Sym::Func(func(&p, 2, "train_one_epoch")))
    );
    assert_eq!(p.global(0, "RASampler", 0), Some(Sym::Class(class(&p, "RASampler"))));
    // What no program module binds stays unbound; the outside star import
    // names a candidate path for it.
    assert_eq!(p.global(0, "random_seed", 0), None);
    let scope = Scope { m: 0, c: 0, f: None };
    assert_eq!(
        p.star_paths(scope, "random_seed"),
        vec!["timm.utils.random_seed".to_string()]
    );
}

#[test]
fn names_resolve_through_imports_of_the_program_and_outside_it() {
    let p = program(&[("train", TRAIN), ("helpers", HELPERS)]);
    assert_eq!(p.module_name(1), "helpers");
    assert_eq!(p.global(0, "dist", 0), Some(Sym::External("torch.distributed".into())));
    // The canonical name of an alias a module exports.
    assert_eq!(
        p.global(0, "DistributedSampler", 0),
        Some(Sym::External("torch.utils.data.DistributedSampler".into()))
    );
    assert_eq!(
        normalize("torch.utils.data.distributed.DistributedSampler"),
        "torch.utils.data.DistributedSampler"
    );
    // `build` is the helper module's function.
    assert_eq!(p.global(0, "build", 0), Some(Sym::Func(func(&p, 1, "build"))));
    assert_eq!(p.global(0, "missing", 0), None);
}

#[test]
fn classes_know_their_bases_and_methods() {
    let p = program(&[("train", TRAIN), ("helpers", HELPERS)]);
    let (trial, base) = (class(&p, "Trial"), class(&p, "Base"));
    assert_eq!(p.bases(trial), [base]);
    assert_eq!(p.external_bases(base), ["determined.pytorch.PyTorchTrial"]);
    // Through the program's own base class.
    assert!(p.derives_from(trial, &["determined.pytorch.PyTorchTrial"]));
    assert!(!p.derives_from(trial, &["determined.pytorch.deepspeed.DeepSpeedTrial"]));
    assert_eq!(p.method(trial, "train_batch"), Some(func(&p, 0, "train_batch")));
    // Inherited.
    assert_eq!(p.method(trial, "setup"), Some(func(&p, 1, "setup")));
    assert_eq!(p.class_of(func(&p, 0, "train_batch")), Some(trial));
    assert_eq!(p.classes_mentioning(&["PyTorchTrial"]), [base]);
}

/// Methods are looked up in Python's order (C3): in a diamond, a class's
/// second base comes before the base both derive from; bases that
/// contradict each other still give each class once.
#[test]
fn methods_resolve_in_python_method_resolution_order() {
    let text = "class A:\n    def step(self):\n        pass\n\n\nclass B(A):\n    pass\n\n\nclass C(A):\n    def step(self):\n        pass\n\n\nclass D(B, C):\n    pass\n\n\nclass E(A, B):\n    pass\n";
    let p = program(&[("zoo", text)]);
    let [a, b, c, d, e] = ["A", "B", "C", "D", "E"].map(|n| class(&p, n));
    assert_eq!(p.ancestors(d), [d, b, c, a]);
    let step_of = |k: ClassId| p.method(k, "step").and_then(|f| p.class_of(f));
    assert_eq!(step_of(d), Some(c));
    assert_eq!(step_of(b), Some(a));
    // `class E(A, B)` is refused by Python (A before its own subclass).
    assert_eq!(p.ancestors(e), [e, a, b]);
    let (Some(base_step), Some(c_step)) = (p.method(a, "step"), p.method(c, "step")) else {
        panic!("no step")
    };
    assert_eq!(p.overrides(base_step), [c_step]);
}

#[test]
fn calls_find_their_callee_sites_and_bound_arguments() {
    let p = program(&[("train", TRAIN), ("helpers", HELPERS)]);
    let build = func(&p, 1, "build");
    let main = func(&p, 0, "main").scope();
    let calls = calls_in(&p, main);
    assert_eq!(calls.len(), 2);
    let callee = |e: &Expr| match &e.kind {
        ExprKind::Call { func, .. } => p.callee(main, func),
        _ => Callee::Unknown,
    };
    assert_eq!(callee(calls[0]), Callee::External("torch.distributed.barrier".into()));
    assert_eq!(callee(calls[1]), Callee::Func(build));
    // Called from `main` and from `Trial.train_batch`.
    let mut sites: Vec<Scope> = p.call_sites(build).into_iter().map(|(s, _)| s).collect();
    sites.sort();
    assert_eq!(sites, [func(&p, 0, "train_batch").scope(), main]);
    // `build(m, 3)`: `x` is given, `y` given 3; `build(batch)`: `y` takes
    // its default.
    assert!(matches!(p.bind(build, calls[1], 0), Bound::Given(e) if e.kind == ExprKind::Name("m".into())));
    assert!(matches!(p.bind(build, calls[1], 1), Bound::Given(e) if e.kind == ExprKind::Int(3)));
    let other = calls_in(&p, func(&p, 0, "train_batch").scope());
    assert!(matches!(p.bind(build, other[0], 1), Bound::Default(e) if e.kind == ExprKind::Int(2)));
}

#[test]
fn values_come_from_local_names_and_go_into_calls() {
    let p = program(&[("train", TRAIN), ("helpers", HELPERS)]);
    let main = func(&p, 0, "main");
    assert!(p.is_local(main, "m"));
    assert!(!p.is_local(main, "dist"));
    assert!(
        matches!(p.local_defs(main, "m")[..], [LocalDef::Assign { value, .. }] if value.kind == ExprKind::Name("n".into()))
    );
    // `m` comes from `n = 4`.
    let calls = calls_in(&p, main.scope());
    let ExprKind::Call { args, .. } = &calls[1].kind else {
        panic!("not a call")
    };
    let Some(Arg::Pos(first)) = args.first() else {
        panic!("no argument")
    };
    let sources = p.sources(main.scope(), first);
    assert!(!sources.unknown);
    let ints: Vec<&ExprKind> = sources.terms.iter().map(|t| &t.expr.kind).collect();
    assert_eq!(ints, [&ExprKind::Int(4)]);
    // `build` returns its parameter.
    let returns = p.returns(func(&p, 1, "build"));
    assert_eq!(returns.len(), 1);
    assert_eq!(returns[0].kind, ExprKind::Name("x".into()));
}

#[test]
fn keys_of_dict_calls_and_int_keyed_literals_are_read() {
    let text = "CONFIGS = {1: dict(W=5, B=2), 'x': dict(W=7)}\n\ndef main(extra):\n    use(CONFIGS[1]['W'], CONFIGS['x']['W'], dict(extra, W=3)['W'], dict(B=1)['W'], CONFIGS[2]['W'])\n";
    let p = program(&[("train", text)]);
    let main = func(&p, 0, "main");
    let calls = calls_in(&p, main.scope());
    let ExprKind::Call { args, .. } = &calls[0].kind else {
        panic!("not a call")
    };
    let read = |i: usize| {
        let Some(Arg::Pos(e)) = args.get(i) else {
            panic!("no argument {i}")
        };
        let s = p.sources(main.scope(), e);
        (
            s.unknown,
            s.terms.iter().map(|t| t.expr.kind.clone()).collect::<Vec<_>>(),
        )
    };
    // An int key of a literal, then a keyword of `dict(…)`.
    assert_eq!(read(0), (false, vec![ExprKind::Int(5)]));
    assert_eq!(read(1), (false, vec![ExprKind::Int(7)]));
    // A positional mapping may hold the key too; a key no keyword gives,
    // or a literal lacks, is not known.
    assert!(read(2).0 || read(2).1.iter().all(|k| *k != ExprKind::Int(3)));
    assert!(read(3).0);
    assert!(read(4).0);
}

#[test]
fn walks_visit_every_statement_of_a_scope_with_its_ancestors() {
    let p = program(&[("train", TRAIN), ("helpers", HELPERS)]);
    let main = func(&p, 0, "main").scope();
    let mut stmts = 0;
    p.walk_stmts(main, &mut |anc, _| {
        assert!(anc.is_empty());
        stmts += 1;
    });
    assert_eq!(stmts, 4);
    // `dist.barrier` sits inside its call's statement and the call.
    let mut depth = None;
    p.walk_exprs(main, &mut |anc, e| {
        if matches!(&e.kind, ExprKind::Attribute { attr, .. } if attr == "barrier") {
            depth = Some(anc.len());
        }
    });
    assert_eq!(depth, Some(2));
}

#[test]
fn a_function_handed_to_a_launcher_is_called_where_the_launcher_calls_it() {
    const LAUNCH: &str = "import torch.multiprocessing as mp\n\
def run(local_rank, func, cfg):\n    func(cfg=cfg)\n\
def launch_job(cfg, func):\n    if cfg.gpus > 1:\n        mp.spawn(run, args=(func, cfg), nprocs=cfg.gpus)\n    else:\n        func(cfg=cfg)\n\
def train(cfg):\n    return cfg\n\
def main():\n    launch_job(cfg=load(), func=train)\n";
    let p = program(&[("launch", LAUNCH)]);
    let train = func(&p, 0, "train");
    let sites = p.call_sites(train);
    // `func(cfg=cfg)` in `launch_job` and in the spawned `run`.
    assert_eq!(sites.len(), 2);
    let callers: Vec<_> = sites
        .iter()
        .filter_map(|(s, _)| s.func())
        .map(|f| p.func(f).map(|x| x.name.clone()))
        .collect();
    assert!(callers.contains(&Some("run".into())));
    assert!(callers.contains(&Some("launch_job".into())));
    assert!(matches!(p.bind(train, sites[0].1, 0), Bound::Given(e) if e.kind == ExprKind::Name("cfg".into())));
    assert!(!p.escapes(train));
}

#[test]
fn a_function_handed_where_its_calls_are_not_followed_escapes() {
    const PROC: &str = "from torch.multiprocessing import Process\n\
def init(rank, fn):\n    fn(rank)\n\
def train(rank):\n    return rank\n\
def main(n):\n    for r in range(n):\n        Process(target=init, args=(r, train)).start()\n    init(0, train)\n";
    let p = program(&[("train", PROC)]);
    let init = func(&p, 0, "init");
    // The direct call is seen; the Process target's calls are not.
    assert_eq!(p.call_sites(init).len(), 1);
    assert!(p.escapes(init));
    // `train` is handed to `init` at a call that is followed (`fn(rank)`
    // there), and in the Process's `args`, which is not.
    let train = func(&p, 0, "train");
    assert_eq!(p.call_sites(train).len(), 1);
    assert!(p.escapes(train));
}

#[test]
fn a_spawn_call_is_a_call_of_its_function_with_the_rank_first() {
    const SPAWN: &str = "import torch.multiprocessing as mp\n\
def worker(gpu, workers, args, extra=4):\n    return workers\n\
def main():\n    mp.spawn(worker, (8, cfg), 2)\n    mp.spawn(fn=worker, args=(3,), nprocs=2)\n    mp.spawn(worker, other, 2)\n";
    let p = program(&[("train", SPAWN)]);
    let worker = func(&p, 0, "worker");
    let sites = p.call_sites(worker);
    assert_eq!(sites.len(), 3);
    let (s, first) = sites[0];
    assert!(p.spawns(s, first));
    assert!(matches!(p.bind(worker, first, 0), Bound::Unknown));
    assert!(matches!(p.bind(worker, first, 1), Bound::Given(e) if e.kind == ExprKind::Int(8)));
    assert!(matches!(p.bind(worker, first, 2), Bound::Given(e) if e.kind == ExprKind::Name("cfg".into())));
    assert!(matches!(p.bind(worker, first, 3), Bound::Default(e) if e.kind == ExprKind::Int(4)));
    assert!(matches!(p.bind(worker, sites[1].1, 1), Bound::Given(e) if e.kind == ExprKind::Int(3)));
    assert!(matches!(p.bind(worker, sites[1].1, 2), Bound::Missing));
    assert!(matches!(p.bind(worker, sites[2].1, 1), Bound::Unknown));
}

#[test]
fn a_starred_pair_is_read_past_where_its_length_is_known() {
    // UNITER's `build_dataloader(*dataset, is_train, opts)`, where every
    // dataset builder returns `(dataset, collate_fn)`.
    const STAR: &str = "def build(ds, collate, train, opts):\n    return opts\n\
def make(k):\n    if k:\n        return (1, 2)\n    return (3, 4)\n\
def odd(k):\n    if k:\n        return (1, 2)\n    return (3,)\n\
def main(opts):\n    pair = make(0)\n    build(*pair, True, opts)\n    other = odd(0)\n    build(*other, True, opts)\n";
    let p = program(&[("train", STAR)]);
    let build = func(&p, 0, "build");
    let sites = p.call_sites(build);
    assert_eq!(sites.len(), 2);
    let (s, known) = sites[0];
    assert!(matches!(p.bind_at(s, build, known, 3), Bound::Given(e) if e.kind == ExprKind::Name("opts".into())));
    assert!(matches!(p.bind_at(s, build, known, 2), Bound::Given(e) if e.kind == ExprKind::Bool(true)));
    // A spread item, and a call without the scope: not known.
    assert!(matches!(p.bind_at(s, build, known, 1), Bound::Unknown));
    assert!(matches!(p.bind(build, known, 3), Bound::Unknown));
    // Pairs and singles: the length is not known.
    let (s, unknown) = sites[1];
    assert!(matches!(p.bind_at(s, build, unknown, 3), Bound::Unknown));
}

/// The methods called on what the generator `gen` yields at its `yield`
/// (element `i` of a yielded tuple, or the whole value), and whether it
/// escapes.
fn yielded_flows(p: &Program, gen: FuncId, i: Option<usize>) -> (Vec<String>, bool) {
    let mut value = None;
    p.walk_exprs(gen.scope(), &mut |_, e| {
        if let ExprKind::Yield(Some(v)) = &e.kind {
            value = Some(match (&v.kind, i) {
                (ExprKind::Tuple(items), Some(i)) => &items[i],
                _ => &**v,
            });
        }
    });
    let Some(value) = value else { panic!("no yield") };
    let Some(anc) = p.ancestors_of(gen.scope(), value) else {
        panic!("no ancestors")
    };
    let (mut methods, mut escapes) = (Vec::new(), false);
    p.flows(gen.scope(), &anc, value, &|_, _| false, &mut |flow| match flow {
        Flow::Method { name, .. } => methods.push(name.to_string()),
        Flow::Escapes { .. } => escapes = true,
        _ => {}
    });
    (methods, escapes)
}

#[test]
fn what_a_generator_yields_reaches_the_loops_over_its_calls() {
    let text = "def pairs(files):\n    for f in files:\n        s = make(f)\n        yield f, s\n\n\ndef one(files):\n    for f in files:\n        yield make(f)\n\n\ndef handed(files):\n    for f in files:\n        yield make(f)\n\n\ndef main(files):\n    for _, s in pairs(files):\n        s.set_epoch(0)\n    x = next(one(files))\n    x.close()\n    run(handed)\n";
    let p = program(&[("train", text)]);
    // Element 1 of the tuple is the loop's second target.
    assert_eq!(
        yielded_flows(&p, func(&p, 0, "pairs"), Some(1)),
        (vec!["set_epoch".to_string()], false)
    );
    // `next(gen(…))` bound to a name.
    assert_eq!(
        yielded_flows(&p, func(&p, 0, "one"), None),
        (vec!["close".to_string()], false)
    );
    // Handed on by name, called nowhere the code shows: it escapes.
    assert_eq!(yielded_flows(&p, func(&p, 0, "handed"), None), (Vec::new(), true));
}
