//! Plain-scalar resolution by the YAML 1.2 core schema, as ruamel.yaml
//! applies it: `true`/`True`/`TRUE` are booleans but `yes`/`on` are strings,
//! `1e-5` is a float, `0o17` and `0x1F` are integers, `~` and `null` are
//! null, and `_` separators inside numbers are allowed.

use super::Value;

/// Resolves the text of an untagged plain scalar.
pub fn resolve_plain(s: &str) -> Value {
    resolve_non_string(s).unwrap_or_else(|| Value::Str(s.to_string()))
}

/// The null, boolean or number an untagged plain scalar stands for; `None`
/// when it is a string.
pub fn resolve_non_string(s: &str) -> Option<Value> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(Value::Float(f64::INFINITY)),
        "-.inf" | "-.Inf" | "-.INF" => return Some(Value::Float(f64::NEG_INFINITY)),
        ".nan" | ".NaN" | ".NAN" => return Some(Value::Float(f64::NAN)),
        _ => {}
    }
    // Only text that starts like a number can be one.
    if s.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) {
        if let Some(v) = resolve_int(s) {
            return Some(v);
        }
        if let Some(f) = resolve_float(s) {
            return Some(Value::Float(f));
        }
    }
    None
}

/// Integers: decimal, `0o` octal, `0x` hex, `0b` binary, optional sign and
/// `_` separators (never first after the prefix).
pub fn resolve_int(s: &str) -> Option<Value> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = body.strip_prefix("0b") {
        (2, d)
    } else {
        (10, body)
    };
    if digits.is_empty() || digits.starts_with('_') || !digits.chars().all(|c| c == '_' || c.is_digit(radix)) {
        return None;
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() {
        return None;
    }
    match i128::from_str_radix(&clean, radix) {
        Ok(v) => {
            let v = if neg { -v } else { v };
            Some(i64::try_from(v).map_or_else(|_| Value::BigInt(v.to_string()), Value::Int))
        }
        Err(_) => Some(Value::BigInt(format!("{}{}", if neg { "-" } else { "" }, clean))),
    }
}

/// Floats: `1.5`, `1.`, `.5`, `1e-5`, `1.5E+3`, with optional sign.
pub fn resolve_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let int_start = i;
    while i < b.len() && (b[i].is_ascii_digit() || (b[i] == b'_' && i > int_start)) {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    let mut has_dot = false;
    if i < b.len() && b[i] == b'.' {
        has_dot = true;
        i += 1;
        let f = i;
        while i < b.len() && (b[i].is_ascii_digit() || (b[i] == b'_' && i > f)) {
            i += 1;
        }
        frac_digits = i - f;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    let mut has_exp = false;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        has_exp = true;
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let e = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == e {
            return None;
        }
    }
    if i != b.len() || !(has_dot || has_exp) {
        return None;
    }
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    clean.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_1_2_core_schema() {
        assert_eq!(resolve_plain("1e-5"), Value::Float(1e-5));
        assert_eq!(resolve_plain("3e10"), Value::Float(3e10));
        assert_eq!(resolve_plain("1.5"), Value::Float(1.5));
        assert_eq!(resolve_plain(".5"), Value::Float(0.5));
        assert_eq!(resolve_plain("yes"), Value::Str("yes".into()));
        assert_eq!(resolve_plain("on"), Value::Str("on".into()));
        assert_eq!(resolve_plain("True"), Value::Bool(true));
        assert_eq!(resolve_plain("~"), Value::Null);
        assert_eq!(resolve_plain("0o17"), Value::Int(15));
        assert_eq!(resolve_plain("0x1F"), Value::Int(31));
        assert_eq!(resolve_plain("-42"), Value::Int(-42));
        assert_eq!(resolve_plain("1_000"), Value::Int(1000));
        assert_eq!(resolve_plain("12:30"), Value::Str("12:30".into()));
        assert_eq!(resolve_plain("1e"), Value::Str("1e".into()));
        assert_eq!(resolve_plain("."), Value::Str(".".into()));
        assert_eq!(resolve_plain("-"), Value::Str("-".into()));
        assert_eq!(
            resolve_plain("99999999999999999999"),
            Value::BigInt("99999999999999999999".into())
        );
        assert!(matches!(resolve_plain(".nan"), Value::Float(f) if f.is_nan()));
    }
}
