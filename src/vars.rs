//! `${VAR}` / `${VAR:-default}` references inside string values.

use crate::source::Span;

/// How the environment is seen: `${VAR}` lookups. The core never reads the
/// process environment itself.
pub type EnvLookup<'a> = &'a (dyn Fn(&str) -> Option<String> + Sync);

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

/// Source spans of a value's pieces (a range inside a scalar's value maps to
/// the source where the piece appears verbatim in the scalar's token;
/// otherwise to the whole token), taken in the order they are written:
/// each is looked for after the previous one, so a repeated reference gets
/// its own place and a value with many references is read once.
struct Spans<'t> {
    token_text: &'t str,
    token: Span,
    from: usize,
}

impl<'t> Spans<'t> {
    fn new(token_text: &'t str, token: Span) -> Spans<'t> {
        Spans {
            token_text,
            token,
            from: 0,
        }
    }

    fn of(&mut self, value: &str, range: &std::ops::Range<usize>) -> Span {
        let Some(piece) = value.get(range.clone()) else {
            return self.token;
        };
        let found = self
            .token_text
            .get(self.from..)
            .and_then(|rest| rest.find(piece))
            .map(|at| self.from + at);
        match found {
            Some(at) => {
                self.from = at + piece.len();
                Span::new(self.token.start + at, self.token.start + at + piece.len())
            }
            None => self.token,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_reference_is_located_where_each_is_written() {
        let text = "a: \"${A} x ${A} ${1B} ${A}\"\n";
        let (tree, _) = crate::yaml::parse_with(text, &crate::yaml::Budgets::default(), crate::yaml::Schema::Core);
        let found: Vec<&str> = sites(&tree, text)
            .iter()
            .map(|s| match s {
                VarSite::Reference { span, .. } | VarSite::Malformed { span, .. } => &text[span.start..span.end],
            })
            .collect();
        assert_eq!(found, ["${1B}", "${A}", "${A}", "${A}"]);
        let starts: Vec<usize> = sites(&tree, text)
            .iter()
            .map(|s| match s {
                VarSite::Reference { span, .. } | VarSite::Malformed { span, .. } => span.start,
            })
            .collect();
        assert_eq!(starts, [16, 4, 11, 22]);
    }

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
        // Located in the order written (the scanner reports errors and
        // references apart); listed errors first, as always.
        let mut starts: Vec<(usize, bool, usize)> = errors
            .iter()
            .enumerate()
            .map(|(i, e)| (e.range.start, false, i))
            .chain(refs.iter().enumerate().map(|(i, r)| (r.range.start, true, i)))
            .collect();
        starts.sort_unstable();
        let mut spans = Spans::new(token, node.span);
        let mut error_spans = vec![node.span; errors.len()];
        let mut ref_spans = vec![node.span; refs.len()];
        for (_, is_ref, i) in starts {
            let (range, slot) = if is_ref {
                (refs.get(i).map(|r| &r.range), ref_spans.get_mut(i))
            } else {
                (errors.get(i).map(|e| &e.range), error_spans.get_mut(i))
            };
            if let (Some(range), Some(slot)) = (range, slot) {
                *slot = spans.of(s, range);
            }
        }
        for (e, span) in errors.into_iter().zip(error_spans) {
            out.push(VarSite::Malformed {
                span,
                problem: e.problem,
            });
        }
        for (r, span) in refs.into_iter().zip(ref_spans) {
            out.push(VarSite::Reference { span, reference: r });
        }
    }
    out
}
