//! Unit tests of the inventory readers (declared under `#[cfg(test)]` by the
//! parent module).

use super::*;
use crate::diagnostic::{Diagnostic, Severity};

/// Schedulable GPUs of `inv` that serve a request for `requested`.
fn count_matching(inv: &Inventory, requested: &str) -> u32 {
    per_node_matching(inv, requested).sum()
}

/// The most GPUs serving `requested` that one schedulable node has.
fn max_per_node_matching(inv: &Inventory, requested: &str) -> u32 {
    per_node_matching(inv, requested).max().unwrap_or(0)
}

fn per_node_matching<'a>(inv: &'a Inventory, requested: &'a str) -> impl Iterator<Item = u32> + 'a {
    inv.nodes.iter().map(move |n| {
        n.gpus
            .iter()
            .filter(|g| g.is_known() && catalog::serves(requested, &g.offered_name()))
            .map(|g| g.count)
            .sum()
    })
}

/// Known schedulable GPUs per label as the inventory names them.
fn supply(inv: &Inventory) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    for g in inv.nodes.iter().flat_map(|n| &n.gpus).filter(|g| g.is_known()) {
        *out.entry(g.label.clone()).or_default() += g.count;
    }
    out
}

fn total_gpus(inv: &Inventory) -> u32 {
    supply(inv).values().sum()
}

use crate::hardware::catalog::Architecture;

/// Reads `text` as the inventory of a project whose config does not
/// parse (so the pipeline's rules stay out of it): the inventory and the
/// diagnostics of the file, as a user sees them.
fn read(text: &str) -> (Option<Inventory>, Vec<Diagnostic>) {
    read_with(text, &Budgets::default())
}

fn read_with(text: &str, budgets: &Budgets) -> (Option<Inventory>, Vec<Diagnostic>) {
    let project = crate::project::Project {
        models: Some(Vec::new()),
        inventory: Some(crate::project::Input {
            name: "inventory".into(),
            bytes: text.as_bytes().to_vec(),
        }),
        ..crate::project::Project::config_only("const.yaml", "")
    };
    let options = crate::compile::Options {
        budgets: *budgets,
        ..Default::default()
    };
    let compiled = crate::compile::compile(&project, &options);
    let diags = compiled
        .diagnostics
        .into_iter()
        .filter(|d| d.file == FileId(1))
        .collect();
    (compiled.inventory, diags)
}

/// Reads an inventory that must come without diagnostics.
fn clean(text: &str) -> Inventory {
    let (inv, diags) = read(text);
    assert!(diags.is_empty(), "unexpected diagnostics: {diags:#?}");
    match inv {
        Some(inv) => inv,
        None => panic!("no inventory"),
    }
}

fn node<'a>(inv: &'a Inventory, name: &str) -> &'a InvNode {
    match inv.nodes.iter().find(|n| n.name == name) {
        Some(n) => n,
        None => panic!(
            "no node {name} in {:?}",
            inv.nodes.iter().map(|n| &n.name).collect::<Vec<_>>()
        ),
    }
}

fn only_gpu<'a>(inv: &'a Inventory, name: &str) -> &'a InvGpu {
    match node(inv, name).gpus.as_slice() {
        [g] => g,
        other => panic!("node {name} has {} GPU groups", other.len()),
    }
}

fn text_at(text: &str, span: Span) -> &str {
    text.get(span.start..span.end).unwrap_or("<bad span>")
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or("").matches('\n').count() + 1
}

fn codes(diags: &[Diagnostic]) -> Vec<&'static str> {
    diags.iter().map(|d| d.code).collect()
}

const NODELIST: &str = r#"{
  "apiVersion": "v1",
  "kind": "NodeList",
  "items": [
    {
      "kind": "Node",
      "metadata": {
        "name": "h100-node-01",
        "labels": {
          "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
          "nvidia.com/gpu.count": "8",
          "nvidia.com/gpu.memory": "81559",
          "nvidia.com/gpu.compute.major": "9",
          "nvidia.com/gpu.compute.minor": "0"
        }
      },
      "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
      "status": {"allocatable": {"cpu": "191", "nvidia.com/gpu": "8"}, "capacity": {"nvidia.com/gpu": "8"}}
    },
    {
      "kind": "Node",
      "metadata": {
        "name": "a100-node-01",
        "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.family": "ampere"}
      },
      "spec": {},
      "status": {"allocatable": {"nvidia.com/gpu": "2"}}
    },
    {
      "kind": "Node",
      "metadata": {"name": "a100-node-02", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}},
      "spec": {"unschedulable": true, "taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]},
      "status": {"allocatable": {"nvidia.com/gpu": "8"}}
    },
    {
      "kind": "Node",
      "metadata": {"name": "gpu-node-01", "labels": {"gpu.type": "h100"}},
      "status": {"capacity": {"nvidia.com/gpu": "4"}}
    },
    {
      "kind": "Node",
      "metadata": {
        "name": "mig-node-01",
        "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB-MIG-3g.40gb", "nvidia.com/gpu.count": "8"}
      },
      "status": {}
    }
  ]
}"#;

#[test]
fn nodelist_mixed_cluster() {
    let inv = clean(NODELIST);
    assert_eq!(inv.format, InventoryFormat::NodeList);
    let names: Vec<&str> = inv.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["h100-node-01", "a100-node-01", "gpu-node-01", "mig-node-01"]);

    // GFD-labelled H100s: exact entry, reported facts, located at the label value.
    let h100 = only_gpu(&inv, "h100-node-01");
    assert_eq!(h100.gpu.map(|g| g.id.as_str()), Some("h100-sxm5-80gb"));
    assert_eq!(h100.family, Some("h100"));
    assert_eq!(h100.count, 8);
    assert_eq!(h100.memory_mib, Some(81559));
    assert_eq!(h100.compute_capability, Some((9, 0)));
    assert_eq!(h100.label_key.as_deref(), Some(LABEL_PRODUCT));
    assert_eq!(text_at(NODELIST, h100.loc.span), "\"NVIDIA-H100-80GB-HBM3\"");
    assert!(text_at(NODELIST, node(&inv, "h100-node-01").loc.span).contains("h100-node-01"));
    assert_eq!(
        node(&inv, "h100-node-01")
            .labels
            .get("nvidia.com/gpu.count")
            .map(String::as_str),
        Some("8")
    );

    // Only a plain `gpu.type` label; the count from `status.capacity`.
    let typed = only_gpu(&inv, "gpu-node-01");
    assert_eq!((typed.label.as_str(), typed.count), ("h100", 4));
    assert_eq!(typed.label_key.as_deref(), Some(LABEL_GPU_TYPE));
    assert_eq!((typed.gpu, typed.family), (None, Some("h100")));

    // MIG slices: the count from the `nvidia.com/gpu.count` label.
    let mig = only_gpu(&inv, "mig-node-01");
    assert_eq!(mig.mig.as_deref(), Some("3g.40gb"));
    assert_eq!(mig.gpu.map(|g| g.id.as_str()), Some("a100-sxm4-80gb"));
    assert_eq!(mig.count, 8);
    assert_eq!(mig.memory_mib, None);

    // The cordoned node is skipped, with its reason and cause.
    assert_eq!(inv.skipped.len(), 1);
    let skipped = &inv.skipped[0];
    assert_eq!(skipped.name, "a100-node-02");
    assert!(skipped.reason.contains("cordoned"), "{}", skipped.reason);
    assert_eq!(text_at(NODELIST, skipped.cause.span), "true");
    assert_eq!(skipped.gpus.first().map(|g| g.count), Some(8));

    assert_eq!(count_matching(&inv, "h100"), 12);
    // The node labelled only `gpu.type=h100` serves a variant request too
    // (catalog::serves), as the allocation counts it.
    assert_eq!(count_matching(&inv, "h100-sxm"), 12);
    assert_eq!(max_per_node_matching(&inv, "h100"), 8);
    assert_eq!(count_matching(&inv, "a100"), 2);
    assert_eq!(count_matching(&inv, "a100-40g"), 2);
    assert_eq!(count_matching(&inv, "a100-80g"), 0);
    assert_eq!(count_matching(&inv, "NVIDIA-A100-SXM4-80GB-MIG-3g.40gb"), 8);
    assert_eq!(count_matching(&inv, "a100-80g-mig-3g.40gb"), 8);
    assert_eq!(count_matching(&inv, "t4"), 0);
    assert_eq!(count_matching(&inv, "not-a-gpu"), 0);
    let supply = supply(&inv);
    assert_eq!(supply.get("NVIDIA-H100-80GB-HBM3"), Some(&8));
    assert_eq!(supply.get("NVIDIA-A100-SXM4-40GB"), Some(&2));
    assert_eq!(supply.get("h100"), Some(&4));
    assert_eq!(total_gpus(&inv), 22);
}

#[test]
fn sample_nodelist_file() {
    let text = include_str!("../../../tests/inventories/nodelist-mixed.json");
    let inv = clean(text);
    assert_eq!(inv.format, InventoryFormat::NodeList);
    // `nvidia.com/gpu.family: ampere` on an L4 is not believed.
    let l4 = only_gpu(&inv, "l4-node-01");
    assert_eq!(l4.gpu.map(|g| g.architecture), Some(Architecture::Ada));
    assert_eq!(l4.compute_capability, Some((8, 9)));
    // The `nvidia.com/gpu` taint is tolerated, the cordon and the control-plane taint are not.
    assert_eq!(only_gpu(&inv, "h100-node-01").count, 8);
    let skipped: Vec<&str> = inv.skipped.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(skipped, ["a100-node-02", "control-plane-01"]);
    assert!(inv.skipped[1]
        .reason
        .contains("node-role.kubernetes.io/control-plane:NoSchedule"));
    assert_eq!(count_matching(&inv, "h100"), 12);
    assert_eq!(count_matching(&inv, "a100"), 2);
    assert_eq!(count_matching(&inv, "l4"), 1);
}

#[test]
fn kubectl_yaml_output_and_single_node() {
    let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    labels:\n      nvidia.com/gpu.product: Tesla-T4\n  status:\n    allocatable:\n      nvidia.com/gpu: \"4\"\n";
    let inv = clean(list);
    assert_eq!(inv.format, InventoryFormat::NodeList);
    assert_eq!(only_gpu(&inv, "n1").gpu.map(|g| g.id.as_str()), Some("t4"));
    assert_eq!(count_matching(&inv, "t4"), 4);

    let single = "kind: Node\nmetadata:\n  name: n2\n  labels: {gpu.type: l40s, nvidia.com/gpu.count: '2'}\n";
    let inv = clean(single);
    assert_eq!(only_gpu(&inv, "n2").count, 2);
    assert_eq!(count_matching(&inv, "l40s"), 2);

    // A NoExecute taint of a not-ready node skips it; PreferNoSchedule does not.
    let tainted = r#"{"kind": "NodeList", "items": [
          {"metadata": {"name": "a", "labels": {"gpu.type": "a10"}},
           "spec": {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]},
           "status": {"allocatable": {"nvidia.com/gpu": "1"}}},
          {"metadata": {"name": "b", "labels": {"gpu.type": "a10"}},
           "spec": {"taints": [{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]},
           "status": {"allocatable": {"nvidia.com/gpu": 1}}}]}"#;
    let inv = clean(tainted);
    assert_eq!(inv.skipped.len(), 1);
    assert!(inv.skipped[0].reason.contains("not ready"), "{}", inv.skipped[0].reason);
    assert_eq!(count_matching(&inv, "a10"), 1);
}

#[test]
fn nodelist_mig_mixed_strategy() {
    let text = r#"{"kind": "NodeList", "items": [{"metadata": {"name": "m", "labels": {
            "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
            "nvidia.com/mig-1g.5gb.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
            "nvidia.com/mig-1g.5gb.count": "14",
            "nvidia.com/mig-3g.20gb.product": "NVIDIA-A100-SXM4-40GB"}},
          "status": {"allocatable": {"nvidia.com/gpu": "0", "nvidia.com/mig-1g.5gb": "14", "nvidia.com/mig-3g.20gb": "2"}}}]}"#;
    let inv = clean(text);
    let gpus = &node(&inv, "m").gpus;
    let summary: Vec<(&str, Option<&str>, u32)> = gpus
        .iter()
        .map(|g| (g.label.as_str(), g.mig.as_deref(), g.count))
        .collect();
    assert_eq!(
        summary,
        [
            ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", Some("1g.5gb"), 14),
            ("NVIDIA-A100-SXM4-40GB-MIG-3g.20gb", Some("3g.20gb"), 2),
        ]
    );
    assert_eq!(count_matching(&inv, "a100"), 0);
    assert_eq!(count_matching(&inv, "a100-40g-mig-1g.5gb"), 14);
}

const CLUSTER_YAML: &str = include_str!("../../../tests/inventories/cluster.yaml");

#[test]
fn stagec_yaml() {
    let inv = clean(CLUSTER_YAML);
    assert_eq!(inv.format, InventoryFormat::Stagec);
    let names: Vec<&str> = inv.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["gpu-node-01", "gpu-node-02", "gpu-node-03", "cpu-node-01"]);
    let a100 = only_gpu(&inv, "gpu-node-01");
    assert_eq!((a100.label.as_str(), a100.count), ("a100-40g", 8));
    assert_eq!(a100.label_key.as_deref(), Some("gpu.type"));
    assert_eq!(a100.family, Some("a100"));
    assert_eq!(text_at(CLUSTER_YAML, a100.loc.span), "a100-40g");
    assert_eq!(text_at(CLUSTER_YAML, node(&inv, "gpu-node-01").loc.span), "gpu-node-01");
    assert_eq!(
        node(&inv, "gpu-node-01").labels.get("gpu.type").map(String::as_str),
        Some("a100")
    );
    let mixed = &node(&inv, "gpu-node-02").gpus;
    assert_eq!(mixed.len(), 2);
    assert_eq!(
        mixed.first().and_then(|g| g.gpu).map(|g| g.id.as_str()),
        Some("h100-sxm5-80gb")
    );
    assert_eq!(mixed.first().and_then(|g| g.label_key.clone()), None);
    // `a100-sxm` + memory picks the 80 GB part.
    let sized = only_gpu(&inv, "gpu-node-03");
    assert_eq!(sized.gpu.map(|g| g.id.as_str()), Some("a100-sxm4-80gb"));
    assert_eq!(sized.compute_capability, Some((8, 0)));
    assert!(node(&inv, "cpu-node-01").gpus.is_empty());
    // `schedulable: false`.
    assert_eq!(inv.skipped.len(), 1);
    assert_eq!(inv.skipped[0].name, "gpu-node-04");
    assert_eq!(text_at(CLUSTER_YAML, inv.skipped[0].cause.span), "false");

    assert_eq!(count_matching(&inv, "a100"), 16);
    assert_eq!(count_matching(&inv, "a100-40g"), 8);
    assert_eq!(count_matching(&inv, "a100-80g"), 8);
    assert_eq!(count_matching(&inv, "h100"), 4);
    assert_eq!(max_per_node_matching(&inv, "a100"), 8);
    assert_eq!(count_matching(&inv, "l4"), 2);
}

#[test]
fn stagec_yaml_schema_errors_are_located() {
    let text = "nodes:\n  - name: n1\n    gpus: {type: a100, count: 0}\n  - name: n2\n    gpu: {type: a100, count: 1}\n  - name: n3\n    gpus: [{type: h100, count: 2, extra: 1}]\n";
    let (inv, diags) = read(text);
    assert!(inv.is_none());
    let found: Vec<(&str, usize)> = diags.iter().map(|d| (d.code, line_of(text, d.span.start))).collect();
    assert!(found.contains(&("C105", 3)), "{diags:#?}");
    assert!(found.contains(&("C101", 5)), "{diags:#?}");
    assert!(found.contains(&("C101", 7)), "{diags:#?}");
    assert!(diags.iter().all(|d| d.severity == Severity::Error));

    let (inv, diags) = read("nodes:\n  - gpus: {type: a100, count: 2}\n");
    assert!(inv.is_none());
    assert_eq!(codes(&diags), ["C103"]);
    assert_eq!(
        diags.first().map(|d| line_of("nodes:\n  - gpus", d.span.start)),
        Some(2)
    );
}

#[test]
fn nvidia_smi_csv() {
    let with_units = "index, name, compute_cap, memory.total [MiB]\n0, NVIDIA H200, 9.0, 143771 MiB\n1, NVIDIA H200, 9.0, 143771 MiB\n";
    let without_units = "index, name, compute_cap, memory.total [MiB]\r\n0, NVIDIA H200, 9.0, 143771\r\n1, NVIDIA H200, 9.0, 143771\r\n";
    let no_header = "0, NVIDIA H200, 9.0, 143771 MiB\n1, NVIDIA H200, 9.0, 143771 MiB\n";
    let neither = "0, NVIDIA H200, 9.0, 143771\n1, NVIDIA H200, 9.0, 143771\n";
    let reordered = "memory.total [MiB], name, index\n143771 MiB, NVIDIA H200, 0\n143771 MiB, NVIDIA H200, 1\n";
    for text in [with_units, without_units, no_header, neither, reordered] {
        let inv = clean(text);
        assert_eq!(inv.format, InventoryFormat::NvidiaSmi, "{text}");
        assert!(inv.skipped.is_empty());
        let g = only_gpu(&inv, NVIDIA_SMI_NODE);
        assert_eq!(g.gpu.map(|g| g.id.as_str()), Some("h200-sxm-141gb"), "{text}");
        assert_eq!(g.count, 2, "{text}");
        assert_eq!(g.memory_mib, Some(143771), "{text}");
        assert_eq!(g.compute_capability, Some((9, 0)), "{text}");
        assert_eq!(g.label_key, None);
        assert_eq!(text_at(text, g.loc.span), "NVIDIA H200");
        assert_eq!(count_matching(&inv, "h200"), 2);
        assert_eq!(max_per_node_matching(&inv, "h200"), 2);
    }
    // `--query-gpu=name --format=csv`: one column.
    let inv = clean("name\nNVIDIA A10G\nNVIDIA A10G\nNVIDIA A10G\nNVIDIA A10G\n");
    assert_eq!(count_matching(&inv, "a10g"), 4);
    let inv = clean(include_str!("../../../tests/inventories/nvidia-smi-h100x8.csv"));
    assert_eq!(count_matching(&inv, "h100-sxm"), 8);
    assert_eq!(supply(&inv).get("NVIDIA H100 80GB HBM3"), Some(&8));

    // A malformed row is reported and left out; the rest is read.
    let text = "index, name, compute_cap, memory.total [MiB]\n0, NVIDIA L4, 8.9, 23034 MiB\n1, NVIDIA L4\n";
    let (inv, diags) = read(text);
    assert_eq!(codes(&diags), ["P301"]);
    assert_eq!(diags.first().map(|d| line_of(text, d.span.start)), Some(3));
    assert_eq!(inv.map(|i| count_matching(&i, "l4")), Some(1));
}

#[test]
fn unrecognised_content_is_p301() {
    let kubectl_table =
        "NAME           STATUS   ROLES    AGE   VERSION\ngpu-node-01    Ready    <none>   42d   v1.29.3\n";
    for text in [
        "",
        "hello world\n",
        kubectl_table,
        "[1, 2, 3]\n",
        "foo: bar\n",
        "{\"kind\": \"PodList\", \"items\": []}",
        "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n",
        "No devices were found\n",
        "nodes: [\n",
    ] {
        let (inv, diags) = read(text);
        assert!(inv.is_none(), "{text:?}");
        let p301: Vec<&Diagnostic> = diags.iter().filter(|d| d.code == "P301").collect();
        assert_eq!(p301.len(), 1, "{text:?}: {diags:#?}");
        // At the start; a file that does not parse, where reading stopped.
        let at = if text == "nodes: [\n" { text.len() } else { 0 };
        assert_eq!(p301.first().map(|d| d.span.start), Some(at), "{text:?}");
        // No other finding quotes a file that is not an inventory.
        assert_eq!(diags.len(), 1, "{text:?}: {diags:#?}");
        assert!(p301
            .iter()
            .all(|d| d.help.as_deref().is_some_and(|h| h.contains("nvidia-smi"))));
    }
    let (_, diags) = read(kubectl_table);
    assert!(diags.iter().any(|d| d.message.contains("kubectl get nodes -o json")));
    // Bytes that are not text stop before the inventory reader.
    let (inv, diags) = read("\u{0}\u{1}binary");
    assert!(inv.is_none());
    assert_eq!(codes(&diags), ["Y006"]);
}

#[test]
fn unknown_gpu_is_p302() {
    let text = r#"{"kind": "NodeList", "items": [{"metadata": {"name": "x",
            "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-X"}},
            "status": {"allocatable": {"nvidia.com/gpu": "8"}}}]}"#;
    let (inv, diags) = read(text);
    assert_eq!(codes(&diags), ["P302"]);
    let d = &diags[0];
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(text_at(text, d.span), "\"NVIDIA-A100-SXM4-40GB-X\"");
    assert!(d.help.as_deref().is_some_and(|h| h.contains("did you mean")), "{d:#?}");
    let inv = inv.unwrap_or_else(|| panic!("no inventory"));
    assert!(supply(&inv).is_empty());
    assert_eq!(count_matching(&inv, "a100"), 0);
    assert!(!only_gpu(&inv, "x").is_known());

    // GPUs with no type label at all.
    let text = r#"{"kind": "NodeList", "items": [{"metadata": {"name": "y"}, "status": {"allocatable": {"nvidia.com/gpu": "4"}}}]}"#;
    let (_, diags) = read(text);
    assert_eq!(codes(&diags), ["P302"]);
    assert_eq!(diags.first().map(|d| text_at(text, d.span)), Some("\"4\""));

    let (inv, diags) = read("nodes:\n  - name: n\n    gpus: {type: a1000, count: 2}\n");
    assert_eq!(codes(&diags), ["P302"]);
    assert_eq!(inv.map(|i| total_gpus(&i)), Some(0));

    let text = "index, name, compute_cap, memory.total [MiB]\n0, NVIDIA Z9000, 9.9, 1000 MiB\n";
    let (_, diags) = read(text);
    assert_eq!(codes(&diags), ["P302"]);
    assert_eq!(diags.first().map(|d| text_at(text, d.span)), Some("NVIDIA Z9000"));

    // Skipped nodes get no warning.
    let text = "nodes:\n  - name: n\n    gpus: {type: a1000, count: 2}\n    schedulable: false\n";
    assert_eq!(clean(text).skipped.len(), 1);
}

#[test]
fn budgets_apply() {
    let budgets = Budgets {
        max_bytes: 10,
        ..Budgets::default()
    };
    let (inv, diags) = read_with("nodes: []\n# padding\n", &budgets);
    assert!(inv.is_none());
    assert_eq!(codes(&diags), ["Y005"]);
    let lol = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nnodes: []\n";
    let (inv, diags) = read(lol);
    assert!(inv.is_none());
    assert!(
        codes(&diags).contains(&crate::rules::alias_budget::ALIAS_BUDGET.code),
        "{diags:#?}"
    );
}
