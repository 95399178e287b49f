//! Decorators, their arguments, and the root model's members.

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::*;
use crate::python::literal::{self, IntError};
use crate::python_grammar::KindName;

pub(super) struct Reader<'s> {
    pub(super) text: &'s str,
    pub(super) aliases: super::Aliases,
    pub(super) problems: Vec<PyProblem>,
}

impl<'s> Reader<'s> {
    pub(super) fn slice(&self, node: Node<'_>) -> &'s str {
        slice(self.text, node)
    }

    pub(super) fn problem(&mut self, kind: PyProblemKind, span: Range<usize>) {
        self.problems.push(PyProblem { kind, span });
    }

    /// Records decorator and module aliases introduced by an import.
    pub(super) fn add_import(&mut self, node: Node<'_>) {
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
            self.aliases.add_import(is_from, path, alias);
        }
    }

    pub(super) fn is_stage_decorator(&self, func: Node<'_>) -> bool {
        let Some(path) = dotted_path(func, self.text) else {
            return false;
        };
        self.aliases.is_stage_decorator(&path)
    }

    pub(super) fn stage_class(&mut self, decorated: Node<'_>, class: Node<'_>) -> Option<StageClass> {
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

    pub(super) fn read_args(&mut self, call: Node<'_>, stage: &mut StageClass) {
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

    pub(super) fn read_value(
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

    pub(super) fn int_literal(&self, value: Node<'_>) -> Result<i64, PyProblemKind> {
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
    pub(super) fn string_literal(&self, value: Node<'_>) -> Result<String, NotLiteral> {
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

    pub(super) fn single_string(&self, node: Node<'_>) -> Result<String, NotLiteral> {
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

    pub(super) fn dtype_value(&self, value: Node<'_>) -> Result<String, NotLiteral> {
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
    pub(super) fn init_members(&self, class: Node<'_>, stages: &HashMap<&str, usize>) -> Option<Vec<Member>> {
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

    pub(super) fn member(
        &self,
        assignment: Node<'_>,
        self_name: &str,
        stages: &HashMap<&str, usize>,
    ) -> Option<Member> {
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
    pub(super) fn constructor<'t>(&self, mut call: Node<'t>, stages: &HashMap<&str, usize>) -> Option<Ctor<'t>> {
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

    pub(super) fn nested_calls(&self, call: Node<'_>, stages: &HashMap<&str, usize>) -> Vec<NestedCall> {
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

pub(super) struct Ctor<'t> {
    pub(super) call: Node<'t>,
    pub(super) constructor: String,
    pub(super) constructor_span: Range<usize>,
    pub(super) stage_class: Option<usize>,
}
