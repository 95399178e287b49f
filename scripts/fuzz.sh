#!/usr/bin/env bash
# Coverage-guided fuzzing of stagec's parsers (libFuzzer through libfuzzer-sys),
# on the stable toolchain: the SanitizerCoverage instrumentation comes from
# stable codegen flags (-C passes=sancov-module, -C llvm-args=...), so nothing
# needs nightly, RUSTC_BOOTSTRAP or cargo-fuzz. No AddressSanitizer (that one
# is nightly-only); memory blow-ups are caught by -rss_limit_mb and the
# address-space limit below, overflows by debug assertions.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   build, replay fuzz/regressions, then fuzz
#                                           each TARGET (default: all) for SECONDS
#                                           (default 60) of wall-clock time
#   scripts/fuzz.sh replay                  only replay fuzz/regressions and fuzz/corpus
#   scripts/fuzz.sh minimize [TARGET...]    merge the working corpus into fuzz/corpus
#                                           (libFuzzer -merge=1: keeps what adds coverage)
#   scripts/fuzz.sh seed                    (re)create fuzz/corpus/*/seed-* from the
#                                           examples, tests/fixtures, tests/projects and tests/rules
#
# New inputs go to target/fuzz/work/<target> (not committed). Crashes, timeouts
# and out-of-memory inputs are copied to fuzz/regressions/<target>/ and the
# script exits 1: commit them (tests/it/fuzz_regressions.rs replays them through
# the CLI under limits). Needs a C++ compiler (libfuzzer-sys builds libFuzzer).
# Environment: FUZZ_JOBS (parallel fuzzing processes per target, default 1),
# FUZZ_RSS_MB (default 2048), FUZZ_TIMEOUT (seconds per input, default 10).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fuzz="$root/fuzz"
out=${CARGO_TARGET_DIR:-$root/target}/fuzz
triple=$(rustc -vV | sed -n 's/^host: //p')
all_targets=(yaml_parse check_experiment python_model python_parse stages_yaml inventory project lsp_transport fix settings)

# Read-only seed folders a target also draws from (configs are YAML too).
extra_dirs_of() {
    case $1 in
        yaml_parse) echo "$fuzz/corpus/check_experiment $fuzz/corpus/stages_yaml $fuzz/corpus/inventory" ;;
        check_experiment) echo "$fuzz/corpus/yaml_parse" ;;
        fix) echo "$fuzz/corpus/check_experiment" ;;
        *) echo "" ;;
    esac
}

dict_of() {
    case $1 in
        python_model | python_parse) echo "$fuzz/dict/python.dict" ;;
        project) echo "$fuzz/dict/project.dict" ;;
        lsp_transport) echo "$fuzz/dict/lsp.dict" ;;
        *) echo "$fuzz/dict/yaml.dict" ;;
    esac
}

build() {
    local flags="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
    flags+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table"
    flags+=" -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
    if [[ $triple == *linux* ]]; then flags+=" -Cllvm-args=-sanitizer-coverage-stack-depth"; fi
    # --target keeps the flags off build scripts and proc macros.
    RUSTFLAGS="$flags" CARGO_TARGET_DIR="$out/build" \
        cargo build --release --manifest-path "$fuzz/Cargo.toml" --target "$triple" --bins
    bin="$out/build/$triple/release"
}

# Runs every committed input through its target once; 1 if any fails.
replay() {
    local status=0 t f
    for t in "${all_targets[@]}"; do
        for dir in "$fuzz/regressions/$t" "$fuzz/corpus/$t"; do
            [[ -d $dir ]] || continue
            for f in "$dir"/*; do
                [[ -f $f ]] || continue
                if ! (ulimit -v $((4 * 1024 * 1024)); "$bin/$t" -timeout="${FUZZ_TIMEOUT:-10}" \
                    -rss_limit_mb="${FUZZ_RSS_MB:-2048}" "$f" >"$out/replay.log" 2>&1); then
                    echo "FAIL $t ${f#"$root"/}: $(grep -m1 -E 'panicked|ERROR|failed' "$out/replay.log" || tail -1 "$out/replay.log")"
                    status=1
                fi
            done
        done
    done
    return $status
}

# Keeps what libFuzzer left in target/fuzz/artifacts as regressions.
collect() {
    local t=$1 found=0 f name
    for f in "$out/artifacts/$t"/*; do
        [[ -f $f ]] || continue
        name=$(basename "$f")
        mkdir -p "$fuzz/regressions/$t"
        # crash-<sha1>, oom-<sha1>, timeout-<sha1>, slow-unit-<sha1>
        if [[ ! -e $fuzz/regressions/$t/$name ]]; then
            cp "$f" "$fuzz/regressions/$t/$name"
            echo "new $t finding: fuzz/regressions/$t/$name"
            found=1
        fi
    done
    return $found
}

run_target() {
    local t=$1 seconds=$2
    mkdir -p "$out/work/$t" "$out/artifacts/$t" "$fuzz/corpus/$t"
    echo "== $t: ${seconds}s"
    # Fork mode keeps going after a finding (known bugs would otherwise stop
    # the run at once); every finding lands in the artifact folder.
    (
        ulimit -v $((4 * 1024 * 1024))
        # shellcheck disable=SC2046
        "$bin/$t" "$out/work/$t" "$fuzz/corpus/$t" $(extra_dirs_of "$t") \
            -dict="$(dict_of "$t")" -max_len=16384 -timeout="${FUZZ_TIMEOUT:-10}" \
            -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -max_total_time="$seconds" \
            -fork="${FUZZ_JOBS:-1}" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
            -artifact_prefix="$out/artifacts/$t/" -print_final_stats=1 \
            >"$out/$t.log" 2>&1
    ) || true
    if ! grep -qE '^#[0-9]+' "$out/$t.log"; then
        echo "$t did not run; the end of $out/$t.log:"
        tail -5 "$out/$t.log"
        return 1
    fi
    grep -E '^#[0-9]+' "$out/$t.log" | tail -1
}

minimize() {
    local t f sum keep="${FUZZ_CORPUS_KB:-64}" files="${FUZZ_CORPUS_FILES:-100}"
    for t in "$@"; do
        [[ -d $out/work/$t ]] || continue
        rm -rf "$out/merged/$t"
        mkdir -p "$out/merged/$t"
        "$bin/$t" -merge=1 -max_len=16384 -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
            "$out/merged/$t" "$fuzz/corpus/$t" "$out/work/$t" >"$out/$t.merge.log" 2>&1 || true
        # Seeds (seed-*, hostile-*) stay by name; of the rest (what the merge
        # kept, named by its SHA-1) every k-th by size, so that at most
        # FUZZ_CORPUS_FILES inputs of all sizes are kept, within FUZZ_CORPUS_KB.
        declare -A named=()
        for f in "$fuzz/corpus/$t"/seed-* "$fuzz/corpus/$t"/hostile-*; do
            [[ -f $f ]] && named[$(sha1sum <"$f" | cut -c1-40)]=1
        done
        find "$fuzz/corpus/$t" -type f ! -name 'seed-*' ! -name 'hostile-*' -delete
        local n stride i=0 budget=$((keep * 1024)) size
        n=$(find "$out/merged/$t" -type f | wc -l)
        stride=$(((n + files - 1) / files))
        ((stride > 0)) || stride=1
        while read -r size f; do
            ((i++ % stride == 0)) || continue
            sum=$(basename "$f")
            [[ -n ${named[$sum]:-} ]] && continue
            ((budget - size >= 0)) || continue
            ((budget -= size)) || true
            cp "$f" "$fuzz/corpus/$t/$sum"
        done < <(find "$out/merged/$t" -type f -printf '%s %p\n' | sort -n)
        unset named
        echo "$t: $(find "$fuzz/corpus/$t" -type f | wc -l) inputs, $(du -sk "$fuzz/corpus/$t" | cut -f1) KiB"
    done
}

seed() {
    local t f p name
    put() { # target name file...
        local t=$1 name=$2
        shift 2
        mkdir -p "$fuzz/corpus/$t"
        cat "$@" >"$fuzz/corpus/$t/seed-$name"
    }
    for t in "${all_targets[@]}"; do rm -f "$fuzz/corpus/$t"/seed-*; done
    for f in "$root"/examples/*/const.yaml "$root"/tests/fixtures/*/*.yaml "$root"/tests/projects/*/const.yaml; do
        name=$(basename "$(dirname "$f")")-$(basename "$f" .yaml)
        put check_experiment "$name" "$f"
    done
    # The rule cases (tests/rules/CODE/CASE.yaml, tests/rules/CODE/CASE/const.yaml).
    for f in "$root"/tests/rules/*/*.yaml "$root"/tests/rules/*/*/const.yaml; do
        [[ -f $f ]] || continue
        name=rules-$(echo "${f#"$root"/tests/rules/}" | tr / -)
        put check_experiment "${name%.yaml}" "$f"
    done
    for f in "$root"/examples/*/const.yaml; do
        put fix "$(basename "$(dirname "$f")")-const" "$f"
    done
    for f in "$root"/examples/*/*.py "$root"/tests/projects/*/*.py; do
        put python_model "$(basename "$(dirname "$f")")-$(basename "$f" .py)" "$f"
        put python_parse "$(basename "$(dirname "$f")")-$(basename "$f" .py)" "$f"
    done
    for f in "$root"/tests/rules/*/*/model.py; do
        [[ -f $f ]] && put python_model "rules-$(echo "${f#"$root"/tests/rules/}" | tr / -)" "$f"
    done
    for f in "$root"/tests/projects/*/stages.yaml "$root"/tests/projects/*/stages.yml "$root"/tests/rules/*/*/stages.yaml; do
        [[ -f $f ]] && put stages_yaml "$(basename "$(dirname "$f")")" "$f"
    done
    for f in "$root"/tests/inventories/* "$root"/tests/projects/*/inventory.* "$root"/tests/rules/*/*/inventory.*; do
        [[ -f $f ]] && put inventory "$(basename "$(dirname "$f")")-$(basename "$f")" "$f"
    done
    for p in "$root"/tests/projects/*/ "$root"/tests/rules/*/*/; do
        [[ $(basename "$p") == snapshots ]] && continue
        name=$(basename "$p")
        [[ $p == "$root"/tests/rules/* ]] && name=rules-$(basename "$(dirname "$p")")-$name
        local parts=()
        for f in const.yaml model.py stages.yaml inventory.json; do
            parts+=("$p$f")
        done
        {
            cat "${parts[0]}" 2>/dev/null || true
            for f in "${parts[@]:1}"; do
                printf '\n----\n'
                cat "$f" 2>/dev/null || true
            done
        } >"$fuzz/corpus/project/seed-$name"
    done
    # Hand-written seeds (hostile-*: issue 9's shapes, kept small) are
    # committed as they are and never regenerated.
    du -sh "$fuzz/corpus"
}

mode=${1:-60}
case $mode in
    seed)
        seed
        exit 0
        ;;
    replay)
        build
        replay
        exit $?
        ;;
    minimize)
        shift
        build
        targets=("$@")
        [[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")
        minimize "${targets[@]}"
        exit 0
        ;;
esac

seconds=$mode
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")
build
status=0
echo "== replaying fuzz/regressions and fuzz/corpus"
replay || status=1
for t in "${targets[@]}"; do
    run_target "$t" "$seconds" || status=1
    collect "$t" || status=1
done
exit $status
