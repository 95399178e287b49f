#!/usr/bin/env bash
# Step 1 of the stagec GitHub Action (action.yml): puts `stagec` on PATH.
#
# Builds the action's own checkout with `cargo install --locked` (Cargo.lock
# is respected) into $RUNNER_TEMP/stagec and appends its bin folder to
# $GITHUB_PATH for the next steps. With STAGEC_BIN set to an existing binary
# (tests, or a workflow that built stagec itself) nothing is built.
set -euo pipefail

if [[ -n "${STAGEC_BIN:-}" ]]; then
    if [[ ! -x "$STAGEC_BIN" ]]; then
        echo "::error title=stagec::STAGEC_BIN=$STAGEC_BIN is not an executable file"
        exit 2
    fi
    echo "Using STAGEC_BIN=$STAGEC_BIN ($("$STAGEC_BIN" --version))"
    exit 0
fi

: "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set (run as a GitHub Action step)}"
if ! command -v cargo >/dev/null 2>&1; then
    echo "::error title=stagec::cargo is not installed on this runner; add a Rust toolchain step (e.g. dtolnay/rust-toolchain@stable) before this action"
    exit 2
fi

root="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/stagec"
# A target folder outside the action's checkout, so that a workflow can cache it.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
echo "::group::cargo install --locked --path $GITHUB_ACTION_PATH"
cargo install --locked --bins --root "$root" --path "$GITHUB_ACTION_PATH"
echo "::endgroup::"
if [[ -n "${GITHUB_PATH:-}" ]]; then
    echo "$root/bin" >>"$GITHUB_PATH"
fi
"$root/bin/stagec" --version
