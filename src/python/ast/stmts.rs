//! Statements and definitions, converted.

use tree_sitter::Node;

use super::convert::*;
use super::*;
use crate::python_grammar::KindName;

impl<'t> Conv<'t> {
    /// The statements of a `block` or `module` node.
    pub(super) fn block_children(&mut self, node: Node<'_>) -> Vec<Stmt> {
        self.statements(named(node))
    }

    /// The statements among `children` (the named children of a block).
    pub(super) fn statements(&mut self, children: Vec<Node<'_>>) -> Vec<Stmt> {
        let mut out = Vec::new();
        for child in children {
            if child.is_error() || child.is_missing() {
                // Statements the grammar could still recognise inside.
                for inner in named(child) {
                    if inner.kind_name().ends_with("statement") || inner.kind_name().ends_with("definition") {
                        self.stmt(inner, &mut out);
                    }
                }
                continue;
            }
            self.stmt(child, &mut out);
        }
        out
    }

    pub(super) fn block_field(&mut self, node: Node<'_>, field: &str) -> Vec<Stmt> {
        match node.field(field) {
            Some(b) => self.block_children(b),
            None => Vec::new(),
        }
    }

    pub(super) fn stmt(&mut self, node: Node<'_>, out: &mut Vec<Stmt>) {
        if self.depth >= MAX_DEPTH {
            out.push(Stmt {
                span: span(node),
                kind: StmtKind::Other,
            });
            return;
        }
        self.depth += 1;
        let kind = self.stmt_kind(node, out);
        self.depth -= 1;
        if let Some(kind) = kind {
            out.push(Stmt { span: span(node), kind });
        }
    }

    /// The statement's kind; `None` when it was pushed already (several
    /// statements from one node) or is nothing.
    pub(super) fn stmt_kind(&mut self, node: Node<'_>, out: &mut Vec<Stmt>) -> Option<StmtKind> {
        Some(match node.kind_name() {
            "expression_statement" => {
                let children = named(node);
                match children.as_slice() {
                    [one] => match one.kind_name() {
                        "assignment" => self.assignment(*one),
                        "augmented_assignment" => StmtKind::AugAssign {
                            target: self.field_expr(*one, "left"),
                            op: one
                                .field("operator")
                                .map(|o| self.slice(o).to_string())
                                .unwrap_or_default(),
                            value: self.field_expr(*one, "right"),
                        },
                        _ => StmtKind::Expr(self.expr(*one)),
                    },
                    [] => return None,
                    many => StmtKind::Expr(Expr {
                        span: span(node),
                        kind: ExprKind::Tuple(many.iter().map(|c| self.expr(*c)).collect()),
                    }),
                }
            }
            "return_statement" => StmtKind::Return(first_named(node).map(|e| self.expr(e))),
            "if_statement" => {
                let test = self.field_expr(node, "condition");
                let body = self.block_field(node, "consequence");
                let mut cursor = node.walk();
                let alternatives: Vec<Node<'_>> = node.children_by_field_name("alternative", &mut cursor).collect();
                let orelse = self.elif_chain(&alternatives);
                StmtKind::If { test, body, orelse }
            }
            "for_statement" => StmtKind::For {
                target: self.field_expr(node, "left"),
                iter: self.field_expr(node, "right"),
                body: self.block_field(node, "body"),
                orelse: self.else_of(node),
            },
            "while_statement" => StmtKind::While {
                test: self.field_expr(node, "condition"),
                body: self.block_field(node, "body"),
                orelse: self.else_of(node),
            },
            "with_statement" => {
                let mut items = Vec::new();
                for child in named(node) {
                    if child.kind_name() == "with_clause" {
                        for item in named(child) {
                            if item.kind_name() != "with_item" {
                                continue;
                            }
                            if let Some(value) = item.field("value") {
                                items.push(self.with_item(value));
                            }
                        }
                    }
                }
                StmtKind::With {
                    items,
                    body: self.block_field(node, "body"),
                }
            }
            "try_statement" => {
                let body = self.block_field(node, "body");
                let mut handlers = Vec::new();
                let mut orelse = Vec::new();
                let mut finalbody = Vec::new();
                for child in named(node) {
                    match child.kind_name() {
                        "except_clause" | "except_group_clause" => handlers.push(self.handler(child)),
                        "else_clause" => orelse = self.block_field(child, "body"),
                        "finally_clause" => {
                            if let Some(b) = named(child).into_iter().find(|c| c.kind_name() == "block") {
                                finalbody = self.block_children(b);
                            }
                        }
                        _ => {}
                    }
                }
                StmtKind::Try {
                    body,
                    handlers,
                    orelse,
                    finalbody,
                }
            }
            "function_definition" => StmtKind::FunctionDef(self.function(node, Vec::new())),
            "class_definition" => StmtKind::ClassDef(self.class(node, Vec::new())),
            "decorated_definition" => {
                let decorators: Vec<Expr> = named(node)
                    .into_iter()
                    .filter(|c| c.kind_name() == "decorator")
                    .filter_map(|d| first_named(d).map(|e| self.expr(e)))
                    .collect();
                match node.field("definition") {
                    Some(def) if def.kind_name() == "function_definition" => {
                        StmtKind::FunctionDef(self.function(def, decorators))
                    }
                    Some(def) if def.kind_name() == "class_definition" => {
                        StmtKind::ClassDef(self.class(def, decorators))
                    }
                    _ => StmtKind::Other,
                }
            }
            "import_statement" => {
                let mut cursor = node.walk();
                let names = node
                    .children_by_field_name("name", &mut cursor)
                    .filter_map(|n| self.alias(n))
                    .collect();
                StmtKind::Import(names)
            }
            "import_from_statement" => {
                let (module, level) = match node.field("module_name") {
                    Some(m) if m.kind_name() == "relative_import" => {
                        let text = self.slice(m);
                        let level = text.chars().take_while(|c| *c == '.').count() as u32;
                        (super::convert::dotted(text.trim_start_matches('.')), level)
                    }
                    Some(m) => (super::convert::dotted(self.slice(m)), 0),
                    None => (String::new(), 0),
                };
                let mut cursor = node.walk();
                let names: Vec<Alias> = node
                    .children_by_field_name("name", &mut cursor)
                    .filter_map(|n| self.alias(n))
                    .collect();
                let star = named(node).iter().any(|c| c.kind_name() == "wildcard_import");
                StmtKind::ImportFrom {
                    module,
                    level,
                    names,
                    star,
                }
            }
            "future_import_statement" => StmtKind::Other,
            "raise_statement" => StmtKind::Raise(first_named(node).map(|e| self.expr(e))),
            "pass_statement" => StmtKind::Pass,
            "break_statement" => StmtKind::Break,
            "continue_statement" => StmtKind::Continue,
            "block" => {
                let inner = self.block_children(node);
                out.extend(inner);
                return None;
            }
            _ => StmtKind::Other,
        })
    }

    pub(super) fn elif_chain(&mut self, alternatives: &[Node<'_>]) -> Vec<Stmt> {
        let Some((first, rest)) = alternatives.split_first() else {
            return Vec::new();
        };
        match first.kind_name() {
            "elif_clause" => {
                if self.depth >= MAX_DEPTH {
                    return vec![Stmt {
                        span: span(*first),
                        kind: StmtKind::Other,
                    }];
                }
                self.depth += 1;
                let test = self.field_expr(*first, "condition");
                let body = self.block_field(*first, "consequence");
                let orelse = self.elif_chain(rest);
                self.depth -= 1;
                let end = rest.last().map_or(first.end_byte(), |n| n.end_byte());
                vec![Stmt {
                    span: Span::new(first.start_byte(), end),
                    kind: StmtKind::If { test, body, orelse },
                }]
            }
            "else_clause" => self.block_field(*first, "body"),
            _ => Vec::new(),
        }
    }

    pub(super) fn else_of(&mut self, node: Node<'_>) -> Vec<Stmt> {
        match node.field("alternative") {
            Some(e) if e.kind_name() == "else_clause" => self.block_field(e, "body"),
            _ => Vec::new(),
        }
    }

    pub(super) fn with_item(&mut self, value: Node<'_>) -> WithItem {
        if value.kind_name() == "as_pattern" {
            let inner = named(value);
            let ctx = inner.first().map_or_else(|| Self::other(value), |e| self.expr(*e));
            let var = value
                .field("alias")
                .and_then(|a| first_named(a).or(Some(a)))
                .map(|a| self.expr(a));
            WithItem { ctx, var }
        } else {
            WithItem {
                ctx: self.expr(value),
                var: None,
            }
        }
    }

    pub(super) fn handler(&mut self, node: Node<'_>) -> Handler {
        let keyword = all(node).first().map_or(span(node), |k| span(*k));
        let mut types = None;
        let mut name = None;
        let mut body = Vec::new();
        let children = named(node);
        for child in &children {
            match child.kind_name() {
                "block" => body = self.block_children(*child),
                "as_pattern" => {
                    types = first_named(*child).map(|e| self.expr(e));
                    name = child.field("alias").map(|a| self.slice(a).trim().to_string());
                }
                _ if types.is_none() => types = Some(self.expr(*child)),
                _ => {
                    // `except E, e:` (Python 2) or `except E as e` read as
                    // value + alias fields.
                    if name.is_none() && child.kind_name() == "identifier" {
                        name = Some(self.slice(*child).to_string());
                    }
                }
            }
        }
        if let Some(alias) = node.field("alias") {
            name = Some(self.slice(alias).to_string());
        }
        Handler {
            span: span(node),
            keyword,
            types,
            name,
            body,
        }
    }

    pub(super) fn alias(&self, node: Node<'_>) -> Option<Alias> {
        match node.kind_name() {
            "aliased_import" => Some(Alias {
                name: dotted(self.slice(node.field("name")?)),
                alias: node.field("alias").map(|a| self.slice(a).to_string()),
            }),
            "dotted_name" => Some(Alias {
                name: dotted(self.slice(node)),
                alias: None,
            }),
            _ => None,
        }
    }

    pub(super) fn assignment(&mut self, node: Node<'_>) -> StmtKind {
        let mut targets = vec![self.field_expr(node, "left")];
        let mut cur = node;
        let mut guard = 0;
        // `a = b = value`: the right side is another assignment.
        loop {
            guard += 1;
            match cur.field("right") {
                Some(r) if r.kind_name() == "assignment" && guard < MAX_DEPTH => {
                    targets.push(self.field_expr(r, "left"));
                    cur = r;
                }
                Some(r) => {
                    let value = self.expr(r);
                    return StmtKind::Assign { targets, value };
                }
                None => {
                    let target = targets.swap_remove(0);
                    return StmtKind::AnnAssign { target, value: None };
                }
            }
        }
    }

    pub(super) fn function(&mut self, node: Node<'_>, decorators: Vec<Expr>) -> FuncIdx {
        let idx = self.funcs.len() as FuncIdx;
        let name_node = node.field("name");
        self.funcs.push(Function {
            name: name_node.map(|n| self.slice(n).to_string()).unwrap_or_default(),
            name_span: name_node.map_or(span(node), span),
            span: span(node),
            params: Vec::new(),
            body: Vec::new(),
            decorators,
            parent: self.parent,
        });
        let params = node.field("parameters").map(|p| self.params(p)).unwrap_or_default();
        let saved = std::mem::replace(&mut self.parent, Parent::Func(idx));
        let body = self.block_field(node, "body");
        self.parent = saved;
        if let Some(f) = self.funcs.get_mut(idx as usize) {
            f.params = params;
            f.body = body;
        }
        idx
    }

    pub(super) fn params(&mut self, node: Node<'_>) -> Vec<Param> {
        let mut out = Vec::new();
        let mut kw_only = false;
        for p in named(node) {
            let (name_node, default, annotation, kind) = match p.kind_name() {
                "identifier" => (Some(p), None, None, ParamKind::Normal),
                "default_parameter" => (p.field("name"), p.field("value"), None, ParamKind::Normal),
                "typed_parameter" => {
                    let inner = named(p);
                    let first = inner.first().copied();
                    let kind = match first.map(|f| f.kind_name()) {
                        Some("list_splat_pattern") => ParamKind::VarArgs,
                        Some("dictionary_splat_pattern") => ParamKind::KwArgs,
                        _ => ParamKind::Normal,
                    };
                    let name = match kind {
                        ParamKind::Normal => first,
                        _ => first.and_then(|f| first_named(f)),
                    };
                    (name, None, p.field("type"), kind)
                }
                "typed_default_parameter" => (p.field("name"), p.field("value"), p.field("type"), ParamKind::Normal),
                "list_splat_pattern" => (first_named(p), None, None, ParamKind::VarArgs),
                "dictionary_splat_pattern" => (first_named(p), None, None, ParamKind::KwArgs),
                "keyword_separator" => {
                    kw_only = true;
                    continue;
                }
                _ => continue,
            };
            let Some(name_node) = name_node else { continue };
            let kind = match kind {
                ParamKind::Normal if kw_only => ParamKind::KwOnly,
                k => k,
            };
            if kind == ParamKind::VarArgs {
                kw_only = true;
            }
            out.push(Param {
                name: self.slice(name_node).to_string(),
                span: span(p),
                kind,
                default: default.map(|d| self.expr(d)),
                annotation: annotation.map(|a| self.expr(first_named(a).unwrap_or(a))),
            });
        }
        out
    }

    pub(super) fn class(&mut self, node: Node<'_>, decorators: Vec<Expr>) -> ClassIdx {
        let idx = self.classes.len() as ClassIdx;
        let name_node = node.field("name");
        let mut bases = Vec::new();
        let mut keywords = Vec::new();
        if let Some(list) = node.field("superclasses") {
            for a in self.args(list) {
                match a {
                    Arg::Pos(e) => bases.push(e),
                    Arg::Kw { name, value, .. } => keywords.push((name, value)),
                    _ => {}
                }
            }
        }
        self.classes.push(Class {
            name: name_node.map(|n| self.slice(n).to_string()).unwrap_or_default(),
            name_span: name_node.map_or(span(node), span),
            span: span(node),
            bases,
            keywords,
            body: Vec::new(),
            decorators,
            parent: self.parent,
        });
        let saved = std::mem::replace(&mut self.parent, Parent::Class(idx));
        let body = self.block_field(node, "body");
        self.parent = saved;
        if let Some(c) = self.classes.get_mut(idx as usize) {
            c.body = body;
        }
        idx
    }
}
