//! A small, deterministic YAML writer for JSON values: block style, with
//! every string double-quoted, so no value can change type on the way back
//! in (`"yes"`, `"1e-5"`, `":4096:8"`). What it writes reads the same to
//! YAML 1.1 readers (Determined's master, gopkg.in/yaml.v2) and YAML 1.2
//! readers (its CLI, ruamel.yaml): keys stay bare only when both read them
//! as the same string (`on`, `n`, `y` are booleans to YAML 1.1), and
//! quoted text escapes every character either reads as a line break or
//! refuses (U+0085, U+2028, U+2029, control characters, DEL, C1 controls,
//! U+FEFF, U+FFFE, U+FFFF).

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
                        flow(item, out, 0);
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

/// A nested list in flow style (`[1, "a", {"k": "v"}]`), its strings
/// quoted as everywhere else.
fn flow(v: &Json, out: &mut String, depth: usize) {
    match v {
        Json::Array(items) if depth < 256 => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow(item, out, depth + 1);
            }
            out.push(']');
        }
        Json::Object(map) if depth < 256 => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&quoted(k));
                out.push_str(": ");
                flow(item, out, depth + 1);
            }
            out.push('}');
        }
        other => out.push_str(&scalar(other)),
    }
}

fn scalar(v: &Json) -> String {
    match v {
        Json::Object(_) => "{}".into(),
        Json::Array(_) => "[]".into(),
        Json::String(s) => quoted(s),
        other => serde_json::to_string(other).unwrap_or_else(|_| "null".into()),
    }
}

/// A key as written: bare when it can only read back as the same string,
/// to YAML 1.2 and to YAML 1.1 readers alike.
fn key(k: &str) -> String {
    let simple = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
    let string_to_both = matches!(crate::yaml::resolve_plain(k), crate::yaml::Value::Str(_))
        && matches!(crate::yaml::resolve_master(k), crate::yaml::Value::Str(_));
    if simple && string_to_both {
        k.to_string()
    } else {
        quoted(k)
    }
}

/// `s` as a double-quoted scalar both YAML versions read back as `s`: the
/// escapes used are common to YAML 1.1 and 1.2, and every character
/// outside YAML 1.1's printable set, or a line break to it (U+0085, U+2028,
/// U+2029), is escaped.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            ' '..='~' => out.push(c),
            c if printable_to_both(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02X}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Whether a non-ASCII character may be written as itself: YAML 1.1's
/// printable set (`#xA0-#xD7FF`, `#xE000-#xFFFD`, `#x10000-#x10FFFF`),
/// without the byte-order mark, which some readers drop.
fn printable_to_both(c: char) -> bool {
    let u = c as u32;
    ((0xA0..=0xD7FF).contains(&u) || (0xE000..=0xFFFD).contains(&u) || u >= 0x10000) && u != 0xFEFF
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

    #[test]
    fn reads_alike_to_yaml_1_1_and_1_2_readers() {
        let mut hp = serde_json::Map::new();
        for k in [
            "on", "off", "n", "y", "Y", "yes", "NO", "true", "null", "~", "1e3", "0x10", "1_000", "12:30", "0777",
            "<<", "=", ".inf", "-", "a b",
        ] {
            hp.insert(k.into(), Json::String(k.into()));
        }
        hp.insert(
            "sep".into(),
            Json::String("a\u{2028}b\u{2029}c\u{85}d\u{7f}e\u{feff}f\u{1b}g\u{9f}h".into()),
        );
        hp.insert(
            "nested".into(),
            serde_json::json!([[1, "on", "\u{2028}"], {"y": ["n"]}]),
        );
        hp.insert(
            "numbers".into(),
            serde_json::json!([1e-5, 1e21, 0.1, -3, 9007199254740993u64]),
        );
        let v = serde_json::json!({ "hyperparameters": hp });
        let text = to_yaml(&v);
        assert!(
            !text.contains(['\u{2028}', '\u{2029}', '\u{85}', '\u{7f}', '\u{feff}', '\u{1b}', '\u{9f}']),
            "{text}"
        );
        for schema in [crate::yaml::Schema::Core, crate::yaml::Schema::Master] {
            let (tree, issues) = crate::yaml::parse_with(&text, &crate::yaml::Budgets::default(), schema);
            assert!(issues.is_empty(), "{schema:?}: {issues:?}\n{text}");
            let back = tree.root().and_then(|r| tree.to_json(r, 1000));
            let back_hp = back.as_ref().map(|b| b["hyperparameters"].clone());
            // The master reads numbers as floats: compare its strings only.
            for (k, want) in hp.iter().filter(|(_, w)| w.is_string()) {
                assert_eq!(back_hp.as_ref().map(|h| &h[k]), Some(want), "{schema:?} `{k}`\n{text}");
            }
            if schema == crate::yaml::Schema::Core {
                assert_eq!(back.as_ref(), Some(&v), "{text}");
            }
        }
    }
}
