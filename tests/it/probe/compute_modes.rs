//! Compute modes against the stand-in driver: the mode of each device is
//! read, a prohibited device is no supply, and an exclusive-process device's
//! free memory comes from NVML without a context — held by another process
//! or not — or, when NVML cannot give it, a note says why the probe does not
//! fall back to one.

use serde_json::{json, Value};
use stagec::hardware::catalog;
use stagec::hardware::probe;
use stagec::source::FileId;

use super::{fakes, probe_json, strings};

#[test]
fn compute_modes_are_read_and_no_context_is_made() {
    let Some(f) = fakes() else { return };
    let config = f.root.join("modes.cfg");
    std::fs::write(
        &config,
        "device name=NVIDIA H100 80GB HBM3;cc=9.0;mem=85520809984;sms=132;pci=00000000:1A:00.0;\
         uuid=GPU-11111111-2222-3333-4444-555555555555;compute_mode=3;free=1000000000\n\
         device name=NVIDIA H100 80GB HBM3;cc=9.0;mem=85520809984;sms=132;pci=0000:1b:00.0;\
         uuid=GPU-66666666-7777-8888-9999-aaaaaaaaaaaa;compute_mode=2\n",
    )
    .expect("config");
    let (run, doc) = probe_json(f, &f.full, &[("FAKECUDA_CONFIG", config.to_string_lossy().as_ref())]);
    assert_eq!(strings(&doc, "compute_mode"), ["exclusive_process", "prohibited"]);
    // nvidia-smi's spelling of the bus id, read back in the one spelling.
    assert_eq!(strings(&doc, "pci_bus_id"), ["0000:1a:00.0", "0000:1b:00.0"]);
    // Free memory of the exclusive-process GPU, from NVML: no context needed.
    assert_eq!(doc["devices"][0]["free_memory_bytes"], json!(1_000_000_000u64));
    assert!(run.log.contains("cuDeviceGetAttribute 0"), "{}", run.log);
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("device 0 is in the exclusive_process compute mode")
            && notes.contains("device 1 is in the prohibited compute mode: no process can use it"),
        "{notes}"
    );
    let report = probe::load_recorded(&run.stdout()).expect("report");
    let inv = report.to_inventory_in(FileId(0));
    let h100s: u32 = inv.nodes[0]
        .gpus
        .iter()
        .filter(|g| g.is_known() && catalog::serves("h100", &g.offered_name()))
        .map(|g| g.count)
        .sum();
    assert_eq!(h100s, 1, "the prohibited GPU is not supply");
}

#[test]
fn a_held_exclusive_gpu_says_why_its_free_memory_is_unknown() {
    let Some(f) = fakes() else { return };
    let config = f.root.join("held.cfg");
    // Device 0: exclusive-process mode, held by another process (the
    // stand-in refuses a context on it with CUDA_ERROR_DEVICE_UNAVAILABLE);
    // device 1: default mode.
    std::fs::write(
        &config,
        "device name=NVIDIA H100 80GB HBM3;cc=9.0;mem=85520809984;sms=132;pci=0000:1a:00.0;\
         uuid=GPU-11111111-2222-3333-4444-555555555555;compute_mode=3;held=1;free=1000000000\n\
         device name=NVIDIA H100 80GB HBM3;cc=9.0;mem=85520809984;sms=132;pci=0000:1b:00.0;\
         uuid=GPU-66666666-7777-8888-9999-aaaaaaaaaaaa;free=2000000000\n",
    )
    .expect("config");
    let cfg = config.to_string_lossy().into_owned();
    // With NVML: free memory is read without a context, held or not.
    let (_, doc) = probe_json(f, &f.full, &[("FAKECUDA_CONFIG", cfg.as_str())]);
    assert_eq!(doc["devices"][0]["free_memory_bytes"], json!(1_000_000_000u64));
    assert!(!doc["notes"].to_string().contains("free memory of device"), "{doc:#}");
    // NVML refuses (no permission), or is absent: the note says why the
    // exclusive device's free memory is unknown, only for that device.
    let refused = [
        ("FAKECUDA_CONFIG", cfg.as_str()),
        ("FAKECUDA_FAIL", "nvmlDeviceGetMemoryInfo@0=4"),
    ];
    for (lib, env) in [(&f.full, &refused[..]), (&f.no_nvml, &refused[..1])] {
        let (run, doc) = probe_json(f, lib, env);
        assert!(doc["devices"][0]["free_memory_bytes"].is_null(), "{doc:#}");
        assert!(
            doc["devices"][0]["missing"]["free_memory_bytes"]
                .as_str()
                .is_some_and(|w| w.contains("NVML")),
            "{doc:#}"
        );
        let notes: Vec<&str> = doc["notes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|n| n.starts_with("free memory of device"))
            .collect();
        assert_eq!(notes.len(), 1, "{doc:#}");
        assert!(
            notes[0].starts_with("free memory of device 0 is unknown: NVML could not give it")
                && notes[0].contains("exclusive_process compute mode")
                && notes[0].contains("refused while another process holds the device (CUDA_ERROR_DEVICE_UNAVAILABLE)"),
            "{}",
            notes[0]
        );
        // Still no context: the probe does not try the refused way.
        assert!(!run.log.contains("cuDevicePrimaryCtxRetain"), "{}", run.log);
        assert!(!run.log.contains("cuCtxCreate"), "{}", run.log);
    }
}
