//! Command-line interface: arguments (clap), file reading, output and exit
//! codes. All checking happens in the library.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use stagec::render::{self, human::Style, Report, Summary};
use stagec::{project, rules};

/// `eprintln!` for messages that may hold input's text (paths, names,
/// values): see [`stderr_text`].
macro_rules! eprintln_escaped {
    ($($arg:tt)*) => {
        eprintln!("{}", crate::cli::stderr_text(&format!($($arg)*)))
    };
}

/// A message as stderr shows it: input's control characters and line feeds
/// escaped ([`stagec::escape::line`]), so a path holding a line break cannot
/// forge a line (GitHub reads workflow commands from a step's stderr too);
/// only the line breaks joining several `stagec: ` messages are kept.
pub(crate) fn stderr_text(message: &str) -> String {
    const JOIN: &str = "\nstagec: ";
    let parts: Vec<_> = message.split(JOIN).map(stagec::escape::line).collect();
    parts.join(JOIN)
}

mod check_cmd;
mod discover;
mod plan;
mod probe;
mod python_files;
mod rank;
mod settings;

/// Exit status: no errors.
pub const EXIT_OK: u8 = 0;
/// Exit status: errors found (or warnings with `--deny-warnings`).
pub const EXIT_FINDINGS: u8 = 1;
/// Exit status: the command could not run.
pub const EXIT_USAGE: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "stagec",
    version,
    about = "Compile and validate Determined experiment configs with heterogeneous pipeline stages"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Which plan and which rank (`env`, `exec`, `verify`).
#[derive(Args, Debug)]
pub struct RankArgs {
    /// The plan (`stage_plan.json`; default: `STAGEC_PLAN`).
    #[arg(long, value_name = "FILE")]
    plan: Option<PathBuf>,
    /// The global rank (default: `RANK`).
    #[arg(long)]
    rank: Option<u64>,
}

/// Which device, and whether to probe it or replay a recording (`exec`, `verify`).
#[derive(Args, Debug)]
pub struct DeviceArgs {
    /// The rank's device among the visible ones (default: `LOCAL_RANK`, else 0).
    #[arg(long)]
    device: Option<usize>,
    /// Replay a recorded probe instead of probing.
    #[arg(long, value_name = "FILE")]
    probe_recording: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check experiment configs and report located diagnostics.
    Check(check_cmd::CheckArgs),
    /// Check, then write the resolved stage_plan.json, stage_plan.env and determined.yaml.
    Plan {
        /// The experiment config.
        file: PathBuf,
        #[command(flatten)]
        sources: SourceArgs,
        /// Output directory (default: `stagec-plan` inside the context directory, so the plan
        /// is uploaded with the experiment and the trial finds it through `STAGEC_PLAN`).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Write the values of `${VAR}` references into determined.yaml (mode 0600) instead of
        /// keeping the references.
        #[arg(long)]
        resolve_secrets: bool,
        /// Output format of the diagnostics.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Show infos in the human, concise and GitHub formats, as `check --show-infos` does.
        #[arg(long)]
        show_infos: bool,
    },
    /// Probe the local GPUs through the CUDA driver.
    Probe {
        /// Output format.
        #[arg(long, value_enum, default_value_t = ProbeFormat::Human)]
        format: ProbeFormat,
        /// Replay a recorded probe (JSON from `stagec probe --format json`) instead of probing.
        #[arg(long, value_name = "FILE")]
        recording: Option<PathBuf>,
    },
    /// The probe's driver calls, in this process (what `probe` runs in a child process).
    #[command(name = "__probe-driver", hide = true)]
    ProbeDriver,
    /// Compare two plans: one line per difference that changes results.
    Diff { plan_a: PathBuf, plan_b: PathBuf },
    /// Print a rank's environment as `export` lines: its stage, replica, seeds and dtype, and
    /// the plan's variables. To run a command as the rank, `stagec exec` does both; to compose
    /// your own: `env="$(stagec env --plan P)" && eval "$env" && exec …`.
    Env {
        #[command(flatten)]
        at: RankArgs,
        /// Base of the seeds (default: `DET_TRIAL_SEED`, else the plan's
        /// `reproducibility.experiment_seed`): `STAGEC_DATA_SEED` = base + replica,
        /// `STAGEC_RANK_SEED` = base + rank.
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Run a command as one rank of a plan: check the rank as `verify` does, set its
    /// environment as `env` computes it, and replace this process with the command (no
    /// shell; its exit status is the command's). Any failure stops the rank before the
    /// command starts, with verify's or env's message and status. Under torchrun:
    /// `torchrun --nproc-per-node N --no-python stagec exec -- python3 train.py`.
    Exec {
        #[command(flatten)]
        at: RankArgs,
        #[command(flatten)]
        on: DeviceArgs,
        /// Base of the seeds (default: `DET_TRIAL_SEED`, else the plan's
        /// `reproducibility.experiment_seed`).
        #[arg(long)]
        seed: Option<u64>,
        /// The command and its arguments, after `--`.
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<std::ffi::OsString>,
    },
    /// Check, on a rank, that the local GPU is the one the plan assigns to its stage: GPU
    /// type, memory, the stage dtype's compute capability, the driver against the image; and
    /// the launcher's `WORLD_SIZE` and `LOCAL_WORLD_SIZE`, where set, against the plan's world
    /// and the visible devices. Exits 0 with one line, or 1 saying which rank, stage, expected
    /// and found.
    Verify {
        #[command(flatten)]
        at: RankArgs,
        #[command(flatten)]
        on: DeviceArgs,
    },
    /// List every rule with its code and summary.
    Rules {
        /// Write the rule documentation pages (one Markdown file per rule, and an index) into
        /// this directory instead (the repository's `docs/rules`).
        #[arg(long, value_name = "DIR")]
        docs: Option<PathBuf>,
    },
    /// Explain a rule: what it checks, why, and an example.
    Explain {
        /// A rule code (e.g. Y002) or name (e.g. duplicate-key).
        code: String,
    },
    /// Write the generated JSON Schemas.
    Schema {
        /// Directory to write into.
        #[arg(long, default_value = "schemas")]
        out: PathBuf,
        /// Print the experiment schema to stdout instead.
        #[arg(long)]
        stdout: bool,
    },
}

/// Where a check finds the files beside the config.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SourceArgs {
    /// The experiment's context directory, as `det experiment create CONFIG CONTEXT` uploads it
    /// (default: the config's folder). Stage declarations are looked for here.
    #[arg(long, value_name = "DIR")]
    pub context: Option<PathBuf>,
    /// A model source with stage declarations (`*.py` or `stages.yaml`); repeatable.
    /// Replaces the search of the context directory.
    #[arg(long = "model", value_name = "FILE")]
    pub models: Vec<PathBuf>,
    /// Cluster inventory: stagec's inventory YAML, `kubectl get nodes -o json`, or nvidia-smi CSV.
    #[arg(long, value_name = "FILE", conflicts_with = "probe")]
    pub inventory: Option<PathBuf>,
    /// Use this machine's GPUs, probed through the CUDA driver, as the inventory.
    #[arg(long)]
    pub probe: bool,
    /// With `--probe`: replay a recorded probe instead of probing.
    #[arg(long, value_name = "FILE", requires = "probe")]
    pub probe_recording: Option<PathBuf>,
    /// The Determined release the cluster runs (e.g. `0.38.1`): its default image applies
    /// where the config sets none. Default: the newest release stagec knows.
    #[arg(long, value_name = "VERSION", value_parser = parse_determined)]
    pub determined: Option<String>,
    /// Settings files and rule selection (`settings.rs`).
    #[command(flatten)]
    pub settings: settings::SettingsArgs,
}

/// A Determined release whose default image stagec knows.
fn parse_determined(text: &str) -> Result<String, String> {
    match stagec::runtime::image::default_image(text) {
        Some(_) => Ok(text.to_string()),
        None => Err(format!(
            "stagec knows Determined's default images for releases 0.15.0 to {}",
            stagec::runtime::image::latest_determined()
        )),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProbeFormat {
    Human,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Source snippets with labels and help (the default).
    Human,
    /// One line per diagnostic: `path:line:col: CODE message`.
    Concise,
    /// One JSON document with every diagnostic, its fix and documentation URL.
    Json,
    /// GitHub Actions annotations.
    Github,
    /// SARIF 2.1.0 for code scanning.
    Sarif,
}

impl Format {
    /// Whether the format shows infos without `--show-infos` (the machine
    /// formats carry everything; the ones people read leave infos out).
    fn shows_infos(self) -> bool {
        matches!(self, Format::Json | Format::Sarif)
    }
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    ExitCode::from(match cli.command {
        Command::Check(args) => check_cmd::run_check(&args),
        Command::Plan {
            file,
            sources,
            out,
            resolve_secrets,
            format,
            show_infos,
        } => plan::run_plan(&file, &sources, out.as_deref(), resolve_secrets, format, show_infos),
        Command::Probe { format, recording } => probe::run_probe(format, recording.as_deref()),
        Command::ProbeDriver => probe::run_probe_driver(),
        Command::Diff { plan_a, plan_b } => plan::run_diff(&plan_a, &plan_b),
        Command::Env { at, seed } => rank::run_env(at.plan.as_deref(), at.rank, seed),
        Command::Exec { at, on, seed, command } => rank::run_exec(&rank::ExecArgs {
            plan: at.plan.as_deref(),
            rank: at.rank,
            device: on.device,
            seed,
            recording: on.probe_recording.as_deref(),
            command: &command,
        }),
        Command::Verify { at, on } => {
            rank::run_verify(at.plan.as_deref(), at.rank, on.device, on.probe_recording.as_deref())
        }
        Command::Rules { docs: None } => run_rules(),
        Command::Rules { docs: Some(dir) } => write_rule_docs(&dir),
        Command::Explain { code } => run_explain(&code),
        Command::Schema { out, stdout } => run_schema(&out, stdout),
    })
}

pub(crate) fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Assembles the project of each config named on the command line, with
/// one scan per context folder and one probe per run.
pub(crate) struct Loader {
    context: Option<PathBuf>,
    spec: project::SourceSpec,
    scans: std::collections::HashMap<PathBuf, project::ContextScan>,
    /// The settings of each checked file (`settings.rs`).
    pub(crate) settings: settings::Resolver,
}

impl Loader {
    /// Reads what every config shares (the probe); `Err` when it cannot.
    pub(crate) fn new(sources: &SourceArgs) -> Result<Loader, String> {
        let probe = if sources.probe {
            Some(probe::probe_report(sources.probe_recording.as_deref())?)
        } else {
            None
        };
        Ok(Loader {
            context: sources.context.clone(),
            spec: project::SourceSpec {
                models: sources.models.clone(),
                inventory: sources.inventory.clone(),
                probe,
            },
            scans: Default::default(),
            settings: settings::Resolver::new(&sources.settings, sources.inventory.is_some() || sources.probe)?,
        })
    }

    /// The project of the config at `path`, and what could not be read
    /// (a context's scan problems only with its first config).
    pub(crate) fn project(&mut self, path: &Path) -> (Option<project::Project>, Vec<String>) {
        self.project_with(path, &[])
    }

    /// The project of a config whose text was read elsewhere (stdin), as if
    /// it were at `path`; without a path, the config on its own.
    pub(crate) fn project_from(&mut self, path: &Path, text: &str) -> (Option<project::Project>, Vec<String>) {
        if path.as_os_str() == "-" {
            let mut p = project::Project::config_only("-", text);
            p.probe = self.spec.probe.clone();
            return (Some(p), Vec::new());
        }
        let overlay = OneFile { path, text };
        self.project_through(path, &[], &overlay)
    }

    /// [`Loader::project`], with Python files `named` on the command line
    /// read as training code of the experiment too.
    pub(crate) fn project_with(&mut self, path: &Path, named: &[PathBuf]) -> (Option<project::Project>, Vec<String>) {
        self.project_through(path, named, &project::Disk)
    }

    pub(crate) fn project_through(
        &mut self,
        path: &Path,
        named: &[PathBuf],
        overlay: &dyn project::Overlay,
    ) -> (Option<project::Project>, Vec<String>) {
        let mut problems = Vec::new();
        let scan = if self.spec.models.is_empty() {
            let dir = context_dir(path, self.context.as_deref());
            let scan = self.scans.entry(dir).or_insert_with_key(|dir| {
                let scan = project::ContextScan::new(dir);
                problems.extend(scan.problems.iter().cloned());
                scan
            });
            Some(&*scan)
        } else {
            None
        };
        // The settings' inventory, where the command line names none.
        let with_inventory;
        let spec = match self.settings.inventory_for(path) {
            Some(inventory) => {
                with_inventory = project::SourceSpec {
                    inventory: Some(inventory),
                    ..self.spec.clone()
                };
                &with_inventory
            }
            None => &self.spec,
        };
        match project::Project::discover_with(path, spec, scan, overlay, named) {
            Ok((project, more)) => {
                problems.extend(more);
                (Some(project), problems)
            }
            Err(e) => {
                problems.push(e);
                (None, problems)
            }
        }
    }
}

/// One file's text held in memory (the config read from stdin).
struct OneFile<'a> {
    path: &'a Path,
    text: &'a str,
}

impl project::Overlay for OneFile<'_> {
    fn text(&self, path: &Path) -> Option<&str> {
        (path == self.path).then_some(self.text)
    }

    fn paths(&self) -> Vec<PathBuf> {
        vec![self.path.to_path_buf()]
    }
}

/// The context directory: `--context`, else the config's folder.
pub(crate) fn context_dir(config_path: &Path, context: Option<&Path>) -> PathBuf {
    context.map(Path::to_path_buf).unwrap_or_else(|| {
        config_path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf()
    })
}

/// Renders the diagnostics of `results` to stdout in `format`; infos only
/// in the formats that show them, or with `show_infos`.
pub(crate) fn print_diagnostics(results: &[stagec::Compiled], format: Format, show_infos: bool) -> Summary {
    let all: Vec<Report<'_>> = results.iter().map(Report::of).collect();
    let mut summary = Summary::of(&all, results.len());
    let kept: Vec<Vec<stagec::Diagnostic>> = if show_infos || format.shows_infos() {
        Vec::new()
    } else {
        results
            .iter()
            .map(|c| {
                let shown = c.diagnostics.iter().filter(|d| d.severity != stagec::Severity::Info);
                shown.cloned().collect()
            })
            .collect()
    };
    let reports: Vec<Report<'_>> = if kept.is_empty() {
        all
    } else {
        summary.hidden_infos = summary.infos;
        results
            .iter()
            .zip(&kept)
            .map(|(c, d)| Report {
                diagnostics: d,
                ..Report::of(c)
            })
            .collect()
    };
    let text = match format {
        Format::Human => {
            let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            let style = Style {
                color,
                unicode: color,
                width: terminal_width(),
            };
            render::human::render(&reports, summary, style)
        }
        Format::Concise => render::concise::render(&reports, summary),
        Format::Json => render::json::render(&reports, summary),
        Format::Github => render::github::render(&reports, summary),
        Format::Sarif => render::sarif::render(&reports),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    summary
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|w| *w >= 40)
        .unwrap_or(100)
}

fn run_rules() -> u8 {
    let mut out = String::new();
    for r in rules::all() {
        out.push_str(&format!(
            "{:<6} {:<8} {:<24} {}\n",
            r.code,
            r.severity.as_str(),
            r.name,
            r.summary
        ));
    }
    print!("{out}");
    EXIT_OK
}

/// Writes `docs/rules/`: a page per rule and the index, replacing pages of
/// rules that no longer exist.
fn write_rule_docs(dir: &Path) -> u8 {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln_escaped!("stagec: cannot create {}: {e}", dir.display());
        return EXIT_USAGE;
    }
    let mut pages: Vec<(String, String)> = rules::all()
        .map(|r| (format!("{}.md", r.name), rules::docs_page(r)))
        .collect();
    pages.push(("README.md".to_string(), rules::docs_index()));
    if let Ok(listing) = std::fs::read_dir(dir) {
        for entry in listing.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") && !pages.iter().any(|(n, _)| *n == name) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    for (name, text) in &pages {
        let path = dir.join(name);
        if let Err(e) = stagec::fsutil::write_atomic(&path, text.as_bytes()) {
            eprintln_escaped!("stagec: cannot write {}: {e}", path.display());
            return EXIT_USAGE;
        }
    }
    println!(
        "wrote {} pages to {}",
        pages.len(),
        stagec::escape::line(&dir.display().to_string())
    );
    EXIT_OK
}

fn run_explain(code: &str) -> u8 {
    match rules::lookup(code) {
        Some(r) => {
            print!(
                "# {} {} ({})\n\n{}\n\n{}",
                r.code,
                r.name,
                r.severity.as_str(),
                r.summary,
                rules::explanation_text(r)
            );
            EXIT_OK
        }
        None => {
            eprintln_escaped!("stagec: no rule `{code}`; `stagec rules` lists them");
            EXIT_USAGE
        }
    }
}

fn run_schema(out: &Path, stdout: bool) -> u8 {
    let schemas = stagec::schemas::all();
    if stdout {
        if let Some((_, text)) = schemas.first() {
            print!("{text}");
        }
        return EXIT_OK;
    }
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln_escaped!("stagec: cannot create {}: {e}", out.display());
        return EXIT_USAGE;
    }
    for (name, text) in schemas {
        let path = out.join(name);
        if let Err(e) = stagec::fsutil::write_atomic(&path, text.as_bytes()) {
            eprintln_escaped!("stagec: cannot write {}: {e}", path.display());
            return EXIT_USAGE;
        }
        println!("wrote {}", stagec::escape::line(&path.display().to_string()));
    }
    EXIT_OK
}
