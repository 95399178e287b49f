//! The part of a file one snippet shows: the lines around its labels, with
//! very long lines cut to a window around the label. miette reads a source
//! from its start to find a span's lines and draws a line whole, so handing
//! it the whole file made each diagnostic cost the file's size (a file's
//! thousand diagnostics, a thousand copies of it) and a one-line 8 MB config
//! print 8 MB per diagnostic. An excerpt reports its lines and columns as
//! they are in the file, so the rendering is otherwise the same.
//!
//! The excerpt shows the file's control characters escaped
//! ([`crate::escape`]), its line breaks as they are: an escape is longer
//! than its character, so an excerpt line records where each is and maps
//! offsets and columns across them as it does across a cut.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::source::{LineIndex, Span};

/// Lines of context kept around a label (miette draws one).
const CONTEXT_LINES: usize = 2;

/// A label spanning more lines than this is drawn over its first lines only.
pub(super) const MAX_SPAN_LINES: usize = 100;

/// A line longer than this (in bytes, without its end) is cut.
const LONG_LINE: usize = 1024;

/// Bytes kept of a cut line before the label, and in all.
const KEPT_BEFORE: usize = 120;
const KEPT: usize = 480;

/// Marks where a cut line goes on.
const CUT: &str = "…";

/// A file's text as it may be shown, with its line index (the file's own:
/// masking keeps every offset).
pub(super) struct Lines<'t> {
    text: &'t str,
    index: &'t LineIndex,
}

impl<'t> Lines<'t> {
    pub(super) fn new(text: &'t str, index: &'t LineIndex) -> Lines<'t> {
        Lines { text, index }
    }

    /// The line holding byte `offset` (the last line for offsets past the end).
    pub(super) fn line_of(&self, offset: usize) -> usize {
        self.index.line_of(offset)
    }

    fn count(&self) -> usize {
        self.index.line_count()
    }

    fn start(&self, line: usize) -> usize {
        self.index.line_start(line).unwrap_or(self.text.len())
    }

    /// Where the line ends, its line break included.
    fn end(&self, line: usize) -> usize {
        self.index.line_start(line + 1).unwrap_or(self.text.len())
    }

    /// Where the line's text ends, before its line break.
    fn content_end(&self, line: usize) -> usize {
        self.index.line_span(self.text, line).map_or(self.text.len(), |s| s.end)
    }

    /// The end of the span's drawn part: at most [`MAX_SPAN_LINES`] lines
    /// after its start.
    pub(super) fn clamp_span(&self, span: Span) -> Span {
        let first = self.line_of(span.start);
        let last = self.line_of(span.end.saturating_sub(1).max(span.start));
        if last > first + MAX_SPAN_LINES {
            Span::new(span.start, self.content_end(first + MAX_SPAN_LINES))
        } else {
            span
        }
    }
}

/// One excerpt line: where it is in the excerpt and in the file, for a
/// cut line the part kept, and the escapes shown in it.
struct ExLine {
    at: usize,
    start: usize,
    cut: Option<Cut>,
    escapes: Vec<Escape>,
}

/// A character shown escaped, in columns (bytes from the line's start) of
/// the line as it would be unescaped (`raw`, the cut's marks included) and
/// as shown; `len` is the escape's length and `grown` how much longer the
/// shown line is than the raw one up to the escape's end.
struct Escape {
    raw: usize,
    shown: usize,
    len: usize,
    grown: usize,
}

impl ExLine {
    /// The shown column of raw column `raw`.
    fn shown(&self, raw: usize) -> usize {
        let before = self.escapes.partition_point(|e| e.raw < raw);
        raw + before.checked_sub(1).map_or(0, |i| self.escapes[i].grown)
    }

    /// The raw column of shown column `shown` (an escape's columns are its
    /// character's).
    fn raw(&self, shown: usize) -> usize {
        let at = self.escapes.partition_point(|e| e.shown <= shown);
        match at.checked_sub(1).map(|i| &self.escapes[i]) {
            Some(e) if shown < e.shown + e.len => e.raw,
            Some(e) => shown - e.grown,
            None => shown,
        }
    }
}

/// The kept part `from..to` of a cut line (file offsets) and the length of
/// the mark before it.
struct Cut {
    from: usize,
    to: usize,
    mark: usize,
}

/// The lines a snippet shows, as a miette source.
pub(super) struct Excerpt {
    name: String,
    text: String,
    first_line: usize,
    lines: Vec<ExLine>,
}

impl Excerpt {
    /// The lines around `spans` (file offsets), named `name`.
    pub(super) fn new(name: String, lines: &Lines<'_>, spans: &[Span]) -> Excerpt {
        let first_label = spans.iter().map(|s| lines.line_of(s.start)).min().unwrap_or(0);
        let last_label = spans
            .iter()
            .map(|s| lines.line_of(s.end.saturating_sub(1).max(s.start)))
            .max()
            .unwrap_or(0);
        let first_line = first_label.saturating_sub(CONTEXT_LINES);
        let last_line = (last_label + CONTEXT_LINES).min(lines.count().saturating_sub(1));
        let mut excerpt = Excerpt {
            name,
            text: String::new(),
            first_line,
            lines: Vec::new(),
        };
        for line in first_line..=last_line {
            let (start, end, content_end) = (lines.start(line), lines.end(line), lines.content_end(line));
            let at = excerpt.text.len();
            let mut escapes = Vec::new();
            if content_end - start <= LONG_LINE {
                let content = lines.text.get(start..content_end).unwrap_or("");
                excerpt.push_shown(content, at, 0, &mut escapes);
                excerpt.push_break(lines.text.get(content_end..end).unwrap_or(""));
                excerpt.lines.push(ExLine {
                    at,
                    start,
                    cut: None,
                    escapes,
                });
                continue;
            }
            // The first label on the line, or the line's start for a label
            // that began above it.
            let focus = spans
                .iter()
                .map(|s| s.start)
                .filter(|&s| (start..=content_end).contains(&s))
                .min()
                .unwrap_or(start);
            let from = floor_char(lines.text, focus.saturating_sub(KEPT_BEFORE).max(start));
            let to = floor_char(lines.text, (from + KEPT).min(content_end));
            let mark = if from > start { CUT.len() } else { 0 };
            if mark > 0 {
                excerpt.text.push_str(CUT);
            }
            excerpt.push_shown(lines.text.get(from..to).unwrap_or(""), at, mark, &mut escapes);
            if to < content_end {
                excerpt.text.push_str(CUT);
            }
            excerpt.push_break(lines.text.get(content_end..end).unwrap_or(""));
            excerpt.lines.push(ExLine {
                at,
                start,
                cut: Some(Cut { from, to, mark }),
                escapes,
            });
        }
        excerpt
    }

    /// Appends a line's break: a lone carriage return (a line break to
    /// YAML, Python and miette) as a line feed of the same length, which a
    /// terminal does not read as "back to the line's start" (miette prints
    /// it raw, and the next line's text would hide the line's).
    fn push_break(&mut self, line_break: &str) {
        self.text.push_str(if line_break == "\r" { "\n" } else { line_break });
    }

    /// Appends `text`, a line's content starting at raw column `raw`, to
    /// the line that starts at `at`, its control characters escaped.
    fn push_shown(&mut self, text: &str, at: usize, raw: usize, escapes: &mut Vec<Escape>) {
        let mut grown = escapes.last().map_or(0, |e: &Escape| e.grown);
        let mut plain = 0;
        for (i, c) in text.char_indices() {
            if !crate::escape::is_escaped(c) {
                continue;
            }
            self.text.push_str(text.get(plain..i).unwrap_or(""));
            plain = i + c.len_utf8();
            let shown = crate::escape::escaped(c);
            grown += shown.len() - c.len_utf8();
            escapes.push(Escape {
                raw: raw + i,
                shown: self.text.len() - at,
                len: shown.len(),
                grown,
            });
            self.text.push_str(&shown);
        }
        self.text.push_str(text.get(plain..).unwrap_or(""));
    }

    /// Where file offset `offset` is in the
    /// excerpt; offsets outside it go to its nearest end.
    pub(super) fn map(&self, lines: &Lines<'_>, offset: usize) -> usize {
        let line = lines.line_of(offset);
        let Some(ex) = line.checked_sub(self.first_line).and_then(|i| self.lines.get(i)) else {
            return if line < self.first_line { 0 } else { self.text.len() };
        };
        let raw = match &ex.cut {
            None => offset.saturating_sub(ex.start),
            Some(cut) => cut.mark + (offset.clamp(cut.from, cut.to) - cut.from),
        };
        ex.at + ex.shown(raw)
    }

    /// A span of the file as a span of the excerpt.
    pub(super) fn span(&self, lines: &Lines<'_>, span: Span) -> SourceSpan {
        let start = self.map(lines, span.start);
        let end = self.map(lines, span.end).max(start);
        (start, end - start).into()
    }

    /// The file's column of excerpt byte `column` on excerpt line `line`.
    fn file_column(&self, line: usize, column: usize) -> usize {
        let Some(ex) = self.lines.get(line) else {
            return column;
        };
        let column = ex.raw(column);
        match &ex.cut {
            Some(cut) => (cut.from - ex.start) + column.saturating_sub(cut.mark),
            None => column,
        }
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self
            .text
            .as_str()
            .read_span(span, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            self.file_column(inner.line(), inner.column()),
            inner.line_count() + self.first_line,
        )))
    }
}

/// `at`, or the start of the character it falls in.
fn floor_char(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_maps_offsets_and_reports_file_lines() {
        let text = "a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\n";
        let index = LineIndex::new(text);
        let lines = Lines::new(text, &index);
        let span = Span::new(20, 21); // `e`
        let ex = Excerpt::new("f.yaml".into(), &lines, &[span]);
        assert_eq!(ex.text, "c: 3\nd: 4\ne: 5\nf: 6\ng: 7\n");
        let at = ex.span(&lines, span);
        assert_eq!(&ex.text[at.offset()..at.offset() + at.len()], "e");
        let contents = ex.read_span(&at, 0, 0).expect("in range");
        assert_eq!((contents.line(), contents.column()), (4, 0));
    }

    #[test]
    fn a_long_line_is_cut_around_its_label() {
        let long = format!("x: \"{}${{HERE}}{}\"\n", "a".repeat(5000), "b".repeat(5000));
        let text = format!("first: 1\n{long}last: 2\n");
        let index = LineIndex::new(&text);
        let lines = Lines::new(&text, &index);
        let start = text.find("${HERE}").expect("present");
        let span = Span::new(start, start + 7);
        let ex = Excerpt::new("f.yaml".into(), &lines, &[span]);
        assert!(ex.text.len() < 1000, "{} bytes kept", ex.text.len());
        let at = ex.span(&lines, span);
        assert_eq!(&ex.text[at.offset()..at.offset() + at.len()], "${HERE}");
        let contents = ex.read_span(&at, 0, 0).expect("in range");
        let column = start - text.find("x:").expect("present");
        assert_eq!((contents.line(), contents.column()), (1, column));
        assert!(ex.text.starts_with("first: 1\n…") && ex.text.ends_with("…\nlast: 2\n"));
    }

    #[test]
    fn control_characters_are_shown_escaped_and_labels_still_point_at_their_text() {
        let text = "a: 1\nk\u{1b}[2J\u{7}ey: \u{202e}x${HERE}\u{9b}\nz: 3\r\n";
        let index = LineIndex::new(text);
        let lines = Lines::new(text, &index);
        let start = text.find("${HERE}").expect("present");
        let span = Span::new(start, start + 7);
        let ex = Excerpt::new("f.yaml".into(), &lines, &[span]);
        assert_eq!(ex.text, "a: 1\nk\\u{1b}[2J\\u{7}ey: \\u{202e}x${HERE}\\u{9b}\nz: 3\r\n");
        let at = ex.span(&lines, span);
        assert_eq!(&ex.text[at.offset()..at.offset() + at.len()], "${HERE}");
        let contents = ex.read_span(&at, 0, 0).expect("in range");
        let column = start - text.find('k').expect("present");
        assert_eq!((contents.line(), contents.column()), (1, column));
        // An escaped character's span is its whole escape.
        let esc = Span::new(text.find('\u{1b}').expect("present"), text.find('[').expect("present"));
        let at = ex.span(&lines, esc);
        assert_eq!(&ex.text[at.offset()..at.offset() + at.len()], "\\u{1b}");
    }

    #[test]
    fn a_cut_line_shows_its_control_characters_escaped() {
        let long = format!(
            "x: \"{}\u{1b}]52;c;${{HERE}}\u{7}{}\"\n",
            "a".repeat(3000),
            "b".repeat(3000)
        );
        let index = LineIndex::new(&long);
        let lines = Lines::new(&long, &index);
        let start = long.find("${HERE}").expect("present");
        let span = Span::new(start, start + 7);
        let ex = Excerpt::new("f.yaml".into(), &lines, &[span]);
        assert!(!ex.text.contains('\u{1b}') && !ex.text.contains('\u{7}'), "{}", ex.text);
        assert!(ex.text.contains("\\u{1b}]52;c;${HERE}\\u{7}"), "{}", ex.text);
        let at = ex.span(&lines, span);
        assert_eq!(&ex.text[at.offset()..at.offset() + at.len()], "${HERE}");
        let contents = ex.read_span(&at, 0, 0).expect("in range");
        assert_eq!((contents.line(), contents.column()), (0, start));
    }

    /// Every character of every short text over an alphabet of plain,
    /// escaped, wide and line-break characters: its span in the excerpt is
    /// its shown form, and miette's line and column are the file's.
    #[test]
    fn every_character_maps_to_its_shown_form_and_file_position() {
        let alphabet = ['a', '\u{1b}', '\n', '\r', 'é', '\u{202e}', '\t'];
        let mut text = String::new();
        for n in 0..alphabet.len().pow(5) {
            text.clear();
            let mut k = n;
            for _ in 0..5 {
                text.push(alphabet[k % alphabet.len()]);
                k /= alphabet.len();
            }
            let index = LineIndex::new(&text);
            let lines = Lines::new(&text, &index);
            for (at, c) in text.char_indices() {
                if c == '\n' || c == '\r' {
                    continue;
                }
                let span = Span::new(at, at + c.len_utf8());
                let ex = Excerpt::new("f".into(), &lines, &[span]);
                let s = ex.span(&lines, span);
                let shown = &ex.text[s.offset()..s.offset() + s.len()];
                let expected = if crate::escape::is_escaped(c) {
                    crate::escape::escaped(c)
                } else {
                    c.to_string()
                };
                assert_eq!(shown, expected, "{text:?} at {at}");
                let contents = ex.read_span(&s, 0, 0).expect("in range");
                let line = index.line_of(at);
                let column = at - index.line_start(line).expect("a line");
                assert_eq!((contents.line(), contents.column()), (line, column), "{text:?} at {at}");
            }
        }
    }
}
