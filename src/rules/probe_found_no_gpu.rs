declare_rule! {
    /// ## What it checks
    /// With `--probe`: that the CUDA driver reported at least one GPU on this
    /// machine. Without a driver, without a device, or on a driver error, the
    /// diagnostic carries the probe's reason.
    ///
    /// ## Why
    /// `--probe` asks "will this run on this machine?"; an empty probe answers
    /// it (every stage then lacks GPUs), and the reason says what to fix.
    ///
    /// ## Example
    /// `stagec check const.yaml --probe` on a laptop without an NVIDIA driver.
    pub static PROBE_FOUND_NO_GPU = {
        code: "P307",
        name: "probe-found-no-gpu",
        family: Hardware,
        severity: Warning,
        summary: "The local GPU probe found no GPU",
    };
}

use super::{Cx, Sink};
use crate::source::Span;

pub(crate) fn check(cx: &Cx<'_>, out: &mut Sink<'_>) {
    let Some((file, report)) = &cx.compiled.probe else {
        return;
    };
    if !report.devices.is_empty() {
        return;
    }
    let reason = report.reason.as_deref().unwrap_or("no CUDA device");
    out.at(
        *file,
        Span::at(0),
        format!("the local GPU probe found no GPU: {reason}"),
    )
    .help("run where the NVIDIA driver and GPUs are, or check against a cluster with `--inventory FILE`");
}
