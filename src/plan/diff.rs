//! `stagec diff`: the differences between two plans that change results —
//! driver and CUDA version, GPU models, dtypes, casts, environment, input
//! hashes, pipeline shape — one line each.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value as Json;

use super::{StagePlan, PLAN_VARIABLE};

/// One line per difference, in a stable order. Empty when the plans agree
/// on everything that changes results.
pub fn diff(a: &StagePlan, b: &StagePlan) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cmp = |what: String, x: Option<Json>, y: Option<Json>| {
        if x != y {
            lines.push(format!("{what}: {} vs {}", show(x.as_ref()), show(y.as_ref())));
        }
    };
    // The driver is one fact, reported as `CUDA 12.4 (12040)`.
    let driver = |p: &StagePlan| -> Option<Json> {
        let probe = p.hardware.probe.as_ref()?;
        let version = probe.cuda_version.as_deref()?;
        let raw = probe.cuda_driver_version.map_or(String::new(), |r| format!(" ({r})"));
        Some(Json::String(format!("CUDA {version}{raw}")))
    };
    cmp("hardware.probe.driver".into(), driver(a), driver(b));
    let kernel = |p: &StagePlan| {
        let probe = p.hardware.probe.as_ref()?;
        probe.kernel_driver.as_ref().map(|v| Json::String(v.clone()))
    };
    cmp("hardware.probe.kernel_driver".into(), kernel(a), kernel(b));
    let devices = |p: &StagePlan| p.hardware.probe.as_ref().map(|probe| value(&probe.devices));
    cmp("hardware.probe.devices".into(), devices(a), devices(b));
    let (pa, pb) = (&a.pipeline, &b.pipeline);
    cmp(
        "pipeline.degree".into(),
        Some(value(&pa.degree)),
        Some(value(&pb.degree)),
    );
    cmp(
        "pipeline.data_parallel".into(),
        Some(value(&pa.data_parallel)),
        Some(value(&pb.data_parallel)),
    );
    cmp(
        "pipeline.micro_batch_size".into(),
        Some(value(&pa.micro_batch_size)),
        Some(value(&pb.micro_batch_size)),
    );
    cmp(
        "pipeline.micro_batches".into(),
        Some(value(&pa.micro_batches)),
        Some(value(&pb.micro_batches)),
    );
    cmp(
        "pipeline.schedule".into(),
        Some(value(&pa.schedule)),
        Some(value(&pb.schedule)),
    );
    cmp(
        "pipeline.virtual_stages".into(),
        Some(value(&pa.virtual_stages)),
        Some(value(&pb.virtual_stages)),
    );
    let (sa, sb): (BTreeMap<i64, &super::PlanStage>, BTreeMap<i64, &super::PlanStage>) = (
        a.stages.iter().map(|s| (s.id, s)).collect(),
        b.stages.iter().map(|s| (s.id, s)).collect(),
    );
    let ids: BTreeSet<i64> = sa.keys().chain(sb.keys()).copied().collect();
    for id in ids {
        let (x, y) = (sa.get(&id), sb.get(&id));
        let (Some(x), Some(y)) = (x, y) else {
            cmp(
                format!("stages[{id}]"),
                x.map(|s| value(&s.name)),
                y.map(|s| value(&s.name)),
            );
            continue;
        };
        cmp(
            format!("stages[{id}].dtype"),
            Some(value(&x.dtype)),
            Some(value(&y.dtype)),
        );
        cmp(
            format!("stages[{id}].gpu_types"),
            Some(value(&x.gpu_types)),
            Some(value(&y.gpu_types)),
        );
        cmp(
            format!("stages[{id}].gpu_count"),
            Some(value(&x.gpu_count)),
            Some(value(&y.gpu_count)),
        );
        let device = |s: &super::PlanStage| s.device.as_ref().map(|d| value(&d.catalog_id));
        cmp(format!("stages[{id}].device"), device(x), device(y));
    }
    let casts = |p: &StagePlan| -> BTreeMap<String, Json> {
        p.boundaries
            .iter()
            .map(|b| (format!("{}->{}", b.from, b.to), value(&b.cast)))
            .collect()
    };
    let (ca, cb) = (casts(a), casts(b));
    for key in ca.keys().chain(cb.keys()).collect::<BTreeSet<_>>() {
        cmp(
            format!("boundaries[{key}].cast"),
            ca.get(key).cloned(),
            cb.get(key).cloned(),
        );
    }
    // The image and what it provides: a CUDA or PyTorch drift between two
    // plans is found before a run, not after.
    let image = |p: &StagePlan, f: fn(&super::PlanImage) -> Option<&String>| p.image.as_ref().and_then(f).map(value);
    cmp(
        "image.reference".into(),
        image(a, |i| Some(&i.reference)),
        image(b, |i| Some(&i.reference)),
    );
    cmp(
        "image.cuda".into(),
        image(a, |i| i.cuda.as_ref()),
        image(b, |i| i.cuda.as_ref()),
    );
    cmp(
        "image.torch".into(),
        image(a, |i| i.torch.as_ref()),
        image(b, |i| i.torch.as_ref()),
    );
    cmp(
        "image.python".into(),
        image(a, |i| i.python.as_ref()),
        image(b, |i| i.python.as_ref()),
    );
    let (va, vb) = (&a.environment.variables, &b.environment.variables);
    for key in va.keys().chain(vb.keys()).collect::<BTreeSet<_>>() {
        // Where the plan lies is not a difference in results.
        if key == PLAN_VARIABLE {
            continue;
        }
        // A credential is never printed (nor a digest of it, which a
        // guess could be checked against), but that it changed is said.
        let (x, y) = (va.get(key), vb.get(key));
        let secret = |v: Option<&String>| {
            v.is_some_and(|v| crate::secrets::is_secret(key, v) && !v.trim_start().starts_with("${"))
        };
        let withheld = |v: Option<&String>, text: &str| {
            v.map(|v| {
                if secret(Some(v)) {
                    Json::String(text.into())
                } else {
                    value(v)
                }
            })
        };
        let other = if x != y {
            "<withheld: another credential>"
        } else {
            "<withheld: credential>"
        };
        cmp(
            format!("environment.{key}"),
            withheld(x, "<withheld: credential>"),
            withheld(y, other),
        );
    }
    let inputs = |p: &StagePlan| -> BTreeMap<String, Json> {
        p.inputs
            .iter()
            .map(|i| {
                // By file name: the same project planned from two checkouts compares alike.
                let name = i.path.rsplit(['/', '\\']).next().unwrap_or(&i.path);
                (
                    format!("{} {name}", value(&i.role).as_str().unwrap_or("input")),
                    value(&i.sha256),
                )
            })
            .collect()
    };
    let (ia, ib) = (inputs(a), inputs(b));
    for key in ia.keys().chain(ib.keys()).collect::<BTreeSet<_>>() {
        cmp(
            format!("inputs[{key}].sha256"),
            ia.get(key).cloned(),
            ib.get(key).cloned(),
        );
    }
    lines
}

/// A field as the plan's JSON writes it.
fn value<T: Serialize + ?Sized>(v: &T) -> Json {
    serde_json::to_value(v).unwrap_or(Json::Null)
}

/// A value as a line shows it, with secrets found by their shape masked
/// (a plan is data anyone may have written).
fn show(v: Option<&Json>) -> String {
    match v {
        None => "(absent)".into(),
        Some(Json::String(s)) => crate::secrets::redact(s).into_owned(),
        Some(other) => crate::secrets::redact(&other.to_string()).into_owned(),
    }
}
