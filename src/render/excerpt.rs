//! The part of a file one snippet shows: the lines around its labels, with
//! very long lines cut to a window around the label. miette reads a source
//! from its start to find a span's lines and draws a line whole, so handing
//! it the whole file made each diagnostic cost the file's size (a file's
//! thousand diagnostics, a thousand copies of it) and a one-line 8 MB config
//! print 8 MB per diagnostic. An excerpt reports its lines and columns as
//! they are in the file, so the rendering is otherwise the same.

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

/// One excerpt line: where it is in the excerpt and in the file, and for a
/// cut line, the part kept.
struct ExLine {
    at: usize,
    start: usize,
    cut: Option<Cut>,
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
            if content_end - start <= LONG_LINE {
                excerpt.text.push_str(lines.text.get(start..end).unwrap_or(""));
                excerpt.lines.push(ExLine { at, start, cut: None });
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
            excerpt.text.push_str(lines.text.get(from..to).unwrap_or(""));
            if to < content_end {
                excerpt.text.push_str(CUT);
            }
            excerpt.text.push_str(lines.text.get(content_end..end).unwrap_or(""));
            excerpt.lines.push(ExLine {
                at,
                start,
                cut: Some(Cut { from, to, mark }),
            });
        }
        excerpt
    }

    /// Where file offset `offset` is in the
    /// excerpt; offsets outside it go to its nearest end.
    pub(super) fn map(&self, lines: &Lines<'_>, offset: usize) -> usize {
        let line = lines.line_of(offset);
        let Some(ex) = line.checked_sub(self.first_line).and_then(|i| self.lines.get(i)) else {
            return if line < self.first_line { 0 } else { self.text.len() };
        };
        match &ex.cut {
            None => ex.at + (offset - ex.start),
            Some(cut) => ex.at + cut.mark + (offset.clamp(cut.from, cut.to) - cut.from),
        }
    }

    /// A span of the file as a span of the excerpt.
    pub(super) fn span(&self, lines: &Lines<'_>, span: Span) -> SourceSpan {
        let start = self.map(lines, span.start);
        let end = self.map(lines, span.end).max(start);
        (start, end - start).into()
    }

    /// The file's column of excerpt byte `column` on excerpt line `line`.
    fn file_column(&self, line: usize, column: usize) -> usize {
        match self.lines.get(line).and_then(|l| l.cut.as_ref().map(|c| (l.start, c))) {
            Some((start, cut)) => (cut.from - start) + column.saturating_sub(cut.mark),
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
}
