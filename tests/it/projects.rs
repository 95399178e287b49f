//! Whole-project scenarios that are about no single rule: each folder
//! under `tests/projects/` holds a config, its model sources and maybe an
//! inventory; the expected error codes are listed here and the full
//! rendering is snapshotted. A scenario about one rule is a case of that
//! rule in `tests/rules/<CODE>/` instead.

use std::path::Path;

use crate::common;

const EXPECTED: &[(&str, &[&str])] = &[("image_map_form", &[]), ("valid_three_stages", &[])];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn projects_report_exactly_the_expected_errors() {
    let projects = root().join("tests/projects");
    let mut dirs: Vec<String> = std::fs::read_dir(&projects)
        .expect("tests/projects")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut listed: Vec<&str> = EXPECTED.iter().map(|(d, _)| *d).collect();
    listed.sort_unstable();
    assert_eq!(dirs, listed, "every scenario folder has an expectation");
    // Each scenario on its own, so that a failure names every failing one.
    let mut failures = Vec::new();
    for (dir, expected) in EXPECTED {
        let outcome = std::panic::catch_unwind(|| {
            let checked = common::check_project_dir(&projects.join(dir));
            let rendered = common::render(&checked);
            assert_eq!(common::error_codes(&checked), *expected, "error codes:\n{rendered}");
            insta::assert_snapshot!(format!("project_{dir}"), rendered);
        });
        if let Err(panic) = outcome {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("tests/projects/{dir}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Scenarios whose warning is their point (their rule cases assert exact
/// positions; this keeps the scenario names readable in one place).
#[test]
fn warning_scenarios_report_their_warning() {
    for (dir, code) in [
        ("tests/rules/P110/pos_no_stage_declarations", "P110"),
        ("tests/rules/P302/pos_inventory_unknown_gpu", "P302"),
        ("tests/rules/R105/pos_image_ngc_old_drivers", "R105"),
        ("tests/rules/R101/pos_image_unknown", "R101"),
        ("tests/projects/valid_three_stages", "R102"),
    ] {
        let checked = common::check_project_dir(&root().join(dir));
        assert!(
            checked.diagnostics.iter().any(|d| d.code == code),
            "{dir}: {}",
            common::render(&checked)
        );
    }
}

#[test]
fn the_seed_example_reports_slots_against_three_stages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hpp-seed");
    let checked = common::check_project_dir(&dir);
    let slots = checked.diagnostics.iter().find(|d| d.code == "P118").expect("P118");
    assert!(
        slots.message.contains("slots_per_trial: 8") && slots.message.contains("3 pipeline stages"),
        "{}",
        slots.message
    );
    let pipeline = checked.pipeline.as_ref().expect("pipeline");
    let names: Vec<&str> = pipeline.stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["VisionEncoder", "TransformerBlock", "classifier"]);
}

#[test]
fn the_corrected_seed_example_is_clean() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hpp-seed-fixed");
    let checked = common::check_project_dir(&dir);
    assert_eq!(
        common::error_codes(&checked),
        Vec::<&str>::new(),
        "{}",
        common::render(&checked)
    );
    let pipeline = checked.pipeline.as_ref().expect("pipeline");
    assert_eq!(
        (pipeline.degree, pipeline.data_parallel, pipeline.micro_batches),
        (3, Some(2), Some(16))
    );
}
