//! Credentials: which keys and variables hold secrets, whose values must
//! never reach stagec's output (messages, snippets, plans, editor text),
//! and where they are written in a document.

use crate::source::Span;
use crate::yaml::{NodeId, Tree, Value};

/// Whether a variable or field name holds a credential, whose literal value
/// must never be copied into stagec's outputs.
pub fn is_credential_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "secret",
        "password",
        "passwd",
        "token",
        "auth",
        "credential",
        "access_key",
        "api_key",
        "apikey",
        "private_key",
        "connection_string",
        "account_key",
    ]
    .iter()
    .any(|w| n.contains(w))
        || n.ends_with("_key")
        || n == "key"
}

/// Credential words a misspelled key is compared with (`pasword`,
/// `secert`, `tokn`).
const WORDS: [&str; 6] = ["password", "passwd", "secret", "token", "credential", "credentials"];

/// Whether a key names a credential, or nearly does: a misspelled
/// credential key (`pasword: hunter2`) is still a credential, and is still
/// shown in a snippet next to the error about its spelling.
pub fn looks_like_credential(name: &str) -> bool {
    if is_credential_name(name) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    lower.split(['_', '-', '.']).any(|part| {
        WORDS.iter().any(|w| {
            let limit = if w.len() >= 8 { 2 } else { 1 };
            // Only words of about the same length, starting alike, can be
            // that close: most keys are ruled out without a distance.
            part.len().abs_diff(w.len()) <= limit
                && part.len() >= 5
                && part.as_bytes().first() == w.as_bytes().first()
                && strsim::osa_distance(part, w) <= limit
        })
    })
}

/// The byte spans of credential values in a YAML document, computed once
/// from its tree: the value of every credential-like key in any mapping
/// (anchored ones included, so what an alias or a `<<` merge copies is
/// covered where it is written), every scalar below such a key, and the
/// value part of `NAME=value` strings whose name is a credential (the list
/// form of `environment_variables`). `${VAR}` references are not secrets and
/// stay visible. Sorted, without overlaps.
pub fn spans(tree: &Tree, text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    for i in 0..tree.len() {
        let id = NodeId(i as u32);
        match &tree.node(id).value {
            Value::Map(entries) => {
                for e in entries {
                    if looks_like_credential(&tree.key_text(e.key)) {
                        secret_values(tree, text, e.value, &mut out, 0);
                    }
                }
            }
            Value::Str(s) => {
                if let Some((name, value)) = s.split_once('=') {
                    let name = name.trim();
                    let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                    if plain && is_credential_name(name) && !value.trim_start().starts_with("${") {
                        out.push(env_value_span(tree.span(id), text, value));
                    }
                }
            }
            _ => {}
        }
    }
    out.retain(|s| !s.is_empty());
    out.sort();
    out.dedup();
    out
}

/// Every scalar at or below `id` (following aliases to what they name).
fn secret_values(tree: &Tree, text: &str, id: NodeId, out: &mut Vec<Span>, depth: usize) {
    if depth > 64 {
        return;
    }
    let target = tree.resolve(id);
    match &tree.node(target).value {
        Value::Map(entries) => {
            for e in entries {
                secret_values(tree, text, e.value, out, depth + 1);
            }
        }
        Value::Seq(items) => {
            for &item in items {
                secret_values(tree, text, item, out, depth + 1);
            }
        }
        Value::Null => {}
        Value::Str(s) if s.trim_start().starts_with("${") => {}
        _ => out.push(scalar_body(tree.span(target), text)),
    }
}

/// A scalar token without its quotes or its block indicator line, so the
/// mask keeps the token's shape.
fn scalar_body(span: Span, text: &str) -> Span {
    let token = text.get(span.start..span.end).unwrap_or("");
    let bytes = token.as_bytes();
    match bytes.first() {
        Some(b'"' | b'\'') if bytes.len() >= 2 && bytes.last() == bytes.first() => {
            Span::new(span.start + 1, span.end - 1)
        }
        // `>` / `|` block scalars: the lines after the indicator.
        Some(b'>' | b'|') => match token.find('\n') {
            Some(nl) => Span::new(span.start + nl + 1, span.end),
            None => span,
        },
        _ => span,
    }
}

/// The value part of a `NAME=value` scalar, when it is written out in the
/// token; otherwise the whole token.
fn env_value_span(token: Span, text: &str, value: &str) -> Span {
    let written = text.get(token.start..token.end).unwrap_or("");
    match written.find('=') {
        Some(eq) if written.get(eq + 1..).is_some_and(|rest| rest.contains(value.trim())) => {
            let start = token.start + eq + 1;
            let end = scalar_body(token, text).end.max(start);
            Span::new(start, end)
        }
        _ => scalar_body(token, text),
    }
}

/// `text` with every byte of `spans` replaced by `*`, line breaks kept, so
/// every offset into the text stays valid.
pub fn mask(text: &str, spans: &[Span]) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        let end = span.end.min(bytes.len());
        for b in bytes.get_mut(span.start.min(end)..end).into_iter().flatten() {
            if *b != b'\n' && *b != b'\r' {
                *b = b'*';
            }
        }
    }
    // Whole characters were replaced byte by byte with ASCII, and line
    // breaks are ASCII: the result is UTF-8 whenever the spans fall on
    // character boundaries, which the tree's spans do.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names() {
        for n in [
            "secret_key",
            "S3_SECRET_KEY",
            "WANDB_API_KEY",
            "password",
            "HF_TOKEN",
            "access_key",
            "connection_string",
        ] {
            assert!(is_credential_name(n), "{n}");
        }
        for n in ["bucket", "PYTHONHASHSEED", "endpoint_url", "monkey_patch"] {
            assert!(!is_credential_name(n), "{n}");
        }
    }

    fn masked(text: &str) -> String {
        let (tree, _) = crate::yaml::parse(text, &Default::default());
        mask(text, &spans(&tree, text))
    }

    #[test]
    fn every_form_of_a_credential_is_masked() {
        for (text, secret) in [
            (
                "checkpoint_storage: {type: s3, bucket: b, secret_key: hunter2, access_key: 5}\n",
                "hunter2",
            ),
            ("checkpoint_storage:\n  secret_key: >\n    hunter2\n", "hunter2"),
            (
                "checkpoint_storage:\n  secret_key: |\n    hunter2\n    more\n",
                "hunter2",
            ),
            ("s:\n  password: \"hunter2\"\n", "hunter2"),
            ("s:\n  token: 'hunter2'\n", "hunter2"),
            ("base: &b hunter2\ns:\n  password: *b\n", "hunter2"),
            (
                "creds: &c {secret_key: hunter2}\ncheckpoint_storage:\n  <<: *c\n",
                "hunter2",
            ),
            ("s:\n  pasword: hunter2\n", "hunter2"),
            (
                "e:\n  - AWS_SECRET_ACCESS_KEY=hunter2\n  - \"HF_TOKEN=hunter2\"\n",
                "hunter2",
            ),
            ("s:\n  password:\n    - hunter2\n", "hunter2"),
            ("s:\n  password: 秘密秘密\n", "秘密"),
        ] {
            let out = masked(text);
            assert_eq!(out.len(), text.len(), "{text:?}");
            assert!(!out.contains(secret), "{text:?} → {out:?}");
        }
    }

    #[test]
    fn references_and_other_values_stay() {
        let text = "checkpoint_storage:\n  secret_key: ${S3_SECRET_KEY}\n  bucket: b\n  keyword: x\ne:\n  - PYTHONHASHSEED=0\n  - HF_TOKEN=${HF_TOKEN}\n";
        assert_eq!(masked(text), text);
        for name in ["pasword", "secert", "Credentails", "db_passwrd"] {
            assert!(looks_like_credential(name), "{name}");
        }
        for name in ["bucket", "passes", "keyword", "sectors", "tokens_per_batch"] {
            assert!(!looks_like_credential(name) || name.contains("token"), "{name}");
        }
    }
}
