//! `stagec env` and `stagec verify`: one rank of a plan, in the launcher.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
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

/// The base of the rank's seeds: `--seed`, else `DET_TRIAL_SEED` (set in
/// the trial's container when Determined runs it: each trial of a search
/// has its own), else the plan's `reproducibility.experiment_seed`.
fn seed_base(flag: Option<u64>, plan: Option<u64>) -> Result<Option<u64>, String> {
    if flag.is_some() {
        return Ok(flag);
    }
    match std::env::var("DET_TRIAL_SEED") {
        Ok(v) if !v.trim().is_empty() => v.trim().parse().map(Some).map_err(|_| {
            format!(
                "DET_TRIAL_SEED is `{}`, not a seed",
                v.chars().take(40).collect::<String>()
            )
        }),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(plan),
        Err(std::env::VarError::NotUnicode(_)) => Err("DET_TRIAL_SEED is not a seed".into()),
    }
}

/// What `env` says on stderr when no seed can be derived: the variables
/// are left out, not silently.
const NO_SEED: &str = "no seed: STAGEC_DATA_SEED and STAGEC_RANK_SEED are not set; set \
     reproducibility.experiment_seed in the config (Determined then gives each trial its own \
     DET_TRIAL_SEED), or pass --seed";

/// The rank's environment (what `env` prints and `exec` sets), and whether
/// it has seeds. Errors are whole messages, prefixed with `stagec`.
fn rank_env(
    command: &str,
    plan: &StagePlan,
    read: &Path,
    r: u64,
    world: Option<u64>,
    seed: Option<u64>,
) -> Result<(Vec<(String, String)>, bool), String> {
    // Errors are whole messages: the launcher's world names the rank.
    let usage = |e: String| format!("stagec: {e}");
    let a = rank::assignment(plan, r);
    if let Some(world) = world {
        rank::check_world(plan, world).map_err(|e| format!("{command}: {}: {e}", who(r, a.as_ref().ok())))?;
    }
    let a = a.map_err(usage)?;
    let base = seed_base(seed, plan.experiment.seed).map_err(usage)?;
    // The plan that was read, from any working directory; a path that is
    // not UTF-8 is left to the caller's STAGEC_PLAN.
    let file = std::path::absolute(read).ok();
    let file = file.as_deref().and_then(Path::to_str);
    let vars = rank::env_vars(plan, &a, base, file).map_err(usage)?;
    Ok((vars, base.is_some()))
}

pub(crate) fn run_env(plan_path: Option<&Path>, rank: Option<u64>, seed: Option<u64>) -> u8 {
    let result = (|| {
        let (plan, read) = load_plan(plan_path).map_err(|e| format!("stagec: {e}"))?;
        let r = rank_of(rank).map_err(|e| format!("stagec: {e}"))?;
        let world = launcher_count("WORLD_SIZE").map_err(|e| format!("stagec: {e}"))?;
        rank_env("stagec env", &plan, &read, r, world, seed)
    })();
    match result {
        Ok((vars, seeded)) => {
            for (k, v) in vars {
                println!("export {k}={}", rank::shell_quote(&v));
            }
            if !seeded {
                eprintln_escaped!("stagec env: {NO_SEED}");
            }
            EXIT_OK
        }
        Err(e) => {
            eprintln_escaped!("{e}");
            EXIT_USAGE
        }
    }
}

/// Why a rank stops before its command: the exit status and the lines for
/// stderr.
struct Stop(u8, Vec<String>);

impl Stop {
    fn usage(e: String) -> Self {
        Stop(EXIT_USAGE, vec![format!("stagec: {e}")])
    }

    fn print(self) -> u8 {
        for line in self.1 {
            eprintln_escaped!("{line}");
        }
        self.0
    }
}

/// What `verify` checks, for the rank `r` of `plan` on device `d`: the
/// launcher's world, the devices, the GPU against the stage. The line that
/// says it passed, or why it stops.
fn verify_rank(command: &str, plan: &StagePlan, r: u64, d: usize, recording: Option<&Path>) -> Result<String, Stop> {
    let world = launcher_count("WORLD_SIZE").map_err(Stop::usage)?;
    let local = launcher_count("LOCAL_WORLD_SIZE").map_err(Stop::usage)?;
    let a = rank::assignment(plan, r);
    // The world first: a rank the plan lacks is a symptom of a larger one.
    if let Some(Err(e)) = world.map(|w| rank::check_world(plan, w)) {
        return Err(Stop(
            EXIT_FINDINGS,
            vec![format!("{command}: {}: {e}", who(r, a.as_ref().ok()))],
        ));
    }
    let a = a.map_err(Stop::usage)?;
    let who = who(r, Some(&a));
    let report = probe::probe_report(recording).map_err(Stop::usage)?;
    if let Some(Err(e)) = local
        .filter(|_| !report.devices.is_empty())
        .map(|l| rank::check_local_world(l, report.devices.len()))
    {
        return Err(Stop(EXIT_FINDINGS, vec![format!("{command}: {who}: {e}")]));
    }
    let device = rank::device(&report, d).map_err(|e| Stop(EXIT_FINDINGS, vec![format!("{command}: {who}: {e}")]))?;
    let problems = rank::verify(plan, &a, &report, device);
    if problems.is_empty() {
        let dtype = a.stage.torch_dtype.as_deref().unwrap_or("default dtype");
        Ok(format!(
            "{command}: {who} on GPU {d} {} (sm_{}{}), {dtype}: ok",
            device.name, device.compute_capability.0, device.compute_capability.1
        ))
    } else {
        Err(Stop(
            EXIT_FINDINGS,
            problems
                .into_iter()
                .map(|p| format!("{command}: {who} on GPU {d} ({}): {p}", device.pci_bus_id))
                .collect(),
        ))
    }
}

pub(crate) fn run_verify(
    plan_path: Option<&Path>,
    rank: Option<u64>,
    device: Option<usize>,
    recording: Option<&Path>,
) -> u8 {
    let result = (|| {
        let (plan, _) = load_plan(plan_path).map_err(Stop::usage)?;
        let r = rank_of(rank).map_err(Stop::usage)?;
        let d = device_of(device).map_err(Stop::usage)?;
        verify_rank("stagec verify", &plan, r, d, recording)
    })();
    match result {
        Ok(line) => {
            println!("{}", stagec::escape::line(&line));
            EXIT_OK
        }
        Err(stop) => stop.print(),
    }
}

/// What `stagec exec` is given.
pub(crate) struct ExecArgs<'a> {
    pub plan: Option<&'a Path>,
    pub rank: Option<u64>,
    pub device: Option<usize>,
    pub seed: Option<u64>,
    pub recording: Option<&'a Path>,
    pub command: &'a [OsString],
}

/// `stagec exec`: verify the rank, set its environment and replace this
/// process with the command (no shell). Returns only when the rank stops
/// before the command: verify's or env's message and status, or the
/// command could not be started (127 not found, 126 otherwise, as a shell).
pub(crate) fn run_exec(args: &ExecArgs<'_>) -> u8 {
    const COMMAND: &str = "stagec exec";
    let prepared = (|| {
        let (plan, read) = load_plan(args.plan).map_err(Stop::usage)?;
        let r = rank_of(args.rank).map_err(Stop::usage)?;
        let d = device_of(args.device).map_err(Stop::usage)?;
        let ok = verify_rank(COMMAND, &plan, r, d, args.recording)?;
        let world = launcher_count("WORLD_SIZE").map_err(Stop::usage)?;
        let (vars, seeded) =
            rank_env(COMMAND, &plan, &read, r, world, args.seed).map_err(|e| Stop(EXIT_USAGE, vec![e]))?;
        Ok::<_, Stop>((ok, vars, seeded))
    })();
    let (ok, vars, seeded) = match prepared {
        Ok(x) => x,
        Err(stop) => return stop.print(),
    };
    let Some((program, rest)) = args.command.split_first() else {
        eprintln_escaped!("stagec: exec: no command after `--`");
        return EXIT_USAGE;
    };
    // stderr: the command's stdout is its own.
    eprintln_escaped!("{ok}");
    if !seeded {
        eprintln_escaped!("{COMMAND}: {NO_SEED}");
    }
    let err = std::process::Command::new(program).args(rest).envs(vars).exec();
    eprintln_escaped!(
        "{COMMAND}: cannot run `{}`: {err}",
        program.to_string_lossy().chars().take(200).collect::<String>()
    );
    if err.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    }
}
