"""The library's workflows (``scalinglaws::workflow``), generated from their JSON Schemas by
``crates/scalinglaws/tests/integration/python_workflows.rs``: do not edit; regenerate with
``SCALINGLAWS_BLESS=1 cargo test --release -p scalinglaws --test integration -- python_workflows::``.

Each function takes the data (a path, a dict of columns or a DataFrame) and the workflow's
settings as keywords, checks each by its annotation, and returns the workflow's document as a
typed result: ``print(result)`` is the command's report, ``result.to_dict()`` the document that
``scalinglaws NAME --json`` writes."""

from __future__ import annotations

from dataclasses import dataclass
# Any and ClassVar: the base class's annotations are resolved in this module too.
from typing import Any, ClassVar, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from . import _scalinglaws
from ._data import DataLike, call_with_data
from ._fit import dump, warn_threads
from ._keywords import checked
from ._results import CurveFrame, Result, ScheduleFit, _fit_json

__all__ = [
    "sensitivity",
    "cooldown_study",
    "qc",
    "schedule_predict",
    "BootstrapBand",
    "BootstrapCalibration",
    "CooldownPoint",
    "CooldownStudy",
    "Coverage",
    "CurveBand",
    "DroppedGroup",
    "Flag",
    "FullPrediction",
    "ParameterReach",
    "ProfileCalibration",
    "ProfileSummary",
    "QcResult",
    "RuleCheck",
    "SchedulePrediction",
    "SensitivityResult",
    "StudyRow",
    "StudySettings",
]


@dataclass(frozen=True, repr=False)
class BootstrapBand(Result):
    """How the bootstrap's band was made."""

    block: int
    """Logged steps per resampled block."""
    failed: int
    """Replicates whose refit failed."""
    not_converged: int
    """Replicates whose refit did not converge."""
    replicates: int
    """Replicates refitted (those that failed left out)."""
    residual_sd: float
    """Standard deviation of the training curves' log residuals."""
    seed: int
    """Seed of the draws."""
    calibration: Optional[BootstrapCalibration]
    """The widening measured on the training curves' later halves (None: the bootstrap's own
    intervals).
    """


@dataclass(frozen=True, repr=False)
class BootstrapCalibration(Result):
    """How much the prediction intervals are widened, measured on the training curves alone: the
    fit on the first half of each training curve's logged steps is bootstrapped alike, and
    ``factor`` is the level quantile of |ln y − ln ŷ| / (the interval's half-width on that side,
    in log space) over the later half's points (at least 1). Extrapolating in time along a
    training curve stands in for extrapolating to other schedules, which no training data can
    measure directly; the held-out coverage is measured, not calibrated on.
    """

    factor: float
    failed: int
    """Replicates of the half fit that failed."""
    points: int
    """Logged points of the later halves it was measured on."""


@dataclass(frozen=True, repr=False)
class CooldownPoint(Result):
    """One branch of a ``cooldowns`` spec: where it starts and ends, and the loss it reaches."""

    constant_loss: float
    """The constant run's loss at the same step (what the cooldown gains over it)."""
    end_step: int
    """The step it ends at."""
    length: int
    """Its length in steps."""
    loss: float
    """The predicted loss at ``end_step``."""
    start: int
    """The step the cooldown starts at."""


@dataclass(frozen=True, repr=False)
class CooldownStudy(Result):
    """The study's table with the values it used."""

    dropped: int
    """Replicates left out because the law gave a non-finite loss on some schedule."""
    law: Literal["multi_power", "lr_annealing", "power_area", "fsl"]
    replicates: int
    """Replicates whose losses were finite at every T (the intervals' sample)."""
    rows: List[StudyRow]
    settings: StudySettings


@dataclass(frozen=True, repr=False)
class Coverage(Result):
    """How well the prediction intervals of a bootstrap hold one run's logged points."""

    covered: int
    """Logged points inside their step's prediction interval."""
    mean_width: float
    """Mean of high − low over the logged steps, in loss units."""
    points: int
    run: str


@dataclass(frozen=True, repr=False)
class CurveBand(Result):
    """Per-step intervals of a predicted curve."""

    high: List[float]
    level: float
    loss: List[float]
    """The fit's curve."""
    low: List[float]
    """Prediction interval of a new logged point: each replicate's curve times exp(a training
    residual), quantiles over replicates and residuals, each end at least the training
    residuals' quantile away from the fit's curve (so it contains the prediction); with a
    [``Calibration``], each end's distance from the fit's curve (in log space) times its factor.
    """
    mean_high: List[float]
    mean_low: List[float]
    """Interval of the mean curve (the replicates' curves' quantiles)."""
    steps: List[int]


@dataclass(frozen=True, repr=False)
class DroppedGroup(Result):
    """The prediction without one scale group."""

    rows: int
    """Runs in the group (left out of this refit)."""
    scale_high: float
    """The largest value of the scale column in the group."""
    scale_low: float
    """The smallest value of the scale column in the group."""
    change: Optional[float]
    """value / full prediction − 1."""
    converged: Optional[bool]
    """Whether the refit converged."""
    error: Optional[str]
    """Why the refit failed."""
    value: Optional[float]
    """The refit's prediction at the point (None: the refit failed)."""
    within_pi: Optional[bool]
    """Whether the refit's prediction lies inside the full fit's prediction interval."""


@dataclass(frozen=True, repr=False)
class Flag(Result):
    """One flagged row: what a face needs to say why, as values."""

    row: int
    """The row as the user's file numbers it (1-based data row)."""
    rule: Literal["non_finite", "duplicate", "near_duplicate", "initialisation", "warmup", "law_outlier", "neighbour_outlier", "above_frontier"]
    """A rule of QC."""
    column: Optional[str]
    """The setting along which a run stands above its neighbours (above_frontier)."""
    expected: Optional[float]
    """What the loss was compared with: the law's prediction, the mean of the other runs at
    its scale, the loss its neighbours along a setting allow at most.
    """
    loss: Optional[float]
    """The row's loss (None: not a number)."""
    other_row: Optional[int]
    """The other row the flag names: the earlier copy of a duplicate, the neighbour whose
    loss bounds a run above its budget's curve.
    """
    threshold: Optional[float]
    """The threshold ``value`` crossed (the cutoff, the t as rare as the cutoff, the jump, the
    tolerance, the warm-up length).
    """
    value: Optional[float]
    """What the rule measured: a modified z-score (the law rule), a deletion t (the neighbour
    rule), how far above
    its neighbours' bound as a fraction of it (above_frontier), the largest relative
    difference from the earlier row (duplicates), the step (warm-up, initialisation).
    """
    written: Optional[str]
    """The loss cell as written, when it is not a finite number."""


@dataclass(frozen=True, repr=False)
class FullPrediction(Result):
    """The prediction of the fit of every run at the point, with its intervals."""

    value: float
    """The law's prediction."""
    ci: Optional[Tuple[float, float]]
    """Confidence interval of the law's mean."""
    distance_decades: Optional[float]
    """Signed decades from the fitted range (beyond the largest run > 0)."""
    pi: Optional[Tuple[float, float]]
    """Prediction interval of a new run (calibrated beyond the data when the fit is)."""


@dataclass(frozen=True, repr=False)
class ParameterReach(Result):
    """How far one parameter reaches inside the region."""

    estimate: float
    high: float
    high_open: bool
    low: float
    """The lowest and highest values of the parameter among the fits inside the region (the
    fit's where the parameter is held).
    """
    low_open: bool
    """Whether the parameter's trace reached its bound (or e^12 times the fit) without leaving
    the region: the data leave that direction open.
    """
    name: str


@dataclass(frozen=True, repr=False)
class ProfileCalibration(Result):
    """What the calibration on the training curves' later halves found."""

    coverage: float
    """Their share inside the half fit's band at that factor."""
    factor: float
    """The threshold's factor chosen."""
    points: int
    """Logged points of the later halves."""
    reached: bool
    """Whether that share reached the level (false: the largest factor explored, short of it)."""


@dataclass(frozen=True, repr=False)
class ProfileSummary(Result):
    """How the threshold was set and how far each parameter reaches inside it."""

    base_threshold: float
    """Δ = ½·χ²·s²·τ."""
    df: float
    """Degrees of freedom of the χ² quantile."""
    dispersion: float
    """The M-estimator's dispersion s² of the log residuals."""
    factor: float
    """The factor the band's threshold is Δ times (1 without a calibration)."""
    failed: int
    fits: int
    """Fits inside the threshold (the fit included)."""
    inflation: float
    """(1 + ρ)/(1 − ρ): the inflation of the dispersion for that autocorrelation."""
    lag1: float
    """Lag-1 autocorrelation of consecutive log residuals (clamped to [0, 0.99])."""
    level: float
    reach: List[ParameterReach]
    threshold: float
    """The band's threshold: the largest rise of the objective above the fit's inside it."""
    trials: int
    calibration: Optional[ProfileCalibration]


@dataclass(frozen=True, repr=False)
class QcResult(Result):
    """Every rule's outcome and every flag of the runs."""

    budget: List[str]
    cutoff: float
    """The cutoff: on modified z-scores (the law rule), and the deletion t as rare as it (the
    neighbour rule).
    """
    data: str
    """Where the runs came from."""
    duplicate_tolerance: float
    """The relative tolerance of near-duplicates."""
    flags: List[Flag]
    """Every flag, by row then rule."""
    log: bool
    """Whether losses were compared in log space."""
    rows: int
    """Rows checked."""
    rules: List[RuleCheck]
    scale: List[str]
    """The scale columns (with the loss, the columns compared for duplicates)."""
    target: str
    """The loss column."""
    law: Optional[str]
    """The law fitted for the law rule, as reports name it."""
    step: Optional[str]
    warmup: Optional[float]


@dataclass(frozen=True, repr=False)
class RuleCheck(Result):
    """Whether a rule ran, and what it flagged."""

    flagged: int
    """Rows flagged by the rule."""
    rule: Literal["non_finite", "duplicate", "near_duplicate", "initialisation", "warmup", "law_outlier", "neighbour_outlier", "above_frontier"]
    """A rule of QC."""
    not_checked: Optional[str]
    """Why the rule did not run (None: it ran)."""


@dataclass(frozen=True, repr=False)
class SchedulePrediction(CurveFrame, Result):
    """The predicted curve, with its prediction intervals when they were asked for."""

    final_loss: float
    """The predicted loss at the last step."""
    final_lr: float
    """The learning rate at the last step."""
    loss: List[float]
    """The predicted loss at each sampled step."""
    lr: List[float]
    """The learning rate at each sampled step."""
    peak_lr: float
    """Its largest learning rate."""
    schedule: str
    """The schedule spec."""
    steps: List[int]
    """The sampled steps."""
    steps_total: int
    """Steps in the schedule."""
    band: Optional[CurveBand]
    """The prediction intervals at each sampled step (absent without intervals)."""
    bootstrap: Optional[BootstrapBand]
    """How the bootstrap's intervals were made (present under the bootstrap)."""
    cooldowns: List[CooldownPoint]
    """For ``cooldowns`` specs: each branch's start, end step and predicted loss there."""
    held_out: Optional[List[Coverage]]
    """The intervals' coverage of each held-out run's logged points (absent without
    intervals; empty when the fit trained on every run).
    """
    profile: Optional[ProfileSummary]
    """How the profile band's threshold was set (present under the profile)."""


@dataclass(frozen=True, repr=False)
class SensitivityResult(Result):
    """How far the prediction at a point moves when each scale group is left out of the fit."""

    at: Dict[str, float]
    """The point, by the law's variables."""
    by: str
    """The column that orders scale."""
    data: str
    """Where the runs came from."""
    full: FullPrediction
    """The prediction of the fit of every run."""
    groups: List[DroppedGroup]
    """One entry per scale group, from the smallest scale up."""
    law: str
    """The law as reports name it."""
    level: float
    """The level of the intervals."""
    max_change: Optional[float]
    """The largest |change| over the groups refitted."""
    most_influential: Optional[int]
    """The scale group whose dropping moves the prediction most (its index in ``groups``)."""


@dataclass(frozen=True, repr=False)
class StudyRow(Result):
    """One compute of the study."""

    constant_loss: float
    """The constant run's loss at step T − 1, with no cooldown."""
    cooldown_loss: float
    cooldown_start: int
    """The step where the cooldown branches off the constant run."""
    cosine_loss: float
    difference: float
    """cooldown_loss − cosine_loss: negative where constant + cooldown does better."""
    steps: int
    """T: both schedules' length; their final loss is at step T − 1."""
    cooldown_interval: Optional[Tuple[float, float]]
    """Percentile intervals over the replicates (absent without replicates)."""
    cosine_interval: Optional[Tuple[float, float]]
    difference_interval: Optional[Tuple[float, float]]


@dataclass(frozen=True, repr=False)
class StudySettings(Result):
    """What the study compares."""

    decay: Literal["linear", "cosine", "exp"]
    """The cooldown's shape."""
    final: float
    """Where the cooldown and the cosine end."""
    fraction: float
    """The cooldown's share of T: it starts at T − round(fraction·T)."""
    level: float
    """The intervals' coverage (0.95: the 2.5 % and 97.5 % percentiles)."""
    peak: float
    """The constant learning rate and the cosine's peak."""
    steps: List[int]
    """The training lengths T (steps; one compute each at a fixed model size)."""
    warmup: int


@checked
def sensitivity(
    data: DataLike,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    *,
    at: Mapping[str, float],
    by: str,
    target: str,
    bootstrap: int = 0,
    bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
    calibrate: bool = True,
    cluster: Optional[str] = None,
    derive: Optional[Mapping[str, str]] = None,
    dispersion: Optional[float] = None,
    exposure: Optional[str] = None,
    f_scale: float = 0.001,
    family: Optional[str] = None,
    fix: Optional[Mapping[str, float]] = None,
    grid: Optional[Mapping[str, Sequence[float]]] = None,
    heteroscedastic: Optional[str] = None,
    level: float = 0.95,
    loss: str = "huber",
    map: Optional[Mapping[str, str]] = None,
    max_decades: Optional[float] = None,
    nu: Optional[float] = None,
    profiles: Optional[Sequence[str]] = None,
    qc: Literal["warn", "exclude", "off"] = "warn",
    seed: int = 0,
    space: Optional[str] = None,
    sweep: Optional[Union[str, Sequence[str]]] = None,
    threads: Optional[int] = None,
    trials: Optional[Union[float, str]] = None,
    weights: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> SensitivityResult:
    """How far the prediction at a point moves when each scale group is left out of the fit. The
    same document as the command line's ``--json``.

    - ``at``: The point to predict at: a value for each of the law's variables.
    - ``by``: The column that orders scale (e.g. compute): its groups are dropped one at a time.
    - ``target``: The column the law predicts.
    - ``bootstrap``: Bootstrap replicates of the fit (0: none).
    - ``bounds``: Bounds of parameters: {name: (low, high)}, None for no bound on that side.
    - ``calibrate``: Widen prediction intervals beyond the data by the law's form error (the
      cross-study prior updated by the fit's backtests).
    - ``cluster``: Resample whole runs named by this column instead of rows.
    - ``derive``: Columns computed from others: {name: expression}, in order (each may use those
      before).
    - ``dispersion``: A family's dispersion (None: fitted).
    - ``exposure``: A count family's exposure column.
    - ``f_scale``: The scale at which the robust loss turns from quadratic to linear.
    - ``family``: A likelihood family for counts or proportions (``poisson``, ``binomial``,
      ...).
    - ``fix``: Parameters held at given values: {name: value}.
    - ``formula``: A law as a formula of columns and parameters (``E + A*N^-alpha``).
    - ``grid``: Start values of parameters for the global search: {name: [values]}.
    - ``heteroscedastic``: The column the residual scale varies with (linear loss only).
    - ``law``: A built-in law (``chinchilla``, ``bnsl:2``; see ``laws``): exactly one of law and
      formula.
    - ``level``: Level of the intervals.
    - ``loss``: The robust loss per residual: ``huber``, ``linear``, ``soft_l1``, ``cauchy`` or
      ``arctan``.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``max_decades``: Refuse a point more than this many decades beyond the largest run (in the
      law's own scale; None: no limit).
    - ``nu``: The Student-t family's degrees of freedom (None: fitted).
    - ``profiles``: Parameters given profile-likelihood intervals.
    - ``qc``: Quality control of the runs before the fit: ``warn`` (flag diverged, duplicated
      and out-of-line rows and fit every row), ``exclude`` (remove the flagged rows, listing
      them) or ``off``.
    - ``seed``: Seed of every random step (the fit itself is deterministic).
    - ``space``: Where residuals are taken: ``log`` or ``linear`` (None: the law's own).
    - ``sweep``: Swept columns (learning rate, batch size, ...): one or several. The law is
      fitted to each cell's frontier (per value of the law's variables: the minimum of a
      parabola through the best setting and its neighbours, else the best run), not to every
      run.
    - ``threads``: Worker threads (None: every core).
    - ``trials``: A proportion family's trials: a column, or one count for every row.
    - ``weights``: A column of per-row weights.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "at": at,
        "by": by,
        "target": target,
        "bootstrap": bootstrap,
        "bounds": bounds,
        "calibrate": calibrate,
        "cluster": cluster,
        "derive": derive,
        "dispersion": dispersion,
        "exposure": exposure,
        "f_scale": f_scale,
        "family": family,
        "fix": fix,
        "formula": formula,
        "grid": grid,
        "heteroscedastic": heteroscedastic,
        "law": law,
        "level": level,
        "loss": loss,
        "map": map,
        "max_decades": max_decades,
        "nu": nu,
        "profiles": profiles,
        "qc": qc,
        "seed": seed,
        "space": space,
        "sweep": sweep,
        "threads": threads,
        "trials": trials,
        "weights": weights,
        "where": where,
    }
    warn_threads(threads, 4)
    return SensitivityResult._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "sensitivity",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def cooldown_study(
    fit: Union[ScheduleFit, Mapping[str, Any]],
    *,
    bootstrap: int = 0,
    decay: Literal["linear", "cosine", "exp"] = "linear",
    final: Optional[float] = None,
    fraction: float = 0.2,
    level: Optional[float] = None,
    peak: Optional[float] = None,
    seed: Optional[int] = None,
    steps: Optional[Sequence[int]] = None,
    warmup: Optional[int] = None,
) -> CooldownStudy:
    """Constant learning rate with a cooldown against a cosine at each training length, under a
    schedule fit. The same document as the command line's ``--json``.

    - ``bootstrap``: Bootstrap replicates of the fit's training curves for percentile intervals
      (0: none).
    - ``decay``: The cooldown's shape.
    - ``final``: Learning rate at the end of the cooldown and of the cosine (None: peak/10).
    - ``fraction``: The cooldown's share of each run, strictly between 0 and 1.
    - ``level``: Coverage of the percentile intervals (None: 0.95); needs a bootstrap.
    - ``peak``: Peak (constant) learning rate, also the cosine's (None: the fit's training
      run's).
    - ``seed``: Seed of the bootstrap's draws (None: 0); needs a bootstrap.
    - ``steps``: Training lengths in steps (empty: 0.5, 1, 2 and 4 times the fit's training
      run).
    - ``warmup``: Warmup steps (None: the fit's training run's).
    """
    spec = {
        "bootstrap": bootstrap,
        "decay": decay,
        "final": final,
        "fraction": fraction,
        "level": level,
        "peak": peak,
        "seed": seed,
        "steps": steps,
        "warmup": warmup,
    }
    return CooldownStudy._from_native(
        _scalinglaws.run_workflow(
            _fit_json(fit),
            "cooldown_study",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def qc(
    data: DataLike,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    *,
    target: str,
    budget: Optional[Sequence[str]] = None,
    cutoff: float = 3.5,
    derive: Optional[Mapping[str, str]] = None,
    duplicate_tolerance: float = 1e-6,
    exposure: Optional[str] = None,
    linear: bool = False,
    map: Optional[Mapping[str, str]] = None,
    scale: Optional[Sequence[str]] = None,
    step: Optional[str] = None,
    sweep: Optional[Union[str, Sequence[str]]] = None,
    trials: Optional[Union[float, str]] = None,
    warmup: Optional[float] = None,
    weights: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> QcResult:
    """Flag the runs to set aside before a fit: broken or diverged losses, repeated rows, early
    checkpoints, outliers. The same document as the command line's ``--json``.

    - ``target``: The column the law predicts.
    - ``budget``: The column of the compute budget, with any columns that tell configurations
      apart: the runs equal on all of them are the cells of the frontier rule, which follows
      each numeric scale (or step) column that varies within a cell (a swept setting, a
      profile's size).
    - ``cutoff``: The cutoff of the law rule on modified z-scores (Iglewicz & Hoaglin's 3.5),
      and of the neighbour rule as the deletion t as rare as |z| > cutoff.
    - ``derive``: Columns computed from others: {name: expression}, in order (each may use those
      before).
    - ``duplicate_tolerance``: The relative tolerance within which rows are near-duplicates.
    - ``exposure``: A count family's exposure column.
    - ``formula``: A law as a formula, instead of ``law``.
    - ``law``: A built-in law to fit to the runs the data rules leave, for the law rule (None:
      no law rule).
    - ``linear``: Compare losses as they are instead of in log space (losses that can be zero or
      negative).
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``scale``: Columns whose equal values place runs at one scale (e.g. N and D): the
      neighbours of the neighbour rule, and (with the loss) the columns compared for duplicates
      (none: the law's variables when a law is given).
    - ``step``: The column of steps (or tokens seen): checkpoints at 0, and before ``warmup``.
    - ``sweep``: Swept columns (learning rate, batch size, ...): one or several. The law is
      fitted to each cell's frontier (per value of the law's variables: the minimum of a
      parabola through the best setting and its neighbours, else the best run), not to every
      run.
    - ``trials``: A proportion family's trials: a column, or one count for every row.
    - ``warmup``: The warm-up length, in the step column's units (None: that rule does not run;
      none is assumed).
    - ``weights``: A column of per-row weights.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "target": target,
        "budget": budget,
        "cutoff": cutoff,
        "derive": derive,
        "duplicate_tolerance": duplicate_tolerance,
        "exposure": exposure,
        "formula": formula,
        "law": law,
        "linear": linear,
        "map": map,
        "scale": scale,
        "step": step,
        "sweep": sweep,
        "trials": trials,
        "warmup": warmup,
        "weights": weights,
        "where": where,
    }
    return QcResult._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "qc",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def schedule_predict(
    fit: Union[ScheduleFit, Mapping[str, Any]],
    schedule: str,
    *,
    bootstrap: int = 0,
    every: int = 0,
    interval: Optional[Literal["bootstrap", "profile"]] = None,
    level: Optional[float] = None,
    seed: Optional[int] = None,
) -> SchedulePrediction:
    """The loss curve a schedule fit predicts for a schedule, with prediction intervals when asked.
    The same document as the command line's ``--json``.

    - ``schedule``: The schedule, KIND:KEY=VALUE,... (e.g.
      ``cosine:peak=3e-4,warmup=2160,steps=24000,final=3e-5``; kinds: constant, cosine, wsd,
      step, cooldowns); keys left out take the fit's training run's values.
    - ``bootstrap``: Bootstrap replicates of the fit's training curves for prediction intervals
      of each logged point (0: none).
    - ``every``: Report the curve every K steps (0: about 200 points).
    - ``interval``: How the prediction intervals are made (None: by the bootstrap when
      replicates are given, else no intervals).
    - ``level``: Level of the prediction intervals (None: 0.95); needs intervals.
    - ``seed``: Seed of the bootstrap's draws (None: 0); needs a bootstrap.
    """
    spec = {
        "schedule": schedule,
        "bootstrap": bootstrap,
        "every": every,
        "interval": interval,
        "level": level,
        "seed": seed,
    }
    return SchedulePrediction._from_native(
        _scalinglaws.run_workflow(
            _fit_json(fit),
            "schedule_predict",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )
