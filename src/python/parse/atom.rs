//! Atoms: names, numbers, strings, displays and comprehensions.

use super::expr::bx;
use super::*;
use crate::python::literal;

impl Parser<'_> {
    pub(super) fn atom(&mut self) -> Option<Expr> {
        let t = self.peek();
        let kind = match t.k {
            K::Name => match self.slice(t) {
                "None" => ExprKind::None,
                "True" => ExprKind::Bool(true),
                "False" => ExprKind::Bool(false),
                s if KEYWORDS.contains(&s) => return None,
                s => ExprKind::Name(s.to_string()),
            },
            K::Num => {
                let s = self.slice(t);
                if s.contains(['.', 'e', 'E']) && !s.starts_with("0x") && !s.starts_with("0X") {
                    s.replace('_', "")
                        .parse::<f64>()
                        .map_or(ExprKind::Other, ExprKind::Float)
                } else {
                    literal::int_i64(s).map_or(ExprKind::Other, ExprKind::Int)
                }
            }
            K::Str => return self.strings(),
            K::Op => return self.display(),
            _ => return None,
        };
        self.bump();
        Some(Expr {
            span: span(t.s, t.e as usize),
            kind,
        })
    }

    /// Adjacent string literals, as one.
    pub(super) fn strings(&mut self) -> Option<Expr> {
        let first = self.peek();
        let mut out: Option<ExprKind> = None;
        let mut end = first.e;
        while self.peek().k == K::Str {
            let t = self.bump();
            end = t.e;
            let kind = self.string(t);
            out = match (out, kind) {
                (None, k) => Some(k),
                (Some(ExprKind::Str(mut a)), ExprKind::Str(b)) => {
                    a.push_str(&b);
                    Some(ExprKind::Str(a))
                }
                (Some(ExprKind::Str(_)), k) => Some(k),
                (Some(k), _) => Some(k),
            };
        }
        Some(Expr {
            span: span(first.s, end as usize),
            kind: out?,
        })
    }

    pub(super) fn string(&self, t: Tok) -> ExprKind {
        let s = self.slice(t);
        let plen = s.bytes().take_while(u8::is_ascii_alphabetic).count();
        let prefix = s.get(..plen).unwrap_or("").to_ascii_lowercase();
        if prefix.contains('f') {
            return ExprKind::FString;
        }
        if prefix.contains('b') {
            return ExprKind::Other;
        }
        let rest = s.get(plen..).unwrap_or("");
        let q = if rest.starts_with("\"\"\"") || rest.starts_with("'''") {
            3
        } else {
            1
        };
        let body = rest.get(q..rest.len().saturating_sub(q)).unwrap_or("");
        ExprKind::Str(if prefix.contains('r') {
            body.to_string()
        } else {
            literal::unescape(body)
        })
    }

    /// `( )`, `[ ]`, `{ }` and `...`.
    pub(super) fn display(&mut self) -> Option<Expr> {
        let open = self.bump();
        let close = match self.slice(open) {
            "..." => {
                return Some(Expr {
                    span: span(open.s, open.e as usize),
                    kind: ExprKind::Other,
                })
            }
            "(" => ")",
            "[" => "]",
            "{" => "}",
            _ => return None,
        };
        self.enter()?;
        let kind = match close {
            ")" => self.paren_body()?,
            "]" => self.list_body()?,
            _ => self.brace_body()?,
        };
        let end = self.expect(close)?;
        self.leave(1);
        Some(Expr {
            span: span(open.s, end.e as usize),
            kind,
        })
    }

    pub(super) fn paren_body(&mut self) -> Option<ExprKind> {
        if self.is(")") {
            return Some(ExprKind::Tuple(Vec::new()));
        }
        if self.is("yield") {
            return Some(self.yield_expr()?.kind);
        }
        let first = if self.is("*") {
            self.item(true)?
        } else {
            self.named_test()?
        };
        if self.is("for") {
            if matches!(first.kind, ExprKind::Starred(_)) {
                return None;
            }
            let gens = self.comp_fors()?;
            return Some(ExprKind::Comp {
                kind: CompKind::Generator,
                elt: bx(first),
                value: None,
                gens,
            });
        }
        if self.is(")") {
            if matches!(first.kind, ExprKind::Starred(_)) {
                return None;
            }
            return Some(first.kind);
        }
        let mut items = vec![first];
        while self.eat(",").is_some() {
            if self.is(")") {
                break;
            }
            items.push(if self.is("*") {
                self.item(true)?
            } else {
                self.named_test()?
            });
        }
        Some(ExprKind::Tuple(items))
    }

    pub(super) fn list_body(&mut self) -> Option<ExprKind> {
        if self.is("]") {
            return Some(ExprKind::List(Vec::new()));
        }
        self.items_or_comp("]", CompKind::List)
    }

    /// The items of a list or set display up to `close`, or its
    /// comprehension (`kind`: which of the two).
    fn items_or_comp(&mut self, close: &str, kind: CompKind) -> Option<ExprKind> {
        let first = self.item(true)?;
        if self.is("for") {
            if matches!(first.kind, ExprKind::Starred(_)) {
                return None;
            }
            let gens = self.comp_fors()?;
            return Some(ExprKind::Comp {
                kind,
                elt: bx(first),
                value: None,
                gens,
            });
        }
        let mut items = vec![first];
        while self.eat(",").is_some() {
            if self.is(close) {
                break;
            }
            items.push(self.item(true)?);
        }
        Some(if kind == CompKind::Set {
            ExprKind::Set(items)
        } else {
            ExprKind::List(items)
        })
    }

    pub(super) fn brace_body(&mut self) -> Option<ExprKind> {
        if self.is("}") {
            return Some(ExprKind::Dict(Vec::new()));
        }
        let dict = self.is("**") || {
            // A key then `:`: look past the first item.
            let save = self.pos;
            let depth = self.depth;
            let first = self.test();
            let colon = first.is_some() && self.is(":");
            self.pos = save;
            self.depth = depth;
            colon
        };
        if !dict {
            return self.items_or_comp("}", CompKind::Set);
        }
        let mut items = Vec::new();
        loop {
            if self.eat("**").is_some() {
                items.push(DictItem::Splat(self.bitor()?));
            } else {
                let key = self.test()?;
                self.expect(":")?;
                let value = self.test()?;
                if items.is_empty() && self.is("for") {
                    let gens = self.comp_fors()?;
                    return Some(ExprKind::Comp {
                        kind: CompKind::Dict,
                        elt: bx(key),
                        value: Some(bx(value)),
                        gens,
                    });
                }
                items.push(DictItem::Pair {
                    span: Span::new(key.span.start, value.span.end),
                    key,
                    value,
                });
            }
            if self.eat(",").is_none() || self.is("}") {
                break;
            }
        }
        Some(ExprKind::Dict(items))
    }
}
