//! A spanned YAML tree, read the way its reader reads it ([`Schema`]).
//!
//! An experiment config has two readers in Determined: the CLI loads it with
//! ruamel.yaml (YAML 1.2) only as a gate (syntax, duplicate keys, tags, merge
//! values) and sends the raw text on; the master converts it to JSON with
//! yaml.v2 (YAML 1.1: `yes` is `true`, `0777` is 511) through ghodss/yaml
//! (every number a 64-bit float). [`Schema::Master`] builds the tree as the
//! master reads it and reports, as issues, what the gate refuses and every
//! plain scalar the two read differently. stagec's own files and JSON use
//! [`Schema::Core`], YAML 1.2 throughout.
//!
//! [`parse`] never fails: it returns whatever tree it could build and the
//! problems found on the way, as plain [`YamlIssue`]s. Aliases are kept as references (never
//! copied), so a document's memory is bounded by its text; expansion happens
//! only in [`Tree::to_json`], after [`Tree::expanded`] has checked the
//! budget.

mod issue;
mod parse;
mod scalar;

pub use issue::YamlIssue;
pub use parse::{parse, parse_with, Budgets};
pub use scalar::{master_key_text, resolve_master, resolve_master_non_string, resolve_plain, same_reading};

use std::collections::HashMap;

use crate::source::Span;

/// Index of a node in its [`Tree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer outside `i64`, kept as written.
    BigInt(String),
    Float(f64),
    Str(String),
    Seq(Vec<NodeId>),
    Map(Vec<Entry>),
    /// `*name`: refers to the anchored node.
    Alias(NodeId),
}

/// One `key: value` pair. Keys are scalars; their text is the JSON key.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: NodeId,
    pub value: NodeId,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    /// The node's text: a scalar's token, a collection from its first to its
    /// last character, an alias's `*name`.
    pub span: Span,
    /// A plain (unquoted, untagged) scalar, or one tagged `!!merge`: only
    /// such a `<<` is a merge key.
    pub plain: bool,
}

/// How a document is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schema {
    /// YAML 1.2 core schema: ruamel.yaml's reading, used for stagec's own
    /// files (`stages.yaml`, inventories) and JSON.
    #[default]
    Core,
    /// An experiment config: the tree holds what Determined's master reads
    /// (yaml.v2, YAML 1.1 scalars, a merge applied where it is written);
    /// what the CLI's ruamel gate refuses is reported as issues.
    Master,
}

/// A key in a path through the tree.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathSeg {
    Key(String),
    Index(usize),
}

impl std::fmt::Display for PathSeg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathSeg::Key(k) => f.write_str(k),
            PathSeg::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// Renders a path as `resources.custom.stage_0_gpus[1]`.
pub fn display_path(path: &[PathSeg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            PathSeg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            PathSeg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// How large a (sub)document is: its nodes and the bytes of its scalars.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    pub nodes: usize,
    pub bytes: usize,
}

impl Size {
    /// One node: a scalar's bytes (strings by length, other scalars a few).
    fn of(v: &Value) -> Size {
        let bytes = match v {
            Value::Str(s) | Value::BigInt(s) => s.len(),
            Value::Seq(_) | Value::Map(_) | Value::Alias(_) => 0,
            _ => 8,
        };
        Size { nodes: 1, bytes }
    }

    fn add(self, other: Size) -> Size {
        Size {
            nodes: self.nodes.saturating_add(other.nodes),
            bytes: self.bytes.saturating_add(other.bytes),
        }
    }
}

/// What a path resolved to: the node and, when it was reached through a
/// mapping, the key that names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Located {
    pub node: NodeId,
    pub key: Option<NodeId>,
}

/// The parsed document.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    nodes: Vec<Node>,
    root: Option<NodeId>,
    schema: Schema,
    /// Key lookup for the large mappings, built on the first lookup in one
    /// (see [`Tree::get`]).
    large_maps: std::sync::OnceLock<HashMap<NodeId, KeyIndex>>,
    /// The text's line ending (see [`line_ending`]), found once by the
    /// parse: fixes insert lines with it.
    newline: &'static str,
}

/// A text's line ending: `\r\n` when it has one anywhere, `\r` when it
/// breaks lines with `\r` alone, else `\n`.
pub fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else if text.contains('\r') && !text.contains('\n') {
        "\r"
    } else {
        "\n"
    }
}

/// A mapping with more entries than this gets a key index: a loop that looks
/// up each of a mapping's keys stays linear in its size.
const INDEXED_MAP_ENTRIES: usize = 32;

/// One large mapping's keys: where each key is written last (merge keys
/// excluded), and where its merge keys are, in order.
#[derive(Clone, Debug, Default)]
struct KeyIndex {
    last: HashMap<String, usize>,
    merges: Vec<usize>,
    /// Where each key text (as [`Tree::key_text`] spells it, merge keys
    /// included) is first written: [`Tree::written_entry`]'s answer.
    first_written: HashMap<String, usize>,
}

/// Key text of the merge key.
const MERGE_KEY: &str = "<<";

impl Tree {
    pub fn root(&self) -> Option<NodeId> {
        self.root
    }

    /// How the document was read.
    pub fn schema(&self) -> Schema {
        self.schema
    }

    pub fn node(&self, id: NodeId) -> &Node {
        // Ids are only created by this tree, so the index is always valid;
        // `get` keeps even a foreign id from panicking.
        self.nodes.get(id.0 as usize).unwrap_or(&NULL_NODE)
    }

    pub fn span(&self, id: NodeId) -> Span {
        self.node(id).span
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Follows aliases to the node that holds the value.
    pub fn resolve(&self, mut id: NodeId) -> NodeId {
        // Aliases can only point backwards, so this terminates; bound it anyway.
        for _ in 0..64 {
            match self.node(id).value {
                Value::Alias(target) => id = target,
                _ => return id,
            }
        }
        id
    }

    pub fn value(&self, id: NodeId) -> &Value {
        &self.node(self.resolve(id)).value
    }

    /// The key text of a mapping key node: its JSON key (for the master,
    /// ghodss's spelling: `on` is `true`).
    pub fn key_text(&self, key: NodeId) -> String {
        let value = self.value(key);
        match self.schema {
            Schema::Core => scalar_text(value),
            Schema::Master => master_key_text(value).unwrap_or_else(|| scalar_text(value)),
        }
    }

    pub fn as_str(&self, id: NodeId) -> Option<&str> {
        match self.value(id) {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Entries of a mapping as written, without merges.
    pub fn entries(&self, id: NodeId) -> &[Entry] {
        match self.value(id) {
            Value::Map(entries) => entries,
            _ => &[],
        }
    }

    /// Entries of a mapping node itself, without following an alias.
    pub fn entries_raw(&self, id: NodeId) -> &[Entry] {
        match &self.node(id).value {
            Value::Map(entries) => entries,
            _ => &[],
        }
    }

    /// Entries of a mapping with `<<` merges applied, in document order.
    /// Linear in the entries (with merge sources) and their keys.
    ///
    /// [`Schema::Core`] (ruamel): explicit keys win over merged ones, and an
    /// earlier merge source over a later one. [`Schema::Master`] (yaml.v2): a
    /// merge is applied where it is written, so it overrides the keys before
    /// it and the keys after it override it; within `<<: [a, b]`, `a` wins.
    pub fn merged_entries(&self, id: NodeId) -> Vec<(String, Entry)> {
        let mut out: Vec<(String, Entry)> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        match self.schema {
            Schema::Core => self.collect_merged(id, &mut out, &mut index, 0),
            Schema::Master => self.collect_in_place(id, &mut out, &mut index, 0),
        }
        out
    }

    /// The sources of a merge: the mapping, or the items of a list.
    fn merge_sources(&self, value: NodeId) -> Vec<NodeId> {
        match self.value(value) {
            Value::Seq(items) => items.clone(),
            _ => vec![value],
        }
    }

    fn collect_merged(
        &self,
        id: NodeId,
        out: &mut Vec<(String, Entry)>,
        index: &mut std::collections::HashMap<String, usize>,
        depth: usize,
    ) {
        if depth > 32 {
            return;
        }
        let entries = self.entries(id);
        let mut merges = Vec::new();
        let mut own: Vec<(String, Entry)> = Vec::new();
        let mut own_index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for e in entries {
            // Non-scalar keys are reported by the parser and have no JSON form.
            if matches!(self.value(e.key), Value::Seq(_) | Value::Map(_)) {
                continue;
            }
            if self.is_merge_key(e.key) {
                merges.push(e.value);
                continue;
            }
            let k = self.key_text(e.key);
            match own_index.get(&k) {
                // A repeated key: the later entry wins, in the first one's place.
                Some(&i) => {
                    if let Some(slot) = own.get_mut(i) {
                        slot.1 = e.clone();
                    }
                }
                None => {
                    own_index.insert(k.clone(), own.len());
                    own.push((k, e.clone()));
                }
            }
        }
        // Explicit keys override what merges bring, and what is already
        // collected (by an enclosing mapping) overrides both.
        for (k, e) in own {
            if !index.contains_key(&k) {
                index.insert(k.clone(), out.len());
                out.push((k, e));
            }
        }
        for m in merges {
            for src in self.merge_sources(m) {
                self.collect_merged(src, out, index, depth + 1);
            }
        }
    }

    /// yaml.v2's order: every entry and every merge in turn sets its keys,
    /// the last to set a key wins (in the place the key first appeared).
    fn collect_in_place(
        &self,
        id: NodeId,
        out: &mut Vec<(String, Entry)>,
        index: &mut std::collections::HashMap<String, usize>,
        depth: usize,
    ) {
        if depth > 32 {
            return;
        }
        for e in self.entries(id) {
            if matches!(self.value(e.key), Value::Seq(_) | Value::Map(_)) {
                continue;
            }
            if self.is_merge_key(e.key) {
                // The first source is applied last, so it wins.
                for src in self.merge_sources(e.value).into_iter().rev() {
                    self.collect_in_place(src, out, index, depth + 1);
                }
                continue;
            }
            let k = self.key_text(e.key);
            match index.get(&k) {
                Some(&i) => {
                    if let Some(slot) = out.get_mut(i) {
                        slot.1 = e.clone();
                    }
                }
                None => {
                    index.insert(k.clone(), out.len());
                    out.push((k, e.clone()));
                }
            }
        }
    }

    /// Whether a mapping key is the merge key: a plain `<<` (a quoted
    /// `"<<"` is an ordinary key to both of Determined's readers).
    pub fn is_merge_key(&self, key: NodeId) -> bool {
        let node = self.node(key);
        node.plain && matches!(&node.value, Value::Str(k) if k == MERGE_KEY)
    }

    /// Keys written before a merge in the same mapping that the merge then
    /// overrides as Determined's master reads it (ruamel keeps them): each as
    /// (the key written, the merge key, the key's text). Linear in the
    /// mappings' entries and their merge sources.
    pub fn merge_overrides(&self) -> Vec<(NodeId, NodeId, String)> {
        let mut found = Vec::new();
        for node in &self.nodes {
            let Value::Map(entries) = &node.value else { continue };
            if !entries.iter().any(|e| self.is_merge_key(e.key)) {
                continue;
            }
            let mut before: Vec<(String, NodeId)> = Vec::new();
            for e in entries {
                if self.is_merge_key(e.key) {
                    let mut provided: std::collections::HashSet<String> = std::collections::HashSet::new();
                    for src in self.merge_sources(e.value) {
                        provided.extend(self.merged_entries(src).into_iter().map(|(k, _)| k));
                    }
                    for (k, key) in &before {
                        if provided.contains(k) {
                            found.push((*key, e.key, k.clone()));
                        }
                    }
                    before.retain(|(k, _)| !provided.contains(k));
                } else if !matches!(self.value(e.key), Value::Seq(_) | Value::Map(_)) {
                    before.push((self.key_text(e.key), e.key));
                }
            }
        }
        found
    }

    /// Whether a key node's text is `text`, without allocating for strings.
    fn key_is(&self, key: NodeId, text: &str) -> bool {
        match self.value(key) {
            Value::Str(s) => s == text,
            Value::Seq(_) | Value::Map(_) => false,
            other => scalar_text(other) == text,
        }
    }

    /// Looks a key up in a mapping (merges included): the last entry written
    /// with that key, else the first merge source that has it.
    pub fn get(&self, map: NodeId, key: &str) -> Option<Located> {
        self.get_in(map, key, 0)
    }

    fn get_in(&self, map: NodeId, key: &str, depth: usize) -> Option<Located> {
        if depth > 32 {
            return None;
        }
        let entries = self.entries(map);
        if entries.len() > INDEXED_MAP_ENTRIES {
            if let Some(index) = self.large_maps().get(&self.resolve(map)) {
                return self.get_indexed(entries, index, key, depth);
            }
        }
        let in_merge = |e: &Entry| {
            self.merge_sources(e.value)
                .into_iter()
                .find_map(|src| self.get_in(src, key, depth + 1))
        };
        let explicit = |e: &Entry| {
            self.key_is(e.key, key).then_some(Located {
                node: e.value,
                key: Some(e.key),
            })
        };
        match self.schema {
            Schema::Core => entries
                .iter()
                .rev()
                .filter(|e| !self.is_merge_key(e.key))
                .find_map(explicit)
                .or_else(|| entries.iter().filter(|e| self.is_merge_key(e.key)).find_map(in_merge)),
            // The last entry or merge to set the key wins.
            Schema::Master => entries.iter().rev().find_map(|e| {
                if self.is_merge_key(e.key) {
                    in_merge(e)
                } else {
                    explicit(e)
                }
            }),
        }
    }

    /// [`Tree::get_in`] in a large mapping through its index: the same
    /// answer without reading every entry.
    fn get_indexed(&self, entries: &[Entry], index: &KeyIndex, key: &str, depth: usize) -> Option<Located> {
        let at = |i: usize| entries.get(i);
        let explicit = index.last.get(key).copied();
        let found = |i: usize| {
            at(i).map(|e| Located {
                node: e.value,
                key: Some(e.key),
            })
        };
        let in_merge = |i: usize| {
            at(i).and_then(|e| {
                self.merge_sources(e.value)
                    .into_iter()
                    .find_map(|src| self.get_in(src, key, depth + 1))
            })
        };
        match self.schema {
            Schema::Core => explicit
                .and_then(found)
                .or_else(|| index.merges.iter().find_map(|&m| in_merge(m))),
            // The last entry or merge to set the key wins: merges written
            // after the key's last entry first, latest first.
            Schema::Master => index
                .merges
                .iter()
                .rev()
                .take_while(|&&m| explicit.is_none_or(|e| m > e))
                .find_map(|&m| in_merge(m))
                .or_else(|| explicit.and_then(found)),
        }
    }

    /// The key indexes of every large mapping, built once, in one pass.
    fn large_maps(&self) -> &HashMap<NodeId, KeyIndex> {
        self.large_maps.get_or_init(|| {
            let mut maps = HashMap::new();
            for (i, node) in self.nodes.iter().enumerate() {
                let Value::Map(entries) = &node.value else { continue };
                if entries.len() <= INDEXED_MAP_ENTRIES {
                    continue;
                }
                let mut index = KeyIndex::default();
                for (at, e) in entries.iter().enumerate() {
                    index.first_written.entry(self.key_text(e.key)).or_insert(at);
                    if self.is_merge_key(e.key) {
                        index.merges.push(at);
                        continue;
                    }
                    let text = match self.value(e.key) {
                        Value::Str(s) => s.clone(),
                        Value::Seq(_) | Value::Map(_) => continue,
                        other => scalar_text(other),
                    };
                    index.last.insert(text, at);
                }
                maps.insert(NodeId(i as u32), index);
            }
            maps
        })
    }

    /// The first entry written in mapping `map` itself (no alias followed,
    /// no merge) whose key text ([`Tree::key_text`]) is `key`. Large
    /// mappings answer from their index, so a loop over a mapping's keys
    /// stays linear.
    pub fn written_entry(&self, map: NodeId, key: &str) -> Option<&Entry> {
        let entries = self.entries_raw(map);
        if entries.len() > INDEXED_MAP_ENTRIES {
            if let Some(index) = self.large_maps().get(&map) {
                return index.first_written.get(key).and_then(|&at| entries.get(at));
            }
        }
        entries.iter().find(|e| self.key_text(e.key) == key)
    }

    /// The line ending of the text this tree was parsed from.
    pub fn newline(&self) -> &'static str {
        self.newline
    }

    /// Walks a path from the root. Stops early with `None` if a step is
    /// missing.
    pub fn locate(&self, path: &[PathSeg]) -> Option<Located> {
        self.locate_from(self.root?, path)
    }

    /// Walks a path from `node`. `None` if a step is missing.
    pub fn locate_from(&self, node: NodeId, path: &[PathSeg]) -> Option<Located> {
        let mut here = Located { node, key: None };
        for seg in path {
            here = self.step(here.node, seg)?;
        }
        Some(here)
    }

    /// Like [`Tree::locate`], but returns the deepest node reached.
    pub fn locate_nearest(&self, path: &[PathSeg]) -> Option<(Located, usize)> {
        let mut here = Located {
            node: self.root?,
            key: None,
        };
        for (depth, seg) in path.iter().enumerate() {
            match self.step(here.node, seg) {
                Some(next) => here = next,
                None => return Some((here, depth)),
            }
        }
        Some((here, path.len()))
    }

    fn step(&self, node: NodeId, seg: &PathSeg) -> Option<Located> {
        match seg {
            PathSeg::Key(k) => self.get(node, k),
            PathSeg::Index(i) => match self.value(node) {
                Value::Seq(items) => items.get(*i).map(|&n| Located { node: n, key: None }),
                _ => None,
            },
        }
    }

    /// What the document amounts to once every alias and merge is expanded,
    /// each count saturating just above `cap`. Linear in the tree's size.
    pub fn expanded(&self, cap: Size) -> Size {
        let sizes = self.expanded_sizes(cap);
        self.root
            .and_then(|r| sizes.get(r.0 as usize).copied())
            .unwrap_or_default()
    }

    /// What the document amounts to as written: each node once.
    pub fn written(&self) -> Size {
        self.nodes
            .iter()
            .fold(Size::default(), |acc, n| acc.add(Size::of(&n.value)))
    }

    /// The alias whose expansion is largest: where to point a budget error.
    pub fn largest_alias(&self, cap: Size) -> Option<NodeId> {
        let sizes = self.expanded_sizes(cap);
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| matches!(n.value, Value::Alias(_)))
            .max_by_key(|(i, _)| {
                let s = sizes.get(*i).copied().unwrap_or_default();
                (s.bytes.max(s.nodes), usize::MAX - i)
            })
            .map(|(i, _)| NodeId(i as u32))
    }

    /// Whether any alias or merge is written at all.
    pub fn has_aliases(&self) -> bool {
        self.nodes.iter().any(|n| matches!(n.value, Value::Alias(_)))
    }

    /// Expanded size of every node. The builder creates a collection only
    /// after its children and an alias only after its target, so one pass in
    /// id order sees every dependency first.
    fn expanded_sizes(&self, cap: Size) -> Vec<Size> {
        let cap = Size {
            nodes: cap.nodes.saturating_add(1),
            bytes: cap.bytes.saturating_add(1),
        };
        let mut size = vec![Size::default(); self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            let of = |id: &NodeId| size.get(id.0 as usize).copied().unwrap_or(Size { nodes: 1, bytes: 0 });
            let s = match &node.value {
                Value::Alias(t) => of(t),
                Value::Seq(items) => items.iter().fold(Size::of(&node.value), |acc, c| acc.add(of(c))),
                Value::Map(entries) => entries
                    .iter()
                    .fold(Size::of(&node.value), |acc, e| acc.add(of(&e.key)).add(of(&e.value))),
                v => Size::of(v),
            };
            if let Some(slot) = size.get_mut(i) {
                *slot = Size {
                    nodes: s.nodes.min(cap.nodes),
                    bytes: s.bytes.min(cap.bytes),
                };
            }
        }
        size
    }

    /// Converts to JSON with aliases and merges expanded. Callers check
    /// [`Tree::expanded`] first; the conversion also stops at `limit`
    /// nodes and then returns `None`.
    pub fn to_json(&self, id: NodeId, limit: usize) -> Option<serde_json::Value> {
        let mut budget = limit;
        self.json_of(id, &mut budget, 0)
    }

    fn json_of(&self, id: NodeId, budget: &mut usize, depth: usize) -> Option<serde_json::Value> {
        use serde_json::Value as J;
        if *budget == 0 || depth > 256 {
            return None;
        }
        *budget -= 1;
        let id = self.resolve(id);
        Some(match &self.node(id).value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) if self.schema == Schema::Master => master_number(*i as f64),
            Value::Int(i) => J::from(*i),
            Value::BigInt(s) if self.schema == Schema::Master => s.parse::<f64>().map_or(J::Null, master_number),
            Value::BigInt(s) => s
                .parse::<u64>()
                .map(J::from)
                .or_else(|_| {
                    s.parse::<f64>()
                        .map(|f| serde_json::Number::from_f64(f).map_or(J::Null, J::Number))
                })
                .unwrap_or(J::Null),
            Value::Float(f) if self.schema == Schema::Master && f.is_finite() => master_number(*f),
            Value::Float(f) => match serde_json::Number::from_f64(*f) {
                Some(n) => J::Number(n),
                // JSON has no infinities or NaN; keep the YAML spelling so a
                // type error says what was written.
                None => J::String(float_text(*f)),
            },
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                for &item in items {
                    out.push(self.json_of(item, budget, depth + 1)?);
                }
                J::Array(out)
            }
            Value::Map(entries) => {
                let mut out = serde_json::Map::new();
                let has_merge = entries.iter().any(|e| self.is_merge_key(e.key));
                if has_merge {
                    for (k, e) in self.merged_entries(id) {
                        let v = self.json_of(e.value, budget, depth + 1)?;
                        out.insert(k, v);
                    }
                } else {
                    // The common case: keys as written (the last of duplicates wins,
                    // as in `merged_entries`).
                    for e in entries {
                        if matches!(self.value(e.key), Value::Seq(_) | Value::Map(_)) {
                            continue;
                        }
                        let v = self.json_of(e.value, budget, depth + 1)?;
                        out.insert(self.key_text(e.key), v);
                    }
                }
                J::Object(out)
            }
            Value::Alias(_) => J::Null,
        })
    }
}

static NULL_NODE: Node = Node {
    value: Value::Null,
    span: Span { start: 0, end: 0 },
    plain: false,
};

/// A number as the master's JSON has it: a 64-bit float, which Go's
/// encoder writes as an integer when it is one below 1e21.
fn master_number(f: f64) -> serde_json::Value {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
            return serde_json::Value::from(f as i64);
        }
        if (0.0..1.844_674_407_370_955_2e19).contains(&f) {
            return serde_json::Value::from(f as u64);
        }
    }
    serde_json::Number::from_f64(f).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

fn float_text(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f > 0.0 {
        ".inf".into()
    } else {
        "-.inf".into()
    }
}

/// The text a scalar stands for as a JSON object key (Python's `json.dumps`
/// spelling for non-strings).
pub fn scalar_text(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::BigInt(s) => s.clone(),
        Value::Float(f) if f.is_finite() => {
            let mut s = f.to_string();
            if !s.contains('.') && !s.contains('e') {
                s.push_str(".0");
            }
            s
        }
        Value::Float(f) => float_text(*f),
        Value::Str(s) => s.clone(),
        Value::Seq(_) | Value::Map(_) | Value::Alias(_) => String::new(),
    }
}

/// The name of a value's type, as a user reads it in a message.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::BigInt(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Str(_) => "a string",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a mapping",
        Value::Alias(_) => "an alias",
    }
}

pub(crate) struct TreeBuilder {
    pub nodes: Vec<Node>,
}

impl TreeBuilder {
    pub fn push(&mut self, value: Value, span: Span) -> NodeId {
        self.push_node(Node {
            value,
            span,
            plain: false,
        })
    }

    pub fn push_node(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        NodeId((self.nodes.len() - 1) as u32)
    }

    pub fn finish(self, root: Option<NodeId>, schema: Schema) -> Tree {
        Tree {
            nodes: self.nodes,
            root,
            schema,
            large_maps: std::sync::OnceLock::new(),
            newline: "\n",
        }
    }
}

impl Tree {
    /// Moves every span through `f` (from repaired text back to the text
    /// as written).
    pub(crate) fn map_spans(&mut self, f: impl Fn(Span) -> Span) {
        for node in &mut self.nodes {
            node.span = f(node.span);
        }
    }
}
