"""The `Fit` that `scalinglaws.fit` (a workflow, generated in `_workflows.py`) returns: the
library's fit document with Python accessors, vectorised prediction with intervals, JSON
round trips, the text report and the HTML page, and inline display in a notebook (a table
and the data-and-curve plot; plots as `Plot`)."""

from __future__ import annotations

import html
import json
import math
import os
import warnings
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
    overload,
)

import numpy as np

from . import _scalinglaws
from ._errors import FitCaveatWarning, SettingsError, speak_python, speak_result
from ._keywords import checked

DEFAULT_LEVEL: float = _scalinglaws.DEFAULT_LEVEL
"""The level of every interval no ``level=`` sets (the library's one default)."""
DEFAULT_F_SCALE: float = _scalinglaws.DEFAULT_F_SCALE
"""The loss scale (Huber's delta) of every fit no ``f_scale=`` sets (the library's one default)."""

if TYPE_CHECKING:
    from ._results import FitCaveat

ArrayLike = Union[float, Sequence[float], np.ndarray]


class Prediction(NamedTuple):
    """Predicted values with the bounds of the asked-for interval (same shape)."""

    value: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


PathLike = Union[str, "os.PathLike[str]"]


class Plot:
    """A picture (of a fit, :func:`plot_tracks`'s recipes or :func:`plot_isoflop`'s profiles):
    shown inline by Jupyter (``_repr_svg_``), its SVG text in :attr:`svg`, written to a file by
    :meth:`save` (.svg, or .png drawn afresh)."""

    def __init__(self, svg: str, kind: str, redraw: Callable[[str], Any]) -> None:
        self.svg = svg
        self.kind = kind
        self._redraw = redraw

    def save(self, path: PathLike) -> str:
        """Writes the picture (SVG or PNG by the extension of ``path``); returns the path."""
        target = os.fspath(path)
        if target.lower().endswith(".svg"):
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(self.svg)
        else:
            self._redraw(target)
        return target

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"Plot({self.kind}: {len(self.svg)} characters of SVG; .save(path) writes it)"


class Fit:
    """A fitted law: parameters, uncertainty, diagnostics, and prediction.

    Built by :func:`scalinglaws.fit` or :meth:`Fit.load`; the document behind it is exactly the JSON that
    ``scalinglaws fit --json`` writes, so fits move freely between Python and the command line.
    ``print(fit)`` prints :meth:`report`; in a notebook a fit shows its parameter table and,
    when it holds its data (a fit made by :func:`fit`, not one loaded from JSON), the data
    with the fitted curves.
    """

    def __init__(self, document: str, data: Optional[str] = None) -> None:
        self._json = document
        self._doc: Dict[str, Any] = json.loads(document)
        # The fit's caveats as JSON values (read once, when first asked for).
        self._caveats: Optional[List[Dict[str, Any]]] = None
        # The data the fit was fitted to, as JSON (for plots of the data and the HTML page).
        self._data = data

    @classmethod
    def _from_native(cls, native: Tuple[str, str, Optional[str]]) -> "Fit":
        """The fit the compiled module's workflow ``fit`` returns: its document, its text
        report (worded afresh by :meth:`report`) and the data fitted."""
        document, _, data = native
        return cls(document, data)

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Fit":
        """A fit saved by :meth:`save` or by ``scalinglaws fit --json PATH``."""
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        return cls(_scalinglaws.check_fit(text))

    @classmethod
    def from_json(cls, text: str) -> "Fit":
        return cls(_scalinglaws.check_fit(text))

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the fit as JSON (whole, through a temporary file and a rename): the same
        bytes as ``scalinglaws fit --json PATH`` writes for the same fit."""
        target = os.fspath(path)
        temporary = f"{target}.tmp{os.getpid()}"
        # newline="": "\n" on every system, as the CLI writes it.
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(self._json if self._json.endswith("\n") else self._json + "\n")
        os.replace(temporary, target)

    def to_json(self) -> str:
        """The fit's JSON document, as ``scalinglaws fit --json`` writes it."""
        return self._json

    def to_dict(self) -> Dict[str, Any]:
        """A fresh copy of the fit's document as Python objects."""
        result: Dict[str, Any] = json.loads(self._json)
        return result

    @property
    def law(self) -> str:
        return str(self._doc["law"])

    @property
    def formula(self) -> str:
        return str(self._doc["formula"])

    @property
    def variables(self) -> List[str]:
        return [name for name, _ in _pairs(self._doc["variables"])]

    @property
    def params(self) -> Dict[str, float]:
        """Fitted parameter values by name, in the law's order."""
        return {name: float(p["value"]) for name, p in _pairs(self._doc["params"])}

    @property
    def stderr(self) -> Dict[str, Optional[float]]:
        """Standard errors (from the covariance; None where it is not available)."""
        return {name: p.get("stderr") for name, p in _pairs(self._doc["params"])}

    @property
    def ci(self) -> Dict[str, Optional[Tuple[float, float]]]:
        """Bootstrap percentile intervals of the parameters (None without a bootstrap)."""
        return {
            name: ((float(p["ci"][0]), float(p["ci"][1])) if p.get("ci") is not None else None)
            for name, p in _pairs(self._doc["params"])
        }

    @property
    def family(self) -> Optional[Dict[str, Any]]:
        """The likelihood family the fit maximised (name, space, the dispersion as [name,
        value], nu, how many nuisance values were fitted, the trials or exposure every row
        shared as ``size``, and a fitted dispersion's Cox-Reid adjusted value with its standard
        error as ``adjusted_dispersion``, which prediction intervals draw at); None for the
        robust loss."""
        family = self._doc.get("family")
        return None if family is None else dict(family)

    @property
    def objective(self) -> float:
        return float(self._doc["objective"])

    @property
    def converged(self) -> bool:
        return bool(self._doc["converged"])

    @property
    def n_obs(self) -> int:
        return int(self._doc["n_obs"])

    @property
    def warnings(self) -> List[str]:
        """The library's warnings, in Python's words (``grid=``, not ``--grid``)."""
        return [speak_result(w) for w in self._doc.get("warnings", [])]

    @property
    def caveats(self) -> List["FitCaveat"]:
        """What predictions from this fit inherit from its diagnostics, as values: a
        parameter at a bound, a barely determined combination, no covariance, no convergence,
        a rival optimum (the facts behind some of :attr:`warnings`). ``predict`` repeats them
        as a :class:`FitCaveatWarning`; empty for a fit without any."""
        from ._results import FitCaveat

        return [FitCaveat.from_dict(c) for c in self._caveat_documents()]

    def _caveat_documents(self) -> List[Dict[str, Any]]:
        if self._caveats is None:
            loaded: List[Dict[str, Any]] = json.loads(_scalinglaws.fit_caveats(self._json))
            self._caveats = loaded
            return loaded
        return self._caveats

    @property
    def stats(self) -> Dict[str, Any]:
        return dict(self._doc["stats"])

    @property
    def variance(self) -> Optional[Dict[str, Any]]:
        """The fitted residual scale sigma(x) = sigma0*(x/x0)^s of a ``heteroscedastic=``
        fit (keys ``sigma0``, ``s``, ``s_stderr``, ``x0``, ``lr_statistic``, ``lr_p_value``,
        ...), or None for one residual scale."""
        model = self._doc.get("variance")
        return None if model is None else dict(model)

    @property
    def sweep(self) -> Optional[Dict[str, Any]]:
        """The frontier of a ``sweep=`` fit (keys ``columns``, ``variables``, ``runs``,
        ``cells``: each cell's ``values``, ``rows``, ``best_row``, ``best``, ``frontier``,
        ``method``, ``reason``, ``optimum``; ``at_edge``, ``choice_sd``), or None."""
        frontier = self._doc.get("sweep")
        return None if frontier is None else dict(frontier)

    @checked
    def predict(
        self,
        interval: Optional[str] = None,
        level: float = DEFAULT_LEVEL,
        **variables: ArrayLike,
    ) -> Union[np.ndarray, Prediction]:
        """The law at the given values of its variables (scalars and arrays broadcast).

        ``interval="confidence"`` adds the interval of the mean prediction, ``"prediction"``
        that of a new run (with run-to-run noise): from the fit's bootstrap replicates when it
        has them, else the delta method, and beyond or below the data widened by the law's
        form error: the cross-study prior updated by the fit's rolling-origin backtests
        (``json["calibration"]``, when the fit has one). Returns an
        array, or a :class:`Prediction`. A fit with caveats (:attr:`caveats`: a parameter at a
        bound, ...) repeats each as a :class:`FitCaveatWarning`.
        """
        names = list(variables)
        given = [np.asarray(variables[n], dtype=float) for n in names]
        arrays = np.broadcast_arrays(*given)
        shape = arrays[0].shape if arrays else ()
        # Each variable's native float64 bytes in C order, one copy (one value for every point
        # stays one value): the library reads them in place and writes its results straight
        # into the bytes of the arrays returned, so no Python float is made per point.
        columns = {
            name: (raw if raw.size == 1 and math.prod(shape) >= 1 else a).tobytes()
            for name, raw, a in zip(names, given, arrays)
        }
        values, bounds = _scalinglaws.predict(self._json, columns, float(level), interval)
        warn_caveats(self._caveat_documents(), stacklevel=4)
        value = np.frombuffer(values, dtype=float).reshape(shape)
        if interval is None:
            return value
        assert bounds is not None  # the library refuses an interval the fit cannot give
        pairs = np.frombuffer(bounds, dtype=float).reshape(shape + (2,))
        return Prediction(value, pairs[..., 0], pairs[..., 1])

    @overload
    def plot(
        self,
        path: None = None,
        kind: str = "frontier",
        budgets: Optional[Tuple[float, float]] = None,
        flops: Optional[str] = None,
        x: Optional[str] = None,
    ) -> Plot: ...

    @overload
    def plot(
        self,
        path: PathLike,
        kind: str = "frontier",
        budgets: Optional[Tuple[float, float]] = None,
        flops: Optional[str] = None,
        x: Optional[str] = None,
    ) -> str: ...

    @checked
    def plot(
        self,
        path: Optional[PathLike] = None,
        kind: str = "frontier",
        budgets: Optional[Tuple[float, float]] = None,
        flops: Optional[str] = None,
        x: Optional[str] = None,
    ) -> Union[Plot, str]:
        """Draws the compute-optimal frontier (``kind="frontier"``, over ``budgets``, the
        smallest and the largest in FLOPs, under the FLOPs formula ``flops``; None: the
        library's defaults, as ``scalinglaws plot frontier --help`` shows them), the bootstrap
        distributions (``"bootstrap"``), the data against ``x`` with the fitted curves
        (``"fit"``) or the residuals (``"residuals"``; these two need the fit's data, so a fit
        made by :func:`scalinglaws.fit`). Without ``path``, returns a :class:`Plot` (shown inline in a
        notebook); with it, writes an .svg or .png file quietly and returns the path (the font
        is embedded: no system fonts needed)."""
        request: Dict[str, Any] = {"flops": flops, "x": x}
        if budgets is not None:
            request["from"], request["to"] = float(budgets[0]), float(budgets[1])
        text = dump({k: v for k, v in request.items() if v is not None})
        if path is None:
            svg = _scalinglaws.plot_svg(kind, self._json, text, self._data)
            fit_json, data = self._json, self._data
            return Plot(
                svg, kind, lambda target: _scalinglaws.plot_fit(kind, fit_json, target, text, data)
            )
        target = os.fspath(path)
        _scalinglaws.plot_fit(kind, self._json, target, text, self._data)
        return target

    def report(self) -> str:
        """The text report (as ``scalinglaws fit`` prints it, lmfit-style): what was fitted to
        what, the search, the parameters with their uncertainty, the intervals, correlations
        worth knowing and the warnings."""
        return speak_python(_scalinglaws.report(self._json))

    @checked
    def report_html(self, path: Optional[PathLike] = None, level: Optional[float] = None) -> str:
        """The self-contained HTML page of the fit (as ``scalinglaws report`` writes it:
        tables, inline SVG plots, a backtest; no scripts, no network). Needs the fit's data,
        so a fit made by :func:`fit`. Without ``path`` returns the page; with it, writes the
        page there and returns the path. ``level`` defaults to the fit's (0.95)."""
        if self._data is None:
            raise SettingsError(
                "the HTML page plots and backtests the data, which a fit read from JSON does "
                "not hold: refit with scalinglaws.fit(...)"
            )
        page = _scalinglaws.report_html(
            self._json, self._data, None if level is None else float(level), "scalinglaws.fit(...)"
        )
        if path is None:
            return page
        target = os.fspath(path)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(page)
        return target

    def __str__(self) -> str:
        return self.report()

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v:.6g}" for k, v in self.params.items())
        return f"Fit({self.law}: {params}; objective={self.objective:.6g})"

    def _repr_svg_(self) -> Optional[str]:
        """The data with the fitted curves (None, so not shown, for a fit without its data)."""
        if self._data is None:
            return None
        try:
            svg: str = _scalinglaws.plot_svg("fit", self._json, "{}", self._data)
        except Exception:  # a plot is a nicety: the table stands without it
            return None
        return svg

    def _repr_html_(self) -> str:
        rows = []
        for name, p in _pairs(self._doc["params"]):
            ci = p.get("ci")
            stderr = p.get("stderr")
            rows.append(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
                    html.escape(name),
                    f"{p['value']:.6g}",
                    "" if stderr is None else f"{stderr:.3g}",
                    "" if ci is None else f"[{ci[0]:.4g}, {ci[1]:.4g}]",
                )
            )
        warnings = "".join(f"<li>{html.escape(w)}</li>" for w in self.warnings)
        return (
            f"<div><b>{html.escape(self.law)}</b>: <code>{html.escape(self.formula)}</code><br>"
            f"{self.n_obs} rows, objective {self.objective:.10g}"
            f"{'' if self.converged else ' (not converged)'}"
            "<table><thead><tr><th>parameter</th><th>value</th><th>stderr</th><th>CI</th>"
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"{'<ul>' + warnings + '</ul>' if warnings else ''}"
            f"{self._repr_svg_() or ''}</div>"
        )


@checked
def set_max_work(seconds: Optional[float] = None) -> None:
    """Sets the work budget of every later call in this process, in estimated core-seconds
    (the library refuses, before it starts, work estimated above it); None restores the
    default."""
    _scalinglaws.set_max_work(seconds)


def dump(request: Mapping[str, Any]) -> str:
    """The request as JSON for the compiled module; a NaN or infinite setting is refused here
    (JSON has no such numbers), but for a bound at -inf or inf, which is no bound on that side
    (None), as every function with ``bounds=`` reads it."""
    if isinstance(request.get("bounds"), Mapping):
        request = {**request, "bounds": _bounds(request["bounds"])}
    try:
        return json.dumps(request, allow_nan=False, default=_as_list)
    except ValueError:
        bad = [f"{k}=" for k, v in request.items() if not _finite_tree(v)]
        raise SettingsError(
            f"{', '.join(bad) or 'a setting'}: give finite numbers (no NaN or infinity)"
        ) from None


def _as_list(value: Any) -> Any:
    """A numpy array (or pandas Series), which the keyword checks pass as it is, as the list it
    holds."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _finite_tree(value: Any) -> bool:
    if hasattr(value, "tolist") and not isinstance(value, (float, int)):
        value = value.tolist()
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, Mapping):
        return all(_finite_tree(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_finite_tree(v) for v in value)
    return True


def _pairs(value: Any) -> List[Tuple[str, Any]]:
    """The library writes ordered maps as JSON objects; json.loads keeps their order."""
    if isinstance(value, Mapping):
        return list(value.items())
    return [(str(k), v) for k, v in value]


def _bounds(bounds: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for name, pair in (bounds or {}).items():
        lower, upper = pair
        out[name] = [
            None if lower is None or lower == -math.inf else float(lower),
            None if upper is None or upper == math.inf else float(upper),
        ]
    return out


def warn_caveats(caveats: Sequence[Mapping[str, Any]], stacklevel: int = 4) -> None:
    """One :class:`FitCaveatWarning` per caveat of a fit (a result's ``fit_caveats``), in the
    words of the command line's ``warning:`` lines; nothing without one. ``stacklevel`` points
    the warning at the caller's line (4: called from a public function, past its ``@checked``
    wrapper)."""
    if caveats:
        for line in _scalinglaws.caveat_lines(json.dumps(list(caveats))):
            warnings.warn(line, FitCaveatWarning, stacklevel=stacklevel)


def warn_threads(threads: Optional[int], stacklevel: int = 4) -> None:
    """A RuntimeWarning, in the command line's words, when ``threads`` is above the library's
    cap (a few per core): the run uses the cap, and the result does not depend on the count.
    ``stacklevel`` points the warning at the caller's line (4: called from a public function,
    past its ``@checked`` wrapper)."""
    if isinstance(threads, int) and not isinstance(threads, bool) and threads > 0:
        message = _scalinglaws.threads_warning(threads)
        if message is not None:
            warnings.warn(message, RuntimeWarning, stacklevel=stacklevel)
