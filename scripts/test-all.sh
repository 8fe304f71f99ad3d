#!/usr/bin/env bash
# The whole test suite, as the README gives it and CI runs it:
#   1. Rust: every crate's unit, golden, property and end-to-end tests (release build);
#   2. Python: the package built from this checkout with `pip install .` (maturin fetches from
#      PyPI) into a private virtual environment, its pytest suite (which compares with the CLI
#      built in step 1), mypy.stubtest on the compiled module's stubs, and mypy --strict on the
#      package.
# Environment: SCALINGLAWS_VENV (default .venv-test in the repository) is the environment used.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

cargo test --workspace --release

VENV=${SCALINGLAWS_VENV:-$ROOT/.venv-test}
if [[ ! -x $VENV/bin/python ]]; then
    python3 -m venv "$VENV"
fi
PY=$VENV/bin/python
"$PY" -m pip install --quiet --upgrade pip
"$PY" -m pip install --quiet ".[test]"
(cd crates/scalinglaws-py/tests && SCALINGLAWS_BIN=$ROOT/target/release/scalinglaws "$PY" -m pytest -q)
# Run from outside the checkout so that the installed package, not the source folder, is checked.
(cd / && "$PY" -m mypy.stubtest scalinglaws._scalinglaws)
"$PY" -m mypy --strict crates/scalinglaws-py/python/scalinglaws
"$PY" examples/python/quickstart.py >/dev/null
echo "all tests passed (Rust and Python)"
