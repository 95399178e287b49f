//! The Python grammar (tree-sitter-python) as the readers of Python use it.
//!
//! [`KindName::kind_name`] is `Node::kind` through a table of the grammar's
//! kind names, made once: tree-sitter's own `kind` measures the name's C
//! string and checks it is UTF-8 on every call, and the readers ask every
//! node they visit.

use std::sync::OnceLock;

use tree_sitter::{Language, Node};

/// The grammar.
pub fn language() -> Language {
    tree_sitter_python::LANGUAGE.into()
}

/// `text` as tree-sitter is given it: Python ends a line at a lone `\r`
/// too, the grammar does not, so each lone `\r` becomes `\n` — byte for
/// byte, so every span holds. Every reader of a Python file goes through
/// this one function, so their parses of a file can be shared.
pub fn lone_cr_to_lf(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if c == '\r' && bytes.get(i + 1) != Some(&b'\n') {
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

/// The kind names by kind id.
fn names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let language = language();
        (0..language.node_kind_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| language.node_kind_for_id(id))
                    .unwrap_or("")
            })
            .collect()
    })
}

/// A syntax node's kind name.
pub trait KindName {
    /// The same name as `Node::kind`.
    fn kind_name(&self) -> &'static str;
}

impl KindName for Node<'_> {
    fn kind_name(&self) -> &'static str {
        match names().get(usize::from(self.kind_id())) {
            Some(name) if !name.is_empty() => name,
            // `ERROR` and the other built-in symbols sit outside the table.
            _ => self.kind(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_are_tree_sitters() {
        let mut parser = tree_sitter::Parser::new();
        assert!(parser.set_language(&language()).is_ok());
        let text = "import os\n@d(1)\nclass A(B):\n    def f(self, *a, **k) -> int:\n        return [x async for x in y if x] or {1: 2}\nx = (1 +\ndef\n";
        let Some(tree) = parser.parse(text, None) else {
            panic!("no parse")
        };
        let mut cursor = tree.walk();
        let mut seen = 0;
        let mut errors = 0;
        loop {
            let node = cursor.node();
            assert_eq!(node.kind_name(), node.kind());
            seen += 1;
            errors += usize::from(node.is_error());
            if cursor.goto_first_child() || cursor.goto_next_sibling() {
                continue;
            }
            loop {
                if !cursor.goto_parent() {
                    assert!(seen > 50 && errors > 0, "{seen} nodes, {errors} errors");
                    return;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
            }
        }
    }
}
