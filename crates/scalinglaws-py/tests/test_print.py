"""print(result): every analysis prints the text report its command prints (the report crate's
text, written when the analysis runs, worded for Python), shows it in a notebook, and keeps
its short repr; the document (to_dict, saved JSON) is unchanged. Each report is compared with
the command's on the same data and settings: the same text, but for the options it mentions,
which read as keywords (``bootstrap=K``, ``max_params=``, ``where="..."``)."""

import json
import re
import subprocess
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pandas as pd
import pytest

import scalinglaws as sl
from scalinglaws._errors import speak_python
from conftest import EXAMPLE, PROTOCOL, ROOT, TRACKS

EPOCH = {"E": 1.81686, "A": 482.00572, "alpha": 0.34781, "B": 2085.43420, "beta": 0.36585}
EPOCH_CLI = "chinchilla[E=1.81686,A=482.00572,alpha=0.34781,B=2085.4342,beta=0.36585]"
RUNS = ROOT / "examples" / "isoflop" / "runs.csv"
SWEEP = ROOT / "examples" / "lr" / "sweep.csv"
PYTHIA = ROOT / "examples" / "downstream" / "pythia_zero_shot.csv"
SCHEDULES = ROOT / "examples" / "schedule" / "runs_400m.csv"
RECIPE_CLI = [
    "--target", "loss", "--map", "N=Model Size", "--map", "C=Training FLOP",
    "--derive", "D=C/(6*N)", "--where", "loss < 3.44",
]
# An option as the command line spells it (never in a report printed in Python).
OPTION = re.compile(r"(?<![\w-])--[a-z]")
# A table row: indented, with at least three numbers among its cells.
NUMBER = re.compile(r"^[-+]?[0-9][0-9.]*(e[-+]?[0-9]+)?%?$")


def printed(cli: Path, *args: str) -> str:
    """What the command prints for ARGS."""
    return subprocess.run([str(cli), *args], check=True, capture_output=True, text=True).stdout


def rows(text: str) -> List[str]:
    """The lines of a report's tables (indented, three numbers or more)."""
    return [
        line for line in text.splitlines()
        if line.startswith("    ") and sum(bool(NUMBER.match(cell)) for cell in line.split()) >= 3
    ]


def assert_prints_as(result: sl.Result, command: str, header: str) -> None:
    """``str(result)`` is the command's report: the same header and tables, exactly the same
    text where it mentions no option, else the same words but for the options, which read as
    Python's keywords (columns may then align differently)."""
    ours = str(result)
    assert ours.startswith(header) and command.startswith(header), (ours[:200], command[:200])
    assert rows(ours), ours
    assert not OPTION.search(ours), ours
    if not OPTION.search(command):
        assert ours == command
        return
    squeeze = lambda text: ["".join(line.split()) for line in text.splitlines()]  # noqa: E731
    assert squeeze(ours) == squeeze(speak_python(command))
    assert ours != command


def test_optimal_of_given_parameters_prints_its_table(cli: Path) -> None:
    frontier = sl.optimal(law="chinchilla", params=EPOCH, budget=[1e22, 1e24], max_params=5e10)
    command = printed(cli, "optimal", "--law", EPOCH_CLI, "--budget", "1e22,1e24", "--max-params", "5e10")
    assert_prints_as(frontier, command, "[[Compute-optimal allocation]] chinchilla (given parameters)")
    assert "total at max_params=" in str(frontier) and "total at --max-params" in command


def test_optimal_of_a_fit_says_how_to_get_intervals_in_python_words(cli: Path, tmp_path: Path) -> None:
    fitted = sl.fit(EXAMPLE, **PROTOCOL)
    saved = tmp_path / "fit.json"
    fitted.save(saved)
    frontier = sl.optimal(fitted, budget=[1e22, 1e23])
    command = printed(cli, "optimal", str(saved), "--budget", "1e22,1e23")
    assert_prints_as(frontier, command, "[[Compute-optimal allocation]] chinchilla")
    assert "(fit with bootstrap=K)" in str(frontier) and "(fit with --bootstrap K)" in command


def test_isoflop_prints_the_budgets_table(cli: Path) -> None:
    result = sl.isoflop(RUNS, compute="C", size="N", target="loss")
    command = printed(cli, "isoflop", str(RUNS), "--compute", "C", "--size", "N", "--target", "loss")
    assert_prints_as(result, command, "[[IsoFLOP]] 8 budgets of 'C'")


def test_lr_prints_its_cells_and_names_filters_as_keywords(cli: Path) -> None:
    result = sl.lr(SWEEP, lr="peak_lr", size="params", tokens="tokens", target="loss", where="params > 2e7")
    command = printed(
        cli, "lr", str(SWEEP), "--lr", "peak_lr", "--size", "params", "--tokens", "tokens",
        "--target", "loss", "--where", "params > 2e7",
    )
    assert_prints_as(result, command, "[[Learning rate]]")
    assert 'where="params > 2e7"' in str(result) and "[[Cells]]" in str(result)
    page = result._repr_html_()
    assert page is not None and "where=&quot;params &gt; 2e7&quot;" in page


def test_compare_prints_the_tracks(cli: Path) -> None:
    result = sl.compare(TRACKS, law="chinchilla", target="loss", track="recipe", budget=1e21)
    command = printed(
        cli, "compare", str(TRACKS), "--law", "chinchilla", "--target", "loss", "--track", "recipe",
        "--budget", "1e21",
    )
    assert_prints_as(result, command, "[[Tracks]] chinchilla law, 2 tracks of 'recipe'")
    assert "add bootstrap=K (parameters show their standard errors in to_dict())" in str(result)


def test_backtest_prints_the_held_out_runs(cli: Path) -> None:
    result = sl.backtest(EXAMPLE, by="C", holdout_frac=0.2, **PROTOCOL)
    command = printed(
        cli, "backtest", str(EXAMPLE), "--law", "chinchilla", *RECIPE_CLI, "--by", "C",
        "--holdout-frac", "0.2",
    )
    assert_prints_as(result, command, "[[Backtest]]\n    law        chinchilla")


def test_select_prints_the_laws_and_predictions(cli: Path) -> None:
    recipe = {k: v for k, v in PROTOCOL.items() if k != "law"}
    result = sl.select(EXAMPLE, laws=["chinchilla"], formulas=["A*N^-alpha + B*D^-beta"],
                       at={"N": 7e10, "D": 1.4e12}, **recipe)
    command = printed(
        cli, "select", str(EXAMPLE), "--law", "chinchilla", "--formula", "A*N^-alpha + B*D^-beta",
        *RECIPE_CLI, "--at", "N=7e10", "--at", "D=1.4e12",
    )
    assert_prints_as(result, command, "[[Laws]] (240 rows;")
    assert "[[Predictions]]" in str(result)


def test_downstream_prints_the_tasks_and_forecasts(cli: Path, tmp_path: Path) -> None:
    # Five tasks of the Pythia evaluations, to keep it quick.
    frame = pd.read_csv(PYTHIA)
    small = tmp_path / "pythia_five.csv"
    frame[frame["task"].isin(["arc_easy", "piqa", "sciq", "winogrande", "lambada_openai"])].to_csv(small, index=False)
    columns = dict(target="accuracy", size="params", tokens="tokens", trials="questions", chance="chance")
    result = sl.downstream(small, holdout=["pythia-12b"], **columns)
    command = printed(
        cli, "downstream", str(small), "--target", "accuracy", "--size", "params", "--tokens", "tokens",
        "--trials", "questions", "--chance", "chance", "--holdout", "pythia-12b",
    )
    assert_prints_as(result, command, "[[Downstream accuracy]]")
    assert "[[Forecasts]]" in str(result)


def test_design_prints_the_runs_to_launch(cli: Path) -> None:
    prior = {**EPOCH, "alpha": (0.2, 0.5)}
    grid = "N=1e7..1e10,D=1e8..1e12"
    result = sl.design(law="chinchilla", prior=prior, noise=0.01, goal="tokens_per_param@1e23",
                       candidates=grid, spend=1e20, runs=4, draws=8)
    command = printed(
        cli, "design", "--law", "chinchilla", "--prior",
        "E=1.81686,A=482.00572,alpha=0.2..0.5,B=2085.4342,beta=0.36585", "--noise", "0.01",
        "--goal", "tokens_per_param@1e23", "--candidates", grid, "--spend", "1e20", "--runs", "4",
        "--draws", "8",
    )
    assert_prints_as(result, command, "[[Design]]")
    assert "[[Runs to launch]]" in str(result)


@pytest.fixture(scope="module")
def schedule_fit(cli: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, Any]]:
    """The multi-power law fitted to one cosine run, in Python and by the command (its report
    and its saved fit)."""
    saved = tmp_path_factory.mktemp("schedule") / "fit.json"
    fit = sl.schedule_fit(SCHEDULES, run="run", train=["cosine_24000"], warmup=2160)
    command = printed(
        cli, "schedule", "fit", str(SCHEDULES), "--run", "run", "--train", "cosine_24000",
        "--warmup", "2160", "--json", str(saved),
    )
    yield {"fit": fit, "command": command, "saved": str(saved)}


def test_schedule_fit_prints_its_parameters_and_runs(schedule_fit: Dict[str, Any]) -> None:
    assert_prints_as(schedule_fit["fit"], schedule_fit["command"], "[[Schedule fit]]")


def test_schedule_predict_and_optimize_print_their_curves(cli: Path, schedule_fit: Dict[str, Any]) -> None:
    fit, saved = schedule_fit["fit"], schedule_fit["saved"]
    prediction = sl.schedule_predict(fit, "cosine:final=3e-5", every=4000)
    command = printed(cli, "schedule", "predict", saved, "--schedule", "cosine:final=3e-5", "--every", "4000")
    assert_prints_as(prediction, command, "[[Schedule prediction]]")
    best = sl.schedule_optimize(fit, steps=24000, peak=3e-4, max_iterations=50)
    command = printed(
        cli, "schedule", "optimize", saved, "--steps", "24000", "--peak", "3e-4", "--max-iterations", "50",
    )
    assert_prints_as(best, command, "[[Optimised schedule]]")


def test_the_report_is_beside_the_document_not_in_it() -> None:
    frontier = sl.optimal(law="chinchilla", params=EPOCH, budget=[1e22, 1e24])
    document = frontier.to_dict()
    assert json.dumps(document).find("Compute-optimal") == -1
    # The short repr is kept; a notebook shows the report as it prints, escaped.
    assert repr(frontier).startswith("Frontier(allocations=[2 Allocation]") and "\n" not in repr(frontier)
    page = frontier._repr_html_()
    assert page is not None and page.startswith("<pre") and page.endswith("</pre>")
    assert "D*/N*" in page and "[[Compute-optimal allocation]]" in page
    # Read back from its document, a result has no report: it prints as its repr and shows
    # the repr in a notebook (no HTML); equal results are equal with or without one.
    again = sl.Frontier.from_dict(document)
    assert again == frontier and again.to_dict() == document
    assert str(again) == repr(again) == repr(frontier) and again._repr_html_() is None
    # The parts of a result have none either.
    assert str(frontier.allocations[0]) == repr(frontier.allocations[0])


def test_isoflop_predictions_name_the_keyword_that_turned_calibration_off(cli: Path) -> None:
    result = sl.isoflop(RUNS, compute="C", size="N", target="loss", budget=3.16e22, bootstrap=50, calibrate=False)
    command = printed(
        cli, "isoflop", str(RUNS), "--compute", "C", "--size", "N", "--target", "loss",
        "--budget", "3.16e22", "--bootstrap", "50", "--no-calibration",
    )
    assert_prints_as(result, command, "[[IsoFLOP]] 8 budgets of 'C'")
    assert "[[Predictions at new budgets]]" in str(result)
    assert "not calibrated beyond the data (calibrate=False)" in str(result)
    # The options that are no keyword read as what does it in Python.
    assert speak_python("all are in --json; --no-calibration") == "all are in to_dict(); calibrate=False"
