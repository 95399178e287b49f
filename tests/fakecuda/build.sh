#!/usr/bin/env bash
# Builds the stand-in NVIDIA driver libraries from fakecuda.c into OUTDIR:
#   OUTDIR/libcuda.so.1        (soname libcuda.so.1) and the link libcuda.so
#   OUTDIR/libnvidia-ml.so.1   (soname libnvidia-ml.so.1) and libnvidia-ml.so
# Point LD_LIBRARY_PATH at OUTDIR (before the process starts: the dynamic
# loader reads it once) and choose the behaviour with FAKECUDA_* variables;
# see the comment at the top of fakecuda.c.
#
# Usage: build.sh OUTDIR [--omit SYMBOL]... [--no-nvml]
#   --omit SYMBOL  leave SYMBOL out of the exported symbols (an old driver
#                  without e.g. cuDeviceGetUuid_v2); repeatable
#   --no-nvml      build no NVML library (a host without libnvidia-ml; on a
#                  host with a real libnvidia-ml.so.1 the loader finds that)
# Needs a C compiler: $CC, default gcc.
set -euo pipefail

if [[ $# -lt 1 || $1 == -* ]]; then
    echo "usage: $0 OUTDIR [--omit SYMBOL]... [--no-nvml]" >&2
    exit 2
fi
out=$1
shift
omit=()
nvml=1
while [[ $# -gt 0 ]]; do
    case $1 in
        --omit)
            [[ $# -ge 2 && $2 =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo "--omit needs a symbol name" >&2; exit 2; }
            omit+=("$2")
            shift 2
            ;;
        --no-nvml) nvml=0; shift ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cc=${CC:-gcc}
mkdir -p "$out"

# Only cu*/nvml* are exported; omitted names are made local (an exact name
# in `local:` wins over the `cu*` wildcard in `global:`).
map=$(mktemp)
trap 'rm -f "$map"' EXIT
{
    echo "{ global: cu*; nvml*;"
    echo "  local:"
    for s in "${omit[@]+"${omit[@]}"}"; do echo "    $s;"; done
    echo "    *; };"
} >"$map"

build() { # API SONAME
    "$cc" -std=c11 -O1 -g -fPIC -shared -fvisibility=hidden -Wall -Wextra \
        -DFAKECUDA_API_"$1" -Wl,-soname,"$2" -Wl,--version-script="$map" \
        -o "$out/$2" "$here/fakecuda.c" -ldl -lpthread
}

build CUDA libcuda.so.1
ln -sf libcuda.so.1 "$out/libcuda.so"
if [[ $nvml -eq 1 ]]; then
    build NVML libnvidia-ml.so.1
    ln -sf libnvidia-ml.so.1 "$out/libnvidia-ml.so"
else
    rm -f "$out/libnvidia-ml.so.1" "$out/libnvidia-ml.so"
fi
