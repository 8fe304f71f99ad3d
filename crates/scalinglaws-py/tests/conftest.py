"""Shared paths for the Python tests: the repository root, its examples, the published data in
testdata/, ../shared (unlicensed data, read in place; tests on it skip where it is absent), the
command-line binary the round-trip test compares with (built by the README's test command), and
the skip log: every skipped test's reason is appended to the file named by SCALINGLAWS_SKIP_LOG,
which scripts/test-all.sh prints at the end."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "chinchilla" / "chinchilla_epoch.csv"
TRACKS = ROOT / "examples" / "tracks" / "two_recipes.csv"
TESTDATA = ROOT / "testdata"
SHARED = ROOT.parent / "shared" / "data"


def shared(path: str, what: str = "the test") -> pathlib.Path:
    """../shared/data/<path> beside the checkout; where it is absent, the test skips, naming it."""
    full = SHARED / path
    if not full.exists():
        pytest.skip(f"{what} skipped: {full} is absent (unlicensed data, kept beside the checkout, never in it)")
    return full


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Append `python::test: reason` to $SCALINGLAWS_SKIP_LOG for every skipped test."""
    log = os.environ.get("SCALINGLAWS_SKIP_LOG")
    if not (log and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    reason = reason.removeprefix("Skipped: ")
    with open(log, "a", encoding="utf-8") as file:
        file.write(f"python::{report.nodeid}: {reason}\n")

# Epoch AI's protocol on Hoffmann et al.'s runs, as in the README.
PROTOCOL = dict(
    law="chinchilla",
    target="loss",
    map={"N": "Model Size", "C": "Training FLOP"},
    derive={"D": "C/(6*N)"},
    where="loss < 3.44",
)


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The scalinglaws binary: $SCALINGLAWS_BIN, else target/release, else target/debug."""
    candidates = [os.environ.get("SCALINGLAWS_BIN")] + [
        str(ROOT / "target" / profile / "scalinglaws") for profile in ("release", "debug")
    ]
    for candidate in candidates:
        if candidate and pathlib.Path(candidate).is_file():
            return pathlib.Path(candidate)
    raise RuntimeError(
        "no scalinglaws binary: run `cargo build --release -p scalinglaws-cli` first "
        "(the README's test command does)"
    )
