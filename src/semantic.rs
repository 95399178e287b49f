//! Semantic rules: constraints of Determined's expconf that JSON Schema
//! cannot state (Determined's custom `checks`, `compareProperties`, ...),
//! and the HPP extension's own rules. Each rule lives in its own file under
//! `rules/` and receives a [`Ctx`].

use serde_json::Value as Json;

use crate::diagnostic::Diagnostic;
use crate::rules::Rule;
use crate::schema::value_span;
use crate::source::{FileId, Span};
use crate::yaml::{PathSeg, Tree};

/// What a semantic rule sees: the document as JSON for reading values, and
/// the spanned tree for pointing at them.
pub struct Ctx<'a> {
    pub file: FileId,
    pub text: &'a str,
    pub tree: &'a Tree,
    pub json: &'a Json,
    pub diags: &'a mut Vec<Diagnostic>,
}

impl Ctx<'_> {
    /// The JSON value at `path`.
    pub fn get(&self, path: &[&str]) -> Option<&Json> {
        let mut v = self.json;
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

    pub fn report(&mut self, rule: &Rule, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::new(rule, self.file, span, message));
        let last = self.diags.len() - 1;
        &mut self.diags[last]
    }
}

/// Builds a path from string keys.
pub fn path(keys: &[&str]) -> Vec<PathSeg> {
    keys.iter().map(|k| PathSeg::Key((*k).to_string())).collect()
}

/// Runs every semantic rule.
pub fn run(file: FileId, text: &str, tree: &Tree, json: &Json, diags: &mut Vec<Diagnostic>) {
    let mut ctx = Ctx { file, text, tree, json, diags };
    for check in CHECKS {
        check(&mut ctx);
    }
}

/// The semantic rules, in the order they run.
const CHECKS: &[fn(&mut Ctx<'_>)] = &[];
