#!/usr/bin/env bash
# Records the local CUDA probe of an H200 host as a test fixture:
#
#   scripts/probe-h200.sh            # builds stagec (release) here, probes, writes the fixture
#   STAGEC_BIN=path/to/stagec scripts/probe-h200.sh   # use a binary built elsewhere
#
# Writes tests/probes/h200-recorded.json (`stagec probe --format json`) and,
# when nvidia-smi is installed, tests/probes/h200-nvidia-smi.csv with the
# same GPUs as nvidia-smi sees them (to cross-check names, UUIDs, PCI bus ids,
# the driver release and the memory totals, which CUDA reports a few hundred
# MiB lower).
#
# The build needs the crates in ~/.cargo (set CARGO_NET_OFFLINE=true on a
# machine without network access), or build elsewhere and pass STAGEC_BIN
# (relative paths are taken from the folder you run this in): stagec loads
# libcuda at run time, so the same binary runs with or without a GPU. A
# binary needs a glibc at least as new as the one it was built against (a
# build on glibc 2.34 or newer does not start on Ubuntu 20.04 or RHEL 8);
# this script then shows the loader's error. Building here avoids that.
# The probe stops after STAGEC_PROBE_TIMEOUT seconds (default 60).
# The recorded JSON is refused (left in a temporary file) unless it lists at
# least one device named "NVIDIA H200" or "NVIDIA H200 NVL" (not a GH200).
set -euo pipefail

# STAGEC_BIN as the caller wrote it: resolved against the caller's folder
# before the `cd` below (a bare name is looked up on PATH).
bin=""
if [[ -n "${STAGEC_BIN:-}" ]]; then
    case $STAGEC_BIN in
        /*) bin=$STAGEC_BIN ;;
        */*) bin="$PWD/$STAGEC_BIN" ;;
        *)
            bin=$(command -v -- "$STAGEC_BIN" || true)
            if [[ -z $bin ]]; then
                echo "error: STAGEC_BIN=$STAGEC_BIN is neither a path nor a command on PATH" >&2
                exit 2
            fi
            ;;
    esac
fi

cd "$(dirname "$0")/.."
out=tests/probes/h200-recorded.json
smi_out=tests/probes/h200-nvidia-smi.csv

if [[ -z $bin ]]; then
    cargo build --release --bin stagec
    bin=$PWD/target/release/stagec
fi
if [[ ! -f $bin || ! -x $bin ]]; then
    echo "error: $bin is not an executable file" >&2
    exit 2
fi

# Does the binary start here, and does it have the probe? Show what the
# loader or stagec said if not.
if ! help=$("$bin" probe --help 2>&1); then
    echo "error: \`$bin probe --help\` failed:" >&2
    printf '%s\n' "$help" >&2
    if grep -q 'GLIBC_' <<<"$help"; then
        echo "hint: $bin was built against a newer glibc than this host's ($(ldd --version 2>/dev/null | head -n 1));" \
            "build stagec on this host (run this script without STAGEC_BIN) or on a system with this glibc or an" \
            "older one (see README, \`stagec probe\`)" >&2
    fi
    exit 2
fi

tmp="$(mktemp "${TMPDIR:-/tmp}/h200-recorded.XXXXXX.json")"
# The exit status of `stagec probe` is not trusted alone: the content is
# checked below (status 1 means no device; the report's reason says why).
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
if ! grep -Eq '"name": *"NVIDIA H200( NVL)?"' "$tmp"; then
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
