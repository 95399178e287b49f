//! `stagec exec` under a real `torchrun`: PyTorch from Debian's
//! `python3-torch` (1.13, CPU, gloo), installed for `/usr/bin/python3` by
//! `scripts/install-test-tools.sh torch`. The project in `tests/torchrun/`
//! (3 stages × 2 replicas, every stage on an H100) is planned with `stagec
//! plan` on the recorded 8×H100 host (`tests/probes/h100x8.json`), then
//!
//! ```text
//! torchrun --nproc_per_node 6 --no_python stagec exec --probe-recording … -- python3 probe_train.py OUT …
//! ```
//!
//! runs six ranks of `tests/torchrun/probe_train.py`: each joins a gloo
//! process group, the ranks all-gather what each saw (stage, replica, data
//! seed, rank seed, dtype, the plan's environment, what a sampler and a
//! dropout mask seeded from them draw) and rank 0 writes it as JSON, which
//! the test checks against `stage_plan.json`: rank r runs stage r mod p of
//! replica r div p, data seed = base + replica, rank seed = base + rank.
//! A rank on the wrong GPU, a short world and a failing environment step
//! stop the job before `init_process_group`: the script writes a marker when
//! it starts and another when `init_process_group` returned, and the test
//! asserts which were never written.
//!
//! The second case runs the same through Determined's launcher, as the
//! examples' entrypoints wire it (`python3 -m determined.launch.torch_distributed
//! -- stagec exec -- python3 probe_train.py`), with `determined` from PyPI in a
//! venv that sees Debian's torch (`scripts/install-test-tools.sh
//! determined`). What it takes to run that launcher outside a cluster, and
//! what is not faithful, is said at [`determined_launcher_runs_the_command_on_every_rank`].
//!
//! Two things about Debian's torch 1.13 on Python 3.11 the commands below
//! work around, both torch's and not stagec's:
//! - torchrun 1.13 knows only the underscore spellings (`--nproc_per_node`,
//!   `--no_python`); the hyphenated ones in stagec's help are torch 2's
//!   aliases of the same options.
//! - torchrun 1.13 cannot parse its own default `--redirects 0`/`--tee 0` on
//!   Python 3.11 (it looks the value up by iterating a `Flag` enum, which no
//!   longer yields the zero member there, and then fails with
//!   `'NoneType' object has no attribute 'get'` before any worker starts).
//!   The tests pass `--redirects 9:1 --tee 9:1`, a per-rank mapping for a
//!   local rank that does not exist, which leaves every real rank's output
//!   alone. Under Determined's launcher they go in its TORCH_OVERRIDES
//!   (`… torch_distributed --redirects 9:1 --tee 9:1 -- stagec exec -- …`),
//!   which it passes to `torch.distributed.run` as they are.
//!
//! Skipped with a printed notice when Debian's archive or PyPI cannot be
//! reached or the tools cannot be installed here (no apt-get, not root);
//! with `STAGEC_REQUIRE_TOOLS` set (CI) that fails instead. About 20 s per
//! launch on a 2-core machine; the four torchrun runs and the Determined
//! run are separate tests.

use crate::common::tools;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

/// One launch, with torch imported by six processes on a slow machine.
const LIMIT: Duration = Duration::from_secs(180);

/// The recorded host every stage of the project fits (8 × H100).
const H100X8: &str = "tests/probes/h100x8.json";

/// An argument that a shell between the launcher and the training script
/// would change.
const ODD_ARG: &str = "a b'c $HOME `x` \"q\"";

/// torchrun 1.13 on Python 3.11 fails on its default `--redirects 0`/`--tee
/// 0` (see the module's documentation); a mapping for a local rank that does
/// not exist is accepted and redirects nothing.
const TORCH_113_STD_WORKAROUND: [&str; 4] = ["--redirects", "9:1", "--tee", "9:1"];

fn required() -> bool {
    std::env::var_os("STAGEC_REQUIRE_TOOLS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The install script's executable for `tool`, installed once per test
/// binary (apt and pip must not run twice at once), or `None` when the test
/// skips; fails instead when `STAGEC_REQUIRE_TOOLS` is set.
fn tool(tool: &str, test: &str) -> Option<PathBuf> {
    static TORCH: OnceLock<Option<PathBuf>> = OnceLock::new();
    static DETERMINED: OnceLock<Option<PathBuf>> = OnceLock::new();
    let cell = match tool {
        "torch" => &TORCH,
        "determined" => &DETERMINED,
        other => panic!("unknown tool {other}"),
    };
    // `determined` installs `torch` first: one install at a time.
    static INSTALLING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let found = cell
        .get_or_init(|| {
            let _one = INSTALLING.lock().unwrap_or_else(|e| e.into_inner());
            tools::install(tool, test)
        })
        .clone();
    if found.is_none() {
        assert!(
            !required(),
            "{test}: {tool} could not be installed (see the line above), but STAGEC_REQUIRE_TOOLS is set"
        );
        // Straight to the standard error, past the test harness's capture
        // (which keeps a passing test's `eprintln!`, the reason included).
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: {tool} is not available (`scripts/install-test-tools.sh {tool}` says why)"
        );
    }
    found
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn stagec_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_stagec"))
}

fn read_json(path: &Path) -> Value {
    let s = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

/// A port nobody listens on now (the tests run in parallel: torchrun's
/// fixed default would collide).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind a free port")
}

/// The project of `tests/torchrun/` copied into a scratch context folder
/// and planned there (`stagec-plan/` inside it, as a user plans it).
struct Project {
    dir: tools::TempDir,
    plan: Value,
}

impl Project {
    fn new(name: &str) -> Project {
        let root = tools::repo_root();
        let dir = tools::TempDir::new(&format!("stagec-torchrun-{name}"));
        tools::copy_files(&root.join("tests/torchrun"), dir.path());
        let run = Command::new(stagec_exe())
            .args(["plan", "const.yaml", "--probe", "--probe-recording"])
            .arg(root.join(H100X8))
            .current_dir(dir.path())
            .output()
            .expect("run stagec plan");
        assert_eq!(
            run.status.code(),
            Some(0),
            "stagec plan failed:\n{}{}",
            text(&run.stdout),
            text(&run.stderr)
        );
        let plan = read_json(&dir.path().join("stagec-plan/stage_plan.json"));
        std::fs::create_dir_all(dir.path().join("out")).expect("out folder");
        Project { dir, plan }
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    fn world(&self) -> usize {
        self.plan["pipeline"]["world_size"].as_u64().expect("world_size") as usize
    }

    /// The launcher's command, run from the context folder with the
    /// environment a trial container has: the plan's `STAGEC_PLAN` (relative
    /// to the context, as `determined.yaml` sets it) and nothing of this
    /// process's ranks or seeds.
    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.dir.path());
        for var in [
            "RANK",
            "LOCAL_RANK",
            "WORLD_SIZE",
            "LOCAL_WORLD_SIZE",
            "MASTER_ADDR",
            "MASTER_PORT",
            "DET_TRIAL_SEED",
            "PYTHONHASHSEED",
            "CUBLAS_WORKSPACE_CONFIG",
            "TORCH_NCCL_ASYNC_ERROR_HANDLING",
            "USE_TORCH_DISTRIBUTED",
            "DET_CHIEF_IP",
            "C10D_PORT",
            "PYTHONPATH",
        ] {
            cmd.env_remove(var);
        }
        for (var, _) in std::env::vars_os() {
            if var.to_string_lossy().starts_with("STAGEC_") {
                cmd.env_remove(var);
            }
        }
        let relative = self.plan["environment"]["variables"]["STAGEC_PLAN"]
            .as_str()
            .expect("the plan's STAGEC_PLAN");
        cmd.env("STAGEC_PLAN", relative).env("OMP_NUM_THREADS", "1");
        cmd
    }

    /// `torchrun` (as `python3 -m torch.distributed.run`) with `nproc`
    /// processes, each `stagec exec [exec_args] -- python3 probe_train.py
    /// OUT ODD_ARG`.
    fn torchrun(&self, python: &Path, nproc: usize, exec_args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command(python);
        cmd.args(["-m", "torch.distributed.run", "--nproc_per_node"])
            .arg(nproc.to_string())
            .args(["--master_addr", "127.0.0.1", "--master_port"])
            .arg(free_port().to_string())
            // Notice a failed rank quickly (the default looks every 5 s).
            .args(["--monitor_interval", "0.5"])
            .args(TORCH_113_STD_WORKAROUND)
            .arg("--no_python")
            .arg(stagec_exe())
            .arg("exec")
            .args(exec_args)
            .arg("--")
            .arg(python)
            .arg("probe_train.py")
            .arg(self.out())
            .arg(ODD_ARG);
        for (k, v) in env {
            cmd.env(k, v);
        }
        tools::output_within(&mut cmd, LIMIT)
    }

    /// The markers the ranks wrote: (`started-R`, `joined-R`) rank lists.
    fn markers(&self) -> (Vec<usize>, Vec<usize>) {
        let mut started = Vec::new();
        let mut joined = Vec::new();
        for entry in std::fs::read_dir(self.out()).expect("read out") {
            let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
            if let Some(r) = name.strip_prefix("started-") {
                started.push(r.parse().expect("rank"));
            } else if let Some(r) = name.strip_prefix("joined-") {
                joined.push(r.parse().expect("rank"));
            }
        }
        started.sort_unstable();
        joined.sort_unstable();
        (started, joined)
    }

    /// Checks what every rank reported from inside the training process
    /// against the plan, with `base` as the seeds' base; returns the
    /// reports.
    fn assert_ranks(&self, base: u64, shown: &str) -> Vec<Value> {
        let path = self.out().join("ranks.json");
        assert!(path.is_file(), "rank 0 wrote no {}:\n{shown}", path.display());
        let ranks = read_json(&path);
        let ranks = ranks.as_array().expect("a list of ranks").clone();
        let world = self.world();
        let degree = self.plan["pipeline"]["degree"].as_u64().expect("degree") as usize;
        let stages = self.plan["stages"].as_array().expect("stages");
        assert_eq!(ranks.len(), world, "{shown}");
        assert_eq!(
            world,
            degree * self.plan["pipeline"]["data_parallel"].as_u64().expect("dp") as usize
        );
        let plan_path = std::fs::canonicalize(self.dir.path().join("stagec-plan/stage_plan.json")).expect("plan");
        let variables = &self.plan["environment"]["variables"];
        for (r, got) in ranks.iter().enumerate() {
            let stage = &stages[r % degree];
            // The plan says the same as r mod p: this rank is in the stage's ranks.
            assert!(
                stage["ranks"].as_array().expect("ranks").contains(&Value::from(r)),
                "rank {r} is not in stage {}'s ranks",
                r % degree
            );
            let replica = (r / degree) as u64;
            assert_eq!(got["rank"], r, "torch.distributed's rank of report {r}");
            assert_eq!(got["env_rank"], r);
            assert_eq!(got["stagec_rank"], r);
            assert_eq!(got["world_size"], world);
            assert_eq!(got["stage"], stage["id"], "stage of rank {r}");
            assert_eq!(got["replica"], replica, "replica of rank {r}");
            assert_eq!(got["data_seed"], base + replica, "data seed of rank {r}");
            assert_eq!(got["rank_seed"], base + r as u64, "rank seed of rank {r}");
            assert_eq!(got["dtype"], stage["torch_dtype"], "dtype of rank {r}");
            // The plan's path is absolute in the rank's environment (the
            // caller gave it relative to the context).
            let seen = PathBuf::from(got["plan"].as_str().expect("plan path"));
            assert!(seen.is_absolute(), "{seen:?}");
            assert_eq!(std::fs::canonicalize(&seen).expect("plan path"), plan_path);
            for (k, v) in got["plan_environment"].as_object().expect("plan environment") {
                assert_eq!(v, &variables[k], "{k} on rank {r}");
            }
            // The arguments reached the script as they were given: no shell between.
            assert_eq!(got["args"], serde_json::json!([ODD_ARG]), "arguments of rank {r}");
        }
        // Every stage of a replica draws the same samples; replicas differ.
        for (r, got) in ranks.iter().enumerate() {
            let first = &ranks[(r / degree) * degree];
            assert_eq!(
                got["samples"], first["samples"],
                "rank {r} samples other data than its replica's first stage"
            );
        }
        assert_ne!(
            ranks[0]["samples"], ranks[degree]["samples"],
            "two replicas draw the same samples"
        );
        // Every rank has its own per-process randomness.
        for a in 0..world {
            for b in a + 1..world {
                assert_ne!(
                    ranks[a]["dropout"], ranks[b]["dropout"],
                    "ranks {a} and {b} share a rank seed"
                );
            }
        }
        ranks
    }
}

fn shown(out: &Output) -> String {
    format!("status {}\n{}{}", out.status, text(&out.stdout), text(&out.stderr))
}

/// stagec's one line for rank `r` of the project (stage names from the plan).
fn ok_line(project: &Project, r: usize) -> String {
    let degree = project.plan["pipeline"]["degree"].as_u64().expect("degree") as usize;
    let stage = &project.plan["stages"][r % degree];
    format!(
        "stagec exec: rank {r} (stage {} `{}`, replica {}) on GPU {r} NVIDIA H100 80GB HBM3 (sm_90), {}: ok",
        stage["id"],
        stage["name"].as_str().expect("name"),
        r / degree,
        stage["torch_dtype"].as_str().expect("torch_dtype")
    )
}

#[test]
fn every_rank_trains_with_its_stage_replica_seeds_and_dtype() {
    let Some(python) = tool(
        "torch",
        "torchrun::every_rank_trains_with_its_stage_replica_seeds_and_dtype",
    ) else {
        return;
    };
    let project = Project::new("ok");
    let recording = tools::repo_root().join(H100X8);
    let run = project.torchrun(
        &python,
        project.world(),
        &["--probe-recording", &recording.to_string_lossy()],
        &[],
    );
    let shown = shown(&run);
    assert_eq!(run.status.code(), Some(0), "{shown}");
    // The plan's experiment_seed is the base outside Determined.
    let base = project.plan["experiment"]["seed"].as_u64().expect("seed");
    assert_eq!(base, 1000);
    let ranks = project.assert_ranks(base, &shown);
    for (r, got) in ranks.iter().enumerate() {
        // No Determined launcher in between.
        assert_eq!(got["launcher"]["USE_TORCH_DISTRIBUTED"], Value::Null);
        assert!(
            shown.contains(&ok_line(&project, r)),
            "{}\n{shown}",
            ok_line(&project, r)
        );
    }
    assert_eq!(project.markers(), ((0..6).collect(), (0..6).collect()));
}

/// `h100x8.json` with device `bad` replaced by an A100.
fn recording_with_an_a100_at(bad: usize, dir: &Path) -> PathBuf {
    let root = tools::repo_root();
    let mut h100 = read_json(&root.join(H100X8));
    let mixed = read_json(&root.join("tests/probes/mixed-a100-h100.json"));
    let mut a100 = mixed["devices"][0].clone();
    assert!(a100["name"].as_str().expect("name").contains("A100"));
    a100["ordinal"] = Value::from(bad);
    a100["pci_bus_id"] = h100["devices"][bad]["pci_bus_id"].clone();
    h100["devices"][bad] = a100;
    let path = dir.join("a100-at-4.json");
    std::fs::write(&path, serde_json::to_string_pretty(&h100).expect("json")).expect("write recording");
    path
}

#[test]
fn a_rank_on_the_wrong_gpu_stops_the_job_before_init_process_group() {
    let Some(python) = tool(
        "torch",
        "torchrun::a_rank_on_the_wrong_gpu_stops_the_job_before_init_process_group",
    ) else {
        return;
    };
    let project = Project::new("wrong-gpu");
    let recording = recording_with_an_a100_at(4, project.dir.path());
    let run = project.torchrun(
        &python,
        project.world(),
        &["--probe-recording", &recording.to_string_lossy()],
        &[],
    );
    let shown = shown(&run);
    assert_ne!(run.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("stagec exec: rank 4 (stage 1 `Body`, replica 1) on GPU 4")
            && shown.contains("expected a GPU of type `h100-80g`, found NVIDIA A100-SXM4-40GB"),
        "{shown}"
    );
    // Rank 4's script never started; the others may have started, but
    // torchrun stopped them while they waited for rank 4 in
    // init_process_group: none of them joined, nothing was trained.
    let (started, joined) = project.markers();
    assert!(!started.contains(&4), "rank 4's command ran: {started:?}\n{shown}");
    assert!(joined.is_empty(), "ranks {joined:?} passed init_process_group\n{shown}");
    assert!(!project.out().join("ranks.json").exists());
}

#[test]
fn a_short_world_stops_every_rank_before_its_command() {
    let Some(python) = tool("torch", "torchrun::a_short_world_stops_every_rank_before_its_command") else {
        return;
    };
    let project = Project::new("short");
    let recording = tools::repo_root().join(H100X8);
    // 4 processes for the plan's 6.
    let run = project.torchrun(&python, 4, &["--probe-recording", &recording.to_string_lossy()], &[]);
    let shown = shown(&run);
    assert_ne!(run.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("the launcher started 4 ranks (WORLD_SIZE=4), the plan has 6 (3 stages × 2 replicas)"),
        "{shown}"
    );
    assert_eq!(project.markers(), (vec![], vec![]), "a command ran\n{shown}");
    assert!(!project.out().join("ranks.json").exists());
}

#[test]
fn a_failing_environment_step_never_starts_the_command() {
    let Some(python) = tool("torch", "torchrun::a_failing_environment_step_never_starts_the_command") else {
        return;
    };
    let project = Project::new("env-fails");
    let recording = tools::repo_root().join(H100X8);
    // Every rank passes verify; the seed base cannot be read.
    let run = project.torchrun(
        &python,
        project.world(),
        &["--probe-recording", &recording.to_string_lossy()],
        &[("DET_TRIAL_SEED", "not-a-seed")],
    );
    let shown = shown(&run);
    assert_ne!(run.status.code(), Some(0), "{shown}");
    assert!(shown.contains("DET_TRIAL_SEED is `not-a-seed`"), "{shown}");
    assert_eq!(project.markers(), (vec![], vec![]), "a command ran\n{shown}");
}

/// Determined's launcher (`determined.launch.torch_distributed`, 0.38.1 from
/// PyPI), read from its source:
///
/// - It starts with `det.get_cluster_info()` and asserts "must be run
///   on-cluster" when that is None. The agent writes the cluster info into
///   the container (`/run/determined/info/cluster.json` and
///   `rendezvous.json`, fixed paths no variable moves), so outside a cluster
///   the launcher cannot run as it is. `tests/torchrun/det_cluster.py`
///   builds that object for one container with 6 slots on this host, sets
///   it where `get_cluster_info()` looks, and runs the launcher module
///   unchanged. That stand-in, and no master, trial API or log shipping
///   behind it, is what is not faithful.
/// - It runs `python3 -m determined.exec.pid_server … -- python3 -m
///   torch.distributed.run --nnodes 1 --nproc_per_node <slots> … --module
///   determined.exec.pid_client … -- python3 -m determined.launch.wrap_rank
///   RANK -- <the command>`: `python3` from PATH (here the venv's), one
///   process per slot, and the command after the launcher's first `--`
///   (TORCH_OVERRIDES go before it) passed through argparse REMAINDERs and
///   `subprocess.Popen` with no shell. `wrap_rank` prefixes each line of
///   the rank's output with `[rank=N] `.
/// - `DET_TRIAL_SEED` is set by the master in the trial's container, not by
///   the launcher: the test sets it as the master would.
///
/// So the command survives its wrapping intact (`stagec exec` finds `--`
/// and the training script's arguments as given), and every rank runs under
/// pid_server, torch.distributed.run, pid_client and wrap_rank as on a
/// cluster.
#[test]
fn determined_launcher_runs_the_command_on_every_rank() {
    let test = "torchrun::determined_launcher_runs_the_command_on_every_rank";
    let Some(python) = tool("determined", test) else {
        return;
    };
    let project = Project::new("determined");
    let recording = tools::repo_root().join(H100X8);
    let venv_bin = python.parent().expect("venv bin").to_path_buf();
    let stagec_dir = stagec_exe().parent().expect("stagec's folder").to_path_buf();
    // `python3` is the venv's (the launcher calls it by name) and `stagec`
    // is the one under test, both found on PATH as in the image.
    let path = std::env::join_paths(
        [venv_bin, stagec_dir]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("PATH");
    let allocation = format!("stagec-torchrun-{}", std::process::id());
    let mut cmd = project.command(&python);
    cmd.arg("det_cluster.py")
        .arg(project.world().to_string())
        .arg(&allocation)
        .args(TORCH_113_STD_WORKAROUND)
        .args(["--monitor_interval", "0.5"])
        // The entrypoint of tests/torchrun/const.yaml from here on, with
        // the recorded probe and the script's arguments.
        .args(["--", "stagec", "exec", "--probe-recording"])
        .arg(&recording)
        .args(["--", "python3", "probe_train.py"])
        .arg(project.out())
        .arg(ODD_ARG)
        .env("PATH", path)
        .env("C10D_PORT", free_port().to_string())
        .env("DET_TRIAL_SEED", "77");
    let run = tools::output_within(&mut cmd, LIMIT);
    let _ = std::fs::remove_file(format!("/tmp/pid_server-{allocation}"));
    let shown = shown(&run);
    assert_eq!(run.status.code(), Some(0), "{shown}");
    // The trial's seed is the base under Determined.
    let ranks = project.assert_ranks(77, &shown);
    for (r, got) in ranks.iter().enumerate() {
        assert_eq!(
            got["launcher"]["USE_TORCH_DISTRIBUTED"], "True",
            "rank {r}: not under the launcher"
        );
        assert_eq!(got["launcher"]["DET_CHIEF_IP"], "127.0.0.1");
        // stagec ran under wrap_rank, which prefixed its line.
        let line = format!("[rank={r}] {}", ok_line(&project, r));
        assert!(shown.contains(&line), "{line}\n{shown}");
    }
    assert_eq!(project.markers(), ((0..6).collect(), (0..6).collect()));
    // The entrypoint the test ran is the project's own.
    let config = std::fs::read_to_string(project.dir.path().join("const.yaml")).expect("config");
    assert!(
        config.contains("python3 -m determined.launch.torch_distributed --\n  stagec exec -- python3 probe_train.py"),
        "tests/torchrun/const.yaml's entrypoint changed: update this test"
    );
}

/// The codes `stagec check --format json --show-infos` reports for `config`.
fn check_codes(config: &Path) -> (Option<i32>, Vec<String>) {
    let run = Command::new(stagec_exe())
        .args(["check", "--format", "json", "--show-infos"])
        .arg(config)
        .env("S3_ACCESS_KEY", "a")
        .env("S3_SECRET_KEY", "b")
        .output()
        .expect("run stagec check");
    let json: Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("stagec check printed no JSON ({e}):\n{}", text(&run.stderr)));
    let codes = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect();
    (run.status.code(), codes)
}

/// The entrypoint each example's README suggests for the cluster (its
/// ```` ```yaml ```` block with `entrypoint:`), put into a copy of the
/// example, checks as the example itself does: it runs the training code
/// (no T113 "nothing trains", no T100 "not analysed"). The README once
/// suggested `stagec exec -- python3 train.py` around a file that only
/// defines the trial class; that form is checked to give T113.
#[test]
fn every_examples_documented_entrypoint_trains() {
    let root = tools::repo_root();
    let mut seen = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .expect("examples/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
        let blocks = readme.split("```yaml\n").skip(1).filter_map(|b| b.split("```").next());
        for block in blocks.filter(|b| b.starts_with("entrypoint:")) {
            seen += 1;
            let work = tools::TempDir::new("stagec-readme-entrypoint");
            tools::copy_files(&dir, work.path());
            let config = std::fs::read_to_string(dir.join("const.yaml")).expect("const.yaml");
            let (_, as_is) = check_codes(&dir.join("const.yaml"));
            let with = |entrypoint: &str| -> String {
                let mut done = false;
                let mut out = String::new();
                for line in config.lines() {
                    if line.starts_with("entrypoint:") && !done {
                        out.push_str(entrypoint.trim_end());
                        done = true;
                    } else {
                        out.push_str(line);
                    }
                    out.push('\n');
                }
                assert!(done, "{}: const.yaml has no one-line entrypoint", dir.display());
                out
            };
            let path = work.path().join("const.yaml");
            std::fs::write(&path, with(block)).expect("write");
            let (status, codes) = check_codes(&path);
            assert_eq!(
                (status, &codes),
                (Some(0), &as_is),
                "{}/README.md's entrypoint checks otherwise than the example:\n{block}",
                dir.display()
            );
            if block.contains("determined.exec.harness") {
                let script = block.replace(
                    "python3 -m determined.exec.harness train:HybridTrial",
                    "python3 train.py",
                );
                std::fs::write(&path, with(&script)).expect("write");
                let (_, codes) = check_codes(&path);
                assert!(codes.iter().any(|c| c == "T113"), "{script}: {codes:?}");
            }
        }
    }
    assert!(seen >= 1, "no README suggests an entrypoint");
}
