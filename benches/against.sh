#!/usr/bin/env bash
# Times the whole-process check of the corrected seed example against
# `stagec --version`, for this tree and for an earlier commit built back to
# back on the same machine, so that a ratio can be compared with the tree it
# was first measured on:
#
#   benches/against.sh REV [RUNS]      # e.g. benches/against.sh a47a24e
#
# REV is built with `cargo build --release --locked` in a temporary git
# worktree with a target folder of its own (its own release profile); this
# tree's binary is target/release/stagec (build it first). Each command runs
# RUNS times (default 1000) after 50 warm-ups, in two rounds; the medians and
# their ratios to `--version` are printed. Needs hyperfine (Debian's package) and python3.
set -euo pipefail
rev=${1:?usage: benches/against.sh REV [RUNS]}
runs=${2:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
now="$root/target/release/stagec"
[[ -x $now ]] || { echo "build this tree first: cargo build --release" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }

work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/tree" "$rev" >/dev/null
(cd "$work/tree" && CARGO_TARGET_DIR="$work/target" cargo build --release --locked --quiet)
then="$work/target/release/stagec"

seed=examples/hpp-seed-fixed
export S3_ACCESS_KEY=x S3_SECRET_KEY=x
cd "$root"
for round in 1 2; do
    hyperfine -N --warmup 50 --runs "$runs" --export-json "$work/round$round.json" \
        "$then --version" \
        "$then check --format json $seed/const.yaml" \
        "$now --version" \
        "$now check --format json $seed/const.yaml --model $seed/model.py" \
        "$now check --format json $seed/const.yaml" >/dev/null
    python3 - "$work/round$round.json" "$then" "$now" "$rev" <<'EOF'
import json, sys
results, then, now, rev = json.load(open(sys.argv[1]))["results"], sys.argv[2], sys.argv[3], sys.argv[4]
version = {}
for r in results:
    exe = then if r["command"].startswith(then) else now
    label = (rev if exe == then else "this tree") + r["command"][len(exe):]
    median = r["median"] * 1000
    if r["command"].endswith("--version"):
        version[exe] = median
        print(f"{median:6.2f} ms  {label}")
    else:
        print(f"{median:6.2f} ms  {median / version[exe]:4.2f}x  {label}")
print()
EOF
done
