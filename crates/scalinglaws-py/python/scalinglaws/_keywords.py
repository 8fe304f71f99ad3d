"""Every keyword of the public functions checked against its annotation before the call does
anything: the one place where a value of the wrong type or shape (text where a number goes,
a string where a list or a dict goes, a fraction or a bool where a whole number goes, a
non-bool switch, an unknown keyword) becomes :class:`SettingsError` naming the keyword and
what to pass instead, instead of a builtin TypeError or ValueError from deep inside, or a
wrong meaning taken in silence (``shared="E,alpha"`` read as five names, ``calibrate="no"``
read as True). The signature is the rule: ``@checked`` reads it, so a keyword is checked as
it is documented. Accepted values come back plain (numpy numbers as Python numbers, sequences
as lists, mappings as dicts; numpy arrays as they are), so the request's JSON can hold them.
Ranges (a count ≥ 0, a level in (0, 1)) are not checked here but by the library."""

from __future__ import annotations

import collections.abc
import difflib
import functools
import inspect
import numbers
import os
import typing
from typing import (
    Annotated,
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    cast,
)

import numpy as np

from ._data import to_data
from ._errors import SettingsError

F = TypeVar("F", bound=Callable[..., Any])

_NONE = type(None)
# What a value of a plain type is called in a message: (one, many).
_WORDS: Dict[Any, Tuple[str, str]] = {
    str: ("a string", "strings"),
    bool: ("True or False", "True or False values"),
    int: ("a whole number", "whole numbers"),
    float: ("a number", "numbers"),
    _NONE: ("None", "None"),
}


class _NonNegative:
    """The mark of a whole number that cannot be negative (a count: Rust's ``usize``)."""


Count = Annotated[int, _NonNegative()]
"""A whole number ≥ 0: the annotation the generated functions give a Rust ``usize`` (its
type, which the library's JSON cannot carry below 0, not a range)."""


class _AsRows:
    """The mark of a list of runs that a DataFrame may also give, as its rows."""


Rows = Annotated[Sequence[Mapping[str, float]], _AsRows()]
"""Runs, each a dict of numbers by name, or a pandas or polars DataFrame whose numeric columns
give them row by row (its text columns, such as a run's name, are left out): the annotation of
a workflow's setting that lists runs (``design``'s ``candidates``)."""


class _Refused(Exception):
    """A value (``part`` of the keyword's, at ``path``) that its annotation ``hint`` refuses."""

    def __init__(self, path: str, part: Any, hint: Any) -> None:
        super().__init__(path)
        self.path, self.part, self.hint = path, part, hint


def checked(function: F) -> F:
    """``function`` with every argument checked (and made plain) by its annotation first; a
    refused one, an unknown keyword or a missing one raises :class:`SettingsError`."""
    signature = inspect.signature(function)
    hints: Dict[str, Any] = {}

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not hints:
            hints.update(_hints(function, signature))
        bound = _bind(function.__name__, signature, args, kwargs)
        for name, value in list(bound.arguments.items()):
            kind = signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                bound.arguments[name] = {k: check(k, v, hints[name]) for k, v in value.items()}
            elif kind is not inspect.Parameter.VAR_POSITIONAL:
                bound.arguments[name] = check(name, value, hints[name])
        return function(*bound.args, **bound.kwargs)

    return cast(F, call)


def check_keywords(function: Callable[..., Any], keywords: Dict[str, Any]) -> Dict[str, Any]:
    """``keywords`` of a call of ``function`` (``@checked`` or not) checked and made plain as
    the call would check them, without the call: for a caller that hands them on to run
    elsewhere (a Ray task) or takes another function's keywords (``fit_groups`` takes
    ``fit``'s), so that a bad one, or a required keyword-only one left out, is refused where
    the user called."""
    inner = getattr(function, "__wrapped__", function)
    signature = inspect.signature(inner)
    hints = _hints(inner, signature)
    for keyword in keywords:
        if keyword not in signature.parameters:
            _unknown(inner.__name__, signature, keyword)
    for name, parameter in signature.parameters.items():
        required = parameter.kind is inspect.Parameter.KEYWORD_ONLY
        if required and parameter.default is inspect.Parameter.empty and name not in keywords:
            raise SettingsError(f"{name}=: {inner.__name__}() needs it")
    return {name: check(name, value, hints[name]) for name, value in keywords.items()}


def check(keyword: str, value: Any, hint: Any) -> Any:
    """``value`` of the keyword ``keyword`` made plain if ``hint`` (a type annotation) admits
    it, else SettingsError naming the keyword, what it takes and the part refused."""
    try:
        return _plain(hint, value, keyword)
    except _Refused as refused:
        expected = describe(hint)
        if refused.path == keyword:
            raise SettingsError(f"{keyword}=: give {expected}, not {value!r}") from None
        raise SettingsError(
            f"{keyword}=: give {expected}; {refused.path} is {refused.part!r}, not "
            f"{describe(refused.hint)}"
        ) from None


def describe(hint: Any, many: bool = False) -> str:
    """What ``hint`` admits, in words: ``a list of strings``, ``a number or None``."""
    if hint in _WORDS:
        return _WORDS[hint][many]
    if not _known(hint):
        return "any values" if many else "any value"
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        mark = " ≥ 0" if _counts(hint) else ""
        if _marked(hint, _AsRows):
            mark = " or DataFrames" if many else " or a DataFrame"
        return describe(args[0], many) + mark
    if origin is typing.Union:
        words = [describe(a, many) for a in args if a is not _NONE and _known(a)]
        return " or ".join(words + (["None"] if _NONE in args else []))
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in args)
    if origin is tuple and args and args[-1] is not Ellipsis:
        inner = ", ".join(describe(a) for a in args)
        name = "pair" if len(args) == 2 else f"tuple of {len(args)}"
        return f"{name}s ({inner})" if many else f"a {name} ({inner})"
    if _is_mapping(origin) and len(args) == 2:
        keys, values = describe(args[0], True), describe(args[1], True)
        return f"dicts of {keys} to {values}" if many else f"a dict of {keys} to {values}"
    if _is_sequence(origin) or origin is tuple:
        inner = describe(args[0], True) if args else "values"
        return f"lists of {inner}" if many else f"a list of {inner}"
    origin = origin or hint
    name = getattr(origin, "__qualname__", str(hint))
    return f"{name} objects" if many else f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _plain(hint: Any, value: Any, path: str) -> Any:
    """``value`` made plain if ``hint`` admits it, else _Refused naming the part (``path``)."""
    if not _known(hint):
        return value
    if hint in _WORDS:
        return _scalar(hint, value, path)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        if _marked(hint, _AsRows):
            value = _frame_rows(value) if _is_frame(value) else _without_text(value)
        plain = _plain(args[0], value, path)
        if _counts(hint) and plain < 0:
            raise _Refused(path, value, hint)
        return plain
    if origin is typing.Union:
        return _union(hint, args, value, path)
    if origin is typing.Literal:
        if value in args:
            return value
        raise _Refused(path, value, hint)
    if origin is tuple and args and args[-1] is not Ellipsis:
        items = _items(value, path, hint)
        if len(items) != len(args):
            raise _Refused(path, value, hint)
        return tuple(_plain(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, items)))
    if _is_mapping(origin):
        if not isinstance(value, collections.abc.Mapping):
            raise _Refused(path, value, hint)
        keys, values = args if len(args) == 2 else (Any, Any)
        return {
            _plain(keys, k, f"{path} key {k!r}"): _plain(values, v, f"{path}[{k!r}]")
            for k, v in value.items()
        }
    if _is_sequence(origin) or origin is tuple:
        return _sequence(hint, args[0] if args else Any, value, path)
    cls = hint if origin is None else origin
    if isinstance(cls, type):
        if isinstance(value, cls):
            return value
        raise _Refused(path, value, hint)
    return value


def _scalar(hint: Any, value: Any, path: str) -> Any:
    """A str, bool, whole number, number or None as Python's own (numpy's as Python's)."""
    if hint is _NONE and value is None:
        return None
    if hint is str and isinstance(value, str):
        return str(value)
    is_bool = isinstance(value, (bool, np.bool_))
    if hint is bool and is_bool:
        return bool(value)
    if hint is int and isinstance(value, numbers.Integral) and not is_bool:
        return int(value)
    if hint is float and isinstance(value, numbers.Real) and not is_bool:
        return value if isinstance(value, (int, float)) else float(value)
    raise _Refused(path, value, hint)


def _union(hint: Any, args: Tuple[Any, ...], value: Any, path: str) -> Any:
    """The first member of a Union that admits ``value``; refused, the deepest refusal (the
    part of a container member that is wrong), else the whole value."""
    deepest: Optional[_Refused] = None
    for member in args:
        try:
            return _plain(member, value, path)
        except _Refused as refused:
            if refused.path != path and (deepest is None or len(refused.path) > len(deepest.path)):
                deepest = refused
    raise deepest or _Refused(path, value, hint)


def _sequence(hint: Any, item: Any, value: Any, path: str) -> Any:
    """A list of items each admitted by ``item``; a numpy array (or pandas Series) of a
    matching dtype as it is, without a look at each element."""
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if isinstance(kind, str) and getattr(value, "ndim", 1) == 1 and kind in _KINDS.get(item, ""):
        return value
    items = _items(value, path, hint)
    return [_plain(item, v, f"{path}[{i}]") for i, v in enumerate(items)]


# The numpy dtype kinds whose arrays hold values of a plain type.
_KINDS: Dict[Any, str] = {float: "iuf", int: "iu", str: "U"}


def _items(value: Any, path: str, hint: Any) -> List[Any]:
    """The items of a list-like value (a list, tuple, range, set, numpy array, Series); text,
    bytes, a dict or a scalar refused."""
    if isinstance(value, (str, bytes, bytearray, collections.abc.Mapping)):
        raise _Refused(path, value, hint)
    if not isinstance(value, collections.abc.Collection):
        raise _Refused(path, value, hint)
    try:
        return list(value)
    except TypeError:  # a 0-d numpy array
        raise _Refused(path, value, hint) from None


def _counts(hint: Any) -> bool:
    """Whether an ``Annotated`` hint is marked a count (:data:`Count`)."""
    return _marked(hint, _NonNegative)


def _marked(hint: Any, mark: type) -> bool:
    """Whether an ``Annotated`` hint carries a ``mark``."""
    return any(isinstance(m, mark) for m in getattr(hint, "__metadata__", ()))


def _without_text(value: Any) -> Any:
    """Runs given as dicts, each without its text values (a run's name), as a DataFrame's text
    columns are left out; a number written as text is kept, for the annotation to refuse by
    name; anything else as it is."""
    if isinstance(value, (str, bytes)) or not isinstance(value, collections.abc.Sequence):
        return value
    return [
        {k: v for k, v in run.items() if not (isinstance(v, str) and not _number_like(v))}
        if isinstance(run, collections.abc.Mapping)
        else run
        for run in value
    ]


def _number_like(text: str) -> bool:
    """Whether ``text`` reads as a number (``"1e9"``): a value meant as one, not a name."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_frame(value: Any) -> bool:
    """Whether ``value`` is a DataFrame (columns by name), not a dict or a list."""
    return hasattr(value, "columns") and not isinstance(value, collections.abc.Mapping)


def _frame_rows(frame: Any) -> List[Dict[str, float]]:
    """A DataFrame's numeric columns as one dict per row (a missing value is NaN, which the
    request refuses: JSON has no NaN)."""
    columns = to_data(frame)["numeric"]
    n_rows = len(next(iter(columns.values()), []))
    return [{name: values[i] for name, values in columns.items()} for i in range(n_rows)]


def _known(hint: Any) -> bool:
    """Whether ``hint`` says something checkable (not Any, a TypeVar or an unresolved name)."""
    return hint is not Any and not isinstance(hint, (TypeVar, typing.ForwardRef, str))


def _is_mapping(origin: Any) -> bool:
    return origin in (dict, collections.abc.Mapping, collections.abc.MutableMapping)


def _is_sequence(origin: Any) -> bool:
    return origin in (list, collections.abc.Sequence, collections.abc.Collection, set, frozenset)


def _hints(function: Callable[..., Any], signature: inspect.Signature) -> Dict[str, Any]:
    """Each parameter's annotation resolved in ``function``'s module (Any where it cannot
    be: a name only imported for type checking)."""
    namespace = {**getattr(function, "__globals__", {}), "os": os}
    try:
        resolved = typing.get_type_hints(function, globalns=namespace, include_extras=True)
    except Exception:  # noqa: BLE001 - then one by one, below
        resolved = {}
    hints: Dict[str, Any] = {}
    for name, parameter in signature.parameters.items():
        annotation = parameter.annotation
        if name in resolved or annotation is inspect.Parameter.empty:
            hints[name] = resolved.get(name, Any)
            continue
        try:
            hints[name] = eval(annotation, namespace) if isinstance(annotation, str) else annotation
        except Exception:  # noqa: BLE001 - an annotation that cannot be resolved checks nothing
            hints[name] = Any
    return hints


def _bind(
    name: str, signature: inspect.Signature, args: Tuple[Any, ...], kwargs: Dict[str, Any]
) -> inspect.BoundArguments:
    """The call's arguments bound to the signature; an unknown keyword (with the nearest
    known one), a missing one or too many positional ones as SettingsError."""
    try:
        return signature.bind(*args, **kwargs)
    except TypeError as error:
        for keyword in kwargs:
            if keyword not in signature.parameters:
                _unknown(name, signature, keyword)
        missing = str(error).split("'")
        if "missing" in str(error) and len(missing) > 1:
            raise SettingsError(f"{missing[1]}=: {name}() needs it") from None
        raise SettingsError(f"{name}(): {error}") from None


def _unknown(name: str, signature: inspect.Signature, keyword: str) -> None:
    """SettingsError for a keyword ``name()`` does not take, with the nearest one it does."""
    known = [p for p in signature.parameters if p != "self"]
    near = difflib.get_close_matches(keyword, known, n=1)
    hint = f" (did you mean {near[0]}=?)" if near else ""
    raise SettingsError(
        f"{keyword}=: {name}() has no such keyword{hint}; it takes "
        + ", ".join(f"{k}=" for k in known)
    )
