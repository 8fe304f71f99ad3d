"""The generated Python face of the library's workflows (`scalinglaws._workflows`, written from
the workflows' JSON Schemas by `crates/scalinglaws/tests/integration/python_workflows.rs`): each
function gives the document the command writes, byte for byte once both are written as the
command writes JSON, prints the command's report, and refuses what the library refuses."""

import inspect
import json
import subprocess
from pathlib import Path

import pytest

import scalinglaws as sl
from conftest import EXAMPLE, ROOT

RECIPE = {
    "target": "loss",
    "map": {"N": "Model Size", "C": "Training FLOP"},
    "derive": {"D": "C/(6*N)"},
    "where": "loss < 3.44",
}
RECIPE_CLI = [
    "--target", "loss", "--map", "N=Model Size", "--map", "C=Training FLOP",
    "--derive", "D=C/(6*N)", "--where", "loss < 3.44",
]
DATA = str(EXAMPLE.relative_to(ROOT))


def test_sensitivity_writes_the_commands_document_and_prints_its_report(
    cli: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the document names the data as given
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "sensitivity", DATA, "--law", "chinchilla", *RECIPE_CLI, "--by", "C",
         "--at", "N=7e10", "--at", "D=1.4e12", "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.sensitivity(DATA, "chinchilla", by="C", at={"N": 7e10, "D": 1.4e12}, **RECIPE)
    assert isinstance(result, sl.SensitivityResult)
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert result.to_dict() == json.loads(written.read_text())
    assert str(result) == shown
    assert len(result.groups) >= 3 and all(isinstance(g, sl.DroppedGroup) for g in result.groups)
    assert result.max_change == pytest.approx(
        max(abs(g.change) for g in result.groups if g.change is not None)
    )


def test_keywords_are_the_specs_and_bad_ones_are_refused() -> None:
    keywords = inspect.signature(sl.sensitivity).parameters
    assert keywords["level"].default == sl._scalinglaws.DEFAULT_LEVEL
    assert keywords["by"].default is inspect.Parameter.empty  # required by the spec
    with pytest.raises(sl.SettingsError, match="at="):
        sl.sensitivity(EXAMPLE, "chinchilla", by="C", at=7e10, **RECIPE)  # type: ignore[arg-type]
    with pytest.raises(sl.SettingsError, match="did you mean 'D'"):
        sl.sensitivity(EXAMPLE, "chinchilla", by="C", at={"N": 7e10, "Dx": 1.4e12}, **RECIPE)
    with pytest.raises(sl.SettingsError, match="more than max_decades=1"):
        sl.sensitivity(EXAMPLE, "chinchilla", by="C", at={"N": 7e10, "D": 1.4e12},
                       max_decades=1, **RECIPE)
    with pytest.raises(sl.SettingsError, match="heteroscedastic="):
        sl.sensitivity(EXAMPLE, "chinchilla", by="C", at={"N": 7e10, "D": 1e12},
                       heteroscedastic="N", **RECIPE)


def test_a_thread_count_above_the_cap_warns_at_the_callers_line() -> None:
    with pytest.warns(RuntimeWarning) as caught:
        sl.sensitivity(EXAMPLE, "chinchilla", by="C", at={"N": 7e10, "D": 1.4e12},
                       threads=100_000, **RECIPE)
    assert caught[0].filename == __file__


def test_lr_writes_the_commands_document_and_words_its_filters_in_python(
    cli: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the document names the data as given
    sweep = "examples/lr/sweep.csv"
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "lr", sweep, "--lr", "peak_lr", "--size", "params", "--tokens", "tokens",
         "--target", "loss", "--where", "params > 2e7", "--predict", "N=7e9,D=1.4e11",
         "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss",
                   where="params > 2e7", predict=[(7e9, 1.4e11)])
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert result.data.rows_filtered > 0 and result.columns.lr == "peak_lr"
    # The one difference: each face words the filter as its user typed it.
    assert str(result) == shown.replace('--where "params > 2e7"', 'where="params > 2e7"')
    assert 'where="params > 2e7"' in str(result)
    with pytest.raises(sl.SettingsError, match="window=0"):
        sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss", window=0)
    with pytest.raises(sl.SettingsError, match="predict=: the target.s N = -1 is not a positive number"):
        sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss",
              predict=[(-1, 2)])


def test_downstream_writes_the_commands_document_and_names_targets_alike(
    cli: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    evals = "examples/downstream/pythia_zero_shot.csv"
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "downstream", evals, "--target", "accuracy", "--size", "params", "--tokens",
         "tokens", "--trials", "questions", "--chance", "chance", "--at", "N=3e10,D=3e11",
         "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.downstream(evals, target="accuracy", size="params", tokens="tokens",
                           trials="questions", chance="chance", at=[{"N": 3e10, "D": 3e11}])
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert str(result) == shown
    # A target without a name is named by the library, the same from either face.
    assert {f.model for f in result.forecasts} == {"N=3e10 D=3e11"}
    with pytest.raises(sl.SettingsError, match="own_until="):
        sl.downstream(evals, target="accuracy", size="params", tokens="tokens",
                      holdout="pythia-12b", own_until=-1.0)


def test_backtest_writes_the_commands_document_and_checks_the_holdout_once(
    cli: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "backtest", DATA, "--law", "chinchilla", *RECIPE_CLI, "--by", "C",
         "--rollout", "--steps", "3", "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.backtest(DATA, "chinchilla", by="C", rollout=3, **RECIPE)
    assert isinstance(result, sl.Backtest) and result.scheme == "rollout"
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert str(result) == shown
    assert len(result.to_frame()) == sum(len(s.points) for s in result.splits)
    # The holdout's rules are the library's, worded for Python (a 0 was once an index panic).
    with pytest.raises(sl.SettingsError, match="holdout_top=0: hold out at least 1 scale"):
        sl.backtest(DATA, "chinchilla", by="C", holdout_top=0, **RECIPE)
    with pytest.raises(sl.SettingsError, match="holdout_frac=-0.5: give a fraction"):
        sl.backtest(DATA, "chinchilla", by="C", holdout_frac=-0.5, **RECIPE)
    with pytest.raises(sl.SettingsError, match="rollout=1: give at least 2 groups"):
        sl.backtest(DATA, "chinchilla", by="C", rollout=1, **RECIPE)
    with pytest.raises(sl.SettingsError, match="exactly one of holdout_top="):
        sl.backtest(DATA, "chinchilla", by="C", **RECIPE)


def test_isoflop_writes_the_commands_document_and_holds_its_defaults_once(
    cli: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    data = "testdata/porian2024/isoflop_points.csv"
    keys = ["dataset", "hparams", "warmup", "decay", "param_count", "val"]
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "isoflop", data, "--compute", "flops", "--size", "n", "--target", "loss",
         "--tokens", "t", *[a for k in keys for a in ("--group", k)], "--backtest", "2",
         "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.isoflop(data, compute="flops", size="n", target="loss", tokens="t", group=keys,
                        backtest=2)
    assert isinstance(result, sl.IsoflopAnalysis)
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert str(result) == shown
    group = result.groups[0]
    # A backtest without bootstrap= draws the library's default replicates, from either face.
    assert isinstance(group, sl.IsoflopBacktestGroup) and group.training.bootstrap == 1000
    assert len(group.to_frame()) == len(group.held_out) == 2
    assert len(result.to_frame()) == 15
    # A tagged choice of classes is named as before, as a Union of the generated classes.
    assert sl.IsoflopGroupResult.__args__ == (sl.IsoflopGroup, sl.IsoflopBacktestGroup, sl.EnvelopeGroup)
    assert sl.IsoflopCandidate.__args__ == (sl.ProfilesCandidate, sl.JointCandidate)
    # Without predictions, none.
    plain = sl.isoflop(data, compute="flops", size="n", target="loss", group=keys)
    assert isinstance(plain.groups[0], sl.IsoflopGroup) and plain.groups[0].bootstrap == 0
    # The rules between keywords are the library's, worded for Python.
    with pytest.raises(sl.SettingsError, match="calibrate=False acts on predictions"):
        sl.isoflop(data, compute="flops", size="n", target="loss", calibrate=False)
    with pytest.raises(sl.SettingsError, match="budget= predicts from per-budget profiles; drop envelope="):
        sl.isoflop(data, compute="flops", size="n", target="loss", envelope="hull", budget=1e22)
    with pytest.raises(sl.SettingsError, match="tolerance=1.5: give a relative tolerance"):
        sl.isoflop(data, compute="flops", size="n", target="loss", tolerance=1.5)
    with pytest.raises(sl.SettingsError, match="sweep is not run per group yet"):
        sl.isoflop(data, compute="flops", size="n", target="loss", group="dataset", sweep="t")


def test_select_writes_the_commands_document_and_reads_at_in_order(cli: Path, tmp_path: Path) -> None:
    laws = ["--law", "chinchilla", "--formula", "A*N^-alpha + B*D^-beta"]
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "select", str(EXAMPLE), *RECIPE_CLI, *laws, "--at", "N=7e10,1e12",
         "--at", "D=1.4e12", "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.select(EXAMPLE, "chinchilla", "A*N^-alpha + B*D^-beta",
                       at={"N": [7e10, 1e12], "D": 1.4e12}, **RECIPE)
    assert isinstance(result, sl.SelectionResult)
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert str(result) == shown
    # One value is every point's; the points keep the order of at=.
    assert [p.inputs for p in result.predictions] == [[("N", 7e10), ("D", 1.4e12)],
                                                      [("N", 1e12), ("D", 1.4e12)]]
    assert isinstance(result.predictions[0], sl.SelectedPrediction)
    assert list(result.to_frame().columns[:2]) == ["N", "D"]
    candidates = result.selection.to_frame()
    assert list(candidates["label"]) == ["chinchilla", "A*N^-alpha + B*D^-beta"]
    # The scores lead, as they did before the class was generated (its fields are sorted).
    assert list(candidates.columns[:5]) == ["label", "formula", "free_params", "score", "rmse"]
    # The rules between keywords are the library's, checked before the data are read.
    with pytest.raises(sl.SettingsError, match="level=1.5"):
        sl.select(EXAMPLE, "chinchilla", level=1.5, **RECIPE)
    with pytest.raises(sl.SettingsError, match="lists of values must have the same length"):
        sl.select(EXAMPLE, "chinchilla", at={"N": [1e9, 1e10], "D": [1e10, 1e11, 1e12]}, **RECIPE)


def test_compare_writes_the_commands_document_and_checks_before_reading(
    cli: Path, tmp_path: Path
) -> None:
    tracks = ROOT / "examples" / "tracks" / "two_recipes.csv"
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "compare", str(tracks), "--law", "chinchilla", "--target", "loss",
         "--track", "recipe", "--shared", "E,alpha,beta", "--budget", "1e20,1e21",
         "--bootstrap", "20", "--set", "U=1", "--json", str(written)],
        capture_output=True, text=True,
    )
    # chinchilla reads no U: refused by the library, in each face's words.
    assert shown.returncode == 2 and "--set U: not one of the law" in shown.stderr, shown.stderr
    with pytest.raises(sl.SettingsError, match=r"set\["):
        sl.compare(tracks, "chinchilla", target="loss", track="recipe", set={"U": 1.0})
    shown = subprocess.run(
        [str(cli), "compare", str(tracks), "--law", "chinchilla", "--target", "loss",
         "--track", "recipe", "--shared", "E,alpha,beta", "--budget", "1e20,1e21",
         "--bootstrap", "20", "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.compare(tracks, "chinchilla", target="loss", track="recipe",
                        shared=["E", "alpha", "beta"], budget=[1e20, 1e21], bootstrap=20)
    assert isinstance(result, sl.TrackComparison) and result.track == "recipe"
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert str(result) == shown
    assert isinstance(result.tracks[0].allocations[0], sl.Allocation)
    assert len(result.to_frame()) == 2
    # A document saved before it named its track column still reads.
    older = result.to_dict()
    del older["track"]
    assert sl.TrackComparison.from_dict(older).track is None
    # The rules between keywords are the library's, checked before the data are read.
    missing = tmp_path / "absent.csv"
    with pytest.raises(sl.SettingsError, match="by=.*calibrate=False"):
        sl.compare(missing, "chinchilla", target="loss", track="recipe", calibrate=False, by="C")
    with pytest.raises(sl.SettingsError, match="cell_tolerance=2"):
        sl.compare(missing, "chinchilla", target="loss", track="recipe", cell_tolerance=2.0)
    with pytest.raises(sl.SettingsError, match="shared: a name is empty"):
        sl.compare(missing, "chinchilla", target="loss", track="recipe", shared=["E", ""])
    with pytest.raises(sl.SettingsError, match="family="):
        sl.compare(missing, "chinchilla", target="loss", track="recipe", family="poisson")  # type: ignore[call-arg]


def test_design_writes_the_commands_document_with_runs_or_before_any(
    cli: Path, tmp_path: Path
) -> None:
    grid = "N=1e8..1e11,D=1e9..1e13"
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "design", str(EXAMPLE), *RECIPE_CLI, "--law", "chinchilla", "--goal",
         "optimal_loss@1e23", "--candidates", grid, "--spend", "1e21", "--runs", "4",
         "--draws", "8", "--simulations", "10", "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.design(EXAMPLE, "chinchilla", goal="optimal_loss@1e23", candidates=grid,
                       spend=1e21, runs=4, draws=8, simulations=10, **RECIPE)
    assert isinstance(result, sl.DesignAnalysis) and isinstance(result.runs[0], sl.PlannedRun)
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert str(result) == shown
    assert result.variables == ["N", "D"] and result.fitted_runs is not None
    assert list(result.to_frame().columns[:3]) == ["N", "D", "cost"]
    # Before any run: no data, a prior; the document says so.
    prior = {"E": 1.82, "A": 482.0, "alpha": (0.2, 0.5), "B": 2085.0, "beta": 0.37}
    before = sl.design(law="chinchilla", prior=prior, noise=0.01, goal="optimal_loss@1e23",
                       candidates=grid, runs=2, draws=4)
    assert before.data is None and before.fitted_runs is None and before.simulation is None
    # The rules between keywords are the library's, checked before the data are read.
    missing = tmp_path / "absent.csv"
    with pytest.raises(sl.SettingsError, match="^draws: 0 draws"):
        sl.design(missing, "chinchilla", goal="optimal_loss@1e23", candidates=grid, draws=0,
                  **RECIPE)
    with pytest.raises(sl.SettingsError, match="^noise: -1: give a positive sd"):
        sl.design(missing, "chinchilla", goal="optimal_loss@1e23", candidates=grid, noise=-1.0,
                  **RECIPE)


def test_plot_tracks_draws_the_commands_picture(cli: Path, tmp_path: Path) -> None:
    tracks = ROOT / "examples" / "tracks" / "two_recipes.csv"
    drawn = subprocess.run(
        [str(cli), "plot", "tracks", str(tracks), "--law", "chinchilla", "--target", "loss",
         "--track", "recipe", "--shared", "E,alpha,beta", "--budget", "1e20,1e22", "-o", "-"],
        check=True, capture_output=True, text=True,
    ).stdout
    keywords = dict(law="chinchilla", target="loss", track="recipe",
                    shared=["E", "alpha", "beta"], budget=[1e20, 1e22])
    plot = sl.plot_tracks(tracks, **keywords)
    assert isinstance(plot, sl.Plot) and plot.svg == drawn
    assert "new vs baseline: baseline needs 2.00× the compute at 1e22" in plot.svg
    assert plot.save(tmp_path / "tracks.png") == str(tmp_path / "tracks.png")
    assert (tmp_path / "tracks.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    written = sl.plot_tracks(tracks, tmp_path / "tracks.svg", **keywords)
    assert written == str(tmp_path / "tracks.svg")
    assert (tmp_path / "tracks.svg").read_text(encoding="utf-8") == drawn
    # compare's rules, the library's, before the data are read; and its keywords only.
    missing = tmp_path / "absent.csv"
    with pytest.raises(sl.SettingsError, match="cell_tolerance=2"):
        sl.plot_tracks(missing, law="chinchilla", target="loss", track="recipe",
                       cell_tolerance=2.0)
    with pytest.raises(sl.SettingsError, match=r"bins=: compare\(\) has no such keyword"):
        sl.plot_tracks(missing, law="chinchilla", target="loss", track="recipe", bins=3)
    with pytest.raises(sl.SettingsError, match=r"\.svg or \.png"):
        sl.plot_tracks(missing, tmp_path / "tracks.pdf", **keywords)


def test_plot_isoflop_draws_the_commands_picture(cli: Path, tmp_path: Path) -> None:
    points = ROOT / "testdata" / "porian2024" / "isoflop_points.csv"
    select = {"dataset": "rw", "hparams": "tuned", "warmup": "short", "decay": "const",
              "param_count": "standard", "val": "val"}
    chosen = [arg for column, label in select.items() for arg in ("--select", f"{column}={label}")]
    drawn = subprocess.run(
        [str(cli), "plot", "isoflop", str(points), "--compute", "flops", "--size", "n",
         "--target", "loss", *chosen, "--bootstrap", "30", "--seed", "2", "--level", "0.8",
         "-o", "-"],
        check=True, capture_output=True, text=True,
    ).stdout
    keywords = dict(compute="flops", size="n", target="loss", select=select)
    plot = sl.plot_isoflop(points, bootstrap=30, seed=2, level=0.8, **keywords)
    assert isinstance(plot, sl.Plot) and plot.svg == drawn
    assert "minima: N* ∝ C^0.4" in plot.svg
    written = sl.plot_isoflop(points, tmp_path / "isoflop.png", **keywords)
    assert (tmp_path / "isoflop.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert written == str(tmp_path / "isoflop.png")
    # The defaults are the command's.
    plain = subprocess.run(
        [str(cli), "plot", "isoflop", str(points), "--compute", "flops", "--size", "n",
         "--target", "loss", *chosen, "-o", "-"],
        check=True, capture_output=True, text=True,
    ).stdout
    assert sl.plot_isoflop(points, **keywords).svg == plain
    # The refusals are the library's, in Python's words.
    with pytest.raises(sl.SettingsError, match="^select: no run matches every selection"):
        sl.plot_isoflop(points, compute="flops", size="n", target="loss",
                        select={"dataset": "xx"})
    with pytest.raises(sl.SettingsError, match="shape"):
        sl.plot_isoflop(points, shape="quartic", **keywords)
    with pytest.raises(sl.SettingsError, match="^tolerance=2: give a relative tolerance"):
        sl.plot_isoflop(tmp_path / "absent.csv", tolerance=2.0, **keywords)
    with pytest.raises(sl.SettingsError, match="^bootstrap="):
        sl.plot_isoflop(points, bootstrap=-1, **keywords)
    with pytest.raises(sl.SettingsError, match=r"\.svg or \.png"):
        sl.plot_isoflop(points, tmp_path / "isoflop.pdf", **keywords)


def test_predict_writes_the_commands_document_and_agrees_with_fit_predict(
    cli: Path, tmp_path: Path
) -> None:
    fit = sl.fit(EXAMPLE, law="chinchilla", bootstrap=20, seed=3, **RECIPE)
    saved = tmp_path / "fit.json"
    saved.write_text(fit.to_json())
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "predict", str(saved), "N=7e10,1e12", "D=1.4e12", "--level", "0.9",
         "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.predict(fit, at={"N": [7e10, 1e12], "D": 1.4e12}, level=0.9)
    assert isinstance(result, sl.Predictions) and result.variables == ["N", "D"]
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    table = subprocess.run(
        [str(cli), "predict", str(saved), "N=7e10,1e12", "D=1.4e12", "--level", "0.9"],
        check=True, capture_output=True, text=True,
    ).stdout
    assert str(result) == table == shown  # the table prints beside a JSON file
    # The document's values are the array path's, point by point.
    arrays = fit.predict(N=[7e10, 1e12], D=1.4e12, interval="prediction", level=0.9)
    frame = result.to_frame()
    assert list(frame.columns[:3]) == ["N", "D", "value"]
    assert list(frame["value"]) == pytest.approx(list(arrays.value), rel=1e-12)
    assert list(frame["pi_low"]) == pytest.approx(list(arrays.lower), rel=1e-12)
    # The rules are the library's: the level before the fit is read, the points against its law.
    with pytest.raises(sl.SettingsError, match="level"):
        sl.predict(fit, at={"N": 7e10, "D": 1.4e12}, level=1.5)
    with pytest.raises(sl.SettingsError, match="did you mean 'D'"):
        sl.predict(fit, at={"N": 7e10, "DD": 1.4e12})
    with pytest.raises(sl.SettingsError, match='interval="mean": give "confidence"'):
        fit.predict(N=7e10, D=1.4e12, interval="mean")
    # An empty list makes no points, in a frame with every column.
    empty = sl.predict(fit, at={"N": [], "D": 1.4e12})
    assert empty.predictions == [] and list(empty.to_frame().columns) == list(frame.columns[:12])


def test_optimal_writes_the_commands_document_from_a_fit_or_a_law(
    cli: Path, tmp_path: Path
) -> None:
    fit = sl.fit(EXAMPLE, law="chinchilla", **RECIPE)
    saved = tmp_path / "fit.json"
    saved.write_text(fit.to_json())
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "optimal", str(saved), "--budget", "1e22,1e24", "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result = sl.optimal(fit, budget=[1e22, 1e24])
    assert isinstance(result, sl.Frontier) and result.parameters == "fitted"
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    # The same report, each face wording the setting it names.
    assert str(result) == shown.replace("--bootstrap K", "bootstrap=K")
    assert list(result.to_frame().columns[:3]) == ["budget", "N", "D"]
    # A catalog law with its published parameters instead of a fit.
    epoch = {"E": 1.81686, "A": 482.00572, "alpha": 0.34781, "B": 2085.4342, "beta": 0.36585}
    given = sl.optimal(law="chinchilla", params=epoch, budget=1e23)
    assert given.parameters == "given" and given.law == "chinchilla (given parameters)"
    # The rules are the library's: a fit and a law, a law without its parameters.
    with pytest.raises(sl.SettingsError, match="not both"):
        sl.optimal(fit, law="chinchilla", params=epoch, budget=1e23)
    with pytest.raises(sl.SettingsError, match="needs every parameter"):
        sl.optimal(law="chinchilla", budget=1e23)
    with pytest.raises(sl.SettingsError, match="one of the two"):
        sl.optimal(fit, budget=1e23, target_loss=2.0)


def test_a_workflows_errors_keep_their_kind_and_name_their_keyword() -> None:
    sweep = "examples/lr/sweep.csv"
    columns = dict(lr="peak_lr", size="params", tokens="tokens", target="loss")
    # A count (a usize in the spec) below 0 is refused by its annotation, naming it.
    with pytest.raises(sl.SettingsError, match=r"window=: give a whole number ≥ 0, not -1"):
        sl.lr(ROOT / sweep, **columns, window=-1)
    # The recipe is parsed by the library after the request is read: a formula error stays one.
    with pytest.raises(sl.FormulaError, match="where"):
        sl.lr(ROOT / sweep, **columns, where="loss <")
    with pytest.raises(sl.FormulaError, match="where"):
        sl.qc(ROOT / sweep, target="loss", where="loss <")
    evals = ROOT / "examples" / "downstream" / "pythia_zero_shot.csv"
    pythia = dict(target="accuracy", size="params", tokens="tokens")
    with pytest.raises(sl.SettingsError, match=r"at= \(the N and D of a new model\), or holdout="):
        sl.downstream(evals, **pythia)
    with pytest.raises(sl.SettingsError, match=r"at=: the target's N = -1 is not a positive number"):
        sl.downstream(evals, **pythia, at=[{"N": -1, "D": 3e11}])
    named = sl.downstream(evals, **pythia, at=[{"N": 3e10, "D": 3e11, "model": " "}])
    assert {f.model for f in named.forecasts} == {"N=3e10 D=3e11"}


def test_the_native_entry_refuses_a_key_that_names_no_setting() -> None:
    from scalinglaws._data import call_with_data

    request = {"target": "loss", "law": "chinchilla", "by": "C", "holdout_top": 1,
               "profiles": ["E"]}
    with pytest.raises(sl.SettingsError, match="'profiles' is not a setting of backtest"):
        call_with_data(sl._scalinglaws.run_workflow, EXAMPLE, None, "backtest",
                       json.dumps(request))
