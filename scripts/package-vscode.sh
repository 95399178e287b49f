#!/usr/bin/env bash
# Packages the VS Code extension (lsp/editors/vscode) as a .vsix:
#
#   scripts/package-vscode.sh            # → target/vscode/stagec-<version>.vsix
#
# @vscode/vsce comes from npm into target/tools/vsce (scripts/install-test-tools.sh vsce;
# nothing global). The extension is staged in target/vscode/stage with the
# repository's LICENSE and its npm dependencies, so the source folder stays
# clean. The .vsix holds the client only; users install stagec-lsp
# separately (`cargo build --release -p stagec-lsp`) or set stagec.server.path.
# Exits 3 when the npm registry is unreachable.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/lsp/editors/vscode"
out="${STAGEC_VSCODE_OUT:-$root/target/vscode}"
stage="$out/stage"

vsce="$("$root/scripts/install-test-tools.sh" vsce)"

rm -rf "$stage"
mkdir -p "$stage"
cp "$src/package.json" "$src/extension.js" "$src/README.md" "$stage/"
cp "$root/LICENSE" "$stage/LICENSE"
# vsce packages only what .vscodeignore leaves; keep the logs out.
printf '%s\n' '*.log' '.vscodeignore' >"$stage/.vscodeignore"

log="$out/npm-install.log"
if ! (cd "$stage" && npm install --omit=dev --no-audit --no-fund --no-package-lock) >"$log" 2>&1; then
    registry="$(npm config get registry 2>/dev/null || echo https://registry.npmjs.org/)"
    if ! python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=20)' \
        "${registry%/}/vscode-languageclient" >/dev/null 2>&1; then
        echo "package-vscode: the npm registry ($registry) is unreachable (log: $log)" >&2
        exit 3
    fi
    echo "package-vscode: npm install failed in $stage (log: $log)" >&2
    exit 1
fi

version="$(node -p 'require(process.argv[1]).version' "$stage/package.json")"
vsix="$out/stagec-$version.vsix"
rm -f "$vsix"
# vsce reports on stdout; keep stdout for the .vsix path alone.
(cd "$stage" && "$vsce" package --out "$vsix") >&2
echo "$vsix"
