//! Hostile and arbitrary input: never a panic, errors located inside the
//! file, budgets that end in a clear error.

use crate::common;

use proptest::prelude::*;

fn assert_well_formed(bytes: &[u8]) {
    let checked = common::check("input.yaml", bytes);
    let text = &checked.sources.get(checked.config).expect("source").text;
    for d in &checked.diagnostics {
        assert!(
            d.span.start <= d.span.end && d.span.end <= text.len(),
            "{d:?} outside {} bytes",
            text.len()
        );
        assert!(
            text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end),
            "{d:?} splits a character"
        );
        assert!(!d.message.is_empty());
    }
    // Rendering every format works on whatever came out.
    let _ = common::render(&checked);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        assert_well_formed(&bytes);
    }

    #[test]
    fn yaml_like_text_never_panics(s in "([a-z_]{1,8}|[ :\\-\\[\\]{},&*!|>'\"#?\n]|  |\u{4e2d}|\r\n|1e-5|\\$\\{X\\}){0,80}") {
        assert_well_formed(s.as_bytes());
    }

    #[test]
    fn mutated_seed_never_panics(cut in 0usize..1500, insert in "[\\[\\]{}:&*\"' \n-]{0,4}") {
        let seed = include_str!("../../examples/hpp-seed/const.yaml");
        let mut cut = cut.min(seed.len());
        while !seed.is_char_boundary(cut) { cut -= 1; }
        let text = format!("{}{}{}", &seed[..cut], insert, &seed[cut..]);
        assert_well_formed(text.as_bytes());
    }
}

fn codes(bytes: &[u8]) -> Vec<&'static str> {
    common::check("input.yaml", bytes)
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect()
}

#[test]
fn alias_bomb_is_refused() {
    let mut text = String::from("a: &a [x,x,x,x,x,x,x,x,x]\n");
    let mut prev = 'a';
    for n in 'b'..='i' {
        let refs = vec![format!("*{prev}"); 9].join(",");
        text.push_str(&format!("{n}: &{n} [{refs}]\n"));
        prev = n;
    }
    assert!(text.len() < 600);
    assert_eq!(codes(text.as_bytes()), ["Y003"]);
}

/// Few nodes, many bytes: a long string aliased many times is refused by
/// the byte budget; the same document without aliases is just large.
#[test]
fn aliases_multiplying_bytes_are_refused() {
    let long = "x".repeat(400 * 1024);
    let refs = vec!["*s"; 50].join(", ");
    let text = format!("name: x\ns: &s {long}\nhyperparameters:\n  many: [{refs}]\n");
    let checked = common::check("aliased.yaml", text.as_bytes());
    let budget: Vec<&stagec::Diagnostic> = checked.diagnostics.iter().filter(|d| d.code == "Y003").collect();
    assert_eq!(budget.len(), 1, "{:?}", checked.diagnostics);
    assert!(budget[0].message.contains("MiB"), "{}", budget[0].message);
    // 100,000 nodes written out, no alias: no budget error.
    let many: String = (0..50_000).map(|i| format!("  k{i}: {i}\n")).collect();
    let text = format!("name: x\nhyperparameters:\n{many}");
    assert!(!codes(text.as_bytes()).contains(&"Y003"));
}

#[test]
fn recursive_alias_is_an_error() {
    assert!(codes(b"a: &a [1, *a]\n").contains(&"Y003"));
}

#[test]
fn deep_nesting_is_cut_off() {
    let text = format!("data: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    assert!(codes(text.as_bytes()).contains(&"Y004"));
    let text = format!(
        "data:\n{}",
        (0..300)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i + 1)))
            .collect::<String>()
    );
    assert!(codes(text.as_bytes()).contains(&"Y004"));
}

#[test]
fn huge_file_is_refused_without_parsing() {
    let text = "a: b\n".repeat(2 * 1024 * 1024);
    assert_eq!(codes(text.as_bytes()), ["Y005"]);
}

#[test]
fn binary_input_is_refused() {
    assert_eq!(codes(&[0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe]), ["Y006"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Model sources, `stages.yaml` and inventories are read through the
    /// same front door: arbitrary text in each never panics, and every
    /// diagnostic lands inside its own file.
    #[test]
    fn companions_never_panic(
        model in "(@stage_decorator\\(|stage_id=|device=|dtype=torch\\.|class |def |self\\.|[()\\[\\]{}:=,\"'#\n ]|[a-z0-9_]{1,6}|\u{4e2d}){0,60}",
        stages in "(stages:|- id:|inputs:|\\[|\\]|params: |[0-9]{1,3}[KMB]?|name: |\n  |, |\u{4e2d}){0,40}",
        inventory in "(nodes:|items:|kind: NodeList|\\{|\\}|\"nvidia.com/gpu.product\": |NVIDIA-A100-SXM4-40GB|index, name|, |[0-9]{1,3}|\n){0,40}",
    ) {
        let input = |name: &str, text: &str| stagec::project::Input { name: name.into(), bytes: text.as_bytes().to_vec() };
        let project = stagec::project::Project {
            config: input("const.yaml", include_str!("../../examples/hpp-seed-fixed/const.yaml")),
            models: Some(vec![input("model.py", &model), input("stages.yaml", &stages)]),
            inventory: Some(input("inventory.json", &inventory)),
            probe: None,
            searched: "test".into(),
            training: None,
        };
        let checked = stagec::compile(&project, &stagec::Options::default());
        for d in &checked.diagnostics {
            let text = &checked.sources.get(d.file).expect("file").text;
            prop_assert!(d.span.end <= text.len() && text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end), "{d:?}");
        }
        let _ = common::render(&checked);
    }
}

/// 200,000 repeated keys: 200 of them listed, the rest counted in one note,
/// and the JSON output stays small.
#[test]
fn diagnostics_are_capped_per_rule_and_file() {
    let text: String = std::iter::once("name: x\n".to_string())
        .chain((0..200_000).map(|i| format!("k{}: {i}\n", i % 2)))
        .collect();
    let checked = common::check("repeated.yaml", text.as_bytes());
    let y002 = checked.diagnostics.iter().filter(|d| d.code == "Y002").count();
    assert_eq!(y002, 200);
    let notes: Vec<&stagec::Diagnostic> = checked.diagnostics.iter().filter(|d| d.code == "L001").collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].message.starts_with("199798 more Y002 diagnostics"),
        "{}",
        notes[0].message
    );
    assert_eq!(notes[0].severity, stagec::Severity::Error);
    assert!(checked.diagnostics.len() <= 1_001);
}
