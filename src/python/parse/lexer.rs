//! A byte-level lexer for the chunks [`super::parse_chunk`] accepts: it
//! gives up (`None`) on anything unusual rather than guess.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum K {
    Name,
    Num,
    Str,
    Op,
    /// End of a logical line; `x`: the end of a comment after it on the
    /// same line (0: none).
    Newline,
    Indent,
    /// A block closes; `x`: the end of the last comment line it holds (0:
    /// none).
    Dedent,
    Eof,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Tok {
    pub k: K,
    pub s: u32,
    pub e: u32,
    pub x: u32,
}

/// The tokens of `text[start..end]`, and the ranges of the expressions of
/// the f-strings' interpolations. `nested`: lex as inside brackets (an
/// interpolation), with no lines or indentation.
/// Tokens and the byte ranges of the f-strings' interpolated expressions.
pub(super) type Lexed = (Vec<Tok>, Vec<(usize, usize)>);

pub(super) fn lex(text: &str, start: usize, end: usize, nested: bool) -> Option<Lexed> {
    let b = text.as_bytes().get(..end)?;
    if end > u32::MAX as usize || start > end {
        return None;
    }
    let mut l = Lexer {
        b,
        i: start,
        toks: Vec::with_capacity((end - start) / 3 + 4),
        interps: Vec::new(),
        depth: usize::from(nested),
    };
    l.run(nested)?;
    Some((l.toks, l.interps))
}

struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
    toks: Vec<Tok>,
    interps: Vec<(usize, usize)>,
    depth: usize,
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

const OPS3: [&[u8]; 5] = [b"**=", b"//=", b">>=", b"<<=", b"..."];
const OPS2: [&[u8]; 20] = [
    b"->", b":=", b"==", b"!=", b"<=", b">=", b"**", b"//", b"<<", b">>", b"+=", b"-=", b"*=", b"/=", b"%=", b"&=",
    b"|=", b"^=", b"@=", b"<>",
];
const OPS1: &[u8] = b"+-*/%@&|^~<>()[]{},:;.=";

#[cfg(test)]
#[test]
fn every_longer_operator_has_a_listed_second_byte() {
    for op in OPS3.iter().chain(OPS2.iter()) {
        assert!(matches!(op[1], b'=' | b'>' | b'*' | b'/' | b'<' | b'.'), "{op:?}");
    }
}

impl Lexer<'_> {
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn push(&mut self, k: K, s: usize, e: usize, x: usize) {
        self.toks.push(Tok {
            k,
            s: s as u32,
            e: e as u32,
            x: x as u32,
        });
    }

    fn run(&mut self, nested: bool) -> Option<()> {
        let n = self.b.len();
        let mut indents: Vec<usize> = vec![0];
        let mut first = true;
        let mut line_comment = 0usize;
        let mut at_line_start = !nested;
        loop {
            if at_line_start {
                at_line_start = false;
                // Blank and comment lines up to the next line of code.
                let mut comments: Vec<(usize, usize)> = Vec::new();
                let indent;
                loop {
                    let mut j = self.i;
                    while j < n && self.b.get(j) == Some(&b' ') {
                        j += 1;
                    }
                    match self.b.get(j) {
                        None => {
                            self.i = j;
                            indent = None;
                            break;
                        }
                        Some(b'\n') => self.i = j + 1,
                        Some(b'#') => {
                            let mut k = j;
                            while k < n && self.at(k) != b'\n' {
                                k += 1;
                            }
                            comments.push((j - self.i, k));
                            self.i = (k + 1).min(n);
                            if k >= n {
                                indent = None;
                                break;
                            }
                        }
                        Some(b'\t') | Some(b'\x0c') | Some(b'\r') | Some(b'\\') => return None,
                        Some(_) => {
                            indent = Some(j - self.i);
                            self.i = j;
                            break;
                        }
                    }
                }
                if !first {
                    self.push(K::Newline, self.i, self.i, line_comment);
                }
                line_comment = 0;
                let width = indent.unwrap_or(0);
                let mut queue = comments.into_iter().peekable();
                let top = *indents.last()?;
                if width > top {
                    if first || indent.is_none() {
                        return None;
                    }
                    indents.push(width);
                    self.push(K::Indent, self.i, self.i, 0);
                } else {
                    while indents.last().is_some_and(|&t| t > width) {
                        let level = indents.pop()?;
                        let mut held = 0;
                        while let Some(&(ind, e)) = queue.peek() {
                            if ind < level {
                                break;
                            }
                            held = e;
                            queue.next();
                        }
                        self.push(K::Dedent, self.i, self.i, held);
                    }
                    if indents.last() != Some(&width) {
                        return None;
                    }
                }
                first = false;
                if indent.is_none() {
                    self.push(K::Eof, self.i, self.i, 0);
                    return Some(());
                }
            }
            let Some(&c) = self.b.get(self.i) else {
                if nested {
                    self.push(K::Eof, self.i, self.i, 0);
                    return Some(());
                }
                if self.depth > 0 {
                    return None;
                }
                at_line_start = true;
                continue;
            };
            let s = self.i;
            match c {
                b' ' | b'\t' => self.i += 1,
                b'\n' => {
                    if nested {
                        return None;
                    }
                    self.i += 1;
                    if self.depth == 0 {
                        at_line_start = true;
                    } else {
                        // Inside brackets, a line less indented than the
                        // block makes tree-sitter close the block unless a
                        // closing bracket could come here: taken only
                        // where one does.
                        let (least, next) = self.next_lines();
                        if least < *indents.last()? && !matches!(next, b')' | b']' | b'}') {
                            return None;
                        }
                    }
                }
                b'#' => {
                    if nested {
                        return None;
                    }
                    while self.i < n && self.at(self.i) != b'\n' {
                        self.i += 1;
                    }
                    if self.depth == 0 {
                        line_comment = self.i;
                    }
                }
                b'\\' => {
                    // A backslash continuation after an operator or a
                    // name joins the lines; anywhere else it is left to
                    // tree-sitter.
                    if self.at(s + 1) != b'\n' || nested {
                        return None;
                    }
                    let last = self.toks.last()?;
                    if !matches!(last.k, K::Op | K::Name) || last.e as usize > s {
                        return None;
                    }
                    self.i += 2;
                }
                b'"' | b'\'' => self.string(s, s)?,
                b'0'..=b'9' => self.number()?,
                b'.' if self.at(s + 1).is_ascii_digit() => self.number()?,
                _ if is_name_start(c) => {
                    let mut j = s;
                    while is_name(self.at(j)) {
                        j += 1;
                    }
                    let q = self.at(j);
                    if q == b'"' || q == b'\'' {
                        let prefix = self.b.get(s..j)?.to_ascii_lowercase();
                        if !matches!(
                            prefix.as_slice(),
                            b"r" | b"u" | b"b" | b"f" | b"rb" | b"br" | b"fr" | b"rf"
                        ) {
                            return None;
                        }
                        self.string(s, j)?;
                    } else {
                        self.i = j;
                        self.push(K::Name, s, j, 0);
                    }
                }
                _ => {
                    let rest = self.b.get(s..).unwrap_or(&[]);
                    // Every operator of two or three bytes has one of these
                    // second bytes: most operators (`(`, `,`, `.` before a
                    // name) are told apart without the tables.
                    let longer = matches!(self.at(s + 1), b'=' | b'>' | b'*' | b'/' | b'<' | b'.');
                    let len = if longer && OPS3.iter().any(|o| rest.starts_with(o)) {
                        3
                    } else if longer && OPS2.iter().any(|o| rest.starts_with(o)) {
                        2
                    } else if OPS1.contains(&c) {
                        1
                    } else {
                        return None;
                    };
                    if c == b'<' && rest.starts_with(b"<>") {
                        return None;
                    }
                    match c {
                        b'(' | b'[' | b'{' => self.depth += 1,
                        b')' | b']' | b'}' if len == 1 => {
                            if self.depth == usize::from(nested) {
                                return None;
                            }
                            self.depth -= 1;
                        }
                        _ => {}
                    }
                    self.i = s + len;
                    self.push(K::Op, s, s + len, 0);
                }
            }
        }
    }

    /// The least indentation of the lines from `self.i` up to the next
    /// line of code (comment lines included; a tab counts as one column),
    /// and the first byte of that line's code.
    fn next_lines(&self) -> (usize, u8) {
        let mut least = usize::MAX;
        let mut i = self.i;
        loop {
            let mut j = i;
            while matches!(self.at(j), b' ' | b'\t') {
                j += 1;
            }
            match self.at(j) {
                b'\n' => i = j + 1,
                b'#' => {
                    least = least.min(j - i);
                    while !matches!(self.at(j), b'\n' | 0) {
                        j += 1;
                    }
                    if self.at(j) == 0 {
                        return (least, 0);
                    }
                    i = j + 1;
                }
                c => return (least.min(j - i), c),
            }
        }
    }

    fn number(&mut self) -> Option<()> {
        let s = self.i;
        let b = self.b;
        let mut j = s;
        let lower = |i: usize| b.get(i).map(|c| c.to_ascii_lowercase()).unwrap_or(0);
        if self.at(j) == b'0' && matches!(lower(j + 1), b'x' | b'o' | b'b') {
            let radix = lower(j + 1);
            j += 2;
            let ok = |c: u8| match radix {
                b'x' => c.is_ascii_hexdigit(),
                b'o' => (b'0'..=b'7').contains(&c),
                _ => c == b'0' || c == b'1',
            };
            let digits = j;
            while ok(self.at(j)) || (self.at(j) == b'_' && ok(self.at(j + 1))) {
                j += 1;
            }
            if j == digits {
                return None;
            }
        } else {
            let digits = |j: &mut usize| {
                let from = *j;
                while b.get(*j).is_some_and(u8::is_ascii_digit)
                    || (b.get(*j) == Some(&b'_') && b.get(*j + 1).is_some_and(u8::is_ascii_digit) && *j > from)
                {
                    *j += 1;
                }
                *j > from
            };
            let int = digits(&mut j);
            if self.at(j) == b'.' {
                j += 1;
                let frac = digits(&mut j);
                if !int && !frac {
                    return None;
                }
            }
            if lower(j) == b'e' {
                j += 1;
                if matches!(self.at(j), b'+' | b'-') {
                    j += 1;
                }
                if !digits(&mut j) {
                    return None;
                }
            }
            if lower(j) == b'j' {
                j += 1;
            }
        }
        let next = self.at(j);
        if is_name(next) || next == b'.' || next >= 0x80 {
            return None;
        }
        self.i = j;
        self.push(K::Num, s, j, 0);
        Some(())
    }

    /// A string starting at `s` whose quote starts at `q`.
    fn string(&mut self, s: usize, q: usize) -> Option<()> {
        let prefix = self.b.get(s..q)?.to_ascii_lowercase();
        let raw = prefix.contains(&b'r');
        let fmt = prefix.contains(&b'f');
        let quote = self.at(q);
        let triple = self.at(q + 1) == quote && self.at(q + 2) == quote;
        let mut i = if triple { q + 3 } else { q + 1 };
        loop {
            let c = *self.b.get(i)?;
            match c {
                b'\\' => {
                    let next = self.at(i + 1);
                    // tree-sitter reads `\\`, `\'` and `\"` in raw strings
                    // otherwise than Python.
                    if raw && matches!(next, b'\n' | b'\\' | b'\'' | b'"') {
                        return None;
                    }
                    if next == b'\n' && !triple {
                        return None;
                    }
                    if next == b'\r' || next == 0 {
                        return None;
                    }
                    i += 2;
                }
                b'\n' if !triple => return None,
                b'\r' | b'\x0c' | 0 => return None,
                _ if c == quote => {
                    if !triple {
                        i += 1;
                        break;
                    }
                    if self.at(i + 1) == quote && self.at(i + 2) == quote {
                        i += 3;
                        break;
                    }
                    i += 1;
                }
                b'{' if fmt => {
                    if self.at(i + 1) == b'{' {
                        i += 2;
                    } else {
                        i = self.interpolation(i + 1, quote)?;
                    }
                }
                b'}' if fmt => {
                    if self.at(i + 1) != b'}' {
                        return None;
                    }
                    i += 2;
                }
                _ => i += 1,
            }
        }
        self.i = i;
        self.push(K::Str, s, i, 0);
        Some(())
    }

    /// The interpolation whose expression starts at `start`; where it ends
    /// (after its `}`).
    fn interpolation(&mut self, start: usize, outer: u8) -> Option<usize> {
        let mut i = start;
        let mut depth = 0usize;
        let end = loop {
            let c = *self.b.get(i)?;
            match c {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' => depth = depth.checked_sub(1)?,
                b'}' => {
                    if depth == 0 {
                        break i;
                    }
                    depth -= 1;
                }
                b'"' | b'\'' => {
                    if c == outer || self.at(i + 1) == c {
                        return None;
                    }
                    i += 1;
                    while self.at(i) != c {
                        if matches!(self.at(i), b'\\' | b'\n' | b'\r' | 0 | b'{' | b'}' | b'"' | b'\'') {
                            return None;
                        }
                        i += 1;
                    }
                }
                b'\\' | b'#' | b'\n' | b'\r' | 0 => return None,
                b'!' if self.at(i + 1) == b'=' => i += 1,
                b'!' | b':' if depth == 0 => break i,
                b'=' => {
                    let prev = if i > start { self.at(i - 1) } else { 0 };
                    if self.at(i + 1) == b'=' {
                        i += 1;
                    } else if !matches!(prev, b'<' | b'>' | b'!') {
                        return None;
                    }
                }
                _ => {}
            }
            i += 1;
        };
        self.interps.push((start, end));
        let mut i = end;
        if self.at(i) == b'!' {
            if !matches!(self.at(i + 1), b'r' | b's' | b'a') {
                return None;
            }
            i += 2;
        }
        if self.at(i) == b':' {
            i += 1;
            if self.at(i) == b'=' {
                return None;
            }
            while self.at(i) != b'}' {
                if matches!(self.at(i), b'{' | b'\\' | b'\n' | b'\r' | 0 | b'"' | b'\'') {
                    return None;
                }
                i += 1;
            }
        }
        if self.at(i) != b'}' {
            return None;
        }
        Some(i + 1)
    }
}
