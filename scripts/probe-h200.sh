#!/usr/bin/env bash
# Records the local CUDA probe of an H200 host as a test fixture:
#
#   scripts/probe-h200.sh            # builds stagec (release), probes, writes the fixture
#   STAGEC_BIN=path/to/stagec scripts/probe-h200.sh   # use a binary built elsewhere
#
# Writes tests/probes/h200-recorded.json (`stagec probe --format json`) and,
# when nvidia-smi is installed, tests/probes/h200-nvidia-smi.csv with the
# same GPUs as nvidia-smi sees them (to cross-check names, UUIDs, PCI bus ids
# and the memory totals, which CUDA reports a few hundred MiB lower).
#
# The build needs the crates in ~/.cargo (set CARGO_NET_OFFLINE=true on a
# machine without network access), or build here and pass STAGEC_BIN: stagec
# loads libcuda at run time, so the same binary runs with or without a GPU.
# The recorded JSON is refused (left in a temporary file) unless it lists at
# least one device whose name contains "H200".
set -euo pipefail

cd "$(dirname "$0")/.."
out=tests/probes/h200-recorded.json
smi_out=tests/probes/h200-nvidia-smi.csv

if [[ -n "${STAGEC_BIN:-}" ]]; then
    bin="$STAGEC_BIN"
else
    cargo build --release --bin stagec
    bin=target/release/stagec
fi

if ! "$bin" probe --help >/dev/null 2>&1; then
    echo "error: $bin has no \`probe\` subcommand (is \`stagec probe\` wired in src/cli.rs?)" >&2
    exit 2
fi

tmp="$(mktemp "${TMPDIR:-/tmp}/h200-recorded.XXXXXX.json")"
# The exit status of `stagec probe` is not trusted alone: a host without
# devices may still exit 0 with a `reason`; the content is checked below.
set +e
"$bin" probe --format json >"$tmp"
status=$?
set -e
echo "stagec probe --format json exited with status $status" >&2

if ! grep -q '"devices"' "$tmp"; then
    echo "error: no probe report in the output (kept in $tmp):" >&2
    cat "$tmp" >&2
    exit 1
fi
if ! grep -q '"name": *"[^"]*H200' "$tmp"; then
    echo "error: the report lists no H200 (kept in $tmp):" >&2
    cat "$tmp" >&2
    exit 1
fi
mv "$tmp" "$out"
echo "wrote $out" >&2

if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,compute_cap,memory.total,driver_version \
        --format=csv >"$smi_out" || echo "warning: nvidia-smi failed; $smi_out not written" >&2
    [[ -s "$smi_out" ]] && echo "wrote $smi_out" >&2
fi

# The human rendering, for the log.
"$bin" probe >&2 || true
