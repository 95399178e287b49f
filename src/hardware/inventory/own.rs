//! The reader of stagec's own inventory YAML (`nodes:` entries), checked
//! against `schemas/inventory.schema.json`.

use super::*;

pub(super) fn read(
    file: FileId,
    doc: &mut Document,
    root: NodeId,
    budgets: &Budgets,
    issues: &mut Vec<InventoryIssue>,
) -> Option<Inventory> {
    if !doc.within_alias_budget(budgets) {
        return None;
    }
    let text_start = |doc: &Document| doc.tree.span(root);
    let first_line = text_start(doc);
    let at_start = Span::new(0, first_line.start.min(first_line.end));
    let Some(json) = doc.tree.to_json(root, doc.tree.len().saturating_add(budgets.max_nodes)) else {
        issues.push(InventoryIssue::NotAnInventory {
            at: at_start,
            why: NotAnInventory::TooDeep,
        });
        return None;
    };
    let findings = {
        let tree = &doc.tree;
        schema::findings(tree, &json, inventory_index, InventoryValidator::iter_errors(&json))
    };
    let failed = !findings.is_empty();
    doc.findings = findings;
    if failed {
        doc.json = Some(json);
        return None;
    }
    let spec: InventoryFile = match serde_json::from_value(json.clone()) {
        Ok(spec) => spec,
        Err(e) => {
            issues.push(InventoryIssue::NotAnInventory {
                at: at_start,
                why: NotAnInventory::Unreadable(e.to_string()),
            });
            return None;
        }
    };
    doc.json = Some(json);
    let tree = &doc.tree;
    let loc_at = |path: &[PathSeg]| Loc {
        file,
        span: schema::value_span(tree, path),
    };
    let mut inv = Inventory {
        format: InventoryFormat::Stagec,
        nodes: Vec::new(),
        skipped: Vec::new(),
    };
    for (i, node) in spec.nodes.iter().enumerate() {
        let base = [PathSeg::Key("nodes".into()), PathSeg::Index(i)];
        let at = |rest: &[PathSeg]| -> Vec<PathSeg> { base.iter().chain(rest).cloned().collect() };
        let labels: BTreeMap<String, String> = node
            .labels
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.text()))
            .collect();
        let groups: Vec<(&GpuGroup, Vec<PathSeg>)> = match &node.gpus {
            None => Vec::new(),
            Some(NodeGpus::One(g)) => vec![(g, at(&[PathSeg::Key("gpus".into())]))],
            Some(NodeGpus::Many(gs)) => gs
                .iter()
                .enumerate()
                .map(|(j, g)| (g, at(&[PathSeg::Key("gpus".into()), PathSeg::Index(j)])))
                .collect(),
        };
        let schedulable = node.schedulable.unwrap_or(true);
        let mut gpus = Vec::new();
        for (group, path) in groups {
            let type_path: Vec<PathSeg> = path.iter().cloned().chain([PathSeg::Key("type".into())]).collect();
            let loc = loc_at(&type_path);
            let mut gpu = build_gpu(&group.gpu_type, None, group.count, group.memory_mib, None, loc);
            gpu.label_key = selector_label(&labels, &gpu);
            if !gpu.is_known() && schedulable {
                issues.push(InventoryIssue::UnknownGpu {
                    at: loc.span,
                    label: group.gpu_type.clone(),
                    source: GpuSource::Node(node.name.clone()),
                    count: group.count,
                });
            }
            gpus.push(gpu);
        }
        let name_loc = loc_at(&at(&[PathSeg::Key("name".into())]));
        if schedulable {
            let driver = node.driver.clone().map(|value| Located {
                value,
                loc: loc_at(&at(&[PathSeg::Key("driver".into())])),
            });
            inv.nodes.push(InvNode {
                name: node.name.clone(),
                loc: name_loc,
                gpus,
                labels,
                driver,
            });
        } else {
            inv.skipped.push(SkippedNode {
                name: node.name.clone(),
                reason: "marked `schedulable: false`".into(),
                loc: name_loc,
                cause: loc_at(&at(&[PathSeg::Key("schedulable".into())])),
                gpus,
            });
        }
    }
    Some(inv)
}

/// The label of a stagec-YAML node that selects this GPU type: one whose
/// value, as a request, these GPUs satisfy (`gpu.type: a100` for `a100-40g`).
/// GFD's product key first, then `gpu.type`, then the others by name.
fn selector_label(labels: &BTreeMap<String, String>, gpu: &InvGpu) -> Option<String> {
    let preferred = [LABEL_PRODUCT, LABEL_GPU_TYPE];
    let ordered = preferred
        .iter()
        .filter_map(|k| labels.get_key_value(*k))
        .chain(labels.iter().filter(|(k, _)| !preferred.contains(&k.as_str())));
    ordered
        .filter(|(_, v)| gpu.is_known() && catalog::serves(v, &gpu.offered_name()))
        .map(|(k, _)| k.clone())
        .next()
}
