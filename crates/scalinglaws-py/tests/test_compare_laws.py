"""sl.compare_laws: the same comparison as `scalinglaws compare-laws --json` on the bundled
Chinchilla data, document for document, and Hoffmann et al.'s published parameters tested
against the refitted law as Epoch AI test them."""

import json
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
PUBLISHED = {"E": 1.69, "A": 406.4, "B": 410.7, "alpha": 0.3392, "beta": 0.2849}


def test_compare_laws_is_the_documents_the_command_line_writes(
    cli: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = sl.compare_laws(DATA, laws=["chinchilla"], formulas=["E + A*N^-alpha"], by="C",
                             **RECIPE)
    assert isinstance(result, sl.LawComparison) and not undeclared(result)
    assert [law.label for law in result.laws] == ["chinchilla", "E + A*N^-alpha"]
    assert all(law.backtest is not None for law in result.laws)
    [test] = result.tests
    assert (test.restricted, test.general) == ("E + A*N^-alpha", "chinchilla")
    assert list(result.to_frame()["label"]) == ["chinchilla", "E + A*N^-alpha"]
    assert str(result).startswith("[[")
    done = subprocess.run(
        [
            str(cli), "compare-laws", str(DATA), "--target", "loss", "--map", "N=Model Size",
            "--map", "C=Training FLOP", "--derive", "D=C/(6*N)", "--where", "loss < 3.44",
            "--law", "chinchilla", "--formula", "E + A*N^-alpha", "--by", "C", "--json", "-",
        ],
        check=True, capture_output=True, text=True,
    )
    assert result.to_dict() == json.loads(done.stdout)
    # Byte for byte, and the same report (the document names the data as given).
    monkeypatch.chdir(ROOT)
    written = tmp_path / "cli.json"
    data = str(DATA.relative_to(ROOT))
    shown = subprocess.run(
        [
            str(cli), "compare-laws", data, "--target", "loss", "--map", "N=Model Size",
            "--map", "C=Training FLOP", "--derive", "D=C/(6*N)", "--where", "loss < 3.44",
            "--law", "chinchilla", "--formula", "E + A*N^-alpha", "--by", "C",
            "--json", str(written),
        ],
        check=True, capture_output=True, text=True,
    ).stdout
    again = sl.compare_laws(data, "chinchilla", "E + A*N^-alpha", by="C", **RECIPE)
    again.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert str(again) == shown


def test_published_parameters_are_rejected_against_the_refitted_law() -> None:
    result = sl.compare_laws(DATA, laws={"refit": "chinchilla", "published": "chinchilla"},
                             fix={"published": PUBLISHED}, **RECIPE)
    [test] = result.tests
    assert (test.restricted, test.general, test.df) == ("published", "refit", 5)
    assert test.p_value < 1e-10
    published = result.laws[1]
    assert published.free_params == 0 and published.params["alpha"] == pytest.approx(0.3392)


def test_compare_laws_refuses_what_it_cannot_do() -> None:
    with pytest.raises(sl.SettingsError, match="fix"):
        sl.compare_laws(DATA, laws=["chinchilla", "overtraining"], fix={"nope": {"E": 1.0}},
                        **RECIPE)
    with pytest.raises(sl.SettingsError, match="holdout_frac"):
        sl.compare_laws(DATA, laws=["chinchilla", "overtraining"], by="C", holdout_frac=1.5,
                        **RECIPE)
    # A fraction without a backtest to hold out for was once accepted and unused.
    with pytest.raises(sl.SettingsError, match=r"holdout_frac=0.3 sets the backtest's held-out rows, and there is no backtest: give by="):
        sl.compare_laws(DATA, laws=["chinchilla", "overtraining"], holdout_frac=0.3, **RECIPE)
    # One label twice (a `fix` by label would be ambiguous) is refused before any fit.
    with pytest.raises(sl.SettingsError, match="'chinchilla' is a candidate twice"):
        sl.compare_laws(DATA, laws=["chinchilla", "chinchilla"], **RECIPE)
    with pytest.raises(sl.SettingsError, match="'chinchilla' is a candidate twice"):
        sl.select(DATA, laws=["chinchilla", "chinchilla"], **RECIPE)
    # The library's rule, worded with Python's keywords (it once held Python syntax itself).
    with pytest.raises(sl.SettingsError, match="at least two laws: give them by laws= or formulas="):
        sl.compare_laws(DATA, laws=["chinchilla"], **RECIPE)
    with pytest.raises(sl.SettingsError, match="select needs candidate laws: give them by laws="):
        sl.select(DATA, **RECIPE)
