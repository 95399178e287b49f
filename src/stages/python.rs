//! Static reader for pipeline-stage declarations in Python model files.
//!
//! Models declare heterogeneous pipeline stages by decorating `nn.Module`
//! subclasses with `@stage_decorator(stage_id=…, device=…, dtype=…)` and then
//! instantiating those classes in the `__init__` of a root model. This module
//! reads such a file **statically** with tree-sitter (the Python code is never
//! imported or executed) and returns plain data: the decorated classes, the
//! root model's `self.<attr> = Call(...)` members in assignment (= forward)
//! order, syntax errors and argument problems.
//!
//! Every span is a byte range into the text given to [`read_model`], so
//! `&text[span]` is the exact source text of the item.
//!
//! Reading is error tolerant: syntax errors are reported in
//! [`PyModel::syntax_errors`] while everything that could still be recognised
//! is returned. When a syntax error swallows the rest of the file (an unclosed
//! bracket, say), the reader re-parses every later top-level `@…`, `class`,
//! `def`, `import` or `from` line (at column 0) on its own, so stage classes
//! declared after the error are still found.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use tree_sitter::{Node, Parser, Point, Tree};

use crate::python::literal::{self, IntError};
use crate::python::ParsedFile;
use crate::python_grammar::KindName;

/// Name of the decorator function that marks a class as a pipeline stage.
pub const STAGE_DECORATOR: &str = "stage_decorator";

/// Result of reading one Python file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PyModel {
    /// Classes decorated with the stage decorator, in source order.
    pub stage_classes: Vec<StageClass>,
    /// The model whose `__init__` instantiates the stage classes, if any.
    pub root: Option<RootModel>,
    /// Syntax errors (tree-sitter `ERROR` / `MISSING` nodes), in source order.
    pub syntax_errors: Vec<PySyntaxError>,
    /// Problems with stage decorators (bad or missing arguments, …), in source
    /// order.
    pub problems: Vec<PyProblem>,
}

/// A class decorated with `@stage_decorator(...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageClass {
    /// The class name, e.g. `VisionEncoder`.
    pub class_name: String,
    /// Span of the class name identifier.
    pub name_span: Range<usize>,
    /// Span of the whole decorated definition (decorators, header and body).
    pub span: Range<usize>,
    /// Span of the stage decorator, from `@` to the end of its expression.
    pub decorator_span: Range<usize>,
    /// The `stage_id` argument, if given as a valid integer literal.
    pub stage_id: Option<Arg<i64>>,
    /// The `device` argument, if given as a plain string literal (the value
    /// holds the string's contents, without quotes).
    pub device: Option<Arg<String>>,
    /// The `dtype` argument as written: an attribute chain or bare name keeps
    /// its dotted text (`torch.float8_e4m3fn`, `bf16`); a string literal keeps
    /// its contents without quotes (`"bf16"` → `bf16`). Whether it was quoted
    /// can be told from `&text[span]`.
    pub dtype: Option<Arg<String>>,
    /// The base classes as written, e.g. `["nn.Module"]` (positional bases
    /// only; keyword arguments such as `metaclass=` are left out).
    pub bases: Vec<String>,
}

/// One decorator argument whose value was understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg<T> {
    /// The interpreted value.
    pub value: T,
    /// Span of the value expression as written (including quotes for strings).
    pub span: Range<usize>,
    /// Span of the keyword (`stage_id` in `stage_id=0`); `None` when the
    /// argument was positional.
    pub keyword_span: Option<Range<usize>>,
}

/// The root model: the class whose `__init__` instantiates stage classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootModel {
    /// The class name, e.g. `HybridModel`.
    pub class_name: String,
    /// Span of the class name identifier.
    pub name_span: Range<usize>,
    /// Every `self.<attr> = Call(...)` in `__init__`, in source order.
    pub members: Vec<Member>,
}

/// One `self.<attr> = Call(...)` assignment in the root model's `__init__`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The attribute name, e.g. `encoder`.
    pub attr: String,
    /// Span of the whole assignment `self.x = ...`.
    pub span: Range<usize>,
    /// Span of the attribute name after `self.`.
    pub attr_span: Range<usize>,
    /// The constructor as written, e.g. `VisionEncoder` or `nn.Linear`. For a
    /// method chain like `Foo(...).to(device)` this is the innermost call's
    /// callee (`Foo`).
    pub constructor: String,
    /// Span of the constructor expression.
    pub constructor_span: Range<usize>,
    /// Index into [`PyModel::stage_classes`] when the constructor is a bare
    /// name of a decorated class defined in the file.
    pub stage_class: Option<usize>,
    /// Calls passed positionally to the constructor, directly or inside a
    /// list/tuple literal, e.g. the two calls in
    /// `nn.Sequential(VisionEncoder(), TransformerBlock())` or
    /// `nn.ModuleList([A(), B()])`. One level deep only.
    pub nested: Vec<NestedCall>,
}

/// A call passed as an argument to a member's constructor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NestedCall {
    /// The constructor as written.
    pub constructor: String,
    /// Span of the whole call expression.
    pub span: Range<usize>,
    /// Span of the constructor expression.
    pub constructor_span: Range<usize>,
    /// Index into [`PyModel::stage_classes`] when the constructor is a bare
    /// name of a decorated class defined in the file.
    pub stage_class: Option<usize>,
}

/// A syntax error found by the parser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PySyntaxError {
    pub kind: SyntaxErrorKind,
    /// Where the error is; zero-width for a missing token.
    pub span: Range<usize>,
}

/// What a syntax error is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// A bracket (`(`, `[`, `{`) that is never closed.
    Unclosed(String),
    /// A token the grammar expected here (a node kind: `)`, `identifier`).
    Missing(String),
    /// Text the grammar could not place (a one-line excerpt; may be empty).
    Invalid(String),
}

/// A problem with a stage declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyProblem {
    /// What kind of problem this is.
    pub kind: PyProblemKind,
    /// The offending source text.
    pub span: Range<usize>,
}

/// A parameter of the stage decorator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StageParam {
    /// `stage_id` (first positional parameter).
    StageId,
    /// `device` (second positional parameter).
    Device,
    /// `dtype` (third positional parameter).
    Dtype,
}

impl StageParam {
    /// All parameters, in positional order.
    pub const ALL: [StageParam; 3] = [StageParam::StageId, StageParam::Device, StageParam::Dtype];

    /// The keyword name of the parameter.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            StageParam::StageId => "stage_id",
            StageParam::Device => "device",
            StageParam::Dtype => "dtype",
        }
    }

    /// The parameter with the given keyword name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<StageParam> {
        StageParam::ALL.into_iter().find(|p| p.name() == name)
    }

    fn index(self) -> usize {
        match self {
            StageParam::StageId => 0,
            StageParam::Device => 1,
            StageParam::Dtype => 2,
        }
    }
}

/// Kinds of [`PyProblem`], with what a message needs. Excerpts of source
/// text are one line, at most 40 characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PyProblemKind {
    /// The Python grammar could not be loaded (the reason), or the parser
    /// gave up (`None`); nothing was read.
    ParserUnavailable(Option<String>),
    /// `@stage_decorator` used without a call (no argument list).
    DecoratorNotCalled,
    /// A class carries more than one stage decorator; only the first is used.
    DuplicateDecorator,
    /// A generator expression as the decorator's arguments.
    GeneratorArguments,
    /// `*args` or `**kwargs` among the decorator's arguments (the excerpt).
    Unpacked(String),
    /// A keyword other than `stage_id`, `device` or `dtype`.
    UnknownKeyword(String),
    /// More than three positional arguments.
    TooManyPositional,
    /// A positional argument after a keyword argument.
    PositionalAfterKeyword,
    /// The parameter was given more than once.
    DuplicateArgument(StageParam),
    /// The parameter was not given.
    MissingArgument(StageParam),
    /// The parameter's value is not of the accepted literal form
    /// (non-literal `stage_id`, f-string `device`, call as `dtype`, …).
    InvalidValue(StageParam, NotLiteral),
    /// `stage_id` is an integer literal that does not fit in an `i64` (the
    /// excerpt).
    StageIdOutOfRange(String),
}

/// Why a decorator argument is not a literal stagec can read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NotLiteral {
    /// Another expression (its excerpt).
    Found(String),
    /// An expression cut short.
    Incomplete,
    /// An f-string.
    FString,
    /// A bytes literal.
    Bytes,
    /// A string without its opening quote read.
    IncompleteString,
    /// A string that is not terminated.
    Unterminated,
}

/// Reads pipeline-stage declarations from Python source text.
///
/// Never panics; whatever cannot be read is reported in
/// [`PyModel::syntax_errors`] or [`PyModel::problems`].
#[must_use]
pub fn read_model(text: &str) -> PyModel {
    read_model_in(&ParsedFile::new(text))
}

/// [`read_model`] of a file of the Python front end: its whole-file parse
/// (made now if no reader asked for it yet) is the one the training analysis
/// reads, so the file is parsed once. Spans are into [`ParsedFile::text`]
/// (each lone `\r` read as `\n`, byte for byte, so every span holds).
pub fn read_model_in(file: &ParsedFile) -> PyModel {
    let text = file.text();
    let mut model = PyModel::default();
    let main = match file.tree() {
        Ok(tree) => tree,
        Err(reason) => {
            model.problems.push(PyProblem {
                kind: PyProblemKind::ParserUnavailable(reason),
                span: 0..0,
            });
            return model;
        }
    };

    model.syntax_errors = syntax_errors(main.root_node(), text);
    let recovered = recovery_trees(main, text);
    let trees: Vec<&Tree> = std::iter::once(main).chain(recovered.iter()).collect();

    // Collect the interesting nodes of all trees.
    let mut imports = Vec::new();
    let mut decorated = Vec::new();
    let mut classes = Vec::new();
    for tree in trees {
        walk(tree.root_node(), |node| {
            match node.kind_name() {
                "import_statement" | "import_from_statement" => {
                    imports.push(node);
                    return false;
                }
                "decorated_definition" => decorated.push(node),
                "class_definition" => classes.push(node),
                _ => {}
            }
            true
        });
    }

    let mut reader = Reader {
        text,
        funcs: HashSet::from([STAGE_DECORATOR.to_string()]),
        modules: HashSet::from(["hpp".to_string(), "determined.hpp".to_string()]),
        problems: Vec::new(),
    };
    for node in imports {
        reader.add_import(node);
    }

    // Stage classes, deduplicated by class-name position (recovery trees may
    // see a class the main tree saw too); the main tree wins ties.
    decorated.sort_by_key(Node::start_byte);
    let mut seen = HashSet::new();
    for node in decorated {
        let Some(class) = node
            .child_by_field_name("definition")
            .filter(|d| d.kind_name() == "class_definition")
        else {
            continue;
        };
        let key = class
            .child_by_field_name("name")
            .map_or(node.start_byte(), |n| n.start_byte());
        if !seen.insert(key) {
            continue;
        }
        if let Some(stage) = reader.stage_class(node, class) {
            model.stage_classes.push(stage);
        }
    }

    model.root = pick_root(&reader, &model.stage_classes, classes);
    model.problems.extend(reader.problems);
    model.problems.sort_by_key(|p| p.span.start);
    model
}

/// The class whose `__init__` references the most stage classes (ties: the
/// last in the file), if any references one at all.
fn pick_root(reader: &Reader<'_>, stage_classes: &[StageClass], mut classes: Vec<Node<'_>>) -> Option<RootModel> {
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for (i, stage) in stage_classes.iter().enumerate() {
        by_name.insert(stage.class_name.as_str(), i);
    }
    classes.sort_by_key(Node::start_byte);
    let mut seen = HashSet::new();
    let mut best: Option<(usize, RootModel)> = None;
    for class in classes {
        let Some(name) = class.child_by_field_name("name") else {
            continue;
        };
        if !seen.insert(name.start_byte()) {
            continue;
        }
        let Some(members) = reader.init_members(class, &by_name) else {
            continue;
        };
        let score = members
            .iter()
            .map(|m| usize::from(m.stage_class.is_some()) + m.nested.iter().filter(|c| c.stage_class.is_some()).count())
            .sum::<usize>();
        if score > 0 && best.as_ref().is_none_or(|(s, _)| score >= *s) {
            best = Some((
                score,
                RootModel {
                    class_name: reader.slice(name).to_string(),
                    name_span: name.byte_range(),
                    members,
                },
            ));
        }
    }
    best.map(|(_, root)| root)
}

/// Pre-order walk without recursion. `visit` returns whether to descend into
/// the node's children.
fn walk<'t>(start: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    let mut cursor = start.walk();
    let mut depth = 0usize;
    loop {
        if visit(cursor.node()) && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}

/// The node's children (named ones only when `named`), comments left out.
fn children(node: Node<'_>, named: bool) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    let mut out = Vec::new();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if (!named || child.is_named()) && child.kind_name() != "comment" {
                out.push(child);
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

/// Strips any number of enclosing parentheses.
fn unparen(mut node: Node<'_>) -> Node<'_> {
    while node.kind_name() == "parenthesized_expression" {
        match children(node, true).as_slice() {
            [inner] => node = *inner,
            _ => break,
        }
    }
    node
}

fn slice<'s>(text: &'s str, node: Node<'_>) -> &'s str {
    text.get(node.byte_range()).unwrap_or("")
}

/// A short, single-line excerpt of `s` for messages.
fn excerpt(s: &str) -> String {
    const MAX: usize = 40;
    let line = s.lines().next().unwrap_or("").trim();
    if line.chars().count() > MAX {
        let cut: String = line.chars().take(MAX).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// `a`, `a.b.c` (attribute chain or dotted name) as dotted text; `None` for
/// anything else. Iterative, so deep chains cannot overflow the stack.
fn dotted_path(node: Node<'_>, text: &str) -> Option<String> {
    if node.kind_name() == "dotted_name" {
        let parts = children(node, true);
        if parts.is_empty() || parts.iter().any(|p| p.kind_name() != "identifier") {
            return None;
        }
        let parts: Vec<&str> = parts.iter().map(|p| slice(text, *p)).collect();
        return Some(parts.join("."));
    }
    let mut parts = Vec::new();
    let mut cur = node;
    loop {
        match cur.kind_name() {
            "identifier" => {
                parts.push(slice(text, cur));
                break;
            }
            "attribute" => {
                let attr = cur.child_by_field_name("attribute")?;
                if attr.kind_name() != "identifier" || attr.is_missing() {
                    return None;
                }
                parts.push(slice(text, attr));
                cur = cur.child_by_field_name("object")?;
            }
            _ => return None,
        }
    }
    if parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    parts.reverse();
    Some(parts.join("."))
}

// ---------------------------------------------------------------------------
// Syntax errors and recovery

fn syntax_errors(root: Node<'_>, text: &str) -> Vec<PySyntaxError> {
    let mut errors = Vec::new();
    walk(root, |node| {
        if node.is_error() {
            errors.push(describe_error(node, text));
            false
        } else if node.is_missing() {
            errors.push(PySyntaxError {
                kind: SyntaxErrorKind::Missing(node.kind_name().to_string()),
                span: node.byte_range(),
            });
            false
        } else {
            node.has_error()
        }
    });
    errors
}

/// Describes an `ERROR` node: an unclosed bracket inside it is the most
/// common cause and gets a precise span; otherwise the whole node is blamed.
fn describe_error(node: Node<'_>, text: &str) -> PySyntaxError {
    let mut open: Vec<Node<'_>> = Vec::new();
    walk(node, |n| {
        if n.child_count() == 0 && !n.is_missing() {
            match n.kind_name() {
                "(" | "[" | "{" => open.push(n),
                ")" | "]" | "}" => {
                    let opener = match n.kind_name() {
                        ")" => "(",
                        "]" => "[",
                        _ => "{",
                    };
                    if open.last().is_some_and(|o| o.kind_name() == opener) {
                        open.pop();
                    }
                }
                _ => {}
            }
        }
        true
    });
    if let Some(first) = open.first() {
        return PySyntaxError {
            kind: SyntaxErrorKind::Unclosed(first.kind_name().to_string()),
            span: first.byte_range(),
        };
    }
    PySyntaxError {
        kind: SyntaxErrorKind::Invalid(excerpt(slice(text, node))),
        span: node.byte_range(),
    }
}

/// Byte offsets of column-0 lines that start a new top-level statement
/// (`@`, `class`, `def`, `async`, `import`, `from`). Lines that continue a
/// decorator group (a `class`/`def` or further `@` after an `@` line) are not
/// boundaries, so a decorated definition stays in one chunk.
fn sync_points(text: &str) -> Vec<usize> {
    let mut points = Vec::new();
    let mut in_decorators = false;
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let starts = |kw: &str| line.strip_prefix(kw).is_some_and(|rest| rest.starts_with([' ', '\t']));
        let is_decorator = line.starts_with('@');
        let is_def = starts("class") || starts("def") || starts("async");
        let is_import = starts("import") || starts("from");
        if is_decorator {
            if !in_decorators {
                points.push(start);
            }
            in_decorators = true;
        } else if is_def {
            if !in_decorators {
                points.push(start);
            }
            in_decorators = false;
        } else if is_import {
            points.push(start);
            in_decorators = false;
        }
    }
    points
}

fn point_at(line_starts: &[usize], byte: usize) -> Point {
    let row = line_starts.partition_point(|&s| s <= byte).saturating_sub(1);
    let column = byte.saturating_sub(line_starts.get(row).copied().unwrap_or(0));
    Point { row, column }
}

/// Re-parses, each on its own, the top-level chunks that start inside an
/// outermost `ERROR` node of `main`, so code after an error that swallowed
/// the rest of the file is still seen. Chunks run from one sync point to the
/// next (see [`sync_points`]).
fn recovery_trees(main: &Tree, text: &str) -> Vec<Tree> {
    let root = main.root_node();
    if !root.has_error() {
        return Vec::new();
    }
    let mut regions = Vec::new();
    walk(root, |node| {
        if node.is_error() {
            regions.push(node.byte_range());
            false
        } else {
            node.has_error()
        }
    });
    if regions.is_empty() {
        return Vec::new();
    }
    let points = sync_points(text);
    let mut line_starts = vec![0usize];
    line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));

    let mut chunks = Vec::new();
    for (i, &start) in points.iter().enumerate() {
        if regions.iter().any(|r| r.contains(&start)) {
            let end = points.get(i + 1).copied().unwrap_or(text.len());
            chunks.push(start..end);
        }
    }

    let mut parser = Parser::new();
    if chunks.is_empty() || parser.set_language(&crate::python_grammar::language()).is_err() {
        return Vec::new();
    }
    let mut trees = Vec::new();
    for chunk in chunks {
        let range = tree_sitter::Range {
            start_byte: chunk.start,
            end_byte: chunk.end,
            start_point: point_at(&line_starts, chunk.start),
            end_point: point_at(&line_starts, chunk.end),
        };
        if parser.set_included_ranges(&[range]).is_err() {
            continue;
        }
        if let Some(tree) = parser.parse(text, None) {
            trees.push(tree);
        }
    }
    trees
}

// ---------------------------------------------------------------------------
// Decorators, arguments and members

struct Reader<'s> {
    text: &'s str,
    /// Names that denote the decorator itself (`stage_decorator`, `sd`).
    funcs: HashSet<String>,
    /// Dotted module paths that denote `determined.hpp` (`hpp`, …).
    modules: HashSet<String>,
    problems: Vec<PyProblem>,
}

impl<'s> Reader<'s> {
    fn slice(&self, node: Node<'_>) -> &'s str {
        slice(self.text, node)
    }

    fn problem(&mut self, kind: PyProblemKind, span: Range<usize>) {
        self.problems.push(PyProblem { kind, span });
    }

    /// Records decorator and module aliases introduced by an import.
    fn add_import(&mut self, node: Node<'_>) {
        let is_from = node.kind_name() == "import_from_statement";
        let mut cursor = node.walk();
        let names: Vec<Node<'_>> = node.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            let (path_node, alias) = if name.kind_name() == "aliased_import" {
                let alias = name.child_by_field_name("alias").map(|a| self.slice(a).to_string());
                (name.child_by_field_name("name"), alias)
            } else {
                (Some(name), None)
            };
            let Some(path) = path_node.and_then(|p| dotted_path(p, self.text)) else {
                continue;
            };
            if is_from {
                let bound = alias.unwrap_or_else(|| path.clone());
                if path == STAGE_DECORATOR {
                    self.funcs.insert(bound);
                } else if path == "hpp" {
                    self.modules.insert(bound);
                }
            } else {
                let last = path.rsplit('.').next().unwrap_or("");
                match alias {
                    Some(alias) if last == "hpp" => {
                        self.modules.insert(alias);
                    }
                    Some(alias) if path == "determined" => {
                        self.modules.insert(format!("{alias}.hpp"));
                    }
                    None if last == "hpp" => {
                        self.modules.insert(path);
                    }
                    _ => {}
                }
            }
        }
    }

    fn is_stage_decorator(&self, func: Node<'_>) -> bool {
        let Some(path) = dotted_path(func, self.text) else {
            return false;
        };
        if self.funcs.contains(&path) {
            return true;
        }
        match path.rsplit_once('.') {
            Some((prefix, name)) => name == STAGE_DECORATOR && self.modules.contains(prefix),
            None => false,
        }
    }

    fn stage_class(&mut self, decorated: Node<'_>, class: Node<'_>) -> Option<StageClass> {
        // (decorator node, its call if called)
        let mut found: Vec<(Node<'_>, Option<Node<'_>>)> = Vec::new();
        for dec in children(decorated, true) {
            if dec.kind_name() != "decorator" {
                continue;
            }
            let Some(expr) = children(dec, true).first().map(|e| unparen(*e)) else {
                continue;
            };
            if expr.kind_name() == "call" {
                if let Some(func) = expr.child_by_field_name("function") {
                    if self.is_stage_decorator(func) {
                        found.push((dec, Some(expr)));
                    }
                }
            } else if self.is_stage_decorator(expr) {
                found.push((dec, None));
            }
        }
        let (&(decorator, call), rest) = found.split_first()?;
        for (dup, _) in rest {
            self.problem(PyProblemKind::DuplicateDecorator, dup.byte_range());
        }

        let name = class.child_by_field_name("name");
        let class_name = name.map(|n| self.slice(n).to_string()).unwrap_or_default();
        let name_span = name.map_or(class.byte_range(), |n| n.byte_range());
        let bases = class
            .child_by_field_name("superclasses")
            .map(|list| {
                children(list, true)
                    .into_iter()
                    .filter(|b| !matches!(b.kind_name(), "keyword_argument" | "ERROR"))
                    .map(|b| self.slice(b).to_string())
                    .collect()
            })
            .unwrap_or_default();

        let mut stage = StageClass {
            class_name,
            name_span,
            span: decorated.byte_range(),
            decorator_span: decorator.byte_range(),
            stage_id: None,
            device: None,
            dtype: None,
            bases,
        };
        match call {
            Some(call) => self.read_args(call, &mut stage),
            None => self.problem(PyProblemKind::DecoratorNotCalled, decorator.byte_range()),
        }
        Some(stage)
    }

    fn read_args(&mut self, call: Node<'_>, stage: &mut StageClass) {
        let Some(args) = call.child_by_field_name("arguments") else {
            return;
        };
        if args.kind_name() != "argument_list" {
            self.problem(PyProblemKind::GeneratorArguments, args.byte_range());
            return;
        }
        let mut supplied = [false; 3];
        let mut unpacked = false;
        let mut positional = 0usize;
        let mut after_keyword = false;
        for arg in children(args, true) {
            match arg.kind_name() {
                "ERROR" => {}
                "list_splat" | "dictionary_splat" => {
                    unpacked = true;
                    self.problem(PyProblemKind::Unpacked(excerpt(self.slice(arg))), arg.byte_range());
                }
                "keyword_argument" => {
                    after_keyword = true;
                    let (Some(key), Some(value)) = (arg.child_by_field_name("name"), arg.child_by_field_name("value"))
                    else {
                        continue;
                    };
                    let key_text = self.slice(key);
                    let Some(param) = StageParam::from_name(key_text) else {
                        self.problem(PyProblemKind::UnknownKeyword(excerpt(key_text)), key.byte_range());
                        continue;
                    };
                    if std::mem::replace(&mut supplied[param.index()], true) {
                        self.problem(PyProblemKind::DuplicateArgument(param), arg.byte_range());
                        continue;
                    }
                    self.read_value(param, value, Some(key.byte_range()), stage);
                }
                _ => {
                    if after_keyword {
                        self.problem(PyProblemKind::PositionalAfterKeyword, arg.byte_range());
                        continue;
                    }
                    let Some(&param) = StageParam::ALL.get(positional) else {
                        self.problem(PyProblemKind::TooManyPositional, arg.byte_range());
                        continue;
                    };
                    positional += 1;
                    supplied[param.index()] = true;
                    self.read_value(param, arg, None, stage);
                }
            }
        }
        if !unpacked {
            for param in StageParam::ALL {
                if !supplied[param.index()] {
                    self.problem(PyProblemKind::MissingArgument(param), args.byte_range());
                }
            }
        }
    }

    fn read_value(
        &mut self,
        param: StageParam,
        value: Node<'_>,
        keyword_span: Option<Range<usize>>,
        stage: &mut StageClass,
    ) {
        let span = value.byte_range();
        let arg = |v| Arg {
            value: v,
            span: span.clone(),
            keyword_span: keyword_span.clone(),
        };
        let result = match param {
            StageParam::StageId => self.int_literal(value).map(|v| {
                stage.stage_id = Some(Arg {
                    value: v,
                    span: span.clone(),
                    keyword_span: keyword_span.clone(),
                });
            }),
            StageParam::Device => match self.string_literal(value) {
                Ok(v) => {
                    stage.device = Some(arg(v));
                    Ok(())
                }
                Err(why) => Err(PyProblemKind::InvalidValue(param, why)),
            },
            StageParam::Dtype => match self.dtype_value(value) {
                Ok(v) => {
                    stage.dtype = Some(arg(v));
                    Ok(())
                }
                Err(why) => Err(PyProblemKind::InvalidValue(param, why)),
            },
        };
        if let Err(kind) = result {
            self.problem(kind, span);
        }
    }

    fn int_literal(&self, value: Node<'_>) -> Result<i64, PyProblemKind> {
        let bad = |why: NotLiteral| Err(PyProblemKind::InvalidValue(StageParam::StageId, why));
        let mut node = unparen(value);
        let mut negative = false;
        while node.kind_name() == "unary_operator" {
            let op = node.child_by_field_name("operator").map(|o| o.kind_name());
            match op {
                Some("-") => negative = !negative,
                Some("+") => {}
                _ => return bad(NotLiteral::Found(excerpt(self.slice(value)))),
            }
            match node.child_by_field_name("argument") {
                Some(arg) => node = unparen(arg),
                None => return bad(NotLiteral::Incomplete),
            }
        }
        if node.kind_name() != "integer" {
            return bad(NotLiteral::Found(excerpt(self.slice(value))));
        }
        let out_of_range = || Err(PyProblemKind::StageIdOutOfRange(excerpt(self.slice(value))));
        match literal::int(self.slice(node)) {
            Ok(v) => {
                let v = if negative { -v } else { v };
                match i64::try_from(v) {
                    Ok(v) => Ok(v),
                    Err(_) => out_of_range(),
                }
            }
            Err(IntError::Overflow) => out_of_range(),
            Err(IntError::Invalid) => bad(NotLiteral::Found(excerpt(self.slice(value)))),
        }
    }

    /// A plain string literal (or implicit concatenation of plain literals).
    fn string_literal(&self, value: Node<'_>) -> Result<String, NotLiteral> {
        let node = unparen(value);
        match node.kind_name() {
            "string" => self.single_string(node),
            "concatenated_string" => {
                let mut out = String::new();
                for part in children(node, true) {
                    out.push_str(&self.single_string(part)?);
                }
                Ok(out)
            }
            _ => Err(NotLiteral::Found(excerpt(self.slice(value)))),
        }
    }

    fn single_string(&self, node: Node<'_>) -> Result<String, NotLiteral> {
        if node.kind_name() != "string" {
            return Err(NotLiteral::Found(excerpt(self.slice(node))));
        }
        let mut start = None;
        let mut end = None;
        for child in children(node, false) {
            match child.kind_name() {
                "string_start" => start = Some(child),
                "string_end" if !child.is_missing() => end = Some(child),
                "interpolation" => return Err(NotLiteral::FString),
                _ => {}
            }
        }
        let Some(start) = start else {
            return Err(NotLiteral::IncompleteString);
        };
        let prefix: String = self
            .slice(start)
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if prefix.contains('f') || prefix.contains('t') {
            return Err(NotLiteral::FString);
        }
        if prefix.contains('b') {
            return Err(NotLiteral::Bytes);
        }
        let Some(end) = end else {
            return Err(NotLiteral::Unterminated);
        };
        let raw = self.text.get(start.end_byte()..end.start_byte()).unwrap_or("");
        Ok(if prefix.contains('r') {
            raw.to_string()
        } else {
            literal::unescape(raw)
        })
    }

    fn dtype_value(&self, value: Node<'_>) -> Result<String, NotLiteral> {
        let node = unparen(value);
        match node.kind_name() {
            "string" | "concatenated_string" => self.string_literal(node),
            "identifier" | "attribute" => {
                dotted_path(node, self.text).ok_or_else(|| NotLiteral::Found(excerpt(self.slice(value))))
            }
            _ => Err(NotLiteral::Found(excerpt(self.slice(value)))),
        }
    }

    /// The `self.<attr> = Call(...)` assignments in the class's `__init__`,
    /// or `None` when the class has no `__init__`.
    fn init_members(&self, class: Node<'_>, stages: &HashMap<&str, usize>) -> Option<Vec<Member>> {
        let body = class.child_by_field_name("body")?;
        let mut init = None;
        for stmt in children(body, true) {
            let def = if stmt.kind_name() == "decorated_definition" {
                stmt.child_by_field_name("definition")
            } else {
                Some(stmt)
            };
            let Some(def) = def.filter(|d| d.kind_name() == "function_definition") else {
                continue;
            };
            if def
                .child_by_field_name("name")
                .is_some_and(|n| self.slice(n) == "__init__")
            {
                init = Some(def); // the last definition wins, as in Python
            }
        }
        let init = init?;
        let self_name = init
            .child_by_field_name("parameters")
            .and_then(|p| children(p, true).into_iter().next())
            .and_then(|p| match p.kind_name() {
                "identifier" => Some(p),
                "typed_parameter" => children(p, true).into_iter().next(),
                "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
                _ => None,
            })
            .map_or("self", |n| self.slice(n));
        let init_body = init.child_by_field_name("body")?;

        let mut members = Vec::new();
        walk(init_body, |node| match node.kind_name() {
            "assignment" => {
                if let Some(member) = self.member(node, self_name, stages) {
                    members.push(member);
                }
                false
            }
            "function_definition" | "class_definition" | "decorated_definition" | "lambda" => false,
            _ => true,
        });
        Some(members)
    }

    fn member(&self, assignment: Node<'_>, self_name: &str, stages: &HashMap<&str, usize>) -> Option<Member> {
        // An ERROR directly inside an assignment means the parser glued
        // unrelated text together (`self.a = A(` followed by the next line);
        // the target/value pairing is then unreliable.
        let garbled = |a: Node<'_>| children(a, false).iter().any(Node::is_error);
        if garbled(assignment) {
            return None;
        }
        let left = assignment.child_by_field_name("left")?;
        let mut right = assignment.child_by_field_name("right")?;
        while right.kind_name() == "assignment" {
            if garbled(right) {
                return None;
            }
            right = right.child_by_field_name("right")?;
        }
        if left.kind_name() != "attribute" {
            return None;
        }
        let object = left.child_by_field_name("object")?;
        let attr = left.child_by_field_name("attribute")?;
        if object.kind_name() != "identifier" || self.slice(object) != self_name || attr.is_missing() {
            return None;
        }
        let call = unparen(right);
        if call.kind_name() != "call" {
            return None;
        }
        let ctor = self.constructor(call, stages)?;
        Some(Member {
            attr: self.slice(attr).to_string(),
            span: assignment.byte_range(),
            attr_span: attr.byte_range(),
            constructor: ctor.constructor,
            constructor_span: ctor.constructor_span,
            stage_class: ctor.stage_class,
            nested: self.nested_calls(ctor.call, stages),
        })
    }

    /// Peels method chains (`Foo(...).to(dev)` → `Foo(...)`) and describes
    /// the innermost call.
    fn constructor<'t>(&self, mut call: Node<'t>, stages: &HashMap<&str, usize>) -> Option<Ctor<'t>> {
        let mut func = call.child_by_field_name("function")?;
        while func.kind_name() == "attribute" {
            let Some(object) = func.child_by_field_name("object").map(unparen) else {
                break;
            };
            if object.kind_name() != "call" {
                break;
            }
            let Some(inner) = object.child_by_field_name("function") else {
                break;
            };
            call = object;
            func = inner;
        }
        let constructor = dotted_path(func, self.text)
            .unwrap_or_else(|| self.slice(func).split_whitespace().collect::<Vec<_>>().join(" "));
        let stage_class = if func.kind_name() == "identifier" {
            stages.get(self.slice(func)).copied()
        } else {
            None
        };
        Some(Ctor {
            call,
            constructor,
            constructor_span: func.byte_range(),
            stage_class,
        })
    }

    fn nested_calls(&self, call: Node<'_>, stages: &HashMap<&str, usize>) -> Vec<NestedCall> {
        let mut out = Vec::new();
        let Some(args) = call
            .child_by_field_name("arguments")
            .filter(|a| a.kind_name() == "argument_list")
        else {
            return out;
        };
        let mut candidates = Vec::new();
        for arg in children(args, true) {
            let arg = unparen(arg);
            match arg.kind_name() {
                "call" => candidates.push(arg),
                "list" | "tuple" => candidates.extend(
                    children(arg, true)
                        .into_iter()
                        .map(unparen)
                        .filter(|e| e.kind_name() == "call"),
                ),
                _ => {}
            }
        }
        for inner in candidates {
            if let Some(ctor) = self.constructor(inner, stages) {
                out.push(NestedCall {
                    constructor: ctor.constructor,
                    span: inner.byte_range(),
                    constructor_span: ctor.constructor_span,
                    stage_class: ctor.stage_class,
                });
            }
        }
        out
    }
}

struct Ctor<'t> {
    call: Node<'t>,
    constructor: String,
    constructor_span: Range<usize>,
    stage_class: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELD_NOTES: &str = r#"import torch
import torch.nn as nn
from determined.hpp import stage_decorator

@stage_decorator(stage_id=0, device="a100", dtype=torch.float16)
class VisionEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3)

@stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)
class TransformerBlock(nn.Module):
    ...

class HybridModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = VisionEncoder()        # stage 0
        self.transformer = TransformerBlock() # stage 1
        self.classifier = nn.Linear(768, 1000) # undecorated, after stage 1 -> stage 2
"#;

    fn at<'a>(text: &'a str, span: &Range<usize>) -> &'a str {
        &text[span.clone()]
    }

    /// Problem kinds with their excerpts and reasons left out, to compare
    /// shapes (see `shapes` below for the wording's data).
    fn kinds(model: &PyModel) -> Vec<PyProblemKind> {
        model
            .problems
            .iter()
            .map(|p| match &p.kind {
                PyProblemKind::InvalidValue(param, _) => invalid(*param),
                PyProblemKind::StageIdOutOfRange(_) => out_of_range(),
                PyProblemKind::UnknownKeyword(_) => unknown_keyword(),
                PyProblemKind::Unpacked(_) => unpacked(),
                PyProblemKind::ParserUnavailable(_) => PyProblemKind::ParserUnavailable(None),
                k => k.clone(),
            })
            .collect()
    }

    fn invalid(param: StageParam) -> PyProblemKind {
        PyProblemKind::InvalidValue(param, NotLiteral::Incomplete)
    }

    fn out_of_range() -> PyProblemKind {
        PyProblemKind::StageIdOutOfRange(String::new())
    }

    fn unknown_keyword() -> PyProblemKind {
        PyProblemKind::UnknownKeyword(String::new())
    }

    fn unpacked() -> PyProblemKind {
        PyProblemKind::Unpacked(String::new())
    }

    #[test]
    fn field_notes_example() {
        let m = read_model(FIELD_NOTES);
        assert!(m.syntax_errors.is_empty(), "{:?}", m.syntax_errors);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        assert_eq!(m.stage_classes.len(), 2);

        let enc = &m.stage_classes[0];
        assert_eq!(enc.class_name, "VisionEncoder");
        assert_eq!(at(FIELD_NOTES, &enc.name_span), "VisionEncoder");
        assert_eq!(
            at(FIELD_NOTES, &enc.decorator_span),
            r#"@stage_decorator(stage_id=0, device="a100", dtype=torch.float16)"#
        );
        assert_eq!(enc.bases, vec!["nn.Module".to_string()]);
        let id = enc.stage_id.as_ref().unwrap();
        assert_eq!(id.value, 0);
        assert_eq!(at(FIELD_NOTES, &id.span), "0");
        assert_eq!(at(FIELD_NOTES, id.keyword_span.as_ref().unwrap()), "stage_id");
        let dev = enc.device.as_ref().unwrap();
        assert_eq!(dev.value, "a100");
        assert_eq!(at(FIELD_NOTES, &dev.span), "\"a100\"");
        assert_eq!(enc.dtype.as_ref().unwrap().value, "torch.float16");

        let tb = &m.stage_classes[1];
        assert_eq!(tb.class_name, "TransformerBlock");
        assert_eq!(tb.stage_id.as_ref().unwrap().value, 1);
        assert_eq!(tb.device.as_ref().unwrap().value, "h100");
        assert_eq!(tb.dtype.as_ref().unwrap().value, "torch.float8_e4m3fn");

        let root = m.root.as_ref().unwrap();
        assert_eq!(root.class_name, "HybridModel");
        assert_eq!(at(FIELD_NOTES, &root.name_span), "HybridModel");
        let summary: Vec<_> = root
            .members
            .iter()
            .map(|mem| (mem.attr.as_str(), mem.constructor.as_str(), mem.stage_class))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("encoder", "VisionEncoder", Some(0)),
                ("transformer", "TransformerBlock", Some(1)),
                ("classifier", "nn.Linear", None),
            ]
        );
        let cls = &root.members[2];
        assert_eq!(at(FIELD_NOTES, &cls.span), "self.classifier = nn.Linear(768, 1000)");
        assert_eq!(at(FIELD_NOTES, &cls.attr_span), "classifier");
        assert_eq!(at(FIELD_NOTES, &cls.constructor_span), "nn.Linear");
    }

    #[test]
    fn positional_arguments() {
        let src = "@stage_decorator(2, 'h100', \"bf16\")\nclass S(Module):\n    pass\n";
        let m = read_model(src);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let s = &m.stage_classes[0];
        let id = s.stage_id.as_ref().unwrap();
        assert_eq!((id.value, at(src, &id.span), id.keyword_span.clone()), (2, "2", None));
        let dev = s.device.as_ref().unwrap();
        assert_eq!((dev.value.as_str(), at(src, &dev.span)), ("h100", "'h100'"));
        let dt = s.dtype.as_ref().unwrap();
        assert_eq!((dt.value.as_str(), at(src, &dt.span)), ("bf16", "\"bf16\""));
        assert!(m.root.is_none());
    }

    #[test]
    fn mixed_positional_and_keyword() {
        let src = "@stage_decorator(0, dtype=bf16, device=\"cpu\")\nclass S: pass\n";
        let m = read_model(src);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let s = &m.stage_classes[0];
        assert_eq!(s.stage_id.as_ref().unwrap().value, 0);
        assert_eq!(s.device.as_ref().unwrap().value, "cpu");
        assert_eq!(s.dtype.as_ref().unwrap().value, "bf16");
    }

    #[test]
    fn aliased_imports() {
        let src = r#"
from determined.hpp import stage_decorator as sd
import determined.hpp as H
import determined as det

@sd(stage_id=0, device="a100", dtype=torch.float16)
class A(nn.Module): pass

@H.stage_decorator(stage_id=1, device="h100", dtype=torch.bfloat16)
class B(nn.Module): pass

@det.hpp.stage_decorator(stage_id=2, device="h100", dtype=torch.bfloat16)
class C(nn.Module): pass

@hpp.stage_decorator(stage_id=3, device="a100", dtype=torch.float32)
class D(nn.Module): pass

@determined.hpp.stage_decorator(stage_id=4, device="a100", dtype=torch.float32)
class E(nn.Module): pass

@other.stage_decorator(stage_id=5, device="a100", dtype=torch.float32)
class NotAStage(nn.Module): pass

@functools.cache
def helper(): pass

@sd(stage_id=6, device="a100", dtype=torch.float32)
def decorated_function(): pass
"#;
        let m = read_model(src);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let names: Vec<_> = m
            .stage_classes
            .iter()
            .map(|s| (s.class_name.as_str(), s.stage_id.as_ref().unwrap().value))
            .collect();
        assert_eq!(names, vec![("A", 0), ("B", 1), ("C", 2), ("D", 3), ("E", 4)]);
    }

    #[test]
    fn syntax_error_mid_file_keeps_earlier_decorators() {
        let src = r#"@stage_decorator(stage_id=0, device="a100", dtype=torch.float16)
class A(nn.Module):
    pass

x = foo(1, 2

@stage_decorator(stage_id=1, device="h100", dtype=torch.bfloat16)
class B(nn.Module):
    pass

class Root(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = A()
        self.b = B()
"#;
        let m = read_model(src);
        assert!(!m.syntax_errors.is_empty());
        let err = &m.syntax_errors[0];
        let paren = src.find("foo(").unwrap() + 3;
        assert_eq!(err.span, paren..paren + 1, "{err:?}");
        assert_eq!(err.kind, SyntaxErrorKind::Unclosed("(".into()));
        // The earlier class is read from the main parse, the later ones by
        // re-parsing after the error.
        let names: Vec<_> = m.stage_classes.iter().map(|s| s.class_name.as_str()).collect();
        assert_eq!(names, vec!["A", "B"]);
        assert_eq!(m.stage_classes[1].stage_id.as_ref().unwrap().value, 1);
        let root = m.root.as_ref().unwrap();
        assert_eq!(root.class_name, "Root");
        let stages: Vec<_> = root.members.iter().map(|mem| mem.stage_class).collect();
        assert_eq!(stages, vec![Some(0), Some(1)]);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
    }

    #[test]
    fn unclosed_decorator_call() {
        let src = "@stage_decorator(stage_id=0, device=\"a100\"\nclass A(nn.Module):\n    pass\n\n\
                   @stage_decorator(stage_id=1, device=\"h100\", dtype=bf16)\nclass B:\n    pass\n";
        let m = read_model(src);
        assert!(!m.syntax_errors.is_empty());
        let names: Vec<_> = m.stage_classes.iter().map(|s| s.class_name.as_str()).collect();
        assert!(names.contains(&"B"), "{names:?}");
    }

    #[test]
    fn non_literal_stage_id() {
        let src = "N = 3\n@stage_decorator(stage_id=N + 1, device=\"a100\", dtype=torch.float16)\nclass A: pass\n";
        let m = read_model(src);
        assert_eq!(kinds(&m), vec![invalid(StageParam::StageId)]);
        assert_eq!(at(src, &m.problems[0].span), "N + 1");
        let s = &m.stage_classes[0];
        assert!(s.stage_id.is_none());
        assert_eq!(s.device.as_ref().unwrap().value, "a100");
    }

    #[test]
    fn integer_forms() {
        for (lit, want) in [
            ("-1", -1),
            ("0x1_0", 16),
            ("(7)", 7),
            ("0b11", 3),
            ("0o10", 8),
            ("+4", 4),
        ] {
            let src = format!("@stage_decorator({lit}, 'a', bf16)\nclass A: pass\n");
            let m = read_model(&src);
            assert!(m.problems.is_empty(), "{lit}: {:?}", m.problems);
            let id = m.stage_classes[0].stage_id.as_ref().unwrap();
            assert_eq!(id.value, want, "{lit}");
            assert_eq!(at(&src, &id.span), lit);
        }
        let m = read_model("@stage_decorator(99999999999999999999, 'a', bf16)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![out_of_range()]);
        let m = read_model("@stage_decorator(1.0, 'a', bf16)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![invalid(StageParam::StageId)]);
        let m = read_model("@stage_decorator(True, 'a', bf16)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![invalid(StageParam::StageId)]);
    }

    #[test]
    fn device_and_dtype_forms() {
        let m = read_model("@stage_decorator(0, f\"cuda{i}\", bf16)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![invalid(StageParam::Device)]);
        let m = read_model("@stage_decorator(0, f\"cuda\", bf16)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![invalid(StageParam::Device)]);
        let m = read_model("@stage_decorator(0, DEVICE, bf16)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![invalid(StageParam::Device)]);
        let m = read_model("@stage_decorator(0, b'a100', bf16)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![invalid(StageParam::Device)]);
        let m = read_model("@stage_decorator(0, r'a\\100', bf16)\nclass A: pass\n");
        assert_eq!(m.stage_classes[0].device.as_ref().unwrap().value, "a\\100");
        let m = read_model("@stage_decorator(0, 'a\\x31' \"00\", bf16)\nclass A: pass\n");
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        assert_eq!(m.stage_classes[0].device.as_ref().unwrap().value, "a100");
        let m = read_model("@stage_decorator(0, '''h100''', getattr(torch, 'x'))\nclass A: pass\n");
        assert_eq!(m.stage_classes[0].device.as_ref().unwrap().value, "h100");
        assert_eq!(kinds(&m), vec![invalid(StageParam::Dtype)]);
    }

    #[test]
    fn argument_list_problems() {
        let src = "@stage_decorator(stage_id=0, stage_id=1, devise='a', dtype=x, extra=2)\nclass A: pass\n";
        let m = read_model(src);
        assert_eq!(
            kinds(&m),
            vec![
                // Reported at the argument list, which starts first.
                PyProblemKind::MissingArgument(StageParam::Device),
                PyProblemKind::DuplicateArgument(StageParam::StageId),
                unknown_keyword(),
                unknown_keyword(),
            ]
        );
        assert!(at(src, &m.problems[0].span).starts_with("(stage_id=0"));
        assert_eq!(at(src, &m.problems[1].span), "stage_id=1");
        assert_eq!(at(src, &m.problems[2].span), "devise");
        assert_eq!(m.stage_classes[0].stage_id.as_ref().unwrap().value, 0);

        let m = read_model("@stage_decorator(0, 'a', bf16, 4)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![PyProblemKind::TooManyPositional]);
        let m = read_model("@stage_decorator(0, 'a', dtype=bf16)\n@stage_decorator(1, 'b', x)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![PyProblemKind::DuplicateDecorator]);
        assert_eq!(m.stage_classes.len(), 1);
        assert_eq!(m.stage_classes[0].stage_id.as_ref().unwrap().value, 0);
        let m = read_model("@stage_decorator\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![PyProblemKind::DecoratorNotCalled]);
        assert_eq!(m.stage_classes.len(), 1);
        let m = read_model("@stage_decorator(**cfg)\nclass A: pass\n");
        assert_eq!(
            m.problems.iter().map(|p| p.kind.clone()).collect::<Vec<_>>(),
            vec![PyProblemKind::Unpacked("**cfg".into())]
        );
        let m = read_model("@stage_decorator(x for x in y)\nclass A: pass\n");
        assert_eq!(kinds(&m), vec![PyProblemKind::GeneratorArguments]);
        let m = read_model("@stage_decorator()\nclass A: pass\n");
        assert_eq!(kinds(&m), StageParam::ALL.map(PyProblemKind::MissingArgument).to_vec());
    }

    #[test]
    fn multibyte_spans_are_byte_offsets() {
        let src = "# 视觉编码器：第一阶段 🚀\n# 说明\n@stage_decorator(stage_id=0, device=\"加速器\", dtype=torch.float16)  # 注释\nclass 编码器(nn.Module):\n    pass\n";
        let m = read_model(src);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let s = &m.stage_classes[0];
        assert_eq!(s.class_name, "编码器");
        assert_eq!(at(src, &s.name_span), "编码器");
        let id = s.stage_id.as_ref().unwrap();
        assert_eq!(at(src, &id.span), "0");
        assert_eq!(at(src, id.keyword_span.as_ref().unwrap()), "stage_id");
        let dev = s.device.as_ref().unwrap();
        assert_eq!(dev.value, "加速器");
        assert_eq!(at(src, &dev.span), "\"加速器\"");
        let dt = s.dtype.as_ref().unwrap();
        assert_eq!(at(src, &dt.span), "torch.float16");
        assert!(at(src, &s.decorator_span).starts_with("@stage_decorator("));
    }

    #[test]
    fn root_selection_and_containers() {
        let src = r#"
@stage_decorator(0, "a100", torch.float16)
class A(nn.Module): pass

@stage_decorator(1, "h100", torch.bfloat16)
class B(nn.Module): pass

class Small(nn.Module):
    def __init__(self):
        self.a = A()

class Big(torch.nn.Module):
    def __init__(this, cfg: Config):
        super().__init__()
        this.pre = nn.LayerNorm(8)
        this.x = 3
        if cfg.fast:
            this.a = A().to("cuda")
        this.layers = nn.Sequential(A(), B(), nn.ReLU())
        this.blocks = nn.ModuleList([B(), B()])
        this.head: nn.Module = nn.Linear(2, 2)
        def inner():
            this.ignored = A()
"#;
        let m = read_model(src);
        let root = m.root.as_ref().unwrap();
        assert_eq!(root.class_name, "Big");
        let attrs: Vec<_> = root.members.iter().map(|mem| mem.attr.as_str()).collect();
        assert_eq!(attrs, vec!["pre", "a", "layers", "blocks", "head"]);
        assert_eq!(root.members[1].constructor, "A");
        assert_eq!(root.members[1].stage_class, Some(0));
        let layers = &root.members[2];
        assert_eq!(layers.constructor, "nn.Sequential");
        assert_eq!(layers.stage_class, None);
        let nested: Vec<_> = layers
            .nested
            .iter()
            .map(|c| (c.constructor.as_str(), c.stage_class))
            .collect();
        assert_eq!(nested, vec![("A", Some(0)), ("B", Some(1)), ("nn.ReLU", None)]);
        assert_eq!(at(src, &layers.nested[1].span), "B()");
        assert_eq!(root.members[3].nested.len(), 2);
        assert_eq!(root.members[4].constructor, "nn.Linear");
    }

    #[test]
    fn root_ties_pick_last() {
        let src = "@stage_decorator(0,'a',x)\nclass A: pass\n\
                   class R1:\n    def __init__(self):\n        self.a = A()\n\
                   class R2:\n    def __init__(self):\n        self.a = A()\n";
        assert_eq!(read_model(src).root.unwrap().class_name, "R2");
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        for src in [
            "",
            "\n\n",
            "@",
            "@stage_decorator(",
            "@stage_decorator(stage_id=",
            "@stage_decorator(0, 'a', bf16)",
            "@stage_decorator(0, 'a', bf16)\nclass",
            "@stage_decorator(0, 'a\nclass A: pass",
            "class A:\n    def __init__(self):\n        self. = A(",
            "class A:\n    def __init__(",
            "def f(:\n  pass\n@stage_decorator(0,'x',y)\nclass Z: pass",
            "\u{feff}@stage_decorator(0,'x',y)\nclass Z: pass",
            "@stage_decorator(0, 'a', bf16)\r\nclass A(nn.Module):\r\n    pass\r\n",
            "x = '''\n@stage_decorator(0,'a',b)\nclass Fake: pass\n",
        ] {
            let m = read_model(src);
            for span in m
                .syntax_errors
                .iter()
                .map(|e| &e.span)
                .chain(m.problems.iter().map(|p| &p.span))
            {
                assert!(src.get(span.clone()).is_some(), "{src:?}: {span:?}");
            }
        }
    }

    #[test]
    fn missing_token_is_reported() {
        let src = "class A:\n    def __init__(self):\n        self.a = A(1, 2\n";
        let m = read_model(src);
        // The unclosed bracket of `A(1, 2`, at the bracket.
        let paren = src.find("A(1").map_or(0, |i| i + 1);
        assert_eq!(
            m.syntax_errors,
            [PySyntaxError {
                kind: SyntaxErrorKind::Unclosed("(".into()),
                span: paren..paren + 1,
            }]
        );
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 20_000;
        let mut src = String::from("@stage_decorator(0, 'a', bf16)\nclass A: pass\nx = ");
        src.push_str(&"(".repeat(depth));
        src.push('1');
        src.push_str(&")".repeat(depth));
        src.push_str("\ny = ");
        src.push_str(&"[".repeat(depth));
        src.push('\n');
        src.push_str("@stage_decorator(1, 'b', bf16)\nclass B: pass\n");
        src.push_str("z = a");
        src.push_str(&".b".repeat(depth));
        src.push('\n');
        let m = read_model(&src);
        let names: Vec<_> = m.stage_classes.iter().map(|s| s.class_name.as_str()).collect();
        assert_eq!(names, vec!["A", "B"]);
        assert_eq!(m.syntax_errors[0].kind, SyntaxErrorKind::Unclosed("[".into()));
    }

    #[test]
    fn large_file() {
        let mut src = String::new();
        for i in 0..2_000 {
            src.push_str(&format!(
                "@stage_decorator(stage_id={i}, device=\"a100\", dtype=torch.float16)\n\
                 class S{i}(nn.Module):\n    def __init__(self):\n        super().__init__()\n\
                 \n        self.l = nn.Linear(1, 1)\n\n"
            ));
        }
        src.push_str("class Root(nn.Module):\n    def __init__(self):\n");
        for i in 0..2_000 {
            src.push_str(&format!("        self.s{i} = S{i}()\n"));
        }
        let m = read_model(&src);
        assert_eq!(m.stage_classes.len(), 2_000);
        let root = m.root.unwrap();
        assert_eq!(root.class_name, "Root");
        assert_eq!(root.members.len(), 2_000);
        assert_eq!(root.members[1_999].stage_class, Some(1_999));
    }

    #[test]
    fn carriage_returns_end_lines_too() {
        let lf = "import torch\nfrom determined.hpp import stage_decorator\n\n@stage_decorator(stage_id=0, device=\"a100\", dtype=torch.bfloat16)\nclass A(nn.Module):\n    pass\n";
        let cr = lf.replace('\n', "\r");
        let (a, b) = (read_model(lf), read_model(&cr));
        assert!(b.syntax_errors.is_empty(), "{:?}", b.syntax_errors);
        assert_eq!(a.stage_classes, b.stage_classes);
    }
}
