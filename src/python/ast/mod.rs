//! A plain-data Python syntax tree, converted from tree-sitter's concrete
//! tree: what the training-code checks read (statements, expressions,
//! definitions) with byte spans into the file's text. Owned data, so a
//! file's trees can be cached and shared; no tree-sitter type leaves this
//! module.
//!
//! Conversion is bounded: nesting beyond [`MAX_DEPTH`] becomes
//! [`ExprKind::Other`] / [`StmtKind::Other`], and anything the grammar could
//! not place (an `ERROR` node) is skipped, with [`ChunkAst::errors`] set.

use crate::source::Span;

mod convert;
mod stmts;

pub use convert::{convert_chunks, parse_range};

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

impl Stmt {
    /// Whether this statement is a loop that runs the code at `at` (a span
    /// inside it) more than once: a `while`'s test and body, a `for`'s body
    /// — not the `for`'s iterable, evaluated once before the first pass.
    pub fn repeats(&self, at: Span) -> bool {
        match &self.kind {
            StmtKind::While { .. } => true,
            StmtKind::For { iter, .. } => !(iter.span.start <= at.start && at.end <= iter.span.end),
            _ => false,
        }
    }
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

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use tree_sitter::Parser;

    use super::*;

    fn parse(text: &str) -> ChunkAst {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        parse_range(text, &starts, 0..text.len()).unwrap_or_default()
    }

    #[test]
    fn an_unpacked_call_argument_is_the_call_unpacked() {
        // tree-sitter-python reads `*g(x)` in an argument list as a call
        // of `*g`; the tree holds `g(x)`, unpacked.
        let ast = parse("print(a, *g(x))\n");
        let StmtKind::Expr(call) = &ast.stmts[0].kind else {
            panic!("{:?}", ast.stmts[0]);
        };
        let ExprKind::Call { args, .. } = &call.kind else {
            panic!("{call:?}");
        };
        let Arg::Star(inner) = &args[1] else {
            panic!("{:?}", args[1]);
        };
        assert!(matches!(&inner.kind, ExprKind::Call { func, .. } if func.kind == ExprKind::Name("g".into())));
        assert_eq!(inner.span, Span { start: 10, end: 14 });
    }

    /// Top-level shapes a chunk edge could fall inside of: decorators, a
    /// bracket closed at column 0, continued lines, strings holding code,
    /// comments between statements, a guarded main block.
    const EDGE_SHAPES: &str = "import os\n# a comment\n\n@decorator(\n    1,\n)\nclass A:\n    x = 1\n\nCONFIG = dict(\n    a=1,\n)\nTEXT = \"\"\"\ndef not_code():\n    pass\n\"\"\"\nvalue = 1 + \\\n    2\n\n\ndef f():\n    return [\n1]\n\nif __name__ == \"__main__\":\n    f()\n";

    #[test]
    fn chunks_converted_from_a_whole_parse_equal_chunks_parsed_alone() {
        let texts = [
            include_str!("../../../examples/hpp-seed-fixed/model.py"),
            include_str!("../../../examples/hpp-seed-fixed/train.py"),
            include_str!("../../../examples/hpp-seed/model.py"),
            include_str!("../../../examples/hpp-seed/train.py"),
            EDGE_SHAPES,
        ];
        for text in texts {
            let alone = crate::python::ParsedFile::new(text);
            let mut parser = Parser::new();
            assert!(parser.set_language(&crate::python_grammar::language()).is_ok());
            let Some(tree) = parser.parse(alone.text(), None) else {
                panic!("no parse")
            };
            assert!(!tree.root_node().has_error(), "{text}");
            let shared = crate::python::ParsedFile::new(text);
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
        let file = crate::python::ParsedFile::new(&text);
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
        let alone = crate::python::ParsedFile::new(text);
        let shared = crate::python::ParsedFile::new(text);
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
