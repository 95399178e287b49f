//! Each example folder (config with its model sources) checks as its README says ("Expected exit status: N"),
//! and its diagnostics are snapshotted.

use crate::common;

use std::path::Path;

#[test]
fn examples_check_as_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("examples/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 4);
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
        let expected: i32 = readme
            .lines()
            .find_map(|l| l.strip_prefix("Expected exit status: "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name}/README.md states no expected exit status"));
        // As `stagec check examples/NAME/const.yaml` sees it: with the model's
        // stage declarations from the folder.
        let checked = common::check_project_dir(&dir);
        let actual = i32::from(checked.error_count() > 0);
        assert_eq!(actual, expected, "{name}:\n{}", common::render(&checked));
        insta::assert_snapshot!(format!("example_{name}"), common::render(&checked));
    }
}
