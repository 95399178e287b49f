//! The rows of the runtime data tables (`data/*.json`): plain data with
//! serde derives, so the build script reads the files with these very types
//! (`build.rs` includes this file) and the library compiles the rows in as
//! static tables. Only the fields the checks use are read.

use std::borrow::Cow;

use serde::Deserialize;

/// A table file: its rows (the other keys document the file).
#[cfg_attr(not(test), allow(dead_code))] // read by build.rs and the tables' test
#[derive(Deserialize)]
pub struct File<R> {
    /// The table's rows.
    pub rows: Vec<R>,
}

/// Text of a table (borrowed from the compiled-in tables).
pub type Text<'a> = Cow<'a, str>;

/// A list in a row (a compiled-in slice; a vector where serde reads one).
pub type List<'a, T> = Cow<'a, [T]>;

/// `images.json`: tag grammars, known tags, Determined's default images and
/// what image families were built from.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ImageRow<'a> {
    #[serde(borrow)]
    pub kind: Text<'a>,
    /// `tag_pattern`: its id and repository, the regex with named groups.
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub repository: Text<'a>,
    #[serde(borrow)]
    pub regex: Text<'a>,
    /// `tag`: the exact image and what it carries.
    #[serde(borrow)]
    pub image: Text<'a>,
    #[serde(borrow)]
    pub cuda: Option<Text<'a>>,
    #[serde(borrow)]
    pub torch: Option<Text<'a>>,
    #[serde(borrow)]
    pub python: Option<Text<'a>>,
    #[serde(borrow)]
    pub rocm: Option<Text<'a>>,
    pub known_published: Option<bool>,
    pub base: Option<bool>,
    /// `default_image`: the Determined releases and their GPU image.
    #[serde(borrow)]
    pub determined_from: Text<'a>,
    #[serde(borrow)]
    pub determined_to: Text<'a>,
    #[serde(borrow)]
    pub gpu_image: Text<'a>,
    /// `build_input`: an image family (`…-gpu-*`), its base image and
    /// PyTorch build.
    #[serde(borrow)]
    pub image_family: Text<'a>,
    #[serde(borrow)]
    pub base_image: Option<Text<'a>>,
    #[serde(borrow)]
    pub base_images: List<'a, DatedBase<'a>>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct DatedBase<'a> {
    #[serde(borrow)]
    pub image: Text<'a>,
    #[serde(borrow)]
    pub from: Text<'a>,
    #[serde(borrow)]
    pub to: Text<'a>,
}

/// `torch_builds.json` (releases, compiled architectures) and
/// `torch_dtypes.json` (the release that first has a dtype or API).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct TorchRow<'a> {
    #[serde(borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub torch: Text<'a>,
    #[serde(borrow)]
    pub channel: Text<'a>,
    #[serde(borrow)]
    pub variant: Option<Text<'a>>,
    #[serde(borrow)]
    pub arch_list: List<'a, Text<'a>>,
    /// A partial list: architectures the build is known to include (the
    /// others are not recorded).
    #[serde(borrow)]
    pub includes: List<'a, Text<'a>>,
    /// `unrecorded`: the build carries PTX, for an architecture the row
    /// does not record.
    #[serde(borrow)]
    pub ptx: Option<Text<'a>>,
    #[serde(borrow)]
    pub pip_variants: List<'a, Text<'a>>,
    #[serde(borrow)]
    pub pypi_default: Option<Text<'a>>,
    /// `dtype` rows: `torch.float8_e4m3fn`, first release (`<=1.10` when
    /// earlier ones were not checked).
    #[serde(borrow)]
    pub name: Text<'a>,
    #[serde(borrow)]
    pub first_torch: Text<'a>,
}

/// `architectures.json`: compute capability → the CUDA that first builds for it.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ArchRow<'a> {
    #[serde(borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub cc: Text<'a>,
    #[serde(borrow)]
    pub sm: Text<'a>,
    #[serde(borrow)]
    pub arch: Text<'a>,
    #[serde(borrow)]
    pub first_cuda: Option<Text<'a>>,
    #[serde(borrow)]
    pub first_cuda_at_most: Option<Text<'a>>,
    #[serde(borrow)]
    pub removed_in: Option<Text<'a>>,
}

/// `cuda_drivers.json`: toolkit minimum drivers, minor-version floors,
/// forward-compatibility branches.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct DriverRow<'a> {
    #[serde(borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub cuda: Text<'a>,
    #[serde(borrow)]
    pub release: Text<'a>,
    #[serde(borrow)]
    pub min_driver: Option<Text<'a>>,
    pub cuda_major: Option<u32>,
    #[serde(borrow)]
    pub cuda_from: Option<Text<'a>>,
    #[serde(borrow)]
    pub cuda_to: Option<Text<'a>>,
    #[serde(borrow)]
    pub host_branches: List<'a, Text<'a>>,
}

/// `ngc_pytorch.json`: NGC PyTorch containers.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct NgcRow<'a> {
    #[serde(borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub tag: Text<'a>,
    #[serde(borrow)]
    pub cuda: Option<Text<'a>>,
    #[serde(borrow)]
    pub driver: Option<Text<'a>>,
    #[serde(borrow)]
    pub torch: Option<Text<'a>>,
    #[serde(borrow)]
    pub torch_version: Option<Text<'a>>,
    #[serde(borrow)]
    pub torch_cuda_arch_list: List<'a, Text<'a>>,
    #[serde(borrow)]
    pub requires_driver_branch: Option<Text<'a>>,
}

/// `debug_env.json`: environment switches that change speed or behaviour.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct EnvRow<'a> {
    #[serde(borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub name: Text<'a>,
    #[serde(rename = "match")]
    #[serde(borrow)]
    pub matches: EnvMatch<'a>,
    #[serde(borrow)]
    pub effect: Text<'a>,
    #[serde(borrow)]
    pub category: Text<'a>,
    #[serde(borrow)]
    pub severity: Text<'a>,
    #[serde(borrow)]
    pub aliases: List<'a, Text<'a>>,
    #[serde(borrow)]
    pub note: Option<Text<'a>>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct EnvMatch<'a> {
    #[serde(borrow)]
    pub values: List<'a, Text<'a>>,
    pub case_insensitive: bool,
    pub any: bool,
}
