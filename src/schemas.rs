//! The generated JSON Schemas written to `schemas/` (and drift-tested).

/// `(file name, pretty JSON text)` for every generated schema.
pub fn all() -> Vec<(&'static str, String)> {
    vec![
        ("experiment.schema.json", pretty(&crate::spec::experiment_schema())),
        ("stages.schema.json", pretty(&crate::spec::stages::stages_schema())),
        (
            "inventory.schema.json",
            pretty(&crate::spec::inventory::inventory_schema()),
        ),
        ("stage_plan.schema.json", pretty(&crate::plan::plan_schema())),
        (
            "stagec-settings.schema.json",
            pretty(&crate::settings_file::settings_schema()),
        ),
    ]
}

fn pretty(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}
