//! The generated experiment schema: validation with errors mapped back to
//! the spanned tree, and a walker that answers "which keys are allowed
//! here?" for suggestions, hover and completion.
//!
//! The schema text is the committed `schemas/experiment.schema.json`
//! (generated from the types in [`crate::spec`]; a test keeps it in sync),
//! compiled once per process.

use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::ValidationError;
use serde_json::Value as Json;

use crate::diagnostic::{Diagnostic, Edit};
use crate::rules::{
    bad_format::BAD_FORMAT, invalid_value::INVALID_VALUE, missing_key::MISSING_KEY, out_of_range::OUT_OF_RANGE,
    schema_violation::SCHEMA_VIOLATION, unknown_key, unknown_variant::UNKNOWN_VARIANT, wrong_type::WRONG_TYPE,
};
use crate::source::{FileId, Span};
use crate::yaml::{display_path, PathSeg, Tree};

/// The committed experiment schema.
pub const EXPERIMENT_SCHEMA: &str = include_str!("../schemas/experiment.schema.json");

/// The experiment schema's validator, generated at build time from the
/// committed file by the jsonschema crate, so a check pays no schema
/// compilation at startup.
#[jsonschema::validator(path = "schemas/experiment.schema.json", validate_formats = false)]
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

/// Validates `json` (the experiment as JSON) and appends located
/// diagnostics. Returns how many it added.
pub fn validate(file: FileId, text: &str, tree: &Tree, json: &Json, diags: &mut Vec<Diagnostic>) -> usize {
    map_errors(
        file,
        text,
        tree,
        json,
        experiment,
        ExperimentValidator::iter_errors(json),
        diags,
    )
}

/// Maps a validator's errors for `json` (the document `tree` parsed from
/// `text`) to located diagnostics, using `index` — called only when there
/// are errors — for suggestions and descriptions. Returns how many it added.
pub fn map_errors<'e>(
    file: FileId,
    text: &str,
    tree: &Tree,
    json: &Json,
    index: fn() -> &'static SchemaIndex,
    errors: impl Iterator<Item = ValidationError<'e>>,
    diags: &mut Vec<Diagnostic>,
) -> usize {
    let before = diags.len();
    let mut errors = errors.peekable();
    if errors.peek().is_none() {
        return 0;
    }
    let mut mapper = Mapper {
        file,
        text,
        tree,
        json,
        index: index(),
        out: diags,
    };
    for err in errors {
        mapper.convert(&err);
    }
    diags.len() - before
}

struct Mapper<'a> {
    file: FileId,
    text: &'a str,
    tree: &'a Tree,
    json: &'a Json,
    index: &'a SchemaIndex,
    out: &'a mut Vec<Diagnostic>,
}

impl Mapper<'_> {
    fn convert(&mut self, err: &ValidationError<'_>) {
        let path = to_path(err.instance_path());
        let subject = subject(&path);
        match err.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                for key in unexpected {
                    self.unknown_key(&path, key);
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
                self.wrong_type(&path, &expected);
            }
            ValidationErrorKind::Enum { options } => {
                let options: Vec<Json> = options.as_array().cloned().unwrap_or_default();
                self.invalid_value(&path, &options);
            }
            ValidationErrorKind::Constant { expected_value } => {
                self.invalid_value(&path, std::slice::from_ref(expected_value.as_ref()));
            }
            ValidationErrorKind::Minimum { limit } => self.range(&path, format!("{subject} must be at least {limit}")),
            ValidationErrorKind::ExclusiveMinimum { limit } => {
                self.range(&path, format!("{subject} must be greater than {limit}"))
            }
            ValidationErrorKind::Maximum { limit } => self.range(&path, format!("{subject} must be at most {limit}")),
            ValidationErrorKind::ExclusiveMaximum { limit } => {
                self.range(&path, format!("{subject} must be less than {limit}"))
            }
            ValidationErrorKind::MinItems { limit } => self.range(
                &path,
                format!("{subject} needs at least {limit} item{}", plural(*limit)),
            ),
            ValidationErrorKind::MaxItems { limit } => {
                self.range(&path, format!("{subject} takes at most {limit} item{}", plural(*limit)))
            }
            ValidationErrorKind::MinLength { limit } => self.range(
                &path,
                format!("{subject} needs at least {limit} character{}", plural(*limit)),
            ),
            ValidationErrorKind::MaxLength { limit } => self.range(
                &path,
                format!("{subject} takes at most {limit} character{}", plural(*limit)),
            ),
            ValidationErrorKind::MinProperties { limit } => {
                self.range(&path, format!("{subject} needs at least {limit} key{}", plural(*limit)))
            }
            ValidationErrorKind::Pattern { pattern } => {
                let found = if holds_secret(&path) {
                    "the value".to_string()
                } else {
                    short(err.instance())
                };
                let hint = self.index.description_at(&path, self.json).map(str::to_string);
                let mut d = Diagnostic::new(
                    &BAD_FORMAT,
                    self.file,
                    self.value_span(&path),
                    format!("{subject} has an invalid format: {found} does not match `{pattern}`"),
                );
                if let Some(h) = hint {
                    d = d.with_help(h);
                }
                self.out.push(d);
            }
            ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
                self.union(&path, context);
            }
            ValidationErrorKind::OneOfMultipleValid { .. } => {
                self.out.push(Diagnostic::new(
                    &SCHEMA_VIOLATION,
                    self.file,
                    self.value_span(&path),
                    format!("{subject} is ambiguous: it fits more than one of the allowed shapes"),
                ));
            }
            ValidationErrorKind::Not { .. } => {
                self.out.push(Diagnostic::new(
                    &SCHEMA_VIOLATION,
                    self.file,
                    self.value_span(&path),
                    format!("{subject} has a value or combination of keys that is not allowed here"),
                ));
            }
            _ => {
                self.out.push(Diagnostic::new(
                    &SCHEMA_VIOLATION,
                    self.file,
                    self.value_span(&path),
                    format!("{subject}: {}", err.masked()),
                ));
            }
        }
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
            let given = self.json_at(&tag_path);
            match given {
                Some(value) => {
                    let found = plain(value);
                    let mut d = Diagnostic::new(
                        &UNKNOWN_VARIANT,
                        self.file,
                        self.value_span(&tag_path),
                        format!(
                            "unknown {} `{found}`: expected one of {}",
                            subject(&tag_path),
                            list(&names)
                        ),
                    );
                    if let Some(best) = nearest(&found, names.iter().map(String::as_str)) {
                        d = d.with_help(format!("did you mean `{best}`?")).with_fix(
                            format!("Replace with `{best}`"),
                            vec![Edit {
                                file: self.file,
                                span: self.value_span(&tag_path),
                                replacement: best.to_string(),
                            }],
                        );
                    }
                    self.out.push(d);
                }
                None => self.missing_key(path, &tag, Some(&names)),
            }
            return;
        }
        if let Some(keys) = self.one_key_union(path) {
            let subject = subject(path);
            self.out.push(
                Diagnostic::new(
                    &SCHEMA_VIOLATION,
                    self.file,
                    self.value_span(path),
                    format!("{subject} must have exactly one key, one of {}", list(&keys)),
                )
                .with_help(format!(
                    "for example `{}: 100`",
                    keys.first().map_or("batches", String::as_str)
                )),
            );
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
                self.wrong_type(path, &expected);
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
        let mut v = self.json;
        for seg in path {
            v = match (seg, v) {
                (PathSeg::Key(k), Json::Object(o)) => o.get(k)?,
                (PathSeg::Index(i), Json::Array(a)) => a.get(*i)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// The span of the value at `path`; for an empty value (`key:`), its key.
    fn value_span(&self, path: &[PathSeg]) -> Span {
        value_span(self.tree, path)
    }

    fn wrong_type(&mut self, path: &[PathSeg], expected: &[String]) {
        let mut names: Vec<&str> = expected
            .iter()
            .map(|t| json_type_phrase(t))
            .filter(|t| *t != "null")
            .collect();
        names.dedup();
        if names.is_empty() {
            names.push("null");
        }
        let found = match self.json_at(path) {
            Some(v) if holds_secret(path) => json_kind(v).to_string(),
            Some(v) => describe(v),
            None => "nothing".into(),
        };
        let raw_str = self
            .tree
            .locate(path)
            .and_then(|l| self.tree.as_str(l.node))
            .map(str::to_string);
        let mut d = Diagnostic::new(
            &WRONG_TYPE,
            self.file,
            self.value_span(path),
            format!("{} expects {}, found {found}", subject(path), names.join(" or ")),
        );
        if let Some(s) = raw_str {
            if names.iter().any(|n| n.contains("integer") || n.contains("number")) && s.trim().parse::<f64>().is_ok() {
                d = d
                    .with_help("remove the quotes: a quoted number is a string in YAML")
                    .with_fix(
                        "Remove the quotes",
                        vec![Edit {
                            file: self.file,
                            span: self.value_span(path),
                            replacement: s.trim().to_string(),
                        }],
                    );
            }
        }
        self.out.push(d);
    }

    fn invalid_value(&mut self, path: &[PathSeg], options: &[Json]) {
        let names: Vec<String> = options.iter().filter(|o| !o.is_null()).map(plain).collect();
        let found = if holds_secret(path) {
            "…".into()
        } else {
            self.json_at(path).map(plain).unwrap_or_default()
        };
        let mut d = Diagnostic::new(
            &INVALID_VALUE,
            self.file,
            self.value_span(path),
            if names.len() == 1 {
                format!("{} must be `{}`, found `{found}`", subject(path), names.join(""))
            } else {
                format!("{} must be one of {}, found `{found}`", subject(path), list(&names))
            },
        );
        if let Some(best) = nearest(&found, names.iter().map(String::as_str)) {
            d = d.with_help(format!("did you mean `{best}`?")).with_fix(
                format!("Replace with `{best}`"),
                vec![Edit {
                    file: self.file,
                    span: self.value_span(path),
                    replacement: best.to_string(),
                }],
            );
        }
        self.out.push(d);
    }

    fn range(&mut self, path: &[PathSeg], message: String) {
        let found = match self.json_at(path) {
            Some(Json::Array(a)) => format!("{} item{}", a.len(), plural(a.len() as u64)),
            Some(Json::Object(o)) => format!("{} key{}", o.len(), plural(o.len() as u64)),
            Some(v) if holds_secret(path) => json_kind(v).to_string(),
            Some(v) => short(v),
            None => String::new(),
        };
        self.out.push(Diagnostic::new(
            &OUT_OF_RANGE,
            self.file,
            self.value_span(path),
            format!("{message}, found {found}"),
        ));
    }

    fn missing_key(&mut self, path: &[PathSeg], name: &str, choices: Option<&[String]>) {
        let span = match self.tree.locate(path) {
            Some(loc) => loc
                .key
                .map_or_else(|| first_line_span(self.tree, loc.node), |k| self.tree.span(k)),
            None => Span::at(0),
        };
        let owner = if path.is_empty() {
            "the experiment".to_string()
        } else {
            format!("`{}`", display_path(path))
        };
        let mut d = Diagnostic::new(
            &MISSING_KEY,
            self.file,
            span,
            format!("{owner} is missing required key `{name}`"),
        );
        if let Some(choices) = choices {
            d = d.with_help(format!("set `{name}` to one of {}", list(choices)));
        } else if let Some(desc) = self
            .index
            .description_at(&[path, &[PathSeg::Key(name.to_string())]].concat(), self.json)
        {
            d = d.with_help(format!("`{name}`: {desc}"));
        }
        let key_schema = self
            .index
            .schemas_at(&[path, &[PathSeg::Key(name.to_string())]].concat(), self.json)
            .into_iter()
            .next();
        if let Some(fix) = missing_key_fix(self.file, self.tree, self.text, path, name, key_schema) {
            d = d.with_fix(format!("Add `{name}`"), vec![fix]);
        }
        self.out.push(d);
    }

    fn unknown_key(&mut self, path: &[PathSeg], key: &str) {
        let key_path: Vec<PathSeg> = path.iter().cloned().chain([PathSeg::Key(key.to_string())]).collect();
        let span = match self.tree.locate(&key_path) {
            Some(loc) => self.tree.span(loc.key.unwrap_or(loc.node)),
            None => self.value_span(path),
        };
        let present: Vec<String> = self
            .json_at(path)
            .and_then(Json::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        let allowed: Vec<&str> = self
            .index
            .properties_at(path, self.json)
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| !present.iter().any(|p| p == k))
            .collect();
        let d = unknown_key::diagnose(self.file, self.text, self.tree, path, key, span, &allowed);
        self.out.push(d);
    }
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

/// A collection's first line, so a whole-mapping error does not underline
/// the entire document.
fn first_line_span(tree: &Tree, node: crate::yaml::NodeId) -> Span {
    let span = tree.span(node);
    match tree.entries(node).first() {
        Some(e) => tree.span(e.key),
        None => Span::new(span.start, span.start + 1.min(span.len())),
    }
}

/// Where and what to insert for a missing key whose value we can
/// propose: a new line after the mapping's last entry, at the column of its
/// first key. Block mappings only.
fn missing_key_fix(
    file: FileId,
    tree: &Tree,
    text: &str,
    path: &[PathSeg],
    name: &str,
    schema: Option<&Json>,
) -> Option<Edit> {
    let value = crate::rules::missing_key::proposed_value(name, schema)?;
    let loc = tree.locate(path)?;
    let entries = tree.entries(loc.node);
    let first = tree.span(entries.first()?.key);
    let last = entries.last()?;
    let line_start = text.get(..first.start)?.rfind('\n').map_or(0, |i| i + 1);
    let before = text.get(line_start..first.start)?;
    // Block style: only indentation (or a sequence dash) before the key.
    if !before.chars().all(|c| c == ' ' || c == '-') {
        return None;
    }
    let indent = " ".repeat(before.chars().count());
    let end = tree.span(last.value).end.max(tree.span(last.key).end);
    Some(Edit {
        file,
        span: Span::at(end),
        replacement: format!("\n{indent}{name}: {value}"),
    })
}

/// `resources.slots_per_trial` in backticks, or "the experiment".
fn subject(path: &[PathSeg]) -> String {
    if path.is_empty() {
        "the experiment".into()
    } else {
        format!("`{}`", display_path(path))
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn json_type_phrase(t: &str) -> &'static str {
    match t {
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "boolean" => "a boolean",
        "array" => "a list",
        "object" => "a mapping",
        "null" => "null",
        _ => "another type",
    }
}

/// Whether the value at `path` is a credential (`secret_key`, `password`,
/// …), whose text must not appear in messages or CI logs.
fn holds_secret(path: &[PathSeg]) -> bool {
    path.iter().rev().find_map(|s| match s {
        PathSeg::Key(k) => Some(crate::secrets::is_credential_name(k)),
        PathSeg::Index(_) => None,
    }) == Some(true)
}

/// "a string", "an integer": a value's kind without its text.
fn json_kind(v: &Json) -> &'static str {
    match v {
        Json::Object(_) => "a mapping",
        Json::Array(_) => "a list",
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
    }
}

/// "a string `\"eight\"`", "a mapping", "an integer `3`".
fn describe(v: &Json) -> String {
    match v {
        Json::Object(_) => "a mapping".into(),
        Json::Array(_) => "a list".into(),
        Json::Null => "null".into(),
        Json::Bool(b) => format!("a boolean `{b}`"),
        Json::Number(n) if n.is_i64() || n.is_u64() => format!("an integer `{n}`"),
        Json::Number(n) => format!("a number `{n}`"),
        Json::String(s) => format!("a string `{}`", truncate(s)),
    }
}

fn short(v: &Json) -> String {
    match v {
        Json::String(s) => format!("`{}`", truncate(s)),
        Json::Object(_) | Json::Array(_) => describe(v),
        other => format!("`{other}`"),
    }
}

fn plain(v: &Json) -> String {
    match v {
        Json::String(s) => truncate(s),
        Json::Null => "null".into(),
        other => truncate(&other.to_string()),
    }
}

fn truncate(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(57).collect::<String>())
    }
}

fn list(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// The closest candidate by edit distance, if it is close enough to be a
/// plausible typo.
pub fn nearest<'a>(given: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let given_l = given.to_ascii_lowercase();
    candidates
        .map(|c| {
            (
                c,
                strsim::jaro_winkler(&given_l, &c.to_ascii_lowercase()),
                strsim::levenshtein(&given_l, &c.to_ascii_lowercase()),
            )
        })
        .filter(|(c, jw, lev)| *jw >= 0.85 || *lev <= 2.min(c.len() / 3 + 1))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.2.cmp(&a.2)))
        .map(|(c, _, _)| c)
}
