"""The analyses beyond a fit, in the same pattern: keyword arguments in, a typed result out
(:mod:`scalinglaws._results`), built from the library's JSON document, the same document the
command's `--json` writes (``result.to_dict()`` gives it back; ``result["key"]`` reads it as
before). The workflows are generated (``_workflows.py``); what is here is not one yet."""

from __future__ import annotations

import json
from typing import List, Mapping, Optional, Sequence, Tuple, Union

from . import _scalinglaws
from ._data import DataLike, call_with_data
from ._keywords import checked
from ._fit import DEFAULT_F_SCALE, DEFAULT_LEVEL, dump, fit_request
from ._results import GroupFits, LawInfo


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
