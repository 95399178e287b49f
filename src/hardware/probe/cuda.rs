//! The real probe: the CUDA driver API through cudarc, `libcuda` loaded at
//! run time (cudarc's `dynamic-loading`), so stagec builds and runs without a
//! CUDA toolkit or driver.

use std::ffi::{c_char, c_int};
use std::fmt::Write as _;

use cudarc::driver::{result, sys};

use super::{catalog_id, DriverInfo, ProbeReport, ProbedDevice};

/// Probes the host. Never panics: a panic inside cudarc (a symbol missing
/// from an old driver) becomes the report's reason.
pub(super) fn probe() -> ProbeReport {
    guarded(probe_cuda)
}

/// Runs a probe, turning a panic into a report with the panic's message as reason.
fn guarded(probe: impl FnOnce() -> ProbeReport + std::panic::UnwindSafe) -> ProbeReport {
    std::panic::catch_unwind(probe).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        ProbeReport {
            reason: Some(format!("the CUDA probe failed unexpectedly: {message}")),
            ..ProbeReport::default()
        }
    })
}

/// `"cuInit: CUDA_ERROR_NO_DEVICE"`.
fn failed(call: &str, err: result::DriverError) -> String {
    format!("{call} failed: {:?}", err.0)
}

fn probe_cuda() -> ProbeReport {
    // SAFETY: `is_culib_present` only tries to open the candidate library
    // names (`libcuda.so`, `libcuda.so.1`, …) and closes them again; it calls
    // no CUDA function. Every cudarc call below panics when libcuda is
    // missing, so nothing else may run before this check.
    if !unsafe { sys::is_culib_present() } {
        return ProbeReport::no_driver();
    }
    let mut problems: Vec<String> = Vec::new();

    // The driver version needs no `cuInit`: ask first, so that a driver that
    // then fails to initialise is still identified.
    let mut version: c_int = 0;
    // SAFETY: libcuda is loadable (checked above); the call writes one int
    // through a pointer to a live local.
    let driver = match unsafe { sys::cuDriverGetVersion(&mut version) }.result() {
        Ok(()) => Some(DriverInfo::from_version(version)),
        Err(e) => {
            problems.push(failed("cuDriverGetVersion", e));
            None
        }
    };
    let stop = |driver: Option<DriverInfo>, reason: String| ProbeReport {
        driver,
        reason: Some(reason),
        ..ProbeReport::default()
    };

    if let Err(e) = result::init() {
        let reason = if e.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE {
            "no CUDA device is visible (cuInit: CUDA_ERROR_NO_DEVICE); check `nvidia-smi` and CUDA_VISIBLE_DEVICES"
                .to_string()
        } else {
            format!("the CUDA driver could not be initialised: {}", failed("cuInit", e))
        };
        problems.push(reason);
        return stop(driver, problems.join("; "));
    }
    let count = match result::device::get_count() {
        Ok(n) => n,
        Err(e) => {
            problems.push(failed("cuDeviceGetCount", e));
            return stop(driver, problems.join("; "));
        }
    };
    if count <= 0 {
        problems.push("the CUDA driver reports no devices (cuDeviceGetCount = 0)".to_string());
        return stop(driver, problems.join("; "));
    }

    let mut devices = Vec::new();
    let mut handles = Vec::new();
    for ordinal in 0..count {
        match probe_device(ordinal) {
            Ok((device, handle)) => {
                devices.push(device);
                handles.push(handle);
            }
            Err(e) => problems.push(format!("device {ordinal} left out: {e}")),
        }
    }

    let mut peer_access = Vec::with_capacity(handles.len());
    for (i, &a) in handles.iter().enumerate() {
        let mut row = Vec::with_capacity(handles.len());
        for (j, &b) in handles.iter().enumerate() {
            if i == j {
                row.push(false);
                continue;
            }
            match can_access_peer(a, b) {
                Ok(ok) => row.push(ok),
                Err(e) => {
                    row.push(false);
                    let (from, to) = (ordinal_of(&devices, i), ordinal_of(&devices, j));
                    problems.push(format!("peer access {from} → {to}: {e}"));
                }
            }
        }
        peer_access.push(row);
    }

    ProbeReport {
        devices,
        driver,
        peer_access,
        reason: (!problems.is_empty()).then(|| problems.join("; ")),
    }
}

fn ordinal_of(devices: &[ProbedDevice], index: usize) -> u32 {
    devices.get(index).map_or(0, |d| d.ordinal)
}

/// Everything about one device; the handle is kept for the peer matrix.
fn probe_device(ordinal: c_int) -> Result<(ProbedDevice, sys::CUdevice), String> {
    let dev = result::device::get(ordinal).map_err(|e| failed("cuDeviceGet", e))?;
    let name = device_string(dev, "cuDeviceGetName", |buf, len, dev| {
        // SAFETY: `buf` points to `len` writable bytes; `dev` came from cuDeviceGet.
        unsafe { sys::cuDeviceGetName(buf, len, dev) }
    })?;
    let uuid = result::device::get_uuid(dev)
        .map(|u| format_uuid(&u.bytes))
        .map_err(|e| failed("cuDeviceGetUuid", e))?;
    // SAFETY: `dev` came from cuDeviceGet.
    let total = unsafe { result::device::total_mem(dev) }.map_err(|e| failed("cuDeviceTotalMem_v2", e))?;
    use sys::CUdevice_attribute::{
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR as CC_MAJOR,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR as CC_MINOR, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT as SM_COUNT,
    };
    let major = attribute(dev, CC_MAJOR, "COMPUTE_CAPABILITY_MAJOR")?;
    let minor = attribute(dev, CC_MINOR, "COMPUTE_CAPABILITY_MINOR")?;
    let multiprocessors = attribute(dev, SM_COUNT, "MULTIPROCESSOR_COUNT")?;
    let pci_bus_id = device_string(dev, "cuDeviceGetPCIBusId", |buf, len, dev| {
        // SAFETY: `buf` points to `len` writable bytes; `dev` came from cuDeviceGet.
        unsafe { sys::cuDeviceGetPCIBusId(buf, len, dev) }
    })?;
    let total_memory_bytes = u64::try_from(total).unwrap_or(u64::MAX);
    let device = ProbedDevice {
        ordinal: u32::try_from(ordinal).unwrap_or(0),
        catalog_id: catalog_id(&name, total_memory_bytes),
        name,
        uuid,
        compute_capability: (major, minor),
        total_memory_bytes,
        free_memory_bytes: free_memory(dev),
        multiprocessors,
        pci_bus_id,
    };
    Ok((device, dev))
}

/// A string the driver writes into a caller-provided buffer (name, PCI bus id).
fn device_string(
    dev: sys::CUdevice,
    call: &str,
    f: impl FnOnce(*mut c_char, c_int, sys::CUdevice) -> sys::CUresult,
) -> Result<String, String> {
    const LEN: usize = 256;
    let mut buf = [0u8; LEN];
    f(buf.as_mut_ptr().cast::<c_char>(), LEN as c_int, dev)
        .result()
        .map_err(|e| failed(call, e))?;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(LEN);
    Ok(String::from_utf8_lossy(buf.get(..end).unwrap_or_default())
        .trim()
        .to_string())
}

fn attribute(dev: sys::CUdevice, attr: sys::CUdevice_attribute, what: &str) -> Result<u32, String> {
    // SAFETY: `dev` came from cuDeviceGet; `attr` is a valid enum value.
    let value = unsafe { result::device::get_attribute(dev, attr) }
        .map_err(|e| failed(&format!("cuDeviceGetAttribute({what})"), e))?;
    u32::try_from(value).map_err(|_| format!("cuDeviceGetAttribute({what}) returned {value}"))
}

/// `GPU-` + 8-4-4-4-12 lower-case hex digits, as `nvidia-smi -L` prints it.
fn format_uuid(bytes: &[c_char; 16]) -> String {
    let mut out = String::from("GPU-");
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        let [byte] = b.to_ne_bytes();
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Free memory through the device's primary context, which is retained,
/// made current, queried and released again, restoring the thread's
/// previous context. `None` when any step fails.
fn free_memory(dev: sys::CUdevice) -> Option<u64> {
    let previous = result::ctx::get_current().ok()?;
    // SAFETY: `dev` came from cuDeviceGet; the retain is balanced by the
    // release below on every path.
    let ctx = unsafe { result::primary_ctx::retain(dev) }.ok()?;
    // SAFETY: `ctx` is the primary context just retained and stays alive
    // until the release below.
    let free = match unsafe { result::ctx::set_current(ctx) } {
        Ok(()) => result::mem_get_info()
            .ok()
            .and_then(|(free, _)| u64::try_from(free).ok()),
        Err(_) => None,
    };
    // SAFETY: restores the context that was current before (or none); it
    // was alive then and this probe released nothing of it.
    let _ = unsafe { result::ctx::set_current(previous.unwrap_or(std::ptr::null_mut())) };
    // SAFETY: balances the successful retain above for the same device.
    let _ = unsafe { result::primary_ctx::release(dev) };
    free
}

fn can_access_peer(a: sys::CUdevice, b: sys::CUdevice) -> Result<bool, String> {
    let mut ok: c_int = 0;
    // SAFETY: both handles came from cuDeviceGet; the call writes one int
    // through a pointer to a live local.
    unsafe { sys::cuDeviceCanAccessPeer(&mut ok, a, b) }
        .result()
        .map_err(|e| failed("cuDeviceCanAccessPeer", e))?;
    Ok(ok != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_DRIVER: &str = include_str!("../../../tests/probes/no-driver.json");

    #[test]
    fn uuid_formatting() {
        let bytes: [c_char; 16] = std::array::from_fn(|i| c_char::from_ne_bytes([(i as u8) * 17]));
        assert_eq!(format_uuid(&bytes), "GPU-00112233-4455-6677-8899-aabbccddeeff");
    }

    #[test]
    fn panics_become_reasons() {
        let report = guarded(|| panic!("Missing symbol cuFoo"));
        assert_eq!(report.devices, []);
        assert_eq!(report.driver, None);
        assert_eq!(
            report.reason.as_deref(),
            Some("the CUDA probe failed unexpectedly: Missing symbol cuFoo")
        );
        let n = 3;
        let report = guarded(move || panic!("{n} devices"));
        assert_eq!(
            report.reason.as_deref(),
            Some("the CUDA probe failed unexpectedly: 3 devices")
        );
    }

    /// The real probe on this host. Without libcuda (CI, this project's
    /// build machines) it must return the no-driver report; with a driver it
    /// must not panic and must return a consistent report.
    #[test]
    fn cuda_probe_never_panics() {
        let report = probe();
        // SAFETY: only tries to open the libcuda candidates and closes them.
        if !unsafe { sys::is_culib_present() } {
            assert_eq!(report, ProbeReport::no_driver());
            assert_eq!(
                serde_json::to_string(&report).ok(),
                super::super::load_recorded(NO_DRIVER)
                    .ok()
                    .and_then(|r| serde_json::to_string(&r).ok())
            );
            return;
        }
        let n = report.devices.len();
        assert!(
            report.peer_access.is_empty() || report.peer_access.len() == n,
            "{report:#?}"
        );
        assert!(n > 0 || report.reason.is_some(), "{report:#?}");
        for d in &report.devices {
            assert!(d.uuid.starts_with("GPU-") && d.uuid.len() == 40, "{d:#?}");
            assert!(d.total_memory_bytes > 0, "{d:#?}");
        }
        // Stable across probes (free memory excluded).
        assert_eq!(probe().fingerprint(), report.fingerprint());
    }
}
