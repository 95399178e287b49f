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
    pub problem: Malformed,
    pub range: std::ops::Range<usize>,
}

/// What is wrong with a reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Malformed {
    /// `${` without a closing `}`.
    Unclosed,
    /// `${}`.
    EmptyName,
    /// A name that is not a variable name (as written).
    InvalidName(String),
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
                problem: Malformed::Unclosed,
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
            let problem = if name.is_empty() {
                Malformed::EmptyName
            } else {
                Malformed::InvalidName(name.to_string())
            };
            errors.push(VarError {
                problem,
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

/// A `${…}` reference or a malformed one, located in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarSite {
    Reference { span: Span, reference: VarRef },
    Malformed { span: Span, problem: Malformed },
}

/// Every reference and malformed reference in the string values of a tree
/// (keys excluded), once per node as written, in node order.
pub fn sites(tree: &crate::yaml::Tree, text: &str) -> Vec<VarSite> {
    use crate::yaml::{NodeId, Value};
    let mut is_key = vec![false; tree.len()];
    for i in 0..tree.len() {
        for e in tree.entries_raw(NodeId(i as u32)) {
            if let Some(slot) = is_key.get_mut(e.key.0 as usize) {
                *slot = true;
            }
        }
    }
    let mut out = Vec::new();
    for (i, key) in is_key.iter().enumerate() {
        if *key {
            continue;
        }
        let node = tree.node(NodeId(i as u32));
        let Value::Str(s) = &node.value else { continue };
        if !s.contains("${") {
            continue;
        }
        let token = text.get(node.span.start..node.span.end).unwrap_or("");
        let (refs, errors) = scan(s);
        for e in errors {
            out.push(VarSite::Malformed {
                span: source_span(token, node.span, s, &e.range),
                problem: e.problem,
            });
        }
        for r in refs {
            out.push(VarSite::Reference {
                span: source_span(token, node.span, s, &r.range),
                reference: r,
            });
        }
    }
    out
}
