//! The front door: text in, diagnostics (and, when valid, the typed spec)
//! out. The CLI and the LSP call this; neither reaches past it.
//!
//! Phases, each a plain-data boundary:
//! bytes → text (size, UTF-8) → spanned YAML tree → JSON → schema
//! validation (errors mapped back to spans) → `${VAR}` references →
//! semantic rules → typed [`ExperimentConfig`].

use crate::diagnostic::{sort_and_dedup, Diagnostic, Severity};
use crate::rules::{
    alias_budget::ALIAS_BUDGET, file_too_large::FILE_TOO_LARGE, invalid_utf8::INVALID_UTF8,
    root_not_mapping::ROOT_NOT_MAPPING, unset_variable::UNSET_VARIABLE, variable_syntax::VARIABLE_SYNTAX,
};
use crate::source::{FileId, SourceFile, SourceMap, Span};
use crate::spec::ExperimentConfig;
use crate::yaml::{self, Budgets, Tree, Value};
use crate::{schema, semantic, suppress, vars};

/// How the environment is seen: `${VAR}` lookups. The core never reads the
/// process environment itself.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Settings of one check.
pub struct Options<'a> {
    pub env: EnvLookup<'a>,
    pub budgets: Budgets,
    /// Whether every `${VAR}` must be set: `stagec plan` resolves them, so an
    /// unset one is an error there and only a warning in `check`.
    pub require_variables: bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            env: &|_| None,
            budgets: Budgets::default(),
            require_variables: false,
        }
    }
}

/// The result of checking one experiment config.
pub struct Checked {
    pub sources: SourceMap,
    pub file: FileId,
    pub diagnostics: Vec<Diagnostic>,
    /// The parsed tree, when the file was text.
    pub tree: Option<Tree>,
    /// The config as JSON, when it parsed into a mapping within budget.
    pub json: Option<serde_json::Value>,
    /// The resolved pipeline, when stage declarations were checked.
    pub pipeline: Option<crate::graph::Pipeline>,
    /// The inventory the stages were checked against (given or probed).
    pub inventory: Option<crate::hardware::inventory::Inventory>,
}

impl Checked {
    /// The typed experiment, when the config has no errors. Deserialised on
    /// demand: checking alone does not need it.
    pub fn typed(&self) -> Option<ExperimentConfig> {
        if self.error_count() > 0 {
            return None;
        }
        serde_json::from_value(self.json.clone()?).ok()
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    pub fn warning_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count()
    }
}

/// Turns raw bytes into text, reporting size and encoding problems. On
/// error the text is a lossy rendering, good for showing snippets.
pub fn decode(bytes: &[u8], file: FileId, budgets: &Budgets) -> (String, Option<Diagnostic>) {
    if bytes.len() > budgets.max_bytes {
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
        let d = Diagnostic::new(
            &FILE_TOO_LARGE,
            file,
            Span::at(0),
            format!(
                "the file is {} bytes; stagec reads at most {} bytes",
                bytes.len(),
                budgets.max_bytes
            ),
        )
        .with_help("experiment configs are a few kilobytes: is this the right file?");
        return (head, Some(d));
    }
    let valid_up_to = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    };
    let nul = bytes[..valid_up_to].iter().position(|&b| b == 0);
    let bad = match nul {
        Some(at) => (
            at,
            "the file contains a NUL byte: it looks binary, not YAML text".to_string(),
        ),
        None if valid_up_to == bytes.len() => {
            return (String::from_utf8_lossy(bytes).into_owned(), None);
        }
        None => (
            valid_up_to,
            format!("the file is not valid UTF-8 (byte offset {valid_up_to})"),
        ),
    };
    let text = String::from_utf8_lossy(bytes).replace('\0', "\u{FFFD}");
    // Offsets shift under lossy replacement only after the first bad byte.
    // In the lossy text the first bad byte became U+FFFD: point at it whole.
    let d = Diagnostic::new(
        &INVALID_UTF8,
        file,
        Span::new(bad.0, bad.0 + '\u{FFFD}'.len_utf8()),
        bad.1,
    )
    .with_help("save the file as UTF-8; YAML configs are text");
    (text, Some(d))
}

/// Checks one experiment config given as bytes, under the name the user
/// gave it.
pub fn check_experiment(name: &str, bytes: &[u8], opts: &Options<'_>) -> Checked {
    let mut sources = SourceMap::new();
    let file = FileId(0);
    let (text, decode_error) = decode(bytes, file, &opts.budgets);
    let file = sources.add(SourceFile::new(name, text));
    let mut checked = Checked {
        sources,
        file,
        diagnostics: Vec::new(),
        tree: None,
        json: None,
        pipeline: None,
        inventory: None,
    };
    if let Some(d) = decode_error {
        checked.diagnostics.push(d);
        return checked;
    }
    let Some(source) = checked.sources.get(file) else {
        return checked;
    };
    let result = check_text(file, source, opts);
    checked.diagnostics = result.diagnostics;
    checked.tree = Some(result.tree);
    checked.json = result.json;
    checked
}

/// What checking one config's text produced.
pub struct ConfigCheck {
    pub diagnostics: Vec<Diagnostic>,
    pub tree: Tree,
    /// The document as JSON, when it parsed into a mapping within budget.
    pub json: Option<serde_json::Value>,
}

/// Checks already-decoded text (the LSP's entry point for unsaved buffers).
pub fn check_text(file: FileId, source: &SourceFile, opts: &Options<'_>) -> ConfigCheck {
    let text = source.text.as_str();
    let (tree, mut diags) = yaml::parse(text, file, &opts.budgets);
    let json = analyze(file, text, &tree, opts, &mut diags);
    suppress::apply(file, source, &mut diags);
    sort_and_dedup(&mut diags);
    ConfigCheck {
        diagnostics: diags,
        tree,
        json,
    }
}

fn analyze(
    file: FileId,
    text: &str,
    tree: &Tree,
    opts: &Options<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<serde_json::Value> {
    let json = document_json(
        file,
        tree,
        &opts.budgets,
        "an experiment config maps keys such as `name`, `entrypoint` and `searcher` to values",
        diags,
    )?;
    check_variables(file, text, tree, opts, diags);
    let yaml_spans: Vec<Span> = diags
        .iter()
        .filter(|d| d.code.starts_with('Y'))
        .map(|d| d.span)
        .collect();
    schema::validate(file, text, tree, &json, diags);
    semantic::run(file, text, tree, &json, diags);
    // A value the YAML layer already rejected (a bad tag) is not reported
    // again by the schema.
    diags.retain(|d| d.code.starts_with('Y') || !yaml_spans.contains(&d.span));
    Some(json)
}

/// The shared gate between a parsed YAML document and its schema: `None`
/// (with the reason in `diags`, if it is new) when the document did not
/// parse, was cut at the depth limit, is not a mapping (`root_help` says
/// what the file should map), or expands beyond the alias budget; otherwise
/// the document as JSON, aliases and merges expanded.
pub fn document_json(
    file: FileId,
    tree: &Tree,
    budgets: &Budgets,
    root_help: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<serde_json::Value> {
    // A file that did not parse (or whose tree was cut at the depth limit)
    // gets only its YAML errors: checking a partial tree would report keys
    // as missing that are merely unread.
    let truncating = [
        crate::rules::yaml_syntax::YAML_SYNTAX.code,
        crate::rules::nesting_depth::NESTING_DEPTH.code,
    ];
    if diags
        .iter()
        .any(|d| d.severity == Severity::Error && truncating.contains(&d.code))
    {
        return None;
    }
    let root = match tree.root() {
        Some(root) if matches!(tree.value(root), Value::Map(_)) => root,
        Some(root) => {
            let what = yaml::type_name(tree.value(root));
            diags.push(
                Diagnostic::new(
                    &ROOT_NOT_MAPPING,
                    file,
                    tree.span(root),
                    format!("the document is {what}, not a mapping"),
                )
                .with_help(root_help),
            );
            return None;
        }
        None => {
            diags.push(
                Diagnostic::new(&ROOT_NOT_MAPPING, file, Span::at(0), "the document is empty").with_help(root_help),
            );
            return None;
        }
    };
    if !within_alias_budget(file, tree, budgets, "document", diags) {
        return None;
    }
    tree.to_json(root, budgets.max_nodes)
}

/// Whether the tree's aliases expand within the node budget; if not, says so
/// at the largest alias (`what` names the file: "document", "inventory").
pub fn within_alias_budget(
    file: FileId,
    tree: &Tree,
    budgets: &Budgets,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let max = budgets.max_nodes;
    if tree.expanded_size(max) <= max {
        return true;
    }
    let at = tree.largest_alias(max).map_or(Span::at(0), |a| tree.span(a));
    diags.push(
        Diagnostic::new(
            &ALIAS_BUDGET,
            file,
            at,
            format!("aliases expand this {what} beyond {max} nodes"),
        )
        .with_help("nested aliases multiply in size (a \"billion laughs\" document); stagec does not expand them"),
    );
    false
}

/// Reports malformed `${...}` references and unset variables in every
/// string value (keys excluded), once per node as written.
fn check_variables(file: FileId, text: &str, tree: &Tree, opts: &Options<'_>, diags: &mut Vec<Diagnostic>) {
    let mut is_key = vec![false; tree.len()];
    for i in 0..tree.len() {
        for e in tree.entries_raw(yaml::NodeId(i as u32)) {
            if let Some(slot) = is_key.get_mut(e.key.0 as usize) {
                *slot = true;
            }
        }
    }
    for (i, key) in is_key.iter().enumerate() {
        let id = yaml::NodeId(i as u32);
        if *key {
            continue;
        }
        let node = tree.node(id);
        let Value::Str(s) = &node.value else { continue };
        if !s.contains("${") {
            continue;
        }
        let token = text.get(node.span.start..node.span.end).unwrap_or("");
        let (refs, errors) = vars::scan(s);
        for e in errors {
            let span = vars::source_span(token, node.span, s, &e.range);
            diags.push(
                Diagnostic::new(&VARIABLE_SYNTAX, file, span, e.message)
                    .with_help("write `${NAME}` or `${NAME:-default}`; `$${` is a literal `${`"),
            );
        }
        for r in refs {
            if r.default.is_none() && (opts.env)(&r.name).is_none() {
                let span = vars::source_span(token, node.span, s, &r.range);
                diags.push(
                    Diagnostic::new(
                        &UNSET_VARIABLE,
                        file,
                        span,
                        format!("environment variable `{}` is not set", r.name),
                    )
                    .with_help(format!(
                        "set `{}` where the experiment is submitted, or give a default: `${{{}:-value}}`",
                        r.name, r.name
                    ))
                    .with_severity(if opts.require_variables {
                        Severity::Error
                    } else {
                        Severity::Warning
                    }),
                );
            }
        }
    }
}
