//! Third-party tools for the integration tests, installed from their package
//! registries by `scripts/install-test-tools.sh` (shared by the root crate's
//! tests and `lsp/tests/`, which include this file with `#[path]`), and the
//! one switch convention for tests that need something a plain checkout may
//! lack: without the switch such a test is skipped with a printed notice
//! (and nothing is installed); with it (CI sets them all in `.ci/run`) a
//! missing tool, registry, folder or compiler fails the test.
//!
//! | switch                    | what the test needs                          |
//! |---------------------------|----------------------------------------------|
//! | `STAGEC_REQUIRE_TOOLS`    | pre-commit, Neovim, Node.js and vsce, PyTorch and Determined (installed from their registries) |
//! | `STAGEC_REQUIRE_ORACLE`   | Determined's validator from PyPI (`differential`) |
//! | `STAGEC_REQUIRE_SHARED`   | `../shared` beside the checkout               |
//! | `STAGEC_REQUIRE_FAKECUDA` | a C compiler for the stand-in CUDA driver     |

#![allow(dead_code)] // each test crate uses a part

use std::path::{Path, PathBuf};
use std::process::Command;

/// The switch for tests that drive third-party tools.
pub const REQUIRE_TOOLS: &str = "STAGEC_REQUIRE_TOOLS";

/// Exit status of the install script when the tool is not there and
/// installing was not allowed.
const NOT_INSTALLED: i32 = 5;

/// Whether the switch `name` is on (set, and neither empty nor `0`).
pub fn required(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Skips `test` for want of `what` with a notice, or fails it when the
/// switch `name` says this run must have it. Returns `None` to skip.
pub fn skip<T>(name: &str, test: &str, what: &str) -> Option<T> {
    assert!(!required(name), "{test}: {what}, but {name} says this run needs it");
    // Printed to stderr so it shows with and without --nocapture.
    eprintln!("SKIPPED {test}: {what} (set {name}=1 to run it; CI does)");
    None
}

/// Exit status of the install script when a registry cannot be reached.
const UNREACHABLE: i32 = 3;
/// Exit status of the install script when the tool cannot be installed on
/// this machine at all (no apt-get, no root, no npm, …).
const UNAVAILABLE: i32 = 4;

/// The repository root (the workspace's root package).
pub fn repo_root() -> PathBuf {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    while !dir.join("scripts/install-test-tools.sh").is_file() {
        assert!(
            dir.pop(),
            "scripts/install-test-tools.sh not found above CARGO_MANIFEST_DIR"
        );
    }
    dir
}

/// Finds `tool` and returns its executable. Without `STAGEC_REQUIRE_TOOLS`
/// nothing is installed: a tool already there is used, and otherwise the
/// test is skipped with a notice. With it the tool is installed from its
/// registry when missing, and any failure to get it fails the test.
pub fn install(tool: &str, test: &str) -> Option<PathBuf> {
    let root = repo_root();
    let script = root.join("scripts/install-test-tools.sh");
    let must = required(REQUIRE_TOOLS);
    let mut cmd = Command::new("bash");
    cmd.arg(&script).arg(tool).current_dir(&root);
    if !must {
        cmd.env("STAGEC_TOOLS_NO_INSTALL", "1");
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let why = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("install-test-tools:"))
        .unwrap_or("no reason given");
    match out.status.code() {
        Some(0) => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            let path = stdout.lines().last().unwrap_or_default().trim();
            assert!(
                Path::new(path).is_file(),
                "install-test-tools.sh {tool} printed no executable path: {stdout:?}\n{stderr}"
            );
            Some(PathBuf::from(path))
        }
        Some(code @ (NOT_INSTALLED | UNREACHABLE | UNAVAILABLE)) if !must => {
            let kind = match code {
                NOT_INSTALLED => "not installed",
                UNREACHABLE => "registry unreachable",
                _ => "cannot install here",
            };
            skip(REQUIRE_TOOLS, test, &format!("{tool} is not available ({kind}): {why}"))
        }
        _ => panic!(
            "scripts/install-test-tools.sh {tool} failed ({}){}:\n{stderr}",
            out.status,
            if must {
                ", and STAGEC_REQUIRE_TOOLS says this run needs it"
            } else {
                ""
            }
        ),
    }
}

/// A folder removed when dropped (kept when the test fails, for a look;
/// its path is in the failure message).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> TempDir {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = base.join(format!("{prefix}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Copies the files (not folders) of `from` into `to`.
pub fn copy_files(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display())) {
        let path = entry.expect("dir entry").path();
        if path.is_file() {
            let dest = to.join(path.file_name().expect("file name"));
            std::fs::copy(&path, &dest).unwrap_or_else(|e| panic!("copy {} → {}: {e}", path.display(), dest.display()));
        }
    }
}

/// Runs `cmd` to completion, or kills it after `limit` and fails the test
/// saying what it had printed: a hung tool must not hang CI.
pub fn output_within(cmd: &mut Command, limit: std::time::Duration) -> std::process::Output {
    use std::io::Read;
    use std::process::Stdio;
    let shown = format!("{cmd:?}");
    // Its own process group, so that a timeout ends what it started too
    // (pre-commit's cargo, Neovim's language server).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(cmd, 0);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("stdout")));
    let err = reader(Box::new(child.stderr.take().expect("stderr")));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            #[cfg(unix)]
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.kill();
            let _ = child.wait();
            let stdout = out.join().unwrap_or_default();
            let stderr = err.join().unwrap_or_default();
            panic!(
                "{shown} did not finish within {limit:?}; it printed:\n{}\n{}",
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    std::process::Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}
