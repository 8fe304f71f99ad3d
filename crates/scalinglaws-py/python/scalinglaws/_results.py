"""Typed results of the analyses: frozen dataclasses built from the JSON document the library
returns (the same document as the command's ``--json``), one class per result struct of the
Rust library, its fields named as the JSON names them (``N``, ``D``, ``covered_N``), nested
where the document nests.

An analysis's result prints as the text report the command prints for it (``print(result)``,
and as that text in a notebook): the report is written by the library's report crate when the
analysis runs, where the request's context (the data's name, the columns, the law) is known,
and kept beside the document, not in it (``to_dict()`` and saved JSON are the document alone).
A result read back with :meth:`Result.from_dict`, and the parts of a result, have no report:
they print as their ``repr``.

Every result keeps the document it was built from: :meth:`Result.to_dict` gives it back
whole (including keys a newer library writes that this version does not declare), and
``result["key"]`` reads a key of it as plain JSON values, so code written for the dicts the
functions used to return keeps working. Tables a notebook wants come as pandas DataFrames from
``to_frame()`` (pandas is imported only then).

How a value of the document becomes a field: a JSON ``null`` in a float field is NaN (the
library writes non-finite numbers as null); a key the library leaves out when empty reads as
None, an empty list or dict, or False, by the field's type; a pair is a tuple."""

from __future__ import annotations

import copy
import dataclasses
import html
import json
import math
import os
import sys
from dataclasses import dataclass, field
from typing import (
    Any,
    ClassVar,
    Dict,
    Iterator,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from ._errors import speak_python, speak_result
from ._fit import Fit

R = TypeVar("R", bound="Result")

Interval = Tuple[float, float]
"""An interval (low, high)."""


@dataclass(frozen=True, repr=False)
class Result:
    """The base of every result: the document it was built from, read as a dict, and a short
    ``repr``. Subclasses declare the document's keys as fields."""

    _document: Optional[Dict[str, Any]] = field(
        default=None, init=False, repr=False, compare=False
    )

    _report: Optional[str] = field(default=None, init=False, repr=False, compare=False)
    """The text report the command prints for this result, in Python's words (None for a
    result read back with :meth:`from_dict`, and for the parts of a result)."""

    _text: Optional[str] = field(default=None, init=False, repr=False, compare=False)
    """The document as the library wrote it (None for a result read back with
    :meth:`from_dict`, and for the parts of a result): what :meth:`save` writes."""

    _key: ClassVar[Dict[str, str]] = {}
    """Fields whose JSON key is not their name (a Python keyword): {field: key}."""

    @classmethod
    def from_dict(cls: Type[R], document: Mapping[str, Any]) -> R:
        """The result of a JSON document (as ``json.loads`` reads the command's ``--json``); the
        result keeps a copy of it."""
        if not isinstance(document, Mapping):
            raise TypeError(f"{cls.__name__}.from_dict takes a dict, not {type(document).__name__}")
        return cls._from_document(copy.deepcopy(dict(document)))

    @classmethod
    def _from_document(cls: Type[R], document: Dict[str, Any]) -> R:
        """:meth:`from_dict` on a document this result may keep (nested results share it)."""
        hints = _hints(cls)
        values: Dict[str, Any] = {}
        for item in dataclasses.fields(cls):
            if not item.init:
                continue
            key = cls._key.get(item.name, item.name)
            hint = hints[item.name]
            if key in document:
                values[item.name] = _build(hint, document[key], f"{cls.__name__}.{item.name}")
                if item.name in _WORDED:
                    values[item.name] = _worded(values[item.name])
            else:
                values[item.name] = _missing(hint, f"{cls.__name__}.{item.name}")
        result = cls(**values)
        object.__setattr__(result, "_document", document)
        return result

    @classmethod
    def _from_native(cls: Type[R], native: Tuple[str, str, Optional[str]]) -> R:
        """The result of what the compiled module returns for an analysis: its document (JSON
        text), its text report (and the data a fit was fitted to, which only `Fit` keeps)."""
        document, report, _ = native
        result = cls._from_document(json.loads(document))._reported(report)
        object.__setattr__(result, "_text", document)
        return result

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the document to ``path``. A result of a function generated from the library's
        workflows (``scalinglaws._workflows``: ``sensitivity``, ``backtest``, ``lr``, ...) is written
        as the command's ``--json`` writes it, the same bytes whichever face ran it; the other
        analyses' results hold the same document in compact JSON, written as they hold it."""
        text = self._text if self._text is not None else json.dumps(self.to_dict(), indent=2)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text if text.endswith("\n") else text + "\n")

    def _reported(self: R, report: str) -> R:
        """This result with its text report (the report crate's, in Python's words)."""
        object.__setattr__(self, "_report", speak_python(report))
        return self

    def __str__(self) -> str:
        """The text report, as the command prints it for the same analysis (``[[Section]]``
        headers and tables); a result without one (read back with :meth:`from_dict`, or a part
        of a result) prints as its ``repr``."""
        return repr(self) if self._report is None else self._report

    def _repr_html_(self) -> Optional[str]:
        """In a notebook, the text report as it prints (None, so the ``repr`` is shown, for a
        result without one)."""
        if self._report is None:
            return None
        return f'<pre class="scalinglaws-report">{html.escape(self._report)}</pre>'

    def to_dict(self) -> Dict[str, Any]:
        """The JSON document, as plain dicts, lists and numbers (a copy: changing it changes
        nothing here)."""
        if self._document is not None:
            return copy.deepcopy(self._document)
        return {self._key.get(f.name, f.name): _plain(getattr(self, f.name)) for f in _fields(self)}

    def __getitem__(self, key: str) -> Any:
        """``result[key]``: that key of :meth:`to_dict` (a copy of the one value only)."""
        if self._document is not None:
            return copy.deepcopy(self._document[key])
        return self.to_dict()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.keys()

    def get(self, key: str, default: Any = None) -> Any:
        """``result[key]``, or ``default`` where the document has no such key."""
        return self[key] if key in self else default

    def keys(self) -> List[str]:
        """The document's keys."""
        if self._document is not None:
            return list(self._document)
        return [self._key.get(f.name, f.name) for f in _fields(self)]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __repr__(self) -> str:
        parts = []
        for item in _fields(self):
            shown = _short(getattr(self, item.name))
            if shown is not None:
                parts.append(f"{item.name}={shown}")
        return f"{type(self).__name__}({', '.join(parts)})"


def _fields(result: Result) -> List[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(result) if f.init]


_HINTS: Dict[type, Dict[str, Any]] = {}


def _hints(cls: type) -> Dict[str, Any]:
    """The fields' types, resolved once per class (the annotations are strings)."""
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls, vars(sys.modules[cls.__module__]))
    return _HINTS[cls]


def _missing(hint: Any, where: str) -> Any:
    """The value of a key the library leaves out when it is empty."""
    origin = get_origin(hint)
    if origin is Union and type(None) in get_args(hint):
        return None
    if origin is list:
        return []
    if origin is dict:
        return {}
    if hint is bool:
        return False
    raise KeyError(f"{where}: the document has no such key")


# Fields holding the library's messages, saved in its neutral words: read in Python's.
_WORDED = ("error", "warnings")


def _worded(value: Any) -> Any:
    """A message field (a text, a list of texts, or None) in Python's words."""
    if isinstance(value, str):
        return speak_result(value)
    if isinstance(value, list):
        return [speak_result(v) if isinstance(v, str) else v for v in value]
    return value


def _build(hint: Any, value: Any, where: str) -> Any:
    """A JSON value as the field's type."""
    origin = get_origin(hint)
    args = get_args(hint)
    if hint is Any:
        return value
    if origin is Union:
        if value is None and type(None) in args:
            return None
        choices = [a for a in args if a is not type(None)]
        if len(choices) == 1:
            return _build(choices[0], value, where)
        return _tagged(choices, value, where)
    if origin is Literal:
        return value
    if origin is list:
        return [_build(args[0], v, f"{where}[{i}]") for i, v in enumerate(_list(value, where))]
    if origin is tuple:
        items = _list(value, where)
        if len(items) != len(args):
            raise TypeError(f"{where}: expected {len(args)} values, got {len(items)}")
        return tuple(_build(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, items)))
    if origin is dict:
        if not isinstance(value, Mapping):
            raise TypeError(f"{where}: expected an object, got {type(value).__name__}")
        return {k: _build(args[1], v, f"{where}[{k!r}]") for k, v in value.items()}
    if hint is float:
        return math.nan if value is None else float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{where}: expected a whole number, got {value!r}")
        return value
    if hint is bool or hint is str:
        if not isinstance(value, hint):
            raise TypeError(f"{where}: expected {hint.__name__}, got {value!r}")
        return value
    if isinstance(hint, type) and issubclass(hint, Result):
        if not isinstance(value, dict):
            raise TypeError(f"{where}: expected an object, got {type(value).__name__}")
        return hint._from_document(value)
    if hint is Fit:
        if not isinstance(value, dict):
            raise TypeError(f"{where}: expected a fit's document, got {type(value).__name__}")
        # Checked and written back by the library: the text `scalinglaws fit --json` writes.
        return Fit.from_json(json.dumps(value, allow_nan=False))
    raise TypeError(f"{where}: no rule for {hint!r}")


def _list(value: Any, where: str) -> List[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _tagged(choices: List[Any], value: Any, where: str) -> Any:
    """One of several result classes, chosen by the tag each declares (``_tag``)."""
    for choice in choices:
        tag_key, tag_value = choice._tag
        if isinstance(value, dict) and value.get(tag_key) == tag_value:
            return choice._from_document(value)
    raise TypeError(f"{where}: none of {[c.__name__ for c in choices]} matches the document")


def _plain(value: Any) -> Any:
    """A field's value as JSON values (for a result built by hand, not from a document)."""
    if isinstance(value, (Result, Fit)):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _short(value: Any) -> Optional[str]:
    """A field's value for ``repr``: None (left out) when empty; long lists as a count, long
    texts cut, a nested result as ``Name(...)`` unless its own repr is short."""
    if value is None or value == [] or value == {} or value is False:
        return None
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str) and len(value) > 60:
        return repr(value[:57] + "...")
    if isinstance(value, Result):
        text = repr(value)
        return text if len(text) <= 80 else f"{type(value).__name__}(...)"
    if isinstance(value, tuple):
        return "(" + ", ".join(_short(v) or repr(v) for v in value) + ")"
    if isinstance(value, list):
        if len(value) > 4 or any(isinstance(v, (Result, list, dict)) for v in value):
            kind = type(value[0]).__name__
            return f"[{len(value)} {kind}]"
        return "[" + ", ".join(_short(v) or repr(v) for v in value) + "]"
    if isinstance(value, dict):
        if len(value) > 4 or any(isinstance(v, (Result, list, dict)) for v in value.values()):
            return f"{{{len(value)} entries}}"
        return "{" + ", ".join(f"{k!r}: {_short(v) or repr(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _pairs(name: str, value: Optional[Interval]) -> Dict[str, float]:
    """An interval as two table columns, ``name_low`` and ``name_high`` (NaN when absent)."""
    low, high = value if value is not None else (math.nan, math.nan)
    return {f"{name}_low": low, f"{name}_high": high}


def _row(result: Result, **extra: Any) -> Dict[str, Any]:
    """One table row of a result: ``extra`` first, then its scalar fields; an interval as
    ``name_low``, ``name_high``; a dict of numbers or intervals as ``name_key`` columns. Nested
    results and lists are left out (they are tables of their own)."""
    row: Dict[str, Any] = dict(extra)
    for item in _fields(result):
        value = getattr(result, item.name)
        if isinstance(value, (Result, list)):
            continue
        if isinstance(value, tuple) and len(value) == 2:
            row.update(_pairs(item.name, value))
        elif isinstance(value, dict):
            for key, entry in value.items():
                if isinstance(entry, tuple):
                    row.update(_pairs(f"{item.name}_{key}", entry))
                elif not isinstance(entry, (Result, list, dict)):
                    row[f"{item.name}_{key}"] = entry
        elif value is None and _is_interval(type(result), item.name):
            row.update(_pairs(item.name, None))
        else:
            row[item.name] = value
    return row


def _row_in_order(result: Result, first: Sequence[str]) -> Dict[str, Any]:
    """:func:`_row` with the columns of ``first`` (those present, in that order) leading: a
    generated class's fields are sorted by name, and a table reads best in the order of the
    quantities it shows."""
    row = _row(result)
    leading = {name: row.pop(name) for name in first if name in row}
    return {**leading, **row}


def _is_interval(cls: type, name: str) -> bool:
    """Whether the field is an (optional) interval, so that an absent one still gets columns."""
    hint = _hints(cls)[name]
    if get_origin(hint) is Union:
        choices = [a for a in get_args(hint) if a is not type(None)]
    else:
        choices = [hint]
    return any(get_origin(c) is tuple for c in choices)


def _frame(rows: List[Dict[str, Any]], columns: Optional[List[str]] = None) -> Any:
    """A pandas DataFrame of ``rows`` (pandas is needed only here), with ``columns`` (in that
    order, and even when there are no rows) when given."""
    try:
        import pandas as pd  # type: ignore[import-untyped]
    except ImportError as error:  # pragma: no cover - pandas is a test dependency
        raise ImportError("to_frame() needs pandas: pip install pandas") from error
    return pd.DataFrame(rows, columns=columns)


# ---------------------------------------------------------------------------------------------
# The results, by analysis. Each class names the Rust struct it mirrors.
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class LawInfo(Result):
    """One catalog law as listed to users (`scalinglaws laws`, `scalinglaws.laws()`). Rust:
    ``scalinglaws::law::catalog::LawInfo``.
    """

    name: str
    """The name."""
    summary: str
    formula: str
    """The law's formula."""
    variables: List[str]
    parameters: List[str]
    default_space: str
    citation: str


CaveatKind = Literal[
    "at_bound",
    "ill_conditioned",
    "not_positive_definite",
    "interpolates",
    "not_converged",
    "rival_optimum",
]
"""What a fit's caveat is about."""


@dataclass(frozen=True, repr=False)
class FitCaveat(Result):
    """What predictions from a fit inherit from its diagnostics (``Fit.caveats``, and the
    ``fit_caveats`` of a :class:`Frontier` and of a :class:`DesignAnalysis`); each field other than
    ``kind`` belongs to one kind and is None for the others. Rust:
    ``scalinglaws::fit::FitCaveat``.
    """

    kind: CaveatKind
    """``at_bound`` (a parameter at a bound of its range), ``ill_conditioned`` (a combination
    of parameters barely determined), ``not_positive_definite`` or ``interpolates`` (no
    covariance: a flat direction, or as many parameters as rows), ``not_converged``,
    ``rival_optimum`` (another optimum within 0.1 % of the best)."""
    param: Optional[str] = None
    """``at_bound``: the parameter."""
    side: Optional[Literal["lower", "upper"]] = None
    """``at_bound``: which bound."""
    bound: Optional[float] = None
    """``at_bound``: the bound's value."""
    value: Optional[float] = None
    """``at_bound``: the parameter's value."""
    condition: Optional[float] = None
    """``ill_conditioned``: the condition number of the scaled Hessian."""
    params: Optional[int] = None
    """``interpolates``: the free parameters (as many as rows)."""
    termination: Optional[str] = None
    """``not_converged``: how the search ended."""
    relative_gap: Optional[float] = None
    """``rival_optimum``: its objective's gap to the best, relative."""


class FrontierFrame:
    """The DataFrame view of a frontier's allocations (:class:`Frontier`, generated in
    ``_workflows.py``, takes it)."""

    allocations: List[Any]

    # The allocation's quantities first (the generated class's fields are sorted by name).
    _COLUMNS = ("budget", "N", "D", "tokens_per_param", "loss", "total_params", "training_flops",
                "inference_flops")

    def to_frame(self) -> Any:
        """The allocations as a pandas DataFrame, one row each: ``budget``, ``N``, ``D``,
        ``tokens_per_param`` and ``loss`` first, intervals as ``_low``/``_high`` columns, ``ci``
        per quantity as ``ci_N_low``, ..."""
        return _frame([_row_in_order(a, self._COLUMNS) for a in self.allocations])


class PredictionsFrame:
    """The DataFrame view of a saved fit's predictions (:class:`Predictions`, generated in
    ``_workflows.py``, takes it)."""

    predictions: List[Any]
    variables: List[str]

    # After the variables (the generated class's fields are sorted by name).
    _COLUMNS = ("value", "ci_low", "ci_high", "pi_low", "pi_high", "pi_fit_low", "pi_fit_high",
                "calibrated", "distance_decades", "regime")

    def to_frame(self) -> Any:
        """The predictions as a pandas DataFrame, one row per point: the law's variables,
        ``value``, the intervals as ``_low``/``_high`` columns, then ``calibrated``, the
        distance in decades and the regime."""
        rows = [
            {
                **p.inputs,
                **{k: v for k, v in _row_in_order(p, self._COLUMNS).items()
                   if not k.startswith("inputs_")},
            }
            for p in self.predictions
        ]
        return _frame(rows, None if rows else [*self.variables, *self._COLUMNS])


class ScheduleFitFrame:
    """The DataFrame view of a schedule fit's per-run scores (:class:`ScheduleFit`, generated in
    ``_workflows.py``, takes it: a view its schema cannot give)."""

    runs: List[Any]

    def to_frame(self) -> Any:
        """The per-run scores as a pandas DataFrame."""
        return _frame([_row(r) for r in self.runs])


class CurveFrame:
    """The DataFrame view of a predicted curve (:class:`SchedulePrediction` and
    :class:`PredictedCurve`, generated in ``_workflows.py``, take it: a view their schemas
    cannot give)."""

    steps: List[int]
    lr: List[float]
    loss: List[float]

    def to_frame(self) -> Any:
        """The predicted curve as a pandas DataFrame: ``step``, ``lr``, ``loss``."""
        return _frame(
            [{"step": s, "lr": r, "loss": v} for s, r, v in zip(self.steps, self.lr, self.loss)]
        )


class SplitsFrame:
    """The DataFrame view of a backtest's held-out runs (:class:`Backtest`, generated in
    ``_workflows.py``, takes it: a view its schema cannot give)."""

    splits: List[Any]

    def to_frame(self) -> Any:
        """Every held-out run of every split as a pandas DataFrame (``split`` numbers the splits
        from 0; ``trained_up_to`` is the split's)."""
        return _frame(
            [
                _row(point, split=i, trained_up_to=split.trained_up_to)
                for i, split in enumerate(self.splits)
                for point in split.points
            ]
        )


class BudgetsFrame:
    """The DataFrame view of an IsoFLOP analysis's budgets (:class:`Isoflop`, generated in
    ``_workflows.py``, takes it: a view its schema cannot give)."""

    budgets: List[Any]

    def to_frame(self) -> Any:
        """The budgets' minima as a pandas DataFrame, one row per budget."""
        return _frame([_row(b) for b in self.budgets])


class EnvelopePointsFrame:
    """The DataFrame view of an envelope's points (:class:`Envelope`, generated in
    ``_workflows.py``, takes it: a view its schema cannot give)."""

    points: List[Any]

    def to_frame(self) -> Any:
        """The envelope's points as a pandas DataFrame."""
        return _frame([_row(p) for p in self.points])


class LawsFrame:
    """The DataFrame view of a comparison's laws (:class:`LawComparison`, generated in
    ``_workflows.py``, takes it: a view its schema cannot give)."""

    laws: List[Any]

    def to_frame(self) -> Any:
        """One row per law: its label, free parameters, objective, log-likelihood, AIC, BIC
        and, with a backtest, its mean absolute relative error."""
        rows = []
        for law in self.laws:
            row: Dict[str, Any] = {
                "label": law.label,
                "free_params": law.free_params,
                "objective": law.objective,
                "log_likelihood": law.log_likelihood,
                "aic": law.aic,
                "bic": law.bic,
                "converged": law.converged,
            }
            if law.backtest is not None:
                row["backtest_are_mean"] = law.backtest.are_mean
            rows.append(row)
        return _frame(rows)


class HeldOutBudgetsFrame:
    """The DataFrame view of an IsoFLOP backtest's held-out budgets (:class:`IsoflopBacktest`,
    generated in ``_workflows.py``, takes it: a view its schema cannot give)."""

    held_out: List[Any]

    def to_frame(self) -> Any:
        """The held-out budgets as a pandas DataFrame: predicted N*, D* and loss with their
        intervals beside the observed N*, D* and the errors."""
        rows = []
        for held in self.held_out:
            predicted = held.predicted
            row: Dict[str, Any] = {"budget": predicted.budget, "decades_out": predicted.decades_out}
            for name in ("N", "D", "loss"):
                quantity = getattr(predicted, name)
                row[name] = quantity.value
                row.update(_pairs(name, quantity.interval))
            rows.append(_row(held, **row))
        return _frame(rows)


class IsoflopGroupsFrame:
    """The DataFrame view of an IsoFLOP analysis's groups (:class:`IsoflopAnalysis`, generated
    in ``_workflows.py``, takes it: a view its schema cannot give)."""

    groups: List[Any]

    def to_frame(self) -> Any:
        """One row per group: its ``group=`` values, the approach, and the power laws N* ∝ C^a
        (``n_star_exponent``, ``n_star_coef``, ``n_star_r2``, ``n_star_ci_low``/``_high``) and
        D* ∝ C^b (``d_star_...``)."""
        rows = []
        for group in self.groups:
            row: Dict[str, Any] = dict(group.group)
            row["approach"] = group.approach
            fitted = group.training if group.approach == "backtest" else group
            for name in ("n_star", "d_star"):
                law = getattr(fitted, name)
                row[f"{name}_exponent"] = math.nan if law is None else law.exponent
                row[f"{name}_coef"] = math.nan if law is None else law.coef
                row[f"{name}_r2"] = math.nan if law is None else law.r2
                row.update(_pairs(f"{name}_ci", None if law is None else law.ci))
            rows.append(row)
        return _frame(rows)


class CellsFrame:
    """The DataFrame view of a result's cells (:class:`LrAnalysis`, generated in
    ``_workflows.py``, takes it: a view its schema cannot give)."""

    cells: List[Any]

    def to_frame(self) -> Any:
        """The cells as a pandas DataFrame, one row each."""
        return _frame([_row(c) for c in self.cells])


def _fit_json(fit: Union[Result, Mapping[str, Any]]) -> str:
    """A schedule fit's JSON: of the ScheduleFit that schedule_fit returned, or of its document."""
    if isinstance(fit, Result):
        return json.dumps(fit.to_dict())
    return json.dumps(fit)


class ScheduleComparisonFrame:
    """The DataFrame view of schedules compared (:class:`ScheduleComparison`, generated in
    ``_workflows.py``, takes it: a view its schema cannot give)."""

    schedules: List[Any]
    final_gap: List[float]

    def to_frame(self) -> Any:
        """One row per schedule: its spec, steps, peak and final learning rate, final loss and
        gap to the best."""
        return _frame(
            [
                {
                    "schedule": p.schedule,
                    "steps_total": p.steps_total,
                    "peak_lr": p.peak_lr,
                    "final_lr": p.final_lr,
                    "final_loss": p.final_loss,
                    "final_gap": gap,
                }
                for p, gap in zip(self.schedules, self.final_gap)
            ]
        )


class CooldownFrame:
    """The DataFrame view of a cooldown table (:class:`CooldownTable`, generated in
    ``_workflows.py``, takes it)."""

    rows: List[Any]

    def to_frame(self) -> Any:
        """The rows as a pandas DataFrame."""
        return _frame([r.to_dict() for r in self.rows])


class OptimizedScheduleFrame:
    """The DataFrame view of an optimised schedule (:class:`OptimizedSchedule`, generated in
    ``_workflows.py``, takes it: a view its schema cannot give)."""

    lr: Optional[List[float]]
    shape: List[Tuple[int, float]]

    def to_frame(self) -> Any:
        """The schedule as a pandas DataFrame of ``step``, ``lr``: every step when the whole
        schedule was asked for (``whole_schedule=True``), else the 41 samples of ``shape``."""
        if self.lr is not None:
            return _frame([{"step": i, "lr": v} for i, v in enumerate(self.lr)])
        return _frame([{"step": i, "lr": v} for i, v in self.shape])


class TracksFrame:
    """The DataFrame view of a recipe comparison (:class:`TrackComparison`, generated in
    ``_workflows.py``, takes it: a view its schema cannot give)."""

    pairs: List[Any]

    def to_frame(self) -> Any:
        """Each track against the baseline at each budget, as a pandas DataFrame: the losses, the
        gap, the compute multipliers (each with ``_low``/``_high``) and the odds of winning."""
        rows = []
        for pair in self.pairs:
            for at in pair.budgets:
                row: Dict[str, Any] = {"baseline": pair.baseline, "track": pair.track}
                for name in ("gap", "multiplier", "track_needs"):
                    estimate = getattr(at, name)
                    row[name] = math.nan if estimate.value is None else estimate.value
                    row.update(_pairs(name, estimate.ci))
                rows.append(_row(at, **row))
        return _frame(rows)


class CandidatesFrame:
    """The DataFrame view of a selection's candidates (:class:`Selection`, generated in
    ``_workflows.py``, takes it)."""

    candidates: List[Any]

    # The scores first, then the weights and calibration (the document's keys are sorted).
    _COLUMNS = ("label", "formula", "free_params", "score", "rmse", "are_mean", "gap_se",
                "log_likelihood", "bic", "tied_with_best", "score_se", "weight", "calibrated",
                "tau_per_decade", "calibration_reason")

    def to_frame(self) -> Any:
        """The candidates' scores as a pandas DataFrame, one row each: the label, formula and
        scores first, then the weight and calibration, ``params_NAME`` columns holding their
        fitted parameters, and ``error``."""
        return _frame([_row_in_order(c, self._COLUMNS) for c in self.candidates])


class SelectedPredictionsFrame:
    """The DataFrame view of a selection's predictions (:class:`SelectionResult`, generated
    in ``_workflows.py``, takes it)."""

    predictions: List[Any]

    def to_frame(self) -> Any:
        """The predictions as a pandas DataFrame: the point's variables, the stacked value and
        interval, the winner's value (``winner``, ``winner_value``) and each law's value (a
        column per label)."""
        rows = []
        for prediction in self.predictions:
            row: Dict[str, Any] = dict(prediction.inputs)
            row["value"] = prediction.value
            row.update(_pairs("pi", prediction.pi))
            row["between_sd"] = prediction.between_sd
            row["calibrated"] = prediction.calibrated
            row["winner"] = prediction.winner.label
            row["winner_value"] = prediction.winner.value
            row.update({law.label: law.value for law in prediction.laws})
            rows.append(row)
        return _frame(rows)


# ---------------------------------------------------------------------------------------------
# Downstream accuracy
# ---------------------------------------------------------------------------------------------

class ForecastsFrame:
    """The DataFrame view of a downstream analysis's forecasts (:class:`DownstreamAnalysis`,
    generated in ``_workflows.py``, takes it: a view its schema cannot give)."""

    forecasts: List[Any]

    def to_frame(self) -> Any:
        """One row per task and target: ``task``, ``shape``, ``model``, ``params``, ``tokens``,
        ``mode``, each method's forecast (``logistic``, ``two_stage``, ``pooled``) with its
        interval as ``_low``/``_high`` (NaN where the method could not be used), and
        ``observed`` (NaN outside a backtest)."""
        rows = []
        for f in self.forecasts:
            row: Dict[str, Any] = {
                "task": f.task,
                "shape": f.shape,
                "model": f.model,
                "params": f.params,
                "tokens": f.tokens,
                "mode": f.mode,
            }
            for name in ("logistic", "two_stage", "pooled"):
                forecast = getattr(f, name)
                row[name] = math.nan if forecast is None else forecast.value
                row.update(_pairs(name, None if forecast is None else forecast.interval))
            row["observed"] = math.nan if f.observed is None else f.observed
            rows.append(row)
        return _frame(rows)


# ---------------------------------------------------------------------------------------------
# Design: which runs to launch next
# ---------------------------------------------------------------------------------------------


class DesignFrame:
    """The DataFrame views of a design (:class:`DesignAnalysis`, generated in
    ``_workflows.py``, takes them)."""

    variables: List[str]
    runs: List[Any]
    targets: List[Any]

    def to_frame(self) -> Any:
        """The runs to launch, one row each in the order chosen (as ``scalinglaws design
        --csv``): a column per law variable in the law's order, ``cost``, and per goal
        ``width_after_<goal>``, its expected width once the run and the ones above it are
        added."""
        widths = [f"width_after_{t.target}" for t in self.targets]
        rows = []
        for run in self.runs:
            row: Dict[str, Any] = {v: run.point.get(v, math.nan) for v in self.variables}
            row["cost"] = run.cost
            row.update(zip(widths, run.widths_after))
            rows.append(row)
        return _frame(rows, columns=list(self.variables) + ["cost"] + widths)

    def targets_frame(self) -> Any:
        """One row per goal: ``target``, ``value``, and its widths ``width_fit`` (now, the fit's
        own), ``width_now`` (now, the information's), ``width_after`` (expected after the
        batch) and ``width_simulated`` (measured by the simulated refits); NaN where there is
        none."""
        return _frame(
            [
                {
                    "target": t.target,
                    "value": t.value,
                    "width_fit": math.nan if t.width_fit is None else t.width_fit,
                    "width_now": t.width_now,
                    "width_after": t.width_after,
                    "width_simulated": math.nan if t.width_simulated is None else t.width_simulated,
                }
                for t in self.targets
            ],
            columns=["target", "value", "width_fit", "width_now", "width_after", "width_simulated"],
        )


# ---------------------------------------------------------------------------------------------
# Grouped fits
# ---------------------------------------------------------------------------------------------

GroupStatus = Literal["fitted", "unconverged", "failed"]
"""Whether a group was fitted (``unconverged``: fitted, but the search did not converge; the
fit is kept and ``reason`` says how the search stopped)."""


@dataclass(frozen=True, repr=False)
class GroupFit(Result):
    """One group's fit, or why it has none (a line of ``scalinglaws fit --group --json``).
    Rust: ``scalinglaws::job::GroupFit``.
    """

    group: Dict[str, str]
    """The group's label in each grouping column."""
    rows: int
    """Rows of the group (after ``where=``)."""
    status: GroupStatus
    reason: Optional[str]
    """Why the group has no fit (too few rows, a search that failed); None when fitted."""
    fit: Optional[Fit]
    """The group's fit, as :func:`scalinglaws.fit` of the group's rows alone gives it (a
    :class:`Fit` read from JSON: it predicts and reports, but holds no data to plot)."""


GroupKey = Union[str, Tuple[str, ...]]
"""A group's key in :attr:`GroupFits.fits`: its label, or a tuple of its labels in the order
of ``group=`` when there are several grouping columns."""


class GroupFits:
    """What :func:`scalinglaws.fit_groups` returns: a :class:`GroupFit` per group, in label
    order (``len()``, iteration); :attr:`fits` by group key, :attr:`failed`, and
    :meth:`to_frame`, the table ``scalinglaws fit --group COLUMN`` writes."""

    def __init__(self, groups: Sequence[GroupFit], columns: Optional[Sequence[str]] = None) -> None:
        self.groups: List[GroupFit] = list(groups)
        """Every group's record, in label order."""
        if columns is None:
            columns = list(self.groups[0].group) if self.groups else []
        self.columns: List[str] = list(columns)
        """The grouping columns, in the order of ``group=`` (the order of a key's labels)."""

    @classmethod
    def from_dicts(
        cls, records: Sequence[Mapping[str, Any]], columns: Optional[Sequence[str]] = None
    ) -> "GroupFits":
        """The groups of a list of records (as ``json.loads`` reads each line of ``scalinglaws
        fit --group COLUMN --json``); ``columns`` orders the keys' labels (default: the
        order of the first record's)."""
        return cls([GroupFit.from_dict(record) for record in records], columns)

    @classmethod
    def _from_native(
        cls, records: List[Dict[str, Any]], fits: Sequence[Optional[str]], columns: Sequence[str]
    ) -> "GroupFits":
        """The groups of the compiled module's answer: the records without their fits, and
        each fit's text as ``scalinglaws fit --json`` writes it (read once, into its
        :class:`Fit`, whose document the record then shares; nothing changes either)."""
        groups = []
        for record, text in zip(records, fits):
            fit = None if text is None else Fit(text)
            if fit is not None:
                record["fit"] = fit._doc
            group = GroupFit(
                group=_build(Dict[str, str], record["group"], "GroupFit.group"),
                rows=_build(int, record["rows"], "GroupFit.rows"),
                status=record["status"],
                reason=record.get("reason"),
                fit=fit,
            )
            object.__setattr__(group, "_document", record)
            groups.append(group)
        return cls(groups, columns)

    def to_dicts(self) -> List[Dict[str, Any]]:
        """The records as plain dicts, each as a line of ``scalinglaws fit --group --json``."""
        return [group.to_dict() for group in self.groups]

    def key(self, group: GroupFit) -> GroupKey:
        """A group's key in :attr:`fits`: its label, or its labels in ``columns`` order."""
        labels = tuple(group.group.get(column, "") for column in self.columns)
        return labels[0] if len(labels) == 1 else labels

    @property
    def fits(self) -> Dict[GroupKey, Fit]:
        """The fitted groups' fits by key (a label, or a tuple of labels with several grouping
        columns), in label order."""
        return {self.key(g): g.fit for g in self.groups if g.fit is not None}

    @property
    def failed(self) -> List[GroupFit]:
        """The groups that could not be fitted, each with its ``reason``."""
        return [g for g in self.groups if g.status == "failed"]

    def to_frame(self) -> Any:
        """A pandas DataFrame with a row per group, its columns those of ``scalinglaws fit
        --group COLUMN`` (its ``--table``): the grouping columns, ``rows``, ``status``,
        ``objective``, ``converged``, each parameter and ``{p}_stderr`` (with ``{p}_low``,
        ``{p}_high``, the bootstrap interval, when a fit has one), and ``reason``; NaN where a
        group has no value, so that the frame equals ``pandas.read_csv`` of the table."""
        keys = list(self.columns)
        fitted = [g.fit for g in self.groups if g.fit is not None]
        params = list(fitted[0].params) if fitted else []
        bootstrapped = any(f._doc.get("bootstrap") is not None for f in fitted)
        columns = keys + ["rows", "status", "objective", "converged"]
        for p in params:
            columns += [p, f"{p}_stderr"] + ([f"{p}_low", f"{p}_high"] if bootstrapped else [])
        columns.append("reason")
        rows = []
        for group in self.groups:
            row: Dict[str, Any] = {k: group.group.get(k, "") for k in keys}
            row["rows"] = group.rows
            row["status"] = group.status
            fit = group.fit
            row["objective"] = math.nan if fit is None else fit.objective
            row["converged"] = math.nan if fit is None else fit.converged
            values = {} if fit is None else fit.params
            stderrs = {} if fit is None else fit.stderr
            intervals = {} if fit is None else fit.ci
            for p in params:
                row[p] = values.get(p, math.nan)
                stderr = stderrs.get(p)
                row[f"{p}_stderr"] = math.nan if stderr is None else stderr
                if bootstrapped:
                    low, high = intervals.get(p) or (math.nan, math.nan)
                    row[f"{p}_low"], row[f"{p}_high"] = low, high
            row["reason"] = math.nan if group.reason is None else group.reason
            rows.append(row)
        return _frame(rows, columns=columns)

    def __len__(self) -> int:
        return len(self.groups)

    def __iter__(self) -> Iterator[GroupFit]:
        return iter(self.groups)

    def __repr__(self) -> str:
        failed = len(self.failed)
        by = ", ".join(self.columns)
        fitted = len(self.groups) - failed
        return f"GroupFits({len(self.groups)} groups by {by}: {fitted} fitted, {failed} failed)"

