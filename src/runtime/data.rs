//! The runtime data tables (`data/*.json`, see `data/README.md`), compiled
//! in and read once, on first use, into typed rows. Only the fields the
//! checks use are read; every row keeps its `source` (the test in
//! `data_tests.rs` checks each names a citation).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

#[derive(Deserialize)]
struct File<R> {
    rows: Vec<R>,
}

/// Text of a table, borrowed from the compiled-in file where it has no
/// escapes, so reading a table allocates little.
pub type Text<'a> = Cow<'a, str>;

/// Parses a table; a table that does not parse (a test catches it) is empty.
fn load<R: Deserialize<'static>>(text: &'static str) -> Vec<R> {
    serde_json::from_str::<File<R>>(text)
        .map(|f| f.rows)
        .unwrap_or_default()
}

/// `images.json`: tag grammars, known tags, Determined's default images and
/// what image families were built from.
#[derive(Clone, Debug, Default, Deserialize)]
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
    pub base_images: Vec<DatedBase<'a>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
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
#[derive(Clone, Debug, Default, Deserialize)]
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
    pub arch_list: Vec<Text<'a>>,
    #[serde(borrow)]
    pub pip_variants: Vec<Text<'a>>,
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
#[derive(Clone, Debug, Default, Deserialize)]
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
#[derive(Clone, Debug, Default, Deserialize)]
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
    pub host_branches: Vec<Text<'a>>,
}

/// `ngc_pytorch.json`: NGC PyTorch containers.
#[derive(Clone, Debug, Default, Deserialize)]
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
    pub torch_cuda_arch_list: Vec<Text<'a>>,
    #[serde(borrow)]
    pub requires_driver_branch: Option<Text<'a>>,
}

/// `debug_env.json`: environment switches that change speed or behaviour.
#[derive(Clone, Debug, Default, Deserialize)]
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
    pub aliases: Vec<Text<'a>>,
    #[serde(borrow)]
    pub note: Option<Text<'a>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct EnvMatch<'a> {
    #[serde(borrow)]
    pub values: Vec<Text<'a>>,
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
    images, ImageRow<'static>, "images.json"
);
table!(
    /// Rows of `torch_builds.json`.
    torch_builds, TorchRow<'static>, "torch_builds.json"
);
table!(
    /// Rows of `torch_dtypes.json` (read on their own: a dtype check needs
    /// nothing else of PyTorch's builds).
    torch_dtypes, TorchRow<'static>, "torch_dtypes.json"
);
table!(
    /// Rows of `architectures.json`.
    architectures, ArchRow<'static>, "architectures.json"
);
table!(
    /// Rows of `cuda_drivers.json`.
    cuda_drivers, DriverRow<'static>, "cuda_drivers.json"
);
table!(
    /// Rows of `ngc_pytorch.json`.
    ngc_pytorch, NgcRow<'static>, "ngc_pytorch.json"
);
table!(
    /// Rows of `debug_env.json`.
    debug_env, EnvRow<'static>, "debug_env.json"
);

/// A tag pattern and its regex, compiled on first use.
type Pattern = (&'static ImageRow<'static>, OnceLock<Option<regex::Regex>>);

fn patterns() -> &'static [Pattern] {
    static ROWS: OnceLock<Vec<Pattern>> = OnceLock::new();
    ROWS.get_or_init(|| images_of("tag_pattern").map(|r| (r, OnceLock::new())).collect())
}

/// A pattern's regex: ASCII classes (compiling the Unicode ones for every
/// pattern would cost more than a whole check).
fn compiled(p: &'static Pattern) -> Option<&'static regex::Regex> {
    p.1.get_or_init(|| regex::Regex::new(&format!("(?-u){}", p.0.regex)).ok())
        .as_ref()
}

/// The tag patterns of `images.json`, each with its regex.
pub fn tag_patterns() -> impl Iterator<Item = (&'static ImageRow<'static>, Option<&'static regex::Regex>)> {
    patterns().iter().map(|p| (p.0, compiled(p)))
}

/// The tag patterns of one repository, compiled (only those).
pub fn tag_patterns_of(
    repository: &str,
) -> impl Iterator<Item = (&'static ImageRow<'static>, &'static regex::Regex)> + '_ {
    patterns()
        .iter()
        .filter(move |p| p.0.repository == repository)
        .filter_map(|p| compiled(p).map(|re| (p.0, re)))
}

/// `images.json` rows of one kind.
pub fn images_of(kind: &str) -> impl Iterator<Item = &'static ImageRow<'static>> + '_ {
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
        assert!(torch_dtypes().iter().any(|r| r.kind == "dtype"));
        assert!(architectures().iter().any(|r| r.cc == "9.0"));
        assert!(cuda_drivers().iter().any(|r| r.kind == "mvc_floor"));
        assert!(ngc_pytorch().iter().any(|r| r.tag == "24.03-py3"));
        assert!(debug_env().iter().any(|r| r.name == "CUDA_LAUNCH_BLOCKING"));
    }

    #[test]
    fn every_tag_pattern_compiles_and_matches_its_examples() {
        assert!(
            tag_patterns().all(|(_, re)| re.is_some()),
            "a pattern's regex does not compile"
        );
        let raw: serde_json::Value =
            serde_json::from_str(include_str!("data/images.json")).unwrap_or(serde_json::Value::Null);
        for row in raw["rows"].as_array().into_iter().flatten() {
            if row["kind"] != "tag_pattern" {
                continue;
            }
            let id = row["id"].as_str().unwrap_or_default();
            let re = tag_patterns()
                .find(|(r, _)| r.id == id)
                .and_then(|(_, re)| re)
                .expect("compiled");
            for example in row["examples"].as_array().into_iter().flatten() {
                let tag = example.as_str().unwrap_or_default();
                let tag = tag.rsplit_once(':').map_or(tag, |(_, t)| t);
                assert!(re.is_match(tag), "{id}: example {tag} does not match");
            }
        }
    }
}
