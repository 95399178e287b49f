declare_rule! {
    /// ## What it checks
    /// In code that runs once per rank, when the experiment's environment does not
    /// fix `PYTHONHASHSEED`: (a) iteration over a set of strings — a set literal,
    /// a set comprehension, `set(…)`/`frozenset(…)` of strings — that decides the
    /// order in which modules or parameters are registered (`nn.ModuleDict`,
    /// `nn.ModuleList`, `ParameterDict`, `ParameterList`, `nn.Sequential`,
    /// `add_module`, `register_parameter`/`register_buffer`, `setattr(self, …)`;
    /// not a module that holds no parameter or buffer, such as the `nn.Identity()`
    /// put in place of a classifier head) or
    /// assigns ids (`{w: i for i, w in enumerate(words)}`); (b) `hash(x) % n` of a
    /// string where `n` is the world size or the result is compared with the rank;
    /// (c) `list(S)` of a set of strings (also an intersection with one, `set(d) &
    /// names`, or a set of names made from a listing) that becomes a sample order:
    /// kept by a dataset whose `__getitem__` indexes it where a sharding sampler
    /// splits the dataset, or sliced by rank — as unsorted directory listings are
    /// (T110). A seeded shuffle after it does not help: it starts from each
    /// rank's own order.
    ///
    /// ## Why
    /// String hashes are randomized per process unless `PYTHONHASHSEED` is set when
    /// Python starts, so each rank iterates the set in its own order. Modules
    /// registered in different orders give `DistributedDataParallel` parameter lists
    /// that no longer line up (same shapes: gradients of different layers are
    /// averaged together; different shapes: an error at start-up), ids assigned in
    /// set order differ between ranks, and `hash(name) % world_size` makes ranks
    /// disagree about which rank owns a file. Iterate `sorted(…)`, and shard with a
    /// stable hash such as `zlib.crc32`. Sets of integers, dictionaries, `sorted`,
    /// membership tests and `hashlib`/`zlib` hashes are left alone.
    ///
    /// ## Example
    /// ```python
    /// for task in set(TASKS):                         # warning; fix: sorted(set(TASKS))
    ///     self.heads[task] = nn.Linear(256, 1)
    /// mine = [f for f in files if hash(f) % world == rank]   # warning: use zlib.crc32
    /// ```
    pub static HASH_ORDER_DEPENDENT_STRUCTURE = {
        code: "T109",
        name: "hash-order-dependent-structure",
        family: Training,
        severity: Warning,
        summary: "Module/parameter order or rank assignment depends on per-process string hashing",
    };
}

use super::training_support::{code, env_assignments, plan_environment, Code};
use super::{Cx, Sink};
use crate::training::ast::{Arg, CompKind, Expr, ExprKind, Stmt, StmtKind};
use crate::training::program::{walk_expr, walk_stmt, Anc, Node, Scope};
use crate::training::runtime::{self, is_world, mentions_rank, pos};

const REGISTRIES: &[&str] = &[
    "torch.nn.ModuleDict",
    "torch.nn.ModuleList",
    "torch.nn.ParameterDict",
    "torch.nn.ParameterList",
    "torch.nn.Sequential",
];

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some(code) = code(cx) else { return };
    if !code.rt.distributed_somewhere() || code.cfg.sets_env("PYTHONHASHSEED") || plan_environment(cx) {
        return;
    }
    // A value assigned before new interpreters start counts as set.
    if !env_assignments(&code, "PYTHONHASHSEED").is_empty()
        && runtime::any_call(code.prog, &["spawn"], |p| p == "torch.multiprocessing.spawn")
    {
        return;
    }
    for scope in candidate_scopes(&code) {
        if !code.rt.world_at(code.prog, scope.m).distributed() {
            continue;
        }
        let mut hits: Vec<(&Expr, String, bool)> = Vec::new();
        // (a) loops over a set that register modules.
        code.prog.walk_stmts(scope, &mut |_, s| {
            let StmtKind::For { target, iter, body, .. } = &s.kind else {
                return;
            };
            let ExprKind::Name(var) = &target.kind else { return };
            // What the loop does first: following the iterated value to a
            // set can take long, and most loops register nothing.
            if registers(&code, scope, body, var) && string_set(&code, scope, iter, 0) {
                hits.push((iter, "the modules registered in this loop".into(), true));
            }
        });
        code.prog.walk_exprs(scope, &mut |anc, e| match &e.kind {
            ExprKind::Comp { gens, elt, value, kind } => {
                let Some(g) = gens.first() else { return };
                // `{w: i for i, w in enumerate(S)}`: ids in set order.
                if let ExprKind::Call { func, args, .. } = &g.iter.kind {
                    if code.prog.external(scope, func).as_deref() == Some("builtins.enumerate") {
                        if let Some(inner) = pos(args, 0) {
                            if *kind == CompKind::Dict && string_set(&code, scope, inner, 0) {
                                hits.push((inner, "the ids assigned here".into(), true));
                            }
                        }
                        return;
                    }
                }
                let vars = names(&g.target);
                let used = vars
                    .iter()
                    .any(|v| v != "_" && (mentions(elt, v) || value.as_ref().is_some_and(|x| mentions(x, v))));
                if used && registry_arg(&code, scope, anc) && string_set(&code, scope, &g.iter, 0) {
                    hits.push((&g.iter, "the modules this registers".into(), true));
                }
            }
            // (b) hash(str) % world, or compared with the rank.
            ExprKind::BinOp { left, op, right } if op == "%" => {
                let ExprKind::Call { func, args, .. } = &left.kind else {
                    return;
                };
                if code.prog.external(scope, func).as_deref() != Some("builtins.hash") {
                    return;
                }
                let Some(x) = pos(args, 0) else { return };
                if !is_string(&code, scope, x, anc, 0) {
                    return;
                }
                let by_world = is_world(code.prog, scope, right);
                let vs_rank = match anc.last() {
                    Some(Anc::Expr(p)) => {
                        matches!(&p.kind, ExprKind::Compare { .. }) && mentions_rank(code.prog, scope, p)
                    }
                    _ => false,
                };
                if by_world || vs_rank {
                    hits.push((left, "which rank owns each item".into(), false));
                }
            }
            _ => {}
        });
        // (c) `list(S)` of a set of strings kept as a dataset's samples that
        // a sharding sampler splits, or sliced by rank.
        let mut samples: Vec<(&Expr, &Expr, String)> = Vec::new();
        code.prog.walk_exprs(scope, &mut |anc, e| {
            let ExprKind::Call { func, args, .. } = &e.kind else {
                return;
            };
            if !matches!(
                code.prog.external(scope, func).as_deref(),
                Some("builtins.list" | "builtins.tuple")
            ) || args.len() != 1
            {
                return;
            }
            let Some(set) = pos(args, 0) else { return };
            if !string_set(&code, scope, set, 0) {
                return;
            }
            if let Some(u) = super::unsorted_directory_listing::order_use(&code, scope, anc, e, 0) {
                samples.push((e, set, sample_use(&code, &u)));
            }
        });
        for (call, set, what) in samples {
            let d = out.at_loc(
                code.loc(scope.m, call.span),
                format!("this list takes the order of a set of strings, which follows each process's string-hash seed, and {what}: each rank builds its sample list in its own order, so the ranks' shards overlap and miss samples"),
            );
            d.help("sort it (`sorted(…)` instead of `list(…)`), or set PYTHONHASHSEED in the experiment's environment; shuffling afterwards with a shared seed does not help, as each rank shuffles its own order");
            d.unsafe_fix(
                "sort the set's items",
                vec![code.sorted_edit(scope.m, call.span, set.span)],
            );
        }
        for (at, what, is_set) in hits {
            let message = if is_set {
                format!("iterating a set of strings decides the order of {what}; set order follows each process's string-hash seed, so ranks build it differently")
            } else {
                format!("hash() of a string differs between processes, so ranks disagree on {what}")
            };
            let d = out.at_loc(code.loc(scope.m, at.span), message);
            if is_set {
                d.help("iterate sorted(...) of the set, or set PYTHONHASHSEED in the experiment's environment");
                d.unsafe_fix(
                    "iterate the set in sorted order",
                    vec![code.sorted_edit(scope.m, at.span, at.span)],
                );
            } else {
                d.help("shard with a stable hash such as zlib.crc32(name.encode()), or set PYTHONHASHSEED in the experiment's environment");
            }
        }
    }
}

/// The scopes a finding can be in: chunks that call `hash(`, and chunks
/// that register modules (or number things with `enumerate`) and iterate
/// something that may be a set (see [`iterates_set`]). Only these are
/// parsed.
fn candidate_scopes(code: &Code<'_>) -> Vec<Scope> {
    let prog = code.prog;
    let set_like = |e: &Expr| match &e.kind {
        ExprKind::Set(_)
        | ExprKind::Comp {
            kind: CompKind::Set, ..
        } => true,
        ExprKind::Call { func, .. } => matches!(&func.kind, ExprKind::Name(n) if n == "set" || n == "frozenset"),
        _ => false,
    };
    let mut set_names: Vec<String> = Vec::new();
    for m in prog.code_modules() {
        for (name, value) in prog.module_assignments(m) {
            if set_like(value) {
                set_names.push(name.to_string());
            }
        }
    }
    let mut out = Vec::new();
    for m in prog.code_modules() {
        let mut words = prog.needles_for(m, REGISTRIES);
        words.extend(
            [
                "add_module",
                "register_parameter",
                "register_buffer",
                "register_module",
                "setattr",
                "append",
                "enumerate",
            ]
            .map(String::from),
        );
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let registering = prog.chunks_with_words(m, &words);
        let Some(parsed) = prog.parsed(m) else { continue };
        for c in 0..prog.chunk_count(m) {
            let text = parsed
                .chunks()
                .get(c as usize)
                .and_then(|i| parsed.text().get(i.range.clone()))
                .unwrap_or("");
            if text.contains("hash(") || (registering.contains(&c) && iterates_set(text, &set_names)) || lists_set(text)
            {
                out.extend(prog.scopes(m, c));
            }
        }
    }
    out
}

/// Whether a chunk's text may iterate a set: `in`/`enumerate(` followed by
/// a set display or comprehension (`{`), `set(`, `frozenset(`, or a name
/// (or `self.` attribute) assigned one of those in the chunk or at module
/// level (`module_sets`). Dicts pass too; what is not a set is sorted out
/// once parsed.
fn iterates_set(text: &str, module_sets: &[String]) -> bool {
    static PATTERNS: std::sync::OnceLock<Option<(regex::Regex, regex::Regex)>> = std::sync::OnceLock::new();
    let Some((iterated, assigned)) = PATTERNS
        .get_or_init(|| {
            // A name is ASCII word characters or any non-ASCII character: a
            // superset of Python's identifiers that compiles to a small
            // automaton (Unicode's `\w` cost more than the rest of the rule).
            let iterated =
                regex::Regex::new(r"(?-u:\b)(?:in\s*(?:enumerate\(\s*)?|enumerate\(\s*)(?:self\.)?(\{|set\(|frozenset\(|(?:(?-u:\w)|[^\x00-\x7F])+)")
                    .ok()?;
            let assigned =
                regex::Regex::new(r"(?:self\.)?((?:(?-u:\w)|[^\x00-\x7F])+)\s*(?::[^=\n]*)?=\s*(?:\{|set\(|frozenset\()").ok()?;
            Some((iterated, assigned))
        })
        .as_ref()
    else {
        // Without the patterns, every registering chunk is looked at.
        return true;
    };
    if !iterated.is_match(text) {
        return false;
    }
    let local: Vec<&str> = assigned
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    iterated
        .captures_iter(text)
        .any(|c| match c.get(1).map(|m| m.as_str()) {
            Some("{" | "set(" | "frozenset(") => true,
            Some(name) => local.contains(&name) || module_sets.iter().any(|s| s == name),
            None => false,
        })
}

/// Whether a chunk's text may make a list of a set: `list(set(`,
/// `list(frozenset(`, `list({`, or `list(` of a set operation (`&`, `|`).
/// What is not a set of strings is sorted out once parsed.
fn lists_set(text: &str) -> bool {
    text.match_indices("list(").any(|(i, _)| {
        let rest = text.get(i + 5..).unwrap_or("");
        let line = rest.split('\n').next().unwrap_or("");
        let rest = rest.trim_start();
        rest.starts_with("set(") || rest.starts_with("frozenset(") || rest.starts_with('{') || line.contains(" & ")
    })
}

/// How a sample list is used, for the message.
fn sample_use(code: &Code<'_>, u: &super::unsorted_directory_listing::Use) -> String {
    use super::unsorted_directory_listing::Use;
    let name = |k| code.prog.class(k).map_or(String::new(), |c| c.name.clone());
    match u {
        Use::SlicedByRank => {
            "each rank takes its items by their position in the list (sliced or indexed by the rank)".to_string()
        }
        Use::EvalSets => {
            "the evaluation datasets made from its items are kept in that order in the dict handed to the Trainer as `eval_dataset`, which evaluates them one after another".to_string()
        }
        Use::DataFiles => "`load_dataset(data_files=…)` reads the files in that order".to_string(),
        Use::Concatenated => "the datasets made from its items are joined in that order".to_string(),
        Use::Joined => "the datasets made from its items are joined in that order by `ConcatDataset`".to_string(),
        Use::Dataset(k, attr, via, _) => {
            let indexed = match via {
                None => "indexed in __getitem__".to_string(),
                Some((helper, d)) => format!("indexed in `{helper}`, which `{}.__getitem__` reaches", name(*d)),
            };
            let consumer = via.as_ref().map_or(*k, |(_, d)| *d);
            format!(
                "`{}` keeps it as `self.{attr}`, {indexed}, and {}",
                name(*k),
                super::unsorted_directory_listing::sharding(code, consumer)
            )
        }
    }
}

fn names(target: &Expr) -> Vec<String> {
    match &target.kind {
        ExprKind::Name(n) => vec![n.clone()],
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().flat_map(names).collect(),
        _ => Vec::new(),
    }
}

fn mentions(e: &Expr, name: &str) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    walk_expr(e, &mut stack, &mut |_, n| {
        if let Node::Expr(x) = n {
            if matches!(&x.kind, ExprKind::Name(v) if v == name) {
                found = true;
            }
        }
    });
    found
}

/// Whether a comprehension (with ancestors `anc`) is an argument of
/// `nn.ModuleList(...)` and the like.
fn registry_arg(code: &Code<'_>, scope: Scope, anc: &[Anc<'_>]) -> bool {
    let mut up = anc.iter().rev();
    // The comprehension may sit inside a list literal (`nn.ModuleList([...])`
    // is a list comprehension already).
    for a in up.by_ref() {
        match a {
            Anc::Expr(p) => match &p.kind {
                ExprKind::Call { func, .. } => {
                    return code
                        .prog
                        .external(scope, func)
                        .is_some_and(|f| REGISTRIES.contains(&f.as_str()));
                }
                ExprKind::List(_) | ExprKind::Tuple(_) => continue,
                _ => return false,
            },
            _ => return false,
        }
    }
    false
}

/// Whether a loop body registers modules named or shaped by `var`.
fn registers(code: &Code<'_>, scope: Scope, body: &[Stmt], var: &str) -> bool {
    let mut found = false;
    let mut stack = Vec::new();
    for s in body {
        walk_stmt(s, &mut stack, &mut |_, n| match n {
            Node::Stmt(st) => {
                if let StmtKind::Assign { targets, value } = &st.kind {
                    for t in targets {
                        // `self.heads[name] = nn.Linear(...)`
                        if let ExprKind::Subscript { value: base, index } = &t.kind {
                            if (mentions(index, var) || mentions(value, var)) && module_container(code, scope, base) {
                                found = true;
                            }
                        }
                    }
                }
            }
            Node::Expr(e) => {
                let ExprKind::Call { func, args, .. } = &e.kind else {
                    return;
                };
                let uses_var = args.iter().any(|a| match a {
                    Arg::Pos(x) | Arg::Star(x) | Arg::StarStar(x) => mentions(x, var),
                    Arg::Kw { value, .. } => mentions(value, var),
                });
                if !uses_var {
                    return;
                }
                // A module without parameters or buffers (`nn.Identity()`
                // put in place of a head): its place in the order moves no
                // parameter, buffer or state-dict entry.
                let stateless = |x: Option<&Expr>| {
                    x.is_some_and(|x| {
                        matches!(&x.kind, ExprKind::Call { func, .. }
                        if code.prog.external(scope, func).is_some_and(|p| STATELESS_MODULES.contains(&p.as_str())))
                    })
                };
                match &func.kind {
                    ExprKind::Attribute { value, attr } => {
                        if matches!(
                            attr.as_str(),
                            "add_module" | "register_parameter" | "register_buffer" | "register_module"
                        ) && !(matches!(attr.as_str(), "add_module" | "register_module") && stateless(pos(args, 1)))
                        {
                            found = true;
                        }
                        if attr == "append" && module_container(code, scope, value) {
                            found = true;
                        }
                    }
                    ExprKind::Name(n) if n == "setattr" => {
                        if let Some(first) = pos(args, 0) {
                            if code.prog.self_class(scope, first).is_some() && !stateless(pos(args, 2)) {
                                found = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
        });
    }
    found
}

/// torch's modules that hold no parameter and no buffer.
const STATELESS_MODULES: &[&str] = &[
    "torch.nn.Identity",
    "torch.nn.ReLU",
    "torch.nn.GELU",
    "torch.nn.SiLU",
    "torch.nn.Sigmoid",
    "torch.nn.Tanh",
    "torch.nn.Dropout",
    "torch.nn.Flatten",
    "torch.nn.modules.linear.Identity",
];

/// Whether `e` holds an `nn.ModuleDict`/`ModuleList`/… .
fn module_container(code: &Code<'_>, scope: Scope, e: &Expr) -> bool {
    let s = code.prog.sources(scope, e);
    !s.terms.is_empty()
        && s.terms.iter().any(|t| {
            matches!(&t.expr.kind, ExprKind::Call { func, .. }
                if code.prog.external(t.scope, func).is_some_and(|f| REGISTRIES.contains(&f.as_str())))
        })
}

/// Whether `e` is a set of strings (literal, comprehension, `set(…)` or
/// `frozenset(…)` of strings, or a name holding one).
fn string_set(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    match &e.kind {
        ExprKind::Set(items) => {
            !items.is_empty()
                && items
                    .iter()
                    .all(|i| matches!(i.kind, ExprKind::Str(_) | ExprKind::FString))
        }
        ExprKind::Comp {
            kind: CompKind::Set,
            elt,
            gens,
            ..
        } => comp_strings(code, scope, elt, gens, depth),
        ExprKind::Call { func, args, .. } => {
            let path = code.prog.external(scope, func);
            if !matches!(path.as_deref(), Some("builtins.set" | "builtins.frozenset")) {
                return false;
            }
            pos(args, 0).is_some_and(|a| strings(code, scope, a, depth + 1))
        }
        ExprKind::Name(_) => bound_only_to(code, scope, e, &|s, x| string_set(code, s, x, depth + 1)),
        // `a & b`: what both hold, strings when either holds only strings;
        // `a - b`: what `a` holds; `a | b`, `a ^ b`: what either holds.
        ExprKind::BinOp { left, op, right } => match op.as_str() {
            "&" => {
                (string_set(code, scope, left, depth + 1) && is_set(code, scope, right, depth + 1))
                    || (string_set(code, scope, right, depth + 1) && is_set(code, scope, left, depth + 1))
            }
            "-" => string_set(code, scope, left, depth + 1),
            "|" | "^" => string_set(code, scope, left, depth + 1) && string_set(code, scope, right, depth + 1),
            _ => false,
        },
        _ => false,
    }
}

/// Whether `e` is a set of anything: a set display or comprehension,
/// `set(…)`/`frozenset(…)`, a set operation, or a name bound to one of
/// those (an intersection with it is a set whatever the other side holds).
fn is_set(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    match &e.kind {
        ExprKind::Set(_) => true,
        ExprKind::Comp {
            kind: CompKind::Set, ..
        } => true,
        ExprKind::Call { func, .. } => matches!(
            code.prog.external(scope, func).as_deref(),
            Some("builtins.set" | "builtins.frozenset")
        ),
        ExprKind::BinOp { left, op, right } if matches!(op.as_str(), "&" | "|" | "-" | "^") => {
            is_set(code, scope, left, depth + 1) && is_set(code, scope, right, depth + 1)
        }
        ExprKind::Name(_) => bound_only_to(code, scope, e, &|s, x| is_set(code, s, x, depth + 1)),
        _ => false,
    }
}

/// Whether name `e` is bound, wherever it is read here, only to values
/// `holds` accepts (read whole, not through an attribute or key).
fn bound_only_to(code: &Code<'_>, scope: Scope, e: &Expr, holds: &dyn Fn(Scope, &Expr) -> bool) -> bool {
    let s = code.prog.sources(scope, e);
    !s.unknown
        && !s.terms.is_empty()
        && s.terms
            .iter()
            .all(|t| t.proj.is_empty() && !std::ptr::eq(t.expr, e) && holds(t.scope, t.expr))
}

/// Whether a collection holds only strings.
fn strings(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    match &e.kind {
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
            !items.is_empty()
                && items
                    .iter()
                    .all(|i| matches!(i.kind, ExprKind::Str(_) | ExprKind::FString))
        }
        ExprKind::Comp { elt, gens, .. } => comp_strings(code, scope, elt, gens, depth),
        ExprKind::Call { func, args, .. } => {
            if let ExprKind::Attribute { attr, .. } = &func.kind {
                if matches!(attr.as_str(), "split" | "splitlines" | "readlines") {
                    return true;
                }
            }
            match code.prog.external(scope, func).as_deref() {
                Some("os.listdir") => true,
                Some("builtins.list" | "builtins.sorted" | "builtins.tuple") => {
                    pos(args, 0).is_some_and(|a| strings(code, scope, a, depth + 1))
                }
                _ => false,
            }
        }
        ExprKind::Name(_) => bound_only_to(code, scope, e, &|s, x| strings(code, s, x, depth + 1)),
        _ => false,
    }
}

/// Whether a comprehension's element is a string: a string expression, or
/// a loop variable over strings.
fn comp_strings(code: &Code<'_>, scope: Scope, elt: &Expr, gens: &[crate::training::ast::CompFor], depth: u32) -> bool {
    match &elt.kind {
        ExprKind::Str(_) | ExprKind::FString => true,
        ExprKind::Name(n) => gens
            .iter()
            .rev()
            .find(|g| names(&g.target).contains(n))
            .is_some_and(|g| matches!(g.target.kind, ExprKind::Name(_)) && strings(code, scope, &g.iter, depth + 1)),
        // A slice of a string (`name[:-3]`), or a string method's result
        // (`name.strip()`): a string.
        ExprKind::Subscript { value, index } if matches!(index.kind, ExprKind::Slice { .. }) => {
            comp_strings(code, scope, value, gens, depth)
        }
        ExprKind::Call { func, .. } => match &func.kind {
            ExprKind::Attribute { value, attr }
                if matches!(
                    attr.as_str(),
                    "strip" | "rstrip" | "lstrip" | "lower" | "upper" | "replace" | "removesuffix" | "removeprefix"
                ) =>
            {
                comp_strings(code, scope, value, gens, depth)
            }
            _ => false,
        },
        _ => false,
    }
}

/// Whether `x` is a string: a literal, an f-string, `str(…)`, an
/// `os.path` result, or a loop variable over a directory listing or a
/// list of strings.
fn is_string(code: &Code<'_>, scope: Scope, x: &Expr, anc: &[Anc<'_>], depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    match &x.kind {
        ExprKind::Str(_) | ExprKind::FString => true,
        ExprKind::Call { func, .. } => code
            .prog
            .external(scope, func)
            .is_some_and(|p| p == "builtins.str" || p.starts_with("os.path.")),
        ExprKind::Name(n) => {
            // A comprehension variable.
            for a in anc.iter().rev() {
                if let Anc::Comp(g) = a {
                    if names(&g.target).contains(n) {
                        return matches!(g.target.kind, ExprKind::Name(_)) && listing(code, scope, &g.iter, depth + 1);
                    }
                }
            }
            // A parameter annotated `str`, or a name from a listing.
            if let Some(f) = scope.func() {
                if let Some(func) = code.prog.func(f) {
                    if let Some(p) = func.params.iter().find(|p| p.name == *n) {
                        return p
                            .annotation
                            .as_ref()
                            .is_some_and(|a| matches!(&a.kind, ExprKind::Name(t) if t == "str"));
                    }
                }
            }
            false
        }
        _ => false,
    }
}

/// Whether `e` is a list of strings from a listing or literals (possibly
/// sorted).
fn listing(code: &Code<'_>, scope: Scope, e: &Expr, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    if strings(code, scope, e, depth) {
        return true;
    }
    match &e.kind {
        ExprKind::Call { func, args, .. } => match code.prog.external(scope, func).as_deref() {
            Some("builtins.sorted" | "builtins.list") => {
                pos(args, 0).is_some_and(|a| listing(code, scope, a, depth + 1))
            }
            Some("glob.glob" | "os.listdir") => true,
            _ => false,
        },
        ExprKind::Name(_) => bound_only_to(code, scope, e, &|s, x| listing(code, s, x, depth + 1)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::iterates_set;

    #[test]
    fn the_prefilter_passes_set_iteration_only() {
        assert!(iterates_set("for n in {'a', 'b'}:\n    pass\n", &[]));
        assert!(iterates_set("names = set(xs)\nfor n in names:\n    pass\n", &[]));
        assert!(iterates_set("for i, n in enumerate(frozenset(xs)):\n    pass\n", &[]));
        assert!(iterates_set(
            "for n in self.nombres_é:\n    pass\n",
            &["nombres_é".to_string()]
        ));
        assert!(iterates_set(
            "self.tags: set[str] = set()\nfor t in self.tags:\n    pass\n",
            &[]
        ));
        // Lists, sorted sets and names never assigned a set: no.
        assert!(!iterates_set("for n in names:\n    pass\n", &[]));
        assert!(!iterates_set(
            "for n in sorted(names):\n    pass\n",
            &["names".to_string()]
        ));
        assert!(!iterates_set("names = [1]\nfor n in names:\n    pass\n", &[]));
        assert!(!iterates_set("x = 1\n", &[]));
    }
}
