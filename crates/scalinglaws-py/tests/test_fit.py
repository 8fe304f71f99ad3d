"""The Python package against the command line and against bad input."""

import json
import math
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import scalinglaws as sl
from conftest import EXAMPLE, PROTOCOL, undeclared


@pytest.fixture(scope="module")
def chinchilla() -> pd.DataFrame:
    return pd.read_csv(EXAMPLE)


@pytest.fixture(scope="module")
def fitted(chinchilla: pd.DataFrame) -> sl.Fit:
    return sl.fit(chinchilla, **PROTOCOL)


def cli_fit(cli) -> dict:
    args = [
        str(cli), "fit", str(EXAMPLE), "--law", "chinchilla", "--target", "loss",
        "--map", "N=Model Size", "--map", "C=Training FLOP", "--derive", "D=C/(6*N)",
        "--where", "loss < 3.44", "--json", "-",
    ]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def test_the_fit_matches_the_command_line(cli, fitted: sl.Fit) -> None:
    reference = cli_fit(cli)
    assert math.isclose(fitted.objective, reference["objective"], rel_tol=1e-12)
    for name, value in fitted.params.items():
        assert math.isclose(value, reference["params"][name]["value"], rel_tol=1e-12), name
    # The same document, so fits move between Python and the CLI.
    assert fitted.to_dict()["params"] == reference["params"]
    from_path = sl.fit(EXAMPLE, **PROTOCOL)
    assert math.isclose(from_path.objective, reference["objective"], rel_tol=1e-12)


def test_fit_is_the_librarys_workflow(tmp_path) -> None:
    """`fit` is generated from the library's fit workflow: its keywords are the request's, its
    rules are checked before the data are read, and it returns the hand-written `Fit` with the
    data fitted beside the document (its picture of the data needs them)."""
    assert sl.fit is sl._workflows.fit
    absent = tmp_path / "absent.csv"
    with pytest.raises(sl.SettingsError, match="level"):
        sl.fit(absent, level=1.5, **PROTOCOL)
    with pytest.raises(sl.SettingsError, match="cluster= resamples whole runs"):
        sl.fit(absent, cluster="run", **PROTOCOL)
    with pytest.raises(sl.SettingsError, match="heteroscedastic="):
        sl.fit(absent, heteroscedastic="C", **PROTOCOL)
    # The hand-written function's conveniences hold: qc=None is the default, and a bound at
    # infinity is no bound on that side.
    plain = sl.fit(EXAMPLE, bounds={"E": (0.0, None)}, **PROTOCOL)
    loose = sl.fit(EXAMPLE, qc=None, bounds={"E": (0.0, math.inf)}, **PROTOCOL)
    assert loose.params == plain.params
    with pytest.raises(sl.SettingsError, match="did you mean profile="):
        sl.fit(EXAMPLE, profiles=["E"], **PROTOCOL)
    one = sl.fit(EXAMPLE, profile="E", **PROTOCOL)
    assert [p["param"] for p in one.to_dict()["profiles"]] == ["E"]
    assert one._repr_svg_() is not None


def test_a_saved_fit_loads_in_python_and_predicts_in_the_cli(cli, fitted: sl.Fit, tmp_path) -> None:
    path = tmp_path / "fit.json"
    fitted.save(path)
    loaded = sl.Fit.load(path)
    assert loaded.params == fitted.params
    out = subprocess.run(
        [str(cli), "predict", str(path), "N=7e10", "D=1.4e12", "--json", "-"],
        check=True, capture_output=True, text=True,
    ).stdout
    expected = json.loads(out)["predictions"][0]["value"]
    assert math.isclose(float(fitted.predict(N=7e10, D=1.4e12)), expected, rel_tol=1e-12)


def test_a_saved_fit_is_the_same_bytes_from_python_and_the_cli(cli, tmp_path) -> None:
    """Results carry values, not a front end's words: the file the CLI writes and the file
    Python saves are byte for byte the same, warnings that mention settings included."""
    formula = "E + A*N^-alpha + B*D^-beta + c"  # c duplicates E: the profile of E warns
    written = tmp_path / "cli.json"
    subprocess.run(
        [str(cli), "fit", str(EXAMPLE), "--formula", formula, "--target", "loss",
         "--map", "N=Model Size", "--map", "C=Training FLOP", "--derive", "D=C/(6*N)",
         "--where", "loss < 3.44", "--bootstrap", "20", "--seed", "3", "--profile", "E",
         "--json", str(written)],
        check=True, capture_output=True, text=True,
    )
    protocol = {k: v for k, v in PROTOCOL.items() if k != "law"}
    saved = tmp_path / "python.json"
    fit = sl.fit(str(EXAMPLE), formula=formula, bootstrap=20, seed=3, profile=["E"], **protocol)
    fit.save(saved)
    assert any("profile" in w for w in fit.warnings), fit.warnings
    assert saved.read_bytes() == written.read_bytes()


def test_fit_accessors_and_notebook_table(fitted: sl.Fit) -> None:
    assert list(fitted.params) == ["E", "A", "alpha", "B", "beta"]
    assert fitted.variables == ["N", "D"]
    assert fitted.converged and fitted.n_obs == 240
    assert all(v is not None and v > 0 for v in fitted.stderr.values())
    assert all(v is None for v in fitted.ci.values())
    html = fitted._repr_html_()
    assert "<table>" in html and "alpha" in html
    assert "chinchilla" in repr(fitted)
    assert sl.Fit.from_json(fitted.to_json()).objective == fitted.objective


def test_predict_is_vectorised_and_broadcasts(fitted: sl.Fit) -> None:
    n = np.array([[1e9], [1e10]])
    d = np.array([1e10, 1e11, 1e12])
    grid = fitted.predict(N=n, D=d)
    assert grid.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            single = fitted.predict(N=float(n[i, 0]), D=float(d[j]))
            assert math.isclose(float(grid[i, j]), float(single), rel_tol=1e-15)
    ci = fitted.predict(N=n, D=d, interval="confidence")
    pi = fitted.predict(N=n, D=d, interval="prediction", level=0.9)
    assert ci.value.shape == ci.lower.shape == (2, 3)
    assert np.all(ci.lower < ci.value) and np.all(ci.value < ci.upper)
    assert np.all(pi.upper - pi.lower > ci.upper - ci.lower)


def test_many_predictions_are_the_command_line_s(cli, fitted: sl.Fit, tmp_path) -> None:
    # Thousands of points (several of the blocks Python predicts in, in parallel) with both
    # intervals, calibrated beyond the data: the numbers `scalinglaws predict` writes, one for
    # one, and one value given for every point is used at every point.
    path = tmp_path / "fit.json"
    fitted.save(path)
    n = np.logspace(8, 12, 2_500)
    d = 2e11
    listed = lambda values: ",".join(repr(float(v)) for v in values)  # noqa: E731
    out = subprocess.run(
        [str(cli), "predict", str(path), f"N={listed(n)}", f"D={d!r}", "--json", "-"],
        check=True, capture_output=True, text=True,
    ).stdout
    expected = json.loads(out)["predictions"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sl.FitCaveatWarning)
        ci = fitted.predict(N=n, D=d, interval="confidence")
        pi = fitted.predict(N=n, D=d, interval="prediction")
    assert ci.value.shape == pi.lower.shape == (2_500,)
    assert [p["value"] for p in expected] == ci.value.tolist() == pi.value.tolist()
    assert [p["ci"] for p in expected] == np.stack([ci.lower, ci.upper], axis=-1).tolist()
    assert [p["pi"] for p in expected] == np.stack([pi.lower, pi.upper], axis=-1).tolist()
    assert any(p["calibrated"] for p in expected)  # the widening beyond the data is in it


# A child process predicting at a million points: its peak resident memory before and after.
PREDICT_MEMORY = """
import resource, sys, warnings
import numpy as np
import pandas, scalinglaws as sl
warnings.simplefilter("ignore")
fit = sl.fit(sys.argv[1], calibrate=False, law="chinchilla", target="loss",
             map={"N": "Model Size", "C": "Training FLOP"}, derive={"D": "C/(6*N)"},
             where="loss < 3.44")
n, d = np.logspace(8, 11, 1_000_000), np.logspace(9, 12, 1_000_000)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
p = fit.predict(N=n, D=d, interval="prediction")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert p.value.shape == (1_000_000,) and bool(np.all(p.lower < p.upper))
print(before, after)
"""


def test_predictions_take_a_small_multiple_of_their_arrays() -> None:
    # The inputs are handed over as their float64 bytes (16 bytes a point) and read in place,
    # and the results (24 bytes a point with an interval) are written straight into the
    # arrays' bytes: the peak grows by about 35 bytes a point beyond the inputs, where a Python
    # float per value and a record per point took 600. The ceiling leaves room for slack.
    out = subprocess.run(
        [sys.executable, "-c", PREDICT_MEMORY, str(EXAMPLE)], check=True, capture_output=True, text=True
    ).stdout
    before, after = (int(kb) * 1024 for kb in out.split())  # ru_maxrss is in KB on Linux
    per_point = (after - before) / 1_000_000
    print(f"Fit.predict at 1e6 points: {per_point:.0f} bytes a point, peak {after / 2**20:.0f} MB")
    assert per_point < 100, f"{per_point:.0f} bytes a point"


def test_a_fit_at_a_bound_repeats_its_caveat_where_its_predictions_are_used(
    chinchilla: pd.DataFrame, fitted: sl.Fit
) -> None:
    # E held above its optimum ends at its lower bound: a caveat as a value, and a warning
    # wherever the fit predicts, in the command line's words.
    bounded = sl.fit(chinchilla, bounds={"E": (1.9, 3.0)}, **PROTOCOL)
    [caveat] = [c for c in bounded.caveats if c.kind == "at_bound"]
    assert (caveat.param, caveat.side, caveat.bound) == ("E", "lower", 1.9)
    assert undeclared(caveat) == []
    words = "the fit's E is at its lower bound (1.9): predictions beyond the data lean on a boundary value"
    with pytest.warns(sl.FitCaveatWarning) as caught:
        bounded.predict(N=7e11, D=1.4e13)
    assert words in [str(w.message) for w in caught]
    assert all(w.filename == __file__ for w in caught)
    with pytest.warns(sl.FitCaveatWarning) as caught:
        frontier = sl.optimal(bounded, budget=1e24)
    assert words in [str(w.message) for w in caught]
    assert [c.param for c in frontier.fit_caveats if c.kind == "at_bound"] == ["E"]
    assert undeclared(frontier) == []
    # A fit without caveats warns of nothing, and its results carry none.
    assert fitted.caveats == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", sl.FitCaveatWarning)
        fitted.predict(N=7e10, D=1.4e12)
        assert sl.optimal(fitted, budget=1e24).fit_caveats == []


def test_bootstrap_intervals_and_cluster(chinchilla: pd.DataFrame) -> None:
    booted = sl.fit(chinchilla, bootstrap=40, seed=3, **PROTOCOL)
    low, high = booted.ci["alpha"]
    assert low < booted.params["alpha"] < high
    again = sl.fit(chinchilla, bootstrap=40, seed=3, **PROTOCOL)
    assert again.to_dict()["bootstrap"]["draws"] == booted.to_dict()["bootstrap"]["draws"]


def test_odd_column_names_and_dicts_of_arrays(chinchilla: pd.DataFrame) -> None:
    odd = chinchilla.rename(columns={"loss": "loss (nats)"})
    fitted = sl.fit(
        odd, law="chinchilla", target="loss (nats)",
        map={"N": "Model Size", "C": "Training FLOP"}, derive={"D": "C/(6*N)"},
        where="N > 0",
    )
    columns = {
        "N": chinchilla["Model Size"].to_numpy(),
        "D": (chinchilla["Training FLOP"] / (6 * chinchilla["Model Size"])).to_numpy(),
        "loss": chinchilla["loss"].tolist(),
    }
    from_dict = sl.fit(columns, law="chinchilla", target="loss")
    assert math.isclose(from_dict.objective, fitted.objective, rel_tol=1e-9)


def test_a_formula_fits_like_the_catalog_law(chinchilla: pd.DataFrame, fitted: sl.Fit) -> None:
    protocol = {k: v for k, v in PROTOCOL.items() if k != "law"}
    by_formula = sl.fit(chinchilla, formula="E + A*N^-alpha + B*D^-beta", **protocol)
    assert math.isclose(by_formula.objective, fitted.objective, rel_tol=1e-9)


def test_nan_is_rejected_with_its_row_and_column(chinchilla: pd.DataFrame) -> None:
    protocol = {k: v for k, v in PROTOCOL.items() if k != "where"}
    broken = chinchilla.copy()
    broken.loc[4, "loss"] = np.nan
    with pytest.raises(sl.DataError) as caught:
        sl.fit(broken, **protocol)
    message = str(caught.value)
    # The row by the DataFrame's index label (here also its 0-based position).
    assert "the DataFrame, index label 4" in message and "'loss'" in message, message
    # A NaN input of a derived column: the derived value is reported with its inputs.
    broken = chinchilla.copy()
    broken.loc[7, "Model Size"] = np.nan
    with pytest.raises(sl.DataError) as caught:
        sl.fit(broken, **PROTOCOL)
    message = str(caught.value)
    assert "index label 7" in message and "D=C/(6*N)" in message, message


def test_every_error_class(chinchilla: pd.DataFrame) -> None:
    with pytest.raises(sl.DataError, match="names no such column"):
        sl.fit(chinchilla, **{**PROTOCOL, "target": "los"})
    with pytest.raises(sl.DataError, match="map"):
        sl.fit(chinchilla, law="chinchilla", target="loss")
    with pytest.raises(sl.FormulaError, match="character"):
        sl.fit(chinchilla, **{**PROTOCOL, "derive": {"D": "C/(6*"}})
    with pytest.raises(sl.FormulaError):
        sl.fit(chinchilla, formula="E + A*N^^alpha", target="loss", map={"N": "Model Size"})
    with pytest.raises(sl.SettingsError, match="chinchila"):
        sl.fit(chinchilla, **{**PROTOCOL, "law": "chinchila"})
    with pytest.raises(sl.SettingsError, match="loss 'hubber'"):
        sl.fit(chinchilla, loss="hubber", **PROTOCOL)
    with pytest.raises(sl.FitError):
        # log space needs positive predictions; this law is negative everywhere.
        sl.fit(chinchilla, formula="-1 - exp(a)*N", target="loss", map={"N": "Model Size"})
    for error in (sl.DataError, sl.FormulaError, sl.SettingsError, sl.FitError):
        assert issubclass(error, sl.Error)
    with pytest.raises(sl.DataError, match="data: give a pandas"):
        sl.fit(42, **PROTOCOL)  # type: ignore[arg-type]


def test_a_law_and_a_formula_together_are_refused_in_pythons_words(chinchilla: pd.DataFrame) -> None:
    # One rule in the library (LawChoice::from_request), worded by each face.
    both = {**PROTOCOL, "formula": "E + A*N^-alpha + B*D^-beta"}
    with pytest.raises(sl.SettingsError, match=r'exactly one of law="NAME" and formula="TEXT"'):
        sl.fit(chinchilla, **both)
    neither = {key: value for key, value in PROTOCOL.items() if key != "law"}
    with pytest.raises(sl.SettingsError, match=r'exactly one of law="NAME" and formula="TEXT"'):
        sl.fit(chinchilla, **neither)


def test_a_cluster_without_a_bootstrap_is_refused_not_ignored(chinchilla: pd.DataFrame) -> None:
    with pytest.raises(sl.SettingsError, match=r"cluster= resamples whole runs.*bootstrap=K"):
        sl.fit(chinchilla, cluster="Model Size", **PROTOCOL)
    assert all(ci is None for ci in sl.fit(chinchilla, bootstrap=0, **PROTOCOL).ci.values())
    # 0 replicates is no bootstrap in every workflow (uncertainty::replicates).
    assert sl.backtest(chinchilla, by="C", holdout_frac=0.2, bootstrap=0, **PROTOCOL).splits


def test_count_keywords_are_whole_numbers_named_in_the_error(chinchilla: pd.DataFrame) -> None:
    # Issue 50: bootstrap=-1 raised RuntimeError "malformed request ... column 242", and
    # bootstrap=20.5 ran 20 replicates in silence.
    for bad in (-1, 20.5, True):
        with pytest.raises(sl.SettingsError, match="bootstrap=: give a whole number"):
            sl.fit(chinchilla, bootstrap=bad, **PROTOCOL)
    with pytest.raises(sl.SettingsError, match="seed=: give a whole number"):
        sl.fit(chinchilla, seed=-3, **PROTOCOL)
    fit = sl.fit(chinchilla, bootstrap=np.int64(20), **PROTOCOL)
    assert fit.to_dict()["bootstrap"]["replicates"] == 20


def test_work_over_the_budget_is_refused_in_pythons_words(chinchilla: pd.DataFrame) -> None:
    # Issue 50: one work budget for the process; a refusal names how to raise it.
    try:
        sl.set_max_work(1e-6)
        with pytest.raises(sl.SettingsError, match=r"core-seconds.*scalinglaws\.set_max_work\("):
            sl.fit(chinchilla, **PROTOCOL)
    finally:
        sl.set_max_work(None)
    with pytest.raises(sl.SettingsError, match="above 0"):
        sl.set_max_work(0)
    assert sl.fit(chinchilla, **PROTOCOL).params


def test_the_gil_is_released_during_a_fit(chinchilla: pd.DataFrame) -> None:
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    started = time.perf_counter()
    sl.fit(chinchilla, bootstrap=300, **PROTOCOL)
    elapsed = time.perf_counter() - started
    done.set()
    counter.join()
    # With the GIL held the counter could not run at all during the fit.
    assert elapsed > 0.05 and ticks >= 10, (elapsed, ticks)


def test_nullable_and_object_columns(chinchilla: pd.DataFrame) -> None:
    frame = chinchilla.copy()
    frame["run"] = pd.array(["a"] * (len(frame) - 1) + [None], dtype="string")
    frame["size"] = pd.array(frame["Model Size"].astype("int64"), dtype="Int64")
    fitted = sl.fit(frame, **{**PROTOCOL, "map": {"N": "size", "C": "Training FLOP"}})
    assert fitted.converged
    objects = {"N": np.array([np.int64(x) for x in frame["Model Size"]], dtype=object),
               "D": frame["Training FLOP"] / (6 * frame["Model Size"]), "loss": frame["loss"]}
    assert sl.fit(objects, law="chinchilla", target="loss", where="loss < 3.44").converged


def test_plots_render_from_the_wheel(chinchilla: pd.DataFrame, tmp_path) -> None:
    booted = sl.fit(chinchilla, bootstrap=30, **PROTOCOL)
    png = tmp_path / "frontier.png"
    assert booted.plot(png, budgets=(1e19, 1e25)) == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "bootstrap.svg"
    booted.plot(svg, kind="bootstrap")
    assert "<svg" in svg.read_text()
    with pytest.raises(sl.SettingsError, match=".svg or .png"):
        booted.plot(tmp_path / "x.pdf")
    # The fit without replicates is refused in Python's words (the report crate once wrote
    # the command line's flag).
    with pytest.raises(sl.SettingsError, match=r"fit with bootstrap=K\)$"):
        sl.fit(chinchilla, **PROTOCOL).plot(kind="bootstrap")


def test_the_frontier_picture_is_the_command_lines(cli, fitted: sl.Fit, tmp_path) -> None:
    """Its budgets and formula are read by the report crate's one `FrontierPicture` in both
    faces: the defaults and a range give the same SVG, and a bad range is refused alike."""
    saved = tmp_path / "fit.json"
    fitted.save(saved)

    def cli_svg(*args: str) -> str:
        return subprocess.run([str(cli), "plot", "frontier", str(saved), *args, "-o", "-"],
                              check=True, capture_output=True, text=True).stdout

    assert fitted.plot().svg.strip() == cli_svg().strip()
    ranged = fitted.plot(budgets=(1e20, 1e24), flops="6*N*D + 2*N*2048").svg
    assert ranged.strip() == cli_svg("--from", "1e20", "--to", "1e24",
                                     "--flops", "6*N*D + 2*N*2048").strip()
    with pytest.raises(sl.SettingsError, match="budgets=: give budgets with 0 < from < to"):
        fitted.plot(budgets=(1e24, 1e20))


def test_a_heteroscedastic_fit_matches_the_command_line(cli, chinchilla: pd.DataFrame) -> None:
    fitted = sl.fit(chinchilla, **PROTOCOL, loss="linear", heteroscedastic="C", calibrate=False)
    args = [
        str(cli), "fit", str(EXAMPLE), "--law", "chinchilla", "--target", "loss",
        "--map", "N=Model Size", "--map", "C=Training FLOP", "--derive", "D=C/(6*N)",
        "--where", "loss < 3.44", "--loss", "linear", "--heteroscedastic", "C",
        "--no-calibration", "--json", "-",
    ]
    reference = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    model = fitted.variance
    assert model is not None and model["by"] == "C"
    assert math.isclose(model["s"], reference["variance"]["s"], rel_tol=1e-12)
    assert model["s_stderr"] > 0 and 0 <= model["lr_p_value"] <= 1
    assert sl.fit(chinchilla, **PROTOCOL, calibrate=False).variance is None
    with pytest.raises(sl.SettingsError, match="heteroscedastic.*linear"):
        sl.fit(chinchilla, **PROTOCOL, heteroscedastic="C")
    with pytest.raises(sl.DataError, match="names no such column"):
        sl.fit(chinchilla, **PROTOCOL, loss="linear", heteroscedastic="Q")


def test_threads_above_the_cap_warn_once_in_the_command_lines_words(cli, chinchilla: pd.DataFrame) -> None:
    """threads= above a few per core is capped with a RuntimeWarning, as the CLI warns."""
    with pytest.warns(RuntimeWarning) as caught:
        sl.fit(chinchilla, **{**PROTOCOL, "threads": 100_000})
    runtime = [w for w in caught if w.category is RuntimeWarning]
    messages = [str(w.message) for w in runtime]
    assert len(messages) == 1, messages
    assert messages[0].startswith("threads=100000 is more than 4 per core; using "), messages
    assert runtime[0].filename == __file__  # points at the caller's line
    args = [
        str(cli), "fit", str(EXAMPLE), "--law", "chinchilla", "--target", "loss",
        "--map", "N=Model Size", "--map", "C=Training FLOP", "--derive", "D=C/(6*N)",
        "--where", "loss < 3.44", "--threads", "100000", "--json", "-",
    ]
    stderr = subprocess.run(args, check=True, capture_output=True, text=True).stderr
    assert f"warning: --threads 100000{messages[0].removeprefix('threads=100000')}" in stderr, stderr


def test_a_file_that_is_not_a_fit_says_what_it_is() -> None:
    with pytest.raises(sl.SettingsError, match=r"it is the JSON written by `scalinglaws\.compare\(\)`"):
        sl.Fit.from_json('{"kind": "compare", "schema_version": 1, "tracks": [], "pairs": []}')
    with pytest.raises(sl.SettingsError, match=r"it has no `schema_version`"):
        sl.Fit.from_json('{"law": "chinchilla", "tracks": [], "pairs": []}')


def test_saved_messages_read_in_pythons_words(cli, tmp_path) -> None:
    """A saved result holds the library's neutral words (the same from every front end);
    Python reads its messages as keywords: a split that cannot be fitted says to hold
    parameters with ``fix={"NAME": VALUE}``, never the command line's ``--fix``."""
    runs = tmp_path / "runs.csv"
    rows = [f"{10.0 ** i},{2.0 + 50.0 * (10.0 ** i) ** -0.3}" for i in range(1, 9)]
    runs.write_text("N,loss\n" + "\n".join(rows) + "\n")
    out = subprocess.run(
        [str(cli), "backtest", str(runs), "--target", "loss", "--formula", "E + A*N^-a",
         "--by", "N", "--rollout", "--steps", "8", "--json", "-"],
        check=True, capture_output=True, text=True,
    ).stdout
    document = json.loads(out)
    assert 'fix["NAME"]=VALUE' in document["splits"][0]["error"]
    error = sl.Backtest.from_dict(document).splits[0].error
    assert error is not None and 'fix={"NAME": VALUE}' in error and "--" not in error, error
    assert sl._errors.speak_result("give `noise`, see the `fit` workflow") == (
        "give noise=, see `scalinglaws.fit()`"
    )


def test_a_parquet_file_fits_as_its_csv() -> None:
    # The bundled Parquet copy of the example (written by the parquet crate; the CLI's tests
    # check it holds the CSV's table bit for bit): read by the library from its path, no
    # pyarrow needed.
    from_csv = sl.fit(str(EXAMPLE), **PROTOCOL)
    from_parquet = sl.fit(str(EXAMPLE.with_suffix(".parquet")), **PROTOCOL)
    assert from_parquet.n_obs == from_csv.n_obs
    assert math.isclose(from_parquet.objective, from_csv.objective, rel_tol=1e-12)
    for name, value in from_csv.params.items():
        assert math.isclose(from_parquet.params[name], value, rel_tol=1e-12), name


def sweep_runs() -> pd.DataFrame:
    """Runs of a Chinchilla law at 4 sizes x 3 token counts, each swept over 4 learning rates,
    the loss times exp(0.05 (ln lr - ln 2.8e-3)^2): every cell's frontier is the law."""
    rows = []
    for i in range(4):
        n = 2e7 * 3**i
        for j in range(3):
            d = 20 * n * 2**j
            law = 1.8 + 400 * n**-0.34 + 2000 * d**-0.36
            for k in range(4):
                lr = 1e-3 * 2**k
                rows.append({"N": n, "D": d, "lr": lr,
                             "loss": law * math.exp(0.05 * math.log(lr / 2.8e-3) ** 2)})
    return pd.DataFrame(rows)


def test_a_sweep_fits_each_cells_frontier_as_the_command_line_does(cli, tmp_path) -> None:
    runs = sweep_runs()
    fit = sl.fit(runs, "chinchilla", target="loss", sweep="lr", calibrate=False)
    sweep = fit.sweep
    assert fit.n_obs == 12 and len(sweep["cells"]) == 12 and sweep["runs"] == 48
    assert all(cell["method"] == "curve" for cell in sweep["cells"])
    assert "[[Sweep frontier]]" in fit.report()
    path = tmp_path / "sweep.csv"
    runs.to_csv(path, index=False)
    args = [str(cli), "fit", str(path), "--law", "chinchilla", "--target", "loss", "--sweep",
            "lr", "--no-calibration", "--json", "-"]
    reference = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert reference["sweep"] == sweep
    assert math.isclose(fit.objective, reference["objective"], rel_tol=1e-12)
    with pytest.raises(sl.SettingsError, match=r'sweep="N": the column is the law\'s variable N'):
        sl.fit(runs, "chinchilla", target="loss", sweep="N")
    with pytest.raises(sl.SettingsError, match="qc judges every run"):
        sl.qc(runs, target="loss", sweep="lr")


def test_a_backtest_of_a_sweep_scores_each_cells_frontier_as_the_command_line_does(cli, tmp_path) -> None:
    runs = sweep_runs()
    result = sl.backtest(runs, "chinchilla", target="loss", by="N", holdout_top=1, sweep="lr",
                         calibrate=False)
    assert result.sweep is not None
    assert len(result.sweep.cells) == 12 and len(result.splits[0].points) == 3
    path = tmp_path / "sweep.csv"
    runs.to_csv(path, index=False)
    args = [str(cli), "backtest", str(path), "--law", "chinchilla", "--target", "loss", "--by", "N",
            "--holdout-top", "1", "--sweep", "lr", "--no-calibration", "--json", "-"]
    reference = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert reference["sweep"] == result.sweep.to_dict()
    assert [p["predicted"] for p in reference["splits"][0]["points"]] == [
        p.predicted for p in result.splits[0].points]
    assert sl.backtest(runs, "chinchilla", target="loss", by="N", holdout_top=1,
                       calibrate=False).sweep is None


def test_isoflop_profiles_read_a_sweeps_frontier() -> None:
    rows = []
    for c in (1e17, 1e18, 1e19):
        for k in range(-2, 3):
            n = (c / 120) ** 0.5 * 2 ** (k * 0.5)
            d = c / (6 * n)
            law = 1.8 + 400 * n**-0.34 + 2000 * d**-0.36
            for j in range(4):
                lr = 1e-3 * 2**j
                rows.append({"C": c, "N": n, "lr": lr,
                             "loss": law * math.exp(0.05 * math.log(lr / 2.8e-3) ** 2)})
    runs = pd.DataFrame(rows)
    swept = sl.isoflop(runs, compute="C", size="N", target="loss", sweep="lr")
    assert swept.sweep is not None and len(swept.sweep["cells"]) == 15
    assert "[[Sweep frontier]]" in str(swept)
    assert sl.isoflop(runs, compute="C", size="N", target="loss").sweep is None
