"""The analyses beyond a fit that are not generated workflows (``_workflows.py``): the catalog,
the grouped fit (keyword arguments in, a typed result out, built from the library's JSON
document, the same the command's `--json` writes), and the pictures of a comparison's recipes
and of IsoFLOP profiles, which draw the runs themselves."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, List, Mapping, Optional, Sequence, Union

from . import _scalinglaws, _workflows
from ._data import DataLike, call_with_data
from ._keywords import Count, check_keywords, checked
from ._fit import PathLike, Plot, dump, warn_threads
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
    delimiter: Optional[str] = None,
    **fit: Any,
) -> GroupFits:
    """Fits the law to every group of rows sharing the labels of the ``group`` column(s) (one
    learning curve per run, one law per task or data mix), the groups spread over ``threads``
    workers. The data are read, checked and prepared once; each group is then fitted exactly
    as :func:`fit` would fit its rows alone with the same keywords (the same search and
    seeded bootstrap, so the result depends neither on the thread count nor on the other
    groups). A group that cannot be fitted (fewer rows than free parameters, a search that
    fails) is kept with ``status="failed"`` and its ``reason``; bad data or settings raise.

    The keywords are :func:`fit`'s (checked by its annotations, so one it does not take is
    refused as fit's), its rules and defaults the library's, but for calibration beyond the
    data, which is off unless asked for. Calibration (``calibrate=True``, ``by``), profiles,
    ``cluster``, ``heteroscedastic``, a ``sweep`` and ``qc="exclude"`` are not run per group
    yet and raise :class:`SettingsError` (QC flags no group's rows). As ``scalinglaws fit DATA --group COLUMN``: the result's
    :meth:`~GroupFits.to_frame` is its ``--table``, its records the lines of its ``--json``.
    The GIL is released while it runs, on a worker thread that Ctrl-C stops."""
    settings = check_keywords(_workflows.fit, fit)
    warn_threads(settings.get("threads"), 4)
    groups = [group] if isinstance(group, str) else list(group)
    request = {**{k: v for k, v in settings.items() if v is not None}, "group": groups}
    records, fits = call_with_data(_scalinglaws.fit_groups, data, delimiter, dump(request))
    return GroupFits._from_native(json.loads(records), fits, groups)


@checked
def plot_tracks(
    data: DataLike,
    path: Optional[PathLike] = None,
    *,
    delimiter: Optional[str] = None,
    **compare: Any,
) -> Union[str, Plot]:
    """The recipes picture, as ``scalinglaws plot tracks`` draws it: each track's runs and
    compute-optimal loss with its band, over the whole range of the data and beyond, the title
    giving the multiplier at the largest ``budget``. The keywords are :func:`compare`'s (the
    same settings and rules, the library's; a keyword it does not take is refused), and
    :func:`compare` gives the comparison itself; ``law`` and ``formula`` are keywords here (the
    second positional is ``path``). Without ``path`` returns a :class:`Plot` (shown inline in a
    notebook; its ``save`` to .png draws afresh, refitting); with it, writes SVG or PNG by the
    extension and returns the path. The GIL is released while it fits, on a worker thread that
    Ctrl-C stops."""
    # compare's keywords, checked by its own annotations (an unknown one named as compare's).
    settings = check_keywords(_workflows.compare, compare)
    warn_threads(settings.get("threads"), 4)
    spec = dump({k: v for k, v in settings.items() if v is not None})
    return _picture(_scalinglaws.plot_tracks, "tracks", data, delimiter, spec, path)


@checked
def plot_isoflop(
    data: DataLike,
    path: Optional[PathLike] = None,
    *,
    compute: str,
    size: str,
    target: str,
    select: Optional[Mapping[str, str]] = None,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    shape: Optional[str] = None,
    tolerance: Optional[float] = None,
    bootstrap: Optional[Count] = None,
    seed: Optional[Count] = None,
    level: Optional[float] = None,
    delimiter: Optional[str] = None,
) -> Union[str, Plot]:
    """The IsoFLOP picture, as ``scalinglaws plot isoflop`` draws it: each budget's runs
    (model size ``size`` against ``target``, budgets from ``compute``), its local curve and
    minimum, and the power law N* ∝ C^a through the minima. ``select`` keeps the runs whose
    columns read the given labels (``{"dataset": "rw"}``: one configuration of a study with
    several); ``shape``, ``tolerance``, ``bootstrap``, ``seed`` and ``level`` are
    :func:`isoflop`'s (None: the library's defaults, as the command's; no bootstrap unless
    asked). Without ``path`` returns a :class:`Plot` (shown inline in a
    notebook); with it, writes SVG or PNG by the extension and returns the path. The GIL is
    released while it fits, on a worker thread that Ctrl-C stops."""
    request = {
        "compute": compute,
        "size": size,
        "target": target,
        "select": select,
        "map": map,
        "derive": derive,
        "where": where,
        "shape": shape,
        "tolerance": tolerance,
        "bootstrap": bootstrap,
        "seed": seed,
        "level": level,
    }
    spec = dump({k: v for k, v in request.items() if v is not None})
    return _picture(_scalinglaws.plot_isoflop, "isoflop", data, delimiter, spec, path)


def _picture(
    native: Callable[..., Optional[str]],
    kind: str,
    data: DataLike,
    delimiter: Optional[str],
    spec: str,
    path: Optional[PathLike],
) -> Union[str, Plot]:
    """The picture ``native`` draws from ``data`` and ``spec``: written to ``path`` (its path
    back), or as a :class:`Plot` (which draws afresh to save a .png) when there is none."""

    def draw(target: Optional[str]) -> Optional[str]:
        svg: Optional[str] = call_with_data(native, data, delimiter, spec, target)
        return svg

    if path is None:
        svg = draw(None)
        assert svg is not None  # the library returns the picture when it writes no file
        return Plot(svg, kind, draw)
    written = os.fspath(path)
    draw(written)
    return written
