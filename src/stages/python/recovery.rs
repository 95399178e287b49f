//! Syntax errors, and the re-parse of the code an error swallowed.

use tree_sitter::{Node, Parser, Point, Tree};

use super::*;
use crate::python_grammar::KindName;

pub(super) fn syntax_errors(root: Node<'_>, text: &str) -> Vec<PySyntaxError> {
    let mut errors = Vec::new();
    walk(root, |node| {
        if node.is_error() {
            errors.push(describe_error(node, text));
            false
        } else if node.is_missing() {
            errors.push(PySyntaxError {
                kind: SyntaxErrorKind::Missing(node.kind_name().to_string()),
                span: node.byte_range(),
            });
            false
        } else {
            node.has_error()
        }
    });
    errors
}

/// Describes an `ERROR` node: an unclosed bracket inside it is the most
/// common cause and gets a precise span; otherwise the whole node is blamed.
pub(super) fn describe_error(node: Node<'_>, text: &str) -> PySyntaxError {
    let mut open: Vec<Node<'_>> = Vec::new();
    walk(node, |n| {
        if n.child_count() == 0 && !n.is_missing() {
            match n.kind_name() {
                "(" | "[" | "{" => open.push(n),
                ")" | "]" | "}" => {
                    let opener = match n.kind_name() {
                        ")" => "(",
                        "]" => "[",
                        _ => "{",
                    };
                    if open.last().is_some_and(|o| o.kind_name() == opener) {
                        open.pop();
                    }
                }
                _ => {}
            }
        }
        true
    });
    if let Some(first) = open.first() {
        return PySyntaxError {
            kind: SyntaxErrorKind::Unclosed(first.kind_name().to_string()),
            span: first.byte_range(),
        };
    }
    PySyntaxError {
        kind: SyntaxErrorKind::Invalid(excerpt(slice(text, node))),
        span: node.byte_range(),
    }
}

/// Byte offsets of column-0 lines that start a new top-level statement
/// (`@`, `class`, `def`, `async`, `import`, `from`). Lines that continue a
/// decorator group (a `class`/`def` or further `@` after an `@` line) are not
/// boundaries, so a decorated definition stays in one chunk.
pub(super) fn sync_points(text: &str) -> Vec<usize> {
    let mut points = Vec::new();
    let mut in_decorators = false;
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let starts = |kw: &str| line.strip_prefix(kw).is_some_and(|rest| rest.starts_with([' ', '\t']));
        let is_decorator = line.starts_with('@');
        let is_def = starts("class") || starts("def") || starts("async");
        let is_import = starts("import") || starts("from");
        if is_decorator {
            if !in_decorators {
                points.push(start);
            }
            in_decorators = true;
        } else if is_def {
            if !in_decorators {
                points.push(start);
            }
            in_decorators = false;
        } else if is_import {
            points.push(start);
            in_decorators = false;
        }
    }
    points
}

pub(super) fn point_at(line_starts: &[usize], byte: usize) -> Point {
    let row = line_starts.partition_point(|&s| s <= byte).saturating_sub(1);
    let column = byte.saturating_sub(line_starts.get(row).copied().unwrap_or(0));
    Point { row, column }
}

/// Re-parses, each on its own, the top-level chunks that start inside an
/// outermost `ERROR` node of `main`, so code after an error that swallowed
/// the rest of the file is still seen. Chunks run from one sync point to the
/// next (see [`sync_points`]).
pub(super) fn recovery_trees(main: &Tree, text: &str) -> Vec<Tree> {
    let root = main.root_node();
    if !root.has_error() {
        return Vec::new();
    }
    let mut regions = Vec::new();
    walk(root, |node| {
        if node.is_error() {
            regions.push(node.byte_range());
            false
        } else {
            node.has_error()
        }
    });
    if regions.is_empty() {
        return Vec::new();
    }
    let points = sync_points(text);
    let mut line_starts = vec![0usize];
    line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));

    let mut chunks = Vec::new();
    for (i, &start) in points.iter().enumerate() {
        if regions.iter().any(|r| r.contains(&start)) {
            let end = points.get(i + 1).copied().unwrap_or(text.len());
            chunks.push(start..end);
        }
    }

    let mut parser = Parser::new();
    if chunks.is_empty() || parser.set_language(&crate::python_grammar::language()).is_err() {
        return Vec::new();
    }
    let mut trees = Vec::new();
    for chunk in chunks {
        let range = tree_sitter::Range {
            start_byte: chunk.start,
            end_byte: chunk.end,
            start_point: point_at(&line_starts, chunk.start),
            end_point: point_at(&line_starts, chunk.end),
        };
        if parser.set_included_ranges(&[range]).is_err() {
            continue;
        }
        if let Some(tree) = parser.parse(text, None) {
            trees.push(tree);
        }
    }
    trees
}
