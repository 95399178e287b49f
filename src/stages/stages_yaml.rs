//! Reader for `stages.yaml`: pipeline stages declared in a YAML file next to
//! the model rather than with `@stage_decorator`.
//!
//! The file goes the way an experiment config does (see [`Document`]):
//! text → spanned YAML tree → JSON → the generated `stages.schema.json`
//! (errors mapped back to spans) → one [`StageDecl`] per valid entry, every
//! span taken from the tree. Device and dtype names are kept as written; the
//! pipeline checks resolve them.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use jsonschema::paths::LocationSegment;
use jsonschema::ValidationError;
use serde_json::Value as Json;

use super::{DeclSource, StageDecl};
use crate::document::Document;
use crate::schema::SchemaIndex;
use crate::source::{FileId, Loc, Located, Span};
use crate::yaml::{self, Budgets, NodeId, PathSeg, Tree, Value, YamlIssue};

/// The committed `stages.yaml` schema.
pub const STAGES_SCHEMA: &str = include_str!("../../schemas/stages.schema.json");

/// The `stages.yaml` schema's validator, generated at build time from the
/// committed file.
#[jsonschema::validator(path = "schemas/stages.schema.json", validate_formats = false)]
struct StagesValidator;

/// The `stages.yaml` schema as a document, parsed on first use
/// (suggestions and descriptions in diagnostics, hover, completion).
pub fn stages_index() -> &'static SchemaIndex {
    static INDEX: OnceLock<SchemaIndex> = OnceLock::new();
    INDEX.get_or_init(|| SchemaIndex::new(serde_json::from_str(STAGES_SCHEMA).unwrap_or(Json::Null)))
}

/// What reading a `stages.yaml` found beyond its YAML and schema problems.
#[derive(Clone, Debug, PartialEq)]
pub enum StagesIssue {
    /// `stages[entry].params` is not a parameter count.
    Params {
        entry: usize,
        at: Span,
        problem: ParamsProblem,
    },
    /// A value the schema accepted but this reader cannot use (it should
    /// not happen; a stage is never dropped silently).
    Unreadable {
        entry: usize,
        key: String,
        expected: &'static str,
        found: &'static str,
        at: Span,
    },
    /// A required key the schema let through (likewise).
    Missing { entry: usize, key: &'static str, at: Span },
}

impl StagesIssue {
    pub fn span(&self) -> Span {
        match self {
            StagesIssue::Params { at, .. } | StagesIssue::Unreadable { at, .. } | StagesIssue::Missing { at, .. } => {
                *at
            }
        }
    }
}

/// Why a `params` value is not a parameter count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamsProblem {
    Negative,
    TooLarge,
    NotWhole,
    /// A lower-case suffix (`86m`): the upper-case one.
    LowercaseSuffix(char),
    /// Digits in quotes without a suffix.
    QuotedNumber,
    EmptyString,
    /// Text that is neither a number nor a number with a suffix.
    NotACount,
    /// A value of another type (its type name: "a boolean", "a list").
    WrongType(&'static str),
}

/// A `stages.yaml` read: its document, the stages of its valid entries in
/// file order, and what else is wrong.
#[derive(Clone, Debug)]
pub struct StagesRead {
    pub document: Document,
    pub decls: Vec<StageDecl>,
    pub issues: Vec<StagesIssue>,
}

/// Reads a `stages.yaml`. An entry with a schema error (other than on
/// `params`, which costs the stage only its count) is left out; the
/// document's findings say why.
pub fn read(file: FileId, text: &str, budgets: &Budgets) -> StagesRead {
    let mut document = Document::parse(text, budgets, crate::yaml::Schema::Core);
    let mut issues = Vec::new();
    if !document.gate(budgets) {
        return StagesRead {
            document,
            decls: Vec::new(),
            issues,
        };
    }
    // Which entries have errors, and the errors on `params`, which P101
    // reports with a message about parameter counts.
    let mut bad: BTreeSet<usize> = BTreeSet::new();
    let mut params_reported: BTreeSet<usize> = BTreeSet::new();
    let findings = match &document.json {
        Some(json) => {
            let tree = &document.tree;
            let errors = StagesValidator::iter_errors(json).filter(|err| {
                let (entry, at_params) = entry_of(err);
                let Some(i) = entry else { return true };
                // A bad `params` costs the stage only its parameter count:
                // the stage itself stays, so the graph does not report it missing.
                if !at_params {
                    bad.insert(i);
                    return true;
                }
                if params_reported.contains(&i) {
                    return false;
                }
                match params_issue(tree, i) {
                    Some(issue) => {
                        params_reported.insert(i);
                        issues.push(issue);
                        false
                    }
                    None => true,
                }
            });
            document.map(stages_index, errors)
        }
        None => Vec::new(),
    };
    document.findings = findings;
    let decls = build_stages(file, &document.tree, &bad, &params_reported, &mut issues);
    // A value the YAML layer already rejected (a bad tag) is not reported
    // again.
    let yaml_spans: Vec<Span> = document.issues.iter().map(YamlIssue::span).collect();
    issues.retain(|i| !yaml_spans.contains(&i.span()));
    StagesRead {
        document,
        decls,
        issues,
    }
}

/// One stage per entry without schema errors (other than on `params`), in
/// file order.
fn build_stages(
    file: FileId,
    tree: &Tree,
    bad: &BTreeSet<usize>,
    params_reported: &BTreeSet<usize>,
    issues: &mut Vec<StagesIssue>,
) -> Vec<StageDecl> {
    let Some(list) = tree.locate(&[PathSeg::Key("stages".into())]) else {
        return Vec::new();
    };
    let entries: Vec<NodeId> = match tree.value(list.node) {
        Value::Seq(items) => items.clone(),
        _ => return Vec::new(),
    };
    let reader = Reader { file, tree };
    let mut stages = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        if bad.contains(&i) {
            // A count the schema accepts but that does not fit (`1.2345K`,
            // `20000000T`) is still worth reporting with the entry's other
            // errors.
            if !params_reported.contains(&i) {
                issues.extend(params_issue(tree, i));
            }
            continue;
        }
        match reader.stage(i, entry) {
            Ok(stage) => stages.push(stage),
            Err(issue) => issues.push(*issue),
        }
        if !params_reported.contains(&i) {
            issues.extend(params_issue(tree, i));
        }
    }
    stages
}

/// The entry an error is about (`stages[i]` or below), and whether it is
/// about that entry's `params`.
fn entry_of(err: &ValidationError<'_>) -> (Option<usize>, bool) {
    let segs: Vec<LocationSegment<'_>> = err.instance_path().iter().collect();
    match segs.as_slice() {
        [LocationSegment::Property(top), LocationSegment::Index(i), rest @ ..] if top.as_ref() == "stages" => {
            let at_params = matches!(rest.first(), Some(LocationSegment::Property(p)) if p.as_ref() == "params");
            (Some(*i), at_params)
        }
        _ => (None, false),
    }
}

/// The P101 issue of `stages[i].params`, when the value is indeed not a
/// parameter count.
fn params_issue(tree: &Tree, i: usize) -> Option<StagesIssue> {
    let path = [
        PathSeg::Key("stages".into()),
        PathSeg::Index(i),
        PathSeg::Key("params".into()),
    ];
    let node = tree.locate(&path)?.node;
    let problem = parse_params(tree.value(node)).err()?;
    Some(StagesIssue::Params {
        entry: i,
        at: tree.span(node),
        problem,
    })
}

/// A parameter count from its YAML value: a non-negative integer (an
/// integral float such as `8.6e7` too), or a string such as `86M`, `1.3B`,
/// `2K`.
pub fn parse_params(value: &Value) -> Result<u64, ParamsProblem> {
    match value {
        Value::Int(n) => u64::try_from(*n).map_err(|_| ParamsProblem::Negative),
        Value::BigInt(s) => match s.parse::<u64>() {
            Ok(n) => Ok(n),
            Err(_) if s.starts_with('-') => Err(ParamsProblem::Negative),
            Err(_) => Err(ParamsProblem::TooLarge),
        },
        Value::Float(f) if *f < 0.0 => Err(ParamsProblem::Negative),
        Value::Float(f) if !f.is_finite() || f.fract() != 0.0 => Err(ParamsProblem::NotWhole),
        // 2^64 is exactly representable; anything at or above it overflows.
        Value::Float(f) if *f >= 18_446_744_073_709_551_616.0 => Err(ParamsProblem::TooLarge),
        Value::Float(f) => Ok(*f as u64),
        Value::Str(s) => parse_param_text(s),
        other => Err(ParamsProblem::WrongType(yaml::type_name(other))),
    }
}

/// `86M` → 86 000 000, `1.3B` → 1 300 000 000, `2K` → 2 000, exactly.
fn parse_param_text(s: &str) -> Result<u64, ParamsProblem> {
    if s.starts_with('-') {
        return Err(ParamsProblem::Negative);
    }
    let Some(last) = s.chars().last() else {
        return Err(ParamsProblem::EmptyString);
    };
    let zeros: usize = match last {
        'K' => 3,
        'M' => 6,
        'B' => 9,
        'T' => 12,
        'k' | 'm' | 'b' | 't' => return Err(ParamsProblem::LowercaseSuffix(last.to_ascii_uppercase())),
        c if c.is_ascii_digit() && s.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(ParamsProblem::QuotedNumber);
        }
        _ => return Err(ParamsProblem::NotACount),
    };
    let number = &s[..s.len() - last.len_utf8()];
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (number.contains('.') && !digits(frac)) {
        return Err(ParamsProblem::NotACount);
    }
    // The fraction's digits beyond the suffix's zeros must be zeros.
    let (kept, dropped) = frac.split_at(frac.len().min(zeros));
    if dropped.bytes().any(|b| b != b'0') {
        return Err(ParamsProblem::NotWhole);
    }
    let scale = |n: usize| 10u64.checked_pow(u32::try_from(n).unwrap_or(u32::MAX));
    let whole: u64 = whole.parse().map_err(|_| ParamsProblem::TooLarge)?;
    let kept_value: u64 = if kept.is_empty() {
        0
    } else {
        kept.parse().map_err(|_| ParamsProblem::TooLarge)?
    };
    whole
        .checked_mul(scale(zeros).ok_or(ParamsProblem::TooLarge)?)
        .and_then(|w| w.checked_add(kept_value.checked_mul(scale(zeros - kept.len())?)?))
        .ok_or(ParamsProblem::TooLarge)
}

/// Builds stages from entries the schema accepted.
struct Reader<'a> {
    file: FileId,
    tree: &'a Tree,
}

impl Reader<'_> {
    fn loc(&self, node: NodeId) -> Loc {
        Loc {
            file: self.file,
            span: self.tree.span(node),
        }
    }

    /// The value of `key` in the entry; `None` when absent or null.
    fn field(&self, entry: NodeId, key: &str) -> Option<NodeId> {
        let node = self.tree.get(entry, key)?.node;
        (!matches!(self.tree.value(node), Value::Null)).then_some(node)
    }

    /// A value the schema accepted but this reader cannot use.
    fn unreadable(&self, node: NodeId, i: usize, key: &str, expected: &'static str) -> Box<StagesIssue> {
        Box::new(StagesIssue::Unreadable {
            entry: i,
            key: key.to_string(),
            expected,
            found: yaml::type_name(self.tree.value(node)),
            at: self.tree.span(node),
        })
    }

    fn required(&self, entry: NodeId, i: usize, key: &'static str) -> Result<NodeId, Box<StagesIssue>> {
        self.field(entry, key).ok_or_else(|| {
            Box::new(StagesIssue::Missing {
                entry: i,
                key,
                at: self.tree.span(entry),
            })
        })
    }

    fn int(&self, node: NodeId, i: usize, key: &str) -> Result<Located<i64>, Box<StagesIssue>> {
        let value = match self.tree.value(node) {
            Value::Int(n) if *n >= 0 => Some(*n),
            Value::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e18 => Some(*f as i64),
            _ => None,
        };
        match value {
            Some(value) => Ok(Located {
                value,
                loc: self.loc(node),
            }),
            None => Err(self.unreadable(node, i, key, "a non-negative integer")),
        }
    }

    fn string(&self, node: NodeId, i: usize, key: &str) -> Result<Located<String>, Box<StagesIssue>> {
        match self.tree.as_str(node) {
            Some(s) => Ok(Located {
                value: s.to_string(),
                loc: self.loc(node),
            }),
            None => Err(self.unreadable(node, i, key, "a string")),
        }
    }

    fn stage(&self, i: usize, entry: NodeId) -> Result<StageDecl, Box<StagesIssue>> {
        let id = self.int(self.required(entry, i, "id")?, i, "id")?;
        let name = self.string(self.required(entry, i, "name")?, i, "name")?;
        let device = self.string(self.required(entry, i, "device")?, i, "device")?;
        let dtype = self.string(self.required(entry, i, "dtype")?, i, "dtype")?;
        let inputs = match self.field(entry, "inputs") {
            None => None,
            Some(list) => {
                let Value::Seq(items) = self.tree.value(list) else {
                    return Err(self.unreadable(list, i, "inputs", "a list of stage ids"));
                };
                let mut ids = Vec::with_capacity(items.len());
                for (k, &item) in items.iter().enumerate() {
                    ids.push(self.int(item, i, &format!("inputs[{k}]"))?);
                }
                Some(Located {
                    value: ids,
                    loc: self.loc(list),
                })
            }
        };
        let modules = match self.field(entry, "modules") {
            None => Vec::new(),
            Some(list) => {
                let Value::Seq(items) = self.tree.value(list) else {
                    return Err(self.unreadable(list, i, "modules", "a list of module names"));
                };
                let mut names = Vec::with_capacity(items.len());
                for (k, &item) in items.iter().enumerate() {
                    names.push(self.string(item, i, &format!("modules[{k}]"))?.value);
                }
                names
            }
        };
        // A count that does not parse is reported as P101 by `build_stages`;
        // the stage then keeps no count.
        let params = self
            .field(entry, "params")
            .and_then(|node| parse_params(self.tree.value(node)).ok());
        let flops_per_sample = match self.field(entry, "flops_per_sample") {
            None => None,
            Some(node) => match self.tree.value(node) {
                Value::Int(n) => Some(*n as f64),
                Value::Float(f) => Some(*f),
                Value::BigInt(s) => s.parse::<f64>().ok(),
                _ => return Err(self.unreadable(node, i, "flops_per_sample", "a number")),
            },
        };
        Ok(StageDecl {
            id,
            name,
            decl: self.loc(entry),
            device: Some(device),
            dtype: Some(dtype),
            inputs,
            modules,
            params,
            flops_per_sample,
            source: DeclSource::StagesYaml,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Diagnostic;
    use crate::source::LineIndex;

    /// Reads `text` as the `stages.yaml` of a project whose config does not
    /// parse (so the pipeline's rules stay out of it): the stages and the
    /// diagnostics of the file, as a user sees them.
    fn read(text: &str) -> (Vec<StageDecl>, Vec<Diagnostic>) {
        read_with(text, &Budgets::default())
    }

    fn read_with(text: &str, budgets: &Budgets) -> (Vec<StageDecl>, Vec<Diagnostic>) {
        let project = crate::project::Project {
            models: Some(vec![crate::project::Input {
                name: "stages.yaml".into(),
                bytes: text.as_bytes().to_vec(),
            }]),
            ..crate::project::Project::config_only("const.yaml", "")
        };
        let options = crate::compile::Options {
            budgets: *budgets,
            ..Default::default()
        };
        let compiled = crate::compile::compile(&project, &options);
        let diags = compiled
            .diagnostics
            .into_iter()
            .filter(|d| d.file == FileId(1))
            .collect();
        (compiled.decls, diags)
    }

    /// `(code, 1-based line)` of every diagnostic.
    fn codes(text: &str, diags: &[Diagnostic]) -> Vec<(&'static str, usize)> {
        let lines = LineIndex::new(text);
        diags
            .iter()
            .map(|d| (d.code, lines.line_of(d.span.start) + 1))
            .collect()
    }

    fn at(text: &str, loc: Loc) -> &str {
        &text[loc.span.start..loc.span.end]
    }

    fn params_of(value: &str) -> Result<u64, ParamsProblem> {
        parse_params(&yaml::resolve_plain(value))
    }

    const FULL: &str = "\
stages:
  - id: 0
    name: image_encoder
    device: a100
    dtype: bf16
    modules: [vit.patch_embed, vit.blocks]
    params: 86M
    flops_per_sample: 1.2e9
  - id: 1
    name: \"text_decoder\"
    device: 'h100'
    dtype: torch.float16
    inputs: [0]
    params: 1300000000
";

    #[test]
    fn reads_every_field_with_spans() {
        let (stages, diags) = read(FULL);
        assert!(diags.is_empty(), "{diags:#?}");
        assert_eq!(stages.len(), 2);
        let s0 = &stages[0];
        assert_eq!(s0.id.value, 0);
        assert_eq!(at(FULL, s0.id.loc), "0");
        assert_eq!(s0.name.value, "image_encoder");
        assert_eq!(at(FULL, s0.name.loc), "image_encoder");
        let device = s0.device.as_ref().map(|d| (d.value.as_str(), at(FULL, d.loc)));
        assert_eq!(device, Some(("a100", "a100")));
        let dtype = s0.dtype.as_ref().map(|d| (d.value.as_str(), at(FULL, d.loc)));
        assert_eq!(dtype, Some(("bf16", "bf16")));
        assert_eq!(s0.modules, vec!["vit.patch_embed", "vit.blocks"]);
        assert_eq!(s0.params, Some(86_000_000));
        assert_eq!(s0.flops_per_sample, Some(1.2e9));
        assert_eq!(s0.inputs, None);
        assert_eq!(s0.source, DeclSource::StagesYaml);
        assert!(at(FULL, s0.decl).starts_with("id: 0"));
        assert!(at(FULL, s0.decl).ends_with("flops_per_sample: 1.2e9"));

        let s1 = &stages[1];
        assert_eq!(s1.id.value, 1);
        assert_eq!(s1.name.value, "text_decoder");
        assert_eq!(at(FULL, s1.name.loc), "\"text_decoder\"");
        assert_eq!(s1.device.as_ref().map(|d| at(FULL, d.loc)), Some("'h100'"));
        assert_eq!(s1.dtype.as_ref().map(|d| d.value.as_str()), Some("torch.float16"));
        let inputs = s1.inputs.as_ref().map(|l| at(FULL, l.loc));
        assert_eq!(inputs, Some("[0]"));
        let ids: Vec<(i64, &str)> = s1
            .inputs
            .iter()
            .flat_map(|l| l.value.iter())
            .map(|x| (x.value, at(FULL, x.loc)))
            .collect();
        assert_eq!(ids, vec![(1 - 1, "0")]);
        assert_eq!(s1.params, Some(1_300_000_000));
        assert!(s1.modules.is_empty());
        assert_eq!(s1.flops_per_sample, None);
        assert!(at(FULL, s1.decl).ends_with("params: 1300000000"));
    }

    #[test]
    fn spans_are_exact_with_chinese_comments() {
        let text = "\
# 流水线阶段：图像编码器在 A100 上
stages:
  - id: 0            # 第一阶段
    name: 图像编码器   # 名称
    device: a100     # 设备
    dtype: bf16
  # 第二阶段：解码器
  - id: 1
    name: decoder
    device: h100
    dtype: fp8
    inputs:          # 输入
      - 0            # 来自编码器
";
        let (stages, diags) = read(text);
        assert!(diags.is_empty(), "{diags:#?}");
        assert_eq!(stages.len(), 2);
        assert_eq!(at(text, stages[0].name.loc), "图像编码器");
        assert_eq!(stages[0].name.value, "图像编码器");
        assert_eq!(at(text, stages[0].id.loc), "0");
        assert_eq!(stages[0].device.as_ref().map(|d| at(text, d.loc)), Some("a100"));
        assert_eq!(stages[1].dtype.as_ref().map(|d| at(text, d.loc)), Some("fp8"));
        assert_eq!(at(text, stages[1].id.loc), "1");
        let input = stages[1].inputs.as_ref().and_then(|l| l.value.first());
        assert_eq!(input.map(|x| (x.value, at(text, x.loc))), Some((0, "0")));
        let list = stages[1].inputs.as_ref().map(|l| at(text, l.loc));
        assert_eq!(list, Some("- 0"));
        assert!(at(text, stages[1].decl).starts_with("id: 1"));
    }

    #[test]
    fn absent_or_null_inputs_mean_the_default() {
        let text = "\
stages:
  - {id: 0, name: a, device: a100, dtype: bf16}
  - {id: 1, name: b, device: a100, dtype: bf16, inputs: }
  - {id: 2, name: c, device: a100, dtype: bf16, inputs: []}
";
        let (stages, diags) = read(text);
        assert!(diags.is_empty(), "{diags:#?}");
        assert_eq!(stages.len(), 3);
        assert_eq!(stages[0].inputs, None);
        assert_eq!(stages[1].inputs, None);
        let explicit = stages[2].inputs.as_ref().map(|l| (l.value.len(), at(text, l.loc)));
        assert_eq!(explicit, Some((0, "[]")));
        assert_eq!(at(text, stages[0].decl), "{id: 0, name: a, device: a100, dtype: bf16}");
    }

    #[test]
    fn params_counts() {
        assert_eq!(params_of("86M"), Ok(86_000_000));
        assert_eq!(params_of("1.3B"), Ok(1_300_000_000));
        assert_eq!(params_of("2K"), Ok(2_000));
        assert_eq!(params_of("0.5K"), Ok(500));
        assert_eq!(params_of("1.25T"), Ok(1_250_000_000_000));
        assert_eq!(params_of("1.500K"), Ok(1_500));
        assert_eq!(params_of("0"), Ok(0));
        assert_eq!(params_of("12345"), Ok(12_345));
        assert_eq!(params_of("8.6e7"), Ok(86_000_000));
        assert_eq!(params_of("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(params_of("18446744T"), Ok(18_446_744_000_000_000_000));

        use ParamsProblem::*;
        let err = |v: &str| params_of(v).err();
        assert_eq!(err("-5"), Some(Negative));
        assert_eq!(err("-1.5B"), Some(Negative));
        assert_eq!(err("18446744073709551616"), Some(TooLarge));
        assert_eq!(err("18446745T"), Some(TooLarge));
        assert_eq!(err("99999999999999999999999T"), Some(TooLarge));
        assert_eq!(err("1.2345K"), Some(NotWhole));
        assert_eq!(err("1.5"), Some(NotWhole));
        assert_eq!(err("86m"), Some(LowercaseSuffix('M')));
        assert_eq!(err("86 million"), Some(NotACount));
        assert_eq!(err("M"), Some(NotACount));
        assert_eq!(err("1.M"), Some(NotACount));
        assert_eq!(err("1e9B"), Some(NotACount));
        assert_eq!(err("true"), Some(WrongType("a boolean")));
        assert_eq!(parse_params(&Value::Str("86000000".into())).err(), Some(QuotedNumber));
        assert_eq!(parse_params(&Value::Str(String::new())).err(), Some(EmptyString));
    }

    #[test]
    fn one_bad_entry_one_good_entry() {
        let text = "\
stages:
  - id: 0
    name: encoder
    device: a100
    dtype: bf16
    params: 86 million
    colour: blue
  - id: 1
    name: decoder
    device: h100
    dtype: bf16
    params: 1.3B
";
        let (stages, diags) = read(text);
        assert_eq!(codes(text, &diags), vec![("P101", 6), ("C101", 7)], "{diags:#?}");
        assert!(diags[0]
            .message
            .starts_with("`stages[0].params` is not a parameter count"));
        assert_eq!(stages.len(), 1);
        assert_eq!(stages[0].name.value, "decoder");
        assert_eq!(stages[0].params, Some(1_300_000_000));
    }

    #[test]
    fn schema_errors_are_located_and_skip_their_entry_unless_only_params_is_bad() {
        let text = "\
stages:
  - id: -1
    name: a
    device: a100
    dtype: bf16
  - id: 1
    name: ''
    device: a100
    dtype: bf16
  - id: 2
    device: a100
    dtype: bf16
  - id: 3
    name: d
    device: a100
    dtype: [bf16]
    inputs: [x]
  - id: 4
    name: e
    device: a100
    dtype: bf16
    params: -5
  - id: 5
    name: f
    device: a100
    dtype: bf16
    flops_per_sample: -1
    params: 1.2345K
";
        let (stages, diags) = read(text);
        let found = codes(text, &diags);
        let expected = [
            (crate::rules::out_of_range::OUT_OF_RANGE.code, 2),
            (crate::rules::out_of_range::OUT_OF_RANGE.code, 7),
            (crate::rules::missing_key::MISSING_KEY.code, 10),
            (crate::rules::wrong_type::WRONG_TYPE.code, 16),
            (crate::rules::wrong_type::WRONG_TYPE.code, 17),
            (crate::rules::invalid_param_count::INVALID_PARAM_COUNT.code, 22),
            (crate::rules::out_of_range::OUT_OF_RANGE.code, 27),
            (crate::rules::invalid_param_count::INVALID_PARAM_COUNT.code, 28),
        ];
        assert_eq!(found, expected, "{diags:#?}");
        assert!(diags[5].message.contains("`-5` is negative"), "{}", diags[5].message);
        // Only id 4's trouble is its `params`: it stays, without a count.
        let kept: Vec<(i64, Option<u64>)> = stages.iter().map(|st| (st.id.value, st.params)).collect();
        assert_eq!(kept, [(4, None)]);
    }

    #[test]
    fn params_that_pass_the_schema_but_overflow_are_p101() {
        let text = "\
stages:
  - {id: 0, name: a, device: a100, dtype: bf16, params: 20000000T}
  - {id: 1, name: b, device: a100, dtype: bf16, params: 99999999999999999999}
  - {id: 2, name: c, device: a100, dtype: bf16, params: 8.6e7}
";
        let (stages, diags) = read(text);
        assert_eq!(codes(text, &diags), vec![("P101", 2), ("P101", 3)], "{diags:#?}");
        assert_eq!(&text[diags[0].span.start..diags[0].span.end], "20000000T");
        assert_eq!(&text[diags[1].span.start..diags[1].span.end], "99999999999999999999");
        let params: Vec<Option<u64>> = stages.iter().map(|st| st.params).collect();
        assert_eq!(params, [None, None, Some(86_000_000)]);
    }

    #[test]
    fn document_level_problems() {
        let (stages, diags) = read("- id: 0\n");
        assert_eq!(codes("- id: 0\n", &diags), vec![("Y008", 1)]);
        assert!(stages.is_empty());

        let (_, diags) = read("");
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, crate::rules::root_not_mapping::ROOT_NOT_MAPPING.code);

        let text = "stage:\n  - id: 0\n";
        let (stages, diags) = read(text);
        let found: Vec<&str> = diags.iter().map(|d| d.code).collect();
        assert!(
            found.contains(&crate::rules::unknown_key::UNKNOWN_KEY.code),
            "{diags:#?}"
        );
        assert!(
            found.contains(&crate::rules::missing_key::MISSING_KEY.code),
            "{diags:#?}"
        );
        assert!(stages.is_empty());

        let (stages, diags) = read("stages: [\n");
        assert!(diags
            .iter()
            .any(|d| d.code == crate::rules::yaml_syntax::YAML_SYNTAX.code));
        assert!(stages.is_empty());
    }

    #[test]
    fn aliases_merges_and_suppressions() {
        let text = "\
defaults: &d {device: a100, dtype: bf16}
stages:
  - {<<: *d, id: 0, name: a}
  - <<: *d
    id: 1
    name: b
    dtype: fp16
    params: 86 million  # stagec: ignore[P101]
";
        let (stages, diags) = read(text);
        // `defaults` is not a stages.yaml key; the suppressed P101 is gone.
        assert_eq!(codes(text, &diags), vec![("C101", 1)], "{diags:#?}");
        assert_eq!(stages.len(), 2);
        assert_eq!(stages[1].params, None);
        assert_eq!(stages[0].device.as_ref().map(|d| at(text, d.loc)), Some("a100"));
    }

    #[test]
    fn billion_laughs_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        text.push_str("stages: *a7\n");
        let (stages, diags) = read(&text);
        assert_eq!(diags.len(), 1, "{diags:#?}");
        assert_eq!(diags[0].code, crate::rules::alias_budget::ALIAS_BUDGET.code);
        assert!(stages.is_empty());
    }
}
