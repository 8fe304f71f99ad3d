"""Bindings of the schedule analysis: fit a loss-curve law to logged runs, predict the curve of
a schedule spec, and find the schedule with the lowest predicted final loss."""

import math
from typing import Dict

import numpy as np
import pandas as pd
import pytest

import scalinglaws as sl
from conftest import undeclared

PEAK, WARMUP, FINAL, TOTAL, DECAY_START = 3e-4, 200, 3e-5, 6000, 4800


def _schedules() -> Dict[str, np.ndarray]:
    """Per-step learning rates 0..TOTAL-1 of a cosine and a WSD run (linear warmup from 0)."""
    s = np.arange(TOTAL, dtype=float)
    warm = np.linspace(0.0, PEAK, WARMUP)
    x = (s - WARMUP) / (TOTAL - WARMUP)
    cosine = FINAL + 0.5 * (PEAK - FINAL) * (1.0 + np.cos(np.pi * x))
    y = np.clip((s - DECAY_START) / (TOTAL - 1 - DECAY_START), 0.0, 1.0)
    wsd = PEAK * (1.0 - y) + FINAL * y
    cosine[:WARMUP] = warm
    wsd[:WARMUP] = warm
    return {"cos": cosine, "wsd": wsd}


def _logs() -> pd.DataFrame:
    """Both runs logged at steps 200, 264, …; loss falls with the lr area and with annealing."""
    logged = np.arange(200, TOTAL + 1, 64)
    logged = logged[logged < TOTAL]
    frames = []
    for run, lrs in _schedules().items():
        area = np.cumsum(lrs)[logged]
        loss = 2.5 + 0.7 * area**-0.45 - 300.0 * (PEAK - lrs[logged])
        frames.append(pd.DataFrame({"run": run, "step": logged, "lr": lrs[logged], "loss": loss}))
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def fit() -> sl.ScheduleFit:
    return sl.schedule_fit(_logs(), run="run", train=["cos"], warmup=WARMUP)


def test_schedule_fit_scores_every_run(fit: sl.ScheduleFit) -> None:
    assert isinstance(fit, sl.ScheduleFit) and not undeclared(fit)
    assert fit.kind == "schedule_fit" and fit.law == "multi_power"
    assert fit.train == ["cos"]
    runs = {r.run: r for r in fit.runs}
    assert list(runs) == ["cos", "wsd"]
    assert runs["cos"].train is True and runs["wsd"].train is False
    assert all(r.r2 is not None and math.isfinite(r.r2) for r in runs.values())
    assert runs["cos"].r2 is not None and runs["cos"].r2 > 0.9
    assert fit.defaults.warmup == WARMUP
    assert math.isclose(fit.defaults.peak, PEAK, rel_tol=1e-9)
    assert [p.name for p in fit.params] and all(math.isfinite(p.value) for p in fit.params)
    table = fit.to_frame()
    assert list(table["run"]) == ["cos", "wsd"] and list(table["r2"]) == [r.r2 for r in fit.runs]


def test_schedule_fit_keeps_to_the_work_budget() -> None:
    """The process's budget bounds the fit (before it was a workflow, its default did)."""
    sl.set_max_work(1e-9)
    try:
        with pytest.raises(sl.SettingsError, match=r"set_max_work"):
            sl.schedule_fit(_logs(), run="run", warmup=WARMUP)
    finally:
        sl.set_max_work(None)


def test_schedule_predict_and_optimize(fit: sl.ScheduleFit) -> None:
    constant = sl.schedule_predict(fit, "constant")
    assert isinstance(constant, sl.SchedulePrediction) and not undeclared(constant)
    assert math.isfinite(constant.final_loss)
    assert constant.steps_total == fit.defaults.steps
    assert len(constant.steps) == len(constant.loss) == len(constant.lr)
    assert list(constant.to_frame()["loss"]) == constant.loss
    # The fit's document (a saved `schedule fit --json`, or the dict returned before) works too.
    assert sl.schedule_predict(fit.to_dict(), "constant") == constant
    every = sl.schedule_predict(fit, f"cosine:final={FINAL}", every=500)
    assert every.steps[:2] == [500, 1000]
    shape_only = sl.schedule_optimize(fit, steps=TOTAL, peak=PEAK)
    assert shape_only.lr is None and "lr" not in shape_only.to_dict()
    assert len(shape_only.to_frame()) == len(shape_only.shape) == 41
    best = sl.schedule_optimize(fit, steps=TOTAL, peak=PEAK, whole_schedule=True)
    assert isinstance(best, sl.OptimizedSchedule) and not undeclared(best)
    assert best.final_loss == shape_only.final_loss
    assert best.settings.warmup == WARMUP
    assert math.isclose(best.settings.floor, PEAK / 1000)
    assert best.final_loss <= min(b.final_loss for b in best.baselines)
    lrs = best.lr
    assert lrs is not None and len(lrs) == TOTAL and lrs[-1] == best.final_lr and best["lr"] == lrs
    tail = np.array(lrs[WARMUP:])
    assert np.all(np.diff(tail) <= 1e-15) and tail.min() >= PEAK / 1000 * (1 - 1e-12)
    assert list(best.to_frame()["lr"]) == lrs


def test_schedule_predict_gives_the_commands_intervals(fit: sl.ScheduleFit) -> None:
    """`bootstrap=K` and `interval="profile"` are `schedule predict`'s `--bootstrap K` and
    `--interval profile`: the band and how it was made as optional parts of one document."""
    plain = sl.schedule_predict(fit, "constant")
    assert plain.band is None and plain.bootstrap is None and plain.profile is None
    boot = sl.schedule_predict(fit, "constant", bootstrap=20, seed=3)
    assert not undeclared(boot) and boot.bootstrap is not None and boot.profile is None
    assert boot.band is not None and boot.loss == plain.loss and boot.bootstrap.seed == 3
    assert all(lo < y < hi for lo, y, hi in zip(boot.band.low, boot.loss, boot.band.high))
    assert boot.held_out is not None and [h.run for h in boot.held_out] == ["wsd"]
    assert "moving-block bootstrap" in str(boot) and "pi low" in str(boot)
    band = sl.schedule_predict(fit, "constant", interval="profile", level=0.9)
    assert not undeclared(band) and band.profile is not None and band.bootstrap is None
    assert band.band is not None and band.band.level == 0.9
    assert "profile likelihood" in str(band)
    with pytest.raises(sl.SettingsError, match=r'interval="bootstrap" needs bootstrap=K'):
        sl.schedule_predict(fit, "constant", interval="bootstrap")
    with pytest.raises(sl.SettingsError, match=r"level sets the prediction intervals' level"):
        sl.schedule_predict(fit, "constant", level=0.9)


def test_schedule_errors_are_the_package_errors(fit: sl.ScheduleFit) -> None:
    with pytest.raises(sl.SettingsError, match="unknown kind"):
        sl.schedule_predict(fit, "triangle")
    # A DataFrame is no file whose name could name its one run: the run column is asked for.
    with pytest.raises(sl.SettingsError, match=r'the DataFrame is not a file .* give run="run"'):
        sl.schedule_fit(_logs(), warmup=WARMUP)
    with pytest.raises(sl.SettingsError, match="law"):
        sl.schedule_fit(_logs(), run="run", law="quadratic")
    with pytest.raises(sl.SettingsError, match="not in the data"):
        sl.schedule_fit(_logs(), run="run", train=["linear"], warmup=WARMUP)
    with pytest.raises(sl.SettingsError, match="not a parameter"):
        sl.schedule_fit(_logs(), run="run", train="cos", warmup=WARMUP, fix={"gamma2": 1.0})
    with pytest.raises(sl.SettingsError, match="not a schedule fit"):
        sl.schedule_predict({"kind": "fit"}, "constant")
    with pytest.raises(sl.SettingsError, match="floor"):
        sl.schedule_optimize(fit, steps=TOTAL, peak=PEAK, floor=1.0)
    logs = {k: list(v) for k, v in _logs().items()}
    logs["loss"][3] = 0.0
    with pytest.raises(sl.DataError, match=r"the dict, index 3\b"):
        sl.schedule_fit(logs, run="run", warmup=WARMUP)


def test_a_cooldowns_spec_lists_its_branches(fit: sl.ScheduleFit) -> None:
    curve = sl.schedule_predict(fit, "cooldowns:every=2000,len=600")
    assert not undeclared(curve) and len(curve.cooldowns) >= 2, curve.cooldowns
    assert all(isinstance(c, sl.CooldownPoint) and c.length == 600 for c in curve.cooldowns)
    assert all(c.loss < c.constant_loss for c in curve.cooldowns)
