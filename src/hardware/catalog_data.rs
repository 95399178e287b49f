//! The GPU catalog's data types: what `gpus.json` holds. Plain data with
//! serde derives and nothing else, so the build script reads the file with
//! these very types (`build.rs` includes this file) and the library uses them
//! for the tables it compiles in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// GPU micro-architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Architecture {
    /// Volta (CC 7.0): V100.
    Volta,
    /// Turing (CC 7.5): T4.
    Turing,
    /// Ampere (CC 8.0 / 8.6): A100, A30, A10, A40, RTX A6000.
    Ampere,
    /// Ada Lovelace (CC 8.9): L4, L40, L40S, RTX 4090.
    Ada,
    /// Hopper (CC 9.0): H100, H200, H20, GH200.
    Hopper,
    /// Blackwell (CC 10.x): B200, GB200.
    Blackwell,
}

/// Kind of GPU-to-GPU link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// NVLink through an NVSwitch / baseboard (SXM parts).
    Nvlink,
    /// NVLink bridge between a small number of PCIe cards.
    NvlinkBridge,
    /// Only PCIe between GPUs.
    Pcie,
    /// No peer-to-peer link (GeForce).
    #[serde(rename = "none")]
    NoLink,
}

/// GPU-to-GPU interconnect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interconnect {
    /// Kind of link.
    pub kind: LinkKind,
    /// NVLink or PCIe generation, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<u32>,
    /// Total bandwidth per GPU in GB/s as marketed (bidirectional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_gbps: Option<f64>,
    /// Free-form remark (e.g. the host PCIe link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Dense peak throughput per dtype in TFLOPS (TOPS for INT8); `None` = unsupported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PeakTflops {
    /// FP32 on CUDA cores (non tensor core).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp32: Option<f64>,
    /// TF32 tensor cores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tf32: Option<f64>,
    /// FP16 tensor cores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp16: Option<f64>,
    /// BF16 tensor cores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bf16: Option<f64>,
    /// FP8 (E4M3/E5M2) tensor cores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp8: Option<f64>,
    /// INT8 tensor cores (TOPS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int8: Option<f64>,
    /// FP4 tensor cores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp4: Option<f64>,
}

/// One GPU variant of the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    /// Stable catalog id, e.g. `a100-sxm4-40gb`, `t4`, `h100-sxm5-80gb`.
    pub id: String,
    /// Family, e.g. `a100`; variants of one family satisfy a request for it.
    pub family: String,
    /// Human-readable name, e.g. `NVIDIA A100 SXM4 40GB`.
    pub name: String,
    /// Micro-architecture.
    pub architecture: Architecture,
    /// CUDA compute capability `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Form factor (`sxm4`, `pcie`, `nvl`, …) where a family has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form_factor: Option<String>,
    /// Other spellings of the form factor accepted in names (`sxm` for `sxm4`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub form_aliases: Vec<String>,
    /// Marketed memory size in GB.
    pub memory_gb: u32,
    /// Memory technology (`HBM3`, `GDDR6`, …).
    pub memory_type: String,
    /// Total memory in MiB as `nvidia-smi --query-gpu=memory.total` reports
    /// it on R535+ drivers (CUDA reports a few hundred MiB less).
    pub memory_mib: u64,
    /// Memory bandwidth in GB/s.
    pub memory_bandwidth_gbps: f64,
    /// GPU-to-GPU interconnect.
    pub interconnect: Interconnect,
    /// Device names as printed by `nvidia-smi` / `cuDeviceGetName`.
    pub driver_names: Vec<String>,
    /// Dense peak throughput per dtype.
    pub tflops: PeakTflops,
    /// Extra names that resolve to exactly this variant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Provenance remarks and caveats.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Family metadata in the data file.
#[cfg_attr(not(test), allow(dead_code))]
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyData {
    /// Display name, e.g. `A100`.
    pub name: String,
    /// Other names of the family (`4090` for `rtx-4090`).
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// Layout of `gpus.json`.
#[cfg_attr(not(test), allow(dead_code))] // read by build.rs and the catalog's tests
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogData {
    /// Version of the file's layout (declared for `deny_unknown_fields`).
    #[allow(dead_code)]
    pub schema_version: u32,
    /// Where the facts come from (declared for `deny_unknown_fields`).
    #[allow(dead_code)]
    pub source: String,
    /// Families by id.
    pub families: BTreeMap<String, FamilyData>,
    /// The variants, in file order.
    pub gpus: Vec<Gpu>,
}
