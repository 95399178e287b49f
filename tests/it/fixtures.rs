//! Every `tests/fixtures/{yaml,schema}/*.yaml` (parser and schema inputs
//! that are about no single rule; the rules' own cases are in
//! `tests/rules/`) is checked: the codes it reports must be those listed
//! here, and its rendered diagnostics (human and JSON) are compared with the
//! snapshot in `snapshots/`.

use std::collections::{BTreeMap, BTreeSet};

use crate::common;

/// Each fixture's codes (any severity), without repeats.
const EXPECTED: &[(&str, &[&str])] = &[
    ("schema/checkpoints_confusion.yaml", &["C101", "C209", "C210"]),
    (
        "schema/enums_and_ranges.yaml",
        &["C104", "C105", "C106", "C108", "C209", "C210"],
    ),
    (
        "schema/hpp_extension.yaml",
        &["C101", "C102", "C103", "C104", "C105", "C209", "C210"],
    ),
    (
        "schema/hyperparameter_unions.yaml",
        &["C101", "C102", "C103", "C107", "C206", "C209", "C210"],
    ),
    ("schema/missing_searcher_name.yaml", &["C209", "C210"]),
    ("schema/nested_unknown_keys.yaml", &["C101", "C208", "C209", "R101"]),
    ("schema/secret_values.yaml", &["C102"]),
    ("schema/string_for_integer.yaml", &["C102", "C209", "C210"]),
    ("schema/suppression.yaml", &["C209", "V302"]),
    ("schema/unknown_searcher.yaml", &["C107", "C210"]),
    ("schema/variables.yaml", &["C209", "V301", "V302"]),
    ("yaml/alias_bomb.yaml", &["Y003"]),
    ("yaml/anchors_and_merge.yaml", &["C102", "C210"]),
    ("yaml/big_integers.yaml", &["C210", "Y011"]),
    ("yaml/binary_nul.yaml", &["Y006"]),
    ("yaml/complex_key.yaml", &["C209", "C210", "C213", "Y010"]),
    ("yaml/crlf_chinese.yaml", &["C102", "C210", "C213"]),
    ("yaml/deep_nesting.yaml", &["Y004"]),
    ("yaml/duplicate_key.yaml", &["C209", "C210", "C213", "Y002"]),
    ("yaml/empty_document.yaml", &["Y008"]),
    ("yaml/empty_mapping.yaml", &["C209", "C210", "C213", "Y008"]),
    ("yaml/latin1.yaml", &["Y006"]),
    ("yaml/merge_overrides.yaml", &["C210", "Y014"]),
    ("yaml/merge_quoted_key.yaml", &["C101", "C210"]),
    ("yaml/merge_values.yaml", &["C210", "Y013"]),
    ("yaml/multiple_documents.yaml", &["C209", "C210", "C213", "Y007"]),
    ("yaml/non_finite.yaml", &["C210", "Y015"]),
    ("yaml/numbers_as_the_master_reads_them.yaml", &["Y011"]),
    ("yaml/root_is_list.yaml", &["Y008"]),
    ("yaml/surrogate_escape.yaml", &["C210", "Y018"]),
    ("yaml/syntax_unclosed_flow.yaml", &["Y001"]),
    ("yaml/tags.yaml", &["C209", "C210", "C213", "Y009"]),
    ("yaml/under_indented_quote.yaml", &["C210", "Y017"]),
    ("yaml/unsupported_keys.yaml", &["C210", "Y010"]),
    ("yaml/yaml11_directive.yaml", &["C210"]),
    ("yaml/yaml11_scalars.yaml", &["C102", "C210", "Y012"]),
    ("yaml/yaml_1_2_scalars.yaml", &["C102", "C210", "Y012"]),
    ("yaml/yaml_version_1_2.yaml", &["C210", "Y016"]),
    ("yaml/yaml_version_2_0.yaml", &["C210", "Y016"]),
];

#[test]
fn fixtures() {
    let expected: BTreeMap<&str, &[&str]> = EXPECTED.iter().copied().collect();
    let mut seen = BTreeSet::new();
    insta::glob!("../fixtures", "**/*.yaml", |path| {
        let name = common::display_name(path);
        let key = name.strip_prefix("tests/fixtures/").unwrap_or(&name).to_string();
        let bytes = std::fs::read(path).unwrap_or_default();
        let checked = common::check(&name, &bytes);
        let codes: BTreeSet<&str> = checked.diagnostics.iter().map(|d| d.code).collect();
        let want: BTreeSet<&str> = expected
            .get(key.as_str())
            .copied()
            .unwrap_or_default()
            .iter()
            .copied()
            .collect();
        assert!(
            expected.contains_key(key.as_str()),
            "{key} is not listed in fixtures.rs"
        );
        assert_eq!(codes, want, "{key}:\n{}", common::render(&checked));
        seen.insert(key);
        insta::assert_snapshot!(common::render(&checked));
    });
    let listed: BTreeSet<String> = expected.keys().map(|k| k.to_string()).collect();
    assert_eq!(seen, listed, "every listed fixture exists");
}
