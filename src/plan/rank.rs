//! One rank of a plan: which stage and replica it runs, the environment
//! its process should start with (`stagec env`), and whether the GPU it
//! was given is the one the plan assumed (`stagec verify`) — checked on the
//! rank, before the process group forms, where a wrong node is cheapest to
//! catch.

use super::{PlanStage, StagePlan};
use crate::dtype::{self, Support};
use crate::hardware::catalog;
use crate::hardware::probe::{ProbeReport, ProbedDevice};
use crate::runtime::Version;

/// What a rank runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment<'p> {
    pub rank: u64,
    pub stage: &'p PlanStage,
    /// The stage's position in forward order.
    pub position: u64,
    /// The data-parallel replica.
    pub replica: u64,
}

/// The stage and replica of `rank`: rank r runs stage `r mod p` of replica
/// `r div p`.
pub fn assignment(plan: &StagePlan, rank: u64) -> Result<Assignment<'_>, String> {
    let p = plan.pipeline.degree.max(1);
    let world = plan.pipeline.world_size;
    if rank >= world {
        return Err(format!(
            "rank {rank} is not in the plan: its world has {world} rank{} (0 to {})",
            if world == 1 { "" } else { "s" },
            world.saturating_sub(1)
        ));
    }
    let position = rank % p;
    let stage = usize::try_from(position)
        .ok()
        .and_then(|i| plan.stages.get(i))
        .ok_or_else(|| format!("the plan has no stage at position {position}"))?;
    if !stage.ranks.is_empty() && !stage.ranks.contains(&rank) {
        return Err(format!(
            "the plan is inconsistent: rank {rank} should run stage {}, which does not list it",
            stage.id
        ));
    }
    Ok(Assignment {
        rank,
        stage,
        position,
        replica: rank / p,
    })
}

/// `n word` with an `s` unless `n` is 1.
fn count(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The launcher's world (`WORLD_SIZE`, as torchrun and Determined's
/// launcher set it) against the plan's: a shorter world would start with
/// part of a replica, a larger one with ranks the plan has no stage for.
pub fn check_world(plan: &StagePlan, world: u64) -> Result<(), String> {
    let expected = plan.pipeline.world_size;
    if world == expected {
        return Ok(());
    }
    Err(format!(
        "the launcher started {} (WORLD_SIZE={world}), the plan has {expected} ({} × {}): start {expected} processes",
        count(world, "rank"),
        count(plan.pipeline.degree, "stage"),
        count(plan.pipeline.data_parallel, "replica"),
    ))
}

/// The processes on this node (`LOCAL_WORLD_SIZE`) against the devices
/// the probe sees: more processes than devices share a GPU.
pub fn check_local_world(local: u64, visible: usize) -> Result<(), String> {
    let visible = u64::try_from(visible).unwrap_or(u64::MAX);
    if local <= visible {
        return Ok(());
    }
    Err(format!(
        "the launcher started {} on this node (LOCAL_WORLD_SIZE={local}), but {} visible: ranks would share a GPU",
        count(local, "rank"),
        if visible == 1 {
            "1 device is".to_string()
        } else {
            format!("{visible} devices are")
        },
    ))
}

/// The rank's seeds from a base (`DET_TRIAL_SEED`, `--seed` or the plan's
/// `reproducibility.experiment_seed`): the data seed, the same on every
/// stage of a replica (base + replica: every stage of a replica must read
/// the same samples in the same order, so samplers and shuffles seed from
/// it), and the rank seed, its own on every rank (base + global rank: for
/// dropout and other per-process randomness).
pub fn seeds(base: u64, a: &Assignment<'_>) -> [(&'static str, u64); 2] {
    [
        ("STAGEC_DATA_SEED", base.wrapping_add(a.replica)),
        ("STAGEC_RANK_SEED", base.wrapping_add(a.rank)),
    ]
}

/// The rank's environment as `export NAME='value'` lines, sorted: its
/// stage, replica, seeds and dtype, and the plan's variables (those that
/// refer to `${VAR}`s or hold credentials, by the one classifier
/// [`crate::secrets::is_secret`], are left to the environment the rank
/// already has). `STAGEC_PLAN` is `plan_file`, the absolute path of the
/// plan that was read, not the plan's own value (relative to the context
/// directory, which the caller may not be in); without one it is left to
/// the environment. A plan is data anyone may have written: a variable whose
/// name is not a valid name (`HOME_$(touch PWNED)`) refuses the whole
/// environment, since a shell evaluates these lines.
pub fn env_lines(
    plan: &StagePlan,
    a: &Assignment<'_>,
    seed: Option<u64>,
    plan_file: Option<&str>,
) -> Result<Vec<String>, String> {
    Ok(env_vars(plan, a, seed, plan_file)?
        .into_iter()
        .map(|(k, v)| format!("export {k}={}", shell_quote(&v)))
        .collect())
}

/// The rank's environment as sorted names and values: what [`env_lines`]
/// prints, and what `stagec exec` sets before it runs the command. Every
/// name is a valid environment variable name.
pub fn env_vars(
    plan: &StagePlan,
    a: &Assignment<'_>,
    seed: Option<u64>,
    plan_file: Option<&str>,
) -> Result<Vec<(String, String)>, String> {
    if let Some(bad) = plan
        .environment
        .variables
        .keys()
        .find(|k| !crate::envvars::is_valid_name(k))
    {
        // The name itself is not echoed: it may be made to be read.
        return Err(format!(
            "the plan sets a variable whose name is not a valid environment variable name ({} in it): refusing to print its environment",
            crate::envvars::first_invalid_char(bad).unwrap_or_else(|| "nothing".into())
        ));
    }
    let mut vars: Vec<(String, String)> = plan
        .environment
        .variables
        .iter()
        .filter(|(k, v)| !v.contains("${") && !v.starts_with("<withheld") && !crate::secrets::is_secret(k, v))
        .filter(|(k, _)| k.as_str() != super::PLAN_VARIABLE)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(file) = plan_file {
        vars.push((super::PLAN_VARIABLE.into(), file.to_string()));
    }
    vars.push(("STAGEC_RANK".into(), a.rank.to_string()));
    vars.push(("STAGEC_STAGE_ID".into(), a.stage.id.to_string()));
    vars.push(("STAGEC_STAGE_POSITION".into(), a.position.to_string()));
    vars.push(("STAGEC_REPLICA".into(), a.replica.to_string()));
    if let Some(dtype) = &a.stage.torch_dtype {
        vars.push(("STAGEC_DTYPE".into(), dtype.clone()));
    }
    if let Some(base) = seed {
        for (name, value) in seeds(base, a) {
            vars.push((name.into(), value.to_string()));
        }
        // Deprecated: the rank seed under its old name, for scripts that
        // read it; a sampler must read STAGEC_DATA_SEED.
        vars.push(("STAGEC_SEED".into(), base.wrapping_add(a.rank).to_string()));
    }
    vars.sort();
    vars.dedup_by(|x, y| x.0 == y.0);
    // Every name is valid here (checked above, or stagec's own).
    vars.retain(|(k, _)| crate::envvars::is_valid_name(k));
    Ok(vars)
}

/// `value` in single quotes for a POSIX shell.
pub fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', "'\\''"))
}

/// The device a rank uses: `index` into the probed devices (those
/// `CUDA_VISIBLE_DEVICES` leaves visible, in CUDA's order).
pub fn device(report: &ProbeReport, index: usize) -> Result<&ProbedDevice, String> {
    if report.devices.is_empty() {
        return Err(match &report.reason {
            Some(reason) => format!("no GPU to verify: {reason}"),
            None => "no GPU to verify: the probe found none".to_string(),
        });
    }
    report.devices.get(index).ok_or_else(|| {
        format!(
            "device {index} is not visible: the probe found {} device{} (LOCAL_RANK or --device picks one; CUDA_VISIBLE_DEVICES decides which are visible)",
            report.devices.len(),
            if report.devices.len() == 1 { "" } else { "s" }
        )
    })
}

/// What verification found wrong, each as a sentence an operator reads.
pub fn verify(plan: &StagePlan, a: &Assignment<'_>, report: &ProbeReport, device: &ProbedDevice) -> Vec<String> {
    let mut problems = Vec::new();
    let stage = a.stage;
    let found = device.catalog_gpu();
    let found_name = match found {
        Some(g) => format!("{} ({})", device.name, g.id),
        None => device.name.clone(),
    };
    // The GPU type.
    if !stage.gpu_types.is_empty() {
        let serves = found.is_some_and(|g| stage.gpu_types.iter().any(|t| catalog::serves(t, &g.id)));
        if !serves {
            problems.push(format!(
                "expected a GPU of type `{}`, found {found_name}",
                stage.gpu_types.join("` or `")
            ));
        }
    }
    // Memory, against the GPU the plan pinned.
    if let Some(pinned) = &stage.device {
        let needed = pinned.memory_bytes.saturating_mul(95) / 100;
        if device.total_memory_bytes < needed {
            problems.push(format!(
                "expected {} with {} GiB, found {} GiB",
                pinned.name,
                pinned.memory_bytes >> 30,
                device.total_memory_bytes >> 30
            ));
        }
    }
    // The dtype on this compute capability.
    let cc = device.compute_capability;
    if let Some(dt) = stage.dtype.as_deref().and_then(dtype::parse) {
        if dt.support_on(cc) == Support::Unsupported {
            problems.push(format!(
                "stage dtype `{}` is not supported on compute capability {}.{} ({})",
                stage.torch_dtype.as_deref().unwrap_or(dt.to_string().as_str()),
                cc.0,
                cc.1,
                device.name
            ));
        }
    }
    // The driver, against the image's CUDA: the kernel driver's release
    // where the probe read it (minor-version and forward compatibility
    // considered), else the CUDA level libcuda reports.
    if let (Some(image), Some(kernel)) = (&plan.image, &report.kernel_driver) {
        if let (Some(facts), Some(version)) = (image_facts(image), Version::parse(&kernel.version)) {
            let datacenter = found.is_some_and(catalog::is_datacenter);
            let cc = Version::new(cc.0, cc.1);
            if let crate::runtime::compat::DriverVerdict::TooOld { min } =
                crate::runtime::compat::driver_verdict(&facts, version, cc, datacenter)
            {
                problems.push(format!(
                    "the driver {} is older than {min}, which CUDA {} of the image `{}` needs",
                    kernel.version,
                    facts.cuda.map(|c| c.major_minor().to_string()).unwrap_or_default(),
                    image.reference
                ));
            }
        }
    } else if let (Some(image), Some(driver)) = (&plan.image, &report.driver) {
        let image_cuda = image.cuda.as_deref().and_then(Version::parse);
        let driver_cuda = Version::parse(&driver.cuda_version);
        if let (Some(image_cuda), Some(driver_cuda)) = (image_cuda, driver_cuda) {
            if driver_cuda.major() < image_cuda.major() {
                problems.push(format!(
                    "the driver supports CUDA {driver_cuda}, older than CUDA {} of the image `{}`",
                    image_cuda.major_minor(),
                    image.reference
                ));
            }
        }
    }
    problems
}

/// What the plan records of its image, as the compatibility checks read it.
fn image_facts(image: &super::PlanImage) -> Option<crate::runtime::image::ImageFacts> {
    use crate::runtime::image::{ArchList, BuiltArch, ImageFacts, Resolution, Stated};
    let mut facts: ImageFacts = crate::runtime::image::stated(
        &image.reference,
        &Stated {
            cuda: image.cuda.clone(),
            torch: image.torch.clone(),
            python: image.python.clone(),
            arch_list: None,
        },
    );
    facts.cuda?;
    facts.resolution = Resolution::KnownTag;
    facts.forward_compat = image.built_for_driver.is_some();
    facts.arch_list = image.arch_list.as_ref().map(|list| {
        ArchList::new(
            list.iter()
                .filter_map(|a| {
                    let (ptx, digits) = match (a.strip_prefix("sm_"), a.strip_prefix("compute_")) {
                        (Some(d), _) => (false, d),
                        (_, Some(d)) => (true, d),
                        _ => return None,
                    };
                    let (major, minor) = digits.split_at(digits.len().checked_sub(1)?);
                    Some(BuiltArch {
                        cc: Version::new(major.parse().ok()?, minor.parse().ok()?),
                        ptx,
                    })
                })
                .collect(),
            "the plan's image".into(),
        )
    });
    Some(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_world_against_visible_devices() {
        assert!(check_local_world(8, 8).is_ok());
        assert!(check_local_world(4, 8).is_ok());
        let e = check_local_world(2, 1).unwrap_err();
        assert!(e.contains("LOCAL_WORLD_SIZE=2), but 1 device is visible"), "{e}");
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
