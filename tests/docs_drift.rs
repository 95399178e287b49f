//! `docs/rules/` is generated from the rules' own documentation
//! (`stagec rules --docs docs/rules`): this fails when a page is stale,
//! missing, or left over from a rule that is gone.

use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn rule_pages_are_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules");
    let mut expected: Vec<(String, String)> = stagec::rules::all()
        .map(|r| (format!("{}.md", r.name), stagec::rules::docs_page(r)))
        .collect();
    expected.push(("README.md".into(), stagec::rules::docs_index()));
    let mut stale = Vec::new();
    for (name, text) in &expected {
        let on_disk = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        if on_disk != *text {
            stale.push(name.clone());
        }
    }
    let names: BTreeSet<&str> = expected.iter().map(|(n, _)| n.as_str()).collect();
    let extra: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !names.contains(n.as_str()))
        .collect();
    assert!(
        stale.is_empty() && extra.is_empty(),
        "docs/rules is stale (run `cargo run -- rules --docs docs/rules`): changed or missing {stale:?}, left over {extra:?}"
    );
}

#[test]
fn every_page_is_linked_from_the_index_and_the_url_names_it() {
    let index = stagec::rules::docs_index();
    for r in stagec::rules::all() {
        assert!(
            index.contains(&format!("]({}.md)", r.name)),
            "{} not in the index",
            r.code
        );
        let url = stagec::rules::docs_url(r, None);
        assert!(url.ends_with(&format!("/docs/rules/{}.md", r.name)), "{url}");
        assert_eq!(
            stagec::rules::docs_url(r, Some("https://example.org/r")),
            format!("https://example.org/r/{}.md", r.name)
        );
    }
}
