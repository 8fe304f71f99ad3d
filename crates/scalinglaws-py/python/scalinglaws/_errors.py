"""The exceptions of scalinglaws: every error of the library arrives as one of these, with the
library's message (which names the file or DataFrame, row, column or formula position, and
the fix), worded for Python (keywords, not the command line's options) by `speak_python`."""

import re


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


class FitCaveatWarning(UserWarning):
    """A caveat of a fit (a parameter at a bound, a barely determined combination, no
    covariance, no convergence, a rival optimum), repeated where its predictions are used:
    ``Fit.predict``, :func:`scalinglaws.optimal` and :func:`scalinglaws.design`. The result's
    ``fit_caveats`` (and ``Fit.caveats``) hold the same facts as values."""


# The keywords of the Python functions that differ from the command line's option names.
_KEYWORDS = {"bound": "bounds", "target-loss": "target_loss"}

# "--fix NAME=VALUE", "--set U=1,8,64": a mapping keyword with a name and its value(s).
_MAPPING = re.compile(r"--(fix|set|map|derive) ([A-Za-z_][A-Za-z0-9_]*)=([^\s,;)]+(?:,[^\s,;)]+)*)")
# "--space linear", "--run COLUMN": a keyword with a text value.
_TEXT = re.compile(r"--(space|run) ([A-Za-z_]+)\b")
# "--holdout-top 3": a keyword with a number.
_NUMBER = re.compile(r"--([a-z][a-z-]*) ([-+]?[0-9][0-9.eE+-]*)")
# "--bound alpha: ...", "--grid b: ...": the entry of a mapping keyword.
_ENTRY = re.compile(r"--(bound|grid|set|shared|profile|fix) ([A-Za-z_][A-Za-z0-9_]*):")
# "--fix names 'x'": the keyword as a subject.
_SUBJECT = re.compile(r"--([a-z][a-z-]*)(?= names )")
# Options that are no keyword: the document `--json` writes is the result's `to_dict()`, and
# `--no-calibration` is `calibrate=False`.
_FLAG = re.compile(r"(?<![\w-])--(json|no-calibration)(?![\w-])")
_FLAGS = {"json": "to_dict()", "no-calibration": "calibrate=False"}
# Any other option: "--where" becomes "where=".
_OPTION = re.compile(r"(?<![\w-])--([a-z][a-z-]*)")


def _keyword(option: str) -> str:
    return _KEYWORDS.get(option, option.replace("-", "_"))


def _mapping(match: "re.Match[str]") -> str:
    keyword, name, value = match.group(1), match.group(2), match.group(3)
    if keyword in ("map", "derive") or not re.fullmatch(r"[-+0-9.eE,A-Z]+", value):
        value = f'"{value}"'
    elif "," in value:
        value = "[" + ", ".join(value.split(",")) + "]"
    return f'{_keyword(keyword)}={{"{name}": {value}}}'


# The library's own words, as a saved result holds them (the same from every front end):
# `fix["NAME"]=VALUE` (an entry with its value), `where` (a setting), "the `fit` workflow".
_NEUTRAL_ENTRY = re.compile(r'\b([a-z][a-z_]*)\["([^"]+)"\]=("[^"]*"|[^\s,;)]+)')
_NEUTRAL_MAX_WORK = re.compile(r"`max_work`|\bmax_work=([^\s,;)]+)")
_NEUTRAL_NAME = re.compile(r"`([a-z][a-z_]*)`(?! workflow)")
_NEUTRAL_WRITER = re.compile(r"the `([a-z][a-z_]*)` workflow")


def _speak_neutral(message: str) -> str:
    """The library's neutral words for settings in Python's (``fix={"NAME": VALUE}``,
    ``where=``, ``scalinglaws.laws()``)."""
    message = _NEUTRAL_ENTRY.sub(lambda m: f'{m.group(1)}={{"{m.group(2)}": {m.group(3)}}}', message)
    message = _NEUTRAL_MAX_WORK.sub(
        lambda m: f"scalinglaws.set_max_work({m.group(1) or ''})", message
    )
    message = _NEUTRAL_WRITER.sub(lambda m: f"`scalinglaws.{m.group(1)}()`", message)
    message = _NEUTRAL_NAME.sub(lambda m: f"{m.group(1)}=", message)
    return message.replace("the catalog of laws", "scalinglaws.laws()")


def speak_result(message: str) -> str:
    """A message a saved result holds (a warning, a failed split's error) in Python's words:
    the library's neutral words (`` `where` ``, ``fix["NAME"]=VALUE``) and the command line's
    options (from files older than that rule) become keywords."""
    return speak_python(_speak_neutral(message))


def speak_python(message: str) -> str:
    """A library message in the words of the Python API: the command line's options
    (``--where``, ``--fix NAME=VALUE``, ``--space linear``) become the keywords of the
    functions (``where=``, ``fix={"NAME": VALUE}``, ``space="linear"``)."""
    message = _FLAG.sub(lambda m: _FLAGS[m.group(1)], message)
    message = _MAPPING.sub(_mapping, message)
    message = _TEXT.sub(lambda m: f'{_keyword(m.group(1))}="{m.group(2)}"', message)
    message = _NUMBER.sub(lambda m: f"{_keyword(m.group(1))}={m.group(2)}", message)
    message = _ENTRY.sub(lambda m: f'{_keyword(m.group(1))}["{m.group(2)}"]:', message)
    message = _SUBJECT.sub(lambda m: _keyword(m.group(1)), message)
    return _OPTION.sub(lambda m: f"{_keyword(m.group(1))}=", message)
