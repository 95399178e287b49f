//! The server: a synchronous loop over incoming messages, the lifecycle
//! (initialize, shutdown, exit), the documents and, per context folder, the
//! checked projects whose diagnostics are published.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use crossbeam_channel::Sender;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use serde::de::DeserializeOwned;
use serde_json::Value;
use stagec::ide::{self, DocumentKind};
use stagec::project::{Project, SourceSpec};
use stagec::source::{FileId, SourceFile};
use stagec::{compile, Compiled, Options};

use crate::convert::{self, Encoding};
use crate::store::Store;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lifecycle {
    Uninitialized,
    Running,
    ShutDown,
}

/// One experiment config compiled with its context folder's model sources.
struct Analysis {
    /// The context folder (`None` for an untitled buffer).
    context: Option<PathBuf>,
    compiled: Compiled,
    /// The URI of each file of `compiled.sources`, by `FileId` (`None`
    /// for a path without one).
    uris: Vec<Option<lsp::Uri>>,
}

impl Analysis {
    fn uri(&self, id: FileId) -> Option<lsp::Uri> {
        self.uris.get(id.0 as usize).cloned().flatten()
    }

    fn config_file(&self) -> Option<&SourceFile> {
        self.compiled.sources.get(self.compiled.config)
    }

    /// The file id of `uri` in this analysis.
    fn file_of(&self, uri: &lsp::Uri) -> Option<FileId> {
        self.uris
            .iter()
            .position(|u| u.as_ref() == Some(uri))
            .map(|i| FileId(i as u32))
    }
}

/// A published diagnostic with its quick fix, for code actions.
struct Published {
    diagnostic: lsp::Diagnostic,
    action: Option<lsp::CodeAction>,
}

type Answer = Result<Value, (ErrorCode, String)>;

/// The server's state.
pub struct Server {
    out: Sender<Message>,
    lifecycle: Lifecycle,
    enc: Encoding,
    code_description: bool,
    /// The client's `initializationOptions` (see [`crate::settings`]).
    client: crate::settings::ClientOptions,
    /// Messages shown to the user, each shown once.
    shown: std::collections::HashSet<String>,
    store: Store,
    /// Checked configs, by path (an untitled buffer by its URI text).
    analyses: HashMap<PathBuf, Analysis>,
    /// What each URI was last sent, and under which context.
    /// What was last published to each document: its context, the
    /// diagnostics with their fixes, and the document's version then.
    published: HashMap<lsp::Uri, (Option<PathBuf>, Vec<Published>, i32)>,
    /// Training files' parses, kept between analyses: an edit re-parses
    /// only the file it changed.
    training_cache: stagec::training::Cache,
    /// Training files the last analysis parsed, and those it reused.
    last_training: (usize, usize),
}

/// Serves a connection until `exit` or the end of input; returns the
/// process exit code (0 after an orderly shutdown).
pub fn serve(conn: &Connection) -> i32 {
    let mut server = Server::new(conn.sender.clone());
    for msg in &conn.receiver {
        let id = match &msg {
            Message::Request(r) => Some(r.id.clone()),
            _ => None,
        };
        match catch_unwind(AssertUnwindSafe(|| server.handle(msg))) {
            Ok(Some(code)) => return code,
            Ok(None) => {}
            Err(_) => {
                if let Some(id) = id {
                    server.send(Response::new_err(
                        id,
                        ErrorCode::InternalError as i32,
                        "internal error: stagec-lsp recovered from a bug while answering".into(),
                    ));
                }
            }
        }
    }
    1
}

fn params<P: DeserializeOwned>(v: Value) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(v).map_err(|e| (ErrorCode::InvalidParams, format!("invalid params: {e}")))
}

fn to_value<T: serde::Serialize>(v: T) -> Answer {
    serde_json::to_value(v).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

impl Server {
    pub fn new(out: Sender<Message>) -> Self {
        Server {
            out,
            lifecycle: Lifecycle::Uninitialized,
            enc: Encoding::Utf16,
            code_description: false,
            client: crate::settings::ClientOptions::default(),
            shown: std::collections::HashSet::new(),
            store: Store::default(),
            analyses: HashMap::new(),
            published: HashMap::new(),
            training_cache: stagec::training::Cache::default(),
            last_training: (0, 0),
        }
    }

    fn send(&self, msg: impl Into<Message>) {
        let _ = self.out.send(msg.into());
    }

    /// Handles one message; `Some(code)` when the server should exit.
    pub fn handle(&mut self, msg: Message) -> Option<i32> {
        match msg {
            Message::Request(req) => {
                let id = req.id.clone();
                let answer = self.request(req);
                let response = match answer {
                    Ok(v) => Response::new_ok(id, v),
                    Err((code, message)) => Response::new_err(id, code as i32, message),
                };
                self.send(response);
                None
            }
            Message::Notification(n) => self.notification(n),
            Message::Response(_) => None,
        }
    }

    fn request(&mut self, req: Request) -> Answer {
        match (self.lifecycle, req.method.as_str()) {
            (Lifecycle::Uninitialized, "initialize") => self.initialize(req.params),
            (Lifecycle::Uninitialized, _) => Err((ErrorCode::ServerNotInitialized, "server not initialized".into())),
            (Lifecycle::ShutDown, _) => Err((ErrorCode::InvalidRequest, "the server is shutting down".into())),
            (Lifecycle::Running, "initialize") => Err((ErrorCode::InvalidRequest, "already initialized".into())),
            (Lifecycle::Running, "shutdown") => {
                self.lifecycle = Lifecycle::ShutDown;
                Ok(Value::Null)
            }
            (Lifecycle::Running, "textDocument/hover") => {
                let p: lsp::HoverParams = params(req.params)?;
                to_value(self.hover(&p.text_document_position_params))
            }
            (Lifecycle::Running, "textDocument/completion") => {
                let p: lsp::CompletionParams = params(req.params)?;
                to_value(self.completion(&p.text_document_position))
            }
            (Lifecycle::Running, "textDocument/codeAction") => {
                let p: lsp::CodeActionParams = params(req.params)?;
                to_value(self.code_actions(&p))
            }
            (Lifecycle::Running, "textDocument/definition") => {
                let p: lsp::GotoDefinitionParams = params(req.params)?;
                to_value(self.definition(&p.text_document_position_params))
            }
            (Lifecycle::Running, "textDocument/documentSymbol") => {
                let p: lsp::DocumentSymbolParams = params(req.params)?;
                to_value(self.symbols(&p.text_document.uri))
            }
            // What the server holds (as rust-analyzer's `analyzerStatus`):
            // for users reporting a problem, and for the tests.
            (Lifecycle::Running, "stagec/analyzerStatus") => Ok(self.status()),
            (Lifecycle::Running, method) => Err((ErrorCode::MethodNotFound, format!("unknown method `{method}`"))),
        }
    }

    fn status(&self) -> Value {
        let mut configs: Vec<String> = self.analyses.keys().map(|k| k.display().to_string()).collect();
        configs.sort();
        serde_json::json!({
            "configs": configs,
            "open_documents": self.store.docs.len(),
            "training_files_cached": self.training_cache.len(),
            "last_analysis": {
                "training_files_parsed": self.last_training.0,
                "training_files_reused": self.last_training.1,
            },
        })
    }

    fn initialize(&mut self, raw: Value) -> Answer {
        let p: lsp::InitializeParams = params(raw)?;
        self.enc = convert::negotiate(&p.capabilities);
        self.code_description = p
            .capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.publish_diagnostics.as_ref())
            .and_then(|d| d.code_description_support)
            .unwrap_or(false);
        // The client's options; what is not understood is shown once.
        #[allow(deprecated)] // `rootUri`: the workspace folder of clients without folders
        let root = p
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .map(|f| &f.uri)
            .or(p.root_uri.as_ref())
            .and_then(convert::uri_to_path);
        let (client, problems) =
            crate::settings::ClientOptions::read(p.initialization_options.as_ref(), root.as_deref());
        self.client = client;
        for problem in problems {
            self.show_once(lsp::MessageType::WARNING, format!("stagec: {problem}"));
        }
        self.lifecycle = Lifecycle::Running;
        let caps = lsp::ServerCapabilities {
            position_encoding: Some(convert::encoding_kind(self.enc)),
            text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(lsp::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(lsp::TextDocumentSyncKind::FULL),
                will_save: None,
                will_save_wait_until: None,
                save: Some(lsp::TextDocumentSyncSaveOptions::SaveOptions(lsp::SaveOptions {
                    include_text: Some(false),
                })),
            })),
            hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
            completion_provider: Some(lsp::CompletionOptions {
                trigger_characters: Some([":", "\"", "'", "=", "[", "-"].iter().map(|s| s.to_string()).collect()),
                ..Default::default()
            }),
            code_action_provider: Some(lsp::CodeActionProviderCapability::Options(lsp::CodeActionOptions {
                code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX]),
                ..Default::default()
            })),
            definition_provider: Some(lsp::OneOf::Left(true)),
            document_symbol_provider: Some(lsp::OneOf::Left(true)),
            ..Default::default()
        };
        to_value(lsp::InitializeResult {
            capabilities: caps,
            server_info: Some(lsp::ServerInfo {
                name: "stagec-lsp".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        })
    }

    fn notification(&mut self, n: Notification) -> Option<i32> {
        if n.method == "exit" {
            return Some(if self.lifecycle == Lifecycle::ShutDown { 0 } else { 1 });
        }
        if self.lifecycle != Lifecycle::Running {
            return None;
        }
        // Malformed parameters of a notification cannot be answered: skip.
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(p) = serde_json::from_value::<lsp::DidOpenTextDocumentParams>(n.params) {
                    let uri = p.text_document.uri;
                    self.store.open(
                        uri.clone(),
                        &p.text_document.language_id,
                        p.text_document.text,
                        p.text_document.version,
                    );
                    // An opened config changes no other config's check; an
                    // opened model or training file rechecks its folder's.
                    self.refresh_doc(&uri, None, false);
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = serde_json::from_value::<lsp::DidChangeTextDocumentParams>(n.params) {
                    self.did_change(p);
                }
            }
            "textDocument/didSave" => {
                if let Ok(p) = serde_json::from_value::<lsp::DidSaveTextDocumentParams>(n.params) {
                    self.store.invalidate_folders();
                    self.refresh_doc(&p.text_document.uri, None, true);
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = serde_json::from_value::<lsp::DidCloseTextDocumentParams>(n.params) {
                    self.did_close(&p.text_document.uri);
                }
            }
            "workspace/didChangeWatchedFiles" => {
                self.store.invalidate_folders();
                let contexts: Vec<PathBuf> = self.analyses.values().filter_map(|a| a.context.clone()).collect();
                let mut seen = Vec::new();
                for c in contexts {
                    if !seen.contains(&c) {
                        self.refresh_context(&c, None);
                        seen.push(c);
                    }
                }
            }
            _ => {}
        }
        None
    }

    fn did_change(&mut self, p: lsp::DidChangeTextDocumentParams) {
        let uri = p.text_document.uri;
        let Some(doc) = self.store.docs.get(&uri) else { return };
        let mut text = doc.text.clone();
        for change in p.content_changes {
            match change.range {
                None => text = change.text,
                Some(range) => {
                    let file = SourceFile::new("", text);
                    let span = convert::span(&file, range, self.enc);
                    let mut t = file.text;
                    if t.is_char_boundary(span.start) && t.is_char_boundary(span.end) {
                        t.replace_range(span.start..span.end, &change.text);
                    }
                    text = t;
                }
            }
        }
        let Some((before, _)) = self.store.change(&uri, text, p.text_document.version) else {
            return;
        };
        self.refresh_doc(&uri, Some(before), false);
    }

    fn did_close(&mut self, uri: &lsp::Uri) {
        let Some(doc) = self.store.close(uri) else { return };
        self.published.remove(uri);
        self.publish(uri.clone(), Vec::new(), None);
        if doc.kind == DocumentKind::Experiment {
            let key = doc.path.clone().unwrap_or_else(|| PathBuf::from(uri.as_str()));
            self.analyses.remove(&key);
        }
        // The disk version replaces the buffer in its folder's projects.
        if let Some(path) = &doc.path {
            if let Some(ctx) = self.context_for(path, doc.kind) {
                self.refresh_context(&ctx, None);
            }
        }
    }

    fn context_for(&mut self, path: &Path, kind: DocumentKind) -> Option<PathBuf> {
        match kind {
            DocumentKind::Experiment | DocumentKind::OtherYaml => path.parent().map(Path::to_path_buf),
            DocumentKind::Python | DocumentKind::OtherPython | DocumentKind::StagesYaml => {
                self.store.context_of_model(path)
            }
            DocumentKind::Other => None,
        }
    }

    /// Rechecks what a change to `uri` affects and publishes the results.
    fn refresh_doc(&mut self, uri: &lsp::Uri, before: Option<DocumentKind>, all_configs: bool) {
        let Some(doc) = self.store.docs.get(uri) else { return };
        let kind = doc.kind;
        let path = doc.path.clone();
        // A document whose kind changed (a decorator deleted, a config's keys
        // rewritten) leaves or joins its folder's projects.
        let was_stagec = before.is_some_and(|b| b != kind);
        let Some(path) = path else {
            // An untitled buffer: a config checked on its own.
            let key = PathBuf::from(uri.as_str());
            if kind == DocumentKind::Experiment {
                let analysis = self.analyze(&key, None);
                self.analyses.insert(key, analysis);
                self.publish_analysis_docs(None);
            } else if self.analyses.remove(&key).is_some() || self.published.contains_key(uri) {
                self.published.remove(uri);
                self.publish(uri.clone(), Vec::new(), None);
            }
            return;
        };
        // Python without stage declarations counts when it is training
        // code some config runs.
        let stagec_kind = matches!(
            kind,
            DocumentKind::Experiment | DocumentKind::Python | DocumentKind::StagesYaml
        ) || (kind == DocumentKind::OtherPython && self.is_training_file(&path));
        if !stagec_kind && self.published.contains_key(uri) {
            self.published.remove(uri);
            self.publish(uri.clone(), Vec::new(), None);
        }
        if !stagec_kind && !was_stagec {
            return;
        }
        let Some(ctx) = self.context_for(&path, kind) else {
            return;
        };
        let only = (kind == DocumentKind::Experiment && !all_configs && !was_stagec).then_some(path);
        self.refresh_context(&ctx, only.as_deref());
    }

    /// Rechecks the configs of a context folder (all, or only `only` when
    /// just that config changed) and publishes for its open documents.
    fn refresh_context(&mut self, ctx: &Path, only: Option<&Path>) {
        let configs = self.store.configs_in(ctx);
        self.analyses
            .retain(|key, a| a.context.as_deref() != Some(ctx) || configs.contains(key));
        // The folder's other configs matter once a file they may read (a
        // model, training code) is open; until then opening its configs
        // one by one checks each once.
        let shared_open = self
            .store
            .docs
            .values()
            .any(|d| d.kind != DocumentKind::Experiment && d.path.as_deref().is_some_and(|p| p.starts_with(ctx)));
        for config in &configs {
            let never = shared_open && !self.analyses.contains_key(config);
            if only.is_none_or(|o| o == config) || never {
                let analysis = self.analyze(config, Some(ctx));
                self.analyses.insert(config.clone(), analysis);
            }
        }
        self.publish_analysis_docs(Some(ctx));
        // Keep the parses of the files some analysis still reads.
        let live: std::collections::HashSet<String> = self
            .analyses
            .values()
            .flat_map(|a| {
                let files = a.compiled.training.iter().flat_map(|t| t.files.iter());
                files.filter_map(|f| a.compiled.sources.get(f.file).map(|s| s.name.clone()))
            })
            .collect();
        self.training_cache.retain(&live);
    }

    /// Whether some analysis reads `path` as training code.
    fn is_training_file(&self, path: &Path) -> bool {
        self.analyses.values().any(|a| {
            a.compiled.training.iter().flat_map(|t| t.files.iter()).any(|f| {
                a.compiled
                    .sources
                    .get(f.file)
                    .is_some_and(|s| Path::new(&s.name) == path)
            })
        })
    }

    fn analyze(&mut self, config: &Path, ctx: Option<&Path>) -> Analysis {
        // The config's settings file under the client's options, as
        // `stagec check` finds it.
        let (settings, problem) = crate::settings::effective(config, &self.client);
        if let Some(problem) = problem {
            self.show_once(lsp::MessageType::ERROR, problem);
        }
        let env = |name: &str| std::env::var(name).ok();
        let options = Options {
            env: &env,
            determined: settings.determined.as_deref(),
            selection: Some(&settings.selection),
            ..Options::default()
        };
        let spec = SourceSpec {
            inventory: settings.inventory.clone(),
            ..SourceSpec::default()
        };
        let mut project = match ctx {
            Some(ctx) => {
                self.store.scan(ctx);
                let scan = self.store.scan_of(ctx);
                Project::discover(config, &spec, scan, &self.store)
                    .ok()
                    .map(|(project, _)| project)
            }
            None => None,
        };
        if let Some(training) = project.as_mut().and_then(|p| p.training.as_mut()) {
            self.training_cache.fill(training);
        }
        // An untitled buffer (or a config that cannot be read): the buffer alone.
        let project = project.unwrap_or_else(|| {
            let text = self
                .store
                .doc_named(&config.to_string_lossy())
                .map(|d| d.text.clone())
                .unwrap_or_default();
            Project {
                models: Some(Vec::new()),
                searched: "the editor".to_string(),
                ..Project::config_only(config.to_string_lossy(), text)
            }
        });
        // The URI of each file, in the compilation's file order.
        let uri_of = |name: &str| -> Option<lsp::Uri> {
            self.store
                .doc_named(name)
                .map(|d| d.uri.clone())
                .or_else(|| convert::path_to_uri(Path::new(name)))
        };
        let compiled = compile(&project, &options);
        // Every file of the compilation: the config, the model sources, the
        // training code (the probe's report has none).
        let uris: Vec<Option<lsp::Uri>> = compiled
            .sources
            .iter()
            .map(|(_, f)| (!f.name.starts_with('<')).then(|| uri_of(&f.name)).flatten())
            .collect();
        if let Some(training) = &compiled.training {
            let fresh = training.files.iter().filter(|f| f.fresh).count();
            self.last_training = (fresh, training.files.len() - fresh);
            let names = |id: FileId| compiled.sources.get(id).map(|f| f.name.clone());
            self.training_cache.keep(training, names);
        }
        if let Some(json) = compiled.config_json() {
            if let Some(doc) = uris
                .first()
                .cloned()
                .flatten()
                .and_then(|u| self.store.docs.get_mut(&u))
            {
                doc.last_json = Some(json.clone());
            }
        }
        Analysis {
            context: ctx.map(Path::to_path_buf),
            compiled,
            uris,
        }
    }

    /// Publishes, for every open document of a context, the diagnostics of
    /// the context's analyses (a model file shared by several configs gets
    /// each diagnostic once).
    fn publish_analysis_docs(&mut self, ctx: Option<&Path>) {
        let mut per_uri: HashMap<lsp::Uri, Vec<Published>> = HashMap::new();
        for a in self.analyses.values().filter(|a| a.context.as_deref() == ctx) {
            // Every file of the project gets a (possibly empty) list.
            for uri in a.uris.iter().flatten() {
                per_uri.entry(uri.clone()).or_default();
            }
            let uri_of = |id: FileId| a.uri(id);
            for d in &a.compiled.diagnostics {
                let Some(uri) = a.uri(d.file) else { continue };
                let docs = self
                    .code_description
                    .then(|| self.client.docs_base.as_deref().unwrap_or(stagec::rules::DOCS_BASE));
                let Some(diag) = convert::diagnostic(d, &a.compiled.sources, &uri_of, self.enc, docs) else {
                    continue;
                };
                let list = per_uri.entry(uri).or_default();
                if list.iter().any(|p| p.diagnostic == diag) {
                    continue;
                }
                let action = convert::fix_action(d, &diag, &a.compiled.sources, &uri_of, self.enc);
                list.push(Published {
                    diagnostic: diag,
                    action,
                });
            }
        }
        // Documents this context published to before but not now.
        let stale: Vec<lsp::Uri> = self
            .published
            .iter()
            .filter(|(uri, (c, _, _))| c.as_deref() == ctx && !per_uri.contains_key(*uri))
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in stale {
            self.published.remove(&uri);
            self.publish(uri, Vec::new(), None);
        }
        for (uri, list) in per_uri {
            let Some(version) = self.store.docs.get(&uri).map(|d| d.version) else {
                continue;
            };
            // A document whose version and diagnostics are those last
            // published is not sent again: opening the files of a folder
            // one by one would otherwise resend every open one each time.
            let unchanged = self.published.get(&uri).is_some_and(|(c, old, v)| {
                c.as_deref() == ctx
                    && *v == version
                    && old.len() == list.len()
                    && old.iter().zip(&list).all(|(a, b)| a.diagnostic == b.diagnostic)
            });
            if !unchanged {
                let diags = list.iter().map(|p| p.diagnostic.clone()).collect();
                self.publish(uri.clone(), diags, Some(version));
            }
            self.published.insert(uri, (ctx.map(Path::to_path_buf), list, version));
        }
    }

    /// Shows `message` to the user, once per distinct text.
    fn show_once(&mut self, typ: lsp::MessageType, message: String) {
        if !self.shown.insert(message.clone()) {
            return;
        }
        if let Ok(params) = serde_json::to_value(lsp::ShowMessageParams { typ, message }) {
            self.send(Notification {
                method: "window/showMessage".into(),
                params,
            });
        }
    }

    fn publish(&self, uri: lsp::Uri, diagnostics: Vec<lsp::Diagnostic>, version: Option<i32>) {
        let params = lsp::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        if let Ok(params) = serde_json::to_value(params) {
            self.send(Notification {
                method: "textDocument/publishDiagnostics".into(),
                params,
            });
        }
    }

    /// The analysis of an open config document.
    fn analysis_of(&self, uri: &lsp::Uri) -> Option<&Analysis> {
        let doc = self.store.docs.get(uri)?;
        let key = doc.path.clone().unwrap_or_else(|| PathBuf::from(uri.as_str()));
        self.analyses.get(&key)
    }

    /// The analyses of the configs in a model source's context folder.
    fn analyses_for_model(&mut self, path: &Path) -> Vec<&Analysis> {
        let ctx = self.store.context_of_model(path);
        let mut out: Vec<&Analysis> = self
            .analyses
            .values()
            .filter(|a| ctx.is_some() && a.context == ctx)
            .collect();
        out.sort_by(|a, b| a.uris.first().cmp(&b.uris.first()));
        out
    }

    fn doc_file(&self, uri: &lsp::Uri) -> Option<(SourceFile, DocumentKind, Option<PathBuf>)> {
        let doc = self.store.docs.get(uri)?;
        let name = doc
            .path
            .as_ref()
            .map_or_else(|| uri.as_str().to_string(), |p| p.to_string_lossy().into_owned());
        Some((SourceFile::new(name, doc.text.clone()), doc.kind, doc.path.clone()))
    }

    fn hover(&mut self, at: &lsp::TextDocumentPositionParams) -> Option<lsp::Hover> {
        let uri = &at.text_document.uri;
        let (file, kind, path) = self.doc_file(uri)?;
        let offset = convert::offset(&file, at.position, self.enc);
        match kind {
            DocumentKind::Experiment => {
                let a = self.analysis_of(uri)?;
                let tree = a.compiled.config_tree()?;
                let json = a
                    .compiled
                    .config_json()
                    .or_else(|| self.store.docs.get(uri).and_then(|d| d.last_json.as_ref()));
                let h = ide::hover_config(
                    tree,
                    json,
                    a.compiled.pipeline.as_ref(),
                    a.compiled.runtime.as_ref(),
                    offset,
                )?;
                Some(convert::hover(&h, &file, self.enc))
            }
            DocumentKind::Python | DocumentKind::StagesYaml => {
                let enc = self.enc;
                let analyses = self.analyses_for_model(&path?);
                let h = analyses.iter().find_map(|a| {
                    let r = ide::model_stage_at(&a.compiled.decls, a.file_of(uri)?, offset)?;
                    ide::hover_stage(a.compiled.pipeline.as_ref()?, r.id, r.span)
                })?;
                Some(convert::hover(&h, &file, enc))
            }
            _ => None,
        }
    }

    fn completion(&self, at: &lsp::TextDocumentPositionParams) -> Option<lsp::CompletionResponse> {
        let uri = &at.text_document.uri;
        let (file, kind, _) = self.doc_file(uri)?;
        let offset = convert::offset(&file, at.position, self.enc);
        let items = match kind {
            DocumentKind::Experiment => {
                let json = self
                    .analysis_of(uri)
                    .and_then(|a| a.compiled.config_json())
                    .or_else(|| self.store.docs.get(uri).and_then(|d| d.last_json.as_ref()));
                ide::complete_config(&file.text, json, offset)
            }
            DocumentKind::StagesYaml => ide::complete_stages_yaml(&file.text, offset),
            DocumentKind::Python => ide::complete_python(&file.text, offset),
            _ => return None,
        };
        Some(lsp::CompletionResponse::Array(convert::completion(
            &items, &file, self.enc,
        )))
    }

    fn code_actions(&self, p: &lsp::CodeActionParams) -> Option<lsp::CodeActionResponse> {
        if let Some(only) = &p.context.only {
            if !only.iter().any(|k| k.as_str() == "quickfix" || k.as_str().is_empty()) {
                return Some(Vec::new());
            }
        }
        let (_, list, _) = self.published.get(&p.text_document.uri)?;
        let r = p.range;
        let overlaps = |d: &lsp::Range| d.start <= r.end && r.start <= d.end;
        Some(
            list.iter()
                .filter(|x| overlaps(&x.diagnostic.range))
                .filter_map(|x| x.action.clone())
                .map(lsp::CodeActionOrCommand::CodeAction)
                .collect(),
        )
    }

    fn definition(&mut self, at: &lsp::TextDocumentPositionParams) -> Option<lsp::GotoDefinitionResponse> {
        let uri = &at.text_document.uri;
        let (file, kind, path) = self.doc_file(uri)?;
        let offset = convert::offset(&file, at.position, self.enc);
        let enc = self.enc;
        let mut locations = Vec::new();
        match kind {
            DocumentKind::Experiment => {
                let a = self.analysis_of(uri)?;
                let r = ide::config_stage_at(a.compiled.config_tree()?, offset)?;
                for loc in ide::stage_targets(&a.compiled.decls, r.id) {
                    let (Some(f), Some(target)) = (a.compiled.sources.get(loc.file), a.uri(loc.file)) else {
                        continue;
                    };
                    locations.push(lsp::Location::new(target, convert::range(f, loc.span, enc)));
                }
            }
            DocumentKind::Python | DocumentKind::StagesYaml => {
                for a in self.analyses_for_model(&path?) {
                    let r = a
                        .file_of(uri)
                        .and_then(|f| ide::model_stage_at(&a.compiled.decls, f, offset));
                    let (Some(r), Some(tree), Some(f), Some(target)) =
                        (r, a.compiled.config_tree(), a.config_file(), a.uri(a.compiled.config))
                    else {
                        continue;
                    };
                    if let Some(span) = ide::stage_gpus_span(tree, r.id) {
                        locations.push(lsp::Location::new(target, convert::range(f, span, enc)));
                    }
                }
            }
            _ => return None,
        }
        match locations.len() {
            0 => None,
            1 => locations.pop().map(lsp::GotoDefinitionResponse::Scalar),
            _ => Some(lsp::GotoDefinitionResponse::Array(locations)),
        }
    }

    fn symbols(&self, uri: &lsp::Uri) -> Option<lsp::DocumentSymbolResponse> {
        let (file, kind, _) = self.doc_file(uri)?;
        // The document as its compilation read it (credential values masked
        // from the facts it computed); a `stages.yaml` with no config beside
        // it is read here.
        let symbols = match kind {
            DocumentKind::Experiment | DocumentKind::StagesYaml => {
                let compiled = self.analyses.values().find_map(|a| {
                    let f = a.file_of(uri)?;
                    Some((a.compiled.document(f)?, a.compiled.secrets(f)))
                });
                match compiled {
                    Some((doc, secrets)) => ide::outline(&doc.tree, secrets),
                    None if kind == DocumentKind::StagesYaml => {
                        let tree = stagec::yaml::parse(&file.text, &Default::default()).0;
                        ide::outline(&tree, &stagec::secrets::spans(&tree, &file.text))
                    }
                    None => return None,
                }
            }
            _ => return None,
        };
        Some(lsp::DocumentSymbolResponse::Nested(convert::symbols(
            &symbols, &file, self.enc,
        )))
    }
}

/// A request id for tests and benchmarks.
pub fn id(n: i32) -> RequestId {
    RequestId::from(n)
}
