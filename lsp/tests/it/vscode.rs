//! The VS Code extension (`lsp/editors/vscode/`): the settings it sends the
//! server as LSP `initializationOptions` (its `extension.js` activated under
//! Node.js against stub `vscode` modules, `lsp/tests/vscode/options.js`), and
//! its packaging into a `.vsix` by `scripts/package-vscode.sh` with
//! @vscode/vsce from npm — with the LICENSE and a `repository` field, so
//! vsce needs neither `--skip-license` nor `--allow-missing-repository`.
//! Each part is skipped with a printed notice when Node.js is missing or
//! vsce is not installed (nothing is installed unless `STAGEC_REQUIRE_TOOLS`
//! is set, and then a missing tool fails the test).

use crate::tools;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

fn have(program: &str, test: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    found || tools::skip::<()>(tools::REQUIRE_TOOLS, test, &format!("`{program}` is not installed")).is_some()
}

#[test]
fn settings_reach_the_server_as_initialization_options() {
    if !have("node", "settings_reach_the_server_as_initialization_options") {
        return;
    }
    let repo = tools::repo_root();
    let cases = json!([
        { "settings": {}, "folder": null },
        {
            "settings": {
                "stagec.server.path": "/opt/stagec/bin/stagec-lsp",
                "stagec.inventory": "cluster/nodes.json",
                "stagec.select": ["C", " P118 ", ""],
                "stagec.ignore": ["V302", 7],
                "stagec.docsBaseUrl": " https://docs.example/stagec/rules/ ",
            },
            "folder": "/work/project",
        },
        {
            "settings": { "stagec.inventory": "/etc/stagec/inventory.yaml", "stagec.select": "C" },
            "folder": "/work/project",
        },
    ]);
    let out = tools::output_within(
        Command::new("node")
            .arg(repo.join("lsp/tests/vscode/options.js"))
            .arg(repo.join("lsp/editors/vscode/extension.js"))
            .arg(cases.to_string()),
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "options.js failed:\n{stderr}");
    let started: Value = serde_json::from_slice(&out.stdout).expect("options.js prints JSON");
    let started = started.as_array().expect("a list of server starts");
    assert_eq!(
        started.len(),
        3,
        "one start at activation, one per settings change: {started:?}"
    );

    // Defaults: the server on PATH, no inventory, every rule.
    assert_eq!(started[0]["command"], "stagec-lsp");
    assert_eq!(
        started[0]["options"],
        json!({ "inventory": null, "select": [], "ignore": [], "docsBaseUrl": null })
    );
    assert_eq!(started[0]["languages"], json!(["yaml", "yaml", "python"]));
    // A relative inventory is resolved against the workspace folder; codes
    // are trimmed strings, blanks and non-strings dropped.
    assert_eq!(started[1]["command"], "/opt/stagec/bin/stagec-lsp");
    assert_eq!(
        started[1]["options"],
        json!({
            "inventory": "/work/project/cluster/nodes.json",
            "select": ["C", "P118"],
            "ignore": ["V302"],
            "docsBaseUrl": "https://docs.example/stagec/rules/",
        })
    );
    assert_eq!(
        started[2]["options"],
        json!({ "inventory": "/etc/stagec/inventory.yaml", "select": [], "ignore": [], "docsBaseUrl": null })
    );
    // Each restart stopped the previous server; deactivation the last.
    assert!(started.iter().all(|s| s["running"] == false), "{started:?}");

    // The settings are declared in package.json.
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.join("lsp/editors/vscode/package.json")).expect("package.json"),
    )
    .expect("package.json is JSON");
    let props = &manifest["contributes"]["configuration"]["properties"];
    for key in [
        "stagec.server.path",
        "stagec.inventory",
        "stagec.select",
        "stagec.ignore",
        "stagec.docsBaseUrl",
    ] {
        assert!(props[key].is_object(), "package.json does not declare {key}");
    }
    assert_eq!(props["stagec.select"]["type"], "array");
    assert_eq!(props["stagec.ignore"]["items"]["type"], "string");
}

fn cargo_target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| tools::repo_root().join("target"))
}

fn zip_member(vsix: &Path, member: &str) -> Option<String> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())",
        ])
        .arg(vsix)
        .arg(member)
        .output()
        .expect("run python3");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn vsix_packages_with_license_and_repository() {
    let test = "vsix_packages_with_license_and_repository";
    if !tools::required(tools::REQUIRE_TOOLS) {
        // Packaging installs vsce and the extension's dependencies from npm.
        let _: Option<()> = tools::skip(tools::REQUIRE_TOOLS, test, "packaging installs from the npm registry");
        return;
    }
    if !have("npm", test) || !have("python3", test) {
        return;
    }
    let repo = tools::repo_root();
    let out_dir = cargo_target_dir().join("vscode");
    let started = std::time::Instant::now();
    let out = tools::output_within(
        Command::new("bash")
            .arg(repo.join("scripts/package-vscode.sh"))
            .env("STAGEC_VSCODE_OUT", &out_dir),
        Duration::from_secs(600),
    );
    eprintln!("package-vscode.sh took {:.1?}", started.elapsed());
    let stderr = String::from_utf8_lossy(&out.stderr);
    if matches!(out.status.code(), Some(3 | 4)) {
        let why = stderr.lines().last().unwrap_or("npm unavailable").to_string();
        let _: Option<()> = tools::skip(tools::REQUIRE_TOOLS, test, &why);
        return;
    }
    assert!(
        out.status.success(),
        "package-vscode.sh failed ({}):\n{stderr}",
        out.status
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let vsix = PathBuf::from(stdout.lines().last().unwrap_or_default().trim());
    assert_eq!(vsix.parent(), Some(out_dir.as_path()), "{stdout}");
    assert!(vsix.is_file(), "no .vsix at {}", vsix.display());
    assert!(!stderr.contains("--skip-license") && !stderr.contains("--allow-missing-repository"));

    let license = zip_member(&vsix, "extension/LICENSE.txt").expect("the .vsix carries the LICENSE");
    assert!(license.contains("Apache License") && license.contains("Version 2.0"));
    let manifest: Value =
        serde_json::from_str(&zip_member(&vsix, "extension/package.json").expect("the .vsix carries package.json"))
            .expect("package.json is JSON");
    assert!(manifest["repository"]["url"].is_string(), "{manifest:#}");
    assert!(manifest["contributes"]["configuration"]["properties"]["stagec.inventory"].is_object());
    assert!(zip_member(&vsix, "extension/extension.js").is_some_and(|js| js.contains("initializationOptions")));
    assert!(
        zip_member(&vsix, "extension/node_modules/vscode-languageclient/package.json").is_some(),
        "the .vsix lacks its runtime dependency vscode-languageclient"
    );
}
