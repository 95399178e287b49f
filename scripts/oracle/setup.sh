#!/usr/bin/env bash
# Creates the Python environment the differential oracle (verdict.py) runs in.
#
#   scripts/oracle/setup.sh [VENV_DIR]      (default: target/oracle-venv)
#
# It installs determined==0.17.15 without its dependencies (only the schema
# extension code inside it is used) and jsonschema 3.2.0, the release that
# code was written against (it was pulled in through docker-compose's pin
# back then).  Nothing else.
#
# With STAGEC_TOOLS_NO_INSTALL set it only checks that the environment is
# ready and installs nothing (exit 5 when it is not).
#
# Exit status: 0 ready, 3 the package index could not be reached, 5 not
# ready and installing not allowed, anything else a real failure.
set -euo pipefail

VENV="${1:-target/oracle-venv}"
PYTHON="${PYTHON:-python3}"
MARKER="$VENV/.oracle-ready-v1"

if [ -f "$MARKER" ] && "$VENV/bin/python" -c 'import jsonschema' >/dev/null 2>&1; then
    exit 0
fi

if [ -n "${STAGEC_TOOLS_NO_INSTALL:-}" ]; then
    echo "oracle setup: $VENV is not ready (set STAGEC_REQUIRE_ORACLE=1 to install it and run the test)" >&2
    exit 5
fi

if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "oracle setup: $PYTHON not found" >&2
    exit 1
fi

"$PYTHON" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check --no-input -q)

# Probe the index with the smallest request that tells us whether it answers.
if ! "${PIP[@]}" download --no-deps --dest "$VENV/.probe" --timeout 20 --retries 1 \
        'six==1.16.0' >/dev/null 2>&1; then
    echo "oracle setup: the Python package index is unreachable; oracle not installed"
    exit 3
fi
rm -rf "$VENV/.probe"

"${PIP[@]}" install --timeout 60 --no-deps 'determined==0.17.15'
"${PIP[@]}" install --timeout 60 'jsonschema==3.2.0'

"$VENV/bin/python" - <<'PY'
import importlib.metadata as md
import importlib.util
import os

assert md.version("determined") == "0.17.15", md.version("determined")
spec = importlib.util.find_spec("determined")
root = spec.submodule_search_locations[0]
for rel in ("common/schemas/extensions.py", "common/schemas/expconf/_validate.py"):
    assert os.path.isfile(os.path.join(root, rel)), rel
import jsonschema  # noqa: F401
PY

touch "$MARKER"
