//! Statements, blocks and definitions.

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

    fn statement_inner(&mut self, out: &mut Vec<Stmt>) -> Option<usize> {
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

    /// Simple statements separated by `;`, then the line's end.
    fn simple_line(&mut self, out: &mut Vec<Stmt>) -> Option<usize> {
        loop {
            let stmt = self.simple()?;
            out.push(stmt);
            if self.eat(";").is_none() || self.peek().k == K::Newline {
                break;
            }
        }
        let nl = self.expect_kind(K::Newline)?;
        Some(self.prev_stmt_end(out).max(nl.x as usize))
    }

    fn prev_stmt_end(&self, out: &[Stmt]) -> usize {
        out.last().map_or(0, |s| s.span.end)
    }

    fn simple(&mut self) -> Option<Stmt> {
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

    fn other(&self, t: Tok) -> Option<Stmt> {
        Some(Stmt {
            span: span(t.s, self.prev_end()),
            kind: StmtKind::Other,
        })
    }

    /// A right side: a yield or an expression list.
    fn rhs(&mut self) -> Option<Expr> {
        if self.is("yield") {
            self.yield_expr()
        } else {
            self.exprs(false)
        }
    }

    fn expr_stmt(&mut self) -> Option<Stmt> {
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
                self.bump_joined();
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
            self.bump_joined();
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
            StmtKind::Expr(first)
        };
        Some(Stmt {
            span: span(start, self.prev_end()),
            kind,
        })
    }

    fn single_target(&self, e: &Expr) -> Option<()> {
        match e.kind {
            ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => self.check_target(e),
            _ => None,
        }
    }

    fn dotted(&mut self) -> Option<String> {
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

    fn alias(&mut self) -> Option<Alias> {
        let name = self.dotted()?;
        let alias = if self.eat("as").is_some() {
            let a = self.name()?;
            Some(self.slice(a).to_string())
        } else {
            None
        };
        Some(Alias { name, alias })
    }

    fn import(&mut self, t: Tok) -> Option<Stmt> {
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

    fn import_from(&mut self, t: Tok) -> Option<Stmt> {
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
    fn block(&mut self) -> Option<(Vec<Stmt>, usize)> {
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

    fn if_stmt(&mut self) -> Option<(StmtKind, usize)> {
        self.bump();
        let test = self.named_test()?;
        let (body, end) = self.block()?;
        let (orelse, end) = self.elif_chain(end)?;
        Some((StmtKind::If { test, body, orelse }, end))
    }

    /// The `elif`/`else` clauses after an `if` block ending at `end`.
    fn elif_chain(&mut self, end: usize) -> Option<(Vec<Stmt>, usize)> {
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

    fn else_block(&mut self, end: usize) -> Option<(Vec<Stmt>, usize)> {
        if self.eat("else").is_some() {
            return self.block();
        }
        Some((Vec::new(), end))
    }

    fn for_stmt(&mut self) -> Option<(StmtKind, usize)> {
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

    fn while_stmt(&mut self) -> Option<(StmtKind, usize)> {
        self.bump();
        let test = self.named_test()?;
        let (body, end) = self.block()?;
        let (orelse, end) = self.else_block(end)?;
        Some((StmtKind::While { test, body, orelse }, end))
    }

    fn try_stmt(&mut self) -> Option<(StmtKind, usize)> {
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

    fn with_stmt(&mut self) -> Option<(StmtKind, usize)> {
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

    fn decorated(&mut self) -> Option<(StmtKind, usize)> {
        let mut decorators = Vec::new();
        while self.eat("@").is_some() {
            decorators.push(self.named_test()?);
            self.expect_kind(K::Newline)?;
        }
        let t = self.peek();
        match self.slice(t) {
            "def" => self.def(t.s, decorators),
            "async" if self.is_at(1, "def") => {
                self.bump();
                self.def(t.s, decorators)
            }
            "class" => self.class(t.s, decorators),
            _ => None,
        }
    }

    /// `def` (after any `async`), the definition starting at `start`.
    fn def(&mut self, start: u32, decorators: Vec<Expr>) -> Option<(StmtKind, usize)> {
        self.expect("def")?;
        let n = self.name()?;
        let idx = self.funcs.len() as FuncIdx;
        let params = self.params()?;
        if self.eat("->").is_some() {
            let a = self.test()?;
            self.annotation(a)?;
        }
        self.funcs.push(Function {
            name: self.slice(n).to_string(),
            name_span: span(n.s, n.e as usize),
            span: Span::default(),
            params,
            body: Vec::new(),
            decorators,
            parent: self.parent,
        });
        let saved = std::mem::replace(&mut self.parent, Parent::Func(idx));
        let block = self.block();
        self.parent = saved;
        let (body, end) = block?;
        let f = self.funcs.get_mut(idx as usize)?;
        f.body = body;
        f.span = span(start, end);
        Some((StmtKind::FunctionDef(idx), end))
    }

    fn params(&mut self) -> Option<Vec<Param>> {
        self.expect("(")?;
        let mut out = Vec::new();
        let mut kw_only = false;
        while !self.is(")") {
            let start = self.peek().s;
            let kind = if self.eat("**").is_some() {
                ParamKind::KwArgs
            } else if self.eat("*").is_some() {
                if self.is(",") || self.is(")") {
                    if kw_only {
                        return None;
                    }
                    kw_only = true;
                    if self.eat(",").is_none() {
                        break;
                    }
                    continue;
                }
                ParamKind::VarArgs
            } else if self.eat("/").is_some() {
                if self.eat(",").is_none() {
                    break;
                }
                continue;
            } else if kw_only {
                ParamKind::KwOnly
            } else {
                ParamKind::Normal
            };
            let n = self.name()?;
            let annotation = if self.eat(":").is_some() {
                let a = self.test()?;
                Some(self.annotation(a)?)
            } else {
                None
            };
            let default = if matches!(kind, ParamKind::Normal | ParamKind::KwOnly) && self.eat("=").is_some() {
                Some(self.test()?)
            } else {
                None
            };
            if kind == ParamKind::VarArgs {
                kw_only = true;
            }
            out.push(Param {
                name: self.slice(n).to_string(),
                span: span(start, self.prev_end()),
                kind,
                default,
                annotation,
            });
            if self.eat(",").is_none() {
                break;
            }
        }
        self.expect(")")?;
        Some(out)
    }

    fn class(&mut self, start: u32, decorators: Vec<Expr>) -> Option<(StmtKind, usize)> {
        self.expect("class")?;
        let n = self.name()?;
        let mut bases = Vec::new();
        let mut keywords = Vec::new();
        if self.is("(") {
            let (args, _) = self.call_args()?;
            for a in args {
                match a {
                    Arg::Pos(Expr {
                        kind:
                            ExprKind::Comp {
                                kind: CompKind::Generator,
                                ..
                            },
                        ..
                    }) => return None,
                    Arg::Pos(e) => bases.push(e),
                    Arg::Kw { name, value, .. } => keywords.push((name, value)),
                    _ => {}
                }
            }
        }
        let idx = self.classes.len() as ClassIdx;
        self.classes.push(Class {
            name: self.slice(n).to_string(),
            name_span: span(n.s, n.e as usize),
            span: Span::default(),
            bases,
            keywords,
            body: Vec::new(),
            decorators,
            parent: self.parent,
        });
        let saved = std::mem::replace(&mut self.parent, Parent::Class(idx));
        let block = self.block();
        self.parent = saved;
        let (body, end) = block?;
        let c = self.classes.get_mut(idx as usize)?;
        c.body = body;
        c.span = span(start, end);
        Some((StmtKind::ClassDef(idx), end))
    }
}

/// `None` when an `as` after `e` could be read into it (`a if b else c as
/// d`: tree-sitter takes `c as d` as the `else` branch).
fn open_ended(e: &Expr) -> Option<()> {
    match e.kind {
        ExprKind::IfExp { .. }
        | ExprKind::Lambda(_)
        | ExprKind::BoolOp { .. }
        | ExprKind::Not(_)
        | ExprKind::Compare { .. }
        | ExprKind::BinOp { .. }
        | ExprKind::Unary { .. }
        | ExprKind::Named { .. }
        | ExprKind::Yield(_)
        | ExprKind::Await(_)
        | ExprKind::Starred(_) => None,
        _ => Some(()),
    }
}

impl Parser<'_> {
    /// An annotation as tree-sitter's `type` reads it: `Name[…]` is a generic
    /// type (`Other`), as is a union starting with one; other expressions
    /// are themselves. `None` for the shapes it reads otherwise or not at
    /// all (`a[b][c]`, `a[b].c`, a generic after `|`).
    fn annotation(&self, e: Expr) -> Option<Expr> {
        if self.generic(&e)? {
            return Some(Expr {
                span: e.span,
                kind: ExprKind::Other,
            });
        }
        if let ExprKind::BinOp { left, op, right } = &e.kind {
            if op == "|" {
                let mut first = left.as_ref();
                let mut rest = vec![right.as_ref()];
                while let ExprKind::BinOp { left, op, right } = &first.kind {
                    if op != "|" {
                        break;
                    }
                    rest.push(right);
                    first = left;
                }
                let simple = |x: &Expr| {
                    matches!(
                        x.kind,
                        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::None | ExprKind::Str(_)
                    ) && self.head_ok(x)
                };
                if !rest.iter().all(|x| simple(x)) {
                    return None;
                }
                if self.generic(first)? {
                    return Some(Expr {
                        span: e.span,
                        kind: ExprKind::Other,
                    });
                }
                if !simple(first) {
                    return None;
                }
                return Some(e);
            }
        }
        if !self.head_ok(&e)
            || matches!(
                e.kind,
                ExprKind::Starred(_) | ExprKind::Named { .. } | ExprKind::Yield(_)
            )
        {
            return None;
        }
        Some(e)
    }

    /// Whether `e` is `Name[…]` with type parameters tree-sitter reads as
    /// types (`None`: it is, with others).
    fn generic(&self, e: &Expr) -> Option<bool> {
        let ExprKind::Subscript { value, index } = &e.kind else {
            return Some(false);
        };
        if !matches!(value.kind, ExprKind::Name(_)) || value.span.start != e.span.start || self.starts_with(value, b'(')
        {
            return Some(false);
        }
        let items: Vec<&Expr> = match &index.kind {
            ExprKind::Tuple(items) if !self.starts_with(index, b'(') => items.iter().collect(),
            _ => vec![index.as_ref()],
        };
        for item in items {
            if matches!(item.kind, ExprKind::Slice { .. }) {
                return None;
            }
            self.annotation(item.clone())?;
        }
        Some(true)
    }

    fn starts_with(&self, e: &Expr, c: u8) -> bool {
        self.text.as_bytes().get(e.span.start) == Some(&c)
    }

    /// Whether no `Name[…]` heads the chain of attributes, calls and
    /// subscripts of `e` (where tree-sitter would start a generic type).
    fn head_ok(&self, e: &Expr) -> bool {
        let mut cur = e;
        let mut top = true;
        loop {
            match &cur.kind {
                ExprKind::Attribute { value, .. } | ExprKind::Call { func: value, .. } => cur = value,
                ExprKind::Subscript { value, .. } => {
                    if !top && matches!(value.kind, ExprKind::Name(_)) {
                        return false;
                    }
                    if top && matches!(value.kind, ExprKind::Name(_)) {
                        return false;
                    }
                    cur = value;
                }
                _ => return true,
            }
            top = false;
        }
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
