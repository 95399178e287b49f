//! Inline suppression: `# stagec: ignore[CODE, ...]` at the end of a
//! diagnostic's line, or on a comment line of its own just above it,
//! silences that diagnostic.

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, SourceFile};

const MARKER: &str = "stagec: ignore[";

/// Codes suppressed per 0-based line of a file.
fn suppressions(file: &SourceFile) -> Vec<(usize, bool, Vec<String>)> {
    let mut out = Vec::new();
    let lines = (0..).map_while(|n| file.lines.line_span(&file.text, n).map(|span| (n, span)));
    for (line_no, span) in lines {
        let line = &file.text[span.start..span.end];
        let Some(at) = line.find(MARKER) else { continue };
        // It must sit in a comment: a `#` before it, at line start or after
        // white space.
        let before = &line[..at];
        let Some(hash) = before.rfind('#') else { continue };
        if hash > 0 && !before[..hash].ends_with([' ', '\t']) {
            continue;
        }
        let rest = &line[at + MARKER.len()..];
        let Some(close) = rest.find(']') else { continue };
        let codes = rest[..close]
            .split(',')
            .map(|c| c.trim().to_ascii_uppercase())
            .filter(|c| !c.is_empty())
            .collect();
        // A comment on a line of its own covers the next line; a trailing
        // comment covers only its own line.
        let own_line = line[..hash].trim().is_empty();
        out.push((line_no, own_line, codes));
    }
    out
}

/// Drops the diagnostics of `file` that a comment suppresses.
pub fn apply(file_id: FileId, file: &SourceFile, diags: &mut Vec<Diagnostic>) {
    if !file.text.contains(MARKER) {
        return;
    }
    let rules = suppressions(file);
    diags.retain(|d| {
        if d.file != file_id {
            return true;
        }
        let line = file.lines.line_of(d.span.start);
        !rules.iter().any(|(l, own_line, codes)| {
            (*l == line || (*own_line && *l + 1 == line)) && codes.iter().any(|c| c == d.code)
        })
    });
}
