//! What the probe reads from the host beside the driver libraries: the
//! kernel module's version files and the CUDA variables of the
//! environment. File reads only, no driver call, so the parent process
//! may read them too when the probe process died.

use std::collections::BTreeMap;
use std::path::Path;

use super::{parse, KernelDriver};

/// The kernel module's release, one line (`550.54.15`).
pub const SYS_MODULE_VERSION: &str = "sys/module/nvidia/version";

/// The kernel module's banner (`NVRM version: NVIDIA UNIX … Kernel Module  550.54.15  …`).
pub const PROC_DRIVER_VERSION: &str = "proc/driver/nvidia/version";

/// The variables that decide which devices CUDA shows and in which order;
/// the report records those that are set.
pub const CUDA_VARIABLES: [&str; 2] = ["CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"];

/// Largest version file read (they are one or two lines).
const VERSION_FILE_LIMIT: usize = 64 * 1024;

/// The kernel driver's release from the files under `root` (`/` on a
/// host; tests pass a folder): `sys/module/nvidia/version`, else
/// `proc/driver/nvidia/version`. `Err` says why neither gave one.
pub fn kernel_driver(root: &Path) -> Result<KernelDriver, String> {
    let sys_path = root.join(SYS_MODULE_VERSION);
    let proc_path = root.join(PROC_DRIVER_VERSION);
    let read = |path: &Path| {
        crate::fsutil::read_limited(path, VERSION_FILE_LIMIT).map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let sys = read(&sys_path);
    if let Ok(text) = &sys {
        if let Some(version) = parse::sys_module_version(text) {
            return Ok(KernelDriver {
                flavour: None,
                source: format!("/{SYS_MODULE_VERSION}"),
                version,
            });
        }
    }
    let proc = read(&proc_path);
    if let Ok(text) = &proc {
        if let Some((version, open)) = parse::proc_driver_version(text) {
            return Ok(KernelDriver {
                flavour: Some(if open { "open" } else { "proprietary" }.to_string()),
                source: format!("/{PROC_DRIVER_VERSION}"),
                version,
            });
        }
    }
    let why = |result: &std::io::Result<String>| match result {
        Ok(_) => "holds no version".to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "is absent".to_string(),
        Err(e) => format!("cannot be read ({e})"),
    };
    Err(format!(
        "/{SYS_MODULE_VERSION} {} and /{PROC_DRIVER_VERSION} {}",
        why(&sys),
        why(&proc)
    ))
}

/// The [`CUDA_VARIABLES`] that `lookup` finds set, by name.
pub fn cuda_environment(lookup: impl Fn(&str) -> Option<String>) -> BTreeMap<String, String> {
    CUDA_VARIABLES
        .iter()
        .filter_map(|name| lookup(name).map(|value| (name.to_string(), value)))
        .collect()
}

/// [`cuda_environment`] of this process.
pub fn process_cuda_environment() -> BTreeMap<String, String> {
    cuda_environment(|name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("stagec-host-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join(path);
            if let Some(parent) = path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            let _ = std::fs::write(path, text);
        }
        let _ = std::fs::create_dir_all(&root);
        root
    }

    #[test]
    fn the_sys_file_first_then_the_proc_banner() {
        let banner = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  (dvs-builder@U16)  Tue Mar  5 2024\nGCC version:  gcc version 12.2.0\n";
        let both = tree(
            "both",
            &[(SYS_MODULE_VERSION, "550.54.14\n"), (PROC_DRIVER_VERSION, banner)],
        );
        let k = kernel_driver(&both).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (k.version.as_str(), k.source.as_str(), k.flavour),
            ("550.54.14", "/sys/module/nvidia/version", None)
        );

        let proc_only = tree("proc", &[(PROC_DRIVER_VERSION, banner)]);
        let k = kernel_driver(&proc_only).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (k.version.as_str(), k.source.as_str(), k.flavour.as_deref()),
            ("550.54.15", "/proc/driver/nvidia/version", Some("open"))
        );

        let proprietary = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n";
        let bad_sys = tree(
            "badsys",
            &[(SYS_MODULE_VERSION, "garbage\n"), (PROC_DRIVER_VERSION, proprietary)],
        );
        let k = kernel_driver(&bad_sys).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (k.version.as_str(), k.flavour.as_deref()),
            ("535.104.05", Some("proprietary"))
        );

        let none = tree("none", &[]);
        assert_eq!(
            kernel_driver(&none),
            Err("/sys/module/nvidia/version is absent and /proc/driver/nvidia/version is absent".to_string())
        );
        let empty = tree("empty", &[(SYS_MODULE_VERSION, "")]);
        assert!(kernel_driver(&empty).is_err_and(|e| e.contains("holds no version")));
        for root in [both, proc_only, bad_sys, none, empty] {
            let _ = std::fs::remove_dir_all(root);
        }
    }

    #[test]
    fn only_set_cuda_variables_are_recorded() {
        let env = cuda_environment(|name| (name == "CUDA_VISIBLE_DEVICES").then(|| "1,0".to_string()));
        assert_eq!(
            env.into_iter().collect::<Vec<_>>(),
            [("CUDA_VISIBLE_DEVICES".to_string(), "1,0".to_string())]
        );
        assert!(cuda_environment(|_| None).is_empty());
    }
}
