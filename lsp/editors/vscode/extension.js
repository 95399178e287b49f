// Minimal VS Code client for stagec-lsp: starts the server over stdio for
// YAML and Python files. The server decides which YAML is an experiment
// config; other YAML (Kubernetes manifests, CI files) gets nothing.
const path = require("path");
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

// Strings only, blanks dropped.
function codes(value) {
  return Array.isArray(value)
    ? value.filter((c) => typeof c === "string" && c.trim() !== "").map((c) => c.trim())
    : [];
}

// The LSP `initializationOptions`:
//   { inventory: string | null, select: string[], ignore: string[], docsBaseUrl: string | null }
// `inventory` is made absolute against the first workspace folder, since the
// server's working directory is not the workspace's.
function initializationOptions(config) {
  let inventory = (config.get("inventory") || "").trim() || null;
  const folders = vscode.workspace.workspaceFolders;
  if (inventory && !path.isAbsolute(inventory) && folders && folders.length > 0) {
    inventory = path.join(folders[0].uri.fsPath, inventory);
  }
  const docsBaseUrl = (config.get("docsBaseUrl") || "").trim() || null;
  return { inventory, select: codes(config.get("select")), ignore: codes(config.get("ignore")), docsBaseUrl };
}

function createClient() {
  const config = vscode.workspace.getConfiguration("stagec");
  const command = config.get("server.path") || "stagec-lsp";
  const serverOptions = { command, transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "untitled", language: "yaml" },
      { scheme: "file", language: "python" },
    ],
    initializationOptions: initializationOptions(config),
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher("**/{*.py,*.yaml,*.yml}"),
    },
  };
  return new LanguageClient("stagec", "stagec", serverOptions, clientOptions);
}

async function activate(context) {
  client = createClient();
  // The options are sent once, at initialize: restart the server when they change.
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration("stagec")) {
        return;
      }
      if (client) {
        await client.stop();
      }
      client = createClient();
      await client.start();
    }),
  );
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, initializationOptions };
