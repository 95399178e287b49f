//! Unit tests of the GPU probe (declared under `#[cfg(test)]` by the
//! parent module).

use super::*;

fn per_node(inv: &Inventory, requested: &str) -> Vec<u32> {
    inv.nodes
        .iter()
        .map(|n| {
            n.gpus
                .iter()
                .filter(|g| g.is_known() && catalog::serves(requested, &g.offered_name()))
                .map(|g| g.count)
                .sum()
        })
        .collect()
}

fn count_matching(inv: &Inventory, requested: &str) -> u32 {
    per_node(inv, requested).iter().sum()
}

fn max_per_node_matching(inv: &Inventory, requested: &str) -> u32 {
    per_node(inv, requested).into_iter().max().unwrap_or(0)
}

fn total_gpus(inv: &Inventory) -> u32 {
    inv.nodes
        .iter()
        .flat_map(|n| &n.gpus)
        .filter(|g| g.is_known())
        .map(|g| g.count)
        .sum()
}

const H100X8: &str = include_str!("../../../tests/probes/h100x8.json");
const MIXED: &str = include_str!("../../../tests/probes/mixed-a100-h100.json");
const NO_DRIVER: &str = include_str!("../../../tests/probes/no-driver.json");

fn load(json: &str) -> ProbeReport {
    load_recorded(json).unwrap_or_else(|e| panic!("fixture does not load: {e}"))
}

fn ids(report: &ProbeReport) -> Vec<Option<&str>> {
    report.devices.iter().map(|d| d.catalog_id.as_deref()).collect()
}

#[test]
fn fixtures_load_and_resolve_to_catalog_ids() {
    let h100 = load(H100X8);
    assert_eq!(h100.devices.len(), 8);
    assert_eq!(ids(&h100), vec![Some("h100-sxm5-80gb"); 8]);
    assert_eq!(h100.driver, Some(DriverInfo::from_version(12040)));
    assert_eq!(h100.driver.as_ref().map(|d| d.cuda_version.as_str()), Some("12.4"));
    assert!(h100.reason.is_none());
    for (i, row) in h100.peer_access.iter().enumerate() {
        for (j, &ok) in row.iter().enumerate() {
            assert_eq!(ok, i != j, "h100x8 peer {i} → {j}");
        }
    }
    // The recorded catalog ids agree with the recomputed ones.
    let raw: ProbeReport = serde_json::from_str(H100X8).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ids(&raw), ids(&h100));

    let mixed = load(MIXED);
    let mut expected = vec![Some("a100-sxm4-40gb"); 4];
    expected.extend([Some("h100-sxm5-80gb"); 4]);
    assert_eq!(ids(&mixed), expected);
    for (i, row) in mixed.peer_access.iter().enumerate() {
        for (j, &ok) in row.iter().enumerate() {
            assert_eq!(ok, i != j && (i < 4) == (j < 4), "mixed peer {i} → {j}");
        }
    }
    assert_eq!(
        mixed.devices.first().and_then(|d| d.catalog_gpu()).map(|g| g.memory_gb),
        Some(40)
    );

    let none = load(NO_DRIVER);
    assert_eq!(none, ProbeReport::no_driver());
}

#[test]
fn json_shape_round_trips() {
    let none = serde_json::to_value(ProbeReport::no_driver()).unwrap_or_default();
    assert_eq!(
        none,
        serde_json::json!({
            "devices": [], "driver": null, "environment": {}, "kernel_driver": null, "libcuda": null,
            "notes": [], "peer_access": [], "reason": NO_DRIVER_REASON
        })
    );
    // Keys in alphabetical order, as a sorted `serde_json::Value` writes them.
    let text = ProbeReport::no_driver().to_json();
    let sorted = serde_json::to_string_pretty(&none).unwrap_or_default();
    assert_eq!(text, sorted);
    // The first recordings lack the newer keys and still load.
    assert_eq!(load(NO_DRIVER), ProbeReport::no_driver());
    for fixture in [H100X8, MIXED, NO_DRIVER] {
        let report = load(fixture);
        assert_eq!(load(&report.to_json()), report);
    }
    // A recorded report with devices out of order is normalised.
    let mut report = load(MIXED);
    report.devices.reverse();
    report.peer_access.reverse();
    for row in &mut report.peer_access {
        row.reverse();
    }
    assert_eq!(load(&report.to_json()), load(MIXED));
}

#[test]
fn malformed_recordings_are_refused() {
    let mut report = load(H100X8);
    report.peer_access.pop();
    assert!(load_recorded(&report.to_json()).is_err_and(|e| e.contains("8×8")));
    let mut report = load(H100X8);
    if let Some(d) = report.devices.get_mut(1) {
        d.ordinal = 0;
    }
    assert!(load_recorded(&report.to_json()).is_err_and(|e| e.contains("ordinal 0")));
    assert!(load_recorded("{\"devices\": 3}").is_err_and(|e| e.starts_with("not a stagec probe report")));
    assert!(load_recorded("nvidia-smi").is_err());
}

#[test]
fn fingerprint_is_stable_and_ignores_free_memory() {
    let h100 = load(H100X8);
    let fp = h100.fingerprint();
    assert_eq!(fp.len(), 64);
    assert!(fp.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    assert_eq!(fp, load(H100X8).fingerprint());

    let mut changed = h100.clone();
    for d in &mut changed.devices {
        d.free_memory_bytes = d.free_memory_bytes.map(|f| f / 2);
    }
    changed.reason = Some("something".into());
    changed.devices[3].pci_bus_id = "0000:FF:00.0".into();
    changed.peer_access = Vec::new();
    changed.notes.push("a note".into());
    changed.libcuda = Some("/usr/lib/x86_64-linux-gnu/libcuda.so.1".into());
    changed
        .environment
        .insert("CUDA_DEVICE_ORDER".into(), "PCI_BUS_ID".into());
    changed.devices[1].compute_mode = Some("exclusive_process".into());
    changed.devices[2]
        .missing
        .insert("free_memory_bytes".into(), "NVML could not be loaded".into());
    assert_eq!(changed.fingerprint(), fp);

    // Renumbered devices (CUDA_VISIBLE_DEVICES=7,6,…, or another
    // CUDA_DEVICE_ORDER) are the same host.
    let mut renumbered = h100.clone();
    renumbered.devices.reverse();
    for (i, d) in renumbered.devices.iter_mut().enumerate() {
        d.ordinal = i as u32;
    }
    assert_ne!(ids_and_uuids(&renumbered), ids_and_uuids(&h100));
    assert_eq!(renumbered.fingerprint(), fp);
    // A subset of the GPUs is not.
    let mut subset = h100.clone();
    subset.devices.truncate(4);
    assert_ne!(subset.fingerprint(), fp);
    // The kernel driver's release counts when known.
    let mut other = h100.clone();
    other.kernel_driver = Some(KernelDriver {
        flavour: None,
        source: "/sys/module/nvidia/version".into(),
        version: "550.54.15".into(),
    });
    let with_kernel = other.fingerprint();
    assert_ne!(with_kernel, fp);
    if let Some(k) = &mut other.kernel_driver {
        k.version = "550.90.07".into();
        k.source = "/proc/driver/nvidia/version".into();
    }
    assert_ne!(other.fingerprint(), with_kernel);

    let mut other = h100.clone();
    other.devices[0].uuid.replace_range(4..5, "f");
    assert_ne!(other.fingerprint(), fp);
    let mut other = h100.clone();
    other.driver = Some(DriverInfo::from_version(12080));
    assert_ne!(other.fingerprint(), fp);
    let mut other = h100.clone();
    other.devices[7].total_memory_bytes -= MIB;
    assert_ne!(other.fingerprint(), fp);
    let mut other = h100.clone();
    other.devices[2].compute_capability = (9, 1);
    assert_ne!(other.fingerprint(), fp);

    assert_ne!(load(MIXED).fingerprint(), fp);
    assert_eq!(
        ProbeReport::no_driver().fingerprint(),
        ProbeReport::default().fingerprint()
    );
    // Pinned: a change of the hashed text is a deliberate, versioned decision.
    assert_eq!(
        ProbeReport::no_driver().fingerprint(),
        hex_sha256(&format!("{FINGERPRINT_VERSION}\ndriver\tnone\n"))
    );
}

fn ids_and_uuids(report: &ProbeReport) -> Vec<(u32, String)> {
    report.devices.iter().map(|d| (d.ordinal, d.uuid.clone())).collect()
}

fn hex_sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn to_inventory_groups_by_catalog_entry() {
    let inv = load(H100X8).to_inventory_in(FileId(0));
    assert_eq!(inv.format, InventoryFormat::Probe);
    assert_eq!(inv.nodes.len(), 1);
    let node = &inv.nodes[0];
    assert_eq!(node.name, "localhost");
    assert_eq!(node.gpus.len(), 1);
    let g = &node.gpus[0];
    assert_eq!((g.label.as_str(), g.count), ("NVIDIA H100 80GB HBM3", 8));
    assert_eq!(g.gpu.map(|g| g.id.as_str()), Some("h100-sxm5-80gb"));
    assert_eq!(g.compute_capability, Some((9, 0)));
    assert_eq!(g.memory_mib, Some(85_520_809_984 / MIB));
    assert_eq!(count_matching(&inv, "h100"), 8);
    assert_eq!(count_matching(&inv, "h100-sxm"), 8);
    assert_eq!(max_per_node_matching(&inv, "h100"), 8);
    assert_eq!(total_gpus(&inv), 8);

    let inv = load(MIXED).to_inventory_in(FileId(3));
    let gpus = &inv.nodes[0].gpus;
    let summary: Vec<(Option<&str>, u32)> = gpus.iter().map(|g| (g.gpu.map(|g| g.id.as_str()), g.count)).collect();
    assert_eq!(summary, [(Some("a100-sxm4-40gb"), 4), (Some("h100-sxm5-80gb"), 4)]);
    assert!(gpus.iter().all(|g| g.loc.file == FileId(3)));
    assert_eq!(count_matching(&inv, "a100"), 4);
    assert_eq!(count_matching(&inv, "a100-40g"), 4);
    assert_eq!(count_matching(&inv, "a100-80g"), 0);
    assert_eq!(count_matching(&inv, "h100"), 4);
    assert_eq!(total_gpus(&inv), 8);

    let inv = ProbeReport::no_driver().to_inventory_in(FileId(0));
    assert_eq!(inv.nodes.len(), 1);
    assert!(inv.nodes[0].gpus.is_empty());
    assert_eq!(total_gpus(&inv), 0);

    // Unknown devices stay in the node, unresolved, and are not supply.
    let mut report = load(H100X8);
    report.devices.truncate(2);
    report.peer_access.clear();
    for d in &mut report.devices {
        d.name = "NVIDIA Z9000".into();
    }
    let report = load(&report.to_json());
    assert_eq!(ids(&report), [None, None]);
    let inv = report.to_inventory_in(FileId(0));
    assert_eq!(inv.nodes[0].gpus.len(), 1);
    assert_eq!(inv.nodes[0].gpus[0].count, 2);
    assert!(!inv.nodes[0].gpus[0].is_known());
    assert_eq!(total_gpus(&inv), 0);
}

/// Two devices of the recorded 8×H100 host, renamed and resized.
fn two_devices(edit: impl Fn(usize, &mut ProbedDevice)) -> ProbeReport {
    let mut report = load(H100X8);
    report.devices.truncate(2);
    report.peer_access.clear();
    for (i, d) in report.devices.iter_mut().enumerate() {
        edit(i, d);
    }
    load(&report.to_json())
}

#[test]
fn mig_slices_are_never_whole_gpus() {
    let report = two_devices(|i, d| {
        d.name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb".into();
        d.uuid = format!("MIG-8f2b6c1d-3e4a-5b6c-9d7e-0a1b2c3d4e5{i}");
        d.total_memory_bytes = 10_468_982_784;
    });
    let mig = report.devices[0].mig.clone();
    assert_eq!(
        mig,
        Some(MigSlice {
            compute_slices: Some(1),
            memory_gb: Some(10),
            parent_name: "NVIDIA H100 80GB HBM3".into(),
            profile: "1g.10gb".into(),
        })
    );
    // The catalog entry is the GPU the slice is carved from …
    assert_eq!(ids(&report), [Some("h100-sxm5-80gb"); 2]);
    // … but the inventory offers slices of that profile, never H100s.
    let inv = report.to_inventory_in(FileId(0));
    let gpus = &inv.nodes[0].gpus;
    assert_eq!(gpus.len(), 1);
    let g = &gpus[0];
    assert_eq!(
        (g.mig.as_deref(), g.count, g.memory_mib),
        (Some("1g.10gb"), 2, Some(10_468_982_784 / MIB))
    );
    assert_eq!(g.gpu.map(|g| g.id.as_str()), Some("h100-sxm5-80gb"));
    assert_eq!(count_matching(&inv, "h100"), 0);
    assert_eq!(count_matching(&inv, "h100-sxm"), 0);
    assert_eq!(count_matching(&inv, "h100-80g"), 0);
    assert_eq!(count_matching(&inv, "h100-mig-1g.10gb"), 2);
    assert_eq!(count_matching(&inv, "h100-mig-3g.40gb"), 0);

    // Slices and whole GPUs of one kind are separate supply.
    let report = two_devices(|i, d| {
        if i == 1 {
            d.name = "NVIDIA H100 80GB HBM3 MIG 3g.40gb".into();
            d.uuid = "MIG-00000000-0000-0000-0000-000000000001".into();
            d.total_memory_bytes = 42_314_694_656;
        }
    });
    let inv = report.to_inventory_in(FileId(0));
    let summary: Vec<(Option<&str>, u32)> = inv.nodes[0].gpus.iter().map(|g| (g.mig.as_deref(), g.count)).collect();
    assert_eq!(summary, [(None, 1), (Some("3g.40gb"), 1)]);
    assert_eq!(count_matching(&inv, "h100"), 1);
    assert_eq!(count_matching(&inv, "h100-mig-3g.40gb"), 1);

    // A MIG UUID under a name without a profile: a slice of unknown kind, not supply.
    let report = two_devices(|i, d| {
        if i == 0 {
            d.uuid = "MIG-00000000-0000-0000-0000-000000000002".into();
        }
    });
    assert_eq!(
        report.devices[0].mig.as_ref().map(|m| m.profile.as_str()),
        Some("unknown")
    );
    assert_eq!(ids(&report), [None, Some("h100-sxm5-80gb")]);
    let inv = report.to_inventory_in(FileId(0));
    assert_eq!(count_matching(&inv, "h100"), 1);
    assert_eq!(total_gpus(&inv), 1);
}

#[test]
fn prohibited_devices_are_not_supply() {
    let report = two_devices(|i, d| {
        d.compute_mode = Some(if i == 0 { "prohibited" } else { "exclusive_process" }.into());
    });
    assert!(!report.devices[0].usable() && report.devices[1].usable());
    let inv = report.to_inventory_in(FileId(0));
    assert_eq!(count_matching(&inv, "h100"), 1);
}

#[test]
fn recordings_are_normalised_on_load() {
    // The recorded 8×H100 host spells PCI bus ids like CUDA (`0000:2A:00.0`).
    assert!(H100X8.contains("\"0000:2A:00.0\""));
    let h100 = load(H100X8);
    assert_eq!(h100.devices[1].pci_bus_id, "0000:2a:00.0");
    assert!(h100.devices.iter().all(|d| d.mig.is_none() && d.missing.is_empty()));
    // nvidia-smi's spelling gives the same text; text that is no PCI address stays.
    let report = two_devices(|i, d| {
        d.pci_bus_id = if i == 0 { "00000000:0E:00.0" } else { "unknown" }.into();
    });
    assert_eq!(report.devices[0].pci_bus_id, "0000:0e:00.0");
    assert_eq!(report.devices[1].pci_bus_id, "unknown");
}

#[test]
fn human_rendering_of_newer_fields() {
    let mut report = two_devices(|i, d| {
        if i == 1 {
            d.compute_mode = Some("exclusive_process".into());
            d.name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb".into();
        }
        d.free_memory_bytes = None;
        d.missing
            .insert("free_memory_bytes".into(), "NVML could not be loaded".into());
    });
    report.kernel_driver = Some(KernelDriver {
        flavour: Some("open".into()),
        source: "/proc/driver/nvidia/version".into(),
        version: "550.54.15".into(),
    });
    report.libcuda = Some("/usr/local/cuda/compat/libcuda.so.1".into());
    report.environment.insert("CUDA_VISIBLE_DEVICES".into(), "1,0".into());
    report.notes.push("device 1 is a MIG slice".into());
    let text = report.render_human();
    for line in [
        "kernel driver: 550.54.15 (/proc/driver/nvidia/version, open)\n",
        "libcuda: /usr/local/cuda/compat/libcuda.so.1\n",
        "CUDA_VISIBLE_DEVICES=1,0\n",
        "note: device 1 is a MIG slice\n",
        "free_memory_bytes of devices 0, 1 unknown: NVML could not be loaded\n",
    ] {
        assert!(text.contains(line), "{line:?} missing from\n{text}");
    }
    assert!(text.contains(" mode "), "{text}");
    assert!(text.contains("exclusive_process"), "{text}");
    assert!(text.contains("h100-sxm5-80gb, MIG slice 1g.10gb"), "{text}");
    // No mode column while every device is in the default mode.
    assert!(!load(H100X8).render_human().contains(" mode "));
}

#[test]
fn human_rendering() {
    let text = load(MIXED).render_human();
    assert!(
        text.starts_with("CUDA driver: supports CUDA 12.4 (cuDriverGetVersion = 12040)\n"),
        "{text}"
    );
    assert!(text.contains("8 CUDA devices:"), "{text}");
    assert!(text.contains("NVIDIA A100-SXM4-40GB"), "{text}");
    assert!(text.contains("39.39 GiB"), "{text}");
    assert!(text.contains("79.65 GiB"), "{text}");
    assert!(text.contains("a100-sxm4-40gb"), "{text}");
    assert!(text.contains("0000:18:00.0"), "{text}");
    assert!(text.contains("peer access"), "{text}");
    assert!(text.contains("  0 - y y y . . . ."), "{text}");
    assert!(text.contains("  7 . . . . y y y -"), "{text}");
    assert!(
        text.contains(&format!("fingerprint: {}", load(MIXED).fingerprint())),
        "{text}"
    );

    let none = ProbeReport::no_driver().render_human();
    assert_eq!(
        none,
        format!("CUDA driver: not available\nno CUDA devices: {NO_DRIVER_REASON}\n")
    );
}

#[test]
fn json_schema_describes_the_report() {
    let schema = serde_json::to_value(schemars::schema_for!(ProbeReport)).unwrap_or_default();
    let props = &schema["properties"];
    for key in ["devices", "driver", "peer_access", "reason"] {
        assert!(props.get(key).is_some(), "{key} missing from {schema:#}");
    }
    let text = schema.to_string();
    for key in [
        "compute_capability",
        "total_memory_bytes",
        "cuda_driver_version",
        "catalog_id",
    ] {
        assert!(text.contains(key), "{key} missing from {schema:#}");
    }
}

#[test]
fn driver_version_formatting() {
    assert_eq!(DriverInfo::from_version(12040).cuda_version, "12.4");
    assert_eq!(DriverInfo::from_version(13000).cuda_version, "13.0");
    assert_eq!(DriverInfo::from_version(11080).cuda_version, "11.8");
    assert_eq!(DriverInfo::from_version(12090).cuda_version, "12.9");
}
