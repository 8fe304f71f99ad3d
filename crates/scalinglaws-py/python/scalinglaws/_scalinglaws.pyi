# Stubs of the compiled module (crates/scalinglaws-py/src/lib.rs); checked by mypy.stubtest.
from typing import Any, Dict, List, Optional, Tuple

__all__ = [
    "__version__",
    "backtest",
    "check_fit",
    "compare",
    "design",
    "fit",
    "fit_groups",
    "isoflop",
    "downstream",
    "laws",
    "lr",
    "optimal",
    "plot_fit",
    "plot_svg",
    "predict",
    "report",
    "report_html",
    "schedule_fit",
    "schedule_optimize",
    "schedule_predict",
    "select",
    "threads_warning",
]
__version__: str

def laws() -> str: ...
def fit(data: Dict[str, Any], request_json: str) -> Tuple[str, str]: ...
def fit_groups(data: Dict[str, Any], request_json: str) -> Tuple[str, List[Optional[str]]]: ...
def check_fit(fit_json: str) -> str: ...
def threads_warning(requested: int) -> Optional[str]: ...
def report(fit_json: str) -> str: ...
def report_html(
    fit_json: str, data_json: str, level: Optional[float] = None, command: str = ""
) -> str: ...
def predict(
    fit_json: str, variables: Dict[str, List[float]], level: float
) -> Tuple[
    List[float],
    Optional[List[Tuple[float, float]]],
    Optional[List[Tuple[float, float]]],
    str,
]: ...
def optimal(
    request_json: str,
    fit_json: Optional[str] = None,
    law: Optional[str] = None,
    params: Optional[Dict[str, float]] = None,
) -> str: ...
def isoflop(data: Dict[str, Any], request_json: str) -> str: ...
def downstream(data: Dict[str, Any], request_json: str) -> str: ...
def design(data: Optional[Dict[str, Any]], request_json: str) -> Tuple[str, List[str]]: ...
def lr(data: Dict[str, Any], request_json: str) -> str: ...
def compare(data: Dict[str, Any], request_json: str) -> str: ...
def backtest(data: Dict[str, Any], request_json: str) -> str: ...
def select(data: Dict[str, Any], request_json: str) -> str: ...
def plot_fit(
    kind: str, fit_json: str, path: str, request_json: str, data_json: Optional[str] = None
) -> None: ...
def plot_svg(
    kind: str, fit_json: str, request_json: str, data_json: Optional[str] = None
) -> str: ...
def schedule_fit(data: Dict[str, Any], request_json: str) -> str: ...
def schedule_predict(fit_json: str, schedule: str, every: int) -> str: ...
def schedule_optimize(
    fit_json: str,
    steps: int,
    peak: float,
    warmup: Optional[int] = None,
    floor: Optional[float] = None,
    max_iterations: int = 400,
) -> Tuple[str, List[float]]: ...
