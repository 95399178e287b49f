// Activates the VS Code extension (lsp/editors/vscode/extension.js) against
// stub `vscode` and `vscode-languageclient/node` modules and prints, as one
// JSON list on stdout, how it started the language server: the command and
// the LSP initializationOptions, at activation and after each settings
// change. Run by lsp/tests/it/vscode.rs:
//
//   node options.js EXTENSION.js CASES_JSON
//
// CASES_JSON is a list of {settings: {"stagec.…": value}, folder: path|null};
// the first is the state at activation, each next one a settings change.
const Module = require("module");
const path = require("path");

let current = { settings: {}, folder: null };
const listeners = [];
const started = [];

const vscode = {
  workspace: {
    getConfiguration: (section) => ({
      get: (key) => current.settings[`${section}.${key}`],
    }),
    get workspaceFolders() {
      return current.folder ? [{ uri: { fsPath: current.folder } }] : undefined;
    },
    createFileSystemWatcher: (glob) => ({ glob, dispose() {} }),
    onDidChangeConfiguration: (listener) => {
      listeners.push(listener);
      return { dispose() {} };
    },
  },
};

class LanguageClient {
  constructor(id, name, serverOptions, clientOptions) {
    this.record = { id, name, command: serverOptions.command, options: clientOptions.initializationOptions };
    this.languages = clientOptions.documentSelector.map((s) => s.language);
  }
  async start() {
    started.push({ ...this.record, languages: this.languages, running: true });
  }
  async stop() {
    const last = started[started.length - 1];
    if (last) last.running = false;
  }
}

const stubs = {
  vscode,
  "vscode-languageclient/node": { LanguageClient, TransportKind: { stdio: 0 } },
};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request in stubs ? request : resolve.call(this, request, ...rest);
};
for (const [name, exports] of Object.entries(stubs)) {
  require.cache[name] = { id: name, filename: name, loaded: true, exports };
}

async function main() {
  const extension = require(path.resolve(process.argv[2]));
  const cases = JSON.parse(process.argv[3]);
  current = cases[0];
  const context = { subscriptions: [] };
  await extension.activate(context);
  for (const next of cases.slice(1)) {
    current = next;
    for (const l of listeners) {
      await l({ affectsConfiguration: (s) => s === "stagec" || s.startsWith("stagec.") });
    }
  }
  await extension.deactivate();
  process.stdout.write(JSON.stringify(started));
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
