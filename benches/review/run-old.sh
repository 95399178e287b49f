#!/bin/bash
# run-old.sh BIN [FOLDER...]
# For every folder of /work/reviews/corpus/src (sorted), run
#   timeout 300 BIN check --select T --format concise <the folder's .py files>
# inside the folder, and print each finding line (^[^ ]+:[0-9]+:[0-9]+: T1)
# prefixed with "<folder name> ".
#
# With FOLDER names (e.g. facebookresearch+swav), only those folders are run.
#
# Files: `git ls-files -co --exclude-standard '*.py'` (the folders are `git init`ed
# with nothing committed, so this is every .py file .gitignore does not exclude),
# or, where that lists nothing, `find . -name '*.py' -not -path './.git/*'`.
# Both sorted bytewise (LC_ALL=C), so the order is the same on every machine.
#
# The analyser sees all of a folder's files in one invocation when the argument
# list fits the system's limit (ARG_MAX less the environment and a margin);
# otherwise the files go through `xargs -s 1000000`, in batches (each batch with
# its own 300 s timeout). A batched folder, a timeout or another non-zero exit is
# noted on stderr; stdout carries only the finding lines.
set -u
export LC_ALL=C

if [ $# -lt 1 ]; then
  echo "usage: $0 BIN [FOLDER...]" >&2; exit 2
fi
BIN=$1; shift
case "$BIN" in
  */*) BIN=$(realpath -- "$BIN") ;;
  *)   BIN=$(command -v -- "$BIN") || { echo "$0: $1: not found" >&2; exit 2; } ;;
esac
[ -x "$BIN" ] || { echo "$0: $BIN: not executable" >&2; exit 2; }

SRC=${CORPUS:-/work/reviews/corpus/src}
PATTERN='^[^ ]+:[0-9]+:[0-9]+: T1'
ARG_MAX=$(getconf ARG_MAX)

list_files() {  # NUL-separated, sorted
  if [ -n "$(git ls-files -co --exclude-standard -- '*.py' 2>/dev/null | head -c1)" ]; then
    git ls-files -z -co --exclude-standard -- '*.py' | sort -z
  else
    find . -name '*.py' -not -path './.git/*' -print0 | sort -z
  fi
}

while IFS= read -r -d '' dir; do
  name=$(basename -- "$dir")
  (
    cd -- "$dir" || exit 1
    mapfile -d '' files < <(list_files)
    [ ${#files[@]} -eq 0 ] && { echo "$name: no .py files" >&2; exit 0; }
    # bytes the exec would need: each argument and its pointer, the fixed
    # arguments, and the environment
    need=$(( $(printf '%s\0' "${files[@]}" | wc -c) + 8 * ${#files[@]} ))
    need=$(( need + ${#BIN} + 64 + $(env | wc -c) + 8 * $(env | wc -l) ))
    if [ "$need" -lt $(( ARG_MAX - 65536 )) ]; then
      timeout 300 "$BIN" check --select T --format concise "${files[@]}"
      rc=$?
    else
      echo "$name: ${#files[@]} files, $need bytes of arguments: batched with xargs -s 1000000" >&2
      printf '%s\0' "${files[@]}" |
        xargs -0 -s 1000000 timeout 300 "$BIN" check --select T --format concise
      rc=$?
    fi
    case $rc in
      0|1) ;;                              # 1: findings (ruff-style exit)
      124) echo "$name: timed out (exit 124)" >&2 ;;
      123) echo "$name: a batch exited 1-125 or timed out (xargs exit 123)" >&2 ;;
      *) echo "$name: exit $rc" >&2 ;;
    esac
  ) | grep -E -- "$PATTERN" | sed "s|^|$name |"
done < <(
  if [ $# -gt 0 ]; then
    for f in "$@"; do
      [ -d "$SRC/$f" ] && printf '%s\0' "$SRC/$f" || echo "$0: no folder $SRC/$f" >&2
    done | sort -z
  else
    find "$SRC" -mindepth 1 -maxdepth 1 -type d -print0 | sort -z
  fi)
