//! Text the probe reads from the host and the driver, turned into facts:
//! the kernel module's version files, PCI bus ids, MIG device names, UUID
//! bytes and `/proc/self/maps`. Pure functions, so they build and are tested
//! without the `probe` feature or a GPU.

use std::fmt::Write as _;

/// The release in `/sys/module/nvidia/version`: one line such as
/// `550.54.15`. `None` unless the (trimmed) text is one version number.
pub fn sys_module_version(text: &str) -> Option<String> {
    let line = text.lines().next()?.trim();
    is_release(line).then(|| line.to_string())
}

/// The release in `/proc/driver/nvidia/version`, whose first line reads,
/// for the proprietary module,
/// `NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024`
/// and for the open one
/// `NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  525.60.11  Release Build  (…)  Wed Nov 23 …`.
/// The first whitespace-separated token of the `NVRM version:` line that is
/// a version number (no reliance on the spacing or on the words around it),
/// and whether the line names the open kernel module.
pub fn proc_driver_version(text: &str) -> Option<(String, bool)> {
    let line = text.lines().find(|l| l.trim_start().starts_with("NVRM version:"))?;
    let release = line.split_whitespace().find(|t| is_release(t))?;
    Some((release.to_string(), line.contains("Open Kernel")))
}

/// `550.54.15`, `535.104`, `590.48.01`: two or three dot-separated runs of
/// ASCII digits.
pub fn is_release(token: &str) -> bool {
    let parts: Vec<&str> = token.split('.').collect();
    (2..=3).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A PCI bus id in one spelling: lower-case hex, a domain of at least four
/// digits, `domain:bus:device.function` (the sysfs form, `0000:0e:00.0`).
/// CUDA writes `0000:0E:00.0`, `nvidia-smi` and NVML `00000000:0E:00.0`;
/// all three give the same text. A missing domain counts as 0. `None` for
/// text that is not a PCI address.
pub fn normalize_pci_bus_id(text: &str) -> Option<String> {
    let text = text.trim();
    let (rest, function) = text.rsplit_once('.')?;
    let parts: Vec<&str> = rest.split(':').collect();
    let (domain, bus, device) = match parts.as_slice() {
        [d, b, v] => (*d, *b, *v),
        [b, v] => ("0", *b, *v),
        _ => return None,
    };
    let hex = |s: &str, max_digits: usize| -> Option<u32> {
        if s.is_empty() || s.len() > max_digits || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(s, 16).ok()
    };
    let domain = hex(domain, 8)?;
    let bus = hex(bus, 2)?;
    let device = hex(device, 2)?;
    let function = hex(function, 1)?;
    if device > 0x1f || function > 7 {
        return None;
    }
    Some(format!("{domain:04x}:{bus:02x}:{device:02x}.{function:x}"))
}

/// A MIG device's name split into the GPU it is carved from and its
/// profile: `NVIDIA H100 80GB HBM3 MIG 1g.10gb` → (`NVIDIA H100 80GB HBM3`,
/// `1g.10gb`). Profiles are `<g>g.<mem>gb`, optionally preceded by a
/// compute-instance part `<c>c.` and followed by options such as `+me`
/// (`1g.18gb+me`, `1c.3g.40gb`). `None` for whole GPUs.
pub fn mig_name(name: &str) -> Option<(String, String)> {
    let lower = name.to_ascii_lowercase();
    let at = lower.rfind(" mig ")?;
    let parent = name.get(..at)?.trim();
    let profile = name.get(at + 5..)?.trim().to_ascii_lowercase();
    if parent.is_empty() || mig_profile_parts(&profile).is_none() {
        return None;
    }
    Some((parent.to_string(), profile))
}

/// `(compute slices, memory GB)` of a MIG profile: `3g.40gb` → (3, 40),
/// `1c.3g.40gb` → (3, 40), `1g.18gb+me` → (1, 18). `None` when the text
/// is not a profile.
pub fn mig_profile_parts(profile: &str) -> Option<(u32, u32)> {
    let mut rest = profile;
    // An optional compute-instance part, `1c.`.
    if let Some((c, after)) = rest.split_once('.') {
        if let Some(n) = c.strip_suffix('c') {
            if digits(n) {
                rest = after;
            }
        }
    }
    let (g, after) = rest.split_once('.')?;
    let slices = g.strip_suffix('g').filter(|n| digits(n))?.parse().ok()?;
    let mem_end = after.find(|c: char| !c.is_ascii_digit()).unwrap_or(after.len());
    let memory = after.get(..mem_end).filter(|n| digits(n))?.parse().ok()?;
    let options = after.get(mem_end..)?.strip_prefix("gb")?;
    // Options: `+me`, `-me`, `+gfx`, … (letters after a sign), or nothing.
    let options_ok = options.is_empty()
        || (options.starts_with(['+', '-'])
            && options
                .split(['+', '-'])
                .skip(1)
                .all(|o| !o.is_empty() && o.bytes().all(|b| b.is_ascii_alphanumeric())));
    options_ok.then_some((slices, memory))
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit())
}

/// Sixteen UUID bytes written as `nvidia-smi -L` does: the prefix (`GPU-`
/// or `MIG-`) and 32 lower-case hex digits grouped 8-4-4-4-12.
pub fn format_uuid(prefix: &str, bytes: &[u8; 16]) -> String {
    let mut out = String::with_capacity(prefix.len() + 36);
    out.push_str(prefix);
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The file mapped at `address` in a `/proc/self/maps` text (lines
/// `start-end perms offset dev inode path`): where a library was loaded
/// from. `None` when no mapping with a path covers the address.
pub fn mapped_file(maps: &str, address: usize) -> Option<String> {
    maps.lines().find_map(|line| {
        let range = line.split_whitespace().next()?;
        let (start, end) = range.split_once('-')?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        if !(start..end).contains(&address) {
            return None;
        }
        // perms, offset, dev and inode, then the path (which may hold spaces).
        let mut rest = line;
        for _ in 0..5 {
            rest = rest.trim_start();
            let end = rest.find(char::is_whitespace)?;
            rest = rest.get(end..)?;
        }
        let path = rest.trim();
        path.starts_with('/').then(|| path.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_module_versions_in_both_formats() {
        assert_eq!(sys_module_version("550.54.15\n").as_deref(), Some("550.54.15"));
        assert_eq!(sys_module_version("  535.104  ").as_deref(), Some("535.104"));
        assert_eq!(sys_module_version(""), None);
        assert_eq!(sys_module_version("not loaded"), None);

        let proprietary = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
        assert_eq!(proc_driver_version(proprietary), Some(("550.54.15".to_string(), false)));
        let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  525.60.11  Release Build  (dvs-builder@U16-T01-9-2)  Wed Nov 23 23:04:11 UTC 2022\nGCC version:  gcc version 9.4.0\n";
        assert_eq!(proc_driver_version(open), Some(("525.60.11".to_string(), true)));
        let aarch64 = "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.124.06  Release Build  (dvs-builder@U22)  Wed Feb 26 2025\n";
        assert_eq!(proc_driver_version(aarch64), Some(("570.124.06".to_string(), true)));
        // A newer layout: the release is still the first version-shaped token.
        let newer = "NVRM version: NVIDIA UNIX Open Kernel x86_64 Kernel Module  590.48.01  Release Build\n";
        assert_eq!(proc_driver_version(newer), Some(("590.48.01".to_string(), true)));
        // The GCC line's version is never taken for the driver's.
        assert_eq!(proc_driver_version("GCC version:  gcc version 12.2.0\n"), None);
        assert_eq!(proc_driver_version("NVRM version: unknown\n"), None);
    }

    #[test]
    fn release_shape() {
        for ok in ["550.54.15", "535.104", "470.82.01"] {
            assert!(is_release(ok), "{ok}");
        }
        for bad in ["550", "x86_64", "12.2.0.1", "1..2", "", "v550.54"] {
            assert!(!is_release(bad), "{bad}");
        }
    }

    #[test]
    fn pci_bus_ids_have_one_spelling() {
        let canonical = Some("0000:0e:00.0".to_string());
        assert_eq!(normalize_pci_bus_id("0000:0E:00.0"), canonical);
        assert_eq!(normalize_pci_bus_id("00000000:0e:00.0"), canonical);
        assert_eq!(normalize_pci_bus_id("00000000:0E:00.0"), canonical);
        assert_eq!(normalize_pci_bus_id("0e:00.0"), canonical);
        assert_eq!(normalize_pci_bus_id(" 0000:0e:00.0\n"), canonical);
        assert_eq!(
            normalize_pci_bus_id("00000009:01:00.0").as_deref(),
            Some("0009:01:00.0")
        );
        assert_eq!(
            normalize_pci_bus_id("00010000:2A:1f.7").as_deref(),
            Some("10000:2a:1f.7")
        );
        for bad in [
            "",
            "GPU-0",
            "0000:0e:00",
            "0000:0e:20.0",
            "0000:0e:00.8",
            "0000:100:00.0",
            "zz:00.0",
        ] {
            assert_eq!(normalize_pci_bus_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn mig_names_split_into_parent_and_profile() {
        assert_eq!(
            mig_name("NVIDIA H100 80GB HBM3 MIG 1g.10gb"),
            Some(("NVIDIA H100 80GB HBM3".to_string(), "1g.10gb".to_string()))
        );
        assert_eq!(
            mig_name("NVIDIA A100-SXM4-40GB MIG 3g.20gb"),
            Some(("NVIDIA A100-SXM4-40GB".to_string(), "3g.20gb".to_string()))
        );
        assert_eq!(
            mig_name("NVIDIA GH200 144G HBM3e MIG 1g.18gb+me").map(|m| m.1),
            Some("1g.18gb+me".to_string())
        );
        assert_eq!(
            mig_name("NVIDIA A100-SXM4-80GB MIG 1c.3g.40gb").map(|m| m.1),
            Some("1c.3g.40gb".to_string())
        );
        for whole in [
            "NVIDIA H100 80GB HBM3",
            "NVIDIA MIG",
            "MIG 1g.10gb",
            "NVIDIA X MIG 1g",
            "NVIDIA X MIG fast",
        ] {
            assert_eq!(mig_name(whole), None, "{whole}");
        }
        assert_eq!(mig_profile_parts("3g.40gb"), Some((3, 40)));
        assert_eq!(mig_profile_parts("1c.3g.40gb"), Some((3, 40)));
        assert_eq!(mig_profile_parts("1g.18gb+me"), Some((1, 18)));
        assert_eq!(mig_profile_parts("1g.24gb-me+gfx"), Some((1, 24)));
        for bad in ["", "3g", "3g.40", "3g.40gbx", "g.40gb", "3g.40gb+", "1c.40gb"] {
            assert_eq!(mig_profile_parts(bad), None, "{bad}");
        }
    }

    #[test]
    fn uuids_are_written_like_nvidia_smi() {
        let bytes: [u8; 16] = std::array::from_fn(|i| (i as u8) * 17);
        assert_eq!(format_uuid("GPU-", &bytes), "GPU-00112233-4455-6677-8899-aabbccddeeff");
        assert_eq!(
            format_uuid("MIG-", &[0; 16]),
            "MIG-00000000-0000-0000-0000-000000000000"
        );
    }

    #[test]
    fn the_mapping_that_holds_an_address() {
        let maps = "\
55d0c0000000-55d0c0100000 r-xp 00000000 08:01 1234  /usr/bin/stagec
7f0000000000-7f0000200000 r-xp 00010000 08:01 5678  /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15
7f0000200000-7f0000300000 rw-p 00000000 00:00 0
7f0000300000-7f0000400000 r-xp 00000000 08:01 9999  /opt/my libs/libcuda.so.1
";
        assert_eq!(
            mapped_file(maps, 0x7f00_0000_1234).as_deref(),
            Some("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15")
        );
        assert_eq!(
            mapped_file(maps, 0x7f00_0030_0000).as_deref(),
            Some("/opt/my libs/libcuda.so.1")
        );
        // Anonymous mappings and addresses outside every range have no file.
        assert_eq!(mapped_file(maps, 0x7f00_0020_0010), None);
        assert_eq!(mapped_file(maps, 0x1000), None);
        assert_eq!(mapped_file("garbage\n", 0x1000), None);
    }
}
