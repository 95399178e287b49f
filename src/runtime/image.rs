//! What a container image provides: its CUDA, PyTorch and Python versions
//! and the architectures its PyTorch build carries code for, resolved from
//! the image reference with the tables in `data/` — an exact known tag, a
//! tag grammar (Determined's `environments`, `pytorch-ngc`, Docker Hub's
//! `pytorch/pytorch`, NGC's `nvcr.io/nvidia/pytorch`, `nvidia/cuda`), or
//! what the experiment states itself.

use serde::Serialize;

use super::data::{self, ImageRow};
use super::version::Version;
pub use crate::settings::Stated;

/// What kind of accelerator an image is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Accelerator {
    Cuda,
    Rocm,
    Cpu,
}

/// One architecture a PyTorch build carries code for: its compute
/// capability and whether PTX (JIT-compilable for newer GPUs) is included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BuiltArch {
    pub cc: Version,
    pub ptx: bool,
}

/// The architectures a PyTorch build carries, and which build that is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArchList {
    pub archs: Vec<BuiltArch>,
    /// "the official pip wheel of PyTorch 1.13 for CUDA 11.7", "NGC 23.10".
    pub build: String,
    /// `false` for a partial list: the build has at least `archs`.
    #[serde(skip_serializing_if = "is_true")]
    pub complete: bool,
    /// The build carries PTX for an architecture the tables do not record
    /// (one of `archs`, which one is not known).
    #[serde(skip_serializing_if = "is_false")]
    pub ptx_unrecorded: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ArchList {
    /// A complete list of a build's architectures.
    pub fn new(archs: Vec<BuiltArch>, build: String) -> ArchList {
        ArchList {
            archs,
            build,
            complete: true,
            ptx_unrecorded: false,
        }
    }

    /// Whether the list is all the tables say of the build: complete, and
    /// every PTX it carries named.
    pub fn exact(&self) -> bool {
        self.complete && !self.ptx_unrecorded
    }

    fn parse<S: AsRef<str>>(list: &[S], build: String) -> Option<ArchList> {
        let archs: Vec<BuiltArch> = list
            .iter()
            .filter_map(|a| {
                let a = a.as_ref();
                let ptx = a.ends_with("+PTX");
                Some(BuiltArch {
                    cc: Version::parse(a.trim_end_matches("+PTX"))?,
                    ptx,
                })
            })
            .collect();
        (!archs.is_empty()).then(|| ArchList::new(archs, build))
    }

    /// `sm_50 sm_60 … compute_90` as PyTorch prints them.
    pub fn display(&self) -> String {
        let mut out: Vec<String> = self
            .archs
            .iter()
            .map(|a| format!("sm_{}{}", a.cc.major(), a.cc.minor()))
            .collect();
        out.extend(
            self.archs
                .iter()
                .filter(|a| a.ptx)
                .map(|a| format!("compute_{}{}", a.cc.major(), a.cc.minor())),
        );
        out.join(" ")
    }
}

/// How the facts were found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Resolution {
    /// An exact tag of the table.
    KnownTag,
    /// Decoded from a tag grammar (the pattern's id).
    Pattern { pattern: String },
    /// An NGC container of the table.
    Ngc { release: String },
    /// Built on an NGC container, inferred from the image family's history.
    NgcBased { release: String },
    /// Stated in the experiment (`hpp_config.image_provides`).
    Stated,
}

/// What an image provides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImageFacts {
    /// The image as written (or Determined's default).
    pub reference: String,
    pub accelerator: Option<Accelerator>,
    pub cuda: Option<Version>,
    pub torch: Option<Version>,
    pub python: Option<Version>,
    pub rocm: Option<Version>,
    /// The architectures its PyTorch carries, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arch_list: Option<ArchList>,
    /// The driver an NGC-based image was built for (`CUDA_DRIVER_VERSION`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub built_for_driver: Option<Version>,
    /// Whether the image carries CUDA forward-compatibility libraries
    /// (NGC containers enable them on data-center GPUs).
    pub forward_compat: bool,
    /// `false` for a tag known not to be published.
    pub published: bool,
    pub resolution: Resolution,
}

impl ImageFacts {
    fn new(reference: &str, resolution: Resolution) -> ImageFacts {
        ImageFacts {
            reference: reference.to_string(),
            accelerator: None,
            cuda: None,
            torch: None,
            python: None,
            rocm: None,
            arch_list: None,
            built_for_driver: None,
            forward_compat: false,
            published: true,
            resolution,
        }
    }

    /// "CUDA 11.7, PyTorch 1.13, Python 3.9", or what of it is known
    /// (a patch level only when it is not 0).
    pub fn summary(&self) -> String {
        let short = |v: Version| match v.parts() {
            [a, b, c, ..] if *c != 0 => format!("{a}.{b}.{c}"),
            _ => v.major_minor().to_string(),
        };
        let mut parts = Vec::new();
        if let Some(v) = self.cuda {
            parts.push(format!("CUDA {}", short(v)));
        }
        if let Some(v) = self.rocm {
            parts.push(format!("ROCm {}", short(v)));
        }
        if let Some(v) = self.torch {
            parts.push(format!("PyTorch {}", short(v)));
        }
        if let Some(v) = self.python {
            parts.push(format!("Python {}", short(v)));
        }
        if parts.is_empty() {
            "no CUDA or PyTorch version known".into()
        } else {
            parts.join(", ")
        }
    }
}

/// An image reference split into its repository (registry included, Docker
/// Hub's `docker.io/` and `library/` left out) and tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageRef {
    pub repository: String,
    pub tag: Option<String>,
    pub digest: Option<String>,
}

/// Splits `registry/path:tag@digest`. `None` for text that is not an image
/// reference (empty, spaces, a `${VAR}` not yet substituted).
pub fn parse_reference(text: &str) -> Option<ImageRef> {
    let text = text.trim();
    if text.is_empty() || text.contains(char::is_whitespace) || text.contains("${") {
        return None;
    }
    let (rest, digest) = match text.split_once('@') {
        Some((r, d)) => (r, Some(d.to_string())),
        None => (text, None),
    };
    // A `:` after the last `/` starts the tag (a registry's port comes before it).
    let slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (repository, tag) = match rest[slash..].find(':') {
        Some(i) => (&rest[..slash + i], Some(rest[slash + i + 1..].to_string())),
        None => (rest, None),
    };
    let mut repository = repository.to_ascii_lowercase();
    for prefix in ["docker.io/", "index.docker.io/", "registry-1.docker.io/"] {
        if let Some(r) = repository.strip_prefix(prefix) {
            repository = r.to_string();
        }
    }
    if let Some(r) = repository.strip_prefix("library/") {
        repository = r.to_string();
    }
    if repository.is_empty() || tag.as_deref() == Some("") {
        return None;
    }
    Some(ImageRef {
        repository,
        tag,
        digest,
    })
}

/// Why an image could not be resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unresolved {
    /// Not an image reference stagec can read.
    NotAReference,
    /// No tag (`latest`, which moves).
    NoTag,
    /// A repository stagec has no table for.
    UnknownRepository(String),
    /// A known repository, but a tag outside its grammar and tables.
    UnknownTag(String),
}

/// Resolves an image reference.
pub fn resolve(reference: &str) -> Result<ImageFacts, Unresolved> {
    let image = parse_reference(reference).ok_or(Unresolved::NotAReference)?;
    let tag = image.tag.clone().ok_or(Unresolved::NoTag)?;
    let full = format!("{}:{tag}", image.repository);

    // An exact tag of the table.
    if let Some(row) = data::images_of("tag").find(|r| r.image == full) {
        let mut facts = ImageFacts::new(reference, Resolution::KnownTag);
        facts.cuda = row.cuda.as_deref().and_then(Version::parse);
        facts.torch = row.torch.as_deref().and_then(Version::parse);
        facts.python = row.python.as_deref().and_then(Version::parse);
        facts.rocm = row.rocm.as_deref().and_then(Version::parse);
        facts.published = row.known_published != Some(false);
        // The grammar adds what the row leaves out (the accelerator, the build).
        if let Ok(decoded) = decode(reference, &image.repository, &tag) {
            facts.accelerator = decoded.accelerator;
            facts.arch_list = decoded.arch_list;
            facts.built_for_driver = decoded.built_for_driver;
            facts.forward_compat = decoded.forward_compat;
        }
        facts.accelerator = facts.accelerator.or(accelerator_of(&facts));
        if facts.arch_list.is_none() {
            facts.arch_list = pip_or_conda_arch_list(&image.repository, facts.torch, facts.cuda);
        }
        return Ok(facts);
    }
    decode(reference, &image.repository, &tag)
}

/// The accelerator an image's versions imply.
fn accelerator_of(facts: &ImageFacts) -> Option<Accelerator> {
    if facts.rocm.is_some() {
        Some(Accelerator::Rocm)
    } else if facts.cuda.is_some() {
        Some(Accelerator::Cuda)
    } else {
        None
    }
}

/// Decodes a tag by its repository's grammar.
fn decode(reference: &str, repository: &str, tag: &str) -> Result<ImageFacts, Unresolved> {
    let mut known_repository = false;
    for (row, re) in data::tag_patterns_of(repository) {
        known_repository = true;
        let Some(fields) = data::captures(re, tag) else {
            continue;
        };
        let field = |k: &str| fields.get(k).and_then(|v| Version::parse(v));
        let mut facts = ImageFacts::new(
            reference,
            Resolution::Pattern {
                pattern: row.id.to_string(),
            },
        );
        match &*row.id {
            "ngc-pytorch" => return ngc(reference, tag).ok_or_else(|| Unresolved::UnknownTag(tag.to_string())),
            "det-ngc" => {
                let release = fields.get("determined").cloned().unwrap_or_default();
                return pytorch_ngc(reference, &release).ok_or_else(|| Unresolved::UnknownTag(tag.to_string()));
            }
            "det-ngc-dev" => return Err(Unresolved::UnknownTag(tag.to_string())),
            "det-pytorch-tensorflow" => {
                // Built from one known base: nvidia/cuda 11.3 and PyTorch 1.12 (cu113).
                let build = data::images_of("build_input").find(|b| b.image_family == row.repository);
                facts.cuda = build
                    .and_then(|b| b.base_image.as_deref())
                    .and_then(|b| b.split_once(':'))
                    .and_then(|(_, t)| Version::parse(t))
                    .map(|v| v.major_minor());
                facts.torch = build.and_then(|b| b.torch_of()).map(|v| v.major_minor());
                facts.accelerator = Some(Accelerator::Cuda);
            }
            "field-notes-py-pt-cu" => {
                facts.python = field("python");
                facts.torch = field("torch");
                facts.cuda = fields.get("cuda_nodot").and_then(|d| {
                    let (major, minor) = d.split_at(d.len().checked_sub(1)?);
                    Some(Version::new(major.parse().ok()?, minor.parse().ok()?))
                });
                facts.accelerator = Some(Accelerator::Cuda);
            }
            _ => {
                facts.cuda = field("cuda");
                facts.torch = field("torch");
                facts.python = field("python");
                facts.rocm = field("rocm");
                facts.accelerator = match fields.get("device").map(String::as_str) {
                    Some("cpu") => Some(Accelerator::Cpu),
                    _ if row.id.ends_with("-cpu") => Some(Accelerator::Cpu),
                    _ => accelerator_of(&facts),
                };
            }
        }
        facts.arch_list = pip_or_conda_arch_list(repository, facts.torch, facts.cuda);
        return Ok(facts);
    }
    if known_repository {
        Err(Unresolved::UnknownTag(tag.to_string()))
    } else {
        Err(Unresolved::UnknownRepository(repository.to_string()))
    }
}

impl ImageRow<'_> {
    /// A build input's PyTorch version (`1.12.0+cu113`).
    fn torch_of(&self) -> Option<Version> {
        self.torch.as_deref().and_then(Version::parse)
    }
}

/// The NGC container `nvcr.io/nvidia/pytorch:<tag>`.
fn ngc(reference: &str, tag: &str) -> Option<ImageFacts> {
    let row = data::ngc_pytorch()
        .iter()
        .find(|r| r.kind == "container" && r.tag == tag)?;
    let release = tag.trim_end_matches("-py3").to_string();
    let mut facts = ImageFacts::new(
        reference,
        Resolution::Ngc {
            release: release.clone(),
        },
    );
    facts.accelerator = Some(Accelerator::Cuda);
    facts.cuda = row.cuda.as_deref().and_then(Version::parse);
    facts.torch = row
        .torch
        .as_deref()
        .or(row.torch_version.as_deref())
        .and_then(Version::parse);
    facts.built_for_driver = row.driver.as_deref().and_then(Version::parse);
    facts.arch_list = ArchList::parse(&row.torch_cuda_arch_list, format!("NGC PyTorch {release}"));
    facts.forward_compat = true;
    Some(facts)
}

/// `determinedai/pytorch-ngc:<release>`: from 0.34.0 built on the last NGC
/// base the environments repository names (24.03), per the image family's
/// build history.
fn pytorch_ngc(reference: &str, release: &str) -> Option<ImageFacts> {
    let version = Version::parse(release)?;
    if version < Version::new(0, 34) {
        return None;
    }
    let base = data::images_of("build_input")
        .find(|r| r.image_family.starts_with("determinedai/pytorch-ngc"))?
        .base_images
        .last()?;
    let tag = base.image.rsplit_once(':')?.1;
    let mut facts = ngc(reference, tag)?;
    facts.resolution = Resolution::NgcBased {
        release: tag.trim_end_matches("-py3").to_string(),
    };
    Some(facts)
}

/// The architectures of the PyTorch build an image family installs: the
/// official pip wheel for its CUDA (Determined's environments, the field
/// notes' tag, Docker Hub's `pytorch/pytorch` from 2.2 on), or the conda
/// build (`pytorch/pytorch` before 2.2).
fn pip_or_conda_arch_list(repository: &str, torch: Option<Version>, cuda: Option<Version>) -> Option<ArchList> {
    let (torch, cuda) = (torch?, cuda?);
    let variant = format!("cu{}{}", cuda.major(), cuda.minor());
    let release = format!("{}.{}", torch.major(), torch.minor());
    let conda = repository == "pytorch/pytorch" && torch < Version::new(2, 2);
    let channel = if conda { "conda" } else { "pip" };
    let row = data::torch_builds().iter().find(|r| {
        r.kind == "arch_list"
            && r.channel == channel
            && r.torch == release
            && (r.variant.as_deref() == Some(variant.as_str()) || (conda && r.variant.is_none()))
    })?;
    let build = if conda {
        format!("the conda build of PyTorch {release} for CUDA {}", cuda.major_minor())
    } else {
        format!(
            "the official pip wheel of PyTorch {release} for CUDA {}",
            cuda.major_minor()
        )
    };
    if row.arch_list.is_empty() {
        let mut partial = ArchList::parse(&row.includes, build)?;
        partial.complete = false;
        return Some(partial);
    }
    let mut list = ArchList::parse(&row.arch_list, build)?;
    list.ptx_unrecorded = row.ptx.as_deref() == Some("unrecorded");
    Some(list)
}

/// The facts an experiment states about its image.
pub fn stated(reference: &str, s: &Stated) -> ImageFacts {
    let mut facts = ImageFacts::new(reference, Resolution::Stated);
    facts.cuda = s.cuda.as_deref().and_then(Version::parse);
    facts.torch = s.torch.as_deref().and_then(Version::parse);
    facts.python = s.python.as_deref().and_then(Version::parse);
    facts.accelerator = facts.cuda.map(|_| Accelerator::Cuda);
    facts.arch_list = s
        .arch_list
        .as_deref()
        .and_then(|l| ArchList::parse(l, "the build `hpp_config.image_provides` states".into()));
    facts
}

/// The newest Determined release the tables know.
pub fn latest_determined() -> &'static str {
    data::images_of("default_image")
        .filter(|r| r.determined_to != "main")
        .filter_map(|r| Some((Version::parse(&r.determined_to)?, &*r.determined_to)))
        .max_by_key(|(v, _)| *v)
        .map_or("0.38.1", |(_, s)| s)
}

/// Determined's default GPU image for `release` (the reference, with a
/// placeholder tag suffix where the table has none).
pub fn default_image(release: &str) -> Option<String> {
    let v = Version::parse(release)?;
    let row = data::images_of("default_image").find(|r| {
        let from = Version::parse(&r.determined_from);
        let to = Version::parse(r.determined_to.trim_end_matches(".*"));
        let wildcard = r.determined_to.ends_with(".*");
        match (from, to) {
            (Some(from), Some(to)) if wildcard => from <= v && v.major_minor() == to.major_minor(),
            (Some(from), Some(to)) => from <= v && v <= to,
            _ => false,
        }
    })?;
    Some(row.gpu_image.replace("<determined version>", release))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(r: &str) -> ImageFacts {
        match resolve(r) {
            Ok(f) => f,
            Err(e) => panic!("{r}: {e:?}"),
        }
    }

    #[test]
    fn references() {
        let r = parse_reference("docker.io/library/ubuntu:22.04").unwrap_or_else(|| panic!());
        assert_eq!((r.repository.as_str(), r.tag.as_deref()), ("ubuntu", Some("22.04")));
        let r = parse_reference("registry.local:5000/team/img:1.2@sha256:ab").unwrap_or_else(|| panic!());
        assert_eq!(r.repository, "registry.local:5000/team/img");
        assert_eq!(r.tag.as_deref(), Some("1.2"));
        assert_eq!(r.digest.as_deref(), Some("sha256:ab"));
        assert!(parse_reference("${IMAGE}").is_none());
        assert!(parse_reference("a b").is_none());
        assert_eq!(resolve("determinedai/environments"), Err(Unresolved::NoTag));
    }

    #[test]
    fn the_field_notes_image() {
        let f = facts("determinedai/environments:py-3.9-pt-1.13-cu117");
        assert_eq!(f.cuda, Version::parse("11.7"));
        assert_eq!(f.torch, Version::parse("1.13"));
        assert!(!f.published);
        let archs = f.arch_list.unwrap_or_else(|| panic!("pip 1.13 cu117 is known"));
        assert!(!archs.archs.iter().any(|a| a.cc.major() == 9));
    }

    #[test]
    fn determined_ngc_and_docker_hub_images() {
        let f = facts("determinedai/environments:cuda-11.8-pytorch-2.0-gpu-0.26.4");
        assert_eq!((f.cuda, f.torch), (Version::parse("11.8"), Version::parse("2.0")));
        assert_eq!(f.accelerator, Some(Accelerator::Cuda));
        assert!(f
            .arch_list
            .is_some_and(|l| l.archs.iter().any(|a| a.cc == Version::new(9, 0))));

        let f = facts("nvcr.io/nvidia/pytorch:24.03-py3");
        assert_eq!(f.cuda.map(|v| v.major_minor()), Some(Version::new(12, 4)));
        assert_eq!(f.built_for_driver, Version::parse("550.54.14"));
        assert!(f.forward_compat);

        let f = facts("determinedai/pytorch-ngc:0.38.0");
        assert_eq!(
            f.resolution,
            Resolution::NgcBased {
                release: "24.03".into()
            }
        );
        assert_eq!(f.torch.map(|v| v.major_minor()), Some(Version::new(2, 3)));

        let f = facts("pytorch/pytorch:2.4.1-cuda12.1-cudnn9-runtime");
        assert_eq!(f.torch, Version::parse("2.4.1"));
        let list = f.arch_list.unwrap_or_else(|| panic!("pip 2.4 cu121"));
        assert!(list.archs.iter().any(|a| a.cc == Version::new(9, 0)));
        assert!(!list.archs.iter().any(|a| a.cc.major() == 10));

        let f = facts("determinedai/environments:rocm-5.6-pytorch-1.3-tf-2.10-rocm-mpich-0736b6d");
        assert_eq!(f.accelerator, Some(Accelerator::Rocm));
        let f = facts("determinedai/environments:py-3.10-pytorch-2.0-cpu-0.31.1");
        assert_eq!(f.accelerator, Some(Accelerator::Cpu));
        let f = facts("nvidia/cuda:12.4.1-devel-ubuntu22.04");
        assert_eq!(f.torch, None);
        assert_eq!(f.cuda.map(|v| v.major_minor()), Some(Version::new(12, 4)));
        // The cuDNN tags without a major (`-cudnn-`) that current Dockerfiles use.
        let f = facts("nvidia/cuda:12.6.3-cudnn-devel-ubuntu24.04");
        assert_eq!(f.cuda.map(|v| v.major_minor()), Some(Version::new(12, 6)));
        assert!(matches!(
            resolve("nvidia/cuda:12.6.3-cudnn-nightly-ubuntu24.04"),
            Err(Unresolved::UnknownTag(_))
        ));
    }

    #[test]
    fn unknown_images_say_why() {
        assert!(matches!(
            resolve("myorg/train:latest"),
            Err(Unresolved::UnknownRepository(_))
        ));
        assert!(matches!(
            resolve("determinedai/environments:nightly"),
            Err(Unresolved::UnknownTag(_))
        ));
    }

    #[test]
    fn defaults_by_release() {
        assert_eq!(
            default_image("0.38.0").as_deref(),
            Some("determinedai/pytorch-ngc:0.38.0")
        );
        assert!(default_image("0.15.3").is_some_and(|i| i.contains("cuda-10.2")));
        assert!(default_image("0.16.0").is_some_and(|i| i.ends_with("3a452bc")));
        assert_eq!(latest_determined(), "0.38.1");
    }
}
