#!/bin/bash
# checkout.sh OWNER/NAME GITDIR : archive HEAD into corpus/src/OWNER+NAME, then remove GITDIR.
# Where git archive fails (snapshots lack blobs of 4 MiB and more), extract.py writes
# every blob that is there and lists the rest in corpus/missing/OWNER+NAME.txt.
set -u
repo=$1; gd=$2
C=${CORPUS_ROOT:-/work/reviews/corpus}
key=${repo/\//+}
dst=$C/src/$key
case "$gd" in /work/.mirror/*) ;; *) echo "$repo	bad gitdir: $gd" >> $C/failed.txt; exit 1;; esac
rm -rf "$dst"; mkdir -p "$dst"
if git --git-dir="$gd" archive HEAD 2>/dev/null | tar -x -C "$dst" 2>/dev/null && [ "${PIPESTATUS[0]}" = 0 ]; then
  how=archive
else
  rm -rf "$dst"; mkdir -p "$dst" $C/missing
  if ! n=$(python3 "$(dirname "$0")/extract.py" "$gd" "$dst" $C/missing/$key.txt); then
    echo "$repo	checkout failed from $gd" >> $C/failed.txt; echo "FAIL $repo"; exit 1
  fi
  how="extract ($n)"
fi
(cd "$dst" && git init -q) && rm -rf "$gd" && echo "ok $repo: $how"
