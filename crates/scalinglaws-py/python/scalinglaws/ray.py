"""Grouped fits on a Ray cluster: :func:`fit_groups` is :func:`scalinglaws.fit_groups` with the
groups spread over Ray tasks, for users whose fits outgrow one machine.

The data (a pandas DataFrame, or a ``ray.data.Dataset``, gathered to the driver as a DataFrame)
is split by its group labels into batches of whole groups; each Ray task runs the compiled
grouped fit on its batch (one worker thread per task, ``RAYON_NUM_THREADS=1`` in the task's
environment, so that Ray's scheduling, not each task, decides how many cores work), and the groups' records come back and are put in the order the
local fit gives. Every group is fitted exactly as :func:`scalinglaws.fit_groups` fits it, so
the result equals the local one. A task whose worker dies is retried by Ray (``max_retries``);
one that still fails raises :class:`scalinglaws.FitError` naming its groups, so no group is
lost silently.

Ray is an optional dependency (``pip install 'scalinglaws[ray]'``); ``import scalinglaws`` never
imports it, this module imports it only when :func:`fit_groups` runs.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Union

from ._errors import FitError, SettingsError
from ._keywords import check_keywords, checked
from ._results import GroupFits

__all__ = ["fit_groups"]


@checked
def fit_groups(
    data: Any,
    *,
    group: Union[str, Sequence[str]],
    groups_per_task: Optional[int] = None,
    max_retries: int = 3,
    **options: Any,
) -> Any:
    """:func:`scalinglaws.fit_groups` on the Ray cluster ``ray.init()`` connected to (a local
    one is started if none is). ``data`` is a pandas DataFrame or a ``ray.data.Dataset``;
    ``options`` are :func:`scalinglaws.fit_groups`'s keywords. ``groups_per_task`` groups go to
    each task (default: enough tasks for four per CPU of the cluster). Returns what
    :func:`scalinglaws.fit_groups` returns for a DataFrame, and for a Dataset the table of
    ``.to_frame()`` as a ``ray.data.Dataset``."""
    try:
        import ray  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError as error:
        raise ImportError(
            "scalinglaws.ray needs Ray: pip install 'scalinglaws[ray]' (or pip install ray)"
        ) from error
    from . import _workflows

    if options.get("where") is not None:
        raise SettingsError(
            "where=: filter the DataFrame before fit_groups (each Ray task prepares its batch "
            "alone, and a filter that empties a batch would fail it where the local fit drops "
            "those groups)"
        )
    if "threads" in options:
        raise SettingsError("threads=: each Ray task fits with one thread; Ray decides how many run")
    keys = [group] if isinstance(group, str) else list(group)
    if not keys:
        raise SettingsError(f"group= takes a column name or a list of them, not {group!r}")
    if max_retries < 0:
        raise SettingsError(f"max_retries= takes a whole number >= 0, not {max_retries!r}")
    # fit_groups' keywords are fit's: checked by its annotations here, on the driver.
    options = check_keywords(_workflows.fit, options)
    from_dataset = isinstance(data, ray.data.Dataset)
    frame = data.to_pandas() if from_dataset else data
    missing = [k for k in keys if k not in getattr(frame, "columns", [])]
    if missing:
        raise SettingsError(
            f"group=: no column {missing[0]!r} in the data (the columns are {list(frame.columns)!r})"
        )
    if not ray.is_initialized():
        ray.init()
    batches = _batches(frame, keys, groups_per_task, ray)
    # One worker thread per task (rayon's pool in the worker process), so that Ray decides how
    # many cores work; the fits' recorded settings stay the caller's.
    one_thread = {"env_vars": {"RAYON_NUM_THREADS": "1"}}
    task = ray.remote(max_retries=max_retries, runtime_env=one_thread)(_fit_batch)
    refs = [task.remote(frame.iloc[rows], keys, options) for rows, _ in batches]
    records: List[Any] = []
    for ref, (_, labels) in zip(refs, batches):
        try:
            records.extend(ray.get(ref))  # type: ignore[arg-type,unused-ignore]
        except ray.exceptions.RayError as error:
            shown = ", ".join(labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")
            raise FitError(f"the Ray task fitting the groups {shown} failed: {error}") from error
    records.sort(key=lambda r: tuple(r[0]["group"][k] for k in keys))
    result = GroupFits._from_native([r for r, _ in records], [f for _, f in records], keys)
    if from_dataset:
        return ray.data.from_pandas(result.to_frame())
    return result


def _fit_batch(frame: Any, keys: List[str], options: Dict[str, Any]) -> List[Any]:
    """One task: the compiled grouped fit of the batch, each group as its record without the
    fit and the fit's text as ``fit --json`` writes it (text travels back cheaper than the
    parsed document, and the driver reads it once, as a local fit does)."""
    from . import fit_groups as local_fit_groups

    fitted = local_fit_groups(frame, group=keys, **options)
    out = []
    for g in fitted.groups:
        record: Dict[str, Any] = {"group": dict(g.group), "rows": g.rows, "status": g.status}
        if g.reason is not None:
            record["reason"] = g.reason
        out.append((record, None if g.fit is None else g.fit.to_json()))
    return out


def _batches(frame: Any, keys: List[str], per_task: Optional[int], ray: Any) -> List[Any]:
    """The rows of each batch of whole groups, with the groups' labels (for messages)."""
    positions = frame.groupby(keys, sort=True, dropna=False).indices
    groups = list(positions.items())
    if per_task is None:
        cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
        per_task = max(1, math.ceil(len(groups) / (4 * cpus)))
    elif per_task < 1:
        raise SettingsError(f"groups_per_task= takes a whole number >= 1, not {per_task!r}")
    batches = []
    for start in range(0, len(groups), per_task):
        chunk = groups[start : start + per_task]
        rows = sorted(i for _, idx in chunk for i in idx)
        labels = [str(k) for k, _ in chunk]
        batches.append((rows, labels))
    return batches
