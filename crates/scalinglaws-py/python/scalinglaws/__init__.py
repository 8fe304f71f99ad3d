"""scalinglaws: fit scaling laws with a global, deterministic, exact-gradient search, predict
with honest intervals, and decide how to spend compute.

>>> import scalinglaws as sl
>>> fit = sl.fit("examples/chinchilla/chinchilla_epoch.csv", law="chinchilla", target="loss",
...              map={"N": "Model Size", "C": "Training FLOP"}, derive={"D": "C/(6*N)"},
...              where="loss < 3.44")
>>> fit.params["alpha"]  # doctest: +SKIP
"""

from ._analyses import (
    backtest,
    compare,
    isoflop,
    laws,
    lr,
    optimal,
    schedule_fit,
    schedule_optimize,
    schedule_predict,
    select,
)
from ._errors import DataError, Error, FitError, FormulaError, SettingsError
from ._fit import Fit, Plot, Prediction, fit
from ._scalinglaws import __version__

__all__ = [
    "DataError",
    "Error",
    "Fit",
    "FitError",
    "FormulaError",
    "Plot",
    "Prediction",
    "SettingsError",
    "__version__",
    "backtest",
    "compare",
    "fit",
    "isoflop",
    "laws",
    "lr",
    "optimal",
    "schedule_fit",
    "schedule_optimize",
    "schedule_predict",
    "select",
]
