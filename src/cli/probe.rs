//! `stagec probe`, and the probed host for `--probe`.

use std::path::Path;

use stagec::hardware::probe;

use super::{ProbeFormat, EXIT_OK, EXIT_USAGE};

/// Exit status of `stagec probe` when no GPU could be probed (no driver, no
/// device, a driver error, a probe that hung or crashed); the report says why.
pub const EXIT_NO_GPU: u8 = 1;

/// The probe's report: replayed from a recording, or read from the driver
/// by a child process (this executable's hidden `__probe-driver`), stopped
/// after `STAGEC_PROBE_TIMEOUT` seconds (default 60).
pub(crate) fn probe_report(recording: Option<&Path>) -> Result<probe::ProbeReport, String> {
    match recording {
        Some(path) => {
            let bytes = stagec::fsutil::read_limited(path, 8 * 1024 * 1024)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let text = String::from_utf8_lossy(&bytes);
            probe::load_recorded(&text).map_err(|e| format!("{}: {e}", path.display()))
        }
        None => Ok(probe_here()),
    }
}

fn probe_here() -> probe::ProbeReport {
    let value = std::env::var(probe::TIMEOUT_VARIABLE).ok();
    let (timeout, note) = probe::isolate::timeout_from(value.as_deref());
    let mut report = match std::env::current_exe() {
        Ok(exe) => probe::probe_local(&exe, timeout),
        Err(e) => probe::ProbeReport {
            reason: Some(format!(
                "the GPU probe process could not be started: this executable's path is unknown ({e})"
            )),
            ..probe::ProbeReport::default()
        },
    };
    report.notes.extend(note);
    report
}

pub(crate) fn run_probe(format: ProbeFormat, recording: Option<&Path>) -> u8 {
    let report = match probe_report(recording) {
        Ok(r) => r,
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    match format {
        // A recording's names are input: their control characters escaped.
        ProbeFormat::Human => print!("{}", stagec::escape::text(&report.render_human())),
        ProbeFormat::Json => print!("{}", stagec::escape::json(&report.to_json())),
    }
    if report.devices.is_empty() {
        EXIT_NO_GPU
    } else {
        EXIT_OK
    }
}

/// `stagec __probe-driver`: the probe in this process, its report's JSON on
/// stdout (exit 0 whatever it found; the parent decides).
pub(crate) fn run_probe_driver() -> u8 {
    use std::io::Write as _;
    let report = probe::probe_in_this_process();
    // Not `println!`, which panics when stdout is gone (a parent that gave up).
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", report.to_json());
    let _ = stdout.flush();
    EXIT_OK
}
