//! Settings files: arbitrary bytes as a `stagec.toml`, as a `pyproject.toml`
//! (`[tool.stagec]`) and as a `--config 'KEY = VALUE'` override, read
//! through the library's settings parser, `extend` included (every `.toml`
//! the settings name reads back as the same bytes, so chains loop and
//! nest), then turned into a selection and applied to a real check: never
//! a panic; every error located inside the text; no file named outside the
//! project is ever read.
#![no_main]
#[path = "common.rs"]
mod common;

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use stagec::settings_file::{self, Settings, SettingsError};

/// The project every settings file lives in.
const ROOT: &str = "/project";

fn in_project(_settings: &Path, named: &Path) -> Result<(), String> {
    match named.starts_with(ROOT) {
        true => Ok(()),
        false => Err(format!("outside the project ({ROOT})")),
    }
}

/// Errors point at a line and column of the text they come from (lines
/// as stagec counts them everywhere: a lone `\r` ends one too).
fn assert_located(text: &str, errors: &[SettingsError]) {
    let lines = stagec::source::LineIndex::new(text).line_count().max(1);
    for e in errors {
        assert!(!e.message.is_empty(), "{e:?} has no message");
        assert!(e.line >= 1 && e.column >= 1, "{e:?} is not 1-based");
        assert!(e.line <= lines + 1, "{e:?} beyond the text's {lines} lines");
        assert!(e.message.len() < 16 * 1024, "a message of {} bytes", e.message.len());
    }
}

/// The selection `settings` make, applied to a check of a valid config.
fn apply(settings: &Settings) {
    let selection = settings.selection(&[], Some(PathBuf::from(ROOT)));
    let _ = selection.is_enabled("C101");
    let _ = selection.enabled().count();
    let options = stagec::Options {
        selection: Some(&selection),
        ..stagec::Options::default()
    };
    let compiled = stagec::compile(&common::project(common::CONFIG.as_bytes(), Vec::new(), None), &options);
    common::assert_checked(&compiled);
}

fuzz_target!(|data: &[u8]| {
    let Some((&form, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let text = text.as_ref();
    match form % 3 {
        // A settings file found in a folder of the project, extending
        // whatever it names with the same bytes.
        0 | 1 => {
            let name = if form % 3 == 0 { "stagec.toml" } else { "pyproject.toml" };
            let path = Path::new(ROOT).join("exp").join(name);
            let dir = Path::new(ROOT).join("exp/sub");
            let mut read = |p: &Path| -> Result<Option<String>, String> {
                let candidate = p
                    .file_name()
                    .is_some_and(|n| settings_file::FILE_NAMES.iter().any(|f| n == *f));
                // Besides the settings files looked for above the folder,
                // only files inside the project are read.
                let looked_for = candidate && p.parent().is_some_and(|d| dir.starts_with(d));
                assert!(
                    looked_for || p.starts_with(ROOT),
                    "read {} outside the project",
                    p.display()
                );
                let toml = p.extension().is_some_and(|e| e == "toml");
                Ok((p == path || (toml && !candidate)).then(|| text.to_string()))
            };
            match settings_file::find(&dir, &mut read, &in_project) {
                Ok(Some(settings)) => apply(&settings),
                Ok(None) => {}
                Err(errors) => assert_located(text, &errors),
            }
        }
        // A `--config` override, over default settings.
        _ => match settings_file::parse_override(text, Path::new(ROOT)) {
            Ok(over) => apply(&Settings::default().with_overrides(&over)),
            Err(errors) => assert_located(text, &errors),
        },
    }
});
