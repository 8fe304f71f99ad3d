"""Shared paths for the Python tests: the repository root, its examples, the published data in
testdata/, ../shared (unlicensed data, read in place; tests on it skip where it is absent), the
command-line binary the round-trip test compares with (built by the README's test command), and
the skip log: every skipped test's reason is appended to the file named by SCALINGLAWS_SKIP_LOG,
which scripts/test-all.sh prints at the end; and two checks of the typed results: that a result
declares every key of its document, and the command-line JSON to compare a result with."""

import dataclasses
import os
import pathlib
import subprocess
from typing import Any, List

import pytest

from scalinglaws import Result

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


def undeclared(result: Result, where: str = "") -> List[str]:
    """The keys of a result's document (and of every nested result's) that its class does not
    declare as a field: a typed result that mirrors the library's struct has none."""
    top = not where
    where = where or type(result).__name__
    declared = {type(result)._key.get(f.name, f.name) for f in dataclasses.fields(result) if f.init}
    # A document's own `kind` and `schema_version` (the library's `document` module) say what
    # it is, not what it holds: no result declares them.
    envelope = {"kind", "schema_version"} if top else set()
    missing = [f"{where}.{key}" for key in result.keys() if key not in declared | envelope]
    for item in dataclasses.fields(result):
        if item.init:
            missing += _undeclared_in(getattr(result, item.name), f"{where}.{item.name}")
    return missing


def _undeclared_in(value: Any, where: str) -> List[str]:
    if isinstance(value, Result):
        return undeclared(value, where)
    if isinstance(value, (list, tuple)):
        return [m for i, v in enumerate(value) for m in _undeclared_in(v, f"{where}[{i}]")]
    if isinstance(value, dict):
        return [m for k, v in value.items() for m in _undeclared_in(v, f"{where}[{k!r}]")]
    return []


def cli_json(cli: pathlib.Path, *args: str) -> Any:
    """What `scalinglaws ARGS --json -` writes, read."""
    import json

    command = [str(cli), *args, "--json", "-"]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
