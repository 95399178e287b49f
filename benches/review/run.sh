#!/bin/bash
# run.sh BIN DIR: runs BIN check --select T --format concise on each repository's taken files
# (as pre-commit passes them, from the repository root); writes findings as "<short> <path>:<line>:<col>: <msg>"
BIN=$1 DIR=$2
cut -f1 -d' ' "$DIR/files.txt" | sort -u | while read -r short; do
  mapfile -t files < <(awk -v s="$short" '$1==s { sub(/^[^ ]+ /, ""); print }' "$DIR/files.txt")
  (cd "$DIR/$short" && timeout 120 "$BIN" check --select T --format concise "${files[@]}" 2>&1) |
    grep -E '^[^ ].*:[0-9]+:[0-9]+: T1' | sed "s|^|$short |"
done
