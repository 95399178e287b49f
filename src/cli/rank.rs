//! `stagec env` and `stagec verify`: one rank of a plan, in the launcher.

use std::path::{Path, PathBuf};

use stagec::plan::rank;
use stagec::plan::StagePlan;

use super::{probe, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};

/// Largest plan file read.
const MAX_PLAN: usize = 64 * 1024 * 1024;

/// The plan at `path` (`--plan`, else `STAGEC_PLAN`), and its path.
fn load_plan(path: Option<&Path>) -> Result<(StagePlan, PathBuf), String> {
    let from_env = std::env::var_os("STAGEC_PLAN")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let path = path.or(from_env.as_deref()).ok_or(
        "no plan: pass --plan FILE or set STAGEC_PLAN to the stage_plan.json that `stagec plan` wrote \
         (the experiment's environment sets it for the trial)",
    )?;
    let bytes =
        stagec::fsutil::read_limited(path, MAX_PLAN).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let plan = serde_json::from_slice(&bytes).map_err(|e| format!("{} is not a stage plan: {e}", path.display()))?;
    Ok((plan, path.to_path_buf()))
}

/// `--rank`, else `RANK` (torchrun's and Determined's launchers set it).
fn rank_of(rank: Option<u64>) -> Result<u64, String> {
    if let Some(r) = rank {
        return Ok(r);
    }
    match std::env::var("RANK") {
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("RANK is `{}`, not a rank", v.chars().take(40).collect::<String>())),
        Err(_) => Err("no rank: pass --rank R, or set RANK as torchrun and Determined's launcher do".into()),
    }
}

/// A count the launcher sets (`WORLD_SIZE`, `LOCAL_WORLD_SIZE`); `None`
/// when it is not set (a manual run).
fn launcher_count(name: &str) -> Result<Option<u64>, String> {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().map(Some).map_err(|_| {
            format!(
                "{name} is `{}`, not a number of ranks",
                v.chars().take(40).collect::<String>()
            )
        }),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{name} is not a number of ranks")),
    }
}

/// How a rank is named in messages: its stage and replica where it has them.
fn who(r: u64, a: Option<&rank::Assignment<'_>>) -> String {
    match a {
        Some(a) => format!(
            "rank {r} (stage {} `{}`, replica {})",
            a.stage.id, a.stage.name, a.replica
        ),
        None => format!("rank {r}"),
    }
}

/// `--device`, else `LOCAL_RANK`, else 0.
fn device_of(device: Option<usize>) -> Result<usize, String> {
    if let Some(d) = device {
        return Ok(d);
    }
    match std::env::var("LOCAL_RANK") {
        Ok(v) => v.trim().parse().map_err(|_| {
            format!(
                "LOCAL_RANK is `{}`, not a device index",
                v.chars().take(40).collect::<String>()
            )
        }),
        Err(_) => Ok(0),
    }
}

pub(crate) fn run_env(plan_path: Option<&Path>, rank: Option<u64>, seed: Option<u64>) -> u8 {
    // Errors are whole messages: the launcher's world names the rank.
    let usage = |e: String| format!("stagec: {e}");
    let result = (|| {
        let (plan, read) = load_plan(plan_path).map_err(usage)?;
        let r = rank_of(rank).map_err(usage)?;
        let world = launcher_count("WORLD_SIZE").map_err(usage)?;
        let a = rank::assignment(&plan, r);
        if let Some(world) = world {
            rank::check_world(&plan, world).map_err(|e| format!("stagec env: {}: {e}", who(r, a.as_ref().ok())))?;
        }
        let a = a.map_err(usage)?;
        // The plan that was read, from any working directory; a path that is
        // not UTF-8 is left to the caller's STAGEC_PLAN.
        let file = std::path::absolute(&read).ok();
        let file = file.as_deref().and_then(Path::to_str);
        rank::env_lines(&plan, &a, seed.or(plan.experiment.seed), file).map_err(usage)
    })();
    match result {
        Ok(lines) => {
            for l in lines {
                println!("{l}");
            }
            EXIT_OK
        }
        Err(e) => {
            eprintln_escaped!("{e}");
            EXIT_USAGE
        }
    }
}

pub(crate) fn run_verify(
    plan_path: Option<&Path>,
    rank: Option<u64>,
    device: Option<usize>,
    recording: Option<&Path>,
) -> u8 {
    let setup = (|| {
        let (plan, _) = load_plan(plan_path)?;
        let r = rank_of(rank)?;
        let d = device_of(device)?;
        let world = launcher_count("WORLD_SIZE")?;
        let local = launcher_count("LOCAL_WORLD_SIZE")?;
        Ok::<_, String>((plan, r, d, world, local))
    })();
    let (plan, r, d, world, local) = match setup {
        Ok(x) => x,
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    let a = rank::assignment(&plan, r);
    // The world first: a rank the plan lacks is a symptom of a larger one.
    if let Some(Err(e)) = world.map(|w| rank::check_world(&plan, w)) {
        eprintln_escaped!("stagec verify: {}: {e}", who(r, a.as_ref().ok()));
        return EXIT_FINDINGS;
    }
    let a = match a {
        Ok(a) => a,
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    let who = who(r, Some(&a));
    let report = match probe::probe_report(recording) {
        Ok(report) => report,
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    if let Some(Err(e)) = local
        .filter(|_| !report.devices.is_empty())
        .map(|l| rank::check_local_world(l, report.devices.len()))
    {
        eprintln_escaped!("stagec verify: {who}: {e}");
        return EXIT_FINDINGS;
    }
    let device = match rank::device(&report, d) {
        Ok(device) => device,
        Err(e) => {
            eprintln_escaped!("stagec verify: {who}: {e}");
            return EXIT_FINDINGS;
        }
    };
    let problems = rank::verify(&plan, &a, &report, device);
    if problems.is_empty() {
        let dtype = a.stage.torch_dtype.as_deref().unwrap_or("default dtype");
        let line = format!(
            "stagec verify: {who} on GPU {d} {} (sm_{}{}), {dtype}: ok",
            device.name, device.compute_capability.0, device.compute_capability.1
        );
        println!("{}", stagec::escape::line(&line));
        EXIT_OK
    } else {
        for p in problems {
            eprintln_escaped!("stagec verify: {who} on GPU {d} ({}): {p}", device.pci_bus_id);
        }
        EXIT_FINDINGS
    }
}
