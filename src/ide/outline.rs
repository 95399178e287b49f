//! The document outline: a config's keys as a tree of symbols.

use crate::source::Span;
use crate::yaml::{scalar_text, NodeId, Tree, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Object,
    Array,
    String,
    Number,
    Boolean,
    Null,
}

/// One entry of the outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The key, or `[i]` (or the item's `name`) for a list item.
    pub name: String,
    /// A scalar's value, shortened.
    pub detail: Option<String>,
    pub kind: SymbolKind,
    /// From the key to the end of the value.
    pub span: Span,
    /// The key (or the item) itself.
    pub selection: Span,
    pub children: Vec<Symbol>,
}

/// Most symbols an outline holds; a huge document is cut there.
const MAX_SYMBOLS: usize = 10_000;
const MAX_DEPTH: usize = 64;

/// The outline of a parsed YAML document.
pub fn outline(tree: &Tree) -> Vec<Symbol> {
    let mut budget = MAX_SYMBOLS;
    match tree.root() {
        Some(root) => children(tree, root, &mut budget, 0),
        None => Vec::new(),
    }
}

fn children(tree: &Tree, id: NodeId, budget: &mut usize, depth: usize) -> Vec<Symbol> {
    let mut out = Vec::new();
    if depth > MAX_DEPTH {
        return out;
    }
    match &tree.node(id).value {
        Value::Map(entries) => {
            for e in entries {
                if *budget == 0 {
                    break;
                }
                *budget -= 1;
                let key_span = tree.span(e.key);
                let value_span = tree.span(e.value);
                out.push(symbol(
                    tree,
                    tree.key_text(e.key),
                    e.value,
                    key_span.cover(value_span),
                    key_span,
                    budget,
                    depth,
                ));
            }
        }
        Value::Seq(items) => {
            for (i, &item) in items.iter().enumerate() {
                if *budget == 0 {
                    break;
                }
                *budget -= 1;
                let name = tree
                    .get(item, "name")
                    .and_then(|l| tree.as_str(l.node).map(str::to_string))
                    .unwrap_or_else(|| format!("[{i}]"));
                let span = tree.span(item);
                out.push(symbol(tree, name, item, span, span, budget, depth));
            }
        }
        _ => {}
    }
    out
}

fn symbol(
    tree: &Tree,
    name: String,
    value: NodeId,
    span: Span,
    selection: Span,
    budget: &mut usize,
    depth: usize,
) -> Symbol {
    let v = tree.value(value);
    let kind = match v {
        Value::Map(_) => SymbolKind::Object,
        Value::Seq(_) => SymbolKind::Array,
        Value::Str(_) => SymbolKind::String,
        Value::Int(_) | Value::BigInt(_) | Value::Float(_) => SymbolKind::Number,
        Value::Bool(_) => SymbolKind::Boolean,
        Value::Null | Value::Alias(_) => SymbolKind::Null,
    };
    let detail = match v {
        Value::Map(_) | Value::Seq(_) | Value::Alias(_) => None,
        scalar => {
            let mut text = scalar_text(scalar);
            if text.chars().count() > 60 {
                text = text.chars().take(59).collect::<String>() + "…";
            }
            Some(text)
        }
    };
    // Children of the node as written (an alias shows no children).
    let kids = children(tree, value, budget, depth + 1);
    Symbol {
        name: if name.is_empty() { "\"\"".into() } else { name },
        detail,
        kind,
        span,
        selection,
        children: kids,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_outline() {
        let text = "name: x\nprofiling:\n  metrics:\n    - name: grad\n      expression: a\n";
        let (tree, _) = crate::yaml::parse(text, &Default::default());
        let o = outline(&tree);
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].detail.as_deref(), Some("x"));
        let metrics = &o[1].children[0];
        assert_eq!(metrics.kind, SymbolKind::Array);
        assert_eq!(metrics.children[0].name, "grad");
        assert!(o[1].span.start <= o[1].selection.start && o[1].selection.end <= o[1].span.end);
    }
}
