//! The one place where stagec's plain data meets LSP types: byte spans ↔
//! positions (UTF-16 or UTF-8 columns, CRLF), diagnostics, fixes, hover,
//! completion items, outline symbols and file URIs.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types as lsp;
use stagec::diagnostic::{Diagnostic, Severity};
use stagec::ide;
use stagec::source::{floor_char_boundary, FileId, SourceFile, SourceMap, Span};

/// How columns are counted, as negotiated at initialization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// UTF-8 when the client offers it, else UTF-16 (the LSP default).
pub fn negotiate(caps: &lsp::ClientCapabilities) -> Encoding {
    let offered = caps
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .is_some_and(|kinds| kinds.contains(&lsp::PositionEncodingKind::UTF8));
    if offered {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    }
}

pub fn encoding_kind(enc: Encoding) -> lsp::PositionEncodingKind {
    match enc {
        Encoding::Utf8 => lsp::PositionEncodingKind::UTF8,
        Encoding::Utf16 => lsp::PositionEncodingKind::UTF16,
    }
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The position of a byte offset.
pub fn position(file: &SourceFile, offset: usize, enc: Encoding) -> lsp::Position {
    let text = file.text.as_str();
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let (line, col) = match enc {
        Encoding::Utf16 => file.lines.line_col_utf16(text, offset),
        Encoding::Utf8 => {
            let line = file.lines.line_of(offset);
            let start = file.lines.line_start(line).unwrap_or(0).min(offset);
            (line, offset - start)
        }
    };
    lsp::Position::new(u32_of(line), u32_of(col))
}

/// The byte offset of a position, clamped to its line and to the text.
pub fn offset(file: &SourceFile, pos: lsp::Position, enc: Encoding) -> usize {
    file.lines.offset_of(
        &file.text,
        pos.line as usize,
        pos.character as usize,
        enc == Encoding::Utf8,
    )
}

pub fn range(file: &SourceFile, span: Span, enc: Encoding) -> lsp::Range {
    lsp::Range::new(
        position(file, span.start, enc),
        position(file, span.end.max(span.start), enc),
    )
}

pub fn span(file: &SourceFile, range: lsp::Range, enc: Encoding) -> Span {
    let start = offset(file, range.start, enc);
    let end = offset(file, range.end, enc);
    Span::new(start.min(end), end.max(start))
}

pub fn severity(s: Severity) -> lsp::DiagnosticSeverity {
    match s {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Info => lsp::DiagnosticSeverity::INFORMATION,
    }
}

/// The rule's documentation page under `base` (`<base><name>.md`, as
/// `docs/rules/` names its pages; default [`stagec::rules::DOCS_BASE`]).
pub fn rule_url(code: &str, base: Option<&str>) -> Option<lsp::Uri> {
    let rule = stagec::rules::lookup(code)?;
    lsp::Uri::from_str(&stagec::rules::docs_url(rule, base)).ok()
}

/// Converts a stagec diagnostic. `uri_of` names the files of `sources`;
/// labels in files without a URI are left out. `docs`: the base URL
/// `codeDescription.href` links under, `None` when the client shows no such
/// links.
pub fn diagnostic(
    d: &Diagnostic,
    sources: &SourceMap,
    uri_of: &dyn Fn(FileId) -> Option<lsp::Uri>,
    enc: Encoding,
    docs: Option<&str>,
) -> Option<lsp::Diagnostic> {
    let file = sources.get(d.file)?;
    let here = range(file, d.span, enc);
    let mut related = Vec::new();
    for label in &d.labels {
        let (Some(f), Some(uri)) = (sources.get(label.file), uri_of(label.file)) else {
            continue;
        };
        related.push(lsp::DiagnosticRelatedInformation {
            location: lsp::Location::new(uri, range(f, label.span, enc)),
            message: label.message.clone(),
        });
    }
    if let (Some(help), Some(uri)) = (&d.help, uri_of(d.file)) {
        related.push(lsp::DiagnosticRelatedInformation {
            location: lsp::Location::new(uri, here),
            message: format!("help: {help}"),
        });
    }
    Some(lsp::Diagnostic {
        range: here,
        severity: Some(severity(d.severity)),
        code: Some(lsp::NumberOrString::String(d.code.to_string())),
        code_description: docs
            .and_then(|base| rule_url(d.code, Some(base)))
            .map(|href| lsp::CodeDescription { href }),
        source: Some("stagec".into()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    })
}

/// The diagnostic's fix as a quick fix, when it has one whose files all
/// have URIs.
pub fn fix_action(
    d: &Diagnostic,
    lsp_diag: &lsp::Diagnostic,
    sources: &SourceMap,
    uri_of: &dyn Fn(FileId) -> Option<lsp::Uri>,
    enc: Encoding,
) -> Option<lsp::CodeAction> {
    let fix = d.fix.as_ref()?;
    let mut changes: std::collections::HashMap<lsp::Uri, Vec<lsp::TextEdit>> = std::collections::HashMap::new();
    for edit in &fix.edits {
        let file = sources.get(edit.file)?;
        let uri = uri_of(edit.file)?;
        changes.entry(uri).or_default().push(lsp::TextEdit::new(
            range(file, edit.span, enc),
            edit.replacement.clone(),
        ));
    }
    Some(lsp::CodeAction {
        title: fix.title.clone(),
        kind: Some(lsp::CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![lsp_diag.clone()]),
        edit: Some(lsp::WorkspaceEdit {
            changes: Some(changes),
            document_changes: None,
            change_annotations: None,
        }),
        command: None,
        is_preferred: Some(true),
        disabled: None,
        data: None,
    })
}

pub fn hover(h: &ide::Hover, file: &SourceFile, enc: Encoding) -> lsp::Hover {
    lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent {
            kind: lsp::MarkupKind::Markdown,
            value: h.markdown.clone(),
        }),
        range: Some(range(file, h.span, enc)),
    }
}

pub fn completion(items: &[ide::Completion], file: &SourceFile, enc: Encoding) -> Vec<lsp::CompletionItem> {
    items
        .iter()
        .enumerate()
        .map(|(i, c)| lsp::CompletionItem {
            label: c.label.clone(),
            kind: Some(match c.kind {
                ide::CompletionKind::Key => lsp::CompletionItemKind::PROPERTY,
                ide::CompletionKind::Value => lsp::CompletionItemKind::ENUM_MEMBER,
                ide::CompletionKind::Gpu => lsp::CompletionItemKind::VALUE,
                ide::CompletionKind::Dtype => lsp::CompletionItemKind::CONSTANT,
            }),
            detail: c.detail.clone(),
            documentation: c.documentation.as_ref().map(|d| {
                lsp::Documentation::MarkupContent(lsp::MarkupContent {
                    kind: lsp::MarkupKind::Markdown,
                    value: d.clone(),
                })
            }),
            // Keep the order the library chose.
            sort_text: Some(format!("{i:05}")),
            filter_text: Some(c.label.clone()),
            text_edit: Some(lsp::CompletionTextEdit::Edit(lsp::TextEdit::new(
                range(file, c.replace, enc),
                c.insert_text.clone(),
            ))),
            ..Default::default()
        })
        .collect()
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written out.
pub fn symbols(symbols: &[ide::Symbol], file: &SourceFile, enc: Encoding) -> Vec<lsp::DocumentSymbol> {
    symbols
        .iter()
        .map(|s| lsp::DocumentSymbol {
            name: s.name.clone(),
            detail: s.detail.clone(),
            kind: match s.kind {
                ide::SymbolKind::Object => lsp::SymbolKind::OBJECT,
                ide::SymbolKind::Array => lsp::SymbolKind::ARRAY,
                ide::SymbolKind::String => lsp::SymbolKind::STRING,
                ide::SymbolKind::Number => lsp::SymbolKind::NUMBER,
                ide::SymbolKind::Boolean => lsp::SymbolKind::BOOLEAN,
                ide::SymbolKind::Null => lsp::SymbolKind::NULL,
            },
            tags: None,
            deprecated: None,
            range: range(file, s.span, enc),
            selection_range: range(file, s.selection, enc),
            children: (!s.children.is_empty()).then(|| self::symbols(&s.children, file, enc)),
        })
        .collect()
}

/// The local path of a `file:` URI (percent-decoded).
pub fn uri_to_path(uri: &lsp::Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://host/path`: only local files (empty host or localhost).
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = percent_decode(rest)?;
    // `/C:/dir` on Windows.
    let bytes = decoded.as_bytes();
    if cfg!(windows) && bytes.len() > 2 && bytes[2] == b':' {
        return Some(PathBuf::from(&decoded[1..]));
    }
    Some(PathBuf::from(decoded))
}

/// A `file:` URI for a path.
pub fn path_to_uri(path: &Path) -> Option<lsp::Uri> {
    let mut s = String::from("file://");
    let text = path.to_string_lossy().replace('\\', "/");
    if !text.starts_with('/') {
        s.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~:".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    lsp::Uri::from_str(&s).ok()
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_in_both_encodings() {
        let text = "# 中文注释 😀\r\nname: é\r\nx: 1\n";
        let file = SourceFile::new("a.yaml", text);
        let e = text.find('é').unwrap_or(0);
        assert_eq!(position(&file, e, Encoding::Utf16), lsp::Position::new(1, 6));
        assert_eq!(position(&file, e, Encoding::Utf8), lsp::Position::new(1, 6));
        let after_emoji = text.find('\r').unwrap_or(0);
        // 中文注释 is 4 units, the emoji 2 in UTF-16 and 4 bytes in UTF-8.
        assert_eq!(position(&file, after_emoji, Encoding::Utf16), lsp::Position::new(0, 9));
        assert_eq!(position(&file, after_emoji, Encoding::Utf8), lsp::Position::new(0, 19));
        for enc in [Encoding::Utf8, Encoding::Utf16] {
            for (i, _) in text.char_indices() {
                let p = position(&file, i, enc);
                if text[i..].starts_with('\r') || text[i..].starts_with('\n') {
                    continue;
                }
                assert_eq!(offset(&file, p, enc), i, "{enc:?} {i}");
            }
        }
        // Past the end of a line clamps to the line's end (before CR).
        assert_eq!(
            offset(&file, lsp::Position::new(1, 99), Encoding::Utf16),
            text.find("\r\nx").unwrap_or(0)
        );
        assert_eq!(offset(&file, lsp::Position::new(99, 0), Encoding::Utf16), text.len());
    }

    #[test]
    fn uris() {
        let p = Path::new("/tmp/hpp seed/中文/const.yaml");
        let uri = path_to_uri(p);
        assert!(uri.is_some());
        assert_eq!(uri.as_ref().and_then(uri_to_path), Some(p.to_path_buf()));
        let u = lsp::Uri::from_str("untitled:Untitled-1").ok();
        assert_eq!(u.as_ref().and_then(uri_to_path), None);
    }
}
