//! The Kubernetes NodeList reader (`kubectl get nodes -o json`, also a
//! `List` of Nodes, a single Node, and `-o yaml`): nodes, their GPUs from
//! GPU Feature Discovery's labels, skipped nodes and their reasons.

use super::*;

/// A node's labels: text and where the value is written.
type Labels = BTreeMap<String, (String, NodeId)>;

pub(super) fn read(file: FileId, tree: &Tree, items: &[NodeId], issues: &mut Vec<InventoryIssue>) -> Inventory {
    let mut inv = Inventory {
        format: InventoryFormat::NodeList,
        nodes: Vec::new(),
        skipped: Vec::new(),
    };
    for (idx, &item) in items.iter().enumerate() {
        let name_node = child_path(tree, item, &["metadata", "name"]);
        let name = name_node
            .and_then(|n| scalar(tree, n))
            .unwrap_or_else(|| format!("items[{idx}]"));
        let loc = Loc {
            file,
            span: tree.span(name_node.unwrap_or(item)),
        };
        let labels = labels(tree, item);
        let mut node_issues = Vec::new();
        let gpus = gpus(file, tree, item, &name, &labels, &mut node_issues);
        let plain_labels = labels.iter().map(|(k, (v, _))| (k.clone(), v.clone())).collect();
        match unschedulable(tree, item) {
            Some((reason, cause)) => inv.skipped.push(SkippedNode {
                name,
                reason,
                loc,
                cause: Loc {
                    file,
                    span: tree.span(cause),
                },
                gpus,
            }),
            None => {
                issues.extend(node_issues);
                let driver = driver(tree, &labels).map(|(value, at)| Located {
                    value,
                    loc: Loc {
                        file,
                        span: tree.span(at),
                    },
                });
                inv.nodes.push(InvNode {
                    name,
                    loc,
                    gpus,
                    labels: plain_labels,
                    driver,
                });
            }
        }
    }
    inv
}

/// The driver release GPU Feature Discovery labels give: the `.full`
/// label, else major/minor/revision, of the current names
/// (`nvidia.com/cuda.driver-version.*`, device plugin 0.15+) or the
/// deprecated ones (`nvidia.com/cuda.driver.*`); and the label to point at.
/// Tegra nodes label `unknown`.
fn driver(_tree: &Tree, labels: &Labels) -> Option<(String, NodeId)> {
    let valid = |v: &str| {
        !v.is_empty()
            && v.split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    if let Some((v, at)) = labels.get("nvidia.com/cuda.driver-version.full") {
        if valid(v) {
            return Some((v.clone(), *at));
        }
    }
    for (prefix, rev) in [
        ("nvidia.com/cuda.driver-version", "revision"),
        ("nvidia.com/cuda.driver", "rev"),
    ] {
        let part = |k: &str| labels.get(&format!("{prefix}.{k}")).filter(|(v, _)| valid(v));
        let Some((major, at)) = part("major") else { continue };
        let mut text = major.clone();
        if let Some((minor, _)) = part("minor") {
            text = format!("{text}.{minor}");
            if let Some((r, _)) = part(rev) {
                text = format!("{text}.{r}");
            }
        }
        return Some((text, *at));
    }
    None
}

fn labels(tree: &Tree, item: NodeId) -> Labels {
    let Some(map) = child_path(tree, item, &["metadata", "labels"]) else {
        return Labels::new();
    };
    tree.merged_entries(map)
        .into_iter()
        .filter_map(|(k, e)| scalar(tree, e.value).map(|v| (k, (v, e.value))))
        .collect()
}

/// Why the node cannot take trial pods, and the node that says so.
fn unschedulable(tree: &Tree, item: NodeId) -> Option<(String, NodeId)> {
    let spec = child(tree, item, "spec")?;
    if let Some(u) = child(tree, spec, "unschedulable") {
        if matches!(tree.value(u), Value::Bool(true)) {
            return Some(("cordoned (`spec.unschedulable: true`)".into(), u));
        }
    }
    let taints = child(tree, spec, "taints")?;
    let Value::Seq(taints) = tree.value(taints) else {
        return None;
    };
    taints.iter().find_map(|&t| {
        let get = |k: &str| child(tree, t, k).and_then(|n| scalar(tree, n));
        let effect = get("effect")?;
        let key = get("key").unwrap_or_default();
        if !matches!(effect.as_str(), "NoSchedule" | "NoExecute") || TOLERATED_TAINT_KEYS.contains(&key.as_str()) {
            return None;
        }
        let value = get("value").map(|v| format!("={v}")).unwrap_or_default();
        let why = match key.as_str() {
            "node.kubernetes.io/not-ready" | "node.kubernetes.io/unreachable" => "the node is not ready",
            "node.kubernetes.io/unschedulable" => "the node is cordoned",
            k if k.starts_with("node-role.kubernetes.io/") => "a control-plane node",
            _ => "trial pods carry no toleration for it unless `environment.pod_spec` adds one",
        };
        Some((format!("tainted `{key}{value}:{effect}` ({why})"), t))
    })
}

/// The count a node advertises for an extended resource, and where; a
/// count written but not a whole number of GPUs is reported (and the
/// other section not consulted: the node's count is unknown).
fn resource(tree: &Tree, item: NodeId, name: &str, issues: &mut Vec<InventoryIssue>) -> Option<(u32, NodeId)> {
    let n = ["allocatable", "capacity"]
        .iter()
        .find_map(|section| child_path(tree, item, &["status", section, name]))?;
    count_at(tree, n, &format!("status: {name}"), issues).map(|c| (c, n))
}

/// The count written at `n`, or an issue saying why it is not one.
fn count_at(tree: &Tree, n: NodeId, what: &str, issues: &mut Vec<InventoryIssue>) -> Option<u32> {
    let written = scalar(tree, n);
    match written.as_deref().and_then(parse_u32) {
        Some(c) => Some(c),
        None => {
            issues.push(InventoryIssue::BadCount {
                at: tree.span(n),
                written: written.unwrap_or_else(|| yaml::type_name(tree.value(n)).to_string()),
                what: what.to_string(),
            });
            None
        }
    }
}

fn label_u32(tree: &Tree, labels: &Labels, key: &str, issues: &mut Vec<InventoryIssue>) -> Option<u32> {
    let (_, n) = labels.get(key)?;
    count_at(tree, *n, &format!("label {key}"), issues)
}

fn gpus(
    file: FileId,
    tree: &Tree,
    item: NodeId,
    node: &str,
    labels: &Labels,
    issues: &mut Vec<InventoryIssue>,
) -> Vec<InvGpu> {
    let at = |id: NodeId| Loc {
        file,
        span: tree.span(id),
    };
    let mut out = Vec::new();
    let counted = resource(tree, item, RESOURCE_GPU, issues);
    let count = counted
        .map(|(c, _)| c)
        .or_else(|| label_u32(tree, labels, "nvidia.com/gpu.count", issues))
        .or_else(|| label_u32(tree, labels, "gpu.count", issues));
    let memory = labels.get("nvidia.com/gpu.memory").and_then(|(v, _)| parse_u64(v));
    let number = |key: &str| labels.get(key).and_then(|(v, _)| parse_u32(v));
    let cc = match (
        number("nvidia.com/gpu.compute.major"),
        number("nvidia.com/gpu.compute.minor"),
    ) {
        (Some(major), Some(minor)) => Some((major, minor)),
        _ => None,
    };
    let mig_products: Vec<(&String, &(String, NodeId))> = labels
        .iter()
        .filter(|(k, _)| k.starts_with("nvidia.com/mig-") && k.ends_with(".product"))
        .collect();

    // Whole GPUs (or single-strategy MIG slices): product label, else gpu.type.
    let candidates: Vec<(&str, &(String, NodeId))> = [LABEL_PRODUCT, LABEL_GPU_TYPE]
        .into_iter()
        .filter_map(|k| labels.get(k).map(|v| (k, v)))
        .collect();
    let chosen = candidates
        .iter()
        .find(|(_, (v, _))| catalog::resolve_quietly(v).resolution.is_known())
        .or(candidates.first());
    let count = count.unwrap_or(0);
    match chosen {
        Some((key, (value, id))) if count > 0 || mig_products.is_empty() => {
            let gpu = build_gpu(value, Some(key.to_string()), count, memory, cc, at(*id));
            if !gpu.is_known() {
                for (key, (value, id)) in &candidates {
                    issues.push(InventoryIssue::UnknownGpu {
                        at: tree.span(*id),
                        label: value.clone(),
                        source: GpuSource::Label(key.to_string(), node.to_string()),
                        count,
                    });
                }
            }
            out.push(gpu);
        }
        Some(_) => {}
        None if count > 0 => {
            let span = counted.map_or_else(|| tree.span(item), |(_, id)| tree.span(id));
            issues.push(InventoryIssue::UnlabelledGpus {
                at: span,
                node: node.to_string(),
                count,
            });
        }
        None => {}
    }

    // MIG slices of the mixed strategy: `nvidia.com/mig-<profile>.product`.
    for (key, (value, id)) in mig_products {
        let prefix = key.trim_end_matches(".product");
        let profile = prefix.trim_start_matches("nvidia.com/mig-");
        let count = resource(tree, item, prefix, issues)
            .map(|(c, _)| c)
            .or_else(|| label_u32(tree, labels, &format!("{prefix}.count"), issues))
            .unwrap_or(0);
        let memory = labels.get(&format!("{prefix}.memory")).and_then(|(v, _)| parse_u64(v));
        let label = if value.to_ascii_lowercase().contains("-mig-") {
            value.clone()
        } else {
            format!("{value}-MIG-{profile}")
        };
        let gpu = build_gpu(&label, Some(key.clone()), count, memory, cc, at(*id));
        if !gpu.is_known() {
            issues.push(InventoryIssue::UnknownGpu {
                at: tree.span(*id),
                label: value.clone(),
                source: GpuSource::Label(key.clone(), node.to_string()),
                count,
            });
        }
        out.push(gpu);
    }
    out
}
