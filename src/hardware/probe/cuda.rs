//! The driver calls of the probe, made in the probe process (see
//! [`super::isolate`]).
//!
//! `libcuda` is opened by the driver's own names (`libcuda.so.1`, then
//! `libcuda.so`), and, on a host with the NVIDIA kernel module, by cudarc's
//! search of other names (`is_culib_present`, `culib`; its
//! `dynamic-loading`, so stagec builds and runs without a CUDA toolkit or
//! driver) when those fail; nothing else of cudarc is called: its `cu*` bindings return
//! `CUresult` as a Rust enum, and a code a newer driver returns that the
//! compiled bindings lack is undefined behaviour (it killed the process
//! with SIGILL), and they resolve each symbol lazily, panicking on a
//! missing one. Instead every function the probe calls is resolved here,
//! up front, from the loaded library, typed with plain `c_int` results;
//! codes are named from [`codes`], unknown ones stay numbers. No CUDA
//! context is ever created: free memory comes from NVML.

use std::ffi::{c_char, c_int, c_uint, CStr};
use std::path::Path;

use cudarc::driver::sys;
use cudarc::driver::sys::CUdevice_attribute as Attr;

use super::isolate::announce;
use super::nvml::Nvml;
use super::{codes, host, parse, DriverInfo, KernelDriver, ProbeReport, ProbedDevice, NO_DRIVER_REASON};

type InitFn = unsafe extern "C" fn(c_uint) -> c_int;
type OutIntFn = unsafe extern "C" fn(*mut c_int) -> c_int;
type DeviceGetFn = unsafe extern "C" fn(*mut c_int, c_int) -> c_int;
type DeviceStringFn = unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_int;
type UuidFn = unsafe extern "C" fn(*mut u8, c_int) -> c_int;
type TotalMemFn = unsafe extern "C" fn(*mut usize, c_int) -> c_int;
type AttributeFn = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int;
type PeerFn = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int;
type ErrorNameFn = unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int;

/// At most this many devices are probed (a garbage count must not loop for ever).
const MAX_DEVICES: c_int = 1024;

/// `CUDA_ERROR_NO_DEVICE`.
const NO_DEVICE: c_int = 100;

/// The driver functions the probe calls, resolved from the loaded library.
struct Driver {
    init: InitFn,
    driver_get_version: OutIntFn,
    device_get_count: OutIntFn,
    device_get: DeviceGetFn,
    device_get_name: DeviceStringFn,
    device_total_mem: TotalMemFn,
    device_get_attribute: AttributeFn,
    device_get_pci_bus_id: DeviceStringFn,
    /// `cuDeviceGetUuid_v2`, else the legacy `cuDeviceGetUuid`, and its name.
    device_get_uuid: (UuidFn, &'static str),
    /// Optional: without it, no peer-access matrix.
    device_can_access_peer: Option<PeerFn>,
    /// Optional: names for codes stagec's table lacks.
    get_error_name: Option<ErrorNameFn>,
}

/// Resolution failed: the missing names, and `cuDriverGetVersion` if that
/// one is there (to say which driver is too old).
struct Missing {
    names: Vec<&'static str>,
    driver_get_version: Option<OutIntFn>,
    any_address: Option<usize>,
}

fn symbol<T: Copy>(library: &libloading::Library, name: &str) -> Option<T> {
    // SAFETY: every `T` used with this is the C signature of the driver
    // function `name` (cuda.h) with `c_int` in place of the `CUresult` and
    // `CUdevice` enums/typedefs; the library is cudarc's, kept loaded for
    // the life of the process.
    unsafe { library.get::<T>(name) }.ok().map(|f| *f)
}

impl Driver {
    fn resolve(library: &libloading::Library) -> Result<Driver, Missing> {
        let mut names = Vec::new();
        macro_rules! required {
            ($t:ty, $name:literal) => {{
                let f = symbol::<$t>(library, $name);
                if f.is_none() {
                    names.push($name);
                }
                f
            }};
        }
        let init = required!(InitFn, "cuInit");
        let driver_get_version = required!(OutIntFn, "cuDriverGetVersion");
        let device_get_count = required!(OutIntFn, "cuDeviceGetCount");
        let device_get = required!(DeviceGetFn, "cuDeviceGet");
        let device_get_name = required!(DeviceStringFn, "cuDeviceGetName");
        let device_total_mem = required!(TotalMemFn, "cuDeviceTotalMem_v2");
        let device_get_attribute = required!(AttributeFn, "cuDeviceGetAttribute");
        let device_get_pci_bus_id = required!(DeviceStringFn, "cuDeviceGetPCIBusId");
        let device_get_uuid = match symbol::<UuidFn>(library, "cuDeviceGetUuid_v2") {
            Some(f) => Some((f, "cuDeviceGetUuid_v2")),
            None => symbol::<UuidFn>(library, "cuDeviceGetUuid").map(|f| (f, "cuDeviceGetUuid")),
        };
        if device_get_uuid.is_none() {
            names.push("cuDeviceGetUuid_v2 (and cuDeviceGetUuid)");
        }
        let (
            Some(init),
            Some(driver_get_version),
            Some(device_get_count),
            Some(device_get),
            Some(device_get_name),
            Some(device_total_mem),
            Some(device_get_attribute),
            Some(device_get_pci_bus_id),
            Some(device_get_uuid),
        ) = (
            init,
            driver_get_version,
            device_get_count,
            device_get,
            device_get_name,
            device_total_mem,
            device_get_attribute,
            device_get_pci_bus_id,
            device_get_uuid,
        )
        else {
            let any_address = init
                .map(|f| f as usize)
                .or(driver_get_version.map(|f| f as usize))
                .or(device_get.map(|f| f as usize));
            return Err(Missing {
                names,
                driver_get_version,
                any_address,
            });
        };
        Ok(Driver {
            init,
            driver_get_version,
            device_get_count,
            device_get,
            device_get_name,
            device_total_mem,
            device_get_attribute,
            device_get_pci_bus_id,
            device_get_uuid,
            device_can_access_peer: symbol(library, "cuDeviceCanAccessPeer"),
            get_error_name: symbol(library, "cuGetErrorName"),
        })
    }

    /// `cuInit failed: CUresult 226 (CUDA_ERROR_CONTAINED)`.
    fn failed(&self, call: &str, code: c_int) -> String {
        format!("{call} failed: {}", self.describe(code))
    }

    /// A code's name: stagec's table, else the driver's own, else the number.
    fn describe(&self, code: c_int) -> String {
        if codes::cu_result_name(code).is_some() {
            return codes::describe_cu_result(code, None);
        }
        let driver_name = self.get_error_name.and_then(|f| {
            let mut name: *const c_char = std::ptr::null();
            // SAFETY: the driver writes a pointer to a static string, or
            // NULL (and an error) for codes it does not know.
            let rc = unsafe { f(code, &mut name) };
            if rc != 0 || name.is_null() {
                return None;
            }
            // SAFETY: non-NULL after success: a NUL-terminated static string of the driver.
            Some(unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned())
        });
        codes::describe_cu_result(code, driver_name.as_deref())
    }

    fn driver_version(&self) -> Result<c_int, String> {
        let mut version: c_int = 0;
        announce("cuDriverGetVersion");
        // SAFETY: writes one int through a pointer to a live local.
        let rc = unsafe { (self.driver_get_version)(&mut version) };
        if rc == 0 {
            Ok(version)
        } else {
            Err(self.failed("cuDriverGetVersion", rc))
        }
    }

    /// A string the driver writes into a caller-provided buffer (name, PCI bus id).
    fn device_string(&self, f: DeviceStringFn, call: &str, dev: c_int, ordinal: c_int) -> Result<String, String> {
        const LEN: usize = 256;
        let mut buf = [0u8; LEN];
        announce(&format!("{call} (device {ordinal})"));
        // SAFETY: `buf` has LEN writable bytes; `dev` came from cuDeviceGet.
        let rc = unsafe { f(buf.as_mut_ptr().cast::<c_char>(), LEN as c_int, dev) };
        if rc != 0 {
            return Err(self.failed(call, rc));
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(LEN);
        Ok(String::from_utf8_lossy(buf.get(..end).unwrap_or_default())
            .trim()
            .to_string())
    }

    fn attribute(&self, dev: c_int, ordinal: c_int, attr: Attr, what: &str) -> Result<i32, String> {
        let mut value: c_int = 0;
        announce(&format!("cuDeviceGetAttribute({what}) (device {ordinal})"));
        // SAFETY: writes one int through a pointer to a live local; `dev`
        // came from cuDeviceGet; `attr` is a CUdevice_attribute number.
        let rc = unsafe { (self.device_get_attribute)(&mut value, attr as c_int, dev) };
        if rc == 0 {
            Ok(value)
        } else {
            Err(self.failed(&format!("cuDeviceGetAttribute({what})"), rc))
        }
    }

    fn unsigned_attribute(&self, dev: c_int, ordinal: c_int, attr: Attr, what: &str) -> Result<u32, String> {
        let value = self.attribute(dev, ordinal, attr, what)?;
        u32::try_from(value).map_err(|_| format!("cuDeviceGetAttribute({what}) returned {value}"))
    }

    /// Everything about one device; the handle is kept for the peer matrix.
    fn device(&self, ordinal: c_int) -> Result<(ProbedDevice, c_int), String> {
        let mut dev: c_int = 0;
        announce(&format!("cuDeviceGet (device {ordinal})"));
        // SAFETY: writes one int through a pointer to a live local.
        let rc = unsafe { (self.device_get)(&mut dev, ordinal) };
        if rc != 0 {
            return Err(self.failed("cuDeviceGet", rc));
        }
        let name = self.device_string(self.device_get_name, "cuDeviceGetName", dev, ordinal)?;
        let mut total: usize = 0;
        announce(&format!("cuDeviceTotalMem_v2 (device {ordinal})"));
        // SAFETY: writes one size_t through a pointer to a live local.
        let rc = unsafe { (self.device_total_mem)(&mut total, dev) };
        if rc != 0 {
            return Err(self.failed("cuDeviceTotalMem_v2", rc));
        }
        let major = self.unsigned_attribute(
            dev,
            ordinal,
            Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            "COMPUTE_CAPABILITY_MAJOR",
        )?;
        let minor = self.unsigned_attribute(
            dev,
            ordinal,
            Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            "COMPUTE_CAPABILITY_MINOR",
        )?;

        let mut device = ProbedDevice {
            ordinal: u32::try_from(ordinal).unwrap_or(0),
            name,
            uuid: String::new(),
            compute_capability: (major, minor),
            total_memory_bytes: u64::try_from(total).unwrap_or(u64::MAX),
            free_memory_bytes: None,
            multiprocessors: 0,
            pci_bus_id: String::new(),
            catalog_id: None,
            compute_mode: None,
            mig: None,
            missing: Default::default(),
        };
        let is_mig = parse::mig_name(&device.name).is_some();

        // What follows identifies the device further; a failure leaves the
        // value empty and says why.
        let (uuid_fn, uuid_call) = self.device_get_uuid;
        if is_mig && uuid_call == "cuDeviceGetUuid" {
            device.missing.insert(
                "uuid".into(),
                "the driver has no cuDeviceGetUuid_v2 (it predates CUDA 11.4), and the legacy cuDeviceGetUuid does not \
                 identify MIG slices"
                    .into(),
            );
        } else {
            let mut bytes = [0u8; 16];
            announce(&format!("{uuid_call} (device {ordinal})"));
            // SAFETY: `bytes` is a live 16-byte CUuuid; `dev` came from cuDeviceGet.
            let rc = unsafe { uuid_fn(bytes.as_mut_ptr(), dev) };
            if rc == 0 {
                device.uuid = parse::format_uuid(if is_mig { "MIG-" } else { "GPU-" }, &bytes);
            } else {
                device.missing.insert("uuid".into(), self.failed(uuid_call, rc));
            }
        }
        match self.unsigned_attribute(
            dev,
            ordinal,
            Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            "MULTIPROCESSOR_COUNT",
        ) {
            Ok(n) => device.multiprocessors = n,
            Err(e) => {
                device.missing.insert("multiprocessors".into(), e);
            }
        }
        match self.attribute(dev, ordinal, Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, "COMPUTE_MODE") {
            Ok(mode) => device.compute_mode = Some(codes::compute_mode_name(mode)),
            Err(e) => {
                device.missing.insert("compute_mode".into(), e);
            }
        }
        match self.device_string(self.device_get_pci_bus_id, "cuDeviceGetPCIBusId", dev, ordinal) {
            Ok(text) => match parse::normalize_pci_bus_id(&text) {
                Some(pci) => device.pci_bus_id = pci,
                None => match self.pci_from_attributes(dev, ordinal) {
                    Ok(pci) => device.pci_bus_id = pci,
                    Err(e) => {
                        device.missing.insert(
                            "pci_bus_id".into(),
                            format!("cuDeviceGetPCIBusId gave {text:?}, not a PCI address, and {e}"),
                        );
                    }
                },
            },
            Err(e) => {
                device.missing.insert("pci_bus_id".into(), e);
            }
        }
        device.derive();
        Ok((device, dev))
    }

    /// `domain:bus:device.0` from the PCI attributes.
    fn pci_from_attributes(&self, dev: c_int, ordinal: c_int) -> Result<String, String> {
        let domain = self.unsigned_attribute(dev, ordinal, Attr::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, "PCI_DOMAIN_ID")?;
        let bus = self.unsigned_attribute(dev, ordinal, Attr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, "PCI_BUS_ID")?;
        let device = self.unsigned_attribute(dev, ordinal, Attr::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, "PCI_DEVICE_ID")?;
        parse::normalize_pci_bus_id(&format!("{domain:x}:{bus:x}:{device:x}.0"))
            .ok_or_else(|| format!("the PCI attributes {domain}:{bus}:{device} are not a PCI address"))
    }

    fn can_access_peer(&self, f: PeerFn, a: c_int, b: c_int) -> Result<bool, String> {
        let mut ok: c_int = 0;
        // SAFETY: both handles came from cuDeviceGet; writes one int through
        // a pointer to a live local.
        let rc = unsafe { f(&mut ok, a, b) };
        if rc == 0 {
            Ok(ok != 0)
        } else {
            Err(self.failed("cuDeviceCanAccessPeer", rc))
        }
    }
}

/// Probes the host in this process. Never panics: a panic (a bug of
/// stagec's) becomes the report's reason.
pub(super) fn probe() -> ProbeReport {
    std::panic::catch_unwind(probe_driver).unwrap_or_else(|payload| {
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

/// The driver's own names for libcuda on Linux: its soname, which every
/// driver installation (and the NVIDIA container runtime) provides, then
/// the development link the CUDA toolkit's stubs folder holds.
#[cfg(target_os = "linux")]
const LIBCUDA_NAMES: &[&str] = &["libcuda.so.1", "libcuda.so"];
#[cfg(not(target_os = "linux"))]
const LIBCUDA_NAMES: &[&str] = &[];

/// Opens libcuda, kept loaded for the life of the process: the driver's
/// own names first (one `dlopen` each, through the loader's usual search:
/// `LD_LIBRARY_PATH`, its cache, the default folders), then cudarc's search
/// of about 35 other names (`libcuda64_12.so`, `libcuda.so.12`,
/// `libnvcuda.so`, …) through the same loader search. That fallback runs
/// only where a driver library can exist, on a host with the NVIDIA kernel
/// module loaded (`kernel_module`); elsewhere no name can give a driver
/// that works, and a host without one answers after two `dlopen`s.
fn open_libcuda(kernel_module: bool) -> Option<&'static libloading::Library> {
    static OWN: std::sync::OnceLock<libloading::Library> = std::sync::OnceLock::new();
    if let Some(library) = OWN.get() {
        return Some(library);
    }
    for &name in LIBCUDA_NAMES {
        // SAFETY: loading libcuda runs only its own initialisers; no CUDA
        // function is called here. The probe runs in its own process, so a
        // library that crashes on load ends that process, not stagec.
        if let Ok(library) = unsafe { libloading::Library::new(name) } {
            return Some(OWN.get_or_init(|| library));
        }
    }
    if !kernel_module && !LIBCUDA_NAMES.is_empty() {
        return None;
    }
    // SAFETY: `is_culib_present` only opens the candidate library names and
    // closes them again; it calls no CUDA function. `culib` panics when no
    // candidate loads, so it is called only after this check; it opens the
    // same candidate and keeps it loaded for the life of the process.
    unsafe { sys::is_culib_present().then(|| sys::culib()) }
}

fn probe_driver() -> ProbeReport {
    let kernel = host::kernel_driver(Path::new("/"));
    let mut report = ProbeReport {
        environment: host::process_cuda_environment(),
        kernel_driver: kernel.as_ref().ok().cloned(),
        ..ProbeReport::default()
    };
    announce("dlopen(libcuda)");
    let Some(library) = open_libcuda(kernel.is_ok()) else {
        report.reason = Some(match &report.kernel_driver {
            Some(k) => format!(
                "{NO_DRIVER_REASON}, although the NVIDIA kernel module {} is loaded (in a container: was it started \
                 with the NVIDIA container runtime, which mounts the driver's libraries?)",
                k.version
            ),
            None => NO_DRIVER_REASON.to_string(),
        });
        return report;
    };
    let mut problems: Vec<String> = Vec::new();
    let driver = match Driver::resolve(library) {
        Ok(driver) => driver,
        Err(missing) => {
            report.libcuda = missing.any_address.and_then(libcuda_path);
            let mut reason = format!("driver too old: missing {}", missing.names.join(", "));
            if let Some(f) = missing.driver_get_version {
                let mut version: c_int = 0;
                announce("cuDriverGetVersion");
                // SAFETY: writes one int through a pointer to a live local.
                if unsafe { f(&mut version) } == 0 {
                    let info = DriverInfo::from_version(version);
                    reason.push_str(&format!(" (the loaded libcuda supports CUDA {})", info.cuda_version));
                    report.driver = Some(info);
                }
            }
            problems.push(reason);
            return finish(report, kernel, problems);
        }
    };
    report.libcuda = libcuda_path(driver.init as usize);
    match driver.driver_version() {
        Ok(version) => report.driver = Some(DriverInfo::from_version(version)),
        Err(e) => problems.push(e),
    }
    if let Some(path) = report.libcuda.as_deref().filter(|p| p.contains("/compat/")) {
        report.notes.push(format!(
            "{path} is a forward-compatibility libcuda: cuDriverGetVersion gives its CUDA level, not the kernel \
             driver's"
        ));
    }

    announce("cuInit");
    // SAFETY: cuInit(0), the documented first call.
    let rc = unsafe { (driver.init)(0) };
    if rc != 0 {
        problems.push(init_failure(&driver, rc, &report));
        return finish(report, kernel, problems);
    }
    let mut count: c_int = 0;
    announce("cuDeviceGetCount");
    // SAFETY: writes one int through a pointer to a live local.
    let rc = unsafe { (driver.device_get_count)(&mut count) };
    if rc != 0 {
        problems.push(driver.failed("cuDeviceGetCount", rc));
        return finish(report, kernel, problems);
    }
    if count <= 0 {
        let mut reason = format!("the CUDA driver reports no devices (cuDeviceGetCount = {count})");
        if let Some(v) = report.environment.get("CUDA_VISIBLE_DEVICES") {
            reason.push_str(&format!(
                "; CUDA_VISIBLE_DEVICES={v:?} chooses which devices CUDA shows"
            ));
        }
        problems.push(reason);
        return finish(report, kernel, problems);
    }
    if count > MAX_DEVICES {
        problems.push(format!(
            "cuDeviceGetCount = {count}; only the first {MAX_DEVICES} devices were probed"
        ));
    }

    let mut handles = Vec::new();
    for ordinal in 0..count.min(MAX_DEVICES) {
        match driver.device(ordinal) {
            Ok((device, handle)) => {
                report.devices.push(device);
                handles.push(handle);
            }
            Err(e) => problems.push(format!("device {ordinal} left out: {e}")),
        }
    }
    let mut notes = Vec::new();
    report.peer_access = peer_matrix(&driver, &report.devices, &handles, &mut problems, &mut notes);
    report.notes.extend(notes);
    notes_on_devices(&mut report, driver.device_get_uuid.1);
    finish(report, kernel, problems)
}

/// The peer-access matrix (empty without `cuDeviceCanAccessPeer`).
fn peer_matrix(
    driver: &Driver,
    devices: &[ProbedDevice],
    handles: &[c_int],
    problems: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Vec<Vec<bool>> {
    let Some(f) = driver.device_can_access_peer else {
        if !devices.is_empty() {
            notes.push("the driver has no cuDeviceCanAccessPeer: peer access is unknown".to_string());
        }
        return Vec::new();
    };
    let ordinal_of = |i: usize| devices.get(i).map_or(0, |d| d.ordinal);
    let mut matrix = Vec::with_capacity(handles.len());
    for (i, &a) in handles.iter().enumerate() {
        let mut row = Vec::with_capacity(handles.len());
        for (j, &b) in handles.iter().enumerate() {
            if i == j {
                row.push(false);
                continue;
            }
            announce(&format!(
                "cuDeviceCanAccessPeer ({} → {})",
                ordinal_of(i),
                ordinal_of(j)
            ));
            match driver.can_access_peer(f, a, b) {
                Ok(ok) => row.push(ok),
                Err(e) => {
                    row.push(false);
                    problems.push(format!("peer access {} → {}: {e}", ordinal_of(i), ordinal_of(j)));
                }
            }
        }
        matrix.push(row);
    }
    matrix
}

/// Notes on MIG slices, compute modes and the legacy UUID call.
fn notes_on_devices(report: &mut ProbeReport, uuid_call: &str) {
    for d in &report.devices {
        if let Some(mig) = &d.mig {
            report.notes.push(format!(
                "device {} is a MIG slice ({} of {}), not a whole GPU; CUDA shows a process one MIG slice, so any \
                 other slices and GPUs in MIG mode are hidden from this probe (`nvidia-smi -L` lists them)",
                d.ordinal, mig.profile, mig.parent_name
            ));
        }
        match d.compute_mode.as_deref() {
            Some("exclusive_process") | Some("exclusive_thread") => report.notes.push(format!(
                "device {} is in the {} compute mode: one process at a time can use it",
                d.ordinal,
                d.compute_mode.as_deref().unwrap_or_default()
            )),
            Some("prohibited") => report.notes.push(format!(
                "device {} is in the prohibited compute mode: no process can use it, and it is not counted as supply",
                d.ordinal
            )),
            _ => {}
        }
    }
    if uuid_call == "cuDeviceGetUuid" && !report.devices.is_empty() {
        report.notes.push(
            "the driver has no cuDeviceGetUuid_v2 (it predates CUDA 11.4): UUIDs come from the legacy cuDeviceGetUuid"
                .to_string(),
        );
    }
}

/// Why an exclusive-mode device's free memory stays unknown when NVML
/// cannot give it: the only other source is a CUDA context, which the
/// driver refuses while another process holds the device, and which,
/// where it is granted, holds the device against the training job itself.
fn exclusive_free_memory_note(d: &ProbedDevice) -> Option<String> {
    let mode = d.compute_mode.as_deref()?;
    let holder = match mode {
        "exclusive_process" => "another process",
        "exclusive_thread" => "another thread",
        _ => return None,
    };
    Some(format!(
        "free memory of device {} is unknown: NVML could not give it (free_memory_bytes says why), and the device \
         is in the {mode} compute mode, where the other way \
         to read it, a CUDA context (cuMemGetInfo), is refused while {holder} holds the device \
         (CUDA_ERROR_DEVICE_UNAVAILABLE) and, when granted, would hold it against the training job, so the probe \
         creates none (on the host, `nvidia-smi --query-gpu=memory.free --format=csv` reads it through NVML)",
        d.ordinal
    ))
}

/// The reason for a failed `cuInit`, with what to check for the codes that
/// have a usual cause.
fn init_failure(driver: &Driver, rc: c_int, report: &ProbeReport) -> String {
    let failed = driver.failed("cuInit", rc);
    let libcuda = report.libcuda.as_deref().unwrap_or("libcuda");
    let hint =
        match rc {
            NO_DEVICE => {
                let mut hint = "no CUDA device is visible; check `nvidia-smi`".to_string();
                if let Some(v) = report.environment.get("CUDA_VISIBLE_DEVICES") {
                    hint.push_str(&format!(" and CUDA_VISIBLE_DEVICES={v:?}"));
                }
                Some(hint)
            }
            34 => Some(format!(
            "{libcuda} is the CUDA toolkit's stub library, not the driver's: take the toolkit's `stubs` folder off \
             LD_LIBRARY_PATH"
        )),
            803 => Some(format!(
            "{libcuda} and the kernel driver ({}) do not match: the driver was updated without reloading the kernel \
             module (reboot), or another libcuda is on LD_LIBRARY_PATH",
            report.kernel_driver.as_ref().map_or("version unknown", |k| k.version.as_str())
        )),
            804 => Some(format!(
            "{libcuda} is a forward-compatibility library, which works only on data-center GPUs: use the driver's own \
             libcuda"
        )),
            _ => None,
        };
    match hint {
        Some(hint) => format!("{failed}: {hint}"),
        None => failed,
    }
}

/// The path of the mapped file holding `address` (a libcuda function).
fn libcuda_path(address: usize) -> Option<String> {
    let maps = crate::fsutil::read_limited(Path::new("/proc/self/maps"), 16 * 1024 * 1024).ok()?;
    parse::mapped_file(&String::from_utf8_lossy(&maps), address)
}

/// Sets the reason from the problems, and asks NVML for what CUDA cannot
/// tell without a context: each device's free memory (by UUID) and, when
/// the kernel module's files did not give it, the driver's release. A
/// value NVML cannot give is left empty with the reason.
fn finish(mut report: ProbeReport, kernel: Result<KernelDriver, String>, problems: Vec<String>) -> ProbeReport {
    if !problems.is_empty() {
        report.reason = Some(problems.join("; "));
    }
    if kernel.is_ok() && report.devices.is_empty() {
        return report;
    }
    let nvml = Nvml::open();
    let mut exclusive_notes = Vec::new();
    for d in &mut report.devices {
        let free = match &nvml {
            Err(e) => Err(e.clone()),
            Ok(_) if d.uuid.is_empty() => Err("without a UUID the device cannot be found in NVML".to_string()),
            Ok(nvml) => nvml.free_memory(&d.uuid),
        };
        match free {
            Ok(free) => d.free_memory_bytes = Some(free),
            Err(why) => {
                exclusive_notes.extend(exclusive_free_memory_note(d));
                d.missing.insert("free_memory_bytes".into(), why);
            }
        }
    }
    report.notes.extend(exclusive_notes);
    if let Err(why) = kernel {
        match nvml.as_ref().map_err(String::clone).and_then(Nvml::driver_version) {
            Ok(version) => {
                report.kernel_driver = Some(KernelDriver {
                    flavour: None,
                    source: "nvmlSystemGetDriverVersion".to_string(),
                    version,
                })
            }
            Err(nvml) => report
                .notes
                .push(format!("the kernel driver's release is unknown: {why}; {nvml}")),
        }
    }
    report
}
