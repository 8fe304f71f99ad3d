"""The analyses beyond a fit, in the same pattern: keyword arguments in, a typed result out
(:mod:`scalinglaws._results`), built from the library's JSON document, the same document the
command's `--json` writes (``result.to_dict()`` gives it back; ``result["key"]`` reads it as
before). The schedule functions (loss curves under learning-rate schedules) take their fit as
the :class:`ScheduleFit` that :func:`schedule_fit` returns, or as its document (a dict, e.g. a
saved ``scalinglaws schedule fit --json``)."""

from __future__ import annotations

import json
import numbers
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from . import _scalinglaws
from ._data import DataLike, call_with_data
from ._errors import SettingsError
from ._fit import Fit, dump, fit_options, recipe, warn_threads
from ._results import (
    Backtest,
    DownstreamAnalysis,
    Frontier,
    IsoflopAnalysis,
    LawInfo,
    LrAnalysis,
    OptimizedSchedule,
    ScheduleFit,
    SchedulePrediction,
    SelectionResult,
    TrackComparison,
)

Values = Union[float, Sequence[float]]


def _list(values: Optional[Values]) -> List[float]:
    if values is None:
        return []
    if isinstance(values, (int, float)):
        return [float(values)]
    return [float(v) for v in values]


def laws() -> List[LawInfo]:
    """The catalog: one :class:`LawInfo` (name, summary, formula, variables, parameters,
    default_space, citation) per law."""
    return [LawInfo.from_dict(law) for law in json.loads(_scalinglaws.laws())]


def optimal(
    fit: Optional[Fit] = None,
    *,
    budget: Optional[Values] = None,
    target_loss: Optional[Values] = None,
    law: Optional[str] = None,
    params: Optional[Mapping[str, float]] = None,
    flops: str = "6*N*D",
    set: Optional[Mapping[str, Values]] = None,
    total_params: Optional[str] = None,
    max_params: Optional[float] = None,
    max_active: Optional[float] = None,
    max_tokens: Optional[float] = None,
    inference_tokens: float = 0.0,
    level: Optional[float] = None,
) -> Frontier:
    """Compute-optimal N*, D* at each budget (or the least compute reaching each target
    loss) of a fit, or of a catalog ``law`` with published ``params``; intervals from the
    fit's bootstrap replicates. From a fit, each allocation also gets ``pi``, the prediction
    interval of a new run's loss there, calibrated beyond the data by the fit's calibration
    (``calibrated``, ``distance_decades``), and the fit's own as ``pi_fit``; the frontier's
    ``prediction_intervals`` says which and how. As ``scalinglaws optimal --json``."""
    request = {
        "budgets": _list(budget),
        "target_losses": _list(target_loss),
        "flops": flops,
        "held": {k: _list(v) for k, v in (set or {}).items()},
        "total_params": total_params,
        "max_params": max_params,
        "max_active": max_active,
        "max_tokens": max_tokens,
        "inference_tokens": float(inference_tokens),
        "level": level,
    }
    text = _scalinglaws.optimal(
        dump(request),
        fit_json=fit.to_json() if fit is not None else None,
        law=law,
        params=None if params is None else {k: float(v) for k, v in params.items()},
    )
    return Frontier.from_dict(json.loads(text))


def lr(
    data: DataLike,
    *,
    lr: str,
    size: str,
    tokens: str,
    target: str,
    batch: Optional[str] = None,
    law: str = "loglinear",
    method: str = "joint",
    curvature: str = "law",
    predict: Optional[Sequence[Tuple[float, float]]] = None,
    window: int = 2,
    max_rise: float = 0.15,
    noise: Optional[float] = None,
    holdout: float = 0.25,
    level: float = 0.95,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    delimiter: Optional[str] = None,
) -> LrAnalysis:
    """The learning rate (and batch size) to use at a target scale: per-cell optima with
    flags, the law ln lr* = c + a ln N + b ln D (``law="curved"`` adds squared logs) by the
    joint fit or over cells, the curvature test, predictions at ``predict=[(N, D), ...]``, and
    the D- against N-extrapolation backtest. Give ``batch`` whenever the batch size is swept:
    ``result.swept`` lists other numeric columns that vary within the cells as a swept knob
    would (pooled into one profile per cell), each with a warning naming the keyword that
    handles it (``batch="COLUMN"``, or ``where=`` to keep one value). As ``scalinglaws lr
    --json``."""
    request = {
        **recipe(target, map, derive, where),
        "lr": lr,
        "size": size,
        "tokens": tokens,
        "batch": batch,
        "law": law,
        "method": method,
        "curvature": curvature,
        "predict": [[float(n), float(d)] for n, d in (predict or [])],
        "window": int(window),
        "max_rise": float(max_rise),
        "noise": None if noise is None else float(noise),
        "holdout": float(holdout),
        "level": float(level),
    }
    return LrAnalysis.from_dict(
        json.loads(call_with_data(_scalinglaws.lr, data, delimiter, dump(request)))
    )


def isoflop(
    data: DataLike,
    *,
    compute: str,
    size: str,
    target: str,
    tokens: Optional[str] = None,
    group: Union[None, str, Sequence[str]] = None,
    shape: str = "auto",
    tolerance: float = 1e-3,
    envelope: Optional[str] = None,
    run: Optional[str] = None,
    bootstrap: Optional[int] = None,
    seed: int = 0,
    level: float = 0.95,
    budget: Union[None, float, Sequence[float]] = None,
    backtest: Optional[int] = None,
    calibrate: bool = True,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    delimiter: Optional[str] = None,
) -> IsoflopAnalysis:
    """IsoFLOP analysis per group (or Chinchilla's approach 1 with ``envelope="hull"``):
    minima per budget and the power laws N* ∝ C^a, D* ∝ C^b. ``budget`` predicts N*, D* and
    the loss at new budgets with calibrated intervals; ``backtest=K`` scores the K largest
    budgets held out; ``bootstrap`` defaults to 1000 with either, else 0. As ``scalinglaws
    isoflop --json``."""
    budgets = [float(budget)] if isinstance(budget, (int, float)) else [float(b) for b in budget or []]
    if bootstrap is None:
        bootstrap = 1000 if budgets or backtest is not None else 0
    request = {
        **recipe(target, map, derive, where),
        "compute": compute,
        "size": size,
        "tokens": tokens,
        "group": [group] if isinstance(group, str) else list(group or []),
        "shape": shape,
        "tolerance": float(tolerance),
        "envelope": envelope,
        "run": run,
        "bootstrap": int(bootstrap),
        "seed": int(seed),
        "level": float(level),
        "budget": budgets,
        "backtest": None if backtest is None else int(backtest),
        "calibrate": bool(calibrate),
    }
    return IsoflopAnalysis.from_dict(
        json.loads(call_with_data(_scalinglaws.isoflop, data, delimiter, dump(request)))
    )


def compare(
    data: DataLike,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    *,
    target: str,
    track: str,
    shared: Optional[Sequence[str]] = None,
    baseline: Optional[str] = None,
    budget: Optional[Values] = None,
    flops: str = "6*N*D",
    set: Optional[Mapping[str, Values]] = None,
    bootstrap: int = 0,
    level: float = 0.95,
    cell_tolerance: float = 1e-3,
    calibrate: bool = True,
    by: Optional[str] = None,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    weights: Optional[str] = None,
    loss: str = "huber",
    f_scale: float = 1e-3,
    space: Optional[str] = None,
    fix: Optional[Mapping[str, float]] = None,
    bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
    grid: Optional[Mapping[str, Sequence[float]]] = None,
    seed: int = 0,
    threads: Optional[int] = None,
    delimiter: Optional[str] = None,
) -> TrackComparison:
    """Fits every track (separately, or jointly with ``shared`` parameters) and compares each
    with the baseline: loss gaps, compute multipliers, odds of winning, crossover, paired-cell
    wins. Each track's allocations get ``pi``, the prediction interval of a new run's loss,
    calibrated beyond the data by rolling-origin backtests of the track's fit by ``by`` (as
    :func:`fit`; ``calibrate=False`` keeps the fit's own), and ``pi_fit``, the fit's own; each
    track's ``prediction_intervals`` says which and how. As ``scalinglaws compare --json``."""
    request = {
        **recipe(target, map, derive, where, weights),
        **fit_options(law, formula, loss, f_scale, space, fix, bounds, grid, seed, threads),
        "track": track,
        "shared": list(shared or []),
        "baseline": baseline,
        "budgets": _list(budget),
        "flops": flops,
        "held": {k: _list(v) for k, v in (set or {}).items()},
        "bootstrap": int(bootstrap),
        "level": float(level),
        "cell_tolerance": float(cell_tolerance),
        "calibrate": bool(calibrate),
        "by": by,
    }
    return TrackComparison.from_dict(
        json.loads(call_with_data(_scalinglaws.compare, data, delimiter, dump(request)))
    )


def backtest(
    data: DataLike,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    *,
    target: str,
    by: str,
    holdout_top: Optional[int] = None,
    holdout_frac: Optional[float] = None,
    rollout: Optional[int] = None,
    rolling: Optional[int] = None,
    calibrate: bool = False,
    level: float = 0.95,
    bootstrap: Optional[int] = None,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    weights: Optional[str] = None,
    loss: str = "huber",
    f_scale: float = 1e-3,
    space: Optional[str] = None,
    fix: Optional[Mapping[str, float]] = None,
    bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
    grid: Optional[Mapping[str, Sequence[float]]] = None,
    seed: int = 0,
    threads: Optional[int] = None,
    delimiter: Optional[str] = None,
) -> Backtest:
    """Fits on the smaller scales (by ``by``) and scores the predictions of the held-out
    larger ones. As ``scalinglaws backtest --json``. ``rolling=K`` predicts every run beyond
    each of K rolling origins; ``calibrate=True`` widens each split's prediction intervals by a
    calibration nested inside its own training rows (``pi`` calibrated, ``pi_fit`` the fit's
    own)."""
    request = {
        **recipe(target, map, derive, where, weights),
        **fit_options(law, formula, loss, f_scale, space, fix, bounds, grid, seed, threads),
        "by": by,
        "holdout_top": holdout_top,
        "holdout_frac": holdout_frac,
        "rollout": rollout,
        "rolling": rolling,
        "calibrate": bool(calibrate),
        "level": float(level),
        "bootstrap": bootstrap,
    }
    return Backtest.from_dict(
        json.loads(call_with_data(_scalinglaws.backtest, data, delimiter, dump(request)))
    )


def select(
    data: DataLike,
    laws: Sequence[str] = (),
    formulas: Sequence[str] = (),
    *,
    target: str,
    by: Optional[str] = None,
    origins: int = 5,
    level: float = 0.95,
    calibrate: bool = True,
    at: Optional[Mapping[str, Union[float, Sequence[float]]]] = None,
    check: bool = False,
    fix: Optional[Mapping[str, Mapping[str, float]]] = None,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    weights: Optional[str] = None,
    loss: str = "huber",
    f_scale: float = 1e-3,
    space: Optional[str] = None,
    seed: int = 0,
    threads: Optional[int] = None,
    delimiter: Optional[str] = None,
) -> SelectionResult:
    """Chooses and averages candidate laws (catalog names in ``laws``, texts in ``formulas``)
    by rolling-origin backtests over scale (``by``; default a column ``C``, else 6·N·D). As
    ``scalinglaws select --json``: ``selection`` has every candidate's score, BIC and stacking
    weight and the ``winner``; ``predictions`` (at ``at``, values by variable name) hold the
    stacked value, its interval (a mixture of the weighted laws' predictive normals, so it
    includes the spread between laws), the winner's and every law's; ``check=True`` adds
    ``check``, the procedure scored by nested rolling origins. ``fix`` maps a law's label to
    parameters held at values. A selection draws nothing at random: ``seed`` is kept for
    old calls and refused unless 0."""
    if seed != 0:
        raise SettingsError("select draws nothing at random; drop seed=")
    if isinstance(laws, str) or isinstance(formulas, str):
        raise SettingsError("laws= and formulas= take lists of names or texts, not one string")
    fixes = fix or {}
    candidates = [
        {"label": name, "law": name, "formula": None, "fix": dict(fixes.get(name, {}))}
        for name in laws
    ] + [
        {"label": text, "law": None, "formula": text, "fix": dict(fixes.get(text, {}))}
        for text in formulas
    ]
    unknown = set(fixes) - {c["label"] for c in candidates}
    if unknown:
        raise SettingsError(f"fix: {sorted(unknown)} name no candidate law")
    points = [(name, _values(name, v)) for name, v in (at or {}).items()]
    warn_threads(threads, stacklevel=3)
    if isinstance(origins, bool) or not isinstance(origins, numbers.Integral) or not 2 <= origins <= 50:
        raise SettingsError(f"origins: give a whole number from 2 to 50, not {origins!r}")
    request = {
        **recipe(target, map, derive, where, weights),
        "candidates": candidates,
        "loss": loss,
        "f_scale": float(f_scale),
        "space": space,
        "threads": threads,
        "by": by,
        "origins": int(origins),
        "level": float(level),
        "calibrate": bool(calibrate),
        "at": points,
        "check": bool(check),
    }
    return SelectionResult.from_dict(
        json.loads(call_with_data(_scalinglaws.select, data, delimiter, dump(request)))
    )


def _values(name: str, value: Union[float, Sequence[float]]) -> List[float]:
    """One value or a list of values of ``at``, as a list of floats (SettingsError otherwise)."""
    if isinstance(value, (bool, str, bytes)):
        raise SettingsError(f"at: {name}={value!r}: give a number or a list of numbers")
    items: List[Any]
    try:
        items = list(value)  # type: ignore[arg-type]
    except TypeError:
        items = [value]  # one number (a float, an int, a numpy scalar)
    out: List[float] = []
    for item in items:
        if isinstance(item, (bool, str, bytes)):
            raise SettingsError(f"at: {name}: {item!r} is not a number")
        try:
            out.append(float(item))
        except (TypeError, ValueError):
            raise SettingsError(f"at: {name}: {item!r} is not a number") from None
    return out


def _count(name: str, value: Any) -> int:
    """A whole number ≥ 0 for a count setting (steps, warmup), or SettingsError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 0:
        raise SettingsError(f"{name}: give a whole number ≥ 0, not {value!r}")
    return int(value)


def _fit_json(fit: Union[ScheduleFit, Mapping[str, Any]]) -> str:
    """A schedule fit's JSON: of the ScheduleFit that schedule_fit returned, or of its document."""
    if isinstance(fit, ScheduleFit):
        return json.dumps(fit.to_dict())
    if not isinstance(fit, Mapping):
        raise TypeError(
            "fit must be the ScheduleFit that schedule_fit returned (or its dict); "
            f"got {type(fit).__name__}"
        )
    return json.dumps(fit)


def schedule_fit(
    data: DataLike,
    *,
    run: str = "run",
    step: str = "step",
    lr: str = "lr",
    target: str = "loss",
    law: str = "multi_power",
    train: Union[None, str, Sequence[str]] = None,
    warmup: int = 0,
    fix: Optional[Mapping[str, float]] = None,
) -> ScheduleFit:
    """Fits a loss-curve law of the learning-rate schedule to training logs.

    ``data`` (a DataFrame, a dict of equal-length columns, or a file path) holds one row per
    logged step: the run's label (column ``run``), the optimizer step (``step``), the learning
    rate at that step (``lr``) and the loss (``target``). Each run's per-step schedule is
    rebuilt from its log by linear interpolation, with a linear warmup from 0 over ``warmup``
    steps. ``law`` is ``"multi_power"`` (Luo et al. 2025), ``"lr_annealing"`` (Tissue et al.
    2024) or ``"power_area"``; it is fitted on the runs named in ``train`` (every run when
    None) with the parameters in ``fix`` held at their values, and scored (R², final error,
    RMSE) on every run. Returns the fit (its document's ``kind`` is ``"schedule_fit"``), the
    input of :func:`schedule_predict` and :func:`schedule_optimize`.
    """
    fixed = {str(k): float(v) for k, v in (fix or {}).items()}
    request = {
        "run": run,
        "step": step,
        "lr": lr,
        "target": target,
        "law": law,
        "train": [train] if isinstance(train, str) else [str(t) for t in (train or [])],
        "warmup": _count("warmup", warmup),
        "fix": [[k, v] for k, v in fixed.items()],
    }
    return ScheduleFit.from_dict(
        json.loads(call_with_data(_scalinglaws.schedule_fit, data, None, dump(request)))
    )


def schedule_predict(
    fit: Union[ScheduleFit, Mapping[str, Any]], schedule: str, *, every: int = 0
) -> SchedulePrediction:
    """The loss curve a schedule fit predicts under ``schedule``, a spec such as
    ``"cosine:peak=3e-4,warmup=200,steps=6000,final=3e-5"``, ``"wsd:decay_start=4800"`` or
    ``"constant"`` (kinds: constant, cosine, wsd, step, cooldowns; keys left out take the fit's
    training-run values in ``fit.defaults``). The curve is sampled every ``every`` steps (0:
    about 200 points). Returns the curve (schedule, steps_total, peak_lr, final_lr, final_loss,
    steps, lr, loss, and ``cooldowns`` for a cooldowns spec)."""
    return SchedulePrediction.from_dict(
        json.loads(
            _scalinglaws.schedule_predict(_fit_json(fit), str(schedule), _count("every", every))
        )
    )


def schedule_optimize(
    fit: Union[ScheduleFit, Mapping[str, Any]],
    *,
    steps: int,
    peak: float,
    warmup: Optional[int] = None,
    floor: Optional[float] = None,
    max_iterations: int = 400,
) -> OptimizedSchedule:
    """The schedule of ``steps`` steps with the lowest final loss a schedule fit predicts: a
    linear warmup to ``peak`` over ``warmup`` steps (default: the fit's training run's), then
    any non-increasing learning rate between ``floor`` (default ``peak/1000``) and ``peak``.
    Projected gradient descent from the best of the standard schedules (constant, cosine, WSD),
    so never worse than those ``baselines``. Returns the result; ``lr`` holds the whole
    schedule, one learning rate per step, and ``shape`` 41 (step, lr) samples."""
    text, lrs = _scalinglaws.schedule_optimize(
        _fit_json(fit),
        _count("steps", steps),
        float(peak),
        warmup=None if warmup is None else _count("warmup", warmup),
        floor=None if floor is None else float(floor),
        max_iterations=_count("max_iterations", max_iterations),
    )
    document = json.loads(text)
    document["lr"] = lrs
    return OptimizedSchedule.from_dict(document)


def downstream(
    data: DataLike,
    *,
    target: str,
    size: str,
    tokens: str,
    model: str = "model",
    task: str = "task",
    loss: Optional[str] = None,
    trials: Union[None, str, float] = None,
    chance: Union[None, str, float] = None,
    at: Optional[Sequence[Mapping[str, Any]]] = None,
    holdout: Union[None, str, Sequence[str]] = None,
    own_until: Optional[float] = None,
    anchors: int = 4,
    unseen: Optional[str] = None,
    level: float = 0.95,
    threads: Optional[int] = None,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    delimiter: Optional[str] = None,
) -> DownstreamAnalysis:
    """Task accuracy at larger models from evaluations in long format (one row per model,
    checkpoint and task; ``target`` is the accuracy): each task diagnosed, then forecast by the
    logistic law, the two-stage chain (with ``loss``) and the pooled trajectory model, with
    intervals calibrated by replays inside the data. ``at=[{"N": 6.9e9, "D": 3e11}]`` forecasts
    new models (add ``"model": NAME`` to forecast a model of the data from its own
    checkpoints); ``holdout=[...]`` backtests held-out models (``own_until`` keeps their
    checkpoints up to that many tokens). ``trials`` and ``chance`` are a column or one value.
    As ``scalinglaws downstream --json``; ``.to_frame()`` gives the per-task forecasts."""
    targets = []
    for point in at or []:
        unknown = set(point) - {"N", "D", "model"}
        if unknown or "N" not in point or "D" not in point:
            raise SettingsError(f"at= takes dicts with N, D and optionally model, got {dict(point)!r}")
        params, tokens_at = float(point["N"]), float(point["D"])
        name = point.get("model") or f"N={params:e} D={tokens_at:e}"
        targets.append({"model": str(name), "params": params, "tokens": tokens_at})
    request = {
        **recipe(target, map, derive, where),
        "model": model,
        "task": task,
        "size": size,
        "tokens": tokens,
        "loss": loss,
        "trials": _column_or_value(trials),
        "chance": _column_or_value(chance),
        "at": targets,
        "holdout": [holdout] if isinstance(holdout, str) else list(holdout or []),
        "own_until": None if own_until is None else float(own_until),
        "anchors": int(anchors),
        "unseen": unseen,
        "level": float(level),
        "threads": None if threads is None else int(threads),
    }
    if not targets and not request["holdout"]:
        raise SettingsError("downstream needs targets: at=[{'N': ..., 'D': ...}] or holdout=[MODEL, ...]")
    if targets and request["holdout"]:
        raise SettingsError("give at= (new models) or holdout= (a backtest), not both")
    return DownstreamAnalysis.from_dict(
        json.loads(call_with_data(_scalinglaws.downstream, data, delimiter, dump(request)))
    )


def _column_or_value(value: Union[None, str, float]) -> Union[None, str, float]:
    """A column name as it is, a number as a float."""
    if value is None or isinstance(value, str):
        return value
    return float(value)
