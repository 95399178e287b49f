//! The schema-document phase, shared by every YAML input that has a schema
//! (the experiment config, `stages.yaml`, stagec's inventory YAML): text →
//! spanned tree and YAML issues → the gate (a mapping, within the alias
//! budget) → JSON → schema findings. Plain data in and out; the rules word
//! what it found.

use jsonschema::ValidationError;
use serde_json::Value as Json;

use crate::schema::{self, SchemaFinding, SchemaIndex};
use crate::source::Span;
use crate::yaml::{self, Budgets, Schema, Size, Tree, Value, YamlIssue};

/// A parsed YAML document and what each phase found in it.
#[derive(Clone, Debug, Default)]
pub struct Document {
    pub tree: Tree,
    /// Problems of the text (syntax, duplicates, tags, budgets, a root that
    /// is not a mapping).
    pub issues: Vec<YamlIssue>,
    /// The document as JSON, aliases and merges expanded: present when it
    /// parsed whole into a mapping within budget.
    pub json: Option<Json>,
    /// Schema violations, located.
    pub findings: Vec<SchemaFinding>,
}

impl Document {
    /// Parses `text` as `schema` reads it (never fails; see [`yaml::parse_with`]).
    pub fn parse(text: &str, budgets: &Budgets, schema: Schema) -> Document {
        let (tree, issues) = yaml::parse_with(text, budgets, schema);
        Document::from_parse(tree, issues)
    }

    /// A document from a parse made before (`yaml::parse_with`'s result).
    pub fn from_parse(tree: Tree, issues: Vec<YamlIssue>) -> Document {
        Document {
            tree,
            issues,
            json: None,
            findings: Vec::new(),
        }
    }

    /// Whether reading stopped early (a syntax error, nesting too deep).
    pub fn truncated(&self) -> bool {
        self.issues.iter().any(YamlIssue::truncates)
    }

    /// The gate between a parsed document and its schema: sets [`Self::json`]
    /// when the document parsed whole, is a mapping, and its aliases expand
    /// within the node budget; otherwise records why not (unless the reason,
    /// a truncated parse, is already recorded).
    pub fn gate(&mut self, budgets: &Budgets) -> bool {
        if self.truncated() {
            return false;
        }
        let root = match self.tree.root() {
            Some(root) if matches!(self.tree.value(root), Value::Map(_)) => root,
            Some(root) => {
                let found = yaml::type_name(self.tree.value(root));
                self.issues.push(YamlIssue::RootNotMapping {
                    at: self.tree.span(root),
                    found: Some(found),
                });
                return false;
            }
            None => {
                self.issues.push(YamlIssue::RootNotMapping {
                    at: Span::at(0),
                    found: None,
                });
                return false;
            }
        };
        if !self.within_alias_budget(budgets) {
            return false;
        }
        if self.tree.schema() == Schema::Master {
            for (key, merge, text) in self.tree.merge_overrides() {
                self.issues.push(YamlIssue::MergeOverride {
                    at: self.tree.span(key),
                    merge: self.tree.span(merge),
                    key: text,
                });
            }
        }
        let limit = self.tree.len().saturating_add(budgets.max_nodes);
        self.json = self.tree.to_json(root, limit);
        self.json.is_some()
    }

    /// Whether aliases and merges add at most the budget (in nodes and in
    /// bytes) to what is written; if not, records it at the largest alias.
    /// A document without aliases is within it by definition.
    pub fn within_alias_budget(&mut self, budgets: &Budgets) -> bool {
        if !self.tree.has_aliases() {
            return true;
        }
        let written = self.tree.written();
        let cap = Size {
            nodes: written.nodes.saturating_add(budgets.max_nodes),
            bytes: written.bytes.saturating_add(budgets.max_alias_bytes),
        };
        let expanded = self.tree.expanded(cap);
        let (max, bytes) = if expanded.nodes > cap.nodes {
            (budgets.max_nodes, false)
        } else if expanded.bytes > cap.bytes {
            (budgets.max_alias_bytes, true)
        } else {
            return true;
        };
        let at = self.tree.largest_alias(cap).map_or(Span::at(0), |a| self.tree.span(a));
        self.issues.push(YamlIssue::AliasBudget { at, max, bytes });
        false
    }

    /// Maps a validator's errors for [`Self::json`] to findings (the caller
    /// adds them to [`Self::findings`]). A value the YAML layer already
    /// rejected (a bad tag, NaN) is not reported again.
    pub fn map<'e>(
        &self,
        index: fn() -> &'static SchemaIndex,
        errors: impl Iterator<Item = ValidationError<'e>>,
    ) -> Vec<SchemaFinding> {
        let Some(json) = &self.json else {
            return Vec::new();
        };
        let mut found = schema::findings(&self.tree, json, index, errors);
        // Values whose YAML error already says what is wrong with them.
        let yaml_spans: Vec<Span> = self
            .issues
            .iter()
            .filter(|i| {
                matches!(
                    i,
                    YamlIssue::UnsupportedTag { .. } | YamlIssue::TagMismatch { .. } | YamlIssue::NonFinite { .. }
                )
            })
            .map(YamlIssue::span)
            .collect();
        found.retain(|f| !yaml_spans.contains(&f.span));
        found
    }
}
