//! Where the cursor is in a YAML document: the spanned node under it (for
//! hover and definition, on a document that parsed) and, read from the text
//! by indentation, the mapping path and slot being typed (for completion,
//! where the document is usually half-written and does not parse).

use crate::source::Span;
use crate::yaml::{NodeId, PathSeg, Tree, Value};

/// The node under a byte offset.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeAt {
    /// Path from the root to the node (to the key's value when on a key).
    pub path: Vec<PathSeg>,
    /// The node under the cursor: the key node when `on_key`.
    pub node: NodeId,
    /// The key naming the value, when reached through a mapping.
    pub key: Option<NodeId>,
    /// Whether the cursor is on the key rather than the value.
    pub on_key: bool,
}

/// Bound on the walk, so hostile documents cannot make hover slow.
const MAX_DEPTH: usize = 128;

/// The deepest node whose text contains `offset` (the end of a token counts,
/// so a cursor just after a word still hovers it). Aliases are not followed.
pub fn node_at(tree: &Tree, offset: usize) -> Option<NodeAt> {
    let root = tree.root()?;
    let mut path = Vec::new();
    let mut found = None;
    walk(tree, root, None, offset, &mut path, &mut found, 0);
    found
}

fn touches(span: Span, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

fn walk(
    tree: &Tree,
    id: NodeId,
    key: Option<NodeId>,
    offset: usize,
    path: &mut Vec<PathSeg>,
    found: &mut Option<NodeAt>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = tree.node(id);
    match &node.value {
        Value::Map(entries) => {
            for e in entries {
                let key_span = tree.span(e.key);
                let seg = PathSeg::Key(tree.key_text(e.key));
                if touches(key_span, offset) {
                    path.push(seg);
                    *found = Some(NodeAt {
                        path: path.clone(),
                        node: e.key,
                        key: Some(e.key),
                        on_key: true,
                    });
                    path.pop();
                    return;
                }
                if touches(tree.span(e.value), offset) && !tree.span(e.value).is_empty() {
                    path.push(seg);
                    walk(tree, e.value, Some(e.key), offset, path, found, depth + 1);
                    path.pop();
                    if found.is_some() {
                        return;
                    }
                }
            }
            if touches(node.span, offset) {
                *found = Some(NodeAt {
                    path: path.clone(),
                    node: id,
                    key,
                    on_key: false,
                });
            }
        }
        Value::Seq(items) => {
            for (i, &item) in items.iter().enumerate() {
                if touches(tree.span(item), offset) {
                    path.push(PathSeg::Index(i));
                    walk(tree, item, None, offset, path, found, depth + 1);
                    path.pop();
                    if found.is_some() {
                        return;
                    }
                }
            }
            if touches(node.span, offset) {
                *found = Some(NodeAt {
                    path: path.clone(),
                    node: id,
                    key,
                    on_key: false,
                });
            }
        }
        _ => {
            if touches(node.span, offset) {
                *found = Some(NodeAt {
                    path: path.clone(),
                    node: id,
                    key,
                    on_key: false,
                });
            }
        }
    }
}

/// What is being typed at the cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A key of the mapping at `path`.
    Key,
    /// The value of `key` in the mapping at `path` (`flow_item` when inside
    /// a `[...]` list).
    Value { key: String, flow_item: bool },
    /// A `- item` of the sequence at `path` (scalar or the first key of a
    /// mapping item).
    SeqItem,
}

/// The cursor's place in a YAML document, read from its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlContext {
    /// Path of the mapping (or, for [`Slot::SeqItem`], the sequence) the
    /// cursor is in.
    pub path: Vec<PathSeg>,
    pub slot: Slot,
    /// The word already typed, which a completion replaces.
    pub replace: Span,
    pub prefix: String,
    /// Keys already present in the mapping at `path`.
    pub siblings: Vec<String>,
}

/// One line as the indentation scan sees it.
struct LineShape<'a> {
    /// Column of the first `- ` marker, if the line starts a sequence item.
    dash: Option<usize>,
    /// Column where the content (a key, or a scalar item) starts.
    indent: usize,
    /// The key of a `key:` line.
    key: Option<&'a str>,
    /// Whether the line is blank or a comment.
    empty: bool,
}

fn shape(line: &str) -> LineShape<'_> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i] == b' ' {
        i += 1;
    }
    let mut dash = None;
    while i < bytes.len() && bytes[i] == b'-' && (i + 1 == bytes.len() || bytes[i + 1] == b' ') {
        dash.get_or_insert(i);
        i += 1;
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
    }
    let rest = line.get(i..).unwrap_or("").trim_end_matches('\r');
    let empty = rest.trim().is_empty() || rest.starts_with('#');
    let key = key_of(rest);
    LineShape {
        dash,
        indent: i,
        key,
        empty: empty && dash.is_none(),
    }
}

/// The key of `key: value` or `key:` (not inside quotes or flow values).
fn key_of(rest: &str) -> Option<&str> {
    if rest.starts_with(['{', '[', '#', '&', '*', '!', '|', '>']) {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if (b == b'"' || b == b'\'') && i == 0 => quote = Some(b),
            None if b == b':' && (i + 1 == bytes.len() || bytes[i + 1] == b' ' || bytes[i + 1] == b'\t') => {
                let key = rest[..i].trim().trim_matches(['"', '\'']);
                return (!key.is_empty()).then_some(key);
            }
            None if b == b'#' && i > 0 && bytes[i - 1] == b' ' => return None,
            None => {}
        }
    }
    None
}

/// A line that holds what is below it: records its key and, when it is a
/// sequence item itself, that item. Returns whether the root was reached.
fn parent_line(
    s: &LineShape<'_>,
    path_rev: &mut Vec<PathSeg>,
    item: &mut Option<(usize, usize)>,
    target: &mut usize,
) -> bool {
    if let Some(k) = s.key {
        path_rev.push(PathSeg::Key(k.to_string()));
    }
    *target = s.indent;
    match s.dash {
        Some(d) => {
            *item = Some((d, 0));
            false
        }
        None => s.indent == 0 && s.key.is_some(),
    }
}

/// Reads the cursor's context from the text by indentation. Works on any
/// text, parsed or not.
pub fn yaml_context(text: &str, offset: usize) -> YamlContext {
    let offset = crate::source::floor_char_boundary(text, offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let here = shape(before);
    // The word being typed: back to a space, quote, bracket or comma.
    let word_start = before
        .rfind([' ', '"', '\'', '[', ',', '{', '\t'])
        .map_or(0, |i| i + 1)
        .max(here.indent.min(before.len()));
    let prefix = before.get(word_start..).unwrap_or("").to_string();
    let replace = Span::new(line_start + word_start, offset);

    let content = before.get(here.indent..).unwrap_or("");
    let (slot, own_indent) = match key_of(content) {
        Some(key) => {
            let after = &content[content.find(':').map_or(content.len(), |i| i + 1)..];
            let flow_item = after.contains('[') && !after.contains(']');
            (
                Slot::Value {
                    key: key.to_string(),
                    flow_item,
                },
                here.indent,
            )
        }
        None if here.dash.is_some() && !content.contains(':') => (Slot::SeqItem, here.dash.unwrap_or(0)),
        None => (Slot::Key, here.indent),
    };

    let lines: Vec<&str> = text[..line_start].split('\n').collect();
    // The last element is the empty text after the final newline.
    let upward = lines.iter().rev().skip(1);
    let mut path_rev: Vec<PathSeg> = Vec::new();
    let mut siblings = Vec::new();
    let mut target = own_indent;
    let mut collecting = true;
    // Inside a sequence item: its dash column and how many items precede it.
    let mut item: Option<(usize, usize)> = match slot {
        Slot::SeqItem => None,
        _ => here.dash.map(|d| (d, 0)),
    };
    // Typing a `- item`: looking for the key that holds the sequence.
    let mut holder_of: Option<usize> = match slot {
        Slot::SeqItem => here.dash,
        _ => None,
    };
    for line in upward.take(100_000) {
        let s = shape(line);
        if s.empty {
            continue;
        }
        if let Some(d) = holder_of {
            if s.dash == Some(d) || s.indent > d {
                continue;
            }
            holder_of = None;
            collecting = false;
            if parent_line(&s, &mut path_rev, &mut item, &mut target) {
                break;
            }
            continue;
        }
        if let Some((d, count)) = item {
            if s.dash == Some(d) {
                item = Some((d, count + 1));
                continue;
            }
            if s.indent > d {
                continue;
            }
            path_rev.push(PathSeg::Index(count));
            item = None;
            collecting = false;
            if parent_line(&s, &mut path_rev, &mut item, &mut target) {
                break;
            }
            continue;
        }
        if s.indent > target {
            continue;
        }
        if s.indent == target {
            if collecting {
                if let Some(k) = s.key {
                    siblings.push(k.to_string());
                }
            }
            if let Some(d) = s.dash {
                // The first line of the sequence item we are in.
                item = Some((d, 0));
                collecting = false;
            }
            continue;
        }
        collecting = false;
        if parent_line(&s, &mut path_rev, &mut item, &mut target) {
            break;
        }
    }
    if let Some((_, count)) = item {
        path_rev.push(PathSeg::Index(count));
    }
    path_rev.reverse();

    // Siblings written below the cursor, at the same column.
    let rest_start = text[offset..].find('\n').map_or(text.len(), |i| offset + i + 1);
    for line in text[rest_start..].split('\n').take(100_000) {
        let s = shape(line);
        if s.empty {
            continue;
        }
        if s.indent < own_indent || s.dash.is_some_and(|d| d <= own_indent && s.indent > own_indent) {
            break;
        }
        if s.indent == own_indent {
            if s.dash.is_some() && !matches!(slot, Slot::SeqItem) && here.dash.is_none() {
                break;
            }
            if let Some(k) = s.key {
                siblings.push(k.to_string());
            }
        }
    }
    YamlContext {
        path: path_rev,
        slot,
        replace,
        prefix,
        siblings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> PathSeg {
        PathSeg::Key(k.into())
    }

    fn ctx(text_with_cursor: &str) -> YamlContext {
        let offset = text_with_cursor.find('|').unwrap_or(0);
        let text = text_with_cursor.replacen('|', "", 1);
        yaml_context(&text, offset)
    }

    #[test]
    fn key_positions() {
        let c = ctx("name: x\nresources:\n  slots_per_trial: 8\n  cu|\nsearcher:\n  name: grid\n");
        assert_eq!(c.path, vec![key("resources")]);
        assert_eq!(c.slot, Slot::Key);
        assert_eq!(c.prefix, "cu");
        assert_eq!(c.siblings, vec!["slots_per_trial".to_string()]);
        let c = ctx("name: x\nch|\nsearcher:\n  name: grid\n");
        assert_eq!(c.path, Vec::<PathSeg>::new());
        assert!(c.siblings.contains(&"searcher".to_string()) && c.siblings.contains(&"name".to_string()));
        let c = ctx("# 中文\nhyperparameters:\n  lr:\n    type: log\n    |\n");
        assert_eq!(c.path, vec![key("hyperparameters"), key("lr")]);
        assert_eq!(c.siblings, vec!["type".to_string()]);
    }

    #[test]
    fn value_positions() {
        let c = ctx("searcher:\n  name: ad|\n");
        assert_eq!(c.path, vec![key("searcher")]);
        assert_eq!(
            c.slot,
            Slot::Value {
                key: "name".into(),
                flow_item: false
            }
        );
        assert_eq!(c.prefix, "ad");
        let c = ctx("resources:\n  custom:\n    stage_0_gpus: [\"a100\", \"h|\n");
        assert_eq!(c.path, vec![key("resources"), key("custom")]);
        assert!(matches!(c.slot, Slot::Value { flow_item: true, .. }));
        assert_eq!(c.prefix, "h");
    }

    #[test]
    fn sequence_items() {
        let c = ctx("profiling:\n  metrics:\n    - name: a\n      expression: b\n    - name: c\n      |\n");
        assert_eq!(c.path, vec![key("profiling"), key("metrics"), PathSeg::Index(1)]);
        assert_eq!(c.siblings, vec!["name".to_string()]);
        let c = ctx("resources:\n  custom:\n    stage_0_gpus:\n      - a1|\n");
        assert_eq!(c.path, vec![key("resources"), key("custom"), key("stage_0_gpus")]);
        assert_eq!(c.slot, Slot::SeqItem);
    }

    #[test]
    fn node_under_cursor() {
        let text = "resources:\n  slots_per_trial: 8\n";
        let (tree, _) = crate::yaml::parse(text, &Default::default());
        let at = node_at(&tree, text.find("per").unwrap_or(0));
        assert!(at.as_ref().is_some_and(|a| a.on_key));
        assert_eq!(at.map(|a| a.path), Some(vec![key("resources"), key("slots_per_trial")]));
        let at = node_at(&tree, text.find('8').unwrap_or(0));
        assert_eq!(at.map(|a| a.on_key), Some(false));
    }
}
