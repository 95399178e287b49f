// Minimal VS Code client for stagec-lsp: starts the server over stdio for
// YAML and Python files. The server decides which YAML is an experiment
// config; other YAML (Kubernetes manifests, CI files) gets nothing.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("stagec").get("server.path") || "stagec-lsp";
  const serverOptions = { command, transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "untitled", language: "yaml" },
      { scheme: "file", language: "python" },
    ],
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher("**/{*.py,*.yaml,*.yml}"),
    },
  };
  client = new LanguageClient("stagec", "stagec", serverOptions, clientOptions);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
