//! The probe runs in a child process, bounded by a timeout.
//!
//! Why a process and not a watchdog thread: a driver call can block for
//! ever (a wedged GPU, a hung `cuInit`) and a thread stuck inside it cannot
//! be stopped — it would stay in the process, holding the driver, for as
//! long as `stagec` (or an editor's language server) runs. The driver can
//! also kill its caller outright (SIGSEGV, or SIGILL as bindings with a
//! Rust enum for `CUresult` did on codes they did not know), which no
//! `catch_unwind` survives. A child process can be killed on a deadline
//! and its death is a fact the parent reports. It also gives every probe
//! a fresh dynamic loader, so `LD_LIBRARY_PATH` and the `FAKECUDA_*`
//! variables of the tests' stand-in driver apply per probe.
//!
//! The child (`stagec __probe-driver`) prints the report's JSON on stdout
//! and, on stderr, a line [`PROGRESS_PREFIX`]`<call>` before each driver
//! call, so that a parent that has to stop it can say where it hung or
//! crashed.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{host, load_recorded, ProbeReport};

/// The hidden subcommand of `stagec` that runs the probe in this process
/// and prints its report.
pub const CHILD_SUBCOMMAND: &str = "__probe-driver";

/// Stderr lines of the child that announce the next driver call.
pub const PROGRESS_PREFIX: &str = "stagec-probe: calling ";

/// In the probe process: says on stderr which driver call comes next.
#[cfg(feature = "probe")]
pub(crate) fn announce(call: &str) {
    use std::io::Write as _;
    // Not `eprintln!`, which panics when stderr is gone (a parent that gave up).
    let _ = writeln!(std::io::stderr().lock(), "{PROGRESS_PREFIX}{call}");
}

/// How long the probe may take, unless [`TIMEOUT_VARIABLE`] says otherwise.
/// Generous: without the persistence daemon `cuInit` sets up every GPU of
/// the node, which takes seconds per GPU.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Environment variable with the probe's time limit in seconds.
pub const TIMEOUT_VARIABLE: &str = "STAGEC_PROBE_TIMEOUT";

/// How the child's report begins (`ProbeReport::to_json`: pretty, devices first).
const REPORT_START: &str = "{\n  \"devices\"";

/// Largest report read from the child.
const STDOUT_LIMIT: u64 = 8 * 1024 * 1024;

/// Stderr lines of the child kept for a failure's reason (the last ones).
const STDERR_LINES_KEPT: usize = 4;

/// How long a killed child is waited for before it is left behind.
const REAP_WAIT: Duration = Duration::from_secs(5);

/// The time limit a [`TIMEOUT_VARIABLE`] value asks for: seconds, a
/// positive number up to one day. Anything else gives
/// [`DEFAULT_TIMEOUT`] and a note saying the value was not used.
pub fn timeout_from(value: Option<&str>) -> (Duration, Option<String>) {
    let Some(value) = value else {
        return (DEFAULT_TIMEOUT, None);
    };
    match value.trim().parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs <= 86_400.0 => (Duration::from_secs_f64(secs), None),
        _ => (
            DEFAULT_TIMEOUT,
            Some(format!(
                "{TIMEOUT_VARIABLE}={:?} is not a number of seconds between 0 and 86400; the probe used {} s",
                value.chars().take(40).collect::<String>(),
                DEFAULT_TIMEOUT.as_secs()
            )),
        ),
    }
}

/// Runs `program __probe-driver` and returns its report, or a report whose
/// reason says how the probe process failed: not started, stopped after
/// `timeout`, killed by a signal, or ended without a report. Never panics
/// and never waits much longer than `timeout`.
pub fn probe_in_child(program: &Path, timeout: Duration) -> ProbeReport {
    let mut command = Command::new(program);
    command.arg(CHILD_SUBCOMMAND);
    run(command, timeout)
}

/// What the child said on stderr.
#[derive(Default)]
struct Stderr {
    /// The call announced last.
    last_call: Option<String>,
    /// The last other lines.
    tail: VecDeque<String>,
}

impl Stderr {
    fn take(&mut self, line: String) {
        match line.strip_prefix(PROGRESS_PREFIX) {
            Some(call) => self.last_call = Some(clip(call, 80)),
            None if !line.trim().is_empty() => {
                if self.tail.len() == STDERR_LINES_KEPT {
                    self.tail.pop_front();
                }
                self.tail.push_back(clip(line.trim(), 200));
            }
            None => {}
        }
    }

    /// ` in cuInit`, or ` before its first driver call`.
    fn where_(&self) -> String {
        match &self.last_call {
            Some(call) => format!(" in {call}"),
            None => " before its first driver call".to_string(),
        }
    }

    /// `; its last words: …` when it printed anything besides progress.
    fn words(&self) -> String {
        if self.tail.is_empty() {
            return String::new();
        }
        let lines: Vec<&str> = self.tail.iter().map(String::as_str).collect();
        format!("; it printed: {}", lines.join(" | "))
    }
}

/// Runs a prepared probe command (see [`probe_in_child`]); tests pass
/// stand-ins that hang, crash or print garbage.
pub(crate) fn run(mut command: Command, timeout: Duration) -> ProbeReport {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return failure(format!("the GPU probe process could not be started: {e}")),
    };
    let stdout = read_stdout(&mut child);
    // One channel for everything the parent waits on — the child's stderr
    // lines and its exit — so it sleeps until one of them happens (or the
    // deadline), never on a polling interval.
    let (tx, events) = mpsc::channel();
    read_stderr(&mut child, tx.clone());
    watch_exit(&child, tx);
    let mut stderr = Stderr::default();

    let deadline = Instant::now() + timeout;
    let status = loop {
        match events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Event::Line(line)) => stderr.take(line),
            Ok(Event::Exited) | Err(mpsc::RecvTimeoutError::Disconnected) => match child.try_wait() {
                Ok(Some(status)) => break Ok(status),
                // Not ended after all (a watcher that could not watch):
                // wait on the clock alone.
                Ok(None) => match poll_until(&mut child, deadline) {
                    Some(status) => break status,
                    None => return stopped(&mut child, &events, &mut stderr, timeout),
                },
                Err(e) => break Err(format!("the GPU probe process could not be waited for: {e}")),
            },
            Err(mpsc::RecvTimeoutError::Timeout) => return stopped(&mut child, &events, &mut stderr, timeout),
        }
    };
    // The pipes close when the child ends; collect what it wrote.
    let output = stdout.recv_timeout(Duration::from_secs(5)).unwrap_or_default();
    let deadline = Instant::now() + Duration::from_secs(2);
    while let Ok(event) = events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        if let Event::Line(line) = event {
            stderr.take(line);
        }
    }
    let status = match status {
        Ok(status) => status,
        Err(reason) => return failure(reason),
    };
    if let Some(signal) = signal_of(&status) {
        let name = signal_name(signal).map(|n| format!(" ({n})")).unwrap_or_default();
        let blame = if stderr.last_call.is_some() {
            ": the driver library crashed it"
        } else {
            ""
        };
        return failure(format!(
            "the GPU probe process died of signal {signal}{name}{}{blame}{}",
            stderr.where_(),
            stderr.words()
        ));
    }
    let text = String::from_utf8_lossy(&output);
    // The report is the JSON at the end of stdout; a driver library that
    // printed on stdout first does not spoil it.
    let report_text = match load_recorded(&text) {
        Ok(_) => &text[..],
        Err(_) => text
            .rfind(REPORT_START)
            .and_then(|at| text.get(at..))
            .unwrap_or(&text[..]),
    };
    match (status.success(), load_recorded(report_text)) {
        (true, Ok(report)) => report,
        (true, Err(e)) => failure(format!(
            "the GPU probe process ended without a readable report ({e}){}",
            stderr.words()
        )),
        (false, _) => failure(format!(
            "the GPU probe process exited with status {} without a report{}",
            status.code().map_or_else(|| "?".to_string(), |c| c.to_string()),
            stderr.words()
        )),
    }
}

/// Reads the child's stdout (up to [`STDOUT_LIMIT`], draining the rest) on
/// a thread; the bytes arrive when the pipe closes.
fn read_stdout(child: &mut Child) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(pipe) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut pipe = pipe;
            let mut bytes = Vec::new();
            let _ = (&mut pipe).take(STDOUT_LIMIT).read_to_end(&mut bytes);
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            let _ = tx.send(bytes);
        });
    }
    rx
}

/// What the parent waits for.
enum Event {
    /// A line the child wrote on stderr.
    Line(String),
    /// The child ended (it is not reaped yet: [`Child::try_wait`] collects it).
    Exited,
}

/// Reads the child's stderr line by line on a thread (lossily decoded, so
/// that no byte stops the draining and blocks the child).
fn read_stderr(child: &mut Child, tx: mpsc::Sender<Event>) {
    if let Some(pipe) = child.stderr.take() {
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).split(b'\n') {
                let Ok(bytes) = line else { break };
                if tx
                    .send(Event::Line(String::from_utf8_lossy(&bytes).into_owned()))
                    .is_err()
                {
                    break;
                }
            }
        });
    }
}

/// Sends [`Event::Exited`] when the child ends, from a thread blocked in
/// `waitid(…, WEXITED | WNOWAIT)`: it sees the exit without reaping, so the
/// `Child` still owns the process (its pid cannot be reused while it is a
/// zombie) and can kill it on the deadline. If `waitid` fails, the event is
/// sent at once and the parent finds the child still running.
#[cfg(unix)]
fn watch_exit(child: &Child, tx: mpsc::Sender<Event>) {
    let pid: libc::id_t = child.id();
    std::thread::spawn(move || {
        loop {
            // SAFETY: `info` is a plain C struct waitid fills in; `pid` is
            // our own unreaped child, so the call cannot touch another process.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            let r = unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
            if r == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break;
            }
        }
        let _ = tx.send(Event::Exited);
    });
}

/// Without `waitid`: the exit is found by [`poll_until`].
#[cfg(not(unix))]
fn watch_exit(_: &Child, tx: mpsc::Sender<Event>) {
    let _ = tx.send(Event::Exited);
}

/// Waits for the child by asking every few milliseconds, until `deadline`;
/// only where the exit cannot be watched.
fn poll_until(child: &mut Child, deadline: Instant) -> Option<Result<ExitStatus, String>> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(Ok(status)),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => return None,
            Err(e) => return Some(Err(format!("the GPU probe process could not be waited for: {e}"))),
        }
    }
}

/// Stops a child that ran past `timeout` and says where it was.
fn stopped(child: &mut Child, events: &mpsc::Receiver<Event>, stderr: &mut Stderr, timeout: Duration) -> ProbeReport {
    let _ = child.kill();
    let reaped = reap(child, events, stderr);
    let mut reason = format!(
        "the GPU probe did not finish within {} and was stopped; it was{}. The driver or a GPU may be \
         hung: check `nvidia-smi` and the kernel log; {TIMEOUT_VARIABLE} sets the limit in seconds",
        seconds(timeout),
        stderr.where_()
    );
    if !reaped {
        reason.push_str(&format!(
            "; the probe process (pid {}) did not end when killed (stuck in the kernel driver?)",
            child.id()
        ));
    }
    failure(reason)
}

/// Waits a little for a killed child, taking the stderr lines that still
/// arrive; whether it ended.
fn reap(child: &mut Child, events: &mpsc::Receiver<Event>, stderr: &mut Stderr) -> bool {
    let until = Instant::now() + REAP_WAIT;
    loop {
        match events.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(Event::Line(line)) => stderr.take(line),
            Ok(Event::Exited) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                return matches!(child.try_wait(), Ok(Some(_))) || poll_until(child, until).is_some_and(|s| s.is_ok())
            }
            Err(mpsc::RecvTimeoutError::Timeout) => return matches!(child.try_wait(), Ok(Some(_))),
        }
    }
}

#[cfg(unix)]
fn signal_of(status: &ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_: &ExitStatus) -> Option<i32> {
    None
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// `60 s`, `1.5 s`.
fn seconds(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs:.1} s")
    }
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or_default()),
        None => text.to_string(),
    }
}

/// A report with no devices and `reason`, plus what the parent can read
/// without the driver: the kernel module's version and the CUDA variables.
fn failure(reason: String) -> ProbeReport {
    ProbeReport {
        environment: host::process_cuda_environment(),
        kernel_driver: host::kernel_driver(Path::new("/")).ok(),
        reason: Some(reason),
        ..ProbeReport::default()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("/bin/sh");
        c.args(["-c", script]);
        c
    }

    fn reason(report: &ProbeReport) -> &str {
        assert!(report.devices.is_empty(), "{report:#?}");
        report.reason.as_deref().unwrap_or_default()
    }

    #[test]
    fn a_report_on_stdout_is_the_result() {
        let json = r#"{"devices": [], "driver": {"cuda_driver_version": 12040, "cuda_version": "12.4"}, "peer_access": [], "reason": "no devices"}"#;
        let report = run(
            sh(&format!("echo '{PROGRESS_PREFIX}cuInit' >&2; echo '{json}'")),
            Duration::from_secs(20),
        );
        assert_eq!(report.reason.as_deref(), Some("no devices"));
        assert_eq!(report.driver.map(|d| d.cuda_driver_version), Some(12040));
    }

    #[test]
    fn text_before_the_report_is_ignored() {
        let report = ProbeReport {
            reason: Some("no devices".into()),
            ..ProbeReport::default()
        };
        let script = format!("echo 'driver banner {{'; cat <<'EOF'\n{}\nEOF", report.to_json());
        assert_eq!(run(sh(&script), Duration::from_secs(20)), report);
    }

    #[test]
    fn a_hung_probe_is_stopped_and_says_where() {
        let started = Instant::now();
        let report = run(
            sh(&format!("echo '{PROGRESS_PREFIX}cuInit' >&2; exec sleep 30")),
            Duration::from_millis(300),
        );
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
        let r = reason(&report);
        assert!(r.starts_with("the GPU probe did not finish within 0.3 s"), "{r}");
        assert!(r.contains("it was in cuInit"), "{r}");
        assert!(r.contains(TIMEOUT_VARIABLE), "{r}");
    }

    #[test]
    fn a_crashed_probe_is_reported_with_its_signal() {
        let report = run(
            sh(&format!(
                "echo '{PROGRESS_PREFIX}cuDeviceGetName (device 1)' >&2; echo 'driver says bye' >&2; kill -ILL $$"
            )),
            Duration::from_secs(20),
        );
        let r = reason(&report);
        assert!(
            r.starts_with(
                "the GPU probe process died of signal 4 (SIGILL) in cuDeviceGetName (device 1): the driver library \
                 crashed it"
            ),
            "{r}"
        );
        assert!(r.ends_with("it printed: driver says bye"), "{r}");
        let report = run(sh("kill -SEGV $$"), Duration::from_secs(20));
        assert!(
            reason(&report)
                .starts_with("the GPU probe process died of signal 11 (SIGSEGV) before its first driver call"),
            "{report:?}"
        );
    }

    #[test]
    fn exits_without_a_report_are_reported() {
        let report = run(
            sh("echo 'version `GLIBC_2.34` not found' >&2; exit 127"),
            Duration::from_secs(20),
        );
        assert_eq!(
            reason(&report),
            "the GPU probe process exited with status 127 without a report; it printed: version `GLIBC_2.34` not found"
        );
        let report = run(sh("echo not-json"), Duration::from_secs(20));
        assert!(
            reason(&report).starts_with("the GPU probe process ended without a readable report (not a stagec probe"),
            "{report:?}"
        );
        let report = run(Command::new("/nonexistent/stagec"), Duration::from_secs(20));
        assert!(
            reason(&report).starts_with("the GPU probe process could not be started: "),
            "{report:?}"
        );
    }

    #[test]
    fn a_chatty_probe_does_not_block() {
        // 4 MB on stderr and stdout each: more than a pipe holds.
        let report = run(
            sh("head -c 4000000 /dev/zero | tr '\\0' 'x' >&2; head -c 4000000 /dev/zero; exit 3"),
            Duration::from_secs(60),
        );
        assert!(
            reason(&report).starts_with("the GPU probe process exited with status 3"),
            "{report:?}"
        );
        assert!(report.reason.as_deref().is_some_and(|r| r.len() < 1000));
    }

    #[test]
    fn timeout_values() {
        assert_eq!(timeout_from(None), (DEFAULT_TIMEOUT, None));
        assert_eq!(timeout_from(Some("2")), (Duration::from_secs(2), None));
        assert_eq!(timeout_from(Some(" 0.5 ")), (Duration::from_millis(500), None));
        for bad in ["0", "-1", "abc", "", "1e9", "NaN", "inf"] {
            let (d, note) = timeout_from(Some(bad));
            assert_eq!(d, DEFAULT_TIMEOUT, "{bad}");
            assert!(note.is_some_and(|n| n.starts_with("STAGEC_PROBE_TIMEOUT=")), "{bad}");
        }
        assert_eq!(seconds(Duration::from_secs(60)), "60 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
