//! The runtime data tables (`data/*.json`, see `data/README.md`), read by
//! the build into typed rows (`data_rows.rs`) that are compiled in as static
//! tables: a check decodes no JSON. Only the fields the checks use are read;
//! every row keeps its `source` (the test in `data_tests.rs` checks each
//! names a citation).

use std::collections::BTreeMap;
use std::sync::OnceLock;

pub use super::data_rows::{ArchRow, DatedBase, DriverRow, EnvMatch, EnvRow, ImageRow, List, NgcRow, Text, TorchRow};

/// The tables as `build.rs` wrote them from `data/*.json` (the test below
/// compares each with its file).
mod compiled {
    use std::borrow::Cow;

    use super::{ArchRow, DatedBase, DriverRow, EnvMatch, EnvRow, ImageRow, NgcRow, TorchRow};

    include!(concat!(env!("OUT_DIR"), "/runtime_tables.rs"));
}

macro_rules! table {
    ($(#[$doc:meta])* $name:ident, $row:ty, $table:ident) => {
        $(#[$doc])*
        pub fn $name() -> &'static [$row] {
            compiled::$table
        }
    };
}

table!(
    /// Rows of `images.json`.
    images, ImageRow<'static>, IMAGES
);
table!(
    /// Rows of `torch_builds.json`.
    torch_builds, TorchRow<'static>, TORCH_BUILDS
);
table!(
    /// Rows of `torch_dtypes.json` (read on their own: a dtype check needs
    /// nothing else of PyTorch's builds).
    torch_dtypes, TorchRow<'static>, TORCH_DTYPES
);
table!(
    /// Rows of `architectures.json`.
    architectures, ArchRow<'static>, ARCHITECTURES
);
table!(
    /// Rows of `cuda_drivers.json`.
    cuda_drivers, DriverRow<'static>, CUDA_DRIVERS
);
table!(
    /// Rows of `ngc_pytorch.json`.
    ngc_pytorch, NgcRow<'static>, NGC_PYTORCH
);
table!(
    /// Rows of `debug_env.json`.
    debug_env, EnvRow<'static>, DEBUG_ENV
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

    /// The rows serde reads from a table's file, as the build read them.
    fn read<R: serde::Deserialize<'static>>(text: &'static str) -> Vec<R> {
        match serde_json::from_str::<super::super::data_rows::File<R>>(text) {
            Ok(file) => file.rows,
            Err(e) => panic!("a table does not read: {e}"),
        }
    }

    #[test]
    fn compiled_tables_are_their_files() {
        assert_eq!(images(), read::<ImageRow>(include_str!("data/images.json")));
        assert_eq!(torch_builds(), read::<TorchRow>(include_str!("data/torch_builds.json")));
        assert_eq!(torch_dtypes(), read::<TorchRow>(include_str!("data/torch_dtypes.json")));
        assert_eq!(
            architectures(),
            read::<ArchRow>(include_str!("data/architectures.json"))
        );
        assert_eq!(
            cuda_drivers(),
            read::<DriverRow>(include_str!("data/cuda_drivers.json"))
        );
        assert_eq!(ngc_pytorch(), read::<NgcRow>(include_str!("data/ngc_pytorch.json")));
        assert_eq!(debug_env(), read::<EnvRow>(include_str!("data/debug_env.json")));
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
