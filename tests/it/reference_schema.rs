//! Determined's own expconf v0 JSON Schemas (from `../shared/reference/`)
//! accept the `determined.yaml` stagec writes. Determined's custom keywords
//! are mapped to standard JSON Schema where they decide validity
//! (`optionalRef`, `union`); its `checks`-style keywords are stagec's C2xx
//! rules, which the plan also passes. Skipped when `../shared` is absent.

use crate::common;

use std::path::Path;

use serde_json::{json, Value};

/// Rewrites Determined's custom keywords into standard ones.
fn standardise(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let mut extra = Vec::new();
            if let Some(Value::String(target)) = map.remove("optionalRef") {
                extra.push(json!({"anyOf": [{"type": "null"}, {"$ref": target}]}));
            }
            if let Some(union) = map.remove("union") {
                if let Some(items) = union.get("items").cloned() {
                    extra.push(json!({"anyOf": items}));
                }
            }
            for child in map.values_mut() {
                standardise(child);
            }
            if !extra.is_empty() {
                for e in &mut extra {
                    standardise(e);
                }
                let all = map.entry("allOf").or_insert_with(|| json!([]));
                if let Value::Array(list) = all {
                    list.extend(extra);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(standardise),
        _ => {}
    }
}

fn validator(shared: &Path) -> jsonschema::Validator {
    let dir = shared.join("reference/determined-expconf-v0");
    let mut registry = jsonschema::Registry::new();
    let mut root = Value::Null;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("reference dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries.iter().filter(|p| p.extension().is_some_and(|e| e == "json")) {
        let mut schema: Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
        standardise(&mut schema);
        let id = schema["$id"].as_str().expect("$id").to_string();
        if id.ends_with("/experiment.json") {
            root = schema.clone();
        }
        registry = registry
            .add(id, jsonschema::Resource::from_contents(schema))
            .expect("add");
    }
    let registry = registry.prepare().expect("registry");
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .with_registry(&registry)
        .build(&root)
        .expect("Determined's experiment schema compiles")
}

fn as_json(text: &str) -> Value {
    let (tree, diags) = stagec::yaml::parse(text, &Default::default());
    assert!(diags.is_empty(), "{diags:?}");
    tree.root().and_then(|r| tree.to_json(r, 100_000)).expect("document")
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn determined_accepts_the_generated_config_and_rejects_the_extension() {
    let Some(shared) = common::shared_dir() else { return };
    let v = validator(&shared);
    // The harness itself: real configs pass, the raw HPP config does not.
    let corpus = shared.join("corpus/determined-examples/tutorials__mnist_pytorch__const.yaml");
    let corpus_doc = as_json(&std::fs::read_to_string(corpus).expect("corpus"));
    assert_eq!(errors(&v, &corpus_doc), Vec::<String>::new());
    let raw = as_json(include_str!("../../examples/hpp-seed-fixed/const.yaml"));
    assert!(
        !errors(&v, &raw).is_empty(),
        "resources.custom must be rejected by Determined"
    );

    let out = std::env::temp_dir().join(format!("stagec-reference-{}", std::process::id()));
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args([
            "plan",
            "examples/hpp-seed-fixed/const.yaml",
            "--out",
            &out.to_string_lossy(),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("S3_ACCESS_KEY", "a")
        .env("S3_SECRET_KEY", "b")
        .output()
        .expect("run");
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stdout));
    let generated = as_json(&std::fs::read_to_string(out.join("determined.yaml")).expect("determined.yaml"));
    assert_eq!(errors(&v, &generated), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&out);
}
