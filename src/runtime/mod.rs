//! The environment a stage runs in: the container image (its CUDA,
//! PyTorch and Python, and the architectures its PyTorch build carries),
//! resolved from the experiment's `environment.image` — or Determined's
//! default image for the targeted release — with the compiled-in tables in
//! `data/`, and what that image needs of GPUs and drivers. Plain data for
//! the `R…` rules, the allocation of inventory GPUs, the plan and hover.

pub mod compat;
pub mod data;
mod data_rows;
pub mod image;
pub mod version;

#[cfg(test)]
mod data_tests;

use serde::Serialize;

use crate::settings::{ImageSetting, Settings};
use crate::yaml::PathSeg;
use image::{ImageFacts, Unresolved};

pub use version::Version;

/// Where the GPU stages' image comes from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum ImageSource {
    /// Written in the config: the path of the value.
    Config {
        #[serde(skip)]
        path: Vec<PathSeg>,
    },
    /// Not written: Determined's default for this release.
    Default { determined: String },
}

/// The GPU stages' image and what it provides.
#[derive(Clone, Debug, PartialEq)]
pub struct Runtime {
    /// The image reference as written, or Determined's default.
    pub reference: String,
    pub source: ImageSource,
    pub facts: Result<ImageFacts, Unresolved>,
    /// The facts come from `hpp_config.image_provides`.
    pub stated: bool,
}

/// Path of `hpp_config.image_provides`.
pub fn image_provides_path() -> Vec<PathSeg> {
    ["hyperparameters", "hpp_config", "image_provides"]
        .iter()
        .map(|k| PathSeg::Key((*k).to_string()))
        .collect()
}

/// The image the experiment's NVIDIA stages run in, as `determined`
/// (a release such as `0.38.1`) would choose it.
pub fn resolve(settings: &Settings, determined: &str) -> Option<Runtime> {
    let key = |keys: &[&str]| keys.iter().map(|k| PathSeg::Key((*k).to_string())).collect::<Vec<_>>();
    let (reference, source) = match &settings.image {
        ImageSetting::Single(s) => (
            s.clone(),
            ImageSource::Config {
                path: key(&["environment", "image"]),
            },
        ),
        ImageSetting::Map { cuda: Some((s, k)), .. } => (
            s.clone(),
            ImageSource::Config {
                path: key(&["environment", "image", k]),
            },
        ),
        ImageSetting::Absent | ImageSetting::Map { cuda: None, .. } => (
            image::default_image(determined)?,
            ImageSource::Default {
                determined: determined.to_string(),
            },
        ),
        ImageSetting::Invalid => return None,
    };
    let (facts, stated) = match &settings.image_provides {
        Some(s) => (Ok(image::stated(&reference, s)), true),
        None => {
            // A default known only up to its release suffix (a commit):
            // the grammar reads it with any suffix.
            let readable = reference.replace("<suffix>", "0000000");
            let mut facts = image::resolve(&readable);
            if let Ok(f) = &mut facts {
                f.reference = reference.clone();
            }
            (facts, false)
        }
    };
    Some(Runtime {
        reference,
        source,
        facts,
        stated,
    })
}

/// What the experiment's stages need of an image.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Needs {
    /// Compute capabilities of the GPUs the stages run on.
    pub ccs: Vec<Version>,
    /// The PyTorch release the stages' dtypes need.
    pub torch: Option<Version>,
}

/// Whether `facts` meets `needs`: no architecture it surely lacks, a
/// PyTorch at least as new as needed (when the need is known), built for
/// CUDA.
pub fn meets(facts: &ImageFacts, needs: &Needs) -> bool {
    use compat::{arch_verdict, ArchVerdict};
    if facts.accelerator != Some(image::Accelerator::Cuda) {
        return false;
    }
    if let Some(min) = needs.torch {
        if facts.torch.is_none_or(|t| t < min) {
            return false;
        }
    }
    needs
        .ccs
        .iter()
        .all(|&cc| matches!(arch_verdict(facts, cc), ArchVerdict::Supported | ArchVerdict::Unknown))
}

/// The smallest image change that meets `needs`: Determined's default
/// image for `determined` if it does, else a published image of the same
/// repository, else any published image the tables know — the one with the
/// oldest PyTorch that suffices (the least upgrade), known builds first.
pub fn suggest(current: &str, needs: &Needs, determined: &str) -> Option<ImageFacts> {
    if let Some(default) = image::default_image(determined).and_then(|d| image::resolve(&d).ok()) {
        if meets(&default, needs) {
            return Some(default);
        }
    }
    let repository = image::parse_reference(current).map(|r| r.repository);
    let mut candidates: Vec<ImageFacts> = data::images_of("tag")
        .filter(|r| r.known_published != Some(false))
        .map(|r| r.image.to_string())
        .chain(
            data::ngc_pytorch()
                .iter()
                .filter(|r| r.kind == "container")
                .map(|r| format!("nvcr.io/nvidia/pytorch:{}", r.tag)),
        )
        .filter_map(|reference| image::resolve(&reference).ok())
        .filter(|f| meets(f, needs))
        .collect();
    candidates.sort_by(|a, b| {
        let same = |f: &ImageFacts| {
            image::parse_reference(&f.reference).map(|r| r.repository) == repository && repository.is_some()
        };
        same(b)
            .cmp(&same(a))
            .then(b.arch_list.is_some().cmp(&a.arch_list.is_some()))
            .then(a.torch.cmp(&b.torch))
            .then(a.reference.cmp(&b.reference))
    });
    candidates.into_iter().next()
}
