//! The stage declarations of a file without syntax errors, read from its
//! chunks' owned syntax trees ([`ParsedFile::chunk`]) instead of the
//! whole-file tree-sitter parse, with the same result as the tree reader
//! (`reader.rs`) to the byte.
//!
//! Only chunks whose text mentions `class` or `import` are read, and of
//! those only the statements (never an expression that is not a class's
//! decorator, base or `__init__` assignment). What the owned tree folds
//! away is read back from spans and the text: a decorator's `@` before its
//! expression, an attribute name at the end of its expression, the `*` of
//! an unpacked argument, parentheses around an expression (which keep the
//! expression's kind but widen its span).
//!
//! Where the owned tree cannot tell what the tree reader would see (a
//! `match` statement, which it does not convert; a class with unpacked
//! bases; a chunk that parsed with errors on its own; a literal it gave up
//! on), [`read`] answers `None` and the caller reads the whole-file parse.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::*;
use crate::python::ast::{self, ChunkAst, Class, Expr, ExprKind, Function, ParamKind, Stmt, StmtKind};
use crate::python::literal::{self, IntError};
use crate::source::Span;

/// The owned trees cannot say what the tree reader would read here.
struct Unsure;

/// Statements nested deeper than this are not read (the conversion cuts
/// them off as [`StmtKind::Other`] further down).
const MAX_NESTING: usize = 64;

/// Reads the stage declarations of `file`, which has no syntax errors;
/// `None` where only the whole-file parse can say (see the module
/// documentation).
pub(super) fn read(file: &ParsedFile) -> Option<PyModel> {
    let mut chunks: Vec<&ChunkAst> = Vec::new();
    for i in 0..file.chunks().len() {
        if !file.chunk_mentions(i, &["class", "import"]) {
            continue;
        }
        let chunk = file.chunk(i)?;
        if chunk.errors {
            return None;
        }
        chunks.push(chunk);
    }
    read_chunks(file.text(), &chunks)
}

/// The stage declarations in `chunks`, trees of `text`: classes seen in
/// more than one (a chunk and a part of it parsed again) count once.
pub(super) fn read_chunks(text: &str, chunks: &[&ChunkAst]) -> Option<PyModel> {
    let mut reader = Owned {
        text,
        aliases: super::Aliases::default(),
        problems: Vec::new(),
    };
    for chunk in chunks {
        reader.imports_in(chunk, &chunk.stmts, 0).ok()?;
    }
    let mut model = PyModel::default();
    let mut decorated: Vec<&Class> = (chunks.iter())
        .flat_map(|c| c.classes.iter().filter(|c| !c.decorators.is_empty()))
        .collect();
    decorated.sort_by_key(|c| c.span.start);
    let mut seen = HashSet::new();
    for class in decorated {
        if !seen.insert(class.name_span.start) {
            continue;
        }
        if let Some(stage) = reader.stage_class(class).ok()? {
            model.stage_classes.push(stage);
        }
    }
    model.root = reader.pick_root(chunks, &model.stage_classes).ok()?;
    model.problems = reader.problems;
    model.problems.sort_by_key(|p| p.span.start);
    Some(model)
}

fn range(span: Span) -> Range<usize> {
    span.start..span.end
}

/// `text` without the parentheses around it (and the white space inside
/// them); `None` when a comment is inside.
fn strip_parens(mut text: &str) -> Option<&str> {
    if text.contains('#') {
        return None;
    }
    loop {
        text = text.trim();
        match text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            Some(inner) => text = inner,
            None => return Some(text),
        }
    }
}

/// Whether `text` starts a string literal: a quote, or prefix letters and
/// a quote.
fn starts_string(text: &str) -> bool {
    let rest = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    rest.starts_with(['\'', '"']) && text.len() - rest.len() <= 3
}

struct Owned<'s> {
    text: &'s str,
    aliases: super::Aliases,
    problems: Vec<PyProblem>,
}

/// A constructor call, its method chain peeled.
struct Ctor {
    constructor: String,
    constructor_span: Range<usize>,
    stage_class: Option<usize>,
}

impl<'s> Owned<'s> {
    fn slice(&self, span: Span) -> &'s str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    fn problem(&mut self, kind: PyProblemKind, span: Range<usize>) {
        self.problems.push(PyProblem { kind, span });
    }

    /// `a`, `a.b.c` as dotted text; `None` for anything else, and for a
    /// chain with parentheses inside (around the whole when `outer`, the
    /// tree reader having stripped those).
    fn dotted(&self, expr: &Expr, outer: bool) -> Option<String> {
        let mut parts: Vec<&str> = Vec::new();
        let mut cur = expr;
        let mut whole = outer;
        loop {
            match &cur.kind {
                ExprKind::Name(name) => {
                    if !whole && self.slice(cur.span) != name {
                        return None;
                    }
                    parts.push(name);
                    break;
                }
                ExprKind::Attribute { value, attr } => {
                    if !whole && self.slice(cur.span).starts_with('(') {
                        return None;
                    }
                    parts.push(attr);
                    cur = value;
                }
                _ => return None,
            }
            whole = false;
        }
        if parts.iter().any(|p| p.is_empty()) {
            return None;
        }
        parts.reverse();
        Some(parts.join("."))
    }

    /// The imports among every statement of `chunk`, definitions' bodies
    /// included.
    fn imports_in(&mut self, chunk: &ChunkAst, stmts: &[Stmt], depth: usize) -> Result<(), Unsure> {
        if depth > MAX_NESTING {
            return Err(Unsure);
        }
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Import(names) => {
                    for alias in names {
                        self.add_import(false, &alias.name, alias.alias.as_deref());
                    }
                }
                StmtKind::ImportFrom { names, .. } => {
                    for alias in names {
                        self.add_import(true, &alias.name, alias.alias.as_deref());
                    }
                }
                StmtKind::FunctionDef(i) => {
                    let f = chunk.funcs.get(*i as usize).ok_or(Unsure)?;
                    self.imports_in(chunk, &f.body, depth + 1)?;
                }
                StmtKind::ClassDef(i) => {
                    let c = chunk.classes.get(*i as usize).ok_or(Unsure)?;
                    self.imports_in(chunk, &c.body, depth + 1)?;
                }
                // Not converted: the tree reader would read what is inside.
                StmtKind::Other if self.slice(stmt.span).starts_with("match") => return Err(Unsure),
                _ => each_block(stmt, |block| self.imports_in(chunk, block, depth + 1))?,
            }
        }
        Ok(())
    }

    /// Records decorator and module aliases introduced by an import.
    fn add_import(&mut self, is_from: bool, name: &str, alias: Option<&str>) {
        // The tree reader joins a dotted name's identifiers.
        let path: String = name.chars().filter(|c| *c != '\\' && !c.is_whitespace()).collect();
        if path.is_empty() || path.split('.').any(str::is_empty) {
            return;
        }
        self.aliases.add_import(is_from, path, alias.map(str::to_string));
    }

    fn is_stage_decorator(&self, func: &Expr, outer: bool) -> bool {
        let Some(path) = self.dotted(func, outer) else {
            return false;
        };
        self.aliases.is_stage_decorator(&path)
    }

    /// A decorator's span, from its `@` to the end of its expression, or of
    /// the comment after it on its line (tree-sitter's decorator node ends
    /// at the line feed; a `\r` before it is in the comment).
    fn decorator_span(&self, expr: &Expr) -> Result<Range<usize>, Unsure> {
        let before = self.text.get(..expr.span.start).ok_or(Unsure)?;
        let head = before.trim_end_matches([' ', '\t']);
        let Some(at) = head.strip_suffix('@') else {
            return Err(Unsure);
        };
        let after = self.text.get(expr.span.end..).ok_or(Unsure)?;
        let rest = after.trim_start_matches([' ', '\t']);
        let end = if rest.starts_with('#') {
            let comment = rest.find('\n').unwrap_or(rest.len());
            self.text.len() - rest.len() + comment
        } else {
            expr.span.end
        };
        Ok(at.len()..end)
    }

    fn stage_class(&mut self, class: &Class) -> Result<Option<StageClass>, Unsure> {
        // (decorator span, its call if called)
        let mut found: Vec<(Range<usize>, Option<&Expr>)> = Vec::new();
        for dec in &class.decorators {
            let is_stage = match &dec.kind {
                ExprKind::Call { func, .. } => self.is_stage_decorator(func, false),
                _ => self.is_stage_decorator(dec, true),
            };
            if is_stage {
                let call = matches!(dec.kind, ExprKind::Call { .. }).then_some(dec);
                found.push((self.decorator_span(dec)?, call));
            }
        }
        let Some(((decorator, call), rest)) = found.split_first() else {
            return Ok(None);
        };
        let first = class.decorators.first().ok_or(Unsure)?;
        let start = self.decorator_span(first)?.start;
        // Unpacked bases (`class A(*bases)`) are bases to the tree reader
        // and left out of the owned tree: a `*` among the bases, or after
        // the last before the list closes.
        let last = (class.bases.iter())
            .chain(class.keywords.iter().map(|(_, v)| v))
            .map(|e| e.span.end)
            .fold(class.name_span.end, usize::max);
        let tail = self.text.get(last..).unwrap_or("");
        let tail = tail.find([')', ':']).map_or(tail, |end| &tail[..end]);
        if self.text.get(class.name_span.end..last).is_none_or(|h| h.contains('*')) || tail.contains('*') {
            return Err(Unsure);
        }
        for (dup, _) in rest {
            self.problem(PyProblemKind::DuplicateDecorator, dup.clone());
        }
        let mut stage = StageClass {
            class_name: class.name.clone(),
            name_span: range(class.name_span),
            span: start..class.span.end,
            decorator_span: decorator.clone(),
            stage_id: None,
            device: None,
            dtype: None,
            bases: class.bases.iter().map(|b| self.slice(b.span).to_string()).collect(),
        };
        match call {
            Some(call) => self.read_args(call, &mut stage)?,
            None => self.problem(PyProblemKind::DecoratorNotCalled, decorator.clone()),
        }
        Ok(Some(stage))
    }

    /// The span of `*value` or `**value`: the stars before the value.
    fn unpacked_span(&self, value: &Expr, stars: usize) -> Result<Range<usize>, Unsure> {
        let before = self.text.get(..value.span.start).ok_or(Unsure)?;
        let head = before.trim_end_matches([' ', '\t']);
        let start = head.len().checked_sub(stars).ok_or(Unsure)?;
        match head.get(start..) {
            Some(s) if s.chars().all(|c| c == '*') => Ok(start..value.span.end),
            _ => Err(Unsure),
        }
    }

    fn read_args(&mut self, call: &Expr, stage: &mut StageClass) -> Result<(), Unsure> {
        let ExprKind::Call { args, args_span, .. } = &call.kind else {
            return Ok(());
        };
        // A generator as the only argument is the argument list itself.
        if let [ast::Arg::Pos(g)] = args.as_slice() {
            if g.span == *args_span {
                self.problem(PyProblemKind::GeneratorArguments, range(*args_span));
                return Ok(());
            }
        }
        let mut supplied = [false; 3];
        let mut unpacked = false;
        let mut positional = 0usize;
        let mut after_keyword = false;
        for arg in args {
            match arg {
                ast::Arg::Star(value) | ast::Arg::StarStar(value) => {
                    let stars = if matches!(arg, ast::Arg::Star(_)) { 1 } else { 2 };
                    let span = self.unpacked_span(value, stars)?;
                    unpacked = true;
                    let text = self.text.get(span.clone()).unwrap_or("");
                    self.problem(PyProblemKind::Unpacked(excerpt(text)), span);
                }
                ast::Arg::Kw {
                    name, name_span, value, ..
                } => {
                    after_keyword = true;
                    let Some(param) = StageParam::from_name(name) else {
                        self.problem(PyProblemKind::UnknownKeyword(excerpt(name)), range(*name_span));
                        continue;
                    };
                    if std::mem::replace(&mut supplied[param.index()], true) {
                        self.problem(PyProblemKind::DuplicateArgument(param), range(arg.span()));
                        continue;
                    }
                    self.read_value(param, value, Some(range(*name_span)), stage)?;
                }
                ast::Arg::Pos(value) => {
                    if after_keyword {
                        self.problem(PyProblemKind::PositionalAfterKeyword, range(value.span));
                        continue;
                    }
                    let Some(&param) = StageParam::ALL.get(positional) else {
                        self.problem(PyProblemKind::TooManyPositional, range(value.span));
                        continue;
                    };
                    positional += 1;
                    supplied[param.index()] = true;
                    self.read_value(param, value, None, stage)?;
                }
            }
        }
        if !unpacked {
            for param in StageParam::ALL {
                if !supplied[param.index()] {
                    self.problem(PyProblemKind::MissingArgument(param), range(*args_span));
                }
            }
        }
        Ok(())
    }

    fn read_value(
        &mut self,
        param: StageParam,
        value: &Expr,
        keyword_span: Option<Range<usize>>,
        stage: &mut StageClass,
    ) -> Result<(), Unsure> {
        let span = range(value.span);
        let arg = |v| Arg {
            value: v,
            span: span.clone(),
            keyword_span: keyword_span.clone(),
        };
        let result = match param {
            StageParam::StageId => self.int_literal(value)?.map(|v| {
                stage.stage_id = Some(Arg {
                    value: v,
                    span: span.clone(),
                    keyword_span: keyword_span.clone(),
                });
            }),
            StageParam::Device => match self.string_literal(value)? {
                Ok(v) => {
                    stage.device = Some(arg(v));
                    Ok(())
                }
                Err(why) => Err(PyProblemKind::InvalidValue(param, why)),
            },
            StageParam::Dtype => match self.dtype_value(value)? {
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
        Ok(())
    }

    fn found(&self, value: &Expr) -> NotLiteral {
        NotLiteral::Found(excerpt(self.slice(value.span)))
    }

    fn int_literal(&self, value: &Expr) -> Result<Result<i64, PyProblemKind>, Unsure> {
        let bad = |why: NotLiteral| Ok(Err(PyProblemKind::InvalidValue(StageParam::StageId, why)));
        let mut node = value;
        let mut negative = false;
        while let ExprKind::Unary { op, operand } = &node.kind {
            match op.as_str() {
                "-" => negative = !negative,
                "+" => {}
                _ => return bad(self.found(value)),
            }
            node = operand;
        }
        let out_of_range = || Ok(Err(PyProblemKind::StageIdOutOfRange(excerpt(self.slice(value.span)))));
        let v = match &node.kind {
            ExprKind::Int(v) => i128::from(*v),
            // An integer beyond `i64` (or under too many parentheses).
            ExprKind::Other => match literal::int(strip_parens(self.slice(node.span)).ok_or(Unsure)?) {
                Ok(v) => v,
                Err(IntError::Overflow) => return out_of_range(),
                Err(IntError::Invalid) => return bad(self.found(value)),
            },
            _ => return bad(self.found(value)),
        };
        let v = if negative { -v } else { v };
        match i64::try_from(v) {
            Ok(v) => Ok(Ok(v)),
            Err(_) => out_of_range(),
        }
    }

    /// A plain string literal (or implicit concatenation of plain literals).
    fn string_literal(&self, value: &Expr) -> Result<Result<String, NotLiteral>, Unsure> {
        Ok(match &value.kind {
            ExprKind::Str(s) => Ok(s.clone()),
            ExprKind::FString => Err(NotLiteral::FString),
            ExprKind::Other => {
                let text = strip_parens(self.slice(value.span)).ok_or(Unsure)?;
                if !starts_string(text) {
                    return Ok(Err(self.found(value)));
                }
                // A string the owned tree gave up on: bytes when its first
                // part is; anything else only the tree reader can tell.
                let prefix: String = text
                    .chars()
                    .take_while(char::is_ascii_alphabetic)
                    .map(|c| c.to_ascii_lowercase())
                    .collect();
                if prefix.contains('b') && !prefix.contains('f') && !prefix.contains('t') {
                    Err(NotLiteral::Bytes)
                } else {
                    return Err(Unsure);
                }
            }
            _ => Err(self.found(value)),
        })
    }

    fn dtype_value(&self, value: &Expr) -> Result<Result<String, NotLiteral>, Unsure> {
        match &value.kind {
            ExprKind::Str(_) | ExprKind::FString | ExprKind::Other => self.string_literal(value),
            ExprKind::Name(_) | ExprKind::Attribute { .. } => {
                Ok(self.dotted(value, true).ok_or_else(|| self.found(value)))
            }
            _ => Ok(Err(self.found(value))),
        }
    }

    /// The class whose `__init__` references the most stage classes (ties:
    /// the last in the file), if any references one at all.
    fn pick_root(&self, chunks: &[&ChunkAst], stage_classes: &[StageClass]) -> Result<Option<RootModel>, Unsure> {
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, stage) in stage_classes.iter().enumerate() {
            by_name.insert(stage.class_name.as_str(), i);
        }
        let mut best: Option<(usize, RootModel)> = None;
        let mut seen = HashSet::new();
        for chunk in chunks {
            for class in &chunk.classes {
                if !seen.insert(class.name_span.start) {
                    continue;
                }
                let Some(members) = self.init_members(chunk, class, &by_name)? else {
                    continue;
                };
                let score = members
                    .iter()
                    .map(|m| {
                        usize::from(m.stage_class.is_some())
                            + m.nested.iter().filter(|c| c.stage_class.is_some()).count()
                    })
                    .sum::<usize>();
                if score > 0 && best.as_ref().is_none_or(|(s, _)| score >= *s) {
                    best = Some((
                        score,
                        RootModel {
                            class_name: class.name.clone(),
                            name_span: range(class.name_span),
                            members,
                        },
                    ));
                }
            }
        }
        Ok(best.map(|(_, root)| root))
    }

    /// The `self.<attr> = Call(...)` assignments in the class's `__init__`,
    /// or `None` when the class has no `__init__`.
    fn init_members(
        &self,
        chunk: &ChunkAst,
        class: &Class,
        stages: &HashMap<&str, usize>,
    ) -> Result<Option<Vec<Member>>, Unsure> {
        let mut init = None;
        for stmt in &class.body {
            if let StmtKind::FunctionDef(idx) = stmt.kind {
                let f = chunk.funcs.get(idx as usize).ok_or(Unsure)?;
                if f.name == "__init__" {
                    init = Some(f); // the last definition wins, as in Python
                }
            }
        }
        let Some(init) = init else {
            return Ok(None);
        };
        let self_name = self.self_name(init)?;
        let mut members = Vec::new();
        self.members_in(&init.body, self_name, stages, &mut members, 0)?;
        Ok(Some(members))
    }

    /// The name `__init__` calls its first parameter, as the tree reader
    /// reads it (`self` when the first is no plain parameter); `None` when
    /// no name matches it (`*args: T`).
    fn self_name<'f>(&self, init: &'f Function) -> Result<Option<&'f str>, Unsure> {
        let Some(first) = init.params.first() else {
            return Ok(Some("self"));
        };
        let between = self.text.get(init.name_span.end..first.span.start).ok_or(Unsure)?;
        let between = between.trim();
        if between != "(" {
            // `(*, a)`, `(/, a)`: a separator comes first.
            return if between
                .chars()
                .all(|c| matches!(c, '(' | '*' | '/' | ',') || c.is_whitespace())
            {
                Ok(Some("self"))
            } else {
                Err(Unsure)
            };
        }
        match first.kind {
            ParamKind::Normal => Ok(Some(first.name.as_str())),
            ParamKind::VarArgs | ParamKind::KwArgs if first.annotation.is_some() => Ok(None),
            ParamKind::VarArgs | ParamKind::KwArgs => Ok(Some("self")),
            ParamKind::KwOnly => Err(Unsure),
        }
    }

    fn members_in(
        &self,
        stmts: &[Stmt],
        self_name: Option<&str>,
        stages: &HashMap<&str, usize>,
        out: &mut Vec<Member>,
        depth: usize,
    ) -> Result<(), Unsure> {
        if depth > MAX_NESTING {
            return Err(Unsure);
        }
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Assign { targets, value } => {
                    if let Some(member) = self.member(targets, value, self_name, stages)? {
                        out.push(member);
                    }
                }
                StmtKind::Other if self.slice(stmt.span).starts_with("match") => return Err(Unsure),
                _ => each_block(stmt, |block| self.members_in(block, self_name, stages, out, depth + 1))?,
            }
        }
        Ok(())
    }

    fn member(
        &self,
        targets: &[Expr],
        value: &Expr,
        self_name: Option<&str>,
        stages: &HashMap<&str, usize>,
    ) -> Result<Option<Member>, Unsure> {
        let Some(target) = targets.first() else {
            return Ok(None);
        };
        let ExprKind::Attribute { value: object, attr } = &target.kind else {
            return Ok(None);
        };
        let ExprKind::Name(object_name) = &object.kind else {
            return Ok(None);
        };
        if self.slice(target.span).starts_with('(')
            || self.slice(object.span) != object_name
            || Some(object_name.as_str()) != self_name
        {
            return Ok(None);
        }
        let start = target.span.end.checked_sub(attr.len()).ok_or(Unsure)?;
        let attr_span = start..target.span.end;
        if self.text.get(attr_span.clone()) != Some(attr.as_str()) {
            return Err(Unsure);
        }
        if let ExprKind::Other = value.kind {
            // Cut off under too many parentheses?
            return if self.slice(value.span).starts_with('(') {
                Err(Unsure)
            } else {
                Ok(None)
            };
        }
        let Some((ctor, call)) = self.constructor(value, stages) else {
            return Ok(None);
        };
        Ok(Some(Member {
            attr: attr.clone(),
            span: target.span.start..value.span.end,
            attr_span,
            constructor: ctor.constructor,
            constructor_span: ctor.constructor_span,
            stage_class: ctor.stage_class,
            nested: self.nested_calls(call, stages)?,
        }))
    }

    /// Peels method chains (`Foo(...).to(dev)` → `Foo(...)`) and describes
    /// the innermost call (returned with it).
    fn constructor<'e>(&self, call: &'e Expr, stages: &HashMap<&str, usize>) -> Option<(Ctor, &'e Expr)> {
        let mut call = call;
        let ExprKind::Call { func, .. } = &call.kind else {
            return None;
        };
        let mut func: &Expr = func;
        while let ExprKind::Attribute { value: object, .. } = &func.kind {
            let ExprKind::Call { func: inner, .. } = &object.kind else {
                break;
            };
            call = object;
            func = inner;
        }
        let func_text = self.slice(func.span);
        let constructor = self
            .dotted(func, false)
            .unwrap_or_else(|| func_text.split_whitespace().collect::<Vec<_>>().join(" "));
        let stage_class = match &func.kind {
            ExprKind::Name(name) if func_text == name => stages.get(name.as_str()).copied(),
            _ => None,
        };
        Some((
            Ctor {
                constructor,
                constructor_span: range(func.span),
                stage_class,
            },
            call,
        ))
    }

    fn nested_calls(&self, call: &Expr, stages: &HashMap<&str, usize>) -> Result<Vec<NestedCall>, Unsure> {
        let mut out = Vec::new();
        let ExprKind::Call { args, args_span, .. } = &call.kind else {
            return Ok(out);
        };
        if let [ast::Arg::Pos(g)] = args.as_slice() {
            if g.span == *args_span {
                return Ok(out); // a generator: no argument list
            }
        }
        let mut candidates = Vec::new();
        for arg in args {
            let ast::Arg::Pos(arg) = arg else {
                continue;
            };
            match &arg.kind {
                ExprKind::Call { .. } => candidates.push(arg),
                ExprKind::List(items) | ExprKind::Tuple(items) => {
                    candidates.extend(items.iter().filter(|e| matches!(e.kind, ExprKind::Call { .. })));
                }
                // Cut off under too many parentheses?
                ExprKind::Other if self.slice(arg.span).starts_with('(') => return Err(Unsure),
                _ => {}
            }
        }
        for inner in candidates {
            // The call itself, without parentheses around it.
            let ExprKind::Call { func, args_span, .. } = &inner.kind else {
                continue;
            };
            let span = func.span.start..args_span.end;
            if let Some((ctor, _)) = self.constructor(inner, stages) {
                out.push(NestedCall {
                    constructor: ctor.constructor,
                    span,
                    constructor_span: ctor.constructor_span,
                    stage_class: ctor.stage_class,
                });
            }
        }
        Ok(out)
    }
}

/// Calls `f` on each statement list a compound statement holds, in source
/// order (definitions hold none here: their bodies are in the chunk's
/// lists).
fn each_block<'a>(stmt: &'a Stmt, mut f: impl FnMut(&'a [Stmt]) -> Result<(), Unsure>) -> Result<(), Unsure> {
    match &stmt.kind {
        StmtKind::If { body, orelse, .. }
        | StmtKind::For { body, orelse, .. }
        | StmtKind::While { body, orelse, .. } => {
            f(body)?;
            f(orelse)
        }
        StmtKind::With { body, .. } => f(body),
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            f(body)?;
            for h in handlers {
                f(&h.body)?;
            }
            f(orelse)?;
            f(finalbody)
        }
        _ => Ok(()),
    }
}
