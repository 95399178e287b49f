declare_rule! {
    /// ## What it checks
    /// `os.listdir`, `os.scandir`, `glob.glob`/`glob.iglob` and `Path.iterdir`,
    /// `Path.glob`, `Path.rglob` results that become the order ranks split samples
    /// by, in code that runs once per rank, without passing through `sorted(…)` or an
    /// in-place `.sort()`: a list sliced by rank (`files[rank::world]`), or a dataset
    /// attribute indexed in `__getitem__` of a dataset that a sharding sampler or
    /// loader consumes (`DistributedSampler`, `determined.pytorch.DataLoader`, a
    /// loader prepared by Accelerate or Lightning), possibly through `random_split`,
    /// `Subset` or `ConcatDataset`.
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
use crate::training::ast::{Expr, ExprKind};
use crate::training::program::{Anc, ArgPos, Callee, ClassId, Flow, Scope};
use crate::training::runtime::mentions_rank;

/// How a listing is used as a sample order.
enum Use {
    SlicedByRank,
    Dataset(ClassId, String),
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() {
        return;
    }
    for scope in code.scopes(&["listdir", "scandir", "glob", "iterdir"]) {
        if !code.rt.world_at(code.prog, scope.m).distributed() {
            continue;
        }
        let mut hits: Vec<(&Expr, String, Use, bool)> = Vec::new();
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
            if let Some(u) = order_use(&code, scope, anc, e, 0) {
                hits.push((e, name, u, fixable));
            }
        });
        for (call, name, u, fixable) in hits {
            let why = match &u {
                Use::SlicedByRank => "the list is sliced by rank".to_string(),
                Use::Dataset(k, attr) => {
                    let class = code.prog.class(*k).map_or(String::new(), |c| c.name.clone());
                    format!("`{class}` keeps it as `self.{attr}`, indexed in __getitem__, and a sharding sampler or loader hands ranks positions in it")
                }
            };
            let d = out.at_loc(
                code.loc(scope.m, call.span),
                format!("{name} returns directory order, which can differ between ranks, and {why}"),
            );
            d.help("sort the listing; shuffling afterwards does not help, as each rank shuffles its own order");
            if fixable {
                let text = code.text(scope.m, call.span);
                d.unsafe_fix(
                    "sort the listing",
                    vec![crate::edit::replace(
                        code.file(scope.m),
                        call.span,
                        format!("sorted({text})"),
                    )],
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
            _ => None,
        };
    }
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return None;
    };
    if !matches!(attr.as_str(), "iterdir" | "glob" | "rglob") {
        return None;
    }
    let s = code.prog.sources(scope, value);
    let is_path = s.terms.iter().any(|t| match &t.expr.kind {
        ExprKind::Call { func, .. } => {
            matches!(
                code.prog.external(t.scope, func).as_deref(),
                Some("pathlib.Path" | "pathlib.PurePath" | "pathlib.PosixPath")
            )
        }
        _ => false,
    });
    is_path.then(|| (format!("Path.{attr}()"), true))
}

/// How the listing at `e` becomes a sample order, if it does.
fn order_use<'p>(code: &Code<'p>, scope: Scope, anc: &[Anc<'p>], e: &'p Expr, depth: u32) -> Option<Use> {
    if depth > 3 {
        return None;
    }
    let prog = code.prog;
    let through = |callee: &Callee, pos: &ArgPos<'_>| match callee {
        Callee::External(p) => match p.as_str() {
            "builtins.list" | "builtins.tuple" => matches!(pos, ArgPos::Pos(0)),
            "builtins.filter" | "builtins.map" => matches!(pos, ArgPos::Pos(1)),
            _ => false,
        },
        _ => false,
    };
    let mut sorted = false;
    let mut by_rank = false;
    let mut comps: Vec<(Scope, Vec<Anc<'p>>, &'p Expr)> = Vec::new();
    let mut stored: Vec<(Scope, &'p Expr)> = Vec::new();
    prog.flows(scope, anc, e, &through, &mut |flow| match flow {
        Flow::Method { name: "sort", .. } => sorted = true,
        Flow::Arg {
            callee: Callee::External(p),
            ..
        } if p == "builtins.sorted" => sorted = true,
        Flow::Index { scope, index, .. }
            if matches!(index.kind, ExprKind::Slice { .. }) && mentions_rank(prog, scope, index) =>
        {
            by_rank = true;
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
        Flow::Stored { scope, target } => stored.push((scope, target)),
        _ => {}
    });
    if sorted {
        return None;
    }
    if by_rank {
        return Some(Use::SlicedByRank);
    }
    // `self.files = listing` in a dataset indexed in __getitem__.
    for (s, target) in &stored {
        let ExprKind::Attribute { value, attr } = &target.kind else {
            continue;
        };
        let Some(k) = prog.self_class(*s, value) else { continue };
        if sorted_in_place(code, k, attr) {
            return None;
        }
        if indexed_in_getitem(code, k, attr) && sharded_dataset(code, k) {
            return Some(Use::Dataset(k, attr.clone()));
        }
    }
    for (s, a, comp) in comps {
        if let Some(u) = order_use(code, s, &a, comp, depth + 1) {
            return Some(u);
        }
    }
    None
}

/// Whether a class sorts `self.<attr>` in place somewhere.
fn sorted_in_place(code: &Code<'_>, k: ClassId, attr: &str) -> bool {
    let Some(class) = code.prog.class(k) else { return false };
    let text = code.text(k.m, class.span);
    text.contains(&format!("self.{attr}.sort("))
}

/// Whether `__getitem__` indexes `self.<attr>` with a computed index.
fn indexed_in_getitem(code: &Code<'_>, k: ClassId, attr: &str) -> bool {
    let Some(f) = code.prog.method(k, "__getitem__") else {
        return false;
    };
    let mut found = false;
    code.prog.walk_exprs(f.scope(), &mut |_, e| {
        if let ExprKind::Subscript { value, index } = &e.kind {
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

/// Whether instances of a dataset class reach a sharding consumer.
fn sharded_dataset(code: &Code<'_>, k: ClassId) -> bool {
    let prog = code.prog;
    let Some(init) = prog.method(k, "__init__") else {
        return false;
    };
    let mut sharded = false;
    for (scope, call) in prog.call_sites(init) {
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
        let mut loaders: Vec<(Scope, Vec<Anc<'_>>, &Expr)> = Vec::new();
        prog.flows(scope, &anc, call, &through, &mut |flow| {
            if let Flow::Arg {
                scope: s,
                call: c,
                callee: Callee::External(p),
                pos,
                anc,
            } = flow
            {
                let first = matches!(pos, ArgPos::Pos(0) | ArgPos::Kw("dataset"));
                match p.as_str() {
                    "torch.utils.data.DistributedSampler" if first => sharded = true,
                    DET_LOADER if first => sharded = true,
                    "torch.utils.data.DataLoader" if first => loaders.push((s, anc, c)),
                    _ => {}
                }
            }
        });
        for (s, a, c) in loaders {
            if managed(code, s, &a, c) {
                sharded = true;
            }
        }
    }
    sharded
}
