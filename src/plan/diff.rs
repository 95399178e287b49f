//! `stagec diff`: the differences between two plans that change results —
//! driver and CUDA version, GPU models, dtypes, casts, environment, input
//! hashes, pipeline shape — one line each.

use std::collections::BTreeMap;

use serde_json::Value as Json;

/// One line per difference, in a stable order. Empty when the plans agree
/// on everything that changes results.
pub fn diff(a: &Json, b: &Json) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cmp = |what: String, x: Option<&Json>, y: Option<&Json>| {
        if x != y {
            lines.push(format!("{what}: {} vs {}", show(x), show(y)));
        }
    };
    // The driver is one fact, reported as `12.4 (12040)`.
    let driver = |v: &Json| -> Option<Json> {
        let version = v.pointer("/hardware/probe/cuda_version")?;
        let raw = v
            .pointer("/hardware/probe/cuda_driver_version")
            .map_or(String::new(), |r| format!(" ({r})"));
        Some(Json::String(format!("CUDA {}{raw}", show(Some(version)))))
    };
    cmp("hardware.probe.driver".into(), driver(a).as_ref(), driver(b).as_ref());
    cmp(
        "hardware.probe.devices".into(),
        a.pointer("/hardware/probe/devices"),
        b.pointer("/hardware/probe/devices"),
    );
    for key in [
        "degree",
        "data_parallel",
        "micro_batch_size",
        "micro_batches",
        "schedule",
        "virtual_stages",
    ] {
        let path = format!("/pipeline/{key}");
        cmp(format!("pipeline.{key}"), a.pointer(&path), b.pointer(&path));
    }
    let stages = |v: &Json| -> BTreeMap<i64, Json> {
        v.get("stages")
            .and_then(Json::as_array)
            .map(|s| {
                s.iter()
                    .filter_map(|st| st.get("id").and_then(Json::as_i64).map(|id| (id, st.clone())))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (sa, sb) = (stages(a), stages(b));
    let ids: std::collections::BTreeSet<i64> = sa.keys().chain(sb.keys()).copied().collect();
    for id in ids {
        let (x, y) = (sa.get(&id), sb.get(&id));
        if x.is_none() || y.is_none() {
            cmp(
                format!("stages[{id}]"),
                x.and_then(|s| s.get("name")),
                y.and_then(|s| s.get("name")),
            );
            continue;
        }
        for key in ["dtype", "gpu_types", "gpu_count"] {
            cmp(
                format!("stages[{id}].{key}"),
                x.and_then(|s| s.get(key)),
                y.and_then(|s| s.get(key)),
            );
        }
        let device = |s: Option<&Json>| s.and_then(|s| s.pointer("/device/catalog_id")).cloned();
        cmp(format!("stages[{id}].device"), device(x).as_ref(), device(y).as_ref());
    }
    let casts = |v: &Json| -> BTreeMap<String, Json> {
        v.get("boundaries")
            .and_then(Json::as_array)
            .map(|bs| {
                bs.iter()
                    .map(|b| {
                        let key = format!(
                            "{}->{}",
                            b.get("from").cloned().unwrap_or(Json::Null),
                            b.get("to").cloned().unwrap_or(Json::Null)
                        );
                        (key, b.get("cast").cloned().unwrap_or(Json::Null))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (ca, cb) = (casts(a), casts(b));
    for key in ca.keys().chain(cb.keys()).collect::<std::collections::BTreeSet<_>>() {
        cmp(format!("boundaries[{key}].cast"), ca.get(key), cb.get(key));
    }
    let vars = |v: &Json| {
        v.pointer("/environment/variables")
            .and_then(Json::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let (va, vb) = (vars(a), vars(b));
    for key in va.keys().chain(vb.keys()).collect::<std::collections::BTreeSet<_>>() {
        // Where the plan lies is not a difference in results.
        if key == super::PLAN_VARIABLE {
            continue;
        }
        cmp(format!("environment.{key}"), va.get(key), vb.get(key));
    }
    let inputs = |v: &Json| -> BTreeMap<String, Json> {
        v.get("inputs")
            .and_then(Json::as_array)
            .map(|is| {
                is.iter()
                    .map(|i| {
                        let role = i.get("role").and_then(Json::as_str).unwrap_or("input");
                        // By file name: the same project planned from two checkouts compares alike.
                        let path = i.get("path").and_then(Json::as_str).unwrap_or("");
                        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
                        (format!("{role} {name}"), i.get("sha256").cloned().unwrap_or(Json::Null))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (ia, ib) = (inputs(a), inputs(b));
    for key in ia.keys().chain(ib.keys()).collect::<std::collections::BTreeSet<_>>() {
        cmp(format!("inputs[{key}].sha256"), ia.get(key), ib.get(key));
    }
    lines
}

fn show(v: Option<&Json>) -> String {
    match v {
        None => "(absent)".into(),
        Some(Json::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_exactly_the_driver_difference() {
        let a = serde_json::json!({"hardware": {"probe": {"cuda_version": "12.4", "cuda_driver_version": 12040, "devices": ["NVIDIA H100 80GB HBM3"], "fingerprint": "aa"}}, "stages": []});
        let mut b = a.clone();
        b["hardware"]["probe"]["cuda_version"] = "12.2".into();
        b["hardware"]["probe"]["cuda_driver_version"] = 12020.into();
        b["hardware"]["probe"]["fingerprint"] = "bb".into();
        assert_eq!(
            diff(&a, &b),
            ["hardware.probe.driver: CUDA 12.4 (12040) vs CUDA 12.2 (12020)"]
        );
        assert!(diff(&a, &a).is_empty());
    }
}
