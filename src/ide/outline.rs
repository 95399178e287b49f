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

/// The outline of a parsed YAML document. Values written at `secrets`
/// (credentials, see [`crate::secrets::spans`]) show no detail.
pub fn outline(tree: &Tree, secrets: &[Span]) -> Vec<Symbol> {
    let mut budget = MAX_SYMBOLS;
    let cx = Outline { tree, secrets };
    match tree.root() {
        Some(root) => cx.children(root, &mut budget, 0),
        None => Vec::new(),
    }
}

struct Outline<'a> {
    tree: &'a Tree,
    secrets: &'a [Span],
}

impl Outline<'_> {
    fn children(&self, id: NodeId, budget: &mut usize, depth: usize) -> Vec<Symbol> {
        let tree = self.tree;
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
                    out.push(self.symbol(
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
                    out.push(self.symbol(name, item, span, span, budget, depth));
                }
            }
            _ => {}
        }
        out
    }

    fn symbol(
        &self,
        name: String,
        value: NodeId,
        span: Span,
        selection: Span,
        budget: &mut usize,
        depth: usize,
    ) -> Symbol {
        let tree = self.tree;
        let v = tree.value(value);
        let kind = match v {
            Value::Map(_) => SymbolKind::Object,
            Value::Seq(_) => SymbolKind::Array,
            Value::Str(_) => SymbolKind::String,
            Value::Int(_) | Value::BigInt(_) | Value::Float(_) => SymbolKind::Number,
            Value::Bool(_) => SymbolKind::Boolean,
            Value::Null | Value::Alias(_) => SymbolKind::Null,
        };
        let secret = [tree.span(value), tree.span(tree.resolve(value))].iter().any(|s| {
            self.secrets
                .iter()
                .any(|x| x.start < s.end.max(s.start + 1) && s.start < x.end)
        });
        let detail = match v {
            Value::Map(_) | Value::Seq(_) | Value::Alias(_) => None,
            _ if secret => Some("•••".to_string()),
            scalar => {
                let mut text = scalar_text(scalar);
                if text.chars().count() > 60 {
                    text = text.chars().take(59).collect::<String>() + "…";
                }
                Some(text)
            }
        };
        // Children of the node as written (an alias shows no children).
        let kids = self.children(value, budget, depth + 1);
        Symbol {
            name: if name.is_empty() { "\"\"".into() } else { name },
            detail,
            kind,
            span,
            selection,
            children: kids,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_outline() {
        let text = "name: x\nprofiling:\n  metrics:\n    - name: grad\n      expression: a\n";
        let (tree, _) = crate::yaml::parse(text, &Default::default());
        let o = outline(&tree, &[]);
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].detail.as_deref(), Some("x"));
        let metrics = &o[1].children[0];
        assert_eq!(metrics.kind, SymbolKind::Array);
        assert_eq!(metrics.children[0].name, "grad");
        assert!(o[1].span.start <= o[1].selection.start && o[1].selection.end <= o[1].span.end);
    }

    #[test]
    fn credentials_show_no_detail() {
        let text = "a: &p hunter2\ns:\n  password: hunter2\n  pasword: *p\ne: [HF_TOKEN=hunter2]\n";
        let (tree, _) = crate::yaml::parse(text, &Default::default());
        let secrets = crate::secrets::spans(&tree, text);
        let mut details = Vec::new();
        fn walk(symbols: &[Symbol], out: &mut Vec<String>) {
            for s in symbols {
                out.extend(s.detail.clone());
                walk(&s.children, out);
            }
        }
        walk(&outline(&tree, &secrets), &mut details);
        // `a` holds the value the credential key's alias names: masked too.
        assert!(details.iter().all(|d| !d.contains("hunter2")), "{details:?}");
        assert!(details.iter().any(|d| d == "•••"), "{details:?}");
    }
}
