"""Shared paths for the Python tests: the repository root, its examples, ../shared, and the
command-line binary the round-trip test compares with (built by the README's test command)."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "chinchilla" / "chinchilla_epoch.csv"
TRACKS = ROOT / "examples" / "tracks" / "two_recipes.csv"
SHARED = ROOT.parent / "shared" / "data"

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
