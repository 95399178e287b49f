//! Issue 21, item 4: terminal and line injection. Control characters from
//! input (a key, a value, a decorator's `device=`, a probe recording's
//! device name, a file name) never reach stdout or stderr raw: text formats
//! show them escaped (`\u{1b}`, `\n`), JSON as `\u` escapes; a file name
//! cannot forge a line of `--show-files` or the concise format, nor a
//! message a second GitHub workflow command.

use std::path::Path;

use super::*;

/// The first character of `bytes` that must never reach a terminal as it
/// is: C0 controls but line feed and tab, DEL, C1 controls, bidirectional
/// formatting characters, line and paragraph separators.
fn raw_control(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let (at, _) = text.char_indices().find(|&(_, c)| {
        (c < ' ' && c != '\n' && c != '\t')
            || ('\u{7f}'..='\u{9f}').contains(&c)
            || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })?;
    let from = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[from..].lines().next().unwrap_or("");
    Some(format!("{line:?}"))
}

/// Ok when neither stdout nor stderr holds a raw control character.
fn no_raw_controls(out: &Outcome) -> Result<(), String> {
    for (name, c) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        for part in [&c.head, &c.tail] {
            if let Some(line) = raw_control(part) {
                return Err(format!("`{}`: {name} holds a raw control character: {line}", out.label));
            }
        }
    }
    Ok(())
}

/// Ok when `out`'s stdout contains `needle`.
fn shows(out: &Outcome, needle: &str) -> Result<(), String> {
    if out.stdout.contains(needle) {
        Ok(())
    } else {
        Err(format!(
            "`{}`: stdout lacks `{needle}`:\n{}",
            out.label,
            out.stdout.text()
        ))
    }
}

const TEXT_FORMATS: [&str; 3] = ["human", "concise", "github"];
const ALL_FORMATS: [&str; 5] = ["human", "concise", "github", "json", "sarif"];

#[test]
fn part2_item04_configs_cannot_drive_the_terminal() {
    // Clear the screen, set the clipboard (OSC 52), retitle the window,
    // a CSI as one C1 character, and a right-to-left override.
    let osc52 = "\u{1b}]52;c;ZXZpbA==\u{7}";
    let cases: Vec<(&str, String, String)> = vec![
        (
            "key with YAML escapes",
            format!("{CONFIG}\"chekpoint\\e[2J\\e]52;c;ZXZpbA==\\a\\e]0;title\\a\": 1\n"),
            MODEL.to_string(),
        ),
        (
            "raw bytes in a key",
            format!("{CONFIG}chekpoint\u{1b}[2J{osc52}\u{9b}31m: 1\n"),
            MODEL.to_string(),
        ),
        (
            "raw bytes in a value",
            CONFIG.replace("name: single", &format!("name: sin\u{1b}[2J{osc52}gle")),
            MODEL.to_string(),
        ),
        (
            "bidirectional overrides in a key",
            format!("{CONFIG}admin\u{202e}\u{2066}resu\u{2069}\u{202c}: 1\n"),
            MODEL.to_string(),
        ),
        (
            // A line break to YAML; raw on a terminal, the next line's text
            // would overwrite the line's in a snippet.
            "a lone carriage return",
            format!("{CONFIG}chekpoint: 1\rsafe: 2\n"),
            MODEL.to_string(),
        ),
        (
            "a decorator's device",
            CONFIG.to_string(),
            MODEL.replacen("device=\"a100\"", &format!("device=\"\u{1b}[2J{osc52}a100\""), 1),
        ),
    ];
    let mut f = Failures::new();
    for (case, config, model) in &cases {
        let s = Scratch::new("part2-item04-config");
        s.write("const.yaml", config);
        s.write("model.py", model);
        for format in ALL_FORMATS {
            let out = stagec()
                .current_dir(&s.path)
                .args(["check", "--show-infos", "--format", format, "const.yaml"])
                .run();
            f.check(
                format!("{case}, {format}"),
                out.exit(&[1]).and_then(|_| no_raw_controls(&out)).and_then(|_| {
                    if TEXT_FORMATS.contains(&format) && !case.contains("carriage") {
                        // Shown, escaped: not dropped.
                        shows(&out, "\\u{")
                    } else {
                        Ok(())
                    }
                }),
            );
            if format == "json" && case.contains("YAML escapes") {
                // JSON keeps the exact text (as `\u` escapes).
                f.check(
                    format!("{case}, exact in JSON"),
                    out.json().and_then(|v| {
                        if texts(&v).iter().any(|t| t.contains("chekpoint\u{1b}[2J\u{1b}]52;c;")) {
                            Ok(())
                        } else {
                            Err(format!("no message holds the key: {:?}", texts(&v)))
                        }
                    }),
                );
            }
        }
        // `--diff` prints the config's lines.
        let out = stagec()
            .current_dir(&s.path)
            .args(["check", "--diff", "--unsafe-fixes", "const.yaml"])
            .run();
        f.check(
            format!("{case}, --diff"),
            out.exit(&[0, 1]).and_then(|_| no_raw_controls(&out)),
        );
    }
    f.finish();
}

#[test]
fn part2_item04_a_line_break_in_a_key_draws_no_line_of_its_own() {
    let s = project("part2-item04-break");
    s.write(
        "const.yaml",
        format!("{CONFIG}\"k\\n  x C999 forged\\r\\nx C998 forged\": 1\n"),
    );
    let mut f = Failures::new();
    for format in TEXT_FORMATS {
        let out = stagec()
            .current_dir(&s.path)
            .args(["check", "--format", format, "const.yaml"])
            .run();
        f.check(
            format,
            out.exit(&[1]).and_then(|_| no_raw_controls(&out)).and_then(|_| {
                let text = out.stdout.text();
                let forged: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("x C99")).collect();
                if forged.is_empty() {
                    Ok(())
                } else {
                    Err(format!("forged lines {forged:?} in:\n{text}"))
                }
            }),
        );
    }
    f.finish();
}

/// The seed example's corrected project in a scratch folder, and the path
/// of the recorded mixed A100/H100 host.
fn seed_project(tag: &str) -> (Scratch, std::path::PathBuf) {
    let s = Scratch::new(tag);
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hpp-seed-fixed");
    for name in ["const.yaml", "model.py", "train.py"] {
        let text = std::fs::read_to_string(example.join(name)).expect("read the example");
        s.write(name, text);
    }
    let recording = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/probes/mixed-a100-h100.json");
    (s, recording)
}

#[test]
fn part2_item04_probe_recordings_cannot_drive_the_terminal() {
    let (s, clean) = seed_project("part2-item04-probe");
    let recording = std::fs::read_to_string(&clean).expect("read the recording");
    let hostile = recording.replace(
        "\"name\": \"NVIDIA ",
        "\"name\": \"\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\\u202e\\u009bNVIDIA ",
    );
    assert_ne!(hostile, recording);
    let hostile = s.write("hostile.json", hostile);
    let run = || {
        stagec()
            .current_dir(&s.path)
            .env("S3_ACCESS_KEY", "a")
            .env("S3_SECRET_KEY", "b")
            .env_remove("RANK")
            .env_remove("LOCAL_RANK")
    };
    let planned = run()
        .arg("plan")
        .arg("const.yaml")
        .arg("--probe")
        .arg("--probe-recording")
        .arg(&clean)
        .args(["--out", "plan"])
        .run();
    planned.exit(&[0]).expect("the example plans");
    let mut f = Failures::new();
    let runs: Vec<(&str, Run, &[i32])> = vec![
        ("probe", run().args(["probe", "--recording"]).arg(&hostile), &[0]),
        (
            "probe json",
            run().args(["probe", "--format", "json", "--recording"]).arg(&hostile),
            &[0],
        ),
        (
            "check --probe",
            run()
                .args([
                    "check",
                    "--show-infos",
                    "--format",
                    "concise",
                    "--probe",
                    "--probe-recording",
                ])
                .arg(&hostile)
                .arg("const.yaml"),
            &[0, 1],
        ),
        (
            "verify on the right GPU",
            run()
                .args([
                    "verify",
                    "--plan",
                    "plan/stage_plan.json",
                    "--rank",
                    "0",
                    "--device",
                    "0",
                ])
                .arg("--probe-recording")
                .arg(&hostile),
            &[0, 1],
        ),
        (
            "verify on the wrong GPU",
            run()
                .args([
                    "verify",
                    "--plan",
                    "plan/stage_plan.json",
                    "--rank",
                    "1",
                    "--device",
                    "0",
                ])
                .arg("--probe-recording")
                .arg(&hostile),
            &[1],
        ),
    ];
    for (case, r, allowed) in runs {
        let out = r.run();
        f.check(case, out.exit(allowed).and_then(|_| no_raw_controls(&out)));
        if case == "probe" {
            f.check("probe shows the name escaped", shows(&out, "\\u{1b}]52;c;"));
        }
        if case == "probe json" {
            // The same names, as JSON escapes.
            let names = out.json().map(|v| {
                v["devices"]
                    .as_array()
                    .map(|d| {
                        d.iter()
                            .filter_map(|d| d["name"].as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default()
            });
            f.check(
                "probe json keeps the names",
                names.and_then(|n: Vec<String>| {
                    if !n.is_empty() && n.iter().all(|n| n.starts_with("\u{1b}]52;c;")) {
                        Ok(())
                    } else {
                        Err(format!("names: {n:?}"))
                    }
                }),
            );
        }
    }
    f.finish();
}

#[test]
fn part2_item04_file_names_cannot_forge_lines() {
    let s = project("part2-item04-names");
    let config = format!("{CONFIG}name: duplicate\n");
    s.write("evil\nforged.yaml", &config);
    s.write("clear\u{1b}[2J.yaml", &config);
    let names = ["evil\nforged.yaml", "clear\u{1b}[2J.yaml"];
    let mut f = Failures::new();

    let out = stagec()
        .current_dir(&s.path)
        .args(["check", "--show-files"])
        .args(names)
        .run();
    f.check(
        "--show-files",
        out.exit(&[0]).and_then(|_| no_raw_controls(&out)).and_then(|_| {
            let text = out.stdout.text();
            if text == "evil\\nforged.yaml\nclear\\u{1b}[2J.yaml\n" {
                Ok(())
            } else {
                Err(format!("stdout: {text:?}"))
            }
        }),
    );
    let out = stagec()
        .current_dir(&s.path)
        .args(["check", "--show-files", "-z"])
        .args(names)
        .run();
    f.check(
        "--show-files -z",
        out.exit(&[0]).and_then(|_| {
            if out.stdout.head == b"evil\nforged.yaml\0clear\x1b[2J.yaml\0" {
                Ok(())
            } else {
                Err(format!("stdout: {:?}", out.stdout.text()))
            }
        }),
    );

    for format in ALL_FORMATS {
        let out = stagec()
            .current_dir(&s.path)
            .args(["check", "--format", format])
            .args(names)
            .run();
        f.check(
            format,
            out.exit(&[1]).and_then(|_| no_raw_controls(&out)).and_then(|_| {
                let text = out.stdout.text();
                let forged: Vec<&str> = text.lines().filter(|l| l.starts_with("forged.yaml")).collect();
                if forged.is_empty() {
                    Ok(())
                } else {
                    Err(format!("forged lines: {forged:?}"))
                }
            }),
        );
        if format == "concise" {
            // Each line is a finding of one of the files, or the summary.
            let text = out.stdout.text();
            let lines: Vec<&str> = text.lines().collect();
            let bad: Vec<&&str> = lines[..lines.len().saturating_sub(1)]
                .iter()
                .filter(|l| !l.starts_with("evil\\nforged.yaml:") && !l.starts_with("clear\\u{1b}[2J.yaml:"))
                .collect();
            f.check(
                "concise lines",
                if bad.is_empty() && lines.len() > 2 {
                    Ok(())
                } else {
                    Err(format!("unexpected lines: {bad:?} in {text:?}"))
                },
            );
        }
    }

    // A path that cannot be read is named on stderr, escaped: no line
    // break of it starts a line (GitHub reads workflow commands there too).
    let out = stagec()
        .current_dir(&s.path)
        .args(["check", "missing\u{1b}]52;c;ZXZpbA==\u{7}\n::error::forged.yaml"])
        .run();
    f.check(
        "unreadable path",
        out.exit(&[2]).and_then(|_| no_raw_controls(&out)).and_then(|_| {
            let text = out.stderr.text();
            match text.lines().find(|l| !l.starts_with("stagec: ")) {
                Some(l) => Err(format!("a forged stderr line: {l:?}")),
                None => Ok(()),
            }
        }),
    );

    // `stagec diff` names the configs of two plans.
    s.write("model.py", MODEL);
    for (config, out_dir) in [("const.yaml", "a"), ("clear\u{1b}[2J.yaml", "b")] {
        s.write(config, CONFIG);
        let planned = stagec()
            .current_dir(&s.path)
            .args(["plan", config, "--out", out_dir])
            .run();
        f.check(
            format!("plan {config:?}"),
            planned.exit(&[0]).and_then(|_| no_raw_controls(&planned)),
        );
    }
    let out = stagec()
        .current_dir(&s.path)
        .args(["diff", "a/stage_plan.json", "b/stage_plan.json"])
        .run();
    f.check(
        "stagec diff",
        out.exit(&[1])
            .and_then(|_| no_raw_controls(&out))
            .and_then(|_| shows(&out, "clear\\u{1b}[2J.yaml")),
    );
    f.finish();
}

#[test]
fn part2_item04_github_annotations_cannot_be_forged() {
    // Line breaks of every kind a log reader might split on, and a `%`
    // sequence that would decode to one.
    let key = "%0A::error::pct\\n::add-mask::m\\r::error::r\\N::stop-commands::t\\L::error::l\\P::error::p\\e[2J";
    let s = project("part2-item04-github");
    s.write("const.yaml", format!("{CONFIG}\"{key}\": 1\n"));
    let out = stagec()
        .current_dir(&s.path)
        .args(["check", "--format", "github", "const.yaml"])
        .run();
    let result = out.exit(&[1]).and_then(|_| no_raw_controls(&out)).and_then(|_| {
        let text = out.stdout.text();
        let forged: Vec<&str> = text
            .lines()
            .filter(|l| {
                !(l.starts_with("::error file=const.yaml,")
                    || l.starts_with("::warning file=const.yaml,")
                    || l.starts_with("::notice file=const.yaml,")
                    || l.starts_with("stagec: "))
            })
            .collect();
        if !forged.is_empty() {
            return Err(format!("lines that are not stagec's annotations: {forged:?}"));
        }
        // The `%` of the input is escaped, so `%0A` stays text.
        if !text.contains("%250A::error::pct") {
            return Err(format!("`%` not escaped: {text}"));
        }
        Ok(())
    });
    result.unwrap_or_else(|e| panic!("{e}"));
}
