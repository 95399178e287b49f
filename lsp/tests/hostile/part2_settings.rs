//! Hostile settings files in the editor (issue 21): a settings file the
//! server cannot use is shown to the user, and the config is still checked
//! (with the default settings).

use super::*;

/// Waits for a `window/showMessage` and for the diagnostics of `uri`;
/// returns the messages shown and the diagnostics published last.
fn message_and_diagnostics(c: &mut Client, uri: &str) -> Result<(Vec<String>, Vec<Value>), String> {
    let deadline = Instant::now() + ANSWER;
    let mut shown = Vec::new();
    let mut diagnostics: Option<Vec<Value>> = None;
    while Instant::now() < deadline && (shown.is_empty() || diagnostics.is_none()) {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = match c.incoming.recv_timeout(left) {
            Ok(m) => m,
            Err(_) => break,
        };
        if m["method"] == json!("window/showMessage") {
            shown.push(m["params"]["message"].as_str().unwrap_or_default().to_string());
        } else if m["method"] == json!("textDocument/publishDiagnostics") && m["params"]["uri"] == json!(uri) {
            diagnostics = m["params"]["diagnostics"].as_array().cloned();
        }
    }
    match (shown.is_empty(), diagnostics) {
        (false, Some(d)) => Ok((shown, d)),
        (_, d) => Err(format!(
            "messages shown: {shown:?}; diagnostics: {d:?}; {}",
            c.death().unwrap_or_else(|| "the server is alive".into())
        )),
    }
}

#[test]
fn part2_item05_a_broken_settings_file_is_shown_and_checking_goes_on() {
    let huge = format!(
        "[tool.stagec.per-file-ignores]\n\"{}*.yaml\" = [\"C\"]\n",
        "?".repeat(140_000)
    );
    let cases = [
        ("huge glob", huge, "pyproject.toml:2:1:"),
        (
            "inventory outside the project",
            "[tool.stagec]\ninventory = \"/proc/self/environ\"\n".to_string(),
            "outside the project",
        ),
    ];
    let mut f = Failures::default();
    for (what, settings, expected) in cases {
        let s = Scratch::new("lsp-p2-item05");
        let path = s.write("const.yaml", CONFIG.replace("slots_per_trial: 6", "slots_per_trial: 7"));
        s.write("model.py", model("2"));
        s.write("pyproject.toml", &settings);
        let uri = uri_of(&path);
        let mut c = Client::start();
        c.open(&path, "yaml");
        let result = message_and_diagnostics(&mut c, &uri).and_then(|(shown, diagnostics)| {
            if !shown.iter().any(|m| m.contains(expected)) {
                return Err(format!("no message with `{expected}`: {shown:?}"));
            }
            if shown.iter().any(|m| m.len() > 4096) {
                return Err("a message of more than 4 KiB".to_string());
            }
            match diagnostics.is_empty() {
                true => Err("the config was not checked: no diagnostics".to_string()),
                false => Ok(()),
            }
        });
        f.check(what, result.and_then(|_| c.shutdown()));
    }
    f.finish();
}
