//! Command-line interface: arguments (clap), file reading, output and exit
//! codes. All checking happens in the library.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::render::{self, human::Style, Report, Summary};
use crate::{check, rules};

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

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check experiment configs and report located diagnostics.
    Check {
        /// Experiment config files (const.yaml, ...).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Exit with status 1 when there are warnings.
        #[arg(long)]
        deny_warnings: bool,
    },
    /// List every rule with its code and summary.
    Rules,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Github,
    Sarif,
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
        Command::Check {
            files,
            format,
            deny_warnings,
        } => run_check(&files, format, deny_warnings),
        Command::Rules => run_rules(),
        Command::Explain { code } => run_explain(&code),
        Command::Schema { out, stdout } => run_schema(&out, stdout),
    })
}

fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn run_check(files: &[PathBuf], format: Format, deny_warnings: bool) -> u8 {
    let opts = check::Options {
        env: &env_lookup,
        ..check::Options::default()
    };
    let mut results = Vec::new();
    let mut unreadable = false;
    for path in files {
        match read_limited(path, opts.budgets.max_bytes) {
            Ok(bytes) => results.push(check::check_experiment(&path.display().to_string(), &bytes, &opts)),
            Err(e) => {
                eprintln!("stagec: cannot read {}: {e}", path.display());
                unreadable = true;
            }
        }
    }
    let reports: Vec<Report<'_>> = results
        .iter()
        .map(|c| Report {
            sources: &c.sources,
            diagnostics: &c.diagnostics,
        })
        .collect();
    let summary = Summary::of(&reports, results.len());
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
        Format::Json => render::json::render(&reports, summary),
        Format::Github => render::github::render(&reports, summary),
        Format::Sarif => render::sarif::render(&reports),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    if unreadable {
        EXIT_USAGE
    } else if summary.errors > 0 || (deny_warnings && summary.warnings > 0) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// Reads at most `limit + 1` bytes, so a huge file costs no memory; the
/// checker then reports it as too large.
fn read_limited(path: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "is a directory"));
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
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
            eprintln!("stagec: no rule `{code}`; `stagec rules` lists them");
            EXIT_USAGE
        }
    }
}

fn run_schema(out: &Path, stdout: bool) -> u8 {
    let schemas = crate::schemas::all();
    if stdout {
        if let Some((_, text)) = schemas.first() {
            print!("{text}");
        }
        return EXIT_OK;
    }
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("stagec: cannot create {}: {e}", out.display());
        return EXIT_USAGE;
    }
    for (name, text) in schemas {
        let path = out.join(name);
        if let Err(e) = crate::fsutil::write_atomic(&path, text.as_bytes()) {
            eprintln!("stagec: cannot write {}: {e}", path.display());
            return EXIT_USAGE;
        }
        println!("wrote {}", path.display());
    }
    EXIT_OK
}
