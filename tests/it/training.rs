//! Training-code checks (`T…`): the cases of each training rule are in
//! `tests/rules/T…/` (run by `rule_cases`); this checks what they share
//! with the discovery.

use std::path::{Path, PathBuf};

use stagec::project::{ContextScan, Disk, Project, SourceSpec};

use crate::common;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The project folders of the training rules' cases.
fn folders() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for rule in std::fs::read_dir(root().join("tests/rules"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with('T'))
    {
        for e in std::fs::read_dir(rule.path())
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            if e.path().is_dir() && e.file_name() != "snapshots" {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Discovery parses the config to find the entrypoint and the compilation
/// takes that parse: what a check reports is the same as when the
/// compilation parses the config itself.
#[test]
fn the_config_discovery_parsed_gives_the_same_check() {
    let mut taken = 0;
    let mut reported = 0;
    for dir in folders().into_iter().chain([root().join("examples/hpp-seed")]) {
        if !dir.join("const.yaml").exists() {
            continue;
        }
        let relative = PathBuf::from(common::display_name(&dir));
        let scan = ContextScan::new(&relative);
        let opts = common::options(None);
        let (project, _) =
            match Project::discover(&relative.join("const.yaml"), &SourceSpec::default(), Some(&scan), &Disk) {
                Ok(found) => found,
                Err(e) => panic!("{e}"),
            };
        let mut parsed_again = project.clone();
        if let Some(t) = parsed_again.training.as_mut() {
            t.config = None;
        }
        let kept = |p: &Project| {
            p.training
                .as_ref()
                .and_then(|t| t.config.as_ref())
                .is_some_and(|k| k.is_held())
        };
        let held = kept(&project);
        let with = stagec::compile(&project, &opts);
        // The compilation took it (the tree is not held twice).
        if held {
            taken += 1;
            assert!(!kept(&project), "{}", dir.display());
        }
        let without = stagec::compile(&parsed_again, &opts);
        reported += with.diagnostics.len();
        assert_eq!(with.diagnostics, without.diagnostics, "{}", dir.display());
    }
    assert!(taken > 5, "discovery kept a parse of {taken} configs");
    assert!(reported > 20, "{reported} diagnostics in all");
}
