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
from ._fit import Fit, dump, warn_caveats, warn_threads
from ._keywords import Count, Rows, checked
from ._results import (
    BudgetsFrame,
    CandidatesFrame,
    CellsFrame,
    CooldownFrame,
    CurveFrame,
    DesignFrame,
    EnvelopePointsFrame,
    FitCaveat,
    FrontierFrame,
    ForecastsFrame,
    HeldOutBudgetsFrame,
    IsoflopGroupsFrame,
    LawsFrame,
    OptimizedScheduleFrame,
    PredictionsFrame,
    Result,
    ScheduleComparisonFrame,
    ScheduleFitFrame,
    SelectedPredictionsFrame,
    SplitsFrame,
    TracksFrame,
    _fit_json,
)

__all__ = [
    "fit",
    "sensitivity",
    "predict",
    "cooldown_study",
    "qc",
    "schedule_predict",
    "lr",
    "downstream",
    "backtest",
    "isoflop",
    "compare_laws",
    "select",
    "compare",
    "design",
    "optimal",
    "schedule_cooldown",
    "schedule_fit",
    "schedule_compare",
    "schedule_optimize",
    "Allocation",
    "AllocationReference",
    "Backtest",
    "BacktestMetrics",
    "BacktestPoint",
    "BacktestSplit",
    "BootstrapBand",
    "BootstrapCalibration",
    "BudgetComparison",
    "BudgetPrediction",
    "CalibrationNote",
    "CandidateScore",
    "CellWins",
    "CooldownPoint",
    "CooldownRow",
    "CooldownStudy",
    "CooldownTable",
    "Coverage",
    "CurveBand",
    "DataSummary",
    "DesignAnalysis",
    "Dispersion",
    "DownstreamAnalysis",
    "DownstreamAverage",
    "DownstreamCalibration",
    "DownstreamForecast",
    "DownstreamScore",
    "DroppedGroup",
    "Envelope",
    "EnvelopeGroup",
    "EnvelopePoint",
    "Evaluation",
    "EvaluationSplit",
    "Exponents",
    "FamilySpread",
    "Flag",
    "ForecastCalibration",
    "Frontier",
    "FrontierCell",
    "FullPrediction",
    "HeldOutBudget",
    "HeldOutScore",
    "IntervalBasis",
    "IntervalNote",
    "Isoflop",
    "IsoflopAnalysis",
    "IsoflopBacktest",
    "IsoflopBacktestGroup",
    "IsoflopBudget",
    "IsoflopCandidateScore",
    "IsoflopGroup",
    "IsoflopWindow",
    "JointCandidate",
    "JointFit",
    "JointForecast",
    "LawComparison",
    "LawPrediction",
    "LawScore",
    "LocalCurve",
    "LrAnalysis",
    "LrBacktest",
    "LrBacktestSplit",
    "LrBatchAnalysis",
    "LrBatchCell",
    "LrCell",
    "LrColumnsRead",
    "LrCounts",
    "LrCurvatureLawCheck",
    "LrCurvatureTest",
    "LrHeldOut",
    "LrLaw",
    "LrNoise",
    "LrParam",
    "LrPrediction",
    "LrReference",
    "MethodChoice",
    "NestedTest",
    "OptimizeSettings",
    "OptimizedSchedule",
    "PairComparison",
    "ParameterReach",
    "PlannedRun",
    "PowerLaw",
    "PredictedCurve",
    "PredictedPoint",
    "Predictions",
    "ProfileCalibration",
    "ProfileSummary",
    "ProfilesCandidate",
    "QcResult",
    "Quantity",
    "ResidualSpread",
    "Round",
    "RuleCheck",
    "RunScore",
    "SavedCurve",
    "ScheduleBaseline",
    "ScheduleComparison",
    "ScheduleDefaults",
    "ScheduleEstimate",
    "ScheduleFit",
    "SchedulePrediction",
    "SelectedPrediction",
    "Selection",
    "SelectionResult",
    "SensitivityResult",
    "ShapeChoice",
    "SimulationCheck",
    "SplitCalibration",
    "StudyRow",
    "StudySettings",
    "SweepFrontier",
    "SweptColumn",
    "TargetWidths",
    "TaskDiagnosis",
    "TaskForecast",
    "TrackComparison",
    "TrackEstimate",
    "TrackFit",
    "TrackParam",
    "VaryingSd",
    "IsoflopCandidate",
    "IsoflopGroupResult",
    "NewRunSpread",
]


@dataclass(frozen=True, repr=False)
class Allocation(Result):
    """The compute-optimal point at one budget (or the cheapest point at one target loss)."""

    D: float
    """Training tokens D."""
    N: float
    """Model parameters N."""
    budget: float
    """The compute spent: training FLOPs, plus inference FLOPs 2·N·T when inference tokens
    are given.
    """
    loss: float
    """The law's loss there."""
    tokens_per_param: float
    """D / N."""
    binding: Optional[str]
    """The cap that holds the allocation at its bound (``max_params``, ``max_active`` or
    ``max_tokens``), if any.
    """
    calibrated: bool
    """Whether the interval is calibrated beyond the data."""
    chosen: Dict[str, float]
    """The value chosen for each held variable that was given several."""
    ci: Dict[str, Tuple[float, float]]
    """Percentile intervals from bootstrap draws: ``N``, ``D``, ``tokens_per_param``, ``loss``,
    ``budget`` (``loss``: of the law's mean at the optimum, a confidence interval).
    """
    distance_decades: Optional[float]
    """Signed decades from the fitted range in the law's own scale (with a calibration):
    beyond the largest fitted run (> 0), below the smallest (< 0), inside (0).
    """
    inference_flops: Optional[float]
    """Inference FLOPs 2·N·T, when inference tokens are given."""
    pi: Optional[Tuple[float, float]]
    """Prediction interval of a new run's loss at (N, D), from the fit: calibrated beyond the
    data when ``calibrated`` (see ``uncertainty::calibration``), else the fit's own.
    """
    pi_fit: Optional[Tuple[float, float]]
    """The fit's own prediction interval there (parameters plus residual scatter)."""
    reference: Optional[AllocationReference]
    """For a target loss with inference tokens: the inference-blind optimum at that loss."""
    regime: Optional[Literal["inside", "prior", "blended", "own", "backtests"]]
    """How ``pi`` was made (with a calibration): inside the data, or beyond it by the prior,
    the fit's own backtests, or both.
    """
    total_params: Optional[float]
    """Total parameters, when a formula for them is given."""
    training_flops: Optional[float]
    """Training and inference FLOPs, when inference tokens are given."""


@dataclass(frozen=True, repr=False)
class AllocationReference(Result):
    """The allocation that ignores inference (minimum training compute for the loss), and what
    the inference-aware one saves over the run's life relative to it.
    """

    D: float
    """Training tokens D."""
    N: float
    """Model parameters N."""
    budget: float
    """Its lifetime compute (training + inference at the same T)."""
    savings: float
    """1 − budget(inference-aware) / budget(reference)."""


@dataclass(frozen=True, repr=False)
class Backtest(SplitsFrame, Result):
    """A backtest (what ``backtest`` returns): where the runs came from, the law, the scale column
    and the scheme of holding out, with every split's fit and scores.
    """

    by: str
    """The column that orders scale."""
    data: DataSummary
    """Where the runs came from, and what the filters removed."""
    holdout: str
    """How rows were held out, in words."""
    intervals: Literal["bootstrap", "delta", "none"]
    """Where the training fits' intervals come from."""
    law: str
    """The law as reports name it."""
    level: float
    """The intervals' level (e.g. 0.95)."""
    scheme: Literal["top", "fraction", "rollout", "rolling"]
    """How the rows were held out (``holdout`` says it in words, with its number)."""
    splits: List[BacktestSplit]
    """Each split's fit and scores."""
    metrics: Optional[BacktestMetrics]
    """Over every held-out point of every split."""
    sweep: Optional[SweepFrontier]
    """The sweep's frontier whose rows were backtested (each row a cell's frontier)."""


@dataclass(frozen=True, repr=False)
class BacktestMetrics(Result):
    """Scores of a set of held-out predictions."""

    are_max: float
    """Largest absolute relative error."""
    are_mean: float
    """Mean absolute relative error."""
    are_median: float
    """Median absolute relative error."""
    bias: float
    """Mean signed relative error (> 0: the law over-predicts)."""
    points: int
    """Held-out runs scored."""
    with_intervals: int
    """Held-out runs with a prediction interval (a training fit without a covariance has none)."""
    calibrated: int
    """Held-out runs whose interval was calibrated, and the coverage and mean width of those
    calibrated intervals and of the fits' own intervals on the same runs.
    """
    calibrated_coverage: Optional[float]
    """Coverage of the calibrated intervals."""
    calibrated_fit_coverage: Optional[float]
    """Coverage of the fits' own intervals on the same runs."""
    calibrated_fit_width: Optional[float]
    """Mean relative width of the fits' own intervals on the same runs."""
    calibrated_width: Optional[float]
    """Mean relative width of the calibrated intervals."""
    ci_coverage: Optional[float]
    """Share of held-out runs inside the confidence interval of the mean (expected to be lower
    than the level: runs scatter around the mean).
    """
    pi_coverage: Optional[float]
    """Share of held-out runs inside their prediction interval (of those with one)."""
    pi_fit_coverage: Optional[float]
    """Coverage of the training fits' own prediction intervals (before calibration)."""
    pi_fit_width: Optional[float]
    """Mean relative width of the training fits' own intervals."""
    pi_width: Optional[float]
    """Mean relative width (hi − lo) / predicted of the scored and of the fits' own intervals."""
    rmse_log: Optional[float]
    """Root mean square of the log residuals."""


@dataclass(frozen=True, repr=False)
class BacktestPoint(Result):
    """A held-out run and its prediction."""

    actual: float
    """The observed value."""
    distance_decades: float
    """Decades beyond the training data."""
    predicted: float
    """The training fit's prediction."""
    relative_error: float
    """(predicted − actual) / actual."""
    row: int
    """Index of the row in the data given to the backtest."""
    scale: float
    """Its value of the scale column."""
    calibrated: bool
    """Whether ``pi`` was widened by a calibration."""
    ci: Optional[Tuple[float, float]]
    """Confidence interval of the mean there."""
    log_residual: Optional[float]
    """ln predicted − ln actual (None unless both are positive)."""
    pi: Optional[Tuple[float, float]]
    """The prediction interval scored: calibrated when the backtest calibrates."""
    pi_fit: Optional[Tuple[float, float]]
    """The training fit's own prediction interval (before any calibration)."""


@dataclass(frozen=True, repr=False)
class BacktestSplit(Result):
    """One training set and its held-out rows."""

    params: Dict[str, float]
    """The training fit's parameters by name."""
    points: List[BacktestPoint]
    """The held-out runs and their predictions."""
    test_rows: int
    """Rows held out and scored."""
    train_rows: int
    """Rows the fit was trained on."""
    trained_up_to: float
    """Largest scale in the training set."""
    calibration: Optional[SplitCalibration]
    """The nested calibration of this split's intervals (when the backtest calibrates)."""
    converged: Optional[bool]
    """Whether the training fit converged."""
    error: Optional[str]
    """Why the training fit failed, when it did (the split is then left out of the scores)."""
    metrics: Optional[BacktestMetrics]
    """The split's scores."""
    objective: Optional[float]
    """The training fit's objective (None when it failed; see ``error``)."""


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
class BudgetComparison(Result):
    """Track B against the baseline A at one budget."""

    budget: float
    """The compute budget C (FLOPs)."""
    gap: TrackEstimate
    """L*_B(C) − L*_A(C)."""
    loss_baseline: float
    """L*_A(C), the baseline's compute-optimal loss."""
    loss_track: float
    """L*_B(C), the track's."""
    multiplier: TrackEstimate
    """C_A(L*_B(C)) / C: the compute A needs to match B at C, per unit of C."""
    track_needs: TrackEstimate
    """C_B(L*_A(C)) / C: the compute B needs to match A at C, per unit of C."""
    p_track_better: Optional[float]
    """Share of paired draws with L*_B(C) < L*_A(C)."""


@dataclass(frozen=True, repr=False)
class BudgetPrediction(Result):
    """A prediction at one new budget."""

    D: Quantity
    N: Quantity
    budget: float
    decades_out: float
    """Decades beyond the largest budget with a minimum (0 inside the data)."""
    loss: Quantity


@dataclass(frozen=True, repr=False)
class CalibrationNote(Result):
    """How the prediction intervals were calibrated beyond the data (the fit's calibration
    without its per-run scores).
    """

    by: str
    """The column scale is measured by."""
    calibrated: bool
    """Whether ``pi`` is widened beyond the data."""
    description: str
    """One sentence: the calibration described, or why there is none."""
    growth: float
    """How the form error grows with the distance d in decades: as d^growth."""
    held_out: int
    """Held-out runs the backtests scored."""
    largest_scale: float
    """The largest fitted scale (distances beyond are measured from it)."""
    max_distance_decades: float
    """The furthest a backtest reached beyond its training runs, in decades."""
    method: str
    """The calibration's method, in a sentence."""
    tau_per_decade: float
    """The law's form error one decade beyond the data (fitted space, sd)."""
    units: int
    """The (origin, scale group) units they make."""
    coverage_calibrated: Optional[float]
    """Their share inside the calibrated intervals (the level by construction)."""
    coverage_fit: Optional[float]
    """The weighted share of the scored runs inside the fit's own intervals."""
    own_weight: Optional[float]
    """The share of the prior's uncertainty the fit's own backtests removed (None: as
    ``prior_version``).
    """
    prior_version: Optional[str]
    """The cross-study prior's version (None: a fit file written before the prior)."""
    reason: Optional[str]
    """Why ``pi`` is not calibrated, when it is not."""
    smallest_scale: Optional[float]
    """The smallest fitted scale (distances below are measured from it)."""


@dataclass(frozen=True, repr=False)
class CandidateScore(Result):
    """A candidate's rolling-backtest score."""

    calibrated: bool
    """Whether its prediction intervals are calibrated beyond the data (and τ when they are)."""
    formula: str
    """The law's formula."""
    free_params: int
    """Parameters fitted (not held)."""
    label: str
    """The candidate's label (its catalog name with held values, or its formula)."""
    params: Dict[str, float]
    """Parameters fitted to all the data, by name."""
    tied_with_best: bool
    """Within one standard error of the best score (the best candidate's score's standard
    error over the rolling origins, reported as its ``score_se``).
    """
    weight: float
    """Stacking weight."""
    are_mean: Optional[float]
    """Unit-weighted mean absolute relative error (ŷ − y)/y of the held-out runs."""
    bic: Optional[float]
    """Bayesian information criterion on all the data."""
    calibration_reason: Optional[str]
    """Why its intervals are not calibrated beyond the data."""
    error: Optional[str]
    """Why the candidate could not be scored, when it could not."""
    gap_se: Optional[float]
    """Standard error of (this score − the best score), paired over the rolling origins."""
    log_likelihood: Optional[float]
    """Log-likelihood at the fitted parameters on all the data, maximised over the error scale
    (for ``huber`` a lower bound on the joint maximum).
    """
    rmse: Optional[float]
    """Unit-weighted root mean squared held-out error in the fitted space."""
    score: Optional[float]
    """The score: unit-weighted mean absolute held-out error in the fitted space (for log
    residuals, about the mean absolute relative error).
    """
    score_se: Optional[float]
    """The standard error of the score over the rolling origins (the best candidate's)."""
    tau_per_decade: Optional[float]
    """The calibration's widening per decade beyond the data."""


@dataclass(frozen=True, repr=False)
class CellWins(Result):
    """Cells run in both tracks, by which reached the lower loss."""

    baseline_wins: int
    """Cells where the baseline reached the lower loss."""
    shared: int
    """Cells (N, D) run in both tracks."""
    ties: int
    """Cells where both tracks reached exactly the same loss."""
    track_wins: int
    """Cells where the track reached the lower loss."""


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
class CooldownRow(Result):
    """One cooldown of a cooldown table."""

    constant_loss: float
    """The constant run's loss at the same step."""
    end_step: int
    """The step it ends at."""
    gain: float
    """constant_loss − loss."""
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
class CooldownTable(CooldownFrame, Result):
    """The cooldown table with the values it used."""

    decay: Literal["linear", "cosine", "exp"]
    """The shape of each cooldown."""
    final: float
    """The learning rate at the end of each cooldown."""
    peak: float
    """The constant learning rate the cooldowns start from."""
    rows: List[CooldownRow]
    """One row per (start, length)."""


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
class DataSummary(Result):
    """Where the data came from and what happened to its rows."""

    derived: List[str]
    """Columns derived before the fit (``VAR=EXPR``)."""
    filters: List[str]
    """The filters, as given."""
    rows_filtered: int
    """Rows removed by explicit filters (the ``where`` setting)."""
    rows_read: int
    """Rows read."""
    source: str
    """The data file (or what the data were given as)."""


@dataclass(frozen=True, repr=False)
class DesignAnalysis(DesignFrame, Result):
    """What ``design`` gives: the design, with what it was designed from (the runs so far and their
    fit, or a prior), the law's variables in its order and the cost formula.
    """

    candidates: int
    """Candidate runs the batch was chosen from."""
    cost: float
    """The batch's total cost."""
    cost_exponent: float
    """The greedy pass's cost exponent λ (narrowing per cost^λ) whose batch was kept."""
    cost_formula: str
    """A run's cost (and how a goal's budget is counted), as given: ``6*N*D``."""
    draws: int
    """Parameter draws the criterion averaged over."""
    law: str
    """The law, as its fit names it."""
    level: float
    """Level of the widths (each is the width of an interval at this level)."""
    max_runs: int
    """Most runs in the batch, as asked."""
    noise: float
    """The noise of a run's outcome, in the fitted space."""
    notes: List[str]
    """What the widths rest on and leave out, in words."""
    runs: List[PlannedRun]
    """The batch: its runs in the order chosen."""
    space: Literal["log", "linear"]
    """The space of the fits, where the noise is counted."""
    targets: List[TargetWidths]
    """Each goal's value and widths."""
    variables: List[str]
    """The law's variables in its order (the columns of the runs to launch)."""
    data: Optional[str]
    """Where the runs so far were read from (None: designed before any run, from a prior)."""
    fit_caveats: List[FitCaveat]
    """What the design inherits from the diagnostics of the fit of the runs so far (a
    parameter at a bound, ...): its widths lean on that fit. Not written when there is none.
    """
    fitted_runs: Optional[int]
    """The runs the fit of the runs so far used (None before any run)."""
    rounds: List[Round]
    """A planned campaign's rounds (empty for a single batch)."""
    simulation: Optional[SimulationCheck]
    """The check of the expected widths by simulated refits (None: not simulated)."""
    spend: Optional[float]
    """Most total cost of the batch, as asked (None: no limit)."""


@dataclass(frozen=True, repr=False)
class Dispersion(Result):
    """A count or proportion family's dispersion as a new run's interval draws at it."""

    adjusted: bool
    """Fitted and adjusted for the law's fit (Cox–Reid), or held at a given value."""
    name: str
    """Its name (``alpha``, ``rho``, ...)."""
    value: float
    """Its value."""


@dataclass(frozen=True, repr=False)
class DownstreamAnalysis(ForecastsFrame, Result):
    """Every task's forecasts (or a backtest's), with where the evaluations came from."""

    averages: List[DownstreamAverage]
    """The mean over the forecast tasks at each target."""
    calibration: List[DownstreamCalibration]
    """How each method's intervals were calibrated, by mode."""
    data: DataSummary
    """Where the evaluations came from, and what the filters removed."""
    forecasts: List[TaskForecast]
    """Every informative task's forecasts at every target."""
    level: float
    """The intervals' level (e.g. 0.95)."""
    notes: List[str]
    """What could not be done, and why."""
    tasks: List[TaskDiagnosis]
    """Each task's diagnosis."""
    scores: List[DownstreamScore]
    """A backtest's scores (empty for plain forecasts)."""


@dataclass(frozen=True, repr=False)
class DownstreamAverage(Result):
    """The mean over the forecast tasks at one target. Its interval is the mean of the tasks'
    bounds: exact if the tasks' errors move together, wider than needed if they do not.
    """

    model: str
    """The target model."""
    tasks: int
    """Tasks averaged."""
    tokens: float
    """Its tokens D."""
    logistic: Optional[DownstreamForecast]
    observed: Optional[float]
    """The mean held-out accuracy, in a backtest."""
    pooled: Optional[DownstreamForecast]
    two_stage: Optional[DownstreamForecast]


@dataclass(frozen=True, repr=False)
class DownstreamCalibration(Result):
    """One method's calibration in one mode, and the replays it came from."""

    gamma: float
    """Share of the trend kept (1 for the baselines, which have none)."""
    method: Literal["logistic", "two_stage", "pooled"]
    """The three methods."""
    mode: Literal["across_sizes", "across_checkpoints"]
    """How a forecast reaches its target: a model not yet trained (across sizes), or a model's
    later checkpoints from its own earlier ones (across checkpoints).
    """
    replayed: str
    """Where the replays came from (the origins, or the models whose checkpoints were hidden)."""
    replays: int
    """Replayed forecasts (0: none could be made; the intervals are the method's own)."""
    sigma: float
    """Added variance per unit of horizon, as a standard deviation."""
    replay_mae: Optional[float]
    """Mean absolute error of the replays at the learned γ, in accuracy points."""


@dataclass(frozen=True, repr=False)
class DownstreamForecast(Result):
    """One method's forecast: its value and interval at the settings' level."""

    interval: Tuple[float, float]
    """At the analysis' level, calibrated by replays inside the data."""
    value: float
    """The forecast accuracy."""


@dataclass(frozen=True, repr=False)
class DownstreamScore(Result):
    """A backtest's score of one method: mean absolute error in accuracy points, and the share of
    observed accuracies inside the intervals.
    """

    coverage: float
    """Share of observed accuracies inside their intervals."""
    forecasts: int
    """Forecasts scored."""
    mae: float
    """Mean absolute error, in accuracy points."""
    method: Literal["logistic", "two_stage", "pooled"]
    """The three methods."""
    width: float
    """Mean width of the intervals, in accuracy points."""


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
class Envelope(EnvelopePointsFrame, Result):
    """Chinchilla's approach 1: the envelope of every run's checkpoints, the lowest loss at each
    compute, and the power laws through it.
    """

    bootstrap: int
    """Bootstrap replicates over runs (0: none), and how many gave both power laws (the
    intervals' draws).
    """
    checkpoints: int
    level: float
    method: str
    """``hull`` or ``grid:K`` (K log-spaced budgets)."""
    points: List[EnvelopePoint]
    runs: int
    """Distinct runs (0 without run labels)."""
    bootstrap_used: int
    d_star: Optional[PowerLaw]
    n_star: Optional[PowerLaw]
    """N* ∝ C^a and D* ∝ C^b through the envelope's points."""


@dataclass(frozen=True, repr=False)
class EnvelopeGroup(Envelope):
    """One group's envelope (from ``envelope=``)."""

    _tag: ClassVar[Tuple[str, str]] = ("approach", "envelope")

    approach: Literal["envelope"]
    group: Dict[str, str]
    """The group's value of each ``group`` column (empty without groups)."""


@dataclass(frozen=True, repr=False)
class EnvelopePoint(Result):
    """One point of the envelope: at compute C, the lowest loss and the N, D that reach it."""

    D: float
    N: float
    budget: float
    loss: float
    run: Optional[str]


@dataclass(frozen=True, repr=False)
class Evaluation(Result):
    """The selection procedure checked out of sample."""

    average: HeldOutScore
    """The scores of predicting with each split's stacked average."""
    candidates: List[HeldOutScore]
    """Each candidate's held-out scores."""
    level: float
    """The intervals' level (e.g. 0.95)."""
    splits: List[EvaluationSplit]
    """The outer splits."""
    winner: HeldOutScore
    """The scores of predicting with each split's winner."""


@dataclass(frozen=True, repr=False)
class EvaluationSplit(Result):
    """One outer split of the nested check (``check``)."""

    test_rows: int
    """Rows held out and scored."""
    train_rows: int
    """Rows the selection was trained on."""
    trained_groups: int
    """Scale groups the split trained on."""
    trained_up_to: float
    """The largest scale of the training rows."""
    weights: Dict[str, float]
    """The inner stacking weights, by label."""
    error: Optional[str]
    """Why the split failed, when it did."""
    winner: Optional[str]
    """The candidate the inner selection picked."""


@dataclass(frozen=True, repr=False)
class Exponents(Result):
    """The exponents of the frontier, N* ∝ C^a and D* ∝ C^b."""

    a: float
    """The exponent of N*."""
    b: float
    """The exponent of D*."""
    ci: Dict[str, Tuple[float, float]]
    """Percentile intervals of ``a`` and ``b`` over the bootstrap draws."""


@dataclass(frozen=True, repr=False)
class FamilySpread(Result):
    """The family's distribution at the size (trials or exposure) every fitted row shared."""

    _tag: ClassVar[Tuple[str, str]] = ("kind", "family")

    family: str
    """The family's name."""
    kind: Literal["family"]
    size_of: str
    """``trials`` (proportions) or ``exposure`` (counts)."""
    dispersion: Optional[Dispersion]
    """The dispersion's name and value, fitted (Cox–Reid adjusted) or held."""
    size: Optional[float]
    """The size every fitted row shared (None: the rows' sizes differ, so a new run's is
    not known and there is no interval of a new run).
    """


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
class ForecastCalibration(Result):
    """How the intervals beyond the data were widened."""

    calibrated: bool
    max_distance_decades: float
    origins: List[int]
    """Training sizes (in budgets) of the rolling origins."""
    tau_d: float
    tau_loss: float
    tau_n: float
    """τ of N*, D* and the loss, per decade^g in ln units."""
    units: int
    """(origin, held-out budget) units scored."""
    coverage_bootstrap: Optional[float]
    """Share of the units whose D* fell inside the bootstrap-only interval, and after widening."""
    coverage_calibrated: Optional[float]
    reason: Optional[str]


@dataclass(frozen=True, repr=False)
class Frontier(FrontierFrame, Result):
    """What ``optimal`` gives: the frontier, and the law it is of."""

    allocations: List[Allocation]
    """One allocation per budget or target loss."""
    draws: int
    """Bootstrap draws the intervals come from (0: none)."""
    flops: str
    """The training FLOPs formula (``6*N*D`` unless given)."""
    goal: str
    """"budget" (minimise loss at each budget) or "target_loss" (minimise compute at each
    loss).
    """
    law: str
    """The law (a fit's formula is its label)."""
    method: str
    """"closed form" or "numerical"."""
    parameters: Literal["fitted", "given"]
    """Where the law's parameters come from: ``fitted`` or ``given``."""
    choices: Dict[str, List[float]]
    """Held variables given several values, over which the allocation is optimised too."""
    exponents: Optional[Exponents]
    """The exponents of N* and D* in the budget (None: fewer than two budgets)."""
    fit_caveats: List[FitCaveat]
    """What the allocations inherit from the diagnostics of the fit the parameters come from
    (a parameter at a bound, ...); empty for given parameters, and then not written.
    """
    held: Dict[str, float]
    """Other variables of the law, held at the given values (e.g. U)."""
    inference_tokens: Optional[float]
    """Expected inference tokens over the model's life (Sardana et al. 2024)."""
    level: Optional[float]
    """Level of the intervals."""
    prediction_intervals: Optional[IntervalNote]
    """What the allocations' prediction intervals (``pi``, ``pi_fit``) are (None: no fit to take
    them from, e.g. given parameters).
    """
    total_params: Optional[str]
    """The total-parameters formula (None: N)."""


@dataclass(frozen=True, repr=False)
class FrontierCell(Result):
    """One cell's frontier."""

    best: float
    """The best run's target, in the target's units."""
    best_row: int
    """The file row of the cell's best run (the row that stands for the cell in the fit)."""
    frontier: float
    """The frontier, in the target's units (the best run's target unless the method is curve)."""
    method: Literal["curve", "best"]
    """How a cell's frontier was found."""
    optimum: List[float]
    """Each swept column's setting at the frontier: the curve's vertex for the curve's column,
    the best run's setting otherwise.
    """
    rows: List[int]
    """The file rows of the cell's runs."""
    values: List[float]
    """The cell's value of each law variable ([``Frontier::variables``])."""
    axis: Optional[Literal["log", "linear"]]
    """A curve's axis: ``log`` (the log of the setting, every setting of the cell positive) or
    ``linear`` (the setting itself); None for a best run.
    """
    reason: Optional[Literal["one_setting", "two_settings", "edge", "several_columns", "flat"]]
    """Why the best run was taken (None for a curve)."""


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
class HeldOutBudget(Result):
    """One held-out budget of an IsoFLOP backtest."""

    predicted: BudgetPrediction
    """The prediction from the training budgets."""
    covered_D: Optional[bool]
    covered_N: Optional[bool]
    ln_error_D: Optional[float]
    ln_error_N: Optional[float]
    """ln observed − ln predicted."""
    observed_D: Optional[float]
    observed_N: Optional[float]
    """The budget's own minimum (same shape), absent when it has none."""


@dataclass(frozen=True, repr=False)
class HeldOutScore(Result):
    """Held-out scores of one way of predicting (a candidate, the winner, the average) over the
    outer splits of the nested check (``check``).
    """

    label: str
    """The candidate's label, or ``winner`` or ``average``."""
    points: int
    """Held-out runs scored."""
    units: int
    """(outer origin, scale group) units scored."""
    are_mean: Optional[float]
    """Unit-weighted mean absolute relative error (None when a prediction was undefined at a
    held-out run).
    """
    pi_coverage: Optional[float]
    """Unit-weighted share of held-out runs inside the prediction interval."""
    pi_width: Optional[float]
    """Unit-weighted mean relative width (hi − lo)/ŷ of the prediction intervals."""
    rmse: Optional[float]
    """Unit-weighted root mean squared error in the fitted space (None as ``are_mean``)."""


@dataclass(frozen=True, repr=False)
class IntervalBasis(Result):
    """What a fit's own intervals rest on, for the note beside its predictions: its bootstrap
    replicates or its covariance, and what a new run adds to the law's mean.
    """

    covariance: str
    """The covariance the delta method uses (``sandwich``, ...)."""
    new_run: Union[ResidualSpread, FamilySpread]
    """What a new run's interval adds to the law's mean."""
    replicates: Optional[int]
    """The fit's bootstrap replicates (None: it has none)."""


@dataclass(frozen=True, repr=False)
class IntervalNote(Result):
    """What a command's prediction intervals are, for its output: their level, where the fit's
    own intervals come from, and whether (by which method) they were calibrated beyond the data,
    or why not.
    """

    calibrated: bool
    """Whether ``pi`` is widened beyond the data by a calibration."""
    description: str
    """One sentence: the calibration described (``Calibration::describe``), or why there is
    no calibration.
    """
    level: float
    """The intervals' level (e.g. 0.95)."""
    source: Literal["bootstrap", "delta", "none"]
    """Where the fit's own intervals (``ci``, ``pi_fit``) come from."""
    by: Optional[str]
    """The column scale is measured by."""
    method: Optional[str]
    """The calibration's method and scale column (None: the fit carries no calibration)."""
    reason: Optional[str]
    """Why ``pi`` is not calibrated, when it is not."""


@dataclass(frozen=True, repr=False)
class Isoflop(BudgetsFrame, Result):
    """An IsoFLOP analysis (Chinchilla's approach 2): a profile and its minimum per budget, and
    the power laws N* ∝ C^a, D* ∝ C^b through the minima.
    """

    bootstrap: int
    budgets: List[IsoflopBudget]
    level: float
    shape: Literal["auto", "cubic", "parabola", "parabola3", "parabola:all", "cubic:all"]
    """The local curve through the points around a budget's minimum."""
    calibration: Optional[ForecastCalibration]
    """How the profiles' prediction intervals beyond the data were calibrated."""
    d_star: Optional[PowerLaw]
    """D* ∝ C^b."""
    joint: Optional[JointForecast]
    """The joint law behind ``predictions``, when it was chosen."""
    method_choice: Optional[MethodChoice]
    """What predicts at the new budgets and why (absent for ``profiles``)."""
    n_star: Optional[PowerLaw]
    """N* ∝ C^a."""
    predictions: List[BudgetPrediction]
    """Predictions at the requested new budgets (by ``method_choice.chosen``)."""
    predictions_note: Optional[str]
    """Why no predictions were made, when some were asked for."""
    profile_predictions: List[BudgetPrediction]
    """The per-budget minima's predictions, kept as a diagnostic when the joint law predicts."""
    profile_predictions_note: Optional[str]
    shape_choice: Optional[ShapeChoice]
    """How ``auto`` chose the shape (absent when the shape was given)."""


@dataclass(frozen=True, repr=False)
class IsoflopAnalysis(IsoflopGroupsFrame, Result):
    """The IsoFLOP analysis of every group, and the columns it read."""

    compute: str
    """The column of the compute budgets."""
    groups: List[Union[IsoflopGroup, IsoflopBacktestGroup, EnvelopeGroup]]
    """One analysis per group, in order of first appearance."""
    size: str
    """The column of model size."""
    run: Optional[str]
    """The column naming each checkpoint's run, when given."""
    sweep: Optional[SweepFrontier]
    """The frontier of a sweep, when swept columns were named."""


@dataclass(frozen=True, repr=False)
class IsoflopBacktest(HeldOutBudgetsFrame, Result):
    """``isoflop`` fitted on all but the largest budgets, scored on them."""

    held_out: List[HeldOutBudget]
    training: Isoflop
    """The analysis of the training budgets, with its predictions at the held-out ones."""
    coverage_D: Optional[float]
    coverage_N: Optional[float]
    """Share of the scored held-out budgets inside their intervals."""
    mean_abs_ln_error_D: Optional[float]
    mean_abs_ln_error_N: Optional[float]


@dataclass(frozen=True, repr=False)
class IsoflopBacktestGroup(IsoflopBacktest):
    """One group's IsoFLOP backtest (from ``backtest=K``)."""

    _tag: ClassVar[Tuple[str, str]] = ("approach", "backtest")

    approach: Literal["backtest"]
    group: Dict[str, str]
    """The group's value of each ``group`` column (empty without groups)."""


@dataclass(frozen=True, repr=False)
class IsoflopBudget(Result):
    """One budget's profile and its minimum."""

    budget: float
    points: int
    D: Optional[float]
    N: Optional[float]
    curve: Optional[LocalCurve]
    """The local curve through the minimum (for plots)."""
    loss: Optional[float]
    n_ci: Optional[Tuple[float, float]]
    """Percentile interval of N* (residual bootstrap of the local fit)."""
    note: Optional[str]
    """Why the budget has no minimum (left out of the power law)."""


@dataclass(frozen=True, repr=False)
class IsoflopCandidateScore(Result):
    """A candidate's score in the backtest over the budgets."""

    candidate: Union[ProfilesCandidate, JointCandidate]
    """One way to predict at new budgets, by its ``method``."""
    mean_abs_ln_error_D: Optional[float]
    """Mean |ln D* error| over the units (absent when it failed to predict one of them)."""


@dataclass(frozen=True, repr=False)
class IsoflopGroup(Isoflop):
    """One group's IsoFLOP profiles."""

    _tag: ClassVar[Tuple[str, str]] = ("approach", "profiles")

    approach: Literal["profiles"]
    group: Dict[str, str]
    """The group's value of each ``group`` column (empty without groups)."""


@dataclass(frozen=True, repr=False)
class IsoflopWindow(Result):
    """The runs the joint law is fitted to."""

    budgets: Optional[int]
    """The largest this many budgets (None: every budget)."""
    half: Optional[int]
    """Per budget, the runs within this many sizes of its lowest loss (None: every run)."""


@dataclass(frozen=True, repr=False)
class JointCandidate(IsoflopWindow):
    """The joint law on a window of the runs, as a candidate of the backtest over the budgets."""

    _tag: ClassVar[Tuple[str, str]] = ("method", "joint")

    method: Literal["joint"]


@dataclass(frozen=True, repr=False)
class JointFit(Result):
    """The joint law fitted to every run: what the predictions at new budgets come from."""

    bootstrap: int
    """Bootstrap replicates asked for and those that failed to converge."""
    converged: bool
    failed: int
    flops: str
    """The FLOPs formula of the allocation at new budgets."""
    law: str
    """The catalog law (``chinchilla``)."""
    objective: float
    """The fit's objective (Huber δ = 1e-3 on log loss, summed)."""
    params: List[Tuple[str, float]]
    """Its fitted parameters, in the law's order: (name, value)."""
    runs: int
    """Runs in the window."""
    window: IsoflopWindow


@dataclass(frozen=True, repr=False)
class JointForecast(Result):
    """The joint law's predictions: its fit and how its intervals were widened."""

    calibrated: bool
    fit: JointFit
    origins: List[int]
    tau_d: float
    tau_loss: float
    tau_n: float
    """τ of N*, D* and the loss, per decade^g in ln units."""
    units: int
    reason: Optional[str]


@dataclass(frozen=True, repr=False)
class LawComparison(LawsFrame, Result):
    """A comparison of laws (what ``compare_laws`` returns): the scale column of the backtests and
    the intervals' level, with every law's scores and the tests between nested laws.
    """

    laws: List[LawScore]
    level: float
    """Level of the backtests' prediction intervals."""
    rows: int
    """Rows every law was fitted to."""
    tests: List[NestedTest]
    """Likelihood-ratio tests between nested laws."""
    backtest_holdout: Optional[str]
    """Which rows the backtests held out (with a scale column)."""
    by: Optional[str]
    """The column the backtests ordered the runs by (None: no backtest)."""


@dataclass(frozen=True, repr=False)
class LawPrediction(Result):
    """One candidate's prediction at a point."""

    label: str
    """The candidate's label (its catalog name with held values, or its formula)."""
    value: float
    """The law's value there."""
    weight: float
    """The stacking weight."""
    calibrated: bool
    """Whether ``pi`` was widened by the fit's extrapolation calibration."""
    ci: Optional[Tuple[float, float]]
    """Confidence interval of the law's mean (parameter uncertainty only)."""
    distance_decades: Optional[float]
    """Signed decades from the fitted range in the law's own scale (with a calibration):
    beyond the largest fitted run (> 0), below the smallest (< 0), inside (0).
    """
    pi: Optional[Tuple[float, float]]
    """Prediction interval of a new run: calibrated beyond the data when the fit carries a
    calibration (``calibrated``), else the fit's own.
    """
    pi_fit: Optional[Tuple[float, float]]
    """The fit's own prediction interval (parameters plus residual scatter), before calibration."""
    regime: Optional[Literal["inside", "prior", "blended", "own", "backtests"]]
    """How ``pi`` was made (with a calibration)."""


@dataclass(frozen=True, repr=False)
class LawScore(Result):
    """One law of a comparison."""

    formula: str
    """The law's formula."""
    free_params: int
    """Fitted parameters (those held at values not counted, nor the error scale)."""
    label: str
    """The law as named (its label) or its formula's text."""
    params: Dict[str, float]
    """Every parameter's value (fitted or held), in the law's order."""
    aic: Optional[float]
    """Akaike's and the Bayesian information criteria (the scale counted as a parameter)."""
    backtest: Optional[BacktestMetrics]
    """Scores on the held-out largest rows (with a scale column)."""
    bic: Optional[float]
    converged: Optional[bool]
    """Whether the fit converged."""
    error: Optional[str]
    """Why the law could not be fitted, where it could not."""
    log_likelihood: Optional[float]
    """Log-likelihood under the loss's error density, maximised over the parameters and the
    error scale (None for a loss that defines no density).
    """
    objective: Optional[float]
    """The fit's objective (None where the law could not be fitted: see ``error``)."""


@dataclass(frozen=True, repr=False)
class LocalCurve(Result):
    """A budget's local polynomial ln loss = Σ cₖ (ln N)ᵏ over the sizes it was fitted to."""

    _key: ClassVar[Dict[str, str]] = {"from_": "from"}

    coefficients: List[float]
    from_: float
    """The smallest and largest N of its window."""
    to: float


@dataclass(frozen=True, repr=False)
class LrAnalysis(CellsFrame, Result):
    """The learning-rate analysis (what ``lr`` returns): where the runs came from, per-cell optima,
    the law of the optimal LR, the curvature test, predictions and the extrapolation backtest.
    """

    backtest: LrBacktest
    """The D- against N-extrapolation backtest."""
    cells: List[LrCell]
    """One per (N, D) (and batch size, when given)."""
    columns: LrColumnsRead
    """How the size, tokens, learning-rate, loss (and batch) columns were read."""
    counts: LrCounts
    """How many cells fall in each state."""
    data: DataSummary
    """Where the runs came from, and what the filters removed."""
    level: float
    """The intervals' level (e.g. 0.95)."""
    predictions: List[LrPrediction]
    """lr* (and B*) at each target of ``predict``."""
    runs: int
    """Runs in the sweep."""
    swept: List[SweptColumn]
    """Other columns that vary within the cells as a swept knob would (their runs are pooled
    into one profile per cell); each also has a warning.
    """
    warnings: List[str]
    """Warnings, each naming the setting that would change it."""
    alternative: Optional[LrLaw]
    """The same form by the other method, for comparison."""
    batch: Optional[LrBatchAnalysis]
    """The batch-size analysis, when a batch column is given."""
    curvature: Optional[LrCurvatureTest]
    """Whether the curved form fits significantly better (by the joint fit when it exists)."""
    curvature_law_check: Optional[LrCurvatureLawCheck]
    """Whether the cells' profile curvatures follow the joint fit's power law."""
    law: Optional[LrLaw]
    """The law of the chosen method and form."""
    noise: Optional[LrNoise]
    """The loss noise level the intervals use."""


@dataclass(frozen=True, repr=False)
class LrBacktest(Result):
    """The law's extrapolation in D and in N, scored on held-out cells."""

    d_extrapolation: LrBacktestSplit
    """Fit on the shorter horizons at every N, predict the longest."""
    form: Literal["loglinear", "curved"]
    """The form of the law backtested."""
    holdout: float
    """The share of the largest scales held out."""
    method: Literal["cells", "joint"]
    """The method of the law backtested."""
    n_extrapolation: LrBacktestSplit
    """Fit on the smaller models, predict the largest."""


@dataclass(frozen=True, repr=False)
class LrBacktestSplit(Result):
    """One extrapolation direction."""

    description: str
    """Which cells trained and which were held out."""
    held_out_cells: int
    """Held-out cells, and how many of them have an interior optimum to score."""
    scored: List[LrHeldOut]
    """The held-out cells scored."""
    train_cells: int
    """Cells the law was refitted to."""
    bias_log2: Optional[float]
    """Mean signed log₂ error (positive: the law predicts too large an LR)."""
    coverage: Optional[float]
    """Share of the scored cells inside their prediction interval."""
    mean_abs_log2_error: Optional[float]
    """Mean |log₂ error|: 1 means a factor of two off."""
    mean_loss_penalty: Optional[float]
    """Mean of ``loss_penalty``."""
    note: Optional[str]
    """Why the split has no scores."""


@dataclass(frozen=True, repr=False)
class LrBatchAnalysis(Result):
    """The batch-size analysis, when a batch column is given."""

    cells: List[LrBatchCell]
    """One profile over batch sizes per (N, D)."""
    law: Optional[LrLaw]
    """ln B* = c + b·ln(D/D₀), i.e. B* = coef·D^b."""


@dataclass(frozen=True, repr=False)
class LrBatchCell(Result):
    """One (N, D)'s profile over batch sizes."""

    D: float
    """Training tokens D."""
    N: float
    """Model parameters N."""
    b_best: float
    """The batch size whose best run has the lowest loss."""
    batches: int
    """Distinct batch sizes."""
    edge: bool
    """Whether the best batch size is the smallest or the largest swept."""
    status: Literal["ok", "edge_low", "edge_high", "few_lrs", "no_minimum"]
    """Whether the optimum was located, and if not why."""
    b_opt: Optional[float]
    """The parabola's vertex in ln B."""
    ci: Optional[Tuple[float, float]]
    """Confidence interval of ``b_opt``."""


@dataclass(frozen=True, repr=False)
class LrCell(Result):
    """One cell's sweep and its optimum."""

    D: float
    """Training tokens D."""
    N: float
    """Model parameters N."""
    edge: bool
    """Whether the best swept LR is the smallest or the largest swept."""
    far: int
    """Runs left out of the parabola because their loss is more than the window's ``max_rise``
    above the cell's best (diverged, or too far from the optimum for a parabola).
    """
    loss_best: float
    """The loss of the run at ``lr_best``."""
    lr_best: float
    """The swept LR with the lowest loss."""
    lr_range: Tuple[float, float]
    """The smallest and largest swept LR."""
    lrs: int
    """Distinct LRs swept."""
    runs: int
    """Runs in the cell."""
    status: Literal["ok", "edge_low", "edge_high", "few_lrs", "no_minimum"]
    """Whether the optimum was located, and if not why."""
    used: bool
    """Whether the cell feeds the law over cells (status ok, and at the best batch size)."""
    B: Optional[float]
    """Batch size, when the data have one."""
    ci: Optional[Tuple[float, float]]
    """Fieller confidence interval of ``lr_opt`` (None when unbounded or no noise level is known)."""
    curvature: Optional[float]
    """The parabola's coefficient k in L = m + k·(ln lr − ln lr*)²: the loss paid per squared
    e-fold of LR away from the optimum.
    """
    loss_opt: Optional[float]
    """The parabola's loss at its vertex."""
    lr_opt: Optional[float]
    """The parabola's vertex (also for edge cells, where it extrapolates beyond the sweep)."""
    se_log: Optional[float]
    """Delta-method standard error of ln ``lr_opt`` (the weight of the cell in the law)."""


@dataclass(frozen=True, repr=False)
class LrColumnsRead(Result):
    """How each column of the sweep was read (a ``map``ped or ``derive``d column by its source)."""

    D: str
    """Training tokens D."""
    N: str
    """Model size N."""
    loss: str
    """The loss."""
    lr: str
    """The learning rate."""
    B: Optional[str]
    """The batch size, when given."""


@dataclass(frozen=True, repr=False)
class LrCounts(Result):
    """How many cells fall in each state."""

    cells: int
    """Cells (one per (N, D) pair, and batch size when given)."""
    edge: int
    """Cells whose best LR is at the edge of the sweep."""
    far: int
    """Runs left out of their cell's parabola as too far above its best loss."""
    few_lrs: int
    """Cells with too few LRs for a parabola."""
    joint: int
    """Cells the joint fit uses (three or more LRs, edge cells included)."""
    no_minimum: int
    """Cells whose parabola has no minimum."""
    other_batch: int
    """Cells at a batch size other than their (N, D)'s best."""
    used: int
    """Cells with an interior optimum that feed the law over cells."""


@dataclass(frozen=True, repr=False)
class LrCurvatureLawCheck(Result):
    """Whether the cells' curvatures follow the power law: the F test of the joint fit with the
    curvature law against the one with a free curvature per cell (loglinear law).
    """

    df: Tuple[int, int]
    """The F test's degrees of freedom."""
    f: float
    """The F statistic."""
    p_value: float
    """The test's p-value."""
    sigma_cell: float
    """The residual scale of the fit with a free curvature per cell."""
    sigma_law: float
    """The residual scale of the fit with the curvature law."""


@dataclass(frozen=True, repr=False)
class LrCurvatureTest(Result):
    """The F test of the curved form against the loglinear one."""

    df: Tuple[int, int]
    """Numerator and denominator degrees of freedom."""
    f: float
    """The F statistic."""
    method: Literal["cells", "joint"]
    """The fit the test was made on."""
    p_value: float
    """The test's p-value."""
    significant: bool
    """p below 1 − level: the straight law is rejected."""
    terms: List[str]
    """The curvature terms tested."""


@dataclass(frozen=True, repr=False)
class LrHeldOut(Result):
    """One held-out cell."""

    D: float
    """Training tokens D."""
    N: float
    """Model parameters N."""
    log2_error: float
    """log₂(predicted / lr_opt)."""
    lr_opt: float
    """The cell's own optimum."""
    predicted: float
    """The law's prediction of the optimum."""
    covered: Optional[bool]
    """Whether ``pi`` covers ``lr_opt``."""
    loss_penalty: Optional[float]
    """Loss paid on this cell for training at the predicted LR instead of its optimum."""
    pi: Optional[Tuple[float, float]]
    """Prediction interval for the cell's optimum (None without a noise level)."""


@dataclass(frozen=True, repr=False)
class LrLaw(Result):
    """A fitted law of the optimal LR."""

    cells: int
    """Cells (and, for the joint fit, runs) the law was fitted to."""
    curvature_law: List[LrParam]
    """The joint fit's curvature law ln k(N, D) = k0 + kN·ln(N/N₀) + kD·ln(D/D₀), k being the
    loss paid per squared e-fold of LR away from the optimum.
    """
    dof: int
    """Degrees of freedom."""
    form: Literal["loglinear", "curved"]
    """The shape of the law."""
    formula: str
    """ln lr* = c + a·ln(N/N₀) + b·ln(D/D₀) [+ a2·ln²(N/N₀) + b2·ln²(D/D₀)]."""
    method: Literal["cells", "joint"]
    """Fitted over the cells' optima, or jointly to every run."""
    missing: List[str]
    """Terms the data cannot support."""
    params: List[LrParam]
    """The coefficients, in the formula's order."""
    reference: LrReference
    """N₀ and D₀ of the formula."""
    scale: float
    """Residual scale: s = √(χ²/dof) of the weighted cell fit (1 when the cells' standard
    errors explain the scatter), or the loss noise σ of the joint fit.
    """
    coef: Optional[float]
    """For the loglinear form: lr* = coef·N^a·D^b, with its interval."""
    coef_ci: Optional[Tuple[float, float]]
    """The interval of ``coef``."""
    runs: Optional[int]
    """Runs the joint fit used."""


@dataclass(frozen=True, repr=False)
class LrNoise(Result):
    """The loss noise level the intervals use."""

    sigma: float
    """The standard deviation of a run's loss."""
    source: Literal["given", "cells", "joint"]
    """Given, or estimated from the cells or the joint fit."""
    dof: Optional[int]
    """Degrees of freedom of the estimate (None when given)."""


@dataclass(frozen=True, repr=False)
class LrParam(Result):
    """One coefficient with its standard error and interval."""

    ci: Tuple[float, float]
    """Confidence interval at the analysis's ``level``."""
    name: str
    """The coefficient's name (``c``, ``a``, ``b``, ...)."""
    se: float
    """Standard error."""
    value: float


@dataclass(frozen=True, repr=False)
class LrPrediction(Result):
    """lr* (and B*) at a target."""

    D: float
    """Training tokens D."""
    N: float
    """Model parameters N."""
    ci: Tuple[float, float]
    """Confidence interval of ``lr_opt``."""
    lr_opt: float
    """The optimal learning rate."""
    B: Optional[float]
    """The optimal batch size, when the batch is swept."""
    b_ci: Optional[Tuple[float, float]]
    """Confidence interval of ``B``."""


@dataclass(frozen=True, repr=False)
class LrReference(Result):
    """The centre of the logs."""

    D: float
    """Training tokens D."""
    N: float
    """Model parameters N."""


@dataclass(frozen=True, repr=False)
class MethodChoice(Result):
    """What made the predictions at new budgets, and why."""

    chosen: Union[ProfilesCandidate, JointCandidate]
    """One way to predict at new budgets, by its ``method``."""
    horizon_decades: float
    """How far ahead each origin predicted: the requested budgets' decades beyond the data."""
    method: Literal["auto", "joint", "profiles"]
    """How ``isoflop`` predicts N*, D* and the loss at new budgets."""
    origins: List[int]
    """Training sizes (in budgets) of the origins compared, and the units scored."""
    reason: str
    scores: List[IsoflopCandidateScore]
    units: int
    difference: Optional[float]
    """The best joint window's mean |ln D* error| less the profiles', and that difference's
    standard error over the units (``auto`` only; absent with fewer than two units).
    """
    standard_error: Optional[float]


@dataclass(frozen=True, repr=False)
class NestedTest(Result):
    """A likelihood-ratio test of a restricted law against a law that nests it (Wilks 1938)."""

    df: int
    """Degrees of freedom: the parameters the general law frees."""
    general: str
    """The nesting law's label."""
    on_boundary: bool
    """The restriction puts a parameter on a bound of the general law: the χ² reference is then
    only approximate (the null distribution is a χ̄² mixture, Self & Liang 1987, and a
    parameter the restriction switches off, such as β when B = 0, is not identified under the
    null, Davies 1987).
    """
    p_value: float
    restricted: str
    """The nested law's label."""
    statistic: float
    """λ = 2(ℓ_general − ℓ_restricted)."""


@dataclass(frozen=True, repr=False)
class OptimizeSettings(Result):
    """The constraint set and the search's budget."""

    floor: float
    """The lowest learning rate allowed."""
    max_iterations: int
    """The search's iteration budget."""
    peak: float
    """The peak learning rate."""
    steps: int
    """Steps of the schedule."""
    warmup: int
    """Linear warmup steps."""


@dataclass(frozen=True, repr=False)
class OptimizedSchedule(OptimizedScheduleFrame, Result):
    """The optimised schedule, with every step's learning rate when they were asked for."""

    baselines: List[ScheduleBaseline]
    """The standard schedules the search starts from."""
    best_baseline: str
    """The best of them."""
    constraints: str
    """The constraint set, in words."""
    decay_steps: int
    """Steps from the last at ≥ 0.99·peak to the first at ≤ 1.01·floor (or the end)."""
    final_loss: float
    """The optimised schedule's predicted final loss."""
    final_lr: float
    """The learning rate at the last step."""
    gain: float
    """Best baseline's final loss − the optimised one's (≥ 0)."""
    iterations: int
    """Iterations of projected gradient descent."""
    law: Literal["multi_power", "lr_annealing", "power_area", "fsl"]
    """The fit's law."""
    settings: OptimizeSettings
    """The settings searched under."""
    shape: List[Tuple[int, float]]
    """(step, lr) at 41 evenly spaced steps."""
    stable_until: int
    """Last step at the peak (the stable phase ends after it)."""
    warnings: List[str]
    """Reasons to distrust the result (the fit's parameters at their bounds, where the law
    can reward extreme schedules).
    """
    lr: Optional[List[float]]
    """The whole schedule, one learning rate per step (present when ``whole_schedule`` was
    asked for).
    """


@dataclass(frozen=True, repr=False)
class PairComparison(Result):
    """One track against the baseline."""

    baseline: str
    """The baseline's label."""
    budgets: List[BudgetComparison]
    """The comparison at each budget."""
    cells: CellWins
    """Paired cells, by which track won."""
    differences: List[Tuple[str, TrackEstimate]]
    """B − A for every parameter that is not shared."""
    track: str
    """The track's label."""
    crossover: Optional[float]
    """The budget where the compute-optimal losses cross, between 1e15 and 1e30 FLOPs."""


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
class PlannedRun(Result):
    """A run of the batch to launch."""

    cost: float
    """Its cost (the design's cost formula)."""
    point: Dict[str, float]
    """The run's value of each law variable (``{"N": ..., "D": ...}``)."""
    widths_after: List[float]
    """Each goal's expected width (in the order of ``targets``) once this run and the ones
    before it are added.
    """


@dataclass(frozen=True, repr=False)
class PowerLaw(Result):
    """A power law y = coef · C^exponent through the minima."""

    coef: float
    exponent: float
    r2: float
    ci: Optional[Tuple[float, float]]


@dataclass(frozen=True, repr=False)
class PredictedCurve(CurveFrame, Result):
    """A predicted curve."""

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
    cooldowns: List[CooldownPoint]
    """For ``cooldowns`` specs: each branch's start, end step and predicted loss there."""


@dataclass(frozen=True, repr=False)
class PredictedPoint(Result):
    """The law at one point, with its intervals."""

    calibrated: bool
    """Whether ``pi`` is widened beyond the data by the fit's calibration."""
    inputs: Dict[str, float]
    """The point: each law variable's value, in the law's order."""
    value: float
    """The law's value there."""
    ci: Optional[Tuple[float, float]]
    """Confidence interval of the law's mean."""
    distance_decades: Optional[float]
    """Signed decades from the fitted range in the law's own scale: beyond the largest fitted
    run (> 0), below the smallest (< 0), inside (0).
    """
    pi: Optional[Tuple[float, float]]
    """Prediction interval of a new run (calibrated beyond the data when ``calibrated``)."""
    pi_fit: Optional[Tuple[float, float]]
    """The fit's own prediction interval, before the extrapolation calibration."""
    regime: Optional[Literal["inside", "prior", "blended", "own", "backtests"]]
    """How ``pi`` was made: inside the data, or beyond it governed by the cross-study prior, by
    the fit's own backtests, or both.
    """


@dataclass(frozen=True, repr=False)
class Predictions(PredictionsFrame, Result):
    """The document ``predict`` writes: the law at each point with its intervals, and what the
    note beside them says.
    """

    basis: IntervalBasis
    """What the fit's own intervals rest on."""
    fit_caveats: List[FitCaveat]
    """What the predictions inherit from the fit's diagnostics (a parameter at a bound, a
    barely determined combination, ...); not written when there is none.
    """
    intervals: Literal["bootstrap", "delta", "none"]
    """Where the intervals come from: "bootstrap", "delta" or "none"."""
    level: float
    """The intervals' confidence level."""
    predictions: List[PredictedPoint]
    """The law at each point."""
    target: str
    """The fit's target (the column or derivation it was fitted to)."""
    variables: List[str]
    """The law's variables, in its order."""
    calibration: Optional[CalibrationNote]
    """How ``pi`` was calibrated beyond the data (None: the fit has no calibration)."""


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
class ProfilesCandidate(Result):
    """The power laws through the per-budget minima, as a candidate of the backtest over the
    budgets.
    """

    _tag: ClassVar[Tuple[str, str]] = ("method", "profiles")

    method: Literal["profiles"]


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
class Quantity(Result):
    """One predicted quantity: the point value, its interval, and the bootstrap's own interval."""

    value: float
    bootstrap_interval: Optional[Tuple[float, float]]
    """Percentile interval over the bootstrap replicates (the minima's noise only)."""
    interval: Optional[Tuple[float, float]]
    """The calibrated interval when calibrated, else the bootstrap's."""


@dataclass(frozen=True, repr=False)
class ResidualSpread(Result):
    """The residual standard deviation: one value, or σ(x) = sd·(x/x0)^s of a
    heteroscedastic fit; and the sweep's choice sd, when the fit has one.
    """

    _tag: ClassVar[Tuple[str, str]] = ("kind", "residual")

    kind: Literal["residual"]
    choice_sd: Optional[float]
    """The standard deviation a sweep's choice adds."""
    sd: Optional[float]
    """One σ (None: not known)."""
    varying: Optional[VaryingSd]
    """σ(x) of a heteroscedastic fit (None: one σ)."""


@dataclass(frozen=True, repr=False)
class Round(Result):
    """One round of a planned campaign (``sequential``)."""

    cost: float
    """The round's cost."""
    round: int
    """The round's number, from 1."""
    runs: int
    """Runs in the round's batch."""
    total_cost: float
    """Cost of this round and the ones before it."""
    widths_expected: List[float]
    """Per goal: the width the design expected after the round."""
    widths_refit: List[Optional[float]]
    """Per goal: the width the refit on the round's simulated outcomes reported (None: no
    covariance).
    """


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
class RunScore(Result):
    """How well the fitted law reproduces one run's logged curve."""

    final_error: float
    """(predicted − logged)/logged at the last logged step."""
    last_step: int
    """The last logged step."""
    points: int
    """Logged points."""
    rmse: float
    """Root-mean-square error."""
    run: str
    """The run's label."""
    train: bool
    """Whether the run was fitted to."""
    r2: Optional[float]
    """1 − SS_res/SS_tot of the predicted curve against the logged losses (None when the
    logged losses do not vary).
    """


@dataclass(frozen=True, repr=False)
class SavedCurve(Result):
    """A training curve as a saved fit keeps it, for the bootstrap of ``schedule predict``: its
    logged
    points and its per-step schedule as the knots of a piecewise-linear function (every step
    where the schedule bends by more than 1e-13 of its peak), so a log's interpolated schedule
    takes a knot per logged step and rebuilds to the fitted one up to rounding.
    """

    knots: List[Tuple[int, float]]
    """(step, learning rate) at step 0, every bend and the last step."""
    loss: List[float]
    """The logged losses."""
    run: str
    """The run's label."""
    schedule_steps: int
    """Steps of the schedule (its last step + 1)."""
    steps: List[int]
    """The logged steps."""


@dataclass(frozen=True, repr=False)
class ScheduleBaseline(Result):
    """A standard schedule and its predicted final loss."""

    final_loss: float
    """Its predicted final loss."""
    schedule: str
    """The schedule spec."""


@dataclass(frozen=True, repr=False)
class ScheduleComparison(ScheduleComparisonFrame, Result):
    """Several schedules' curves side by side."""

    best: str
    """The schedule with the lowest predicted final loss."""
    final_gap: List[float]
    """Each schedule's final loss minus the best one's."""
    law: Literal["multi_power", "lr_annealing", "power_area", "fsl"]
    """The fit's curve law."""
    schedules: List[PredictedCurve]
    """Each schedule's predicted curve, in the order given."""


@dataclass(frozen=True, repr=False)
class ScheduleDefaults(Result):
    """Defaults a spec falls back on: the training run's peak, warmup and length."""

    peak: float
    """The peak learning rate."""
    steps: int
    """Steps in all."""
    warmup: int
    """Warmup steps."""


@dataclass(frozen=True, repr=False)
class ScheduleEstimate(Result):
    """A parameter's estimate."""

    name: str
    """The name."""
    value: float
    """The value."""
    se: Optional[float]
    """Asymptotic standard error (log-space Gauss–Newton); consecutive points of a curve are
    correlated, so treat it as a lower bound.
    """


@dataclass(frozen=True, repr=False)
class ScheduleFit(ScheduleFitFrame, Result):
    """The output of ``schedule fit`` (and the FIT.json the other subcommands read)."""

    citation: str
    """Where the law comes from."""
    defaults: ScheduleDefaults
    """Peak, warmup and length of the first training run: what a spec leaves out."""
    formula: str
    """The law's formula."""
    iterations: int
    """Its iterations."""
    kind: str
    """Always ``schedule_fit``."""
    law: Literal["multi_power", "lr_annealing", "power_area", "fsl"]
    """The law's name."""
    objective: float
    """Σ Huber(ln y − ln ŷ; δ = 1e-3) over the training points."""
    params: List[ScheduleEstimate]
    """The fitted parameters, in the law's order."""
    runs: List[RunScore]
    """How well the law reproduces each run, training runs included."""
    starts: int
    """Starting points tried."""
    termination: Literal["gradient", "objective", "step", "max_iterations", "no_progress", "not_finite", "diverged", "plateau", "runaway"]
    """Why the best start's search stopped (the engine's [``Termination``])."""
    train: List[str]
    """The runs fitted to."""
    train_points: int
    """Logged points fitted to."""
    warnings: List[str]
    """Reasons to distrust the fit."""
    curves: List[SavedCurve]
    """Every run's curve (training and held out), for the bootstrap's refits and its measured
    coverage (absent in older saved fits).
    """
    data: List[str]
    """The files (or the DataFrame) the logs were read from (absent in fits saved before it
    was recorded).
    """
    held: List[str]
    """The parameters held at values (the ``fix`` setting; absent in fits saved before it was
    recorded).
    """
    mean_test_r2: Optional[float]
    """Mean R² over the runs not used for fitting (None if every run trained)."""


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
class SelectedPrediction(Result):
    """The winner's and the stacked prediction at a point of ``at``, with every candidate's."""

    between_sd: float
    """Standard deviation between the weighted candidates' predictions, in the fitted space."""
    calibrated: bool
    """Whether every weighted candidate's interval was calibrated beyond the data."""
    inputs: List[Tuple[str, float]]
    """The point, as (variable, value) pairs in the order of ``at``."""
    laws: List[LawPrediction]
    """Every candidate's prediction, in the order given."""
    value: float
    """Stacked value Σ aₖ ŷₖ (in the fitted space, mapped back)."""
    winner: LawPrediction
    """The winner's own prediction."""
    pi: Optional[Tuple[float, float]]
    """Quantile interval of the weighted mixture of the candidates' predictive normals."""


@dataclass(frozen=True, repr=False)
class Selection(CandidatesFrame, Result):
    """The scored candidates, the winner and the stacking weights."""

    best: str
    """The candidate of the lowest score."""
    by: str
    """The scale column of the rolling origins."""
    candidates: List[CandidateScore]
    """Every candidate's score, in the order given."""
    held_out: int
    """Held-out runs scored."""
    level: float
    """The intervals' level (e.g. 0.95)."""
    method: str
    """How the candidates were scored and weighted, in words."""
    origins: List[int]
    """Training scale groups of the rolling origins every candidate was scored on."""
    rows: int
    """Rows of data used."""
    scale_groups: int
    """Distinct scales in the data."""
    units: int
    """(origin, scale group) units scored."""
    winner: str
    """The candidate the one-standard-error rule picks: the lowest BIC among those tied with
    the best.
    """


@dataclass(frozen=True, repr=False)
class SelectionResult(SelectedPredictionsFrame, Result):
    """What ``select`` gives: the selection, the predictions at the asked points and the check."""

    selection: Selection
    """Every candidate's score, BIC and stacking weight, and the winner."""
    check: Optional[Evaluation]
    """The procedure scored by nested rolling origins (with ``check``)."""
    predictions: List[SelectedPrediction]
    """The stacked, the winner's and every law's prediction at each point of ``at``."""


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
class ShapeChoice(Result):
    """The choice made by [``Shape::Auto``]: a lack-of-fit F test of the parabola through every
    point
    against the local cubic's scatter.
    """

    chosen: Literal["auto", "cubic", "parabola", "parabola3", "parabola:all", "cubic:all"]
    """The local curve through the points around a budget's minimum."""
    reason: str
    dof: Optional[Tuple[int, int]]
    """Degrees of freedom of the two mean squares."""
    p_value: Optional[float]
    statistic: Optional[float]
    """Mean square of the wide parabola's residuals over the local cubic's."""


@dataclass(frozen=True, repr=False)
class SimulationCheck(Result):
    """What the refits on simulated outcomes of the batch measured."""

    median_widths: List[float]
    """Per goal: the median width the refits reported."""
    refits: int
    """Those that converged with a covariance."""
    simulations: int
    """Refits asked for."""


@dataclass(frozen=True, repr=False)
class SplitCalibration(Result):
    """What a split's nested calibration found."""

    calibrated: bool
    """Whether the split's intervals were widened."""
    held_out: int
    """Held-out runs inside the training rows it used."""
    tau_per_decade: float
    """The calibration's form error sd one decade beyond the data."""
    units: int
    """(origin, scale group) units inside the training rows it used."""
    reason: Optional[str]
    """Why not, when not."""


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


@dataclass(frozen=True, repr=False)
class SweepFrontier(Result):
    """The frontier of a sweep, as a fit records it."""

    at_edge: int
    """Cells whose best run is at an end of a sweep of three settings or more."""
    cells: List[FrontierCell]
    """One entry per cell, in the order of each cell's first run."""
    columns: List[str]
    """The swept columns, as named."""
    runs: int
    """The runs the sweep read (every row of the prepared data)."""
    variables: List[str]
    """The law's variables, whose values make a cell."""
    choice_sd: Optional[float]
    """The root mean square of (best run − curve minimum) over the curve cells, in the fitted
    space (None without a curve cell): added to a new run's scatter in prediction intervals.
    """


@dataclass(frozen=True, repr=False)
class SweptColumn(Result):
    """A column whose values vary within the cells as a swept knob would."""

    also: List[str]
    """Other columns that split the cells' runs the same way."""
    cells: int
    """Cells in all."""
    column: str
    """The column's name."""
    common_value: float
    """The value a row filter would keep: the most common one."""
    setting: str
    """The setting that handles it: ``batch`` (profile each value, use each (N, D)'s best), or
    ``where`` (keep one value) when a batch column is already given.
    """
    values: int
    """Distinct values over the sweep."""
    varying_cells: int
    """Cells in which it varies among runs (of ``cells``)."""


@dataclass(frozen=True, repr=False)
class TargetWidths(Result):
    """A goal's value and widths, each the width of an interval at the design's level."""

    target: str
    """The goal, as the library labels it (``optimal_loss@1e+23``)."""
    value: float
    """The goal at the current estimate (NaN where the law has no optimum there)."""
    width_after: float
    """Its width expected once the whole batch is added."""
    width_now: float
    """Its width now, from the information the design works with."""
    width_fit: Optional[float]
    """Its width now, from the fit's own covariance (None before any run, or without one)."""
    width_simulated: Optional[float]
    """The median width the simulated refits reported (None: not simulated)."""


@dataclass(frozen=True, repr=False)
class TaskDiagnosis(Result):
    """A task's diagnosis and what it rests on."""

    best: float
    """The best accuracy any model scored (at any checkpoint)."""
    chance: float
    """Its chance level."""
    points: List[Tuple[float, float]]
    """Each model's last checkpoint on the task: [compute 6·N·D, accuracy], by compute."""
    shape: Literal["at_chance", "monotone", "plateau", "emergent", "non_monotone"]
    """What its accuracy does as models grow."""
    task: str
    questions: Optional[float]
    """Its number of questions, when given."""


@dataclass(frozen=True, repr=False)
class TaskForecast(Result):
    """Every method's forecast of one task at one target (None: the method could not be used;
    the result's notes say why), and the observed accuracy in a backtest.
    """

    mode: Literal["across_sizes", "across_checkpoints"]
    """How a forecast reaches its target: a model not yet trained (across sizes), or a model's
    later checkpoints from its own earlier ones (across checkpoints).
    """
    model: str
    """The target model."""
    params: float
    """Its parameters N."""
    shape: Literal["at_chance", "monotone", "plateau", "emergent", "non_monotone"]
    """The task's diagnosis."""
    task: str
    tokens: float
    """Its tokens D."""
    logistic: Optional[DownstreamForecast]
    """The logistic law's forecast."""
    observed: Optional[float]
    """The held-out accuracy, in a backtest."""
    pooled: Optional[DownstreamForecast]
    """The pooled trajectory model's forecast."""
    two_stage: Optional[DownstreamForecast]
    """The two-stage chain's forecast (needs a loss)."""


@dataclass(frozen=True, repr=False)
class TrackComparison(TracksFrame, Result):
    """A recipe comparison (what ``compare`` returns): the track column, with every track's fit and
    each track against the baseline.
    """

    bootstrap: int
    """Bootstrap replicates asked for."""
    draws: int
    """Paired draws every quantity's interval comes from."""
    law: str
    """The law's name (or formula)."""
    level: float
    """The intervals' level (e.g. 0.95)."""
    pairs: List[PairComparison]
    """Each other track against the baseline."""
    shared: List[str]
    """Parameters shared between the tracks."""
    tracks: List[TrackFit]
    """Every track's fit, the baseline first."""
    notes: List[str]
    """Notes on the comparison (what was left out, and why)."""
    track: Optional[str]
    """The column naming each run's track (None in a document written before it was kept)."""


@dataclass(frozen=True, repr=False)
class TrackEstimate(Result):
    """A value with its percentile interval over the draws (None without a bootstrap, or when
    the value does not exist, e.g. a loss one track never reaches).
    """

    ci: Optional[Tuple[float, float]]
    """Percentile interval over the paired draws."""
    value: Optional[float]
    """The value (None when it does not exist)."""


@dataclass(frozen=True, repr=False)
class TrackFit(Result):
    """One track's fit and its compute-optimal allocations."""

    converged: bool
    """Whether the fit converged."""
    objective: float
    """The track's share of the objective."""
    params: List[TrackParam]
    """The track's parameters, in the law's order."""
    rows: int
    """Rows of the track."""
    track: str
    """The track's label."""
    allocations: List[Allocation]
    """Compute-optimal allocation at each budget (empty when the law has no N and D)."""
    prediction_intervals: Optional[IntervalNote]
    """What the allocations' prediction intervals (``pi``, ``pi_fit``) are."""
    warnings: List[str]
    """The fit's warnings."""


@dataclass(frozen=True, repr=False)
class TrackParam(Result):
    """A parameter of one track, with its interval."""

    name: str
    """The parameter's name."""
    shared: bool
    """Whether the parameter is shared by every track (a joint fit)."""
    value: float
    """Its value in this track."""
    ci: Optional[Tuple[float, float]]
    """Percentile interval over the bootstrap draws."""
    stderr: Optional[float]
    """Standard error."""


@dataclass(frozen=True, repr=False)
class VaryingSd(Result):
    """σ(x) = sd·(x/x0)^s: the residual standard deviation of a heteroscedastic fit."""

    by: str
    """The column or expression x."""
    s: float
    """The power of x that σ grows with."""
    sd: float
    """σ at x0."""
    x0: float
    """Where σ is ``sd``."""


IsoflopCandidate = Union[ProfilesCandidate, JointCandidate]
"""One way to predict at new budgets, by its ``method``."""


IsoflopGroupResult = Union[IsoflopGroup, IsoflopBacktestGroup, EnvelopeGroup]
"""One group's analysis, by its ``approach``, with the values that define the group."""


NewRunSpread = Union[ResidualSpread, FamilySpread]
"""What a new run adds to the law's mean: the residual scatter, or a count or proportion
family's own distribution at the size every fitted row shared.
"""


@checked
def fit(
    data: DataLike,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    *,
    target: str,
    bootstrap: Count = 0,
    bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
    by: Optional[str] = None,
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
    nu: Optional[float] = None,
    profile: Optional[Union[str, Sequence[str]]] = None,
    qc: Optional[Literal["warn", "exclude", "off"]] = None,
    seed: Count = 0,
    space: Optional[str] = None,
    sweep: Optional[Union[str, Sequence[str]]] = None,
    threads: Optional[Count] = None,
    trials: Optional[Union[float, str]] = None,
    weights: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> Fit:
    """Fits a law (a catalog name, or a formula) to runs, with its uncertainty: bootstrap,
    profile-likelihood and calibrated prediction intervals. The same document as the command
    line's ``--json``. It runs with the GIL released, on a worker thread that Ctrl-C stops
    (KeyboardInterrupt; nothing else changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
    - ``bootstrap``: Bootstrap replicates of the fit (0: none).
    - ``bounds``: Bounds of parameters: {name: (low, high)}, None for no bound on that side.
    - ``by``: The column that orders scale for the calibration (None: a column ``C``, else
      6*N*D, else the law's first variable).
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
    - ``heteroscedastic``: The column the residual scale varies with (a variable of the law, or
      compute ``C`` = k*N*D; the linear loss or the gaussian family): sigma(x) = sigma0*(x/x0)^s
      is fitted with the law, so prediction intervals use sigma at each point (the document's
      ``variance``).
    - ``law``: A built-in law (``chinchilla``, ``bnsl:2``; see ``laws``): exactly one of law and
      formula.
    - ``level``: Level of the intervals.
    - ``loss``: The robust loss per residual: ``huber``, ``linear``, ``soft_l1``, ``cauchy`` or
      ``arctan``.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``nu``: The Student-t family's degrees of freedom (None: fitted).
    - ``profile``: Parameters given profile-likelihood intervals (one name or several; the
      document's ``profiles``).
    - ``qc``: Quality control of the runs before the fit: ``warn`` (flag diverged, duplicated
      and out-of-line rows and fit every row), ``exclude`` (remove the flagged rows, listing
      them) or ``off`` (None: the default, ``warn``).
    - ``seed``: Seed of every random step (the fit itself is deterministic).
    - ``space``: Where residuals are taken: ``log`` or ``linear`` (None: the law's own; laws
      compared side by side must agree, for likelihoods compare only in one space).
    - ``sweep``: Swept columns (learning rate, batch size, ...): one or several. The law is
      fitted to each cell's frontier (per value of the law's variables: the minimum of a
      parabola through the best setting and its neighbours, else the best run), not to every
      run.
    - ``threads``: Worker threads (None: every core, up to the cap).
    - ``trials``: A proportion family's trials: a column, or one count for every row.
    - ``weights``: A column of per-row weights.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "target": target,
        "bootstrap": bootstrap,
        "bounds": bounds,
        "by": by,
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
        "nu": nu,
        "profile": profile,
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
    return Fit._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "fit",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def sensitivity(
    data: DataLike,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    *,
    at: Mapping[str, float],
    by: str,
    target: str,
    bootstrap: Count = 0,
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
    level: float = 0.95,
    loss: str = "huber",
    map: Optional[Mapping[str, str]] = None,
    max_decades: Optional[float] = None,
    nu: Optional[float] = None,
    qc: Literal["warn", "exclude", "off"] = "warn",
    seed: Count = 0,
    space: Optional[str] = None,
    sweep: Optional[Union[str, Sequence[str]]] = None,
    threads: Optional[Count] = None,
    trials: Optional[Union[float, str]] = None,
    weights: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> SensitivityResult:
    """How far the prediction at a point moves when each scale group is left out of the fit. The
    same document as the command line's ``--json``. It runs with the GIL released, on a worker
    thread that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``at``: The point to predict at: a value for each of the law's variables.
    - ``by``: The column that orders scale (e.g. compute): its groups are dropped one at a time.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
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
    - ``law``: A built-in law (``chinchilla``, ``bnsl:2``; see ``laws``): exactly one of law and
      formula.
    - ``level``: Level of the intervals.
    - ``loss``: The robust loss per residual: ``huber``, ``linear``, ``soft_l1``, ``cauchy`` or
      ``arctan``.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``max_decades``: Refuse a point more than this many decades beyond the largest run (in the
      law's own scale; None: no limit).
    - ``nu``: The Student-t family's degrees of freedom (None: fitted).
    - ``qc``: Quality control of the runs before the fits: ``warn``, ``exclude`` or ``off``.
    - ``seed``: Seed of every random step (the fit itself is deterministic).
    - ``space``: Where residuals are taken: ``log`` or ``linear`` (None: the law's own; laws
      compared side by side must agree, for likelihoods compare only in one space).
    - ``sweep``: Swept columns (learning rate, batch size, ...): one or several. The law is
      fitted to each cell's frontier (per value of the law's variables: the minimum of a
      parabola through the best setting and its neighbours, else the best run), not to every
      run.
    - ``threads``: Worker threads (None: every core, up to the cap).
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
        "law": law,
        "level": level,
        "loss": loss,
        "map": map,
        "max_decades": max_decades,
        "nu": nu,
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
def predict(
    fit: Fit,
    *,
    at: Mapping[str, Union[float, Sequence[float]]],
    level: float = 0.95,
) -> Predictions:
    """A saved fit at new points, with confidence intervals of the law's mean and prediction
    intervals of a new run, calibrated beyond the data by the fit's backtests. The same document
    as the command line's ``--json``. It runs with the GIL released, on a worker thread that
    Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``fit``: A :class:`Fit`.
    - ``at``: The points: values by law variable, in order, each one value (for every point) or
      one per point (``{"N": [7e10, 1e12], "D": 1.4e12}``).
    - ``level``: The intervals' confidence level.
    """
    spec = {
        "at": at,
        "level": level,
    }
    spec_json = dump({k: v for k, v in spec.items() if v is not None})
    native = _scalinglaws.run_workflow(fit.to_json(), "predict", spec_json)
    result = Predictions._from_native(native)
    warn_caveats([caveat.to_dict() for caveat in result.fit_caveats])
    return result


@checked
def cooldown_study(
    fit: Union[ScheduleFit, Mapping[str, Any]],
    *,
    bootstrap: Count = 0,
    decay: Literal["linear", "cosine", "exp"] = "linear",
    final: Optional[float] = None,
    fraction: float = 0.2,
    level: Optional[float] = None,
    peak: Optional[float] = None,
    seed: Optional[Count] = None,
    steps: Optional[Sequence[Count]] = None,
    warmup: Optional[Count] = None,
) -> CooldownStudy:
    """Constant learning rate with a cooldown against a cosine at each training length, under a
    schedule fit. The same document as the command line's ``--json``. It runs with the GIL
    released, on a worker thread that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``fit``: A :class:`ScheduleFit`, or its document as a dict.
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
    checkpoints, outliers. The same document as the command line's ``--json``. It runs with the
    GIL released, on a worker thread that Ctrl-C stops (KeyboardInterrupt; nothing else
    changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
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
    bootstrap: Count = 0,
    every: Count = 0,
    interval: Optional[Literal["bootstrap", "profile"]] = None,
    level: Optional[float] = None,
    seed: Optional[Count] = None,
) -> SchedulePrediction:
    """The loss curve a schedule fit predicts for a schedule, with prediction intervals when asked.
    The same document as the command line's ``--json``. It runs with the GIL released, on a
    worker thread that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``fit``: A :class:`ScheduleFit`, or its document as a dict.
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


@checked
def lr(
    data: DataLike,
    *,
    lr: str,
    size: str,
    target: str,
    tokens: str,
    batch: Optional[str] = None,
    curvature: Literal["law", "cell"] = "law",
    derive: Optional[Mapping[str, str]] = None,
    holdout: float = 0.25,
    law: Literal["loglinear", "curved"] = "loglinear",
    level: float = 0.95,
    map: Optional[Mapping[str, str]] = None,
    max_rise: float = 0.15,
    method: Literal["cells", "joint"] = "joint",
    noise: Optional[float] = None,
    predict: Optional[Sequence[Tuple[float, float]]] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    window: Count = 2,
    delimiter: Optional[str] = None,
) -> LrAnalysis:
    """The learning rate (and batch size) to use at a target scale, from LR sweeps on smaller runs.
    The same document as the command line's ``--json``. It runs with the GIL released, on a
    worker thread that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``lr``: The column of each run's (peak) learning rate.
    - ``size``: The column of model size N.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
    - ``tokens``: The column of training tokens D.
    - ``batch``: The column of batch size: cells become (N, D, B), and B* = c·D^b is fitted too.
      Give it whenever the batch size is swept: the result's ``swept`` lists other numeric
      columns that vary within the cells as a swept knob would (pooled into one profile per
      cell), each with a warning naming the setting that handles it.
    - ``curvature``: The joint fit's profile curvatures: law (ln k linear in ln N and ln D;
      calibrated) or cell (a free curvature per cell).
    - ``derive``: Columns computed from others: {name: expression}, in order (each may use those
      before).
    - ``holdout``: Fraction of horizons (per N) and of model sizes the backtests hold out.
    - ``law``: The law of the optimal LR: loglinear (ln lr* linear in ln N and ln D) or curved
      (adds squared logs).
    - ``level``: Level of the intervals.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``max_rise``: Runs whose loss is more than this fraction above their cell's best are left
      out of the parabola (diverged, or too far from the optimum).
    - ``method``: joint: one fit over every run near each cell's optimum (edge cells count as
      bounds); cells: weighted least squares on the per-cell optima.
    - ``noise``: The loss noise σ (seed-to-seed standard deviation), when known (None:
      estimated).
    - ``predict``: Where to predict lr* (and B*): (N, D) pairs.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``window``: Distinct LRs on each side of a cell's best one that its parabola uses.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "lr": lr,
        "size": size,
        "target": target,
        "tokens": tokens,
        "batch": batch,
        "curvature": curvature,
        "derive": derive,
        "holdout": holdout,
        "law": law,
        "level": level,
        "map": map,
        "max_rise": max_rise,
        "method": method,
        "noise": noise,
        "predict": predict,
        "where": where,
        "window": window,
    }
    return LrAnalysis._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "lr",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def downstream(
    data: DataLike,
    *,
    target: str,
    anchors: Count = 4,
    at: Optional[Sequence[Mapping[str, Union[float, str]]]] = None,
    chance: Optional[Union[float, str]] = None,
    derive: Optional[Mapping[str, str]] = None,
    holdout: Optional[Union[str, Sequence[str]]] = None,
    level: float = 0.95,
    loss: Optional[str] = None,
    map: Optional[Mapping[str, str]] = None,
    model: str = "model",
    own_until: Optional[float] = None,
    size: str = "N",
    task: str = "task",
    threads: Optional[Count] = None,
    tokens: str = "D",
    trials: Optional[Union[float, str]] = None,
    unseen: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> DownstreamAnalysis:
    """Task accuracy at larger models from the evaluations of smaller ones (and a model's own early
    checkpoints). The same document as the command line's ``--json``. It runs with the GIL
    released, on a worker thread that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
    - ``anchors``: How many of the largest model sizes the pooled model's trend runs through (2
      to 64).
    - ``at``: Models to forecast: each a mapping of N and D (and ``model``, the name of a model
      of the data to forecast from its own checkpoints), e.g. {"N": 6.9e9, "D": 3e11}.
    - ``chance``: Each task's chance level: a column (constant within a task) or one value
      (None: 0).
    - ``derive``: Columns computed from others: {name: expression}, in order (each may use those
      before).
    - ``holdout``: A backtest: hold out these models and forecast them from the rest.
    - ``level``: Level of the intervals.
    - ``loss``: The column of each checkpoint's loss (the two-stage chain needs it).
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``model``: The column naming each evaluation's model (a run whose checkpoints are
      evaluated).
    - ``own_until``: With ``holdout``: keep the held-out models' checkpoints up to this many
      tokens and forecast their later ones.
    - ``size``: The column of model size N.
    - ``task``: The column naming each evaluation's task.
    - ``threads``: Worker threads (None: all cores). The result does not depend on it.
    - ``tokens``: The column of training tokens D at the checkpoint.
    - ``trials``: Each task's number of questions: a column (constant within a task) or one
      count. Gives binomial errors and the binomial likelihood of the logistic fits.
    - ``unseen``: Tasks whose names start with this are unseen by the pooled model: its slope
      prior, γ and σ are learned from the other tasks only (a zero-shot transfer check).
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "target": target,
        "anchors": anchors,
        "at": at,
        "chance": chance,
        "derive": derive,
        "holdout": holdout,
        "level": level,
        "loss": loss,
        "map": map,
        "model": model,
        "own_until": own_until,
        "size": size,
        "task": task,
        "threads": threads,
        "tokens": tokens,
        "trials": trials,
        "unseen": unseen,
        "where": where,
    }
    warn_threads(threads, 4)
    return DownstreamAnalysis._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "downstream",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def backtest(
    data: DataLike,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    *,
    by: str,
    target: str,
    bootstrap: Count = 0,
    bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
    calibrate: bool = True,
    derive: Optional[Mapping[str, str]] = None,
    dispersion: Optional[float] = None,
    exposure: Optional[str] = None,
    f_scale: float = 0.001,
    family: Optional[str] = None,
    fix: Optional[Mapping[str, float]] = None,
    grid: Optional[Mapping[str, Sequence[float]]] = None,
    holdout_frac: Optional[float] = None,
    holdout_top: Optional[Count] = None,
    level: float = 0.95,
    loss: str = "huber",
    map: Optional[Mapping[str, str]] = None,
    nu: Optional[float] = None,
    rolling: Optional[Count] = None,
    rollout: Optional[Count] = None,
    seed: Count = 0,
    space: Optional[str] = None,
    sweep: Optional[Union[str, Sequence[str]]] = None,
    threads: Optional[Count] = None,
    trials: Optional[Union[float, str]] = None,
    weights: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> Backtest:
    """Fits on the smaller scales and scores the predictions of the held-out larger ones. The same
    document as the command line's ``--json``. It runs with the GIL released, on a worker thread
    that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``by``: The column that orders scale (e.g. compute): fit on small values, predict large
      ones.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
    - ``bootstrap``: Bootstrap replicates per training fit for its intervals (0: the delta
      method).
    - ``bounds``: Bounds of parameters: {name: (low, high)}, None for no bound on that side.
    - ``calibrate``: Score each split's intervals as ``predict`` would give them, calibrated
      beyond the data (the cross-study prior updated by backtests nested inside each split's own
      training rows); false scores the training fits' own.
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
    - ``holdout_frac``: Hold out the largest fraction F of rows by ``by`` (ties held out
      together).
    - ``holdout_top``: Hold out the rows at the K largest distinct values of ``by``.
    - ``law``: A built-in law (``chinchilla``, ``bnsl:2``; see ``laws``): exactly one of law and
      formula.
    - ``level``: Level of the prediction intervals whose coverage is scored.
    - ``loss``: The robust loss per residual: ``huber``, ``linear``, ``soft_l1``, ``cauchy`` or
      ``arctan``.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``nu``: The Student-t family's degrees of freedom (None: fitted).
    - ``rolling``: Rolling origins, at most this many: fit on the scale groups up to each origin
      (from half the groups to all but the last) and predict every run beyond it.
    - ``rollout``: Rollout over this many groups of scales: fit up to each group, predict the
      next.
    - ``seed``: Seed of every random step (the fit itself is deterministic).
    - ``space``: Where residuals are taken: ``log`` or ``linear`` (None: the law's own; laws
      compared side by side must agree, for likelihoods compare only in one space).
    - ``sweep``: Swept columns (learning rate, batch size, ...): one or several. The law is
      fitted to each cell's frontier (per value of the law's variables: the minimum of a
      parabola through the best setting and its neighbours, else the best run), not to every
      run.
    - ``threads``: Worker threads (None: every core, up to the cap).
    - ``trials``: A proportion family's trials: a column, or one count for every row.
    - ``weights``: A column of per-row weights.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "by": by,
        "target": target,
        "bootstrap": bootstrap,
        "bounds": bounds,
        "calibrate": calibrate,
        "derive": derive,
        "dispersion": dispersion,
        "exposure": exposure,
        "f_scale": f_scale,
        "family": family,
        "fix": fix,
        "formula": formula,
        "grid": grid,
        "holdout_frac": holdout_frac,
        "holdout_top": holdout_top,
        "law": law,
        "level": level,
        "loss": loss,
        "map": map,
        "nu": nu,
        "rolling": rolling,
        "rollout": rollout,
        "seed": seed,
        "space": space,
        "sweep": sweep,
        "threads": threads,
        "trials": trials,
        "weights": weights,
        "where": where,
    }
    warn_threads(threads, 4)
    return Backtest._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "backtest",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def isoflop(
    data: DataLike,
    *,
    compute: str,
    size: str,
    target: str,
    backtest: Optional[Count] = None,
    bootstrap: Optional[Count] = None,
    budget: Optional[Union[float, Sequence[float]]] = None,
    calibrate: bool = True,
    derive: Optional[Mapping[str, str]] = None,
    envelope: Optional[str] = None,
    group: Optional[Union[str, Sequence[str]]] = None,
    level: float = 0.95,
    map: Optional[Mapping[str, str]] = None,
    method: Optional[Literal["auto", "joint", "profiles"]] = None,
    run: Optional[str] = None,
    seed: Count = 0,
    shape: Literal["auto", "cubic", "parabola", "parabola3", "parabola:all", "cubic:all"] = "auto",
    sweep: Optional[Union[str, Sequence[str]]] = None,
    tokens: Optional[str] = None,
    tolerance: float = 0.001,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> IsoflopAnalysis:
    """IsoFLOP analysis per group: the minimum per budget and the power laws N* ∝ C^a, D* ∝ C^b.
    The same document as the command line's ``--json``. It runs with the GIL released, on a
    worker thread that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``compute``: The column of each run's compute budget in FLOPs (runs within ``tolerance``
      share one).
    - ``size``: The column of model size N.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
    - ``backtest``: Fit on all but the K largest budgets, predict their N* and D*, and score the
      errors and the intervals' coverage.
    - ``bootstrap``: Bootstrap replicates for intervals on N*, the exponents and the predictions
      (None: 1,000 with ``budget`` or ``backtest``, else 0).
    - ``budget``: Predict N*, D* and the loss at these budgets in FLOPs, with intervals: one or
      several.
    - ``calibrate``: Widen the intervals of predictions beyond the data by rolling-origin
      backtests (false: the bootstrap's own).
    - ``derive``: Columns computed from others: {name: expression}, in order (each may use those
      before).
    - ``envelope``: Chinchilla's approach 1 on checkpoints instead of per-budget profiles:
      ``hull`` (the lower convex hull of the checkpoints) or ``grid``, ``grid:K`` (every run's
      interpolated curve at K log-spaced budgets; 1,500 by default).
    - ``group``: Analyse the runs of each value of this column (or these columns) separately.
    - ``level``: Level of the intervals.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``method``: What predicts at new budgets (and in a backtest): ``profiles`` (power laws
      through the per-budget minima; approach 2; None means it), ``auto`` (the joint law,
      Chinchilla's law fitted to the window of the runs chosen by a backtest over the data's own
      budgets, when it beats the minima there by more than a standard error, else the minima) or
      ``joint`` (that best window always; approach 3).
    - ``run``: The column naming each checkpoint's run (the grid envelope and its bootstrap need
      it).
    - ``seed``: Seed of the bootstrap.
    - ``shape``: The local curve through each budget's minimum: ``auto`` (the parabola through
      every point unless a lack-of-fit test rejects it, then the cubic), ``cubic`` (5 nearest
      points), ``parabola`` (5), ``parabola3``, ``parabola:all``, ``cubic:all``.
    - ``sweep``: Swept columns (learning rate, ...), one or several: each (budget, size) cell's
      frontier is the profile's point, not every run.
    - ``tokens``: The column of training tokens D (None: D* = C/(6 N*)).
    - ``tolerance``: Budgets closer than this (relative) are one budget.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "compute": compute,
        "size": size,
        "target": target,
        "backtest": backtest,
        "bootstrap": bootstrap,
        "budget": budget,
        "calibrate": calibrate,
        "derive": derive,
        "envelope": envelope,
        "group": group,
        "level": level,
        "map": map,
        "method": method,
        "run": run,
        "seed": seed,
        "shape": shape,
        "sweep": sweep,
        "tokens": tokens,
        "tolerance": tolerance,
        "where": where,
    }
    return IsoflopAnalysis._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "isoflop",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def compare_laws(
    data: DataLike,
    laws: Optional[Union[str, Sequence[str], Mapping[str, str]]] = None,
    formulas: Optional[Union[str, Sequence[str]]] = None,
    *,
    target: str,
    by: Optional[str] = None,
    derive: Optional[Mapping[str, str]] = None,
    f_scale: float = 0.001,
    fix: Optional[Mapping[str, Mapping[str, float]]] = None,
    holdout_frac: Optional[float] = None,
    level: float = 0.95,
    loss: str = "huber",
    map: Optional[Mapping[str, str]] = None,
    space: Optional[str] = None,
    sweep: Optional[Union[str, Sequence[str]]] = None,
    threads: Optional[Count] = None,
    weights: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> LawComparison:
    """Fits several laws to the same rows and sets them side by side, with likelihood-ratio tests
    between nested laws. The same document as the command line's ``--json``. It runs with the
    GIL released, on a worker thread that Ctrl-C stops (KeyboardInterrupt; nothing else
    changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
    - ``by``: Score each law by a backtest that holds out the largest ``holdout_frac`` of the
      rows by this column.
    - ``derive``: Columns computed from others: {name: expression}, in order (each may use those
      before).
    - ``f_scale``: The scale at which the robust loss turns from quadratic to linear.
    - ``fix``: Parameters held at values, by the label of the law that holds them: ``{label:
      {name: value}}`` (a published fit against the refitted law).
    - ``formulas``: Laws as formulas to weigh, one or several, each labelled by its text.
    - ``holdout_frac``: The fraction of rows the backtest holds out (None: 0.2); only with
      ``by``.
    - ``laws``: Catalog laws to weigh: a name, a list of names (each labelled by its name), or
      ``{label: name}`` (in order), so that one law can appear twice under two labels.
    - ``level``: Level of the backtest's prediction intervals.
    - ``loss``: The robust loss per residual: ``huber``, ``linear``, ``soft_l1``, ``cauchy`` or
      ``arctan``.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``space``: Where residuals are taken: ``log`` or ``linear`` (None: the law's own; laws
      compared side by side must agree, for likelihoods compare only in one space).
    - ``sweep``: Swept columns, one or several: each law is fitted on each cell's frontier, as a
      fit is.
    - ``threads``: Worker threads (None: every core, up to the cap).
    - ``weights``: A column of per-row weights.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "target": target,
        "by": by,
        "derive": derive,
        "f_scale": f_scale,
        "fix": fix,
        "formulas": formulas,
        "holdout_frac": holdout_frac,
        "laws": laws,
        "level": level,
        "loss": loss,
        "map": map,
        "space": space,
        "sweep": sweep,
        "threads": threads,
        "weights": weights,
        "where": where,
    }
    warn_threads(threads, 4)
    return LawComparison._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "compare_laws",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def select(
    data: DataLike,
    laws: Optional[Union[str, Sequence[str], Mapping[str, str]]] = None,
    formulas: Optional[Union[str, Sequence[str]]] = None,
    *,
    target: str,
    at: Optional[Mapping[str, Union[float, Sequence[float]]]] = None,
    by: Optional[str] = None,
    calibrate: bool = True,
    check: bool = False,
    derive: Optional[Mapping[str, str]] = None,
    f_scale: float = 0.001,
    fix: Optional[Mapping[str, Mapping[str, float]]] = None,
    level: float = 0.95,
    loss: str = "huber",
    map: Optional[Mapping[str, str]] = None,
    origins: Count = 5,
    space: Optional[str] = None,
    sweep: Optional[Union[str, Sequence[str]]] = None,
    threads: Optional[Count] = None,
    weights: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> SelectionResult:
    """Scores candidate laws by rolling-origin backtests over scale, names the winner, stacks them
    and predicts at new points with intervals that hold the spread between laws. The same
    document as the command line's ``--json``. It runs with the GIL released, on a worker thread
    that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
    - ``at``: Predict at these points: values by variable name, in order, each one value (for
      every point) or one per point (``{"N": [7e10, 1e12], "D": 1.4e12}``).
    - ``by``: The column that orders scale (None: a column ``C``, else 6·N·D, else the first
      law's first variable).
    - ``calibrate``: Calibrate each law's prediction intervals beyond the data by its
      rolling-origin backtests (false: each law's own).
    - ``check``: Check the selection by nested rolling origins (each outer split selects on its
      own training runs and scores the winner, the average and every law on the runs beyond).
    - ``derive``: Columns computed from others: {name: expression}, in order (each may use those
      before).
    - ``f_scale``: The scale at which the robust loss turns from quadratic to linear.
    - ``fix``: Parameters held at values, by the label of the law that holds them: ``{label:
      {name: value}}`` (a published fit against the refitted law).
    - ``formulas``: Laws as formulas to weigh, one or several, each labelled by its text.
    - ``laws``: Catalog laws to weigh: a name, a list of names (each labelled by its name), or
      ``{label: name}`` (in order), so that one law can appear twice under two labels.
    - ``level``: Level of the prediction intervals.
    - ``loss``: The robust loss per residual: ``huber``, ``linear``, ``soft_l1``, ``cauchy`` or
      ``arctan``.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``origins``: Most rolling origins (between 2 and 50).
    - ``space``: Where residuals are taken: ``log`` or ``linear`` (None: the law's own; laws
      compared side by side must agree, for likelihoods compare only in one space).
    - ``sweep``: Swept columns, one or several: each law is fitted on each cell's frontier, as a
      fit is.
    - ``threads``: Worker threads (None: every core, up to the cap).
    - ``weights``: A column of per-row weights.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "target": target,
        "at": at,
        "by": by,
        "calibrate": calibrate,
        "check": check,
        "derive": derive,
        "f_scale": f_scale,
        "fix": fix,
        "formulas": formulas,
        "laws": laws,
        "level": level,
        "loss": loss,
        "map": map,
        "origins": origins,
        "space": space,
        "sweep": sweep,
        "threads": threads,
        "weights": weights,
        "where": where,
    }
    warn_threads(threads, 4)
    return SelectionResult._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "select",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def compare(
    data: DataLike,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    *,
    target: str,
    track: str,
    baseline: Optional[str] = None,
    bootstrap: Count = 0,
    bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
    budget: Optional[Union[float, Sequence[float]]] = None,
    by: Optional[str] = None,
    calibrate: bool = True,
    cell_tolerance: float = 0.001,
    derive: Optional[Mapping[str, str]] = None,
    f_scale: float = 0.001,
    fix: Optional[Mapping[str, float]] = None,
    flops: str = "6*N*D",
    grid: Optional[Mapping[str, Sequence[float]]] = None,
    level: float = 0.95,
    loss: str = "huber",
    map: Optional[Mapping[str, str]] = None,
    seed: Count = 0,
    set: Optional[Mapping[str, Union[float, Sequence[float]]]] = None,
    shared: Optional[Sequence[str]] = None,
    space: Optional[str] = None,
    threads: Optional[Count] = None,
    weights: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> TrackComparison:
    """Fits every track (recipe) of the runs with one law, separately or with parameters shared,
    and says which wins at which budget and by what compute multiplier. The same document as the
    command line's ``--json``. It runs with the GIL released, on a worker thread that Ctrl-C
    stops (KeyboardInterrupt; nothing else changes).

    - ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a
      pandas or polars DataFrame.
    - ``target``: The target column: the loss the laws predict (for ``downstream``, the
      accuracy).
    - ``track``: The column naming each run's track (recipe).
    - ``baseline``: The track the others are compared with (None: the first in the data).
    - ``bootstrap``: Bootstrap replicates, resampling within tracks (0: no intervals on the gaps
      and multipliers).
    - ``bounds``: Bounds of parameters: {name: (low, high)}, None for no bound on that side.
    - ``budget``: Budgets in FLOPs at which the tracks are compared: one or several.
    - ``by``: The column that orders scale for the calibration (None: ``C``, else 6·N·D).
    - ``calibrate``: Calibrate each track's prediction intervals beyond the data by
      rolling-origin backtests of its fit (false: each fit's own).
    - ``cell_tolerance``: Runs whose law variables agree within this relative tolerance share a
      cell (for the paired wins).
    - ``derive``: Columns computed from others: {name: expression}, in order (each may use those
      before).
    - ``f_scale``: The scale at which the robust loss turns from quadratic to linear.
    - ``fix``: Parameters held at given values: {name: value}.
    - ``flops``: The FLOPs formula of N and D.
    - ``formula``: A law as a formula of columns and parameters (``E + A*N^-alpha``).
    - ``grid``: Start values of parameters for the global search: {name: [values]}.
    - ``law``: A built-in law (``chinchilla``, ``bnsl:2``; see ``laws``): exactly one of law and
      formula.
    - ``level``: Level of the intervals.
    - ``loss``: The robust loss per residual: ``huber``, ``linear``, ``soft_l1``, ``cauchy`` or
      ``arctan``.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``seed``: Seed of every random step (the fit itself is deterministic).
    - ``set``: The law's other variables held for the allocations: {name: value or values}
      (several: optimised over).
    - ``shared``: Parameters common to every track, as a list (none: every track fitted
      separately).
    - ``space``: Where residuals are taken: ``log`` or ``linear`` (None: the law's own; laws
      compared side by side must agree, for likelihoods compare only in one space).
    - ``threads``: Worker threads (None: every core, up to the cap).
    - ``weights``: A column of per-row weights.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "target": target,
        "track": track,
        "baseline": baseline,
        "bootstrap": bootstrap,
        "bounds": bounds,
        "budget": budget,
        "by": by,
        "calibrate": calibrate,
        "cell_tolerance": cell_tolerance,
        "derive": derive,
        "f_scale": f_scale,
        "fix": fix,
        "flops": flops,
        "formula": formula,
        "grid": grid,
        "law": law,
        "level": level,
        "loss": loss,
        "map": map,
        "seed": seed,
        "set": set,
        "shared": shared,
        "space": space,
        "threads": threads,
        "weights": weights,
        "where": where,
    }
    warn_threads(threads, 4)
    return TrackComparison._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "compare",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def design(
    data: Optional[DataLike] = None,
    law: Optional[str] = None,
    formula: Optional[str] = None,
    *,
    candidates: Union[str, Rows],
    goal: Union[str, Sequence[str]],
    bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
    cost: str = "6*N*D",
    derive: Optional[Mapping[str, str]] = None,
    draws: Count = 32,
    f_scale: float = 0.001,
    fix: Optional[Mapping[str, float]] = None,
    grid: Optional[Mapping[str, Sequence[float]]] = None,
    level: float = 0.95,
    loss: str = "huber",
    map: Optional[Mapping[str, str]] = None,
    max_cost: Optional[float] = None,
    noise: Optional[float] = None,
    per_decade: Optional[Count] = None,
    prior: Optional[Mapping[str, Union[float, Tuple[float, float]]]] = None,
    prior_sd: Optional[float] = None,
    runs: Count = 8,
    seed: Count = 0,
    sequential: Count = 1,
    simulations: Optional[Count] = None,
    space: Optional[str] = None,
    spend: Optional[float] = None,
    sweep: Optional[Union[str, Sequence[str]]] = None,
    target: Optional[str] = None,
    threads: Optional[Count] = None,
    tokens_per_param: Optional[Union[Tuple[float, float], Literal["any"]]] = None,
    weights: Optional[str] = None,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> DesignAnalysis:
    """Which runs to launch next: the batch of candidate runs that most narrows the goals within a
    spend, designed from the fit of the runs so far or, before any run, from a prior. The same
    document as the command line's ``--json``. It runs with the GIL released, on a worker thread
    that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``data``: The runs, if any: a file path, a dict of columns or a DataFrame (None: none,
      where the settings allow it).
    - ``candidates``: The candidate runs: a grid of ranges of the law's variables
      (``N=1e8..1e11,D=1e9..1e13``; ``VAR=VALUE`` holds one, ``VAR=V1|V2`` lists its values), or
      the runs themselves, each a value per law variable.
    - ``goal``: What the batch should narrow, one or several: ``optimal_loss@C``,
      ``tokens_per_param@C``, ``optimal_N@C`` or ``optimal_D@C`` at a budget of C FLOPs (then
      ``,VAR=VALUE`` for the law's other variables); the compute multiplier of one track over
      another, tracks coded as values of a variable, ``multiplier@1e23,track=0:1``; the loss at
      a point, ``loss@N=7e10,D=1.4e12``; or the value of a variable that minimises the loss at a
      point, ``argmin_lr@N=7e10,D=1.4e12``.
    - ``bounds``: Bounds of parameters: {name: (low, high)}, None for no bound on that side.
    - ``cost``: A run's cost (and how a goal's budget is counted), a formula of N and D.
    - ``derive``: Columns computed from others: {name: expression}, in order (each may use those
      before).
    - ``draws``: Parameter draws the choice averages over (1: the current estimate only).
    - ``f_scale``: The scale at which the robust loss turns from quadratic to linear.
    - ``fix``: Parameters held at given values: {name: value}.
    - ``formula``: A law as a formula of columns and parameters (``E + A*N^-alpha``).
    - ``grid``: Start values of parameters for the global search: {name: [values]}.
    - ``law``: A built-in law (``chinchilla``, ``bnsl:2``; see ``laws``): exactly one of law and
      formula.
    - ``level``: Level of the widths (each is the width of an interval at this level).
    - ``loss``: The robust loss per residual: ``huber``, ``linear``, ``soft_l1``, ``cauchy`` or
      ``arctan``.
    - ``map``: Law variables read from columns of other names: {variable: column}, in order.
    - ``max_cost``: Keep a grid's runs that cost at most this many FLOPs each.
    - ``noise``: The noise of a run's outcome in the fitted space (None: the fit's residual
      scale; needed before any run).
    - ``per_decade``: Points per decade of a grid of candidates (None: 8).
    - ``prior``: A design before any run: what is known of each parameter of the law, a value or
      a range ``[low, high]`` (read as the centre ± 2 sd; ``fix`` holds a parameter instead).
      Needs ``noise``.
    - ``prior_sd``: The prior sd of a parameter ``prior`` gives one value: in log θ for a
      parameter bounded below by 0 (0.5: a factor 1.65 at one sd), in θ otherwise (None: 0.5).
    - ``runs``: Most runs in the batch.
    - ``seed``: Seed of every random step (the fit itself is deterministic).
    - ``sequential``: Plan a campaign of this many rounds (each a batch, its simulated outcomes
      and a refit).
    - ``simulations``: Simulated outcomes and refits that check the expected widths (0: no
      check; None: 200, and none before any run, whose widths a refit cannot check).
    - ``space``: Where residuals are taken: ``log`` or ``linear`` (None: the law's own; laws
      compared side by side must agree, for likelihoods compare only in one space).
    - ``spend``: Most total cost of the batch, in the units of ``cost`` (None: no limit).
    - ``sweep``: Swept columns, one or several: each law is fitted on each cell's frontier, as a
      fit is.
    - ``target``: The column the law predicts in the runs so far (None: a design before any run,
      from ``prior``).
    - ``threads``: Worker threads (None: every core, up to the cap).
    - ``tokens_per_param``: Keep a grid's runs whose tokens per parameter D/N lie in [low,
      high], or ``any`` (None: 2 to 500).
    - ``weights``: A column of per-row weights.
    - ``where``: Row filters (``loss < 3.4``), one or several; rows failing any are left out and
      counted.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "candidates": candidates,
        "goal": goal,
        "bounds": bounds,
        "cost": cost,
        "derive": derive,
        "draws": draws,
        "f_scale": f_scale,
        "fix": fix,
        "formula": formula,
        "grid": grid,
        "law": law,
        "level": level,
        "loss": loss,
        "map": map,
        "max_cost": max_cost,
        "noise": noise,
        "per_decade": per_decade,
        "prior": prior,
        "prior_sd": prior_sd,
        "runs": runs,
        "seed": seed,
        "sequential": sequential,
        "simulations": simulations,
        "space": space,
        "spend": spend,
        "sweep": sweep,
        "target": target,
        "threads": threads,
        "tokens_per_param": tokens_per_param,
        "weights": weights,
        "where": where,
    }
    warn_threads(threads, 4)
    spec_json = dump({k: v for k, v in spec.items() if v is not None})
    if data is None and delimiter is None:
        native = _scalinglaws.run_workflow(None, "design", spec_json)
    else:
        native = call_with_data(_scalinglaws.run_workflow, data, delimiter, "design", spec_json)
    result = DesignAnalysis._from_native(native)
    warn_caveats([caveat.to_dict() for caveat in result.fit_caveats])
    return result


@checked
def optimal(
    fit: Optional[Fit] = None,
    *,
    budget: Optional[Union[float, Sequence[float]]] = None,
    flops: str = "6*N*D",
    inference_tokens: float = 0.0,
    law: Optional[str] = None,
    level: Optional[float] = None,
    max_active: Optional[float] = None,
    max_params: Optional[float] = None,
    max_tokens: Optional[float] = None,
    params: Optional[Mapping[str, float]] = None,
    set: Optional[Mapping[str, Union[float, Sequence[float]]]] = None,
    target_loss: Optional[Union[float, Sequence[float]]] = None,
    total_params: Optional[str] = None,
) -> Frontier:
    """Compute-optimal N*, D* at each budget (or the least compute reaching each target loss) of a
    fit, or of a catalog law with published parameters, with intervals from the fit's bootstrap
    and each allocation's prediction interval. The same document as the command line's
    ``--json``. It runs with the GIL released, on a worker thread that Ctrl-C stops
    (KeyboardInterrupt; nothing else changes).

    - ``fit``: A :class:`Fit` (None: the settings name a law of their own).
    - ``budget``: Training budgets in FLOPs to allocate (minimise the loss at each): one or
      several.
    - ``flops``: Training FLOPs as a formula of N and D.
    - ``inference_tokens``: Tokens the model will serve over its life, costing 2·N per token
      (Sardana et al. 2024): a budget then covers training and inference.
    - ``law``: Instead of a fit: a catalog law (``chinchilla``), with every parameter in
      ``params``.
    - ``level``: Level of the intervals (None: the fit's bootstrap's, else its calibration's,
      else 95%).
    - ``max_active``: Cap on N, the parameters each token passes through (inference cost per
      token).
    - ``max_params``: Cap on the total parameters (what fits in memory).
    - ``max_tokens``: Cap on the training tokens D (e.g. the unique data available).
    - ``params``: The catalog law's parameters, every one: {name: value} (published values).
    - ``set``: Other variables of the law held at values, in order: {name: one value or
      several}; several values (``{"E": [1, 8, 64]}``) are optimised over.
    - ``target_loss``: Instead of budgets: losses to reach with the least compute, one or
      several.
    - ``total_params``: Total parameters as a formula of N and the held variables (None: N),
      e.g. ``N*(4+9*E)/13`` for Switch-style MoE layers without embeddings.
    """
    spec = {
        "budget": budget,
        "flops": flops,
        "inference_tokens": inference_tokens,
        "law": law,
        "level": level,
        "max_active": max_active,
        "max_params": max_params,
        "max_tokens": max_tokens,
        "params": params,
        "set": set,
        "target_loss": target_loss,
        "total_params": total_params,
    }
    spec_json = dump({k: v for k, v in spec.items() if v is not None})
    native = _scalinglaws.run_workflow(None if fit is None else fit.to_json(), "optimal", spec_json)
    result = Frontier._from_native(native)
    warn_caveats([caveat.to_dict() for caveat in result.fit_caveats])
    return result


@checked
def schedule_cooldown(
    fit: Union[ScheduleFit, Mapping[str, Any]],
    *,
    at: Sequence[Count],
    lengths: Sequence[Count],
    decay: Literal["linear", "cosine", "exp"] = "linear",
    final: Optional[float] = None,
    peak: Optional[float] = None,
    warmup: Optional[Count] = None,
) -> CooldownTable:
    """The loss after a cooldown of each length started at each step, off a constant run, under a
    saved schedule fit: each row's loss, the constant run's at the same step, and the gain. The
    same document as the command line's ``--json``. It runs with the GIL released, on a worker
    thread that Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``fit``: A :class:`ScheduleFit`, or its document as a dict.
    - ``at``: Steps where a cooldown starts.
    - ``lengths``: Cooldown lengths in steps.
    - ``decay``: The shape of each cooldown.
    - ``final``: The learning rate at the end of a cooldown (None: peak/100).
    - ``peak``: The constant learning rate (None: the fit's training run's peak).
    - ``warmup``: Warmup steps (None: the fit's training run's).
    """
    spec = {
        "at": at,
        "lengths": lengths,
        "decay": decay,
        "final": final,
        "peak": peak,
        "warmup": warmup,
    }
    return CooldownTable._from_native(
        _scalinglaws.run_workflow(
            _fit_json(fit),
            "schedule_cooldown",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def schedule_fit(
    data: DataLike,
    *,
    fix: Optional[Mapping[str, float]] = None,
    law: Literal["multi_power", "lr_annealing", "power_area", "fsl"] = "multi_power",
    lr: str = "lr",
    run: Optional[str] = None,
    step: str = "step",
    target: str = "loss",
    train: Optional[Union[str, Sequence[str]]] = None,
    warmup: Count = 0,
    where: Optional[Union[str, Sequence[str]]] = None,
    delimiter: Optional[str] = None,
) -> ScheduleFit:
    """A loss-curve law of the learning-rate schedule fitted to training logs (one row per logged
    step: the run, the step, the learning rate and the loss), each run's schedule rebuilt by
    linear interpolation, and scored (R², final error, RMSE) on every run. The same document as
    the command line's ``--json``. It runs with the GIL released, on a worker thread that Ctrl-C
    stops (KeyboardInterrupt; nothing else changes).

    - ``data``: The training logs, one row per logged step: a file path, a dict of columns or a
      DataFrame.
    - ``fix``: Parameters held at values: {name: value}.
    - ``law``: The curve law.
    - ``lr``: The column of the learning rate at that step (interpolated linearly between logged
      steps).
    - ``run``: The column naming each row's run (None: each file of logs is one run, named by
      the file's name without its extension; data held in memory must name the column).
    - ``step``: The column of the optimizer step.
    - ``target``: The column of the loss.
    - ``train``: The runs to fit on, one or several (none: every run); the others are scored
      only.
    - ``warmup``: Linear warmup rebuilt before the first logged step: steps 0 to warmup−1 rise
      from 0 to the first logged learning rate (0: every step before the first logged one takes
      it).
    - ``where``: Row filters (``step >= 100``), one or several; rows failing any are left out.
    - ``delimiter``: The delimiter of a text file of runs (None: by its extension).
    """
    spec = {
        "fix": fix,
        "law": law,
        "lr": lr,
        "run": run,
        "step": step,
        "target": target,
        "train": train,
        "warmup": warmup,
        "where": where,
    }
    return ScheduleFit._from_native(
        call_with_data(
            _scalinglaws.run_workflow,
            data,
            delimiter,
            "schedule_fit",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def schedule_compare(
    fit: Union[ScheduleFit, Mapping[str, Any]],
    schedules: Sequence[str],
    *,
    every: Count = 0,
) -> ScheduleComparison:
    """Several schedules' curves and final losses under a saved schedule fit, side by side: the
    schedule with the lowest final loss and each one's gap to it. The same document as the
    command line's ``--json``. It runs with the GIL released, on a worker thread that Ctrl-C
    stops (KeyboardInterrupt; nothing else changes).

    - ``fit``: A :class:`ScheduleFit`, or its document as a dict.
    - ``schedules``: The schedules, each KIND:KEY=VALUE,... as ``schedule_predict`` takes one
      (at least two).
    - ``every``: Report each curve every K steps (0: about 200 points).
    """
    spec = {
        "schedules": schedules,
        "every": every,
    }
    return ScheduleComparison._from_native(
        _scalinglaws.run_workflow(
            _fit_json(fit),
            "schedule_compare",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )


@checked
def schedule_optimize(
    fit: Union[ScheduleFit, Mapping[str, Any]],
    *,
    floor: Optional[float] = None,
    max_iterations: Count = 400,
    peak: Optional[float] = None,
    steps: Optional[Count] = None,
    warmup: Optional[Count] = None,
    whole_schedule: bool = False,
) -> OptimizedSchedule:
    """The schedule with the lowest final loss a saved schedule fit predicts: a linear warmup to
    the peak, then any non-increasing learning rate down to the floor, searched from the best of
    the standard schedules (constant, cosine, WSD), so never worse than those. The same document
    as the command line's ``--json``. It runs with the GIL released, on a worker thread that
    Ctrl-C stops (KeyboardInterrupt; nothing else changes).

    - ``fit``: A :class:`ScheduleFit`, or its document as a dict.
    - ``floor``: The lowest learning rate allowed (None: peak/1000).
    - ``max_iterations``: Iterations of projected gradient descent at most.
    - ``peak``: The peak learning rate (None: the fit's training run's).
    - ``steps``: Steps of the schedule (None: the fit's training run's).
    - ``warmup``: Linear warmup steps (None: the fit's training run's).
    - ``whole_schedule``: Put the whole schedule in the document, one learning rate per step (up
      to the limit of points of a curve, 1,000,000 steps); without it the document has 41
      samples of its shape.
    """
    spec = {
        "floor": floor,
        "max_iterations": max_iterations,
        "peak": peak,
        "steps": steps,
        "warmup": warmup,
        "whole_schedule": whole_schedule,
    }
    return OptimizedSchedule._from_native(
        _scalinglaws.run_workflow(
            _fit_json(fit),
            "schedule_optimize",
            dump({k: v for k, v in spec.items() if v is not None}),
        )
    )
