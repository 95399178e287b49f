//! The Python front end: every reader of a Python file (the stage
//! declarations in `stages::python`, the training analysis in
//! `training`) reads it through one [`ParsedFile`].
//!
//! * [`scan`]: a pass over the text that does not parse it (top-level
//!   chunks, import lines);
//! * [`ParsedFile::tree`]: the whole file parsed with tree-sitter, once,
//!   when a reader needs the whole file (the stage declarations);
//! * [`ParsedFile::chunk`]: a chunk's owned syntax tree ([`ast`]), converted
//!   from the whole-file parse when there is one, parsed on its own
//!   otherwise, once;
//! * [`literal`]: the values of integer and string literals, for both.
//!
//! A file is parsed once per process whatever reads it: [`ParsedFile::shared`]
//! hands every reader of the same text the same file while any holds it (the
//! CLI checks a config and the Python files named beside it as two
//! compilations of the same files).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, Once, OnceLock, Weak};

use tree_sitter::{Parser, Tree};

pub mod ast;
pub mod literal;
pub mod parse;
pub mod scan;

use ast::ChunkAst;
use scan::{ChunkInfo, ImportLine};

/// A Python file: its text, where its top-level statements start, its
/// imports, its whole-file parse once a reader asked for it, and each
/// chunk's syntax tree, made the first time it is asked for.
#[derive(Debug)]
pub struct ParsedFile {
    text: String,
    line_starts: Vec<usize>,
    chunks: Vec<ChunkInfo>,
    imports: Vec<ImportLine>,
    asts: Vec<OnceLock<ChunkAst>>,
    /// Per chunk, once tried: whether [`parse::parse_chunk`] made its tree.
    own: Vec<OnceLock<bool>>,
    /// The parse of the whole text (`Err`: the grammar could not be loaded,
    /// with tree-sitter's reason when it gave one).
    tree: OnceLock<Result<Tree, Option<String>>>,
    /// Converts the chunks from [`ParsedFile::tree`], once.
    converted: Once,
}

impl ParsedFile {
    /// Scans `text` (no parsing yet).
    pub fn new(text: &str) -> ParsedFile {
        // Python ends lines at a lone `\r` too; tree-sitter's grammar does
        // not. Each becomes `\n`, byte for byte, so every span holds.
        let text = if text.contains('\r') {
            crate::python_grammar::lone_cr_to_lf(text)
        } else {
            text.to_string()
        };
        let mut line_starts = vec![0usize];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let scanned = scan::scan(&text);
        let asts = scanned.chunks.iter().map(|_| OnceLock::new()).collect();
        let own = scanned.chunks.iter().map(|_| OnceLock::new()).collect();
        ParsedFile {
            text,
            line_starts,
            chunks: scanned.chunks,
            imports: scanned.imports,
            asts,
            own,
            tree: OnceLock::new(),
            converted: Once::new(),
        }
    }

    /// The file of `text` every reader in this process shares: the one
    /// another reader made from the same text while it is still held, a new
    /// one otherwise.
    pub fn shared(text: &str) -> Arc<ParsedFile> {
        type Held = HashMap<u64, Vec<Weak<ParsedFile>>>;
        static HELD: OnceLock<Mutex<Held>> = OnceLock::new();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut hasher);
        let key = hasher.finish();
        let held = HELD.get_or_init(|| Mutex::new(HashMap::new()));
        let Ok(mut held) = held.lock() else {
            return Arc::new(ParsedFile::new(text));
        };
        let same = held
            .get(&key)
            .into_iter()
            .flatten()
            .filter_map(Weak::upgrade)
            .find(|f| f.same_text(text));
        if let Some(file) = same {
            return file;
        }
        let file = Arc::new(ParsedFile::new(text));
        // Files nobody holds any more are forgotten as new ones come.
        held.retain(|_, files| {
            files.retain(|f| f.strong_count() > 0);
            !files.is_empty()
        });
        held.entry(key).or_default().push(Arc::downgrade(&file));
        file
    }

    /// The parse of the whole text, made on the first call.
    pub fn tree(&self) -> Result<&Tree, Option<String>> {
        self.tree
            .get_or_init(|| {
                let mut parser = Parser::new();
                parser
                    .set_language(&crate::python_grammar::language())
                    .map_err(|e| Some(e.to_string()))?;
                parser.parse(&self.text, None).ok_or(None)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Whether the whole-file parse was made.
    #[cfg(test)]
    pub(crate) fn has_tree(&self) -> bool {
        self.tree.get().is_some()
    }

    /// Converts every chunk the whole-file parse can stand for, once, when
    /// there is one without syntax errors; each chunk still falls back to a
    /// parse of its own where it cannot stand for one.
    fn convert_from_tree(&self) {
        let Some(Ok(tree)) = self.tree.get() else {
            return;
        };
        self.converted.call_once(|| {
            let root = tree.root_node();
            if root.start_byte() != 0 || root.end_byte() > self.text.len() || root.has_error() {
                return;
            }
            let ranges: Vec<std::ops::Range<usize>> = self.chunks.iter().map(|c| c.range.clone()).collect();
            for (cell, converted) in self.asts.iter().zip(ast::convert_chunks(&self.text, tree, &ranges)) {
                if let Some(chunk) = converted {
                    let _ = cell.set(chunk);
                }
            }
        });
    }

    /// The text as parsed (lone carriage returns read as line feeds).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The byte offset of every line's start.
    pub fn line_starts(&self) -> &[usize] {
        &self.line_starts
    }

    pub fn chunks(&self) -> &[ChunkInfo] {
        &self.chunks
    }

    pub fn imports(&self) -> &[ImportLine] {
        &self.imports
    }

    /// The syntax tree of chunk `i`, made now if it was not yet: by
    /// [`parse::parse_chunk`] where it reads the chunk, else converted from
    /// the whole-file parse when there is one, else parsed alone with
    /// tree-sitter.
    pub fn chunk(&self, i: usize) -> Option<&ChunkAst> {
        let info = self.chunks.get(i)?;
        let cell = self.asts.get(i)?;
        if cell.get().is_none() {
            let mut own = false;
            if let Some(ast) = parse::parse_chunk(&self.text, info.range.clone()) {
                own = cell.set(ast).is_ok();
            }
            if let Some(flag) = self.own.get(i) {
                let _ = flag.set(own);
            }
            if !own {
                self.convert_from_tree();
            }
        }
        Some(
            cell.get_or_init(|| {
                ast::parse_range(&self.text, &self.line_starts, info.range.clone()).unwrap_or_default()
            }),
        )
    }

    /// Whether the file has syntax errors: `false` when
    /// [`parse::parse_chunk`] read every chunk (its contract: tree-sitter
    /// reads each cleanly) and nothing but blank and comment lines lies
    /// between them; otherwise whether the whole-file parse has an error (or
    /// could not be made).
    pub fn has_syntax_errors(&self) -> bool {
        let mut all_own = true;
        for i in 0..self.chunks.len() {
            let _ = self.chunk(i);
            if self.own.get(i).and_then(OnceLock::get) != Some(&true) {
                all_own = false;
                break;
            }
        }
        if all_own && self.only_chunks() {
            return false;
        }
        match self.tree() {
            Ok(tree) => tree.root_node().has_error(),
            Err(_) => true,
        }
    }

    /// Whether every line outside the chunks is blank or a comment.
    fn only_chunks(&self) -> bool {
        let mut at = 0;
        let mut gaps = Vec::with_capacity(self.chunks.len() + 1);
        for c in &self.chunks {
            gaps.push(self.text.get(at..c.range.start));
            at = at.max(c.range.end);
        }
        gaps.push(self.text.get(at..));
        gaps.into_iter().all(|gap| {
            gap.is_some_and(|g| {
                g.lines().all(|l| {
                    let l = l.trim_start_matches([' ', '\t']);
                    l.is_empty() || l.starts_with('#')
                })
            })
        })
    }

    /// Whether the text of chunk `i` contains any of `needles`.
    pub fn chunk_mentions(&self, i: usize, needles: &[&str]) -> bool {
        match self.chunks.get(i).and_then(|c| self.text.get(c.range.clone())) {
            Some(t) => needles.iter().any(|n| t.contains(n)),
            None => false,
        }
    }

    /// Whether the whole file contains any of `needles`.
    pub fn mentions(&self, needles: &[&str]) -> bool {
        needles.iter().any(|n| self.text.contains(n))
    }

    /// How many chunks have been parsed so far.
    pub fn parsed_chunks(&self) -> usize {
        self.asts.iter().filter(|c| c.get().is_some()).count()
    }

    /// Whether `text` is the text this file was read from.
    pub fn same_text(&self, text: &str) -> bool {
        self.text.len() == text.len()
            && (self.text == text || (text.contains('\r') && crate::python_grammar::lone_cr_to_lf(text) == self.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_per_text_while_held() {
        let text = "import os\n\ndef f():\n    return 1\n";
        let a = ParsedFile::shared(text);
        let b = ParsedFile::shared(text);
        assert!(Arc::ptr_eq(&a, &b));
        let other = ParsedFile::shared("import sys\n");
        assert!(!Arc::ptr_eq(&a, &other));
        // The whole-file parse is made once and read by both.
        let Ok(tree) = a.tree() else { panic!("no parse") };
        assert!(!tree.root_node().has_error());
        assert!(b.tree.get().is_some());
        // Chunks the own parser reads are parsed one by one.
        assert_eq!(b.parsed_chunks(), 0);
        assert!(b.chunk(1).is_some_and(|c| c.funcs.len() == 1));
        assert_eq!(a.parsed_chunks(), 1);
        assert!(!a.has_syntax_errors());
        drop((a, b));
        // Nobody holds it: a new file, nothing parsed yet.
        let c = ParsedFile::shared(text);
        assert!(c.tree.get().is_none());
        assert_eq!(c.parsed_chunks(), 0);
    }

    #[test]
    fn chunks_the_own_parser_leaves_come_from_the_whole_parse() {
        // A backslash continuation after anything but an operator or a
        // name is left to tree-sitter.
        let text = "import os\n\nx = 1 \\\n    + 2\n\ndef f():\n    return 1\n";
        let file = ParsedFile::new(text);
        assert!(file.tree().is_ok());
        assert_eq!(file.chunks().len(), 2);
        assert!(file.chunk(0).is_some_and(|c| c.stmts.len() == 2));
        // The whole-file parse converted every chunk it could.
        assert_eq!(file.parsed_chunks(), file.chunks().len());
        assert!(!file.has_syntax_errors());
        let alone = ParsedFile::new(text);
        for i in 0..file.chunks().len() {
            assert_eq!(file.chunk(i), alone.chunk(i));
        }
    }

    #[test]
    fn syntax_errors() {
        for (text, errors) in [
            ("import os\n\ndef f():\n    return 1\n", false),
            ("import os\n\ndef f(:\n    return 1\n", true),
            ("x = 1 + \\\n    2\n", false),
            ("x = (1,\n", true),
            ("# only a comment\n", false),
            ("", false),
        ] {
            assert_eq!(ParsedFile::new(text).has_syntax_errors(), errors, "{text:?}");
        }
    }
}
