//! Third-party tools for the integration tests, installed from their package
//! registries by `scripts/install-test-tools.sh` (shared by the root crate's
//! tests and `lsp/tests/`, which include this file with `#[path]`).

#![allow(dead_code)] // each test crate uses a part

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Installs (or finds) `tool` and returns its executable, or `None` after
/// printing why the test is skipped when the tool's registry is unreachable
/// or the tool cannot be installed here. Any other failure fails the test.
pub fn install(tool: &str, test: &str) -> Option<PathBuf> {
    let root = repo_root();
    let script = root.join("scripts/install-test-tools.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(tool)
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stderr = String::from_utf8_lossy(&out.stderr);
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
        Some(code @ (UNREACHABLE | UNAVAILABLE)) => {
            let why = stderr
                .lines()
                .rev()
                .find(|l| l.starts_with("install-test-tools:"))
                .unwrap_or("no reason given");
            let kind = if code == UNREACHABLE {
                "registry unreachable"
            } else {
                "cannot install here"
            };
            // Printed to stderr so it shows with and without --nocapture.
            eprintln!("SKIPPED {test}: {tool} is not available ({kind}): {why}");
            None
        }
        _ => panic!(
            "scripts/install-test-tools.sh {tool} failed ({}):\n{stderr}",
            out.status
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
