//! Issue 21, items 1, 3 and 6: names that are not variable names, one
//! credential classifier for every output, and `determined.yaml` read alike
//! by YAML 1.1 and 1.2 readers.

use super::*;

/// [`CONFIG`] with `environment:` `tail` appended.
fn with_environment(tail: &str) -> String {
    format!("{CONFIG}environment:\n  environment_variables:\n{tail}")
}

/// `stagec plan CONFIG --out out` in `dir`, with `extra` arguments.
fn plan_in(dir: &Path, extra: &[&str]) -> Outcome {
    stagec()
        .args(["plan", "const.yaml", "--out", "out"])
        .args(extra)
        .current_dir(dir)
        .run()
}

/// stdout and stderr of a run.
fn all_text(out: &Outcome) -> String {
    format!("{}\n{}", out.stdout.text(), out.stderr.text())
}

/// The text of a written file, or an empty string.
fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

// ---------------------------------------------------------------------------
// 1. Commands hidden in variable names.

const BAD_NAMES: &str =
    "    - \"HOME_$(touch PWNED)=1\"\n    - \"X;touch PWNED=1\"\n    - \"`id`\"\n    - GOOD_NAME=1\n";

#[test]
fn part2_item01_invalid_env_names_are_errors_at_the_name() {
    let s = project("p2-01-check");
    let config = with_environment(BAD_NAMES);
    s.write("const.yaml", &config);
    let out = check_json(&s.join("const.yaml"), &[]);
    let mut f = Failures::new();
    f.check("exit", out.exit(&[1]));
    f.check(
        "located at each name",
        out.json().and_then(|v| {
            let found: Vec<(u64, u64)> = diagnostics(&v)
                .iter()
                .filter(|d| d["code"] == "E105" && d["severity"] == "error")
                .map(|d| (d["line"].as_u64().unwrap_or(0), d["column"].as_u64().unwrap_or(0)))
                .collect();
            let want = vec![
                (line_of(&config, "HOME_$("), 8),
                (line_of(&config, "X;touch"), 8),
                (line_of(&config, "`id`"), 8),
            ];
            if found == want {
                Ok(())
            } else {
                Err(format!("E105 at {found:?}, wanted {want:?}: {}", codes(&v).join(", ")))
            }
        }),
    );
    // Planning refuses the config.
    let planned = plan_in(&s.path, &[]);
    f.check("plan refuses", planned.exit(&[1]));
    f.check(
        "no plan written",
        match s.join("out/stage_plan.env").exists() {
            true => Err("stage_plan.env written".into()),
            false => Ok(()),
        },
    );
    f.finish();
}

#[test]
fn part2_item01_no_output_carries_an_invalid_name() {
    let s = project("p2-01-out");
    s.write("const.yaml", with_environment(BAD_NAMES));
    let mut f = Failures::new();
    // With the rule switched off, the plan is made, without the names.
    let planned = plan_in(&s.path, &["--ignore", "E105"]);
    f.check("plan with E105 ignored", planned.exit(&[0]));
    for file in ["stage_plan.env", "stage_plan.json"] {
        let text = read(&s.join(&format!("out/{file}")));
        f.check(
            file,
            if text.contains("touch PWNED") || text.contains("`id`") {
                Err(format!("{file} carries an invalid name:\n{text}"))
            } else if !text.contains("GOOD_NAME") {
                Err(format!("{file} lost GOOD_NAME:\n{text}"))
            } else {
                Ok(())
            },
        );
    }
    // A hand-edited plan: `stagec env` never prints the name.
    let plan = s.join("out/stage_plan.json");
    let mut v: Value = serde_json::from_str(&read(&plan)).unwrap_or(Value::Null);
    if let Some(vars) = v["environment"]["variables"].as_object_mut() {
        vars.insert("HOME_$(touch PWNED)".into(), "1".into());
        vars.insert("X;touch PWNED".into(), "1".into());
    }
    s.write("edited.json", serde_json::to_string(&v).unwrap_or_default());
    let env = stagec()
        .args(["env", "--rank", "0", "--plan"])
        .arg(s.join("edited.json"))
        .run();
    f.check(
        "env of an edited plan",
        env.exit(&[2]).and_then(|_| env.never_shows("touch PWNED")),
    );
    f.finish();
}

// ---------------------------------------------------------------------------
// 3. One credential classifier for every output.

/// Every credential the issue names, with a value planted in it.
const PLANTED: &[(&str, &str)] = &[
    ("GITHUB_PAT", "ghp_plantedGithubPat0123456789abcdefgh"),
    ("GH_PAT", "plantedGhPat03"),
    ("CI_JOB_JWT", "plantedCiJobJwt03"),
    ("MYSQL_PWD", "plantedMysqlPwd03"),
    ("PASSPHRASE", "plantedPassphrase03"),
    ("SENTRY_DSN", "https://plantedSentryKey03@o1.ingest.sentry.io/1"),
    (
        "SLACK_WEBHOOK_URL",
        "https://hooks.slack.com/services/T0/B0/plantedSlackHook03",
    ),
    ("COOKIE", "plantedCookie03"),
    ("BEARER", "plantedBearer03"),
    ("SESSION_ID", "plantedSessionId03"),
    ("VAULT_ROLE_ID", "plantedVaultRole03"),
    ("DATABASE_URL", "postgres://u:plantedDbPassword03@db/x"),
    ("HTTPS_PROXY", "https://u:plantedProxyPassword03@proxy:3128"),
    ("NOTES", "see ghp_plantedNeutralName0123456789abcd"),
];

/// The part of each planted value that must never be shown.
fn planted_secrets() -> Vec<&'static str> {
    vec![
        "plantedGithubPat",
        "plantedGhPat03",
        "plantedCiJobJwt03",
        "plantedMysqlPwd03",
        "plantedPassphrase03",
        "plantedSentryKey03",
        "plantedSlackHook03",
        "plantedCookie03",
        "plantedBearer03",
        "plantedSessionId03",
        "plantedVaultRole03",
        "plantedDbPassword03",
        "plantedProxyPassword03",
        "plantedNeutralName",
    ]
}

fn planted_environment() -> String {
    PLANTED.iter().map(|(k, v)| format!("    - \"{k}={v}\"\n")).collect()
}

fn never_contains(what: &str, text: &str) -> Result<(), String> {
    match planted_secrets().into_iter().find(|s| text.contains(s)) {
        Some(secret) => Err(format!("{what} shows `{secret}`:\n{text}")),
        None => Ok(()),
    }
}

#[test]
fn part2_item03_plan_files_and_env_withhold_every_credential() {
    let s = project("p2-03-plan");
    s.write("const.yaml", with_environment(&planted_environment()));
    let mut f = Failures::new();
    let planned = plan_in(&s.path, &[]);
    f.check(
        "plan",
        planned
            .exit(&[0])
            .and_then(|_| never_contains("plan output", &all_text(&planned))),
    );
    for file in ["stage_plan.env", "stage_plan.json"] {
        f.check(file, never_contains(file, &read(&s.join(&format!("out/{file}")))));
    }
    let env = stagec()
        .args(["env", "--rank", "0", "--plan"])
        .arg(s.join("out/stage_plan.json"))
        .run();
    f.check(
        "env",
        env.exit(&[0]).and_then(|_| never_contains("env", &all_text(&env))),
    );
    // The job still gets them: determined.yaml is Determined's (issue 23).
    let determined = read(&s.join("out/determined.yaml"));
    f.check(
        "determined.yaml keeps what the job needs",
        match determined.contains("plantedMysqlPwd03") {
            true => Ok(()),
            false => Err(determined),
        },
    );
    f.finish();
}

#[test]
fn part2_item03_diff_and_env_of_an_old_plan_never_show_credentials() {
    // Plans written before the classifier knew these names (or edited by
    // hand) carry the values: `diff` and `env` still never print them.
    let s = project("p2-03-diff");
    s.write("const.yaml", CONFIG);
    let mut f = Failures::new();
    f.check("plan", plan_in(&s.path, &[]).exit(&[0]));
    let base: Value = serde_json::from_str(&read(&s.join("out/stage_plan.json"))).unwrap_or(Value::Null);
    let planted = |suffix: &str| {
        let mut v = base.clone();
        if let Some(vars) = v["environment"]["variables"].as_object_mut() {
            for (k, value) in PLANTED {
                vars.insert((*k).into(), format!("{value}{suffix}").into());
            }
        }
        serde_json::to_string(&v).unwrap_or_default()
    };
    s.write("a.json", planted(""));
    s.write("b.json", planted("X"));
    let diff = stagec().arg("diff").arg(s.join("a.json")).arg(s.join("b.json")).run();
    f.check(
        "diff",
        diff.exit(&[0, 1])
            .and_then(|_| never_contains("diff", &all_text(&diff))),
    );
    let env = stagec()
        .args(["env", "--rank", "0", "--plan"])
        .arg(s.join("a.json"))
        .run();
    f.check(
        "env",
        env.exit(&[0]).and_then(|_| never_contains("env", &all_text(&env))),
    );
    f.finish();
}

#[test]
fn part2_item03_check_diff_masks_context_and_changed_lines() {
    // The C101 fix moves `checkpoints:` credentials; the Y012 fix is next to
    // literal credentials in the context lines.
    let config = SEED_CONFIG
        .replace("${S3_ACCESS_KEY}", "AKIAPLANTEDACCESS003")
        .replace("${S3_SECRET_KEY}", "plantedDiffSecret03")
        .replace("plantedDiffSecret03\n\n", "plantedDiffSecret03\ndebug: yes\n");
    assert!(config.contains("plantedDiffSecret03\ndebug: yes\n"), "{config}");
    let config = format!(
        "{config}environment:\n  environment_variables:\n    - AWS_SECRET_ACCESS_KEY=plantedEnvSecret03\n    - DATABASE_URL=postgres://u:plantedDbPassword03@db/x\n  force_pull_image: yes\n"
    );
    let s = Scratch::new("p2-03-check-diff");
    s.write("const.yaml", &config);
    s.write("model.py", SEED_MODEL);
    let out = stagec()
        .args(["check", "--diff", "--unsafe-fixes"])
        .arg(s.join("const.yaml"))
        .run();
    let mut f = Failures::new();
    f.check(
        "a diff is printed",
        out.exit(&[1]).and_then(|_| match all_text(&out).contains("+++") {
            true => Ok(()),
            false => Err(out.describe()),
        }),
    );
    for secret in [
        "AKIAPLANTEDACCESS003",
        "plantedDiffSecret03",
        "plantedEnvSecret03",
        "plantedDbPassword03",
    ] {
        f.check(secret, out.never_shows(secret));
    }
    // A changed line that holds a credential: Y012's fix quotes it.
    let s = project("p2-03-check-diff-changed");
    s.write(
        "const.yaml",
        CONFIG.replace(
            "checkpoint_storage:\n  type: shared_fs\n  host_path: /mnt/checkpoints\n",
            "checkpoint_storage:\n  type: s3\n  bucket: b\n  access_key: 0123456701\n  secret_key: ${S3_SECRET_KEY}\n",
        ),
    );
    let out = stagec()
        .args(["check", "--diff", "--unsafe-fixes"])
        .arg(s.join("const.yaml"))
        .env("S3_SECRET_KEY", "x")
        .run();
    f.check(
        "changed line",
        out.exit(&[1]).and_then(|_| {
            if !all_text(&out).contains("+  access_key: \"**********\"") {
                return Err(format!("no masked changed line: {}", all_text(&out)));
            }
            out.never_shows("123456701")
        }),
    );
    f.finish();
}

#[test]
fn part2_item03_yaml_rules_never_quote_numeric_credentials() {
    let base = CONFIG.replace(
        "checkpoint_storage:\n  type: shared_fs\n  host_path: /mnt/checkpoints\n",
        "checkpoint_storage:\n  type: s3\n  bucket: b\n  access_key: 0123456701\n  secret_key: 88888888888888888888\n",
    );
    let s = project("p2-03-y011");
    s.write("const.yaml", &base);
    let mut f = Failures::new();
    for format in ["json", "human", "concise", "github", "sarif"] {
        let out = stagec()
            .args(["check", "--format", format])
            .arg(s.join("const.yaml"))
            .run();
        f.check(
            format,
            out.exit(&[1]).and_then(|_| {
                // As written, as YAML 1.2 reads it, as the master reads it.
                for shown in ["0123456701", "123456701", "21913025", "888888888888", "8.88888"] {
                    out.never_shows(shown)?;
                }
                Ok(())
            }),
        );
    }
    // The findings are still reported, saying what differs without the
    // digits: the octal value is a number to both readers, not the same.
    let out = check_json(&s.join("const.yaml"), &[]);
    f.check("Y012 still fires", has_code(&out, "Y012"));
    let message = first_message(&out.json().unwrap_or_default(), "Y012");
    f.check(
        "Y012 says the two readings differ",
        if message.contains("but a number to") {
            Err(format!("reads as if nothing differed: {message}"))
        } else {
            Ok(())
        },
    );
    f.finish();
}

// ---------------------------------------------------------------------------
// 6. `determined.yaml` is read alike by YAML 1.1 and 1.2 readers.

#[test]
fn part2_item06_determined_yaml_reads_alike_to_the_master() {
    let keys = [
        "on", "off", "n", "y", "yes", "no", "true", "null", "~", "1e3", "0x10", "1_000", "12:30", "0777", "Y", "NO",
    ];
    let mut hp = String::new();
    for (i, k) in keys.iter().enumerate() {
        hp.push_str(&format!("  \"{k}\": \"{k}\"\n"));
        hp.push_str(&format!("  \"v{i}\": \"{k}\"\n"));
    }
    hp.push_str("  sep: \"a\\u2028b\\u2029c\\x85d\\x7fe\"\n");
    let config = CONFIG.replace("hyperparameters:\n", &format!("hyperparameters:\n{hp}"));
    let s = project("p2-06");
    s.write("const.yaml", &config);
    let mut f = Failures::new();
    let planned = plan_in(&s.path, &[]);
    f.check("plan", planned.exit(&[0]));
    let written = read(&s.join("out/determined.yaml"));
    // No raw line separators: they are line breaks to YAML 1.1 readers.
    f.check(
        "escaped separators",
        match written.contains(['\u{2028}', '\u{2029}', '\u{85}', '\u{7f}']) {
            true => Err(format!("raw separators in determined.yaml:\n{written}")),
            false => Ok(()),
        },
    );
    // stagec reads it as the master does: no YAML 1.1 finding.
    s.write("determined.yaml", &written);
    let out = check_json(&s.join("determined.yaml"), &[]);
    f.check("no Y012", lacks_code(&out, "Y012"));
    f.check("no Y019", lacks_code(&out, "Y019"));
    f.check(
        "hyperparameters read back",
        out.json().and_then(|_| {
            let (tree, _) = stagec::yaml::parse_with(
                &written,
                &stagec::yaml::Budgets::default(),
                stagec::yaml::Schema::Master,
            );
            let back = tree
                .root()
                .and_then(|r| tree.to_json(r, 100_000))
                .unwrap_or(Value::Null);
            for (i, k) in keys.iter().enumerate() {
                let hps = &back["hyperparameters"];
                if hps[*k] != Value::String((*k).into()) || hps[format!("v{i}")] != Value::String((*k).into()) {
                    return Err(format!("`{k}` read back as {:?}\n{written}", hps.get(*k)));
                }
            }
            match back["hyperparameters"]["sep"].as_str() {
                Some("a\u{2028}b\u{2029}c\u{85}d\u{7f}e") => Ok(()),
                other => Err(format!("sep read back as {other:?}")),
            }
        }),
    );
    f.finish();
}

#[test]
fn part2_item06_raw_line_separators_are_reported_where_they_are() {
    let config = CONFIG.replace(
        "name: hostile\n",
        "name: \"hos\u{2028}tile\"\ndescription: a\u{85}b # c\u{2029}d\n",
    );
    let s = project("p2-06-raw");
    s.write("const.yaml", &config);
    let out = check_json(&s.join("const.yaml"), &[]);
    let mut f = Failures::new();
    f.check("exit", out.exit(&[0, 1]));
    f.check(
        "Y019 at each character",
        out.json().and_then(|v| {
            let found: Vec<(u64, u64)> = diagnostics(&v)
                .iter()
                .filter(|d| d["code"] == "Y019" && d["severity"] == "warning")
                .map(|d| (d["line"].as_u64().unwrap_or(0), d["column"].as_u64().unwrap_or(0)))
                .collect();
            let want = vec![(1, 11), (2, 15), (2, 21)];
            if found == want {
                Ok(())
            } else {
                Err(format!("Y019 at {found:?}, wanted {want:?}: {}", codes(&v).join(", ")))
            }
        }),
    );
    f.finish();
}
