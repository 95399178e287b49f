//! Open documents and the files beside them. An open buffer always wins
//! over the file on disk; files that are not open are read from disk with a
//! size limit (and cached by modification time).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::Uri;
use stagec::ide::{classify, DocumentKind};
use stagec::project::{ContextScan, Overlay};

use crate::convert::uri_to_path;

/// Largest file read from disk; a larger one is read to this size and then
/// reported as too large by the checker.
pub const MAX_FILE: usize = 8 * 1024 * 1024;
/// Most entries of a folder looked at for experiment configs.
const MAX_WALK_FILES: usize = 2000;
/// How far up from a model source a config is looked for.
const MAX_CONTEXT_UP: usize = 4;

/// An open document.
#[derive(Debug)]
pub struct Doc {
    pub uri: Uri,
    pub path: Option<PathBuf>,
    /// The client's language id (`yaml`, `python`).
    pub language: String,
    pub text: String,
    pub version: i32,
    pub kind: DocumentKind,
    /// The config's JSON the last time it parsed (completion chooses union
    /// branches with it while the text is half-typed).
    pub last_json: Option<serde_json::Value>,
}

#[derive(Default)]
pub struct Store {
    pub docs: HashMap<Uri, Doc>,
    /// Open documents by path, ordered: the paths under a folder are one
    /// range.
    by_path: std::collections::BTreeMap<PathBuf, Uri>,
    scans: HashMap<PathBuf, ContextScan>,
    configs: HashMap<PathBuf, Vec<PathBuf>>,
}

impl Store {
    pub fn open(&mut self, uri: Uri, language: &str, text: String, version: i32) {
        let path = uri_to_path(&uri);
        let name = class_name(&uri, path.as_deref(), language);
        let kind = classify(&name, &text);
        if let Some(p) = &path {
            self.by_path.insert(p.clone(), uri.clone());
        }
        // What is known of the folders stays true: the buffer overrides the
        // file through the overlay, and `configs_in` adds open configs.
        // (Forgetting it on every open made opening a folder's files one
        // by one re-read the folder each time.)
        let last_json = self.docs.remove(&uri).and_then(|d| d.last_json);
        self.docs.insert(
            uri.clone(),
            Doc {
                uri,
                path,
                language: language.to_string(),
                text,
                version,
                kind,
                last_json,
            },
        );
    }

    /// Replaces a document's text; returns its kinds before and after.
    pub fn change(&mut self, uri: &Uri, text: String, version: i32) -> Option<(DocumentKind, DocumentKind)> {
        let doc = self.docs.get_mut(uri)?;
        let before = doc.kind;
        let name = class_name(uri, doc.path.as_deref(), &doc.language);
        // Reclassifying costs a scan of the text; configs stay configs
        // while they are edited unless the top-level keys change a lot.
        doc.kind = classify(&name, &text);
        doc.text = text;
        doc.version = version;
        Some((before, doc.kind))
    }

    pub fn close(&mut self, uri: &Uri) -> Option<Doc> {
        let doc = self.docs.remove(uri)?;
        if let Some(p) = &doc.path {
            self.by_path.remove(p);
        }
        self.invalidate_folders();
        Some(doc)
    }

    /// Forgets what was learned about folders (after saves, opens, closes
    /// and watched-file events).
    pub fn invalidate_folders(&mut self) {
        self.scans.clear();
        self.configs.clear();
    }

    pub fn doc_at(&self, path: &Path) -> Option<&Doc> {
        self.by_path.get(path).and_then(|u| self.docs.get(u))
    }

    /// The open document named `name`: a path, or an untitled buffer's URI.
    pub fn doc_named(&self, name: &str) -> Option<&Doc> {
        self.doc_at(Path::new(name)).or_else(|| {
            // URIs are few to parse: only names that are not paths.
            (!name.starts_with('/'))
                .then(|| name.parse::<Uri>().ok())
                .flatten()
                .and_then(|u| self.docs.get(&u))
        })
    }

    /// The scan of a context folder's model sources, made once until the
    /// folder changes (a save, an open or close, a watched-file event).
    pub fn scan(&mut self, context: &Path) -> &ContextScan {
        self.scans
            .entry(context.to_path_buf())
            .or_insert_with(|| ContextScan::new(context))
    }

    /// The scan of a context folder, when it was made.
    pub fn scan_of(&self, context: &Path) -> Option<&ContextScan> {
        self.scans.get(context)
    }

    /// Experiment configs directly in `dir`: open buffers classified as
    /// experiments and YAML files on disk that look like one.
    pub fn configs_in(&mut self, dir: &Path) -> Vec<PathBuf> {
        let on_disk = match self.configs.get(dir) {
            Some(c) => c.clone(),
            None => {
                let c = disk_configs(dir);
                self.configs.insert(dir.to_path_buf(), c.clone());
                c
            }
        };
        let mut out: Vec<PathBuf> = on_disk
            .into_iter()
            .filter(|p| self.doc_at(p).is_none_or(|d| d.kind == DocumentKind::Experiment))
            .collect();
        for p in self.paths_under(dir) {
            if p.parent() == Some(dir) && self.doc_at(&p).is_some_and(|d| d.kind == DocumentKind::Experiment) {
                out.push(p);
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The context folder of a model source: the nearest folder at or
    /// above it that holds an experiment config.
    pub fn context_of_model(&mut self, path: &Path) -> Option<PathBuf> {
        let mut dir = path.parent();
        for _ in 0..=MAX_CONTEXT_UP {
            let d = dir?;
            if !self.configs_in(d).is_empty() {
                return Some(d.to_path_buf());
            }
            dir = d.parent();
        }
        None
    }
}

/// The name a document is classified by: its path (or URI), with the
/// extension its language id implies when it has none (`untitled:` buffers).
fn class_name(uri: &Uri, path: Option<&Path>, language: &str) -> String {
    let name = path.map_or_else(|| uri.as_str().to_string(), |p| p.to_string_lossy().into_owned());
    let lower = name.to_ascii_lowercase();
    let has_ext = [".yaml", ".yml", ".py", ".pyi"].iter().any(|e| lower.ends_with(e));
    match language {
        "yaml" if !has_ext => name + ".yaml",
        "python" if !has_ext => name + ".py",
        _ => name,
    }
}

/// Open buffers win over the files on disk, as they do for the CLI's
/// discovery of a project.
impl Overlay for Store {
    fn text(&self, path: &Path) -> Option<&str> {
        self.doc_at(path).map(|d| d.text.as_str())
    }

    fn paths(&self) -> Vec<PathBuf> {
        self.by_path.keys().cloned().collect()
    }

    fn paths_under(&self, dir: &Path) -> Vec<PathBuf> {
        // Paths order by components: those under `dir` follow it at once.
        self.by_path
            .range::<Path, _>((std::ops::Bound::Included(dir), std::ops::Bound::Unbounded))
            .map(|(p, _)| p)
            .take_while(|p| p.starts_with(dir))
            .cloned()
            .collect()
    }
}

/// Reads at most `limit + 1` bytes.
pub fn read_limited(path: &Path, limit: usize) -> Option<Vec<u8>> {
    stagec::fsutil::read_limited(path, limit).ok()
}

fn disk_configs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for path in entries.filter_map(Result::ok).map(|e| e.path()).take(MAX_WALK_FILES) {
        let name = path.to_string_lossy().into_owned();
        if !(name.ends_with(".yaml") || name.ends_with(".yml")) || !path.is_file() {
            continue;
        }
        let Some(bytes) = read_limited(&path, 256 * 1024) else {
            continue;
        };
        if classify(&name, &String::from_utf8_lossy(&bytes)) == DocumentKind::Experiment {
            out.push(path);
        }
    }
    out.sort();
    out
}
