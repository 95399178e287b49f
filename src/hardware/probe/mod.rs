//! The local GPU probe: which CUDA devices this host has, read from the
//! NVIDIA driver through cudarc's driver API bindings, or from a recorded
//! report (`tests/probes/*.json`).
//!
//! [`probe_local`] loads `libcuda` at run time (cudarc's `dynamic-loading`), so
//! stagec builds and runs without a CUDA toolkit or driver: on a host without
//! one the probe returns a report with no driver, no devices and a
//! [`ProbeReport::reason`] ([`NO_DRIVER_REASON`]). Every driver error becomes
//! reason text naming the failing call and its `CUresult`; nothing panics
//! (a panic inside cudarc, e.g. a symbol missing from an old driver, is
//! caught and reported too).
//!
//! Per device the probe reads the name (`cuDeviceGetName`), the UUID
//! (`cuDeviceGetUuid`, written like `nvidia-smi -L`: `GPU-xxxxxxxx-xxxx-…`),
//! the compute capability, total memory (`cuDeviceTotalMem_v2`, a few hundred
//! MiB below the `nvidia-smi` figure), the multiprocessor count, the PCI bus
//! id (`cuDeviceGetPCIBusId`, `domain:bus:device.function`) and, when the
//! device's primary context can be retained, the free memory
//! (`cuMemGetInfo_v2`). Peer access comes from `cuDeviceCanAccessPeer`. Each
//! device is matched to the GPU catalog with [`catalog::match_probe`].
//!
//! [`ProbeReport::to_inventory_in`] turns a report into a one-node
//! [`Inventory`] (node `localhost`) that the stage graph consumes like any
//! other inventory; [`ProbeReport::fingerprint`] identifies the host for
//! reproducibility records.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::hardware::catalog;
use crate::hardware::inventory::{self, InvNode, Inventory, InventoryFormat, NVIDIA_SMI_NODE};
use crate::source::Loc;
use crate::source::{FileId, Span};

#[cfg(feature = "probe")]
mod cuda;

/// Bytes per MiB.
const MIB: u64 = 1 << 20;

/// Bytes per GiB.
const GIB: f64 = (1u64 << 30) as f64;

/// [`ProbeReport::reason`] when `libcuda` cannot be loaded.
pub const NO_DRIVER_REASON: &str = "no NVIDIA driver: libcuda could not be loaded";

/// Version tag hashed into [`ProbeReport::fingerprint`]; bump it when the
/// hashed fields change.
const FINGERPRINT_VERSION: &str = "stagec-probe-fingerprint-v1";

/// What the local GPU probe found. Top-level keys are always present in
/// JSON (`driver` and `reason` may be `null`, `devices` and `peer_access`
/// empty); they are declared in alphabetical order so that serializing the
/// struct and serializing it through a sorted `serde_json::Value` give the
/// same text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProbeReport {
    /// The CUDA devices, in ordinal order. Empty when there is no driver,
    /// no device, or the driver failed (see `reason`).
    #[serde(default)]
    pub devices: Vec<ProbedDevice>,
    /// The NVIDIA driver, when `libcuda` could be loaded and asked for its version.
    #[serde(default)]
    pub driver: Option<DriverInfo>,
    /// `peer_access[i][j]`: whether device `i` can access device `j`'s memory
    /// directly (`cuDeviceCanAccessPeer`: NVLink or PCIe P2P), indexed by
    /// position in `devices`. The diagonal is always `false`. Empty when
    /// there are no devices.
    #[serde(default)]
    pub peer_access: Vec<Vec<bool>>,
    /// Why `devices` is empty, or what failed while probing (several
    /// problems separated by `; `). `null` when everything worked.
    #[serde(default)]
    pub reason: Option<String>,
}

/// The NVIDIA driver as CUDA sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DriverInfo {
    /// `cuDriverGetVersion`: the newest CUDA version the driver supports, as
    /// `1000 * major + 10 * minor` (e.g. `12040`); not the driver release.
    pub cuda_driver_version: i32,
    /// The same as `major.minor` (e.g. `12.4`).
    pub cuda_version: String,
}

impl DriverInfo {
    /// Driver info from a `cuDriverGetVersion` value (`12040` → `12.4`).
    pub fn from_version(cuda_driver_version: i32) -> DriverInfo {
        let major = cuda_driver_version / 1000;
        let minor = (cuda_driver_version % 1000) / 10;
        DriverInfo {
            cuda_driver_version,
            cuda_version: format!("{major}.{minor}"),
        }
    }
}

/// One CUDA device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProbedDevice {
    /// CUDA device ordinal (after `CUDA_VISIBLE_DEVICES`).
    pub ordinal: u32,
    /// `cuDeviceGetName`, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// `cuDeviceGetUuid` written as `nvidia-smi -L` does: `GPU-` and 32
    /// lower-case hex digits grouped 8-4-4-4-12.
    pub uuid: String,
    /// `(major, minor)` compute capability.
    pub compute_capability: (u32, u32),
    /// `cuDeviceTotalMem_v2` in bytes (a few hundred MiB below `nvidia-smi`'s total).
    pub total_memory_bytes: u64,
    /// `cuMemGetInfo_v2` free bytes when probed, `null` when the device's
    /// primary context could not be made current (e.g. exclusive compute
    /// mode held by another process). Not part of the fingerprint.
    #[serde(default)]
    pub free_memory_bytes: Option<u64>,
    /// `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT` (SMs).
    pub multiprocessors: u32,
    /// `cuDeviceGetPCIBusId`: `domain:bus:device.function` in hex, e.g. `0000:18:00.0`.
    pub pci_bus_id: String,
    /// The GPU catalog entry the name and total memory single out
    /// ([`catalog::match_probe`]), `null` when none does. Derived data:
    /// [`load_recorded`] recomputes it with the current catalog.
    #[serde(default)]
    pub catalog_id: Option<String>,
}

impl ProbedDevice {
    /// The catalog entry this device was matched to.
    pub fn catalog_gpu(&self) -> Option<&'static catalog::Gpu> {
        self.catalog_id.as_deref().and_then(catalog::by_id)
    }
}

/// Probes this host's GPUs through the CUDA driver. Never panics; failures
/// are in [`ProbeReport::reason`]. Without the `probe` feature (the library
/// as `stagec-lsp` uses it) there is no driver access and the report says so.
pub fn probe_local() -> ProbeReport {
    #[cfg(feature = "probe")]
    {
        cuda::probe()
    }
    #[cfg(not(feature = "probe"))]
    {
        ProbeReport {
            reason: Some(NOT_BUILT_REASON.to_string()),
            ..ProbeReport::default()
        }
    }
}

/// [`ProbeReport::reason`] of a build without the `probe` feature.
#[cfg(not(feature = "probe"))]
const NOT_BUILT_REASON: &str = "this build of stagec has no GPU probe (built without the `probe` feature)";

/// Reads a recorded report (the JSON of [`ProbeReport`]). Checks that
/// ordinals are distinct and `peer_access` is empty or square with one row
/// per device, sorts devices by ordinal (peer rows and columns with them),
/// and recomputes every `catalog_id` with the current catalog.
pub fn load_recorded(json: &str) -> Result<ProbeReport, String> {
    let mut report: ProbeReport = serde_json::from_str(json).map_err(|e| format!("not a stagec probe report: {e}"))?;
    let n = report.devices.len();
    if !report.peer_access.is_empty()
        && (report.peer_access.len() != n || report.peer_access.iter().any(|row| row.len() != n))
    {
        return Err(format!(
            "`peer_access` must be empty or a {n}×{n} matrix (one row and column per device)"
        ));
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| report.devices.get(i).map(|d| d.ordinal));
    let devices: Vec<ProbedDevice> = order.iter().filter_map(|&i| report.devices.get(i).cloned()).collect();
    if let Some(pair) = devices.windows(2).find(|w| w[0].ordinal == w[1].ordinal) {
        return Err(format!("device ordinal {} appears more than once", pair[0].ordinal));
    }
    if !report.peer_access.is_empty() {
        let old = &report.peer_access;
        report.peer_access = order
            .iter()
            .map(|&i| {
                order
                    .iter()
                    .map(|&j| i != j && old.get(i).and_then(|row| row.get(j)).copied().unwrap_or(false))
                    .collect()
            })
            .collect();
    }
    report.devices = devices;
    for device in &mut report.devices {
        device.catalog_id = catalog_id(&device.name, device.total_memory_bytes);
    }
    Ok(report)
}

fn catalog_id(name: &str, total_memory_bytes: u64) -> Option<String> {
    catalog::match_probe(name, total_memory_bytes).map(|g| g.id.clone())
}

impl ProbeReport {
    /// The report for a host where `libcuda` cannot be loaded.
    pub fn no_driver() -> ProbeReport {
        ProbeReport {
            reason: Some(NO_DRIVER_REASON.to_string()),
            ..ProbeReport::default()
        }
    }

    /// A stable hex SHA-256 of what defines the host for reproducibility: the
    /// CUDA driver version and, per device in ordinal order, the ordinal,
    /// name, compute capability, total memory and UUID. Free memory, PCI bus
    /// ids, peer access, catalog ids and `reason` are not included.
    pub fn fingerprint(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(text, "{FINGERPRINT_VERSION}");
        match &self.driver {
            Some(d) => {
                let _ = writeln!(text, "driver\t{}", d.cuda_driver_version);
            }
            None => text.push_str("driver\tnone\n"),
        }
        let mut devices: Vec<&ProbedDevice> = self.devices.iter().collect();
        devices.sort_by_key(|d| d.ordinal);
        for d in devices {
            // Length-prefixed strings: no separator inside a name can shift fields.
            let _ = writeln!(
                text,
                "device\t{}\t{}:{}\t{}.{}\t{}\t{}:{}",
                d.ordinal,
                d.name.len(),
                d.name,
                d.compute_capability.0,
                d.compute_capability.1,
                d.total_memory_bytes,
                d.uuid.len(),
                d.uuid
            );
        }
        let digest = Sha256::digest(text.as_bytes());
        let mut hex = String::with_capacity(64);
        for byte in digest {
            let _ = write!(hex, "{byte:02x}");
        }
        hex
    }

    /// The report as a one-node inventory (node `localhost`, format
    /// [`InventoryFormat::Probe`]), every location at the start of `file`
    /// (the source file registered for the probe's JSON text).
    ///
    /// One [`InvGpu`](inventory::InvGpu) per catalog entry (devices the catalog does not know:
    /// per name, compute capability and total memory), in order of first
    /// ordinal. Its label is the driver name, as for `nvidia-smi` CSV; its
    /// memory is the smallest CUDA total of the group in MiB.
    pub fn to_inventory_in(&self, file: FileId) -> Inventory {
        let loc = Loc {
            file,
            span: Span::at(0),
        };
        // (group key, first device, count, smallest total memory)
        let mut groups: Vec<(String, &ProbedDevice, u32, u64)> = Vec::new();
        for d in &self.devices {
            let key = match &d.catalog_id {
                Some(id) => format!("catalog:{id}"),
                None => format!(
                    "unknown:{}:{}.{}:{}",
                    d.name, d.compute_capability.0, d.compute_capability.1, d.total_memory_bytes
                ),
            };
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => {
                    g.2 = g.2.saturating_add(1);
                    g.3 = g.3.min(d.total_memory_bytes);
                }
                None => groups.push((key, d, 1, d.total_memory_bytes)),
            }
        }
        let gpus = groups
            .into_iter()
            .map(|(_, first, count, total)| {
                let mut gpu = inventory::build_gpu(
                    &first.name,
                    None,
                    count,
                    Some(total / MIB),
                    Some(first.compute_capability),
                    loc,
                );
                if let Some(g) = first.catalog_gpu() {
                    gpu.gpu = Some(g);
                    gpu.family = Some(g.family.as_str());
                }
                gpu
            })
            .collect();
        Inventory {
            format: InventoryFormat::Probe,
            nodes: vec![InvNode {
                name: NVIDIA_SMI_NODE.to_string(),
                loc,
                gpus,
                labels: Default::default(),
                // The probe reports the CUDA level its driver supports, not
                // the driver release the compatibility tables need.
                driver: None,
            }],
            skipped: Vec::new(),
        }
    }

    /// Pretty JSON (two-space indent, keys in declaration order).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| {
            let reason = serde_json::Value::String(format!("the probe report could not be serialized: {e}"));
            format!("{{\"devices\": [], \"driver\": null, \"peer_access\": [], \"reason\": {reason}}}")
        })
    }

    /// A plain-text rendering for terminals: the driver line, a device table
    /// (ordinal, name, CC, total and free memory in GiB, SMs, PCI bus id,
    /// catalog id), the peer-access matrix, the reason if any, and the
    /// fingerprint.
    pub fn render_human(&self) -> String {
        let mut out = String::new();
        match &self.driver {
            Some(d) => {
                let _ = writeln!(
                    out,
                    "CUDA driver: supports CUDA {} (cuDriverGetVersion = {})",
                    d.cuda_version, d.cuda_driver_version
                );
            }
            None => out.push_str("CUDA driver: not available\n"),
        }
        if self.devices.is_empty() {
            let why = self.reason.as_deref().unwrap_or("the driver reports none");
            let _ = writeln!(out, "no CUDA devices: {why}");
            return out;
        }
        let plural = if self.devices.len() == 1 { "" } else { "s" };
        let _ = writeln!(out, "{} CUDA device{plural}:", self.devices.len());
        let header = ["#", "name", "CC", "memory", "free", "SMs", "PCI bus id", "catalog id"];
        let rows: Vec<[String; 8]> = self
            .devices
            .iter()
            .map(|d| {
                [
                    d.ordinal.to_string(),
                    d.name.clone(),
                    format!("{}.{}", d.compute_capability.0, d.compute_capability.1),
                    gib(d.total_memory_bytes),
                    d.free_memory_bytes.map_or_else(|| "-".to_string(), gib),
                    d.multiprocessors.to_string(),
                    d.pci_bus_id.clone(),
                    d.catalog_id.clone().unwrap_or_else(|| "- (not in catalog)".to_string()),
                ]
            })
            .collect();
        let mut widths = header.map(|h| h.chars().count());
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let header = header.map(str::to_string);
        for row in std::iter::once(&header).chain(&rows) {
            let mut line = String::from(" ");
            for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
                // Numbers right-aligned: ordinal, memory, free, SMs.
                if matches!(i, 0 | 3 | 4 | 5) {
                    let _ = write!(line, " {cell:>w$} ");
                } else {
                    let _ = write!(line, " {cell:<w$} ");
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        if self.devices.len() > 1 && !self.peer_access.is_empty() {
            out.push_str("peer access (cuDeviceCanAccessPeer; y = yes, . = no):\n");
            let w = self
                .devices
                .iter()
                .map(|d| d.ordinal.to_string().len())
                .max()
                .unwrap_or(1);
            let mut line = format!("  {:w$}", "");
            for d in &self.devices {
                let _ = write!(line, " {:>w$}", d.ordinal);
            }
            out.push_str(&line);
            out.push('\n');
            for (i, (d, row)) in self.devices.iter().zip(&self.peer_access).enumerate() {
                let mut line = format!("  {:>w$}", d.ordinal);
                for (j, &ok) in row.iter().enumerate() {
                    let mark = if i == j {
                        "-"
                    } else if ok {
                        "y"
                    } else {
                        "."
                    };
                    let _ = write!(line, " {mark:>w$}");
                }
                out.push_str(&line);
                out.push('\n');
            }
        }
        if let Some(reason) = &self.reason {
            let _ = writeln!(out, "note: {reason}");
        }
        let _ = writeln!(out, "fingerprint: {}", self.fingerprint());
        out
    }
}

/// `85520809984` → `79.65 GiB`.
fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / GIB)
}

#[cfg(test)]
mod tests {
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
            serde_json::json!({"devices": [], "driver": null, "peer_access": [], "reason": NO_DRIVER_REASON})
        );
        let text = ProbeReport::no_driver().to_json();
        assert!(text.find("\"devices\"") < text.find("\"driver\""), "{text}");
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
        assert_eq!(changed.fingerprint(), fp);

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
}
