//! Settings files and rule selection through the `stagec` binary, as data:
//! each `tests/settings/*.toml` lays out files in a fresh temporary folder
//! (copies of repository folders and files written out), runs one command
//! there and states what it must give — the exit status, exactly which
//! (file, code) pairs the JSON output reports, and text stderr must hold.
//!
//! ```toml
//! about = "what the case shows"
//! [copy]                      # destination = source in the repository
//! "exp" = "examples/hpp-seed"
//! [files]                     # destination = text
//! "stagec.toml" = 'ignore = ["C"]'
//! [run]
//! cwd = "."                   # inside the temporary folder (default ".")
//! args = ["check", "--format", "json", "exp/const.yaml"]
//! [expect]
//! exit = 1
//! reported = ["exp/const.yaml P118", "exp/train.py T101"]   # omit when stdout is not JSON
//! stderr = ["unknown setting `selec`"]     # each must appear in stderr
//! with_lines = false                       # true: `reported` names lines, "exp/const.yaml:7 P118"
//! stdout_empty = true                      # nothing on stdout
//! stdout = ["P303"]                        # each must appear in stdout
//! stdout_lacks = ["C101"]                  # none may appear in stdout
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("create a folder");
        let mut entries: Vec<_> = std::fs::read_dir(from)
            .expect("read a folder")
            .filter_map(Result::ok)
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            copy(&e.path(), &to.join(e.file_name()));
        }
    } else {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).expect("create a folder");
        }
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    }
}

fn strings(v: Option<&toml::Value>) -> Vec<String> {
    v.and_then(toml::Value::as_array)
        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Runs one case; `Err` says what differs.
fn run_case(name: &str, case: &toml::Table) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("stagec-settings-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for (to, from) in case.get("copy").and_then(toml::Value::as_table).into_iter().flatten() {
        let from = from.as_str().ok_or("copy sources are strings")?;
        copy(&repo().join(from), &dir.join(to));
    }
    for (to, text) in case.get("files").and_then(toml::Value::as_table).into_iter().flatten() {
        let text = text.as_str().ok_or("file texts are strings")?;
        let path = dir.join(to);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
    }
    let run = case.get("run").and_then(toml::Value::as_table).ok_or("no [run]")?;
    let cwd = run.get("cwd").and_then(toml::Value::as_str).unwrap_or(".");
    let args = strings(run.get("args"));
    let out = Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args(&args)
        .current_dir(dir.join(cwd))
        .env_remove("S3_ACCESS_KEY")
        .env_remove("S3_SECRET_KEY")
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expect = case
        .get("expect")
        .and_then(toml::Value::as_table)
        .ok_or("no [expect]")?;
    let mut problems = Vec::new();
    let exit = expect.get("exit").and_then(toml::Value::as_integer);
    if exit != out.status.code().map(i64::from) {
        problems.push(format!("exit status {:?}, expected {exit:?}", out.status.code()));
    }
    if let Some(reported) = expect.get("reported") {
        let with_lines = expect.get("with_lines").and_then(toml::Value::as_bool) == Some(true);
        let want: BTreeSet<String> = strings(Some(reported)).into_iter().collect();
        let doc: serde_json::Value =
            serde_json::from_str(&stdout).map_err(|e| format!("stdout is not JSON ({e}): {stdout}\n{stderr}"))?;
        let got: BTreeSet<String> = doc["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| {
                let file = d["file"].as_str().unwrap_or("?");
                let code = d["code"].as_str().unwrap_or("?");
                match with_lines {
                    true => format!("{file}:{} {code}", d["line"]),
                    false => format!("{file} {code}"),
                }
            })
            .collect();
        if got != want {
            let missing: Vec<&String> = want.difference(&got).collect();
            let extra: Vec<&String> = got.difference(&want).collect();
            problems.push(format!("reported: missing {missing:?}, unexpected {extra:?}"));
        }
    }
    if expect.get("stdout_empty").and_then(toml::Value::as_bool) == Some(true) && !stdout.is_empty() {
        problems.push(format!("stdout is not empty: {stdout}"));
    }
    for text in strings(expect.get("stdout")) {
        if !stdout.contains(&text) {
            problems.push(format!("stdout lacks {text:?}:\n{stdout}"));
        }
    }
    for text in strings(expect.get("stdout_lacks")) {
        if stdout.contains(&text) {
            problems.push(format!("stdout holds {text:?}:\n{stdout}"));
        }
    }
    for text in strings(expect.get("stderr")) {
        if !stderr.contains(&text) {
            problems.push(format!("stderr lacks {text:?}"));
        }
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(format!("{}\n--- stderr:\n{stderr}", problems.join("\n"))),
    }
}

#[test]
fn settings_cases() {
    let root = repo().join("tests/settings");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/settings")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "the cases are missing");
    let mut failures = Vec::new();
    for path in &cases {
        assert_eq!(
            path.extension().and_then(|e| e.to_str()),
            Some("toml"),
            "tests/settings holds only case files: {}",
            path.display()
        );
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("case").to_string();
        let text = std::fs::read_to_string(path).expect("read a case");
        let case: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Err(e) = run_case(&name, &case) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The documentation's settings example (in the README, or in the
/// `docs/` page the README points to) is valid settings, and says what it
/// says.
#[test]
fn readme_settings_example_is_valid() {
    let fence = "```toml\n# pyproject.toml\n";
    let mut pages = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let text = pages
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .find(|t| t.contains(fence))
        .expect("the README or a page of docs/ shows a pyproject.toml example");
    let start = text.find(fence).unwrap_or_default();
    let body = &text[start + "```toml\n".len()..];
    let end = body.find("```").expect("the example ends");
    let origin = stagec::settings_file::SettingsOrigin::new("/repo/pyproject.toml");
    let settings = stagec::settings_file::parse(&body[..end], origin)
        .unwrap_or_else(|e| panic!("the README's example has mistakes: {e:?}"));
    assert_eq!(
        settings.inventory.as_deref(),
        Some(Path::new("/repo/cluster/nodes.json"))
    );
    let selection = settings.selection(&[], None);
    assert!(!selection.is_enabled("P303") && selection.is_enabled("C101"));
    assert_eq!(settings.per_file_ignores.map(|p| p.len()), Some(2));
}
