"""The analyses beyond a fit, in the same pattern: keyword arguments in, a typed result out
(:mod:`scalinglaws._results`), built from the library's JSON document, the same document the
command's `--json` writes (``result.to_dict()`` gives it back; ``result["key"]`` reads it as
before). :func:`schedule_fit` fits a loss-curve law to training logs; the generated schedule
workflows (``schedule_predict``, ``schedule_compare``, ...) take the :class:`ScheduleFit` it
returns, or its document (a dict, e.g. a saved ``scalinglaws schedule fit --json``)."""

from __future__ import annotations

import json
from typing import List, Mapping, Optional, Sequence, Tuple, Union

from . import _scalinglaws
from ._data import DataLike, call_with_data
from ._keywords import checked
from ._fit import (
    DEFAULT_F_SCALE,
    DEFAULT_LEVEL,
    count as _count,
    dump,
    fit_request,
)
from ._results import GroupFits, LawInfo, ScheduleFit

def laws() -> List[LawInfo]:
    """The catalog: one :class:`LawInfo` (name, summary, formula, variables, parameters,
    default_space, citation) per law."""
    return [LawInfo.from_dict(law) for law in json.loads(_scalinglaws.laws())]


@checked
def fit_groups(
    data: DataLike,
    *,
    group: Union[str, Sequence[str]],
    target: str,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    weights: Optional[str] = None,
    loss: str = "huber",
    f_scale: float = DEFAULT_F_SCALE,
    space: Optional[str] = None,
    fix: Optional[Mapping[str, float]] = None,
    bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
    grid: Optional[Mapping[str, Sequence[float]]] = None,
    bootstrap: int = 0,
    level: float = DEFAULT_LEVEL,
    family: Optional[str] = None,
    trials: Union[None, str, float] = None,
    exposure: Optional[str] = None,
    nu: Optional[float] = None,
    dispersion: Optional[float] = None,
    seed: int = 0,
    threads: Optional[int] = None,
    delimiter: Optional[str] = None,
    calibrate: bool = False,
    by: Optional[str] = None,
    cluster: Optional[str] = None,
    heteroscedastic: Optional[str] = None,
) -> GroupFits:
    """Fits the law to every group of rows sharing the labels of the ``group`` column(s) (one
    learning curve per run, one law per task or data mix), the groups spread over ``threads``
    workers. The data are read, checked and prepared once; each group is then fitted exactly
    as :func:`fit` would fit its rows alone with the same keywords (the same search and
    seeded bootstrap, so the result depends neither on the thread count nor on the other
    groups). A group that cannot be fitted (fewer rows than free parameters, a search that
    fails) is kept with ``status="failed"`` and its ``reason``; bad data or settings raise.

    The keywords are :func:`fit`'s. Calibration beyond the data (``calibrate=True``, ``by``),
    ``cluster`` and ``heteroscedastic`` are not run per group yet and raise
    :class:`SettingsError`. As ``scalinglaws fit DATA --group COLUMN``: the result's
    :meth:`~GroupFits.to_frame` is its ``--table``, its records the lines of its ``--json``.
    The GIL is released while it runs, on a worker thread that Ctrl-C stops."""
    groups = [group] if isinstance(group, str) else list(group)
    request = {
        **fit_request(
            law, formula, target, map, derive, where, weights, loss, f_scale, space, fix,
            bounds, grid, bootstrap, cluster, level, calibrate, by, heteroscedastic, family,
            trials, exposure, nu, dispersion, seed, threads,
        ),
        "group": groups,
    }
    records, fits = call_with_data(_scalinglaws.fit_groups, data, delimiter, dump(request))
    return GroupFits._from_native(json.loads(records), fits, groups)


@checked
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
    2024), ``"power_area"`` or ``"fsl"`` (the functional scaling law of Li et al. 2025, in a
    form of ours); it is fitted on the runs named in ``train`` (every run when
    None) with the parameters in ``fix`` held at their values, and scored (R², final error,
    RMSE) on every run. Returns the fit (its document's ``kind`` is ``"schedule_fit"``), the
    input of :func:`schedule_predict`, :func:`schedule_compare`, :func:`schedule_optimize`
    and :func:`schedule_cooldown`.
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
    return ScheduleFit._from_native(call_with_data(_scalinglaws.schedule_fit, data, None, dump(request)))
