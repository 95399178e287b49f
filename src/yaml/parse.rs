//! Builds the spanned [`Tree`] from saphyr-parser's event stream.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::scalar::{resolve_float, resolve_int, resolve_non_string, resolve_plain};
use super::YamlIssue;
use super::{scalar_text, Entry, NodeId, Tree, TreeBuilder, Value};
use crate::source::Span;

/// Limits that keep hostile input from costing unbounded time or memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// Largest file read, in bytes.
    pub max_bytes: usize,
    /// Deepest nesting of mappings and sequences.
    pub max_depth: usize,
    /// Most nodes aliases and merges may add to a document beyond what is
    /// written (a document without aliases is bounded by `max_bytes`).
    pub max_nodes: usize,
    /// Most bytes of scalars aliases and merges may add to a document.
    pub max_alias_bytes: usize,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            max_bytes: 8 * 1024 * 1024,
            max_depth: 128,
            max_nodes: 100_000,
            max_alias_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Converts saphyr's character indexes to byte offsets.
struct Offsets {
    /// `bytes[i]` is the byte offset of character `i`; `None` for ASCII text.
    bytes: Option<Vec<usize>>,
    len: usize,
}

impl Offsets {
    fn new(text: &str) -> Self {
        let bytes = if text.is_ascii() {
            None
        } else {
            let mut v: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            v.push(text.len());
            Some(v)
        };
        Offsets { bytes, len: text.len() }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.bytes {
            None => char_index.min(self.len),
            Some(v) => v.get(char_index).copied().unwrap_or(self.len),
        }
    }

    fn span(&self, s: &saphyr_parser::Span) -> Span {
        let start = self.byte(s.start.index());
        Span::new(start, self.byte(s.end.index()).max(start))
    }
}

enum FrameKind {
    Seq(Vec<NodeId>),
    Map {
        entries: Vec<Entry>,
        pending_key: Option<NodeId>,
    },
}

struct Frame {
    kind: FrameKind,
    start: usize,
    flow: bool,
    anchor: usize,
}

struct Builder<'a> {
    text: &'a str,
    tree: TreeBuilder,
    stack: Vec<Frame>,
    anchors: HashMap<usize, NodeId>,
    root: Option<NodeId>,
    issues: Vec<YamlIssue>,
}

/// Parses one YAML document. Never fails: returns the tree it could build
/// (possibly partial, possibly without a root) and the problems found.
pub fn parse(text: &str, budgets: &Budgets) -> (Tree, Vec<YamlIssue>) {
    let offsets = Offsets::new(text);
    let mut b = Builder {
        text,
        tree: TreeBuilder { nodes: Vec::new() },
        stack: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        issues: Vec::new(),
    };
    let mut parser = Parser::new_from_str(text);
    let mut documents = 0usize;
    // While > 0 we are inside a collection below the depth limit and only
    // count brackets; the whole subtree becomes one null node.
    let mut skipping = 0usize;
    let mut skip_start = 0usize;
    let mut syntax_error = false;

    while let Some(next) = parser.next_event() {
        let (event, raw_span) = match next {
            Ok(ev) => ev,
            Err(err) => {
                syntax_error = true;
                // Past our own depth limit the parser's recursion limit is
                // the same problem, already reported.
                if skipping > 0 {
                    break;
                }
                let at = offsets.byte(err.marker().index());
                if err.info().contains("recursion limit") {
                    // The scanner's own nesting guard fired before ours.
                    b.issues.push(YamlIssue::TooDeep {
                        at: Span::at(at),
                        limit: None,
                    });
                    break;
                }
                let open = b.stack.iter().rev().find(|f| f.flow).map(|open| {
                    let bracket = if matches!(open.kind, FrameKind::Map { .. }) {
                        '{'
                    } else {
                        '['
                    };
                    (Span::new(open.start, open.start + 1), bracket)
                });
                b.issues.push(YamlIssue::Syntax {
                    at: Span::at(at),
                    message: err.info().trim().to_string(),
                    open,
                });
                break;
            }
        };
        let span = offsets.span(&raw_span);
        let is_map = matches!(event, Event::MappingStart(..));
        match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    b.issues.push(YamlIssue::SecondDocument { at: span });
                    break;
                }
            }
            Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
                if skipping > 0 {
                    skipping += 1;
                    continue;
                }
                if b.stack.len() >= budgets.max_depth {
                    b.issues.push(YamlIssue::TooDeep {
                        at: Span::new(span.start, span.start + 1),
                        limit: Some(budgets.max_depth),
                    });
                    skipping = 1;
                    skip_start = span.start;
                    continue;
                }
                b.open(is_map, anchor, tag.as_deref(), span);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if skipping > 0 {
                    skipping -= 1;
                    if skipping == 0 {
                        let id = b
                            .tree
                            .push(Value::Null, Span::new(skip_start, span.end.max(skip_start)));
                        b.attach(id);
                    }
                    continue;
                }
                let end = if b.stack.last().is_some_and(|f| f.flow) {
                    Some(span.end)
                } else {
                    None
                };
                b.close_frame(end);
            }
            Event::Scalar(value, style, anchor, tag) => {
                if skipping > 0 {
                    continue;
                }
                let v = match (&tag, style) {
                    // The common cases reuse the scanner's string.
                    (None, ScalarStyle::Plain) => {
                        resolve_non_string(&value).unwrap_or_else(|| Value::Str(value.into_owned()))
                    }
                    (None, _) => Value::Str(value.into_owned()),
                    _ => b.scalar_value(&value, style, tag.as_deref(), span),
                };
                let span = scalar_span(text, span, style);
                let id = b.tree.push(v, span);
                if anchor > 0 {
                    b.anchors.insert(anchor, id);
                }
                b.attach(id);
            }
            Event::Alias(anchor) => {
                if skipping > 0 {
                    continue;
                }
                let value = match b.anchors.get(&anchor) {
                    Some(&target) => Value::Alias(target),
                    None => {
                        b.issues.push(YamlIssue::RecursiveAlias { at: span });
                        Value::Null
                    }
                };
                let id = b.tree.push(value, span);
                b.attach(id);
            }
        }
    }
    // After a syntax error, close what is open so the partial tree is usable.
    if syntax_error || !b.stack.is_empty() {
        while !b.stack.is_empty() {
            b.close_frame(None);
        }
    }
    let root = b.root;
    let issues = b.issues;
    (b.tree.finish(root), issues)
}

impl Builder<'_> {
    fn open(&mut self, is_map: bool, anchor: usize, tag: Option<&Tag>, span: Span) {
        if let Some(tag) = tag {
            let expected = if is_map { "map" } else { "seq" };
            let fits = is_non_specific(tag) || (is_core(tag) && tag.suffix == expected);
            if !fits {
                self.issues.push(unsupported_tag(span, tag));
            }
        }
        let flow = matches!(self.text.as_bytes().get(span.start), Some(b'[' | b'{'));
        let kind = if is_map {
            FrameKind::Map {
                entries: Vec::new(),
                pending_key: None,
            }
        } else {
            FrameKind::Seq(Vec::new())
        };
        self.stack.push(Frame {
            kind,
            start: span.start,
            flow,
            anchor,
        });
    }

    fn attach(&mut self, id: NodeId) {
        let Some(frame) = self.stack.last_mut() else {
            if self.root.is_none() {
                self.root = Some(id);
            }
            return;
        };
        match &mut frame.kind {
            FrameKind::Seq(items) => items.push(id),
            FrameKind::Map { entries, pending_key } => match pending_key.take() {
                Some(key) => entries.push(Entry { key, value: id }),
                None => {
                    let node = self.tree.nodes.get(id.0 as usize);
                    let resolved = match node.map(|n| &n.value) {
                        Some(Value::Alias(t)) => self.tree.nodes.get(t.0 as usize).map(|n| &n.value),
                        other => other,
                    };
                    let key_span = node.map(|n| n.span).unwrap_or_default();
                    match resolved {
                        Some(Value::Seq(_) | Value::Map(_)) => {
                            self.issues.push(YamlIssue::ComplexKey { at: key_span });
                        }
                        Some(_) => {}
                        None => {}
                    }
                    *pending_key = Some(id);
                }
            },
        }
    }

    /// Pops the innermost collection and attaches it to its parent.
    /// Reports every key that repeats an earlier key of the same mapping,
    /// at the repeat, naming the first. Sorting once per mapping keeps this
    /// O(n log n) without a hash map per mapping.
    fn report_duplicates(&mut self, entries: &[Entry]) {
        if entries.len() < 2 {
            return;
        }
        let nodes = &self.tree.nodes;
        let value_of = |id: NodeId| {
            let v = nodes.get(id.0 as usize).map(|n| &n.value);
            match v {
                Some(Value::Alias(t)) => nodes.get(t.0 as usize).map(|n| &n.value),
                other => other,
            }
        };
        let mut keys: Vec<(std::borrow::Cow<'_, str>, usize)> = entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match value_of(e.key)? {
                Value::Seq(_) | Value::Map(_) | Value::Alias(_) => None,
                Value::Str(s) => Some((std::borrow::Cow::Borrowed(s.as_str()), i)),
                v => Some((std::borrow::Cow::Owned(scalar_text(v)), i)),
            })
            .collect();
        keys.sort();
        let mut repeats: Vec<(usize, usize, String)> = Vec::new();
        let mut group_first = 0;
        for i in 1..keys.len() {
            if keys[i].0 == keys[i - 1].0 {
                repeats.push((keys[group_first].1, keys[i].1, keys[i].0.to_string()));
            } else {
                group_first = i;
            }
        }
        repeats.sort_by_key(|(_, second, _)| *second);
        for (first, second, text) in repeats {
            let span_of = |i: usize| {
                entries
                    .get(i)
                    .and_then(|e| self.tree.nodes.get(e.key.0 as usize))
                    .map(|n| n.span)
                    .unwrap_or_default()
            };
            let (first_span, key_span) = (span_of(first), span_of(second));
            self.issues.push(YamlIssue::DuplicateKey {
                at: key_span,
                first: first_span,
                key: text,
            });
        }
    }

    fn close_frame(&mut self, flow_end: Option<usize>) {
        let Some(frame) = self.stack.pop() else { return };
        let (value, last) = match frame.kind {
            FrameKind::Seq(items) => {
                let last = items.last().copied();
                (Value::Seq(items), last)
            }
            FrameKind::Map {
                mut entries,
                pending_key,
                ..
            } => {
                if let Some(key) = pending_key {
                    // A key whose value never came (input ended): null value.
                    let at = self.tree.nodes.get(key.0 as usize).map_or(frame.start, |n| n.span.end);
                    let value = self.tree.push(Value::Null, Span::at(at));
                    entries.push(Entry { key, value });
                }
                self.report_duplicates(&entries);
                let last = entries.last().map(|e| e.value);
                (Value::Map(entries), last)
            }
        };
        let last_end = last
            .and_then(|id| self.tree.nodes.get(id.0 as usize))
            .map(|n| n.span.end);
        let end = flow_end.or(last_end).unwrap_or(frame.start).max(frame.start);
        let end = trim_trailing_space(self.text, frame.start, end);
        let id = self.tree.push(value, Span::new(frame.start, end));
        if frame.anchor > 0 {
            self.anchors.insert(frame.anchor, id);
        }
        self.attach(id);
    }

    fn scalar_value(&mut self, value: &str, style: ScalarStyle, tag: Option<&Tag>, span: Span) -> Value {
        let Some(tag) = tag else {
            return if matches!(style, ScalarStyle::Plain) {
                resolve_plain(value)
            } else {
                Value::Str(value.to_string())
            };
        };
        if is_non_specific(tag) {
            return Value::Str(value.to_string());
        }
        if !is_core(tag) {
            self.issues.push(unsupported_tag(span, tag));
            return Value::Str(value.to_string());
        }
        let converted = match tag.suffix.as_str() {
            "str" => Some(Value::Str(value.to_string())),
            "int" => resolve_int(value),
            "float" => match resolve_plain(value) {
                Value::Float(f) => Some(Value::Float(f)),
                Value::Int(i) => Some(Value::Float(i as f64)),
                _ => resolve_float(value).map(Value::Float),
            },
            "bool" => match resolve_plain(value) {
                v @ Value::Bool(_) => Some(v),
                _ => None,
            },
            "null" => match resolve_plain(value) {
                Value::Null => Some(Value::Null),
                _ => None,
            },
            _ => None,
        };
        match converted {
            Some(v) => v,
            None => {
                self.issues.push(YamlIssue::TagMismatch {
                    at: span,
                    value: value.to_string(),
                    tag: tag.suffix.clone(),
                });
                Value::Str(value.to_string())
            }
        }
    }
}

fn is_core(tag: &Tag) -> bool {
    tag.handle == "tag:yaml.org,2002:" || tag.handle == "!!"
}

fn is_non_specific(tag: &Tag) -> bool {
    tag.handle == "!" && tag.suffix.is_empty()
}

fn unsupported_tag(span: Span, tag: &Tag) -> YamlIssue {
    let shown = if tag.handle == "tag:yaml.org,2002:" {
        format!("!!{}", tag.suffix)
    } else {
        format!("{}{}", tag.handle, tag.suffix)
    };
    YamlIssue::UnsupportedTag { at: span, tag: shown }
}

/// The exact text of a scalar token. The scanner's end marker for quoted
/// scalars can run on to the next token, so find the closing quote.
fn scalar_span(text: &str, span: Span, style: ScalarStyle) -> Span {
    let bytes = text.as_bytes();
    let quote = match style {
        ScalarStyle::SingleQuoted => b'\'',
        ScalarStyle::DoubleQuoted => b'"',
        _ => return Span::new(span.start, trim_trailing_space(text, span.start, span.end)),
    };
    // The token starts at its opening quote (after any anchor or tag).
    let Some(open) = bytes
        .get(span.start..)
        .and_then(|rest| rest.iter().position(|&c| c == quote))
    else {
        return span;
    };
    let mut i = span.start + open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            c if c == quote => {
                if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                    i += 2;
                    continue;
                }
                return Span::new(span.start, i + 1);
            }
            _ => i += 1,
        }
    }
    span
}

fn trim_trailing_space(text: &str, start: usize, mut end: usize) -> usize {
    let bytes = text.as_bytes();
    end = end.min(bytes.len());
    while end > start && matches!(bytes.get(end - 1), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        end -= 1;
    }
    end
}
