//! Conversion from tree-sitter's concrete tree: entry points, the
//! converter and expressions (statements in [`super::stmts`]).

use std::cell::RefCell;
use std::ops::Range;

use tree_sitter::{Node, Parser, Point, Tree};

use super::*;
use crate::python::literal;
use crate::python_grammar::KindName;

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

pub(super) fn point_at(line_starts: &[usize], byte: usize) -> Point {
    let row = line_starts.partition_point(|&s| s <= byte).saturating_sub(1);
    let column = byte.saturating_sub(line_starts.get(row).copied().unwrap_or(0));
    Point { row, column }
}

pub(super) fn span(node: Node<'_>) -> Span {
    Span::new(node.start_byte(), node.end_byte())
}

/// A node's child by field name, with the grammar's field ids looked up
/// once (tree-sitter's own lookup compares the name with every field name
/// at each call).
pub(super) trait Fields<'t> {
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
pub(super) fn named(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).filter(|c| !extra(*c)).collect()
}

/// The first named child that is not a comment (what `named(node).first()`
/// gives, without collecting the others).
pub(super) fn first_named(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    let first = node.named_children(&mut cursor).find(|c| !extra(*c));
    first
}

/// A node the grammar allows anywhere, not part of the syntax: a comment,
/// or a backslash line continuation.
fn extra(node: Node<'_>) -> bool {
    matches!(node.kind_name(), "comment" | "line_continuation")
}

/// All children, comments and line continuations left out.
pub(super) fn all(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).filter(|c| !extra(*c)).collect()
}

pub(super) struct Conv<'t> {
    pub(super) text: &'t str,
    pub(super) depth: usize,
    pub(super) funcs: Vec<Function>,
    pub(super) classes: Vec<Class>,
    pub(super) parent: Parent,
}

impl<'t> Conv<'t> {
    /// A converter for statements at module level.
    pub(super) fn module(text: &'t str) -> Conv<'t> {
        Conv {
            text,
            depth: 0,
            funcs: Vec::new(),
            classes: Vec::new(),
            parent: Parent::Module,
        }
    }

    /// The chunk of `stmts` and the definitions met converting them.
    pub(super) fn finish(self, stmts: Vec<Stmt>, errors: bool) -> ChunkAst {
        ChunkAst {
            stmts,
            funcs: self.funcs,
            classes: self.classes,
            errors,
        }
    }

    pub(super) fn slice(&self, node: Node<'_>) -> &'t str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    pub(super) fn other(node: Node<'_>) -> Expr {
        Expr {
            span: span(node),
            kind: ExprKind::Other,
        }
    }
}

impl<'t> Conv<'t> {
    pub(super) fn field_expr(&mut self, node: Node<'_>, field: &str) -> Expr {
        match node.field(field) {
            Some(n) => self.expr(n),
            None => Self::other(node),
        }
    }

    pub(super) fn boxed(&mut self, node: Option<Node<'_>>, parent: Node<'_>) -> Box<Expr> {
        Box::new(match node {
            Some(n) => self.expr(n),
            None => Self::other(parent),
        })
    }

    pub(super) fn expr(&mut self, node: Node<'_>) -> Expr {
        if self.depth >= MAX_DEPTH || node.is_error() || node.is_missing() {
            return Self::other(node);
        }
        self.depth += 1;
        let kind = self.expr_kind(node);
        self.depth -= 1;
        Expr { span: span(node), kind }
    }

    pub(super) fn expr_kind(&mut self, node: Node<'_>) -> ExprKind {
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

    pub(super) fn args(&mut self, list: Node<'_>) -> Vec<Arg> {
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
                _ => {
                    let e = self.expr(a);
                    // tree-sitter-python reads `f(*g(x))` as a call of
                    // `*g`: the argument is `g(x)`, unpacked.
                    let whole = e.span;
                    match e.kind {
                        ExprKind::Call { func, args, args_span } => {
                            let func = *func;
                            match func.kind {
                                ExprKind::Starred(inner) => out.push(Arg::Star(Expr {
                                    span: Span {
                                        start: inner.span.start,
                                        end: whole.end,
                                    },
                                    kind: ExprKind::Call {
                                        func: inner,
                                        args,
                                        args_span,
                                    },
                                })),
                                kind => out.push(Arg::Pos(Expr {
                                    span: whole,
                                    kind: ExprKind::Call {
                                        func: Box::new(Expr { span: func.span, kind }),
                                        args,
                                        args_span,
                                    },
                                })),
                            }
                        }
                        kind => out.push(Arg::Pos(Expr { span: whole, kind })),
                    }
                }
            }
        }
        out
    }

    pub(super) fn comprehension(&mut self, node: Node<'_>, kind: CompKind) -> ExprKind {
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

    pub(super) fn string(&self, node: Node<'_>) -> ExprKind {
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

/// `a . b` → `a.b`; a line continuation (`torch\` then `.distributed` on
/// the next line) joins the lines.
pub(super) fn dotted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let continuation = c == '\\' && matches!(chars.peek(), Some('\n' | '\r'));
        if !c.is_whitespace() && !continuation {
            out.push(c);
        }
    }
    out
}
