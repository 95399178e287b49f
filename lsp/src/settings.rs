//! What decides which diagnostics the editor shows, and where their links
//! go: the client's `initializationOptions` and the settings file found for
//! each config (`stagec.toml`, `.stagec.toml`, `[tool.stagec]` in
//! `pyproject.toml`), found as `stagec check` finds it, so that the editor
//! and the command line agree. The client's options win, as the command
//! line's do:
//!
//! ```json
//! { "inventory": "/abs/cluster.yaml", "select": ["C", "P118"], "ignore": ["V302"],
//!   "docsBaseUrl": "https://example.com/stagec/rules/" }
//! ```
//!
//! `select` replaces the settings' `select` (an empty list leaves it as it
//! is), `ignore` adds to their `ignore`, `inventory` replaces theirs.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types as lsp;
use serde_json::Value;
use stagec::selection::{RuleSelection, RuleSelector, Selection};
use stagec::settings_file::{self, Settings};

/// The client's `initializationOptions`, as understood.
#[derive(Clone, Debug, Default)]
pub struct ClientOptions {
    /// `inventory`: a file (absolute, or relative to the workspace root).
    pub inventory: Option<PathBuf>,
    /// `select` and `ignore` as one layer over the settings file's.
    pub rules: RuleSelection,
    /// `docsBaseUrl`: where rule documentation pages are (`<base><name>.md`).
    pub docs_base: Option<String>,
    /// The workspace folder: the project of a settings file outside any git
    /// repository, whose files it may name.
    pub root: Option<PathBuf>,
}

impl ClientOptions {
    /// Reads `initializationOptions` (`root`: the workspace folder, for a
    /// relative inventory). What is not understood is left out and
    /// described in the returned problems, for the user to see.
    pub fn read(v: Option<&Value>, root: Option<&Path>) -> (ClientOptions, Vec<String>) {
        let mut out = ClientOptions {
            root: root.map(Path::to_path_buf),
            ..ClientOptions::default()
        };
        let mut problems = Vec::new();
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return (out, problems);
        };
        let Some(obj) = v.as_object() else {
            problems.push("initializationOptions must be an object; they are ignored".to_string());
            return (out, problems);
        };
        match obj.get("inventory") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.trim().is_empty() => {}
            Some(Value::String(s)) => {
                let path = PathBuf::from(s.trim());
                out.inventory = Some(match root {
                    Some(root) if path.is_relative() => root.join(path),
                    _ => path,
                });
            }
            Some(_) => problems.push("initializationOptions.inventory must be a path or null".to_string()),
        }
        let select = selectors(obj.get("select"), "select", &mut problems);
        out.rules.select = (!select.is_empty()).then_some(select);
        out.rules.ignore = selectors(obj.get("ignore"), "ignore", &mut problems);
        match obj.get("docsBaseUrl") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.trim().is_empty() => {}
            Some(Value::String(s)) if lsp::Uri::from_str(s.trim()).is_ok() => {
                out.docs_base = Some(s.trim().to_string())
            }
            Some(_) => problems.push("initializationOptions.docsBaseUrl must be a URL or null".to_string()),
        }
        (out, problems)
    }
}

fn selectors(v: Option<&Value>, key: &str, problems: &mut Vec<String>) -> Vec<RuleSelector> {
    let mut out = Vec::new();
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                match item.as_str().map(RuleSelector::parse) {
                    Some(Ok(s)) => out.push(s),
                    Some(Err(e)) => problems.push(format!("initializationOptions.{key}: {e}")),
                    None => problems.push(format!("initializationOptions.{key} lists rule codes as strings")),
                }
            }
        }
        Some(_) => problems.push(format!("initializationOptions.{key} must be a list of rule codes")),
    }
    out
}

/// What one config is checked with.
#[derive(Debug, Default)]
pub struct Effective {
    pub selection: Selection,
    pub inventory: Option<PathBuf>,
    pub determined: Option<String>,
}

/// The settings of the config at `path` (its settings file, under the
/// client's options); with the settings file's mistakes, when it has any
/// (it is then left out).
pub fn effective(path: &Path, client: &ClientOptions) -> (Effective, Option<String>) {
    let overrides: &[RuleSelection] = if client.rules.is_empty() {
        &[]
    } else {
        std::slice::from_ref(&client.rules)
    };
    let (settings, problem) = match path.parent().filter(|_| path.is_absolute()) {
        Some(dir) => {
            let mut read = |p: &Path| stagec::fsutil::read_text_if_file(p, settings_file::MAX_BYTES);
            let root = client.root.as_deref();
            let in_project = |s: &Path, n: &Path| stagec::fsutil::inside_project(s, n, root);
            match settings_file::find(dir, &mut read, &in_project) {
                Ok(found) => (found, None),
                Err(errors) => {
                    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
                    (None, Some(format!("stagec: invalid settings:\n{}", lines.join("\n"))))
                }
            }
        }
        None => (None, None),
    };
    let settings = settings.unwrap_or_else(Settings::default);
    let effective = Effective {
        selection: settings.selection(overrides, None),
        inventory: client.inventory.clone().or(settings.inventory),
        determined: settings.determined,
    };
    (effective, problem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_are_read_and_mistakes_described() {
        let v = json!({
            "inventory": "cluster/nodes.json",
            "select": ["C", "Q9", 3],
            "ignore": ["C101"],
            "docsBaseUrl": "https://example.com/rules/",
        });
        let (o, problems) = ClientOptions::read(Some(&v), Some(Path::new("/w")));
        assert_eq!(o.inventory.as_deref(), Some(Path::new("/w/cluster/nodes.json")));
        assert_eq!(o.rules.select.as_ref().map(Vec::len), Some(1));
        assert_eq!(o.rules.ignore.len(), 1);
        assert_eq!(o.docs_base.as_deref(), Some("https://example.com/rules/"));
        assert_eq!(problems.len(), 2, "{problems:?}");
        // The extension's defaults: nothing selected means every rule.
        let v = json!({ "inventory": null, "select": [], "ignore": [] });
        let (o, problems) = ClientOptions::read(Some(&v), None);
        assert!(o.rules.is_empty() && o.inventory.is_none() && problems.is_empty());
        let (_, problems) = ClientOptions::read(Some(&json!([1])), None);
        assert_eq!(problems.len(), 1);
    }
}
