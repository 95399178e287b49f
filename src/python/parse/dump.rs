//! A look at tree-sitter's reading of a file, for matching its spans:
//! `STAGEC_PY_DUMP=file.py cargo test --lib python::parse::dump -- --ignored --nocapture`.

fn walk(n: tree_sitter::Node<'_>, depth: usize, text: &str) {
    let s: String = text.get(n.byte_range()).unwrap_or("").chars().take(30).collect();
    println!(
        "{}{} {} {}..{} {:?}",
        "  ".repeat(depth),
        n.kind(),
        n.is_named(),
        n.start_byte(),
        n.end_byte(),
        s
    );
    let mut c = n.walk();
    for child in n.children(&mut c) {
        walk(child, depth + 1, text);
    }
}

#[test]
#[ignore]
fn dump() {
    let Some(path) = std::env::var_os("STAGEC_PY_DUMP") else {
        eprintln!("STAGEC_PY_DUMP is not set");
        return;
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut parser = tree_sitter::Parser::new();
    assert!(parser.set_language(&crate::python_grammar::language()).is_ok());
    let Some(tree) = parser.parse(&text, None) else {
        panic!("no parse")
    };
    walk(tree.root_node(), 0, &text);
}
