"""The lab: exact simulators of the settings in which our seed papers derive scaling laws, one
function per simulator, each running the compiled ``scalinglaws-lab`` crate, the code behind
``scalinglaws sim NAME``. The keywords are the command's options in snake_case (``--max-vocab``
is ``max_vocab=``; ``--no-tensor-scale`` is ``tensor_scale=False``); one left as None takes the
simulator's default, the command's. Each returns a pandas DataFrame whose columns and values
are those of the CSV the command writes for the same settings (the same header, the same
numbers), ready for :func:`scalinglaws.fit`, :func:`scalinglaws.fit_groups` and the other
analyses:

>>> import scalinglaws as sl
>>> points = sl.lab.sgd_scaling(b=1.5, horizons=[256, 512, 1024, 2048])  # doctest: +SKIP
>>> fits = sl.fit_groups(points, group="optimizer", law="power", map={"x": "horizon"},
...                      target="excess_risk")  # doctest: +SKIP
>>> {name: fit.params["alpha"] for name, fit in fits.fits.items()}  # doctest: +SKIP

Every run is seeded (``seed=``) and bit-identical for any number of threads. A setting of the
wrong type (checked by ``@checked`` against the signature) or out of range raises
:class:`scalinglaws.SettingsError` naming the keyword (``seeds=: ...``). Ctrl-C
raises KeyboardInterrupt at once; the run is told to stop and winds down in the background
(each of its parallel tasks at the end of a seed or trial). pandas is imported only when a
simulator returns.
"""

from __future__ import annotations

import io
import numbers
from typing import Any, List, Optional, Sequence, Union

from . import _scalinglaws
from ._errors import SettingsError
from ._keywords import checked

__all__ = ["editing", "multi_index", "nvfp4", "recall", "sgd", "sgd_scaling"]

# The largest whole number a setting can hold (the simulators' counts and seeds are u64).
_MOST = 2**64 - 1

# One value of a list setting or a list of them (``dimensions=64`` is ``dimensions=[64]``).
Wholes = Union[int, Sequence[int]]
Reals = Union[float, Sequence[float]]


def _whole(name: str, value: Optional[int]) -> Optional[int]:
    """A count setting (None kept: the simulator's default) that a u64 holds, or
    SettingsError naming the keyword (its type is checked by ``@checked``)."""
    if value is None:
        return None
    if not 0 <= value <= _MOST:
        raise SettingsError(f"{name}=: give a whole number ≥ 0, not {value!r}")
    return int(value)


def _real(name: str, value: Optional[float]) -> Optional[float]:
    """A number for a real setting (None kept); the simulator checks its range."""
    return None if value is None else float(value)


def _items(values: Any) -> Optional[List[Any]]:
    """One value or a list (a sequence, a numpy array) as a list (None kept)."""
    if values is None:
        return None
    return [values] if isinstance(values, numbers.Number) else list(values)


def _wholes(name: str, values: Optional[Wholes]) -> Optional[List[int]]:
    """One whole number ≥ 0 or a list of them, as a list (None kept), or SettingsError."""
    items = _items(values)
    if items is None:
        return None
    for item in items:
        if not 0 <= item <= _MOST:
            raise SettingsError(f"{name}=: {item!r} is not a whole number ≥ 0")
    return [int(item) for item in items]


def _reals(name: str, values: Optional[Reals]) -> Optional[List[float]]:
    """One number or a list of them, as a list of floats (None kept)."""
    items = _items(values)
    return None if items is None else [float(item) for item in items]


def _names(name: str, values: Union[None, str, Sequence[str]]) -> Optional[List[str]]:
    """One name or a list of names (None kept)."""
    if values is None:
        return None
    return [values] if isinstance(values, str) else list(values)


def _seed(value: Any) -> int:
    seed = _whole("seed", value)
    if seed is None:
        raise SettingsError("seed=: give a whole number ≥ 0, not None")
    return seed


def _frame(text: str) -> Any:
    """The dataset's CSV text as pandas reads it (the Python parser, which reads every number
    back exactly: what ``pandas.read_csv(..., engine="python")`` gives for the command's file)."""
    try:
        import pandas as pd  # type: ignore[import-untyped,unused-ignore]
    except ImportError as error:  # pragma: no cover - pandas is a test dependency
        raise ImportError("scalinglaws.lab returns pandas DataFrames: pip install pandas") from error
    return pd.read_csv(io.StringIO(text), engine="python")


@checked
def nvfp4(
    *,
    dimensions: Optional[Wholes] = None,
    pairs: Optional[int] = None,
    correlation: Optional[float] = None,
    tensor_scale: Optional[bool] = None,
    seed: int = 0,
) -> Any:
    """The signal-to-noise ratio of dot products of NVFP4-quantised vectors (E2M1 elements, an
    E4M3 scale per block of 16, an FP32 tensor scale, round-to-nearest-even) against the
    dimension, for Gaussian and unit-hypersphere vectors, with and without a weak positive
    correlation of the element-wise products. As ``scalinglaws sim nvfp4``.

    ``dimensions``: vector lengths (default 64, 128, ..., 8192); ``pairs``: vector pairs per
    dimension (default 1000); ``correlation``: ρ of the correlated cases, in [0, 1) (default
    0.05); ``tensor_scale``: quantise with NVFP4's FP32 per-tensor scale, set from the tensor's
    largest magnitude (default True, the recipe), or with the E4M3 block scales only, the
    tensor scale fixed to 1 (False: the command's ``--no-tensor-scale``).

    Returns a DataFrame with a row per dimension and case: ``dimension``, ``case``,
    ``normalised``, ``correlated``, ``pairs``, ``snr``, ``snr_stderr``, ``signal``, ``noise``,
    ``dot_mean``, ``error_mean``."""
    text = _scalinglaws.lab_nvfp4(
        dimensions=_wholes("dimensions", dimensions),
        pairs=_whole("pairs", pairs),
        correlation=_real("correlation", correlation),
        tensor_scale=tensor_scale,
        seed=_seed(seed),
    )
    return _frame(text)


@checked
def sgd(
    *,
    dimension: Optional[int] = None,
    a: Optional[float] = None,
    b: Optional[float] = None,
    noise: Optional[float] = None,
    batch: Optional[int] = None,
    lr: Optional[float] = None,
    steps: Optional[int] = None,
    per_decade: Optional[int] = None,
    seeds: Optional[int] = None,
    optimizer: Union[None, str, Sequence[str]] = None,
    seed: int = 0,
) -> Any:
    """SGD and signSGD on linear regression with power-law spectrum λ_i = i^-a and target
    λ_i·w*_i² = i^-b: SGD's expected risk by the exact second-moment recursion, SGD and
    signSGD by Monte Carlo over seeds. As ``scalinglaws sim sgd``.

    ``dimension``: M, the number of features (default 64); ``a``: spectrum exponent > 1
    (default 2); ``b``: target exponent > 1, b < a a hard task, b ≥ a easy (default 1.5);
    ``noise``: σ of the labels (default 0.5); ``batch``: samples per step (default 1); ``lr``:
    the learning rate of every step (default 0.2); ``steps``: training steps (default 1000);
    ``per_decade``: logged steps per decade, steps 0, 1 and the last always logged (default 4);
    ``seeds``: Monte Carlo seeds (default 1000); ``optimizer``: ``"sgd_exact"``, ``"sgd_mc"``,
    ``"signsgd_mc"`` or a list of them (default all three).

    Returns a DataFrame with a row per optimizer and logged step: ``optimizer``, ``step``,
    ``risk``, ``excess_risk``, ``stderr``, ``seeds``."""
    text = _scalinglaws.lab_sgd(
        dimension=_whole("dimension", dimension),
        a=_real("a", a),
        b=_real("b", b),
        noise=_real("noise", noise),
        batch=_whole("batch", batch),
        lr=_real("lr", lr),
        steps=_whole("steps", steps),
        per_decade=_whole("per_decade", per_decade),
        seeds=_whole("seeds", seeds),
        optimizer=_names("optimizer", optimizer),
        seed=_seed(seed),
    )
    return _frame(text)


@checked
def sgd_scaling(
    *,
    a: Optional[float] = None,
    b: Optional[float] = None,
    dimension: Optional[int] = None,
    horizons: Optional[Wholes] = None,
    decay: Optional[float] = None,
    seeds: Optional[int] = None,
    seed: int = 0,
) -> Any:
    """The data-scaling exponents of SGD and signSGD: at each training length T the excess risk
    at the end of training, the learning rate tuned over a grid per optimizer (SGD by the exact
    recursion, signSGD by Monte Carlo). As ``scalinglaws sim sgd-scaling``.

    ``a``: spectrum exponent > 1 (default 2); ``b``: target exponent > 1, b < a a hard task
    (default 1.5, hard); ``dimension``: M, the number of features (default 512); ``horizons``:
    training lengths T, increasing, at least 3 (default 256, 512, ..., 16384); ``decay``:
    decay the learning rate linearly over this fraction of each run (1: to zero from the
    start) instead of holding it constant (default None: constant); ``seeds``: signSGD's Monte
    Carlo seeds per (T, learning rate) (default 12).

    Returns a DataFrame with a row per optimizer and T: ``optimizer``, ``horizon``, ``lr``,
    ``excess_risk``, ``stderr``, ``seeds``, ``lr_at_grid_edge``; fit it with
    ``scalinglaws.fit_groups(frame, group="optimizer", law="power", map={"x": "horizon"},
    target="excess_risk")``."""
    text = _scalinglaws.lab_sgd_scaling(
        a=_real("a", a),
        b=_real("b", b),
        dimension=_whole("dimension", dimension),
        horizons=_wholes("horizons", horizons),
        decay=_real("decay", decay),
        seeds=_whole("seeds", seeds),
        seed=_seed(seed),
    )
    return _frame(text)


@checked
def editing(
    *,
    rows: Optional[int] = None,
    cols: Optional[int] = None,
    edits: Optional[int] = None,
    feedback: Optional[float] = None,
    tolerance: Optional[float] = None,
    threshold: Optional[float] = None,
    seeds: Optional[int] = None,
    seed: int = 0,
) -> Any:
    """Norm feedback in sequential model editing: a linear layer edited by rank-one least
    squares (ROME) for a stream of edits whose values are solved through the current layer,
    with and without Norm-Anchor Scaling. As ``scalinglaws sim editing``.

    ``rows``: the layer's output dimension (default 64); ``cols``: its key dimension (default
    256); ``edits``: edits in the stream (default 300); ``feedback``: α, each edit's change
    relative to the current output (default 3); ``tolerance``: relative error below which an
    earlier edit counts as retained (default 0.5); ``threshold``: retention below which the
    editing horizon ends (default 0.9); ``seeds``: independent runs averaged (default 24).

    Returns a DataFrame with a row per variant and edit: ``variant``, ``edit``, ``seeds``,
    ``weight_norm``, ``log_weight_norm``, ``value_norm``, ``retention``, ``retention_stderr``,
    ``relative_error``, ``drift``."""
    text = _scalinglaws.lab_editing(
        rows=_whole("rows", rows),
        cols=_whole("cols", cols),
        edits=_whole("edits", edits),
        feedback=_real("feedback", feedback),
        tolerance=_real("tolerance", tolerance),
        threshold=_real("threshold", threshold),
        seeds=_whole("seeds", seeds),
        seed=_seed(seed),
    )
    return _frame(text)


@checked
def multi_index(
    *,
    dimensions: Optional[Wholes] = None,
    kappas: Optional[Reals] = None,
    directions: Optional[int] = None,
    strength_exponent: Optional[float] = None,
    noise: Optional[float] = None,
    seeds: Optional[int] = None,
    seed: int = 0,
) -> Any:
    """Hierarchical multi-index targets: subspace recovery by the spectral estimator (top
    eigenvectors of the average of y·x·xᵀ) against samples n = κ·d, one direction after
    another. As ``scalinglaws sim multi-index``.

    ``dimensions``: input dimensions d (default 64, 128, 256); ``kappas``: samples per
    dimension κ = n/d, increasing (default 2^(i/2) for i = -2..12, 0.5 to 64); ``directions``:
    k, the target's directions (default 3); ``strength_exponent``: γ of the strengths
    a_j = d^(-γ(j-1)) (default 0.125); ``noise``: σ of the labels (default 0); ``seeds``:
    independent runs averaged (default 16).

    Returns a DataFrame with a row per dimension, κ and direction: ``dimension``, ``kappa``,
    ``samples``, ``direction``, ``strength``, ``label_variance``, ``overlap``,
    ``overlap_stderr``, ``seeds``, ``predicted_overlap``, ``asymptotic_overlap``."""
    text = _scalinglaws.lab_multi_index(
        dimensions=_wholes("dimensions", dimensions),
        kappas=_reals("kappas", kappas),
        directions=_whole("directions", directions),
        strength_exponent=_real("strength_exponent", strength_exponent),
        noise=_real("noise", noise),
        seeds=_whole("seeds", seeds),
        seed=_seed(seed),
    )
    return _frame(text)


@checked
def recall(
    *,
    state_sizes: Optional[Wholes] = None,
    embedding: Optional[int] = None,
    context: Optional[int] = None,
    trials: Optional[int] = None,
    delta: Optional[float] = None,
    max_vocab: Optional[int] = None,
    seed: int = 0,
) -> Any:
    """Associative recall through a random linear hash: the largest vocabulary recalled
    perfectly (Monte Carlo) against the state size, with its Johnson–Lindenstrauss-style lower
    bound. As ``scalinglaws sim recall``.

    ``state_sizes``: state sizes d (default 8, 12, ..., 36); ``embedding``: the keys' embedding
    dimension (default 1024); ``context``: key–value pairs in the context (default 2);
    ``trials``: Monte Carlo trials (default 64); ``delta``: the capacity is the δ-quantile over
    trials and the bound holds with probability 1 − δ (default 0.1); ``max_vocab``: the largest
    vocabulary a trial grows to (default 4096).

    Returns a DataFrame with a row per state size: ``state_size``, ``embedding``, ``context``,
    ``trials``, ``delta``, ``capacity_mc``, ``capacity_median``, ``censored``,
    ``capacity_bound``, ``capacity_dg``, ``ratio``."""
    text = _scalinglaws.lab_recall(
        state_sizes=_wholes("state_sizes", state_sizes),
        embedding=_whole("embedding", embedding),
        context=_whole("context", context),
        trials=_whole("trials", trials),
        delta=_real("delta", delta),
        max_vocab=_whole("max_vocab", max_vocab),
        seed=_seed(seed),
    )
    return _frame(text)
