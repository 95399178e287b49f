#!/usr/bin/env bash
# Builds the fake driver libraries and checks that a small C probe
# (selftest.c) gets each scenario's answers through LD_LIBRARY_PATH.
# Usage: selftest.sh [WORKDIR]   (default: a temporary directory)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${1:-$(mktemp -d)}
cc=${CC:-gcc}
mkdir -p "$work"
"$here/build.sh" "$work/lib"
"$here/build.sh" "$work/old" --omit cuDeviceGetUuid_v2 --omit cuGetProcAddress_v2 --no-nvml
"$cc" -std=c11 -O1 -Wall -Wextra -o "$work/selftest" "$here/selftest.c" -ldl

failures=0
run() { # LIBDIR, then VAR=VALUE... ; prints the probe's output
    local lib=$1
    shift
    env LD_LIBRARY_PATH="$lib" "$@" timeout 10 "$work/selftest" 2>&1 || true
}
expect() { # NAME OUTPUT NEEDLE...
    local name=$1 out=$2
    shift 2
    for needle in "$@"; do
        if ! grep -qF -- "$needle" <<<"$out"; then
            echo "FAIL $name: missing '$needle'"
            failures=$((failures + 1))
        fi
    done
}

out=$(run "$work/lib")
expect default "$out" "driver rc=0 version=12040" "count rc=0 n=2" "count_before_init=3" \
    'dev0 name="NVIDIA H100 80GB HBM3"' "cc=9.0 sms=132 mem=85520809984" "pci=0000:2A:00.0" \
    "peer 0->1=1" "peer 0->0=0" "get_bad_ordinal rc=101" "bad_attr_rc=1" \
    "errname 12345=(null) rc=1" "errname 721=CUDA_ERROR_TENSOR_MEMORY_LEAK rc=0" \
    "resolved=cuDeviceGetUuid_v2" "nvml init=0 driver=550.54.15" "busId=00000000:18:00.0 legacy=0000:18:00.0"

out=$(run "$work/lib" FAKECUDA_SCENARIO=mig)
expect mig "$out" "n=1" 'name="NVIDIA H100 80GB HBM3 MIG 1g.10gb"' \
    "uuid_v1=1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" "uuid_v2=8f2b6c1d-3e4a-5b6c-9d7e-0a1b2c3d4e5f" \
    "nvml dev0 uuid=MIG-8f2b6c1d-3e4a-5b6c-9d7e-0a1b2c3d4e5f by_uuid=0"

out=$(run "$work/lib" FAKECUDA_SCENARIO=gh200)
expect gh200 "$out" 'name="NVIDIA GH200 480GB"' "version=12080" "domain=9 bus=1" "busId=00000009:01:00.0"

out=$(run "$work/lib" FAKECUDA_SCENARIO=no_device)
expect no_device "$out" "init rc=100 name=CUDA_ERROR_NO_DEVICE"

for code in 36 47 226 227 721 804 999 5000; do
    out=$(run "$work/lib" FAKECUDA_SCENARIO="h100x2,init_error:$code")
    expect "init_error:$code" "$out" "init rc=$code"
done
out=$(run "$work/lib" FAKECUDA_SCENARIO=init_error:5000)
expect unknown_name "$out" "init rc=5000 name=(null) name_rc=1"

out=$(run "$work/lib" FAKECUDA_SCENARIO=mixed FAKECUDA_FAIL='cuDeviceGetName@1=721,cuDeviceTotalMem_v2=36')
expect fail "$out" 'dev0 name="NVIDIA A100-SXM4-40GB" rc=0' 'dev1 name="" rc=721' "mem=0 rc=36" "peer 0->1=0"

out=$(run "$work/lib" FAKECUDA_DRIVER_VERSION=13000)
expect driver_override "$out" "version=13000"

out=$(run "$work/old")
expect omitted "$out" "missing cuDeviceGetUuid_v2" "missing cuGetProcAddress_v2" "rc2=-1" "nvml absent"

cat >"$work/two.cfg" <<'CFG'
# two GPUs of different kinds, no P2P between them
driver_version 12080
nvml_driver 570.124.06
device name=NVIDIA A100-SXM4-80GB;cc=8.0;mem=85100068864;sms=108;pci=0000:07:00.0;uuid=GPU-11111111-2222-3333-4444-555555555555
device name=NVIDIA L40S;cc=8.9;mem=47697362944;sms=142;pci=0000:af:00.0;uuid=GPU-66666666-7777-8888-9999-aaaaaaaaaaaa;compute_mode=3
peer_all 0
fail cuDeviceGetPCIBusId@1 999
CFG
out=$(run "$work/lib" FAKECUDA_CONFIG="$work/two.cfg")
expect config "$out" "version=12080" 'dev1 name="NVIDIA L40S"' "cc=8.9 sms=142" "mode=3" \
    "pci= rc=999" "peer 0->1=0" "driver=570.124.06"

: >"$work/calls.log"
run "$work/lib" FAKECUDA_LOG="$work/calls.log" >/dev/null
expect log "$(cat "$work/calls.log")" "cuInit" "cuDeviceGetName 1" "nvmlDeviceGetMemoryInfo 0"
if grep -q "cuDevicePrimaryCtxRetain" "$work/calls.log"; then
    echo "FAIL log: the self-test probe created a context"
    failures=$((failures + 1))
fi

# A hang is only bounded by the caller; a crash kills the process (SIGILL).
set +e
env LD_LIBRARY_PATH="$work/lib" FAKECUDA_SCENARIO=hang:cuDeviceGetCount timeout 2 "$work/selftest" >/dev/null 2>&1
rc=$?
[[ $rc -eq 124 ]] || { echo "FAIL hang: exit $rc, expected 124 (timeout)"; failures=$((failures + 1)); }
env LD_LIBRARY_PATH="$work/lib" FAKECUDA_SCENARIO=hang_for:1:cuInit timeout 5 "$work/selftest" >/dev/null 2>&1
rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL hang_for: exit $rc"; failures=$((failures + 1)); }
rc=$(bash -c 'env LD_LIBRARY_PATH="$1" FAKECUDA_SCENARIO=crash:cuDeviceGetName timeout 5 "$2" >/dev/null 2>&1; echo $?' _ "$work/lib" "$work/selftest" 2>/dev/null)
[[ $rc -eq 132 ]] || { echo "FAIL crash: exit $rc, expected 132 (SIGILL)"; failures=$((failures + 1)); }
set -e

if [[ $failures -ne 0 ]]; then
    echo "fakecuda selftest: $failures failure(s)"
    exit 1
fi
echo "fakecuda selftest: ok"
