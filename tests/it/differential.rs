//! Differential test against Determined's own validation code: seeded
//! mutants of the real configs in `../shared/corpus`, each checked by
//! stagec and by `scripts/oracle/verdict.py` (Determined's schema keywords
//! from `determined==0.17.15` over the current expconf schemas, with the
//! master's submission checks). They must agree — stagec reports an error
//! exactly when Determined refuses the config — except where a committed
//! allow-list (`tests/differential/allow.json`) says why they may not.
//!
//! The oracle is installed by the project's own script into
//! `target/oracle-venv` from PyPI; where PyPI or `../shared` is out of
//! reach the test skips with a notice (CI sets `STAGEC_REQUIRE_ORACLE` and
//! `STAGEC_REQUIRE_SHARED`, and then it fails instead). Without
//! `STAGEC_REQUIRE_ORACLE` nothing is installed.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use stagec::document::Document;
use stagec::yaml::{Budgets, Schema};

/// Mutants checked (besides the unmutated corpus).
const MUTANTS: usize = 2400;
/// The generator's seed: the same mutants on every run.
const SEED: u64 = 0x5_7a9e_c0de_2026;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

/// A step from a value to one of its children.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                here.push(Step::Key(k.clone()));
                out.push(here.clone());
                paths(child, here, out);
                here.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                here.push(Step::Index(i));
                out.push(here.clone());
                paths(child, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'a>(v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut here = v;
    for step in path {
        here = match step {
            Step::Key(k) => here.get_mut(k.as_str())?,
            Step::Index(i) => here.get_mut(*i)?,
        };
    }
    Some(here)
}

fn show(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Every property name the expconf schemas declare (for renames to a
/// sibling key that exists somewhere).
fn schema_keys(dir: &Path) -> Vec<String> {
    let mut keys = std::collections::BTreeSet::new();
    fn walk(v: &Value, keys: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = m.get("properties") {
                    keys.extend(props.keys().cloned());
                }
                m.values().for_each(|c| walk(c, keys));
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, keys)),
            _ => {}
        }
    }
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if let Ok(text) = std::fs::read_to_string(entry.path()) {
            if let Ok(v) = serde_json::from_str::<Value>(&text) {
                walk(&v, &mut keys);
            }
        }
    }
    keys.into_iter().collect()
}

const TAGS: &[&str] = &[
    "const",
    "int",
    "double",
    "log",
    "categorical",
    "shared_fs",
    "s3",
    "gcs",
    "azure",
    "directory",
    "single",
    "random",
    "grid",
    "adaptive_asha",
    "async_halving",
    "custom",
    "sync_halving",
    "batches",
    "epochs",
    "records",
];
const PATHS: &[&str] = &[
    "../x",
    "..foo",
    "/mnt/x",
    "a/../../b",
    "//data",
    "./",
    "",
    "/tmp/ckpt",
    "x/y",
];

/// One random change to `v`, described.
fn mutate(v: &mut Value, rng: &mut Rng, keys: &[String]) -> Option<String> {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    let path = rng.pick(&all)?.clone();
    let (last, parent_path) = path.split_last()?;
    let op = rng.below(10);
    let here = show(&path);
    match op {
        0 => {
            let parent = get_mut(v, parent_path)?;
            match (parent, last) {
                (Value::Object(m), Step::Key(k)) => {
                    m.remove(k)?;
                }
                (Value::Array(a), Step::Index(i)) if *i < a.len() => {
                    a.remove(*i);
                }
                _ => return None,
            }
            Some(format!("delete {here}"))
        }
        1 | 2 => {
            let Step::Key(k) = last else { return None };
            let new = if op == 1 {
                // A typo: a character dropped, doubled or swapped.
                let mut c: Vec<char> = k.chars().collect();
                let i = rng.below(c.len().max(1));
                match rng.below(3) {
                    0 if c.len() > 1 => {
                        c.remove(i);
                    }
                    1 if !c.is_empty() => c.insert(i, c[i]),
                    _ if c.len() > 1 => {
                        let j = i.min(c.len() - 2);
                        c.swap(j, j + 1);
                    }
                    _ => c.push('x'),
                }
                c.into_iter().collect()
            } else {
                rng.pick(keys)?.clone()
            };
            let parent = get_mut(v, parent_path)?.as_object_mut()?;
            if parent.contains_key(&new) {
                return None;
            }
            let value = parent.remove(k)?;
            parent.insert(new.clone(), value);
            Some(format!("rename {here} to {new}"))
        }
        3 => {
            let target = get_mut(v, &path)?;
            let new = match target {
                Value::Number(n) => json!(n.to_string()),
                Value::String(s) => s.parse::<f64>().map_or(json!(1), |f| json!(f)),
                Value::Bool(b) => json!(b.to_string()),
                Value::Null => json!("null"),
                Value::Array(a) => a.first().cloned().unwrap_or(json!(0)),
                Value::Object(_) => json!([target.clone()]),
            };
            *target = new;
            Some(format!("retype {here}"))
        }
        4 => {
            *get_mut(v, &path)? = Value::Null;
            Some(format!("null {here}"))
        }
        5 => {
            let target = get_mut(v, &path)?;
            let tag = rng.pick(TAGS)?;
            let obj = target.as_object_mut()?;
            let key = ["type", "name", "storage_type"]
                .into_iter()
                .find(|k| obj.contains_key(*k))?;
            obj.insert(key.to_string(), json!(tag));
            Some(format!("retag {here}.{key} to {tag}"))
        }
        6 => {
            let obj = get_mut(v, &path)?.as_object_mut()?;
            let (lo, hi) = (obj.get("minval")?.clone(), obj.get("maxval")?.clone());
            obj.insert("minval".into(), hi);
            obj.insert("maxval".into(), lo);
            Some(format!("swap the bounds of {here}"))
        }
        7 => {
            let Step::Key(k) = last else { return None };
            if !k.contains("path") && !k.contains("prefix") {
                return None;
            }
            let p = rng.pick(PATHS)?;
            *get_mut(v, &path)? = json!(p);
            Some(format!("path {here} = {p:?}"))
        }
        8 => {
            let target = get_mut(v, &path)?;
            if !target.is_number() {
                return None;
            }
            let n = [
                json!(0),
                json!(-1),
                json!(1.5),
                json!(1e21),
                json!(9223372036854775807i64),
            ];
            let new = rng.pick(&n)?.clone();
            *target = new.clone();
            Some(format!("number {here} = {new}"))
        }
        _ => {
            let target = get_mut(v, &path)?;
            let new = match &*target {
                Value::Array(a) if a.len() == 1 => a[0].clone(),
                Value::Array(_) => return None,
                other => json!([other.clone()]),
            };
            *target = new;
            Some(format!("list<->scalar {here}"))
        }
    }
}

/// The allow-list: disagreements with a reason.
#[derive(Debug)]
struct Allowed {
    /// `stagec` (stagec reports an error, Determined accepts) or
    /// `determined` (Determined refuses, stagec reports none).
    side: String,
    /// Side `stagec`: the stagec errors that may cause it. Side
    /// `determined`: the codes one of which stagec must report (as a
    /// warning) for the disagreement to count as explained.
    codes: Vec<String>,
    /// Substrings of Determined's reasons that may cause it (side `determined`).
    reasons: Vec<String>,
    why: String,
}

fn allow_list() -> Vec<Allowed> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/allow.json");
    let text = std::fs::read_to_string(&path).expect("tests/differential/allow.json");
    let v: Value = serde_json::from_str(&text).expect("allow.json is JSON");
    v.as_array()
        .expect("a list")
        .iter()
        .map(|e| Allowed {
            side: e["side"].as_str().unwrap_or_default().to_string(),
            codes: e["codes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c.as_str().map(String::from))
                .collect(),
            reasons: e["reasons"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c.as_str().map(String::from))
                .collect(),
            why: e["why"].as_str().unwrap_or_default().to_string(),
        })
        .collect()
}

/// The oracle's interpreter. Without `STAGEC_REQUIRE_ORACLE` nothing is
/// installed: an environment already set up is used, and otherwise the test
/// is skipped with a notice. With it the environment is set up from PyPI
/// when missing, and any failure fails the test.
fn oracle() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join("target/oracle-venv");
    let python = venv.join("bin/python");
    let switch = "STAGEC_REQUIRE_ORACLE";
    let mut setup = Command::new("bash");
    setup.arg(root.join("scripts/oracle/setup.sh")).arg(&venv);
    if !common::tools::required(switch) {
        setup.env("STAGEC_TOOLS_NO_INSTALL", "1");
    }
    match setup.status() {
        Ok(s) if s.success() && python.exists() => Some(python),
        other => common::tools::skip(
            switch,
            "differential",
            &format!(
                "the oracle (Determined's validator from PyPI) is not set up in {} (setup.sh: {:?})",
                venv.display(),
                other.map(|s| s.code())
            ),
        ),
    }
}

#[test]
fn stagec_agrees_with_determined_on_mutated_configs() {
    let Some(shared) = common::shared_dir() else { return };
    let Some(python) = oracle() else { return };
    let schemas = shared.join("reference/determined-expconf-v0");
    let keys = schema_keys(&schemas);

    // The corpus as the master reads it.
    let mut corpus: Vec<(String, Value)> = Vec::new();
    let mut files: Vec<PathBuf> = walk(&shared.join("corpus"));
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let mut doc = Document::parse(&text, &Budgets::default(), Schema::Master);
        doc.gate(&Budgets::default());
        if let Some(json) = doc.json {
            corpus.push((f.file_name().unwrap_or_default().to_string_lossy().into_owned(), json));
        }
    }
    assert!(corpus.len() >= 30, "the corpus is there: {}", corpus.len());
    // Determined's own schema test cases, where a checkout of its repository
    // is at hand (`STAGEC_DETERMINED_REPO`; never committed here): every
    // whole experiment among them is a base too.
    if let Some(repo) = std::env::var_os("STAGEC_DETERMINED_REPO") {
        let dir = Path::new(&repo).join("schemas/test_cases/v0");
        let mut files = walk(&dir);
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            let (tree, _) = stagec::yaml::parse(&text, &Budgets::default());
            let Some(Value::Array(items)) = tree.root().and_then(|r| tree.to_json(r, 1_000_000)) else {
                continue;
            };
            for item in items {
                let about_experiments = ["sane_as", "sanity_errors"].iter().any(|k| {
                    let v = &item[*k];
                    v.to_string().contains("/experiment.json")
                });
                if about_experiments && item["case"].is_object() {
                    let name = item["name"].as_str().unwrap_or("case").to_string();
                    corpus.push((format!("determined test case {name:?}"), item["case"].clone()));
                }
            }
        }
    }

    // Mutants: one to three changes each. `STAGEC_DIFF_SEED` and
    // `STAGEC_DIFF_MUTANTS` explore other ones (CI runs the fixed set).
    let env_number = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let mut rng = Rng(env_number("STAGEC_DIFF_SEED").unwrap_or(SEED) | 1);
    let mutants = env_number("STAGEC_DIFF_MUTANTS").map_or(MUTANTS, |n| n as usize);
    let mut cases: Vec<(String, Value)> = corpus
        .iter()
        .map(|(n, j)| (format!("{n} as written"), j.clone()))
        .collect();
    while cases.len() < corpus.len() + mutants {
        let i = rng.below(corpus.len());
        let (name, base) = &corpus[i];
        let mut v = base.clone();
        let mut ops = Vec::new();
        for _ in 0..=rng.below(3) {
            if let Some(op) = mutate(&mut v, &mut rng, &keys) {
                ops.push(op);
            }
        }
        if ops.is_empty() || v == *base {
            continue;
        }
        cases.push((format!("{name}: {}", ops.join("; ")), v));
    }

    // Determined's verdicts, in two processes.
    let input: Vec<String> = cases.iter().map(|(_, v)| v.to_string()).collect();
    let half = input.len() / 2;
    let run = |lines: &[String]| -> Vec<Value> {
        use std::io::Write;
        let mut child = Command::new(&python)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/oracle/verdict.py"))
            .arg("--schemas")
            .arg(&schemas)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("run the oracle");
        let mut stdin = child.stdin.take().expect("stdin");
        let text = lines.join("\n") + "\n";
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(text.as_bytes());
        });
        let out = child.wait_with_output().expect("the oracle's output");
        let _ = writer.join();
        assert!(out.status.success(), "the oracle failed");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("a verdict"))
            .collect()
    };
    let (a, b) = input.split_at(half);
    let (va, vb) = std::thread::scope(|s| {
        let ha = s.spawn(|| run(a));
        let hb = s.spawn(|| run(b));
        (ha.join().expect("oracle"), hb.join().expect("oracle"))
    });
    let verdicts: Vec<Value> = va.into_iter().chain(vb).collect();
    assert_eq!(verdicts.len(), cases.len());

    // Compare.
    let allowed = allow_list();
    let mut agree = 0usize;
    let mut explained: BTreeMap<String, usize> = BTreeMap::new();
    let mut unexplained = Vec::new();
    for ((name, config), verdict) in cases.iter().zip(&verdicts) {
        let text = serde_json::to_string_pretty(config).unwrap_or_default();
        let checked = stagec::check_experiment("mutant.json", text.as_bytes(), &stagec::Options::default());
        let codes: Vec<&str> = checked
            .diagnostics
            .iter()
            .filter(|d| d.severity == stagec::Severity::Error)
            .map(|d| d.code)
            .collect();
        let warnings: Vec<&str> = checked
            .diagnostics
            .iter()
            .filter(|d| d.severity == stagec::Severity::Warning)
            .map(|d| d.code)
            .collect();
        let determined_rejects = verdict["verdict"] == "reject";
        if determined_rejects != codes.is_empty() {
            agree += 1;
            continue;
        }
        let reasons: Vec<String> = verdict["reasons"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str().map(String::from))
            .collect();
        let why = if codes.is_empty() {
            // Every reason explained by an entry whose warning stagec gave.
            let explained_by = |r: &String| {
                allowed.iter().find(|a| {
                    a.side == "determined"
                        && a.reasons.iter().any(|p| r.contains(p.as_str()))
                        && a.codes.iter().any(|c| warnings.contains(&c.as_str()))
                })
            };
            let entries: Vec<&Allowed> = reasons.iter().filter_map(explained_by).collect();
            (entries.len() == reasons.len() && !reasons.is_empty())
                .then(|| entries.first().copied())
                .flatten()
        } else {
            allowed
                .iter()
                .find(|a| a.side == "stagec" && codes.iter().all(|c| a.codes.iter().any(|x| x == c)))
        };
        match why {
            Some(a) => *explained.entry(a.why.clone()).or_default() += 1,
            None => unexplained.push(format!(
                "{name}\n    stagec errors: {codes:?}\n    Determined: {} {reasons:?}",
                verdict["verdict"]
            )),
        }
    }
    eprintln!(
        "differential test: {} configs ({} corpus and test cases, {} mutants); {agree} agree, {} disagreements explained, {} unexplained",
        cases.len(),
        corpus.len(),
        cases.len() - corpus.len(),
        explained.values().sum::<usize>(),
        unexplained.len()
    );
    for (why, n) in &explained {
        eprintln!("  {n:5}  {why}");
    }
    // `STAGEC_DIFF_DUMP=FILE` writes every unexplained disagreement there.
    if let Some(path) = std::env::var_os("STAGEC_DIFF_DUMP") {
        let _ = std::fs::write(path, unexplained.join("\n"));
    }
    assert!(
        unexplained.is_empty(),
        "{} disagreements with Determined that tests/differential/allow.json does not explain:\n{}",
        unexplained.len(),
        unexplained.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
    out
}
