//! Unit tests of the YAML parser (declared under `#[cfg(test)]` by the
//! parent module).

use super::*;
use crate::yaml::PathSeg;

fn master(text: &str) -> (Tree, Vec<YamlIssue>) {
    parse_with(text, &Budgets::default(), Schema::Master)
}

fn json(tree: &Tree) -> serde_json::Value {
    tree.root()
        .and_then(|r| tree.to_json(r, 10_000))
        .unwrap_or(serde_json::Value::Null)
}

#[test]
fn under_indented_quoted_scalars_are_read_as_determined_folds_them() {
    let text = "a:\n  b:\n    k: \"x,\ny\"\n    j: 1\n  c: 'p,\n  q'\n";
    let (tree, issues) = master(text);
    assert_eq!(
        json(&tree),
        serde_json::json!({"a": {"b": {"k": "x, y", "j": 1}, "c": "p, q"}})
    );
    let under: Vec<Span> = issues
        .iter()
        .filter_map(|i| match i {
            YamlIssue::UnderIndented { at, .. } => Some(*at),
            _ => None,
        })
        .collect();
    assert_eq!(under.len(), 2, "{issues:?}");
    assert_eq!(&text[under[0].start..under[0].end], "y\"");
    // Spans after a repair are the text's own.
    let root = tree.root().unwrap();
    let j = tree.locate(&[
        PathSeg::Key("a".into()),
        PathSeg::Key("b".into()),
        PathSeg::Key("j".into()),
    ]);
    let j = j.unwrap();
    assert_eq!(&text[tree.span(j.node).start..tree.span(j.node).end], "1");
    assert_eq!(
        &text[tree.span(j.key.unwrap()).start..tree.span(j.key.unwrap()).end],
        "j"
    );
    assert_eq!(tree.span(root).start, 0);
}

#[test]
fn a_document_marker_inside_a_quoted_scalar_stays_an_error() {
    let (_, issues) = master("a:\n  k: \"x,\n---\"\n");
    assert!(
        issues.iter().any(|i| matches!(i, YamlIssue::Syntax { .. })),
        "{issues:?}"
    );
}

#[test]
fn surrogate_pairs_are_characters_in_json_and_refused_by_the_master() {
    let text = r#"{"label": "a\ud83d\ude00b", "x": "\uD83D\uDE00"}"#;
    let (tree, issues) = parse(text, &Budgets::default());
    assert!(issues.is_empty(), "{issues:?}");
    assert_eq!(json(&tree), serde_json::json!({"label": "a😀b", "x": "😀"}));
    let x = tree.locate(&[PathSeg::Key("x".into())]).unwrap();
    assert_eq!(
        &text[tree.span(x.node).start..tree.span(x.node).end],
        r#""\uD83D\uDE00""#
    );

    let (_, issues) = master(text);
    let pairs: Vec<_> = issues
        .iter()
        .filter_map(|i| match i {
            YamlIssue::SurrogateEscape { at, pair } => Some((&text[at.start..at.end], *pair)),
            _ => None,
        })
        .collect();
    assert_eq!(pairs, [(r"\ud83d\ude00", Some('😀')), (r"\uD83D\uDE00", Some('😀'))]);

    // A lone half is an error everywhere; an escaped backslash is not an escape.
    let (_, issues) = parse(r#"{"a": "\ud83d", "b": "\\ud83d"}"#, &Budgets::default());
    assert_eq!(
        issues
            .iter()
            .filter(|i| matches!(i, YamlIssue::SurrogateEscape { pair: None, .. }))
            .count(),
        1,
        "{issues:?}"
    );
}

#[test]
fn the_master_reads_yaml_1_1_and_reports_what_yaml_1_2_reads_otherwise() {
    let (tree, issues) = master("a: yes\nb: 0777\nc: \"yes\"\nd: true\non: 1\n");
    assert_eq!(
        json(&tree),
        serde_json::json!({"a": true, "b": 511, "c": "yes", "d": true, "true": 1})
    );
    let ambiguous: Vec<bool> = issues
        .iter()
        .filter_map(|i| match i {
            YamlIssue::Yaml11 { key, .. } => Some(*key),
            _ => None,
        })
        .collect();
    assert_eq!(ambiguous, [false, false, true]);
    // With `%YAML 1.1` both readers agree.
    let (_, issues) = master("%YAML 1.1\n---\na: yes\n");
    assert!(issues.is_empty(), "{issues:?}");
    // The CLI's reading decides what repeats: `on` and `true` are two keys to it.
    let (_, issues) = master("on: 1\n\"true\": 2\n");
    assert!(
        !issues.iter().any(|i| matches!(i, YamlIssue::DuplicateKey { .. })),
        "{issues:?}"
    );
    let (_, issues) = master("%YAML 1.1\n---\non: 1\ntrue: 2\n");
    assert!(
        issues.iter().any(|i| matches!(i, YamlIssue::DuplicateKey { .. })),
        "{issues:?}"
    );
}

#[test]
fn numbers_reach_the_master_as_64_bit_floats() {
    let (tree, _) = master("a: 9007199254740993\nb: 1.0\nc: 1e3\nd: 1.5\n");
    assert_eq!(
        json(&tree),
        serde_json::json!({"a": 9007199254740992i64, "b": 1, "c": 1000, "d": 1.5})
    );
}

#[test]
fn only_a_plain_merge_key_merges() {
    let text = "base: &b {x: 1, q: 2}\nquoted:\n  \"<<\": *b\nplain:\n  <<: *b\ntagged:\n  !!merge \"<<\": *b\n";
    for schema in [Schema::Core, Schema::Master] {
        let (tree, issues) = parse_with(text, &Budgets::default(), schema);
        assert!(issues.is_empty(), "{issues:?}");
        let j = json(&tree);
        assert_eq!(j["quoted"], serde_json::json!({"<<": {"x": 1, "q": 2}}));
        assert_eq!(j["plain"], serde_json::json!({"x": 1, "q": 2}));
        assert_eq!(j["tagged"], serde_json::json!({"x": 1, "q": 2}));
    }
    // A quoted `<<` and a merge key are not duplicates; two merges are.
    let (_, issues) = master("a: &a {x: 1}\nb:\n  \"<<\": 1\n  <<: *a\n");
    assert!(issues.is_empty(), "{issues:?}");
    let (_, issues) = master("a: &a {x: 1}\nb:\n  <<: *a\n  <<: *a\n");
    assert!(
        issues.iter().any(|i| matches!(i, YamlIssue::DuplicateKey { .. })),
        "{issues:?}"
    );
}

#[test]
fn merge_values_both_readers_refuse() {
    for (text, bad) in [
        ("a:\n  <<: 5\n", true),
        ("a:\n  <<: foo\n", true),
        ("a:\n  <<:\n", true),
        ("a:\n  <<: [1, 2, \"x\"]\n", true),
        ("m: &m {x: 1}\na:\n  <<: [*m, 2]\n", true),
        ("m: &m {x: 1}\na:\n  <<: [*m, {y: 2}]\n", false),
        ("a:\n  <<: []\n", false),
    ] {
        for schema in [Schema::Core, Schema::Master] {
            let (_, issues) = parse_with(text, &Budgets::default(), schema);
            let found = issues.iter().any(|i| matches!(i, YamlIssue::BadMerge { .. }));
            assert_eq!(found, bad, "{text:?} {schema:?}: {issues:?}");
        }
    }
    // An alias to a list of mappings: ruamel merges it, the master refuses it.
    let text = "l: &l [{x: 1}]\na:\n  <<: *l\n";
    let (_, core) = parse(text, &Budgets::default());
    assert!(core.is_empty(), "{core:?}");
    let (_, issues) = master(text);
    assert!(
        matches!(
            issues.as_slice(),
            [YamlIssue::BadMerge {
                alias_to_list: true,
                ..
            }]
        ),
        "{issues:?}"
    );
}

#[test]
fn a_merge_applies_where_it_is_written_on_the_master() {
    let text = "b: &b {x: 1, q: 1}\nc: &c {q: 2, z: 2}\nm:\n  x: 9\n  <<: [*b, *c]\n  z: 9\n";
    let (tree, _) = master(text);
    assert_eq!(json(&tree)["m"], serde_json::json!({"x": 1, "q": 1, "z": 9}));
    let m = tree.locate(&[PathSeg::Key("m".into())]).unwrap().node;
    assert_eq!(
        tree.get(m, "x").map(|l| tree.value(l.node).clone()),
        Some(Value::Int(1))
    );
    let overrides: Vec<String> = tree.merge_overrides().into_iter().map(|(_, _, k)| k).collect();
    assert_eq!(overrides, ["x"]);
    let (tree, _) = parse(text, &Budgets::default());
    assert_eq!(json(&tree)["m"], serde_json::json!({"x": 9, "q": 1, "z": 9}));
}

#[test]
fn version_directives() {
    let version = |text: &str, schema| {
        let (_, issues) = parse_with(text, &Budgets::default(), schema);
        issues.into_iter().find_map(|i| match i {
            YamlIssue::Version {
                version, cli_refuses, ..
            } => Some((version, cli_refuses)),
            _ => None,
        })
    };
    assert_eq!(
        version("%YAML 1.2\n---\na: 1\n", Schema::Master),
        Some(("1.2".into(), false))
    );
    assert_eq!(version("%YAML 1.2\n---\na: 1\n", Schema::Core), None);
    assert_eq!(
        version("# c\n%YAML 9.9\n---\na: 1\n", Schema::Core),
        Some(("9.9".into(), true))
    );
    assert_eq!(version("%YAML 1.1 # c\n---\na: 1\n", Schema::Master), None);
    assert_eq!(version("a: 1\n%YAML 1.2\n", Schema::Master), None);
}
