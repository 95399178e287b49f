//! Reader for `stages.yaml`: pipeline stages declared in a YAML file next to
//! the model rather than with `@stage_decorator`.
//!
//! The file goes the way an experiment config does (see [`crate::check`]):
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
use crate::diagnostic::{sort_and_dedup, Diagnostic};
use crate::rules::{invalid_param_count::INVALID_PARAM_COUNT, schema_violation::SCHEMA_VIOLATION};
use crate::schema::{self, SchemaIndex};
use crate::source::{FileId, SourceFile, Span};
use crate::source::{Loc, Located};
use crate::yaml::{self, Budgets, NodeId, PathSeg, Tree, Value};
use crate::{check, suppress};

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

/// What a `stages.yaml` maps, for a document that is not a mapping.
const ROOT_HELP: &str =
    "a `stages.yaml` maps `stages` to a list of stages, each with `id`, `name`, `device` and `dtype`";

/// How to write a parameter count, for P101's help.
const PARAMS_HELP: &str = "write an integer, or a number with a `K`, `M`, `B` or `T` suffix such as `86M` or `1.3B`";

/// Reads a `stages.yaml`: the stages of its valid entries, in file order,
/// and every diagnostic (YAML, schema, P101), sorted, with
/// `# stagec: ignore[...]` comments applied. An entry with an error is left
/// out; the diagnostics say why.
pub fn read_stages_yaml(file: FileId, text: &str, budgets: &Budgets) -> (Vec<StageDecl>, Vec<Diagnostic>) {
    let (tree, mut diags) = yaml::parse(text, file, budgets);
    let stages = analyze(file, text, &tree, budgets, &mut diags);
    suppress::apply(file, &SourceFile::new("stages.yaml", text), &mut diags);
    sort_and_dedup(&mut diags);
    (stages, diags)
}

fn analyze(file: FileId, text: &str, tree: &Tree, budgets: &Budgets, diags: &mut Vec<Diagnostic>) -> Vec<StageDecl> {
    let Some(json) = check::document_json(file, tree, budgets, ROOT_HELP, diags) else {
        return Vec::new();
    };
    let yaml_spans: Vec<Span> = diags
        .iter()
        .filter(|d| d.code.starts_with('Y'))
        .map(|d| d.span)
        .collect();

    // Which entries have errors, and the errors on `params`, which P101
    // reports with a message about parameter counts.
    let mut bad: BTreeSet<usize> = BTreeSet::new();
    let mut params_reported: BTreeSet<usize> = BTreeSet::new();
    let mut others: Vec<ValidationError<'_>> = Vec::new();
    for err in StagesValidator::iter_errors(&json) {
        let (entry, at_params) = entry_of(&err);
        if let Some(i) = entry {
            // A bad `params` costs the stage only its parameter count: the
            // stage itself stays, so the graph does not report it missing.
            if !at_params {
                bad.insert(i);
            }
            if at_params {
                if params_reported.contains(&i) {
                    continue;
                }
                if let Some(d) = params_diagnostic(file, text, tree, i) {
                    params_reported.insert(i);
                    diags.push(d);
                    continue;
                }
            }
        }
        others.push(err);
    }
    schema::map_errors(file, text, tree, &json, stages_index, others.into_iter(), diags);
    let stages = build_stages(file, text, tree, &bad, &params_reported, diags);
    // A value the YAML layer already rejected (a bad tag) is not reported
    // again by the schema or P101.
    diags.retain(|d| d.code.starts_with('Y') || !yaml_spans.contains(&d.span));
    stages
}

/// One stage per entry without schema errors (other than on `params`), in
/// file order.
fn build_stages(
    file: FileId,
    text: &str,
    tree: &Tree,
    bad: &BTreeSet<usize>,
    params_reported: &BTreeSet<usize>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<StageDecl> {
    let Some(list) = tree.locate(&[PathSeg::Key("stages".into())]) else {
        return Vec::new();
    };
    let entries: Vec<NodeId> = match tree.value(list.node) {
        Value::Seq(items) => items.clone(),
        _ => return Vec::new(),
    };
    let reader = Reader { file, text, tree };
    let mut stages = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        if bad.contains(&i) {
            // A count the schema accepts but that does not fit (`1.2345K`,
            // `20000000T`) is still worth reporting with the entry's other
            // errors.
            if !params_reported.contains(&i) {
                diags.extend(params_diagnostic(file, text, tree, i));
            }
            continue;
        }
        match reader.stage(i, entry) {
            Ok(stage) => stages.push(stage),
            Err(d) => diags.push(*d),
        }
        if !params_reported.contains(&i) {
            diags.extend(params_diagnostic(file, text, tree, i));
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

/// P101 for `stages[i].params`, when the value is indeed not a parameter
/// count.
fn params_diagnostic(file: FileId, text: &str, tree: &Tree, i: usize) -> Option<Diagnostic> {
    let path = [
        PathSeg::Key("stages".into()),
        PathSeg::Index(i),
        PathSeg::Key("params".into()),
    ];
    let node = tree.locate(&path)?.node;
    let reason = parse_params(tree.value(node), written(text, tree, node)).err()?;
    Some(params_error(file, tree.span(node), i, &reason))
}

fn params_error(file: FileId, span: Span, i: usize, reason: &str) -> Diagnostic {
    Diagnostic::new(
        &INVALID_PARAM_COUNT,
        file,
        span,
        format!("`stages[{i}].params` is not a parameter count: {reason}"),
    )
    .with_help(PARAMS_HELP)
}

/// The text of a node as written (a string keeps its quotes).
fn written<'t>(text: &'t str, tree: &Tree, node: NodeId) -> &'t str {
    let span = tree.span(node);
    text.get(span.start..span.end).unwrap_or("")
}

/// A parameter count from its YAML value: a non-negative integer (an
/// integral float such as `8.6e7` too), or a string such as `86M`, `1.3B`,
/// `2K`. `shown` is the value as written, for the error message.
pub fn parse_params(value: &Value, shown: &str) -> Result<u64, String> {
    match value {
        Value::Int(n) => u64::try_from(*n).map_err(|_| format!("`{shown}` is negative")),
        Value::BigInt(s) => match s.parse::<u64>() {
            Ok(n) => Ok(n),
            Err(_) if s.starts_with('-') => Err(format!("`{shown}` is negative")),
            Err(_) => Err(format!("`{shown}` is larger than {}", u64::MAX)),
        },
        Value::Float(f) if *f < 0.0 => Err(format!("`{shown}` is negative")),
        Value::Float(f) if !f.is_finite() || f.fract() != 0.0 => {
            Err(format!("`{shown}` is not a whole number of parameters"))
        }
        // 2^64 is exactly representable; anything at or above it overflows.
        Value::Float(f) if *f >= 18_446_744_073_709_551_616.0 => Err(format!("`{shown}` is larger than {}", u64::MAX)),
        Value::Float(f) => Ok(*f as u64),
        Value::Str(s) => parse_param_text(s, shown),
        other => Err(format!(
            "expected an integer or a string such as `86M`, found {}",
            yaml::type_name(other)
        )),
    }
}

/// `86M` → 86 000 000, `1.3B` → 1 300 000 000, `2K` → 2 000, exactly.
fn parse_param_text(s: &str, shown: &str) -> Result<u64, String> {
    let generic = || format!("`{shown}` is neither an integer nor a number with a `K`, `M`, `B` or `T` suffix");
    if s.starts_with('-') {
        return Err(format!("`{shown}` is negative"));
    }
    let Some(last) = s.chars().last() else {
        return Err("the value is an empty string".into());
    };
    let zeros: usize = match last {
        'K' => 3,
        'M' => 6,
        'B' => 9,
        'T' => 12,
        'k' | 'm' | 'b' | 't' => {
            return Err(format!(
                "`{shown}`: write the suffix in uppercase, `{}`",
                last.to_ascii_uppercase()
            ))
        }
        c if c.is_ascii_digit() && s.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(format!(
                "`{shown}` is a quoted number: remove the quotes, or add a suffix"
            ));
        }
        _ => return Err(generic()),
    };
    let number = &s[..s.len() - last.len_utf8()];
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (number.contains('.') && !digits(frac)) {
        return Err(generic());
    }
    // The fraction's digits beyond the suffix's zeros must be zeros.
    let (kept, dropped) = frac.split_at(frac.len().min(zeros));
    if dropped.bytes().any(|b| b != b'0') {
        return Err(format!("`{shown}` is not a whole number of parameters"));
    }
    let too_large = || format!("`{shown}` is larger than {}", u64::MAX);
    let scale = |n: usize| 10u64.checked_pow(u32::try_from(n).unwrap_or(u32::MAX));
    let whole: u64 = whole.parse().map_err(|_| too_large())?;
    let kept_value: u64 = if kept.is_empty() {
        0
    } else {
        kept.parse().map_err(|_| too_large())?
    };
    whole
        .checked_mul(scale(zeros).ok_or_else(too_large)?)
        .and_then(|w| w.checked_add(kept_value.checked_mul(scale(zeros - kept.len())?)?))
        .ok_or_else(too_large)
}

/// Builds stages from entries the schema accepted.
struct Reader<'a> {
    file: FileId,
    text: &'a str,
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

    /// A diagnostic for a value the schema accepted but this reader cannot
    /// use; it should not happen, but a stage is never dropped silently.
    fn unreadable(&self, node: NodeId, i: usize, key: &str, expected: &str) -> Box<Diagnostic> {
        Box::new(Diagnostic::new(
            &SCHEMA_VIOLATION,
            self.file,
            self.tree.span(node),
            format!(
                "`stages[{i}].{key}` expects {expected}, found {}",
                yaml::type_name(self.tree.value(node))
            ),
        ))
    }

    fn required(&self, entry: NodeId, i: usize, key: &str) -> Result<NodeId, Box<Diagnostic>> {
        self.field(entry, key).ok_or_else(|| {
            Box::new(Diagnostic::new(
                &SCHEMA_VIOLATION,
                self.file,
                self.tree.span(entry),
                format!("`stages[{i}]` is missing required key `{key}`"),
            ))
        })
    }

    fn int(&self, node: NodeId, i: usize, key: &str) -> Result<Located<i64>, Box<Diagnostic>> {
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

    fn string(&self, node: NodeId, i: usize, key: &str) -> Result<Located<String>, Box<Diagnostic>> {
        match self.tree.as_str(node) {
            Some(s) => Ok(Located {
                value: s.to_string(),
                loc: self.loc(node),
            }),
            None => Err(self.unreadable(node, i, key, "a string")),
        }
    }

    fn stage(&self, i: usize, entry: NodeId) -> Result<StageDecl, Box<Diagnostic>> {
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
            .and_then(|node| parse_params(self.tree.value(node), written(self.text, self.tree, node)).ok());
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
    use crate::source::LineIndex;

    fn read(text: &str) -> (Vec<StageDecl>, Vec<Diagnostic>) {
        read_stages_yaml(FileId(0), text, &Budgets::default())
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

    fn params_of(value: &str) -> Result<u64, String> {
        parse_params(&yaml::resolve_plain(value), value)
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

        let err = |v: &str| params_of(v).err().unwrap_or_default();
        assert!(err("-5").contains("negative"));
        assert!(err("-1.5B").contains("negative"));
        assert!(err("18446744073709551616").contains("larger than"));
        assert!(err("18446745T").contains("larger than"));
        assert!(err("99999999999999999999999T").contains("larger than"));
        assert!(err("1.2345K").contains("not a whole number"));
        assert!(err("1.5").contains("not a whole number"));
        assert!(err("86m").contains("uppercase"));
        assert!(err("86 million").contains("neither an integer"));
        assert!(err("M").contains("neither an integer"));
        assert!(err("1.M").contains("neither an integer"));
        assert!(err("1e9B").contains("neither an integer"));
        assert!(err("true").contains("found a boolean"));
        assert!(parse_params(&Value::Str("86000000".into()), "'86000000'")
            .err()
            .unwrap_or_default()
            .contains("quoted number"));
        assert!(parse_params(&Value::Str(String::new()), "''")
            .err()
            .unwrap_or_default()
            .contains("empty"));
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
            (INVALID_PARAM_COUNT.code, 22),
            (crate::rules::out_of_range::OUT_OF_RANGE.code, 27),
            (INVALID_PARAM_COUNT.code, 28),
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
