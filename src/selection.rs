//! Rule selection, as ruff selects rules: `select`, `ignore` and
//! `extend-select` by code (`C101`), prefix (`P2`, `T`) or `ALL`; per-file
//! ignores by glob; a severity floor. Plain data: the CLI, the language
//! server and the tests build a [`Selection`] and hand it to the compiler
//! driver through its options' `selection`, which drops
//! what it does not keep (after inline suppressions, before the per-file
//! cap).
//!
//! How the enabled set is resolved (ruff's rules): selections are layered
//! — an extended settings file, the settings file, then the command line.
//! A layer with `select` starts afresh from it; a layer without one starts
//! from the set the layers below resolved. Within a layer the most specific
//! selector wins for each rule (`ALL` < a one-letter prefix < … < a whole
//! code), and `ignore` wins over `select` between equally specific ones:
//! `select = ["C"], ignore = ["C101"]` drops C101, `select = ["C101"],
//! ignore = ["C"]` keeps it. With no layer selecting, every rule is on.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::diagnostic::{Diagnostic, Severity};
pub use crate::fsutil::normalize;
use crate::rules;
use crate::source::SourceMap;

/// The selector of every rule.
pub const ALL: &str = "ALL";

/// Selects rules by code, by a prefix of codes, or all of them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RuleSelector {
    /// `ALL`, or a prefix of at least one rule's code, upper case.
    text: String,
}

/// A selector that names no rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectorError {
    /// The selector as given.
    pub given: String,
    /// The nearest selector that exists, if one is close.
    pub suggestion: Option<String>,
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let given = format!("`{}`", crate::rules::text::truncate(&self.given));
        if self.given.trim().is_empty() {
            return write!(
                f,
                "empty rule selector: give a rule code (`C101`), a prefix (`P2`) or `ALL`"
            );
        }
        write!(f, "unknown rule selector {given}")?;
        match &self.suggestion {
            Some(s) => write!(f, "; did you mean `{s}`?"),
            None => write!(f, "; `stagec rules` lists the codes"),
        }
    }
}

impl std::error::Error for SelectorError {}

impl RuleSelector {
    /// `ALL`.
    pub fn all() -> RuleSelector {
        RuleSelector { text: ALL.to_string() }
    }

    /// Parses `ALL`, a rule code or a prefix of one (case-insensitive,
    /// surrounding blanks ignored).
    pub fn parse(text: &str) -> Result<RuleSelector, SelectorError> {
        let upper = text.trim().to_ascii_uppercase();
        if upper == ALL {
            return Ok(RuleSelector::all());
        }
        if !upper.is_empty() && rules::all().any(|r| r.code.starts_with(upper.as_str())) {
            return Ok(RuleSelector { text: upper });
        }
        Err(SelectorError {
            given: text.to_string(),
            suggestion: suggest(text),
        })
    }

    /// The selector as written in settings: `ALL`, `P2`, `C101`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// How specific the selector is: 0 for `ALL`, else the prefix's length
    /// (a whole code is the most specific).
    pub fn specificity(&self) -> usize {
        if self.text == ALL {
            0
        } else {
            self.text.len()
        }
    }

    /// Whether the selector selects the rule with `code`.
    pub fn matches(&self, code: &str) -> bool {
        self.text == ALL || code.starts_with(self.text.as_str())
    }

    /// The codes of the rules it selects, in code order.
    pub fn codes(&self) -> impl Iterator<Item = &'static str> + '_ {
        rules::all().map(|r| r.code).filter(move |c| self.matches(c))
    }
}

impl FromStr for RuleSelector {
    type Err = SelectorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RuleSelector::parse(s)
    }
}

impl fmt::Display for RuleSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The nearest existing selector to a mistaken one: the code of a rule
/// named by its name (`duplicate-key` → `Y002`), else the nearest code.
fn suggest(given: &str) -> Option<String> {
    let trimmed = given.trim();
    if let Some(rule) = rules::lookup(trimmed) {
        return Some(rule.code.to_string());
    }
    // The letters typed for the digits that look like them: `C1O1`.
    let digits: String = trimmed
        .to_ascii_uppercase()
        .chars()
        .enumerate()
        .map(|(i, c)| match c {
            'O' if i > 0 => '0',
            'I' | 'L' if i > 0 => '1',
            c => c,
        })
        .collect();
    if digits != trimmed.to_ascii_uppercase() && rules::all().any(|r| r.code.starts_with(digits.as_str())) {
        return Some(digits);
    }
    let codes: Vec<&str> = rules::all().map(|r| r.code).collect();
    if let Some(code) = crate::suggest::nearest(trimmed, codes.iter().copied()) {
        return Some(code.to_string());
    }
    let names: Vec<&str> = rules::all().map(|r| r.name).collect();
    crate::suggest::nearest(trimmed, names.iter().copied())
        .and_then(rules::lookup)
        .map(|r| r.code.to_string())
}

/// One layer of rule selection: a settings file's, or the command line's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleSelection {
    /// `select`: when given, the layer starts from these rules alone.
    pub select: Option<Vec<RuleSelector>>,
    /// `ignore`: rules to leave out.
    pub ignore: Vec<RuleSelector>,
    /// `extend-select`: rules to add to what the layers below selected.
    pub extend_select: Vec<RuleSelector>,
}

impl RuleSelection {
    /// Whether the layer says nothing.
    pub fn is_empty(&self) -> bool {
        self.select.is_none() && self.ignore.is_empty() && self.extend_select.is_empty()
    }
}

/// Longest `per-file-ignores` glob, in bytes.
pub const MAX_GLOB_BYTES: usize = 4096;

/// Most `per-file-ignores` globs one settings file (or the command line's
/// overrides) may set.
pub const MAX_GLOBS: usize = 256;

/// Most bytes of `per-file-ignores` globs one settings file, or one
/// `extend` chain, may hold: what they compile to costs time and memory.
pub const MAX_GLOBS_BYTES: usize = 32 * 1024;

/// Ignores rules in the files a glob matches (`per-file-ignores`).
#[derive(Clone, Debug)]
pub struct PerFileIgnore {
    /// The pattern as written (`!` first negates it).
    pub pattern: String,
    /// The folder the pattern is relative to: the settings file's.
    pub base: PathBuf,
    /// The rules ignored in matching files.
    pub selectors: Vec<RuleSelector>,
    negated: bool,
    matcher: globset::GlobSet,
}

impl PartialEq for PerFileIgnore {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern && self.base == other.base && self.selectors == other.selectors
    }
}

impl PerFileIgnore {
    /// A pattern relative to `base` (a leading `!` negates it: the rules
    /// are ignored in the files it does *not* match). `*` stops at `/`,
    /// `**` crosses folders; a pattern also matches a file's bare name, so
    /// `*.py` covers every Python file. `Err` with the reason when the glob
    /// is invalid.
    pub fn new(pattern: &str, base: &Path, selectors: Vec<RuleSelector>) -> Result<PerFileIgnore, String> {
        if pattern.len() > MAX_GLOB_BYTES {
            return Err(format!(
                "the glob is {} bytes long; a glob may have at most {MAX_GLOB_BYTES}",
                pattern.len()
            ));
        }
        let (negated, glob) = match pattern.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        let glob = glob.strip_prefix("./").unwrap_or(glob);
        let glob = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| e.kind().to_string())?;
        // A set of one: unlike a single glob's matcher, building it reports
        // a regular expression too large to compile instead of panicking.
        let matcher = globset::GlobSetBuilder::new()
            .add(glob)
            .build()
            .map_err(|e| match e.kind() {
                globset::ErrorKind::Regex(_) => "the glob is too complex to match with".to_string(),
                other => other.to_string(),
            })?;
        Ok(PerFileIgnore {
            pattern: pattern.to_string(),
            base: normalize(base),
            selectors,
            negated,
            matcher,
        })
    }

    /// Whether the pattern applies to the file at `path` (absolute and
    /// normalised).
    pub fn applies_to(&self, path: &Path) -> bool {
        let relative = path.strip_prefix(&self.base).ok();
        let by_path = relative.is_some_and(|r| self.matcher.is_match(r));
        let by_name = path.file_name().is_some_and(|n| self.matcher.is_match(Path::new(n)));
        (by_path || by_name) != self.negated
    }
}

/// Which diagnostics are reported: the enabled rules, the per-file
/// ignores and the severity floor. The default keeps everything.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Rules not enabled (every other rule is).
    disabled: BTreeSet<&'static str>,
    per_file_ignores: Vec<PerFileIgnore>,
    /// Diagnostics less severe than this are dropped.
    min_severity: Option<Severity>,
    /// The folder relative file names are resolved against, for per-file
    /// ignores; `None`: names are taken as they are.
    cwd: Option<PathBuf>,
}

impl Selection {
    /// Every rule, every file, every severity.
    pub fn all() -> Selection {
        Selection::default()
    }

    /// The rules `layers` (lowest first) enable, resolved as ruff does (see
    /// the module documentation).
    pub fn new(layers: &[RuleSelection]) -> Selection {
        let every: BTreeSet<&'static str> = rules::all().map(|r| r.code).collect();
        let mut enabled = every.clone();
        for layer in layers {
            let mut set = if layer.select.is_some() {
                BTreeSet::new()
            } else {
                enabled
            };
            // (specificity, ignore?, selector): ignores after selects of the
            // same specificity, so they win a tie.
            let mut steps: Vec<(usize, bool, &RuleSelector)> = layer
                .select
                .iter()
                .flatten()
                .chain(&layer.extend_select)
                .map(|s| (s.specificity(), false, s))
                .chain(layer.ignore.iter().map(|s| (s.specificity(), true, s)))
                .collect();
            steps.sort_by_key(|(specificity, ignore, _)| (*specificity, *ignore));
            for (_, ignore, selector) in steps {
                for code in selector.codes() {
                    if ignore {
                        set.remove(code);
                    } else {
                        set.insert(code);
                    }
                }
            }
            enabled = set;
        }
        Selection {
            disabled: every.difference(&enabled).copied().collect(),
            ..Selection::default()
        }
    }

    /// Adds per-file ignores.
    pub fn with_per_file_ignores(mut self, ignores: Vec<PerFileIgnore>) -> Selection {
        self.per_file_ignores.extend(ignores);
        self
    }

    /// Drops diagnostics less severe than `floor`.
    pub fn with_min_severity(mut self, floor: Option<Severity>) -> Selection {
        self.min_severity = floor;
        self
    }

    /// Resolves relative file names against `cwd` (for per-file ignores).
    pub fn with_cwd(mut self, cwd: Option<PathBuf>) -> Selection {
        self.cwd = cwd.map(|c| normalize(&c));
        self
    }

    /// Whether the rule with `code` is enabled at all (per-file ignores may
    /// still leave it out of some files).
    pub fn is_enabled(&self, code: &str) -> bool {
        !self.disabled.contains(code)
    }

    /// The enabled rules' codes, in code order.
    pub fn enabled(&self) -> impl Iterator<Item = &'static str> + '_ {
        rules::all().map(|r| r.code).filter(|c| self.is_enabled(c))
    }

    /// Whether the selection keeps every diagnostic (nothing disabled,
    /// ignored per file or below a floor).
    pub fn keeps_everything(&self) -> bool {
        self.disabled.is_empty() && self.per_file_ignores.is_empty() && self.min_severity.is_none()
    }

    /// The severity floor.
    pub fn min_severity(&self) -> Option<Severity> {
        self.min_severity
    }

    /// Whether `d`, found in the file named `file` (as the compilation
    /// names it), is reported.
    pub fn keeps(&self, d: &Diagnostic, file: &str) -> bool {
        if !self.is_enabled(d.code) {
            return false;
        }
        // Severity orders Error < Warning < Info.
        if self.min_severity.is_some_and(|floor| d.severity > floor) {
            return false;
        }
        if self.per_file_ignores.is_empty() || file.is_empty() || file.starts_with('<') {
            return true;
        }
        let path = self.absolute(file);
        !self
            .per_file_ignores
            .iter()
            .any(|p| p.selectors.iter().any(|s| s.matches(d.code)) && p.applies_to(&path))
    }

    /// Drops the diagnostics the selection does not keep.
    pub fn apply(&self, diags: &mut Vec<Diagnostic>, sources: &SourceMap) {
        diags.retain(|d| {
            let name = sources.get(d.file).map_or("", |f| f.name.as_str());
            self.keeps(d, name)
        });
    }

    fn absolute(&self, file: &str) -> PathBuf {
        let path = Path::new(file);
        match &self.cwd {
            Some(cwd) if path.is_relative() => normalize(&cwd.join(path)),
            _ => normalize(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(s: &str) -> RuleSelector {
        RuleSelector::parse(s).expect("a known selector")
    }

    fn layer(select: Option<&[&str]>, ignore: &[&str], extend: &[&str]) -> RuleSelection {
        RuleSelection {
            select: select.map(|s| s.iter().map(|x| sel(x)).collect()),
            ignore: ignore.iter().map(|x| sel(x)).collect(),
            extend_select: extend.iter().map(|x| sel(x)).collect(),
        }
    }

    #[test]
    fn selectors_parse_codes_prefixes_and_all() {
        assert_eq!(sel("c101").as_str(), "C101");
        assert_eq!(sel(" P2 ").as_str(), "P2");
        assert_eq!(sel("all").as_str(), "ALL");
        assert_eq!(sel("ALL").specificity(), 0);
        assert_eq!(sel("T").specificity(), 1);
        let e = RuleSelector::parse("C1O1").expect_err("not a code");
        assert_eq!(e.suggestion.as_deref(), Some("C101"));
        let e = RuleSelector::parse("duplicate-key").expect_err("a name is not a selector");
        assert_eq!(e.suggestion.as_deref(), Some("Y002"));
        assert!(e.to_string().contains("did you mean `Y002`?"), "{e}");
        assert!(RuleSelector::parse("").is_err());
        assert!(RuleSelector::parse("Z").is_err());
    }

    #[test]
    fn the_most_specific_selector_wins() {
        let s = Selection::new(&[layer(Some(&["C"]), &["C101"], &[])]);
        assert!(!s.is_enabled("C101") && s.is_enabled("C102") && !s.is_enabled("P118"));
        let s = Selection::new(&[layer(Some(&["C101"]), &["C"], &[])]);
        assert!(s.is_enabled("C101") && !s.is_enabled("C102"));
        // Equally specific: ignore wins.
        let s = Selection::new(&[layer(Some(&["C101"]), &["C101"], &[])]);
        assert!(!s.is_enabled("C101"));
        let s = Selection::new(&[layer(None, &["ALL"], &["T1"])]);
        assert_eq!(s.enabled().next(), Some("T100"));
        assert!(s.enabled().all(|c| c.starts_with("T1")));
    }

    #[test]
    fn later_layers_override_or_extend() {
        let file = layer(Some(&["C", "P"]), &["P303"], &[]);
        // `--select` starts afresh: the file's ignore no longer applies.
        let s = Selection::new(&[file.clone(), layer(Some(&["P303"]), &[], &[])]);
        assert_eq!(s.enabled().collect::<Vec<_>>(), ["P303"]);
        // `--extend-select` adds to the file's selection, its ignore kept.
        let s = Selection::new(&[file.clone(), layer(None, &[], &["T"])]);
        assert!(s.is_enabled("T100") && s.is_enabled("C101") && !s.is_enabled("P303") && !s.is_enabled("Y001"));
        // `--ignore` removes from it.
        let s = Selection::new(&[file, layer(None, &["C1"], &[])]);
        assert!(!s.is_enabled("C101") && s.is_enabled("C201"));
        // Nothing selected: every rule.
        assert_eq!(Selection::new(&[]).enabled().count(), rules::all().count());
    }

    #[test]
    fn per_file_ignores_match_relative_paths_and_names() {
        let base = Path::new("/repo");
        let p = PerFileIgnore::new("exp/*.yaml", base, vec![sel("C")]).expect("glob");
        assert!(p.applies_to(Path::new("/repo/exp/const.yaml")));
        assert!(!p.applies_to(Path::new("/repo/exp/sub/const.yaml")));
        assert!(!p.applies_to(Path::new("/other/exp/const.yaml")));
        let p = PerFileIgnore::new("*.py", base, vec![sel("T")]).expect("glob");
        assert!(p.applies_to(Path::new("/repo/a/b/train.py")));
        let p = PerFileIgnore::new("!**/train.py", base, vec![sel("T")]).expect("glob");
        assert!(!p.applies_to(Path::new("/repo/a/train.py")));
        assert!(p.applies_to(Path::new("/repo/a/model.py")));
        assert!(PerFileIgnore::new("a/[b", base, vec![]).is_err());
        assert_eq!(normalize(Path::new("/a/./b/../c")), Path::new("/a/c"));
    }
}
