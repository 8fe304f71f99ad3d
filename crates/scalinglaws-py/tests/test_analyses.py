"""Bindings of the analyses: typed results of the same documents as the commands' --json."""

import dataclasses
import json
import math

import pandas as pd
import pytest

import scalinglaws as sl
from conftest import EXAMPLE, PROTOCOL, ROOT, TESTDATA, TRACKS, cli_json, shared, undeclared

EPOCH = {"E": 1.81686, "A": 482.00572, "alpha": 0.34781, "B": 2085.43420, "beta": 0.36585}


def test_laws_lists_the_catalog() -> None:
    catalog = sl.laws()
    assert all(isinstance(law, sl.LawInfo) and not undeclared(law) for law in catalog)
    names = [law.name for law in catalog]
    assert "chinchilla" in names and "moe" in names
    chinchilla = catalog[names.index("chinchilla")]
    assert chinchilla.variables == ["N", "D"] and "alpha" in chinchilla.parameters


def test_optimal_from_published_parameters_and_from_a_bootstrapped_fit() -> None:
    frontier = sl.optimal(law="chinchilla", params=EPOCH, budget=5.88e23)
    assert isinstance(frontier, sl.Frontier) and not undeclared(frontier)
    allocation = frontier.allocations[0]
    assert isinstance(allocation, sl.Allocation)
    assert math.isclose(allocation.N, 7.312e10, rel_tol=0.01)
    assert math.isclose(allocation.tokens_per_param, 18.33, rel_tol=0.01)
    assert frontier.prediction_intervals is None and allocation.pi is None
    booted = sl.fit(EXAMPLE, bootstrap=30, **PROTOCOL)
    frontier = sl.optimal(booted, budget=[1e22, 1e24])
    assert not undeclared(frontier)
    assert frontier.draws == 30 and "N" in frontier.allocations[1].ci
    low, high = frontier.allocations[1].ci["N"]
    assert low < frontier.allocations[1].N < high
    assert frontier.exponents is not None and frontier.exponents.a > 0
    assert frontier.prediction_intervals is not None and frontier.allocations[0].pi is not None
    with pytest.raises(sl.SettingsError, match="'beta' is missing"):
        sl.optimal(law="chinchilla", params={k: v for k, v in EPOCH.items() if k != "beta"}, budget=1e22)


def test_optimal_with_inference_tokens_and_a_target_loss() -> None:
    sardana = {"E": 1.69, "A": 406.4, "alpha": 0.336, "B": 410.7, "beta": 0.283}
    frontier = sl.optimal(law="chinchilla", params=sardana, target_loss=2.0453, inference_tokens=2e12)
    allocation = frontier.allocations[0]
    assert frontier.goal == "target_loss" and frontier.inference_tokens == 2e12
    assert math.isclose(allocation.N, 6.97e9, rel_tol=0.01)
    assert allocation.reference is not None and abs(allocation.reference.savings - 0.174) < 0.005


def test_results_keep_the_document_and_read_like_it() -> None:
    frontier = sl.optimal(law="chinchilla", params=EPOCH, budget=[1e22, 1e24])
    document = frontier.to_dict()
    # Dict-style reads give the document's plain values, as the dicts returned before did.
    assert frontier["allocations"][1]["N"] == frontier.allocations[1].N == document["allocations"][1]["N"]
    assert "exponents" in frontier and "prediction_intervals" not in frontier
    assert frontier.get("prediction_intervals", 7) == 7 and dict(frontier) == document
    assert json.loads(json.dumps(document)) == document
    # A copy: changing it changes nothing in the result.
    document["draws"] = 99
    frontier["allocations"][0]["N"] = -1.0
    assert frontier.draws == 0 and frontier["allocations"][0]["N"] == frontier.allocations[0].N > 0
    assert sl.Frontier.from_dict(frontier.to_dict()) == frontier
    with pytest.raises(dataclasses.FrozenInstanceError):
        frontier.draws = 1  # type: ignore[misc]
    text = repr(frontier)
    assert text.startswith("Frontier(allocations=[2 Allocation]") and "flops='6*N*D'" in text and "\n" not in text
    # A result built by hand writes its document from its fields.
    point = sl.LocalCurve(coefficients=[1.0, -0.5], from_=1e8, to=1e9)
    assert point.to_dict() == {"coefficients": [1.0, -0.5], "from": 1e8, "to": 1e9}
    assert sl.LocalCurve.from_dict(point.to_dict()) == point
    # A key the library always writes must be there; one it leaves out when empty reads as empty.
    with pytest.raises(KeyError, match="Frontier.flops"):
        sl.Frontier.from_dict({k: v for k, v in frontier.to_dict().items() if k != "flops"})
    assert sl.Frontier.from_dict({**frontier.to_dict(), "allocations": []}).allocations == []


def test_tables_for_a_notebook() -> None:
    frontier = sl.optimal(law="chinchilla", params=EPOCH, budget=[1e22, 1e23, 1e24])
    table = frontier.to_frame()
    assert list(table["budget"]) == [1e22, 1e23, 1e24]
    assert list(table["N"]) == [a.N for a in frontier.allocations]
    assert list(table.columns[:5]) == ["budget", "N", "D", "tokens_per_param", "loss"]


PORIAN_KEYS = ["dataset", "hparams", "warmup", "decay", "param_count", "val"]


def test_isoflop_on_porian_et_al_matches_the_command_line_and_the_paper(cli) -> None:
    path = TESTDATA / "porian2024" / "isoflop_points.csv"
    result = sl.isoflop(path, compute="flops", size="n", target="loss", tokens="t", group=PORIAN_KEYS)
    assert isinstance(result, sl.IsoflopAnalysis) and not undeclared(result)
    assert len(result.groups) == 15
    # The command line on the same data and settings: the same numbers, to rounding (the same
    # library code runs in both, so a relative 1e-12 is slack only for the JSON round trip).
    groups = [a for k in PORIAN_KEYS for a in ("--group", k)]
    expected = cli_json(
        cli, "isoflop", str(path), "--compute", "flops", "--size", "n", "--target", "loss",
        "--tokens", "t", *groups,
    )["groups"]
    assert len(expected) == 15
    for ours, theirs in zip(result.groups, expected):
        assert isinstance(ours, sl.IsoflopGroup) and ours.group == theirs["group"]
        assert ours.approach == theirs["approach"] == "profiles" and ours.shape == theirs["shape"]
        for name in ("n_star", "d_star"):
            law, reference = getattr(ours, name), theirs[name]
            for key in ("exponent", "coef", "r2"):
                assert getattr(law, key) == pytest.approx(reference[key], rel=1e-12), (ours.group, name, key)
        assert len(ours.budgets) == len(theirs["budgets"])
        for budget, reference in zip(ours.budgets, theirs["budgets"]):
            assert budget.budget == reference["budget"] and budget.points == reference["points"]
            for key in ("N", "D", "loss"):
                value = getattr(budget, key)
                if reference[key] is None:
                    assert value is None, (ours.group, budget.budget, key)
                else:
                    assert value == pytest.approx(reference[key], rel=1e-12), (ours.group, budget.budget, key)
    # And the paper (Porian et al. 2024, testdata/porian2024/fit_results.json): each exponent a
    # of N* ∝ C^a within 0.03 of the authors' fit, as crates/scalinglaws/tests/integration/isoflop.rs holds.
    published = {
        tuple(f[k] for k in PORIAN_KEYS): f["basic"]["n_exponent"]
        for f in json.loads((TESTDATA / "porian2024" / "fit_results.json").read_text())
    }
    table = result.to_frame()
    assert len(table) == 15 and list(table.columns[:6]) == sorted(PORIAN_KEYS)
    for group, row in zip(result.groups, table.itertuples()):
        assert group.n_star is not None
        a = group.n_star.exponent
        assert abs(a - published[tuple(group.group[k] for k in PORIAN_KEYS)]) <= 0.03, (group.group, a)
        assert row.n_star_exponent == a
    # The Kaplan-style setup on RefinedWeb and the tuned one: 0.835 → 0.497 in the paper.
    by_key = {tuple(g.group[k] for k in PORIAN_KEYS): g for g in result.groups}
    kaplan = by_key[("rw", "base", "long", "kaplan", "kaplan", "train")].n_star
    assert kaplan is not None and abs(kaplan.exponent - 0.835) <= 0.03


def test_compare_recovers_the_example_multiplier() -> None:
    result = sl.compare(TRACKS, law="chinchilla", target="loss", track="recipe", budget=1e21, bootstrap=50)
    assert isinstance(result, sl.TrackComparison) and not undeclared(result)
    at = result.pairs[0].budgets[0]
    assert at.multiplier.ci is not None
    low, high = at.multiplier.ci
    assert low < 2.0 < high
    assert [t.track for t in result.tracks] == [result.pairs[0].baseline, result.pairs[0].track]
    table = result.to_frame()
    assert len(table) == 1 and table["multiplier_low"][0] == low and table["multiplier"][0] == at.multiplier.value
    frame = pd.read_csv(TRACKS)
    joint = sl.compare(frame, law="chinchilla", target="loss", track="recipe", shared=["E", "alpha", "beta"])
    assert joint.shared == ["E", "alpha", "beta"]
    assert all(p.shared == (p.name in joint.shared) for t in joint.tracks for p in t.params)


def test_backtest_scores_held_out_runs() -> None:
    result = sl.backtest(EXAMPLE, by="C", holdout_frac=0.2, **PROTOCOL)
    assert isinstance(result, sl.Backtest) and not undeclared(result)
    split = result.splits[0]
    assert split.test_rows == 48 and len(split.points) == 48, split
    assert split.metrics is not None and split.metrics.points == 48
    table = result.to_frame()
    assert len(table) == 48 and list(table["predicted"]) == [p.predicted for p in split.points]
    assert set(table["split"]) == {0} and list(table["row"]) == [p.row for p in split.points]
    with pytest.raises(sl.SettingsError, match="exactly one"):
        sl.backtest(EXAMPLE, by="C", **PROTOCOL)


def test_non_finite_settings_are_settings_errors() -> None:
    with pytest.raises(sl.SettingsError, match="budget="):
        sl.optimal(law="chinchilla", params=EPOCH, budget=float("nan"))
    with pytest.raises(sl.SettingsError, match="not a parameter"):
        sl.optimal(law="chinchilla", params={**EPOCH, "gamma": 1.0}, budget=1e22)


def test_lr_matches_the_command_line_and_flags_the_real_sweep() -> None:
    sweep = EXAMPLE.parent.parent / "lr" / "sweep.csv"
    result = sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss", predict=[(7e9, 1.4e11)])
    assert isinstance(result, sl.LrAnalysis) and not undeclared(result)
    assert len(result.cells) == 25 and len(result.to_frame()) == 25
    assert result.law is not None
    a = next(p for p in result.law.params if p.name == "a")
    assert a.ci[0] < -0.282 < a.ci[1]
    assert result.predictions[0].ci[0] < result.predictions[0].lr_opt
    assert result.counts.cells == 25 and result.backtest.n_extrapolation.description
    with pytest.raises(sl.SettingsError, match="law=: give 'loglinear' or 'curved', not 'bent'"):
        sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss", law="bent")
    # The real sweep has no license: read beside the checkout, the rest skipped where absent.
    frame = pd.read_csv(shared("lr_sweep_misfitting/lr_sweep_dense_tidy.csv", "the real sweep's part"))
    with pytest.raises(sl.DataError, match="C4 Eval Loss"):
        sl.lr(frame, lr="lr", size="N", tokens="D", target="loss", map={"loss": "C4 Eval Loss"})
    real = sl.lr(
        frame, lr="lr", size="N", tokens="D", target="loss", map={"loss": "C4 Eval Loss"}, where="loss > 0"
    )
    assert real.runs == 220 and not undeclared(real)
    assert all(not c.used for c in real.cells if c.edge or c.status == "few_lrs")


def test_isoflop_predicts_at_new_budgets_and_backtests() -> None:
    runs = ROOT / "examples" / "isoflop" / "runs.csv"
    result = sl.isoflop(str(runs), compute="C", size="N", target="loss", budget=3.16e22)
    assert not undeclared(result)
    group = result.groups[0]
    assert isinstance(group, sl.IsoflopGroup) and group.group == {}
    assert group.shape == "parabola:all"
    prediction = group.predictions[0]
    assert prediction.D.interval is not None
    low, high = prediction.D.interval
    assert low < 6.07e11 < high
    assert list(group.to_frame()["budget"]) == [b.budget for b in group.budgets]
    backtest = sl.isoflop(str(runs), compute="C", size="N", target="loss", backtest=2)
    assert not undeclared(backtest)
    held = backtest.groups[0]
    assert isinstance(held, sl.IsoflopBacktestGroup) and held.approach == "backtest"
    assert len(held.held_out) == 2 and isinstance(held.training, sl.Isoflop)
    table = held.to_frame()
    assert list(table["budget"]) == [h.predicted.budget for h in held.held_out]
    assert list(table["observed_D"]) == [h.observed_D for h in held.held_out]
    with pytest.raises(sl.SettingsError, match="calibrate=False"):
        sl.isoflop(str(runs), compute="C", size="N", target="loss", calibrate=False)


def test_isoflop_method_chooses_what_predicts_at_new_budgets() -> None:
    runs = str(ROOT / "examples" / "isoflop" / "runs.csv")
    columns = dict(compute="C", size="N", target="loss", budget=3.16e22, bootstrap=50)
    auto = sl.isoflop(runs, **columns, method="auto")
    choice = auto.groups[0].method_choice
    assert choice is not None and choice.method == "auto" and "standard error" in choice.reason
    assert not undeclared(auto)
    joint = sl.isoflop(runs, **columns, method="joint")
    group = joint.groups[0]
    assert group.method_choice is not None and isinstance(group.method_choice.chosen, sl.JointCandidate)
    assert group.joint is not None and group.joint.fit.law == "chinchilla"
    assert len(group.profile_predictions) == 1 and not undeclared(joint)
    # Hoffmann et al.'s law, whose runs these are: N* = 8.68e9 at 3.16e22 FLOPs.
    low, high = group.predictions[0].N.interval
    assert low < 8.68e9 < high
    profiles = sl.isoflop(runs, **columns, method="profiles").groups[0]
    assert profiles.method_choice is None and profiles.joint is None
    # The default (method=None) is the library's: the per-budget minima, as "profiles".
    default = sl.isoflop(runs, **columns).groups[0]
    assert default.method_choice is None and default.joint is None
    assert not default.profile_predictions
    assert default.predictions[0].D.value == pytest.approx(profiles.predictions[0].D.value, rel=1e-12)
    with pytest.raises(sl.SettingsError, match="parabola"):
        sl.isoflop(runs, **columns, method="parabola")


def test_lr_names_a_swept_batch_column_in_python_words() -> None:
    sweep = EXAMPLE.parent.parent / "lr" / "sweep_batch.csv"
    pooled = sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss")
    assert [s.column for s in pooled.swept] == ["batch"]
    assert '(batch="batch")' in pooled.warnings[0]
    batched = sl.lr(sweep, lr="peak_lr", size="params", tokens="tokens", target="loss", batch="batch")
    assert batched.swept == [] and batched.batch is not None and not undeclared(batched)


def test_the_envelope_matches_the_command_line(cli) -> None:
    checkpoints = TESTDATA / "gemstones" / "wandb_dfs" / "wandb_df_for_fitting_hot_477.jsonl"
    settings = dict(compute="C", size="params_active_precise", tokens="tokens", target="final_loss")
    result = sl.isoflop(
        checkpoints, **settings, envelope="hull", run="run_name", bootstrap=20,
        where="step > 0", derive={"C": "6*params_active_precise*tokens"},
    )
    assert not undeclared(result)
    group = result.groups[0]
    assert isinstance(group, sl.EnvelopeGroup) and group.approach == "envelope" and group.runs == 22
    expected = cli_json(
        cli, "isoflop", str(checkpoints), "--target", "final_loss", "--where", "step > 0",
        "--derive", "C=6*params_active_precise*tokens", "--compute", "C", "--size",
        "params_active_precise", "--tokens", "tokens", "--envelope", "hull", "--run", "run_name",
        "--bootstrap", "20",
    )["groups"][0]
    # Same data, settings and seed: the same envelope and exponents, to rounding (rel 1e-12).
    assert group.n_star is not None and group.n_star.ci is not None
    assert group.n_star.exponent == pytest.approx(expected["n_star"]["exponent"], rel=1e-12)
    assert list(group.n_star.ci) == pytest.approx(expected["n_star"]["ci"], rel=1e-12)
    table = group.to_frame()
    assert list(table["loss"]) == pytest.approx([p["loss"] for p in expected["points"]], rel=1e-12)
    assert list(table["run"]) == [p.get("run") for p in expected["points"]]


def test_richer_documents_are_declared_in_full(chinchilla_frame: pd.DataFrame) -> None:
    sardana = {"E": 1.69, "A": 406.4, "alpha": 0.336, "B": 410.7, "beta": 0.283}
    frontier = sl.optimal(law="chinchilla", params=sardana, target_loss=[2.0453, 2.1], inference_tokens=2e12)
    assert not undeclared(frontier) and frontier.allocations[0].reference is not None
    rolling = sl.backtest(chinchilla_frame, by="C", rolling=2, calibrate=True, bootstrap=20, **PROTOCOL)
    assert not undeclared(rolling) and len(rolling.splits) == 2
    assert all(s.calibration is not None for s in rolling.splits)
    assert len(rolling.to_frame()) == sum(len(s.points) for s in rolling.splits)
    joint = sl.compare(
        TRACKS, law="chinchilla", target="loss", track="recipe", shared=["E", "alpha", "beta"],
        budget=[1e20, 1e21], bootstrap=20,
    )
    assert not undeclared(joint) and len(joint.to_frame()) == 2
    assert all(isinstance(name, str) and isinstance(d, sl.TrackEstimate) for name, d in joint.pairs[0].differences)


@pytest.fixture(scope="module")
def chinchilla_frame() -> pd.DataFrame:
    return pd.read_csv(EXAMPLE)


PYTHIA = ROOT / "examples" / "downstream" / "pythia_zero_shot.csv"
PYTHIA_COLUMNS = dict(target="accuracy", size="params", tokens="tokens", trials="questions", chance="chance", loss="loss")


def test_downstream_returns_per_task_forecasts_as_the_command_line(cli) -> None:
    held = ["pythia-12b", "pythia-12b-deduped"]
    result = sl.downstream(str(PYTHIA), holdout=held, **PYTHIA_COLUMNS)
    assert isinstance(result, sl.DownstreamAnalysis) and not undeclared(result)
    expected = cli_json(
        cli, "downstream", str(PYTHIA), "--target", "accuracy", "--size", "params", "--tokens", "tokens",
        "--trials", "questions", "--chance", "chance", "--loss", "loss", "--holdout", ",".join(held),
    )
    assert [s.method for s in result.scores] == [s["method"] for s in expected["scores"]]
    for ours, theirs in zip(result.scores, expected["scores"]):
        assert ours.mae == pytest.approx(theirs["mae"], rel=1e-12)
    frame = result.to_frame()
    assert len(frame) == len(result.forecasts) == 2 * sum(t.shape != "at_chance" for t in result.tasks)
    for column in ("pooled", "pooled_low", "pooled_high", "logistic", "two_stage_low", "observed"):
        assert column in frame.columns
    assert ((frame["pooled_low"] <= frame["pooled"]) & (frame["pooled"] <= frame["pooled_high"])).all()
    assert frame["observed"].notna().all()


def test_downstream_forecasts_a_new_model_and_refuses_bad_requests() -> None:
    result = sl.downstream(str(PYTHIA), at=[{"N": 3e10, "D": 3e11}], **PYTHIA_COLUMNS)
    assert all(f.mode == "across_sizes" and f.pooled is not None for f in result.forecasts)
    assert result.to_frame()["observed"].isna().all()
    with pytest.raises(sl.SettingsError, match="at= or holdout|needs targets"):
        sl.downstream(str(PYTHIA), **PYTHIA_COLUMNS)
    with pytest.raises(sl.SettingsError, match="holdout"):
        sl.downstream(str(PYTHIA), holdout=["pythia-13b"], **PYTHIA_COLUMNS)
    with pytest.raises(sl.SettingsError, match="chance"):
        sl.downstream(str(PYTHIA), holdout=["pythia-12b"], **{**PYTHIA_COLUMNS, "chance": 1.5})


# The README's design (its section "What to run next"), with fewer draws and refits.
DESIGN = dict(
    goal=["optimal_loss@1e23", "tokens_per_param@1e23"],
    candidates="N=1e8..1e11,D=1e9..1e13",
    spend=1e21,
    runs=8,
    draws=8,
    simulations=20,
)
RUNS_CLI = [
    "design", str(EXAMPLE), "--law", "chinchilla", "--target", "loss", "--map", "N=Model Size",
    "--map", "C=Training FLOP", "--derive", "D=C/(6*N)", "--where", "loss < 3.44",
]
DESIGN_CLI = RUNS_CLI + [
    "--goal", "optimal_loss@1e23", "--goal", "tokens_per_param@1e23",
    "--spend", "1e21", "--runs", "8", "--draws", "8", "--simulations", "20",
]
# Epoch's fit as a prior, alpha known only to lie in 0.2..0.5.
PRIOR = {"E": 1.81686, "A": 482.00572, "alpha": (0.2, 0.5), "B": 2085.43420, "beta": 0.36585}
PRIOR_CLI = "E=1.81686,A=482.00572,alpha=0.2..0.5,B=2085.4342,beta=0.36585"


@pytest.fixture(scope="module")
def designed() -> sl.DesignAnalysis:
    return sl.design(EXAMPLE, **DESIGN, **PROTOCOL)


def test_design_is_the_command_line_s_document(cli, designed, tmp_path) -> None:
    assert isinstance(designed, sl.DesignAnalysis) and not undeclared(designed)
    csv = tmp_path / "next_runs.csv"
    expected = cli_json(cli, *DESIGN_CLI, "--candidates", DESIGN["candidates"], "--csv", str(csv))
    assert designed.to_dict() == expected
    assert sl.DesignAnalysis.from_dict(expected) == designed
    assert len(designed.runs) <= 8 and designed.cost <= 1e21 and designed.candidates > 0
    assert [t.target for t in designed.targets] == ["optimal_loss@1e23", "tokens_per_param@1e23"]
    assert all(isinstance(r, sl.PlannedRun) and set(r.point) == {"N", "D"} for r in designed.runs)
    assert isinstance(designed.simulation, sl.SimulationCheck) and designed.simulation.simulations == 20
    assert designed.rounds == [] and designed.targets[0].width_fit is not None
    # The runs to launch are the command's --csv: the law's variables in its order, the cost,
    # and each goal's width once the run is added (its numbers exact: the CSV's digits read
    # back as the same values).
    frame = designed.to_frame()
    pd.testing.assert_frame_equal(frame, pd.read_csv(csv), check_dtype=False, check_exact=True)
    assert list(frame.columns) == [
        "N", "D", "cost", "width_after_optimal_loss@1e23", "width_after_tokens_per_param@1e23",
    ]
    assert len(frame) == len(designed.runs) and frame["cost"].sum() == pytest.approx(designed.cost)
    assert (frame["width_after_optimal_loss@1e23"].diff().dropna() <= 1e-12).all()
    targets = designed.targets_frame()
    assert list(targets["target"]) == [t.target for t in designed.targets]
    assert (targets["width_after"] <= targets["width_now"]).all()
    assert targets["width_simulated"].notna().all()


def test_design_with_a_sequential_campaign_and_read_back(designed) -> None:
    campaign = sl.design(EXAMPLE, **{**DESIGN, "simulations": 0, "sequential": 2}, **PROTOCOL)
    assert campaign.simulation is None and len(campaign.rounds) == 2
    assert all(isinstance(r, sl.Round) and len(r.widths_expected) == 2 for r in campaign.rounds)
    assert campaign.targets_frame()["width_simulated"].isna().all()
    # Read back from its document, the table keeps the law's order of the variables (the
    # document names them).
    again = sl.DesignAnalysis.from_dict(designed.to_dict())
    pd.testing.assert_frame_equal(again.to_frame(), designed.to_frame())


def test_design_before_any_run_from_a_prior(cli) -> None:
    goal = "tokens_per_param@1e23"
    grid = "N=1e7..1e10,D=1e8..1e12"
    result = sl.design(law="chinchilla", prior=PRIOR, noise=0.01, goal=goal, candidates=grid,
                       spend=1e20, runs=4, draws=8)
    assert not undeclared(result) and result.simulation is None and result.noise == 0.01
    assert result.notes[0].startswith("designed before any run, from the prior")
    assert result.targets[0].width_fit is None and len(result.to_frame()) == len(result.runs)
    expected = cli_json(
        cli, "design", "--law", "chinchilla", "--prior", PRIOR_CLI, "--noise", "0.01", "--goal", goal,
        "--candidates", grid, "--spend", "1e20", "--runs", "4", "--draws", "8",
    )
    assert result.to_dict() == expected
    # A wider prior sd of the values given widens the goal's interval now.
    wider = sl.design(law="chinchilla", prior=PRIOR, prior_sd=1.0, noise=0.01, goal=goal,
                      candidates=grid, spend=1e20, runs=4, draws=8)
    assert wider.targets[0].width_now > result.targets[0].width_now


def test_design_refuses_what_it_would_otherwise_ignore() -> None:
    before = dict(law="chinchilla", goal="optimal_loss@1e23", candidates="N=1e8..1e11,D=1e9..1e13")
    # Every rule is the library's, worded in Python's terms.
    with pytest.raises(sl.SettingsError, match=r"^prior= is for a design before any run.*drop the data"):
        sl.design(EXAMPLE, prior=PRIOR, noise=0.01, **before)
    with pytest.raises(sl.SettingsError, match=r"reads and fits no runs: drop target=, where="):
        sl.design(prior=PRIOR, noise=0.01, target="loss", where="loss < 3", **before)
    with pytest.raises(sl.SettingsError, match=r"drop bounds="):
        sl.design(prior=PRIOR, noise=0.01, bounds={"E": (0, 3)}, **before)
    with pytest.raises(sl.SettingsError, match=r"their data and target=\), or prior= and noise="):
        sl.design(EXAMPLE, **before)
    with pytest.raises(sl.SettingsError, match=r"their data and target=\), or prior= and noise="):
        sl.design(**before)
    with pytest.raises(sl.SettingsError, match="^delimiter=: applies only when data is a file"):
        sl.design(prior=PRIOR, noise=0.01, delimiter=",", **before)
    with pytest.raises(sl.SettingsError, match=r"simulations=20 with prior=.*drop simulations="):
        sl.design(prior=PRIOR, noise=0.01, simulations=20, **before)
    with pytest.raises(sl.SettingsError, match="prior_sd=.*give prior= too"):
        sl.design(EXAMPLE, prior_sd=0.3, **PROTOCOL, **{k: v for k, v in before.items() if k != "law"})
    # The library's refusals, in Python's words.
    with pytest.raises(sl.SettingsError, match="^sequential: 2 rounds before any run"):
        sl.design(prior=PRIOR, noise=0.01, sequential=2, **before)
    with pytest.raises(sl.SettingsError, match="^noise: with no runs so far"):
        sl.design(prior=PRIOR, **before)
    with pytest.raises(sl.SettingsError, match="^prior: 'beta' has no prior"):
        sl.design(prior={k: v for k, v in PRIOR.items() if k != "beta"}, noise=0.01, **before)
    with pytest.raises(sl.SettingsError, match=r"^prior: 'alpha': give a finite value, or a range"):
        sl.design(prior={**PRIOR, "alpha": (0.5, 0.2)}, noise=0.01, **before)
    with pytest.raises(sl.SettingsError, match="^prior_sd: "):
        sl.design(prior=PRIOR, prior_sd=-1.0, noise=0.01, **before)
    with pytest.raises(sl.SettingsError, match="^goal: 'optimal_los@1e23'"):
        sl.design(prior=PRIOR, noise=0.01, **{**before, "goal": "optimal_los@1e23"})
    with pytest.raises(sl.SettingsError, match=r"^per_decade=, max_cost= shape a grid"):
        sl.design(prior=PRIOR, noise=0.01, per_decade=4, max_cost=1e20,
                  **{**before, "candidates": [{"N": 1e9, "D": 2e10}]})
    with pytest.raises(sl.SettingsError, match="^spend: the spend must be positive"):
        sl.design(prior=PRIOR, noise=0.01, spend=-1, **before)
    with pytest.raises(sl.SettingsError, match="^tokens_per_param: 5..1: give LOW..HIGH"):
        sl.design(prior=PRIOR, noise=0.01, tokens_per_param=(5, 1), **before)
    with pytest.raises(sl.SettingsError, match="^runs: 0 runs; a batch has 1 to"):
        sl.design(prior=PRIOR, noise=0.01, runs=0, **before)
    # "any" keeps every ratio of tokens to parameters (None: the library's 2 to 500).
    anywhere = sl.design(prior=PRIOR, noise=0.01, tokens_per_param="any", runs=2, draws=4, **before)
    assert anywhere.candidates > sl.design(prior=PRIOR, noise=0.01, runs=2, draws=4, **before).candidates


def test_design_takes_a_list_of_candidate_runs(cli, tmp_path) -> None:
    runs = pd.DataFrame({
        "name": ["a", "b", "c", "d", "e"],
        "N": [1e8, 3e8, 1e9, 3e9, 1e10],
        "D": [2e9, 6e9, 2e10, 6e10, 2e11],
    })
    options = dict(goal="optimal_loss@1e23", runs=3, draws=8, simulations=20, **PROTOCOL)
    result = sl.design(EXAMPLE, candidates=runs, **options)
    assert result.candidates == 5 and len(result.runs) == 3
    chosen = result.to_frame()
    assert list(chosen.columns) == ["N", "D", "cost", "width_after_optimal_loss@1e23"]
    assert set(zip(chosen["N"], chosen["D"])) <= set(zip(runs["N"], runs["D"]))
    # The same runs as a list of dicts, and as the command's --candidates-file.
    listed = runs.drop(columns="name").to_dict("records")
    assert sl.design(EXAMPLE, candidates=listed, **options).to_dict() == result.to_dict()
    # A run's text values (its name) are left out of a list, as a DataFrame's text columns.
    named = runs.to_dict("records")
    assert sl.design(EXAMPLE, candidates=named, **options).to_dict() == result.to_dict()
    # A number written as text is no name: refused by keyword, not left out.
    with pytest.raises(sl.SettingsError, match=r"^candidates=: give"):
        sl.design(EXAMPLE, candidates=[{"N": "1e9", "D": 2e10}], **options)
    path = tmp_path / "candidates.csv"
    runs.to_csv(path, index=False)
    expected = cli_json(cli, *RUNS_CLI, "--goal", "optimal_loss@1e23", "--runs", "3",
                        "--draws", "8", "--simulations", "20", "--candidates-file", str(path))
    assert result.to_dict() == expected
    # A run without a law variable, or with a value that is not positive, is refused by row.
    with pytest.raises(sl.SettingsError, match="^candidates: .*'D' is missing"):
        sl.design(EXAMPLE, candidates=[{"N": 1e9}], **options)
    with pytest.raises(sl.SettingsError, match=r"^candidates: run 3 \(counting from 1\), 'N': -1 is not positive"):
        sl.design(EXAMPLE, candidates=runs.set_index("name").assign(N=[1e8, 3e8, -1.0, 3e9, 1e10]), **options)
