"""The exceptions of scalinglaws: every error of the library arrives as one of these, with the
library's message (which names the file or DataFrame, row, column or formula position, and
the fix)."""


class Error(Exception):
    """Base class of every scalinglaws error."""


class DataError(Error, ValueError):
    """Bad data: a missing column, a non-numeric or NaN cell, a non-positive value under a log,
    too few rows, an unreadable file."""


class FormulaError(Error, ValueError):
    """A formula or expression that does not parse, or uses an unknown name or function."""


class SettingsError(Error, ValueError):
    """Settings that contradict the law, the data or each other (an unknown law or parameter,
    an empty bound, a missing option)."""


class FitError(Error, RuntimeError):
    """A fit that could not be done (no start gave a finite objective, every start diverged)."""
