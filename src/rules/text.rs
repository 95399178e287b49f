//! Phrases the rules' messages share: how a path, a value, a list of names
//! or a count reads in a message. Each rule's own wording stays in its file.

use serde_json::Value as Json;

use crate::yaml::{display_path, PathSeg};

/// `` `resources.slots_per_trial` `` in backticks, or "the experiment".
pub fn subject(path: &[PathSeg]) -> String {
    if path.is_empty() {
        "the experiment".into()
    } else {
        format!("`{}`", display_path(path))
    }
}

/// "s" unless `n` is 1.
pub fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `` `a`, `b`, `c` ``.
pub fn backticked(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// "did you mean `a` or `b`?" for a list of suggestions; `None` when empty.
pub fn did_you_mean<S: AsRef<str>>(suggestions: &[S]) -> Option<String> {
    if suggestions.is_empty() {
        return None;
    }
    let quoted: Vec<String> = suggestions.iter().map(|s| format!("`{}`", s.as_ref())).collect();
    Some(format!("did you mean {}?", quoted.join(" or ")))
}

/// "node `a`", "nodes `a` and `b`", "nodes `a`, `b`, `c` and 4 more": at
/// most `max` names, each once, in order.
pub fn list_names(names: &[&str], max: usize) -> String {
    let mut unique: Vec<&str> = Vec::new();
    for n in names {
        if !unique.contains(n) {
            unique.push(n);
        }
    }
    let shown: Vec<String> = unique.iter().take(max).map(|n| format!("`{}`", truncate(n))).collect();
    let rest = unique.len().saturating_sub(max);
    let noun = if unique.len() == 1 { "node" } else { "nodes" };
    let listed = match (shown.split_last(), rest) {
        (None, _) => String::new(),
        (Some((last, [])), 0) => last.clone(),
        (Some((last, init)), 0) => format!("{} and {last}", init.join(", ")),
        (Some(_), rest) => format!("{} and {rest} more", shown.join(", ")),
    };
    format!("{noun} {listed}")
}

/// "0, 1, 2 and 5 more": at most eight numbers.
pub fn numbers(values: &[i64]) -> String {
    let shown: Vec<String> = values.iter().take(8).map(i64::to_string).collect();
    let more = if values.len() > 8 {
        format!(" and {} more", values.len() - 8)
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(", "))
}

/// The JSON type name as a message says it: "an integer", "a mapping".
pub fn json_type_phrase(t: &str) -> &'static str {
    match t {
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "boolean" => "a boolean",
        "array" => "a list",
        "object" => "a mapping",
        "null" => "null",
        _ => "another type",
    }
}

/// "a string", "an integer": a value's kind without its text.
pub fn json_kind(v: &Json) -> &'static str {
    match v {
        Json::Object(_) => "a mapping",
        Json::Array(_) => "a list",
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
    }
}

/// "a string `\"eight\"`", "a mapping", "an integer `3`".
pub fn describe(v: &Json) -> String {
    match v {
        Json::Object(_) => "a mapping".into(),
        Json::Array(_) => "a list".into(),
        Json::Null => "null".into(),
        Json::Bool(b) => format!("a boolean `{b}`"),
        Json::Number(n) if n.is_i64() || n.is_u64() => format!("an integer `{n}`"),
        Json::Number(n) => format!("a number `{n}`"),
        Json::String(s) => format!("a string `{}`", truncate(s)),
    }
}

/// A value in backticks (collections described instead).
pub fn short(v: &Json) -> String {
    match v {
        Json::String(s) => format!("`{}`", truncate(s)),
        Json::Object(_) | Json::Array(_) => describe(v),
        other => format!("`{other}`"),
    }
}

/// A value bare: strings without quotes, others as JSON; long ones cut.
pub fn plain(v: &Json) -> String {
    match v {
        Json::String(s) => truncate(s),
        Json::Null => "null".into(),
        other => truncate(&other.to_string()),
    }
}

/// At most 60 characters.
pub fn truncate(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(57).collect::<String>())
    }
}

/// Whether the value at `path` is a credential (`secret_key`, `password`,
/// …), whose text must not appear in messages or CI logs.
pub fn holds_secret(path: &[PathSeg]) -> bool {
    path.iter().rev().find_map(|s| match s {
        PathSeg::Key(k) => Some(crate::secrets::is_credential_name(k)),
        PathSeg::Index(_) => None,
    }) == Some(true)
}

/// A float as a message shows it: integral values without a fraction,
/// large ones in scientific notation.
pub fn number(v: f64) -> String {
    if v >= 1e6 {
        format!("{v:.3e}")
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// `86.0M`, `1.3B`: a count with a suffix.
pub fn count(n: u64) -> String {
    match n {
        n if n >= 1_000_000_000 => format!("{:.1}B", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1}K", n as f64 / 1e3),
        n => n.to_string(),
    }
}

/// A JSON value as a message shows it: strings bare, others as JSON.
pub fn show(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Longest message kept whole: a message that quotes a huge value written
/// in the input is cut (at a character boundary) with an ellipsis.
pub const MAX_MESSAGE: usize = 1024;

/// `message`, cut to [`MAX_MESSAGE`] bytes.
pub fn bounded(mut message: String) -> String {
    if message.len() > MAX_MESSAGE {
        let cut = crate::source::floor_char_boundary(&message, MAX_MESSAGE - 3);
        message.truncate(cut);
        message.push('…');
    }
    message
}
