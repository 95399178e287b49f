//! Every real Determined config in `../shared/corpus/determined-examples/`
//! checks with zero errors.

use crate::common;

#[test]
fn determined_examples_have_no_errors() {
    let Some(shared) = common::shared_dir() else { return };
    let dir = shared.join("corpus/determined-examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    assert!(!paths.is_empty(), "no configs in {}", dir.display());
    let mut failures = Vec::new();
    for path in &paths {
        let bytes = std::fs::read(path).unwrap_or_default();
        let checked = common::check(&path.display().to_string(), &bytes);
        if checked.error_count() > 0 {
            failures.push(common::render(&checked));
        }
        assert!(
            checked.typed().is_some() || checked.error_count() > 0,
            "{}: valid but not typed",
            path.display()
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus configs have errors:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n")
    );
}
