declare_rule! {
    /// ## What it checks
    /// Unquoted words and numbers in an experiment config that YAML 1.1 and
    /// YAML 1.2 read differently: `y`, `yes`, `on`, `n`, `no`, `off` (in
    /// any of their capitalisations YAML 1.1 knows), octal `0777`, `0X1F`,
    /// numbers with `_` where YAML 1.2 has none, and floats too large for 64
    /// bits — as values and as keys.
    ///
    /// ## Why
    /// Determined reads a config twice. `det experiment create` loads it with
    /// ruamel.yaml (YAML 1.2) only to refuse bad syntax and repeated keys,
    /// then sends the text as written to the master, which reads it with
    /// gopkg.in/yaml.v2 (YAML 1.1): `debug: yes` is `true`, `name: on` is a
    /// boolean where a string is required, `mode: 0777` is 511 and the key
    /// `y:` is `"true"`. stagec checks the config the way the master reads
    /// it, and warns wherever the text means something else to a YAML 1.2
    /// reader — including the CLI itself, which re-writes the config when it
    /// is given `--config` overrides and then quotes these words,
    /// changing their meaning again. The fix writes what the master reads in
    /// a form every reader agrees on (`true`, `"yes"`, `0o777`).
    ///
    /// A `%YAML 1.1` directive makes the CLI read YAML 1.1 too: then there is
    /// nothing to warn about.
    ///
    /// ## Example
    /// ```yaml
    /// debug: yes            # warning: `true` to the master; write `true`
    /// hyperparameters:
    ///   y: 0.5              # warning: the key is "true" to the master
    ///   mode: 0777          # warning: 511 to the master, 777 to the CLI
    /// ```
    pub static YAML11_SCALAR = {
        code: "Y012",
        name: "yaml11-scalar",
        family: Yaml,
        severity: Warning,
        summary: "An unquoted scalar means one thing to Determined's master (YAML 1.1) and another to YAML 1.2",
    };
}

use std::collections::HashMap;

use super::{Cx, Sink};
use crate::diagnostic::Edit;
use crate::yaml::{PathSeg, Tree, Value, YamlIssue};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    for (file, role, doc) in cx.documents() {
        let issues: Vec<_> = doc
            .issues
            .iter()
            .filter_map(|i| match i {
                YamlIssue::Yaml11 { at, master, cli, key } => Some((*at, master, cli, *key)),
                _ => None,
            })
            .collect();
        if issues.is_empty() {
            continue;
        }
        let paths = value_paths(&doc.tree);
        let text = cx.text(file);
        for (at, master, cli, key) in issues {
            let written = text.get(at.start..at.end).unwrap_or("");
            let shown = super::text::truncate(written);
            let types = match (&doc.json, paths.get(&at.start)) {
                (Some(json), Some(path)) if !key => super::schema_types(role, path, json),
                _ => None,
            };
            let wants = |t: &str| types.as_ref().is_some_and(|ts| ts.iter().any(|x| x == t));
            // A credential's value is not quoted, nor how it reads (a
            // number's digits are the secret's).
            let secret = !key && overlaps(cx.compiled.secrets(file), at);
            let subject = if key { "the key" } else { "" };
            let message = if secret {
                let (m, c) = (kind(master), kind(cli));
                if m == c {
                    // Both read a number (an octal or sexagesimal one to
                    // YAML 1.1): which numbers would show the digits.
                    format!(
                        "a credential's value (not shown) is {m} to Determined's master (YAML 1.1) and to YAML 1.2 readers such as its CLI, but not the same one"
                    )
                } else {
                    format!(
                        "a credential's value (not shown) is {m} to Determined's master (YAML 1.1) but {c} to YAML 1.2 readers such as its CLI"
                    )
                }
            } else {
                format!(
                    "{subject}{space}`{shown}` is {m} to Determined's master (YAML 1.1) but {c} to YAML 1.2 readers such as its CLI",
                    space = if key { " " } else { "" },
                    m = reading(master),
                    c = reading(cli),
                )
            };
            let replace = |with: String| {
                vec![Edit {
                    file,
                    span: at,
                    replacement: with,
                }]
            };
            let quoted = format!("\"{}\"", written.replace('\\', "\\\\").replace('"', "\\\""));
            let d = out.at(file, at, message);
            if secret {
                d.help("quote the value: every reader then reads the same string")
                    .fix("quote the value", replace(quoted));
                continue;
            }
            match (master, cli) {
                (Value::Bool(b), _) if key => {
                    d.help(format!(
                        "quote the key to keep it `{shown}`; as written the master uses the key `{b}`"
                    ))
                    .unsafe_fix(format!("quote `{shown}`"), replace(quoted));
                }
                (Value::Bool(_), _) if wants("string") && !wants("boolean") => {
                    d.help("a string is expected here: quote it")
                        .fix(format!("quote `{shown}`"), replace(quoted));
                }
                (Value::Bool(b), _) if wants("boolean") && !wants("string") => {
                    d.help(format!("write `{b}`: every reader reads it as the boolean"))
                        .fix(format!("write `{b}`"), replace(b.to_string()));
                }
                (Value::Bool(b), _) => {
                    d.help(format!(
                        "write `{b}` for the boolean the master uses today, or quote it for the string"
                    ))
                    .fix(format!("write `{b}`"), replace(b.to_string()));
                }
                (Value::Str(_), _) => {
                    d.help("quote it: every reader then reads the same string")
                        .fix(format!("quote `{shown}`"), replace(quoted));
                }
                (Value::Int(i), _) => {
                    let canonical = octal_form(written).unwrap_or_else(|| i.to_string());
                    d.help(format!("write `{canonical}`: every reader reads it as {i}"))
                        .fix(format!("write `{canonical}`"), replace(canonical.clone()));
                }
                (Value::Float(f), _) if f.is_finite() => {
                    let canonical = float_form(*f);
                    d.help(format!("write `{canonical}`: every reader reads it as the same number"))
                        .fix(format!("write `{canonical}`"), replace(canonical.clone()));
                }
                _ => {
                    d.help("quote it for a string, or write the value in a form both YAML versions read alike");
                }
            }
        }
    }
}

/// How a reading reads in a message.
fn reading(v: &Value) -> String {
    match v {
        Value::Bool(b) => format!("the boolean `{b}`"),
        Value::Int(i) => format!("the number {i}"),
        Value::BigInt(s) => format!("the number {}", super::text::truncate(s)),
        Value::Float(f) if f.is_infinite() => "infinity".into(),
        Value::Float(f) => format!("the number {}", float_form(*f)),
        Value::Str(s) => format!("the string \"{}\"", super::text::truncate(s)),
        Value::Null => "null".into(),
        _ => "a collection".into(),
    }
}

/// What kind of value a reading is, without the value.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::BigInt(_) | Value::Float(_) => "a number",
        Value::Str(_) => "a string",
        Value::Null => "null",
        _ => "a collection",
    }
}

/// Whether `at` overlaps one of `spans`.
pub(crate) fn overlaps(spans: &[crate::source::Span], at: crate::source::Span) -> bool {
    spans
        .iter()
        .any(|s| s.start < at.end.max(at.start + 1) && at.start < s.end)
}

/// `0o777` for YAML 1.1's `0777` (with its sign), which both versions
/// read as the same octal number.
fn octal_form(written: &str) -> Option<String> {
    let clean: String = written.chars().filter(|&c| c != '_').collect();
    let (sign, digits) = match clean.strip_prefix(['-', '+']) {
        Some(rest) => (&clean[..1], rest),
        None => ("", clean.as_str()),
    };
    let octal = digits.strip_prefix('0')?;
    (!octal.is_empty() && octal.bytes().all(|b| (b'0'..=b'7').contains(&b)))
        .then(|| format!("{}0o{octal}", if sign == "-" { "-" } else { "" }))
}

/// A float as YAML 1.1 and 1.2 both read it: digits with a point or an
/// exponent.
fn float_form(f: f64) -> String {
    let s = format!("{f:?}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// The path of every scalar written in the tree, by its start offset (a
/// key's offset gives its mapping's path and the key).
fn value_paths(tree: &Tree) -> HashMap<usize, Vec<PathSeg>> {
    let mut out = HashMap::new();
    if let Some(root) = tree.root() {
        walk(tree, root, &mut Vec::new(), &mut out, 0);
    }
    out
}

fn walk(
    tree: &Tree,
    id: crate::yaml::NodeId,
    path: &mut Vec<PathSeg>,
    out: &mut HashMap<usize, Vec<PathSeg>>,
    depth: usize,
) {
    if depth > 256 {
        return;
    }
    let node = tree.node(id);
    match &node.value {
        Value::Seq(items) => {
            for (i, &item) in items.iter().enumerate() {
                path.push(PathSeg::Index(i));
                walk(tree, item, path, out, depth + 1);
                path.pop();
            }
        }
        Value::Map(entries) => {
            for e in entries {
                path.push(PathSeg::Key(tree.key_text(e.key)));
                walk(tree, e.value, path, out, depth + 1);
                path.pop();
            }
        }
        Value::Alias(_) => {}
        _ => {
            out.insert(node.span.start, path.clone());
        }
    }
}
