//! NVML (`libnvidia-ml`), loaded at run time like `libcuda`, for what CUDA
//! can only tell through a context: free memory (`nvmlDeviceGetMemoryInfo`
//! needs none, so the probe never allocates on, or is refused by, a busy or
//! exclusive-mode GPU) and, when the kernel module's files are not
//! readable, the driver's release. Devices are found by UUID, never by
//! index: CUDA's order (`CUDA_DEVICE_ORDER`, `CUDA_VISIBLE_DEVICES`) does
//! not apply to NVML. Every function is typed with a plain `c_int` result.

use std::ffi::{c_char, c_int, c_uint, c_void, CString};

use super::codes::describe_nvml_return;
use super::isolate::announce;
use super::parse;

type InitFn = unsafe extern "C" fn() -> c_int;
type ShutdownFn = unsafe extern "C" fn() -> c_int;
type HandleByUuidFn = unsafe extern "C" fn(*const c_char, *mut *mut c_void) -> c_int;
type MemoryInfoFn = unsafe extern "C" fn(*mut c_void, *mut Memory) -> c_int;
type DriverVersionFn = unsafe extern "C" fn(*mut c_char, c_uint) -> c_int;

/// `nvmlMemory_t` (only `free` is read; the others give the layout).
#[repr(C)]
#[derive(Default)]
struct Memory {
    #[allow(dead_code)]
    total: u64,
    free: u64,
    #[allow(dead_code)]
    used: u64,
}

/// The library's soname, then the development link.
const NAMES: [&str; 2] = ["libnvidia-ml.so.1", "libnvidia-ml.so"];

/// An initialised NVML; shut down and unloaded when dropped.
pub(super) struct Nvml {
    shutdown: ShutdownFn,
    handle_by_uuid: HandleByUuidFn,
    memory_info: MemoryInfoFn,
    driver_version: Option<DriverVersionFn>,
    /// Keeps the functions above loaded; dropped after `shutdown` ran.
    _library: libloading::Library,
}

fn symbol<T: Copy>(library: &libloading::Library, name: &str) -> Option<T> {
    // SAFETY: every `T` used with this is the C signature of the NVML
    // function `name` (nvml.h) with integer results; the pointer is only
    // called while `library` stays loaded (it lives in the same `Nvml`).
    unsafe { library.get::<T>(name) }.ok().map(|f| *f)
}

impl Nvml {
    /// Loads and initialises NVML. `Err` says why it is not available.
    pub(super) fn open() -> Result<Nvml, String> {
        announce("dlopen(libnvidia-ml)");
        let mut errors = Vec::new();
        let mut library = None;
        for name in NAMES {
            // SAFETY: loading runs the library's initialisers; NVML's do
            // not call back into this process. The probe runs in its own
            // process, so a misbehaving library ends only the probe.
            match unsafe { libloading::Library::new(name) } {
                Ok(l) => {
                    library = Some(l);
                    break;
                }
                Err(e) => errors.push(error_chain(&e)),
            }
        }
        let Some(library) = library else {
            return Err(format!(
                "NVML could not be loaded: {}",
                errors.first().map_or("no candidate", String::as_str)
            ));
        };
        let init = symbol::<InitFn>(&library, "nvmlInit_v2").or_else(|| symbol(&library, "nvmlInit"));
        let shutdown = symbol::<ShutdownFn>(&library, "nvmlShutdown");
        let handle_by_uuid = symbol::<HandleByUuidFn>(&library, "nvmlDeviceGetHandleByUUID");
        let memory_info = symbol::<MemoryInfoFn>(&library, "nvmlDeviceGetMemoryInfo");
        let driver_version = symbol::<DriverVersionFn>(&library, "nvmlSystemGetDriverVersion");
        let (Some(init), Some(shutdown), Some(handle_by_uuid), Some(memory_info)) =
            (init, shutdown, handle_by_uuid, memory_info)
        else {
            let missing: Vec<&str> = [
                ("nvmlInit_v2", init.is_none()),
                ("nvmlShutdown", shutdown.is_none()),
                ("nvmlDeviceGetHandleByUUID", handle_by_uuid.is_none()),
                ("nvmlDeviceGetMemoryInfo", memory_info.is_none()),
            ]
            .into_iter()
            .filter_map(|(name, absent)| absent.then_some(name))
            .collect();
            return Err(format!("NVML is too old: missing {}", missing.join(", ")));
        };
        announce("nvmlInit_v2");
        // SAFETY: `init` is nvmlInit_v2 (or nvmlInit), taking nothing.
        let rc = unsafe { init() };
        if rc != 0 {
            return Err(format!("NVML: nvmlInit_v2 failed: {}", describe_nvml_return(rc)));
        }
        Ok(Nvml {
            shutdown,
            handle_by_uuid,
            memory_info,
            driver_version,
            _library: library,
        })
    }

    /// Free memory in bytes of the device (or MIG slice) with this UUID
    /// (`GPU-…`, `MIG-…`).
    pub(super) fn free_memory(&self, uuid: &str) -> Result<u64, String> {
        let c_uuid = CString::new(uuid).map_err(|_| format!("NVML: the UUID {uuid:?} holds a NUL byte"))?;
        let mut handle: *mut c_void = std::ptr::null_mut();
        announce("nvmlDeviceGetHandleByUUID");
        // SAFETY: a NUL-terminated string that outlives the call, and a
        // pointer to a live local for the handle.
        let rc = unsafe { (self.handle_by_uuid)(c_uuid.as_ptr(), &mut handle) };
        if rc != 0 {
            return Err(format!(
                "NVML: nvmlDeviceGetHandleByUUID({uuid}) failed: {}",
                describe_nvml_return(rc)
            ));
        }
        let mut memory = Memory::default();
        announce("nvmlDeviceGetMemoryInfo");
        // SAFETY: `handle` came from NVML for this session; `memory` is a
        // live `nvmlMemory_t`.
        let rc = unsafe { (self.memory_info)(handle, &mut memory) };
        if rc != 0 {
            return Err(format!(
                "NVML: nvmlDeviceGetMemoryInfo({uuid}) failed: {}",
                describe_nvml_return(rc)
            ));
        }
        Ok(memory.free)
    }

    /// `nvmlSystemGetDriverVersion`: the driver's release (`550.54.15`).
    pub(super) fn driver_version(&self) -> Result<String, String> {
        let Some(f) = self.driver_version else {
            return Err("NVML has no nvmlSystemGetDriverVersion".to_string());
        };
        const LEN: usize = 96;
        let mut buf = [0u8; LEN];
        announce("nvmlSystemGetDriverVersion");
        // SAFETY: `buf` has LEN writable bytes.
        let rc = unsafe { f(buf.as_mut_ptr().cast::<c_char>(), LEN as c_uint) };
        if rc != 0 {
            return Err(format!(
                "NVML: nvmlSystemGetDriverVersion failed: {}",
                describe_nvml_return(rc)
            ));
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(LEN);
        let text = String::from_utf8_lossy(buf.get(..end).unwrap_or_default())
            .trim()
            .to_string();
        if parse::is_release(&text) {
            Ok(text)
        } else {
            Err(format!("NVML gave {text:?} for the driver version"))
        }
    }
}

/// An error and its sources: libloading's `dlopen failed` carries the
/// loader's words (`libnvidia-ml.so.1: cannot open shared object file…`)
/// in its source.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

impl Drop for Nvml {
    fn drop(&mut self) {
        announce("nvmlShutdown");
        // SAFETY: balances the successful init of `open`.
        let _ = unsafe { (self.shutdown)() };
    }
}
