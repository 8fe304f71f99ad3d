"""sl.select: the same selection as `scalinglaws select --json` on the bundled Chinchilla data."""

import json
import os
import subprocess
from pathlib import Path

import pytest

import scalinglaws as sl
from conftest import undeclared

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "examples" / "chinchilla" / "chinchilla_epoch.csv"
RECIPE = dict(
    target="loss",
    map={"N": "Model Size", "C": "Training FLOP"},
    derive={"D": "C/(6*N)"},
    where="loss < 3.44",
)


def test_select_matches_the_command_line() -> None:
    result = sl.select(
        DATA,
        laws=["chinchilla"],
        formulas=["A*N^-alpha + B*D^-beta"],
        at={"N": [7e10, 1e12], "D": [1.4e12, 2e13]},
        **RECIPE,
    )
    assert isinstance(result, sl.SelectionResult) and not undeclared(result)
    selection = result.selection
    assert [c.label for c in selection.candidates] == [
        "chinchilla",
        "A*N^-alpha + B*D^-beta",
    ]
    assert abs(sum(c.weight for c in selection.candidates) - 1) < 1e-9
    assert selection.winner in {c.label for c in selection.candidates} and result.check is None
    assert len(result.predictions) == 2
    for p in result.predictions:
        assert p.pi is not None
        low, high = p.pi
        assert low < p.value < high
        assert [law.label for law in p.laws] == [c.label for c in selection.candidates]
    table = result.to_frame()
    assert list(table["N"]) == [7e10, 1e12] and list(table["value"]) == [p.value for p in result.predictions]
    assert list(selection.to_frame()["weight"]) == [c.weight for c in selection.candidates]
    binary = os.environ.get("SCALINGLAWS_BIN")
    if not binary:
        pytest.skip("SCALINGLAWS_BIN is not set: no CLI to compare with")
    cli = subprocess.run(
        [
            binary, "select", str(DATA), "--target", "loss", "--map", "N=Model Size",
            "--map", "C=Training FLOP", "--derive", "D=C/(6*N)", "--where", "loss < 3.44",
            "--law", "chinchilla", "--formula", "A*N^-alpha + B*D^-beta",
            "--at", "N=7e10,1e12", "--at", "D=1.4e12,2e13", "--json", "-",
        ],
        check=True, capture_output=True, text=True,
    )
    expected = json.loads(cli.stdout)
    for ours, theirs in zip(selection.candidates, expected["selection"]["candidates"]):
        assert ours.score == pytest.approx(theirs["score"], rel=1e-12)
        assert ours.weight == pytest.approx(theirs["weight"], rel=1e-9, abs=1e-12)
    for ours, theirs in zip(result.predictions, expected["predictions"]):
        assert ours.value == pytest.approx(theirs["value"], rel=1e-12)
        assert ours.inputs == [tuple(pair) for pair in theirs["inputs"]]


def test_select_refuses_bad_settings() -> None:
    with pytest.raises(sl.SettingsError):
        sl.select(DATA, laws=3, **RECIPE)  # type: ignore[arg-type]
    with pytest.raises(sl.SettingsError, match="origins=1: give between 2 and 50"):
        sl.select(DATA, laws=["chinchilla"], origins=1, **RECIPE)
    with pytest.raises(sl.SettingsError, match="origins=51: give between 2 and 50"):
        sl.select(DATA, laws=["chinchilla"], origins=51, **RECIPE)
    with pytest.raises(sl.SettingsError):
        sl.select(DATA, **RECIPE)
    with pytest.raises(sl.SettingsError, match="at: 'Q' is a variable of none"):
        sl.select(DATA, laws=["chinchilla"], at={"Q": 1.0}, **RECIPE)
    # A selection draws nothing at random: no seed to give (it was once a keyword refused
    # unless 0).
    with pytest.raises(sl.SettingsError, match="seed=: select\\(\\) has no such keyword"):
        sl.select(DATA, laws=["chinchilla"], seed=1, **RECIPE)  # type: ignore[call-arg]


def test_select_refuses_text_for_numbers() -> None:
    with pytest.raises(sl.SettingsError, match="not a number|list of numbers"):
        sl.select(DATA, laws=["chinchilla"], at={"N": "7e10", "D": 1.4e12}, **RECIPE)
    with pytest.raises(sl.SettingsError):
        sl.select(DATA, laws=["chinchilla", "chinchilla"], **RECIPE)


def test_the_nested_check_is_typed() -> None:
    result = sl.select(DATA, laws=["chinchilla"], formulas=["A*N^-alpha + B*D^-beta"], origins=3, check=True, **RECIPE)
    assert result.check is not None and not undeclared(result) and result.predictions == []
    assert [c.label for c in result.check.candidates] == [c.label for c in result.selection.candidates]
    assert result.check.winner.label and result.check.splits
    assert all(abs(sum(s.weights.values()) - 1) < 1e-9 for s in result.check.splits if s.error is None)
