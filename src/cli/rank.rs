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
    let result = (|| {
        let (plan, read) = load_plan(plan_path)?;
        let r = rank::assignment(&plan, rank_of(rank)?)?;
        // The plan that was read, from any working directory; a path that is
        // not UTF-8 is left to the caller's STAGEC_PLAN.
        let file = std::path::absolute(&read).ok();
        let file = file.as_deref().and_then(Path::to_str);
        rank::env_lines(&plan, &r, seed.or(plan.experiment.seed), file)
    })();
    match result {
        Ok(lines) => {
            for l in lines {
                println!("{l}");
            }
            EXIT_OK
        }
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
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
        Ok::<_, String>((plan, r, d))
    })();
    let (plan, r, d) = match setup {
        Ok(x) => x,
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    let a = match rank::assignment(&plan, r) {
        Ok(a) => a,
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
    let who = format!(
        "rank {r} (stage {} `{}`, replica {})",
        a.stage.id, a.stage.name, a.replica
    );
    let report = match probe::probe_report(recording) {
        Ok(report) => report,
        Err(e) => {
            eprintln_escaped!("stagec: {e}");
            return EXIT_USAGE;
        }
    };
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
