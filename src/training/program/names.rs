//! Names: what a module's names are bound to (imports, assignments,
//! definitions), across modules of the program.

use super::*;

impl Program {
    pub(super) fn module_table(&self, m: ModId) -> HashMap<String, Vec<ModBinding>> {
        let mut table: HashMap<String, Vec<ModBinding>> = HashMap::default();
        let Some(parsed) = self.parsed(m) else { return table };
        let package = self.package_of(m);
        for (c, info) in parsed.chunks().iter().enumerate() {
            let c = c as u32;
            match info.kind {
                ChunkKind::Def | ChunkKind::Class => {
                    if let Some(sym) = self.top_def(m, c, info.kind) {
                        let b = match sym {
                            Sym::Func(f) => ModBinding::Def(f),
                            Sym::Class(k) => ModBinding::Class(k),
                            _ => ModBinding::Other,
                        };
                        table.entry(info.name.clone()).or_default().push(b);
                    }
                }
                ChunkKind::Code => {
                    let Some(ast) = parsed.chunk(c as usize) else { continue };
                    let mut out = Vec::new();
                    collect_bindings(&ast.stmts, &package, c, &mut out, 0);
                    for (name, b) in out {
                        table.entry(name).or_default().push(b);
                    }
                    // Definitions nested in top-level blocks (`if`, `try`).
                    for (i, f) in ast.funcs.iter().enumerate() {
                        if f.parent == Parent::Module {
                            table.entry(f.name.clone()).or_default().push(ModBinding::Def(FuncId {
                                m,
                                c,
                                f: i as u32,
                            }));
                        }
                    }
                    for (i, k) in ast.classes.iter().enumerate() {
                        if k.parent == Parent::Module {
                            table
                                .entry(k.name.clone())
                                .or_default()
                                .push(ModBinding::Class(ClassId { m, c, k: i as u32 }));
                        }
                    }
                }
            }
        }
        table
    }

    /// The package a module's relative imports start from.
    pub(super) fn package_of(&self, m: ModId) -> String {
        let Some(f) = self.files.get(m as usize) else {
            return String::new();
        };
        if f.parsed.text().is_empty() && f.module.is_empty() {
            return String::new();
        }
        let name = &f.module;
        // A package's `__init__.py` is named as its package (`data`), and
        // its relative imports start there (`from .simmim import …` is
        // `data.simmim`).
        if f.package {
            return name.trim_end_matches(".__init__").to_string();
        }
        name.rsplit_once('.').map_or(String::new(), |(p, _)| p.to_string())
    }

    /// The module `dotted` names as module `from` imports it: where several
    /// files answer to the name, the one whose folder shares the longest
    /// path with `from`'s (Python searches the importing script's folder
    /// first).
    pub(super) fn module_from(&self, from: Option<ModId>, dotted: &str) -> Option<ModId> {
        let first = self.by_module.get(dotted).copied()?;
        let (Some(from), Some(candidates)) = (from, self.shared.get(dotted)) else {
            return Some(first);
        };
        let Some(here) = self.files.get(from as usize).map(|f| f.path.as_str()) else {
            return Some(first);
        };
        let common = |p: &str| here.split('/').zip(p.split('/')).take_while(|(a, b)| a == b).count();
        let mut best = first;
        let mut best_len = self.files.get(first as usize).map_or(0, |f| common(&f.path));
        for m in candidates {
            let len = self.files.get(*m as usize).map_or(0, |f| common(&f.path));
            if len > best_len {
                best = *m;
                best_len = len;
            }
        }
        Some(best)
    }

    /// The project module `dotted` names (as module `from` imports it), or
    /// the project module a prefix names with the rest as an attribute path.
    fn project_module_from(&self, from: Option<ModId>, dotted: &str) -> Option<(ModId, String)> {
        if let Some(m) = self.module_from(from, dotted) {
            return Some((m, String::new()));
        }
        let mut cut = dotted.len();
        while let Some(i) = dotted[..cut].rfind('.') {
            if let Some(m) = self.module_from(from, &dotted[..i]) {
                return Some((m, dotted[i + 1..].to_string()));
            }
            cut = i;
        }
        None
    }

    /// What the dotted path names, as module `from` imports it: a project
    /// module, a name in one, or an object outside the project.
    pub(super) fn dotted_sym_from(&self, from: Option<ModId>, dotted: &str, depth: u32) -> Option<Sym> {
        match self.project_module_from(from, dotted) {
            Some((m, rest)) if rest.is_empty() => Some(Sym::Module(m)),
            Some((m, rest)) => {
                let mut parts = rest.split('.');
                let first = parts.next()?;
                let mut sym = self.global(m, first, depth + 1)?;
                for p in parts {
                    sym = self.member(&sym, p, depth + 1)?;
                }
                Some(sym)
            }
            None => Some(Sym::External(normalize(dotted))),
        }
    }

    /// A module's top-level binding of `name` (the last one written).
    pub fn global(&self, m: ModId, name: &str, depth: u32) -> Option<Sym> {
        if depth > MAX_DEPTH {
            return None;
        }
        let table = self.tables.get(m as usize)?;
        let Some(binding) = table.get(name).and_then(|b| b.last()) else {
            // A name the module does not bind itself, from a star import of
            // a module of the program (`from util import *`): the first that
            // binds it.
            if name == "*" {
                return None;
            }
            return table.get("*")?.iter().find_map(|b| match b {
                ModBinding::From { module, .. } => match self.module_from(Some(m), module.as_str()) {
                    Some(m2) if m2 != m => self.global(m2, name, depth + 1),
                    _ => None,
                },
                _ => None,
            });
        };
        match binding {
            ModBinding::Import(path) => self.dotted_sym_from(Some(m), path, depth),
            ModBinding::From { module, name } => {
                let full = if module.is_empty() {
                    name.clone()
                } else {
                    format!("{module}.{name}")
                };
                // `from pkg import name`: what the package binds as `name`
                // (its `__init__`'s `from .name import name` rebinds the
                // submodule's attribute), else the submodule.
                let package = self.module_from(Some(m), module.as_str());
                if let Some(m2) = self.module_from(Some(m), &full) {
                    if !package.is_some_and(|p| p != m && self.binds(p, name)) {
                        return Some(Sym::Module(m2));
                    }
                }
                match package {
                    Some(m2) if m2 != m => self.global(m2, name, depth + 1),
                    Some(_) => None,
                    None => self.dotted_sym_from(Some(m), &full, depth),
                }
            }
            ModBinding::Def(f) => Some(Sym::Func(*f)),
            ModBinding::Class(k) => Some(Sym::Class(*k)),
            ModBinding::Assign { value, proj, c } if proj.is_empty() => {
                self.expr_sym_at(Scope { m, c: *c, f: None }, value, depth + 1)
            }
            _ => None,
        }
    }

    /// Whether module `m` binds `name` at its top level itself (not through
    /// a star import).
    pub(super) fn binds(&self, m: ModId, name: &str) -> bool {
        self.tables
            .get(m as usize)
            .and_then(|t| t.get(name))
            .is_some_and(|b| !b.is_empty())
    }

    pub(super) fn member(&self, sym: &Sym, name: &str, depth: u32) -> Option<Sym> {
        match sym {
            Sym::External(p) => Some(Sym::External(normalize(&format!("{p}.{name}")))),
            Sym::Module(m) => {
                // The package's own binding shadows a submodule of that name.
                let sub = format!("{}.{name}", self.module_name(*m));
                if let Some(m2) = self.module_from(Some(*m), &sub) {
                    if !self.binds(*m, name) {
                        return Some(Sym::Module(m2));
                    }
                }
                self.global(*m, name, depth + 1)
            }
            Sym::Class(k) => self.method(*k, name).map(Sym::Func),
            Sym::Func(_) => None,
        }
    }

    /// What a name or dotted expression denotes in `scope` (not variables).
    pub fn expr_sym(&self, scope: Scope, e: &Expr) -> Option<Sym> {
        self.expr_sym_at(scope, e, 0)
    }

    pub(super) fn expr_sym_at(&self, scope: Scope, e: &Expr, depth: u32) -> Option<Sym> {
        if depth > MAX_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Name(n) => self.name_sym(scope, n, depth),
            ExprKind::Attribute { value, attr } => {
                let base = self.expr_sym_at(scope, value, depth + 1)?;
                self.member(&base, attr, depth + 1)
            }
            _ => None,
        }
    }

    pub(super) fn name_sym(&self, scope: Scope, n: &str, depth: u32) -> Option<Sym> {
        let mut f = scope.func();
        let mut guard = 0;
        while let Some(fid) = f {
            guard += 1;
            if guard > MAX_DEPTH {
                return None;
            }
            let defs = self.local_defs(fid, n);
            if !defs.is_empty() {
                // A name bound in the function: a symbol only when every
                // binding is the same import or definition.
                let mut sym = None;
                for d in defs {
                    match d {
                        LocalDef::Sym(s) if sym.as_ref().is_none_or(|x| *x == s) => sym = Some(s),
                        _ => return None,
                    }
                }
                return sym;
            }
            f = self.parent_func(fid);
        }
        if let Some(s) = self.global(scope.m, n, depth) {
            return Some(s);
        }
        if self.tables.get(scope.m as usize).is_some_and(|t| t.contains_key(n)) {
            return None;
        }
        BUILTINS.contains(&n).then(|| Sym::External(format!("builtins.{n}")))
    }

    /// The canonical dotted path of an external name (`torch.nn.functional.interpolate`).
    pub fn external(&self, scope: Scope, e: &Expr) -> Option<String> {
        match self.expr_sym(scope, e)? {
            Sym::External(p) => Some(p),
            _ => None,
        }
    }

    /// The paths an unbound name `n` in `scope` may have through the module's
    /// star imports of outside modules (`from timm.utils import *` gives
    /// `timm.utils.random_seed` for `random_seed`): one candidate per such
    /// import, none when anything in the scope or module binds the name.
    pub fn star_paths(&self, scope: Scope, n: &str) -> Vec<String> {
        let Some(table) = self.tables.get(scope.m as usize) else {
            return Vec::new();
        };
        if table.contains_key(n) || scope.func().is_some_and(|f| !self.local_defs(f, n).is_empty()) {
            return Vec::new();
        }
        let Some(stars) = table.get("*") else {
            return Vec::new();
        };
        stars
            .iter()
            .filter_map(|b| match b {
                ModBinding::From { module, .. } if !self.by_module.contains_key(module) && !module.is_empty() => {
                    Some(normalize(&format!("{module}.{n}")))
                }
                _ => None,
            })
            .collect()
    }

    /// The name module `m` binds to the external module `module` (`torch`
    /// for `import torch`, `th` for `import torch as th`), if any.
    pub fn module_alias(&self, m: ModId, module: &str) -> Option<String> {
        let table = self.tables.get(m as usize)?;
        let mut names: Vec<&String> = table.keys().collect();
        names.sort();
        names
            .into_iter()
            .find(|n| matches!(self.global(m, n, 0), Some(Sym::External(p)) if p == module))
            .cloned()
    }

    /// The words whose presence in a chunk's text makes a call to one of
    /// the external `targets` possible in module `m`: each target's last
    /// component, and the names the module binds to a target itself
    /// (`from torch.nn.functional import interpolate as resize`).
    pub fn needles_for(&self, m: ModId, targets: &[&str]) -> Vec<String> {
        let mut out: Vec<String> = targets
            .iter()
            .map(|t| t.rsplit('.').next().unwrap_or(t).to_string())
            .collect();
        out.extend(self.names_bound_to(m, targets));
        out.sort();
        out.dedup();
        out
    }

    /// The module-level assignments of module `m`: each name and a value it
    /// is assigned (before any unpacking).
    pub fn module_assignments(&self, m: ModId) -> Vec<(&str, &Expr)> {
        let mut out = Vec::new();
        if let Some(table) = self.tables.get(m as usize) {
            for (name, bindings) in table {
                for b in bindings {
                    if let ModBinding::Assign { value, .. } = b {
                        out.push((name.as_str(), &**value));
                    }
                }
            }
        }
        out.sort_by_key(|(n, v)| (*n, v.span.start));
        out
    }

    /// The names module `m` binds to one of the external `targets`, sorted.
    pub fn names_bound_to(&self, m: ModId, targets: &[&str]) -> Vec<String> {
        self.externals_of(m)
            .iter()
            .filter(|(_, path)| targets.contains(&path.as_str()))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Module `m`'s top-level names that stand for an external object, and
    /// its canonical path, sorted by name; resolved once.
    fn externals_of(&self, m: ModId) -> &[(String, String)] {
        let Some(cell) = self.externals.get(m as usize) else {
            return &[];
        };
        cell.get_or_init(|| {
            let Some(table) = self.tables.get(m as usize) else {
                return Vec::new();
            };
            let mut names: Vec<&String> = table.keys().collect();
            names.sort();
            names
                .into_iter()
                .filter_map(|n| match self.global(m, n, 0) {
                    Some(Sym::External(p)) => Some((n.clone(), p)),
                    _ => None,
                })
                .collect()
        })
    }
}

/// Module-level bindings of statements (imports, assignments), recursing
/// into top-level blocks but not definitions.
pub(super) fn collect_bindings(stmts: &[Stmt], package: &str, c: u32, out: &mut Vec<(String, ModBinding)>, depth: u32) {
    if depth > 32 {
        return;
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Import(names) => {
                for a in names {
                    match &a.alias {
                        Some(alias) => out.push((alias.clone(), ModBinding::Import(a.name.clone()))),
                        None => {
                            let first = a.name.split('.').next().unwrap_or("").to_string();
                            out.push((first.clone(), ModBinding::Import(first)));
                        }
                    }
                }
            }
            StmtKind::ImportFrom {
                module,
                level,
                names,
                star,
            } => {
                let absolute = if *level == 0 {
                    module.clone()
                } else {
                    let mut base: Vec<&str> = if package.is_empty() {
                        Vec::new()
                    } else {
                        package.split('.').collect()
                    };
                    for _ in 1..*level {
                        base.pop();
                    }
                    let mut m = base.join(".");
                    if !module.is_empty() {
                        m = if m.is_empty() {
                            module.clone()
                        } else {
                            format!("{m}.{module}")
                        };
                    }
                    m
                };
                for a in names {
                    let bound = a.alias.clone().unwrap_or_else(|| a.name.clone());
                    out.push((
                        bound,
                        ModBinding::From {
                            module: absolute.clone(),
                            name: a.name.clone(),
                        },
                    ));
                }
                // `from m import *`: kept under `*`, for names nothing else binds.
                if *star {
                    out.push((
                        "*".to_string(),
                        ModBinding::From {
                            module: absolute.clone(),
                            name: "*".to_string(),
                        },
                    ));
                }
            }
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    collect_targets(t, &mut Vec::new(), &mut |name, proj| {
                        out.push((
                            name,
                            ModBinding::Assign {
                                value: Box::new(value.clone()),
                                proj,
                                c,
                            },
                        ));
                    });
                }
            }
            StmtKind::AnnAssign {
                target,
                value: Some(value),
            } => collect_targets(target, &mut Vec::new(), &mut |name, proj| {
                out.push((
                    name,
                    ModBinding::Assign {
                        value: Box::new(value.clone()),
                        proj,
                        c,
                    },
                ));
            }),
            StmtKind::AugAssign { target, .. } | StmtKind::For { target, .. } => {
                collect_targets(target, &mut Vec::new(), &mut |name, _| {
                    out.push((name, ModBinding::Other))
                });
                if let StmtKind::For { body, orelse, .. } = &s.kind {
                    collect_bindings(body, package, c, out, depth + 1);
                    collect_bindings(orelse, package, c, out, depth + 1);
                }
            }
            StmtKind::If { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                collect_bindings(body, package, c, out, depth + 1);
                collect_bindings(orelse, package, c, out, depth + 1);
            }
            StmtKind::With { body, items } => {
                for i in items {
                    if let Some(v) = &i.var {
                        collect_targets(v, &mut Vec::new(), &mut |name, _| out.push((name, ModBinding::Other)));
                    }
                }
                collect_bindings(body, package, c, out, depth + 1);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                collect_bindings(body, package, c, out, depth + 1);
                for h in handlers {
                    collect_bindings(&h.body, package, c, out, depth + 1);
                }
                collect_bindings(orelse, package, c, out, depth + 1);
                collect_bindings(finalbody, package, c, out, depth + 1);
            }
            _ => {}
        }
    }
}

pub(super) fn collect_targets(t: &Expr, path: &mut Vec<Proj>, bind: &mut dyn FnMut(String, Vec<Proj>)) {
    match &t.kind {
        ExprKind::Name(n) => bind(n.clone(), path.clone()),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Proj::Key(Key::Int(i as i64)));
                collect_targets(item, path, bind);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Module prefixes and the canonical prefix they stand for. A rewrite never
/// produces a path its own prefix matches again (a test keeps it so), and
/// [`normalize`] applies at most [`PREFIXES`]`.len()` of them.
const PREFIXES: &[(&str, &str)] = &[
    ("torch.utils.data.dataloader.", "torch.utils.data."),
    ("torch.utils.data.distributed.", "torch.utils.data."),
    ("torch.utils.data.sampler.", "torch.utils.data."),
    ("torch.utils.data.dataset.", "torch.utils.data."),
    ("torch.nn.parallel.distributed.", "torch.nn.parallel."),
    ("torch.nn.modules.upsampling.", "torch.nn."),
    ("torch.nn.modules.loss.", "torch.nn."),
    ("torch.nn.modules.container.", "torch.nn."),
    ("torch.nn.modules.module.", "torch.nn."),
    ("torch.nn.modules.", "torch.nn."),
    (
        "torch.distributed.fsdp.fully_sharded_data_parallel.",
        "torch.distributed.fsdp.",
    ),
    ("torch.distributed.distributed_c10d.", "torch.distributed."),
    ("torch.random.manual_seed", "torch.manual_seed"),
    ("determined.pytorch._data.", "determined.pytorch."),
    ("determined.pytorch._pytorch_trial.", "determined.pytorch."),
    (
        "determined.pytorch.deepspeed._deepspeed_trial.",
        "determined.pytorch.deepspeed.",
    ),
    ("determined.core._context.", "determined.core."),
    ("pytorch_lightning.", "lightning.pytorch."),
    ("lightning.pytorch.", "lightning."),
    // `from pytorch_lightning.trainer import Trainer`
    ("lightning.trainer.trainer.Trainer", "lightning.Trainer"),
    ("lightning.trainer.Trainer", "lightning.Trainer"),
    ("horovod.torch.", "horovod."),
    ("accelerate.accelerator.", "accelerate."),
    // torchdata's StatefulDataLoader is a DataLoader (the same arguments,
    // workers, samplers and seeding) that also saves its position.
    (
        "torchdata.stateful_dataloader.stateful_dataloader.",
        "torchdata.stateful_dataloader.",
    ),
    (
        "torchdata.stateful_dataloader.StatefulDataLoader",
        "torch.utils.data.DataLoader",
    ),
    // PyTorch Geometric's DataLoader is torch's with a collate of its own
    // (the same workers, samplers, shuffling and keywords; its fourth
    // positional argument is `follow_batch`, where code rarely writes one).
    (
        "torch_geometric.loader.dataloader.DataLoader",
        "torch_geometric.loader.DataLoader",
    ),
    ("torch_geometric.data.DataLoader", "torch_geometric.loader.DataLoader"),
    ("torch_geometric.loader.DataLoader", "torch.utils.data.DataLoader"),
];

/// Canonical names for the aliases modules export (`torch.utils.data.
/// distributed.DistributedSampler` is `torch.utils.data.DistributedSampler`).
pub fn normalize(path: &str) -> String {
    let mut path = path.to_string();
    // Each step rewrites to another prefix; chains are short
    // (`pytorch_lightning.` → `lightning.pytorch.` → `lightning.`), and
    // the bound keeps a table mistake from looping.
    for _ in 0..PREFIXES.len() {
        let Some(next) = PREFIXES
            .iter()
            .find_map(|(from, to)| path.strip_prefix(from).map(|rest| format!("{to}{rest}")))
        else {
            break;
        };
        path = next;
    }
    match path.as_str() {
        "pytorch_lightning" => "lightning".to_string(),
        "lightning.pytorch" => "lightning".to_string(),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{normalize, PREFIXES};

    /// A rewrite whose result its own prefix matches again would loop (two
    /// such entries once made `deepspeed.comm.get_rank()` overflow the stack).
    #[test]
    fn no_rewrite_matches_its_own_result() {
        for (from, to) in PREFIXES {
            assert!(!to.starts_with(from), "{from} → {to} matches its own result");
        }
    }

    #[test]
    fn aliases_reach_their_canonical_names() {
        for (given, canonical) in [
            ("deepspeed.comm.get_rank", "deepspeed.comm.get_rank"),
            ("torch.backends.cudnn.is_available", "torch.backends.cudnn.is_available"),
            ("pytorch_lightning.Trainer", "lightning.Trainer"),
            ("pytorch_lightning.trainer.Trainer", "lightning.Trainer"),
            (
                "pytorch_lightning.trainer.Trainer.from_argparse_args",
                "lightning.Trainer.from_argparse_args",
            ),
            ("pytorch_lightning", "lightning"),
            (
                "torch.utils.data.distributed.DistributedSampler",
                "torch.utils.data.DistributedSampler",
            ),
            ("torch.random.manual_seed", "torch.manual_seed"),
            ("numpy.random.seed", "numpy.random.seed"),
            ("torch_geometric.loader.DataLoader", "torch.utils.data.DataLoader"),
            ("torch_geometric.data.DataLoader", "torch.utils.data.DataLoader"),
            (
                "torch_geometric.loader.dataloader.DataLoader",
                "torch.utils.data.DataLoader",
            ),
        ] {
            assert_eq!(normalize(given), canonical, "{given}");
        }
    }
}
