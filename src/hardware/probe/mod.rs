//! The local GPU probe: which CUDA devices this host has, read from the
//! NVIDIA driver, or from a recorded report (`tests/probes/*.json`).
//!
//! [`probe_local`] runs the probe in a child process (`stagec
//! __probe-driver`, see [`isolate`]) bounded by a timeout, so that a hung or
//! crashing driver ends in a report with a reason instead of a hung or dead
//! `stagec`. The child loads `libcuda` at run time (cudarc's
//! `dynamic-loading`, so stagec builds and runs without a CUDA toolkit or
//! driver), resolves every driver function it calls up front from the
//! loaded library with plain integer return types ("driver too old:
//! missing X" when one is absent) and names result codes from its own
//! table ([`codes`]), falling back to the number: no code a newer driver
//! returns can crash it. On a host without a driver the report has no
//! driver, no devices and a [`ProbeReport::reason`] ([`NO_DRIVER_REASON`]).
//!
//! Per device the probe reads the name (`cuDeviceGetName`), the UUID
//! (`cuDeviceGetUuid_v2`, written like `nvidia-smi -L`: `GPU-xxxxxxxx-…`, or
//! `MIG-…` for a MIG slice), the compute capability, total memory
//! (`cuDeviceTotalMem_v2`, a few hundred MiB below the `nvidia-smi` figure),
//! the multiprocessor count, the compute mode, the PCI bus id (one spelling
//! for CUDA's `0000:0E:00.0` and `nvidia-smi`'s `00000000:0e:00.0`:
//! `0000:0e:00.0`) and, through NVML and without creating a CUDA context,
//! the free memory; a value it could not read is `null` and
//! [`ProbedDevice::missing`] says why. Peer access comes from
//! `cuDeviceCanAccessPeer`. Beside the driver's CUDA level
//! (`cuDriverGetVersion`, e.g. 12040) the report holds the kernel driver's
//! release (`/sys/module/nvidia/version`, `/proc/driver/nvidia/version` or
//! NVML, e.g. `550.54.15`), the path of the `libcuda` that was loaded and
//! the `CUDA_VISIBLE_DEVICES`/`CUDA_DEVICE_ORDER` it ran under. Each device
//! is matched to the GPU catalog with [`catalog::match_probe`]; a MIG slice
//! (`NVIDIA H100 80GB HBM3 MIG 1g.10gb`) to the GPU it is carved from, and
//! it is never counted as that whole GPU.
//!
//! [`ProbeReport::to_inventory_in`] turns a report into a one-node
//! [`Inventory`] (node `localhost`) that the stage graph consumes like any
//! other inventory; [`ProbeReport::fingerprint`] identifies the host for
//! reproducibility records.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::hardware::catalog;
use crate::hardware::inventory::{self, InvNode, Inventory, InventoryFormat, NVIDIA_SMI_NODE};
use crate::source::Loc;
use crate::source::{FileId, Span};

pub mod codes;
pub mod host;
pub mod isolate;
pub mod parse;

#[cfg(feature = "probe")]
mod cuda;
#[cfg(feature = "probe")]
mod nvml;

pub use isolate::{CHILD_SUBCOMMAND, DEFAULT_TIMEOUT, TIMEOUT_VARIABLE};

/// Bytes per MiB.
const MIB: u64 = 1 << 20;

/// Bytes per GiB.
const GIB: f64 = (1u64 << 30) as f64;

/// [`ProbeReport::reason`] when `libcuda` cannot be loaded.
pub const NO_DRIVER_REASON: &str = "no NVIDIA driver: libcuda could not be loaded";

/// Version tag hashed into [`ProbeReport::fingerprint`]; bump it when the
/// hashed fields change.
const FINGERPRINT_VERSION: &str = "stagec-probe-fingerprint-v2";

/// What the local GPU probe found. Top-level keys are always present in
/// JSON (`driver`, `kernel_driver`, `libcuda` and `reason` may be `null`,
/// the lists and maps empty); they are declared in alphabetical order so
/// that serializing the struct and serializing it through a sorted
/// `serde_json::Value` give the same text. Every key but `devices`,
/// `driver`, `peer_access` and `reason` is newer than the first recorded
/// reports and may be absent from them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProbeReport {
    /// The CUDA devices, in ordinal order. Empty when there is no driver,
    /// no device, or the driver failed (see `reason`).
    #[serde(default)]
    pub devices: Vec<ProbedDevice>,
    /// The driver's CUDA level, when `libcuda` could be loaded and asked for its version.
    #[serde(default)]
    pub driver: Option<DriverInfo>,
    /// The variables that choose and order CUDA's devices
    /// (`CUDA_VISIBLE_DEVICES`, `CUDA_DEVICE_ORDER`), those that were set.
    #[serde(default)]
    pub environment: BTreeMap<String, String>,
    /// The kernel driver's release (e.g. `550.54.15`), what driver
    /// compatibility is decided by; `null` when no source gave it (a note
    /// says why).
    #[serde(default)]
    pub kernel_driver: Option<KernelDriver>,
    /// The path of the `libcuda` that was loaded (a forward-compatibility
    /// library, a toolkit's stub or the driver's own).
    #[serde(default)]
    pub libcuda: Option<String>,
    /// What the reader should know that is not a failure: MIG hides the
    /// other slices, a device's compute mode, a value that could not be read.
    #[serde(default)]
    pub notes: Vec<String>,
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
    /// `cuDriverGetVersion`: the newest CUDA version the loaded `libcuda`
    /// supports, as `1000 * major + 10 * minor` (e.g. `12040`); not the
    /// driver release, and with a forward-compatibility `libcuda` newer
    /// than what the kernel driver alone supports.
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

/// The kernel driver (the `nvidia` module).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KernelDriver {
    /// `open` or `proprietary` when the source says which (only
    /// `/proc/driver/nvidia/version` does).
    #[serde(default)]
    pub flavour: Option<String>,
    /// Where the release was read: `/sys/module/nvidia/version`,
    /// `/proc/driver/nvidia/version` or `nvmlSystemGetDriverVersion`.
    pub source: String,
    /// The release, e.g. `550.54.15` (its first number is the branch).
    pub version: String,
}

/// One CUDA device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProbedDevice {
    /// CUDA device ordinal (after `CUDA_VISIBLE_DEVICES`).
    pub ordinal: u32,
    /// `cuDeviceGetName`, e.g. `NVIDIA H100 80GB HBM3`, or for a MIG slice
    /// `NVIDIA H100 80GB HBM3 MIG 1g.10gb`.
    pub name: String,
    /// `cuDeviceGetUuid_v2` written as `nvidia-smi -L` does: `GPU-` (a MIG
    /// slice: `MIG-`) and 32 lower-case hex digits grouped 8-4-4-4-12.
    /// Empty when it could not be read (`missing` says why).
    pub uuid: String,
    /// `(major, minor)` compute capability.
    pub compute_capability: (u32, u32),
    /// `cuDeviceTotalMem_v2` in bytes (a few hundred MiB below `nvidia-smi`'s
    /// total; a MIG slice's own memory).
    pub total_memory_bytes: u64,
    /// Free bytes from NVML (`nvmlDeviceGetMemoryInfo`, which needs no CUDA
    /// context); `null` when NVML could not tell (`missing` says why).
    /// Not part of the fingerprint.
    #[serde(default)]
    pub free_memory_bytes: Option<u64>,
    /// `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT` (SMs).
    pub multiprocessors: u32,
    /// The PCI bus id, `domain:bus:device.function` in lower-case hex with
    /// a domain of at least four digits (`0000:2a:00.0`), whichever way the
    /// driver spelled it. A MIG slice has its GPU's.
    pub pci_bus_id: String,
    /// The GPU catalog entry the name and total memory single out
    /// ([`catalog::match_probe`]); for a MIG slice the entry of the GPU it
    /// is carved from. `null` when none does. Derived data:
    /// [`load_recorded`] recomputes it with the current catalog.
    #[serde(default)]
    pub catalog_id: Option<String>,
    /// `CU_DEVICE_ATTRIBUTE_COMPUTE_MODE`: `default`, `exclusive_process`
    /// (one process at a time), `prohibited` (no process; not counted as
    /// supply) or `exclusive_thread`; `null` when not read.
    #[serde(default)]
    pub compute_mode: Option<String>,
    /// Set when the device is a MIG slice, not a whole GPU. Derived from
    /// the name (and a `MIG-` UUID) by [`load_recorded`].
    #[serde(default)]
    pub mig: Option<MigSlice>,
    /// Why a value of this device is missing, by field name
    /// (`free_memory_bytes`, `uuid`, `pci_bus_id`, …).
    #[serde(default)]
    pub missing: BTreeMap<String, String>,
}

/// A MIG slice: the part of a GPU one CUDA process sees in MIG mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MigSlice {
    /// Compute slices, the `1` of `1g.10gb`.
    #[serde(default)]
    pub compute_slices: Option<u32>,
    /// The slice's memory in GB as its profile names it, the `10` of `1g.10gb`.
    #[serde(default)]
    pub memory_gb: Option<u32>,
    /// The name of the GPU it is carved from, e.g. `NVIDIA H100 80GB HBM3`.
    pub parent_name: String,
    /// The profile, e.g. `1g.10gb`, `1g.18gb+me`; `unknown` when the name
    /// carries none (a `MIG-` UUID under an unexpected name).
    pub profile: String,
}

impl ProbedDevice {
    /// The catalog entry this device was matched to (for a MIG slice, the
    /// GPU it is carved from).
    pub fn catalog_gpu(&self) -> Option<&'static catalog::Gpu> {
        self.catalog_id.as_deref().and_then(catalog::by_id)
    }

    /// Recomputes what follows from the name, UUID and memory: the MIG
    /// slice, the catalog entry and the PCI bus id's spelling.
    fn derive(&mut self) {
        self.mig = match parse::mig_name(&self.name) {
            Some((parent_name, profile)) => {
                let parts = parse::mig_profile_parts(&profile);
                Some(MigSlice {
                    compute_slices: parts.map(|p| p.0),
                    memory_gb: parts.map(|p| p.1),
                    parent_name,
                    profile,
                })
            }
            None if self.uuid.starts_with("MIG-") => Some(MigSlice {
                compute_slices: None,
                memory_gb: None,
                parent_name: self.name.clone(),
                profile: "unknown".to_string(),
            }),
            None => None,
        };
        self.catalog_id = match &self.mig {
            // The slice's memory never fits the whole GPU's entry: the name decides alone.
            Some(mig) if mig.profile != "unknown" => catalog::resolve_quietly(&mig.parent_name)
                .resolution
                .exact()
                .map(|g| g.id.clone()),
            Some(_) => None,
            None => catalog_id(&self.name, self.total_memory_bytes),
        };
        if let Some(pci) = parse::normalize_pci_bus_id(&self.pci_bus_id) {
            self.pci_bus_id = pci;
        }
    }

    /// Whether the device can run work at all (compute mode not `prohibited`).
    pub fn usable(&self) -> bool {
        self.compute_mode.as_deref() != Some("prohibited")
    }
}

/// Probes this host's GPUs through the CUDA driver in a child process:
/// `program` (the `stagec` executable) run with [`CHILD_SUBCOMMAND`],
/// stopped after `timeout`. Never panics and never hangs; failures are in
/// [`ProbeReport::reason`]. Without the `probe` feature (the library as
/// `stagec-lsp` uses it) there is no driver access and the report says so.
pub fn probe_local(program: &Path, timeout: Duration) -> ProbeReport {
    #[cfg(feature = "probe")]
    {
        isolate::probe_in_child(program, timeout)
    }
    #[cfg(not(feature = "probe"))]
    {
        let _ = (program, timeout);
        not_built()
    }
}

/// The probe itself, in this process: what `stagec __probe-driver` runs.
/// A broken driver can hang it or kill the process; run it through
/// [`probe_local`]. A panic becomes the report's reason.
pub fn probe_in_this_process() -> ProbeReport {
    #[cfg(feature = "probe")]
    {
        cuda::probe()
    }
    #[cfg(not(feature = "probe"))]
    {
        not_built()
    }
}

/// [`ProbeReport::reason`] of a build without the `probe` feature.
#[cfg(not(feature = "probe"))]
const NOT_BUILT_REASON: &str = "this build of stagec has no GPU probe (built without the `probe` feature)";

#[cfg(not(feature = "probe"))]
fn not_built() -> ProbeReport {
    ProbeReport {
        reason: Some(NOT_BUILT_REASON.to_string()),
        ..ProbeReport::default()
    }
}

/// Reads a recorded report (the JSON of [`ProbeReport`]). Checks that
/// ordinals are distinct and `peer_access` is empty or square with one row
/// per device, sorts devices by ordinal (peer rows and columns with them),
/// and recomputes what is derived: every `catalog_id` with the current
/// catalog, the MIG slices, the PCI bus ids' spelling.
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
        device.derive();
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

    /// A stable hex SHA-256 of what defines the host for reproducibility:
    /// the driver's CUDA level, the kernel driver's release when known and,
    /// per device in order of UUID (so that `CUDA_VISIBLE_DEVICES` and
    /// `CUDA_DEVICE_ORDER`, which renumber devices, do not change it), the
    /// name, compute capability, total memory and UUID. Ordinals, free
    /// memory, PCI bus ids, compute modes, peer access, catalog ids, notes
    /// and `reason` are not included.
    pub fn fingerprint(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(text, "{FINGERPRINT_VERSION}");
        match &self.driver {
            Some(d) => {
                let _ = writeln!(text, "driver\t{}", d.cuda_driver_version);
            }
            None => text.push_str("driver\tnone\n"),
        }
        if let Some(k) = &self.kernel_driver {
            let _ = writeln!(text, "kernel\t{}:{}", k.version.len(), k.version);
        }
        let mut devices: Vec<&ProbedDevice> = self.devices.iter().collect();
        devices.sort_by(|a, b| (&a.uuid, &a.name, a.ordinal).cmp(&(&b.uuid, &b.name, b.ordinal)));
        for d in devices {
            // Length-prefixed strings: no separator inside a name can shift fields.
            let _ = writeln!(
                text,
                "device\t{}:{}\t{}.{}\t{}\t{}:{}",
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
    /// One [`InvGpu`](inventory::InvGpu) per catalog entry (devices the
    /// catalog does not know: per name, compute capability and total
    /// memory), in order of first ordinal. Its label is the driver name, as
    /// for `nvidia-smi` CSV; its memory is the smallest CUDA total of the
    /// group in MiB. MIG slices are grouped per GPU and profile and offered
    /// as slices of that profile (`h100-sxm5-80gb` MIG `1g.10gb`), never as
    /// whole GPUs; a slice whose profile is unknown is not supply. Devices
    /// in the `prohibited` compute mode run nothing and are left out.
    pub fn to_inventory_in(&self, file: FileId) -> Inventory {
        let loc = Loc {
            file,
            span: Span::at(0),
        };
        // (group key, first device, count, smallest total memory)
        let mut groups: Vec<(String, &ProbedDevice, u32, u64)> = Vec::new();
        for d in self.devices.iter().filter(|d| d.usable()) {
            let whole = match &d.catalog_id {
                Some(id) => format!("catalog:{id}"),
                None => format!(
                    "unknown:{}:{}.{}:{}",
                    d.name, d.compute_capability.0, d.compute_capability.1, d.total_memory_bytes
                ),
            };
            let key = match &d.mig {
                Some(mig) => format!("mig:{}:{whole}", mig.profile),
                None => whole,
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
                match (&first.mig, first.catalog_gpu()) {
                    (Some(mig), _) if mig.profile == "unknown" => {
                        gpu.gpu = None;
                        gpu.family = None;
                        gpu.mig = Some(mig.profile.clone());
                    }
                    (Some(mig), g) => {
                        gpu.gpu = g;
                        gpu.family = g.map(|g| g.family.as_str()).or(gpu.family);
                        gpu.mig = Some(mig.profile.clone());
                    }
                    (None, Some(g)) => {
                        gpu.gpu = Some(g);
                        gpu.family = Some(g.family.as_str());
                    }
                    (None, None) => {}
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
                // The kernel driver's release decides compatibility (the
                // CUDA level `libcuda` reports can come from forward-
                // compatibility libraries).
                driver: self.kernel_driver.as_ref().map(|k| crate::source::Located {
                    value: k.version.clone(),
                    loc,
                }),
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

    /// A plain-text rendering for terminals: the driver lines (CUDA level,
    /// kernel driver, `libcuda`, CUDA variables), a device table (ordinal,
    /// name, CC, total and free memory in GiB, SMs, PCI bus id, compute
    /// mode when any is not the default, catalog id), the peer-access
    /// matrix, the reason and notes if any, what could not be read, and the
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
        if let Some(k) = &self.kernel_driver {
            let flavour = k.flavour.as_deref().map(|f| format!(", {f}")).unwrap_or_default();
            let _ = writeln!(out, "kernel driver: {} ({}{flavour})", k.version, k.source);
        }
        if let Some(path) = &self.libcuda {
            let _ = writeln!(out, "libcuda: {path}");
        }
        for (name, value) in &self.environment {
            let _ = writeln!(out, "{name}={value}");
        }
        if self.devices.is_empty() {
            let why = self.reason.as_deref().unwrap_or("the driver reports none");
            let _ = writeln!(out, "no CUDA devices: {why}");
            for note in &self.notes {
                let _ = writeln!(out, "note: {note}");
            }
            return out;
        }
        let plural = if self.devices.len() == 1 { "" } else { "s" };
        let _ = writeln!(out, "{} CUDA device{plural}:", self.devices.len());
        let show_mode = self
            .devices
            .iter()
            .any(|d| d.compute_mode.as_deref().is_some_and(|m| m != "default"));
        let mut header = vec!["#", "name", "CC", "memory", "free", "SMs", "PCI bus id"];
        if show_mode {
            header.push("mode");
        }
        header.push("catalog id");
        let rows: Vec<Vec<String>> = self
            .devices
            .iter()
            .map(|d| {
                let mut row = vec![
                    d.ordinal.to_string(),
                    d.name.clone(),
                    format!("{}.{}", d.compute_capability.0, d.compute_capability.1),
                    gib(d.total_memory_bytes),
                    d.free_memory_bytes.map_or_else(|| "-".to_string(), gib),
                    d.multiprocessors.to_string(),
                    d.pci_bus_id.clone(),
                ];
                if show_mode {
                    row.push(d.compute_mode.clone().unwrap_or_else(|| "-".to_string()));
                }
                let id = d.catalog_id.clone().unwrap_or_else(|| "- (not in catalog)".to_string());
                row.push(match &d.mig {
                    Some(mig) => format!("{id}, MIG slice {}", mig.profile),
                    None => id,
                });
                row
            })
            .collect();
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let header: Vec<String> = header.into_iter().map(str::to_string).collect();
        for row in std::iter::once(&header).chain(&rows) {
            let mut line = String::from(" ");
            for (i, (cell, &w)) in row.iter().zip(&widths).enumerate() {
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
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        // What could not be read: one line per field and reason, naming the devices.
        let mut missing: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
        for d in &self.devices {
            for (field, why) in &d.missing {
                missing.entry((field, why)).or_default().push(d.ordinal.to_string());
            }
        }
        for ((field, why), ordinals) in missing {
            let plural = if ordinals.len() == 1 { "" } else { "s" };
            let _ = writeln!(out, "{field} of device{plural} {} unknown: {why}", ordinals.join(", "));
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
}
