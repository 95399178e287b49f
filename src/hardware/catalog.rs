//! Catalog of NVIDIA GPUs and resolution of the GPU names found in the wild.
//!
//! The data lives in `gpus.json` next to this file; the build reads it into
//! tables compiled into the binary (see [`compiled`]). Facts come from the project reference
//! `gpu-facts.md` §1. Names are accepted in the forms users and tools write
//! them:
//!
//! * short family names: `a100`, `h100`, `t4`, `4090`;
//! * family + memory and/or form factor: `a100-40g`, `a100-80gb`,
//!   `h100-sxm`, `a100-sxm4-40g`, `v100-32g`;
//! * catalog ids: `a100-sxm4-40gb`, `h100-nvl-94gb`;
//! * driver names (`nvidia-smi`, `cuDeviceGetName`): `NVIDIA A100-SXM4-40GB`,
//!   `NVIDIA H100 80GB HBM3`, `Tesla T4`, `NVIDIA H200`, also without the
//!   `NVIDIA ` prefix as very old drivers printed them (`A100-SXM4-80GB`);
//! * GPU Feature Discovery labels (`nvidia.com/gpu.product`):
//!   `NVIDIA-A100-SXM4-40GB`, `Tesla-T4`, with an optional MIG suffix
//!   (`-MIG-3g.40gb`) and/or `-SHARED` (time slicing), which are stripped and
//!   reported by [`resolve_detailed`].
//!
//! Matching is case-insensitive; spaces, `_` and `-` are interchangeable.

use std::collections::HashSet;
use std::sync::OnceLock;

pub use super::catalog_data::{Architecture, Gpu, Interconnect, LinkKind, PeakTflops};
use super::catalog_keys::{compact, normalize, strip_vendor};
use crate::dtype::{DType, Support};

/// Bytes per MiB.
const MIB: u64 = 1 << 20;

/// How far below the `nvidia-smi` total a reported memory size may be and
/// still match (CUDA's `totalGlobalMem` is a few hundred MiB lower; older
/// drivers also printed smaller totals): 5 %.
const MEM_TOLERANCE_BELOW: f64 = 0.05;

/// How far above the `nvidia-smi` total a reported memory size may be: 1 %.
const MEM_TOLERANCE_ABOVE: f64 = 0.01;

/// Maximum number of suggestions for an unknown name.
const MAX_SUGGESTIONS: usize = 3;

impl Gpu {
    /// Total memory in bytes (from the `nvidia-smi` MiB figure).
    pub fn memory_bytes(&self) -> u64 {
        self.memory_mib.saturating_mul(MIB)
    }

    /// Total memory in GiB (from the `nvidia-smi` MiB figure).
    pub fn memory_gib(&self) -> f64 {
        self.memory_mib as f64 / 1024.0
    }

    /// Whether a memory total reported by a driver (CUDA's `totalGlobalMem`
    /// or `nvidia-smi`, in bytes) is plausible for this GPU: between 5 % below
    /// and 1 % above the catalog's `nvidia-smi` figure.
    pub fn matches_memory(&self, total_mem_bytes: u64) -> bool {
        let reported = total_mem_bytes as f64 / MIB as f64;
        let smi = self.memory_mib as f64;
        reported >= smi * (1.0 - MEM_TOLERANCE_BELOW) && reported <= smi * (1.0 + MEM_TOLERANCE_ABOVE)
    }

    /// Dense peak TFLOPS (TOPS for INT8) for `dtype`, or `None` if the GPU has
    /// no native support or the catalog has no figure (FP64, FNUZ, E8M0).
    /// FP8 E4M3 and E5M2 share the FP8 rate; FP6 runs at the FP8 rate on
    /// GPUs with FP4 support (Blackwell).
    pub fn peak_tflops(&self, dtype: DType) -> Option<f64> {
        let t = &self.tflops;
        match dtype {
            DType::Fp32 => t.fp32,
            DType::Tf32 => t.tf32,
            DType::Fp16 => t.fp16,
            DType::Bf16 => t.bf16,
            DType::Fp8E4m3fn | DType::Fp8E5m2 => t.fp8,
            DType::Fp6E2m3 | DType::Fp6E3m2 => t.fp4.and(t.fp8),
            DType::Fp4E2m1 => t.fp4,
            DType::Int8 => t.int8,
            DType::Fp64 | DType::Fp8E4m3fnuz | DType::Fp8E5m2fnuz | DType::Fp8E8m0fnu => None,
        }
    }

    /// Whether `dtype` runs natively (tensor cores) on this GPU.
    pub fn supports(&self, dtype: DType) -> bool {
        dtype.runs_natively_on(self.compute_capability)
    }

    /// Native / emulated / unsupported for `dtype` on this GPU.
    pub fn support(&self, dtype: DType) -> Support {
        dtype.support_on(self.compute_capability)
    }
}

/// A MIG profile parsed from a name suffix such as `-MIG-3g.40gb`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MigProfile {
    /// The profile as written, lower-cased (e.g. `3g.40gb`, `1g.10gb+me`).
    pub raw: String,
    /// Number of compute (GPC) slices, the `3` of `3g.40gb`.
    pub compute_slices: Option<u32>,
    /// Memory of the slice in GB, the `40` of `3g.40gb`.
    pub memory_gb: Option<u32>,
}

impl MigProfile {
    /// Parses a profile such as `3g.40gb`; unparsable parts are `None`.
    pub fn parse(raw: &str) -> MigProfile {
        let raw = raw.trim().to_ascii_lowercase();
        let (compute, memory) = match raw.split_once('.') {
            Some((c, m)) => (Some(c), Some(m)),
            None => (None, None),
        };
        let compute_slices = compute.and_then(|c| c.strip_suffix('g')).and_then(|c| c.parse().ok());
        let memory_gb = memory.and_then(|m| {
            let digits: String = m.chars().take_while(char::is_ascii_digit).collect();
            if m.trim_start_matches(|c: char| c.is_ascii_digit()).starts_with("gb") {
                digits.parse().ok()
            } else {
                None
            }
        });
        MigProfile {
            raw,
            compute_slices,
            memory_gb,
        }
    }
}

/// What a GPU name resolves to.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// Exactly one catalog variant (also for single-variant families like `t4`).
    Exact(&'static Gpu),
    /// Several variants of one family: the whole family (`a100`) or a subset
    /// of it (`a100-40g` = the two 40 GB A100 variants).
    Family {
        /// The family id, e.g. `a100`.
        family: &'static str,
        /// The matching variants, in catalog order (at least two).
        variants: Vec<&'static Gpu>,
    },
    /// Not a known name.
    Unknown {
        /// Up to three closest known names, best first.
        suggestions: Vec<String>,
    },
}

impl Resolution {
    /// The variants the name stands for (empty when unknown).
    pub fn variants(&self) -> Vec<&'static Gpu> {
        match self {
            Resolution::Exact(g) => vec![*g],
            Resolution::Family { variants, .. } => variants.clone(),
            Resolution::Unknown { .. } => Vec::new(),
        }
    }

    /// The single variant, if the name is exact.
    pub fn exact(&self) -> Option<&'static Gpu> {
        match self {
            Resolution::Exact(g) => Some(*g),
            _ => None,
        }
    }

    /// The family id, if the name is known.
    pub fn family(&self) -> Option<&'static str> {
        match self {
            Resolution::Exact(g) => Some(g.family.as_str()),
            Resolution::Family { family, .. } => Some(family),
            Resolution::Unknown { .. } => None,
        }
    }

    /// Whether the name resolved to at least one variant.
    pub fn is_known(&self) -> bool {
        !matches!(self, Resolution::Unknown { .. })
    }
}

/// A resolution together with the suffixes stripped from the name.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// What the base name resolves to.
    pub resolution: Resolution,
    /// MIG profile from a `-MIG-<profile>` suffix.
    pub mig: Option<MigProfile>,
    /// Whether a `-SHARED` (time-slicing) suffix was present.
    pub shared: bool,
}

/// The catalog compiled in: `build.rs` reads `gpus.json` with the types of
/// `catalog_data.rs` and computes the name index with `catalog_keys.rs`, so
/// a check decodes nothing and builds no index (`gpus.rs` in the build's
/// output folder holds the result; a test compares it with the file).
mod compiled {
    use super::{Architecture, Gpu, Interconnect, LinkKind, PeakTflops};

    include!(concat!(env!("OUT_DIR"), "/gpus.rs"));
}

/// The variants, made once from the compiled-in table.
struct Catalog {
    gpus: Vec<Gpu>,
}

static CATALOG: OnceLock<Catalog> = OnceLock::new();

fn catalog() -> &'static Catalog {
    CATALOG.get_or_init(|| Catalog { gpus: compiled::gpus() })
}

/// The entry of a sorted table under `key`.
fn keyed<T>(table: &'static [(&'static str, T)], key: &str) -> Option<&'static T> {
    table
        .binary_search_by(|(k, _)| (*k).cmp(key))
        .ok()
        .and_then(|i| table.get(i))
        .map(|(_, v)| v)
}

impl Catalog {
    fn resolution(&'static self, targets: &[u16]) -> Option<Resolution> {
        let variants: Vec<&'static Gpu> = targets.iter().filter_map(|&i| self.gpus.get(usize::from(i))).collect();
        match variants.as_slice() {
            [] => None,
            [one] => Some(Resolution::Exact(one)),
            [first, ..] => Some(Resolution::Family {
                family: first.family.as_str(),
                variants,
            }),
        }
    }

    /// What `base` resolves to; an unknown name with suggestions only when
    /// `suggest` (they cost a comparison with every known name).
    fn lookup(&'static self, base: &str, suggest: bool) -> Resolution {
        if let Some(&i) = keyed(compiled::DRIVER, base) {
            if let Some(r) = self.resolution(&[i]) {
                return r;
            }
        }
        let short = strip_vendor(base);
        if let Some(r) = keyed(compiled::NAMES, short).and_then(|(_, t)| self.resolution(t)) {
            return r;
        }
        if let Some(r) = keyed(compiled::COMPACT, &compact(short)).and_then(|(_, t)| self.resolution(t)) {
            return r;
        }
        Resolution::Unknown {
            suggestions: if suggest { self.suggest(short) } else { Vec::new() },
        }
    }

    /// Closest index keys by (confusable-folded) Damerau–Levenshtein
    /// distance, at most one per distinct target set.
    fn suggest(&self, input: &str) -> Vec<String> {
        if !crate::suggest::worth_suggesting(input) {
            return Vec::new();
        }
        let folded_input = fold(input);
        let limit = (input.chars().count() / 3).max(2);
        // Sort key: folded distance, raw distance, longer common prefix
        // first, listed in `known_names` first, shorter first, then the name.
        type Score = (usize, usize, usize, bool, usize, &'static str);
        let mut scored: Vec<(Score, &'static [u16])> = compiled::NAMES
            .iter()
            .filter_map(|&(key, (_, targets))| {
                let folded = strsim::damerau_levenshtein(&folded_input, &fold(key));
                (folded <= limit).then(|| {
                    let raw = strsim::damerau_levenshtein(input, key);
                    let prefix = input.chars().zip(key.chars()).take_while(|(a, b)| a == b).count();
                    let unlisted = compiled::KNOWN.binary_search(&key).is_err();
                    ((folded, raw, usize::MAX - prefix, unlisted, key.len(), key), targets)
                })
            })
            .collect();
        scored.sort_by(|a, b| a.0.cmp(&b.0));
        let mut seen: HashSet<&[u16]> = HashSet::new();
        scored
            .into_iter()
            .filter(|(_, targets)| seen.insert(*targets))
            .take(MAX_SUGGESTIONS)
            .map(|(score, _)| score.5.to_string())
            .collect()
    }
}

/// Maps visually confusable characters together (`o`→`0`, `l`/`i`→`1`) for ranking suggestions.
fn fold(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'o' => '0',
            'l' | 'i' => '1',
            c => c,
        })
        .collect()
}

/// Splits `-shared` and `-mig-<profile>` suffixes off a normalized name.
fn split_suffixes(norm: &str) -> (&str, Option<MigProfile>, bool) {
    let (rest, shared) = match norm.strip_suffix("-shared") {
        Some(rest) => (rest, true),
        None => (norm, false),
    };
    match rest.rsplit_once("-mig-") {
        Some((base, profile)) => (base, Some(MigProfile::parse(profile)), shared),
        None => (rest, None, shared),
    }
}

/// Every GPU variant in the catalog, in data-file order.
pub fn all() -> &'static [Gpu] {
    &catalog().gpus
}

/// Looks up a variant by its catalog id (exact, case-insensitive).
pub fn by_id(id: &str) -> Option<&'static Gpu> {
    let id = normalize(id);
    all().iter().find(|g| g.id == id)
}

/// Family ids with their display names (`("a100", "A100")`, …), sorted by id.
pub fn families() -> Vec<(&'static str, &'static str)> {
    compiled::FAMILIES.to_vec()
}

/// The variants of a family, in catalog order (empty for unknown families).
pub fn family_variants(family: &str) -> Vec<&'static Gpu> {
    let family = normalize(family);
    all().iter().filter(|g| g.family == family).collect()
}

/// Names for editor completion: family names and aliases, catalog ids,
/// variant aliases and `<family>-<memory>g` forms; sorted, lower-case.
pub fn known_names() -> Vec<&'static str> {
    compiled::KNOWN.to_vec()
}

/// Resolves a GPU name (see the module docs for accepted forms), ignoring
/// any `-MIG-…`/`-SHARED` suffix.
pub fn resolve(name: &str) -> Resolution {
    resolve_detailed(name).resolution
}

/// Resolves a GPU name and reports the MIG profile / `-SHARED` suffix that
/// was stripped from it (e.g. `NVIDIA-A100-SXM4-80GB-MIG-3g.40gb`).
pub fn resolve_detailed(name: &str) -> Resolved {
    resolve_with(name, true)
}

/// [`resolve_detailed`] without suggestions for an unknown name, for a
/// caller that only asks what a name stands for (an inventory's nodes: a
/// hostile one names 100,000 unknown types).
pub fn resolve_quietly(name: &str) -> Resolved {
    resolve_with(name, false)
}

fn resolve_with(name: &str, suggest: bool) -> Resolved {
    let norm = normalize(name);
    let (base, mig, shared) = split_suffixes(&norm);
    Resolved {
        resolution: catalog().lookup(base, suggest),
        mig,
        shared,
    }
}

/// Whether GPUs offered under the name `offered` satisfy a request for
/// `requested`: every variant `offered` may denote must be one of the
/// variants `requested` allows. So `a100` is satisfied by `a100-40g`,
/// `a100-80g` or `NVIDIA A100-SXM4-80GB`, but `a100-40g` is not satisfied by
/// an 80 GB part nor by plain `a100`, and different families never satisfy
/// each other. A MIG profile must match on both sides (a MIG slice does not
/// satisfy a whole-GPU request); `-SHARED` is ignored. Unknown names never
/// satisfy or get satisfied.
pub fn satisfies(requested: &str, offered: &str) -> bool {
    let req = resolve_quietly(requested);
    let off = resolve_quietly(offered);
    if req.mig.as_ref().map(|m| &m.raw) != off.mig.as_ref().map(|m| &m.raw) {
        return false;
    }
    let allowed = req.resolution.variants();
    let offered = off.resolution.variants();
    !offered.is_empty() && offered.iter().all(|o| allowed.iter().any(|a| std::ptr::eq(*a, *o)))
}

/// Whether a GPU is a data-center GPU (where CUDA forward compatibility
/// works): not a GeForce or RTX workstation card.
pub fn is_datacenter(gpu: &Gpu) -> bool {
    !(gpu.family.starts_with("rtx") || gpu.name.contains("GeForce") || gpu.name.contains(" RTX "))
}

/// The one answer to "do GPUs offered as `offered` serve a request for
/// `requested`?", used wherever supply meets demand. Beyond [`satisfies`], GPUs labelled only with their
/// family (an operator's `gpu.type=a100`) serve any request of that family:
/// the label cannot say which variant the node has, and such clusters are
/// labelled that way precisely to match these requests. Label nodes with GPU
/// Feature Discovery for variant-exact matching.
pub fn serves(requested: &str, offered: &str) -> bool {
    if satisfies(requested, offered) {
        return true;
    }
    match resolve_quietly(offered).resolution {
        Resolution::Family { family, .. } => {
            offered.eq_ignore_ascii_case(family) && resolve_quietly(requested).resolution.family() == Some(family)
        }
        _ => false,
    }
}

/// Identifies the GPU a runtime probe saw from its device name
/// (`cuDeviceGetName`) and total memory in bytes (`cuDeviceTotalMem`, which is
/// a few hundred MiB below the `nvidia-smi` figure). The name decides first;
/// if it denotes several variants, the memory picks the one within
/// tolerance. Returns `None` for unknown names or when memory does not
/// single out one variant.
pub fn match_probe(name: &str, total_mem_bytes: u64) -> Option<&'static Gpu> {
    match resolve_quietly(name).resolution {
        Resolution::Exact(g) => Some(g),
        Resolution::Family { variants, .. } => {
            let mut fitting = variants.into_iter().filter(|g| g.matches_memory(total_mem_bytes));
            match (fitting.next(), fitting.next()) {
                (Some(g), None) => Some(g),
                _ => None,
            }
        }
        Resolution::Unknown { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(r: &Resolution) -> Vec<&'static str> {
        let mut v: Vec<&str> = r.variants().iter().map(|g| g.id.as_str()).collect();
        v.sort_unstable();
        v
    }

    fn exact_id(name: &str) -> &'static str {
        match resolve_quietly(name).resolution {
            Resolution::Exact(g) => g.id.as_str(),
            other => panic!("{name:?} resolved to {other:?}, expected exact"),
        }
    }

    #[test]
    fn compiled_catalog_is_the_file() {
        let data: super::super::catalog_data::CatalogData = match serde_json::from_str(include_str!("gpus.json")) {
            Ok(data) => data,
            Err(e) => panic!("gpus.json does not read: {e}"),
        };
        assert!(all().len() >= 26);
        assert_eq!(all(), data.gpus.as_slice());
        let read: Vec<(&str, &str)> = data
            .families
            .iter()
            .map(|(id, f)| (id.as_str(), f.name.as_str()))
            .collect();
        assert_eq!(families(), read);
        // The index the build computed, against the same function run here.
        let index = super::super::catalog_keys::build(&data.gpus, &data.families);
        let driver: Vec<(String, usize)> = compiled::DRIVER
            .iter()
            .map(|&(k, i)| (k.to_string(), usize::from(i)))
            .collect();
        assert_eq!(driver, index.driver);
        type Table = [(&'static str, (u8, &'static [u16]))];
        let owned = |table: &Table| -> Vec<(String, u8, Vec<usize>)> {
            table
                .iter()
                .map(|&(k, (r, t))| (k.to_string(), r, t.iter().map(|&i| usize::from(i)).collect()))
                .collect()
        };
        assert_eq!(owned(compiled::NAMES), index.names);
        assert_eq!(owned(compiled::COMPACT), index.compact);
        assert_eq!(
            known_names(),
            index.known.iter().map(String::as_str).collect::<Vec<_>>()
        );
    }

    #[test]
    fn entries_are_consistent() {
        let mut seen_ids = HashSet::new();
        let mut seen_driver = HashSet::new();
        let fams: Vec<&str> = families().iter().map(|(id, _)| *id).collect();
        for g in all() {
            assert!(seen_ids.insert(g.id.as_str()), "duplicate id {}", g.id);
            assert_eq!(g.id, normalize(&g.id), "id not normalized: {}", g.id);
            assert!(!g.family.is_empty(), "{}", g.id);
            assert!(fams.contains(&g.family.as_str()), "family {} not listed", g.family);
            assert!(g.id.starts_with(&g.family), "{} not in family {}", g.id, g.family);
            let (major, minor) = g.compute_capability;
            assert!((7..=12).contains(&major) && minor <= 9, "{}: CC {major}.{minor}", g.id);
            let arch_cc = match g.architecture {
                Architecture::Volta => (7, 0),
                Architecture::Turing => (7, 5),
                Architecture::Ampere => (8, 0),
                Architecture::Ada => (8, 9),
                Architecture::Hopper => (9, 0),
                Architecture::Blackwell => (10, 0),
            };
            assert!(g.compute_capability >= arch_cc, "{}: CC vs arch", g.id);
            assert!(g.memory_gb >= 16 && g.memory_gb <= 200, "{}", g.id);
            // smi MiB within 15 % of the marketed GB (GDDR parts report less, B200 192 vs 180).
            let gib = g.memory_gib();
            let gb = f64::from(g.memory_gb);
            assert!(gib > gb * 0.85 && gib < gb * 1.05, "{}: {gib} GiB vs {gb} GB", g.id);
            assert!(g.memory_bandwidth_gbps >= 300.0 && g.memory_bandwidth_gbps <= 8000.0);
            assert!(!g.driver_names.is_empty(), "{}", g.id);
            for d in &g.driver_names {
                assert!(seen_driver.insert(normalize(d)), "duplicate driver name {d}");
                assert_eq!(exact_id(d), g.id, "driver name {d}");
                // GFD label form: spaces replaced by dashes.
                assert_eq!(exact_id(&d.replace(' ', "-")), g.id, "label for {d}");
            }
            assert_eq!(exact_id(&g.id), g.id);
            assert_eq!(by_id(&g.id).map(|x| x.id.as_str()), Some(g.id.as_str()));
            for alias in &g.aliases {
                assert_eq!(exact_id(alias), g.id);
            }
            // Throughput figures exist exactly for the natively supported dtypes.
            for dt in DType::ALL {
                if matches!(
                    dt,
                    DType::Fp64 | DType::Fp8E4m3fnuz | DType::Fp8E5m2fnuz | DType::Fp8E8m0fnu
                ) {
                    assert_eq!(g.peak_tflops(dt), None);
                    continue;
                }
                assert_eq!(
                    g.peak_tflops(dt).is_some(),
                    g.supports(dt),
                    "{}: {dt} figure vs native support",
                    g.id
                );
            }
            let t = &g.tflops;
            for v in [t.fp32, t.tf32, t.fp16, t.bf16, t.fp8, t.int8, t.fp4]
                .into_iter()
                .flatten()
            {
                assert!(v > 0.0 && v < 20000.0, "{}", g.id);
            }
            if let (Some(fp16), Some(fp8)) = (t.fp16, t.fp8) {
                assert!(fp8 >= fp16, "{}", g.id);
            }
        }
    }

    #[test]
    fn index_targets_stay_within_one_family() {
        for (key, (_, targets)) in compiled::NAMES {
            let fams: HashSet<&str> = targets.iter().map(|&i| all()[usize::from(i)].family.as_str()).collect();
            assert_eq!(fams.len(), 1, "{key} spans families {fams:?}");
        }
        for name in known_names() {
            assert!(resolve(name).is_known(), "{name}");
        }
    }

    #[test]
    fn short_family_names() {
        let a100 = resolve("a100");
        assert_eq!(
            ids(&a100),
            ["a100-pcie-40gb", "a100-pcie-80gb", "a100-sxm4-40gb", "a100-sxm4-80gb"]
        );
        assert_eq!(a100.family(), Some("a100"));
        assert!(matches!(a100, Resolution::Family { family: "a100", .. }));
        assert_eq!(
            ids(&resolve("H100")),
            ["h100-nvl-94gb", "h100-pcie-80gb", "h100-sxm5-80gb"]
        );
        assert_eq!(exact_id("t4"), "t4");
        assert_eq!(exact_id("T4"), "t4");
        assert_eq!(ids(&resolve("h200")), ["h200-nvl-141gb", "h200-sxm-141gb"]);
        assert_eq!(ids(&resolve("v100")).len(), 4);
        assert_eq!(exact_id("4090"), "rtx-4090");
        assert_eq!(exact_id("RTX 4090"), "rtx-4090");
        assert_eq!(exact_id("rtx4090"), "rtx-4090");
        assert_eq!(exact_id("a6000"), "rtx-a6000");
        assert_eq!(exact_id("L40S"), "l40s");
        assert_eq!(exact_id("l40"), "l40");
        assert_eq!(exact_id("a10"), "a10");
        assert_eq!(exact_id("a10g"), "a10g");
        assert_eq!(exact_id("gb200"), "gb200");
        assert_eq!(exact_id("b200"), "b200");
        assert_eq!(exact_id("h20"), "h20");
    }

    #[test]
    fn family_plus_memory() {
        for n in ["a100-40g", "a100-40gb", "A100 40GB", "a100_40g"] {
            assert_eq!(ids(&resolve(n)), ["a100-pcie-40gb", "a100-sxm4-40gb"], "{n}");
        }
        assert_eq!(ids(&resolve("a100-80g")), ["a100-pcie-80gb", "a100-sxm4-80gb"]);
        assert_eq!(ids(&resolve("h100-80g")), ["h100-pcie-80gb", "h100-sxm5-80gb"]);
        assert_eq!(ids(&resolve("v100-32g")), ["v100-pcie-32gb", "v100-sxm2-32gb"]);
        assert_eq!(exact_id("h100-94g"), "h100-nvl-94gb");
        assert_eq!(exact_id("t4-16g"), "t4");
        assert_eq!(exact_id("b200-192gb"), "b200");
        assert_eq!(ids(&resolve("a100-sxm4")), ["a100-sxm4-40gb", "a100-sxm4-80gb"]);
        assert_eq!(exact_id("a100-sxm-80g"), "a100-sxm4-80gb");
        assert_eq!(exact_id("h100-sxm"), "h100-sxm5-80gb");
        assert_eq!(exact_id("h100-pcie"), "h100-pcie-80gb");
        assert_eq!(exact_id("h100-nvl"), "h100-nvl-94gb");
        assert_eq!(exact_id("h200-nvl"), "h200-nvl-141gb");
        assert_eq!(exact_id("a100sxm480gb"), "a100-sxm4-80gb");
    }

    #[test]
    fn full_ids() {
        for g in all() {
            assert_eq!(exact_id(&g.id.to_uppercase()), g.id);
        }
        assert_eq!(exact_id("a100-sxm4-40gb"), "a100-sxm4-40gb");
        assert_eq!(exact_id("h100-sxm5-80gb"), "h100-sxm5-80gb");
    }

    #[test]
    fn driver_names() {
        assert_eq!(exact_id("NVIDIA A100-SXM4-40GB"), "a100-sxm4-40gb");
        assert_eq!(exact_id("NVIDIA H100 80GB HBM3"), "h100-sxm5-80gb");
        assert_eq!(exact_id("Tesla T4"), "t4");
        assert_eq!(exact_id("NVIDIA H200"), "h200-sxm-141gb");
        assert_eq!(exact_id("NVIDIA H200 NVL"), "h200-nvl-141gb");
        assert_eq!(exact_id("NVIDIA A100 80GB PCIe"), "a100-pcie-80gb");
        assert_eq!(exact_id("NVIDIA GeForce RTX 4090"), "rtx-4090");
        assert_eq!(exact_id("Tesla V100-SXM2-32GB"), "v100-sxm2-32gb");
        assert_eq!(exact_id("NVIDIA L4"), "l4");
        // Old drivers without the vendor prefix.
        assert_eq!(exact_id("A100-SXM4-80GB"), "a100-sxm4-80gb");
        assert_eq!(exact_id("H100 80GB HBM3"), "h100-sxm5-80gb");
        assert_eq!(exact_id("V100-PCIE-16GB"), "v100-pcie-16gb");
    }

    #[test]
    fn gh200_is_its_own_family() {
        assert_eq!(exact_id("NVIDIA GH200 480GB"), "gh200-96gb");
        assert_eq!(exact_id("NVIDIA-GH200-480GB"), "gh200-96gb");
        assert_eq!(exact_id("NVIDIA GH200 144G HBM3e"), "gh200-144gb");
        assert_eq!(exact_id("gh200-96g"), "gh200-96gb");
        assert_eq!(exact_id("gh200-144gb"), "gh200-144gb");
        assert_eq!(ids(&resolve("gh200")), ["gh200-144gb", "gh200-96gb"]);
        for id in ["gh200-96gb", "gh200-144gb"] {
            let g = by_id(id).unwrap_or_else(|| panic!("{id} missing"));
            assert_eq!((g.architecture, g.compute_capability), (Architecture::Hopper, (9, 0)));
            assert!(g.supports(DType::Fp8E4m3fn) && g.supports(DType::Bf16));
        }
        // Grace Hopper is neither an H200 nor a GB200, in either direction.
        for (requested, offered) in [
            ("h200", "NVIDIA GH200 480GB"),
            ("h100", "NVIDIA GH200 480GB"),
            ("gh200", "NVIDIA H200"),
            ("gb200", "NVIDIA GH200 144G HBM3e"),
            ("gh200", "NVIDIA GB200"),
        ] {
            assert!(!serves(requested, offered), "{requested} served by {offered}");
        }
        assert!(serves("gh200", "NVIDIA GH200 144G HBM3e"));
        assert!(serves("gh200-96g", "NVIDIA GH200 480GB"));
        assert!(!serves("gh200-144g", "NVIDIA GH200 480GB"));
        // A probe's CUDA totals (a little below nvidia-smi's) match.
        let probed = |name: &str, bytes: u64| match_probe(name, bytes).map(|g| g.id.as_str());
        assert_eq!(probed("NVIDIA GH200 480GB", 101_468_602_368), Some("gh200-96gb"));
        assert_eq!(probed("GH200", 153_008_209_920), Some("gh200-144gb"));
        assert_eq!(probed("GH200", 101_468_602_368), Some("gh200-96gb"));
        // A MIG slice of one resolves to its GPU, with the profile apart.
        let r = resolve_detailed("NVIDIA-GH200-144G-HBM3e-MIG-1g.18gb");
        assert_eq!(r.resolution.exact().map(|g| g.id.as_str()), Some("gh200-144gb"));
        assert_eq!(r.mig.map(|m| m.raw), Some("1g.18gb".to_string()));
    }

    #[test]
    fn gfd_labels_and_suffixes() {
        assert_eq!(exact_id("NVIDIA-A100-SXM4-40GB"), "a100-sxm4-40gb");
        assert_eq!(exact_id("NVIDIA-H100-80GB-HBM3"), "h100-sxm5-80gb");
        assert_eq!(exact_id("Tesla-T4"), "t4");
        assert_eq!(exact_id("NVIDIA-GeForce-RTX-4090"), "rtx-4090");
        assert_eq!(exact_id("NVIDIA-H200"), "h200-sxm-141gb");

        let r = resolve_detailed("NVIDIA-A100-SXM4-80GB-MIG-3g.40gb");
        assert_eq!(r.resolution.exact().map(|g| g.id.as_str()), Some("a100-sxm4-80gb"));
        assert_eq!(
            r.mig,
            Some(MigProfile {
                raw: "3g.40gb".into(),
                compute_slices: Some(3),
                memory_gb: Some(40)
            })
        );
        assert!(!r.shared);

        let r = resolve_detailed("NVIDIA-A100-SXM4-40GB-MIG-3g.40gb");
        assert_eq!(r.resolution.exact().map(|g| g.id.as_str()), Some("a100-sxm4-40gb"));
        assert_eq!(r.mig.as_ref().and_then(|m| m.compute_slices), Some(3));

        let r = resolve_detailed("Tesla-T4-SHARED");
        assert_eq!(r.resolution.exact().map(|g| g.id.as_str()), Some("t4"));
        assert!(r.shared);
        assert_eq!(r.mig, None);

        let r = resolve_detailed("NVIDIA-A100-SXM4-80GB-MIG-1g.10gb+me-SHARED");
        assert_eq!(r.resolution.exact().map(|g| g.id.as_str()), Some("a100-sxm4-80gb"));
        assert!(r.shared);
        assert_eq!(r.mig.as_ref().map(|m| m.raw.as_str()), Some("1g.10gb+me"));
        assert_eq!(r.mig.as_ref().and_then(|m| m.memory_gb), Some(10));

        // nvidia-smi's name for a MIG device.
        let r = resolve_detailed("NVIDIA A100-SXM4-40GB MIG 3g.20gb");
        assert_eq!(r.resolution.exact().map(|g| g.id.as_str()), Some("a100-sxm4-40gb"));
        assert_eq!(r.mig.as_ref().and_then(|m| m.memory_gb), Some(20));

        let plain = resolve_detailed("a100");
        assert_eq!(plain.mig, None);
        assert!(!plain.shared);
    }

    #[test]
    fn unknown_names_get_suggestions() {
        let sugg = |n: &str| match resolve(n) {
            Resolution::Unknown { suggestions } => suggestions,
            other => panic!("{n:?} unexpectedly resolved to {other:?}"),
        };
        let s = sugg("a10O");
        assert_eq!(s.first().map(String::as_str), Some("a100"), "{s:?}");
        assert!(s.len() <= 3);
        assert_eq!(sugg("h1OO").first().map(String::as_str), Some("h100"));
        assert!(sugg("a100-40").contains(&"a100-40g".to_string()));
        assert!(sugg("l40x").contains(&"l40s".to_string()) || sugg("l40x").contains(&"l40".to_string()));
        assert!(sugg("mi300x").len() <= 3);
        assert_eq!(sugg("h10").first().map(String::as_str), Some("h100"));
        assert_eq!(sugg("rtx-4080"), ["rtx-4090"]);
        assert!(sugg("mi300x").is_empty());
        assert!(sugg("completely-unrelated-accelerator").is_empty());
        assert!(sugg("").is_empty());
        for n in ["a100", "t4", "h100-80g"] {
            assert!(resolve(n).is_known());
        }
    }

    #[test]
    fn nvidia_prefix_on_family_names() {
        // Driver-less spellings like `NVIDIA H100` fall back to the family.
        assert_eq!(ids(&resolve("NVIDIA H100")).len(), 3);
        assert_eq!(ids(&resolve("nvidia-a100")).len(), 4);
    }

    #[test]
    fn satisfaction() {
        assert!(satisfies("a100", "a100-40g"));
        assert!(satisfies("a100", "a100-80g"));
        assert!(satisfies("a100", "NVIDIA A100-SXM4-80GB"));
        assert!(satisfies("a100", "NVIDIA-A100-SXM4-40GB"));
        assert!(satisfies("a100", "a100"));
        assert!(satisfies("a100-40g", "a100-sxm4-40gb"));
        assert!(satisfies("a100-40g", "NVIDIA A100-PCIE-40GB"));
        assert!(!satisfies("a100-40g", "a100-80g"));
        assert!(!satisfies("a100-40g", "NVIDIA A100-SXM4-80GB"));
        assert!(!satisfies("a100-40g", "a100"));
        assert!(!satisfies("a100", "h100"));
        assert!(!satisfies("h100", "a100-80g"));
        assert!(!satisfies("a10", "a10g"));
        assert!(!satisfies("l40", "l40s"));
        assert!(satisfies("h200", "NVIDIA H200"));
        assert!(satisfies("t4", "Tesla-T4-SHARED"));
        assert!(!satisfies("a100", "NVIDIA-A100-SXM4-40GB-MIG-3g.20gb"));
        assert!(satisfies("a100-mig-3g.20gb", "NVIDIA-A100-SXM4-40GB-MIG-3g.20gb"));
        assert!(!satisfies("nonsense", "a100"));
        assert!(!satisfies("a100", "nonsense"));
    }

    #[test]
    fn probe_matching() {
        let mib = |m: u64| m * MIB;
        let id = |g: Option<&Gpu>| g.map(|g| g.id.clone());
        assert_eq!(
            id(match_probe("NVIDIA A100-SXM4-40GB", mib(40339))),
            Some("a100-sxm4-40gb".into())
        );
        assert_eq!(id(match_probe("Tesla T4", mib(15102))), Some("t4".into()));
        assert_eq!(
            id(match_probe("NVIDIA H100 80GB HBM3", mib(81559))),
            Some("h100-sxm5-80gb".into())
        );
        // A family name narrowed by memory.
        assert_eq!(id(match_probe("NVIDIA H100", mib(95000))), Some("h100-nvl-94gb".into()));
        assert_eq!(id(match_probe("V100", mib(32500))), None); // SXM2 or PCIe: ambiguous
        assert_eq!(id(match_probe("v100-sxm2", mib(32500))), Some("v100-sxm2-32gb".into()));
        assert_eq!(id(match_probe("v100-sxm2", mib(16000))), Some("v100-sxm2-16gb".into()));
        assert_eq!(id(match_probe("NVIDIA B300 SXM6 AC", mib(275040))), None);
        let a100_80_pcie = by_id("a100-pcie-80gb");
        assert!(a100_80_pcie.is_some_and(|g| g.matches_memory(mib(81154))));
        assert!(a100_80_pcie.is_some_and(|g| !g.matches_memory(mib(40960))));
        let v100 = by_id("v100-sxm2-32gb");
        assert!(v100.is_some_and(|g| g.matches_memory(mib(32494)) && g.matches_memory(mib(32510))));
    }

    #[test]
    fn dtype_support_through_catalog() {
        let get = |id: &str| by_id(id).map(|g| g.compute_capability);
        let a100 = get("a100-sxm4-40gb").unwrap_or_default();
        let l4 = get("l4").unwrap_or_default();
        let h100 = get("h100-sxm5-80gb").unwrap_or_default();
        let t4 = get("t4").unwrap_or_default();
        assert_eq!(a100, (8, 0));
        assert_eq!(l4, (8, 9));
        assert!(!DType::Fp8E4m3fn.runs_natively_on(a100));
        assert!(DType::Fp8E4m3fn.runs_natively_on(l4));
        assert!(DType::Fp8E4m3fn.runs_natively_on(h100));
        assert!(!DType::Bf16.runs_natively_on(t4));
        assert_eq!(by_id("a10").map(|g| g.supports(DType::Fp8E4m3fn)), Some(false));
        assert_eq!(
            by_id("h100-sxm5-80gb").and_then(|g| g.peak_tflops(DType::Bf16)),
            Some(989.0)
        );
        assert_eq!(by_id("l4").and_then(|g| g.peak_tflops(DType::Fp8E5m2)), Some(242.5));
        assert_eq!(by_id("b200").and_then(|g| g.peak_tflops(DType::Fp6E2m3)), Some(4500.0));
        assert_eq!(by_id("t4").map(|g| g.support(DType::Bf16)), Some(Support::Emulated));
    }

    #[test]
    fn known_names_for_completion() {
        let names = known_names();
        for n in [
            "a100",
            "h100",
            "t4",
            "a100-40g",
            "a100-80g",
            "a100-sxm4-40gb",
            "rtx-4090",
            "4090",
        ] {
            assert!(names.contains(&n), "{n} missing");
        }
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, names);
    }

    #[test]
    fn normalization_helpers() {
        assert_eq!(normalize("  NVIDIA  A100__80GB PCIe "), "nvidia-a100-80gb-pcie");
        assert_eq!(strip_vendor("nvidia-tesla-t4"), "t4");
        assert_eq!(split_suffixes("x-mig-2g.10gb-shared").0, "x");
        assert_eq!(MigProfile::parse("7g.80gb").memory_gb, Some(80));
        assert_eq!(MigProfile::parse("weird").compute_slices, None);
    }
}
