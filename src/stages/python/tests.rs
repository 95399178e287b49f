//! The stage reader on model files.

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
