//! A light pass over Python text that does not parse it: where each logical
//! line starts, which top-level statements are definitions (the chunks that
//! are parsed only when a check needs them), and the import statements at
//! any indentation (how a training package's files are found).
//!
//! It follows strings (all prefixes, triple quotes, escapes), comments,
//! brackets and backslash continuations, so a `def` inside a docstring or a
//! multi-line call never starts a chunk. What it gets wrong on broken text
//! only costs time: a chunk that does not parse cleanly makes the reader
//! parse the whole file.

use std::ops::Range;

/// What a top-level chunk holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkKind {
    /// A function definition (with its decorators).
    Def,
    /// A class definition (with its decorators).
    Class,
    /// Other top-level statements: imports, assignments, `if __name__`
    /// blocks, calls.
    Code,
}

/// One top-level chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkInfo {
    pub range: Range<usize>,
    pub kind: ChunkKind,
    /// The defined name (empty for [`ChunkKind::Code`]).
    pub name: String,
}

/// One import statement, as the module names it binds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportLine {
    /// Leading dots of a relative import (`from ..a import b`: 2).
    pub level: usize,
    /// `import a.b` → `["a.b"]`; `from a import b, c` → module `a`.
    pub module: String,
    /// The imported names of a `from` import (`*` for a star import);
    /// empty for `import`.
    pub names: Vec<String>,
    /// The modules of a plain `import a.b, c` (empty for `from`).
    pub plain: Vec<String>,
}

/// The result of [`scan`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    pub chunks: Vec<ChunkInfo>,
    pub imports: Vec<ImportLine>,
}

/// A logical line: its start, its indentation width and its extent (to the
/// end of the last physical line it spans, before the line break).
struct Logical {
    start: usize,
    indent: usize,
    end: usize,
}

/// Splits `text` into logical lines.
fn logical_lines(text: &str) -> Vec<Logical> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    let n = bytes.len();
    let mut depth = 0usize;
    // Current logical line: (start, indent), or None between lines.
    let mut current: Option<(usize, usize)> = None;
    let mut continued = false;
    let mut at_line_start = true;
    while i < n {
        if at_line_start && depth == 0 && !continued {
            // Measure indentation; blank and comment-only lines start nothing.
            let mut j = i;
            let mut indent = 0usize;
            while j < n && (bytes[j] == b' ' || bytes[j] == b'\t' || bytes[j] == b'\x0c') {
                indent += if bytes[j] == b'\t' { 8 - indent % 8 } else { 1 };
                j += 1;
            }
            if j >= n || matches!(bytes[j], b'\n' | b'\r' | b'#') {
                // Skip to the end of this physical line.
                while j < n && bytes[j] != b'\n' && bytes[j] != b'\r' {
                    j += 1;
                }
                i = skip_newline(bytes, j);
                continue;
            }
            if let Some((start, ind)) = current.take() {
                out.push(Logical {
                    start,
                    indent: ind,
                    end: trim_end(bytes, start, i),
                });
            }
            current = Some((j, indent));
            i = j;
            at_line_start = false;
            continue;
        }
        at_line_start = false;
        continued = false;
        let c = bytes[i];
        match c {
            b'#' => {
                while i < n && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
            }
            b'\\' => {
                // A backslash at the end of a line continues it.
                let next = i + 1;
                if next < n && (bytes[next] == b'\n' || bytes[next] == b'\r') {
                    continued = true;
                    i = skip_newline(bytes, next);
                    at_line_start = true;
                    continue;
                }
                i += 2;
            }
            b'\n' | b'\r' => {
                i = skip_newline(bytes, i);
                at_line_start = true;
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
            }
            _ => i += 1,
        }
    }
    if let Some((start, indent)) = current {
        out.push(Logical {
            start,
            indent,
            end: trim_end(bytes, start, n),
        });
    }
    out
}

fn skip_newline(bytes: &[u8], i: usize) -> usize {
    match bytes.get(i) {
        Some(b'\r') if bytes.get(i + 1) == Some(&b'\n') => i + 2,
        Some(b'\n' | b'\r') => i + 1,
        _ => i,
    }
}

/// The end of a logical line's text: `end` without trailing white space and
/// line breaks, never before `start`.
fn trim_end(bytes: &[u8], start: usize, end: usize) -> usize {
    let mut e = end.min(bytes.len());
    while e > start && matches!(bytes[e - 1], b'\n' | b'\r' | b' ' | b'\t') {
        e -= 1;
    }
    e
}

/// Skips a string starting at its opening quote `i`; returns the index
/// after its closing quote (or after the line, for an unterminated
/// one-line string; or the end of the text).
fn skip_string(bytes: &[u8], i: usize) -> usize {
    let n = bytes.len();
    let q = bytes[i];
    let triple = i + 2 < n && bytes[i + 1] == q && bytes[i + 2] == q;
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < n {
        let c = bytes[j];
        if c == b'\\' {
            j += 2;
            continue;
        }
        if c == q {
            if !triple {
                return j + 1;
            }
            if j + 2 < n && bytes[j + 1] == q && bytes[j + 2] == q {
                return j + 3;
            }
        } else if !triple && (c == b'\n' || c == b'\r') {
            return j;
        }
        j += 1;
    }
    n
}

/// The first word of a line (letters, digits, `_`).
fn first_word(text: &str) -> &str {
    let end = text
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(text.len(), |(i, _)| i);
    &text[..end]
}

/// The identifier after a keyword (`def name(`, `class Name:`).
fn defined_name(rest: &str) -> String {
    first_word(rest.trim_start()).to_string()
}

/// Scans `text`: its top-level chunks and its import statements.
pub fn scan(text: &str) -> Scan {
    let lines = logical_lines(text);
    let mut out = Scan::default();
    // Top-level chunks.
    let mut open: Option<(usize, ChunkKind, String)> = None;
    let mut decorators_from: Option<usize> = None;
    let close = |out: &mut Scan, open: &mut Option<(usize, ChunkKind, String)>, end: usize| {
        if let Some((start, kind, name)) = open.take() {
            if end > start {
                out.chunks.push(ChunkInfo {
                    range: start..end,
                    kind,
                    name,
                });
            }
        }
    };
    // Modules loaded by name so far (at most [`MAX_BY_NAME_PER_FILE`]).
    let mut by_name = 0usize;
    for line in &lines {
        let s = text.get(line.start..line.end).unwrap_or("");
        if line.indent == 0 {
            let word = first_word(s);
            let (kind, name) = if s.starts_with('@') {
                if decorators_from.is_none() {
                    close(&mut out, &mut open, line.start);
                    decorators_from = Some(line.start);
                }
                continue;
            } else if word == "def" {
                (ChunkKind::Def, defined_name(&s[3..]))
            } else if word == "class" {
                (ChunkKind::Class, defined_name(&s[5..]))
            } else if word == "async" && first_word(s[5..].trim_start()) == "def" {
                let rest = s[5..].trim_start();
                (ChunkKind::Def, defined_name(&rest[3..]))
            } else {
                (ChunkKind::Code, String::new())
            };
            let start = decorators_from.take().unwrap_or(line.start);
            match (&open, kind) {
                // Consecutive code lines form one chunk.
                (Some((_, ChunkKind::Code, _)), ChunkKind::Code) if start == line.start => {}
                _ => {
                    close(&mut out, &mut open, start);
                    open = Some((start, kind, name));
                }
            }
        }
        // Imports at any indentation.
        let word = first_word(s);
        if word == "import" || word == "from" {
            if let Some(import) = import_line(s) {
                out.imports.push(import);
            }
        } else if by_name < MAX_BY_NAME_PER_FILE && s.contains("import_module(") {
            let found = loaded_by_name(s);
            by_name += found.len();
            out.imports.extend(found.into_iter().take(MAX_BY_NAME_PER_FILE));
        }
    }
    if let Some(start) = decorators_from {
        // Decorators with nothing after them: code.
        close(&mut out, &mut open, start);
        open = Some((start, ChunkKind::Code, String::new()));
    }
    close(&mut out, &mut open, text.len());
    out
}

/// Reads one import statement's logical line (comments and line breaks
/// inside brackets allowed).
fn import_line(line: &str) -> Option<ImportLine> {
    // Drop comments and continuation characters; keep the words.
    let mut clean = String::with_capacity(line.len());
    let mut in_comment = false;
    for c in line.chars() {
        match c {
            '\n' | '\r' => {
                in_comment = false;
                clean.push(' ');
            }
            '#' => in_comment = true,
            '\\' | '(' | ')' => clean.push(' '),
            _ if in_comment => {}
            ';' => break,
            _ => clean.push(c),
        }
    }
    let mut words = clean.split_whitespace();
    match words.next()? {
        "import" => {
            let rest: Vec<&str> = words.collect();
            let joined = rest.join(" ");
            let plain: Vec<String> = joined
                .split(',')
                .filter_map(|part| part.split_whitespace().next())
                .filter(|m| is_dotted(m))
                .map(str::to_string)
                .collect();
            (!plain.is_empty()).then(|| ImportLine {
                level: 0,
                module: String::new(),
                names: Vec::new(),
                plain,
            })
        }
        "from" => {
            let module = words.next()?;
            let level = module.chars().take_while(|c| *c == '.').count();
            let name = &module[level..];
            if !(name.is_empty() || is_dotted(name)) {
                return None;
            }
            if words.next()? != "import" {
                return None;
            }
            let rest: Vec<&str> = words.collect();
            let joined = rest.join(" ");
            let names: Vec<String> = joined
                .split(',')
                .filter_map(|part| part.split_whitespace().next())
                .filter(|n| *n == "*" || is_dotted(n))
                .map(str::to_string)
                .collect();
            Some(ImportLine {
                level,
                module: name.to_string(),
                names,
                plain: Vec::new(),
            })
        }
        _ => None,
    }
}

/// Most modules one line loads by name that are kept.
const MAX_LOADED: usize = 4;

/// Most modules one file loads by name that are kept (a generated file of
/// ten thousand `import_module(…)` lines gives no more).
pub const MAX_BY_NAME_PER_FILE: usize = 16;

/// The modules a line loads by name with `importlib.import_module(…)`: a
/// literal name (`"models.resnet"`), or an f-string whose placeholders each
/// stand for one part of the dotted name (`f"s3prl.downstream.{task}.expert"`
/// loads `s3prl.downstream.*.expert`, each `*` one name). The first part
/// must be written out; a relative name (`package=` given) is left alone.
fn loaded_by_name(line: &str) -> Vec<ImportLine> {
    let mut out = Vec::new();
    for (at, _) in line.match_indices("import_module(").take(MAX_LOADED) {
        let rest = line[at + "import_module(".len()..].trim_start();
        let (formatted, rest) = match rest.strip_prefix('f') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        let body = &rest[1..];
        let Some(end) = body.find(quote) else { continue };
        let written = &body[..end];
        let mut name = String::new();
        let mut depth = 0usize;
        let mut ok = true;
        for c in written.chars() {
            match c {
                '{' if formatted => {
                    if depth == 0 {
                        name.push('*');
                    }
                    depth += 1;
                }
                '}' if formatted => depth = depth.saturating_sub(1),
                _ if depth > 0 => {}
                _ => name.push(c),
            }
            ok &= depth <= 2;
        }
        // A name with `*` for whole parts only, its first part written out.
        let parts_ok = name
            .split('.')
            .enumerate()
            .all(|(i, part)| (part == "*" && i > 0) || is_dotted(part));
        if ok && depth == 0 && parts_ok && !name.is_empty() {
            out.push(ImportLine {
                level: 0,
                module: String::new(),
                names: Vec::new(),
                plain: vec![name],
            });
        }
    }
    out
}

fn is_dotted(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|part| {
            let mut chars = part.chars();
            matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
                && chars.all(|c| c.is_alphanumeric() || c == '_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(ChunkKind, String, String)> {
        scan(text)
            .chunks
            .iter()
            .map(|c| (c.kind, c.name.clone(), text[c.range.clone()].to_string()))
            .collect()
    }

    #[test]
    fn chunks_follow_top_level_definitions() {
        let text = "import os\nX = [\ndef_not, 2,\n]\n\n@dec(\n  1)\ndef f(a):\n    s = '''\ndef g():\n'''\n# comment\n    return a\nclass C(B):\n    pass\nif __name__ == '__main__':\n    f(1)\n";
        let got = kinds(text);
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(got[0].0, ChunkKind::Code);
        assert!(got[0].2.starts_with("import os") && got[0].2.contains("]\n"));
        assert_eq!((got[1].0, got[1].1.as_str()), (ChunkKind::Def, "f"));
        assert!(got[1].2.starts_with("@dec(") && got[1].2.contains("return a"));
        assert_eq!((got[2].0, got[2].1.as_str()), (ChunkKind::Class, "C"));
        assert_eq!(got[3].0, ChunkKind::Code);
    }

    #[test]
    fn modules_loaded_by_name() {
        let got = |line: &str| -> Vec<Vec<String>> { scan(line).imports.into_iter().map(|i| i.plain).collect() };
        assert_eq!(
            got("    expert = importlib.import_module(f\"s3prl.downstream.{self.args.downstream}.expert\")\n"),
            vec![vec!["s3prl.downstream.*.expert".to_string()]]
        );
        assert_eq!(
            got("m = import_module('models.resnet')\n"),
            vec![vec!["models.resnet".to_string()]]
        );
        // Placeholders that are not whole parts, a name read from a
        // variable, and a first part not written out load nothing known.
        assert!(got("m = import_module(f\"models.{name}_net\")\n").is_empty());
        assert!(got("m = import_module(name)\n").is_empty());
        assert!(got("m = import_module(f\"{pkg}.expert\")\n").is_empty());
        assert!(got("m = import_module(\".expert\", package=p)\n").is_empty());
    }

    #[test]
    fn modules_loaded_by_name_are_few_per_file() {
        let text: String = (0..10_000)
            .map(|i| format!("m{i} = importlib.import_module(f\"pkg{i}.{{name}}.expert\")\n"))
            .collect();
        let got = scan(&text).imports;
        assert_eq!(got.len(), MAX_BY_NAME_PER_FILE);
        assert_eq!(got[0].plain, vec!["pkg0.*.expert".to_string()]);
    }

    #[test]
    fn imports_at_any_indentation() {
        let text = "import a.b as c, d\nfrom .x import (y,\n   z)  # c\ndef f():\n    from ..p.q import *\n    import e\ns = 'import no'\n";
        let s = scan(text);
        assert_eq!(s.imports.len(), 4, "{:?}", s.imports);
        assert_eq!(s.imports[0].plain, ["a.b", "d"]);
        assert_eq!((s.imports[1].level, s.imports[1].module.as_str()), (1, "x"));
        assert_eq!(s.imports[1].names, ["y", "z"]);
        assert_eq!((s.imports[2].level, s.imports[2].module.as_str()), (2, "p.q"));
        assert_eq!(s.imports[2].names, ["*"]);
        assert_eq!(s.imports[3].plain, ["e"]);
    }

    #[test]
    fn broken_text_never_panics() {
        for text in [
            "'''",
            "(\n\n",
            "\\",
            "def",
            "@",
            "from",
            "from . import",
            "x = '\\",
            "\r\r@\r",
            "a\\\r\nb",
        ] {
            let s = scan(text);
            // Chunks in order, inside the text, not overlapping; none lost.
            assert!(!s.chunks.is_empty(), "{text:?}");
            let mut end = 0;
            for c in &s.chunks {
                assert!(end <= c.range.start && c.range.start < c.range.end, "{text:?}: {s:?}");
                assert!(text.get(c.range.clone()).is_some(), "{text:?}: {s:?}");
                end = c.range.end;
            }
            let imports: Vec<usize> = s.imports.iter().map(|i| i.level).collect();
            assert_eq!(
                imports,
                if text == "from . import" { vec![1] } else { vec![] },
                "{text:?}"
            );
        }
    }
}
