"""`scalinglaws.fit_groups`: one law per group of rows, against single fits of each group's
rows and against `scalinglaws fit DATA --group COLUMN` (its --table and its JSON Lines)."""

import io
import json
import pathlib
import subprocess
from typing import List

import numpy as np
import pandas as pd
import pytest

import scalinglaws as sl

LAW = dict(law="power_offset", target="loss")


def curves(n: int = 30, points: int = 20) -> pd.DataFrame:
    """`n` learning curves E + A*x^-alpha of `points` points each, with 1 % noise from a seeded
    generator, in long format (a row per point), a run's ``task`` and ``size`` labels beside."""
    rng = np.random.default_rng(20240611)
    x = np.geomspace(10.0, 1e4, points)
    frames = []
    for i in range(n):
        e, a, alpha = 1.5 + 0.5 * rng.random(), 5.0 + 5.0 * rng.random(), 0.3 + 0.4 * rng.random()
        loss = (e + a * x**-alpha) * np.exp(0.01 * rng.standard_normal(points))
        frames.append(
            pd.DataFrame(
                {"run": f"r{i:02d}", "task": f"t{i % 3}", "size": f"s{i // 3}", "x": x, "loss": loss}
            )
        )
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    """The curves, and a run of two points (too few for the law's three parameters)."""
    tiny = pd.DataFrame(
        {"run": "tiny", "task": "t9", "size": "s9", "x": [10.0, 100.0], "loss": [3.0, 2.5]}
    )
    return pd.concat([curves(), tiny], ignore_index=True)


@pytest.fixture(scope="module")
def path(data: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    target = tmp_path_factory.mktemp("groups") / "curves.csv"
    data.to_csv(target, index=False)
    return target


def cli_groups(cli: pathlib.Path, path: pathlib.Path, *args: str) -> str:
    """What `scalinglaws fit PATH --law power_offset --target loss ARGS` writes on stdout."""
    command = [str(cli), "fit", str(path), "--law", "power_offset", "--target", "loss", *args]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def read_table(text: str) -> pd.DataFrame:
    """The command's table as pandas reads it (the Python parser: every float exactly)."""
    return pd.read_csv(io.StringIO(text), engine="python")


def test_each_group_is_the_fit_of_its_rows_alone(data: pd.DataFrame) -> None:
    groups = sl.fit_groups(data, group="run", **LAW)
    assert len(groups) == 31 and len(groups.fits) == 30
    for run, fit in groups.fits.items():
        assert isinstance(run, str)
        alone = sl.fit(data[data["run"] == run], **LAW, calibrate=False)
        assert fit.params == alone.params, run  # bit-identical by design
        assert fit.stderr == alone.stderr, run
        assert fit.objective == alone.objective, run
    fit = groups.fits["r07"]
    assert isinstance(fit, sl.Fit) and fit.n_obs == 20
    assert np.all(np.isfinite(fit.predict(x=[1e3, 1e5])))
    assert "E" in fit.report()


@pytest.mark.parametrize("bootstrap", [0, 20])
def test_the_frame_and_records_are_the_command_lines(
    cli: pathlib.Path, path: pathlib.Path, bootstrap: int
) -> None:
    groups = sl.fit_groups(path, group="run", bootstrap=bootstrap, **LAW)
    extra = ["--bootstrap", str(bootstrap)] if bootstrap else []
    table = read_table(cli_groups(cli, path, "--group", "run", *extra))
    frame = groups.to_frame()
    assert list(frame.columns) == list(table.columns)
    pd.testing.assert_frame_equal(frame, table, check_exact=True)
    lines = cli_groups(cli, path, "--group", "run", *extra, "--json", "-").splitlines()
    assert groups.to_dicts() == [json.loads(line) for line in lines]
    if bootstrap:
        assert {"E_low", "E_high"} <= set(frame.columns)


def test_a_group_too_small_fails_with_its_reason_and_the_rest_are_kept(data: pd.DataFrame) -> None:
    groups = sl.fit_groups(data, group="run", **LAW)
    [failed] = groups.failed
    assert failed.group == {"run": "tiny"} and failed.rows == 2
    assert failed.status == "failed" and failed.fit is None
    assert failed.reason is not None and "2 rows for 3 free parameters" in failed.reason
    assert "tiny" not in groups.fits
    assert [g.status for g in groups if g.group["run"] != "tiny"] == ["fitted"] * 30
    row = groups.to_frame().set_index("run").loc["tiny"]
    assert row["status"] == "failed" and np.isnan(row["E"]) and "free parameters" in row["reason"]


def test_several_group_columns_key_the_fits_by_tuples(
    cli: pathlib.Path, data: pd.DataFrame, path: pathlib.Path
) -> None:
    by_run = sl.fit_groups(data, group="run", **LAW)
    groups = sl.fit_groups(data, group=["task", "size"], **LAW)
    assert groups.columns == ["task", "size"]
    assert ("t1", "s2") in groups.fits and len(groups.fits) == 30
    # Run i is task t{i%3}, size s{i//3}: the same rows, the same fit.
    assert groups.fits[("t1", "s2")].params == by_run.fits["r07"].params
    # Keys follow group='s order; the table's columns are the command's.
    swapped = sl.fit_groups(data, group=["size", "task"], **LAW)
    assert swapped.fits[("s2", "t1")].params == by_run.fits["r07"].params
    table = read_table(cli_groups(cli, path, "--group", "task", "--group", "size"))
    pd.testing.assert_frame_equal(
        sl.fit_groups(path, group=["task", "size"], **LAW).to_frame(), table, check_exact=True
    )


def test_the_thread_count_changes_nothing(data: pd.DataFrame) -> None:
    one = sl.fit_groups(data, group="run", threads=1, bootstrap=20, **LAW).to_frame()
    two = sl.fit_groups(data, group="run", threads=2, bootstrap=20, **LAW).to_frame()
    pd.testing.assert_frame_equal(one, two, check_exact=True)


@pytest.mark.parametrize(
    "keywords, named",
    [
        (dict(calibrate=True), "calibration beyond the data is not run per group yet; give calibrate=False"),
        (dict(by="x"), "by"),
        (dict(cluster="run"), "cluster"),
        (dict(heteroscedastic="x", loss="linear"), "heteroscedastic"),
        (dict(group=[]), "group"),
        # QC does not run per group: rows it would remove were once fitted in silence.
        (dict(qc="exclude"), "qc"),
        # What is not run per group is named before what a single fit would ask of it.
        (dict(heteroscedastic="x"), "heteroscedastic"),
    ],
)
def test_what_is_not_run_per_group_is_refused_by_name(
    data: pd.DataFrame, keywords: dict, named: str
) -> None:
    arguments = {"group": "run", **LAW, **keywords}
    with pytest.raises(sl.SettingsError, match=rf"^{named}\b"):
        sl.fit_groups(data, **arguments)


def test_bad_data_stops_the_batch(data: pd.DataFrame) -> None:
    with pytest.raises(sl.DataError, match="Q"):
        sl.fit_groups(data, group="Q", **LAW)


def test_records_read_back(data: pd.DataFrame) -> None:
    groups = sl.fit_groups(data.head(60), group="run", **LAW)
    again = sl.GroupFits.from_dicts(groups.to_dicts())
    assert again.columns == ["run"] and len(again) == 3
    assert again.fits["r01"].params == groups.fits["r01"].params
    assert "3 groups by run: 3 fitted, 0 failed" in repr(groups)
    names: List[str] = [g.group["run"] for g in groups]
    assert names == ["r00", "r01", "r02"]
