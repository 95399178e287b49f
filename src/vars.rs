//! `${VAR}` / `${VAR:-default}` references inside string values.

use crate::source::Span;

/// One reference found in a string, with its byte range in that string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarRef {
    pub name: String,
    pub default: Option<String>,
    pub range: std::ops::Range<usize>,
}

/// A malformed reference: what is wrong and where, in the string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarError {
    pub message: String,
    pub range: std::ops::Range<usize>,
}

/// Scans a string for references. `$${` is an escaped literal `${`.
pub fn scan(s: &str) -> (Vec<VarRef>, Vec<VarError>) {
    let bytes = s.as_bytes();
    let mut refs = Vec::new();
    let mut errors = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'$' && bytes[i + 1] == b'$' {
            i += 2;
            continue;
        }
        if !(bytes[i] == b'$' && bytes[i + 1] == b'{') {
            i += 1;
            continue;
        }
        let start = i;
        let Some(close) = s[i + 2..].find('}').map(|c| i + 2 + c) else {
            errors.push(VarError {
                message: "`${` is never closed with `}`".into(),
                range: start..s.len(),
            });
            break;
        };
        let inner = &s[i + 2..close];
        let (name, default) = match inner.find(":-") {
            Some(d) => (&inner[..d], Some(inner[d + 2..].to_string())),
            None => (inner, None),
        };
        if is_valid_name(name) {
            refs.push(VarRef {
                name: name.to_string(),
                default,
                range: start..close + 1,
            });
        } else {
            let message = if name.is_empty() {
                "empty variable name in `${}`".to_string()
            } else {
                format!("`{name}` is not a valid variable name (letters, digits and `_`, not starting with a digit)")
            };
            errors.push(VarError {
                message,
                range: start..close + 1,
            });
        }
        i = close + 1;
    }
    (refs, errors)
}

fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Maps a range inside a scalar's value to the source, when the value
/// appears verbatim in the scalar's token; otherwise the whole token.
pub fn source_span(token_text: &str, token: Span, value: &str, range: &std::ops::Range<usize>) -> Span {
    let Some(piece) = value.get(range.clone()) else {
        return token;
    };
    match token_text.find(piece) {
        Some(at) => Span::new(token.start + at, token.start + at + piece.len()),
        None => token,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_references_and_errors() {
        let (refs, errs) = scan("s3://${BUCKET}/${PREFIX:-runs}/$${LITERAL}");
        assert_eq!(
            refs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            ["BUCKET", "PREFIX"]
        );
        assert_eq!(refs[1].default.as_deref(), Some("runs"));
        assert!(errs.is_empty());
        let (_, errs) = scan("${1BAD} ${OPEN");
        assert_eq!(errs.len(), 2);
        assert_eq!(errs[0].range, 0..7);
    }
}
