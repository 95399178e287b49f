//! A plain-data Python syntax tree, converted from tree-sitter's concrete
//! tree: what the training-code checks read (statements, expressions,
//! definitions) with byte spans into the file's text. Owned data, so a
//! file's trees can be cached and shared; no tree-sitter type leaves this
//! module.
//!
//! Conversion is bounded: nesting beyond [`MAX_DEPTH`] becomes
//! [`ExprKind::Other`] / [`StmtKind::Other`], and anything the grammar could
//! not place (an `ERROR` node) is skipped, with [`ChunkAst::errors`] set.

use std::cell::RefCell;
use std::ops::Range;

use tree_sitter::{Node, Parser, Point, Tree};

use super::literal;
use crate::python_grammar::KindName;

use crate::source::Span;

/// Deepest nesting of statements and expressions converted.
pub const MAX_DEPTH: usize = 96;

/// Index of a function in its chunk's [`ChunkAst::funcs`].
pub type FuncIdx = u32;
/// Index of a class in its chunk's [`ChunkAst::classes`].
pub type ClassIdx = u32;

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompKind {
    List,
    Set,
    Dict,
    Generator,
}

/// `for target in iter if cond…` of a comprehension.
#[derive(Clone, Debug, PartialEq)]
pub struct CompFor {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DictItem {
    Pair { key: Expr, value: Expr, span: Span },
    Splat(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Pos(Expr),
    Kw {
        name: String,
        name_span: Span,
        value: Expr,
        span: Span,
    },
    Star(Expr),
    StarStar(Expr),
}

impl Arg {
    pub fn span(&self) -> Span {
        match self {
            Arg::Pos(e) | Arg::Star(e) | Arg::StarStar(e) => e.span,
            Arg::Kw { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    Attribute {
        value: Box<Expr>,
        attr: String,
    },
    Call {
        func: Box<Expr>,
        args: Vec<Arg>,
        /// The argument list, parentheses included.
        args_span: Span,
    },
    Subscript {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    Str(String),
    /// An f-string (its value is not known statically).
    FString,
    Int(i64),
    Float(f64),
    Bool(bool),
    None,
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Set(Vec<Expr>),
    Dict(Vec<DictItem>),
    Comp {
        kind: CompKind,
        elt: Box<Expr>,
        /// The value of a dict comprehension (`elt` is its key).
        value: Option<Box<Expr>>,
        gens: Vec<CompFor>,
    },
    BinOp {
        left: Box<Expr>,
        op: String,
        right: Box<Expr>,
    },
    Unary {
        op: String,
        operand: Box<Expr>,
    },
    Not(Box<Expr>),
    BoolOp {
        and: bool,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Compare {
        left: Box<Expr>,
        rest: Vec<(String, Expr)>,
    },
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    Lambda(Box<Expr>),
    Starred(Box<Expr>),
    Await(Box<Expr>),
    Named {
        name: String,
        value: Box<Expr>,
    },
    Yield(Option<Box<Expr>>),
    /// Anything else (bytes, ellipsis, a too-deep or broken expression).
    Other,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WithItem {
    pub ctx: Expr,
    pub var: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Handler {
    /// The whole clause.
    pub span: Span,
    /// The `except` keyword.
    pub keyword: Span,
    /// The caught types (`None` for a bare `except:`).
    pub types: Option<Expr>,
    pub name: Option<String>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Alias {
    /// The dotted name imported.
    pub name: String,
    pub alias: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub span: Span,
    pub kind: StmtKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    /// `a = b = value` (targets in order).
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    AugAssign {
        target: Expr,
        op: String,
        value: Expr,
    },
    /// `target: annotation [= value]`.
    AnnAssign {
        target: Expr,
        value: Option<Expr>,
    },
    Return(Option<Expr>),
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    With {
        items: Vec<WithItem>,
        body: Vec<Stmt>,
    },
    Try {
        body: Vec<Stmt>,
        handlers: Vec<Handler>,
        orelse: Vec<Stmt>,
        finalbody: Vec<Stmt>,
    },
    FunctionDef(FuncIdx),
    ClassDef(ClassIdx),
    Import(Vec<Alias>),
    ImportFrom {
        module: String,
        level: u32,
        names: Vec<Alias>,
        star: bool,
    },
    Raise(Option<Expr>),
    Pass,
    Break,
    Continue,
    /// `global`, `del`, `assert`, `match`, … and what could not be read.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Normal,
    /// `*args`
    VarArgs,
    /// `**kwargs`
    KwArgs,
    /// After `*` or `*args`.
    KwOnly,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub span: Span,
    pub kind: ParamKind,
    pub default: Option<Expr>,
    pub annotation: Option<Expr>,
}

/// What a definition is nested in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parent {
    Module,
    Func(FuncIdx),
    Class(ClassIdx),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub name_span: Span,
    pub span: Span,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    pub decorators: Vec<Expr>,
    pub parent: Parent,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Class {
    pub name: String,
    pub name_span: Span,
    pub span: Span,
    pub bases: Vec<Expr>,
    pub keywords: Vec<(String, Expr)>,
    pub body: Vec<Stmt>,
    pub decorators: Vec<Expr>,
    pub parent: Parent,
}

/// One parsed chunk of a file: its statements and the definitions they
/// hold (in pre-order), referenced by index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkAst {
    pub stmts: Vec<Stmt>,
    pub funcs: Vec<Function>,
    pub classes: Vec<Class>,
    /// Whether the grammar found errors in the chunk.
    pub errors: bool,
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `range` of `text` (`line_starts`: the byte offset of every line)
/// and converts it. `None` when the Python grammar cannot be loaded.
pub fn parse_range(text: &str, line_starts: &[usize], range: Range<usize>) -> Option<ChunkAst> {
    PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&crate::python_grammar::language()).ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        let whole = range.start == 0 && range.end >= text.len();
        if whole {
            parser.set_included_ranges(&[]).ok()?;
        } else {
            let r = tree_sitter::Range {
                start_byte: range.start,
                end_byte: range.end,
                start_point: point_at(line_starts, range.start),
                end_point: point_at(line_starts, range.end),
            };
            parser.set_included_ranges(&[r]).ok()?;
        }
        let tree = parser.parse(text, None);
        let _ = parser.set_included_ranges(&[]);
        let tree = tree?;
        let root = tree.root_node();
        let mut conv = Conv::module(text);
        let stmts = conv.block_children(root);
        Some(conv.finish(stmts, root.has_error()))
    })
}

/// Converts the chunks at `ranges` (sorted, not overlapping) of `text` from
/// `tree`, a parse of the whole text made for another reader (the stage
/// declarations), as [`parse_range`] would have parsed each: the top-level
/// statements inside its range. One walk over the top-level statements for
/// all chunks. A chunk is `None` where a statement crosses its edge (a parse
/// of the range alone could read differently), and all are when the tree has
/// errors or is not of this text.
pub fn convert_chunks(text: &str, tree: &Tree, ranges: &[Range<usize>]) -> Vec<Option<ChunkAst>> {
    let root = tree.root_node();
    if root.has_error() || root.end_byte() > text.len() {
        return ranges.iter().map(|_| None).collect();
    }
    // Each chunk's statements, or `None` once one crosses its edge.
    let mut inside: Vec<Option<Vec<Node<'_>>>> = ranges.iter().map(|_| Some(Vec::new())).collect();
    let mut at = 0;
    for child in named(root) {
        let (start, end) = (child.start_byte(), child.end_byte());
        while ranges.get(at).is_some_and(|r| r.end <= start) {
            at += 1;
        }
        // The chunks the statement reaches into: it belongs to one that
        // holds it whole, and spoils every one it crosses the edge of.
        let mut k = at;
        while let Some(r) = ranges.get(k).filter(|r| r.start < end.max(start + 1)) {
            let slot = inside.get_mut(k);
            if start >= r.start && end <= r.end {
                if let Some(list) = slot.and_then(Option::as_mut) {
                    list.push(child);
                }
            } else if let Some(slot) = slot {
                *slot = None;
            }
            k += 1;
        }
    }
    inside
        .into_iter()
        .map(|children| {
            children.map(|c| {
                let mut conv = Conv::module(text);
                let stmts = conv.statements(c);
                conv.finish(stmts, false)
            })
        })
        .collect()
}

fn point_at(line_starts: &[usize], byte: usize) -> Point {
    let row = line_starts.partition_point(|&s| s <= byte).saturating_sub(1);
    let column = byte.saturating_sub(line_starts.get(row).copied().unwrap_or(0));
    Point { row, column }
}

fn span(node: Node<'_>) -> Span {
    Span::new(node.start_byte(), node.end_byte())
}

/// A node's child by field name, with the grammar's field ids looked up
/// once (tree-sitter's own lookup compares the name with every field name
/// at each call).
trait Fields<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> Fields<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        static IDS: std::sync::OnceLock<Vec<(&'static str, u16)>> = std::sync::OnceLock::new();
        let ids = IDS.get_or_init(|| {
            let language = crate::python_grammar::language();
            (1..=language.field_count() as u16)
                .filter_map(|id| language.field_name_for_id(id).map(|n| (n, id)))
                .collect()
        });
        match ids.iter().find(|(n, _)| *n == name) {
            Some((_, id)) => self.child_by_field_id(*id),
            None => self.child_by_field_name(name),
        }
    }
}

/// Named children, comments left out.
fn named(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| c.kind_name() != "comment")
        .collect()
}

/// The first named child that is not a comment (what `named(node).first()`
/// gives, without collecting the others).
fn first_named(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    let first = node.named_children(&mut cursor).find(|c| c.kind_name() != "comment");
    first
}

/// All children, comments left out.
fn all(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .filter(|c| c.kind_name() != "comment")
        .collect()
}

struct Conv<'t> {
    text: &'t str,
    depth: usize,
    funcs: Vec<Function>,
    classes: Vec<Class>,
    parent: Parent,
}

impl<'t> Conv<'t> {
    /// A converter for statements at module level.
    fn module(text: &'t str) -> Conv<'t> {
        Conv {
            text,
            depth: 0,
            funcs: Vec::new(),
            classes: Vec::new(),
            parent: Parent::Module,
        }
    }

    /// The chunk of `stmts` and the definitions met converting them.
    fn finish(self, stmts: Vec<Stmt>, errors: bool) -> ChunkAst {
        ChunkAst {
            stmts,
            funcs: self.funcs,
            classes: self.classes,
            errors,
        }
    }

    fn slice(&self, node: Node<'_>) -> &'t str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    fn other(node: Node<'_>) -> Expr {
        Expr {
            span: span(node),
            kind: ExprKind::Other,
        }
    }

    /// The statements of a `block` or `module` node.
    fn block_children(&mut self, node: Node<'_>) -> Vec<Stmt> {
        self.statements(named(node))
    }

    /// The statements among `children` (the named children of a block).
    fn statements(&mut self, children: Vec<Node<'_>>) -> Vec<Stmt> {
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

    fn block_field(&mut self, node: Node<'_>, field: &str) -> Vec<Stmt> {
        match node.field(field) {
            Some(b) => self.block_children(b),
            None => Vec::new(),
        }
    }

    fn stmt(&mut self, node: Node<'_>, out: &mut Vec<Stmt>) {
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
    fn stmt_kind(&mut self, node: Node<'_>, out: &mut Vec<Stmt>) -> Option<StmtKind> {
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
                        (text.trim_start_matches('.').trim().to_string(), level)
                    }
                    Some(m) => (self.slice(m).split_whitespace().collect::<String>(), 0),
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

    fn elif_chain(&mut self, alternatives: &[Node<'_>]) -> Vec<Stmt> {
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

    fn else_of(&mut self, node: Node<'_>) -> Vec<Stmt> {
        match node.field("alternative") {
            Some(e) if e.kind_name() == "else_clause" => self.block_field(e, "body"),
            _ => Vec::new(),
        }
    }

    fn with_item(&mut self, value: Node<'_>) -> WithItem {
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

    fn handler(&mut self, node: Node<'_>) -> Handler {
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

    fn alias(&self, node: Node<'_>) -> Option<Alias> {
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

    fn assignment(&mut self, node: Node<'_>) -> StmtKind {
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

    fn function(&mut self, node: Node<'_>, decorators: Vec<Expr>) -> FuncIdx {
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

    fn params(&mut self, node: Node<'_>) -> Vec<Param> {
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

    fn class(&mut self, node: Node<'_>, decorators: Vec<Expr>) -> ClassIdx {
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

    fn field_expr(&mut self, node: Node<'_>, field: &str) -> Expr {
        match node.field(field) {
            Some(n) => self.expr(n),
            None => Self::other(node),
        }
    }

    fn boxed(&mut self, node: Option<Node<'_>>, parent: Node<'_>) -> Box<Expr> {
        Box::new(match node {
            Some(n) => self.expr(n),
            None => Self::other(parent),
        })
    }

    fn expr(&mut self, node: Node<'_>) -> Expr {
        if self.depth >= MAX_DEPTH || node.is_error() || node.is_missing() {
            return Self::other(node);
        }
        self.depth += 1;
        let kind = self.expr_kind(node);
        self.depth -= 1;
        Expr { span: span(node), kind }
    }

    fn expr_kind(&mut self, node: Node<'_>) -> ExprKind {
        match node.kind_name() {
            "identifier" => ExprKind::Name(self.slice(node).to_string()),
            "attribute" => {
                let value = self.boxed(node.field("object"), node);
                match node.field("attribute") {
                    Some(a) if !a.is_missing() => ExprKind::Attribute {
                        value,
                        attr: self.slice(a).to_string(),
                    },
                    _ => ExprKind::Other,
                }
            }
            "call" => {
                let func = self.boxed(node.field("function"), node);
                let (args, args_span) = match node.field("arguments") {
                    Some(a) if a.kind_name() == "argument_list" => (self.args(a), span(a)),
                    Some(g) => (vec![Arg::Pos(self.expr(g))], span(g)),
                    None => (Vec::new(), Span::at(node.end_byte())),
                };
                ExprKind::Call { func, args, args_span }
            }
            "subscript" => {
                let value = self.boxed(node.field("value"), node);
                let mut cursor = node.walk();
                let subs: Vec<Node<'_>> = node.children_by_field_name("subscript", &mut cursor).collect();
                let index = match subs.as_slice() {
                    [one] => self.expr(*one),
                    many => Expr {
                        span: match (many.first(), many.last()) {
                            (Some(a), Some(b)) => Span::new(a.start_byte(), b.end_byte()),
                            _ => span(node),
                        },
                        kind: ExprKind::Tuple(many.iter().map(|s| self.expr(*s)).collect()),
                    },
                };
                ExprKind::Subscript {
                    value,
                    index: Box::new(index),
                }
            }
            "slice" => {
                let mut parts: [Option<Box<Expr>>; 3] = [None, None, None];
                let mut at = 0usize;
                for child in all(node) {
                    if child.kind_name() == ":" {
                        at += 1;
                    } else if child.is_named() && at < 3 {
                        parts[at] = Some(Box::new(self.expr(child)));
                    }
                }
                let [lower, upper, step] = parts;
                ExprKind::Slice { lower, upper, step }
            }
            "string" => self.string(node),
            "concatenated_string" => {
                let mut out = String::new();
                for part in named(node) {
                    match self.string(part) {
                        ExprKind::Str(s) => out.push_str(&s),
                        other => return other,
                    }
                }
                ExprKind::Str(out)
            }
            "integer" => literal::int_i64(self.slice(node)).map_or(ExprKind::Other, ExprKind::Int),
            "float" => self
                .slice(node)
                .replace('_', "")
                .parse::<f64>()
                .map_or(ExprKind::Other, ExprKind::Float),
            "true" => ExprKind::Bool(true),
            "false" => ExprKind::Bool(false),
            "none" => ExprKind::None,
            "list" | "list_pattern" => ExprKind::List(named(node).iter().map(|c| self.expr(*c)).collect()),
            "tuple" | "tuple_pattern" | "expression_list" | "pattern_list" => {
                ExprKind::Tuple(named(node).iter().map(|c| self.expr(*c)).collect())
            }
            "set" => ExprKind::Set(named(node).iter().map(|c| self.expr(*c)).collect()),
            "dictionary" => {
                let mut items = Vec::new();
                for c in named(node) {
                    match c.kind_name() {
                        "pair" => items.push(DictItem::Pair {
                            key: self.field_expr(c, "key"),
                            value: self.field_expr(c, "value"),
                            span: span(c),
                        }),
                        "dictionary_splat" => {
                            let inner = first_named(c);
                            items.push(DictItem::Splat(match inner {
                                Some(i) => self.expr(i),
                                None => Self::other(c),
                            }));
                        }
                        _ => {}
                    }
                }
                ExprKind::Dict(items)
            }
            "list_comprehension" => self.comprehension(node, CompKind::List),
            "set_comprehension" => self.comprehension(node, CompKind::Set),
            "generator_expression" => self.comprehension(node, CompKind::Generator),
            "dictionary_comprehension" => self.comprehension(node, CompKind::Dict),
            "parenthesized_expression" => match named(node).as_slice() {
                [inner] => self.expr(*inner).kind,
                _ => ExprKind::Other,
            },
            "binary_operator" => ExprKind::BinOp {
                left: self.boxed(node.field("left"), node),
                op: node
                    .field("operator")
                    .map(|o| self.slice(o).to_string())
                    .unwrap_or_default(),
                right: self.boxed(node.field("right"), node),
            },
            "unary_operator" => ExprKind::Unary {
                op: node
                    .field("operator")
                    .map(|o| self.slice(o).to_string())
                    .unwrap_or_default(),
                operand: self.boxed(node.field("argument"), node),
            },
            "not_operator" => ExprKind::Not(self.boxed(node.field("argument"), node)),
            "boolean_operator" => ExprKind::BoolOp {
                and: node.field("operator").is_some_and(|o| self.slice(o) == "and"),
                left: self.boxed(node.field("left"), node),
                right: self.boxed(node.field("right"), node),
            },
            "comparison_operator" => {
                let mut left = None;
                let mut rest = Vec::new();
                let mut op = String::new();
                for child in all(node) {
                    if child.is_named() {
                        let e = self.expr(child);
                        if left.is_none() {
                            left = Some(e);
                        } else {
                            rest.push((std::mem::take(&mut op), e));
                        }
                    } else {
                        if !op.is_empty() {
                            op.push(' ');
                        }
                        op.push_str(self.slice(child));
                    }
                }
                match left {
                    Some(l) => ExprKind::Compare {
                        left: Box::new(l),
                        rest,
                    },
                    None => ExprKind::Other,
                }
            }
            "conditional_expression" => match named(node).as_slice() {
                [body, test, orelse] => ExprKind::IfExp {
                    body: Box::new(self.expr(*body)),
                    test: Box::new(self.expr(*test)),
                    orelse: Box::new(self.expr(*orelse)),
                },
                _ => ExprKind::Other,
            },
            "lambda" => ExprKind::Lambda(self.boxed(node.field("body"), node)),
            "list_splat" | "list_splat_pattern" => ExprKind::Starred(self.boxed(first_named(node), node)),
            "await" => ExprKind::Await(self.boxed(first_named(node), node)),
            "named_expression" => ExprKind::Named {
                name: node
                    .field("name")
                    .map(|n| self.slice(n).to_string())
                    .unwrap_or_default(),
                value: self.boxed(node.field("value"), node),
            },
            "yield" => ExprKind::Yield(first_named(node).map(|e| Box::new(self.expr(e)))),
            "keyword_argument" => ExprKind::Other,
            _ => ExprKind::Other,
        }
    }

    fn args(&mut self, list: Node<'_>) -> Vec<Arg> {
        let mut out = Vec::new();
        for a in named(list) {
            match a.kind_name() {
                "keyword_argument" => {
                    let Some(name) = a.field("name") else {
                        continue;
                    };
                    out.push(Arg::Kw {
                        name: self.slice(name).to_string(),
                        name_span: span(name),
                        value: self.field_expr(a, "value"),
                        span: span(a),
                    });
                }
                "list_splat" => {
                    let inner = first_named(a);
                    out.push(Arg::Star(match inner {
                        Some(i) => self.expr(i),
                        None => Self::other(a),
                    }));
                }
                "dictionary_splat" => {
                    let inner = first_named(a);
                    out.push(Arg::StarStar(match inner {
                        Some(i) => self.expr(i),
                        None => Self::other(a),
                    }));
                }
                _ if a.is_error() => {}
                _ => out.push(Arg::Pos(self.expr(a))),
            }
        }
        out
    }

    fn comprehension(&mut self, node: Node<'_>, kind: CompKind) -> ExprKind {
        let mut elt = None;
        let mut value = None;
        let mut gens: Vec<CompFor> = Vec::new();
        for child in named(node) {
            match child.kind_name() {
                "for_in_clause" => {
                    let target = self.field_expr(child, "left");
                    let iter = self.field_expr(child, "right");
                    gens.push(CompFor {
                        target,
                        iter,
                        ifs: Vec::new(),
                    });
                }
                "if_clause" => {
                    let cond = first_named(child).map(|c| self.expr(c));
                    if let (Some(last), Some(cond)) = (gens.last_mut(), cond) {
                        last.ifs.push(cond);
                    }
                }
                "pair" if elt.is_none() => {
                    elt = Some(Box::new(self.field_expr(child, "key")));
                    value = Some(Box::new(self.field_expr(child, "value")));
                }
                _ if elt.is_none() => elt = Some(Box::new(self.expr(child))),
                _ => {}
            }
        }
        match elt {
            Some(elt) => ExprKind::Comp { kind, elt, value, gens },
            None => ExprKind::Other,
        }
    }

    fn string(&self, node: Node<'_>) -> ExprKind {
        if node.kind_name() != "string" {
            return ExprKind::Other;
        }
        let mut start = None;
        let mut end = None;
        for child in all(node) {
            match child.kind_name() {
                "string_start" => start = Some(child),
                "string_end" if !child.is_missing() => end = Some(child),
                "interpolation" => return ExprKind::FString,
                _ => {}
            }
        }
        let (Some(start), Some(end)) = (start, end) else {
            return ExprKind::Other;
        };
        let prefix: String = self
            .slice(start)
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if prefix.contains('f') || prefix.contains('t') {
            return ExprKind::FString;
        }
        if prefix.contains('b') {
            return ExprKind::Other;
        }
        let raw = self.text.get(start.end_byte()..end.start_byte()).unwrap_or("");
        ExprKind::Str(if prefix.contains('r') {
            raw.to_string()
        } else {
            literal::unescape(raw)
        })
    }
}

/// `a . b` → `a.b`.
fn dotted(text: &str) -> String {
    text.split_whitespace().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ChunkAst {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        parse_range(text, &starts, 0..text.len()).unwrap_or_default()
    }

    /// Top-level shapes a chunk edge could fall inside of: decorators, a
    /// bracket closed at column 0, continued lines, strings holding code,
    /// comments between statements, a guarded main block.
    const EDGE_SHAPES: &str = "import os\n# a comment\n\n@decorator(\n    1,\n)\nclass A:\n    x = 1\n\nCONFIG = dict(\n    a=1,\n)\nTEXT = \"\"\"\ndef not_code():\n    pass\n\"\"\"\nvalue = 1 + \\\n    2\n\n\ndef f():\n    return [\n1]\n\nif __name__ == \"__main__\":\n    f()\n";

    #[test]
    fn chunks_converted_from_a_whole_parse_equal_chunks_parsed_alone() {
        let texts = [
            include_str!("../../examples/hpp-seed-fixed/model.py"),
            include_str!("../../examples/hpp-seed-fixed/train.py"),
            include_str!("../../examples/hpp-seed/model.py"),
            include_str!("../../examples/hpp-seed/train.py"),
            EDGE_SHAPES,
        ];
        for text in texts {
            let alone = crate::training::ParsedFile::new(text);
            let mut parser = Parser::new();
            assert!(parser.set_language(&crate::python_grammar::language()).is_ok());
            let Some(tree) = parser.parse(alone.text(), None) else {
                panic!("no parse")
            };
            assert!(!tree.root_node().has_error(), "{text}");
            let shared = crate::training::ParsedFile::new(text);
            assert!(shared.tree().is_ok());
            assert!(alone.chunks().len() > 1, "{text}");
            let ranges: Vec<Range<usize>> = alone.chunks().iter().map(|c| c.range.clone()).collect();
            let converted = convert_chunks(alone.text(), &tree, &ranges);
            for (i, chunk) in alone.chunks().iter().enumerate() {
                // Every chunk of an error-free file converts…
                assert!(converted[i].is_some(), "chunk {:?} of {text}", chunk.range);
                // …into what parsing it alone gives.
                assert_eq!(shared.chunk(i), alone.chunk(i), "chunk {:?} of {text}", chunk.range);
                assert_eq!(converted[i].as_ref(), alone.chunk(i));
            }
        }
    }

    #[test]
    fn a_statement_across_a_chunk_edge_spoils_the_chunks_it_crosses() {
        let text = "x = (1,\n2)\ny = 1\n";
        let mut parser = Parser::new();
        assert!(parser.set_language(&crate::python_grammar::language()).is_ok());
        let Some(tree) = parser.parse(text, None) else {
            panic!("no parse")
        };
        let converted = convert_chunks(text, &tree, &[0..8, 8..11, 11..text.len()]);
        assert!(converted[0].is_none() && converted[1].is_none());
        assert_eq!(converted[2].as_ref().map(|c| c.stmts.len()), Some(1));
    }

    /// Every chunk of a file of 20,000 functions (a chunk each), converted from
    /// one whole-file parse: one walk over the statements, not one per chunk
    /// (that took minutes in a debug build).
    #[test]
    fn many_chunks_convert_in_one_walk() {
        let text: String = (0..20_000).map(|i| format!("def f_{i}():\n    return {i}\n")).collect();
        let file = crate::training::ParsedFile::new(&text);
        assert_eq!(file.chunks().len(), 20_000);
        assert!(file.tree().is_ok_and(|tree| !tree.root_node().has_error()));
        let started = std::time::Instant::now();
        let statements: usize = (0..file.chunks().len())
            .filter_map(|i| file.chunk(i))
            .map(|c| c.stmts.len())
            .sum();
        assert_eq!(statements, 20_000);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_whole_parse_with_errors_is_not_taken() {
        let text = "import os\n\ndef f(:\n    pass\n\nx = 1\n";
        let mut parser = Parser::new();
        assert!(parser.set_language(&crate::python_grammar::language()).is_ok());
        let Some(tree) = parser.parse(text, None) else {
            panic!("no parse")
        };
        assert!(tree.root_node().has_error());
        assert_eq!(convert_chunks(text, &tree, &[0..10, 10..text.len()]), [None, None]);
        let alone = crate::training::ParsedFile::new(text);
        let shared = crate::training::ParsedFile::new(text);
        assert!(shared.tree().is_ok());
        for i in 0..alone.chunks().len() {
            assert_eq!(shared.chunk(i), alone.chunk(i));
        }
    }

    #[test]
    fn statements_and_definitions() {
        let text = "import torch.distributed as dist\nfrom .m import a as b, c\n\n@dec\ndef f(x, y=1, *a, k: int = 2, **kw):\n    try:\n        z = g(x, key=y, *a, **kw)\n    except (OSError, IOError) as e:\n        continue\n    except:\n        raise\n    return [i for i in z if i]\n\nclass C(B, metaclass=M):\n    def m(self):\n        with open(p) as fh, lock:\n            self.v = a = 1\n";
        let ast = parse(text);
        assert!(!ast.errors);
        assert_eq!(ast.stmts.len(), 4);
        assert!(
            matches!(&ast.stmts[0].kind, StmtKind::Import(n) if n[0].name == "torch.distributed" && n[0].alias.as_deref() == Some("dist"))
        );
        assert!(
            matches!(&ast.stmts[1].kind, StmtKind::ImportFrom { module, level: 1, names, .. } if module == "m" && names.len() == 2)
        );
        let f = &ast.funcs[0];
        assert_eq!(f.name, "f");
        assert_eq!(f.decorators.len(), 1);
        let kinds: Vec<ParamKind> = f.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                ParamKind::Normal,
                ParamKind::Normal,
                ParamKind::VarArgs,
                ParamKind::KwOnly,
                ParamKind::KwArgs
            ]
        );
        let StmtKind::Try { handlers, .. } = &f.body[0].kind else {
            panic!("{:?}", f.body[0])
        };
        assert_eq!(handlers.len(), 2);
        assert!(matches!(&handlers[0].types, Some(Expr { kind: ExprKind::Tuple(t), .. }) if t.len() == 2));
        assert_eq!(handlers[0].name.as_deref(), Some("e"));
        assert_eq!(&text[handlers[0].keyword.start..handlers[0].keyword.end], "except");
        assert!(handlers[1].types.is_none());
        assert!(matches!(handlers[1].body[0].kind, StmtKind::Raise(None)));
        let c = &ast.classes[0];
        assert_eq!((c.name.as_str(), c.bases.len(), c.keywords.len()), ("C", 1, 1));
        let m = &ast.funcs[1];
        assert_eq!(m.parent, Parent::Class(0));
        let StmtKind::With { items, body } = &m.body[0].kind else {
            panic!()
        };
        assert_eq!(items.len(), 2);
        assert!(items[0].var.is_some() && items[1].var.is_none());
        assert!(matches!(&body[0].kind, StmtKind::Assign { targets, .. } if targets.len() == 2));
    }

    #[test]
    fn expressions() {
        let text = "x = F.interpolate(a, size=s, mode='bilinear')[1:2, ::3]\ny = not a < b <= c is not d\nz = {**k, 'a': 1}\nw = b if c else d\n";
        let ast = parse(text);
        let StmtKind::Assign { value, .. } = &ast.stmts[0].kind else {
            panic!()
        };
        let ExprKind::Subscript { value: call, index } = &value.kind else {
            panic!("{value:?}")
        };
        assert!(matches!(&index.kind, ExprKind::Tuple(t) if t.len() == 2));
        let ExprKind::Call { args, .. } = &call.kind else {
            panic!()
        };
        assert!(
            matches!(&args[2], Arg::Kw { name, value: Expr { kind: ExprKind::Str(s), .. }, .. } if name == "mode" && s == "bilinear")
        );
        let StmtKind::Assign { value, .. } = &ast.stmts[1].kind else {
            panic!()
        };
        let ExprKind::Not(inner) = &value.kind else { panic!() };
        let ExprKind::Compare { rest, .. } = &inner.kind else {
            panic!()
        };
        let ops: Vec<&str> = rest.iter().map(|(o, _)| o.as_str()).collect();
        assert_eq!(ops, ["<", "<=", "is not"]);
        let StmtKind::Assign { value, .. } = &ast.stmts[2].kind else {
            panic!()
        };
        assert!(matches!(&value.kind, ExprKind::Dict(items) if matches!(items[0], DictItem::Splat(_))));
        let StmtKind::Assign { value, .. } = &ast.stmts[3].kind else {
            panic!()
        };
        assert!(matches!(&value.kind, ExprKind::IfExp { .. }));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let text = format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000));
        let deep = parse(&text);
        // One assignment over the whole line, its value cut off as `Other`.
        assert!(!deep.errors);
        assert_eq!(deep.stmts.len(), 1);
        assert_eq!(deep.stmts[0].span, Span::new(0, text.len() - 1));
        assert!(
            matches!(&deep.stmts[0].kind, StmtKind::Assign { value, .. } if value.kind == ExprKind::Other),
            "{:?}",
            deep.stmts[0].kind
        );
        let mut nested = String::new();
        for i in 0..400 {
            nested.push_str(&" ".repeat(i));
            nested.push_str("if a:\n");
        }
        nested.push_str(&" ".repeat(400));
        nested.push_str("pass\n");
        let nested = parse(&nested);
        assert!(!nested.errors);
        assert_eq!(nested.stmts.len(), 1);
    }
}
