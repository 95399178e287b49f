//! Definitions (decorators, functions, parameters, classes) and
//! annotations as tree-sitter reads them.

use super::*;

impl Parser<'_> {
    pub(super) fn decorated(&mut self) -> Option<(StmtKind, usize)> {
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
    pub(super) fn def(&mut self, start: u32, decorators: Vec<Expr>) -> Option<(StmtKind, usize)> {
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

    pub(super) fn params(&mut self) -> Option<Vec<Param>> {
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

    pub(super) fn class(&mut self, start: u32, decorators: Vec<Expr>) -> Option<(StmtKind, usize)> {
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
pub(super) fn open_ended(e: &Expr) -> Option<()> {
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
    pub(super) fn annotation(&self, e: Expr) -> Option<Expr> {
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
    pub(super) fn generic(&self, e: &Expr) -> Option<bool> {
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

    pub(super) fn starts_with(&self, e: &Expr, c: u8) -> bool {
        self.text.as_bytes().get(e.span.start) == Some(&c)
    }

    /// Whether no `Name[…]` heads the chain of attributes, calls and
    /// subscripts of `e` (where tree-sitter would start a generic type).
    pub(super) fn head_ok(&self, e: &Expr) -> bool {
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
