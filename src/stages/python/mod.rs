//! Static reader for pipeline-stage declarations in Python model files.
//!
//! Models declare heterogeneous pipeline stages by decorating `nn.Module`
//! subclasses with `@stage_decorator(stage_id=…, device=…, dtype=…)` and then
//! instantiating those classes in the `__init__` of a root model. This module
//! reads such a file **statically** (the Python code is never imported or
//! executed), from the owned syntax trees of the Python front end
//! ([`crate::python::ParsedFile::chunk`], the trees the training analysis
//! reads too; `owned.rs`), or from its whole-file tree-sitter parse when the
//! file has syntax errors, and returns plain data: the decorated classes, the
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
//! declared after the error are still found (`recovery.rs`; the declaration
//! reader itself is `reader.rs`).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::python::ParsedFile;
use crate::python_grammar::KindName;

/// Name of the decorator function that marks a class as a pipeline stage.
pub const STAGE_DECORATOR: &str = "stage_decorator";

/// The names a file binds to the stage decorator and to the module that
/// holds it, from its imports: what both readers (the owned trees of a clean
/// file, `owned.rs`; tree-sitter's tree of a broken one, `reader.rs`) ask
/// of a decorator.
#[derive(Debug, Clone)]
pub(super) struct Aliases {
    /// Names that denote the decorator itself (`stage_decorator`, `sd`).
    funcs: HashSet<String>,
    /// Dotted module paths that denote `determined.hpp` (`hpp`, …).
    modules: HashSet<String>,
}

impl Default for Aliases {
    fn default() -> Self {
        Aliases {
            funcs: HashSet::from([STAGE_DECORATOR.to_string()]),
            modules: HashSet::from(["hpp".to_string(), "determined.hpp".to_string()]),
        }
    }
}

impl Aliases {
    /// Records what `import path [as alias]` (or `from … import path [as
    /// alias]`, `is_from`) binds.
    pub(super) fn add_import(&mut self, is_from: bool, path: String, alias: Option<String>) {
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

    /// Whether the dotted name `path` denotes the stage decorator.
    pub(super) fn is_stage_decorator(&self, path: &str) -> bool {
        if self.funcs.contains(path) {
            return true;
        }
        match path.rsplit_once('.') {
            Some((prefix, name)) => name == STAGE_DECORATOR && self.modules.contains(prefix),
            None => false,
        }
    }
}

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

/// [`read_model`] of a file of the Python front end. A file without syntax
/// errors is read from its chunks' owned syntax trees
/// ([`ParsedFile::chunk`], `owned.rs`), the trees the training analysis
/// reads too; a file with syntax errors, or one holding a shape the owned
/// trees cannot tell apart the way this reader must (see `owned.rs`), from
/// the whole-file parse ([`ParsedFile::tree`]) with the recovery re-parses.
/// Spans are into [`ParsedFile::text`] (each lone `\r` read as `\n`, byte
/// for byte, so every span holds).
pub fn read_model_in(file: &ParsedFile) -> PyModel {
    if !file.has_syntax_errors() {
        if let Some(model) = owned::read(file) {
            return model;
        }
    }
    read_tree(file)
}

/// [`read_model_in`] from the whole-file tree-sitter parse (made now if no
/// reader asked for it yet) and the recovery re-parses after an error.
fn read_tree(file: &ParsedFile) -> PyModel {
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
                // Expressions hold no statements: an error-free one holds
                // no import, decorator or class definition either.
                "expression_statement" | "return_statement" | "decorator" | "parameters" | "argument_list"
                    if !node.has_error() =>
                {
                    return false;
                }
                _ => {}
            }
            true
        });
    }

    let mut reader = Reader {
        text,
        aliases: Aliases::default(),
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

mod owned;
mod reader;
mod recovery;
#[cfg(test)]
mod tests;

use reader::Reader;
use recovery::{recovery_trees, syntax_errors};
#[cfg(test)]
mod owned_tests;
