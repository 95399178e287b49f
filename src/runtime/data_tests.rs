//! Checks on the runtime data tables in `src/runtime/data/`: every file is an
//! object `{"sources": {key: citation, ...}, "rows": [...]}`, every row names
//! its sources in a `source` field (one key or a non-empty list of keys) and
//! every named key exists in `sources`. Unused source keys are reported too,
//! so that the citations stay in step with the rows.
//!
//! Not wired into a crate yet: include it from the module that owns the
//! tables, e.g. `#[cfg(test)] mod data_tests;` in `src/runtime/mod.rs`.
//! Needs only `serde_json`.

use serde_json::{Map, Value};

/// Every table, by file name, with its text embedded at compile time.
const TABLES: &[(&str, &str)] = &[
    ("cuda_drivers.json", include_str!("data/cuda_drivers.json")),
    ("architectures.json", include_str!("data/architectures.json")),
    ("torch_builds.json", include_str!("data/torch_builds.json")),
    ("torch_dtypes.json", include_str!("data/torch_dtypes.json")),
    ("ngc_pytorch.json", include_str!("data/ngc_pytorch.json")),
    ("images.json", include_str!("data/images.json")),
    ("debug_env.json", include_str!("data/debug_env.json")),
];

/// The problems found in one table's text; empty when it is well-formed.
fn problems(file: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let root: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return vec![format!("{file}: not JSON: {e}")],
    };
    let Some(root) = root.as_object() else {
        return vec![format!("{file}: the top level is not an object")];
    };
    for key in root.keys() {
        if key != "sources" && key != "rows" {
            out.push(format!("{file}: unexpected top-level key `{key}`"));
        }
    }
    let empty = Map::new();
    let sources = match root.get("sources").and_then(Value::as_object) {
        Some(s) => s,
        None => {
            out.push(format!("{file}: `sources` is missing or not an object"));
            &empty
        }
    };
    for (key, citation) in sources {
        if citation.as_str().is_none_or(|c| c.trim().is_empty()) {
            out.push(format!("{file}: source `{key}` has no citation text"));
        }
    }
    let Some(rows) = root.get("rows").and_then(Value::as_array) else {
        out.push(format!("{file}: `rows` is missing or not an array"));
        return out;
    };
    if rows.is_empty() {
        out.push(format!("{file}: `rows` is empty"));
    }
    let mut used = std::collections::BTreeSet::new();
    for (i, row) in rows.iter().enumerate() {
        let Some(row) = row.as_object() else {
            out.push(format!("{file}: row {i} is not an object"));
            continue;
        };
        let keys: Vec<&str> = match row.get("source") {
            Some(Value::String(key)) => vec![key.as_str()],
            Some(Value::Array(list)) if !list.is_empty() => {
                let keys: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
                if keys.len() != list.len() {
                    out.push(format!("{file}: row {i}: `source` holds a non-string"));
                }
                keys
            }
            Some(_) => {
                out.push(format!(
                    "{file}: row {i}: `source` must be a key or a non-empty list of keys"
                ));
                continue;
            }
            None => {
                out.push(format!("{file}: row {i} has no `source`"));
                continue;
            }
        };
        for key in keys {
            if sources.contains_key(key) {
                used.insert(key.to_string());
            } else {
                out.push(format!("{file}: row {i} names source `{key}`, which `sources` lacks"));
            }
        }
    }
    for key in sources.keys() {
        if !used.contains(key) {
            out.push(format!("{file}: source `{key}` is named by no row"));
        }
    }
    out
}

#[test]
fn every_row_names_a_known_source() {
    let all: Vec<String> = TABLES.iter().flat_map(|(file, text)| problems(file, text)).collect();
    assert!(all.is_empty(), "runtime data tables:\n{}", all.join("\n"));
}

#[test]
fn the_check_catches_bad_rows() {
    let good = r#"{"sources": {"a": "A, https://example.org"}, "rows": [{"x": 1, "source": ["a"]}, {"source": "a"}]}"#;
    assert_eq!(problems("good", good), Vec::<String>::new());
    let missing = r#"{"sources": {"a": "A"}, "rows": [{"x": 1}]}"#;
    assert!(problems("t", missing)
        .iter()
        .any(|p| p.contains("row 0 has no `source`")));
    let unknown = r#"{"sources": {"a": "A"}, "rows": [{"source": ["a", "b"]}]}"#;
    assert!(problems("t", unknown).iter().any(|p| p.contains("`b`")));
    let empty_list = r#"{"sources": {"a": "A"}, "rows": [{"source": []}, {"source": "a"}]}"#;
    assert!(problems("t", empty_list).iter().any(|p| p.contains("row 0")));
    let unused = r#"{"sources": {"a": "A", "b": "B"}, "rows": [{"source": "a"}]}"#;
    assert!(problems("t", unused)
        .iter()
        .any(|p| p.contains("`b` is named by no row")));
    assert!(!problems("t", "[1, 2]").is_empty());
    assert!(!problems("t", "{").is_empty());
}
