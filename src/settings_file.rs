//! stagec's own settings: `.stagec.toml` or `stagec.toml` (keys at the top
//! level), or the `[tool.stagec]` table of `pyproject.toml`, found as ruff
//! finds its settings — in the checked file's folder or the closest folder
//! above it that has one; in one folder `.stagec.toml` wins over
//! `stagec.toml`, which wins over `pyproject.toml`, and a `pyproject.toml`
//! without a `[tool.stagec]` table does not count. Settings of different
//! folders are not merged, except through `extend`, which names a settings
//! file this one builds on (its keys win; rule selections stack).
//!
//! Plain data: [`parse`] reads text, and [`load`] and [`find`] read files
//! only through the function they are given. Unknown settings are errors
//! with the nearest known key; every error is located (file, line, column).
//! The generated schema is `schemas/stagec-settings.schema.json`.
//!
//! ```toml
//! [tool.stagec]
//! select = ["ALL"]
//! ignore = ["P303"]
//! inventory = "cluster/nodes.json"
//! min-severity = "warning"
//!
//! [tool.stagec.per-file-ignores]
//! "experiments/legacy/*.yaml" = ["C2"]
//! "*.py" = ["T107"]
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::diagnostic::Severity;
use crate::fsutil::normalize;
use crate::selection::{PerFileIgnore, RuleSelection, RuleSelector, Selection};

/// The settings files looked for in each folder, in order of precedence.
pub const FILE_NAMES: [&str; 3] = [".stagec.toml", "stagec.toml", "pyproject.toml"];

/// Largest settings file read.
pub const MAX_BYTES: usize = 1024 * 1024;

/// Most settings files one `extend` chain may name.
pub const MAX_EXTEND_DEPTH: usize = 16;

/// Most bytes of settings one `extend` chain may hold, all files together.
pub const MAX_CHAIN_BYTES: usize = 2 * 1024 * 1024;

/// `$id` of the generated settings schema.
pub const SETTINGS_SCHEMA_ID: &str = "https://stagec.dev/schemas/stagec-settings.schema.json";

/// `title` of the generated settings schema.
pub const SETTINGS_SCHEMA_TITLE: &str = "stagec settings (stagec.toml, .stagec.toml, [tool.stagec] in pyproject.toml)";

/// stagec's settings: the keys of `stagec.toml` or `.stagec.toml`, or of the `[tool.stagec]` table of `pyproject.toml`. Paths are relative to the folder of the file that sets them. The command line wins over these settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SettingsOptions {
    /// Another settings file (`stagec.toml`, `.stagec.toml` or a `pyproject.toml` with `[tool.stagec]`) these settings build on: its settings apply where these set nothing, and its rule selection is applied first, then this file's. It must be inside this file's project (the closest folder above holding `.git`), links resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extend: Option<String>,
    /// Rule codes or prefixes to report, and no others: `C101`, `P2`, `T`, or `ALL`. Default: every rule. The most specific selector wins between `select` and `ignore` (`select = ["C"]` with `ignore = ["C101"]` drops C101; `select = ["C101"]` with `ignore = ["C"]` keeps it). `--select` on the command line replaces it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub select: Option<Vec<String>>,
    /// Rule codes or prefixes never to report, e.g. `["P303", "V302"]`. `--ignore` on the command line adds to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignore: Option<Vec<String>>,
    /// Rule codes or prefixes to report in addition to `select` (or to every rule when `select` is not set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extend_select: Option<Vec<String>>,
    /// Rules to ignore in some files: a glob (relative to this file's folder, or a bare file name such as `*.py`; `*` stays within a folder, `**` crosses folders, a leading `!` negates) mapped to rule codes or prefixes. Applies to every file diagnostics are reported in: configs, `stages.yaml`, model sources and training code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_file_ignores: Option<BTreeMap<String, Vec<String>>>,
    /// The cluster inventory to check hardware availability against when the command line names none (`--inventory`, `--probe`): stagec's inventory YAML, `kubectl get nodes -o json` output or nvidia-smi CSV. Relative to this file's folder, and inside its project (the closest folder above holding `.git`), links resolved: a file elsewhere is named with `--inventory`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inventory: Option<String>,
    /// The Determined release the cluster runs (e.g. `0.38.1`), as `--determined`: its default image applies where a config sets none. Default: the newest release stagec knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub determined: Option<String>,
    /// Show info diagnostics in the human, concise and GitHub formats too (`--show-infos`). JSON, SARIF and the editor always carry them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub show_infos: Option<bool>,
    /// Exit with status 1 when there are warnings (`--deny-warnings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny_warnings: Option<bool>,
    /// The least severe diagnostics reported anywhere (terminal, JSON, SARIF, editor): `"info"` (default: everything), `"warning"` or `"error"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_severity: Option<MinSeverity>,
}

/// A severity floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MinSeverity {
    /// Report everything.
    Info,
    /// Report warnings and errors.
    Warning,
    /// Report errors only.
    Error,
}

/// The keys [`SettingsOptions`] has, as written in a file.
pub const KEYS: &[&str] = &[
    "extend",
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "inventory",
    "determined",
    "show-infos",
    "deny-warnings",
    "min-severity",
];

/// The JSON Schema of the settings.
pub fn settings_schema() -> serde_json::Value {
    crate::spec::root_schema::<SettingsOptions>(SETTINGS_SCHEMA_ID, SETTINGS_SCHEMA_TITLE)
}

/// Where a settings file keeps its settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SettingsKind {
    /// `stagec.toml`, `.stagec.toml` (or any other name): the top level.
    #[default]
    Stagec,
    /// `pyproject.toml`: the `[tool.stagec]` table.
    Pyproject,
}

/// The file settings come from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SettingsOrigin {
    pub path: PathBuf,
    pub kind: SettingsKind,
}

impl SettingsOrigin {
    /// The origin of the file at `path`: a `pyproject.toml` keeps its
    /// settings under `[tool.stagec]`, any other file at the top level.
    pub fn new(path: impl Into<PathBuf>) -> SettingsOrigin {
        let path = path.into();
        let kind = if path.file_name().is_some_and(|n| n == "pyproject.toml") {
            SettingsKind::Pyproject
        } else {
            SettingsKind::Stagec
        };
        SettingsOrigin { path, kind }
    }

    /// The folder relative paths are resolved against.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new(""))
    }
}

/// Settings read from a file (and the files it extends), validated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    pub origin: SettingsOrigin,
    /// `extend`, resolved against the file's folder.
    pub extend: Option<PathBuf>,
    /// Rule selection layers, the extended files' first.
    pub rules: Vec<RuleSelection>,
    /// `per-file-ignores`, patterns relative to the folder of the file
    /// that set them.
    pub per_file_ignores: Option<Vec<PerFileIgnore>>,
    /// `inventory`, resolved against the file's folder.
    pub inventory: Option<PathBuf>,
    /// `determined`: a release stagec knows.
    pub determined: Option<String>,
    pub show_infos: Option<bool>,
    pub deny_warnings: Option<bool>,
    pub min_severity: Option<Severity>,
    /// Where `extend` is written, for errors about the file it names.
    extend_at: Option<(usize, usize)>,
    /// Where `inventory` is written, for errors about the file it names.
    inventory_at: Option<(usize, usize)>,
}

impl Settings {
    /// The selection these settings make, with `overrides` (the command
    /// line's, an editor's) layered on top. Relative file names are resolved
    /// against `cwd` for the per-file ignores.
    pub fn selection(&self, overrides: &[RuleSelection], cwd: Option<PathBuf>) -> Selection {
        let layers: Vec<RuleSelection> = self.rules.iter().chain(overrides).cloned().collect();
        Selection::new(&layers)
            .with_per_file_ignores(self.per_file_ignores.clone().unwrap_or_default())
            .with_min_severity(self.min_severity)
            .with_cwd(cwd)
    }

    /// These settings with `overrides` (the command line's `--config KEY =
    /// VALUE` pairs) on top: what the overrides set wins, their rule
    /// selection applies after these settings' own. Where the settings come
    /// from stays theirs.
    pub fn with_overrides(self, overrides: &Settings) -> Settings {
        let (origin, extend, extend_at) = (self.origin.clone(), self.extend.clone(), self.extend_at);
        Settings {
            origin,
            extend,
            extend_at,
            inventory_at: None,
            ..overrides.clone().over(self)
        }
    }

    /// These settings over `base` (the file `extend` names): what these
    /// set wins, rule selections stack.
    fn over(self, base: Settings) -> Settings {
        // The base's layers grow in place, so combining many overrides one
        // after another stays linear.
        let mut rules = base.rules;
        rules.extend(self.rules);
        Settings {
            origin: self.origin,
            extend: self.extend,
            rules,
            per_file_ignores: self.per_file_ignores.or(base.per_file_ignores),
            inventory: self.inventory.or(base.inventory),
            determined: self.determined.or(base.determined),
            show_infos: self.show_infos.or(base.show_infos),
            deny_warnings: self.deny_warnings.or(base.deny_warnings),
            min_severity: self.min_severity.or(base.min_severity),
            extend_at: self.extend_at,
            inventory_at: None,
        }
    }
}

/// The settings-file name an inline override's errors are located in (see
/// [`parse_override`]).
pub const OVERRIDE_ORIGIN: &str = "--config";

/// Reads one inline override, a TOML `KEY = VALUE` pair (or several) with
/// the keys of a `stagec.toml`, as ruff reads `--config 'KEY = VALUE'`.
/// Relative paths in it (`inventory`, `per-file-ignores` patterns) are
/// resolved against `cwd`. `extend` is refused: an override sets values,
/// and a settings file to build on is named with `--config PATH`. Errors
/// are located in a file named [`OVERRIDE_ORIGIN`] in `cwd`.
pub fn parse_override(text: &str, cwd: &Path) -> Result<Settings, Vec<SettingsError>> {
    let origin = SettingsOrigin {
        path: normalize(&cwd.join(OVERRIDE_ORIGIN)),
        kind: SettingsKind::Stagec,
    };
    let settings = parse(text, origin)?;
    if let Some((line, column)) = settings.extend_at {
        return Err(vec![error_at(
            &settings.origin.path,
            line,
            column,
            "`extend` cannot be given as an override: name the settings file with `--config PATH`".to_string(),
        )]);
    }
    Ok(settings)
}

/// A mistake in a settings file, located (1-based line and column, columns
/// in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsError {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

impl std::error::Error for SettingsError {}

/// How [`load`] and [`find`] read a file: `Ok(None)` when there is no such
/// file, `Err` with the reason when it exists but cannot be read.
pub type ReadFile<'a> = &'a mut dyn FnMut(&Path) -> Result<Option<String>, String>;

/// Whether a settings file may name a file: called with the settings file
/// and the (absolute, normalised) path it names (for a settings file
/// itself, twice its own path), `Err` with the reason when the named file is
/// outside the settings file's project. A settings file is input from
/// whoever committed it: what it names must stay in the project, or a pull
/// request could have stagec show a CI machine's credentials. The command
/// line's overrides ([`parse_override`]) are the user's own, and not held.
/// See `stagec::fsutil::inside_project`.
pub type InProject<'a> = &'a dyn Fn(&Path, &Path) -> Result<(), String>;

/// An [`InProject`] that allows everything: for settings that come from the
/// user (and for tests).
pub fn anywhere(_settings: &Path, _named: &Path) -> Result<(), String> {
    Ok(())
}

/// Ok when the file `settings` came from, and the inventory it names, are
/// inside its project.
fn held(settings: &Settings, in_project: InProject<'_>) -> Result<(), Vec<SettingsError>> {
    let path = &settings.origin.path;
    in_project(path, path).map_err(|why| vec![error_at(path, 0, 0, format!("this settings file is {why}"))])?;
    if let (Some(inventory), Some((line, column))) = (&settings.inventory, settings.inventory_at) {
        in_project(path, inventory).map_err(|why| {
            vec![error_at(
                path,
                line,
                column,
                format!(
                    "`inventory` names {}, {why}; a settings file names only files inside its project \
                     (name this one on the command line: `--inventory`)",
                    inventory.display()
                ),
            )]
        })?;
    }
    Ok(())
}

/// Reads the settings of one file's text (without following `extend`). A
/// `pyproject.toml` without `[tool.stagec]` gives default settings.
pub fn parse(text: &str, origin: SettingsOrigin) -> Result<Settings, Vec<SettingsError>> {
    parse_optional(text, origin.clone()).map(|s| {
        s.unwrap_or(Settings {
            origin,
            ..Settings::default()
        })
    })
}

/// The settings of the file at `path`, with the files its `extend` names;
/// every file they name must be in the project (`in_project`).
pub fn load(path: &Path, read: ReadFile<'_>, in_project: InProject<'_>) -> Result<Settings, Vec<SettingsError>> {
    let origin = SettingsOrigin::new(normalize(path));
    let text = match read(&origin.path) {
        Ok(Some(text)) => text,
        Ok(None) => return Err(vec![error_at(&origin.path, 0, 0, "no such settings file".to_string())]),
        Err(e) => return Err(vec![error_at(&origin.path, 0, 0, format!("cannot read: {e}"))]),
    };
    in_project(&origin.path, &origin.path)
        .map_err(|why| vec![error_at(&origin.path, 0, 0, format!("this settings file is {why}"))])?;
    let settings = parse(&text, origin)?;
    extend(settings, read, in_project, text.len())
}

/// The settings that govern files in `dir` (an absolute folder): those of
/// the closest folder, `dir` or above, with a settings file. `Ok(None)`
/// when there is none.
pub fn find(dir: &Path, read: ReadFile<'_>, in_project: InProject<'_>) -> Result<Option<Settings>, Vec<SettingsError>> {
    let dir = normalize(dir);
    for folder in dir.ancestors() {
        if let Some(settings) = find_in(folder, read, in_project)? {
            return Ok(Some(settings));
        }
    }
    Ok(None)
}

/// The settings of the settings file in `folder` itself (not above it):
/// one step of [`find`], for callers that remember what each folder holds.
pub fn find_in(
    folder: &Path,
    read: ReadFile<'_>,
    in_project: InProject<'_>,
) -> Result<Option<Settings>, Vec<SettingsError>> {
    for name in FILE_NAMES {
        let path = folder.join(name);
        let text = match read(&path) {
            Ok(Some(text)) => text,
            Ok(None) => continue,
            Err(e) => return Err(vec![error_at(&path, 0, 0, format!("cannot read: {e}"))]),
        };
        in_project(&path, &path).map_err(|why| vec![error_at(&path, 0, 0, format!("this settings file is {why}"))])?;
        if let Some(settings) = parse_optional(&text, SettingsOrigin::new(path))? {
            return extend(settings, read, in_project, text.len()).map(Some);
        }
    }
    Ok(None)
}

/// Follows `extend` from `settings` (read from `bytes` bytes of text).
fn extend(
    settings: Settings,
    read: ReadFile<'_>,
    in_project: InProject<'_>,
    bytes: usize,
) -> Result<Settings, Vec<SettingsError>> {
    held(&settings, in_project)?;
    let mut total = bytes;
    let mut globs = glob_bytes(&settings);
    let mut chain = vec![settings];
    while let Some(last) = chain.last() {
        let Some(next) = last.extend.clone() else { break };
        let (line, column) = last.extend_at.unwrap_or((0, 0));
        let at = |message: String| vec![error_at(&last.origin.path, line, column, message)];
        if let Err(why) = in_project(&last.origin.path, &next) {
            return Err(at(format!(
                "`extend` names {}, {why}; a settings file builds only on settings files inside its project",
                next.display()
            )));
        }
        if chain.iter().any(|s| s.origin.path == next) {
            return Err(at(format!(
                "`extend` names {}, which extends this file again",
                next.display()
            )));
        }
        if chain.len() > MAX_EXTEND_DEPTH {
            return Err(at(format!(
                "`extend` chains more than {MAX_EXTEND_DEPTH} settings files"
            )));
        }
        let text = match read(&next) {
            Ok(Some(text)) => text,
            Ok(None) => return Err(at(format!("`extend` names {}, which does not exist", next.display()))),
            Err(e) => return Err(at(format!("cannot read {} (named by `extend`): {e}", next.display()))),
        };
        total = total.saturating_add(text.len());
        if total > MAX_CHAIN_BYTES {
            return Err(at(format!(
                "the settings files of this `extend` chain hold more than {} KiB in all",
                MAX_CHAIN_BYTES / 1024
            )));
        }
        let base = parse(&text, SettingsOrigin::new(next))?;
        held(&base, in_project)?;
        globs = globs.saturating_add(glob_bytes(&base));
        if globs > crate::selection::MAX_GLOBS_BYTES {
            return Err(at(format!(
                "the `per-file-ignores` globs of this `extend` chain hold more than {} KiB in all",
                crate::selection::MAX_GLOBS_BYTES / 1024
            )));
        }
        chain.push(base);
    }
    let mut merged: Option<Settings> = None;
    while let Some(s) = chain.pop() {
        merged = Some(match merged {
            Some(base) => s.over(base),
            None => s,
        });
    }
    Ok(merged.unwrap_or_default())
}

/// Bytes of the `per-file-ignores` globs `settings` set.
fn glob_bytes(settings: &Settings) -> usize {
    settings
        .per_file_ignores
        .iter()
        .flatten()
        .map(|p| p.pattern.len())
        .sum()
}

fn error_at(path: &Path, line: usize, column: usize, message: String) -> SettingsError {
    SettingsError {
        path: path.to_path_buf(),
        line: line + 1,
        column: column + 1,
        message,
    }
}

/// Collects located errors while a file is read.
struct Reader<'t> {
    text: &'t str,
    lines: crate::source::LineIndex,
    origin: &'t SettingsOrigin,
    errors: Vec<(usize, SettingsError)>,
}

impl Reader<'_> {
    fn loc(&self, offset: usize) -> (usize, usize) {
        self.lines.line_col_chars(self.text, offset)
    }

    fn error(&mut self, offset: usize, message: String) {
        let (line, column) = self.loc(offset);
        self.errors
            .push((offset, error_at(&self.origin.path, line, column, message)));
    }

    fn string(&mut self, key: &str, value: &Spanned<DeValue<'_>>) -> Option<String> {
        match value.get_ref() {
            DeValue::String(s) => Some(s.to_string()),
            other => {
                self.error(
                    value.span().start,
                    format!("`{key}` must be a string, not {}", a_type(other)),
                );
                None
            }
        }
    }

    fn bool(&mut self, key: &str, value: &Spanned<DeValue<'_>>) -> Option<bool> {
        match value.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            other => {
                self.error(
                    value.span().start,
                    format!("`{key}` must be `true` or `false`, not {}", a_type(other)),
                );
                None
            }
        }
    }

    fn path(&mut self, key: &str, value: &Spanned<DeValue<'_>>) -> Option<PathBuf> {
        let text = self.string(key, value)?;
        if text.trim().is_empty() {
            self.error(value.span().start, format!("`{key}` is empty: name a file"));
            return None;
        }
        Some(normalize(&self.origin.dir().join(text)))
    }

    fn selectors(&mut self, key: &str, value: &Spanned<DeValue<'_>>) -> Option<Vec<RuleSelector>> {
        let DeValue::Array(items) = value.get_ref() else {
            self.error(
                value.span().start,
                format!(
                    "`{key}` must be a list of rule codes or prefixes (e.g. `[\"C101\", \"P2\"]`), not {}",
                    a_type(value.get_ref())
                ),
            );
            return None;
        };
        let mut out = Vec::new();
        let mut ok = true;
        for item in items {
            let DeValue::String(s) = item.get_ref() else {
                self.error(
                    item.span().start,
                    format!(
                        "`{key}` lists rule codes or prefixes as strings, not {}",
                        a_type(item.get_ref())
                    ),
                );
                ok = false;
                continue;
            };
            match RuleSelector::parse(s) {
                Ok(sel) => out.push(sel),
                Err(e) => {
                    self.error(item.span().start, e.to_string());
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    fn per_file_ignores(&mut self, value: &Spanned<DeValue<'_>>) -> Option<Vec<PerFileIgnore>> {
        let DeValue::Table(table) = value.get_ref() else {
            self.error(
                value.span().start,
                format!(
                    "`per-file-ignores` must be a table of globs to rule lists (e.g. `{{ \"*.py\" = [\"T107\"] }}`), not {}",
                    a_type(value.get_ref())
                ),
            );
            return None;
        };
        if table.len() > crate::selection::MAX_GLOBS {
            self.error(
                value.span().start,
                format!(
                    "`per-file-ignores` sets {} globs; at most {} are read",
                    table.len(),
                    crate::selection::MAX_GLOBS
                ),
            );
            return None;
        }
        // (A glob too long by itself is reported at that glob, below.)
        let lengths = || table.iter().map(|(pattern, _)| pattern.get_ref().len());
        let bytes: usize = lengths().sum();
        if bytes > crate::selection::MAX_GLOBS_BYTES && lengths().all(|n| n <= crate::selection::MAX_GLOB_BYTES) {
            self.error(
                value.span().start,
                format!(
                    "the `per-file-ignores` globs hold {} KiB; at most {} KiB are read",
                    bytes / 1024,
                    crate::selection::MAX_GLOBS_BYTES / 1024
                ),
            );
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        for (pattern, codes) in table.iter() {
            let selectors = self.selectors(
                &format!(
                    "per-file-ignores.\"{}\"",
                    crate::rules::text::truncate(pattern.get_ref())
                ),
                codes,
            );
            let Some(selectors) = selectors else {
                ok = false;
                continue;
            };
            match PerFileIgnore::new(pattern.get_ref(), self.origin.dir(), selectors) {
                Ok(p) => out.push(p),
                Err(e) => {
                    self.error(
                        pattern.span().start,
                        format!(
                            "invalid glob `{}`: {e}",
                            crate::rules::text::truncate(pattern.get_ref())
                        ),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    fn determined(&mut self, value: &Spanned<DeValue<'_>>) -> Option<String> {
        let release = self.string("determined", value)?;
        if crate::runtime::image::default_image(&release).is_some() {
            return Some(release);
        }
        self.error(
            value.span().start,
            format!(
                "unknown Determined release `{}`: stagec knows Determined's default images for releases 0.15.0 to {}",
                crate::rules::text::truncate(&release),
                crate::runtime::image::latest_determined()
            ),
        );
        None
    }

    fn min_severity(&mut self, value: &Spanned<DeValue<'_>>) -> Option<Severity> {
        let text = self.string("min-severity", value)?;
        match text.as_str() {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            other => {
                let names = ["info", "warning", "error"];
                let hint = match crate::suggest::nearest(other, names.into_iter()) {
                    Some(s) => format!("; did you mean `{s}`?"),
                    None => String::new(),
                };
                self.error(
                    value.span().start,
                    format!(
                        "`min-severity` must be \"info\", \"warning\" or \"error\", not `{}`{hint}",
                        crate::rules::text::truncate(other)
                    ),
                );
                None
            }
        }
    }

    /// Reads the settings table.
    fn settings(&mut self, table: &DeTable<'_>) -> Settings {
        let mut s = Settings {
            origin: self.origin.clone(),
            ..Settings::default()
        };
        let mut rules = RuleSelection::default();
        for (key, value) in table.iter() {
            let name: &str = key.get_ref();
            match name {
                "extend" => {
                    s.extend = self.path(name, value);
                    s.extend_at = Some(self.loc(value.span().start));
                }
                "select" => rules.select = self.selectors(name, value),
                "ignore" => rules.ignore = self.selectors(name, value).unwrap_or_default(),
                "extend-select" => rules.extend_select = self.selectors(name, value).unwrap_or_default(),
                "per-file-ignores" => s.per_file_ignores = self.per_file_ignores(value),
                "inventory" => {
                    s.inventory = self.path(name, value);
                    s.inventory_at = Some(self.loc(value.span().start));
                }
                "determined" => s.determined = self.determined(value),
                "show-infos" => s.show_infos = self.bool(name, value),
                "deny-warnings" => s.deny_warnings = self.bool(name, value),
                "min-severity" => s.min_severity = self.min_severity(value),
                unknown => {
                    let message = format!("unknown setting `{}`", crate::rules::text::truncate(unknown));
                    let message = match suggest_key(unknown) {
                        Some(k) => format!("{message}; did you mean `{k}`?"),
                        None => format!("{message}; the settings are {}", list_keys()),
                    };
                    self.error(key.span().start, message);
                }
            }
        }
        if !rules.is_empty() {
            s.rules.push(rules);
        }
        s
    }
}

/// The nearest known key: the kebab-case spelling of a snake_case one, or
/// the closest by edit distance.
fn suggest_key(unknown: &str) -> Option<&'static str> {
    let kebab = unknown.replace('_', "-").to_ascii_lowercase();
    if let Some(k) = KEYS.iter().find(|k| **k == kebab) {
        return Some(k);
    }
    crate::suggest::nearest(unknown, KEYS.iter().copied())
}

fn list_keys() -> String {
    KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
}

fn a_type(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "a list",
        DeValue::Table(_) => "a table",
    }
}

/// Reads a file's settings; `Ok(None)` for a `pyproject.toml` without
/// `[tool.stagec]`.
fn parse_optional(text: &str, origin: SettingsOrigin) -> Result<Option<Settings>, Vec<SettingsError>> {
    let mut reader = Reader {
        text,
        lines: crate::source::LineIndex::new(text),
        origin: &origin,
        errors: Vec::new(),
    };
    let root = match DeTable::parse(text) {
        Ok(root) => root,
        Err(e) => {
            let offset = e.span().map_or(0, |s| s.start);
            let message = format!("invalid TOML: {}", e.message().trim_end());
            reader.error(offset, message);
            return Err(reader.errors.into_iter().map(|(_, e)| e).collect());
        }
    };
    let table = match origin.kind {
        SettingsKind::Stagec => Some(root.get_ref()),
        SettingsKind::Pyproject => {
            let tool = root.get_ref().get("tool");
            match tool.map(|t| (t, t.get_ref())) {
                None => None,
                Some((_, DeValue::Table(tool))) => match tool.get("stagec") {
                    None => None,
                    Some(stagec) => match stagec.get_ref() {
                        DeValue::Table(t) => Some(t),
                        other => {
                            let message = format!("`tool.stagec` must be a table, not {}", a_type(other));
                            reader.error(stagec.span().start, message);
                            None
                        }
                    },
                },
                // Not stagec's to judge: no `[tool.stagec]`.
                Some(_) => None,
            }
        }
    };
    let settings = table.map(|t| reader.settings(t));
    if reader.errors.is_empty() {
        return Ok(settings);
    }
    reader.errors.sort_by_key(|(offset, _)| *offset);
    Err(reader.errors.into_iter().map(|(_, e)| e).collect())
}

#[cfg(test)]
mod tests;
