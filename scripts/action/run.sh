#!/usr/bin/env bash
# Step 2 of the stagec GitHub Action (action.yml): runs `stagec check`.
#
# Reads the action's inputs from the environment, as action.yml passes them
# (never interpolated into the script):
#   INPUT_FILES       configs to check: whitespace-separated paths or globs
#                     (`**` allowed); empty: every tracked YAML file that is
#                     an experiment config
#   INPUT_FORMAT      github (annotations) or sarif
#   INPUT_SARIF_FILE  where the SARIF log goes when INPUT_FORMAT is sarif
#   INPUT_ARGS        more arguments for `stagec check`, whitespace-separated
#                     (write options as --opt=value; no quoting)
# STAGEC_BIN, when set, is the binary to run (default: `stagec` on PATH).
# Exits with stagec's status: 0 no errors, 1 errors (or warnings with
# --deny-warnings), 2 stagec could not run.
set -euo pipefail
shopt -s nullglob
shopt -s globstar 2>/dev/null || true # bash 4+

stagec="${STAGEC_BIN:-stagec}"
format="${INPUT_FORMAT:-github}"
sarif_file="${INPUT_SARIF_FILE:-stagec.sarif}"

case "$format" in
    github | sarif) ;;
    *)
        echo "::error title=stagec::input \`format\` must be \`github\` or \`sarif\`, not \`$format\`"
        exit 2
        ;;
esac

files=()
if [[ -n "${INPUT_FILES:-}" && -n "${INPUT_FILES//[[:space:]]/}" ]]; then
    read -r -d '' -a patterns <<<"$INPUT_FILES" || true
    for pattern in "${patterns[@]}"; do
        matched=("$pattern")
        [[ "$pattern" == *[*?[]* ]] && matched=($pattern)
        if [[ ${#matched[@]} -eq 0 ]]; then
            echo "::error title=stagec::input \`files\`: \`$pattern\` matches no file"
            exit 2
        fi
        files+=("${matched[@]}")
    done
else
    # File names travel NUL-separated (a name may hold a line break, which
    # would otherwise split it into two names, or forge a log line).
    list_yaml() {
        if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
            git ls-files -z -- '*.yaml' '*.yml'
        else
            find . -type d \( -name .git -o -name node_modules -o -name target \) -prune \
                -o -type f \( -name '*.yaml' -o -name '*.yml' \) -print0 | sort -z
        fi
    }
    yaml=()
    while IFS= read -r -d '' f; do
        f="${f#./}"
        case "$f" in stages.y*ml | */stages.y*ml | .github/* | */.github/*) continue ;; esac
        if [[ -f "$f" ]]; then
            yaml+=("$f")
        fi
    done < <(list_yaml)
    # The experiment configs among them, as stagec's language server decides
    # (a `# stagec: experiment` or yaml-language-server modeline, or
    # Determined's top-level keys and none of Kubernetes', CI's or Compose's).
    if [[ ${#yaml[@]} -gt 0 ]]; then
        listing="$(mktemp)"
        "$stagec" check --changed --show-files -z "${yaml[@]}" >"$listing" || {
            rm -f "$listing"
            echo "::error title=stagec::stagec could not read every YAML file (see the log)"
            exit 2
        }
        while IFS= read -r -d '' f; do
            if [[ -n "$f" ]]; then
                files+=("$f")
            fi
        done <"$listing"
        rm -f "$listing"
    fi
    if [[ ${#files[@]} -eq 0 ]]; then
        echo "::warning title=stagec::no experiment configs found; set the action's \`files\` input"
        exit 0
    fi
    # Each name shell-quoted (`%q`): a control character in one is shown
    # escaped, never printed raw into the log.
    echo "stagec: checking ${#files[@]} experiment config(s):$(printf ' %q' "${files[@]}")"
fi

extra=()
if [[ -n "${INPUT_ARGS:-}" ]]; then
    read -r -d '' -a extra <<<"$INPUT_ARGS" || true
fi

status=0
if [[ "$format" == sarif ]]; then
    mkdir -p "$(dirname "$sarif_file")"
    "$stagec" check --format sarif ${extra[@]+"${extra[@]}"} "${files[@]}" >"$sarif_file" || status=$?
    echo "stagec: wrote SARIF to $sarif_file (exit status $status)"
    if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
        echo "sarif-file=$sarif_file" >>"$GITHUB_OUTPUT"
    fi
else
    "$stagec" check --format github ${extra[@]+"${extra[@]}"} "${files[@]}" || status=$?
fi
exit "$status"
