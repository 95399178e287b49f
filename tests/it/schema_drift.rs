//! The committed JSON Schemas equal what the Rust types generate. When this
//! fails, run `cargo run -- schema` and commit the result.

#[test]
fn committed_schemas_are_up_to_date() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    for (name, generated) in stagec::schemas::all() {
        let committed = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert!(
            committed == generated,
            "schemas/{name} is stale: run `cargo run -- schema` and commit it"
        );
    }
}

#[test]
fn embedded_schema_is_the_generated_one() {
    let generated = stagec::schemas::all();
    let experiment = generated
        .iter()
        .find(|(n, _)| *n == "experiment.schema.json")
        .map(|(_, t)| t.as_str());
    assert_eq!(experiment, Some(stagec::schema::EXPERIMENT_SCHEMA));
}

#[test]
fn every_property_has_a_description() {
    let schema: serde_json::Value =
        serde_json::from_str(stagec::schema::EXPERIMENT_SCHEMA).expect("the committed experiment schema is JSON");
    assert!(schema.get("properties").is_some(), "the schema has properties");
    let mut missing = Vec::new();
    walk(&schema, "#", &mut missing);
    assert!(missing.is_empty(), "properties without a description: {missing:#?}");
}

fn walk(v: &serde_json::Value, at: &str, missing: &mut Vec<String>) {
    if let Some(props) = v.get("properties").and_then(|p| p.as_object()) {
        for (k, p) in props {
            let described =
                p.get("description").is_some() || p.get("$ref").is_some() || p == &serde_json::Value::Bool(false);
            if !described {
                missing.push(format!("{at}/{k}"));
            }
        }
    }
    match v {
        serde_json::Value::Object(o) => {
            for (k, c) in o {
                walk(c, &format!("{at}/{k}"), missing);
            }
        }
        serde_json::Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                walk(c, &format!("{at}/{i}"), missing);
            }
        }
        _ => {}
    }
}

#[test]
fn settings_schema_is_generated_and_described() {
    let generated = stagec::schemas::all();
    let text = generated
        .iter()
        .find(|(n, _)| *n == "stagec-settings.schema.json")
        .map(|(_, t)| t.as_str())
        .expect("the settings schema is one of the generated schemas");
    let schema: serde_json::Value = serde_json::from_str(text).expect("the settings schema is JSON");
    assert_eq!(schema["additionalProperties"], serde_json::Value::Bool(false));
    let mut missing = Vec::new();
    walk(&schema, "#", &mut missing);
    assert!(missing.is_empty(), "settings without a description: {missing:#?}");
    let keys: Vec<&str> = schema["properties"]
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for key in [
        "select",
        "ignore",
        "extend-select",
        "per-file-ignores",
        "inventory",
        "min-severity",
    ] {
        assert!(keys.contains(&key), "the settings schema lacks `{key}`");
    }
}
