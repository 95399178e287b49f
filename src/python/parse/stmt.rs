//! Statements, blocks and definitions.

use super::defs::open_ended;
use super::*;

const AUG: [&str; 13] = [
    "+=", "-=", "*=", "/=", "//=", "%=", "**=", ">>=", "<<=", "&=", "|=", "^=", "@=",
];

impl Parser<'_> {
    /// One statement line (several simple statements) or one compound
    /// statement, pushed to `out`; the end of what it holds (a comment after
    /// a simple statement line included).
    pub(super) fn statement(&mut self, out: &mut Vec<Stmt>) -> Option<usize> {
        self.enter()?;
        let end = self.statement_inner(out);
        self.leave(1);
        end
    }

    pub(super) fn statement_inner(&mut self, out: &mut Vec<Stmt>) -> Option<usize> {
        let t = self.peek();
        if t.k == K::Name {
            let compound = match self.slice(t) {
                "if" => Some(self.if_stmt()?),
                "for" => Some(self.for_stmt()?),
                "while" => Some(self.while_stmt()?),
                "try" => Some(self.try_stmt()?),
                "with" => Some(self.with_stmt()?),
                "def" => Some(self.def(t.s, Vec::new())?),
                "class" => Some(self.class(t.s, Vec::new())?),
                "async" if self.is_at(1, "def") => {
                    self.bump();
                    Some(self.def(t.s, Vec::new())?)
                }
                _ => None,
            };
            if let Some((kind, end)) = compound {
                out.push(Stmt {
                    span: span(t.s, end),
                    kind,
                });
                return Some(end);
            }
        } else if t.k == K::Op && self.slice(t) == "@" {
            let (kind, end) = self.decorated()?;
            out.push(Stmt {
                span: span(t.s, end),
                kind,
            });
            return Some(end);
        }
        self.simple_line(out)
    }

    /// Simple statements separated by `;`, then the line's end. The end
    /// returned (where a block holding the line ends) takes in a trailing `;`
    /// and a trailing comment, as tree-sitter's block does.
    pub(super) fn simple_line(&mut self, out: &mut Vec<Stmt>) -> Option<usize> {
        let mut trailing = 0;
        loop {
            let stmt = self.simple()?;
            out.push(stmt);
            let Some(semi) = self.eat(";") else { break };
            if self.peek().k == K::Newline {
                trailing = semi.e as usize;
                break;
            }
        }
        // A line ending in a comma (`x,`): tree-sitter may read the next
        // line on as part of it (`type` there starts its type-alias rule),
        // so such a line is left to it.
        let last = self.pos.checked_sub(1).and_then(|i| self.toks.get(i));
        if last.is_some_and(|t| t.k == K::Op && self.slice(*t) == ",") {
            return None;
        }
        let nl = self.expect_kind(K::Newline)?;
        Some(self.prev_stmt_end(out).max(nl.x as usize).max(trailing))
    }

    pub(super) fn prev_stmt_end(&self, out: &[Stmt]) -> usize {
        out.last().map_or(0, |s| s.span.end)
    }

    pub(super) fn simple(&mut self) -> Option<Stmt> {
        let t = self.peek();
        if t.k == K::Name {
            let word = self.slice(t);
            let simple = |kind| {
                Some(Stmt {
                    span: span(t.s, t.e as usize),
                    kind,
                })
            };
            match word {
                "pass" => {
                    self.bump();
                    return simple(StmtKind::Pass);
                }
                "break" => {
                    self.bump();
                    return simple(StmtKind::Break);
                }
                "continue" => {
                    self.bump();
                    return simple(StmtKind::Continue);
                }
                "return" | "raise" => {
                    self.bump();
                    let value = if !self.starts_expr() {
                        None
                    } else if word == "return" {
                        Some(self.exprs(false)?)
                    } else {
                        let v = self.test()?;
                        if self.eat("from").is_some() {
                            self.test()?;
                        }
                        Some(v)
                    };
                    let kind = if word == "return" {
                        StmtKind::Return(value)
                    } else {
                        StmtKind::Raise(value)
                    };
                    return Some(Stmt {
                        span: span(t.s, self.prev_end()),
                        kind,
                    });
                }
                "del" => {
                    self.bump();
                    self.exprs(false)?;
                    return self.other(t);
                }
                "assert" => {
                    self.bump();
                    self.test()?;
                    if self.eat(",").is_some() {
                        self.test()?;
                    }
                    return self.other(t);
                }
                "global" | "nonlocal" => {
                    self.bump();
                    self.name()?;
                    while self.eat(",").is_some() {
                        self.name()?;
                    }
                    return self.other(t);
                }
                "import" => return self.import(t),
                "from" => return self.import_from(t),
                // Soft keywords and Python 2 statements: only the plain shapes.
                "match" | "type" => {
                    let next = self.peek_at(1);
                    let s = self.slice(next);
                    let plain = next.k == K::Op && (s == "=" || s == "." || AUG.contains(&s));
                    // `type X = …` is a type alias; `type, v = …` is not.
                    let plain = plain || (word == "type" && next.k == K::Op && s == ",");
                    if !plain {
                        return None;
                    }
                }
                "print" | "exec" => {
                    if !self.is_at(1, "(") {
                        return None;
                    }
                    let e = self.exprs(false)?;
                    let plain =
                        matches!(&e.kind, ExprKind::Call { func, .. } if matches!(func.kind, ExprKind::Name(_)));
                    if !plain || !(self.is(";") || self.peek().k == K::Newline) {
                        return None;
                    }
                    return Some(Stmt {
                        span: e.span,
                        kind: StmtKind::Expr(e),
                    });
                }
                _ => {}
            }
        }
        self.expr_stmt()
    }

    pub(super) fn other(&self, t: Tok) -> Option<Stmt> {
        Some(Stmt {
            span: span(t.s, self.prev_end()),
            kind: StmtKind::Other,
        })
    }

    /// A right side: a yield or an expression list.
    pub(super) fn rhs(&mut self) -> Option<Expr> {
        if self.is("yield") {
            self.yield_expr()
        } else {
            self.exprs(false)
        }
    }

    pub(super) fn expr_stmt(&mut self) -> Option<Stmt> {
        let start = self.peek().s;
        if self.is("yield") {
            let e = self.yield_expr()?;
            return Some(Stmt {
                span: e.span,
                kind: StmtKind::Expr(e),
            });
        }
        let first = self.exprs(true)?;
        let t = self.peek();
        let op = if t.k == K::Op { self.slice(t) } else { "" };
        let kind = if op == "=" {
            let mut targets = vec![first];
            let mut value;
            loop {
                self.bump();
                value = self.rhs()?;
                if !self.is("=") {
                    break;
                }
                targets.push(value);
            }
            for t in &targets {
                self.check_target(t)?;
            }
            no_star(&value)?;
            StmtKind::Assign { targets, value }
        } else if op == ":" {
            self.bump();
            self.single_target(&first)?;
            let a = self.test()?;
            self.annotation(a)?;
            if self.eat("=").is_some() {
                let value = self.rhs()?;
                no_star(&value)?;
                StmtKind::Assign {
                    targets: vec![first],
                    value,
                }
            } else {
                StmtKind::AnnAssign {
                    target: first,
                    value: None,
                }
            }
        } else if AUG.contains(&op) {
            self.bump();
            self.single_target(&first)?;
            let value = self.rhs()?;
            no_star(&value)?;
            StmtKind::AugAssign {
                target: first,
                op: op.to_string(),
                value,
            }
        } else {
            no_star(&first)?;
            match first.kind {
                // `f(),`: tree-sitter's statement holds the call alone.
                ExprKind::Tuple(mut items)
                    if items.len() == 1 && items.first().is_some_and(|i| i.span.start == first.span.start) =>
                {
                    StmtKind::Expr(items.pop()?)
                }
                kind => StmtKind::Expr(Expr { span: first.span, kind }),
            }
        };
        Some(Stmt {
            span: span(start, self.prev_end()),
            kind,
        })
    }

    pub(super) fn single_target(&self, e: &Expr) -> Option<()> {
        match e.kind {
            ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => self.check_target(e),
            _ => None,
        }
    }

    pub(super) fn dotted(&mut self) -> Option<String> {
        let first = self.name()?;
        let mut out = self.slice(first).to_string();
        while self.is(".") {
            let dot = self.bump();
            let n = self.name()?;
            // `a . b` keeps its spaces in tree-sitter's text.
            if dot.s != first.e.max(dot.s) || n.s != dot.e {
                return None;
            }
            out.push('.');
            out.push_str(self.slice(n));
        }
        Some(out)
    }

    pub(super) fn alias(&mut self) -> Option<Alias> {
        let name = self.dotted()?;
        let alias = if self.eat("as").is_some() {
            let a = self.name()?;
            Some(self.slice(a).to_string())
        } else {
            None
        };
        Some(Alias { name, alias })
    }

    pub(super) fn import(&mut self, t: Tok) -> Option<Stmt> {
        self.bump();
        let mut names = vec![self.alias()?];
        while self.eat(",").is_some() {
            names.push(self.alias()?);
        }
        Some(Stmt {
            span: span(t.s, self.prev_end()),
            kind: StmtKind::Import(names),
        })
    }

    pub(super) fn import_from(&mut self, t: Tok) -> Option<Stmt> {
        self.bump();
        let mut level = 0u32;
        let mut prev_end = None;
        loop {
            let d = self.peek();
            let n = match self.slice(d) {
                "." if d.k == K::Op => 1,
                "..." if d.k == K::Op => 3,
                _ => break,
            };
            // Dots apart (`. .`) are left to tree-sitter.
            if prev_end.is_some_and(|e| e != d.s) {
                return None;
            }
            prev_end = Some(d.e);
            self.bump();
            level += n;
        }
        let module = if self.is("import") {
            if level == 0 {
                return None;
            }
            String::new()
        } else {
            if prev_end.is_some_and(|e| e != self.peek().s) {
                return None;
            }
            self.dotted()?
        };
        self.expect("import")?;
        let mut names = Vec::new();
        let mut star = false;
        if self.eat("*").is_some() {
            star = true;
        } else if self.eat("(").is_some() {
            loop {
                names.push(self.alias()?);
                if self.eat(",").is_none() || self.is(")") {
                    break;
                }
            }
            self.expect(")")?;
        } else {
            names.push(self.alias()?);
            while self.eat(",").is_some() {
                names.push(self.alias()?);
            }
        }
        let kind = if module == "__future__" && level == 0 {
            StmtKind::Other
        } else {
            StmtKind::ImportFrom {
                module,
                level,
                names,
                star,
            }
        };
        Some(Stmt {
            span: span(t.s, self.prev_end()),
            kind,
        })
    }

    /// After a `:`, the block: an indented one or statements on the line;
    /// and where it ends.
    pub(super) fn block(&mut self) -> Option<(Vec<Stmt>, usize)> {
        self.expect(":")?;
        let mut out = Vec::new();
        if self.peek().k != K::Newline {
            let end = self.simple_line(&mut out)?;
            return Some((out, end));
        }
        self.bump();
        self.expect_kind(K::Indent)?;
        let mut end = 0;
        loop {
            let t = self.peek();
            match t.k {
                K::Dedent => {
                    self.bump();
                    end = end.max(t.x as usize);
                    break;
                }
                K::Eof => return None,
                _ => end = end.max(self.statement(&mut out)?),
            }
        }
        Some((out, end))
    }

    pub(super) fn if_stmt(&mut self) -> Option<(StmtKind, usize)> {
        self.bump();
        let test = self.named_test()?;
        let (body, end) = self.block()?;
        let (orelse, end) = self.elif_chain(end)?;
        Some((StmtKind::If { test, body, orelse }, end))
    }

    /// The `elif`/`else` clauses after an `if` block ending at `end`.
    pub(super) fn elif_chain(&mut self, end: usize) -> Option<(Vec<Stmt>, usize)> {
        if self.is("elif") {
            let t = self.bump();
            self.enter()?;
            let test = self.named_test()?;
            let (body, end) = self.block()?;
            let (orelse, end) = self.elif_chain(end)?;
            self.leave(1);
            return Some((
                vec![Stmt {
                    span: span(t.s, end),
                    kind: StmtKind::If { test, body, orelse },
                }],
                end,
            ));
        }
        self.else_block(end)
    }

    pub(super) fn else_block(&mut self, end: usize) -> Option<(Vec<Stmt>, usize)> {
        if self.eat("else").is_some() {
            return self.block();
        }
        Some((Vec::new(), end))
    }

    pub(super) fn for_stmt(&mut self) -> Option<(StmtKind, usize)> {
        self.bump();
        let target = self.targets()?;
        self.expect("in")?;
        let iter = self.exprs(false)?;
        let (body, end) = self.block()?;
        let (orelse, end) = self.else_block(end)?;
        Some((
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            },
            end,
        ))
    }

    pub(super) fn while_stmt(&mut self) -> Option<(StmtKind, usize)> {
        self.bump();
        let test = self.named_test()?;
        let (body, end) = self.block()?;
        let (orelse, end) = self.else_block(end)?;
        Some((StmtKind::While { test, body, orelse }, end))
    }

    pub(super) fn try_stmt(&mut self) -> Option<(StmtKind, usize)> {
        self.bump();
        let (body, mut end) = self.block()?;
        let mut handlers = Vec::new();
        while self.is("except") {
            let k = self.bump();
            if self.is("*") {
                return None;
            }
            let mut types = None;
            let mut name = None;
            if !self.is(":") {
                types = Some(self.test()?);
                if self.eat("as").is_some() {
                    open_ended(types.as_ref()?)?;
                    let n = self.name()?;
                    name = Some(self.slice(n).to_string());
                }
            }
            let (hbody, hend) = self.block()?;
            end = hend;
            handlers.push(Handler {
                span: span(k.s, hend),
                keyword: span(k.s, k.e as usize),
                types,
                name,
                body: hbody,
            });
        }
        let mut orelse = Vec::new();
        if !handlers.is_empty() && self.eat("else").is_some() {
            let (b, e) = self.block()?;
            orelse = b;
            end = e;
        }
        let mut finalbody = Vec::new();
        if self.eat("finally").is_some() {
            let (b, e) = self.block()?;
            finalbody = b;
            end = e;
        } else if handlers.is_empty() {
            return None;
        }
        Some((
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            },
            end,
        ))
    }

    pub(super) fn with_stmt(&mut self) -> Option<(StmtKind, usize)> {
        self.bump();
        if self.is("(") {
            return None;
        }
        let mut items = Vec::new();
        loop {
            let ctx = self.test()?;
            let var = if self.eat("as").is_some() {
                open_ended(&ctx)?;
                let v = self.primary()?;
                self.check_target(&v)?;
                if !(self.is(",") || self.is(":")) {
                    return None;
                }
                Some(v)
            } else {
                None
            };
            items.push(WithItem { ctx, var });
            if self.eat(",").is_none() {
                break;
            }
        }
        let (body, end) = self.block()?;
        Some((StmtKind::With { items, body }, end))
    }
}

/// A starred item outside a target is left to tree-sitter.
fn no_star(e: &Expr) -> Option<()> {
    match &e.kind {
        ExprKind::Starred(_) => None,
        // `x = *a, b` is Python; tree-sitter's reading is not checked here
        // (a parenthesized tuple's items start after its `(`).
        ExprKind::Tuple(items)
            if items.first().is_some_and(|f| f.span.start == e.span.start)
                && items.iter().any(|i| matches!(i.kind, ExprKind::Starred(_))) =>
        {
            None
        }
        _ => Some(()),
    }
}
