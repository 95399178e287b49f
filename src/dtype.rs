//! Numeric data types ("dtypes") as plain data.
//!
//! This module knows the canonical names and common aliases of the dtypes
//! that appear in PyTorch training configs, their numeric properties
//! (exponent/mantissa bits, largest finite value, smallest normal value, …),
//! the NVIDIA compute capability from which they run natively on tensor
//! cores, and how risky a cast between two of them is.
//!
//! All facts come from the project reference `gpu-facts.md` (§2 "Dtype
//! support by compute capability" and §3 "Dtype numeric facts"); FP64 and
//! INT8, which that table does not list, use their IEEE 754 / two's
//! complement definitions.

use std::fmt;
use std::str::FromStr;

/// A numeric element type.
///
/// The canonical (lower-case, snake-case) spelling of each variant is given
/// by [`DType::canonical_name`]; [`parse`] accepts many aliases (`half`,
/// `torch.bfloat16`, `e4m3`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// IEEE 754 binary64 (`torch.float64`, `torch.double`).
    Fp64,
    /// IEEE 754 binary32 (`torch.float32`, `torch.float`).
    Fp32,
    /// NVIDIA TensorFloat-32: an FP32 matmul/conv mode with a 10-bit mantissa
    /// (no storage dtype in PyTorch).
    Tf32,
    /// IEEE 754 binary16 (`torch.float16`, `torch.half`).
    Fp16,
    /// bfloat16 (`torch.bfloat16`).
    Bf16,
    /// FP8 E4M3 without infinities (`torch.float8_e4m3fn`), max 448.
    Fp8E4m3fn,
    /// FP8 E5M2 (`torch.float8_e5m2`), max 57344.
    Fp8E5m2,
    /// FP8 E4M3, no inf, no negative zero (`torch.float8_e4m3fnuz`; AMD MI300), max 240.
    Fp8E4m3fnuz,
    /// FP8 E5M2, no inf, no negative zero (`torch.float8_e5m2fnuz`; AMD MI300).
    Fp8E5m2fnuz,
    /// E8M0 power-of-two scale type used by MX formats (`torch.float8_e8m0fnu`).
    Fp8E8m0fnu,
    /// FP6 E2M3 (MX element type; no PyTorch dtype).
    Fp6E2m3,
    /// FP6 E3M2 (MX element type; no PyTorch dtype).
    Fp6E3m2,
    /// FP4 E2M1 (NVFP4/MXFP4 element type; `torch.float4_e2m1fn_x2` packs two per byte).
    Fp4E2m1,
    /// Signed 8-bit integer (`torch.int8`).
    Int8,
}

/// Numeric properties of a dtype (values from `ml_dtypes.finfo`, see the facts file §3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumericInfo {
    /// Number of sign bits (0 or 1).
    pub sign_bits: u32,
    /// Number of exponent bits (0 for integers).
    pub exponent_bits: u32,
    /// Number of explicitly stored mantissa bits (for `int8`: the 7 value bits).
    pub mantissa_bits: u32,
    /// Largest finite value.
    pub max_finite: f64,
    /// Smallest positive normal value (for `int8`: 1).
    pub min_normal: f64,
    /// Machine epsilon, 2^-mantissa_bits (`None` where not meaningful).
    pub epsilon: Option<f64>,
    /// Smallest positive subnormal value (`None` if the format has no subnormals).
    pub min_subnormal: Option<f64>,
    /// Whether the format can represent infinities.
    pub has_inf: bool,
    /// Whether the format has NaN encodings.
    pub has_nan: bool,
    /// Whether the format can represent zero (`fp8_e8m0fnu` cannot).
    pub has_zero: bool,
    /// Whether the format has a distinct negative zero.
    pub has_negative_zero: bool,
    /// Whether this is a floating-point format (false for `int8`).
    pub is_float: bool,
}

impl NumericInfo {
    /// Smallest positive representable value (subnormal if the format has them).
    pub fn min_positive(&self) -> f64 {
        self.min_subnormal.unwrap_or(self.min_normal)
    }
}

/// How well a dtype is supported on a given compute capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Support {
    /// Runs on tensor cores / natively in hardware.
    Native,
    /// Runs, but through a slow fallback (e.g. BF16 on sm_70/sm_75 via FP32
    /// math, INT8 via DP4A on V100, TF32 requests falling back to FP32).
    Emulated,
    /// Not available (e.g. `torch._scaled_mm` raises for FP8 below sm_89).
    Unsupported,
}

/// Risk of converting values from one dtype to another.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CastRisk {
    /// Every finite source value is exactly representable in the target.
    Exact,
    /// Range is preserved, but values are rounded (fewer mantissa bits).
    PrecisionLoss,
    /// Values may overflow (to inf/NaN) or underflow (to 0), or lose their
    /// sign. `from_max`/`to_max` are the largest finite values of the two
    /// types; when `to_max >= from_max` the loss is at the small end
    /// (underflow) or in the sign.
    RangeLoss {
        /// Largest finite value of the source dtype.
        from_max: f64,
        /// Largest finite value of the target dtype.
        to_max: f64,
    },
}

impl CastRisk {
    /// True for [`CastRisk::Exact`].
    pub fn is_exact(&self) -> bool {
        matches!(self, CastRisk::Exact)
    }

    /// True for [`CastRisk::RangeLoss`].
    pub fn is_range_loss(&self) -> bool {
        matches!(self, CastRisk::RangeLoss { .. })
    }
}

/// Error returned by [`DType::from_str`]: the input and the closest known names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseDTypeError {
    /// The input that could not be parsed.
    pub input: String,
    /// Up to three closest known names (see [`suggest`]).
    pub suggestions: Vec<&'static str>,
}

impl fmt::Display for ParseDTypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown dtype `{}`", self.input)?;
        if !self.suggestions.is_empty() {
            write!(f, "; did you mean `{}`?", self.suggestions.join("`, `"))?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseDTypeError {}

/// Casts whose target maximum is within this relative margin of the source
/// maximum are not reported as range loss (FP32→BF16: only |x| > 3.396e38
/// overflows, which the facts file classifies as precision-only).
const OVERFLOW_TOLERANCE: f64 = 0.01;

/// `(dtype, aliases without a `torch.` prefix)`; the first alias is the canonical name.
const ALIASES: &[(DType, &[&str])] = &[
    (DType::Fp64, &["fp64", "float64", "double", "f64"]),
    (DType::Fp32, &["fp32", "float32", "float", "f32", "single"]),
    (DType::Tf32, &["tf32", "tensorfloat32", "tensorfloat_32", "tfloat32"]),
    (DType::Fp16, &["fp16", "float16", "half", "f16"]),
    (DType::Bf16, &["bf16", "bfloat16"]),
    (
        DType::Fp8E4m3fn,
        &[
            "fp8_e4m3fn",
            "float8_e4m3fn",
            "fp8",
            "fp8_e4m3",
            "e4m3",
            "e4m3fn",
            "float8_e4m3",
            "f8e4m3fn",
        ],
    ),
    (DType::Fp8E5m2, &["fp8_e5m2", "float8_e5m2", "e5m2", "f8e5m2"]),
    (
        DType::Fp8E4m3fnuz,
        &["fp8_e4m3fnuz", "float8_e4m3fnuz", "e4m3fnuz", "f8e4m3fnuz"],
    ),
    (
        DType::Fp8E5m2fnuz,
        &["fp8_e5m2fnuz", "float8_e5m2fnuz", "e5m2fnuz", "f8e5m2fnuz"],
    ),
    (
        DType::Fp8E8m0fnu,
        &["fp8_e8m0fnu", "float8_e8m0fnu", "e8m0", "e8m0fnu", "fp8_e8m0"],
    ),
    (DType::Fp6E2m3, &["fp6_e2m3", "float6_e2m3fn", "fp6_e2m3fn", "e2m3"]),
    (DType::Fp6E3m2, &["fp6_e3m2", "float6_e3m2fn", "fp6_e3m2fn", "e3m2"]),
    (
        DType::Fp4E2m1,
        &[
            "fp4_e2m1",
            "fp4",
            "float4_e2m1fn",
            "float4_e2m1fn_x2",
            "fp4_e2m1fn",
            "e2m1",
        ],
    ),
    (DType::Int8, &["int8", "i8"]),
];

/// `(dtype, spellings accepted after `torch.`)`; the first is [`DType::torch_name`].
const TORCH_ALIASES: &[(DType, &[&str])] = &[
    (DType::Fp64, &["float64", "double"]),
    (DType::Fp32, &["float32", "float"]),
    (DType::Fp16, &["float16", "half"]),
    (DType::Bf16, &["bfloat16"]),
    (DType::Fp8E4m3fn, &["float8_e4m3fn"]),
    (DType::Fp8E5m2, &["float8_e5m2"]),
    (DType::Fp8E4m3fnuz, &["float8_e4m3fnuz"]),
    (DType::Fp8E5m2fnuz, &["float8_e5m2fnuz"]),
    (DType::Fp8E8m0fnu, &["float8_e8m0fnu"]),
    (DType::Fp4E2m1, &["float4_e2m1fn_x2"]),
    (DType::Int8, &["int8"]),
];

/// `torch.`-prefixed spellings of [`TORCH_ALIASES`], kept as `'static` strings for [`all_names`].
const TORCH_NAMES: &[&str] = &[
    "torch.float64",
    "torch.double",
    "torch.float32",
    "torch.float",
    "torch.float16",
    "torch.half",
    "torch.bfloat16",
    "torch.float8_e4m3fn",
    "torch.float8_e5m2",
    "torch.float8_e4m3fnuz",
    "torch.float8_e5m2fnuz",
    "torch.float8_e8m0fnu",
    "torch.float4_e2m1fn_x2",
    "torch.int8",
];

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 14] = [
        DType::Fp64,
        DType::Fp32,
        DType::Tf32,
        DType::Fp16,
        DType::Bf16,
        DType::Fp8E4m3fn,
        DType::Fp8E5m2,
        DType::Fp8E4m3fnuz,
        DType::Fp8E5m2fnuz,
        DType::Fp8E8m0fnu,
        DType::Fp6E2m3,
        DType::Fp6E3m2,
        DType::Fp4E2m1,
        DType::Int8,
    ];

    /// Canonical name, e.g. `fp16`, `bf16`, `fp8_e4m3fn`, `fp4_e2m1`.
    pub fn canonical_name(self) -> &'static str {
        match self {
            DType::Fp64 => "fp64",
            DType::Fp32 => "fp32",
            DType::Tf32 => "tf32",
            DType::Fp16 => "fp16",
            DType::Bf16 => "bf16",
            DType::Fp8E4m3fn => "fp8_e4m3fn",
            DType::Fp8E5m2 => "fp8_e5m2",
            DType::Fp8E4m3fnuz => "fp8_e4m3fnuz",
            DType::Fp8E5m2fnuz => "fp8_e5m2fnuz",
            DType::Fp8E8m0fnu => "fp8_e8m0fnu",
            DType::Fp6E2m3 => "fp6_e2m3",
            DType::Fp6E3m2 => "fp6_e3m2",
            DType::Fp4E2m1 => "fp4_e2m1",
            DType::Int8 => "int8",
        }
    }

    /// PyTorch spelling (`torch.float16`, …), or `None` for types PyTorch has
    /// no dtype for (TF32 is a matmul mode; FP6 has no dtype).
    pub fn torch_name(self) -> Option<&'static str> {
        match self {
            DType::Fp64 => Some("torch.float64"),
            DType::Fp32 => Some("torch.float32"),
            DType::Tf32 | DType::Fp6E2m3 | DType::Fp6E3m2 => None,
            DType::Fp16 => Some("torch.float16"),
            DType::Bf16 => Some("torch.bfloat16"),
            DType::Fp8E4m3fn => Some("torch.float8_e4m3fn"),
            DType::Fp8E5m2 => Some("torch.float8_e5m2"),
            DType::Fp8E4m3fnuz => Some("torch.float8_e4m3fnuz"),
            DType::Fp8E5m2fnuz => Some("torch.float8_e5m2fnuz"),
            DType::Fp8E8m0fnu => Some("torch.float8_e8m0fnu"),
            DType::Fp4E2m1 => Some("torch.float4_e2m1fn_x2"),
            DType::Int8 => Some("torch.int8"),
        }
    }

    /// Storage size of one element in bits (TF32 values are stored as FP32;
    /// FP6 and FP4 are packed).
    pub fn storage_bits(self) -> u32 {
        match self {
            DType::Fp64 => 64,
            DType::Fp32 | DType::Tf32 => 32,
            DType::Fp16 | DType::Bf16 => 16,
            DType::Fp8E4m3fn
            | DType::Fp8E5m2
            | DType::Fp8E4m3fnuz
            | DType::Fp8E5m2fnuz
            | DType::Fp8E8m0fnu
            | DType::Int8 => 8,
            DType::Fp6E2m3 | DType::Fp6E3m2 => 6,
            DType::Fp4E2m1 => 4,
        }
    }

    /// Storage size of one element in bytes (0.5 for FP4, 0.75 for FP6).
    pub fn bytes_per_element(self) -> f64 {
        f64::from(self.storage_bits()) / 8.0
    }

    /// True for the 8-bit floating-point types (including E8M0).
    pub fn is_fp8(self) -> bool {
        matches!(
            self,
            DType::Fp8E4m3fn | DType::Fp8E5m2 | DType::Fp8E4m3fnuz | DType::Fp8E5m2fnuz | DType::Fp8E8m0fnu
        )
    }

    /// True for floating-point types (everything except `int8`).
    pub fn is_float(self) -> bool {
        !matches!(self, DType::Int8)
    }

    /// Numeric properties (facts file §3).
    pub fn info(self) -> NumericInfo {
        // Common shape for the IEEE-like formats with inf and NaN.
        let ieee = |e: u32, m: u32, max: f64, min_normal: f64, min_sub: f64| NumericInfo {
            sign_bits: 1,
            exponent_bits: e,
            mantissa_bits: m,
            max_finite: max,
            min_normal,
            epsilon: Some(2f64.powi(-(m as i32))),
            min_subnormal: Some(min_sub),
            has_inf: true,
            has_nan: true,
            has_zero: true,
            has_negative_zero: true,
            is_float: true,
        };
        match self {
            DType::Fp64 => ieee(11, 52, f64::MAX, f64::MIN_POSITIVE, f64::from_bits(1)),
            DType::Fp32 => ieee(
                8,
                23,
                3.402_823_466_385_288_6e38,
                1.175_494_350_822_287_5e-38,
                1.401_298_464_324_817e-45,
            ),
            // TF32 shares FP32's exponent (and thus its inf/NaN encodings);
            // the facts table lists no subnormal value for it.
            DType::Tf32 => NumericInfo {
                min_subnormal: None,
                ..ieee(8, 10, 3.401_162_134_214_653_5e38, 1.175_494_350_822_287_5e-38, 0.0)
            },
            DType::Fp16 => ieee(5, 10, 65504.0, 6.103_515_625e-5, 5.960_464_477_539_063e-8),
            DType::Bf16 => ieee(
                8,
                7,
                3.389_531_389_251_535_5e38,
                1.175_494_350_822_287_5e-38,
                9.183_549_615_799_121e-41,
            ),
            DType::Fp8E4m3fn => NumericInfo {
                has_inf: false,
                ..ieee(4, 3, 448.0, 0.015_625, 0.001_953_125)
            },
            DType::Fp8E5m2 => ieee(5, 2, 57344.0, 6.103_515_625e-5, 1.525_878_906_25e-5),
            DType::Fp8E4m3fnuz => NumericInfo {
                has_inf: false,
                has_negative_zero: false,
                ..ieee(4, 3, 240.0, 0.007_812_5, 9.765_625e-4)
            },
            DType::Fp8E5m2fnuz => NumericInfo {
                has_inf: false,
                has_negative_zero: false,
                ..ieee(5, 2, 57344.0, 3.051_757_812_5e-5, 7.629_394_531_25e-6)
            },
            DType::Fp8E8m0fnu => NumericInfo {
                sign_bits: 0,
                exponent_bits: 8,
                mantissa_bits: 0,
                max_finite: 1.701_411_834_604_692_3e38,
                min_normal: 5.877_471_754_111_438e-39,
                epsilon: None,
                min_subnormal: None,
                has_inf: false,
                has_nan: true,
                has_zero: false,
                has_negative_zero: false,
                is_float: true,
            },
            DType::Fp6E2m3 => NumericInfo {
                has_inf: false,
                has_nan: false,
                ..ieee(2, 3, 7.5, 1.0, 0.125)
            },
            DType::Fp6E3m2 => NumericInfo {
                has_inf: false,
                has_nan: false,
                ..ieee(3, 2, 28.0, 0.25, 0.0625)
            },
            DType::Fp4E2m1 => NumericInfo {
                has_inf: false,
                has_nan: false,
                ..ieee(2, 1, 6.0, 1.0, 0.5)
            },
            DType::Int8 => NumericInfo {
                sign_bits: 1,
                exponent_bits: 0,
                mantissa_bits: 7,
                max_finite: 127.0,
                min_normal: 1.0,
                epsilon: None,
                min_subnormal: None,
                has_inf: false,
                has_nan: false,
                has_zero: true,
                has_negative_zero: false,
                is_float: false,
            },
        }
    }

    /// Largest finite value (e.g. 65504 for FP16, 448 for FP8 E4M3FN).
    pub fn max_finite(self) -> f64 {
        self.info().max_finite
    }

    /// Smallest positive normal value (1 for `int8`).
    pub fn min_normal(self) -> f64 {
        self.info().min_normal
    }

    /// Number of exponent bits.
    pub fn exponent_bits(self) -> u32 {
        self.info().exponent_bits
    }

    /// Number of stored mantissa bits.
    pub fn mantissa_bits(self) -> u32 {
        self.info().mantissa_bits
    }

    /// Whether the format can represent infinities.
    pub fn has_inf(self) -> bool {
        self.info().has_inf
    }

    /// Lowest NVIDIA compute capability with native (tensor-core) support,
    /// per facts §2:
    ///
    /// * `fp32`, `fp64`: `Some((0, 0))` — every CUDA GPU;
    /// * `fp16`: 7.0; `int8`: 7.2 (V100 has no INT8 tensor cores);
    /// * `bf16`, `tf32`: 8.0;
    /// * `fp8_e4m3fn`, `fp8_e5m2`: 8.9 (Ada) and everything newer;
    /// * `fp4_e2m1`, `fp6_*`, `fp8_e8m0fnu` (MX/NVFP4): 10.0;
    /// * `fp8_*fnuz`: `None` — AMD MI300 formats, never native on NVIDIA.
    pub fn min_compute_capability(self) -> Option<(u32, u32)> {
        match self {
            DType::Fp64 | DType::Fp32 => Some((0, 0)),
            DType::Fp16 => Some((7, 0)),
            DType::Int8 => Some((7, 2)),
            DType::Bf16 | DType::Tf32 => Some((8, 0)),
            DType::Fp8E4m3fn | DType::Fp8E5m2 => Some((8, 9)),
            DType::Fp4E2m1 | DType::Fp6E2m3 | DType::Fp6E3m2 | DType::Fp8E8m0fnu => Some((10, 0)),
            DType::Fp8E4m3fnuz | DType::Fp8E5m2fnuz => None,
        }
    }

    /// Whether this dtype runs natively on a GPU of compute capability `cc`
    /// (`(major, minor)`). FP8 needs CC ≥ 8.9, so sm_86 (A10, A40, RTX 30xx)
    /// does not qualify.
    pub fn runs_natively_on(self, cc: (u32, u32)) -> bool {
        match self.min_compute_capability() {
            Some(min) => cc >= min,
            None => false,
        }
    }

    /// Native, emulated or unsupported on compute capability `cc`.
    ///
    /// Below their native CC, FP16 and INT8 (DP4A) still run without tensor
    /// cores, BF16 runs through FP32 math (`torch.cuda.is_bf16_supported()`
    /// reports `True` on a T4 unless `including_emulation=False`) and TF32
    /// falls back to FP32; the FP8/FP6/FP4 kernels raise instead.
    pub fn support_on(self, cc: (u32, u32)) -> Support {
        if self.runs_natively_on(cc) {
            return Support::Native;
        }
        match self {
            DType::Fp64 | DType::Fp32 | DType::Tf32 | DType::Fp16 | DType::Bf16 | DType::Int8 => Support::Emulated,
            _ => Support::Unsupported,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.canonical_name())
    }
}

impl FromStr for DType {
    type Err = ParseDTypeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s).ok_or_else(|| ParseDTypeError {
            input: s.to_string(),
            suggestions: suggest(s),
        })
    }
}

/// Lower-cases, trims and maps `-` and spaces to `_`.
fn normalize(s: &str) -> String {
    s.trim()
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

fn lookup(table: &[(DType, &[&str])], key: &str) -> Option<DType> {
    table.iter().find(|(_, names)| names.contains(&key)).map(|(dt, _)| *dt)
}

/// Parses a dtype name, case-insensitively, accepting canonical names,
/// common aliases (`half`, `float`, `fp8`, `e4m3`, …) and PyTorch spellings
/// (`torch.float16`, `torch.half`, `torch.float8_e4m3fn`, …). A `torch.`
/// prefix is accepted only with a real PyTorch dtype name (`torch.fp16` is
/// rejected). Plain `fp8` means `fp8_e4m3fn`, plain `fp4` means `fp4_e2m1`.
pub fn parse(s: &str) -> Option<DType> {
    let key = normalize(s);
    match key.strip_prefix("torch.") {
        Some(rest) => lookup(TORCH_ALIASES, rest),
        None => lookup(ALIASES, &key),
    }
}

/// Every name [`parse`] accepts (canonical names first within each dtype,
/// then aliases, then the `torch.*` spellings), for editor completion.
pub fn all_names() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = ALIASES.iter().flat_map(|(_, names)| names.iter().copied()).collect();
    out.extend(TORCH_NAMES.iter().copied());
    out
}

/// Up to three known names closest to an unknown dtype name (edit distance),
/// best first. For `torch.<alias>` inputs such as `torch.fp16` the matching
/// PyTorch spelling (`torch.float16`) comes first.
pub fn suggest(s: &str) -> Vec<&'static str> {
    if !crate::suggest::worth_suggesting(s) {
        return Vec::new();
    }
    let key = normalize(s);
    let mut out: Vec<&'static str> = Vec::new();
    if let Some(rest) = key.strip_prefix("torch.") {
        if let Some(name) = lookup(ALIASES, rest).and_then(DType::torch_name) {
            out.push(name);
        }
    }
    let limit = (key.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &'static str)> = all_names()
        .into_iter()
        .map(|name| (strsim::damerau_levenshtein(&key, name), name))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.len().cmp(&b.1.len())));
    for (_, name) in scored {
        if out.len() >= 3 {
            break;
        }
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Risk of casting values of dtype `from` to dtype `to` (facts file §3, "Casts").
///
/// * **Range loss** when the target's largest finite value is more than 1 %
///   below the source's (FP32/BF16→FP16, anything wider→E4M3FN/E4M3FNUZ,
///   FP16/FP32→E5M2, E5M2→E4M3FN), when small source values flush to zero
///   (for sources narrower than 32 bits their subnormals count too, so
///   E4M3FNUZ→E4M3FN is range loss as the facts require for "anything→E4M3FN";
///   FP32's subnormals are ignored, so FP32→BF16 stays precision-only), or
///   when the target loses the sign or zero (→`fp8_e8m0fnu`).
/// * **Precision loss** when only mantissa bits (or some subnormals) are
///   lost: FP32→BF16, FP32→TF32, FP16→BF16, E4M3FN→E5M2.
/// * **Exact** for widening casts: FP16/BF16→FP32, E4M3FN/E5M2→FP16/BF16/FP32.
///
/// Special values are not considered: E5M2→E5M2FNUZ is `Exact` for all
/// finite values although ±inf becomes NaN.
///
/// `int8` sources are exact in any float with at least 6 mantissa bits and
/// range 127; float→`int8` is range loss when the float can exceed 127 and
/// precision loss (fractions truncated) otherwise.
pub fn cast_risk(from: DType, to: DType) -> CastRisk {
    if from == to {
        return CastRisk::Exact;
    }
    let f = from.info();
    let t = to.info();
    let range = CastRisk::RangeLoss {
        from_max: f.max_finite,
        to_max: t.max_finite,
    };
    let overflows = t.max_finite < f.max_finite * (1.0 - OVERFLOW_TOLERANCE);
    let loses_sign = f.sign_bits > 0 && t.sign_bits == 0;
    let loses_zero = f.has_zero && !t.has_zero;
    if overflows || loses_sign || loses_zero {
        return range;
    }
    match (f.is_float, t.is_float) {
        // int8 -> float: all integers in [-128, 127] need 7 significant bits.
        (false, _) => {
            if t.mantissa_bits + 1 < 7 {
                CastRisk::PrecisionLoss
            } else {
                CastRisk::Exact
            }
        }
        // float -> int8 within range: fractions are truncated.
        (true, false) => CastRisk::PrecisionLoss,
        (true, true) => {
            // Smallest source magnitude that must survive: for FP32/FP64 the
            // smallest normal (subnormals are ignored), otherwise the
            // smallest positive value including subnormals.
            let smallest = if from.storage_bits() >= 32 {
                f.min_normal
            } else {
                f.min_positive()
            };
            if smallest < t.min_positive() {
                range
            } else if t.mantissa_bits < f.mantissa_bits || f.min_positive() < t.min_positive() {
                CastRisk::PrecisionLoss
            } else {
                CastRisk::Exact
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_aliases() {
        let cases: &[(&str, DType)] = &[
            ("torch.float16", DType::Fp16),
            ("float16", DType::Fp16),
            ("half", DType::Fp16),
            ("fp16", DType::Fp16),
            ("torch.half", DType::Fp16),
            ("f16", DType::Fp16),
            ("FP16", DType::Fp16),
            ("torch.bfloat16", DType::Bf16),
            ("bfloat16", DType::Bf16),
            ("bf16", DType::Bf16),
            ("torch.float32", DType::Fp32),
            ("float32", DType::Fp32),
            ("float", DType::Fp32),
            ("fp32", DType::Fp32),
            ("torch.float", DType::Fp32),
            ("torch.float8_e4m3fn", DType::Fp8E4m3fn),
            ("float8_e4m3fn", DType::Fp8E4m3fn),
            ("fp8", DType::Fp8E4m3fn),
            ("fp8_e4m3", DType::Fp8E4m3fn),
            ("e4m3", DType::Fp8E4m3fn),
            ("FP8-E4M3", DType::Fp8E4m3fn),
            ("torch.float8_e5m2", DType::Fp8E5m2),
            ("fp8_e5m2", DType::Fp8E5m2),
            ("e5m2", DType::Fp8E5m2),
            ("torch.float8_e4m3fnuz", DType::Fp8E4m3fnuz),
            ("torch.float8_e5m2fnuz", DType::Fp8E5m2fnuz),
            ("torch.float8_e8m0fnu", DType::Fp8E8m0fnu),
            ("torch.float4_e2m1fn_x2", DType::Fp4E2m1),
            ("fp4", DType::Fp4E2m1),
            ("tf32", DType::Tf32),
            ("torch.float64", DType::Fp64),
            ("double", DType::Fp64),
            ("torch.int8", DType::Int8),
            ("  Torch.BFloat16 ", DType::Bf16),
        ];
        for (s, want) in cases {
            assert_eq!(parse(s), Some(*want), "parse({s:?})");
        }
        assert_eq!(parse("torch.fp16"), None);
        assert_eq!(parse("torch.tf32"), None);
        assert_eq!(parse("float17"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn canonical_and_torch_names_round_trip() {
        for dt in DType::ALL {
            assert_eq!(parse(dt.canonical_name()), Some(dt));
            assert_eq!(dt.to_string(), dt.canonical_name());
            if let Some(t) = dt.torch_name() {
                assert_eq!(parse(t), Some(dt), "{t}");
            }
        }
        assert_eq!(DType::Tf32.torch_name(), None);
        let names = all_names();
        for n in &names {
            assert!(parse(n).is_some(), "{n} listed but not parseable");
        }
        let mut dedup = names.clone();
        dedup.sort_unstable();
        dedup.dedup();
        assert_eq!(dedup.len(), names.len(), "duplicate names");
        let expected: Vec<String> = TORCH_ALIASES
            .iter()
            .flat_map(|(_, names)| names.iter().map(|n| format!("torch.{n}")))
            .collect();
        assert_eq!(TORCH_NAMES, expected.as_slice());
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("bfloat61").first(), Some(&"bfloat16"));
        assert_eq!(suggest("torch.fp16").first(), Some(&"torch.float16"));
        assert!(suggest("fp61").contains(&"fp16"));
        assert!(suggest("float8_e4m3").contains(&"float8_e4m3"));
        assert!(suggest("zzzzzzzzzzzzzzzz").is_empty());
        assert!(suggest("half").len() <= 3);
        let err = "bfloat61".parse::<DType>().err();
        assert!(err.is_some_and(|e| e.to_string().contains("bfloat16")));
    }

    #[test]
    fn numeric_facts() {
        assert_eq!(DType::Fp16.max_finite(), 65504.0);
        assert_eq!(DType::Fp8E4m3fn.max_finite(), 448.0);
        assert_eq!(DType::Fp8E5m2.max_finite(), 57344.0);
        assert_eq!(DType::Fp8E4m3fnuz.max_finite(), 240.0);
        assert_eq!(DType::Fp4E2m1.max_finite(), 6.0);
        assert_eq!(DType::Fp32.max_finite(), f64::from(f32::MAX));
        assert_eq!(DType::Fp32.min_normal(), f64::from(f32::MIN_POSITIVE));
        assert_eq!(DType::Bf16.min_normal(), DType::Fp32.min_normal());
        assert!((DType::Bf16.max_finite() - 3.3895314e38).abs() < 1e31);
        assert_eq!(DType::Fp8E4m3fn.min_normal(), 2f64.powi(-6));
        assert_eq!(DType::Fp8E4m3fnuz.min_normal(), 2f64.powi(-7));
        assert_eq!(DType::Fp8E5m2fnuz.min_normal(), 2f64.powi(-15));
        assert_eq!(DType::Fp16.min_normal(), 2f64.powi(-14));
        assert_eq!(DType::Fp8E8m0fnu.max_finite(), 2f64.powi(127));
        assert_eq!(DType::Fp8E8m0fnu.min_normal(), 2f64.powi(-127));
        assert!(!DType::Fp8E4m3fn.has_inf());
        assert!(DType::Fp8E5m2.has_inf());
        assert!(!DType::Fp8E5m2fnuz.has_inf());
        assert_eq!(DType::Bf16.exponent_bits(), 8);
        assert_eq!(DType::Bf16.mantissa_bits(), 7);
        assert_eq!(DType::Fp16.exponent_bits(), 5);
        assert_eq!(DType::Tf32.mantissa_bits(), 10);
        for dt in DType::ALL {
            let i = dt.info();
            assert!(i.max_finite > i.min_normal, "{dt}");
            assert!(i.min_positive() > 0.0, "{dt}");
            assert!(i.min_positive() <= i.min_normal, "{dt}");
            if let Some(eps) = i.epsilon {
                assert_eq!(eps, 2f64.powi(-(i.mantissa_bits as i32)), "{dt}");
            }
            if i.is_float && dt != DType::Tf32 {
                assert_eq!(
                    i.sign_bits + i.exponent_bits + i.mantissa_bits,
                    dt.storage_bits(),
                    "{dt}"
                );
            }
        }
        assert_eq!(DType::Fp4E2m1.bytes_per_element(), 0.5);
        assert_eq!(DType::Bf16.bytes_per_element(), 2.0);
    }

    #[test]
    fn hardware_support() {
        let a100 = (8, 0);
        let a10 = (8, 6);
        let l4 = (8, 9);
        let h100 = (9, 0);
        let t4 = (7, 5);
        let v100 = (7, 0);
        let b200 = (10, 0);
        assert!(!DType::Fp8E4m3fn.runs_natively_on(a100));
        assert!(!DType::Fp8E4m3fn.runs_natively_on(a10));
        assert!(DType::Fp8E4m3fn.runs_natively_on(l4));
        assert!(DType::Fp8E5m2.runs_natively_on(h100));
        assert!(DType::Fp8E4m3fn.runs_natively_on(h100));
        assert!(!DType::Bf16.runs_natively_on(t4));
        assert!(DType::Bf16.runs_natively_on(a100));
        assert!(DType::Tf32.runs_natively_on(a100));
        assert!(!DType::Tf32.runs_natively_on(v100));
        assert!(DType::Fp16.runs_natively_on(v100));
        assert!(!DType::Int8.runs_natively_on(v100));
        assert!(DType::Int8.runs_natively_on(t4));
        assert!(!DType::Fp4E2m1.runs_natively_on(h100));
        assert!(DType::Fp4E2m1.runs_natively_on(b200));
        assert!(!DType::Fp8E4m3fnuz.runs_natively_on(b200));
        assert!(DType::Fp32.runs_natively_on((3, 5)));
        assert_eq!(DType::Fp8E4m3fn.min_compute_capability(), Some((8, 9)));
        assert_eq!(DType::Bf16.min_compute_capability(), Some((8, 0)));
        assert_eq!(DType::Fp16.min_compute_capability(), Some((7, 0)));
        assert_eq!(DType::Fp4E2m1.min_compute_capability(), Some((10, 0)));
        assert_eq!(DType::Bf16.support_on(t4), Support::Emulated);
        assert_eq!(DType::Fp8E4m3fn.support_on(a100), Support::Unsupported);
        assert_eq!(DType::Fp8E4m3fn.support_on(l4), Support::Native);
    }

    #[test]
    fn cast_risks_from_facts() {
        use CastRisk::*;
        use DType::*;
        assert_eq!(
            cast_risk(Fp16, Fp8E4m3fn),
            RangeLoss {
                from_max: 65504.0,
                to_max: 448.0
            }
        );
        assert_eq!(cast_risk(Fp32, Bf16), PrecisionLoss);
        assert_eq!(cast_risk(Fp32, Tf32), PrecisionLoss);
        assert_eq!(cast_risk(Fp16, Bf16), PrecisionLoss);
        assert_eq!(cast_risk(Fp8E4m3fn, Fp8E5m2), PrecisionLoss);
        assert!(cast_risk(Bf16, Fp16).is_range_loss());
        assert!(cast_risk(Fp32, Fp16).is_range_loss());
        assert!(cast_risk(Fp16, Fp8E5m2).is_range_loss());
        assert!(cast_risk(Fp32, Fp8E5m2).is_range_loss());
        assert!(cast_risk(Fp8E5m2, Fp8E4m3fn).is_range_loss());
        assert!(cast_risk(Fp8E4m3fnuz, Fp8E4m3fn).is_range_loss());
        for src in [Fp64, Fp32, Tf32, Fp16, Bf16, Fp8E5m2, Fp8E5m2fnuz] {
            assert!(cast_risk(src, Fp8E4m3fn).is_range_loss(), "{src}");
        }
        for src in [Fp32, Fp16, Bf16, Fp8E4m3fn, Fp8E5m2] {
            assert!(cast_risk(src, Fp8E4m3fnuz).is_range_loss(), "{src}");
        }
        for dst in [Fp16, Bf16, Fp32] {
            assert_eq!(cast_risk(Fp8E4m3fn, dst), Exact, "e4m3fn->{dst}");
            assert_eq!(cast_risk(Fp8E5m2, dst), Exact, "e5m2->{dst}");
        }
        assert_eq!(cast_risk(Fp16, Fp32), Exact);
        assert_eq!(cast_risk(Bf16, Fp32), Exact);
        assert_eq!(cast_risk(Fp32, Fp64), Exact);
        assert!(cast_risk(Fp64, Fp32).is_range_loss());
        assert_eq!(cast_risk(Bf16, Bf16), Exact);
        assert!(cast_risk(Fp32, Fp8E8m0fnu).is_range_loss());
        assert_eq!(cast_risk(Int8, Fp16), Exact);
        assert_eq!(cast_risk(Int8, Bf16), Exact);
        assert_eq!(cast_risk(Int8, Fp8E4m3fn), PrecisionLoss);
        assert!(cast_risk(Int8, Fp4E2m1).is_range_loss());
        assert!(cast_risk(Fp16, Int8).is_range_loss());
        assert_eq!(cast_risk(Fp4E2m1, Int8), PrecisionLoss);
        assert_eq!(cast_risk(Fp4E2m1, Fp8E4m3fn), Exact);
    }
}
