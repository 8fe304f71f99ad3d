"""scalinglaws: fit scaling laws with a global, deterministic, exact-gradient search, predict
with honest intervals, and decide how to spend compute.

>>> import scalinglaws as sl
>>> fit = sl.fit("examples/chinchilla/chinchilla_epoch.csv", law="chinchilla", target="loss",
...              map={"N": "Model Size", "C": "Training FLOP"}, derive={"D": "C/(6*N)"},
...              where="loss < 3.44")
>>> fit.params["alpha"]  # doctest: +SKIP

Every analysis returns a typed result (``sl.optimal`` a :class:`Frontier`, ``sl.lr`` an
:class:`LrAnalysis`, ...; see :mod:`scalinglaws._results` and :mod:`scalinglaws._workflows`): attributes named as the JSON names
them, ``to_dict()`` for the document itself, ``to_frame()`` for a pandas table, and
``print(result)`` for the text report the command prints for the same analysis (shown as that
text in a notebook; a result read back with ``from_dict`` has none and prints its ``repr``).
:mod:`scalinglaws.lab` runs the lab's simulators (``scalinglaws sim``), each returning its
dataset as a pandas DataFrame.
"""

from ._analyses import fit_groups, laws, plot_isoflop, plot_tracks
from ._errors import DataError, Error, FitCaveatWarning, FitError, FormulaError, SettingsError
from ._fit import Fit, Plot, Prediction, set_max_work
from ._results import (
    FitCaveat,
    GroupFit,
    GroupFits,
    LawInfo,
    Result,
)
from ._scalinglaws import __version__
from ._workflows import *  # noqa: F401,F403 - generated: every workflow and its results
from . import _workflows
from . import lab

__all__ = [
    "set_max_work",
    "DataError",
    "Error",
    "Fit",
    "FitCaveat",
    "FitCaveatWarning",
    "FitError",
    "FormulaError",
    "GroupFit",
    "GroupFits",
    "LawInfo",
    "Plot",
    "Prediction",
    "Result",
    "SettingsError",
    "__version__",
    "fit_groups",
    "lab",
    "laws",
    "plot_isoflop",
    "plot_tracks",
]
__all__ += _workflows.__all__
