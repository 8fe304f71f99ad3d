#!/usr/bin/env bash
# The whole test suite, as the README gives it and CI runs it:
#   1. Rust: formatting (rustfmt), lints (clippy -D warnings), then every crate's unit, golden,
#      property and end-to-end tests (release build);
#   2. Python: the package built from this checkout with `pip install .` (maturin fetches from
#      PyPI) into a private virtual environment, its pytest suite (which compares with the CLI
#      built in step 1), mypy.stubtest on the compiled module's stubs, and mypy --strict on the
#      package.
#   3. The book (docs/, mkdocs.yml): built with --strict by scripts/book.sh into target/book
#      before the Python tests, which check its links and, in headless Chromium, its pages and
#      search from file://;
#   4. Fuzzing: every input parser for 10 s (scripts/fuzz.sh), failing on any crash.
# What cannot run on this machine is skipped and said at the end, with the reason: the tests on
# unlicensed data read beside the checkout (../shared/data, absent from a fresh clone), and the
# report's headless-Chromium test where no Chromium can be had (this script installs Debian's
# `chromium` with apt-get when it runs as root or with passwordless sudo).
# Environment:
#   SCALINGLAWS_VENV            the virtual environment used (default .venv-test in the repository);
#   SCALINGLAWS_CHROMIUM        the browser to test the report with (default /usr/bin/chromium;
#                               a path that is not a file simulates a machine without one, and
#                               nothing is installed);
#   SCALINGLAWS_NO_INSTALL=1    never install Chromium;
#   SCALINGLAWS_REQUIRE_BROWSER=1  fail, not skip, without a browser (.ci/run sets it);
#   SCALINGLAWS_SKIP_LOG        where skips are collected (default a fresh temporary file).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}

SKIP_LOG=${SCALINGLAWS_SKIP_LOG:-$(mktemp "${TMPDIR:-/tmp}/scalinglaws-skips.XXXXXX")}
: >"$SKIP_LOG"
export SCALINGLAWS_SKIP_LOG=$SKIP_LOG

skips() {
    if [[ -s $SKIP_LOG ]]; then
        echo "skipped $(wc -l <"$SKIP_LOG") tests (or parts of tests):"
        sed 's/^/  /' "$SKIP_LOG"
    else
        echo "no tests skipped"
    fi
}
trap 'status=$?; if [[ $status != 0 ]]; then skips; echo "tests FAILED (exit $status)"; fi' EXIT

# Chromium for the report's browser test, where it can be installed without asking.
if [[ -z ${SCALINGLAWS_CHROMIUM:-} && ${SCALINGLAWS_NO_INSTALL:-} != 1 ]] \
    && ! [[ -x /usr/bin/chromium || -x /usr/bin/chromium-browser ]] \
    && command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    if [[ $(id -u) != 0 ]]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO=none; fi
    fi
    if [[ $SUDO != none ]]; then
        echo "installing Debian's chromium for the report's browser test (apt-get)"
        if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null; }; then
            echo "could not install chromium: the browser test will be skipped"
        fi
    fi
fi

# Formatting first (no build): rustfmt comes with rustup's default profile; a toolchain without
# it skips the check, saying so.
if cargo fmt --version >/dev/null 2>&1; then
    if ! cargo fmt --all -- --check >/dev/null; then
        echo "the Rust sources are not formatted: run cargo fmt --all (cargo fmt --all -- --check shows where)"
        exit 1
    fi
else
    echo "skipping the format check: rustfmt is not installed (rustup component add rustfmt)"
fi

# Clippy's lints, any warning an error (the lints it allows, and why, are in Cargo.toml's
# [workspace.lints]); clippy comes with rustup's default profile, and a toolchain without it
# skips the check, saying so. A check build (no code generation, PyO3's crate included): about
# 76 s on 2 cores from a cold target directory, 30 s warm.
if cargo clippy --version >/dev/null 2>&1; then
    echo "clippy: cargo clippy --workspace --all-targets --release -- -D warnings"
    cargo clippy --workspace --all-targets --release --quiet -- -D warnings
else
    echo "skipping clippy: it is not installed (rustup component add clippy)"
fi

# One build serves the whole script. scalinglaws-py has no Rust tests (its tests are the Python
# ones below), but selecting it makes cargo resolve the features pip's build of the module
# resolves (PyO3's macros ask more of syn), so pip reuses this build's library instead of
# compiling it again; the fuzz driver below is the one this build made for its tests.
cargo test --workspace --release

VENV=${SCALINGLAWS_VENV:-$ROOT/.venv-test}
if [[ ! -x $VENV/bin/python ]]; then
    python3 -m venv "$VENV"
fi
PY=$VENV/bin/python
"$PY" -m pip install --quiet --upgrade pip
echo "building the Python package with pip install . (reuses the tests' build: its PyO3 glue compiles in about 15 s on 2 cores)"
PIP_LOG=$(mktemp "${TMPDIR:-/tmp}/scalinglaws-pip.XXXXXX")
# -v shows cargo's progress: its Compiling/Finished lines are shown as they come, the rest logged.
if ! "$PY" -m pip install -v ".[test,docs]" 2>&1 | tee "$PIP_LOG" \
    | { grep --line-buffered -E '^ *(Compiling|Finished) ' || true; }; then
    tail -n 60 "$PIP_LOG"
    echo "pip install failed: the whole log is $PIP_LOG"
    exit 1
fi
rm -f "$PIP_LOG"
# Ray, for the tests of scalinglaws.ray on a real local cluster (the optional extra `ray`);
# where it cannot be installed those tests skip and say why.
if ! "$PY" -c "import ray, pyarrow" 2>/dev/null; then
    echo "installing Ray for the tests of scalinglaws.ray (pip install ray)"
    "$PY" -m pip install --quiet "ray[data]>=2.9" || echo "could not install Ray: the Ray tests will be skipped"
fi
echo "building the book (scripts/book.sh)"
SCALINGLAWS_VENV=$VENV bash scripts/book.sh
(cd crates/scalinglaws-py/tests && SCALINGLAWS_BIN=$TARGET/release/scalinglaws \
    SCALINGLAWS_BOOK=$ROOT/target/book SCALINGLAWS_REQUIRE_BOOK=1 "$PY" -m pytest -q -rs)
# Run from outside the checkout so that the installed package, not the source folder, is checked.
(cd / && "$PY" -m mypy.stubtest scalinglaws._scalinglaws)
"$PY" -m mypy --strict crates/scalinglaws-py/python/scalinglaws
"$PY" examples/python/quickstart.py >/dev/null
# Fuzzing, after the tests: every input parser for 10 s each (60 s in all), failing on any
# panic, hang or runaway allocation (scripts/fuzz.sh; a time-bounded search from the committed
# corpora, so how many inputs it tries depends on the machine; the crashes it has found are
# replayed as tests by the fuzz crate).
echo "fuzzing every input parser for 10 s each (scripts/fuzz.sh)"
SCALINGLAWS_FUZZ_BIN=$TARGET/release/scalinglaws-fuzz bash scripts/fuzz.sh 10
skips
echo "all tests passed (Rust and Python)"
