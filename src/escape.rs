//! Control characters from input, made visible before text output shows
//! them. A key, a value, a file name, a decorator's `device=` or a probe
//! recording's device name is the author's text: written raw to a terminal,
//! ESC and BEL sequences can erase the diagnostics above them, retitle the
//! window or set the clipboard (OSC 52); a newline in a file name forges a
//! line of `--show-files` or of the concise format; bidirectional overrides
//! reorder what a reviewer reads.
//!
//! Every text output passes the text it did not write itself through
//! [`text`] (many lines) or [`line`] (one line). They write each such
//! character in Rust's escape form: `\r`, `\n` and `\t` for those three and
//! `\u{hex}` for the others (`\u{1b}` for ESC, `\u{7}` for BEL,
//! `\u{202e}` for RIGHT-TO-LEFT OVERRIDE). A backslash itself is left as it
//! is. JSON outputs stay exact: [`json`] writes the same characters as JSON
//! `\u` escapes, which read back as the same strings.

use std::borrow::Cow;

/// Whether output shows `c` escaped: C0 controls (but tab and line feed,
/// which are layout), DEL, C1 controls, the bidirectional formatting
/// characters, and the Unicode line and paragraph separators.
pub fn is_escaped(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Text of many lines as output may show it: line feeds, tabs and the
/// carriage return of a CRLF line end kept, every other character
/// [`is_escaped`] says written as an escape.
pub fn text(s: &str) -> Cow<'_, str> {
    escape_if(s, |c, next| is_escaped(c) && !(c == '\r' && next == Some('\n')))
}

/// Text as one line of output: every character [`is_escaped`] says and
/// line feeds written as escapes.
pub fn line(s: &str) -> Cow<'_, str> {
    escape_if(s, |c, _| c == '\n' || is_escaped(c))
}

/// How `c` is written when escaped.
pub fn escaped(c: char) -> String {
    match c {
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        c => format!("\\u{{{:x}}}", c as u32),
    }
}

/// `s` with the characters `escape` picks (given the character after
/// them) written as escapes.
fn escape_if(s: &str, escape: impl Fn(char, Option<char>) -> bool) -> Cow<'_, str> {
    let picked = |i: usize, c: char| escape(c, s.get(i + c.len_utf8()..).and_then(|r| r.chars().next()));
    if !s.char_indices().any(|(i, c)| picked(i, c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for (i, c) in s.char_indices() {
        if picked(i, c) {
            out.push_str(&escaped(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A JSON document (serde_json's output) with the characters [`is_escaped`]
/// that serde_json writes raw (DEL, C1 controls, bidirectional formatting,
/// line and paragraph separators) written as `\u` escapes: the document
/// reads back the same, and shown on a terminal (`cat report.json`) none of
/// them acts. In JSON such characters only occur inside strings, where a
/// `\u` escape means the character itself.
pub fn json(document: &str) -> Cow<'_, str> {
    if !document.chars().any(is_escaped) {
        return Cow::Borrowed(document);
    }
    let mut out = String::with_capacity(document.len() + 16);
    for c in document.chars() {
        if is_escaped(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_escaped_and_layout_is_kept() {
        assert_eq!(text("a\u{1b}]52;c;ZXZpbA==\u{7}b"), "a\\u{1b}]52;c;ZXZpbA==\\u{7}b");
        assert_eq!(text("one\n\ttwo\rthree\r\n"), "one\n\ttwo\\rthree\r\n");
        assert_eq!(line("a\r\n"), "a\\r\\n");
        assert_eq!(
            text("x\u{7f}\u{9b}\u{202e}\u{2066}\u{2028}y"),
            "x\\u{7f}\\u{9b}\\u{202e}\\u{2066}\\u{2028}y"
        );
        assert_eq!(line("evil\nforged.yaml"), "evil\\nforged.yaml");
        assert!(matches!(text("plain ünïcode \\ text"), Cow::Borrowed(_)));
        assert_eq!(text("\u{0}"), "\\u{0}");
    }

    #[test]
    fn json_escapes_read_back_the_same() {
        let value = serde_json::json!({"m": "a\u{1b}\u{7f}\u{85}\u{202e}\u{2029}b"});
        let document = serde_json::to_string(&value).expect("serializes");
        let escaped = json(&document);
        assert!(!escaped.chars().any(is_escaped), "{escaped}");
        let back: serde_json::Value = serde_json::from_str(&escaped).expect("still JSON");
        assert_eq!(back, value);
    }
}
