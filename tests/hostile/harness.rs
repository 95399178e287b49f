//! Runs a program as a child process under an address-space limit and a
//! wall-clock timeout, the way hostile-input regression tests need it: a
//! runaway allocation ends in an allocation failure inside the limit
//! instead of swapping the machine, a hang ends in a kill and a "hung"
//! failure instead of a stuck CI job, and the caller learns whether a signal
//! ended the child.
//!
//! No dependency: `setrlimit`, `wait4` and friends are declared here and
//! called through `std::os::unix::process::CommandExt::pre_exec`. Shared by
//! `tests/it/hostile.rs` and `lsp/tests/hostile.rs` (through `#[path]`).
#![allow(dead_code)]

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Address-space limit of every child: 1 GiB.
pub const ADDRESS_SPACE: u64 = 1 << 30;
/// Default wall-clock limit of a child.
pub const TIMEOUT: Duration = Duration::from_secs(20);
/// Captured output kept from the start of a stream; the rest is counted,
/// and its last [`TAIL`] bytes kept.
const HEAD: usize = 16 << 20;
const TAIL: usize = 64 << 10;

mod sys {
    use std::os::raw::{c_int, c_long, c_ulong};

    /// `struct rlimit` on Linux (`rlim_t` is `unsigned long`).
    #[repr(C)]
    pub struct RLimit {
        pub cur: c_ulong,
        pub max: c_ulong,
    }

    /// `struct rusage`: two `struct timeval` (two longs each) and fourteen
    /// longs; `ru_maxrss` (KiB on Linux) is the fifth long.
    pub type RUsage = [c_long; 18];
    pub const MAXRSS: usize = 4;

    pub const RLIMIT_CORE: c_int = 4;
    pub const RLIMIT_AS: c_int = 9;
    pub const WNOHANG: c_int = 1;

    extern "C" {
        pub fn setrlimit(resource: c_int, rlim: *const RLimit) -> c_int;
        pub fn wait4(pid: c_int, status: *mut c_int, options: c_int, rusage: *mut RUsage) -> c_int;
        pub fn geteuid() -> u32;
        pub fn setgroups(size: usize, list: *const u32) -> c_int;
        pub fn setgid(gid: u32) -> c_int;
        pub fn setuid(uid: u32) -> c_int;
    }
}

/// Whether this process runs as root (file permissions do not stop it).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { sys::geteuid() == 0 }
}

/// A command to run under limits.
pub struct Run {
    cmd: Command,
    label: String,
    timeout: Duration,
    address_space: Option<u64>,
    as_nobody: bool,
    stdin: Option<Vec<u8>>,
}

impl Run {
    pub fn new(program: impl AsRef<OsStr>) -> Run {
        let program = program.as_ref();
        let mut cmd = Command::new(program);
        // No backtraces: the panic message stays in the kept stderr tail.
        cmd.env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env("RUST_BACKTRACE", "0");
        let name = Path::new(program).file_name().map_or_else(
            || program.to_string_lossy().into_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        Run {
            cmd,
            label: name,
            timeout: TIMEOUT,
            address_space: Some(ADDRESS_SPACE),
            as_nobody: false,
            stdin: None,
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Run {
        let _ = write!(self.label, " {}", arg.as_ref().to_string_lossy());
        self.cmd.arg(arg);
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Run {
        for a in args {
            self = self.arg(a);
        }
        self
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Run {
        self.cmd.current_dir(dir);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Run {
        self.cmd.env(key, value);
        self
    }

    pub fn env_remove(mut self, key: &str) -> Run {
        self.cmd.env_remove(key);
        self
    }

    pub fn timeout(mut self, timeout: Duration) -> Run {
        self.timeout = timeout;
        self
    }

    /// Bytes for the child's stdin (closed after them); empty by default.
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Run {
        self.stdin = Some(bytes.into());
        self
    }

    /// Runs the child as `nobody` when this process is root, so that file
    /// permissions apply to it.
    pub fn drop_root(mut self) -> Run {
        self.as_nobody = true;
        self
    }

    fn prepare(&mut self) {
        let limit = self.address_space;
        let drop_root = self.as_nobody && is_root();
        // SAFETY: the closure runs between fork and exec and only makes
        // async-signal-safe system calls on data it owns.
        unsafe {
            self.cmd.pre_exec(move || {
                if cfg!(target_os = "linux") {
                    let no_core = sys::RLimit { cur: 0, max: 0 };
                    sys::setrlimit(sys::RLIMIT_CORE, &no_core);
                    if let Some(bytes) = limit {
                        let rl = sys::RLimit {
                            cur: bytes as _,
                            max: bytes as _,
                        };
                        if sys::setrlimit(sys::RLIMIT_AS, &rl) != 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                    }
                }
                if drop_root {
                    let nobody = 65534;
                    if sys::setgroups(0, std::ptr::null()) != 0 || sys::setgid(nobody) != 0 || sys::setuid(nobody) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }

    /// Starts the child with piped stdin/stdout (stderr discarded) for an
    /// interactive conversation; the caller enforces timeouts.
    pub fn spawn_piped(mut self) -> Child {
        self.prepare();
        self.cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start `{}`: {e}", self.label))
    }

    /// Runs the child to completion (stdin empty unless given), killing it
    /// with SIGKILL when the timeout passes.
    pub fn run(self) -> Outcome {
        let label = self.label.clone();
        self.try_run().unwrap_or_else(|e| panic!("cannot start `{label}`: {e}"))
    }

    /// [`Run::run`], or why the child could not be started.
    pub fn try_run(mut self) -> std::io::Result<Outcome> {
        self.prepare();
        let start = Instant::now();
        let stdin = if self.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        };
        let mut child = self
            .cmd
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        if let (Some(bytes), Some(mut pipe)) = (self.stdin.take(), child.stdin.take()) {
            std::thread::spawn(move || {
                use std::io::Write;
                // The child may stop reading early; that is its business.
                let _ = pipe.write_all(&bytes);
            });
        }
        let out = capture(child.stdout.take().expect("stdout"));
        let err = capture(child.stderr.take().expect("stderr"));
        let (status, max_rss_kib, timed_out) = wait(&mut child, self.timeout);
        Ok(Outcome {
            label: self.label,
            status,
            timed_out,
            timeout: self.timeout,
            elapsed: start.elapsed(),
            max_rss_kib,
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
        })
    }
}

/// Waits for `child` with `wait4` (to learn its peak memory), killing it at
/// the deadline. Returns its status, peak RSS in KiB, and whether it was
/// killed for taking too long.
fn wait(child: &mut Child, timeout: Duration) -> (ExitStatus, i64, bool) {
    let pid = child.id() as i32;
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    let mut status = 0;
    let mut usage: sys::RUsage = [0; 18];
    loop {
        let options = if timed_out { 0 } else { sys::WNOHANG };
        // SAFETY: `pid` is our unreaped child; the out-pointers are valid.
        let r = unsafe { sys::wait4(pid, &mut status, options, &mut usage) };
        if r == pid {
            break;
        }
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            panic!("wait4 failed: {e}");
        }
        if Instant::now() >= deadline {
            // Not reaped yet, so the pid is still ours.
            let _ = child.kill();
            timed_out = true;
            continue;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (ExitStatus::from_raw(status), usage[sys::MAXRSS] as i64, timed_out)
}

/// Output of one stream: its first [`HEAD`] bytes, last [`TAIL`] bytes and
/// total length.
#[derive(Default, Debug)]
pub struct Captured {
    pub head: Vec<u8>,
    pub tail: Vec<u8>,
    pub total: usize,
}

impl Captured {
    pub fn truncated(&self) -> bool {
        self.total > self.head.len()
    }

    /// The text (lossy), with a marker where bytes were dropped.
    pub fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if self.truncated() {
            let _ = write!(s, "\n[... {} bytes in all ...]\n", self.total);
            s.push_str(&String::from_utf8_lossy(&self.tail));
        }
        s
    }

    /// Whether `needle` occurs in what was kept.
    pub fn contains(&self, needle: &str) -> bool {
        let n = needle.as_bytes();
        let has = |h: &[u8]| !n.is_empty() && h.windows(n.len()).any(|w| w == n);
        has(&self.head) || has(&self.tail)
    }
}

fn capture(mut r: impl Read + Send + 'static) -> JoinHandle<Captured> {
    std::thread::spawn(move || {
        let mut c = Captured::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            c.total += n;
            let chunk = &buf[..n];
            let room = HEAD.saturating_sub(c.head.len());
            c.head.extend_from_slice(&chunk[..room.min(n)]);
            if n > room {
                c.tail.extend_from_slice(&chunk[room..]);
                if c.tail.len() > 2 * TAIL {
                    c.tail.drain(..c.tail.len() - TAIL);
                }
            }
        }
        if c.tail.len() > TAIL {
            c.tail.drain(..c.tail.len() - TAIL);
        }
        c
    })
}

/// How a run ended.
#[derive(Debug)]
pub struct Outcome {
    pub label: String,
    pub status: ExitStatus,
    pub timed_out: bool,
    pub timeout: Duration,
    pub elapsed: Duration,
    pub max_rss_kib: i64,
    pub stdout: Captured,
    pub stderr: Captured,
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        _ => "signal",
    }
}

fn tail_of(s: &str, n: usize) -> &str {
    let mut start = s.len().saturating_sub(n);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

impl Outcome {
    /// A one-paragraph description for failure messages.
    pub fn describe(&self) -> String {
        let end = if self.timed_out {
            format!("hung: killed after {:?}", self.timeout)
        } else if let Some(sig) = self.status.signal() {
            format!("killed by {} ({sig})", signal_name(sig))
        } else {
            format!("exit status {}", self.status.code().unwrap_or(-1))
        };
        format!(
            "`{}`: {end}, {:.2?}, peak RSS {} MiB, stdout {} bytes; stderr ends:\n{}",
            self.label,
            self.elapsed,
            self.max_rss_kib / 1024,
            self.stdout.total,
            tail_of(&self.stderr.text(), 1500)
        )
    }

    /// Ok when the child exited by itself (no timeout, no signal, no panic)
    /// with one of `allowed`.
    pub fn exit(&self, allowed: &[i32]) -> Result<(), String> {
        let code = self.status.code();
        if self.timed_out || self.status.signal().is_some() || code == Some(101) {
            return Err(self.describe());
        }
        match code {
            Some(c) if allowed.contains(&c) => Ok(()),
            _ => Err(format!("expected exit status {allowed:?}; {}", self.describe())),
        }
    }

    /// Ok when neither stdout nor stderr contains `secret`.
    pub fn never_shows(&self, secret: &str) -> Result<(), String> {
        for (name, c) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            if c.contains(secret) {
                let text = c.text();
                let at = text.find(secret).unwrap_or(0);
                let from = text[..at].rfind('\n').map_or(0, |i| i + 1);
                let line = text[from..].lines().next().unwrap_or("");
                return Err(format!("`{}`: {name} shows `{secret}`: {line}", self.label));
            }
        }
        Ok(())
    }

    /// stdout as JSON (for `--format json`).
    pub fn json(&self) -> Result<serde_json::Value, String> {
        if self.stdout.truncated() {
            return Err(format!(
                "`{}`: stdout of {} bytes is too large to parse",
                self.label, self.stdout.total
            ));
        }
        serde_json::from_slice(&self.stdout.head)
            .map_err(|e| format!("`{}`: stdout is not JSON ({e}); {}", self.label, self.describe()))
    }
}

/// Collects failed expectations, so one test reports every case that fails
/// rather than only the first.
#[derive(Default)]
pub struct Failures(Vec<String>);

impl Failures {
    pub fn new() -> Failures {
        Failures::default()
    }

    pub fn check(&mut self, case: impl AsRef<str>, result: Result<(), String>) {
        if let Err(e) = result {
            self.0.push(format!("[{}] {e}", case.as_ref()));
        }
    }

    pub fn finish(self) {
        assert!(
            self.0.is_empty(),
            "{} case(s) failed:\n\n{}",
            self.0.len(),
            self.0.join("\n\n")
        );
    }
}

/// `f` over `items`, each in its own thread (cases that may hang until
/// their timeout then cost one timeout, not one each), results in order.
pub fn parallel<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = items.into_iter().map(|item| scope.spawn(move || f(item))).collect();
        handles.into_iter().map(|h| h.join().expect("case thread")).collect()
    })
}

static SCRATCH: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory under the system's temporary folder, removed on drop
/// (kept when `STAGEC_KEEP_SCRATCH` is set).
pub struct Scratch {
    pub path: PathBuf,
}

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("stagec-hostile-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create scratch dir");
        Scratch { path }
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }

    /// Writes `bytes` to `rel` (creating folders) and returns its path.
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create folder");
        }
        std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
        p
    }

    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let p = self.join(rel);
        std::fs::create_dir_all(&p).expect("create folder");
        p
    }

    /// A symbolic link `rel` → `target`.
    pub fn symlink(&self, target: impl AsRef<Path>, rel: &str) -> PathBuf {
        let p = self.join(rel);
        std::os::unix::fs::symlink(target, &p).unwrap_or_else(|e| panic!("symlink {}: {e}", p.display()));
        p
    }

    /// A named pipe `rel` (nobody ever writes to it).
    pub fn fifo(&self, rel: &str) -> PathBuf {
        let p = self.join(rel);
        let ok = Command::new("mkfifo").arg(&p).status().is_ok_and(|s| s.success());
        assert!(ok, "mkfifo {}", p.display());
        p
    }

    /// Sorted names directly in `rel` ("" for the root).
    pub fn names(&self, rel: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.join(rel))
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("STAGEC_KEEP_SCRATCH").is_none() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
