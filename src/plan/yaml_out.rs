//! A small, deterministic YAML writer for JSON values: block style, with
//! every string double-quoted (a JSON string is a valid YAML 1.2 scalar), so
//! no value can change type on the way back in (`"yes"`, `"1e-5"`, `":4096:8"`).

use serde_json::Value as Json;

/// Renders a JSON value as a YAML document.
pub fn to_yaml(v: &Json) -> String {
    let mut out = String::new();
    match v {
        Json::Object(map) if !map.is_empty() => emit_map(map, 0, &mut out),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn emit_map(map: &serde_json::Map<String, Json>, indent: usize, out: &mut String) {
    for (k, v) in map {
        out.push_str(&" ".repeat(indent));
        out.push_str(&key(k));
        out.push(':');
        emit_value(v, indent, out);
    }
}

/// Writes what follows `key:` or `- `.
fn emit_value(v: &Json, indent: usize, out: &mut String) {
    match v {
        Json::Object(map) if !map.is_empty() => {
            out.push('\n');
            emit_map(map, indent + 2, out);
        }
        Json::Array(items) if !items.is_empty() => {
            out.push('\n');
            for item in items {
                out.push_str(&" ".repeat(indent + 2));
                out.push('-');
                match item {
                    Json::Object(map) if !map.is_empty() => {
                        // First key on the dash line, the rest aligned under it.
                        let mut first = true;
                        for (k, v) in map {
                            if first {
                                out.push(' ');
                                first = false;
                            } else {
                                out.push_str(&" ".repeat(indent + 4));
                            }
                            out.push_str(&key(k));
                            out.push(':');
                            emit_value(v, indent + 4, out);
                        }
                    }
                    Json::Array(inner) if !inner.is_empty() => {
                        out.push(' ');
                        out.push_str(&serde_json::to_string(item).unwrap_or_else(|_| "[]".into()));
                        out.push('\n');
                    }
                    other => {
                        out.push(' ');
                        out.push_str(&scalar(other));
                        out.push('\n');
                    }
                }
            }
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn scalar(v: &Json) -> String {
    match v {
        Json::Object(_) => "{}".into(),
        Json::Array(_) => "[]".into(),
        other => serde_json::to_string(other).unwrap_or_else(|_| "null".into()),
    }
}

/// A key as written: bare when it can only read back as the same string.
fn key(k: &str) -> String {
    let simple = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
    if simple && matches!(crate::yaml::resolve_plain(k), crate::yaml::Value::Str(_)) {
        k.to_string()
    } else {
        serde_json::to_string(k).unwrap_or_else(|_| "\"\"".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_the_yaml_reader() {
        let v = serde_json::json!({
            "name": "yes",
            "lr": 1e-5,
            "true": ":4096:8",
            "list": ["a", 1, {"k": "v", "n": [1, 2]}, [1, 2], {}],
            "empty": {},
            "nested": {"deep": {"x": null, "y": false}},
            "with space": "line\nbreak \"quoted\" 中文"
        });
        let text = to_yaml(&v);
        let (tree, diags) = crate::yaml::parse(&text, &crate::yaml::Budgets::default());
        assert!(diags.is_empty(), "{diags:?}\n{text}");
        let back = tree.root().and_then(|r| tree.to_json(r, 1000));
        assert_eq!(back.as_ref(), Some(&v), "{text}");
    }
}
