//! Expressions, with Python's precedence (as tree-sitter-python nests them).

use super::*;

pub(super) fn bx(e: Expr) -> Box<Expr> {
    Box::new(e)
}

const COMPARE: [&str; 8] = ["<", ">", "==", ">=", "<=", "!=", "in", "is"];

impl Parser<'_> {
    /// A comma-separated list of expressions (`star`: `*x` items allowed);
    /// several, or one with a trailing comma, make a tuple spanning them
    /// (the trailing comma included).
    pub(super) fn exprs(&mut self, star: bool) -> Option<Expr> {
        let first = self.item(star)?;
        if !self.is(",") {
            return Some(first);
        }
        let start = first.span.start;
        let mut items = vec![first];
        while self.eat(",").is_some() {
            if !self.starts_expr() {
                break;
            }
            items.push(self.item(star)?);
        }
        Some(Expr {
            span: Span::new(start, self.prev_end()),
            kind: ExprKind::Tuple(items),
        })
    }

    pub(super) fn item(&mut self, star: bool) -> Option<Expr> {
        if star && self.is("*") {
            let t = self.bump();
            self.enter()?;
            let inner = self.bitor()?;
            self.leave(1);
            return Some(Expr {
                span: span(t.s, inner.span.end),
                kind: ExprKind::Starred(bx(inner)),
            });
        }
        self.test()
    }

    /// Whether the next token can start an expression.
    pub(super) fn starts_expr(&self) -> bool {
        let t = self.peek();
        match t.k {
            K::Name => {
                let s = self.slice(t);
                !KEYWORDS.contains(&s) || matches!(s, "None" | "True" | "False" | "not" | "lambda" | "await")
            }
            K::Num | K::Str => true,
            K::Op => matches!(self.slice(t), "(" | "[" | "{" | "-" | "+" | "~" | "*" | "..."),
            _ => false,
        }
    }

    /// `name := value` where allowed, else a plain expression.
    pub(super) fn named_test(&mut self) -> Option<Expr> {
        if self.peek().k == K::Name && self.is_at(1, ":=") {
            let n = self.name()?;
            self.bump();
            self.enter()?;
            let value = self.test()?;
            self.leave(1);
            return Some(Expr {
                span: span(n.s, value.span.end),
                kind: ExprKind::Named {
                    name: self.slice(n).to_string(),
                    value: bx(value),
                },
            });
        }
        self.test()
    }

    /// A lambda or a conditional expression.
    pub(super) fn test(&mut self) -> Option<Expr> {
        self.enter()?;
        let out = self.test_inner();
        self.leave(1);
        out
    }

    pub(super) fn test_inner(&mut self) -> Option<Expr> {
        if self.is("lambda") {
            let t = self.bump();
            self.lambda_params()?;
            self.expect(":")?;
            let body = self.test()?;
            return Some(Expr {
                span: span(t.s, body.span.end),
                kind: ExprKind::Lambda(bx(body)),
            });
        }
        let body = self.disjunction()?;
        if !self.is("if") {
            return Some(body);
        }
        self.bump();
        let test = self.disjunction()?;
        self.expect("else")?;
        let orelse = self.test()?;
        Some(Expr {
            span: Span::new(body.span.start, orelse.span.end),
            kind: ExprKind::IfExp {
                test: bx(test),
                body: bx(body),
                orelse: bx(orelse),
            },
        })
    }

    pub(super) fn lambda_params(&mut self) -> Option<()> {
        let mut seen_star = false;
        while !self.is(":") {
            if self.eat("**").is_some() {
                self.name()?;
            } else if self.eat("*").is_some() {
                if seen_star {
                    return None;
                }
                seen_star = true;
                if !self.is(",") {
                    self.name()?;
                }
            } else if self.eat("/").is_some() {
            } else {
                self.name()?;
                if self.eat("=").is_some() {
                    self.test()?;
                }
            }
            if self.eat(",").is_none() {
                break;
            }
        }
        Some(())
    }

    pub(super) fn disjunction(&mut self) -> Option<Expr> {
        self.boolop("or")
    }

    pub(super) fn boolop(&mut self, op: &str) -> Option<Expr> {
        let mut left = if op == "or" {
            self.boolop("and")?
        } else {
            self.inversion()?
        };
        let mut n = 0;
        while self.is(op) {
            self.bump();
            self.enter()?;
            n += 1;
            let right = if op == "or" {
                self.boolop("and")?
            } else {
                self.inversion()?
            };
            left = Expr {
                span: Span::new(left.span.start, right.span.end),
                kind: ExprKind::BoolOp {
                    and: op == "and",
                    left: bx(left),
                    right: bx(right),
                },
            };
        }
        self.leave(n);
        Some(left)
    }

    pub(super) fn inversion(&mut self) -> Option<Expr> {
        if self.is("not") {
            let t = self.bump();
            self.enter()?;
            let inner = self.inversion()?;
            self.leave(1);
            return Some(Expr {
                span: span(t.s, inner.span.end),
                kind: ExprKind::Not(bx(inner)),
            });
        }
        self.comparison()
    }

    pub(super) fn comparison(&mut self) -> Option<Expr> {
        let left = self.bitor()?;
        let mut rest = Vec::new();
        loop {
            let t = self.peek();
            let s = self.slice(t);
            let op = if matches!(t.k, K::Op | K::Name) && COMPARE.contains(&s) {
                self.bump();
                if s == "is" && self.is("not") {
                    // One token, spaces and all.
                    let not = self.bump();
                    self.text
                        .get(t.s as usize..not.e as usize)
                        .filter(|o| o.bytes().all(|c| c != b'\n' && c != b'#' && c != b'\\'))?
                } else {
                    s
                }
            } else if t.k == K::Name && s == "not" && self.is_at(1, "in") {
                self.bump();
                let tin = self.bump();
                self.text
                    .get(t.s as usize..tin.e as usize)
                    .filter(|o| o.bytes().all(|c| c != b'\n' && c != b'#' && c != b'\\'))?
            } else {
                break;
            };
            self.enter()?;
            let right = self.bitor();
            self.leave(1);
            rest.push((op.to_string(), right?));
        }
        match rest.last() {
            None => Some(left),
            Some((_, last)) => Some(Expr {
                span: Span::new(left.span.start, last.span.end),
                kind: ExprKind::Compare { left: bx(left), rest },
            }),
        }
    }

    pub(super) fn bitor(&mut self) -> Option<Expr> {
        self.binary(0)
    }

    pub(super) fn binary(&mut self, level: usize) -> Option<Expr> {
        const LEVELS: [&[&str]; 6] = [
            &["|"],
            &["^"],
            &["&"],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "//", "%", "@"],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.factor();
        };
        let mut left = self.binary(level + 1)?;
        let mut n = 0;
        loop {
            let t = self.peek();
            if t.k != K::Op || !ops.contains(&self.slice(t)) {
                break;
            }
            self.bump();
            self.enter()?;
            n += 1;
            let right = self.binary(level + 1)?;
            left = Expr {
                span: Span::new(left.span.start, right.span.end),
                kind: ExprKind::BinOp {
                    left: bx(left),
                    op: self.slice(t).to_string(),
                    right: bx(right),
                },
            };
        }
        self.leave(n);
        Some(left)
    }

    pub(super) fn factor(&mut self) -> Option<Expr> {
        let t = self.peek();
        if t.k == K::Op && matches!(self.slice(t), "-" | "+" | "~") {
            self.bump();
            self.enter()?;
            let operand = self.factor()?;
            self.leave(1);
            return Some(Expr {
                span: span(t.s, operand.span.end),
                kind: ExprKind::Unary {
                    op: self.slice(t).to_string(),
                    operand: bx(operand),
                },
            });
        }
        if self.is("await") {
            // tree-sitter reads `await` as a unary operator: `await a ** 2`
            // awaits `a ** 2`.
            let t = self.bump();
            self.enter()?;
            let operand = self.factor()?;
            self.leave(1);
            return Some(Expr {
                span: span(t.s, operand.span.end),
                kind: ExprKind::Await(bx(operand)),
            });
        }
        let base = self.primary()?;
        if !self.is("**") {
            return Some(base);
        }
        let t = self.bump();
        self.enter()?;
        let right = self.factor()?;
        self.leave(1);
        Some(Expr {
            span: Span::new(base.span.start, right.span.end),
            kind: ExprKind::BinOp {
                left: bx(base),
                op: self.slice(t).to_string(),
                right: bx(right),
            },
        })
    }

    /// An atom and its trailers (`.name`, calls, subscripts).
    pub(super) fn primary(&mut self) -> Option<Expr> {
        let mut e = self.atom()?;
        let mut n = 0;
        loop {
            let t = self.peek();
            if t.k != K::Op {
                break;
            }
            match self.slice(t) {
                "." => {
                    self.bump();
                    let a = self.name()?;
                    e = Expr {
                        span: span(e.span.start as u32, a.e as usize),
                        kind: ExprKind::Attribute {
                            value: bx(e),
                            attr: self.slice(a).to_string(),
                        },
                    };
                }
                "(" => {
                    let (args, args_span) = self.call_args()?;
                    e = Expr {
                        span: Span::new(e.span.start, args_span.end),
                        kind: ExprKind::Call {
                            func: bx(e),
                            args,
                            args_span,
                        },
                    };
                }
                "[" => {
                    self.bump();
                    self.enter()?;
                    let index = self.subscript();
                    self.leave(1);
                    let index = index?;
                    let close = self.expect("]")?;
                    e = Expr {
                        span: Span::new(e.span.start, close.e as usize),
                        kind: ExprKind::Subscript {
                            value: bx(e),
                            index: bx(index),
                        },
                    };
                }
                _ => break,
            }
            self.enter()?;
            n += 1;
        }
        self.leave(n);
        Some(e)
    }

    /// The arguments of a call, from its `(`; and their span.
    pub(super) fn call_args(&mut self) -> Option<(Vec<Arg>, Span)> {
        let open = self.expect("(")?;
        self.enter()?;
        let mut args = Vec::new();
        while !self.is(")") {
            if self.eat("**").is_some() {
                args.push(Arg::StarStar(self.test()?));
            } else if self.eat("*").is_some() {
                args.push(Arg::Star(self.test()?));
            } else if self.peek().k == K::Name && self.is_at(1, "=") {
                let n = self.name()?;
                self.bump();
                let value = self.test()?;
                args.push(Arg::Kw {
                    name: self.slice(n).to_string(),
                    name_span: span(n.s, n.e as usize),
                    span: span(n.s, value.span.end),
                    value,
                });
            } else {
                let e = self.named_test()?;
                if self.is("for") {
                    // The generator is the call's whole argument list.
                    if !args.is_empty() {
                        return None;
                    }
                    let gens = self.comp_fors()?;
                    let close = self.expect(")")?;
                    self.leave(1);
                    let s = span(open.s, close.e as usize);
                    let gen = Expr {
                        span: s,
                        kind: ExprKind::Comp {
                            kind: CompKind::Generator,
                            elt: bx(e),
                            value: None,
                            gens,
                        },
                    };
                    return Some((vec![Arg::Pos(gen)], s));
                }
                args.push(Arg::Pos(e));
            }
            if self.eat(",").is_none() {
                break;
            }
        }
        let close = self.expect(")")?;
        self.leave(1);
        Some((args, span(open.s, close.e as usize)))
    }

    /// The `for … in … if …` clauses of a comprehension.
    pub(super) fn comp_fors(&mut self) -> Option<Vec<CompFor>> {
        let mut gens = Vec::new();
        while self.eat("for").is_some() {
            let target = self.targets()?;
            self.expect("in")?;
            let iter = self.disjunction()?;
            let mut ifs = Vec::new();
            while self.eat("if").is_some() {
                ifs.push(self.disjunction()?);
            }
            gens.push(CompFor { target, iter, ifs });
        }
        (!gens.is_empty()).then_some(gens)
    }

    /// Assignment-like targets up to `in` (a `for` clause): one, or a tuple.
    pub(super) fn targets(&mut self) -> Option<Expr> {
        let first = self.target_item()?;
        if !self.is(",") {
            return Some(first);
        }
        let start = first.span.start;
        let mut items = vec![first];
        while self.eat(",").is_some() {
            if self.is("in") {
                break;
            }
            items.push(self.target_item()?);
        }
        Some(Expr {
            span: Span::new(start, self.prev_end()),
            kind: ExprKind::Tuple(items),
        })
    }

    pub(super) fn target_item(&mut self) -> Option<Expr> {
        let e = if self.is("*") { self.item(true)? } else { self.bitor()? };
        self.check_target(&e)?;
        Some(e)
    }

    /// Whether `e` may be assigned to (as tree-sitter reads a pattern).
    pub(super) fn check_target(&self, e: &Expr) -> Option<()> {
        let first = self.text.as_bytes().get(e.span.start).copied();
        match &e.kind {
            ExprKind::Name(n) if first != Some(b'(') && !matches!(n.as_str(), "print" | "exec") => Some(()),
            ExprKind::Attribute { .. } | ExprKind::Subscript { .. } if first != Some(b'(') => Some(()),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                if items.is_empty() {
                    return None;
                }
                items.iter().try_for_each(|i| self.check_target(i))
            }
            // tree-sitter's `*a.b` target stars `a` alone.
            ExprKind::Starred(inner) if matches!(inner.kind, ExprKind::Name(_)) => self.check_target(inner),
            _ => None,
        }
    }

    /// Inside `[ ]` after a primary: one item, or several as a tuple.
    pub(super) fn subscript(&mut self) -> Option<Expr> {
        let first = self.slice_item()?;
        if !self.is(",") {
            return Some(first);
        }
        let start = first.span.start;
        let mut end = first.span.end;
        let mut items = vec![first];
        while self.eat(",").is_some() {
            if self.is("]") {
                break;
            }
            let e = self.slice_item()?;
            end = e.span.end;
            items.push(e);
        }
        if items.len() == 1 {
            return items.pop();
        }
        Some(Expr {
            span: Span::new(start, end),
            kind: ExprKind::Tuple(items),
        })
    }

    pub(super) fn slice_item(&mut self) -> Option<Expr> {
        let start = self.peek().s;
        let lower = if self.is(":") { None } else { Some(self.test()?) };
        if !self.is(":") {
            return lower;
        }
        self.bump();
        let upper = if self.is(":") || self.is(",") || self.is("]") {
            None
        } else {
            Some(bx(self.test()?))
        };
        let mut step = None;
        if self.eat(":").is_some() && !(self.is(",") || self.is("]")) {
            step = Some(bx(self.test()?));
        }
        Some(Expr {
            span: span(start, self.prev_end()),
            kind: ExprKind::Slice {
                lower: lower.map(bx),
                upper,
                step,
            },
        })
    }

    /// `yield`, `yield x, y`, `yield from x`.
    pub(super) fn yield_expr(&mut self) -> Option<Expr> {
        let t = self.expect("yield")?;
        let value = if self.eat("from").is_some() {
            Some(self.test()?)
        } else if self.starts_expr() {
            Some(self.exprs(false)?)
        } else {
            None
        };
        let end = value.as_ref().map_or(t.e as usize, |v| v.span.end);
        Some(Expr {
            span: span(t.s, end),
            kind: ExprKind::Yield(value.map(bx)),
        })
    }
}
