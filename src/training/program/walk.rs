//! Walks over statements and expressions, with their ancestors.

use super::*;

impl Program {
    /// Visits every expression of a scope's own statements (not nested
    /// definitions) with its ancestors.
    pub fn walk_exprs<'p>(&'p self, scope: Scope, visit: &mut dyn FnMut(&[Anc<'p>], &'p Expr)) {
        let mut stack = Vec::new();
        for s in self.body(scope) {
            walk_stmt(s, &mut stack, &mut |anc, node| {
                if let Node::Expr(e) = node {
                    visit(anc, e);
                }
            });
        }
    }

    /// Whether some assignment (plain or augmented) of the training code,
    /// in a chunk that mentions `word`, has a target `stored` accepts (given
    /// the target's scope).
    pub fn any_store(&self, word: &str, stored: &dyn Fn(Scope, &Expr) -> bool) -> bool {
        for m in self.code_modules() {
            let chunks: Vec<u32> = self.chunks_mentioning(m, &[word]).collect();
            for c in chunks {
                for scope in self.scopes(m, c) {
                    let mut hit = false;
                    self.walk_stmts(scope, &mut |_, st| match &st.kind {
                        StmtKind::Assign { targets, .. } => hit |= targets.iter().any(|t| stored(scope, t)),
                        StmtKind::AugAssign { target, .. } => hit |= stored(scope, target),
                        _ => {}
                    });
                    if hit {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Visits every statement of a scope with its ancestors.
    pub fn walk_stmts<'p>(&'p self, scope: Scope, visit: &mut dyn FnMut(&[Anc<'p>], &'p Stmt)) {
        let mut stack = Vec::new();
        for s in self.body(scope) {
            walk_stmt(s, &mut stack, &mut |anc, node| {
                if let Node::Stmt(st) = node {
                    visit(anc, st);
                }
            });
        }
    }
}

/// A node during a walk.
pub enum Node<'p> {
    Stmt(&'p Stmt),
    Expr(&'p Expr),
}

/// Pre-order walk of a statement: nested statements and expressions, not
/// into definitions (their bodies are other scopes), with ancestors.
pub fn walk_stmt<'p>(s: &'p Stmt, stack: &mut Vec<Anc<'p>>, visit: &mut dyn FnMut(&[Anc<'p>], Node<'p>)) {
    if stack.len() > 512 {
        return;
    }
    visit(stack, Node::Stmt(s));
    stack.push(Anc::Stmt(s));
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Raise(Some(e)) => walk_expr(e, stack, visit),
        StmtKind::Assign { targets, value } => {
            for t in targets {
                walk_expr(t, stack, visit);
            }
            walk_expr(value, stack, visit);
        }
        StmtKind::AugAssign { target, value, .. } => {
            walk_expr(target, stack, visit);
            walk_expr(value, stack, visit);
        }
        StmtKind::AnnAssign { target, value } => {
            walk_expr(target, stack, visit);
            if let Some(v) = value {
                walk_expr(v, stack, visit);
            }
        }
        StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
            walk_expr(test, stack, visit);
            for b in body.iter().chain(orelse) {
                walk_stmt(b, stack, visit);
            }
        }
        StmtKind::For {
            target,
            iter,
            body,
            orelse,
        } => {
            walk_expr(target, stack, visit);
            walk_expr(iter, stack, visit);
            for b in body.iter().chain(orelse) {
                walk_stmt(b, stack, visit);
            }
        }
        StmtKind::With { items, body } => {
            for i in items {
                walk_expr(&i.ctx, stack, visit);
                if let Some(v) = &i.var {
                    walk_expr(v, stack, visit);
                }
            }
            for b in body {
                walk_stmt(b, stack, visit);
            }
        }
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            for b in body {
                walk_stmt(b, stack, visit);
            }
            for h in handlers {
                stack.push(Anc::Handler(h));
                if let Some(t) = &h.types {
                    walk_expr(t, stack, visit);
                }
                for b in &h.body {
                    walk_stmt(b, stack, visit);
                }
                stack.pop();
            }
            for b in orelse.iter().chain(finalbody) {
                walk_stmt(b, stack, visit);
            }
        }
        _ => {}
    }
    stack.pop();
}

/// Pre-order walk of an expression with ancestors (lambdas included).
pub fn walk_expr<'p>(e: &'p Expr, stack: &mut Vec<Anc<'p>>, visit: &mut dyn FnMut(&[Anc<'p>], Node<'p>)) {
    if stack.len() > 512 {
        return;
    }
    visit(stack, Node::Expr(e));
    stack.push(Anc::Expr(e));
    match &e.kind {
        ExprKind::Attribute { value, .. } => walk_expr(value, stack, visit),
        ExprKind::Call { func, args, .. } => {
            walk_expr(func, stack, visit);
            for a in args {
                match a {
                    Arg::Pos(x) | Arg::Star(x) | Arg::StarStar(x) => walk_expr(x, stack, visit),
                    Arg::Kw { value, .. } => walk_expr(value, stack, visit),
                }
            }
        }
        ExprKind::Subscript { value, index } => {
            walk_expr(value, stack, visit);
            walk_expr(index, stack, visit);
        }
        ExprKind::Slice { lower, upper, step } => {
            for x in [lower, upper, step].into_iter().flatten() {
                walk_expr(x, stack, visit);
            }
        }
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
            for i in items {
                walk_expr(i, stack, visit);
            }
        }
        ExprKind::Dict(items) => {
            for i in items {
                match i {
                    DictItem::Pair { key, value, .. } => {
                        walk_expr(key, stack, visit);
                        walk_expr(value, stack, visit);
                    }
                    DictItem::Splat(x) => walk_expr(x, stack, visit),
                }
            }
        }
        ExprKind::Comp { elt, value, gens, .. } => {
            for g in gens {
                walk_expr(&g.iter, stack, visit);
                stack.push(Anc::Comp(g));
                walk_expr(&g.target, stack, visit);
                for c in &g.ifs {
                    walk_expr(c, stack, visit);
                }
                stack.pop();
            }
            // The element sees the generators' targets.
            let n = gens.len();
            for g in gens {
                stack.push(Anc::Comp(g));
            }
            walk_expr(elt, stack, visit);
            if let Some(v) = value {
                walk_expr(v, stack, visit);
            }
            for _ in 0..n {
                stack.pop();
            }
        }
        ExprKind::BinOp { left, right, .. } | ExprKind::BoolOp { left, right, .. } => {
            walk_expr(left, stack, visit);
            walk_expr(right, stack, visit);
        }
        ExprKind::Unary { operand: x, .. }
        | ExprKind::Not(x)
        | ExprKind::Lambda(x)
        | ExprKind::Starred(x)
        | ExprKind::Await(x)
        | ExprKind::Named { value: x, .. } => walk_expr(x, stack, visit),
        ExprKind::Yield(Some(x)) => walk_expr(x, stack, visit),
        ExprKind::Compare { left, rest } => {
            walk_expr(left, stack, visit);
            for (_, r) in rest {
                walk_expr(r, stack, visit);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            walk_expr(body, stack, visit);
            walk_expr(test, stack, visit);
            walk_expr(orelse, stack, visit);
        }
        _ => {}
    }
    stack.pop();
}

/// The test of `st` when it is an `if` and one of its arms holds `inner`,
/// with whether that arm is the body (`true`) or the `else` (`false`).
pub fn if_arm(st: &Stmt, inner: crate::source::Span) -> Option<(&Expr, bool)> {
    let StmtKind::If { test, body, orelse } = &st.kind else {
        return None;
    };
    let holds = |stmts: &[Stmt]| {
        stmts
            .iter()
            .any(|b| b.span.start <= inner.start && inner.end <= b.span.end)
    };
    if holds(body) {
        Some((test, true))
    } else if holds(orelse) {
        Some((test, false))
    } else {
        None
    }
}

/// The statement blocks of `s`: the bodies, `else`s, `finally` and
/// handlers of a compound statement (none for a simple one).
pub fn blocks_of(s: &Stmt) -> Vec<&[Stmt]> {
    match &s.kind {
        StmtKind::If { body, orelse, .. }
        | StmtKind::For { body, orelse, .. }
        | StmtKind::While { body, orelse, .. } => {
            vec![body, orelse]
        }
        StmtKind::With { body, .. } => vec![body],
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            let mut v: Vec<&[Stmt]> = vec![body, orelse, finalbody];
            v.extend(handlers.iter().map(|h| h.body.as_slice()));
            v
        }
        _ => Vec::new(),
    }
}

/// Whether `value` is `super()` or `super(Cls, self)`: the receiver of a
/// call of the base class's method (`super().__init__(…)`).
pub fn is_super_call(value: &Expr) -> bool {
    matches!(&value.kind, ExprKind::Call { func, .. } if matches!(&func.kind, ExprKind::Name(n) if n == "super"))
}
