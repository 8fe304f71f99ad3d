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
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _scalinglaws
from ._data import DataLike, call_with_data
from ._fit import dump
from ._keywords import checked
from ._results import Result

__all__ = [
]
