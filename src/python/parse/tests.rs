use std::path::{Path, PathBuf};

use super::*;
use crate::python::ast::parse_range;
use crate::python::ParsedFile;

/// Chunks of `text`, how many `parse_chunk` accepted, and a description of
/// every breach of the contract.
fn contract(name: &str, text: &str) -> (usize, usize, Vec<String>) {
    let file = ParsedFile::new(text);
    let mut accepted = 0;
    let mut bad = Vec::new();
    for c in file.chunks() {
        let Some(mine) = parse_chunk(file.text(), c.range.clone()) else {
            continue;
        };
        accepted += 1;
        let theirs = parse_range(file.text(), file.line_starts(), c.range.clone());
        let chunk = file.text().get(c.range.clone()).unwrap_or("");
        match theirs {
            Some(t) if !t.errors && t == mine => {}
            Some(t) if t.errors => bad.push(format!("{name} {:?}: tree-sitter finds errors in\n{chunk}", c.range)),
            Some(t) => bad.push(format!(
                "{name} {:?}:\n{chunk}\nfirst difference: {}",
                c.range,
                first_difference(&mine, &t)
            )),
            None => bad.push(format!("{name}: no tree-sitter parse")),
        }
    }
    (file.chunks().len(), accepted, bad)
}

fn first_difference(a: &ChunkAst, b: &ChunkAst) -> String {
    for (x, y) in a.stmts.iter().zip(&b.stmts) {
        if x != y {
            return diff(&format!("{x:?}"), &format!("{y:?}"));
        }
    }
    for (x, y) in a.funcs.iter().zip(&b.funcs) {
        if x != y {
            return diff(&format!("{x:?}"), &format!("{y:?}"));
        }
    }
    for (x, y) in a.classes.iter().zip(&b.classes) {
        if x != y {
            return diff(&format!("{x:?}"), &format!("{y:?}"));
        }
    }
    format!(
        "counts: stmts {} / {}, funcs {} / {}, classes {} / {}",
        a.stmts.len(),
        b.stmts.len(),
        a.funcs.len(),
        b.funcs.len(),
        a.classes.len(),
        b.classes.len()
    )
}

/// The two texts around where they first differ.
fn diff(a: &str, b: &str) -> String {
    let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let from = at.saturating_sub(150);
    let cut = |s: &str| s.get(from..(at + 150).min(s.len())).unwrap_or("").to_string();
    format!("\nmine:   …{}\ntheirs: …{}", cut(a), cut(b))
}

fn py_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_symlink() {
            continue;
        }
        if p.is_dir() {
            py_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "py") {
            out.push(p);
        }
    }
}

fn repo_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    py_files(&root.join("tests"), &mut files);
    py_files(&root.join("examples"), &mut files);
    files
}

#[test]
fn a_dotted_name_continued_on_the_next_line_is_one_name() {
    for text in [
        "import torch\\\n.distributed as dist\n",
        "from torch \\\n .utils.data import DataLoader\n",
    ] {
        let (_, accepted, bad) = contract("continued.py", text);
        assert!(bad.is_empty(), "{}", bad.join("\n\n"));
        assert!(accepted > 0, "{text:?}");
    }
}

#[test]
fn agrees_with_tree_sitter_on_the_repository_files() {
    let files = repo_files();
    assert!(files.len() > 20, "{}", files.len());
    let (mut chunks, mut accepted) = (0, 0);
    let mut bad = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let (c, a, b) = contract(&path.display().to_string(), &text);
        chunks += c;
        accepted += a;
        bad.extend(b);
        let in_examples = path
            .parent()
            .and_then(Path::parent)
            .is_some_and(|p| p.ends_with("examples"));
        if in_examples {
            assert_eq!(a, c, "a chunk of {} was not accepted", path.display());
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {accepted} accepted chunks differ:\n{}",
        bad.len(),
        bad.join("\n\n")
    );
    assert!(accepted * 10 >= chunks * 8, "{accepted} of {chunks}");
}

/// A small deterministic generator (no new dependency).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

fn mutate(text: &str, rng: &mut Lcg) -> String {
    let mut b = text.as_bytes().to_vec();
    let at = rng.next(b.len() + 1);
    match rng.next(8) {
        0 => {
            let len = rng.next(12) + 1;
            let end = (at + len).min(b.len());
            b.drain(at..end);
        }
        1 => {
            // Duplicate the line at `at`.
            let start = b[..at].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
            let end = b[at..].iter().position(|&c| c == b'\n').map_or(b.len(), |i| at + i + 1);
            let line: Vec<u8> = b[start..end].to_vec();
            b.splice(start..start, line);
        }
        k => {
            let what: &[u8] = match k {
                2 => b"(",
                3 => b":",
                4 => b"\"",
                5 => b"    ",
                6 => b"\n",
                _ => [
                    &b")"[..],
                    b"'",
                    b"#",
                    b",",
                    b"=",
                    b"\\\n",
                    b"f'{",
                    b"}",
                    b"*",
                    b"lambda",
                    b";",
                    b".",
                    b"@",
                ][rng.next(13)],
            };
            b.splice(at..at, what.iter().copied());
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn mutants_keep_the_contract() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let _ = root;
    let files = repo_files();
    // `STAGEC_PY_MUTANTS=N`: more mutants per file, for a longer hunt.
    let per_file: usize = std::env::var("STAGEC_PY_MUTANTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(6);
    let mut rng = Lcg(0x5eed);
    let started = std::time::Instant::now();
    let mut bad = Vec::new();
    let mut accepted = 0;
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        for _ in 0..per_file {
            let mut mutant = mutate(&text, &mut rng);
            for _ in 0..rng.next(3) {
                mutant = mutate(&mutant, &mut rng);
            }
            let (_, a, b) = contract(&path.display().to_string(), &mutant);
            accepted += a;
            bad.extend(b);
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    assert!(accepted > 0);
    eprintln!("mutants: {accepted} chunks accepted in {:?}", started.elapsed());
}

/// The contract over every `.py` under the folders of `STAGEC_PY_CORPUS`
/// (`:`-separated). Not in the suite; asked for without the variable, it
/// fails rather than pass having read nothing.
#[test]
#[ignore = "a corpus run: set STAGEC_PY_CORPUS"]
fn corpus() {
    let Ok(dirs) = std::env::var("STAGEC_PY_CORPUS") else {
        panic!("set STAGEC_PY_CORPUS to the folders to read (`:`-separated)");
    };
    let mut files = Vec::new();
    for d in dirs.split(':') {
        py_files(Path::new(d), &mut files);
    }
    assert!(!files.is_empty(), "no .py files under {dirs}");
    let (mut chunks, mut accepted) = (0, 0);
    let mut bad = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let (c, a, b) = contract(&path.display().to_string(), &text);
        chunks += c;
        accepted += a;
        bad.extend(b);
        if let Some(out) = std::env::var_os("STAGEC_PY_CORPUS_LEFT") {
            // The chunks left to tree-sitter, for a look at what they hold.
            let file = ParsedFile::new(&text);
            let mut left = String::new();
            for c in file.chunks() {
                if parse_chunk(file.text(), c.range.clone()).is_none() {
                    let at = super::FAILED_AT.with(std::cell::Cell::get);
                    let line = if at == usize::MAX {
                        "(lexer)".to_string()
                    } else {
                        let start = file.text()[..at].rfind('\n').map_or(0, |i| i + 1);
                        let end = file.text()[at..].find('\n').map_or(file.text().len(), |i| at + i);
                        format!("{} ⟪{}", &file.text()[start..at], &file.text()[at..end])
                    };
                    left.push_str(&format!("=== {} {:?}\n{line}\n", path.display(), c.range));
                }
            }
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(out)
                .expect("open");
            std::io::Write::write_all(&mut f, left.as_bytes()).expect("write");
        }
    }
    // Time over the same chunks (a debug build: only the ratio means much).
    let (mut own, mut theirs, mut bytes) = (std::time::Duration::ZERO, std::time::Duration::ZERO, 0);
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let file = ParsedFile::new(&text);
        for c in file.chunks() {
            bytes += c.range.len();
            let t = std::time::Instant::now();
            let _ = parse_chunk(file.text(), c.range.clone());
            own += t.elapsed();
            let t = std::time::Instant::now();
            let _ = parse_range(file.text(), file.line_starts(), c.range.clone());
            theirs += t.elapsed();
        }
    }
    eprintln!("time over {bytes} bytes: own parser {own:?}, tree-sitter + conversion {theirs:?}");
    for b in bad.iter().take(400) {
        eprintln!("{b}\n");
    }
    eprintln!(
        "corpus: {} files, {chunks} chunks, {accepted} accepted ({:.1} %), {} mismatches",
        files.len(),
        100.0 * accepted as f64 / chunks.max(1) as f64,
        bad.len()
    );
    assert!(bad.is_empty());
}

fn parse(text: &str) -> Option<ChunkAst> {
    parse_chunk(text, 0..text.len())
}

fn same(text: &str) {
    let mine = parse(text);
    assert!(mine.is_some(), "not accepted:\n{text}");
    let (_, a, bad) = contract("shape", text);
    assert!(a > 0);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn tricky_shapes() {
    for text in [
        "x = 1 + \\\n    2\ny = a and \\\n    b\nz = \\\n    f(k=\\\n    1)\n",
        // A continuation anywhere after an operator or a name (a call's
        // arguments, a conditional expression, a comparison).
        "x = foo(a, \\\n    b)\ny = (1 <\\\n    2)\nz = [f(p) for p in q] if \\\n    c else [r]\n",
        "r = r'\\d+' + r'a\\b'\n",
        "@dec\n@dec2(1, k=2)\n# c\ndef f(a, b=1, *args, c, d: int = 2, **kw) -> int:\n    return a\n",
        "f = lambda x, y=1, *a, **k: x + y\n",
        "x = [i * 2 for i in range(10) if i % 2 for j in y]\ny = {k: v for k, v in d.items()}\nz = {a for a in b}\nw = sum(x for x in y)\n",
        "a = x[1:2, ::3, :, None]\nb = x[i,]\nc = x[1:]\nd = x[:-1]\n",
        "f(*args, **kwargs)\na, *b = c\n",
        "if (n := len(a)) > 10:\n    pass\n",
        "s = f\"{a} and {b!r:>10} {c.d[0]}\" 'x' \"y\"\n",
        "s = ('a'\n     'b')\nt = b'x'\nu = r'\\d+'\n",
        "x = foo(\n    1,\n    [2,\n 3],\n)\n",
        "for i in x:\n    pass\nelse:\n    pass\nwhile y:\n    break\nelse:\n    continue\n",
        "try:\n    x\nexcept (A, B) as e:\n    raise\nexcept C:\n    pass\nelse:\n    y\nfinally:\n    z\n",
        "async def f():\n    return 1\n",
        "x: int = 1\ny: List[int]\n",
        "a = 1; b = 2;\nif x: y\nif a:\n    b\nelif c:\n    d\nelif e: f\nelse:\n    g\n",
        "x = not a in b and c is not d or -1 ** 2\ny = a if b else c if d else e\n",
        "def f():\n    x = 1  # c\n    # trailing\n\n    # two\n# col0\n",
        "class A(B, metaclass=M):\n    '''doc'''\n    def m(self):\n        with open(p) as f, lock:\n            self.v = a = 1\n",
        "from .a.b import (c as d, e,)\nfrom . import x\nfrom __future__ import annotations\nimport a.b as c, d\n",
        "print(x)\nprint('a', file=f)\ndel a, b\nassert x, 'm'\nglobal g\nx = ...\ny = 1j + 0x1F + 1_000 + 1.5e-3\n",
        "async def f():\n    x = await a + b\n    y = -await c ** 2\n    return await d\n",
        "size, = x\nfor a, in y:\n    pass\nx = (*a, b)\ntype, v = t\na @= b\n",
        "x = yield\ndef g():\n    y = yield a, b\n    yield from z\n",
        // A block's trailing `;` is part of the block (found by the fuzz target).
        "def f(): x;\nif a: b;\ndef g():\n    y; z;\n",
        "def __init__(self):_;",
    ] {
        same(text);
    }
}

#[test]
fn unsure_shapes_are_left_to_tree_sitter() {
    for text in [
        // A continuation after a number (or anything but an operator or a
        // name).
        "x = 1 \\\n    + 2\n",
        "r = r'\\'' + r\"\\\\\"\n",
        "if x:\n\tpass\n",
        "match x:\n    case 1:\n        pass\n",
        "print 'a'\n",
        "exec 'a'\n",
        "x = f'{a=}'\n",
        "x = 1\r\n",
        "def f(:\n    pass\n",
        "if x:\npass\n",
        "  x = 1\n",
        "x = (\n",
        "x = 'abc\n",
        "with (a as b):\n    pass\n",
        "\u{e9} = 1\n",
        // A line ending in a comma: tree-sitter reads `type` on the next
        // line into it (found by the python_parse fuzz target).
        "importself. torc, \ntype=th\n",
    ] {
        assert!(parse(text).is_none(), "{text}");
        let (_, _, bad) = contract("unsure", text);
        assert!(bad.is_empty());
    }
    let deep = format!("x = {}1{}\n", "(".repeat(200), ")".repeat(200));
    assert!(parse(&deep).is_none());
    let chain = format!("x = a{}\n", " + a".repeat(500));
    assert!(parse(&chain).is_none());
}

#[test]
fn large_inputs_read_linearly() {
    // A 300 KB name, numbers past every integer width, and 10,000 lines:
    // each read whole, as tree-sitter reads it.
    let name = "a".repeat(300_000);
    same(&format!("{name} = 1\n"));
    same("x = 1180591620717411303424\ny = 4e9\nz = -9223372036854775809\n");
    let many: String = (0..10_000).map(|i| format!("x{i} = {i}\n")).collect();
    let Some(ast) = parse(&many) else {
        panic!("10,000 lines not read")
    };
    assert_eq!(ast.stmts.len(), 10_000);
}
