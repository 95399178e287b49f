//! What an experiment's `entrypoint` runs: the launch layers Determined (or
//! the command itself) puts in front, and the Python script, module or
//! trial class at the end, with its arguments. Read from the text alone;
//! nothing is looked up on disk here.

/// The launcher in front of the training code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launcher {
    /// No launcher: one process per container.
    None,
    /// `python3 -m determined.launch.torch_distributed` (also what a legacy
    /// `module:Class` entrypoint becomes).
    DetTorchDistributed,
    /// `python3 -m determined.launch.deepspeed`.
    DetDeepSpeed,
    /// `python3 -m determined.launch.horovod`.
    DetHorovod,
    /// `python3 -m determined.launch.tensorflow` (Keras' distribution
    /// strategies).
    DetTensorflow,
    /// `torchrun`, `python -m torch.distributed.run|launch`.
    Torchrun,
    /// The `deepspeed` command.
    DeepSpeed,
    /// `accelerate launch`.
    Accelerate,
    /// `horovodrun`.
    Horovodrun,
}

impl Launcher {
    /// How the launcher is written, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Launcher::None => "no launcher",
            Launcher::DetTorchDistributed => "determined.launch.torch_distributed",
            Launcher::DetDeepSpeed => "determined.launch.deepspeed",
            Launcher::DetHorovod => "determined.launch.horovod",
            Launcher::DetTensorflow => "determined.launch.tensorflow",
            Launcher::Torchrun => "torchrun",
            Launcher::DeepSpeed => "deepspeed",
            Launcher::Accelerate => "accelerate launch",
            Launcher::Horovodrun => "horovodrun",
        }
    }
}

/// What finally runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A script path as written (relative to the working directory).
    Script(String),
    /// `python -m a.b`.
    Module(String),
    /// A trial class: `module:Qual.Name`.
    Trial { module: String, qualname: String },
}

/// How many processes the launcher starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Procs {
    /// One per slot of the trial (`slots_per_trial`).
    Slots,
    /// A count written in the command.
    Fixed(i64),
    /// One process.
    One,
}

/// The entrypoint, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub launcher: Launcher,
    pub target: Target,
    /// Arguments after the script or module.
    pub argv: Vec<String>,
    /// A `cd DIR` before the command (relative to the context).
    pub cwd: Option<String>,
    pub procs: Procs,
    /// Whether the entrypoint is the deprecated `module:Class` string.
    pub legacy: bool,
}

/// Why an entrypoint does not name Python training code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotPython {
    /// A shell script or shell command (the command as written, cut).
    Shell(String),
    /// `python -c …`.
    InlineCode,
    /// An executable stagec does not know.
    Unknown(String),
    /// Nothing to run.
    Empty,
}

/// Determined's legacy trial form `module.path:Class` (its regex
/// `^[a-zA-Z0-9_.]+:[a-zA-Z0-9_]+$`).
fn legacy(s: &str) -> Option<(String, String)> {
    let (module, class) = s.trim().split_once(':')?;
    let ok_module = !module.is_empty()
        && module
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    let ok_class = !class.is_empty() && class.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (ok_module && ok_class).then(|| (module.to_string(), class.to_string()))
}

/// Reads a string entrypoint.
pub fn read_command(command: &str) -> Result<Launch, NotPython> {
    if let Some((module, qualname)) = legacy(command) {
        return Ok(Launch {
            launcher: Launcher::DetTorchDistributed,
            target: Target::Trial { module, qualname },
            argv: Vec::new(),
            cwd: None,
            procs: Procs::Slots,
            legacy: true,
        });
    }
    read_argv(&split(command))
}

/// Reads an entrypoint given as an argument vector (a list entrypoint, or
/// the words of a command line).
pub fn read_argv(words: &[String]) -> Result<Launch, NotPython> {
    // Simple commands separated by `&&`, `||`, `;`.
    let mut commands: Vec<&[String]> = Vec::new();
    let mut start = 0usize;
    for (i, w) in words.iter().enumerate() {
        if matches!(w.as_str(), "&&" | "||" | ";" | "|" | "&") {
            commands.push(&words[start..i]);
            start = i + 1;
        }
    }
    commands.push(&words[start..]);
    let mut cwd: Option<String> = None;
    let mut last_err = NotPython::Empty;
    let mut found: Option<Launch> = None;
    for command in commands {
        let command = strip_prefix_words(command);
        let Some(head) = command.first() else { continue };
        if head == "cd" {
            cwd = command.get(1).map(|d| join(cwd.as_deref(), d));
            continue;
        }
        if is_setup_command(head) {
            continue;
        }
        match read_simple(command) {
            Ok(mut launch) => {
                launch.cwd = cwd.clone();
                found = Some(launch);
            }
            Err(e) => last_err = e,
        }
    }
    found.ok_or(last_err)
}

/// Commands that prepare a run and are not the training itself.
fn is_setup_command(head: &str) -> bool {
    let base = head.rsplit('/').next().unwrap_or(head);
    matches!(
        base,
        "pip"
            | "pip3"
            | "export"
            | "echo"
            | "mkdir"
            | "cp"
            | "ls"
            | "apt-get"
            | "apt"
            | "nvidia-smi"
            | "wandb"
            | "set"
            | "source"
            | "true"
            | "conda"
    )
}

fn join(base: Option<&str>, dir: &str) -> String {
    match base {
        Some(b) if !dir.starts_with('/') => format!("{}/{}", b.trim_end_matches('/'), dir),
        _ => dir.to_string(),
    }
}

/// Drops leading `VAR=value` words, `env [VAR=value…]`, `exec`, `time`.
fn strip_prefix_words(mut command: &[String]) -> &[String] {
    loop {
        match command.first().map(String::as_str) {
            Some("env" | "exec" | "time" | "nohup") => command = &command[1..],
            Some(w) if is_assignment(w) => command = &command[1..],
            _ => return command,
        }
    }
}

fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn is_python(word: &str) -> bool {
    let base = word.rsplit('/').next().unwrap_or(word);
    base == "python"
        || base == "python3"
        || base
            .strip_prefix("python")
            .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// One simple command.
fn read_simple(command: &[String]) -> Result<Launch, NotPython> {
    let Some(head) = command.first() else {
        return Err(NotPython::Empty);
    };
    let base = head.rsplit('/').next().unwrap_or(head);
    let rest = &command[1..];
    if is_python(head) {
        return python(rest);
    }
    match base {
        "torchrun" => tool(Launcher::Torchrun, rest),
        "deepspeed" => tool(Launcher::DeepSpeed, rest),
        "horovodrun" => launcher_command(Launcher::Horovodrun, rest),
        "accelerate" if rest.first().map(String::as_str) == Some("launch") => tool(Launcher::Accelerate, &rest[1..]),
        "stagec" if rest.first().map(String::as_str) == Some("exec") => stagec_exec(&rest[1..]),
        "sh" | "bash" | "zsh" | "dash" => Err(NotPython::Shell(shorten(&command.join(" ")))),
        _ if base.ends_with(".sh") => Err(NotPython::Shell(shorten(&command.join(" ")))),
        _ if base.ends_with(".py") => Ok(Launch {
            launcher: Launcher::None,
            target: Target::Script(head.clone()),
            argv: rest.to_vec(),
            cwd: None,
            procs: Procs::One,
            legacy: false,
        }),
        _ => Err(NotPython::Unknown(shorten(head))),
    }
}

fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() > MAX {
        let cut: String = s.chars().take(MAX).collect();
        format!("{cut}…")
    } else {
        s.to_string()
    }
}

/// `stagec exec [options] -- command…`: the command runs in the same
/// process (`execvp`) with the rank's environment, so what it runs is what
/// the entrypoint runs. clap takes the command only after `--`.
fn stagec_exec(rest: &[String]) -> Result<Launch, NotPython> {
    match rest.iter().position(|w| w == "--") {
        Some(i) => read_simple(strip_prefix_words(&rest[i + 1..])),
        // `stagec exec python3 train.py` is a usage error: it runs nothing.
        None => Err(NotPython::Empty),
    }
}

/// Whether the entrypoint runs its training command through `stagec exec`
/// (a fix that rewrites the command must keep it there).
pub fn runs_stagec_exec(command: &str) -> bool {
    argv_runs_stagec_exec(&split(command))
}

/// [`runs_stagec_exec`] for an entrypoint given as an argument vector.
pub fn argv_runs_stagec_exec(words: &[String]) -> bool {
    words
        .windows(2)
        .any(|w| w[0].rsplit('/').next() == Some("stagec") && w[1] == "exec")
}

/// `python [options] (script | -m module | -c code) args…`.
fn python(rest: &[String]) -> Result<Launch, NotPython> {
    let mut i = 0usize;
    while let Some(w) = rest.get(i) {
        match w.as_str() {
            "-m" => {
                let module = rest.get(i + 1).ok_or(NotPython::Empty)?;
                return python_module(module, &rest[i + 2..]);
            }
            "-c" => return Err(NotPython::InlineCode),
            "-X" | "-W" | "--check-hash-based-pycs" => i += 2,
            _ if w.starts_with("-m") && w.len() > 2 => return python_module(&w[2..], &rest[i + 1..]),
            _ if w.starts_with('-') => i += 1,
            _ => {
                return Ok(Launch {
                    launcher: Launcher::None,
                    target: Target::Script(w.clone()),
                    argv: rest[i + 1..].to_vec(),
                    cwd: None,
                    procs: Procs::One,
                    legacy: false,
                })
            }
        }
    }
    Err(NotPython::Empty)
}

fn python_module(module: &str, rest: &[String]) -> Result<Launch, NotPython> {
    match module {
        "determined.launch.torch_distributed" => launcher_command(Launcher::DetTorchDistributed, rest),
        "determined.launch.deepspeed" => launcher_command(Launcher::DetDeepSpeed, rest),
        "determined.launch.horovod" => launcher_command(Launcher::DetHorovod, rest),
        "determined.launch.tensorflow" => launcher_command(Launcher::DetTensorflow, rest),
        "torch.distributed.run" | "torch.distributed.launch" => tool(Launcher::Torchrun, rest),
        "determined.exec.harness" => match rest.first().and_then(|t| legacy(t)) {
            Some((module, qualname)) => Ok(Launch {
                launcher: Launcher::None,
                target: Target::Trial { module, qualname },
                argv: Vec::new(),
                cwd: None,
                procs: Procs::One,
                legacy: false,
            }),
            None => Err(NotPython::Empty),
        },
        _ => Ok(Launch {
            launcher: Launcher::None,
            target: Target::Module(module.to_string()),
            argv: rest.to_vec(),
            cwd: None,
            procs: Procs::One,
            legacy: false,
        }),
    }
}

/// Determined's launchers and `horovodrun`: `[options… --] (--trial T |
/// command…)`.
fn launcher_command(launcher: Launcher, rest: &[String]) -> Result<Launch, NotPython> {
    let trial = |t: &String| -> Result<Launch, NotPython> {
        let (module, qualname) = legacy(t).ok_or(NotPython::Empty)?;
        Ok(Launch {
            launcher,
            target: Target::Trial { module, qualname },
            argv: Vec::new(),
            cwd: None,
            procs: Procs::Slots,
            legacy: false,
        })
    };
    let procs = if launcher == Launcher::Horovodrun {
        count_option(rest, &["-np", "--num-proc"]).map_or(Procs::Slots, Procs::Fixed)
    } else {
        Procs::Slots
    };
    let mut i = 0usize;
    while let Some(w) = rest.get(i) {
        match w.as_str() {
            "--trial" => return rest.get(i + 1).ok_or(NotPython::Empty).and_then(trial),
            _ if w.starts_with("--trial=") => return trial(&w["--trial=".len()..].to_string()),
            "--" => {
                let inner = read_simple(&rest[i + 1..])?;
                return Ok(wrap(launcher, procs, inner));
            }
            "--autohorovod" => i += 1,
            _ if w.starts_with('-') => {
                // `-np 4`, `--nproc_per_node 2`: an option without `=` whose
                // next word is not an option or a command takes it.
                let takes_value = !w.contains('=')
                    && rest
                        .get(i + 1)
                        .is_some_and(|n| !n.starts_with('-') && !is_python(n) && !n.ends_with(".py"));
                i += if takes_value { 2 } else { 1 };
            }
            _ => {
                let inner = read_simple(&rest[i..])?;
                return Ok(wrap(launcher, procs, inner));
            }
        }
    }
    Err(NotPython::Empty)
}

/// The launch of a command started by `launcher`.
fn wrap(launcher: Launcher, procs: Procs, inner: Launch) -> Launch {
    // A launcher around a launcher (determined.launch.torch_distributed
    // around torchrun) keeps the inner one's process count.
    let (launcher, procs) = match inner.launcher {
        Launcher::None => (launcher, procs),
        other => (other, inner.procs),
    };
    Launch {
        launcher,
        procs,
        ..inner
    }
}

/// `torchrun`/`deepspeed`/`accelerate launch`: `[options] script args…`.
fn tool(launcher: Launcher, rest: &[String]) -> Result<Launch, NotPython> {
    let flags: &[&str] = match launcher {
        Launcher::Torchrun => &[
            "--standalone",
            "--no_python",
            "--no-python",
            "--run_path",
            "--run-path",
            "--use_env",
            "--use-env",
        ],
        Launcher::DeepSpeed => &[
            "--no_python",
            "--no_local_rank",
            "--force_multi",
            "--elastic_training",
            "--bind_cores_to_rank",
            "--no_ssh_check",
            "--enable_each_rank_log",
        ],
        _ => &[
            "--multi_gpu",
            "--cpu",
            "--use_deepspeed",
            "--use_fsdp",
            "--use_megatron_lm",
            "--debug",
            "-q",
            "--quiet",
            "--no_python",
            "--same_network",
            "--tpu",
            "--main_training_function",
        ],
    };
    let mut module = false;
    // `--no_python`: the "script" is a command of its own (`torchrun
    // --no-python stagec exec -- python3 train.py`).
    let mut no_python = false;
    let mut i = 0usize;
    while let Some(w) = rest.get(i) {
        match w.as_str() {
            "-m" | "--module" => {
                module = true;
                i += 1;
            }
            "--no_python" | "--no-python" => {
                no_python = true;
                i += 1;
            }
            _ if w.starts_with('-') => {
                i += if w.contains('=') || flags.contains(&w.as_str()) {
                    1
                } else {
                    2
                };
            }
            _ => {
                let procs = match launcher {
                    Launcher::Torchrun => {
                        match option_value(rest, &["--nproc_per_node", "--nproc-per-node"]).as_deref() {
                            None => Procs::One,
                            Some(v) => v.parse::<i64>().map_or(Procs::Slots, Procs::Fixed),
                        }
                    }
                    Launcher::DeepSpeed => {
                        count_option(rest, &["--num_gpus", "--num-gpus"]).map_or(Procs::Slots, Procs::Fixed)
                    }
                    _ => count_option(rest, &["--num_processes", "--num-processes"]).map_or(Procs::Slots, Procs::Fixed),
                };
                if no_python {
                    let inner = read_simple(strip_prefix_words(&rest[i..]))?;
                    return Ok(wrap(launcher, procs, inner));
                }
                let target = if module {
                    Target::Module(w.clone())
                } else {
                    Target::Script(w.clone())
                };
                return Ok(Launch {
                    launcher,
                    target,
                    argv: rest[i + 1..].to_vec(),
                    cwd: None,
                    procs,
                    legacy: false,
                });
            }
        }
    }
    Err(NotPython::Empty)
}

/// The value of the first of `names` given as `--name V` or `--name=V`.
fn option_value(words: &[String], names: &[&str]) -> Option<String> {
    for (i, w) in words.iter().enumerate() {
        for name in names {
            if w == name {
                return words.get(i + 1).cloned();
            }
            if let Some(v) = w.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                return Some(v.to_string());
            }
        }
    }
    None
}

fn count_option(words: &[String], names: &[&str]) -> Option<i64> {
    option_value(words, names)?.parse().ok()
}

/// Splits a command line the way a POSIX shell does (quotes, backslashes);
/// `&&`, `||`, `;`, `|` and `&` outside quotes are words of their own.
pub fn split(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                has = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                has = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some('"' | '\\' | '$' | '`') => {
                                if let Some(e) = chars.next() {
                                    cur.push(e);
                                }
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => cur.push('\\'),
                        },
                        _ => cur.push(d),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(e) => {
                    has = true;
                    cur.push(e);
                }
            },
            ';' | '|' | '&' => {
                if has {
                    words.push(std::mem::take(&mut cur));
                    has = false;
                }
                let mut op = c.to_string();
                if (c == '&' || c == '|') && chars.peek() == Some(&c) {
                    chars.next();
                    op.push(c);
                }
                words.push(op);
            }
            c if c.is_whitespace() => {
                if has {
                    words.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            '#' if !has => break,
            c => {
                has = true;
                cur.push(c);
            }
        }
    }
    if has {
        words.push(cur);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<Launch, NotPython> {
        read_command(s)
    }

    #[test]
    fn forms_of_entrypoints() {
        let l = read("python3 -m determined.launch.torch_distributed python3 train.py --epochs 3")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(l.launcher, Launcher::DetTorchDistributed);
        assert_eq!(l.target, Target::Script("train.py".into()));
        assert_eq!(l.argv, ["--epochs", "3"]);
        assert_eq!(l.procs, Procs::Slots);

        let l =
            read("python3 -m determined.launch.torch_distributed --max_restarts=0 -- python3 -m trainer --epochs 6")
                .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(l.target, Target::Module("trainer".into()));
        assert_eq!(l.argv, ["--epochs", "6"]);

        let l = read("seg.trial:TileSegTrial").unwrap_or_else(|e| panic!("{e:?}"));
        assert!(l.legacy);
        assert_eq!(
            l.target,
            Target::Trial {
                module: "seg.trial".into(),
                qualname: "TileSegTrial".into()
            }
        );

        let l =
            read("python3 -m determined.launch.deepspeed --trial model_def:Trial").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(l.launcher, Launcher::DetDeepSpeed);
        assert!(matches!(l.target, Target::Trial { .. }));

        let l = read("python train.py").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!((l.launcher, l.procs), (Launcher::None, Procs::One));

        let l = read("pip install -r req.txt && cd src && torchrun --nproc_per_node=4 main.py --lr 0.1")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!((l.launcher, l.procs), (Launcher::Torchrun, Procs::Fixed(4)));
        assert_eq!(l.cwd.as_deref(), Some("src"));
        assert_eq!(l.target, Target::Script("main.py".into()));

        let l = read("accelerate launch --num_processes 8 finetune.py").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!((l.launcher, l.procs), (Launcher::Accelerate, Procs::Fixed(8)));

        let l = read_argv(&["python3", "-m", "determined.launch.deepspeed", "python3", "trainer.py"].map(String::from))
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(l.launcher, Launcher::DetDeepSpeed);

        let l = read("python3 -m determined.launch.horovod --autohorovod --trial model_def:T")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(l.launcher, Launcher::DetHorovod);

        let l = read("python3 -m determined.launch.tensorflow -- python3 train.py").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            (l.launcher, l.target),
            (Launcher::DetTensorflow, Target::Script("train.py".into()))
        );
    }

    #[test]
    fn through_stagec_exec() {
        // The examples' wiring under Determined's launcher.
        let l = read(
            "python3 -m determined.launch.torch_distributed -- stagec exec -- python3 -m determined.exec.harness train:HybridTrial",
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!((l.launcher, l.procs), (Launcher::DetTorchDistributed, Procs::Slots));
        assert_eq!(
            l.target,
            Target::Trial {
                module: "train".into(),
                qualname: "HybridTrial".into()
            }
        );
        let l = read("python3 -m determined.launch.torch_distributed -- stagec exec --plan p.json --rank=0 -- python3 train.py --lr 1")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(l.launcher, Launcher::DetTorchDistributed);
        assert_eq!(
            (l.target, l.argv),
            (Target::Script("train.py".into()), vec!["--lr".to_string(), "1".into()])
        );
        // Under torchrun, whose `--no-python` runs the command as it is.
        for spelling in ["--no-python", "--no_python"] {
            let l = read(&format!(
                "torchrun --nproc-per-node 6 {spelling} /usr/local/bin/stagec exec -- python3 train.py"
            ))
            .unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!((l.launcher, l.procs), (Launcher::Torchrun, Procs::Fixed(6)));
            assert_eq!(l.target, Target::Script("train.py".into()));
        }
        let l = read("torchrun --nproc_per_node 2 --no_python python3 train.py").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            (l.launcher, l.target),
            (Launcher::Torchrun, Target::Script("train.py".into()))
        );
        // Without `--` stagec exec runs nothing.
        assert!(matches!(read("stagec exec python3 train.py"), Err(NotPython::Empty)));
        assert!(matches!(read("stagec exec -- sh run.sh"), Err(NotPython::Shell(_))));
        assert!(runs_stagec_exec(
            "python3 -m determined.launch.torch_distributed -- stagec exec -- python3 train.py"
        ));
        assert!(!runs_stagec_exec("python3 train.py --stagec exec"));
    }

    #[test]
    fn not_python() {
        assert!(matches!(read("sh run_all.sh"), Err(NotPython::Shell(_))));
        assert!(matches!(read("./run.sh --x"), Err(NotPython::Shell(_))));
        assert!(matches!(read("python -c 'print(1)'"), Err(NotPython::InlineCode)));
        assert!(matches!(read("my_tool --go"), Err(NotPython::Unknown(_))));
        assert!(matches!(read(""), Err(NotPython::Empty)));
    }

    #[test]
    fn shell_words() {
        assert_eq!(
            split(r#"a 'b c' "d \"e\"" f\ g&&h"#),
            ["a", "b c", "d \"e\"", "f g", "&&", "h"]
        );
    }
}
