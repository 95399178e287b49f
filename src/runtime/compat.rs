//! What an image needs of a GPU and a driver, from the tables: the CUDA
//! that first builds for an architecture, the PyTorch release that first
//! has a dtype, the driver a CUDA toolkit needs (with minor-version and
//! forward compatibility).

use serde::Serialize;

use super::data;
use super::image::{ArchList, ImageFacts};
use super::version::Version;
use crate::dtype::DType;

/// The CUDA release that first builds code for compute capability `cc`
/// (`at_most`: the table starts there, the real first release may be
/// earlier), and the release that dropped it.
pub fn cuda_for_arch(cc: Version) -> Option<(Version, bool, Option<Version>)> {
    let row = data::architectures()
        .iter()
        .find(|r| r.kind == "arch" && Version::parse(&r.cc) == Some(cc))?;
    let (first, at_most) = match (&row.first_cuda, &row.first_cuda_at_most) {
        (Some(f), _) => (Version::parse(f)?, false),
        (None, Some(f)) => (Version::parse(f)?, true),
        (None, None) => return None,
    };
    Some((first, at_most, row.removed_in.as_deref().and_then(Version::parse)))
}

/// The architecture's name (`Hopper`) and `sm_` spelling.
pub fn arch_name(cc: Version) -> Option<(&'static str, &'static str)> {
    data::architectures()
        .iter()
        .find(|r| r.kind == "arch" && Version::parse(&r.cc) == Some(cc))
        .map(|r| (&*r.arch, &*r.sm))
}

/// Whether an image's PyTorch can run on a GPU of compute capability `cc`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum ArchVerdict {
    /// Its build has code for it (SASS of the same major, or PTX to JIT).
    Supported,
    /// Nothing known either way.
    Unknown,
    /// The build is known and has no code for it: no SASS of the same
    /// major and an equal or lower minor, no PTX at or below it.
    NotBuilt,
    /// The build is known to have no SASS for it and to carry PTX, but the
    /// tables do not record for which architecture: it runs only if that
    /// PTX is for this architecture or an older one.
    PtxUnrecorded,
    /// The build is not known, but the image's CUDA predates the
    /// architecture (or dropped it): only PTX of an older architecture,
    /// if the build embeds it, could run.
    CudaTooOld {
        first: Version,
    },
    CudaDropped {
        removed_in: Version,
    },
}

/// Whether a build has SASS (a cubin) that runs on `cc`: a cubin of X.y
/// runs on X.z with z ≥ y.
pub fn sass_runs(list: &ArchList, cc: Version) -> bool {
    list.archs
        .iter()
        .any(|a| a.cc.major() == cc.major() && a.cc.minor() <= cc.minor())
}

/// Whether a build has PTX the driver compiles for `cc`: PTX of any
/// architecture at or below it.
pub fn ptx_runs(list: &ArchList, cc: Version) -> bool {
    list.archs.iter().any(|a| a.ptx && a.cc <= cc)
}

pub fn arch_verdict(image: &ImageFacts, cc: Version) -> ArchVerdict {
    if let Some(list) = &image.arch_list {
        if sass_runs(list, cc) || ptx_runs(list, cc) {
            return ArchVerdict::Supported;
        }
        if list.complete {
            // PTX of one of the listed architectures: only those at or
            // below `cc` could be compiled for it.
            if list.ptx_unrecorded && list.archs.iter().any(|a| a.cc <= cc) {
                return ArchVerdict::PtxUnrecorded;
            }
            return ArchVerdict::NotBuilt;
        }
        // A partial list that does not cover `cc` decides nothing: what
        // the image's CUDA allows is all that is known.
    }
    let (Some(cuda), Some((first, _, removed))) = (image.cuda, cuda_for_arch(cc)) else {
        return ArchVerdict::Unknown;
    };
    if cuda.major_minor() < first {
        return ArchVerdict::CudaTooOld { first };
    }
    match removed {
        Some(removed_in) if cuda.major_minor() >= removed_in => ArchVerdict::CudaDropped { removed_in },
        _ => ArchVerdict::Unknown,
    }
}

/// The first PyTorch release with `dtype`, when the table knows it exactly.
pub fn torch_for_dtype(dtype: DType) -> Option<Version> {
    let name = dtype.torch_name()?;
    let row = data::torch_dtypes()
        .iter()
        .find(|r| r.kind == "dtype" && r.name == name)?;
    // `<=1.10`: present by then, earlier releases not checked.
    if row.first_torch.starts_with('<') {
        return None;
    }
    Version::parse(&row.first_torch)
}

/// The minimum driver of a CUDA toolkit release (its GA row).
pub fn min_driver(cuda: Version) -> Option<Version> {
    let mm = cuda.major_minor();
    data::cuda_drivers()
        .iter()
        .find(|r| r.kind == "toolkit" && r.release == "GA" && Version::parse(&r.cuda) == Some(mm))
        .and_then(|r| r.min_driver.as_deref())
        .and_then(Version::parse)
}

/// The minor-version-compatibility floor of a CUDA major release.
pub fn mvc_floor(major: u32) -> Option<Version> {
    data::cuda_drivers()
        .iter()
        .find(|r| r.kind == "mvc_floor" && r.cuda_major == Some(major))
        .and_then(|r| r.min_driver.as_deref())
        .and_then(Version::parse)
}

/// Whether forward compatibility carries CUDA `cuda` on a host driver of
/// this branch (`R535`).
fn forward_compat_branch(cuda: Version, driver: Version) -> bool {
    let branch = format!("R{}", driver.major());
    data::cuda_drivers()
        .iter()
        .filter(|r| r.kind == "compat_host_branches")
        .filter(|r| {
            let from = r.cuda_from.as_deref().and_then(Version::parse);
            let to = r.cuda_to.as_deref().and_then(Version::parse);
            match (from, to, r.cuda_major) {
                (Some(from), Some(to), _) => from <= cuda.major_minor() && cuda.major_minor() <= to,
                (_, _, Some(major)) => cuda.major() == major,
                _ => false,
            }
        })
        .any(|r| r.host_branches.iter().any(|b| *b == branch))
}

/// Whether a node's driver runs an image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum DriverVerdict {
    /// At least the toolkit's minimum.
    Ok,
    /// Below it but above the major release's floor, and the build has
    /// code for the GPU: runs with CUDA's minor version compatibility.
    MinorVersion,
    /// Through the image's forward-compatibility libraries.
    ForwardCompat,
    /// Not enough to decide (no CUDA version, or a case the tables leave open).
    Unknown,
    /// Too old: the image needs at least `min`.
    TooOld { min: Version },
}

/// Whether a driver runs `image` on a GPU of compute capability `cc`
/// (`datacenter`: a data-center GPU, where forward compatibility works).
pub fn driver_verdict(image: &ImageFacts, driver: Version, cc: Version, datacenter: bool) -> DriverVerdict {
    let Some(cuda) = image.cuda else {
        return DriverVerdict::Unknown;
    };
    let Some(min) = min_driver(cuda) else {
        return DriverVerdict::Unknown;
    };
    if driver >= min {
        return DriverVerdict::Ok;
    }
    if image.forward_compat && datacenter && forward_compat_branch(cuda, driver) {
        return DriverVerdict::ForwardCompat;
    }
    match mvc_floor(cuda.major()) {
        // Minor version compatibility runs SASS only, no PTX JIT: a build
        // with SASS for the GPU is the known case (PTX alone is not).
        Some(floor) if driver >= floor => {
            if image.arch_list.as_ref().is_some_and(|l| sass_runs(l, cc)) {
                DriverVerdict::MinorVersion
            } else {
                DriverVerdict::Unknown
            }
        }
        _ => DriverVerdict::TooOld { min },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::image::resolve;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap_or_default()
    }

    #[test]
    fn architectures_and_dtypes() {
        assert_eq!(cuda_for_arch(v("9.0")).map(|a| a.0), Some(v("11.8")));
        assert_eq!(cuda_for_arch(v("10.0")).map(|a| a.0), Some(v("12.8")));
        assert_eq!(torch_for_dtype(DType::Fp8E4m3fn), Some(v("2.1")));
        assert_eq!(torch_for_dtype(DType::Fp8E4m3fnuz), Some(v("2.2")));
        assert_eq!(torch_for_dtype(DType::Fp4E2m1), Some(v("2.8")));
        assert_eq!(torch_for_dtype(DType::Bf16), None);
        assert_eq!(torch_for_dtype(DType::Fp16), None);
    }

    #[test]
    fn arch_verdicts() {
        let field_notes = resolve("determinedai/environments:py-3.9-pt-1.13-cu117").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(arch_verdict(&field_notes, v("9.0")), ArchVerdict::NotBuilt);
        assert_eq!(arch_verdict(&field_notes, v("8.0")), ArchVerdict::Supported);
        // sm_86 code runs on Ada (8.9).
        assert_eq!(arch_verdict(&field_notes, v("8.9")), ArchVerdict::Supported);
        let ngc = resolve("nvcr.io/nvidia/pytorch:23.10-py3").unwrap_or_else(|e| panic!("{e:?}"));
        // 9.0+PTX: JIT for Blackwell.
        assert_eq!(arch_verdict(&ngc, v("10.0")), ArchVerdict::Supported);
        let cuda12_1 = resolve("pytorch/pytorch:2.4.1-cuda12.1-cudnn9-runtime").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(arch_verdict(&cuda12_1, v("10.0")), ArchVerdict::NotBuilt);
        let bare = resolve("nvidia/cuda:11.8.0-cudnn8-devel-ubuntu20.04").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            arch_verdict(&bare, v("10.0")),
            ArchVerdict::CudaTooOld { first: v("12.8") }
        );
        assert_eq!(arch_verdict(&bare, v("9.0")), ArchVerdict::Unknown);
    }

    #[test]
    fn definite_ptx_verdicts() {
        let image = |r: &str| resolve(r).unwrap_or_else(|e| panic!("{r}: {e:?}"));
        // The conda build's compute_37 PTX is compiled for Hopper by the driver.
        let conda = image("pytorch/pytorch:1.13.1-cuda11.6-cudnn8-runtime");
        assert!(conda.arch_list.as_ref().is_some_and(|l| l.exact()));
        assert_eq!(arch_verdict(&conda, v("9.0")), ArchVerdict::Supported);
        // The pip 2.7 cu128 wheel: sm_75 … sm_120 + compute_120; PTX of a
        // newer architecture does not run on a V100 (7.0).
        let cu128 = image("pytorch/pytorch:2.7.0-cuda12.8-cudnn9-runtime");
        assert_eq!(arch_verdict(&cu128, v("7.0")), ArchVerdict::NotBuilt);
        assert_eq!(arch_verdict(&cu128, v("10.3")), ArchVerdict::Supported);
        assert_eq!(arch_verdict(&cu128, v("12.1")), ArchVerdict::Supported);
        // 2.8 cu129 carries PTX for an unrecorded architecture: undecided
        // above the list's oldest entry without SASS, definite below it.
        let cu129 = image("pytorch/pytorch:2.8.0-cuda12.9-cudnn9-runtime");
        assert!(cu129.arch_list.as_ref().is_some_and(|l| l.ptx_unrecorded && !l.exact()));
        assert_eq!(arch_verdict(&cu129, v("11.0")), ArchVerdict::PtxUnrecorded);
        assert_eq!(arch_verdict(&cu129, v("6.0")), ArchVerdict::NotBuilt);
        assert_eq!(arch_verdict(&cu129, v("10.3")), ArchVerdict::Supported);
        // A partial list decides what it includes, and leaves the rest to the CUDA check.
        let partial = ImageFacts {
            arch_list: Some(crate::runtime::image::ArchList {
                complete: false,
                ..crate::runtime::image::ArchList::new(
                    vec![crate::runtime::image::BuiltArch {
                        cc: v("7.0"),
                        ptx: false,
                    }],
                    "a partial list".into(),
                )
            }),
            ..cu128.clone()
        };
        assert_eq!(arch_verdict(&partial, v("7.0")), ArchVerdict::Supported);
        assert_eq!(arch_verdict(&partial, v("10.0")), ArchVerdict::Unknown);
        // Minor version compatibility does not JIT: PTX alone is not enough.
        let ptx_only = ImageFacts {
            arch_list: Some(crate::runtime::image::ArchList::new(
                vec![crate::runtime::image::BuiltArch {
                    cc: v("8.0"),
                    ptx: true,
                }],
                "a PTX-only build".into(),
            )),
            ..image("pytorch/pytorch:2.4.1-cuda12.1-cudnn9-runtime")
        };
        assert_eq!(arch_verdict(&ptx_only, v("9.0")), ArchVerdict::Supported);
        assert_eq!(
            driver_verdict(&ptx_only, v("525.85.12"), v("9.0"), true),
            DriverVerdict::Unknown
        );
    }

    #[test]
    fn driver_verdicts() {
        let image = resolve("pytorch/pytorch:2.4.1-cuda12.1-cudnn9-runtime").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            driver_verdict(&image, v("550.54.15"), v("9.0"), true),
            DriverVerdict::Ok
        );
        // 12.x floor 525.60.13; the pip build has sm_90 SASS.
        assert_eq!(
            driver_verdict(&image, v("525.85.12"), v("9.0"), true),
            DriverVerdict::MinorVersion
        );
        assert_eq!(
            driver_verdict(&image, v("515.65.01"), v("9.0"), true),
            DriverVerdict::TooOld { min: v("530.30.02") }
        );
        let ngc = resolve("nvcr.io/nvidia/pytorch:24.03-py3").unwrap_or_else(|e| panic!("{e:?}"));
        // Below 550.54.14 on R535 with a data-center GPU: forward compatibility.
        assert_eq!(
            driver_verdict(&ngc, v("535.104.05"), v("9.0"), true),
            DriverVerdict::ForwardCompat
        );
        assert_eq!(
            driver_verdict(&ngc, v("535.104.05"), v("8.9"), false),
            DriverVerdict::Unknown
        );
        assert_eq!(
            driver_verdict(&ngc, v("470.57.02"), v("8.0"), true),
            DriverVerdict::TooOld { min: v("550.54.14") }
        );
    }
}
