//! The runtime data tables (`data/*.json`, see `data/README.md`), compiled
//! in and read once, on first use, into typed rows. Only the fields the
//! checks use are read; every row keeps its `source` (the test in
//! `data_tests.rs` checks each names a citation).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

#[derive(Deserialize)]
struct File<R> {
    rows: Vec<R>,
}

/// Parses a table; a table that does not parse (a test catches it) is empty.
fn load<R: for<'de> Deserialize<'de>>(text: &str) -> Vec<R> {
    serde_json::from_str::<File<R>>(text)
        .map(|f| f.rows)
        .unwrap_or_default()
}

/// `images.json`: tag grammars, known tags, Determined's default images and
/// what image families were built from.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct ImageRow {
    pub kind: String,
    /// `tag_pattern`: its id and repository, the regex with named groups.
    pub id: String,
    pub repository: String,
    pub regex: String,
    /// `tag`: the exact image and what it carries.
    pub image: String,
    pub cuda: Option<String>,
    pub torch: Option<String>,
    pub python: Option<String>,
    pub rocm: Option<String>,
    pub known_published: Option<bool>,
    pub base: Option<bool>,
    /// `default_image`: the Determined releases and their GPU image.
    pub determined_from: String,
    pub determined_to: String,
    pub gpu_image: String,
    /// `build_input`: an image family (`…-gpu-*`), its base image and
    /// PyTorch build.
    pub image_family: String,
    pub base_image: Option<String>,
    pub base_images: Vec<DatedBase>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct DatedBase {
    pub image: String,
    pub from: String,
    pub to: String,
}

/// `torch_builds.json`: releases, compiled architectures, dtypes.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct TorchRow {
    pub kind: String,
    pub torch: String,
    pub channel: String,
    pub variant: Option<String>,
    pub arch_list: Vec<String>,
    pub pip_variants: Vec<String>,
    pub pypi_default: Option<String>,
    /// `dtype` rows: `torch.float8_e4m3fn`, first release (`<=1.10` when
    /// earlier ones were not checked).
    pub name: String,
    pub first_torch: String,
}

/// `architectures.json`: compute capability → the CUDA that first builds for it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct ArchRow {
    pub kind: String,
    pub cc: String,
    pub sm: String,
    pub arch: String,
    pub first_cuda: Option<String>,
    pub first_cuda_at_most: Option<String>,
    pub removed_in: Option<String>,
}

/// `cuda_drivers.json`: toolkit minimum drivers, minor-version floors,
/// forward-compatibility branches.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct DriverRow {
    pub kind: String,
    pub cuda: String,
    pub release: String,
    pub min_driver: Option<String>,
    pub cuda_major: Option<u32>,
    pub cuda_from: Option<String>,
    pub cuda_to: Option<String>,
    pub host_branches: Vec<String>,
}

/// `ngc_pytorch.json`: NGC PyTorch containers.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct NgcRow {
    pub kind: String,
    pub tag: String,
    pub cuda: Option<String>,
    pub driver: Option<String>,
    pub torch: Option<String>,
    pub torch_version: Option<String>,
    pub torch_cuda_arch_list: Vec<String>,
    pub requires_driver_branch: Option<String>,
}

/// `debug_env.json`: environment switches that change speed or behaviour.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct EnvRow {
    pub kind: String,
    pub name: String,
    #[serde(rename = "match")]
    pub matches: EnvMatch,
    pub effect: String,
    pub category: String,
    pub severity: String,
    pub aliases: Vec<String>,
    pub note: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct EnvMatch {
    pub values: Vec<String>,
    pub case_insensitive: bool,
    pub any: bool,
}

macro_rules! table {
    ($(#[$doc:meta])* $name:ident, $row:ty, $file:literal) => {
        $(#[$doc])*
        pub fn $name() -> &'static [$row] {
            static ROWS: OnceLock<Vec<$row>> = OnceLock::new();
            ROWS.get_or_init(|| load(include_str!(concat!("data/", $file))))
        }
    };
}

table!(
    /// Rows of `images.json`.
    images, ImageRow, "images.json"
);
table!(
    /// Rows of `torch_builds.json`.
    torch_builds, TorchRow, "torch_builds.json"
);
table!(
    /// Rows of `architectures.json`.
    architectures, ArchRow, "architectures.json"
);
table!(
    /// Rows of `cuda_drivers.json`.
    cuda_drivers, DriverRow, "cuda_drivers.json"
);
table!(
    /// Rows of `ngc_pytorch.json`.
    ngc_pytorch, NgcRow, "ngc_pytorch.json"
);
table!(
    /// Rows of `debug_env.json`.
    debug_env, EnvRow, "debug_env.json"
);

/// The compiled tag patterns of `images.json`, by id (compiled once).
pub fn tag_patterns() -> &'static [(ImageRow, regex::Regex)] {
    static PATTERNS: OnceLock<Vec<(ImageRow, regex::Regex)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        images()
            .iter()
            .filter(|r| r.kind == "tag_pattern")
            .filter_map(|r| Some((r.clone(), regex::Regex::new(&r.regex).ok()?)))
            .collect()
    })
}

/// `images.json` rows of one kind.
pub fn images_of(kind: &str) -> impl Iterator<Item = &'static ImageRow> + '_ {
    images().iter().filter(move |r| r.kind == kind)
}

/// The fields a tag pattern captured, by group name.
pub fn captures(re: &regex::Regex, tag: &str) -> Option<BTreeMap<String, String>> {
    let caps = re.captures(tag)?;
    Some(
        re.capture_names()
            .flatten()
            .filter_map(|n| caps.name(n).map(|m| (n.to_string(), m.as_str().to_string())))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_reads_into_rows() {
        assert!(images().len() > 40);
        assert!(torch_builds().iter().any(|r| r.kind == "arch_list"));
        assert!(architectures().iter().any(|r| r.cc == "9.0"));
        assert!(cuda_drivers().iter().any(|r| r.kind == "mvc_floor"));
        assert!(ngc_pytorch().iter().any(|r| r.tag == "24.03-py3"));
        assert!(debug_env().iter().any(|r| r.name == "CUDA_LAUNCH_BLOCKING"));
    }

    #[test]
    fn every_tag_pattern_compiles_and_matches_its_examples() {
        let rows: Vec<&ImageRow> = images_of("tag_pattern").collect();
        assert_eq!(tag_patterns().len(), rows.len(), "a pattern's regex does not compile");
        let raw: serde_json::Value =
            serde_json::from_str(include_str!("data/images.json")).unwrap_or(serde_json::Value::Null);
        for row in raw["rows"].as_array().into_iter().flatten() {
            if row["kind"] != "tag_pattern" {
                continue;
            }
            let id = row["id"].as_str().unwrap_or_default();
            let (_, re) = tag_patterns().iter().find(|(r, _)| r.id == id).expect("compiled");
            for example in row["examples"].as_array().into_iter().flatten() {
                let tag = example.as_str().unwrap_or_default();
                let tag = tag.rsplit_once(':').map_or(tag, |(_, t)| t);
                assert!(re.is_match(tag), "{id}: example {tag} does not match");
            }
        }
    }
}
