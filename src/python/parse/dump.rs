#[test]
#[ignore]
fn dump() {
    let text = std::fs::read_to_string("/tmp/parse_dump.py").unwrap_or_default();
    let mut parser = tree_sitter::Parser::new();
    assert!(parser.set_language(&crate::python_grammar::language()).is_ok());
    let tree = parser.parse(&text, None).expect("tree");
    fn walk(n: tree_sitter::Node<'_>, d: usize, text: &str) {
        let s = &text[n.byte_range()];
        let s: String = s.chars().take(30).collect();
        println!(
            "{}{} {:?} {}..{} {:?}",
            "  ".repeat(d),
            n.kind(),
            n.is_named(),
            n.start_byte(),
            n.end_byte(),
            s
        );
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            walk(ch, d + 1, text);
        }
    }
    walk(tree.root_node(), 0, &text);
}
