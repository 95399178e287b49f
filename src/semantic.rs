//! Semantic rules: constraints of Determined's expconf that JSON Schema
//! cannot state (Determined's custom `checks`, `compareProperties`, ...),
//! and the HPP extension's own rules. Each rule lives in its own file under
//! `rules/` and receives a [`Ctx`].

use serde_json::Value as Json;

use crate::diagnostic::{Diagnostic, Edit};
use crate::rules::Rule;
use crate::schema::value_span;
use crate::source::{FileId, Span};
use crate::yaml::{Located, PathSeg, Tree, Value};

/// What a semantic rule sees: the document as JSON for reading values, and
/// the spanned tree for pointing at them.
pub struct Ctx<'a> {
    pub file: FileId,
    pub text: &'a str,
    pub tree: &'a Tree,
    pub json: &'a Json,
    pub diags: &'a mut Vec<Diagnostic>,
}

impl<'a> Ctx<'a> {
    /// The JSON value at `path`.
    pub fn get(&self, path: &[&str]) -> Option<&'a Json> {
        let mut v: &'a Json = self.json;
        for k in path {
            v = v.get(*k)?;
        }
        Some(v)
    }

    /// Span of the value at `path` (its key when the value is empty).
    pub fn value_span(&self, path: &[PathSeg]) -> Span {
        value_span(self.tree, path)
    }

    /// Span of the key naming the value at `path`.
    pub fn key_span(&self, path: &[PathSeg]) -> Span {
        match self.tree.locate(path).and_then(|l| l.key) {
            Some(k) => self.tree.span(k),
            None => self.value_span(path),
        }
    }

    /// The JSON value at a path of keys and list indices.
    pub fn get_at(&self, path: &[PathSeg]) -> Option<&'a Json> {
        let mut v: &'a Json = self.json;
        for seg in path {
            v = match seg {
                PathSeg::Key(k) => v.get(k.as_str())?,
                PathSeg::Index(i) => v.get(*i)?,
            };
        }
        Some(v)
    }

    /// Span of the key naming the value at `path`; for a list item (which
    /// has no key), the span of its first key, or of the item itself.
    pub fn head_span(&self, path: &[PathSeg]) -> Span {
        match self.tree.locate(path) {
            Some(Located { key: Some(k), .. }) => self.tree.span(k),
            Some(Located { node, key: None }) => match self.tree.entries(node).first() {
                Some(e) => self.tree.span(e.key),
                None => self.value_span(path),
            },
            None => self.value_span(path),
        }
    }

    /// The node at `path` when every step of the path is written out in this
    /// place of the file: no alias and no `<<` merge on the way. Only such
    /// nodes are safe to edit in a fix (editing an anchored node would also
    /// change every alias of it).
    pub fn own_node(&self, path: &[PathSeg]) -> Option<Located> {
        let mut here = Located {
            node: self.tree.root()?,
            key: None,
        };
        for seg in path {
            let node = self.tree.node(here.node);
            here = match (seg, &node.value) {
                (PathSeg::Key(k), Value::Map(entries)) => entries
                    .iter()
                    .find(|e| self.tree.key_text(e.key) == *k)
                    .map(|e| Located {
                        node: e.value,
                        key: Some(e.key),
                    })?,
                (PathSeg::Index(i), Value::Seq(items)) => items.get(*i).map(|&n| Located { node: n, key: None })?,
                _ => return None,
            };
        }
        match self.tree.node(here.node).value {
            Value::Alias(_) => None,
            _ => Some(here),
        }
    }

    /// Span of the scalar at `path` when it is written out in place (see
    /// [`Ctx::own_node`]), for fixes that replace it.
    pub fn own_scalar_span(&self, path: &[PathSeg]) -> Option<Span> {
        let loc = self.own_node(path)?;
        let node = self.tree.node(loc.node);
        match node.value {
            Value::Map(_) | Value::Seq(_) | Value::Alias(_) => None,
            _ if node.span.is_empty() => None,
            _ => Some(node.span),
        }
    }

    /// An edit adding `key: value` to the mapping at `path`: inside the braces
    /// of a flow mapping, or on a new line after the last entry of a block
    /// mapping, at the indentation of its keys. `None` when the mapping is not
    /// written out in place or its layout is unusual.
    pub fn append_entry_edit(&self, path: &[PathSeg], key: &str, value: &str) -> Option<Edit> {
        let loc = self.own_node(path)?;
        let Value::Map(entries) = &self.tree.node(loc.node).value else {
            return None;
        };
        let span = self.tree.span(loc.node);
        let src = self.text.get(span.start..span.end)?;
        if src.starts_with('{') && src.ends_with('}') {
            let replacement = if entries.is_empty() {
                format!("{key}: {value}")
            } else {
                format!(", {key}: {value}")
            };
            return Some(Edit {
                file: self.file,
                span: Span::at(span.end - 1),
                replacement,
            });
        }
        let first = self.tree.span(entries.first()?.key);
        let line_start = self.text.get(..first.start)?.rfind('\n').map_or(0, |i| i + 1);
        let before = self.text.get(line_start..first.start)?;
        // Block style: only indentation, or the dash of a list item, before the first key.
        let trimmed = before.trim_start_matches(' ');
        if !(trimmed.is_empty() || trimmed.trim_end_matches(' ') == "-") {
            return None;
        }
        let indent = " ".repeat(before.chars().count());
        let last = entries.last()?;
        let end = self.tree.span(last.value).end.max(self.tree.span(last.key).end);
        if end == 0 || self.text.get(end - 1..end)? == "\n" {
            return None;
        }
        // Insert at the end of the last entry's line, after any comment.
        let rest = self.text.get(end..)?;
        let line_end = end + rest.find('\n').unwrap_or(rest.len());
        let tail = self.text.get(end..line_end)?.trim();
        if !(tail.is_empty() || tail.starts_with('#')) {
            return None;
        }
        let at = if self.text.get(line_end.saturating_sub(1)..line_end) == Some("\r") {
            line_end - 1
        } else {
            line_end
        };
        let newline = if self.text.contains("\r\n") { "\r\n" } else { "\n" };
        Some(Edit {
            file: self.file,
            span: Span::at(at),
            replacement: format!("{newline}{indent}{key}: {value}"),
        })
    }

    /// An edit deleting the line of the `key: value` entry at `path`, when
    /// the entry is written out in place, sits alone on its line with a
    /// one-line scalar value, and is not the mapping's only entry.
    pub fn delete_entry_edit(&self, path: &[PathSeg]) -> Option<Edit> {
        let (last, parent) = path.split_last()?;
        let PathSeg::Key(_) = last else { return None };
        let map = self.own_node(parent)?;
        if self.tree.entries_raw(map.node).len() < 2 {
            return None;
        }
        let loc = self.own_node(path)?;
        let key = self.tree.span(loc.key?);
        if matches!(self.tree.node(loc.node).value, Value::Map(_) | Value::Seq(_)) {
            return None;
        }
        let value = self.tree.span(loc.node);
        let end = value.end.max(key.end);
        let line_start = self.text.get(..key.start)?.rfind('\n').map_or(0, |i| i + 1);
        if !self.text.get(line_start..key.start)?.chars().all(|c| c == ' ') {
            return None;
        }
        let rest = self.text.get(end..)?;
        let newline = rest.find('\n')?;
        let tail = rest.get(..newline)?.trim();
        if !(tail.is_empty() || tail.starts_with('#')) || self.text.get(key.start..end)?.contains('\n') {
            return None;
        }
        Some(Edit {
            file: self.file,
            span: Span::new(line_start, end + newline + 1),
            replacement: String::new(),
        })
    }

    /// Every typed hyperparameter (a mapping with a `type` key) under
    /// `hyperparameters`, with its path, following nested mappings (such as
    /// `hpp_config`) and, when `through_lists`, lists too. The values of
    /// typed hyperparameters (`val`, `vals`) are not searched.
    pub fn typed_hyperparameters(&self, through_lists: bool) -> Vec<(Vec<PathSeg>, &'a serde_json::Map<String, Json>)> {
        fn walk<'j>(
            v: &'j Json,
            path: &mut Vec<PathSeg>,
            through_lists: bool,
            out: &mut Vec<(Vec<PathSeg>, &'j serde_json::Map<String, Json>)>,
        ) {
            if path.len() > 64 {
                return;
            }
            match v {
                Json::Object(map) if map.contains_key("type") => out.push((path.clone(), map)),
                Json::Object(map) => {
                    for (k, child) in map {
                        path.push(PathSeg::Key(k.clone()));
                        walk(child, path, through_lists, out);
                        path.pop();
                    }
                }
                Json::Array(items) if through_lists => {
                    for (i, child) in items.iter().enumerate() {
                        path.push(PathSeg::Index(i));
                        walk(child, path, through_lists, out);
                        path.pop();
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        if let Some(Json::Object(hps)) = self.json.get("hyperparameters") {
            let mut path = vec![PathSeg::Key("hyperparameters".into())];
            for (k, v) in hps {
                path.push(PathSeg::Key(k.clone()));
                walk(v, &mut path, through_lists, &mut out);
                path.pop();
            }
        }
        out
    }

    pub fn report(&mut self, rule: &Rule, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::new(rule, self.file, span, message));
        let last = self.diags.len() - 1;
        &mut self.diags[last]
    }

    /// Adds a finished diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }
}

/// Builds a path from a prefix of string keys and a last segment.
pub fn join(base: &[PathSeg], key: &str) -> Vec<PathSeg> {
    let mut p = base.to_vec();
    p.push(PathSeg::Key(key.to_string()));
    p
}

/// A JSON value as a message shows it: strings bare, others as JSON.
pub fn show(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether a JSON value is present and not null (Determined's
/// `eventuallyRequired` treats null as unset).
pub fn is_set(v: Option<&Json>) -> bool {
    v.is_some_and(|v| !v.is_null())
}

/// Builds a path from string keys.
pub fn path(keys: &[&str]) -> Vec<PathSeg> {
    keys.iter().map(|k| PathSeg::Key((*k).to_string())).collect()
}

/// Runs every semantic rule.
pub fn run(file: FileId, text: &str, tree: &Tree, json: &Json, diags: &mut Vec<Diagnostic>) {
    let mut ctx = Ctx {
        file,
        text,
        tree,
        json,
        diags,
    };
    for check in CHECKS {
        check(&mut ctx);
    }
}

/// The semantic rules, in the order they run.
const CHECKS: &[fn(&mut Ctx<'_>)] = &[
    crate::rules::min_not_below_max::check,
    crate::rules::storage_path_outside_host_path::check,
    crate::rules::prefix_parent_dir::check,
    crate::rules::azure_credentials::check,
    crate::rules::container_path_dot::check,
    crate::rules::grid_count_missing::check,
    crate::rules::log_policy_incomplete::check,
    crate::rules::disallowed_property::check,
    crate::rules::incomplete_searcher::check,
    crate::rules::default_checkpoint_storage::check,
    crate::rules::log_bounds_look_like_values::check,
    crate::rules::virtual_stages_without_interleaved::check,
    crate::rules::unknown_dtype::check,
    crate::rules::invalid_env_value::check,
];

/// Test support: checks `text` and applies the fixes of the diagnostics
/// with `code`, returning the fixed text and all diagnostics.
#[cfg(test)]
pub(crate) fn apply_fixes(text: &str, code: &str) -> (String, Vec<Diagnostic>) {
    let source = crate::source::SourceFile::new("test.yaml", text);
    let diags = crate::check::check_text(FileId(0), &source, &crate::check::Options::default()).diagnostics;
    let mut edits: Vec<&Edit> = diags
        .iter()
        .filter(|d| d.code == code)
        .filter_map(|d| d.fix.as_ref())
        .flat_map(|f| f.edits.iter())
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse((e.span.start, e.span.end)));
    let mut out = text.to_string();
    for e in edits {
        out.replace_range(e.span.start..e.span.end, &e.replacement);
    }
    (out, diags)
}
