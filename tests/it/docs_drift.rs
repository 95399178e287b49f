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

/// The Neovim snippet `lsp/tests/it/neovim.rs` runs (the block after
/// `<!-- nvim-snippet: 0.8 -->` in docs/editors.md) is the one every other
/// page shows in its Neovim section (the README's, where it has one).
#[test]
fn readme_neovim_snippet_is_the_tested_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let editors = std::fs::read_to_string(root.join("docs/editors.md")).expect("docs/editors.md");
    let after = editors
        .split("<!-- nvim-snippet: 0.8 -->")
        .nth(1)
        .expect("the 0.8 snippet marker");
    let block = lua_block(after).expect("a lua block after the marker");
    let mut pages = vec![root.join("README.md")];
    pages.extend(
        std::fs::read_dir(root.join("docs"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with("editors.md")),
    );
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap_or_default();
        let Some(section) = text.split("### Neovim").nth(1) else {
            continue;
        };
        // The section up to the next heading of its level or above.
        let section = section.split("\n## ").next().unwrap_or(section);
        let section = section.split("\n### ").next().unwrap_or(section);
        if let Some(copy) = lua_block(section) {
            assert_eq!(
                copy,
                block,
                "{}'s Neovim snippet differs from docs/editors.md",
                page.display()
            );
        }
    }
}

fn lua_block(text: &str) -> Option<&str> {
    let start = text.find("```lua\n")? + "```lua\n".len();
    let end = start + text[start..].find("```")?;
    Some(&text[start..end])
}
