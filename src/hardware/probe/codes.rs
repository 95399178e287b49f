//! Names for the numbers the driver libraries return. The probe calls
//! `libcuda` and `libnvidia-ml` through its own function pointers typed
//! with plain `c_int` results, never through a Rust enum: a `CUresult` the
//! compiled bindings do not know (a newer driver's 36, 47, 226, 227, 721,
//! …) would be undefined behaviour the moment it existed as an enum value
//! (a release build died of SIGILL on them). Numbers become names here,
//! and unknown numbers stay numbers.

/// The name of a `CUresult` (`cudaError_enum`), as of the CUDA 13.4 headers
/// (cudarc 0.19's newest bindings). `None` for numbers this table lacks.
pub fn cu_result_name(code: i32) -> Option<&'static str> {
    Some(match code {
        0 => "CUDA_SUCCESS",
        1 => "CUDA_ERROR_INVALID_VALUE",
        2 => "CUDA_ERROR_OUT_OF_MEMORY",
        3 => "CUDA_ERROR_NOT_INITIALIZED",
        4 => "CUDA_ERROR_DEINITIALIZED",
        5 => "CUDA_ERROR_PROFILER_DISABLED",
        6 => "CUDA_ERROR_PROFILER_NOT_INITIALIZED",
        7 => "CUDA_ERROR_PROFILER_ALREADY_STARTED",
        8 => "CUDA_ERROR_PROFILER_ALREADY_STOPPED",
        34 => "CUDA_ERROR_STUB_LIBRARY",
        36 => "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
        46 => "CUDA_ERROR_DEVICE_UNAVAILABLE",
        47 => "CUDA_ERROR_MULTICAST_RESOURCE_FULL",
        100 => "CUDA_ERROR_NO_DEVICE",
        101 => "CUDA_ERROR_INVALID_DEVICE",
        102 => "CUDA_ERROR_DEVICE_NOT_LICENSED",
        200 => "CUDA_ERROR_INVALID_IMAGE",
        201 => "CUDA_ERROR_INVALID_CONTEXT",
        202 => "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
        205 => "CUDA_ERROR_MAP_FAILED",
        206 => "CUDA_ERROR_UNMAP_FAILED",
        207 => "CUDA_ERROR_ARRAY_IS_MAPPED",
        208 => "CUDA_ERROR_ALREADY_MAPPED",
        209 => "CUDA_ERROR_NO_BINARY_FOR_GPU",
        210 => "CUDA_ERROR_ALREADY_ACQUIRED",
        211 => "CUDA_ERROR_NOT_MAPPED",
        212 => "CUDA_ERROR_NOT_MAPPED_AS_ARRAY",
        213 => "CUDA_ERROR_NOT_MAPPED_AS_POINTER",
        214 => "CUDA_ERROR_ECC_UNCORRECTABLE",
        215 => "CUDA_ERROR_UNSUPPORTED_LIMIT",
        216 => "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
        217 => "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
        218 => "CUDA_ERROR_INVALID_PTX",
        219 => "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT",
        220 => "CUDA_ERROR_NVLINK_UNCORRECTABLE",
        221 => "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
        222 => "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        223 => "CUDA_ERROR_JIT_COMPILATION_DISABLED",
        224 => "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY",
        225 => "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC",
        226 => "CUDA_ERROR_CONTAINED",
        227 => "CUDA_ERROR_INSUFFICIENT_LOADER_VERSION",
        300 => "CUDA_ERROR_INVALID_SOURCE",
        301 => "CUDA_ERROR_FILE_NOT_FOUND",
        302 => "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
        303 => "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
        304 => "CUDA_ERROR_OPERATING_SYSTEM",
        400 => "CUDA_ERROR_INVALID_HANDLE",
        401 => "CUDA_ERROR_ILLEGAL_STATE",
        402 => "CUDA_ERROR_LOSSY_QUERY",
        500 => "CUDA_ERROR_NOT_FOUND",
        600 => "CUDA_ERROR_NOT_READY",
        700 => "CUDA_ERROR_ILLEGAL_ADDRESS",
        701 => "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        702 => "CUDA_ERROR_LAUNCH_TIMEOUT",
        703 => "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING",
        704 => "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
        705 => "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
        708 => "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
        709 => "CUDA_ERROR_CONTEXT_IS_DESTROYED",
        710 => "CUDA_ERROR_ASSERT",
        711 => "CUDA_ERROR_TOO_MANY_PEERS",
        712 => "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
        713 => "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
        714 => "CUDA_ERROR_HARDWARE_STACK_ERROR",
        715 => "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        716 => "CUDA_ERROR_MISALIGNED_ADDRESS",
        717 => "CUDA_ERROR_INVALID_ADDRESS_SPACE",
        718 => "CUDA_ERROR_INVALID_PC",
        719 => "CUDA_ERROR_LAUNCH_FAILED",
        720 => "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
        721 => "CUDA_ERROR_TENSOR_MEMORY_LEAK",
        800 => "CUDA_ERROR_NOT_PERMITTED",
        801 => "CUDA_ERROR_NOT_SUPPORTED",
        802 => "CUDA_ERROR_SYSTEM_NOT_READY",
        803 => "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        804 => "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
        805 => "CUDA_ERROR_MPS_CONNECTION_FAILED",
        806 => "CUDA_ERROR_MPS_RPC_FAILURE",
        807 => "CUDA_ERROR_MPS_SERVER_NOT_READY",
        808 => "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED",
        809 => "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED",
        810 => "CUDA_ERROR_MPS_CLIENT_TERMINATED",
        811 => "CUDA_ERROR_CDP_NOT_SUPPORTED",
        812 => "CUDA_ERROR_CDP_VERSION_MISMATCH",
        900 => "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
        901 => "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
        902 => "CUDA_ERROR_STREAM_CAPTURE_MERGE",
        903 => "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
        904 => "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
        905 => "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
        906 => "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
        907 => "CUDA_ERROR_CAPTURED_EVENT",
        908 => "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
        909 => "CUDA_ERROR_TIMEOUT",
        910 => "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
        911 => "CUDA_ERROR_EXTERNAL_DEVICE",
        912 => "CUDA_ERROR_INVALID_CLUSTER_SIZE",
        913 => "CUDA_ERROR_FUNCTION_NOT_LOADED",
        914 => "CUDA_ERROR_INVALID_RESOURCE_TYPE",
        915 => "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION",
        916 => "CUDA_ERROR_KEY_ROTATION",
        917 => "CUDA_ERROR_STREAM_DETACHED",
        918 => "CUDA_ERROR_GRAPH_RECAPTURE_FAILURE",
        919 => "CUDA_ERROR_FABRIC_NOT_READY",
        999 => "CUDA_ERROR_UNKNOWN",
        _ => return None,
    })
}

/// `CUresult 226 (CUDA_ERROR_CONTAINED)`; for a number the table lacks,
/// the name the driver gave for it (`cuGetErrorName`), else
/// `CUresult 5000 (unknown to stagec)`.
pub fn describe_cu_result(code: i32, driver_name: Option<&str>) -> String {
    match (cu_result_name(code), driver_name) {
        (Some(name), _) => format!("CUresult {code} ({name})"),
        (None, Some(name)) if !name.trim().is_empty() => {
            format!("CUresult {code} ({}, named by the driver)", clip(name.trim()))
        }
        _ => format!("CUresult {code} (unknown to stagec)"),
    }
}

/// The name of an `nvmlReturn_t`. `None` for numbers this table lacks.
pub fn nvml_return_name(code: i32) -> Option<&'static str> {
    Some(match code {
        0 => "NVML_SUCCESS",
        1 => "NVML_ERROR_UNINITIALIZED",
        2 => "NVML_ERROR_INVALID_ARGUMENT",
        3 => "NVML_ERROR_NOT_SUPPORTED",
        4 => "NVML_ERROR_NO_PERMISSION",
        5 => "NVML_ERROR_ALREADY_INITIALIZED",
        6 => "NVML_ERROR_NOT_FOUND",
        7 => "NVML_ERROR_INSUFFICIENT_SIZE",
        8 => "NVML_ERROR_INSUFFICIENT_POWER",
        9 => "NVML_ERROR_DRIVER_NOT_LOADED",
        10 => "NVML_ERROR_TIMEOUT",
        11 => "NVML_ERROR_IRQ_ISSUE",
        12 => "NVML_ERROR_LIBRARY_NOT_FOUND",
        13 => "NVML_ERROR_FUNCTION_NOT_FOUND",
        14 => "NVML_ERROR_CORRUPTED_INFOROM",
        15 => "NVML_ERROR_GPU_IS_LOST",
        16 => "NVML_ERROR_RESET_REQUIRED",
        17 => "NVML_ERROR_OPERATING_SYSTEM",
        18 => "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        19 => "NVML_ERROR_IN_USE",
        20 => "NVML_ERROR_MEMORY",
        21 => "NVML_ERROR_NO_DATA",
        22 => "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
        23 => "NVML_ERROR_INSUFFICIENT_RESOURCES",
        24 => "NVML_ERROR_FREQ_NOT_SUPPORTED",
        25 => "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
        26 => "NVML_ERROR_DEPRECATED",
        27 => "NVML_ERROR_NOT_READY",
        28 => "NVML_ERROR_GPU_NOT_FOUND",
        29 => "NVML_ERROR_INVALID_STATE",
        30 => "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED",
        999 => "NVML_ERROR_UNKNOWN",
        _ => return None,
    })
}

/// `nvmlReturn 6 (NVML_ERROR_NOT_FOUND)`, or `nvmlReturn 77 (unknown to stagec)`.
pub fn describe_nvml_return(code: i32) -> String {
    match nvml_return_name(code) {
        Some(name) => format!("nvmlReturn {code} ({name})"),
        None => format!("nvmlReturn {code} (unknown to stagec)"),
    }
}

/// `CU_DEVICE_ATTRIBUTE_COMPUTE_MODE` values (`CUcomputemode`).
pub fn compute_mode_name(mode: i32) -> String {
    match mode {
        0 => "default".to_string(),
        1 => "exclusive_thread".to_string(),
        2 => "prohibited".to_string(),
        3 => "exclusive_process".to_string(),
        n => format!("unknown ({n})"),
    }
}

/// Driver-supplied text kept short and on one line.
fn clip(text: &str) -> String {
    let one_line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    match one_line.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", one_line.get(..at).unwrap_or_default()),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_newer_drivers_return_have_names() {
        for (code, name) in [
            (36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"),
            (47, "CUDA_ERROR_MULTICAST_RESOURCE_FULL"),
            (226, "CUDA_ERROR_CONTAINED"),
            (227, "CUDA_ERROR_INSUFFICIENT_LOADER_VERSION"),
            (721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"),
            (100, "CUDA_ERROR_NO_DEVICE"),
            (999, "CUDA_ERROR_UNKNOWN"),
        ] {
            assert_eq!(cu_result_name(code), Some(name));
            assert_eq!(describe_cu_result(code, None), format!("CUresult {code} ({name})"));
        }
    }

    #[test]
    fn unknown_codes_stay_numbers() {
        assert_eq!(cu_result_name(5000), None);
        assert_eq!(describe_cu_result(5000, None), "CUresult 5000 (unknown to stagec)");
        assert_eq!(describe_cu_result(-1, Some("  ")), "CUresult -1 (unknown to stagec)");
        assert_eq!(
            describe_cu_result(1234, Some("CUDA_ERROR_FROM_THE_FUTURE")),
            "CUresult 1234 (CUDA_ERROR_FROM_THE_FUTURE, named by the driver)"
        );
        // Our table wins over the driver's text.
        assert_eq!(
            describe_cu_result(226, Some("x")),
            "CUresult 226 (CUDA_ERROR_CONTAINED)"
        );
        let long = "E".repeat(500);
        assert!(describe_cu_result(1234, Some(&long)).chars().count() < 140);
        assert_eq!(describe_nvml_return(6), "nvmlReturn 6 (NVML_ERROR_NOT_FOUND)");
        assert_eq!(describe_nvml_return(77), "nvmlReturn 77 (unknown to stagec)");
    }

    #[test]
    fn the_table_is_a_function() {
        // Every name appears once and looks like a CUresult name.
        let mut names: Vec<&str> = (-1..2000).filter_map(cu_result_name).collect();
        assert!(names.len() > 100, "{}", names.len());
        assert!(names.iter().all(|n| n.starts_with("CUDA_")));
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }

    #[test]
    fn compute_modes() {
        assert_eq!(compute_mode_name(0), "default");
        assert_eq!(compute_mode_name(2), "prohibited");
        assert_eq!(compute_mode_name(3), "exclusive_process");
        assert_eq!(compute_mode_name(9), "unknown (9)");
    }
}
