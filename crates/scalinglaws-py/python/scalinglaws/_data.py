"""Turns what a user holds (a pandas or polars DataFrame, a dict of arrays, or a file path)
into named columns of numbers or text for the compiled library, and words the library's data
errors in the user's terms: a row of a DataFrame by its index label, of a dict by its
0-based position."""

from __future__ import annotations

import math
import numbers
import os
import re
from typing import Any, Callable, Dict, List, Mapping, Optional, TypeVar, Union

import numpy as np

from ._errors import DataError, Error, SettingsError

DataLike = Union[str, "os.PathLike[str]", Mapping[str, Any], Any]

T = TypeVar("T")

# How the library names a row of data handed over as columns: "the DataFrame, row 3" (1-based).
_ROW = re.compile(r"\b(the DataFrame|the dict), row (\d+)")


def call_with_data(
    native: Callable[..., T], data: DataLike, delimiter: Optional[str], *args: Any
) -> T:
    """``native(to_data(data, delimiter), *args)``, its errors naming the rows of ``data``
    as the user indexes them (see :func:`name_rows`)."""
    handed = to_data(data, delimiter)
    try:
        return native(handed, *args)
    except Error as error:
        message = name_rows(str(error), data)
        if message == str(error):
            raise
        raise type(error)(message) from None


def name_rows(message: str, data: DataLike) -> str:
    """A library message with each "the DataFrame, row N" (1-based, in the order of the
    frame) as the frame's index label ("the DataFrame, index label 30, position 2" when the
    label is not the 0-based position), and "the dict, row N" as its 0-based index."""
    index = getattr(data, "index", None) if not isinstance(data, Mapping) else None
    labels: Optional[List[Any]] = None
    if index is not None and hasattr(index, "tolist"):
        try:
            labels = list(index.tolist())
        except TypeError:
            labels = None

    def row(match: "re.Match[str]") -> str:
        source, position = match.group(1), int(match.group(2)) - 1
        if labels is not None and 0 <= position < len(labels):
            label = labels[position]
            shown = repr(label) if isinstance(label, str) else str(label)
            if isinstance(label, (int, np.integer)) and int(label) == position:
                return f"{source}, index label {shown}"
            return f"{source}, index label {shown} (position {position})"
        return f"{source}, index {position}"

    return _ROW.sub(row, message)


def to_data(data: DataLike, delimiter: Optional[str] = None) -> Dict[str, Any]:
    """The data as the compiled module takes it: {source, names, numeric, text, path,
    delimiter}."""
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        return _handover(path, [], {}, {}, path=path, delimiter=delimiter)
    if delimiter is not None:
        raise SettingsError("delimiter=: applies only when data is a file path; drop it")
    if isinstance(data, Mapping):
        items = [(str(name), values) for name, values in data.items()]
        source = "the dict"
    elif hasattr(data, "columns") and hasattr(data, "__getitem__"):
        items = [(str(name), data[name]) for name in data.columns]
        source = "the DataFrame"
    else:
        raise DataError(
            "data: give a pandas or polars DataFrame, a dict of arrays, or a file path; "
            f"not {type(data).__name__}"
        )
    names: List[str] = []
    numeric: Dict[str, List[float]] = {}
    text: Dict[str, List[str]] = {}
    for name, values in items:
        if name in numeric or name in text:
            raise DataError(f"column '{name}' appears twice")
        names.append(name)
        as_numbers = _numbers(values, f"{source}, column '{name}'")
        if as_numbers is not None:
            numeric[name] = as_numbers
        else:
            text[name] = _labels(values)
    return _handover(source, names, numeric, text)


def _handover(
    source: str,
    names: List[str],
    numeric: Dict[str, List[float]],
    text: Dict[str, List[str]],
    path: Optional[str] = None,
    delimiter: Optional[str] = None,
) -> Dict[str, Any]:
    return {
        "source": source,
        "names": names,
        "numeric": numeric,
        "text": text,
        "path": path,
        "delimiter": delimiter,
    }


def _array(values: Any) -> np.ndarray:
    if hasattr(values, "to_numpy"):
        try:
            return np.asarray(values.to_numpy())
        except TypeError:
            pass
    return np.asarray(values)


def _numbers(values: Any, where: str) -> Optional[List[float]]:
    """Floats (missing values as NaN, which the library then reports by row), or None for a
    column of text; DataError (naming the column, ``where``) for dates or durations (whose
    numbers would be nanoseconds) and for a column that is not one-dimensional."""
    dtype = getattr(values, "dtype", None)
    if getattr(dtype, "kind", None) in ("m", "M"):
        raise DataError(
            f"{where}: dates and durations are not numbers; convert the column to the number "
            "the law means (e.g. days, or steps)"
        )
    # pandas nullable numbers (Int64, Float64) with pd.NA.
    if dtype is not None and hasattr(values, "to_numpy"):
        try:
            import pandas as pd  # type: ignore[import-untyped]

            if isinstance(values, pd.Series) and pd.api.types.is_numeric_dtype(dtype):
                if pd.api.types.is_bool_dtype(dtype):
                    as_bool: List[float] = values.to_numpy(dtype=float, na_value=np.nan).tolist()
                    return as_bool
                with_nan: List[float] = values.to_numpy(dtype=float, na_value=np.nan).tolist()
                return with_nan
        except ImportError:
            pass
    array = _array(values)
    if array.ndim != 1:
        raise DataError(
            f"{where}: give one value per row (a one-dimensional column), not shape {array.shape}"
        )
    if array.dtype.kind in "mM":
        return _numbers(array, where)
    if array.dtype.kind in "biuf":
        floats: List[float] = array.astype(float).tolist()
        return floats
    if array.dtype.kind == "O":
        cells = array.tolist()
        if all(c is None or (isinstance(c, numbers.Real) and not isinstance(c, bool)) for c in cells):
            if any(c is not None for c in cells):
                return [math.nan if c is None else float(c) for c in cells]
    return None


def _labels(values: Any) -> List[str]:
    def label(cell: Any) -> str:
        if cell is None or (isinstance(cell, float) and math.isnan(cell)):
            return ""
        if type(cell).__name__ == "NAType":  # pandas.NA
            return ""
        return str(cell)

    return [label(cell) for cell in _array(values).tolist()]
