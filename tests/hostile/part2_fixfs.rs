//! Issue 21, items 7 and 8: `check --fix` writes only what it may, says
//! only what it wrote, never keeps a temporary of a dead run; `plan` waits
//! a bounded time for a folder another process holds locked.

use super::harness::{is_root, Failures, Run, Scratch};
use super::*;

use std::os::unix::fs::{MetadataExt, PermissionsExt};

/// The uid and gid of `nobody`, which [`Run::drop_root`] runs as.
const NOBODY: u32 = 65534;

/// A config with `n` log hyperparameters without `base` (C103, a safe fix
/// that adds `base: 10`).
fn log_config(n: usize) -> String {
    let mut s = String::from(
        "name: x\nentrypoint: python3 train.py\nsearcher: {name: single, metric: loss, max_length: {batches: 10}}\nhyperparameters:\n",
    );
    for i in 0..n {
        s.push_str(&format!("  lr{i}:\n    type: log\n    minval: -5\n    maxval: -2\n"));
    }
    s
}

fn fix_run(dir: &Path) -> Run {
    stagec().args(["check", "--fix", "const.yaml"]).current_dir(dir)
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

fn unchanged(path: &Path, before: &str) -> Result<(), String> {
    match std::fs::read_to_string(path) {
        Ok(t) if t == before => Ok(()),
        Ok(_) => Err(format!("{} was changed", path.display())),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

#[test]
fn part2_item07_a_thousand_findings_of_one_rule_are_all_fixed() {
    let s = Scratch::new("p2-07-many");
    let config = s.write("const.yaml", log_config(1000));
    let out = fix_run(&s.path).run();
    let mut f = Failures::new();
    f.check("exit", out.exit(&[0, 1]));
    let text = std::fs::read_to_string(&config).unwrap_or_default();
    let bases = text.matches("base: 10").count();
    f.check(
        "every C103 fixed",
        if bases == 1000 {
            Ok(())
        } else {
            Err(format!("{bases} of 1000 `base: 10` added; {}", out.describe()))
        },
    );
    f.check(
        "summary",
        if out.stdout.contains("Fixed 1000 problems (C103)") {
            Ok(())
        } else {
            Err(format!("no `Fixed 1000 problems (C103)`: {}", out.stdout.text()))
        },
    );
    f.finish();
}

#[test]
fn part2_item07_read_only_config_is_refused() {
    let s = Scratch::new("p2-07-ro");
    let text = log_config(1);
    let config = s.write("const.yaml", &text);
    chmod(&config, 0o444);
    let out = fix_run(&s.path).run();
    let mut f = Failures::new();
    f.check("exit 2", out.exit(&[2]));
    f.check("file unchanged", unchanged(&config, &text));
    f.check(
        "mode kept",
        match std::fs::metadata(&config).map(|m| m.mode() & 0o777) {
            Ok(0o444) => Ok(()),
            Ok(mode) => Err(format!("mode now {mode:o}")),
            Err(e) => Err(e.to_string()),
        },
    );
    f.check(
        "says why",
        if out.stderr.contains("read-only") {
            Ok(())
        } else {
            Err(format!("stderr: {}", out.stderr.text()))
        },
    );
    f.check(
        "nothing claimed",
        if out.stdout.contains("Fixed 0 problems") {
            Ok(())
        } else {
            Err(format!("stdout: {}", out.stdout.text()))
        },
    );
    f.finish();
}

#[test]
fn part2_item07_another_users_config_keeps_its_owner() {
    if !is_root() {
        eprintln!("skipped: needs root to give a file to another user");
        return;
    }
    let mut f = Failures::new();
    // Root fixing nobody's file: fixed with the owner kept, or refused.
    let s = Scratch::new("p2-07-owner");
    let text = log_config(1);
    let config = s.write("const.yaml", &text);
    std::os::unix::fs::chown(&config, Some(NOBODY), Some(NOBODY)).expect("chown");
    let out = fix_run(&s.path).run();
    f.check(
        "root fixes nobody's file",
        out.exit(&[0, 1, 2]).and_then(|_| {
            let m = std::fs::metadata(&config).map_err(|e| e.to_string())?;
            if out.status.code() == Some(2) {
                unchanged(&config, &text)
            } else if (m.uid(), m.gid()) != (NOBODY, NOBODY) {
                Err(format!("owner changed to {}:{}", m.uid(), m.gid()))
            } else if unchanged(&config, &text).is_ok() {
                Err("exit 0/1 but nothing was written".into())
            } else {
                Ok(())
            }
        }),
    );
    // Nobody fixing root's world-writable file in a world-writable folder:
    // a rename would hand the file to nobody, so it is refused.
    let s = Scratch::new("p2-07-owner2");
    let config = s.write("const.yaml", &text);
    chmod(&s.path, 0o777);
    chmod(&config, 0o666);
    let out = fix_run(&s.path).drop_root().run();
    f.check(
        "nobody fixes root's file",
        out.exit(&[2]).and_then(|_| unchanged(&config, &text)).and_then(|_| {
            let uid = std::fs::metadata(&config).map_err(|e| e.to_string())?.uid();
            if uid == 0 {
                Ok(())
            } else {
                Err(format!("owner changed to {uid}"))
            }
        }),
    );
    f.finish();
}

#[test]
fn part2_item07_failed_write_claims_no_fix() {
    let s = Scratch::new("p2-07-failed");
    let text = log_config(1);
    let dir = s.mkdir("ro");
    let config = s.write("ro/const.yaml", &text);
    // The file may be written, its folder not (no temporary beside it).
    let run = if is_root() {
        std::os::unix::fs::chown(&config, Some(NOBODY), Some(NOBODY)).expect("chown");
        fix_run(&dir).drop_root()
    } else {
        chmod(&dir, 0o555);
        fix_run(&dir)
    };
    let out = run.run();
    chmod(&dir, 0o755);
    let mut f = Failures::new();
    f.check("exit 2", out.exit(&[2]));
    f.check("file unchanged", unchanged(&config, &text));
    f.check(
        "no fix claimed",
        if out.stdout.contains("Fixed 0 problems") && !out.stdout.contains("Fixed 1 problem") {
            Ok(())
        } else {
            Err(format!("stdout: {}", out.stdout.text()))
        },
    );
    f.check(
        "the finding is still reported",
        if out.stdout.contains("C103") {
            Ok(())
        } else {
            Err(format!("stdout: {}", out.stdout.text()))
        },
    );
    f.finish();
}

#[test]
fn part2_item07_stale_temporaries_of_dead_runs_are_removed() {
    let s = Scratch::new("p2-07-tmp");
    s.write("const.yaml", log_config(1));
    // A dead run's temporary (nobody holds its lock), a live run's (this
    // test holds it), and files that are not stagec's.
    let dead = s.write(".const.yaml.stagec-tmp-4000000-0", "half a config");
    let live = s.write(".const.yaml.stagec-tmp-4000001-0", "being written");
    let held = std::fs::File::open(&live).expect("open");
    held.lock().expect("lock");
    let others = [
        s.write(".const.yaml.swp", "an editor's"),
        s.write(".const.yaml.stagec-tmp-notes", "a user's"),
        s.write(".other.yaml.stagec-tmp-4000000-0", "another file's"),
    ];
    let out = fix_run(&s.path).run();
    let mut f = Failures::new();
    f.check("exit", out.exit(&[0, 1]));
    f.check(
        "dead run's temporary removed",
        if dead.exists() {
            Err(format!("{} is still there", dead.display()))
        } else {
            Ok(())
        },
    );
    f.check(
        "live run's temporary kept",
        if live.exists() {
            Ok(())
        } else {
            Err("a temporary another run holds was removed".into())
        },
    );
    for p in &others {
        f.check(
            "others' files kept",
            if p.exists() {
                Ok(())
            } else {
                Err(format!("{} was removed", p.display()))
            },
        );
    }
    drop(held);
    let stray: Vec<String> = s
        .names("")
        .into_iter()
        .filter(|n| n.contains("stagec") && !n.starts_with(".const.yaml.stagec-tmp-4000001") && !n.contains("notes"))
        .filter(|n| !n.starts_with(".other.yaml"))
        .collect();
    f.check(
        "no temporary of this run left",
        if stray.is_empty() {
            Ok(())
        } else {
            Err(format!("left: {stray:?}"))
        },
    );
    f.finish();
}

#[test]
fn part2_item08_plan_waits_a_bounded_time_for_a_locked_folder() {
    let s = project("p2-08-lock");
    s.write("a.yaml", plan_config("locked"));
    // Another process holds the lock stagec takes on the output's parent.
    let holder = std::fs::File::open(&s.path).expect("open folder");
    holder.lock().expect("lock folder");
    let out = plan(&s.path, "a.yaml", "out").timeout(Duration::from_secs(60)).run();
    drop(holder);
    let mut f = Failures::new();
    f.check("exit 2", out.exit(&[2]));
    let folder = s.path.display().to_string();
    f.check(
        "names the folder and the lock",
        if out.stderr.contains(&folder) && out.stderr.contains("lock") {
            Ok(())
        } else {
            Err(format!("stderr: {}", out.stderr.text()))
        },
    );
    f.check(
        "nothing written",
        if s.join("out").exists() {
            Err("out/ was written".into())
        } else {
            Ok(())
        },
    );
    // Once the lock is free, the same plan goes through.
    let out = plan(&s.path, "a.yaml", "out").run();
    f.check("plan after the lock", out.exit(&[0]));
    f.finish();
}

#[test]
fn part2_item07_an_edit_saved_during_the_run_is_not_overwritten() {
    use std::io::Read;
    let s = Scratch::new("p2-07-edit");
    // Enough log hyperparameters that the check takes a while (the edit
    // lands after stagec read the file and before it writes it), one of
    // them without `base`.
    let text = log_config(3000).replacen("    type: log\n", "    type: log\n    base: 10\n", 2999);
    let config = s.write("const.yaml", &text);
    let measured = stagec()
        .args(["check", "--format", "concise", "const.yaml"])
        .current_dir(&s.path)
        .timeout(Duration::from_secs(120))
        .run();
    measured.exit(&[1]).expect("plain check");
    assert!(measured.stdout.contains("C103"), "{}", measured.stdout.text());
    let delay = measured.elapsed / 3;
    let mut child = stagec()
        .args(["check", "--fix", "--format", "concise", "const.yaml"])
        .current_dir(&s.path)
        .spawn_piped();
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    std::thread::sleep(delay);
    let running = child.try_wait().expect("try_wait").is_none();
    let edited = format!("# saved meanwhile\n{text}");
    std::fs::write(&config, &edited).expect("edit");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = reader.join().unwrap_or_default();
    let mut f = Failures::new();
    f.check("finished", status.map(|_| ()).ok_or_else(|| "hung".to_string()));
    // Whenever the edit landed (before stagec read the file, while it
    // checked, after it wrote), the file keeps it.
    let now = std::fs::read_to_string(&config).unwrap_or_default();
    f.check(
        "the edit is kept",
        if now.starts_with("# saved meanwhile\n") {
            Ok(())
        } else {
            Err("the edit saved during the run was overwritten".into())
        },
    );
    let code = status.and_then(|s| s.code());
    if code == Some(2) {
        // Refused: the file is the edit as saved, nothing claimed.
        f.check("refused, file as edited", unchanged(&config, &edited));
        f.check(
            "nothing claimed",
            if stdout.contains("Fixed 0 problems") {
                Ok(())
            } else {
                Err(format!("stdout ends: {}", stdout.lines().last().unwrap_or("")))
            },
        );
    } else if running {
        eprintln!("exit {code:?}: the edit came before stagec read the file");
    } else {
        eprintln!("the run ended within {delay:?}: the edit came after it");
    }
    f.finish();
}
