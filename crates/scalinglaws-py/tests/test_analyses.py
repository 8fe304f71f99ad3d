"""Bindings of the analyses: the same documents as the commands' --json."""

import math

import pandas as pd
import pytest

import scalinglaws as sl
from conftest import EXAMPLE, PROTOCOL, ROOT, TESTDATA, TRACKS, shared

EPOCH = {"E": 1.81686, "A": 482.00572, "alpha": 0.34781, "B": 2085.43420, "beta": 0.36585}


def test_laws_lists_the_catalog() -> None:
    names = [law["name"] for law in sl.laws()]
    assert "chinchilla" in names and "moe" in names


def test_optimal_from_published_parameters_and_from_a_bootstrapped_fit() -> None:
    frontier = sl.optimal(law="chinchilla", params=EPOCH, budget=5.88e23)
    allocation = frontier["allocations"][0]
    assert math.isclose(allocation["N"], 7.312e10, rel_tol=0.01)
    assert math.isclose(allocation["tokens_per_param"], 18.33, rel_tol=0.01)
    booted = sl.fit(EXAMPLE, bootstrap=30, **PROTOCOL)
    frontier = sl.optimal(booted, budget=[1e22, 1e24])
    assert frontier["draws"] == 30 and "N" in frontier["allocations"][1]["ci"]
    assert frontier["exponents"]["a"] > 0
    with pytest.raises(sl.SettingsError, match="'beta' is missing"):
        sl.optimal(law="chinchilla", params={k: v for k, v in EPOCH.items() if k != "beta"}, budget=1e22)


def test_optimal_with_inference_tokens_and_a_target_loss() -> None:
    sardana = {"E": 1.69, "A": 406.4, "alpha": 0.336, "B": 410.7, "beta": 0.283}
    frontier = sl.optimal(law="chinchilla", params=sardana, target_loss=2.0453, inference_tokens=2e12)
    allocation = frontier["allocations"][0]
    assert math.isclose(allocation["N"], 6.97e9, rel_tol=0.01)
    assert abs(allocation["reference"]["savings"] - 0.174) < 0.005


def test_isoflop_on_porian_et_al() -> None:
    path = TESTDATA / "porian2024" / "isoflop_points.csv"
    result = sl.isoflop(
        path, compute="flops", size="n", target="loss", tokens="t",
        group=["dataset", "hparams", "warmup", "decay", "param_count", "val"],
    )
    assert len(result["groups"]) == 15
    assert all(g["n_star"]["exponent"] > 0 for g in result["groups"])


def test_compare_recovers_the_example_multiplier() -> None:
    result = sl.compare(TRACKS, law="chinchilla", target="loss", track="recipe", budget=1e21, bootstrap=50)
    at = result["pairs"][0]["budgets"][0]
    low, high = at["multiplier"]["ci"]
    assert low < 2.0 < high
    frame = pd.read_csv(TRACKS)
    joint = sl.compare(frame, law="chinchilla", target="loss", track="recipe", shared=["E", "alpha", "beta"])
    assert joint["shared"] == ["E", "alpha", "beta"]


def test_backtest_scores_held_out_runs() -> None:
    result = sl.backtest(EXAMPLE, by="C", holdout_frac=0.2, **PROTOCOL)
    metrics = result["metrics"] if "metrics" in result else result["splits"][0]
    assert result["splits"][0]["test_rows"] == 48, metrics
    with pytest.raises(sl.SettingsError, match="exactly one"):
        sl.backtest(EXAMPLE, by="C", **PROTOCOL)


def test_non_finite_settings_are_settings_errors() -> None:
    with pytest.raises(sl.SettingsError, match="budgets"):
        sl.optimal(law="chinchilla", params=EPOCH, budget=float("nan"))
    with pytest.raises(sl.SettingsError, match="not a parameter"):
        sl.optimal(law="chinchilla", params={**EPOCH, "gamma": 1.0}, budget=1e22)


def test_lr_matches_the_command_line_and_flags_the_real_sweep() -> None:
    sweep = EXAMPLE.parent.parent / "lr" / "sweep.csv"
    result = sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss", predict=[(7e9, 1.4e11)])
    assert len(result["cells"]) == 25
    a = next(p for p in result["law"]["params"] if p["name"] == "a")
    assert a["ci"][0] < -0.282 < a["ci"][1]
    assert result["predictions"][0]["ci"][0] < result["predictions"][0]["lr_opt"]
    with pytest.raises(sl.SettingsError, match="law 'bent'"):
        sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss", law="bent")
    # The real sweep has no license: read beside the checkout, the rest skipped where absent.
    frame = pd.read_csv(shared("lr_sweep_misfitting/lr_sweep_dense_tidy.csv", "the real sweep's part"))
    with pytest.raises(sl.DataError, match="C4 Eval Loss"):
        sl.lr(frame, lr="lr", size="N", tokens="D", target="loss", map={"loss": "C4 Eval Loss"})
    real = sl.lr(
        frame, lr="lr", size="N", tokens="D", target="loss", map={"loss": "C4 Eval Loss"}, where="loss > 0"
    )
    assert real["runs"] == 220
    assert all(not c["used"] for c in real["cells"] if c["edge"] or c["status"] == "few_lrs")


def test_isoflop_predicts_at_new_budgets_and_backtests() -> None:
    runs = ROOT / "examples" / "isoflop" / "runs.csv"
    result = sl.isoflop(str(runs), compute="C", size="N", target="loss", budget=3.16e22)
    group = result["groups"][0]
    assert group["shape"] == "parabola:all"
    prediction = group["predictions"][0]
    low, high = prediction["D"]["interval"]
    assert low < 6.07e11 < high
    backtest = sl.isoflop(str(runs), compute="C", size="N", target="loss", backtest=2)
    assert backtest["groups"][0]["approach"] == "backtest"
    assert len(backtest["groups"][0]["held_out"]) == 2
    with pytest.raises(sl.SettingsError, match="calibrate=False"):
        sl.isoflop(str(runs), compute="C", size="N", target="loss", calibrate=False)


def test_lr_names_a_swept_batch_column_in_python_words() -> None:
    sweep = EXAMPLE.parent.parent / "lr" / "sweep_batch.csv"
    pooled = sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss")
    assert [s["column"] for s in pooled["swept"]] == ["batch"]
    assert '(batch="batch")' in pooled["warnings"][0]
    batched = sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss", batch="batch")
    assert batched["swept"] == []
