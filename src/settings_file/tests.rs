//! Unit tests of settings files (declared under `#[cfg(test)]` by the
//! parent module).

use super::*;

fn origin(name: &str) -> SettingsOrigin {
    SettingsOrigin::new(Path::new("/repo").join(name))
}

#[test]
fn keys_are_the_schema_properties() {
    let schema = settings_schema();
    let mut props: Vec<&str> = schema["properties"]
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    props.sort_unstable();
    let mut keys = KEYS.to_vec();
    keys.sort_unstable();
    assert_eq!(props, keys);
}

#[test]
fn every_key_is_read() {
    let text = r#"
extend = "base/stagec.toml"
select = ["C", "P2"]
ignore = ["C101"]
extend-select = ["T1"]
inventory = "cluster/nodes.json"
determined = "0.38.1"
show-infos = true
deny-warnings = false
min-severity = "warning"
[per-file-ignores]
"legacy/*.yaml" = ["C2"]
"#;
    let s = parse(text, origin("stagec.toml")).expect("valid settings");
    assert_eq!(s.extend.as_deref(), Some(Path::new("/repo/base/stagec.toml")));
    assert_eq!(s.rules.len(), 1);
    assert_eq!(s.rules[0].select.as_ref().map(Vec::len), Some(2));
    assert_eq!(s.rules[0].ignore.len(), 1);
    assert_eq!(s.rules[0].extend_select.len(), 1);
    assert_eq!(s.inventory.as_deref(), Some(Path::new("/repo/cluster/nodes.json")));
    assert_eq!(s.determined.as_deref(), Some("0.38.1"));
    assert_eq!((s.show_infos, s.deny_warnings), (Some(true), Some(false)));
    assert_eq!(s.min_severity, Some(Severity::Warning));
    assert_eq!(s.per_file_ignores.as_ref().map(Vec::len), Some(1));
    // The same text is valid to serde against the schema's type.
    let typed: SettingsOptions = toml::from_str(text).expect("the schema's type reads it");
    assert_eq!(typed.min_severity, Some(MinSeverity::Warning));
}

#[test]
fn unknown_keys_and_bad_values_are_located() {
    let text =
        "select = [\"C\"]\nselec = [\"P\"]\nextend_select = [\"T\"]\nignore = [\"C1O1\", 3]\nmin-severity = \"warn\"\n";
    let errors = parse(text, origin("stagec.toml")).expect_err("mistakes");
    let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
            shown,
            [
                "/repo/stagec.toml:2:1: unknown setting `selec`; did you mean `select`?",
                "/repo/stagec.toml:3:1: unknown setting `extend_select`; did you mean `extend-select`?",
                "/repo/stagec.toml:4:11: unknown rule selector `C1O1`; did you mean `C101`?",
                "/repo/stagec.toml:4:19: `ignore` lists rule codes or prefixes as strings, not an integer",
                "/repo/stagec.toml:5:16: `min-severity` must be \"info\", \"warning\" or \"error\", not `warn`; did you mean `warning`?",
            ]
        );
    let errors = parse("select = [\n", origin("stagec.toml")).expect_err("not TOML");
    assert!(errors[0].message.starts_with("invalid TOML"), "{errors:?}");
}

#[test]
fn overrides_win_and_stack_their_rules_after_the_file() {
    let file = parse(
        "select = [\"C\"]\ninventory = \"nodes.json\"\nshow-infos = true\n",
        origin("exp/stagec.toml"),
    )
    .expect("valid");
    let over = parse_override("ignore = [\"C101\"]\ninventory = \"cluster/n.csv\"", Path::new("/work")).expect("valid");
    let merged = file.with_overrides(&over);
    // The override's inventory is relative to the current folder, and wins.
    assert_eq!(merged.inventory.as_deref(), Some(Path::new("/work/cluster/n.csv")));
    // What the override leaves unset stays the file's; so does the origin.
    assert_eq!(merged.show_infos, Some(true));
    assert_eq!(merged.origin.path, Path::new("/repo/exp/stagec.toml"));
    // The file's select, then the override's ignore.
    assert_eq!(merged.rules.len(), 2);
    let selection = merged.selection(&[], None);
    assert!(selection.is_enabled("C103") && !selection.is_enabled("C101") && !selection.is_enabled("P118"));
}

#[test]
fn an_override_is_located_and_cannot_extend() {
    let errors = parse_override("selec = [\"C\"]", Path::new("/work")).expect_err("unknown key");
    let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        ["/work/--config:1:1: unknown setting `selec`; did you mean `select`?"]
    );
    let errors = parse_override("extend = \"base.toml\"", Path::new("/work")).expect_err("extend");
    assert_eq!((errors.len(), errors[0].column), (1, 10));
    assert!(errors[0].message.contains("`--config PATH`"), "{}", errors[0].message);
}

#[test]
fn pyproject_settings_live_under_tool_stagec() {
    let none = parse_optional("[tool.ruff]\nselect = [\"E\"]\n", origin("pyproject.toml")).expect("valid");
    assert!(none.is_none());
    let some = parse_optional("[tool.stagec]\nignore = [\"P303\"]\n", origin("pyproject.toml")).expect("valid");
    assert_eq!(some.map(|s| s.rules.len()), Some(1));
    // A nested table creates `tool.stagec` too.
    let nested = parse_optional(
        "[tool.stagec.per-file-ignores]\n\"*.py\" = [\"T\"]\n",
        origin("pyproject.toml"),
    )
    .expect("valid");
    assert!(nested.is_some());
    let errors = parse("[tool.stagec]\nselct = []\n", origin("pyproject.toml")).expect_err("unknown");
    assert_eq!(errors[0].line, 2);
}

#[test]
fn discovery_takes_the_closest_folder_and_its_precedence() {
    let files: BTreeMap<PathBuf, &str> = [
        ("/r/pyproject.toml", "[tool.stagec]\nignore = [\"C\"]\n"),
        ("/r/a/pyproject.toml", "[project]\nname = \"x\"\n"),
        ("/r/a/b/stagec.toml", "ignore = [\"P\"]\n"),
        ("/r/a/b/.stagec.toml", "ignore = [\"T\"]\n"),
        (
            "/r/x/stagec.toml",
            "extend = \"../pyproject.toml\"\nextend-select = [\"C101\"]\n",
        ),
        ("/r/loop/stagec.toml", "extend = \"stagec.toml\"\n"),
    ]
    .into_iter()
    .map(|(p, t)| (PathBuf::from(p), t))
    .collect();
    let mut read = |p: &Path| Ok(files.get(p).map(|t| t.to_string()));
    let found = |dir: &str, read: ReadFile<'_>| find(Path::new(dir), read, &anywhere);
    let a = found("/r/a", &mut read).expect("valid").expect("found");
    assert_eq!(a.origin.path, Path::new("/r/pyproject.toml"));
    let b = found("/r/a/b/c", &mut read).expect("valid").expect("found");
    assert_eq!(b.origin.path, Path::new("/r/a/b/.stagec.toml"));
    let x = found("/r/x", &mut read).expect("valid").expect("found");
    let sel = x.selection(&[], None);
    assert!(!sel.is_enabled("C102") && sel.is_enabled("C101"));
    assert!(found("/elsewhere", &mut read).expect("valid").is_none());
    let errors = found("/r/loop", &mut read).expect_err("a cycle");
    assert!(errors[0].message.contains("extends this file again"), "{errors:?}");
}

/// Only files under `/r` are in the project.
fn under_r(_settings: &Path, named: &Path) -> Result<(), String> {
    match named.starts_with("/r") {
        true => Ok(()),
        false => Err("outside the project (/r)".to_string()),
    }
}

#[test]
fn files_named_by_settings_files_stay_in_the_project() {
    let files: BTreeMap<PathBuf, &str> = [
        ("/r/a/stagec.toml", "inventory = \"../../etc/secret\"\n"),
        ("/r/b/stagec.toml", "extend = \"/home/u/.aws/credentials\"\n"),
        ("/r/c/stagec.toml", "extend = \"../base.toml\"\n"),
        ("/r/base.toml", "select = [\"C\"]\ninventory = \"/proc/self/environ\"\n"),
        ("/r/d/stagec.toml", "inventory = \"../nodes.json\"\n"),
        ("/outside/stagec.toml", "select = [\"C\"]\n"),
    ]
    .into_iter()
    .map(|(p, t)| (PathBuf::from(p), t))
    .collect();
    let mut read = |p: &Path| Ok(files.get(p).map(|t| t.to_string()));
    let errors = find(Path::new("/r/a"), &mut read, &under_r).expect_err("outside");
    assert_eq!((errors[0].line, errors[0].column), (1, 13), "{errors:?}");
    assert!(
        errors[0]
            .message
            .contains("`inventory` names /etc/secret, outside the project"),
        "{errors:?}"
    );
    let errors = find(Path::new("/r/b"), &mut read, &under_r).expect_err("outside");
    assert!(
        errors[0]
            .message
            .contains("`extend` names /home/u/.aws/credentials, outside"),
        "{errors:?}"
    );
    // An extended file is held too, and located in itself.
    let errors = find(Path::new("/r/c"), &mut read, &under_r).expect_err("outside");
    assert_eq!(errors[0].path, Path::new("/r/base.toml"));
    assert_eq!(errors[0].line, 2);
    let ok = find(Path::new("/r/d"), &mut read, &under_r)
        .expect("inside")
        .expect("found");
    assert_eq!(ok.inventory.as_deref(), Some(Path::new("/r/nodes.json")));
    // The settings file itself.
    let errors = load(Path::new("/outside/stagec.toml"), &mut read, &under_r).expect_err("outside");
    assert!(
        errors[0].message.starts_with("this settings file is outside"),
        "{errors:?}"
    );
    // The command line's overrides are the user's: not held.
    let over = parse_override("inventory = \"/etc/nodes.json\"", Path::new("/r")).expect("valid");
    assert_eq!(over.inventory.as_deref(), Some(Path::new("/etc/nodes.json")));
}

#[test]
fn an_extend_chain_has_a_byte_budget() {
    let big = format!("# {}\n", "x".repeat(MAX_BYTES - 100));
    let files: BTreeMap<PathBuf, String> = (0..4)
        .map(|i| {
            let text = match i {
                3 => big.clone(),
                _ => format!("extend = \"{}.toml\"\n{big}", i + 1),
            };
            (PathBuf::from(format!("/r/{i}.toml")), text)
        })
        .collect();
    let mut read = |p: &Path| Ok(files.get(p).cloned());
    let errors = load(Path::new("/r/0.toml"), &mut read, &anywhere).expect_err("too much");
    assert!(errors[0].message.contains("KiB in all"), "{errors:?}");
    assert_eq!(errors[0].path, Path::new("/r/1.toml"));
}

#[test]
fn globs_are_bounded_in_size_and_number() {
    let huge = format!("[per-file-ignores]\n\"{}*.yaml\" = [\"C\"]\n", "[a-z]".repeat(28_000));
    let errors = parse(&huge, origin("stagec.toml")).expect_err("too long");
    assert_eq!((errors[0].line, errors[0].column), (2, 1));
    assert!(errors[0].message.contains("at most 4096"), "{errors:?}");
    assert!(errors[0].message.len() < 300, "{errors:?}");
    let many: String = (0..300).map(|i| format!("\"d{i}/*.yaml\" = [\"C\"]\n")).collect();
    let errors = parse(&format!("[per-file-ignores]\n{many}"), origin("stagec.toml")).expect_err("too many");
    assert!(errors[0].message.contains("at most 256"), "{errors:?}");
    // Under the size bound, a glob whose expression is too large to
    // compile is an error, not a panic.
    let complex = format!("[per-file-ignores]\n\"{}\" = [\"C\"]\n", "[^\u{e9}]".repeat(700));
    let _ = parse(&complex, origin("stagec.toml"));
    let big: String = (0..20)
        .map(|i| format!("\"{i}{}\" = [\"C\"]\n", "?".repeat(2_000)))
        .collect();
    let errors = parse(&format!("[per-file-ignores]\n{big}"), origin("stagec.toml")).expect_err("too much");
    assert!(errors[0].message.contains("at most 32 KiB"), "{errors:?}");
    let over = format!("per-file-ignores = {{ \"{}\" = [\"C\"] }}", "**/".repeat(2_000));
    assert!(parse_override(&over, Path::new("/w")).is_err());
}
