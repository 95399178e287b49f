//! JSON Schemas at work: validation errors mapped back to the spanned tree
//! as plain [`SchemaFinding`]s (the `C1…` rules word them), and a walker
//! that answers "which keys are allowed here?" for suggestions, hover and
//! completion.
//!
//! The schema text is the committed `schemas/experiment.schema.json`
//! (generated from the types in [`crate::spec`]; a test keeps it in sync),
//! compiled once per process.

use std::collections::HashMap;
use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::ValidationError;
use serde_json::Value as Json;

use crate::source::Span;
use crate::yaml::{PathSeg, Tree};

/// The committed experiment schema.
pub const EXPERIMENT_SCHEMA: &str = include_str!("../schemas/experiment.schema.json");

/// The experiment schema's validator, generated at build time from the
/// committed file by the jsonschema crate, so a check pays no schema
/// compilation at startup. Its `pattern`s run on the `regex` engine: they
/// use no look-around or back-references (the build fails if one did), a
/// pattern compiles in a fraction of `fancy-regex`'s time, and matching
/// never backtracks, whatever string a config holds.
#[jsonschema::validator(
    path = "schemas/experiment.schema.json",
    validate_formats = false,
    pattern_options = { engine = regex }
)]
struct ExperimentValidator;

/// A parsed schema document with navigation helpers.
pub struct SchemaIndex {
    pub root: Json,
}

/// The experiment schema as a document, parsed on first use (suggestions,
/// hover, completion); validation itself does not need it.
pub fn experiment() -> &'static SchemaIndex {
    static INDEX: OnceLock<SchemaIndex> = OnceLock::new();
    INDEX.get_or_init(|| SchemaIndex::new(serde_json::from_str(EXPERIMENT_SCHEMA).unwrap_or(Json::Null)))
}

impl SchemaIndex {
    pub fn new(root: Json) -> Self {
        SchemaIndex { root }
    }

    /// Follows local `$ref`s (`#/$defs/...`).
    pub fn resolve<'a>(&'a self, mut schema: &'a Json) -> &'a Json {
        for _ in 0..32 {
            let Some(reference) = schema.get("$ref").and_then(Json::as_str) else {
                return schema;
            };
            let Some(pointer) = reference.strip_prefix('#') else {
                return schema;
            };
            match self.root.pointer(pointer) {
                Some(target) => schema = target,
                None => return schema,
            }
        }
        schema
    }

    /// Flattens `$ref`, `allOf`, `anyOf` and `oneOf` into the object-level
    /// schemas that apply to `instance`, choosing union branches by tag.
    fn expand<'a>(&'a self, schema: &'a Json, instance: Option<&Json>, out: &mut Vec<&'a Json>, depth: usize) {
        if depth > 16 {
            return;
        }
        let schema = self.resolve(schema);
        out.push(schema);
        if let Some(all) = schema.get("allOf").and_then(Json::as_array) {
            for s in all {
                self.expand(s, instance, out, depth + 1);
            }
        }
        for key in ["anyOf", "oneOf"] {
            let Some(branches) = schema.get(key).and_then(Json::as_array) else {
                continue;
            };
            let chosen = self.choose_branches(branches, instance);
            for s in chosen {
                self.expand(s, instance, out, depth + 1);
            }
        }
    }

    /// Union branches that fit the instance's tag, or all of them when no
    /// branch is tagged or the instance carries no tag.
    fn choose_branches<'a>(&'a self, branches: &'a [Json], instance: Option<&Json>) -> Vec<&'a Json> {
        let tagged: Vec<(&Json, Option<(String, Json)>)> =
            branches.iter().map(|b| (b, self.branch_tag(self.resolve(b)))).collect();
        if let Some(Json::Object(obj)) = instance {
            let matching: Vec<&Json> = tagged
                .iter()
                .filter(|(_, tag)| matches!(tag, Some((k, v)) if obj.get(k) == Some(v)))
                .map(|(b, _)| *b)
                .collect();
            if !matching.is_empty() {
                return matching;
            }
            // An object whose tag matches no branch: the untagged branches
            // (e.g. nested hyperparameters) still apply.
            if tagged
                .iter()
                .any(|(_, t)| t.as_ref().is_some_and(|(k, _)| obj.contains_key(k)))
            {
                return tagged.iter().filter(|(_, t)| t.is_none()).map(|(b, _)| *b).collect();
            }
        }
        branches.iter().collect()
    }

    /// A branch's tag: a property constrained to one constant value.
    pub fn branch_tag(&self, branch: &Json) -> Option<(String, Json)> {
        let props = branch.get("properties")?.as_object()?;
        let required: Vec<&str> = branch
            .get("required")
            .and_then(Json::as_array)
            .map(|r| r.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        props.iter().find_map(|(k, p)| {
            let p = self.resolve(p);
            let value = p.get("const").cloned().or_else(|| {
                p.get("enum")
                    .and_then(Json::as_array)
                    .filter(|e| e.len() == 1)
                    .and_then(|e| e.first().cloned())
            })?;
            required.contains(&k.as_str()).then(|| (k.clone(), value))
        })
    }

    /// The schemas that apply at `path` of `instance` (the whole document).
    pub fn schemas_at<'a>(&'a self, path: &[PathSeg], instance: &Json) -> Vec<&'a Json> {
        let mut current = Vec::new();
        self.expand(&self.root, Some(instance), &mut current, 0);
        let mut here = Some(instance);
        for seg in path {
            let next_instance = here.and_then(|v| match (seg, v) {
                (PathSeg::Key(k), Json::Object(o)) => o.get(k),
                (PathSeg::Index(i), Json::Array(a)) => a.get(*i),
                _ => None,
            });
            let mut next = Vec::new();
            for s in &current {
                for child in self.children(s, seg) {
                    self.expand(child, next_instance, &mut next, 0);
                }
            }
            current = next;
            here = next_instance;
        }
        current
    }

    fn children<'a>(&'a self, schema: &'a Json, seg: &PathSeg) -> Vec<&'a Json> {
        let mut out = Vec::new();
        match seg {
            PathSeg::Key(k) => {
                if let Some(p) = schema.get("properties").and_then(|p| p.get(k)) {
                    out.push(p);
                    return out;
                }
                if let Some(pp) = schema.get("patternProperties").and_then(Json::as_object) {
                    for (pattern, s) in pp {
                        if simple_pattern_match(pattern, k) {
                            out.push(s);
                        }
                    }
                }
                if out.is_empty() {
                    if let Some(ap) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                        out.push(ap);
                    }
                }
            }
            PathSeg::Index(_) => {
                if let Some(items) = schema.get("items").filter(|i| i.is_object()) {
                    out.push(items);
                }
            }
        }
        out
    }

    /// Keys allowed in the mapping at `path`, with their schemas.
    pub fn properties_at<'a>(&'a self, path: &[PathSeg], instance: &Json) -> Vec<(&'a str, &'a Json)> {
        let mut out: Vec<(&str, &Json)> = Vec::new();
        for s in self.schemas_at(path, instance) {
            if let Some(props) = s.get("properties").and_then(Json::as_object) {
                for (k, v) in props {
                    if !out.iter().any(|(name, _)| *name == k.as_str()) {
                        out.push((k.as_str(), v));
                    }
                }
            }
        }
        out
    }

    /// The user-facing description of the value at `path`.
    pub fn description_at(&self, path: &[PathSeg], instance: &Json) -> Option<&str> {
        self.schemas_at(path, instance)
            .into_iter()
            .find_map(|s| s.get("description").and_then(Json::as_str))
    }
}

/// Matches the anchored patterns our schema uses for `patternProperties`
/// (`^stage_[0-9]+_gpus$` and the like) without a regex engine: literal
/// text and `[0-9]+` runs.
fn simple_pattern_match(pattern: &str, key: &str) -> bool {
    let p = pattern.trim_start_matches('^').trim_end_matches('$');
    let mut rest = key;
    let mut pat = p;
    while !pat.is_empty() {
        if let Some(after) = pat.strip_prefix("[0-9]+") {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return false;
            }
            rest = &rest[digits..];
            pat = after;
        } else if pat.starts_with(".*") {
            return true;
        } else {
            let lit_len = pat.find('[').unwrap_or(pat.len());
            let (lit, after) = pat.split_at(lit_len);
            match rest.strip_prefix(lit) {
                Some(r) => rest = r,
                None => return false,
            }
            pat = after;
        }
    }
    rest.is_empty()
}

fn to_path(loc: &Location) -> Vec<PathSeg> {
    loc.iter()
        .map(|seg| match seg {
            LocationSegment::Property(p) => PathSeg::Key(p.into_owned()),
            LocationSegment::Index(i) => PathSeg::Index(i),
        })
        .collect()
}

/// One schema violation, located: what the value at `path` (reported at
/// `span`) breaks.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaFinding {
    pub path: Vec<PathSeg>,
    pub span: Span,
    pub kind: FindingKind,
}

/// A bound of a range check and its limit.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    Minimum(Json),
    ExclusiveMinimum(Json),
    Maximum(Json),
    ExclusiveMaximum(Json),
    MinItems(u64),
    MaxItems(u64),
    MinLength(u64),
    MaxLength(u64),
    MinProperties(u64),
}

/// What a value breaks, with the facts a message needs. Values are copied
/// as JSON; whether they may be shown (credentials) is the rules' call.
#[derive(Clone, Debug, PartialEq)]
pub enum FindingKind {
    /// A key the schema does not allow here (`span`: the key). `allowed`:
    /// the keys valid here and not yet present.
    /// (`allowed` is shared by the unknown keys of one mapping.)
    UnknownKey {
        key: String,
        allowed: std::sync::Arc<[String]>,
    },
    /// A required key is absent. `choices`: the values of a union's tag when
    /// the missing key is that tag; `description` and `schema`: the missing
    /// key's documentation and schema, when the schema has them.
    MissingKey {
        key: String,
        choices: Option<Vec<String>>,
        description: Option<String>,
        schema: Option<Json>,
    },
    /// The value's type is not one of `expected` (JSON type names).
    WrongType { expected: Vec<String>, found: Option<Json> },
    /// The value is not one of `options`.
    InvalidValue { options: Vec<Json>, found: Option<Json> },
    /// The value is outside a bound.
    OutOfRange { bound: Bound, found: Option<Json> },
    /// A string does not match `pattern`; `description`: the field's docs.
    BadFormat {
        pattern: String,
        found: Json,
        description: Option<String>,
    },
    /// A union's tag (at `path`) names no branch.
    UnknownVariant { found: Json, names: Vec<String> },
    /// A one-key union (`{batches: N}` | `{epochs: N}`) with another shape.
    OneKeyUnion { keys: Vec<String> },
    /// The value fits several branches of a `oneOf`.
    Ambiguous,
    /// A `not` schema matched.
    NotAllowed,
    /// Anything else, with the validator's own (masked) wording.
    Other { detail: String },
}

/// Maps a validator's errors for `json` (the document `tree` parsed from)
/// to findings, using `index` — called only when there are errors — for
/// suggestions and descriptions.
pub fn findings<'e>(
    tree: &Tree,
    json: &Json,
    index: fn() -> &'static SchemaIndex,
    errors: impl Iterator<Item = ValidationError<'e>>,
) -> Vec<SchemaFinding> {
    let mut errors = errors.peekable();
    if errors.peek().is_none() {
        return Vec::new();
    }
    let mut mapper = Mapper {
        tree,
        json,
        index: index(),
        out: Vec::new(),
    };
    for err in errors {
        mapper.convert(&err);
    }
    mapper.out
}

/// The experiment schema's validator's errors for `json`.
pub fn experiment_errors(json: &Json) -> impl Iterator<Item = ValidationError<'_>> {
    ExperimentValidator::iter_errors(json)
}

struct Mapper<'a> {
    tree: &'a Tree,
    json: &'a Json,
    index: &'a SchemaIndex,
    out: Vec<SchemaFinding>,
}

impl Mapper<'_> {
    fn push(&mut self, path: &[PathSeg], span: Span, kind: FindingKind) {
        self.out.push(SchemaFinding {
            path: path.to_vec(),
            span,
            kind,
        });
    }

    fn at_value(&mut self, path: &[PathSeg], kind: FindingKind) {
        let span = self.value_span(path);
        self.push(path, span, kind);
    }

    fn convert(&mut self, err: &ValidationError<'_>) {
        let path = to_path(err.instance_path());
        // What the value is, copied only for the messages that show it.
        let found = match err.kind() {
            ValidationErrorKind::Type { .. }
            | ValidationErrorKind::Enum { .. }
            | ValidationErrorKind::Constant { .. } => self.json_at(&path).cloned(),
            _ => None,
        };
        match err.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                let allowed = self.allowed_keys(&path);
                let written = self.keys_written(&path);
                for key in unexpected {
                    self.unknown_key(&path, key, &allowed, &written);
                }
            }
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                self.missing_key(&path, name, None);
            }
            ValidationErrorKind::Type { kind } => {
                let expected: Vec<String> = match kind {
                    jsonschema::error::TypeKind::Single(t) => vec![t.to_string()],
                    jsonschema::error::TypeKind::Multiple(set) => set.into_iter().map(|t| t.to_string()).collect(),
                };
                self.at_value(&path, FindingKind::WrongType { expected, found });
            }
            ValidationErrorKind::Enum { options } => {
                let options: Vec<Json> = options.as_array().cloned().unwrap_or_default();
                self.at_value(&path, FindingKind::InvalidValue { options, found });
            }
            ValidationErrorKind::Constant { expected_value } => {
                let options = vec![expected_value.as_ref().clone()];
                self.at_value(&path, FindingKind::InvalidValue { options, found });
            }
            ValidationErrorKind::Minimum { limit } => self.range(&path, Bound::Minimum(limit.clone())),
            ValidationErrorKind::ExclusiveMinimum { limit } => {
                self.range(&path, Bound::ExclusiveMinimum(limit.clone()))
            }
            ValidationErrorKind::Maximum { limit } => self.range(&path, Bound::Maximum(limit.clone())),
            ValidationErrorKind::ExclusiveMaximum { limit } => {
                self.range(&path, Bound::ExclusiveMaximum(limit.clone()))
            }
            ValidationErrorKind::MinItems { limit } => self.range(&path, Bound::MinItems(*limit)),
            ValidationErrorKind::MaxItems { limit } => self.range(&path, Bound::MaxItems(*limit)),
            ValidationErrorKind::MinLength { limit } => self.range(&path, Bound::MinLength(*limit)),
            ValidationErrorKind::MaxLength { limit } => self.range(&path, Bound::MaxLength(*limit)),
            ValidationErrorKind::MinProperties { limit } => self.range(&path, Bound::MinProperties(*limit)),
            ValidationErrorKind::Pattern { pattern } => {
                let description = self.index.description_at(&path, self.json).map(str::to_string);
                let kind = FindingKind::BadFormat {
                    pattern: pattern.to_string(),
                    found: err.instance().as_ref().clone(),
                    description,
                };
                self.at_value(&path, kind);
            }
            ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
                self.union(&path, context);
            }
            ValidationErrorKind::OneOfMultipleValid { .. } => self.at_value(&path, FindingKind::Ambiguous),
            ValidationErrorKind::Not { .. } => self.at_value(&path, FindingKind::NotAllowed),
            _ => {
                let detail = err.masked().to_string();
                self.at_value(&path, FindingKind::Other { detail });
            }
        }
    }

    fn range(&mut self, path: &[PathSeg], bound: Bound) {
        let found = self.json_at(path).cloned();
        self.at_value(path, FindingKind::OutOfRange { bound, found });
    }

    /// A union failed. Pick the branch the instance's tag selects and report
    /// its errors; otherwise say which tags exist.
    fn union(&mut self, path: &[PathSeg], context: &[Vec<ValidationError<'static>>]) {
        // A branch for another shape altogether (a string where the value is a
        // mapping, `not: object`, ...) says nothing about what the user meant.
        let is_type_mismatch = |branch: &Vec<ValidationError<'static>>| {
            !branch.is_empty()
                && branch.iter().all(|e| {
                    matches!(
                        e.kind(),
                        ValidationErrorKind::Type { .. }
                            | ValidationErrorKind::Not { .. }
                            | ValidationErrorKind::FalseSchema
                    ) && to_path(e.instance_path()) == path
                })
        };
        // Find the tag: a key directly below `path` that some branch
        // constrains to a constant.
        let mut tag: Option<String> = None;
        let mut expected: Vec<Json> = Vec::new();
        for branch in context {
            for e in branch {
                let p = to_path(e.instance_path());
                if p.len() != path.len() + 1 || !p.starts_with(path) {
                    continue;
                }
                let Some(PathSeg::Key(k)) = p.last() else { continue };
                match e.kind() {
                    ValidationErrorKind::Constant { expected_value } => {
                        tag = Some(k.clone());
                        expected.push(expected_value.as_ref().clone());
                    }
                    ValidationErrorKind::Enum { options } => {
                        tag = Some(k.clone());
                        expected.extend(options.as_array().cloned().unwrap_or_default());
                    }
                    _ => {}
                }
            }
        }
        if let Some(tag) = tag {
            // A branch rejects the tag when it fails on the tag's value, does
            // not allow the tag key at all, or requires a tag that is absent.
            let rejects_tag = |branch: &Vec<ValidationError<'static>>| {
                branch.iter().any(|e| {
                    let p = to_path(e.instance_path());
                    let at_tag = p.len() == path.len() + 1
                        && p.starts_with(path)
                        && p.last() == Some(&PathSeg::Key(tag.clone()));
                    let here = p == path;
                    at_tag
                        || (here
                            && match e.kind() {
                                ValidationErrorKind::Required { property } => property.as_str() == Some(tag.as_str()),
                                ValidationErrorKind::AdditionalProperties { unexpected }
                                | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                                    unexpected.contains(&tag)
                                }
                                _ => false,
                            })
                })
            };
            let candidates: Vec<&Vec<ValidationError<'static>>> = context
                .iter()
                .filter(|b| !rejects_tag(b) && !is_type_mismatch(b))
                .collect();
            if let Some(best) = candidates.iter().min_by_key(|b| b.len()) {
                for e in best.iter() {
                    self.convert(e);
                }
                return;
            }
            let mut names: Vec<String> = expected.iter().map(plain).collect();
            names.dedup();
            let tag_path: Vec<PathSeg> = path.iter().cloned().chain([PathSeg::Key(tag.clone())]).collect();
            match self.json_at(&tag_path).cloned() {
                Some(found) => self.at_value(&tag_path, FindingKind::UnknownVariant { found, names }),
                None => self.missing_key(path, &tag, Some(names)),
            }
            return;
        }
        if let Some(keys) = self.one_key_union(path) {
            self.at_value(path, FindingKind::OneKeyUnion { keys });
            return;
        }
        let real: Vec<&Vec<ValidationError<'static>>> = context.iter().filter(|b| !is_type_mismatch(b)).collect();
        match real.iter().min_by_key(|b| b.len()) {
            Some(best) => {
                for e in best.iter() {
                    self.convert(e);
                }
            }
            None => {
                let mut expected: Vec<String> = Vec::new();
                for b in context {
                    for e in b {
                        if let ValidationErrorKind::Type { kind } = e.kind() {
                            match kind {
                                jsonschema::error::TypeKind::Single(t) => expected.push(t.to_string()),
                                jsonschema::error::TypeKind::Multiple(set) => {
                                    expected.extend(set.into_iter().map(|t| t.to_string()))
                                }
                            }
                        }
                    }
                }
                let found = self.json_at(path).cloned();
                self.at_value(path, FindingKind::WrongType { expected, found });
            }
        }
    }

    /// If the value at `path` is an object-valued union whose every branch
    /// is a mapping with exactly one allowed key (Determined's lengths:
    /// `{batches: N}` | `{records: N}` | `{epochs: N}`), those keys.
    fn one_key_union(&self, path: &[PathSeg]) -> Option<Vec<String>> {
        if !matches!(self.json_at(path), Some(Json::Object(_))) {
            return None;
        }
        for schema in self.index.schemas_at(path, self.json) {
            for key in ["oneOf", "anyOf"] {
                let Some(branches) = schema.get(key).and_then(Json::as_array) else {
                    continue;
                };
                let mut keys = Vec::new();
                for b in branches {
                    let b = self.index.resolve(b);
                    if b.get("type").and_then(Json::as_str) == Some("null") {
                        continue;
                    }
                    let props = b.get("properties").and_then(Json::as_object);
                    let closed = b.get("additionalProperties") == Some(&Json::Bool(false));
                    let Some(props) = props.filter(|p| p.len() == 1 && closed) else {
                        keys.clear();
                        break;
                    };
                    keys.extend(props.keys().cloned());
                }
                if keys.len() > 1 {
                    return Some(keys);
                }
            }
        }
        None
    }

    fn json_at(&self, path: &[PathSeg]) -> Option<&Json> {
        json_at(self.json, path)
    }

    /// The span of the value at `path`; for an empty value (`key:`), its key.
    fn value_span(&self, path: &[PathSeg]) -> Span {
        value_span(self.tree, path)
    }

    fn missing_key(&mut self, path: &[PathSeg], name: &str, choices: Option<Vec<String>>) {
        let span = match self.tree.locate(path) {
            Some(loc) => loc
                .key
                .map_or_else(|| first_line_span(self.tree, loc.node), |k| self.tree.span(k)),
            None => Span::at(0),
        };
        let key_path = [path, &[PathSeg::Key(name.to_string())]].concat();
        let description = match choices {
            Some(_) => None,
            None => self.index.description_at(&key_path, self.json).map(str::to_string),
        };
        let schema = self.index.schemas_at(&key_path, self.json).into_iter().next().cloned();
        self.push(
            path,
            span,
            FindingKind::MissingKey {
                key: name.to_string(),
                choices,
                description,
                schema,
            },
        );
    }

    /// The keys valid in the mapping at `path` and not yet present there.
    fn allowed_keys(&self, path: &[PathSeg]) -> std::sync::Arc<[String]> {
        let present = self.json_at(path).and_then(Json::as_object);
        self.index
            .properties_at(path, self.json)
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| present.is_none_or(|o| !o.contains_key(*k)))
            .map(str::to_string)
            .collect()
    }

    /// Where each key of the mapping at `path` is written, merges applied
    /// (one pass: a mapping can merge 100,000 sources).
    fn keys_written(&self, path: &[PathSeg]) -> HashMap<String, Span> {
        let Some(at) = self.tree.locate(path) else {
            return HashMap::new();
        };
        self.tree
            .merged_entries(at.node)
            .into_iter()
            .map(|(k, e)| (k, self.tree.span(e.key)))
            .collect()
    }

    fn unknown_key(
        &mut self,
        path: &[PathSeg],
        key: &str,
        allowed: &std::sync::Arc<[String]>,
        written: &HashMap<String, Span>,
    ) {
        let span = match written.get(key) {
            Some(span) => *span,
            None => {
                let key_path: Vec<PathSeg> = path.iter().cloned().chain([PathSeg::Key(key.to_string())]).collect();
                match self.tree.locate(&key_path) {
                    Some(loc) => self.tree.span(loc.key.unwrap_or(loc.node)),
                    None => self.value_span(path),
                }
            }
        };
        self.push(
            path,
            span,
            FindingKind::UnknownKey {
                key: key.to_string(),
                allowed: std::sync::Arc::clone(allowed),
            },
        );
    }
}

/// The JSON value at a path of keys and list indices.
pub fn json_at<'j>(json: &'j Json, path: &[PathSeg]) -> Option<&'j Json> {
    let mut v = json;
    for seg in path {
        v = match (seg, v) {
            (PathSeg::Key(k), Json::Object(o)) => o.get(k)?,
            (PathSeg::Index(i), Json::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// Span of the value at `path`, or of its key when the value is empty, or
/// of the nearest ancestor that exists.
pub fn value_span(tree: &Tree, path: &[PathSeg]) -> Span {
    match tree.locate_nearest(path) {
        Some((loc, depth)) => {
            let span = tree.span(loc.node);
            if depth == path.len() && !span.is_empty() {
                return span;
            }
            match loc.key {
                Some(k) => tree.span(k),
                None if span.is_empty() => span,
                None => first_line_span(tree, loc.node),
            }
        }
        None => Span::at(0),
    }
}

/// Span of a located node: its own, or its key's when the value is empty.
pub fn located_span(tree: &Tree, at: crate::yaml::Located) -> Span {
    let span = tree.span(at.node);
    if !span.is_empty() {
        return span;
    }
    match at.key {
        Some(k) => tree.span(k),
        None => span,
    }
}

/// A collection's first line, so a whole-mapping error does not underline
/// the entire document.
fn first_line_span(tree: &Tree, node: crate::yaml::NodeId) -> Span {
    let span = tree.span(node);
    match tree.entries(node).first() {
        Some(e) => tree.span(e.key),
        None => Span::new(span.start, span.start + 1.min(span.len())),
    }
}

/// A JSON value as a list of names shows it: strings bare, others as JSON.
fn plain(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        Json::Null => "null".into(),
        other => other.to_string(),
    }
}
