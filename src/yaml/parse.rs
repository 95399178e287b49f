//! Builds the spanned [`Tree`] from saphyr-parser's event stream.
//!
//! Where saphyr is stricter than both of Determined's readers — a quoted
//! scalar whose continuation lines are indented less than its key, `\u`
//! escapes of UTF-16 surrogate pairs — the scalar is repaired in a copy of
//! the text (indentation added, the pair written as one `\U` escape), the
//! copy parsed, and every span mapped back to the text as written; the
//! repair is reported as an issue.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::scalar::{
    master_key_text, resolve_float, resolve_int, resolve_master, resolve_master_non_string, resolve_non_string,
    resolve_plain, same_reading,
};
use super::YamlIssue;
use super::{scalar_text, type_name, Entry, Node, NodeId, Schema, Tree, TreeBuilder, Value};
use crate::source::Span;

mod repair;
use repair::{to_original, Repairs, MAX_REPAIRS};

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
    schema: Schema,
    /// A `%YAML 1.1` directive: the CLI reads YAML 1.1 too.
    yaml11: bool,
    /// The CLI's reading of plain scalars the master reads differently.
    cli_values: HashMap<NodeId, Value>,
}

/// Parses one YAML document with the YAML 1.2 core schema
/// ([`Schema::Core`]). Never fails: returns the tree it could build
/// (possibly partial, possibly without a root) and the problems found.
pub fn parse(text: &str, budgets: &Budgets) -> (Tree, Vec<YamlIssue>) {
    parse_with(text, budgets, Schema::Core)
}

/// Parses one YAML document as `schema` reads it. Never fails.
pub fn parse_with(text: &str, budgets: &Budgets, schema: Schema) -> (Tree, Vec<YamlIssue>) {
    let mut issues = Vec::new();
    let version = version_directive(text);
    let yaml11 = version.as_ref().is_some_and(|(_, v)| v.parsed == Some((1, 1)));
    if let Some((at, v)) = version {
        let cli_refuses = !matches!(v.parsed, Some((1, _)));
        let master_refuses = schema == Schema::Master && v.parsed != Some((1, 1));
        if cli_refuses || master_refuses {
            issues.push(YamlIssue::Version {
                at,
                version: v.written,
                cli_refuses,
            });
        }
    }
    let mut repairs = Repairs::default();
    loop {
        let (repaired, table) = repairs.apply(text);
        let (mut tree, mut found, repairable) = parse_once(&repaired, budgets, schema, yaml11);
        if let Some(quote) = repairable {
            let quote = to_original(&table, quote);
            if repairs.quotes.len() < MAX_REPAIRS && repairs.add_quoted(text, quote, schema) {
                continue;
            }
        }
        if !table.is_empty() {
            let map = |span: Span| Span::new(to_original(&table, span.start), to_original(&table, span.end));
            tree.map_spans(map);
            for issue in &mut found {
                issue.map_spans(map);
            }
        }
        tree.newline = super::line_ending(text);
        issues.extend(repairs.issues);
        issues.extend(found);
        return (tree, issues);
    }
}

/// A `%YAML` directive's version, as written and as numbers.
struct Version {
    written: String,
    parsed: Option<(u32, u32)>,
}

/// The `%YAML` directive before the document, if any (directives are the
/// lines starting with `%` before the first other content).
fn version_directive(text: &str) -> Option<(Span, Version)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.trim().is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some(rest) = trimmed.strip_prefix("%YAML") else {
            if trimmed.starts_with('%') {
                continue;
            }
            return None;
        };
        let lead = rest.len() - rest.trim_start().len();
        let token = rest.trim_start().split([' ', '\t', '#']).next().unwrap_or("");
        let at = start + "%YAML".len() + lead;
        let parsed = token
            .split_once('.')
            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
        return Some((
            Span::new(at, at + token.len()),
            Version {
                written: token.to_string(),
                parsed,
            },
        ));
    }
    None
}

/// One parse of `text`; also the opening quote of a scalar the parse
/// stopped at that [`Repairs`] may fix.
fn parse_once(text: &str, budgets: &Budgets, schema: Schema, yaml11: bool) -> (Tree, Vec<YamlIssue>, Option<usize>) {
    let offsets = Offsets::new(text);
    let mut b = Builder {
        text,
        tree: TreeBuilder { nodes: Vec::new() },
        stack: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        issues: Vec::new(),
        schema,
        yaml11,
        cli_values: HashMap::new(),
    };
    let mut repairable = None;
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
                if err.info().contains("invalid indentation in quoted scalar")
                    || err.info().contains("invalid Unicode character escape code")
                {
                    repairable = Some(at);
                }
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
                let is_key = b.at_key();
                let plain = tag.is_none() && matches!(style, ScalarStyle::Plain);
                let merge_tag = tag.as_deref().is_some_and(|t| is_core(t) && t.suffix == "merge");
                let mut cli = None;
                let v = match (&tag, style) {
                    // The common cases reuse the scanner's string.
                    (None, ScalarStyle::Plain) if schema == Schema::Master => {
                        let master = resolve_master_non_string(&value);
                        let core = resolve_non_string(&value);
                        let differs = match (&master, &core) {
                            (None, None) => false,
                            (Some(m), Some(c)) => !same_reading(m, c),
                            _ => true,
                        };
                        if differs {
                            cli = Some(core.unwrap_or_else(|| Value::Str(value.to_string())));
                        }
                        master.unwrap_or_else(|| Value::Str(value.into_owned()))
                    }
                    (None, ScalarStyle::Plain) => {
                        resolve_non_string(&value).unwrap_or_else(|| Value::Str(value.into_owned()))
                    }
                    (None, _) => Value::Str(value.into_owned()),
                    _ => b.scalar_value(&value, style, tag.as_deref(), span),
                };
                let span = scalar_span(text, span, style);
                if schema == Schema::Master {
                    b.master_checks(&v, span, is_key);
                }
                let id = b.tree.push_node(Node {
                    value: v,
                    span,
                    plain: plain || merge_tag,
                });
                if let Some(cli) = cli {
                    if !b.yaml11 {
                        let master = b.tree.nodes.get(id.0 as usize).map_or(Value::Null, |n| n.value.clone());
                        b.issues.push(YamlIssue::Yaml11 {
                            at: span,
                            master,
                            cli: cli.clone(),
                            key: is_key,
                        });
                    }
                    b.cli_values.insert(id, cli);
                }
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
    (b.tree.finish(root, schema), issues, repairable)
}

impl Builder<'_> {
    /// Whether the next node is a mapping key.
    fn at_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                kind: FrameKind::Map { pending_key: None, .. },
                ..
            })
        )
    }

    /// What the master refuses in a scalar: a value JSON cannot hold, a key
    /// ghodss cannot write.
    fn master_checks(&mut self, v: &Value, span: Span, is_key: bool) {
        let written = || {
            let text = self.text.get(span.start..span.end).unwrap_or("");
            text.chars().take(64).collect::<String>()
        };
        if is_key {
            if master_key_text(v).is_none() {
                let written = written();
                self.issues.push(YamlIssue::UnsupportedKey { at: span, written });
            }
        } else if matches!(v, Value::Float(f) if !f.is_finite()) {
            let written = written();
            self.issues.push(YamlIssue::NonFinite { at: span, written });
        }
    }

    /// Reports merges whose value neither of Determined's readers can merge:
    /// not a mapping or a list of mappings (for the master, an alias to a
    /// list is not one either).
    fn check_merges(&mut self, entries: &[Entry]) {
        let nodes = &self.tree.nodes;
        let node = |id: NodeId| nodes.get(id.0 as usize);
        let resolved = |id: NodeId| match node(id).map(|n| &n.value) {
            Some(Value::Alias(t)) => node(*t),
            _ => node(id),
        };
        let mut bad = Vec::new();
        for e in entries {
            let is_merge = node(e.key).is_some_and(|k| k.plain && matches!(&k.value, Value::Str(s) if s == "<<"));
            let Some(v) = node(e.value) else { continue };
            if !is_merge {
                continue;
            }
            let not_map = |id: NodeId| {
                resolved(id).and_then(|n| match n.value {
                    Value::Map(_) => None,
                    ref other => Some((n.span, type_name(other))),
                })
            };
            match (&v.value, resolved(e.value).map(|n| &n.value)) {
                (_, Some(Value::Map(_))) => {}
                (Value::Alias(_), Some(Value::Seq(_))) if self.schema == Schema::Master => {
                    bad.push(YamlIssue::BadMerge {
                        at: v.span,
                        found: "a list",
                        alias_to_list: true,
                    });
                }
                (_, Some(Value::Seq(items))) => {
                    if let Some((at, found)) = items.iter().find_map(|&i| not_map(i)) {
                        let at = if matches!(v.value, Value::Alias(_)) { v.span } else { at };
                        bad.push(YamlIssue::BadMerge {
                            at,
                            found,
                            alias_to_list: false,
                        });
                    }
                }
                (_, other) => bad.push(YamlIssue::BadMerge {
                    at: v.span,
                    found: other.map_or("null", type_name),
                    alias_to_list: false,
                }),
            }
        }
        self.issues.extend(bad);
    }

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
        // The CLI's reading of each key decides what repeats (ruamel is
        // the gate that refuses repeated keys).
        let cli_values = if self.yaml11 { None } else { Some(&self.cli_values) };
        let value_of = |id: NodeId| {
            if let Some(v) = cli_values.and_then(|c| c.get(&id)) {
                return Some(v);
            }
            let v = nodes.get(id.0 as usize).map(|n| &n.value);
            match v {
                Some(Value::Alias(t)) => nodes.get(t.0 as usize).map(|n| &n.value),
                other => other,
            }
        };
        let is_merge = |id: NodeId| {
            nodes
                .get(id.0 as usize)
                .is_some_and(|n| n.plain && matches!(&n.value, Value::Str(s) if s == "<<"))
        };
        let mut keys: Vec<(std::borrow::Cow<'_, str>, usize)> = entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match value_of(e.key)? {
                Value::Seq(_) | Value::Map(_) | Value::Alias(_) => None,
                // A merge key repeats only another merge key.
                Value::Str(s) if is_merge(e.key) => Some((std::borrow::Cow::Owned(format!("\0{s}")), i)),
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
                key: text.trim_start_matches('\0').to_string(),
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
                self.check_merges(&entries);
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
        let resolve = |v: &str| match self.schema {
            Schema::Core => resolve_plain(v),
            Schema::Master => resolve_master(v),
        };
        let Some(tag) = tag else {
            return if matches!(style, ScalarStyle::Plain) {
                resolve(value)
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
            "merge" => Some(Value::Str(value.to_string())),
            "int" => match self.schema {
                Schema::Core => resolve_int(value),
                Schema::Master => match resolve_master(value) {
                    v @ (Value::Int(_) | Value::BigInt(_)) => Some(v),
                    _ => None,
                },
            },
            "float" => match resolve(value) {
                Value::Float(f) => Some(Value::Float(f)),
                Value::Int(i) => Some(Value::Float(i as f64)),
                _ if self.schema == Schema::Core => resolve_float(value).map(Value::Float),
                _ => None,
            },
            "bool" => match resolve(value) {
                v @ Value::Bool(_) => Some(v),
                _ => None,
            },
            "null" => match resolve(value) {
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

#[cfg(test)]
mod tests;
