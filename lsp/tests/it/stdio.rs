//! Starts the built `stagec-lsp` and speaks framed JSON-RPC over its
//! stdin/stdout, as an editor does. Every read has a timeout, so a hung
//! server fails the test instead of hanging CI.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const TIMEOUT: Duration = Duration::from_secs(20);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Messages read while waiting for something else.
    backlog: VecDeque<Value>,
    next_id: i64,
}

fn read_frame(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Client {
    fn start(env: &[(&str, &str)]) -> Client {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stagec-lsp"));
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start stagec-lsp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(v) = read_frame(&mut r) {
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            incoming: rx,
            backlog: VecDeque::new(),
            next_id: 1,
        }
    }

    fn send_raw(&mut self, body: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_raw(&msg.to_string());
    }

    fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(&msg.to_string());
        self.wait(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// The result of a request; panics on an error response.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        assert!(response.get("error").is_none(), "{method} failed: {response}");
        response.get("result").cloned().unwrap_or(Value::Null)
    }

    fn next(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.incoming.recv_timeout(left) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!("timed out waiting for the server"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        }
    }

    fn wait(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&want) {
            return self.backlog.remove(i).expect("backlog item");
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let m = self.next(deadline);
            if want(&m) {
                return m;
            }
            self.backlog.push_back(m);
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let m = self.wait(|m| {
            m.get("method") == Some(&json!("textDocument/publishDiagnostics")) && m["params"]["uri"] == json!(uri)
        });
        m["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    fn initialize(&mut self, capabilities: Value) -> Value {
        let result = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": capabilities}),
        );
        self.notify("initialized", json!({}));
        result
    }

    fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        );
    }

    fn shutdown_and_exit(mut self) -> i32 {
        let r = self.request_raw("shutdown", Value::Null);
        assert_eq!(r.get("result"), Some(&Value::Null), "{r}");
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code().unwrap_or(-1);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn seed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/hpp-seed")
        .canonicalize()
        .expect("examples/hpp-seed")
}

fn uri_of(path: &Path) -> String {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

fn range(l0: u64, c0: u64, l1: u64, c1: u64) -> Value {
    json!({"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}})
}

fn find<'a>(diags: &'a [Value], code: &str) -> Vec<&'a Value> {
    diags.iter().filter(|d| d["code"] == json!(code)).collect()
}

/// UTF-16 position of a byte offset.
fn pos16(text: &str, offset: usize) -> (u64, u64) {
    let before = &text[..offset];
    let line = before.matches('\n').count() as u64;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].encode_utf16().count() as u64)
}

/// Byte offset of a UTF-16 position.
fn offset16(text: &str, line: u64, character: u64) -> usize {
    let mut start = 0;
    for _ in 0..line {
        start += text[start..].find('\n').map_or(text.len() - start, |i| i + 1);
    }
    let mut units = 0;
    for (i, ch) in text[start..].char_indices() {
        if units >= character as usize || ch == '\n' {
            return start + i;
        }
        units += ch.len_utf16();
    }
    text.len()
}

fn apply(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let r = &e["range"];
            let s = offset16(
                text,
                r["start"]["line"].as_u64().unwrap_or(0),
                r["start"]["character"].as_u64().unwrap_or(0),
            );
            let t = offset16(
                text,
                r["end"]["line"].as_u64().unwrap_or(0),
                r["end"]["character"].as_u64().unwrap_or(0),
            );
            (s, t, e["newText"].as_str().unwrap_or("").to_string())
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, t, new) in spans {
        out.replace_range(s..t, &new);
    }
    out
}

#[test]
fn seed_example_end_to_end() {
    let dir = seed_dir();
    let config = dir.join("const.yaml");
    let text = std::fs::read_to_string(&config).expect("read const.yaml");
    let uri = uri_of(&config);
    let model_text = std::fs::read_to_string(dir.join("model.py")).expect("read model.py");
    // 0-based lines of the config's keys the assertions look at.
    let line_of = |prefix: &str| -> u64 {
        text.lines()
            .position(|l| l.starts_with(prefix))
            .and_then(|i| u64::try_from(i).ok())
            .expect("the line")
    };
    let (ck, lr, ak) = (line_of("checkpoints:"), line_of("  lr:"), line_of("    access_key:"));

    let mut c = Client::start(&[]);
    let init = c.initialize(json!({"textDocument": {"publishDiagnostics": {"codeDescriptionSupport": true}}}));
    assert_eq!(init["capabilities"]["positionEncoding"], json!("utf-16"));
    assert_eq!(init["serverInfo"]["name"], json!("stagec-lsp"));

    // Diagnostics with exact ranges, as the CLI reports them.
    c.open(&uri, &text);
    let diags = c.diagnostics(&uri);
    let c101 = find(&diags, "C101");
    assert_eq!(c101.len(), 1, "{diags:#?}");
    assert_eq!(c101[0]["range"], range(ck, 0, ck, 11));
    assert_eq!(c101[0]["severity"], json!(1));
    assert_eq!(c101[0]["message"], json!("unknown key `checkpoints` at the top level"));
    assert_eq!(
        c101[0]["codeDescription"]["href"],
        json!("https://github.com/stagec/stagec/blob/main/docs/rules/unknown-key.md")
    );
    assert_eq!(c101[0]["source"], json!("stagec"));
    assert_eq!(find(&diags, "P118")[0]["range"], range(6, 19, 6, 20));
    assert_eq!(find(&diags, "C103")[0]["range"], range(lr, 2, lr, 4));
    let v302 = find(&diags, "V302");
    assert_eq!(v302.len(), 2);
    assert_eq!(v302[0]["range"], range(ak, 16, ak, 32));
    assert_eq!(v302[0]["severity"], json!(2));
    // model.py's diagnostic (P206) goes to model.py, which is not open.
    assert!(find(&diags, "P206").is_empty());

    // Hover on `slots_per_trial`.
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 6, "character": 5}}),
    );
    let md = hover["contents"]["value"].as_str().unwrap_or("");
    assert!(
        md.contains("resources.slots_per_trial") && md.contains("Number of slots"),
        "{md}"
    );
    assert_eq!(hover["range"], range(6, 2, 6, 17));

    // Hover on `stage_1_gpus`: the resolved stage.
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 10, "character": 6}}),
    );
    let md = hover["contents"]["value"].as_str().unwrap_or("");
    assert!(
        md.contains("Stage 1") && md.contains("TransformerBlock") && md.contains("h100-80g"),
        "{md}"
    );
    assert!(md.contains("fp8_e4m3fn"), "{md}");

    // Completion on `checkpoints`: offers `checkpoint_storage`.
    let items = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": ck, "character": 5}}),
    );
    let items = items.as_array().cloned().unwrap_or_default();
    let item = items.iter().find(|i| i["label"] == json!("checkpoint_storage"));
    assert!(item.is_some(), "{items:#?}");
    assert_eq!(item.map(|i| i["textEdit"]["range"].clone()), Some(range(ck, 0, ck, 5)));
    assert!(
        !items.iter().any(|i| i["label"] == json!("name")),
        "`name` is already present"
    );

    // The quick fix for `checkpoints`.
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": range(ck, 0, ck, 11), "context": {"diagnostics": [c101[0]]}}),
    );
    let actions = actions.as_array().cloned().unwrap_or_default();
    let fix = actions
        .iter()
        .find(|a| a["title"].as_str().is_some_and(|t| t.contains("checkpoint_storage")))
        .cloned()
        .unwrap_or_else(|| panic!("no checkpoint_storage fix in {actions:#?}"));
    assert_eq!(fix["kind"], json!("quickfix"));
    let edits = fix["edit"]["changes"][&uri].as_array().cloned().unwrap_or_default();
    assert!(!edits.is_empty());
    // And the fix for `slots_per_trial`.
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": range(6, 19, 6, 20), "context": {"diagnostics": []}}),
    );
    assert!(actions.to_string().contains("Set to 9"), "{actions}");
    // And the one adding `base` to the `log` hyperparameter.
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": range(lr, 2, lr, 4), "context": {"diagnostics": []}}),
    );
    assert!(actions.to_string().contains("base: "), "{actions}");

    // Go to definition: `stage_1_gpus` → `TransformerBlock` in model.py.
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": {"line": 10, "character": 8}}),
    );
    assert_eq!(def["uri"], json!(uri_of(&dir.join("model.py"))), "{def}");
    let at = model_text.find("TransformerBlock").unwrap_or(0);
    let (l, ch) = pos16(&model_text, at);
    assert_eq!(def["range"], range(l, ch, l, ch + 16));

    // The outline.
    let symbols = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    let names: Vec<&str> = symbols
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names.first(), Some(&"name"));
    assert!(
        names.contains(&"hyperparameters") && names.contains(&"checkpoints"),
        "{names:?}"
    );

    // Applying the fix clears its diagnostic.
    let fixed = apply(&text, &edits);
    assert!(fixed.contains("checkpoint_storage:"), "{fixed}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    let diags = c.diagnostics(&uri);
    assert!(find(&diags, "C101").is_empty(), "{diags:#?}");
    assert_eq!(find(&diags, "P118").len(), 1);

    // The corrected config: no errors left.
    let corrected = std::fs::read_to_string(dir.join("../hpp-seed-fixed/const.yaml")).expect("read fixed config");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": corrected}]}),
    );
    let diags = c.diagnostics(&uri);
    assert!(!diags.iter().any(|d| d["severity"] == json!(1)), "{diags:#?}");

    // Closing clears.
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    assert!(c.diagnostics(&uri).is_empty());

    assert_eq!(c.shutdown_and_exit(), 0);
}

#[test]
fn model_source_and_cross_file_updates() {
    let dir = seed_dir();
    let config_uri = uri_of(&dir.join("const.yaml"));
    let model_uri = uri_of(&dir.join("model.py"));
    let text = std::fs::read_to_string(dir.join("const.yaml")).expect("read const.yaml");
    let model = std::fs::read_to_string(dir.join("model.py")).expect("read model.py");
    let mut c = Client::start(&[]);
    c.initialize(json!({}));
    c.open(&config_uri, &text);
    let _ = c.diagnostics(&config_uri);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": model_uri, "languageId": "python", "version": 1, "text": model}}),
    );
    let model_diags = c.diagnostics(&model_uri);
    assert_eq!(find(&model_diags, "P206").len(), 1, "{model_diags:#?}");

    // Decorator → `stage_1_gpus`.
    let at = model.find("stage_id=1").unwrap_or(0);
    let (l, ch) = pos16(&model, at);
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": model_uri}, "position": {"line": l, "character": ch}}),
    );
    assert_eq!(def["uri"], json!(config_uri));
    assert_eq!(def["range"], range(10, 4, 10, 16));
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": model_uri}, "position": {"line": l, "character": ch}}),
    );
    assert!(
        hover["contents"]["value"].as_str().unwrap_or("").contains("Stage 1"),
        "{hover}"
    );

    // An unsaved edit to model.py re-publishes the config: a fourth stage
    // makes `pipeline_parallel_degree: 3` wrong.
    let edited = model.replace("dtype=torch.float8_e4m3fn", "dtype=torch.bfloat16");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": model_uri, "version": 2}, "contentChanges": [{"text": edited}]}),
    );
    let config_diags = c.diagnostics(&config_uri);
    assert!(find(&config_diags, "C101").len() == 1, "{config_diags:#?}");
    let model_diags = c.diagnostics(&model_uri);
    assert!(find(&model_diags, "P206").is_empty(), "{model_diags:#?}");

    // Completion in the decorator.
    let at = edited.find("device=\"h100\"").unwrap_or(0) + "device=\"h".len();
    let (l, ch) = pos16(&edited, at);
    let items = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": model_uri}, "position": {"line": l, "character": ch}}),
    );
    assert!(items.to_string().contains("\"h100-80g\""), "{items}");
    assert_eq!(c.shutdown_and_exit(), 0);
}

#[test]
fn other_yaml_multibyte_crlf_and_utf8() {
    let dir = seed_dir();
    let mut c = Client::start(&[]);
    let init = c.initialize(json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}));
    assert_eq!(init["capabilities"]["positionEncoding"], json!("utf-8"));

    // A Kubernetes manifest beside the experiment gets no diagnostics.
    let k8s_uri = uri_of(&dir.join("deployment.yaml"));
    let k8s = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: trainer\nspec:\n  replicas: 2\n";
    c.open(&k8s_uri, k8s);
    // Comments in Chinese before the error, CRLF line ends, UTF-8 columns.
    let uri = "untitled:experiment-1";
    let text = "# 中文注释\r\nname: 试验 # 注释\r\nentrypoint: python train.py\r\nsearcher: {name: single, metric: 损失, max_lenth: 1}\r\n";
    c.open(uri, text);
    let diags = c.diagnostics(uri);
    let bad = find(&diags, "C101");
    assert_eq!(bad.len(), 1, "{diags:#?}");
    let start = text.find("max_lenth").unwrap_or(0);
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let col = (start - line_start) as u64;
    assert_eq!(bad[0]["range"], range(3, col, 3, col + 9));
    let k8s_diags: Vec<Value> = c
        .backlog
        .iter()
        .filter(|m| m["params"]["uri"] == json!(k8s_uri) && m["params"]["diagnostics"] != json!([]))
        .cloned()
        .collect();
    assert!(k8s_diags.is_empty(), "{k8s_diags:#?}");
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": k8s_uri}, "position": {"line": 0, "character": 2}}),
    );
    assert_eq!(hover, Value::Null);
    assert_eq!(c.shutdown_and_exit(), 0);
}

#[test]
fn survives_malformed_requests() {
    let mut c = Client::start(&[]);
    // Before initialize: an error, not a crash.
    let r = c.request_raw("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], json!(-32002));
    c.initialize(json!({}));
    c.send_raw("{this is not json");
    let e = c.wait(|m| m["error"]["code"] == json!(-32700));
    assert_eq!(e["id"], Value::Null);
    c.send_raw("{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":42}");
    let e = c.wait(|m| m["id"] == json!(99));
    assert_eq!(e["error"]["code"], json!(-32600));
    c.send_raw("[1,2,3]");
    c.send_raw("\"just a string\"");
    let r = c.request_raw("no/such/method", json!({}));
    assert_eq!(r["error"]["code"], json!(-32601));
    let r = c.request_raw("textDocument/hover", json!({"textDocument": 5}));
    assert_eq!(r["error"]["code"], json!(-32602));
    let r = c.request_raw("textDocument/completion", Value::Null);
    assert_eq!(r["error"]["code"], json!(-32602));
    // Positions far outside a document, unknown documents.
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nowhere.yaml"}, "position": {"line": 4000000000u64, "character": 4000000000u64}}),
    );
    assert_eq!(r, Value::Null);
    c.notify("textDocument/didChange", json!({"bogus": true}));
    c.notify("textDocument/didOpen", json!({"textDocument": {"uri": 3}}));
    // Half-typed YAML and Python, and a large document.
    c.open(
        "untitled:a",
        "# stagec: experiment\nname: [unclosed\n  searcher: {name:\n\t- - :\n",
    );
    let _ = c.diagnostics("untitled:a");
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "untitled:m.py", "languageId": "python", "version": 1, "text": "@stage_decorator(stage_id=\nclass (:"}}),
    );
    let mut big = String::from("# stagec: experiment\nname: big\nhyperparameters:\n");
    for i in 0..20_000 {
        big.push_str(&format!("  p{i}: {{type: const, val: {i}}}\n"));
    }
    c.open("untitled:big", &big);
    let _ = c.diagnostics("untitled:big");
    for (line, ch) in [(0, 0), (1, 3), (3, 2), (9_999, 5)] {
        for method in [
            "textDocument/hover",
            "textDocument/completion",
            "textDocument/definition",
        ] {
            for doc in ["untitled:a", "untitled:m.py", "untitled:big"] {
                c.request(
                    method,
                    json!({"textDocument": {"uri": doc}, "position": {"line": line, "character": ch}}),
                );
            }
        }
    }
    c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": "untitled:big"}}),
    );
    // Still serving.
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": "untitled:a"}, "range": range(0, 0, 9, 0), "context": {"diagnostics": []}}),
    );
    assert!(r.is_array());
    // After shutdown: errors, then exit 0.
    let r = c.request_raw("shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    let r = c.request_raw("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], json!(-32600));
    c.notify("exit", Value::Null);
    let deadline = Instant::now() + TIMEOUT;
    let code = loop {
        if let Ok(Some(status)) = c.child.try_wait() {
            break status.code();
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(code, Some(0));
}

#[test]
fn exit_without_shutdown_is_an_error_status() {
    let mut c = Client::start(&[]);
    c.initialize(json!({}));
    c.notify("exit", Value::Null);
    let deadline = Instant::now() + TIMEOUT;
    let code = loop {
        if let Ok(Some(status)) = c.child.try_wait() {
            break status.code();
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(code, Some(1));
}

#[test]
fn unsupported_dtype_quick_fix_from_an_unsaved_model() {
    let seed = seed_dir().join("../hpp-seed-fixed");
    let dir = std::env::temp_dir().join(format!("stagec-lsp-dtype-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = std::fs::read_to_string(seed.join("const.yaml"))
        .expect("read config")
        .replace("stage_0_gpus: [\"a100-40g\"]", "stage_0_gpus: [\"t4\"]");
    // Decorator and `stage_0_gpus` agree on a T4 (a disagreement would be P203).
    let model = std::fs::read_to_string(seed.join("model.py"))
        .expect("read model")
        .replacen("stage_id=0, device=\"a100\"", "stage_id=0, device=\"t4\"", 1);
    assert!(model.contains("device=\"t4\""));
    std::fs::write(dir.join("const.yaml"), &config).expect("write config");
    std::fs::write(dir.join("model.py"), &model).expect("write model");
    let model_uri = uri_of(&dir.join("model.py"));
    let mut c = Client::start(&[]);
    c.initialize(json!({}));
    // The buffer, not the file on disk, asks for bf16 on a T4.
    let edited = model.replacen("dtype=torch.float16", "dtype=torch.bfloat16", 1);
    assert_ne!(edited, model);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": model_uri, "languageId": "python", "version": 1, "text": edited}}),
    );
    let diags = c.diagnostics(&model_uri);
    let p205 = find(&diags, "P205");
    assert_eq!(p205.len(), 1, "{diags:#?}");
    let r = p205[0]["range"].clone();
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": model_uri}, "range": r, "context": {"diagnostics": [p205[0]]}}),
    );
    let edits = actions[0]["edit"]["changes"][&model_uri]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let fixed = apply(&edited, &edits);
    assert!(
        fixed.contains("dtype=torch.float16") || fixed.contains("dtype=torch.float32"),
        "{fixed}"
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": model_uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    assert!(find(&c.diagnostics(&model_uri), "P205").is_empty());
    assert_eq!(c.shutdown_and_exit(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn training_code_is_checked_and_only_the_changed_file_parsed_again() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/rules/T103/pos_p3_core_api_module")
        .canonicalize()
        .expect("the training project");
    let config_uri = uri_of(&dir.join("const.yaml"));
    let loop_path = dir.join("trainer/loop.py");
    let loop_uri = uri_of(&loop_path);
    let config = std::fs::read_to_string(dir.join("const.yaml")).expect("read const.yaml");
    let code = std::fs::read_to_string(&loop_path).expect("read loop.py");
    let mut c = Client::start(&[]);
    c.initialize(json!({}));
    c.open(&config_uri, &config);
    let _ = c.diagnostics(&config_uri);
    let status = c.request("stagec/analyzerStatus", Value::Null);
    // __main__, main, loop, data: all parsed the first time.
    let parsed = status["last_analysis"]["training_files_parsed"].as_u64().unwrap_or(0);
    assert!(parsed >= 4, "{status}");
    assert_eq!(status["last_analysis"]["training_files_reused"], json!(0), "{status}");

    // The training file, opened as it is on disk: its finding arrives and
    // nothing is parsed again.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": loop_uri, "languageId": "python", "version": 1, "text": code}}),
    );
    let diags = c.diagnostics(&loop_uri);
    let t103 = find(&diags, "T103");
    assert_eq!(t103.len(), 1, "{diags:#?}");
    assert_eq!(
        t103[0]["range"]["start"],
        json!({"line": 32, "character": 8}),
        "{diags:#?}"
    );
    let status = c.request("stagec/analyzerStatus", Value::Null);
    assert_eq!(status["last_analysis"]["training_files_parsed"], json!(0), "{status}");
    assert_eq!(
        status["last_analysis"]["training_files_reused"],
        json!(parsed),
        "{status}"
    );

    // An unsaved edit that removes the swallowed error: only that file is
    // parsed again, and its finding goes.
    let at = code.find("except OSError").expect("the except clause");
    let fixed = format!(
        "{}except ValueError{}",
        &code[..at],
        &code[at + "except OSError".len()..]
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": loop_uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    let diags = c.diagnostics(&loop_uri);
    assert!(find(&diags, "T103").is_empty(), "{diags:#?}");
    let status = c.request("stagec/analyzerStatus", Value::Null);
    assert_eq!(status["last_analysis"]["training_files_parsed"], json!(1), "{status}");
    assert_eq!(
        status["last_analysis"]["training_files_reused"],
        json!(parsed - 1),
        "{status}"
    );
    assert_eq!(c.shutdown_and_exit(), 0);
}

/// The seed example in a fresh folder, with `extra` files beside it.
fn seed_copy(name: &str, extra: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stagec-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the folder");
    for f in ["const.yaml", "model.py", "train.py"] {
        std::fs::copy(seed_dir().join(f), dir.join(f)).expect("copy the seed");
    }
    for (f, text) in extra {
        std::fs::write(dir.join(f), text).expect("write a file");
    }
    dir
}

fn codes(diags: &[Value]) -> std::collections::BTreeSet<String> {
    diags
        .iter()
        .filter_map(|d| d["code"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn initialization_options_and_settings_file_select_the_diagnostics() {
    let inventory =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/inventories/nodelist-mixed.json"))
            .expect("an inventory");
    let settings = "[tool.stagec]\nignore = [\"V302\", \"C2\"]\ninventory = \"cluster.json\"\n\n[tool.stagec.per-file-ignores]\n\"train.py\" = [\"T105\"]\n";
    let dir = seed_copy("options", &[("pyproject.toml", settings), ("cluster.json", &inventory)]);
    let config = dir.join("const.yaml");
    let text = std::fs::read_to_string(&config).expect("read const.yaml");
    let uri = uri_of(&config);
    let train = dir.join("train.py");
    let train_text = std::fs::read_to_string(&train).expect("read train.py");
    let train_uri = uri_of(&train);
    let caps = json!({"textDocument": {"publishDiagnostics": {"codeDescriptionSupport": true}}});

    // The client selects C, P and T, ignores C101 and links elsewhere: its
    // `select` replaces the settings file's selection (its ignore of C2
    // included), while the file's inventory and per-file ignores still hold.
    let mut c = Client::start(&[]);
    let options = json!({
        "inventory": null,
        "select": ["C", "P", "T"],
        "ignore": ["C101"],
        "docsBaseUrl": "https://docs.example/stagec/rules/",
    });
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": caps, "initializationOptions": options}),
    );
    c.notify("initialized", json!({}));
    c.open(&uri, &text);
    let diags = c.diagnostics(&uri);
    let want: std::collections::BTreeSet<String> = ["C103", "C209", "C210", "C211", "P118", "T113"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(codes(&diags), want, "{diags:#?}");
    // Infos still show in the editor (C210: the default checkpoint storage).
    assert_eq!(find(&diags, "C210")[0]["severity"], json!(3));
    let href = find(&diags, "C103")[0]["codeDescription"]["href"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(href, "https://docs.example/stagec/rules/missing-key.md");
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": train_uri, "languageId": "python", "version": 1, "text": train_text}}),
    );
    let train_diags = c.diagnostics(&train_uri);
    assert_eq!(
        codes(&train_diags).into_iter().collect::<Vec<_>>(),
        ["T101"],
        "{train_diags:#?}"
    );
    assert_eq!(c.shutdown_and_exit(), 0);

    // Without client options the settings file alone decides: V302 and the
    // C2 rules are ignored; the default documentation base is used.
    let mut c = Client::start(&[]);
    c.initialize(caps.clone());
    c.open(&uri, &text);
    let diags = c.diagnostics(&uri);
    let want: std::collections::BTreeSet<String> = ["C101", "C103", "P118", "R103", "R104", "T113"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(codes(&diags), want, "{diags:#?}");
    let href = find(&diags, "C101")[0]["codeDescription"]["href"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(href.ends_with("/docs/rules/unknown-key.md"), "{href}");
    assert_eq!(c.shutdown_and_exit(), 0);

    // A broken settings file is shown to the user once; checking goes on
    // without it.
    std::fs::write(dir.join("pyproject.toml"), "[tool.stagec]\nselec = [\"C\"]\n").expect("write");
    let mut c = Client::start(&[]);
    c.initialize(caps);
    c.open(&uri, &text);
    let shown = c.wait(|m| m["method"] == json!("window/showMessage"));
    let message = shown["params"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("pyproject.toml:2:1: unknown setting `selec`; did you mean `select`?"),
        "{message}"
    );
    let diags = c.diagnostics(&uri);
    assert!(
        codes(&diags).contains("V302") && codes(&diags).contains("P303"),
        "{diags:#?}"
    );
    assert_eq!(c.shutdown_and_exit(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
