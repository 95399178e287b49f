//! Source files, byte spans and line indexes.
//!
//! Every phase of the pipeline speaks in byte ranges into the text it was
//! given. Lines and columns are computed only when a diagnostic is rendered:
//! 1-based lines, columns in Unicode characters for terminals and CI, and
//! UTF-16 code units for editors.

use serde::Serialize;

/// One file as given: the name to report it under and its bytes.
#[derive(Clone, Debug)]
pub struct Input {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The name a file read from `path` goes by in diagnostics and outputs:
/// the path as given, less a leading `./`. A config in the current folder
/// makes the context `.`, and its model is then `model.py`, as the config
/// is `const.yaml`, not `./model.py`.
pub fn display_name(path: &std::path::Path) -> String {
    crate::fsutil::strip_dot(path).display().to_string()
}

/// A half-open byte range `start..end` into one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// An empty span at `offset`.
    pub const fn at(offset: usize) -> Self {
        Span {
            start: offset,
            end: offset,
        }
    }

    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn contains(&self, offset: usize) -> bool {
        self.start <= offset && offset < self.end.max(self.start + 1)
    }
}

/// Where something was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Loc {
    pub file: FileId,
    pub span: Span,
}

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub loc: Loc,
}

/// Identifies one file inside a [`SourceMap`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct FileId(pub u32);

/// One input as the pipeline sees it: the name the user gave and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as given on the command line (or as found relative to it).
    pub name: String,
    /// The text. Bytes that were not UTF-8 have been replaced (and reported).
    pub text: String,
    pub lines: LineIndex,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let lines = LineIndex::new(&text);
        SourceFile {
            name: name.into(),
            text,
            lines,
        }
    }

    /// 1-based line and 1-based column (in Unicode characters) of `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let (line, col) = self.lines.line_col_chars(&self.text, offset);
        (line + 1, col + 1)
    }

    /// The text of a span, clamped to the file and to character boundaries.
    pub fn slice(&self, span: Span) -> &str {
        let start = floor_char_boundary(&self.text, span.start);
        let end = floor_char_boundary(&self.text, span.end.max(start));
        &self.text[start..end]
    }
}

/// All files of one compilation. Diagnostics refer to files by [`FileId`].
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        SourceMap::default()
    }

    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(u32::try_from(self.files.len() - 1).unwrap_or(u32::MAX))
    }

    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn iter(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate().map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Why an input's bytes are not text the pipeline reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeIssue {
    /// More bytes than the budget allows (`len` as read: at most `max + 1`).
    TooLarge { len: usize, max: usize },
    /// A NUL byte at `at`: the file looks binary.
    Nul { at: usize },
    /// Not UTF-8 from byte `at` on.
    NotUtf8 { at: usize },
}

impl DecodeIssue {
    /// Where to point: the first offending byte (as replaced in the text).
    pub fn span(&self) -> Span {
        match *self {
            DecodeIssue::TooLarge { .. } => Span::at(0),
            DecodeIssue::Nul { at } | DecodeIssue::NotUtf8 { at } => Span::new(at, at + '\u{FFFD}'.len_utf8()),
        }
    }
}

/// `bytes` as text, each invalid sequence read as U+FFFD: borrowed when
/// they are valid UTF-8 (checked by the standard library's fast path, not
/// sequence by sequence as `from_utf8_lossy` does).
pub fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Turns raw bytes into text. On a problem the text is a lossy rendering
/// (for snippets) and the problem says why the file is read no further.
pub fn decode(bytes: &[u8], max_bytes: usize) -> (String, Option<DecodeIssue>) {
    if bytes.len() > max_bytes {
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
        return (
            head,
            Some(DecodeIssue::TooLarge {
                len: bytes.len(),
                max: max_bytes,
            }),
        );
    }
    let (valid, valid_up_to) = match std::str::from_utf8(bytes) {
        Ok(text) => (Some(text), bytes.len()),
        Err(e) => (None, e.valid_up_to()),
    };
    let issue = match bytes[..valid_up_to].iter().position(|&b| b == 0) {
        Some(at) => DecodeIssue::Nul { at },
        None => match valid {
            Some(text) => return (text.to_owned(), None),
            None => DecodeIssue::NotUtf8 { at: valid_up_to },
        },
    };
    // Offsets shift under lossy replacement only after the first bad byte,
    // which became one U+FFFD.
    (String::from_utf8_lossy(bytes).replace('\0', "\u{FFFD}"), Some(issue))
}

/// Byte offsets of line starts; lookups by binary search.
///
/// A line ends after `\n`; a `\r` before it belongs to no column a user can
/// point at, so CRLF files get the same columns as LF files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// Column marks inside long lines, sorted by byte: a column is counted
    /// from the nearest mark before it, so a 5 MB one-line file costs no
    /// more per position than a file of short lines.
    marks: Vec<Mark>,
}

/// A character boundary inside a long line, with its column counted in
/// characters and in UTF-16 code units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mark {
    byte: usize,
    chars: usize,
    units: usize,
}

/// Lines longer than this many bytes get a mark every this many bytes.
const MARK_EVERY: usize = 1024;

impl LineIndex {
    /// Lines end at `\n`, `\r\n` or a lone `\r` (YAML's and Python's line
    /// breaks alike).
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, b) in bytes.iter().enumerate() {
            let breaks = *b == b'\n' || (*b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if breaks {
                starts.push(i + 1);
            }
        }
        let mut marks = Vec::new();
        for (line, &start) in starts.iter().enumerate() {
            let end = starts.get(line + 1).copied().unwrap_or(bytes.len());
            if end - start > MARK_EVERY {
                mark_line(text, start, end, &mut marks);
            }
        }
        LineIndex { starts, marks }
    }

    /// The column mark nearest before `offset` on the line starting at
    /// `start`, else the line's start.
    fn mark_before(&self, start: usize, offset: usize) -> Mark {
        let i = self.marks.partition_point(|m| m.byte <= offset);
        match i.checked_sub(1).and_then(|i| self.marks.get(i)) {
            Some(m) if m.byte >= start => *m,
            _ => Mark {
                byte: start,
                chars: 0,
                units: 0,
            },
        }
    }

    /// 0-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        }
    }

    /// How many lines the text has (one more than its line breaks).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte offset where 0-based `line` starts, if it exists.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// Byte range of 0-based `line`, without its line terminator.
    pub fn line_span(&self, text: &str, line: usize) -> Option<Span> {
        let start = *self.starts.get(line)?;
        // The next line's start minus its break: `\n` (after an optional
        // `\r`) or a lone `\r`.
        let mut end = self.starts.get(line + 1).map_or(text.len(), |next| next - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        Some(Span::new(start, end.max(start)))
    }

    /// 0-based line and 0-based column counted in Unicode characters.
    pub fn line_col_chars(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let start = self.starts.get(line).copied().unwrap_or(0).min(offset);
        let m = self.mark_before(start, offset);
        (line, m.chars + text[m.byte..offset].chars().count())
    }

    /// 0-based line and 0-based column counted in UTF-16 code units.
    pub fn line_col_utf16(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let start = self.starts.get(line).copied().unwrap_or(0).min(offset);
        let m = self.mark_before(start, offset);
        (
            line,
            m.units + text[m.byte..offset].chars().map(char::len_utf16).sum::<usize>(),
        )
    }

    /// Byte offset of a 0-based line and a column in UTF-16 code units
    /// (or in bytes when `utf8` is set), clamped to the line.
    pub fn offset_of(&self, text: &str, line: usize, col: usize, utf8: bool) -> usize {
        let Some(span) = self.line_span(text, line) else {
            return text.len();
        };
        if utf8 {
            return floor_char_boundary(text, (span.start + col).min(span.end));
        }
        // Start from the last mark of the line at or before the column.
        let first = self.marks.partition_point(|m| m.byte < span.start);
        let last = self.marks.partition_point(|m| m.byte <= span.end);
        let in_line = self.marks.get(first..last).unwrap_or(&[]);
        let from = match in_line.partition_point(|m| m.units <= col).checked_sub(1) {
            Some(i) => in_line[i],
            None => Mark {
                byte: span.start,
                chars: 0,
                units: 0,
            },
        };
        let mut units = from.units;
        for (i, ch) in text[from.byte..span.end].char_indices() {
            if units >= col {
                return from.byte + i;
            }
            units += ch.len_utf16();
        }
        span.end
    }
}

/// Marks every [`MARK_EVERY`] bytes (on character boundaries) of the line
/// `start..end`.
fn mark_line(text: &str, start: usize, end: usize, marks: &mut Vec<Mark>) {
    let (mut chars, mut units) = (0, 0);
    let mut next = start + MARK_EVERY;
    for (i, ch) in text.get(start..end).unwrap_or("").char_indices() {
        let at = start + i;
        if at >= next {
            marks.push(Mark { byte: at, chars, units });
            next = at + MARK_EVERY;
        }
        chars += 1;
        units += ch.len_utf16();
    }
}

/// The largest char boundary `<= offset` (stable replacement for the nightly API).
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    if offset >= text.len() {
        return text.len();
    }
    let mut i = offset;
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "# 中文注释\nname: é\r\nx: 1\n";
        let idx = LineIndex::new(text);
        let off = text.find('é').unwrap_or(0);
        assert_eq!(idx.line_col_chars(text, off), (1, 6));
        let x = text.find('x').unwrap_or(0);
        assert_eq!(idx.line_col_chars(text, x), (2, 0));
        assert_eq!(idx.line_span(text, 1).map(|s| &text[s.start..s.end]), Some("name: é"));
        let end = text.find('\n').unwrap_or(0);
        assert_eq!(idx.line_col_utf16(text, end), (0, 6));
        assert_eq!(idx.offset_of(text, 0, 3, false), "# 中".len());
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        let text = "a: 1\rb: 2\r\nc: 3\nd";
        let idx = LineIndex::new(text);
        let d = text.find('d').unwrap_or(0);
        assert_eq!(idx.line_col_chars(text, d), (3, 0));
        let b = text.find('b').unwrap_or(0);
        assert_eq!(idx.line_col_chars(text, b), (1, 0));
        assert_eq!(idx.line_span(text, 0).map(|s| &text[s.start..s.end]), Some("a: 1"));
        assert_eq!(idx.line_span(text, 1).map(|s| &text[s.start..s.end]), Some("b: 2"));
    }

    #[test]
    fn long_lines_count_columns_from_marks_as_from_the_line_start() {
        // Lines of several KiB with 2-, 3- and 4-byte characters, CRLF
        // and lone CR breaks: every position agrees with a count from the
        // line's start, both ways.
        let mut text = String::new();
        for i in 0..5000 {
            text.push(['a', 'é', '秘', '😀'][i % 4]);
            if i % 1700 == 1699 {
                text.push_str(if i % 2 == 0 { "\r\n" } else { "\r" });
            }
        }
        let index = LineIndex::new(&text);
        assert!(!index.marks.is_empty());
        for (offset, _) in text.char_indices().step_by(7) {
            let line = index.line_of(offset);
            let start = index.line_start(line).unwrap_or(0);
            let chars = text[start..offset].chars().count();
            let units: usize = text[start..offset].chars().map(char::len_utf16).sum();
            assert_eq!(index.line_col_chars(&text, offset), (line, chars), "{offset}");
            assert_eq!(index.line_col_utf16(&text, offset), (line, units), "{offset}");
            assert_eq!(index.offset_of(&text, line, units, false), offset, "{offset}");
        }
    }
}
