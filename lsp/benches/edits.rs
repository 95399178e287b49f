//! Editing speed of the language server, driven in-process over
//! `Connection::memory()`: a 500-line experiment config (with the seed's
//! `model.py` beside it) is edited, and each `didChange` is timed until its
//! `publishDiagnostics` arrives.
//!
//! Targets: p99 ≤ 10 ms over 1,000 edits; memory (RSS) flat over 10,000
//! edits. Run with `cargo bench -p stagec-lsp --bench edits`; the p50/p99
//! and RSS figures are printed before criterion's own measurement.

use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use lsp_server::{Connection, Message, Notification, Request};
use serde_json::{json, Value};

const SEED: &str = include_str!("../../examples/hpp-seed-fixed/const.yaml");
const MODEL: &str = include_str!("../../examples/hpp-seed-fixed/model.py");
/// The training code the config's entrypoint runs: analysed on every edit
/// (its parse kept between edits).
const TRAIN: &str = include_str!("../../examples/hpp-seed-fixed/train.py");

/// A valid config of `lines` lines: the seed plus extra hyperparameters.
fn config_of(lines: usize) -> String {
    let (head, tail) = SEED.split_once("hyperparameters:\n").unwrap_or((SEED, ""));
    let mut extra = String::new();
    let mut i = 0;
    while head.lines().count() + tail.lines().count() + extra.lines().count() + 1 < lines {
        extra.push_str(&format!(
            "  extra_{i}:\n    type: double\n    minval: 0.{i}\n    maxval: {}.5\n",
            i + 1
        ));
        i += 1;
    }
    format!("{head}hyperparameters:\n{extra}{tail}")
}

struct Session {
    client: Connection,
    server: Option<thread::JoinHandle<i32>>,
    uri: String,
    text: String,
    version: i32,
    _dir: TempDir,
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Session {
    fn start(lines: usize) -> Session {
        let dir = std::env::temp_dir().join(format!("stagec-lsp-bench-{}-{lines}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let text = config_of(lines);
        let config = dir.join("const.yaml");
        let _ = std::fs::write(&config, &text);
        let _ = std::fs::write(dir.join("model.py"), MODEL);
        let _ = std::fs::write(dir.join("train.py"), TRAIN);
        let (server_side, client) = Connection::memory();
        let server = thread::spawn(move || stagec_lsp::server::serve(&server_side));
        let uri = uri_of(&config);
        let s = Session {
            client,
            server: Some(server),
            uri,
            text,
            version: 1,
            _dir: TempDir(dir),
        };
        s.request("initialize", json!({"capabilities": {}}));
        s.notify("initialized", json!({}));
        let open = json!({"textDocument": {"uri": s.uri, "languageId": "yaml", "version": 1, "text": s.text}});
        s.notify("textDocument/didOpen", open);
        s.wait_diagnostics();
        s
    }

    fn notify(&self, method: &str, params: Value) {
        let _ = self.client.sender.send(Message::Notification(Notification {
            method: method.into(),
            params,
        }));
    }

    fn request(&self, method: &str, params: Value) -> Value {
        let id = stagec_lsp::server::id(1);
        let _ = self.client.sender.send(Message::Request(Request {
            id: id.clone(),
            method: method.into(),
            params,
        }));
        loop {
            match self.client.receiver.recv_timeout(Duration::from_secs(30)) {
                Ok(Message::Response(r)) if r.id == id => return serde_json::to_value(r).unwrap_or(Value::Null),
                Ok(_) => {}
                Err(e) => panic!("no response: {e}"),
            }
        }
    }

    fn wait_diagnostics(&self) -> usize {
        loop {
            match self.client.receiver.recv_timeout(Duration::from_secs(30)) {
                Ok(Message::Notification(n)) if n.method == "textDocument/publishDiagnostics" => {
                    if n.params["uri"] == json!(self.uri) {
                        return n.params["diagnostics"].as_array().map_or(0, Vec::len);
                    }
                }
                Ok(_) => {}
                Err(e) => panic!("no diagnostics: {e}"),
            }
        }
    }

    /// One keystroke-sized edit (a value changes), timed until its
    /// diagnostics are published.
    fn edit(&mut self) -> Duration {
        self.version += 1;
        let v = self.version;
        // Alternate between a valid and an invalid value so diagnostics change.
        let name = if v % 2 == 0 {
            format!("run-{v}")
        } else {
            format!("[run-{v}")
        };
        let text = self
            .text
            .replacen("name: hybrid-training-hpp-v2", &format!("name: \"{name}\""), 1);
        let params = json!({"textDocument": {"uri": self.uri, "version": v}, "contentChanges": [{"text": text}]});
        let start = Instant::now();
        self.notify("textDocument/didChange", params);
        self.wait_diagnostics();
        start.elapsed()
    }

    fn finish(mut self) {
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        if let Some(h) = self.server.take() {
            let _ = h.join();
        }
    }
}

fn uri_of(path: &Path) -> String {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// Resident set size of this process in KiB, from /proc/self/status.
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

fn report() {
    let mut s = Session::start(500);
    println!("config: {} lines", s.text.lines().count());
    for _ in 0..50 {
        s.edit();
    }
    let mut times: Vec<Duration> = (0..1000).map(|_| s.edit()).collect();
    times.sort();
    println!(
        "didChange → publishDiagnostics over 1,000 edits: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times.last().copied().unwrap_or_default().as_secs_f64() * 1e3
    );
    let before = rss_kib();
    for _ in 0..10_000 {
        s.edit();
    }
    let after = rss_kib();
    if let (Some(b), Some(a)) = (before, after) {
        println!(
            "RSS before 10,000 edits: {b} KiB, after: {a} KiB ({:+} KiB)",
            a as i64 - b as i64
        );
    }
    s.finish();
}

fn edits(c: &mut Criterion) {
    report();
    let mut s = Session::start(500);
    c.bench_function("did_change_500_lines", |b| b.iter(|| s.edit()));
    s.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(Duration::from_secs(5));
    targets = edits
}
criterion_main!(benches);
