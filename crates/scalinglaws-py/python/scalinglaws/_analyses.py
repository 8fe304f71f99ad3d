"""The analyses beyond a fit, in the same pattern: keyword arguments in, a typed result out
(:mod:`scalinglaws._results`), built from the library's JSON document, the same document the
command's `--json` writes (``result.to_dict()`` gives it back; ``result["key"]`` reads it as
before). The schedule functions (loss curves under learning-rate schedules) take their fit as
the :class:`ScheduleFit` that :func:`schedule_fit` returns, or as its document (a dict, e.g. a
saved ``scalinglaws schedule fit --json``)."""

from __future__ import annotations

import json
import math
import numbers
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _scalinglaws
from ._data import DataLike, call_with_data, name_rows, to_data
from ._errors import SettingsError
from ._keywords import checked
from ._fit import (
    DEFAULT_F_SCALE,
    DEFAULT_LEVEL,
    Fit,
    count as _count,
    dump,
    fit_options,
    fit_request,
    recipe,
    warn_caveats,
)
from ._results import (
    DesignAnalysis,
    Frontier,
    GroupFits,
    LawInfo,
    CooldownTable,
    OptimizedSchedule,
    ScheduleComparison,
    ScheduleFit,
    _fit_json,
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
    if not groups:
        raise SettingsError(
            'group: name a grouping column, or a list of them (group="run", or '
            'group=["task", "mix"])'
        )
    if calibrate:
        raise SettingsError(
            "calibrate=True: calibration beyond the data is not run per group yet; drop it, "
            "or fit each group alone with scalinglaws.fit (on that group's rows)"
        )
    request = {
        **fit_request(
            law, formula, target, map, derive, where, weights, loss, f_scale, space, fix,
            bounds, grid, bootstrap, cluster, level, False, by, heteroscedastic, family,
            trials, exposure, nu, dispersion, seed, threads,
        ),
        "group": groups,
    }
    records, fits = call_with_data(_scalinglaws.fit_groups, data, delimiter, dump(request))
    return GroupFits._from_native(json.loads(records), fits, groups)


@checked
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
    ``prediction_intervals`` says which and how. The fit's caveats (a parameter at a bound,
    ...) are ``fit_caveats``, each repeated as a ``FitCaveatWarning``. As ``scalinglaws
    optimal --json``."""
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
    native = _scalinglaws.optimal(
        dump(request),
        fit_json=fit.to_json() if fit is not None else None,
        law=law,
        params=None if params is None else {k: float(v) for k, v in params.items()},
    )
    frontier = Frontier._from_native(native)
    warn_caveats(frontier.get("fit_caveats", []))
    return frontier


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
    return ScheduleFit._from_native(call_with_data(_scalinglaws.schedule_fit, data, None, dump(request)))


@checked
def schedule_compare(
    fit: Union[ScheduleFit, Mapping[str, Any]], schedules: Sequence[str], *, every: int = 0
) -> ScheduleComparison:
    """Several schedules' curves and final losses under a schedule fit, side by side, as
    ``scalinglaws schedule compare --json``: ``schedules`` are specs as
    :func:`schedule_predict` takes them, each curve sampled every ``every`` steps (0: about 200
    points); ``best`` names the lowest final loss and ``final_gap`` each schedule's gap to it."""
    request = {"schedules": list(schedules), "every": _count("every", every)}
    return ScheduleComparison._from_native(
        _scalinglaws.schedule_compare(_fit_json(fit), dump(request))
    )


@checked
def schedule_cooldown(
    fit: Union[ScheduleFit, Mapping[str, Any]],
    *,
    at: Sequence[int],
    lengths: Sequence[int],
    peak: Optional[float] = None,
    warmup: Optional[int] = None,
    final: Optional[float] = None,
    decay: Optional[str] = None,
) -> CooldownTable:
    """The loss after a cooldown of each of ``lengths`` steps started at each step of ``at``,
    off a constant run at ``peak`` (default: the fit's training run's) after ``warmup`` steps,
    decaying to ``final`` (default ``peak/100``) in the shape ``decay`` ("linear", "exp" or
    "cosine"; default the library's, linear), as ``scalinglaws schedule cooldown --json``:
    each row's loss, the constant run's at the same step, and the gain."""
    request: Dict[str, Any] = {
        "at": [_count("at", a) for a in at],
        "lengths": [_count("lengths", n) for n in lengths],
        "peak": None if peak is None else float(peak),
        "warmup": None if warmup is None else _count("warmup", warmup),
        "final": None if final is None else float(final),
    }
    if decay is not None:
        request["decay"] = decay
    return CooldownTable._from_native(_scalinglaws.schedule_cooldown(_fit_json(fit), dump(request)))


@checked
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
    text, lrs, report = _scalinglaws.schedule_optimize(
        _fit_json(fit),
        _count("steps", steps),
        float(peak),
        warmup=None if warmup is None else _count("warmup", warmup),
        floor=None if floor is None else float(floor),
        max_iterations=_count("max_iterations", max_iterations),
    )
    document = json.loads(text)
    document["lr"] = lrs
    return OptimizedSchedule._from_document(document)._reported(report)


@checked
def design(
    data: Optional[DataLike] = None,
    *,
    target: Optional[str] = None,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    goal: Union[str, Sequence[str]],
    candidates: Union[str, Sequence[Mapping[str, float]], Any],
    per_decade: int = _scalinglaws.DESIGN_PER_DECADE,
    tokens_per_param: Optional[Tuple[float, float]] = _scalinglaws.DESIGN_TOKENS_PER_PARAM,
    max_cost: Optional[float] = None,
    cost: str = "6*N*D",
    spend: Optional[float] = None,
    runs: int = 8,
    draws: int = 32,
    simulations: Optional[int] = None,
    sequential: int = 1,
    noise: Optional[float] = None,
    level: float = DEFAULT_LEVEL,
    prior: Optional[Mapping[str, Union[float, Tuple[float, float]]]] = None,
    prior_sd: Optional[float] = None,
    map: Optional[Mapping[str, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    where: Union[None, str, Sequence[str]] = None,
    weights: Optional[str] = None,
    sweep: Union[None, str, Sequence[str]] = None,
    loss: str = "huber",
    f_scale: float = DEFAULT_F_SCALE,
    space: Optional[str] = None,
    fix: Optional[Mapping[str, float]] = None,
    bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
    grid: Optional[Mapping[str, Sequence[float]]] = None,
    seed: int = 0,
    threads: Optional[int] = None,
    delimiter: Optional[str] = None,
) -> DesignAnalysis:
    """Which runs to launch next: fits the law to the runs so far (``data`` with ``target``,
    as :func:`fit`), then chooses among the candidate runs the batch of at most ``runs`` runs
    costing at most ``spend`` in all (each run costs ``cost``, a formula of N and D) that most
    narrows the ``goal``s: ``"optimal_loss@1e23"``, ``"tokens_per_param@1e23"``,
    ``"optimal_N@1e23"``, ``"optimal_D@1e23"`` (then ``,VAR=VALUE`` for the law's other
    variables); the compute multiplier of one track over another, tracks coded as values of a
    variable of the law, ``"multiplier@1e23,track=0:1"``; the loss at a point,
    ``"loss@N=7e10,D=1.4e12"``; or the value of a variable that minimises the loss at a point
    (the optimal learning rate), ``"argmin_lr@N=7e10,D=1.4e12"``.

    ``candidates`` is a grid of ranges of the law's variables, ``"N=1e8..1e11,D=1e9..1e13"``
    (``VAR=VALUE`` holds one, ``VAR=V1|V2`` lists its values, e.g. ``track=0|1``), laid out with ``per_decade`` log-spaced values per decade and
    kept where D/N lies in ``tokens_per_param`` (None: any) and a run costs at most
    ``max_cost``; or the runs themselves, a list of dicts or a DataFrame with a column per law
    variable (text columns, such as a run's name, are left out). The criterion averages over
    ``draws`` parameter draws; the widths it expects are checked by ``simulations`` refits on
    simulated outcomes (default 200), and ``sequential=K`` plans a campaign of K rounds.
    ``noise`` (the sd of a run's outcome in the fitted space) replaces the fit's residual scale.
    ``sweep`` (a column or a list) fits the runs so far on each cell's frontier, as
    :func:`fit` does.

    Before any run, give no ``data`` but a ``prior``: per parameter of the law a value or a
    range ``(low, high)`` (read as the centre ± 2 sd; a value has sd ``prior_sd``, default
    0.5, in log θ for a parameter bounded below by 0), and ``noise``; nothing is simulated
    then. As ``scalinglaws design --json``; ``.to_frame()`` gives the runs to launch (as its
    ``--csv``), ``.targets_frame()`` each goal's widths. The caveats of the fit of the runs so
    far (a parameter at a bound, ...) are ``fit_caveats``, each repeated as a
    ``FitCaveatWarning``."""
    if prior is not None:
        if data is not None:
            raise SettingsError(
                "prior= is for a design before any run, and data holds runs so far: drop data "
                "to design from the prior, or drop prior= to design from the fit of the runs"
            )
        reads = [
            f"{name}="
            for name, value in (
                ("target", target),
                ("map", map),
                ("derive", derive),
                ("where", where),
                ("weights", weights),
                ("sweep", sweep),
                ("delimiter", delimiter),
            )
            if value is not None
        ]
        if reads:
            raise SettingsError(
                f"prior= designs before any run and reads no data: drop {', '.join(reads)}"
            )
    else:
        if prior_sd is not None:
            raise SettingsError(
                "prior_sd= is the sd of a parameter prior= gives one value; give prior= too "
                "(a design before any run), or drop prior_sd="
            )
        if data is None:
            raise SettingsError(
                "give the runs so far (data and target=), or prior={NAME: VALUE or (LOW, HIGH), "
                "...} and noise= for a design before any run"
            )
        if target is None:
            raise SettingsError('target=: name the column of data the law predicts, e.g. target="loss"')
    goals = [goal] if isinstance(goal, str) else list(goal)
    ratio = _tokens_per_param(tokens_per_param)
    largest = _positive("max_cost", max_cost)
    listed = _candidate_runs(candidates)
    if listed is not None:
        shaped = [
            f"{name}="
            for name, given in (
                ("per_decade", per_decade != _scalinglaws.DESIGN_PER_DECADE),
                ("tokens_per_param", ratio != list(_scalinglaws.DESIGN_TOKENS_PER_PARAM)),
                ("max_cost", largest is not None),
            )
            if given
        ]
        if shaped:
            raise SettingsError(
                f"{', '.join(shaped)} shape a grid of candidates, and candidates= lists the runs: "
                f"drop {', '.join(shaped)}, or give candidates= as ranges (\"N=LOW..HIGH,D=LOW..HIGH\")"
            )
    elif not isinstance(candidates, str):
        raise SettingsError(
            "candidates= takes ranges (\"N=1e8..1e11,D=1e9..1e13\"), a list of dicts or a "
            f"DataFrame of runs; got {type(candidates).__name__}"
        )
    request = {
        **recipe(target or "", map, derive, where, weights),
        **fit_options(law, formula, loss, f_scale, space, fix, bounds, grid, seed, threads),
        "goal": goals,
        "candidates": candidates if listed is None else listed,
        "per_decade": _count("per_decade", per_decade),
        "tokens_per_param": ratio,
        "max_cost": largest,
        "cost": cost,
        "spend": _positive("spend", spend),
        "runs": _count("runs", runs),
        "draws": _count("draws", draws),
        "simulations": None if simulations is None else _count("simulations", simulations),
        "sequential": _count("sequential", sequential),
        "noise": _positive("noise", noise),
        "level": float(level),
        "prior": None if prior is None else _prior(prior),
        "prior_sd": None if prior_sd is None else float(prior_sd),
        "sweep": sweep or [],
    }
    if data is None:
        text, variables, report = _scalinglaws.design(None, dump(request))
    else:
        text, variables, report = call_with_data(_scalinglaws.design, data, delimiter, dump(request))
    document = json.loads(text)
    warn_caveats(document.get("fit_caveats", []))
    return DesignAnalysis._from_document(document)._in_law_order(variables)._reported(report)


def _positive(name: str, value: Optional[float]) -> Optional[float]:
    """A setting that is positive and finite when given, or SettingsError (a number: the
    keyword's type is checked by ``@checked``)."""
    if value is None:
        return None
    number = float(value)
    if not (math.isfinite(number) and number > 0):
        raise SettingsError(f"{name}={value!r}: give a positive, finite number")
    return number


def _tokens_per_param(value: Optional[Tuple[float, float]]) -> Optional[List[float]]:
    """``tokens_per_param``: (low, high) with 0 < low ≤ high, or None for any."""
    if value is None:
        return None
    low, high = (float(v) for v in value)
    if not (math.isfinite(high) and 0 < low <= high):
        raise SettingsError(f"tokens_per_param={value!r}: give (low, high) with 0 < low <= high")
    return [low, high]


def _prior(prior: Mapping[str, Union[float, Tuple[float, float]]]) -> Dict[str, Any]:
    """``prior``: per parameter a value or a range [low, high], as the library reads it (the
    types checked by ``@checked``, so here the range)."""
    if not prior:
        raise SettingsError(
            'prior= takes a dict of the law\'s parameters, each a value or a range (low, high), '
            'e.g. {"E": 1.82, "alpha": (0.2, 0.5)}'
        )
    out: Dict[str, Any] = {}
    for name, entry in prior.items():
        if isinstance(entry, numbers.Real) and not isinstance(entry, bool):
            out[str(name)] = float(entry)
            continue
        low, high = (float(v) for v in entry)  # type: ignore[union-attr]
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise SettingsError(
                f'prior["{name}"]: give a value or a range (low, high) with low < high, not {entry!r}'
            )
        out[str(name)] = [low, high]
    return out


def _candidate_runs(candidates: Any) -> Optional[List[Dict[str, float]]]:
    """The runs of ``candidates`` when it lists them (a DataFrame, or a list of dicts), each a
    dict of its numeric values (text, such as a run's name, is left out); None for ranges."""
    if isinstance(candidates, str):
        return None
    if hasattr(candidates, "columns") and not isinstance(candidates, Mapping):
        columns = to_data(candidates)["numeric"]
        n_rows = len(next(iter(columns.values()), []))
        rows: List[Dict[str, Any]] = [
            {name: values[i] for name, values in columns.items()} for i in range(n_rows)
        ]
        where = "the DataFrame"
    elif isinstance(candidates, Sequence) and not isinstance(candidates, (bytes, Mapping)):
        rows = []
        for i, given in enumerate(candidates):
            if not isinstance(given, Mapping):
                raise SettingsError(
                    f"candidates: run {i} is a {type(given).__name__}; give each run as a dict "
                    "of the law's variables, e.g. {\"N\": 1e9, \"D\": 2e10}"
                )
            rows.append({str(k): v for k, v in given.items() if not isinstance(v, str)})
        where = "the list"
    else:
        return None
    if not rows or not any(rows):
        raise SettingsError(
            "candidates: no candidate runs; give a run per row, with a number per law variable"
        )

    def place(i: int, name: str) -> str:
        if where == "the list":
            return f"run {i}, '{name}'"
        return name_rows(f"the DataFrame, row {i + 1}", candidates) + f", column '{name}'"

    out: List[Dict[str, float]] = []
    for i, row in enumerate(rows):
        run: Dict[str, float] = {}
        for name, value in row.items():
            real = isinstance(value, numbers.Real) and not isinstance(value, bool)
            number = float(value) if real else math.nan
            # N and D are a run's size and tokens; other variables (a track coded 0/1) may be
            # any finite number.
            positive = name in ("N", "D")
            if not (math.isfinite(number) and (number > 0 or not positive)):
                need = "positive" if positive else "finite"
                raise SettingsError(
                    f"candidates: {place(i, name)}: {value!r} is not {need}; a candidate "
                    "run's N and D are positive numbers, its other variables finite"
                )
            run[name] = number
        out.append(run)
    return out
