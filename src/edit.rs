//! Text edits on YAML documents, one place for the layout rules every fix
//! follows: edit only what is written out in place (never through an
//! alias or a `<<` merge, which would change every copy), keep comments,
//! indentation, quoting and the file's line endings, and give up (`None`)
//! on a layout it cannot be sure of rather than guess.

use crate::diagnostic::Edit;
use crate::source::{FileId, Span};
use crate::yaml::{Located, PathSeg, Tree, Value};

/// The line ending the file uses (`\r\n` when any line has one, `\r` in a
/// file of carriage returns only).
pub fn newline(text: &str) -> &'static str {
    crate::yaml::line_ending(text)
}

/// `text` with `edits` (spans of it, with their replacements) applied in
/// one pass, in span order. An edit that overlaps one before it, or whose
/// span is not a range of `text` on character boundaries, is skipped.
pub fn apply<'r>(text: &str, edits: impl IntoIterator<Item = (Span, &'r str)>) -> String {
    let mut edits: Vec<(Span, &str)> = edits.into_iter().collect();
    edits.sort_by(|a, b| a.0.start.cmp(&b.0.start).then(a.0.end.cmp(&b.0.end)));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (span, replacement) in edits {
        if span.start < at
            || span.start > span.end
            || span.end > text.len()
            || !text.is_char_boundary(span.start)
            || !text.is_char_boundary(span.end)
        {
            continue;
        }
        out.push_str(&text[at..span.start]);
        out.push_str(replacement);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Where the line holding byte `at` starts.
fn line_start(text: &str, at: usize) -> Option<usize> {
    Some(text.get(..at)?.rfind(['\n', '\r']).map_or(0, |i| i + 1))
}

/// Where the line holding byte `at` ends (before its line break).
fn line_end(text: &str, at: usize) -> Option<usize> {
    let rest = text.get(at..)?;
    Some(at + rest.find(['\n', '\r']).unwrap_or(rest.len()))
}

/// The node at `path` when every step of the path is written out in this
/// place of the file: no alias and no `<<` merge on the way. Only such nodes
/// are safe to edit.
pub fn own_node(tree: &Tree, path: &[PathSeg]) -> Option<Located> {
    let mut here = Located {
        node: tree.root()?,
        key: None,
    };
    for seg in path {
        let node = tree.node(here.node);
        here = match (seg, &node.value) {
            (PathSeg::Key(k), Value::Map(_)) => tree.written_entry(here.node, k).map(|e| Located {
                node: e.value,
                key: Some(e.key),
            })?,
            (PathSeg::Index(i), Value::Seq(items)) => items.get(*i).map(|&n| Located { node: n, key: None })?,
            _ => return None,
        };
    }
    match tree.node(here.node).value {
        Value::Alias(_) => None,
        _ => Some(here),
    }
}

/// Replaces the text at `span`.
pub fn replace(file: FileId, span: Span, replacement: impl Into<String>) -> Edit {
    Edit {
        file,
        span,
        replacement: replacement.into(),
    }
}

/// Replaces a string value's contents, keeping its quotes when it has them
/// (`"a100x"` → `"a100"`): `span` is the token, `value` its contents.
pub fn replace_string(file: FileId, text: &str, span: Span, value: &str, replacement: &str) -> Edit {
    let token = text.get(span.start..span.end).unwrap_or("");
    let quoted = token.len() >= value.len() + 2
        && matches!(
            (token.chars().next(), token.chars().last()),
            (Some('"'), Some('"')) | (Some('\''), Some('\''))
        )
        && token.get(1..token.len() - 1) == Some(value);
    let span = if quoted {
        Span::new(span.start + 1, span.end - 1)
    } else {
        span
    };
    replace(file, span, replacement)
}

/// An edit adding `key: value` to the mapping at `path`: inside the braces
/// of a flow mapping, or on a new line after the last entry of a block
/// mapping (after its trailing comment), at the indentation of its keys,
/// with the file's line ending. `None` when the mapping is not written out
/// in place or its layout is unusual.
pub fn insert_entry(file: FileId, text: &str, tree: &Tree, path: &[PathSeg], key: &str, value: &str) -> Option<Edit> {
    let loc = own_node(tree, path)?;
    let Value::Map(entries) = &tree.node(loc.node).value else {
        return None;
    };
    let span = tree.span(loc.node);
    let src = text.get(span.start..span.end)?;
    if src.starts_with('{') && src.ends_with('}') {
        let replacement = if entries.is_empty() {
            format!("{key}: {value}")
        } else {
            format!(", {key}: {value}")
        };
        return Some(replace(file, Span::at(span.end - 1), replacement));
    }
    let first = tree.span(entries.first()?.key);
    let line_start = line_start(text, first.start)?;
    let before = text.get(line_start..first.start)?;
    // Block style: only indentation, or the dash of a list item, before the first key.
    let trimmed = before.trim_start_matches(' ');
    if !(trimmed.is_empty() || trimmed.trim_end_matches(' ') == "-") {
        return None;
    }
    let indent = " ".repeat(before.chars().count());
    let last = entries.last()?;
    let end = tree.span(last.value).end.max(tree.span(last.key).end);
    if end == 0 || matches!(text.get(end - 1..end)?, "\n" | "\r") {
        return None;
    }
    // Insert at the end of the last entry's line, after any comment.
    let at = line_end(text, end)?;
    let tail = text.get(end..at)?.trim();
    if !(tail.is_empty() || tail.starts_with('#')) {
        return None;
    }
    Some(replace(
        file,
        Span::at(at),
        format!("{}{indent}{key}: {value}", tree.newline()),
    ))
}

/// An edit deleting the line of the `key: value` entry at `path`, when the
/// entry is written out in place, sits alone on its line with a one-line
/// scalar value, and is not the mapping's only entry.
pub fn delete_entry(file: FileId, text: &str, tree: &Tree, path: &[PathSeg]) -> Option<Edit> {
    let (last, parent) = path.split_last()?;
    let PathSeg::Key(_) = last else { return None };
    let map = own_node(tree, parent)?;
    if tree.entries_raw(map.node).len() < 2 {
        return None;
    }
    let loc = own_node(tree, path)?;
    let key = tree.span(loc.key?);
    if matches!(tree.node(loc.node).value, Value::Map(_) | Value::Seq(_)) {
        return None;
    }
    let value = tree.span(loc.node);
    let end = value.end.max(key.end);
    let line_start = line_start(text, key.start)?;
    if !text.get(line_start..key.start)?.chars().all(|c| c == ' ') {
        return None;
    }
    let line_end = line_end(text, end)?;
    let tail = text.get(end..line_end)?.trim();
    if !(tail.is_empty() || tail.starts_with('#')) || text.get(key.start..end)?.contains(['\n', '\r']) {
        return None;
    }
    // The line goes with its break (`\r\n`, `\n` or `\r`); a last line
    // without one is left alone.
    let after = text.get(line_end..)?;
    let break_len = if after.starts_with("\r\n") {
        2
    } else if after.starts_with(['\n', '\r']) {
        1
    } else {
        return None;
    };
    Some(replace(
        file,
        Span::new(line_start, line_end + break_len),
        String::new(),
    ))
}

/// Replaces the block from `span.start` (a key at the start of its line's
/// indentation) to `span.end` with `lines`: the first line as written, the
/// others indented like the key, joined with the file's line ending.
pub fn rewrite_block(file: FileId, text: &str, span: Span, lines: &[String]) -> Option<Edit> {
    let line_start = line_start(text, span.start)?;
    let prefix = text.get(line_start..span.start)?;
    if !prefix.chars().all(|c| c == ' ') {
        return None;
    }
    let indent = " ".repeat(prefix.chars().count());
    let nl = newline(text);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str(nl);
            out.push_str(&indent);
        }
        out.push_str(line);
    }
    Some(replace(file, span, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Budgets;

    fn apply(text: &str, edit: Option<Edit>) -> Option<String> {
        let e = edit?;
        Some(super::apply(text, [(e.span, e.replacement.as_str())]))
    }

    fn tree(text: &str) -> Tree {
        crate::yaml::parse(text, &Budgets::default()).0
    }

    fn keys(k: &[&str]) -> Vec<PathSeg> {
        k.iter().map(|k| PathSeg::Key((*k).to_string())).collect()
    }

    #[test]
    fn insert_after_the_trailing_comment_keeping_crlf() {
        let text = "hp:\r\n  lr:\r\n    type: log   # 日本語 comment\r\n    minval: -5\r\nname: x\r\n";
        let t = tree(text);
        let out = apply(
            text,
            insert_entry(FileId(0), text, &t, &keys(&["hp", "lr"]), "base", "10"),
        );
        assert_eq!(
            out.as_deref(),
            Some("hp:\r\n  lr:\r\n    type: log   # 日本語 comment\r\n    minval: -5\r\n    base: 10\r\nname: x\r\n")
        );
        let text = "a:\n  b: 1 # keep me\n";
        let t = tree(text);
        let out = apply(text, insert_entry(FileId(0), text, &t, &keys(&["a"]), "c", "2"));
        assert_eq!(out.as_deref(), Some("a:\n  b: 1 # keep me\n  c: 2\n"));
    }

    #[test]
    fn insert_into_flow_mappings_and_list_items() {
        let text = "hp: {lr: {type: log, minval: -5}}\n";
        let t = tree(text);
        let out = apply(
            text,
            insert_entry(FileId(0), text, &t, &keys(&["hp", "lr"]), "base", "10"),
        );
        assert_eq!(out.as_deref(), Some("hp: {lr: {type: log, minval: -5, base: 10}}\n"));
        let text = "l:\n  - a: 1\n    b: 2\n";
        let t = tree(text);
        let path = [PathSeg::Key("l".into()), PathSeg::Index(0)];
        let out = apply(text, insert_entry(FileId(0), text, &t, &path, "c", "3"));
        assert_eq!(out.as_deref(), Some("l:\n  - a: 1\n    b: 2\n    c: 3\n"));
    }

    #[test]
    fn no_edit_through_aliases() {
        let text = "base: &b {x: 1}\nother: *b\n";
        let t = tree(text);
        assert_eq!(insert_entry(FileId(0), text, &t, &keys(&["other"]), "y", "2"), None);
    }

    #[test]
    fn delete_a_line_and_replace_strings_in_quotes() {
        let text = "a:\n  x: 1\n  y: 2  # gone\n  z: 3\n";
        let t = tree(text);
        let out = apply(text, delete_entry(FileId(0), text, &t, &keys(&["a", "y"])));
        assert_eq!(out.as_deref(), Some("a:\n  x: 1\n  z: 3\n"));
        let text = "g: [\"a100x\", 'é100']\n";
        let q = text.find('"').unwrap_or(0);
        let e = replace_string(FileId(0), text, Span::new(q, q + 7), "a100x", "a100");
        assert_eq!(apply(text, Some(e)).as_deref(), Some("g: [\"a100\", 'é100']\n"));
    }

    #[test]
    fn rewrite_a_block_with_the_files_line_endings() {
        let text = "x: 1\r\n  old: {a: 1}\r\n";
        let start = text.find("old").unwrap_or(0);
        let end = text.find('}').unwrap_or(0) + 1;
        let lines = vec!["new:".to_string(), "  a: 1".to_string()];
        let out = apply(text, rewrite_block(FileId(0), text, Span::new(start, end), &lines));
        assert_eq!(out.as_deref(), Some("x: 1\r\n  new:\r\n    a: 1\r\n"));
    }
}
