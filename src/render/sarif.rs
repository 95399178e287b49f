//! `--format sarif`: SARIF 2.1.0 for code-scanning dashboards.

use serde_json::{json, Value};

use super::{position, Report};
use crate::diagnostic::Severity;
use crate::rules;

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

pub fn render(reports: &[Report<'_>]) -> String {
    let all: Vec<&rules::Rule> = rules::all().collect();
    let rule_objs: Vec<Value> = all
        .iter()
        .map(|r| {
            let text = rules::explanation_text(r);
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.summary },
                "help": { "text": text, "markdown": text },
                "helpUri": rules::docs_url(r, None),
                "defaultConfiguration": { "level": level(r.severity) },
            })
        })
        .collect();
    let mut results = Vec::new();
    for r in reports {
        for d in r.diagnostics {
            let p = position(r.sources, d.file, d.span);
            let mut text = d.message.clone();
            if let Some(help) = &d.help {
                text.push_str("\nhelp: ");
                text.push_str(help);
            }
            let related: Vec<Value> = d
                .labels
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let lp = position(r.sources, l.file, l.span);
                    json!({
                        "id": i,
                        "message": { "text": l.message },
                        "physicalLocation": location(&lp),
                    })
                })
                .collect();
            let mut result = json!({
                "ruleId": d.code,
                "level": level(d.severity),
                "message": { "text": text },
                "locations": [{ "physicalLocation": location(&p) }],
            });
            if let Some(idx) = all.iter().position(|r| r.code == d.code) {
                result["ruleIndex"] = json!(idx);
            }
            if !related.is_empty() {
                result["relatedLocations"] = Value::Array(related);
            }
            if let Some(fix) = &d.fix {
                // One artifact change per file the fix edits, in edit order.
                let mut changes: Vec<(String, Vec<Value>)> = Vec::new();
                for e in &fix.edits {
                    let ep = position(r.sources, e.file, e.span);
                    let replacement = json!({
                        "deletedRegion": location(&ep)["region"].clone(),
                        "insertedContent": { "text": r.shown_replacement(e) },
                    });
                    match changes.iter_mut().find(|(f, _)| *f == ep.file) {
                        Some((_, list)) => list.push(replacement),
                        None => changes.push((ep.file.clone(), vec![replacement])),
                    }
                }
                let changes: Vec<Value> = changes
                    .into_iter()
                    .map(|(file, replacements)| {
                        json!({ "artifactLocation": { "uri": uri(&file) }, "replacements": replacements })
                    })
                    .collect();
                result["fixes"] = json!([{
                    "description": { "text": fix.title },
                    "artifactChanges": changes,
                    "properties": { "applicability": fix.applicability.as_str() },
                }]);
            }
            results.push(result);
        }
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "stagec",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/stagec/stagec",
                "rules": rule_objs,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| String::from("{}"));
    // Controls serde_json leaves raw, as `\u` escapes (the same strings).
    let mut s = crate::escape::json(&s).into_owned();
    s.push('\n');
    s
}

fn location(p: &super::Position) -> Value {
    json!({
        "artifactLocation": { "uri": uri(&p.file) },
        "region": {
            "startLine": p.line,
            "startColumn": p.column,
            "endLine": p.end_line,
            "endColumn": p.end_column.max(if p.end_line == p.line { p.column } else { 1 }),
        }
    })
}

/// A relative URI reference for a path as given (forward slashes, spaces
/// and other reserved characters percent-encoded).
fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
