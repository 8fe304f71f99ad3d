"""Ctrl-C stops every long call of the package within half a second (the issue's acceptance
point): each public function that can run for more than a moment is started with arguments that
make it run for seconds, SIGINT arrives 0.3 s in, and KeyboardInterrupt must follow within
0.5 s. The times in the comments are uninterrupted run times on two cores, measured when the
cases were written; every case is interrupted well before it would end (the test checks that
the call still ran when the signal was due). The work budget is raised where the call would
otherwise be refused before it starts, and put back after. `sl.lr` is not here: a sweep of
360,000 runs is analysed in 0.3 s, so it ends before a Ctrl-C would matter; `sl.laws`, the
text report and the fit file's checks are instant."""

import functools
import json
import signal
import threading
import time
import warnings
from typing import Any, Callable, Dict, Iterator, List, Tuple

import numpy as np
import pandas as pd
import pytest

import scalinglaws as sl
from conftest import EXAMPLE, PROTOCOL, ROOT, TESTDATA, TRACKS

ISOFLOP = ROOT / "examples" / "isoflop" / "runs.csv"
CHECKPOINTS = TESTDATA / "gemstones" / "wandb_dfs" / "wandb_df_for_fitting_hot_477.jsonl"
PYTHIA = ROOT / "examples" / "downstream" / "pythia_zero_shot.csv"
PYTHIA_COLUMNS = dict(target="accuracy", size="params", tokens="tokens", trials="questions", chance="chance")
SCHEDULE_RUNS = ROOT / "examples" / "schedule" / "runs_400m.csv"

# How long after SIGINT KeyboardInterrupt may come, and when the signal is sent.
LATENCY = 0.5
SEND_AFTER = 0.3


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler, as a notebook has it (see test_notebook.py), and a work
    budget large enough for every case, both put back after."""
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    sl.set_max_work(1e6)
    try:
        yield
    finally:
        sl.set_max_work(None)
        signal.signal(signal.SIGINT, inherited)


# What some cases start from, made once (not timed).


def with_draws(fit: sl.Fit, count: int) -> sl.Fit:
    """The fit with `count` bootstrap draws (its own, repeated): what a fit with that many
    replicates predicts and draws from, without the refits."""
    document = fit.to_dict()
    draws = document["bootstrap"]["draws"]
    document["bootstrap"]["draws"] = (draws * (count // len(draws) + 1))[:count]
    document["bootstrap"]["replicates"] = count
    return sl.Fit(json.dumps(document), fit._data)


@functools.lru_cache(maxsize=None)
def bootstrapped() -> sl.Fit:
    """Chinchilla's law with 10,000 bootstrap draws."""
    return with_draws(sl.fit(EXAMPLE, bootstrap=100, **PROTOCOL), 10_000)


@functools.lru_cache(maxsize=None)
def formula_bootstrapped() -> sl.Fit:
    """The same law as a formula (its allocations solved numerically) with 10,000 draws."""
    recipe = {k: v for k, v in PROTOCOL.items() if k != "law"}
    return with_draws(sl.fit(EXAMPLE, formula="E + A/N**alpha + B/D**beta", bootstrap=20, **recipe), 10_000)


@functools.lru_cache(maxsize=None)
def plain() -> sl.Fit:
    return sl.fit(EXAMPLE, **PROTOCOL)


@functools.lru_cache(maxsize=None)
def schedule_fit() -> sl.ScheduleFit:
    return sl.schedule_fit(SCHEDULE_RUNS, run="run")


def chinchilla_times(copies: int) -> pd.DataFrame:
    frame = pd.read_csv(EXAMPLE)
    return pd.concat([frame] * copies, ignore_index=True)


def in_groups(groups: int) -> pd.DataFrame:
    frame = pd.read_csv(EXAMPLE)
    return pd.concat([frame.assign(g=i) for i in range(groups)], ignore_index=True)


N, D = np.logspace(8, 11, 1_000_000), np.logspace(9, 12, 1_000_000)

# name → (what to make first, the call on it). Each call runs for seconds uninterrupted.
CASES: Dict[str, Tuple[Callable[[], Any], Callable[[Any], Any]]] = {
    # 20,000 bootstrap refits (minutes).
    "fit bootstrap": (lambda: None, lambda _: sl.fit(EXAMPLE, bootstrap=20_000, **PROTOCOL)),
    # A fit of 9,800 rows and its rolling-origin calibration (1.8 s).
    "fit calibrate": (lambda: chinchilla_times(40), lambda data: sl.fit(data, **PROTOCOL)),
    # 40 groups with 500 replicates each (35 s).
    "fit_groups": (lambda: in_groups(40), lambda data: sl.fit_groups(data, group="g", bootstrap=500, **PROTOCOL)),
    "backtest": (
        lambda: None,
        lambda _: sl.backtest(EXAMPLE, rolling=4, calibrate=True, bootstrap=5_000, by="C", **PROTOCOL),
    ),
    # Three candidates, 20 origins, checked by nested origins.
    "select": (
        lambda: None,
        lambda _: sl.select(
            EXAMPLE, ["chinchilla"], ["E + A/N**alpha + B/D**beta + G/(N*D)**0.1", "E + A/(N**alpha + B/D**beta)"],
            check=True, origins=20, **{k: v for k, v in PROTOCOL.items() if k != "law"},
        ),
    ),
    # Two tracks with 5,000 replicates each (3.8 s).
    "compare": (
        lambda: None,
        lambda _: sl.compare(TRACKS, law="chinchilla", target="loss", track="recipe", budget=1e21, bootstrap=5_000),
    ),
    # The same comparison, drawn on its grid (4.6 s).
    "plot_tracks": (
        lambda: None,
        lambda _: sl.plot_tracks(TRACKS, law="chinchilla", target="loss", track="recipe", budget=1e21, bootstrap=5_000),
    ),
    # Profiles with 200,000 replicates, predicting a new budget (6.5 s).
    "isoflop profiles": (
        lambda: None,
        lambda _: sl.isoflop(ISOFLOP, compute="C", size="N", target="loss", budget=3.16e22, bootstrap=200_000),
    ),
    # Profiles drawn, their N* intervals from 200,000 replicates (2.9 s).
    "plot_isoflop": (
        lambda: None,
        lambda _: sl.plot_isoflop(ISOFLOP, compute="C", size="N", target="loss", bootstrap=200_000),
    ),
    # The two largest budgets held out, 100,000 replicates (2.8 s).
    "isoflop backtest": (
        lambda: None,
        lambda _: sl.isoflop(ISOFLOP, compute="C", size="N", target="loss", backtest=2, bootstrap=100_000),
    ),
    # The grid envelope of 4,000 budgets with 2,000 replicates (3 s).
    "isoflop envelope": (
        lambda: None,
        lambda _: sl.isoflop(
            CHECKPOINTS, compute="C", size="params_active_precise", tokens="tokens", target="final_loss",
            envelope="grid:4000", run="run_name", bootstrap=2_000, where="step > 0",
            derive={"C": "6*params_active_precise*tokens"},
        ),
    ),
    # 500 budgets × 10,000 bootstrap draws.
    "optimal": (bootstrapped, lambda fit: sl.optimal(fit, budget=list(np.logspace(18, 26, 500)))),
    # 2,000 simulated refits (25 s).
    "design": (
        lambda: None,
        lambda _: sl.design(
            EXAMPLE, goal=["optimal_loss@1e23"], candidates="N=1e8..1e11,D=1e9..1e13", spend=1e21,
            draws=64, simulations=2_000, **PROTOCOL,
        ),
    ),
    # Four held-out Pythia models (1.5 s).
    "downstream": (
        lambda: None,
        lambda _: sl.downstream(
            PYTHIA, holdout=["pythia-12b", "pythia-6.9b", "pythia-2.8b", "pythia-1.4b"], **PYTHIA_COLUMNS
        ),
    ),
    # The functional scaling law on 2,100 logged steps of 15 runs (12 s).
    "schedule_fit": (lambda: None, lambda _: sl.schedule_fit(SCHEDULE_RUNS, run="run", law="fsl")),
    # A 50-million-step cosine schedule (a minute).
    "schedule_predict": (schedule_fit, lambda fit: sl.schedule_predict(fit, "cosine:steps=50000000", every=1_000_000)),
    # Two 50-million-step schedules side by side (two minutes).
    "schedule_compare": (
        schedule_fit,
        lambda fit: sl.schedule_compare(
            fit, ["cosine:steps=50000000", "constant:steps=50000000"], every=1_000_000
        ),
    ),
    # 100 cooldowns off a 2-million-step constant run.
    "schedule_predict cooldowns": (
        schedule_fit,
        lambda fit: sl.schedule_predict(fit, "cooldowns:steps=2000000,every=20000,len=20000"),
    ),
    # The best schedule of 200,000 steps, up to 2,000 iterations.
    "schedule_optimize": (
        schedule_fit,
        lambda fit: sl.schedule_optimize(fit, steps=200_000, peak=3e-4, max_iterations=2_000),
    ),
    # The cooldown study's intervals from 5,000 bootstrap refits of the fit's training curves.
    "cooldown_study": (schedule_fit, lambda fit: sl.cooldown_study(fit, bootstrap=5_000)),
    # A million points with calibrated prediction intervals (a minute).
    "Fit.predict": (plain, lambda fit: fit.predict(N=N, D=D, interval="prediction")),
    # The page of a fit with 10,000 draws: its backtest, allocations and bands (5 s).
    "Fit.report_html": (bootstrapped, lambda fit: fit.report_html()),
    # The data with the curves and their bands from 10,000 draws (4.7 s).
    "Fit.plot fit": (bootstrapped, lambda fit: fit.plot(kind="fit")),
    # The same, as a notebook shows a fit (4.4 s).
    "Fit._repr_html_": (bootstrapped, lambda fit: fit._repr_html_()),
    # The frontier of a law solved numerically, with bands from 10,000 draws (24 s).
    "Fit.plot frontier": (formula_bootstrapped, lambda fit: fit.plot(kind="frontier")),
    # The lab: KeyboardInterrupt at once, the run winding down in the background.
    "lab.nvfp4": (lambda: None, lambda _: sl.lab.nvfp4(pairs=10_000)),
    "lab.sgd": (lambda: None, lambda _: sl.lab.sgd(steps=100_000, seeds=20)),
    "lab.sgd_scaling": (lambda: None, lambda _: sl.lab.sgd_scaling(seeds=8)),
    "lab.editing": (lambda: None, lambda _: sl.lab.editing(seeds=100)),
    "lab.multi_index": (lambda: None, lambda _: sl.lab.multi_index(seeds=20)),
    "lab.recall": (lambda: None, lambda _: sl.lab.recall(trials=100)),
}


def interrupt_after(seconds: float) -> float:
    """Sends SIGINT to this process `seconds` from now (from another thread, as a terminal's
    Ctrl-C arrives) and returns that moment. The latency is counted from it, not from when the
    thread got to send: a call that holds the GIL keeps the thread (and Python's handler) from
    running until it returns, which is the very delay a user would wait."""
    due = time.perf_counter() + seconds

    def send() -> None:
        time.sleep(max(0.0, due - time.perf_counter()))
        signal.raise_signal(signal.SIGINT)

    threading.Thread(target=send, daemon=True).start()
    return due


def idle_within(seconds: float) -> bool:
    """Waits until this process uses no CPU (an interrupted lab run winds down on its own
    threads), so that the next case runs on quiet cores; False after ``seconds``."""
    last = time.process_time()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        time.sleep(0.2)
        now = time.process_time()
        if now - last < 0.01:
            return True
        last = now
    return False


@pytest.mark.parametrize("name", list(CASES))
def test_ctrl_c_stops_the_call(name: str, ctrl_c: None) -> None:
    setup, call = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # caveats of the fits, not this test's business
        state = setup()
        due = interrupt_after(SEND_AFTER)
        ended: List[float] = []
        with pytest.raises(KeyboardInterrupt):
            call(state)
            ended.append(time.perf_counter())
            time.sleep(SEND_AFTER + 1.0)  # the signal lands here when the call ended first
        stopped = time.perf_counter()
    assert not ended or ended[0] >= due, f"{name}: the call ended before the interrupt was due"
    latency = stopped - due
    print(f"{name}: KeyboardInterrupt {latency * 1000:.0f} ms after SIGINT")
    if name.startswith("lab."):
        idle_within(30.0)
    assert latency < LATENCY, f"{name}: KeyboardInterrupt came {latency:.3f} s after SIGINT"
