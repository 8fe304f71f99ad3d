"""The package at home in a notebook: Ctrl-C stops long calls within a fraction of a second,
fits and plots display inline, the text report and the HTML page come from Python, and
errors speak Python (index labels, keywords)."""

import math
import re
import signal
import threading
import time
from typing import Iterator

import pandas as pd
import pytest

import scalinglaws as sl
from conftest import EXAMPLE, PROTOCOL


@pytest.fixture(scope="module")
def chinchilla() -> pd.DataFrame:
    return pd.read_csv(EXAMPLE)


@pytest.fixture(scope="module")
def fitted(chinchilla: pd.DataFrame) -> sl.Fit:
    return sl.fit(chinchilla, bootstrap=20, **PROTOCOL)


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler, as a notebook or an interactive session has it. A process
    started in the background by a non-interactive shell (a CI job, `cmd &`) inherits SIGINT
    ignored, and an ignored signal never reaches Python: the tests install the handler for
    their duration and put the inherited one back."""
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, inherited)


def interrupt_after(seconds: float) -> list:
    """Sends SIGINT to this process after `seconds` (from another thread, as a terminal's
    Ctrl-C arrives); the returned list receives the moment it was sent."""
    sent: list = []

    def send() -> None:
        time.sleep(seconds)
        sent.append(time.perf_counter())
        signal.raise_signal(signal.SIGINT)

    threading.Thread(target=send, daemon=True).start()
    return sent


def test_ctrl_c_stops_a_long_bootstrap(chinchilla: pd.DataFrame, ctrl_c: None) -> None:
    # 20,000 replicates take minutes; the interrupt lands after 1 s.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    sent = interrupt_after(1.0)
    start = time.perf_counter()
    sl.set_max_work(10_000)  # the work budget would refuse the run before it starts
    try:
        with pytest.raises(KeyboardInterrupt):
            sl.fit(chinchilla, bootstrap=20_000, **PROTOCOL)
    finally:
        sl.set_max_work(None)
    stopped = time.perf_counter()
    assert sent, "the fit ended before the interrupt was sent"
    latency = stopped - sent[0]
    print(f"KeyboardInterrupt {latency * 1000:.0f} ms after SIGINT ({stopped - start:.2f} s in all)")
    assert latency < 0.5, f"KeyboardInterrupt came {latency:.3f} s after SIGINT"
    # The next call runs normally (the token was the interrupted call's own).
    again = sl.fit(chinchilla, **PROTOCOL)
    assert again.converged


def test_ctrl_c_stops_a_backtest(chinchilla: pd.DataFrame, ctrl_c: None) -> None:
    sent = interrupt_after(0.3)
    sl.set_max_work(10_000)  # 4 splits × 5,000 replicates: the budget would refuse it first
    try:
        with pytest.raises(KeyboardInterrupt):
            sl.backtest(chinchilla, rolling=4, calibrate=True, bootstrap=5_000, by="C", **PROTOCOL)
    finally:
        sl.set_max_work(None)
    assert sent and time.perf_counter() - sent[0] < 0.5


def test_uninterrupted_results_are_unchanged(chinchilla: pd.DataFrame) -> None:
    # The worker thread and the token change nothing: seeded runs are bit-identical.
    one = sl.fit(chinchilla, bootstrap=20, seed=3, **PROTOCOL)
    two = sl.fit(chinchilla, bootstrap=20, seed=3, **PROTOCOL)
    assert one.to_json() == two.to_json()


def test_the_text_report(fitted: sl.Fit) -> None:
    report = fitted.report()
    assert report.startswith("[[Fit]]"), report
    assert "chinchilla" in report and "alpha" in report
    assert "where=" in report and "--where" not in report, report
    assert str(fitted) == report
    assert repr(fitted).startswith("Fit(chinchilla:") and "\n" not in repr(fitted)
    # A fit read back from JSON prints the same report.
    assert sl.Fit.from_json(fitted.to_json()).report() == report


def test_the_html_page(fitted: sl.Fit, tmp_path) -> None:
    page = fitted.report_html()
    assert page.lstrip().lower().startswith("<!doctype html") and "<svg" in page
    # The library computed the allocation, its frontier and a rolling backtest for the page.
    assert "Compute-optimal allocation" in page and "No allocation" not in page
    assert "with 95% intervals from 20 bootstrap draws" in page
    assert "rolling origins" in page and "No backtest" not in page
    path = tmp_path / "fit.html"
    assert fitted.report_html(path) == str(path)
    assert path.read_text(encoding="utf-8") == page
    with pytest.raises(sl.SettingsError, match="refit"):
        sl.Fit.from_json(fitted.to_json()).report_html()


def test_inline_display(fitted: sl.Fit, tmp_path) -> None:
    html = fitted._repr_html_()
    assert "<table>" in html and "<svg" in html
    assert "<svg" in (fitted._repr_svg_() or "")
    loaded = sl.Fit.from_json(fitted.to_json())
    assert loaded._repr_svg_() is None and "<table>" in loaded._repr_html_()
    for kind in ("fit", "residuals", "frontier", "bootstrap"):
        plot = fitted.plot(kind=kind)
        assert isinstance(plot, sl.Plot)
        assert plot._repr_svg_() == plot.svg and "<svg" in plot.svg
    plot = fitted.plot(kind="fit", x="N")
    assert plot.save(tmp_path / "fit.svg") == str(tmp_path / "fit.svg")
    assert (tmp_path / "fit.svg").read_text() == plot.svg
    plot.save(tmp_path / "fit.png")
    assert (tmp_path / "fit.png").read_bytes()[:4] == b"\x89PNG"
    # Writing a file is quiet and returns the path, whatever the format.
    assert fitted.plot(tmp_path / "f.svg") == str(tmp_path / "f.svg")
    with pytest.raises(sl.SettingsError, match="refit"):
        loaded.plot(kind="fit")


def test_errors_name_index_labels_and_keywords(chinchilla: pd.DataFrame) -> None:
    protocol = {k: v for k, v in PROTOCOL.items() if k != "where"}
    broken = chinchilla.copy()
    broken.index = broken.index * 10  # labels 0, 10, 20, ...
    broken.loc[30, "loss"] = -1.0  # the 4th row, labelled 30
    with pytest.raises(sl.DataError) as caught:
        sl.fit(broken, **protocol)
    message = str(caught.value)
    assert "the DataFrame, index label 30 (position 3)" in message, message
    assert "where=" in message and "--" not in message, message
    # Text labels, and a dict (positions).
    broken.index = [f"run{i}" for i in range(len(broken))]
    with pytest.raises(sl.DataError, match="index label 'run3'"):
        sl.fit(broken, **protocol)
    columns = {name: broken[name].to_numpy() for name in broken.columns}
    with pytest.raises(sl.DataError, match=r"the dict, index 3\b"):
        sl.fit(columns, **protocol)


def test_settings_errors_name_keywords(chinchilla: pd.DataFrame) -> None:
    for kwargs, keyword in (
        ({"fix": {"q": 1.0}}, "fix"),
        ({"bounds": {"q": (0.0, 1.0)}}, "bounds"),
        ({"grid": {"q": [1.0]}}, "grid"),
    ):
        with pytest.raises(sl.SettingsError) as caught:
            sl.fit(chinchilla, **kwargs, **PROTOCOL)
        message = str(caught.value)
        assert keyword in message and "--" not in message, message


def test_warnings_speak_python(chinchilla: pd.DataFrame) -> None:
    fit = sl.fit(chinchilla, fix={"E": 1.69}, grid={"E": [1.0, 2.0]}, **PROTOCOL)
    assert fit.warnings and all("--" not in w for w in fit.warnings), fit.warnings
    assert any("grid" in w for w in fit.warnings), fit.warnings
    assert "--" not in fit.report()


def test_speak_python() -> None:
    from scalinglaws._errors import speak_python

    assert speak_python("filter it out with --where") == "filter it out with where="
    assert speak_python("fix them with --fix NAME=VALUE") == 'fix them with fix={"NAME": VALUE}'
    assert speak_python("(--space linear)") == '(space="linear")'
    assert speak_python("--holdout-top 3: too few") == "holdout_top=3: too few"
    assert speak_python("--bound b: empty") == 'bounds["b"]: empty'
    assert speak_python("a formula a--b") == "a formula a--b"


def test_numbers_print_short(chinchilla: pd.DataFrame) -> None:
    # 0.1 * 3e-5 is 3.0000000000000004e-06: the report shows the setting as typed, 3e-6.
    fit = sl.fit(chinchilla, f_scale=0.1 * 3e-5, **PROTOCOL)
    report = fit.report()
    assert "(f_scale 3e-6)" in report, report
    assert not re.search(r"\d{12,}", report), report
    assert math.isfinite(fit.objective)
