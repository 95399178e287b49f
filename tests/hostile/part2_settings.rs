//! Hostile input, part 2 (issue 21): settings files. A committed
//! `.stagec.toml`, `stagec.toml` or `[tool.stagec]` is input from whoever
//! wrote the pull request: it must not make stagec show files outside the
//! project (item 2), panic on a huge glob (item 5), or exhaust memory
//! through `extend` and the other inputs a run reads (item 9).

use super::*;

/// The formats every secret check covers.
const FORMATS: [&str; 5] = ["human", "concise", "json", "github", "sarif"];

/// A scratch folder with the seed experiment in `repo/` and a secret file
/// beside it (outside the project), `secret.txt`, holding `secret` in lines
/// that look like a credentials file.
fn repo_with_secret(tag: &str, secret: &str) -> Scratch {
    let s = Scratch::new(tag);
    s.write("repo/const.yaml", SEED_CONFIG);
    s.write("repo/model.py", SEED_MODEL);
    s.write(
        "secret.txt",
        format!("[default]\naws_access_key_id = {secret}\naws_secret_access_key = {secret}\n"),
    );
    s
}

/// Runs `stagec check --format FORMAT const.yaml [extra]` in `dir`.
fn check_in(dir: &Path, format: &str, extra: &[&str]) -> Outcome {
    stagec()
        .current_dir(dir)
        .env("PLANTED_STAGEC_SECRET", "plantedEnvSecret21")
        .args(["check", "--format", format, "const.yaml"])
        .args(extra)
        .run()
}

#[test]
fn part2_item02_settings_files_cannot_name_files_outside_the_project() {
    let secret = "plantedAwsSecret21";
    let s = repo_with_secret("p2-item02-outside", secret);
    let outside = s.join("secret.txt");
    // A link inside the project that points outside it.
    s.symlink(&outside, "repo/nodes.json");
    let outside = outside.to_string_lossy().into_owned();
    let cases: Vec<(&str, &str, String)> = vec![
        (".stagec.toml", "relative", "inventory = \"../secret.txt\"\n".into()),
        (".stagec.toml", "absolute", format!("inventory = \"{outside}\"\n")),
        (
            ".stagec.toml",
            "proc environ",
            "inventory = \"/proc/self/environ\"\n".into(),
        ),
        (".stagec.toml", "symlink", "inventory = \"nodes.json\"\n".into()),
        ("stagec.toml", "extend", "extend = \"../secret.txt\"\n".into()),
        (
            "pyproject.toml",
            "pyproject",
            "[tool.stagec]\ninventory = \"sub/../../secret.txt\"\n".into(),
        ),
    ];
    let mut f = Failures::new();
    for (name, what, settings) in &cases {
        for file in [".stagec.toml", "stagec.toml", "pyproject.toml"] {
            let _ = std::fs::remove_file(s.join(&format!("repo/{file}")));
        }
        s.write(&format!("repo/{name}"), settings);
        for format in FORMATS {
            let out = check_in(&s.join("repo"), format, &[]);
            f.check(
                format!("{what}, {format}"),
                out.exit(&[2])
                    .and_then(|_| out.never_shows(secret))
                    .and_then(|_| out.never_shows("plantedEnvSecret21"))
                    .and_then(|_| {
                        match out.stderr.contains(&format!("{name}:")) && out.stderr.contains("outside the project") {
                            true => Ok(()),
                            false => Err(format!(
                                "no located settings error naming the project: {}",
                                out.describe()
                            )),
                        }
                    }),
            );
        }
        // `--config PATH` names the same file: its paths are held the same.
        let out = check_in(&s.join("repo"), "human", &["--config", name]);
        f.check(
            format!("{what}, --config {name}"),
            out.exit(&[2]).and_then(|_| out.never_shows(secret)),
        );
    }
    // Inside the git repository, `..` may leave the settings file's folder.
    for file in [".stagec.toml", "stagec.toml", "pyproject.toml"] {
        let _ = std::fs::remove_file(s.join(&format!("repo/{file}")));
    }
    s.mkdir("repo/.git");
    s.write("repo/cluster/nodes.json", nodelist("a100-node", "8"));
    s.write("repo/exp/const.yaml", SEED_CONFIG);
    s.write("repo/exp/model.py", SEED_MODEL);
    s.write("repo/exp/stagec.toml", "inventory = \"../cluster/nodes.json\"\n");
    let out = check_in(&s.join("repo/exp"), "json", &[]);
    f.check(
        "inside the repository",
        out.exit(&[1]).and_then(|_| lacks_code(&out, "P301")),
    );
    f.finish();
}

#[test]
fn part2_item02_the_command_line_may_name_any_inventory_but_text_is_never_shown() {
    let secret = "plantedAwsSecret21";
    let s = repo_with_secret("p2-item02-cli", secret);
    let outside = s.join("secret.txt").to_string_lossy().into_owned();
    let mut f = Failures::new();
    for format in FORMATS {
        // The user's own choice: read, reported as not an inventory, and
        // its lines never shown.
        for extra in [
            vec!["--inventory", outside.as_str()],
            vec!["--config", "inventory = \"../secret.txt\""],
            vec!["--inventory", "/proc/self/environ"],
        ] {
            let out = check_in(&s.join("repo"), format, &extra);
            f.check(
                format!("{extra:?}, {format}"),
                out.exit(&[1])
                    .and_then(|_| out.never_shows(secret))
                    .and_then(|_| out.never_shows("plantedEnvSecret21"))
                    .and_then(|_| out.never_shows("aws_access_key_id"))
                    .and_then(|_| match out.stdout.contains("P301") || extra[1].starts_with("/proc") {
                        true => Ok(()),
                        false => Err(format!("no P301: {}", out.describe())),
                    }),
            );
        }
    }
    f.finish();
}

#[test]
fn part2_item05_huge_globs_are_located_settings_errors() {
    let s = project("p2-item05");
    // `?` is any character but `/`: 140,000 of them compile past the
    // regular expression's size limit, where globset panics.
    let glob = format!("{}*.yaml", "?".repeat(140_000));
    let mut f = Failures::new();
    s.write(".stagec.toml", format!("[per-file-ignores]\n\"{glob}\" = [\"C\"]\n"));
    let out = stagec().current_dir(&s.path).args(["check", "const.yaml"]).run();
    f.check(
        "settings file",
        out.exit(&[2])
            .and_then(|_| match out.stderr.contains(".stagec.toml:2:1:") {
                true => Ok(()),
                false => Err(format!("not located: {}", out.describe())),
            }),
    );
    let _ = std::fs::remove_file(s.join(".stagec.toml"));
    // One argument holds at most 128 KiB.
    let glob = format!("{}*.yaml", "?".repeat(130_000));
    let over = format!("per-file-ignores = {{ \"{glob}\" = [\"C\"] }}");
    let out = stagec()
        .current_dir(&s.path)
        .args(["check", "const.yaml", "--config"])
        .arg(&over)
        .run();
    f.check("--config", out.exit(&[2]));
    // Many patterns, each small: bounded too.
    let many: String = (0..20_000).map(|i| format!("\"d{i}/**/*.yaml\" = [\"C\"]\n")).collect();
    s.write(".stagec.toml", format!("[per-file-ignores]\n{many}"));
    let out = stagec().current_dir(&s.path).args(["check", "const.yaml"]).run();
    f.check(
        "many patterns",
        out.exit(&[2])
            .and_then(|_| match out.stderr.contains("per-file-ignores") {
                true => Ok(()),
                false => Err(format!("no settings error: {}", out.describe())),
            }),
    );
    f.finish();
}

/// `n` bytes of valid Python: small functions.
fn python_of(n: usize) -> String {
    let mut out = String::from("import torch\n");
    let mut i = 0;
    while out.len() < n {
        out.push_str(&format!("def f{i}(x):\n    return x * {i} + torch.randn(3)\n"));
        i += 1;
    }
    out
}

#[test]
fn part2_item09_extend_chains_have_a_total_budget() {
    let mut f = Failures::new();
    // Eight files of 0.8 MB: globs, then plain bytes.
    let mut globs = String::from("[per-file-ignores]\n");
    for i in 0.. {
        if globs.len() > 800_000 {
            break;
        }
        globs.push_str(&format!("\"d{i}/**/*.yaml\" = [\"C\"]\n"));
    }
    let comment = format!("# {}\n", "x".repeat(800_000));
    for (what, body) in [("globs", globs), ("bytes", comment)] {
        let s = project("p2-item09-extend");
        for i in 0..8 {
            let next = if i < 7 {
                format!("extend = \"s{}.toml\"\n", i + 1)
            } else {
                String::new()
            };
            let name = if i == 0 {
                ".stagec.toml".to_string()
            } else {
                format!("s{i}.toml")
            };
            // `extend` first: a table header would swallow it.
            s.write(&name, format!("{next}{body}"));
        }
        let out = stagec().current_dir(&s.path).args(["check", "const.yaml"]).run();
        f.check(
            what,
            out.exit(&[2]).and_then(|_| match out.elapsed < Duration::from_secs(5) {
                true => Ok(()),
                false => Err(format!("slow: {}", out.describe())),
            }),
        );
    }
    f.finish();
}

#[test]
fn part2_item09_a_huge_gitignore_is_not_read() {
    let s = project("p2-item09-gitignore");
    s.write("sub/const.yaml", CONFIG);
    s.write("sub/model.py", MODEL);
    let lines: String = (0..350_000).map(|i| format!("dir{i}/**/file-{i}-*.txt\n")).collect();
    s.write("sub/.gitignore", lines);
    let out = stagec()
        .current_dir(&s.path)
        .args(["check", "--format", "json", "."])
        .run();
    let mut f = Failures::new();
    f.check(
        ".gitignore of 7 MB",
        out.exit(&[2])
            .and_then(|_| match out.stderr.contains(".gitignore is larger than") {
                true => Ok(()),
                false => Err(format!("no error naming the file: {}", out.describe())),
            }),
    );
    // An ignore file that is a FIFO, or a link to /dev/zero, is not read.
    for (what, make) in [("FIFO", true), ("/dev/zero", false)] {
        let s = project("p2-item09-ignore-special");
        s.write("sub/const.yaml", CONFIG);
        let _special = match make {
            true => s.fifo("sub/.ignore"),
            false => s.symlink("/dev/zero", "sub/.gitignore"),
        };
        let out = stagec()
            .current_dir(&s.path)
            .args(["check", "--format", "json", "."])
            .run();
        f.check(
            what,
            out.exit(&[2])
                .and_then(|_| match out.stderr.contains("is not a regular file") {
                    true => Ok(()),
                    false => Err(format!("no error naming the file: {}", out.describe())),
                }),
        );
    }
    f.finish();
}

#[test]
fn part2_item09_training_code_has_budgets() {
    let mut f = Failures::new();
    // Two 8 MB modules imported by train.py.
    let s = project("p2-item09-training");
    s.write(
        "const.yaml",
        CONFIG.replace("entrypoint: python train.py", "entrypoint: python3 train.py"),
    );
    s.write("train.py", "import big1\nimport big2\nimport torch\n");
    let big = python_of(8_000_000);
    s.write("big1.py", &big);
    s.write("big2.py", &big);
    let out = check_json(&s.join("const.yaml"), &[]);
    f.check(
        "two 8 MB modules",
        out.exit(&[0, 1]).and_then(|_| has_code(&out, "Y005")).and_then(|_| {
            match out.elapsed < Duration::from_secs(5) {
                true => Ok(()),
                false => Err(format!("slow: {}", out.describe())),
            }
        }),
    );
    // Six modules of 0.9 MB: within the per-file budget, beyond the total.
    let s = project("p2-item09-training-total");
    let imports: String = (0..6).map(|i| format!("import m{i}\n")).collect();
    s.write("train.py", imports);
    let module = python_of(900_000);
    for i in 0..6 {
        s.write(&format!("m{i}.py"), &module);
    }
    let out = check_json(&s.join("const.yaml"), &[]);
    f.check(
        "six 0.9 MB modules",
        out.exit(&[0, 1]).and_then(|_| {
            let v = out.json()?;
            match texts(&v).iter().any(|t| t.contains("training code holds more than")) {
                true => Ok(()),
                false => Err(format!("no total-budget finding among {:?}", codes(&v))),
            }
        }),
    );
    f.finish();
}
