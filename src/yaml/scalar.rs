//! Plain-scalar resolution, two ways:
//!
//! - [`resolve_plain`]: the YAML 1.2 core schema, as ruamel.yaml (Determined's
//!   CLI) applies it: `true`/`True`/`TRUE` are booleans but `yes`/`on` are
//!   strings, `1e-5` is a float, `0o17` and `0x1F` are integers, `~` and
//!   `null` are null, and `_` separators inside numbers are allowed.
//! - [`resolve_master`]: YAML 1.1 as gopkg.in/yaml.v2 v2.4.0 (Determined's
//!   master) applies it: `y`, `yes`, `on` (and their capitalised forms) are
//!   booleans, `0777` is octal, every `_` is dropped before reading a number,
//!   and a float beyond 64 bits stays a string.

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

/// The value Determined's master gives an untagged plain scalar
/// (yaml.v2's `resolve`): its YAML 1.1 words first, then by the first
/// character: a number if Go's parsers take it, else a string. Integers
/// beyond 64 bits are kept as written ([`Value::BigInt`]), as in
/// [`resolve_plain`]; the JSON conversion rounds them.
pub fn resolve_master(s: &str) -> Value {
    resolve_master_non_string(s).unwrap_or_else(|| Value::Str(s.to_string()))
}

/// The null, boolean or number Determined's master makes of an untagged
/// plain scalar; `None` when it is a string.
pub fn resolve_master_non_string(s: &str) -> Option<Value> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Some(Value::Bool(true))
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Some(Value::Bool(false))
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(Value::Float(f64::INFINITY)),
        "-.inf" | "-.Inf" | "-.INF" => return Some(Value::Float(f64::NEG_INFINITY)),
        ".nan" | ".NaN" | ".NAN" => return Some(Value::Float(f64::NAN)),
        _ => {}
    }
    match s.as_bytes().first()? {
        // Go's ParseFloat, which takes no `_` here.
        b'.' => go_style_float(s).map(Value::Float),
        b'0'..=b'9' | b'+' | b'-' => {
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if let Some(v) = go_parse_int(&plain) {
                return Some(v);
            }
            // A decimal integer beyond 64 bits: the master reads a float,
            // kept here as written (the JSON conversion rounds it).
            let digits = plain.trim_start_matches(['+', '-']);
            // (A leading `0` would make it octal: not one of these.)
            if plain.len() - digits.len() <= 1
                && !digits.starts_with('0')
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
            {
                return Some(Value::BigInt(plain.trim_start_matches('+').to_string()));
            }
            go_style_float(&plain).map(Value::Float)
        }
        _ => None,
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint(s, 0, 64)`: an
/// optional sign (none for the unsigned reading), a `0x`, `0o`, `0b` or bare
/// `0` (octal) prefix in either case. Values beyond `i64` within `u64` are
/// kept as written.
fn go_parse_int(s: &str) -> Option<Value> {
    let (neg, signed, body) = match s.as_bytes().first()? {
        b'-' => (true, true, &s[1..]),
        b'+' => (false, true, &s[1..]),
        _ => (false, false, s),
    };
    let lower = body.get(..2).map(str::to_ascii_lowercase);
    let (radix, digits) = match lower.as_deref() {
        Some("0x") => (16, &body[2..]),
        Some("0o") => (8, &body[2..]),
        Some("0b") => (2, &body[2..]),
        _ if body.len() > 1 && body.starts_with('0') => (8, &body[1..]),
        _ => (10, body),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if neg {
        let v = i128::try_from(magnitude).ok().map(|m| -m)?;
        i64::try_from(v).ok().map(Value::Int)
    } else if let Ok(v) = i64::try_from(magnitude) {
        Some(Value::Int(v))
    } else if !signed && u64::try_from(magnitude).is_ok() {
        Some(Value::BigInt(magnitude.to_string()))
    } else {
        None
    }
}

/// yaml.v2's float pattern `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
/// read by Go's `ParseFloat`, which refuses what overflows 64 bits.
fn go_style_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return None;
        }
    } else {
        if digits(&mut i) == 0 {
            return None;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// The JSON key ghodss/yaml makes of a resolved key, as Determined's master
/// converts a config: integers in decimal, floats in Go's shortest `%g` of
/// the 32-bit value, booleans as `true`/`false`. `None` for the keys it
/// refuses (null, an integer beyond `i64`).
pub fn master_key_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Bool(b) => Some(b.to_string()),
        Value::Int(i) => Some(i.to_string()),
        // Within `u64` yaml.v2 gives a uint64, which ghodss refuses; beyond
        // it, a float.
        Value::BigInt(s) => match s.parse::<u64>() {
            Ok(_) => None,
            Err(_) => s.parse::<f64>().ok().map(go_float32_g),
        },
        Value::Float(f) => Some(go_float32_g(*f)),
        Value::Str(s) => Some(s.clone()),
        Value::Seq(_) | Value::Map(_) | Value::Alias(_) => None,
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest digits of the
/// 32-bit value, in exponent form when the exponent is below -4 or at
/// least 6 (the exponent with a sign and two digits at least); ghodss
/// writes infinities and NaN as `.inf`, `-.inf` and `.nan`.
fn go_float32_g(f: f64) -> String {
    let f = f as f32;
    // ghodss spells these the YAML way.
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf".into() } else { "-.inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rust's `{:e}` gives the shortest round-tripping digits: `1.2345679e8`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{dot}e{esign}{:02}", exp.abs());
    }
    let point = exp + 1;
    let text = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (a, b) = digits.split_at(point as usize);
        format!("{a}.{b}")
    };
    format!("{sign}{text}")
}

/// Whether two readings of a scalar give the same JSON value (an integer
/// and a float of the same value do: the master writes both as a number).
pub fn same_reading(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => *i as f64 == *f,
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
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

    /// yaml.v2 v2.4.0's `resolve` for untagged plain scalars.
    #[test]
    fn yaml_1_1_as_the_master_reads_it() {
        for w in ["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"] {
            assert_eq!(resolve_master(w), Value::Bool(true), "{w}");
        }
        for w in [
            "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE",
        ] {
            assert_eq!(resolve_master(w), Value::Bool(false), "{w}");
        }
        for w in [
            "yEs",
            "tRue",
            "nUll",
            ".Nan",
            ".infinity",
            "1:30",
            "190:20:30",
            "2001-12-14",
            "0x",
            "1e400",
            "-1e400",
            "_1",
        ] {
            assert_eq!(resolve_master(w), Value::Str(w.into()), "{w}");
        }
        for (w, v) in [
            ("0777", 511),
            ("0o777", 511),
            ("0O17", 15),
            ("0x1F", 31),
            ("0X1F", 31),
            ("0b101", 5),
            ("-0b101", -5),
            ("+1", 1),
            ("1_000", 1000),
            ("0_7", 7),
            ("-0", 0),
            ("-9223372036854775808", i64::MIN),
        ] {
            assert_eq!(resolve_master(w), Value::Int(v), "{w}");
        }
        for (w, v) in [
            ("08", 8.0),
            ("1e5", 1e5),
            ("1.", 1.0),
            (".5", 0.5),
            ("+.5", 0.5),
            ("1_0.5", 10.5),
            ("1_000.5e1_0", 1.0005e13),
        ] {
            assert_eq!(resolve_master(w), Value::Float(v), "{w}");
        }
        assert_eq!(
            resolve_master("18446744073709551615"),
            Value::BigInt("18446744073709551615".into())
        );
        // Beyond u64 the master reads a float; kept as written.
        assert_eq!(
            resolve_master("18446744073709551616"),
            Value::BigInt("18446744073709551616".into())
        );
        assert_eq!(
            resolve_master("-9223372036854775809"),
            Value::BigInt("-9223372036854775809".into())
        );
        assert_eq!(
            resolve_master("0xFFFFFFFFFFFFFFFFFF"),
            Value::Str("0xFFFFFFFFFFFFFFFFFF".into())
        );
        assert!(matches!(resolve_master(".NaN"), Value::Float(f) if f.is_nan()));
        assert_eq!(resolve_master("-.INF"), Value::Float(f64::NEG_INFINITY));
        assert_eq!(resolve_master("~"), Value::Null);
        assert_eq!(resolve_master("<<"), Value::Str("<<".into()));
    }

    #[test]
    fn keys_as_ghodss_writes_them() {
        let key = |s: &str| master_key_text(&resolve_master(s));
        assert_eq!(key("on").as_deref(), Some("true"));
        assert_eq!(key("n").as_deref(), Some("false"));
        assert_eq!(key("0777").as_deref(), Some("511"));
        assert_eq!(key("1e3").as_deref(), Some("1000"));
        assert_eq!(key("1.5").as_deref(), Some("1.5"));
        assert_eq!(key("123456789.5").as_deref(), Some("1.2345679e+08"));
        assert_eq!(key("0.00001").as_deref(), Some("1e-05"));
        assert_eq!(key("0.0001").as_deref(), Some("0.0001"));
        assert_eq!(key("100000.0").as_deref(), Some("100000"));
        assert_eq!(key("1000000.0").as_deref(), Some("1e+06"));
        assert_eq!(key(".inf").as_deref(), Some(".inf"));
        assert_eq!(key("-.inf").as_deref(), Some("-.inf"));
        assert_eq!(key("~"), None);
        assert_eq!(key("18446744073709551615"), None);
        assert_eq!(key("name").as_deref(), Some("name"));
    }
}
