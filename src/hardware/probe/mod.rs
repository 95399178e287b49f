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
mod tests;
