#!/usr/bin/env python3
"""extract.py GITDIR DEST MISSINGLIST: write HEAD's tree into DEST, skipping blobs
the snapshot lacks (files of 4 MiB and more are left out of snapshots); names of
skipped files go to MISSINGLIST. Symlinks are made as links; submodules skipped."""
import os, subprocess, sys
gd, dest, missing_path = sys.argv[1:4]
tree = subprocess.run(["git", "--git-dir", gd, "ls-tree", "-r", "-z", "--full-tree", "HEAD"],
                      check=True, capture_output=True).stdout.split(b"\0")
entries = []
for e in tree:
    if not e: continue
    meta, path = e.split(b"\t", 1)
    mode, typ, sha = meta.split()
    if typ != b"blob": continue
    entries.append((mode, sha, path))
p = subprocess.Popen(["git", "--git-dir", gd, "cat-file", "--batch"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
import threading
def feed():
    for _, sha, _ in entries: p.stdin.write(sha + b"\n")
    p.stdin.close()
threading.Thread(target=feed, daemon=True).start()
missing = []
root = os.path.realpath(dest).encode()
for mode, sha, path in entries:
    header = p.stdout.readline()
    parts = header.split()
    if len(parts) == 2 and parts[1] == b"missing":
        missing.append(path); continue
    size = int(parts[2]); data = p.stdout.read(size); p.stdout.read(1)
    full = os.path.join(root, path)
    if not os.path.realpath(os.path.dirname(full)).startswith(root):  # never write outside
        missing.append(path); continue
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if mode == b"120000":
        os.symlink(data, full)
    else:
        with open(full, "wb") as f: f.write(data)
        if mode == b"100755": os.chmod(full, 0o755)
p.wait()
with open(missing_path, "wb") as f:
    for m in missing: f.write(m + b"\n")
print(f"{len(entries)-len(missing)} written, {len(missing)} missing")
