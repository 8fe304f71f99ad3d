#!/usr/bin/env bash
# Builds the book (docs/, configured by mkdocs.yml) into target/book: MkDocs with the Material
# theme, and mkdocstrings for the Python reference (the `docs` extra of pyproject.toml). The site
# works from file:// (open target/book/index.html), search included, and fetches nothing.
# Environment: SCALINGLAWS_VENV, the virtual environment that has (or gets) MkDocs (default
# .venv-test, the test command's); where it lacks MkDocs, `pip install ".[docs]"` installs it
# with the package (a Rust build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV=${SCALINGLAWS_VENV:-$PWD/.venv-test}
if [[ ! -x $VENV/bin/python ]]; then
    python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import mkdocs, material, mkdocstrings_handlers.python" 2>/dev/null; then
    echo "installing MkDocs, Material and mkdocstrings into $VENV (pip install \".[docs]\")"
    "$VENV/bin/python" -m pip install --quiet ".[docs]"
fi
# --strict: a broken link, a missing page or an anchor that is not there fails the build. Not
# --quiet, which hides the warnings from --strict too; the INFO lines are left out instead.
LOG=$(mktemp "${TMPDIR:-/tmp}/scalinglaws-book.XXXXXX")
status=0
NO_MKDOCS_2_WARNING=1 "$VENV/bin/python" -m mkdocs build --strict >"$LOG" 2>&1 || status=$?
grep -v '^INFO ' "$LOG" || true
rm -f "$LOG"
if [[ $status != 0 ]]; then
    echo "the book did not build (mkdocs build --strict, exit $status)"
    exit "$status"
fi
echo "the book: $PWD/target/book/index.html"
