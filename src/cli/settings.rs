//! Settings files and rule selection on the command line: `--config`,
//! `--isolated`, `--select`, `--ignore`, `--extend-select`, and the
//! settings file found for each checked file (see
//! [`stagec::settings_file`] and [`stagec::selection`]). The command line
//! wins over the settings file, as in ruff: `--select` replaces its
//! `select`, `--ignore` and `--extend-select` add to it, `--inventory`,
//! `--probe` and `--determined` replace its `inventory` and `determined`.
//! A `--config 'KEY = VALUE'` override sits between the two: over every
//! settings file (found, or named by `--config PATH`), under the flags.
//!
//! Settings that concern the whole run rather than one file
//! (`deny-warnings`, `show-infos`) come, as ruff's do, from the settings
//! that govern the current folder (or `--config`).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use stagec::selection::{RuleSelection, RuleSelector, Selection};
use stagec::settings_file::{self, Settings, SettingsError};
use stagec::Options;

/// Where settings come from, and the command line's rule selection.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SettingsArgs {
    /// The settings file to use for every checked file instead of those found beside them (a
    /// `stagec.toml`, `.stagec.toml`, or `pyproject.toml` with `[tool.stagec]`), or, as in
    /// ruff, a TOML `KEY = VALUE` pair that overrides one setting for every checked file, over
    /// any settings file (`--config 'inventory = "cluster/nodes.json"'`). Repeatable; at most
    /// one settings file.
    #[arg(long, value_name = "PATH | KEY=VALUE")]
    pub config: Vec<OsString>,
    /// Ignore every settings file.
    #[arg(long)]
    pub isolated: bool,
    /// Report only these rules: codes or prefixes (`C101`, `P2`, `T`, `ALL`), comma-separated
    /// or repeated. Replaces the settings' `select`.
    #[arg(long, value_name = "RULE", value_delimiter = ',', value_parser = parse_selector)]
    pub select: Option<Vec<RuleSelector>>,
    /// Never report these rules (codes or prefixes, comma-separated or repeated); adds to the
    /// settings' `ignore`.
    #[arg(long, value_name = "RULE", value_delimiter = ',', value_parser = parse_selector)]
    pub ignore: Vec<RuleSelector>,
    /// Report these rules too (codes or prefixes), on top of `select`.
    #[arg(long, value_name = "RULE", value_delimiter = ',', value_parser = parse_selector)]
    pub extend_select: Vec<RuleSelector>,
}

fn parse_selector(text: &str) -> Result<RuleSelector, String> {
    RuleSelector::parse(text).map_err(|e| e.to_string())
}

impl SettingsArgs {
    /// The command line's layer of rule selection.
    fn layer(&self) -> RuleSelection {
        RuleSelection {
            select: self.select.clone(),
            ignore: self.ignore.clone(),
            extend_select: self.extend_select.clone(),
        }
    }
}

/// What a checked file's settings and the command line resolve to.
#[derive(Debug, Default)]
pub(crate) struct Resolved {
    /// The rules, files and severities reported.
    pub selection: Selection,
    /// The settings' inventory, named relative to the current folder when
    /// inside it; `None` when the command line names one (or probes).
    pub inventory: Option<PathBuf>,
    /// The settings' Determined release.
    pub determined: Option<String>,
}

impl Resolved {
    /// `base` (the command line's options) with this file's selection, and
    /// its Determined release where the command line names none.
    pub fn options<'a>(&'a self, base: &Options<'a>) -> Options<'a> {
        Options {
            env: base.env,
            budgets: base.budgets,
            require_variables: base.require_variables,
            determined: base.determined.or(self.determined.as_deref()),
            selection: Some(&self.selection),
            uncapped: base.uncapped,
        }
    }
}

/// The settings that govern a folder (`None`: no settings file), or why
/// they cannot be used.
type Found = Result<Option<Arc<Settings>>, String>;

/// Finds and caches the settings of each checked file's folder.
pub(crate) struct Resolver {
    args: SettingsArgs,
    cwd: PathBuf,
    /// `--inventory` or `--probe` was given.
    cli_inventory: bool,
    /// `--config PATH` or `--isolated`: the same settings for every file.
    fixed: Option<Option<Arc<Settings>>>,
    /// The `--config KEY = VALUE` overrides, combined in the order given.
    overrides: Option<Settings>,
    /// The settings governing the current folder (run-wide settings).
    root: Option<Settings>,
    by_dir: Mutex<HashMap<PathBuf, Arc<Resolved>>>,
    /// What governs each folder looked at: the settings found in it or
    /// above it (or the reason they cannot be used), so that each settings
    /// file, and the chain it extends, is read and compiled once a run.
    by_folder: Mutex<HashMap<PathBuf, Found>>,
    /// What each settings file (by path; `None`: none) resolves to, shared
    /// by every folder it governs.
    by_origin: Mutex<HashMap<Option<PathBuf>, Arc<Resolved>>>,
    /// Settings file names found missing, so the walk up from a second
    /// folder does not look again where the first looked.
    absent: Mutex<std::collections::HashSet<PathBuf>>,
}

impl Resolver {
    /// Reads `--config` (or nothing with `--isolated`) and the settings of
    /// the current folder; `Err` with every located mistake.
    pub(crate) fn new(args: &SettingsArgs, cli_inventory: bool) -> Result<Resolver, String> {
        let cwd = std::env::current_dir().map_err(|e| format!("cannot tell the current folder: {e}"))?;
        let cwd = stagec::fsutil::normalize(&cwd);
        let ConfigArgs { file, overrides } = ConfigArgs::read(&args.config, &cwd)?;
        let fixed = match (args.isolated, file) {
            (true, Some(path)) => {
                return Err(format!(
                    "`--config {}` cannot be used with `--isolated`, which ignores every settings file",
                    path.display()
                ))
            }
            (true, None) => Some(None),
            (false, Some(path)) => {
                let in_project = |s: &Path, n: &Path| stagec::fsutil::inside_project(s, n, Some(&cwd));
                let settings = settings_file::load(&cwd.join(path), &mut read_settings_file, &in_project)
                    .map_err(|errors| describe(&errors, &cwd))?;
                Some(Some(Arc::new(settings)))
            }
            (false, None) => None,
        };
        let mut resolver = Resolver {
            args: args.clone(),
            cwd,
            cli_inventory,
            fixed,
            overrides,
            root: None,
            by_dir: Mutex::new(HashMap::new()),
            by_folder: Mutex::new(HashMap::new()),
            by_origin: Mutex::new(HashMap::new()),
            absent: Mutex::new(std::collections::HashSet::new()),
        };
        let root = match &resolver.fixed {
            Some(settings) => settings.clone(),
            None => resolver.found(&resolver.cwd)?,
        };
        resolver.root = overlay(root.as_deref().cloned(), resolver.overrides.as_ref());
        Ok(resolver)
    }

    /// The settings that govern `dir` (absolute, normalised): those of the
    /// closest folder, `dir` or above, with a settings file; each folder
    /// is looked at once a run.
    fn found(&self, dir: &Path) -> Found {
        let mut walked: Vec<PathBuf> = Vec::new();
        let mut result: Found = Ok(None);
        for folder in dir.ancestors() {
            if let Some(known) = self.by_folder.lock().ok().and_then(|m| m.get(folder).cloned()) {
                result = known;
                break;
            }
            walked.push(folder.to_path_buf());
            let here = settings_file::find_in(
                folder,
                &mut |path: &Path| read_unless_absent(&self.absent, path),
                &|s: &Path, n: &Path| stagec::fsutil::inside_project(s, n, Some(&self.cwd)),
            );
            match here {
                Ok(None) => continue,
                Ok(Some(settings)) => result = Ok(Some(Arc::new(settings))),
                Err(errors) => result = Err(describe(&errors, &self.cwd)),
            }
            break;
        }
        if let Ok(mut m) = self.by_folder.lock() {
            for folder in walked {
                m.insert(folder, result.clone());
            }
        }
        result
    }

    /// Finds the settings of every file about to be checked, so that a bad
    /// settings file stops the run before anything is reported.
    pub(crate) fn prepare(&self, files: &[PathBuf]) -> Result<(), String> {
        let mut problems: Vec<String> = Vec::new();
        for f in files {
            if let Err(e) = self.resolve(f) {
                if !problems.contains(&e) {
                    problems.push(e);
                }
            }
        }
        match problems.is_empty() {
            true => Ok(()),
            false => Err(problems.join("\nstagec: ")),
        }
    }

    /// `deny-warnings` of the current folder's settings.
    pub(crate) fn deny_warnings(&self) -> bool {
        self.root.as_ref().and_then(|s| s.deny_warnings).unwrap_or(false)
    }

    /// `show-infos` of the current folder's settings.
    pub(crate) fn show_infos(&self) -> bool {
        self.root.as_ref().and_then(|s| s.show_infos).unwrap_or(false)
    }

    /// The settings of the file at `path`; the command line's alone when
    /// its settings file is broken (which [`Resolver::prepare`] reported).
    pub(crate) fn resolved(&self, path: &Path) -> Arc<Resolved> {
        self.resolve(path).unwrap_or_else(|_| Arc::new(self.build(None)))
    }

    /// The inventory the settings of `path` name, unless the command line
    /// names one.
    pub(crate) fn inventory_for(&self, path: &Path) -> Option<PathBuf> {
        self.resolve(path).ok().and_then(|r| r.inventory.clone())
    }

    fn resolve(&self, path: &Path) -> Result<Arc<Resolved>, String> {
        let dir = stagec::fsutil::normalize(&self.cwd.join(path));
        let dir = dir.parent().map(Path::to_path_buf).unwrap_or(dir);
        self.resolve_dir(dir)
    }

    fn resolve_dir(&self, dir: PathBuf) -> Result<Arc<Resolved>, String> {
        if let Some(found) = self.by_dir.lock().ok().and_then(|m| m.get(&dir).cloned()) {
            return Ok(found);
        }
        let settings = match &self.fixed {
            Some(fixed) => fixed.clone(),
            None => self.found(&dir)?,
        };
        let origin = settings.as_ref().map(|s| s.origin.path.clone());
        let known = self.by_origin.lock().ok().and_then(|m| m.get(&origin).cloned());
        let resolved = match known {
            Some(resolved) => resolved,
            None => {
                let settings = overlay(settings.as_deref().cloned(), self.overrides.as_ref());
                let resolved = Arc::new(self.build(settings.as_ref()));
                if let Ok(mut m) = self.by_origin.lock() {
                    m.insert(origin, resolved.clone());
                }
                resolved
            }
        };
        if let Ok(mut m) = self.by_dir.lock() {
            m.insert(dir, resolved.clone());
        }
        Ok(resolved)
    }

    fn build(&self, settings: Option<&Settings>) -> Resolved {
        let layer = self.args.layer();
        let overrides: &[RuleSelection] = if layer.is_empty() {
            &[]
        } else {
            std::slice::from_ref(&layer)
        };
        let cwd = Some(self.cwd.clone());
        match settings {
            Some(s) => Resolved {
                selection: s.selection(overrides, cwd),
                inventory: s
                    .inventory
                    .as_ref()
                    .filter(|_| !self.cli_inventory)
                    .map(|p| relative_to(p, &self.cwd)),
                determined: s.determined.clone(),
            },
            None => Resolved {
                selection: Settings::default().selection(overrides, cwd),
                inventory: None,
                determined: None,
            },
        }
    }
}

/// What the `--config` arguments name: at most one settings file, and the
/// inline overrides, combined (a later one wins).
struct ConfigArgs {
    file: Option<PathBuf>,
    overrides: Option<Settings>,
}

impl ConfigArgs {
    /// Sorts each `--config` value as ruff does: an existing file is a
    /// settings file; otherwise a value with `=` is a TOML `KEY = VALUE`
    /// override, and any other value a settings file (that a missing one is
    /// reported by the reading). `Err`: every mistake, one per line.
    fn read(values: &[OsString], cwd: &Path) -> Result<ConfigArgs, String> {
        let mut file: Option<PathBuf> = None;
        let mut overrides: Option<Settings> = None;
        let mut problems: Vec<String> = Vec::new();
        for value in values {
            let path = PathBuf::from(value);
            let inline = value
                .to_str()
                .filter(|text| text.contains('=') && !cwd.join(&path).is_file());
            match inline {
                Some(text) => match settings_file::parse_override(text, cwd) {
                    Ok(next) => {
                        overrides = Some(match overrides {
                            Some(before) => before.with_overrides(&next),
                            None => next,
                        })
                    }
                    Err(errors) => problems.extend(errors.iter().map(|e| override_error(text, e))),
                },
                None => match &file {
                    Some(first) => problems.push(format!(
                        "`--config` names two settings files, {} and {}: give one (the other \
                         `--config` values may be `KEY = VALUE` overrides)",
                        first.display(),
                        path.display()
                    )),
                    None => file = Some(path),
                },
            }
        }
        match problems.is_empty() {
            true => Ok(ConfigArgs { file, overrides }),
            false => Err(problems.join("\nstagec: ")),
        }
    }
}

/// Most characters of an override echoed in each of its errors.
const ECHOED_CHARS: usize = 60;

/// A mistake in an inline override, with the override as written (its
/// start only, when long: an override may hold thousands of mistakes).
fn override_error(text: &str, e: &SettingsError) -> String {
    let single_line = !text.contains('\n');
    match single_line {
        true => {
            let shown = match text.char_indices().nth(ECHOED_CHARS) {
                Some((end, _)) => format!("{}…", &text[..end]),
                None => text.to_string(),
            };
            format!("--config '{shown}', column {}: {}", e.column, e.message)
        }
        false => format!(
            "`--config` override, line {}, column {}: {}",
            e.line, e.column, e.message
        ),
    }
}

/// `settings` (found or fixed) with the command line's overrides on top;
/// the overrides alone where there is no settings file.
fn overlay(settings: Option<Settings>, overrides: Option<&Settings>) -> Option<Settings> {
    match (settings, overrides) {
        (settings, None) => settings,
        (Some(settings), Some(overrides)) => Some(settings.with_overrides(overrides)),
        (None, Some(overrides)) => Some(Settings::default().with_overrides(overrides)),
    }
}

/// `path` relative to `cwd` when inside it, as the user would name it.
fn relative_to(path: &Path, cwd: &Path) -> PathBuf {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
        _ => path.to_path_buf(),
    }
}

/// One line per mistake, each file named relative to the current folder.
fn describe(errors: &[SettingsError], cwd: &Path) -> String {
    errors
        .iter()
        .map(|e| {
            SettingsError {
                path: relative_to(&e.path, cwd),
                ..e.clone()
            }
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\nstagec: ")
}

/// Reads a settings file: `Ok(None)` when there is no regular file there.
/// [`read_settings_file`], skipping a path found missing before in this
/// run (every check walks up to the root; the walks share their folders).
fn read_unless_absent(
    absent: &Mutex<std::collections::HashSet<PathBuf>>,
    path: &Path,
) -> Result<Option<String>, String> {
    if absent.lock().is_ok_and(|a| a.contains(path)) {
        return Ok(None);
    }
    let text = read_settings_file(path);
    if matches!(text, Ok(None)) {
        if let Ok(mut a) = absent.lock() {
            a.insert(path.to_path_buf());
        }
    }
    text
}

fn read_settings_file(path: &Path) -> Result<Option<String>, String> {
    stagec::fsutil::read_text_if_file(path, settings_file::MAX_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(column: usize) -> SettingsError {
        SettingsError {
            path: PathBuf::from("--config"),
            line: 1,
            column,
            message: "unknown rule selector `X`".to_string(),
        }
    }

    #[test]
    fn a_long_override_is_echoed_by_its_start() {
        let short = override_error("select = [\"X\"]", &error(12));
        assert_eq!(
            short,
            "--config 'select = [\"X\"]', column 12: unknown rule selector `X`"
        );
        // 10,000 bad selectors on one line: each error echoes 60 characters,
        // not the 100 KB line.
        let long = format!("select = [{}]", vec!["\"X\""; 10_000].join(", "));
        let shown = override_error(&long, &error(11));
        assert!(shown.starts_with("--config 'select = [\"X\", "), "{shown}");
        assert!(shown.contains("…', column 11: "), "{shown}");
        assert!(shown.chars().count() < 120, "{shown}");
        // Multi-byte text is cut on a character boundary.
        let wide = format!("ignore = [\"{}\"]", "配".repeat(100));
        assert!(override_error(&wide, &error(1)).contains(&"配".repeat(49)));
    }
}
