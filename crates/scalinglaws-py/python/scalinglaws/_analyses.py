"""The analyses beyond a fit, in the same pattern: keyword arguments in, the library's JSON
document out as a dict (the same document the command's `--json` writes)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _scalinglaws
from ._data import DataLike, to_data
from ._fit import Fit, dump, fit_options, recipe

Values = Union[float, Sequence[float]]


def _list(values: Optional[Values]) -> List[float]:
    if values is None:
        return []
    if isinstance(values, (int, float)):
        return [float(values)]
    return [float(v) for v in values]


def laws() -> List[Dict[str, Any]]:
    """The catalog: [{name, summary, formula, variables, parameters, default_space,
    citation}]."""
    result: List[Dict[str, Any]] = json.loads(_scalinglaws.laws())
    return result


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
) -> Dict[str, Any]:
    """Compute-optimal N*, D* at each budget (or the least compute reaching each target
    loss) of a fit, or of a catalog ``law`` with published ``params``; intervals from the
    fit's bootstrap replicates. As ``scalinglaws optimal --json``."""
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
    result: Dict[str, Any] = json.loads(text)
    return result


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
) -> Dict[str, Any]:
    """The learning rate (and batch size) to use at a target scale: per-cell optima with
    flags, the law ln lr* = c + a ln N + b ln D (``law="curved"`` adds squared logs) by the
    joint fit or over cells, the curvature test, predictions at ``predict=[(N, D), ...]``, and
    the D- against N-extrapolation backtest. As ``scalinglaws lr --json``."""
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
    result: Dict[str, Any] = json.loads(
        _scalinglaws.lr(to_data(data, delimiter), dump(request))
    )
    return result


def isoflop(
    data: DataLike,
    *,
    compute: str,
    size: str,
    target: str,
    tokens: Optional[str] = None,
    group: Union[None, str, Sequence[str]] = None,
    shape: str = "cubic",
    tolerance: float = 1e-3,
    envelope: Optional[str] = None,
    run: Optional[str] = None,
    bootstrap: int = 0,
    seed: int = 0,
    level: float = 0.95,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    delimiter: Optional[str] = None,
) -> Dict[str, Any]:
    """IsoFLOP analysis per group (or Chinchilla's approach 1 with ``envelope="hull"``):
    minima per budget and the power laws N* ∝ C^a, D* ∝ C^b. As ``scalinglaws isoflop
    --json``."""
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
    }
    result: Dict[str, Any] = json.loads(
        _scalinglaws.isoflop(to_data(data, delimiter), dump(request))
    )
    return result


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
) -> Dict[str, Any]:
    """Fits every track (separately, or jointly with ``shared`` parameters) and compares each
    with the baseline: loss gaps, compute multipliers, odds of winning, crossover, paired-cell
    wins. As ``scalinglaws compare --json``."""
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
    }
    result: Dict[str, Any] = json.loads(
        _scalinglaws.compare(to_data(data, delimiter), dump(request))
    )
    return result


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
) -> Dict[str, Any]:
    """Fits on the smaller scales (by ``by``) and scores the predictions of the held-out
    larger ones. As ``scalinglaws backtest --json``."""
    request = {
        **recipe(target, map, derive, where, weights),
        **fit_options(law, formula, loss, f_scale, space, fix, bounds, grid, seed, threads),
        "by": by,
        "holdout_top": holdout_top,
        "holdout_frac": holdout_frac,
        "rollout": rollout,
        "level": float(level),
        "bootstrap": bootstrap,
    }
    result: Dict[str, Any] = json.loads(
        _scalinglaws.backtest(to_data(data, delimiter), dump(request))
    )
    return result
