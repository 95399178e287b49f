//! Repairs of quoted scalars saphyr refuses but Determined's readers take
//! (continuation lines indented less than the key, `\u` escapes of
//! surrogate pairs): the scalar rewritten in a copy of the text, and the
//! table that maps the copy's offsets back to the text as written.

use super::*;

/// Most quoted scalars repaired in one document (each costs a parse).
pub(super) const MAX_REPAIRS: usize = 16;

/// Repairs to quoted scalars, in the original text's offsets.
#[derive(Default)]
pub(super) struct Repairs {
    /// (start, end, replacement): sorted, disjoint.
    pub(super) edits: Vec<(usize, usize, String)>,
    /// The opening quotes of the scalars repaired.
    pub(super) quotes: Vec<usize>,
    pub(super) issues: Vec<YamlIssue>,
}

/// For each edit: (start, end) in the repaired text, (start, end) in the
/// original.
pub(super) type OffsetTable = Vec<(usize, usize, usize, usize)>;

impl Repairs {
    /// The repaired text and the table mapping it back.
    pub(super) fn apply<'t>(&self, text: &'t str) -> (std::borrow::Cow<'t, str>, OffsetTable) {
        if self.edits.is_empty() {
            return (std::borrow::Cow::Borrowed(text), Vec::new());
        }
        let mut out = String::with_capacity(text.len() + 64);
        let mut table = Vec::with_capacity(self.edits.len());
        let mut at = 0;
        for (start, end, replacement) in &self.edits {
            out.push_str(text.get(at..*start).unwrap_or(""));
            let rs = out.len();
            out.push_str(replacement);
            table.push((rs, out.len(), *start, *end));
            at = *end;
        }
        out.push_str(text.get(at..).unwrap_or(""));
        (std::borrow::Cow::Owned(out), table)
    }

    /// Repairs the quoted scalar opening at `quote`: indents continuation
    /// lines that are not indented past its key, and rewrites `\u` escapes
    /// of surrogates. Whether anything was repaired.
    pub(super) fn add_quoted(&mut self, text: &str, quote: usize, schema: Schema) -> bool {
        let bytes = text.as_bytes();
        let q = match bytes.get(quote) {
            Some(&c @ (b'"' | b'\'')) => c,
            _ => return false,
        };
        if self.quotes.contains(&quote) {
            return false;
        }
        let line_start = text[..quote].rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let key_col = key_column(&bytes[line_start..quote + 1]);
        let mut edits: Vec<(usize, usize, String)> = Vec::new();
        let mut issues = Vec::new();
        let mut under = 0usize;
        let mut first_under: Option<Span> = None;
        let mut i = quote + 1;
        let mut closed = false;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' if q == b'"' => {
                    let (len, code) = escape_at(bytes, i);
                    if let Some(code) = code.filter(|c| (0xD800..=0xDFFF).contains(c)) {
                        // A high surrogate followed by a low one is a pair.
                        let next = escape_at(bytes, i + len);
                        let low = next
                            .1
                            .filter(|c| (0xDC00..=0xDFFF).contains(c) && (0xD800..=0xDBFF).contains(&code));
                        let (end, pair) = match low {
                            Some(low) => {
                                let c = char::from_u32(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00));
                                (i + len + next.0, c)
                            }
                            None => (i + len, None),
                        };
                        let replacement = match pair {
                            Some(c) => format!("\\U{:08X}", c as u32),
                            None => "\\uFFFD".to_string(),
                        };
                        if pair.is_none() || schema == Schema::Master {
                            issues.push(YamlIssue::SurrogateEscape {
                                at: Span::new(i, end),
                                pair,
                            });
                        }
                        edits.push((i, end, replacement));
                        i = end;
                    } else {
                        i += len.max(1);
                    }
                }
                c if c == q => {
                    if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    closed = true;
                    break;
                }
                b'\n' | b'\r' => {
                    i += if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                        2
                    } else {
                        1
                    };
                    let start = i;
                    while bytes.get(i) == Some(&b' ') {
                        i += 1;
                    }
                    let indent = i - start;
                    let blank = matches!(bytes.get(i), None | Some(b'\n' | b'\r' | b'\t'));
                    // YAML 1.2 wants continuation lines indented past the key.
                    if blank || indent > key_col {
                        continue;
                    }
                    if indent == 0 && (bytes[i..].starts_with(b"---") || bytes[i..].starts_with(b"...")) {
                        // A document marker ends the scalar for every reader.
                        return false;
                    }
                    under += 1;
                    if first_under.is_none() {
                        let end = text[i..].find(['\n', '\r']).map_or(text.len(), |e| i + e);
                        first_under = Some(Span::new(i, end.max(i + 1).min(text.len())));
                    }
                    edits.push((start, start, " ".repeat(key_col + 1 - indent)));
                }
                _ => i += 1,
            }
        }
        if !closed || edits.is_empty() {
            return false;
        }
        if let Some(at) = first_under {
            issues.insert(0, YamlIssue::UnderIndented { at, lines: under });
        }
        self.quotes.push(quote);
        self.issues.extend(issues);
        self.edits.extend(edits);
        self.edits.sort_by_key(|e| (e.0, e.1));
        true
    }
}

/// The column of the key a quoted scalar belongs to, from the bytes of its
/// line up to the opening quote: the first thing that is not a `- ` of a
/// sequence entry (the last entry's dash when the scalar is the entry).
fn key_column(line: &[u8]) -> usize {
    let mut i = 0;
    while line.get(i) == Some(&b' ') {
        i += 1;
    }
    let mut dash = i;
    while line.get(i) == Some(&b'-') && matches!(line.get(i + 1), Some(b' ' | b'\t')) {
        dash = i;
        i += 1;
        while matches!(line.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
    }
    if i + 1 == line.len() {
        // The scalar itself: the entry's dash sets the indentation.
        dash
    } else {
        i
    }
}

/// The escape sequence at `i` (a backslash): its length and, for `\x`,
/// `\u` and `\U`, the code it writes.
fn escape_at(bytes: &[u8], i: usize) -> (usize, Option<u32>) {
    if bytes.get(i) != Some(&b'\\') {
        return (0, None);
    }
    let digits = match bytes.get(i + 1) {
        Some(b'x') => 2,
        Some(b'u') => 4,
        Some(b'U') => 8,
        Some(_) => return (2, None),
        None => return (1, None),
    };
    let hex = bytes.get(i + 2..i + 2 + digits);
    let code = hex
        .and_then(|h| std::str::from_utf8(h).ok())
        .and_then(|h| u32::from_str_radix(h, 16).ok());
    match code {
        Some(code) => (2 + digits, Some(code)),
        None => (2, None),
    }
}

/// An offset in the repaired text as an offset in the original.
pub(super) fn to_original(table: &OffsetTable, at: usize) -> usize {
    let i = table.partition_point(|e| e.0 <= at);
    match i.checked_sub(1).and_then(|i| table.get(i)) {
        None => at,
        Some(&(_, re, os, oe)) => {
            if at < re {
                os
            } else {
                at - re + oe
            }
        }
    }
}
