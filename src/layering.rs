//! Keeps the floors of the crate's module documentation true: every
//! top-level module has a floor, the code of a module (its tests and
//! comments left out) names through `crate::` only modules on its own floor
//! and lower ones, and no modules need each other.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The floors the module documentation of `lib.rs` lists: module → floor.
fn floors(lib: &str) -> Result<BTreeMap<String, usize>, String> {
    let mut out = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.strip_prefix("//! * floor ") else {
            continue;
        };
        let Some((number, modules)) = rest.split_once(':') else {
            return Err(format!("a floor without `:`: {line}"));
        };
        let floor: usize = number
            .trim()
            .parse()
            .map_err(|_| format!("not a floor number: {line}"))?;
        let modules = modules.split(" — ").next().unwrap_or("");
        for name in modules.split(',') {
            let name = name.trim().trim_matches('`');
            if name.is_empty() {
                continue;
            }
            if let Some(before) = out.insert(name.to_string(), floor) {
                return Err(format!("`{name}` is listed on floors {before} and {floor}"));
            }
        }
    }
    Ok(out)
}

/// `text` with comments, string literals and character literals blanked
/// out (each string becomes `""`), so that braces and `crate::` in them do
/// not count.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
            continue;
        }
        if rest.starts_with("/*") {
            // Block comments nest in Rust.
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                if text[j..].starts_with("/*") {
                    depth += 1;
                    j += 2;
                } else if text[j..].starts_with("*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            i = j;
            continue;
        }
        let after_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if !after_ident && (rest.starts_with("r\"") || rest.starts_with("r#") || rest.starts_with("br")) {
            let start = if rest.starts_with('b') { 2 } else { 1 };
            let hashes = rest[start..].bytes().take_while(|&c| c == b'#').count();
            if rest[start + hashes..].starts_with('"') {
                let close = format!("\"{}", "#".repeat(hashes));
                let body = start + hashes + 1;
                let end = rest[body..].find(&close).map_or(rest.len(), |e| body + e + close.len());
                out.push_str("\"\"");
                i += end;
                continue;
            }
        }
        match b[i] {
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                out.push_str("\"\"");
                i = j + 1;
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{7f}'), else a lifetime.
                let len = if rest[1..].starts_with('\\') {
                    rest.get(3..).and_then(|r| r.find('\'')).map(|e| e + 4)
                } else {
                    rest[1..]
                        .chars()
                        .next()
                        .filter(|c| rest[1 + c.len_utf8()..].starts_with('\''))
                        .map(|c| c.len_utf8() + 2)
                };
                match len {
                    Some(len) => {
                        out.push_str("' '");
                        i += len;
                    }
                    None => {
                        out.push('\'');
                        i += 1;
                    }
                }
            }
            _ => {
                let c = rest.chars().next().unwrap_or(' ');
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// `code` without its `#[cfg(test)]` items (a test module, a helper).
fn without_tests(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        let end = match (item.find('{'), item.find(';')) {
            (Some(open), semi) if semi.is_none_or(|s| open < s) => {
                let mut depth = 0usize;
                let mut end = item.len();
                for (k, c) in item[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (_, Some(semi)) => semi + 1,
            _ => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The top-level modules `code` names through `crate::` (or `$crate::`),
/// including each of a `crate::{a, b::c}` group.
fn references(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1usize;
            let mut start_of_item = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => start_of_item = true,
                    c if c.is_whitespace() => {}
                    _ if start_of_item && depth == 1 => {
                        start_of_item = false;
                        out.insert(ident(&group[k..]));
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.remove("");
    out
}

/// The files of a directory tree, in path order.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Modules a file declares as `#[cfg(test)] mod NAME;`: their files are
/// tests.
fn test_modules(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line == "#[cfg(test)]" {
            if let Some(next) = lines.next() {
                let decl = next.strip_prefix("pub ").unwrap_or(next);
                if let Some(name) = decl.strip_prefix("mod ").and_then(|d| d.strip_suffix(';')) {
                    out.push(name.trim().to_string());
                }
            }
        }
    }
    out
}

/// Every use of a module on a higher floor, as `file: …` lines; every
/// circle of uses within a floor; and every top-level module without a
/// floor.
fn violations(src: &Path) -> Result<Vec<String>, String> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).map_err(|e| format!("cannot read lib.rs: {e}"))?;
    let floors = floors(&lib)?;
    let mut problems = Vec::new();
    let library: BTreeSet<String> = without_tests(&code_only(&lib))
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ").or(l.trim().strip_prefix("mod ")))
        .filter_map(|l| l.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    for m in &library {
        if !floors.contains_key(m) {
            problems.push(format!("module `{m}` has no floor in the lib.rs documentation"));
        }
    }
    for m in floors.keys() {
        if !library.contains(m) {
            problems.push(format!("floor lists `{m}`, which lib.rs does not declare"));
        }
    }
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut tests: BTreeSet<PathBuf> = BTreeSet::new();
    let mut same_floor = Uses::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let dir = match file.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs" | "lib.rs" | "main.rs") => file.parent().map(Path::to_path_buf),
            _ => Some(file.with_extension("")),
        };
        for name in test_modules(&text) {
            if let Some(dir) = &dir {
                tests.insert(dir.join(format!("{name}.rs")));
                tests.insert(dir.join(&name));
            }
        }
    }
    for file in &files {
        if tests.iter().any(|t| file.starts_with(t)) {
            continue;
        }
        let rel = file.strip_prefix(src).unwrap_or(file);
        let Some(top) = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .map(|c| c.trim_end_matches(".rs").to_string())
        else {
            continue;
        };
        // The crate roots, and the binary's own modules.
        if !library.contains(&top) {
            continue;
        }
        let Some(&floor) = floors.get(&top) else { continue };
        let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        for used in references(&without_tests(&code_only(&text))) {
            if used == top || !library.contains(&used) {
                continue;
            }
            match floors.get(&used) {
                Some(&to) if to > floor => problems.push(format!(
                    "src/{}: module `{top}` (floor {floor}) uses `crate::{used}` (floor {to}): a module uses only its own floor and lower ones",
                    rel.display()
                )),
                Some(&to) if to == floor => {
                    same_floor.entry(top.clone()).or_default().entry(used).or_default().push(rel.display().to_string());
                }
                _ => {}
            }
        }
    }
    problems.extend(cycles(&same_floor));
    Ok(problems)
}

/// Uses between modules of one floor: module → used module → files.
type Uses = BTreeMap<String, BTreeMap<String, Vec<String>>>;

/// Every circle of uses (modules that need each other, directly or through
/// others), each once, named with the files that make it.
fn cycles(uses: &Uses) -> Vec<String> {
    fn visit(m: &str, uses: &Uses, path: &mut Vec<String>, done: &mut BTreeSet<String>, out: &mut Vec<String>) {
        if let Some(at) = path.iter().position(|p| p == m) {
            let circle = &path[at..];
            let steps: Vec<String> = circle
                .iter()
                .enumerate()
                .map(|(i, from)| {
                    let to = circle.get(i + 1).unwrap_or(&circle[0]);
                    let files = uses
                        .get(from)
                        .and_then(|u| u.get(to))
                        .map(|f| f.join(", "))
                        .unwrap_or_default();
                    format!("`{from}` uses `{to}` ({files})")
                })
                .collect();
            out.push(format!("modules in a circle: {}", steps.join("; ")));
            return;
        }
        if done.contains(m) {
            return;
        }
        path.push(m.to_string());
        for next in uses.get(m).into_iter().flat_map(|u| u.keys()) {
            visit(next, uses, path, done, out);
        }
        path.pop();
        done.insert(m.to_string());
    }
    let mut out = Vec::new();
    let mut done = BTreeSet::new();
    for m in uses.keys() {
        visit(m, uses, &mut Vec::new(), &mut done, &mut out);
    }
    out
}

#[test]
fn no_module_reaches_a_higher_floor_or_closes_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = violations(&src).unwrap_or_else(|e| vec![e]);
    assert!(
        problems.is_empty(),
        "the layers of lib.rs are broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_circle_is_found_and_named_with_its_files() {
    fn add(uses: &mut Uses, from: &str, to: &str, file: &str) {
        uses.entry(from.into())
            .or_default()
            .entry(to.into())
            .or_default()
            .push(file.into());
    }
    let mut uses = Uses::new();
    add(&mut uses, "a", "b", "a.rs");
    add(&mut uses, "b", "c", "b/mod.rs");
    add(&mut uses, "c", "a", "c.rs");
    add(&mut uses, "d", "a", "d.rs");
    let found = cycles(&uses);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`c` uses `a` (c.rs)"), "{found:?}");
    add(&mut uses, "b", "d", "b/x.rs");
    assert!(!cycles(&uses).is_empty());
    let mut acyclic = Uses::new();
    acyclic
        .entry("a".into())
        .or_default()
        .entry("b".into())
        .or_default()
        .push("a.rs".into());
    assert!(cycles(&acyclic).is_empty());
}

#[test]
fn the_floors_are_read_from_the_documentation() {
    let lib = "//! * floor 0: `a`, `b` — leaves\n//! * floor 1: `c` — above\n//! text\n";
    let read = floors(lib).unwrap_or_default();
    assert_eq!(read.get("a"), Some(&0));
    assert_eq!(read.get("b"), Some(&0));
    assert_eq!(read.get("c"), Some(&1));
    assert_eq!(read.len(), 3);
    assert!(floors("//! * floor 0: `a`\n//! * floor 1: `a`\n").is_err());
}

#[test]
fn references_leave_out_comments_strings_and_tests() {
    let text = r#"
use crate::{alpha::{One, Two}, beta, gamma::Three};
use crate::delta;
// crate::comment
/* crate::block /* nested */ crate::still_comment */
const S: &str = "crate::string {";
const R: &str = r"crate::raw";
const C: char = '{';
const Q: char = '\'';
fn f<'a>(x: &'a str) -> &'a str { $crate::epsilon::g(x) }
#[cfg(test)]
mod tests {
    use crate::zeta;
}
#[cfg(test)]
mod more;
fn after() { crate::eta::h() }
"#;
    let found = references(&without_tests(&code_only(text)));
    let want: BTreeSet<String> = ["alpha", "beta", "delta", "epsilon", "eta", "gamma"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, want);
    assert_eq!(test_modules(text), vec!["more".to_string()]);
}
