//! Stage-graph scenarios: each folder under `tests/projects/` holds a
//! config, its model sources and maybe an inventory. The expected error
//! codes are listed here; the full rendering is snapshotted.

mod common;

use std::path::Path;

const EXPECTED: &[(&str, &[&str])] = &[
    ("bubble", &[]),
    ("decorator_vs_gpus_mismatch", &["P203"]),
    ("default_stage_without_device", &["P201"]),
    ("degree_and_batch", &["P113", "P119"]),
    ("field_notes_device_mismatch", &["P203"]),
    ("field_notes_fp8_on_a100", &["P205"]),
    ("field_notes_nodelist_enough", &[]),
    ("field_notes_nodelist_too_few", &["P304"]),
    ("field_notes_slots_string", &["C102"]),
    ("field_notes_stage_gap", &["P112"]),
    ("fp8_on_a100", &["P205"]),
    ("gpus_for_missing_stage", &["P117"]),
    ("image_blackwell_cuda12_1", &["R103"]),
    ("image_map_form", &[]),
    ("image_ngc_old_drivers", &["P304"]),
    ("image_provides_stated", &["R103", "R104"]),
    ("image_rocm_on_nvidia", &["R106"]),
    ("image_unknown", &[]),
    ("inventory_not_an_inventory", &["P301"]),
    ("inventory_unknown_gpu", &[]),
    ("nodelist_bad_counts", &["P301", "P301", "P301"]),
    ("nodelist_enough", &[]),
    ("nodelist_items_object", &["P301"]),
    ("nodelist_json_surrogates", &[]),
    ("nodelist_too_few", &["P304"]),
    ("no_stage_declarations", &[]),
    ("nodelist_unsatisfiable", &["P305"]),
    ("python_problems", &["P102", "P103"]),
    ("searched_candidates", &["P119"]),
    ("stage_id_gap", &["P112"]),
    ("stages_yaml_cycle", &["P114", "P115"]),
    ("stages_yaml_dag", &[]),
    ("stages_yaml_bad_params", &["P101"]),
    ("stages_yaml_dead_end_and_memory", &["P116", "P306"]),
    ("too_few_micro_batches", &["P120"]),
    ("too_many_ranks", &["L002"]),
    ("training_p1_trainer_api_hpp", &[]),
    ("training_p2_legacy_package_entrypoint", &[]),
    ("training_p3_core_api_module", &[]),
    ("two_classes_one_stage", &["P111"]),
    ("unknown_names", &["P202", "P204"]),
    ("valid_three_stages", &[]),
];

#[test]
fn projects_report_exactly_the_expected_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/projects");
    let mut dirs: Vec<String> = std::fs::read_dir(&root)
        .expect("tests/projects")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut listed: Vec<&str> = EXPECTED.iter().map(|(d, _)| *d).collect();
    listed.sort_unstable();
    assert_eq!(dirs, listed, "every scenario folder has an expectation");
    for (dir, expected) in EXPECTED {
        let checked = common::check_project_dir(&root.join(dir));
        let rendered = common::render(&checked);
        assert_eq!(common::error_codes(&checked), *expected, "{dir}:\n{rendered}");
        insta::assert_snapshot!(format!("project_{dir}"), rendered);
    }
}

#[test]
fn warning_scenarios_report_their_warning() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/projects");
    for (dir, code) in [
        ("no_stage_declarations", "P110"),
        ("inventory_unknown_gpu", "P302"),
        ("image_ngc_old_drivers", "R105"),
        ("image_unknown", "R101"),
        ("valid_three_stages", "R102"),
    ] {
        let checked = common::check_project_dir(&root.join(dir));
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
