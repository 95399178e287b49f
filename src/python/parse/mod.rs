//! A hand-written parser for the common shapes of Python: it builds a
//! chunk's [`ChunkAst`] straight from the text, without tree-sitter, and
//! gives up (`None`) on anything it is not sure of, so that the caller
//! falls back to [`ast::parse_range`].
//!
//! The contract (what the tests check): when [`parse_chunk`] gives
//! `Some(a)`, `ast::parse_range` over the same range gives `Some(b)` with no
//! errors and `a == b`. Its spans follow tree-sitter-python's nodes (a
//! parenthesized expression spans its parentheses; a block ends with the
//! comment lines indented as deep as it; decorators are in the statement's
//! span, not the function's).

use std::ops::Range;

use super::ast::*;
use crate::source::Span;

mod atom;
mod defs;
mod expr;
mod lexer;
mod stmt;

#[cfg(test)]
mod tests;

use lexer::{Tok, K};

/// Deepest nesting of statements and expressions accepted (well below
/// [`MAX_DEPTH`], where the conversion from tree-sitter cuts).
const LIMIT: usize = 64;

/// The top-level statements of `text[range]` (spans into the whole text),
/// when they are valid Python of the shapes this parser knows; `None`
/// otherwise.
pub fn parse_chunk(text: &str, range: Range<usize>) -> Option<ChunkAst> {
    let bytes = text.as_bytes().get(range.clone())?;
    if bytes.iter().any(|&c| matches!(c, b'\r' | b'\x0c' | b'\x0b' | 0)) {
        return None;
    }
    #[cfg(test)]
    FAILED_AT.with(|f| f.set(usize::MAX));
    let (toks, interps) = lexer::lex(text, range.start, range.end, false)?;
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        depth: 0,
        funcs: Vec::new(),
        classes: Vec::new(),
        parent: Parent::Module,
    };
    let mut stmts = Vec::new();
    while p.peek().k != K::Eof {
        let read = p.statement(&mut stmts);
        #[cfg(test)]
        if read.is_none() {
            FAILED_AT.with(|f| f.set(p.peek().s as usize));
        }
        read?;
    }
    // Each f-string interpolation must hold a valid expression.
    for (s, e) in interps {
        let (toks, inner) = lexer::lex(text, s, e, true)?;
        if !inner.is_empty() {
            return None;
        }
        let mut sub = Parser {
            text,
            toks,
            pos: 0,
            depth: 0,
            funcs: Vec::new(),
            classes: Vec::new(),
            parent: Parent::Module,
        };
        sub.exprs(false)?;
        if sub.peek().k != K::Eof {
            return None;
        }
    }
    Some(ChunkAst {
        stmts,
        funcs: p.funcs,
        classes: p.classes,
        errors: false,
    })
}

#[cfg(test)]
thread_local! {
    /// Where the last chunk refused stopped the parser (`usize::MAX`: the
    /// lexer or an interpolation), for the corpus run's report.
    static FAILED_AT: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

const KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

struct Parser<'t> {
    text: &'t str,
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
    funcs: Vec<Function>,
    classes: Vec<Class>,
    parent: Parent,
}

const EOF: Tok = Tok {
    k: K::Eof,
    s: 0,
    e: 0,
    x: 0,
};

impl<'t> Parser<'t> {
    fn peek(&self) -> Tok {
        self.toks.get(self.pos).copied().unwrap_or(EOF)
    }

    fn peek_at(&self, n: usize) -> Tok {
        self.toks.get(self.pos + n).copied().unwrap_or(EOF)
    }

    fn slice(&self, t: Tok) -> &'t str {
        self.text.get(t.s as usize..t.e as usize).unwrap_or("")
    }

    /// The next token, consumed.
    fn bump(&mut self) -> Tok {
        let t = self.peek();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    /// Whether the next token is the operator or keyword `s`.
    fn is(&self, s: &str) -> bool {
        let t = self.peek();
        matches!(t.k, K::Op | K::Name) && self.slice(t) == s
    }

    fn is_at(&self, n: usize, s: &str) -> bool {
        let t = self.peek_at(n);
        matches!(t.k, K::Op | K::Name) && self.slice(t) == s
    }

    fn eat(&mut self, s: &str) -> Option<Tok> {
        if self.is(s) {
            Some(self.bump())
        } else {
            None
        }
    }

    fn expect(&mut self, s: &str) -> Option<Tok> {
        self.eat(s)
    }

    fn expect_kind(&mut self, k: K) -> Option<Tok> {
        if self.peek().k == k {
            Some(self.bump())
        } else {
            None
        }
    }

    /// A name that is not a keyword.
    fn name(&mut self) -> Option<Tok> {
        let t = self.peek();
        if t.k != K::Name || KEYWORDS.contains(&self.slice(t)) {
            return None;
        }
        Some(self.bump())
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= LIMIT).then_some(())
    }

    fn leave(&mut self, n: usize) {
        self.depth = self.depth.saturating_sub(n);
    }

    /// The end of the previous token.
    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or(0, |t| t.e as usize)
    }
}

fn span(s: u32, e: usize) -> Span {
    Span::new(s as usize, e)
}
