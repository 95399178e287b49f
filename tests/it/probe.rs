//! `stagec probe` (and `--probe`) against a stand-in NVIDIA driver.
//!
//! `tests/fakecuda/build.sh` builds `libcuda.so.1` and `libnvidia-ml.so.1`
//! from `fakecuda.c` with the system C compiler; each test runs the real
//! `stagec` binary with `LD_LIBRARY_PATH` pointing at them and chooses what
//! the "driver" answers through `FAKECUDA_*` variables. The probe's code
//! paths run for real (loading, symbol lookup, the child process, the
//! timeout, NVML); only the hardware is simulated. Every run is checked
//! for what must always hold: no death by signal, no panic, an exit status
//! that matches the report (1 exactly when it lists no device, with a
//! reason), and no CUDA context created (the fake logs every call).
//!
//! Without a C compiler these tests skip with a notice, unless
//! `STAGEC_REQUIRE_FAKECUDA` is set (CI sets it), which makes that a failure.
#![cfg(target_os = "linux")]

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use stagec::hardware::catalog;
use stagec::hardware::probe::{self, codes};
use stagec::source::FileId;

/// Compute modes: read, exclusive and prohibited devices, free memory without a context.
mod compute_modes;

/// The stand-in libraries, one folder per build variant.
struct Fakes {
    /// Everything exported.
    full: PathBuf,
    /// Without `cuDeviceTotalMem_v2`: a driver too old for the probe.
    no_total_mem: PathBuf,
    /// Without `cuDeviceGetUuid_v2`, `cuDeviceCanAccessPeer` and `cuGetErrorName`.
    legacy: PathBuf,
    /// No NVML library.
    no_nvml: PathBuf,
    /// An empty folder, for runs that must not find the stand-in.
    empty: PathBuf,
    root: PathBuf,
}

fn fakes() -> Option<&'static Fakes> {
    static FAKES: OnceLock<Option<Fakes>> = OnceLock::new();
    FAKES.get_or_init(build).as_ref()
}

/// A C compiler: `$CC`, else `cc`, else `gcc`.
fn c_compiler() -> Option<String> {
    let candidates = std::env::var("CC")
        .ok()
        .into_iter()
        .chain(["cc".to_string(), "gcc".to_string()]);
    candidates.into_iter().find(|cc| {
        Command::new(cc)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn build() -> Option<Fakes> {
    let bash = Command::new("bash")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let Some(cc) = c_compiler().filter(|_| bash) else {
        return crate::common::tools::skip(
            "STAGEC_REQUIRE_FAKECUDA",
            "the stand-in driver tests",
            "no C compiler (CC, cc, gcc) or bash to build the stand-in driver",
        );
    };
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fakecuda");
    let _ = std::fs::create_dir_all(&base);
    // Folders of earlier runs whose process is gone.
    for entry in std::fs::read_dir(&base).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name
            .parse::<u32>()
            .is_ok_and(|pid| !Path::new(&format!("/proc/{pid}")).exists())
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let root = base.join(std::process::id().to_string());
    let _ = std::fs::remove_dir_all(&root);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakecuda/build.sh");
    let variant = |name: &str, args: &[&str]| -> PathBuf {
        let dir = root.join(name);
        let out = Command::new("bash")
            .arg(&script)
            .arg(&dir)
            .args(args)
            .env("CC", &cc)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "building the stand-in driver ({name}) failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    };
    let fakes = Fakes {
        full: variant("full", &[]),
        no_total_mem: variant("no-total-mem", &["--omit", "cuDeviceTotalMem_v2"]),
        legacy: variant(
            "legacy",
            &[
                "--omit",
                "cuDeviceGetUuid_v2",
                "--omit",
                "cuDeviceCanAccessPeer",
                "--omit",
                "cuGetErrorName",
            ],
        ),
        no_nvml: variant("no-nvml", &["--no-nvml"]),
        empty: root.join("empty"),
        root,
    };
    let _ = std::fs::create_dir_all(&fakes.empty);
    Some(fakes)
}

/// One run of `stagec`, checked for what must always hold.
struct Run {
    out: Output,
    /// Every call the stand-in saw, one per line.
    log: String,
}

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout()))
    }

    fn code(&self) -> Option<i32> {
        self.out.status.code()
    }
}

static RUNS: AtomicUsize = AtomicUsize::new(0);

/// Runs `stagec ARGS` with the stand-in in `lib`, the caller's variables
/// and a 30 s probe limit (unless the caller sets one).
fn stagec(fakes: &Fakes, lib: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let log = fakes
        .root
        .join(format!("calls-{}.log", RUNS.fetch_add(1, Ordering::Relaxed)));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagec"));
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("LD_LIBRARY_PATH", lib)
        .env("FAKECUDA_LOG", &log)
        .env("STAGEC_PROBE_TIMEOUT", "30");
    for name in [
        "CUDA_VISIBLE_DEVICES",
        "CUDA_DEVICE_ORDER",
        "FAKECUDA_SCENARIO",
        "FAKECUDA_CONFIG",
        "FAKECUDA_FAIL",
        "FAKECUDA_DRIVER_VERSION",
    ] {
        cmd.env_remove(name);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run stagec");
    let run = Run {
        out,
        log: std::fs::read_to_string(&log).unwrap_or_default(),
    };
    let stderr = String::from_utf8_lossy(&run.out.stderr);
    assert_eq!(
        run.out.status.signal(),
        None,
        "stagec {args:?} {env:?} died of a signal; stderr:\n{stderr}"
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Missing symbol"),
        "stagec {args:?} {env:?}:\n{stderr}"
    );
    for context_call in [
        "cuDevicePrimaryCtxRetain",
        "cuCtxSetCurrent",
        "cuCtxCreate",
        "cuMemGetInfo",
    ] {
        assert!(
            !run.log.contains(context_call),
            "stagec {args:?} {env:?} called {context_call}:\n{}",
            run.log
        );
    }
    run
}

/// `stagec probe --format json` with the stand-in: the report, checked
/// against the exit status.
fn probe_json(fakes: &Fakes, lib: &Path, env: &[(&str, &str)]) -> (Run, Value) {
    let run = stagec(fakes, lib, &["probe", "--format", "json"], env);
    let doc = run.json();
    let devices = doc["devices"].as_array().map_or(0, Vec::len);
    if devices == 0 {
        assert_eq!(run.code(), Some(1), "no device, so exit 1: {doc:#}");
        assert!(
            doc["reason"].as_str().is_some_and(|r| !r.is_empty()),
            "no device without a reason: {doc:#}"
        );
    } else {
        assert_eq!(run.code(), Some(0), "{devices} devices, so exit 0: {doc:#}");
    }
    // What the parent read is a well-formed recording.
    assert!(probe::load_recorded(&run.stdout()).is_ok(), "{doc:#}");
    (run, doc)
}

fn reason(doc: &Value) -> &str {
    doc["reason"].as_str().unwrap_or_default()
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v["devices"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| d[key].as_str().unwrap_or("<none>").to_string())
        .collect()
}

/// Whether this host has an NVIDIA kernel module whose version files the
/// probe reads before asking NVML.
fn host_kernel_module() -> bool {
    Path::new("/sys/module/nvidia/version").exists() || Path::new("/proc/driver/nvidia/version").exists()
}

/// The kernel driver the report must name: the host's module when it has
/// one, else the stand-in NVML's `expected` release.
fn assert_kernel_driver(doc: &Value, expected: &str) {
    let k = &doc["kernel_driver"];
    if host_kernel_module() {
        assert!(
            k["source"]
                .as_str()
                .is_some_and(|s| s.starts_with("/sys/") || s.starts_with("/proc/")),
            "{doc:#}"
        );
    } else {
        assert_eq!(
            k,
            &json!({"flavour": null, "source": "nvmlSystemGetDriverVersion", "version": expected}),
            "{doc:#}"
        );
    }
}

const GIB: u64 = 1 << 30;
const H100_BYTES: u64 = 85_520_809_984;

#[test]
fn two_h100s_are_read_whole_without_a_context() {
    let Some(f) = fakes() else { return };
    let (run, doc) = probe_json(f, &f.full, &[]);
    assert_eq!(strings(&doc, "name"), ["NVIDIA H100 80GB HBM3"; 2]);
    assert_eq!(
        strings(&doc, "uuid"),
        [
            "GPU-2b7c6a4e-93d1-4f0a-b5c8-6e1d0f9a3b27",
            "GPU-9e4a1c7b-25f3-4d8e-a06b-3c7f1e2d5a90"
        ]
    );
    // CUDA writes `0000:2A:00.0`; the report has one spelling.
    assert_eq!(strings(&doc, "pci_bus_id"), ["0000:18:00.0", "0000:2a:00.0"]);
    assert_eq!(strings(&doc, "catalog_id"), ["h100-sxm5-80gb"; 2]);
    assert_eq!(strings(&doc, "compute_mode"), ["default"; 2]);
    for d in doc["devices"].as_array().into_iter().flatten() {
        assert_eq!(d["compute_capability"], json!([9, 0]));
        assert_eq!(d["total_memory_bytes"], json!(H100_BYTES));
        assert_eq!(d["multiprocessors"], json!(132));
        // From NVML, by UUID: the stand-in's free memory is 1 GiB below the total.
        assert_eq!(d["free_memory_bytes"], json!(H100_BYTES - GIB));
        assert_eq!(d["missing"], json!({}));
        assert_eq!(d["mig"], Value::Null);
    }
    assert_eq!(doc["peer_access"], json!([[false, true], [true, false]]));
    assert_eq!(
        doc["driver"],
        json!({"cuda_driver_version": 12040, "cuda_version": "12.4"})
    );
    assert_kernel_driver(&doc, "550.54.15");
    let libcuda = doc["libcuda"].as_str().unwrap_or_default();
    assert!(
        libcuda.starts_with(&f.full.to_string_lossy().into_owned()) && libcuda.contains("libcuda.so"),
        "{libcuda}"
    );
    assert_eq!(doc["environment"], json!({}));
    assert_eq!(doc["reason"], Value::Null);
    // Every device was asked for, and its free memory came from NVML.
    for call in [
        "cuInit",
        "cuDeviceGetUuid_v2 1",
        "nvmlDeviceGetHandleByUUID",
        "nvmlDeviceGetMemoryInfo 1",
    ] {
        assert!(run.log.contains(call), "{call} missing from\n{}", run.log);
    }

    let human = stagec(f, &f.full, &["probe"], &[]);
    assert_eq!(human.code(), Some(0));
    let text = human.stdout();
    assert!(text.contains("2 CUDA devices:"), "{text}");
    assert!(
        text.contains("CUDA driver: supports CUDA 12.4 (cuDriverGetVersion = 12040)"),
        "{text}"
    );
    assert!(text.contains(&format!("libcuda: {libcuda}")), "{text}");
}

#[test]
fn mixed_gpus_resolve_to_their_catalog_entries() {
    let Some(f) = fakes() else { return };
    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", "mixed")]);
    assert_eq!(strings(&doc, "catalog_id"), ["a100-sxm4-40gb", "h100-sxm5-80gb"]);
    assert_eq!(doc["peer_access"], json!([[false, false], [false, false]]));
}

#[test]
fn a_mig_slice_is_a_slice() {
    let Some(f) = fakes() else { return };
    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", "mig")]);
    let d = &doc["devices"][0];
    assert_eq!(d["name"], "NVIDIA H100 80GB HBM3 MIG 1g.10gb");
    // cuDeviceGetUuid_v2: the slice's own UUID, written as nvidia-smi does.
    assert_eq!(d["uuid"], "MIG-8f2b6c1d-3e4a-5b6c-9d7e-0a1b2c3d4e5f");
    assert_eq!(
        d["mig"],
        json!({"compute_slices": 1, "memory_gb": 10, "parent_name": "NVIDIA H100 80GB HBM3", "profile": "1g.10gb"})
    );
    assert_eq!(d["catalog_id"], "h100-sxm5-80gb");
    assert_eq!(d["free_memory_bytes"], json!(10_468_982_784u64 - GIB));
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("device 0 is a MIG slice (1g.10gb of NVIDIA H100 80GB HBM3), not a whole GPU")
            && notes.contains("hidden from this probe"),
        "{notes}"
    );
    // As supply: a 1g.10gb slice, never an H100.
    let report = probe::load_recorded(&doc.to_string()).expect("report");
    let inv = report.to_inventory_in(FileId(0));
    let gpus = &inv.nodes[0].gpus;
    assert_eq!(gpus.len(), 1);
    assert_eq!((gpus[0].mig.as_deref(), gpus[0].count), (Some("1g.10gb"), 1));
    for (requested, served) in [("h100", false), ("h100-80g", false), ("h100-mig-1g.10gb", true)] {
        assert_eq!(
            catalog::serves(requested, &gpus[0].offered_name()),
            served,
            "{requested}"
        );
    }
}

/// `stage_1_gpus: ["h100-80g"]` with 2 data-parallel replicas: served by two
/// whole H100s, never by two MIG slices of them.
#[test]
fn mig_slices_do_not_serve_whole_gpu_stages() {
    let Some(f) = fakes() else { return };
    let stage_1_short = |run: &Run| {
        run.json()["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|d| d["code"] == "P304" && d["message"].as_str().is_some_and(|m| m.starts_with("stage 1 ")))
    };
    let args = [
        "check",
        "--format",
        "json",
        "examples/hpp-seed-fixed/const.yaml",
        "--probe",
    ];
    let whole = stagec(f, &f.full, &args, &[("FAKECUDA_SCENARIO", "h100x2")]);
    assert!(!stage_1_short(&whole), "{}", whole.stdout());
    let config = f.root.join("two-slices.cfg");
    std::fs::write(
        &config,
        "device name=NVIDIA H100 80GB HBM3 MIG 3g.40gb;cc=9.0;mem=42314694656;sms=60;pci=0000:18:00.0;\
         uuid=MIG-11111111-2222-3333-4444-555555555555\n\
         device name=NVIDIA H100 80GB HBM3 MIG 3g.40gb;cc=9.0;mem=42314694656;sms=60;pci=0000:18:00.0;\
         uuid=MIG-66666666-7777-8888-9999-aaaaaaaaaaaa\n",
    )
    .expect("config");
    let slices = stagec(
        f,
        &f.full,
        &args,
        &[("FAKECUDA_CONFIG", config.to_string_lossy().as_ref())],
    );
    assert!(stage_1_short(&slices), "{}", slices.stdout());
    assert_eq!(slices.code(), Some(1));
}

#[test]
fn gh200_and_old_drivers() {
    let Some(f) = fakes() else { return };
    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", "gh200")]);
    assert_eq!(strings(&doc, "name"), ["NVIDIA GH200 480GB"]);
    assert_eq!(strings(&doc, "catalog_id"), ["gh200-96gb"]);
    assert_eq!(strings(&doc, "pci_bus_id"), ["0009:01:00.0"]);
    assert_eq!(doc["driver"]["cuda_version"], "12.8");
    assert_kernel_driver(&doc, "570.124.06");

    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", "old_driver")]);
    assert_eq!(strings(&doc, "catalog_id"), ["v100-sxm2-32gb"]);
    assert_eq!(
        doc["driver"],
        json!({"cuda_driver_version": 11040, "cuda_version": "11.4"})
    );
    assert_kernel_driver(&doc, "470.82.01");

    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_DRIVER_VERSION", "13000")]);
    assert_eq!(doc["driver"]["cuda_version"], "13.0");
}

#[test]
fn without_a_gpu_it_fails_with_the_probes_reason() {
    let Some(f) = fakes() else { return };
    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", "no_device")]);
    assert_eq!(
        reason(&doc),
        "cuInit failed: CUresult 100 (CUDA_ERROR_NO_DEVICE): no CUDA device is visible; check `nvidia-smi`"
    );
    // What was learnt before cuInit failed is kept.
    assert_eq!(doc["driver"]["cuda_driver_version"], 12040);
    assert!(doc["libcuda"].is_string(), "{doc:#}");
    assert_kernel_driver(&doc, "550.54.15");

    let (_, doc) = probe_json(
        f,
        &f.full,
        &[("FAKECUDA_SCENARIO", "no_device"), ("CUDA_VISIBLE_DEVICES", "")],
    );
    assert!(
        reason(&doc).ends_with("check `nvidia-smi` and CUDA_VISIBLE_DEVICES=\"\""),
        "{doc:#}"
    );
    assert_eq!(doc["environment"], json!({"CUDA_VISIBLE_DEVICES": ""}));

    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", "zero_devices")]);
    assert_eq!(
        reason(&doc),
        "the CUDA driver reports no devices (cuDeviceGetCount = 0)"
    );

    // `check --probe` says why beside the shortfalls.
    let run = stagec(
        f,
        &f.full,
        &[
            "check",
            "--format",
            "json",
            "examples/hpp-seed-fixed/const.yaml",
            "--probe",
        ],
        &[("FAKECUDA_SCENARIO", "no_device")],
    );
    assert_eq!(run.code(), Some(1));
    let p307: Vec<String> = run.json()["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == "P307")
        .filter_map(|d| d["message"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        p307,
        [
            "the local GPU probe found no GPU: cuInit failed: CUresult 100 (CUDA_ERROR_NO_DEVICE): no CUDA device is \
          visible; check `nvidia-smi`"
        ]
    );
}

/// Codes beyond what the compiled bindings know (CUDA 12.8's 226
/// "contained", 36, 47, 227, 721, numbers nobody defined) killed the old
/// probe with SIGILL; every one must end in a reason naming it.
#[test]
fn no_cuinit_result_kills_the_probe() {
    let Some(f) = fakes() else { return };
    for (code, name) in [
        (36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"),
        (47, "CUDA_ERROR_MULTICAST_RESOURCE_FULL"),
        (226, "CUDA_ERROR_CONTAINED"),
        (227, "CUDA_ERROR_INSUFFICIENT_LOADER_VERSION"),
        (721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"),
        (999, "CUDA_ERROR_UNKNOWN"),
        (3, "CUDA_ERROR_NOT_INITIALIZED"),
    ] {
        let scenario = format!("h100x2,init_error:{code}");
        let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", &scenario)]);
        assert_eq!(reason(&doc), format!("cuInit failed: CUresult {code} ({name})"));
    }
    for code in [9, 35, 37, 228, 722, 5000, -1, i32::MAX, i32::MIN] {
        let scenario = format!("init_error:{code}");
        let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", &scenario)]);
        assert_eq!(
            reason(&doc),
            format!("cuInit failed: CUresult {code} (unknown to stagec)")
        );
    }
    // The driver's own hints for the codes with a usual cause.
    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", "init_error:34")]);
    assert!(
        reason(&doc).starts_with("cuInit failed: CUresult 34 (CUDA_ERROR_STUB_LIBRARY): ")
            && reason(&doc).contains("is the CUDA toolkit's stub library"),
        "{doc:#}"
    );
    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", "init_error:804")]);
    assert!(reason(&doc).contains("forward-compatibility library"), "{doc:#}");
    // Without cuGetErrorName too.
    let (_, doc) = probe_json(f, &f.legacy, &[("FAKECUDA_SCENARIO", "init_error:5000")]);
    assert_eq!(reason(&doc), "cuInit failed: CUresult 5000 (unknown to stagec)");
}

/// Every code of stagec's table, and others, from cuInit: never a signal,
/// always exit 1 with the code in the reason.
#[test]
fn every_cuinit_code_ends_in_a_reason() {
    let Some(f) = fakes() else { return };
    let mut all: Vec<i32> = (1..1000).filter(|&c| codes::cu_result_name(c).is_some()).collect();
    all.extend([1000, 12345, -7]);
    assert!(all.len() > 100);
    std::thread::scope(|s| {
        for chunk in all.chunks(all.len().div_ceil(8)) {
            s.spawn(move || {
                for &code in chunk {
                    let scenario = format!("init_error:{code}");
                    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", &scenario)]);
                    assert!(
                        reason(&doc).starts_with(&format!("cuInit failed: CUresult {code} (")),
                        "{doc:#}"
                    );
                }
            });
        }
    });
}

#[test]
fn a_failing_call_is_named_and_the_rest_kept() {
    let Some(f) = fakes() else { return };
    let fail = |spec: &str| probe_json(f, &f.full, &[("FAKECUDA_FAIL", spec)]).1;

    let doc = fail("cuDeviceGetName@1=721");
    assert_eq!(strings(&doc, "uuid"), ["GPU-2b7c6a4e-93d1-4f0a-b5c8-6e1d0f9a3b27"]);
    assert_eq!(
        reason(&doc),
        "device 1 left out: cuDeviceGetName failed: CUresult 721 (CUDA_ERROR_TENSOR_MEMORY_LEAK)"
    );

    let doc = fail("cuDeviceCanAccessPeer=226");
    assert_eq!(doc["peer_access"], json!([[false, false], [false, false]]));
    assert!(
        reason(&doc)
            .starts_with("peer access 0 → 1: cuDeviceCanAccessPeer failed: CUresult 226 (CUDA_ERROR_CONTAINED)"),
        "{doc:#}"
    );

    let doc = fail("cuDeviceGetUuid_v2@0=47");
    let d0 = &doc["devices"][0];
    assert_eq!(d0["uuid"], "");
    assert_eq!(
        d0["missing"],
        json!({
            "free_memory_bytes": "without a UUID the device cannot be found in NVML",
            "uuid": "cuDeviceGetUuid_v2 failed: CUresult 47 (CUDA_ERROR_MULTICAST_RESOURCE_FULL)"
        })
    );
    assert_eq!(doc["devices"][1]["missing"], json!({}));

    let doc = fail("cuDeviceGetPCIBusId=227");
    assert_eq!(strings(&doc, "pci_bus_id"), ["", ""]);
    assert_eq!(
        doc["devices"][1]["missing"]["pci_bus_id"],
        "cuDeviceGetPCIBusId failed: CUresult 227 (CUDA_ERROR_INSUFFICIENT_LOADER_VERSION)"
    );

    let doc = fail("cuDeviceGetAttribute@0=5000");
    assert_eq!(doc["devices"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        reason(&doc),
        "device 0 left out: cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR) failed: CUresult 5000 (unknown to stagec)"
    );

    let doc = fail("cuDriverGetVersion=999");
    assert_eq!(doc["driver"], Value::Null);
    assert_eq!(doc["devices"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        reason(&doc),
        "cuDriverGetVersion failed: CUresult 999 (CUDA_ERROR_UNKNOWN)"
    );

    let doc = fail("cuDeviceGetCount=36");
    assert_eq!(
        reason(&doc),
        "cuDeviceGetCount failed: CUresult 36 (CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)"
    );

    // NVML's failures leave free memory empty, with the reason.
    let doc = fail("nvmlDeviceGetMemoryInfo@1=15");
    assert_eq!(doc["devices"][0]["free_memory_bytes"], json!(H100_BYTES - GIB));
    assert_eq!(doc["devices"][1]["free_memory_bytes"], Value::Null);
    assert_eq!(
        doc["devices"][1]["missing"]["free_memory_bytes"],
        "NVML: nvmlDeviceGetMemoryInfo(GPU-9e4a1c7b-25f3-4d8e-a06b-3c7f1e2d5a90) failed: nvmlReturn 15 \
         (NVML_ERROR_GPU_IS_LOST)"
    );
    assert_eq!(doc["reason"], Value::Null);
    let doc = fail("nvmlInit_v2=9");
    for d in doc["devices"].as_array().into_iter().flatten() {
        assert_eq!(d["free_memory_bytes"], Value::Null);
    }
    assert_eq!(
        doc["devices"][0]["missing"]["free_memory_bytes"],
        "NVML: nvmlInit_v2 failed: nvmlReturn 9 (NVML_ERROR_DRIVER_NOT_LOADED)"
    );
}

#[test]
fn a_missing_symbol_is_a_too_old_driver() {
    let Some(f) = fakes() else { return };
    let (run, doc) = probe_json(f, &f.no_total_mem, &[]);
    assert_eq!(
        reason(&doc),
        "driver too old: missing cuDeviceTotalMem_v2 (the loaded libcuda supports CUDA 12.4)"
    );
    assert_eq!(doc["driver"]["cuda_driver_version"], 12040);
    assert!(
        doc["libcuda"]
            .as_str()
            .is_some_and(|p| p.starts_with(&f.no_total_mem.to_string_lossy().into_owned())),
        "{doc:#}"
    );
    // Checked up front: nothing was initialised.
    assert!(!run.log.contains("cuInit"), "{}", run.log);

    // Optional ones fall back or go without, and say so.
    let (_, doc) = probe_json(f, &f.legacy, &[]);
    assert_eq!(
        strings(&doc, "uuid"),
        [
            "GPU-2b7c6a4e-93d1-4f0a-b5c8-6e1d0f9a3b27",
            "GPU-9e4a1c7b-25f3-4d8e-a06b-3c7f1e2d5a90"
        ]
    );
    assert_eq!(doc["peer_access"], json!([]));
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("no cuDeviceCanAccessPeer") && notes.contains("the legacy cuDeviceGetUuid"),
        "{notes}"
    );
    // The legacy call cannot name a MIG slice: no UUID rather than the GPU's.
    let (_, doc) = probe_json(f, &f.legacy, &[("FAKECUDA_SCENARIO", "mig")]);
    let d = &doc["devices"][0];
    assert_eq!(d["uuid"], "");
    assert!(
        d["missing"]["uuid"]
            .as_str()
            .is_some_and(|m| m.contains("does not identify MIG slices")),
        "{doc:#}"
    );
    assert_eq!(d["mig"]["profile"], "1g.10gb");
}

#[test]
fn without_nvml_free_memory_is_missing_with_a_reason() {
    let Some(f) = fakes() else { return };
    let (_, doc) = probe_json(f, &f.no_nvml, &[]);
    assert_eq!(doc["devices"].as_array().map(Vec::len), Some(2));
    for d in doc["devices"].as_array().into_iter().flatten() {
        assert_eq!(d["free_memory_bytes"], Value::Null);
        // Where the host has a real NVML, it does not know the stand-in's UUIDs.
        assert!(
            d["missing"]["free_memory_bytes"]
                .as_str()
                .is_some_and(|m| m.starts_with("NVML")),
            "{doc:#}"
        );
    }
    if !host_kernel_module() {
        assert_eq!(doc["kernel_driver"], Value::Null);
        assert!(
            doc["notes"]
                .to_string()
                .contains("the kernel driver's release is unknown: /sys/module/nvidia/version is absent"),
            "{doc:#}"
        );
    }
}

#[test]
fn a_hung_driver_is_stopped_on_time() {
    let Some(f) = fakes() else { return };
    for (scenario, call) in [
        ("hang", "in cuInit"),
        ("hang:cuDeviceGetName", "in cuDeviceGetName (device 0)"),
        ("hang:nvmlInit_v2", "in nvmlInit_v2"),
    ] {
        let started = Instant::now();
        let (_, doc) = probe_json(
            f,
            &f.full,
            &[("FAKECUDA_SCENARIO", scenario), ("STAGEC_PROBE_TIMEOUT", "1")],
        );
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
        let r = reason(&doc);
        assert!(
            r.starts_with("the GPU probe did not finish within 1 s and was stopped; it was ") && r.contains(call),
            "{scenario}: {r}"
        );
    }
    // A slow driver within the limit is no failure.
    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", "hang_for:1:cuInit")]);
    assert_eq!(doc["reason"], Value::Null);
    // `check --probe` gets the same reason.
    let run = stagec(
        f,
        &f.full,
        &[
            "check",
            "--format",
            "json",
            "examples/hpp-seed-fixed/const.yaml",
            "--probe",
        ],
        &[("FAKECUDA_SCENARIO", "hang"), ("STAGEC_PROBE_TIMEOUT", "1")],
    );
    assert!(run
        .stdout()
        .contains("the local GPU probe found no GPU: the GPU probe did not finish within 1 s"));
}

#[test]
fn a_crashing_driver_ends_in_a_reason() {
    let Some(f) = fakes() else { return };
    for (scenario, call) in [
        ("crash", "in cuInit"),
        ("crash:cuDeviceGetName", "in cuDeviceGetName (device 0)"),
        ("crash:nvmlDeviceGetMemoryInfo", "in nvmlDeviceGetMemoryInfo"),
    ] {
        let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_SCENARIO", scenario)]);
        assert_eq!(
            reason(&doc),
            format!("the GPU probe process died of signal 4 (SIGILL) {call}: the driver library crashed it"),
            "{scenario}"
        );
    }
}

#[test]
fn cuda_variables_are_recorded() {
    let Some(f) = fakes() else { return };
    let env = [("CUDA_VISIBLE_DEVICES", "1,0"), ("CUDA_DEVICE_ORDER", "PCI_BUS_ID")];
    let (_, doc) = probe_json(f, &f.full, &env);
    assert_eq!(
        doc["environment"],
        json!({"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "1,0"})
    );
    let human = stagec(f, &f.full, &["probe"], &env);
    assert!(
        human.stdout().contains("\nCUDA_VISIBLE_DEVICES=1,0\n"),
        "{}",
        human.stdout()
    );
}

/// No `libcuda` to be found: the no-driver report. Where the host has a
/// driver of its own, the loader finds that one instead; then only what
/// holds for every probe is checked.
#[test]
fn without_libcuda_the_report_says_so() {
    let Some(f) = fakes() else { return };
    let (_, doc) = probe_json(f, &f.empty, &[]);
    if system_libcuda().is_none() {
        // (With a note when the kernel module is loaded nonetheless.)
        assert!(reason(&doc).starts_with(probe::NO_DRIVER_REASON), "{doc:#}");
        assert_eq!(doc["driver"], Value::Null);
        assert_eq!(doc["devices"], json!([]));
    } else {
        eprintln!("notice: this host has its own libcuda; the no-driver report is checked where it has none");
    }
}

/// A `libcuda` the dynamic loader would find without `LD_LIBRARY_PATH`.
fn system_libcuda() -> Option<String> {
    let cache = ["/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"]
        .iter()
        .find_map(|l| Command::new(l).arg("-p").output().ok())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if let Some(line) = cache.lines().find(|l| l.contains("libcuda.so")) {
        return Some(line.trim().to_string());
    }
    [
        "/lib",
        "/lib64",
        "/usr/lib",
        "/usr/lib64",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
    ]
    .iter()
    .flat_map(|dir| ["libcuda.so.1", "libcuda.so"].map(|n| Path::new(dir).join(n)))
    .find(|p| p.exists())
    .map(|p| p.display().to_string())
}

/// Recorded probes replay without any driver.
#[test]
fn recorded_probes_still_replay() {
    let run = Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args(["probe", "--format", "json", "--recording", "tests/probes/h100x8.json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run stagec");
    assert_eq!(run.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_eq!(strings(&doc, "catalog_id"), ["h100-sxm5-80gb"; 8]);
    // Derived fields are recomputed: the recorded `0000:2A:00.0` reads back in the one spelling.
    assert_eq!(doc["devices"][1]["pci_bus_id"], "0000:2a:00.0");
    let run = Command::new(env!("CARGO_BIN_EXE_stagec"))
        .args(["probe", "--recording", "tests/probes/no-driver.json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run stagec");
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        format!(
            "CUDA driver: not available\nno CUDA devices: {}\n",
            probe::NO_DRIVER_REASON
        )
    );
}
