//! The folders a module adds to Python's import path as it runs:
//! `sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))`
//! at module level, directly or through a helper of the same module
//! (`_init_paths.py`'s `add_path(lib_path)`), with the path computed from the
//! module's own location (`__file__`, `os.path.dirname`, `os.path.join`,
//! `abspath`, `Path(__file__).parent`, `parents[n]`, `/`). A path written
//! relative to the working directory, or one read from the environment, is
//! not followed: where the process starts is not known here.
//!
//! Discovery reads these so that `import config` after `import _init_paths`
//! finds `lib/config/__init__.py`, as Python does once the folder is on the
//! path.

use std::cell::Cell;
use std::collections::HashMap;

use super::ParsedFile;
use crate::python::ast::{Arg, ChunkAst, Expr, ExprKind, Function, Stmt, StmtKind};

/// Most steps one path expression takes to evaluate (names, calls).
const DEPTH: u32 = 12;

/// Most expressions evaluated in one file, all its path edits together:
/// a chain of names that each read the one before twice (`b = a / a`)
/// doubles the work at each level, and a file may hold many edits.
const STEPS: u32 = 20_000;

/// Where a folder goes on the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// `sys.path.insert(0, …)`: searched before the rest.
    Front,
    /// `sys.path.append(…)`, or an insert at another index.
    Back,
}

/// The context folders (relative to the context root, `/`-separated, `""`
/// for the root) that the module-level code of the file at `rel` adds to
/// `sys.path`, in order. Folders outside the context are left out.
pub fn added_folders(parsed: &ParsedFile, rel: &str) -> Vec<(At, String)> {
    if !parsed.mentions(&["sys.path"]) {
        return Vec::new();
    }
    let mut top: Vec<&Stmt> = Vec::new();
    let mut helpers: HashMap<&str, (&ChunkAst, &Function)> = HashMap::new();
    for i in 0..parsed.chunks().len() {
        let Some(chunk) = parsed.chunk(i) else { continue };
        for s in &chunk.stmts {
            match &s.kind {
                StmtKind::FunctionDef(idx) => {
                    if let Some(f) = chunk.funcs.get(*idx as usize) {
                        helpers.insert(f.name.as_str(), (chunk, f));
                    }
                }
                _ => top.push(s),
            }
        }
    }
    let mut flat: Vec<&Stmt> = Vec::new();
    for s in top {
        flatten(s, &mut flat, 0);
    }
    let mut names: HashMap<&str, &Expr> = HashMap::new();
    let mut out: Vec<(At, String)> = Vec::new();
    let file: Vec<String> = rel.split('/').map(str::to_string).collect();
    let steps = Cell::new(STEPS);
    for s in flat {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    if let ExprKind::Name(n) = &t.kind {
                        names.insert(n.as_str(), value);
                    }
                }
            }
            StmtKind::Expr(e) => {
                let ExprKind::Call { func, args, .. } = &e.kind else {
                    continue;
                };
                let env = Env {
                    names: &names,
                    file: &file,
                    steps: &steps,
                };
                if let Some((at, arg)) = path_edit(func, args) {
                    if let Some(folder) = env.folder(arg) {
                        out.push((at, folder));
                    }
                    continue;
                }
                // `add_path(lib_path)`: a helper of this module whose body
                // puts its parameter on the path.
                if let ExprKind::Name(n) = &func.kind {
                    if let Some((_, f)) = helpers.get(n.as_str()) {
                        if let Some((at, index)) = helper_edit(f) {
                            let arg = args.get(index).and_then(|a| match a {
                                Arg::Pos(x) => Some(x),
                                _ => None,
                            });
                            if let Some(folder) = arg.and_then(|x| env.folder(x)) {
                                out.push((at, folder));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Module-level statements in order, with the bodies of `if`, `try` and
/// `with` blocks read as if they ran (`if osp.exists(p): sys.path.insert(…)`).
fn flatten<'a>(s: &'a Stmt, out: &mut Vec<&'a Stmt>, depth: u32) {
    if depth > 4 {
        return;
    }
    match &s.kind {
        StmtKind::If { body, orelse, .. } => {
            for b in body.iter().chain(orelse) {
                flatten(b, out, depth + 1);
            }
        }
        StmtKind::Try {
            body,
            orelse,
            finalbody,
            ..
        } => {
            for b in body.iter().chain(orelse).chain(finalbody) {
                flatten(b, out, depth + 1);
            }
        }
        StmtKind::With { body, .. } => {
            for b in body {
                flatten(b, out, depth + 1);
            }
        }
        _ => out.push(s),
    }
}

/// `sys.path.insert(i, x)` or `sys.path.append(x)`: where, and `x`.
fn path_edit<'a>(func: &Expr, args: &'a [Arg]) -> Option<(At, &'a Expr)> {
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return None;
    };
    let ExprKind::Attribute { value: sys, attr: path } = &value.kind else {
        return None;
    };
    if path != "path" || !matches!(&sys.kind, ExprKind::Name(n) if n == "sys") {
        return None;
    }
    let positional = positional(args)?;
    match (attr.as_str(), positional.as_slice()) {
        ("insert", [index, x]) => {
            let at = if matches!(index.kind, ExprKind::Int(0)) {
                At::Front
            } else {
                At::Back
            };
            Some((at, x))
        }
        ("append", [x]) => Some((At::Back, x)),
        _ => None,
    }
}

/// A call's arguments when all are positional.
fn positional(args: &[Arg]) -> Option<Vec<&Expr>> {
    args.iter()
        .map(|a| match a {
            Arg::Pos(x) => Some(x),
            _ => None,
        })
        .collect()
}

/// A helper whose body puts one of its parameters on the path as it is
/// (`def add_path(path): if path not in sys.path: sys.path.insert(0,
/// path)`): where, and the parameter's index.
fn helper_edit(f: &Function) -> Option<(At, usize)> {
    let mut flat = Vec::new();
    for s in &f.body {
        flatten(s, &mut flat, 0);
    }
    for s in flat {
        let StmtKind::Expr(e) = &s.kind else { continue };
        let ExprKind::Call { func, args, .. } = &e.kind else {
            continue;
        };
        let Some((at, x)) = path_edit(func, args) else { continue };
        let ExprKind::Name(n) = &x.kind else { continue };
        if let Some(i) = f.params.iter().position(|p| p.name == *n) {
            return Some((at, i));
        }
    }
    None
}

/// What a path expression of the module is.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    /// A path in the context, as components (`..` kept until normalized).
    Path(Vec<String>),
    /// A string literal (a component to join).
    Str(String),
}

struct Env<'a> {
    names: &'a HashMap<&'a str, &'a Expr>,
    /// The module's own file, as components.
    file: &'a [String],
    /// Evaluations left for the file ([`STEPS`]).
    steps: &'a Cell<u32>,
}

impl Env<'_> {
    /// The context folder `e` names, normalized; `None` when it is not
    /// computed from the module's location, or leaves the context.
    fn folder(&self, e: &Expr) -> Option<String> {
        let Value::Path(parts) = self.eval(e, 0)? else {
            return None;
        };
        normalize(&parts)
    }

    fn eval(&self, e: &Expr, depth: u32) -> Option<Value> {
        let left = self.steps.get();
        if depth > DEPTH || left == 0 {
            return None;
        }
        self.steps.set(left - 1);
        match &e.kind {
            ExprKind::Str(s) => Some(Value::Str(s.clone())),
            ExprKind::Name(n) if n == "__file__" => Some(Value::Path(self.file.to_vec())),
            ExprKind::Name(n) => self.eval(self.names.get(n.as_str())?, depth + 1),
            // `Path(__file__).parent`, `.parents[1]`.
            ExprKind::Attribute { value, attr } if attr == "parent" => {
                let Value::Path(p) = self.eval(value, depth + 1)? else {
                    return None;
                };
                Some(Value::Path(parent(p)))
            }
            ExprKind::Subscript { value, index } => {
                let ExprKind::Attribute { value: inner, attr } = &value.kind else {
                    return None;
                };
                let ExprKind::Int(n) = index.kind else { return None };
                if attr != "parents" || !(0..16).contains(&n) {
                    return None;
                }
                let Value::Path(mut p) = self.eval(inner, depth + 1)? else {
                    return None;
                };
                for _ in 0..=n {
                    p = parent(p);
                }
                Some(Value::Path(p))
            }
            // `Path(__file__).parent / "lib"`, `dirname(__file__) + "/../lib"`.
            ExprKind::BinOp { left, op, right } if op == "/" || op == "+" => {
                let (Value::Path(mut p), Value::Str(s)) = (self.eval(left, depth + 1)?, self.eval(right, depth + 1)?)
                else {
                    return None;
                };
                let s = if op == "+" { s.strip_prefix('/')?.to_string() } else { s };
                p.extend(s.split('/').filter(|c| !c.is_empty()).map(str::to_string));
                Some(Value::Path(p))
            }
            ExprKind::Call { func, args, .. } => self.call(func, args, depth),
            _ => None,
        }
    }

    fn call(&self, func: &Expr, args: &[Arg], depth: u32) -> Option<Value> {
        let name = match &func.kind {
            ExprKind::Name(n) => n.as_str(),
            ExprKind::Attribute { attr, .. } => attr.as_str(),
            _ => return None,
        };
        let positional = positional(args)?;
        // A method of a path (`Path(__file__).resolve()`).
        if let ExprKind::Attribute { value, attr } = &func.kind {
            if matches!(attr.as_str(), "resolve" | "absolute") && positional.is_empty() {
                return self.eval(value, depth + 1);
            }
        }
        match (name, positional.as_slice()) {
            ("dirname", [x]) => {
                let Value::Path(p) = self.eval(x, depth + 1)? else {
                    return None;
                };
                Some(Value::Path(parent(p)))
            }
            ("abspath" | "realpath" | "normpath" | "Path" | "PurePath" | "str", [x]) => {
                match self.eval(x, depth + 1)? {
                    v @ Value::Path(_) => Some(v),
                    Value::Str(_) => None,
                }
            }
            ("join", [first, rest @ ..]) => {
                let Value::Path(mut p) = self.eval(first, depth + 1)? else {
                    return None;
                };
                for r in rest {
                    let Value::Str(s) = self.eval(r, depth + 1)? else {
                        return None;
                    };
                    if s.starts_with('/') {
                        return None;
                    }
                    p.extend(s.split('/').filter(|c| !c.is_empty()).map(str::to_string));
                }
                Some(Value::Path(p))
            }
            _ => None,
        }
    }
}

/// A path's folder (`a/b.py` → `a`); at the context root, one level up.
fn parent(mut p: Vec<String>) -> Vec<String> {
    match p.last().map(String::as_str) {
        Some("..") | None => p.push("..".to_string()),
        Some(_) => {
            p.pop();
        }
    }
    p
}

/// Components made into a context-relative folder (`.` and `..` resolved);
/// `None` above the context root.
fn normalize(parts: &[String]) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for c in parts {
        match c.as_str() {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            other => out.push(other),
        }
    }
    Some(out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(text: &str, rel: &str) -> Vec<(At, String)> {
        added_folders(&ParsedFile::new(text), rel)
    }

    #[test]
    fn an_init_paths_helper_puts_the_library_folder_first() {
        let text = "import os.path as osp\nimport sys\n\ndef add_path(path):\n    if path not in sys.path:\n        sys.path.insert(0, path)\n\nthis_dir = osp.dirname(__file__)\nlib_path = osp.join(this_dir, '..', 'lib')\nadd_path(lib_path)\n";
        assert_eq!(
            added(text, "tools/_init_paths.py"),
            vec![(At::Front, "lib".to_string())]
        );
    }

    #[test]
    fn the_spellings_of_a_folder_next_to_the_module() {
        let text = "import os, sys\nfrom pathlib import Path\nsys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\nsys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))\nROOT = Path(__file__).parent\nif str(ROOT) not in sys.path:\n    sys.path.insert(1, str(ROOT / 'third_party'))\nsys.path.append(os.path.dirname(__file__) + '/../lib')\n";
        assert_eq!(
            added(text, "tools/train.py"),
            vec![
                (At::Back, String::new()),
                (At::Front, "src".to_string()),
                (At::Back, "tools/third_party".to_string()),
                (At::Back, "lib".to_string()),
            ]
        );
    }

    #[test]
    fn hostile_path_setups_stay_bounded() {
        // Names that read themselves or each other, a chain that doubles
        // the work at each level, a `parents` index far out of range, and
        // ten thousand edits: none hangs, and the file's budget bounds the
        // work.
        let mut text = String::from("import os, sys\nfrom pathlib import Path\na = b\nb = a\nsys.path.append(a)\n");
        text.push_str("p0 = Path(__file__)\n");
        for i in 1..40 {
            text.push_str(&format!("p{i} = p{} / p{}\n", i - 1, i - 1));
        }
        text.push_str("sys.path.append(p39)\n");
        text.push_str("sys.path.append(str(Path(__file__).parents[4294967296]))\n");
        for _ in 0..10_000 {
            text.push_str("sys.path.append(os.path.join(os.path.dirname(__file__), 'lib'))\n");
        }
        let got = added(&text, "tools/train.py");
        // The first edits are read; the budget stops the rest.
        assert!(!got.is_empty() && got.len() < 10_000, "{}", got.len());
        assert!(got.iter().all(|(_, f)| f == "tools/lib"), "{:?}", got.first());
    }

    #[test]
    fn paths_not_computed_from_the_module_are_left_alone() {
        // Relative to the working directory, from the environment, above
        // the context, or in a function nobody runs at import.
        let text = "import os, sys\nsys.path.append('lib')\nsys.path.insert(0, os.environ['CODE_ROOT'])\nsys.path.append(os.path.join(os.path.dirname(__file__), '..', '..'))\ndef later():\n    sys.path.append(os.path.dirname(__file__))\n";
        assert_eq!(added(text, "tools/train.py"), Vec::new());
    }
}
