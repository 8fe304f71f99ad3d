# Stubs of the compiled module (crates/scalinglaws-py/src/lib.rs); checked by mypy.stubtest.
from typing import Any, Dict, List, Optional, Tuple

__all__ = [
    "DEFAULT_CELL_TOLERANCE",
    "DEFAULT_F_SCALE",
    "DEFAULT_LEVEL",
    "DEFAULT_TOLERANCE",
    "__version__",
    "caveat_lines",
    "check_fit",
    "fit_caveats",
    "fit_groups",
    "lab_editing",
    "lab_multi_index",
    "lab_nvfp4",
    "lab_recall",
    "lab_sgd",
    "lab_sgd_scaling",
    "laws",
    "plot_fit",
    "plot_isoflop",
    "plot_svg",
    "plot_tracks",
    "predict",
    "report",
    "report_html",
    "run_workflow",
    "threads_warning",
    "set_max_work",
]

DEFAULT_CELL_TOLERANCE: float
DEFAULT_F_SCALE: float
DEFAULT_LEVEL: float
DEFAULT_TOLERANCE: float
__version__: str

def laws() -> str: ...
def fit_groups(data: Dict[str, Any], request_json: str) -> Tuple[str, List[Optional[str]]]: ...
def check_fit(fit_json: str) -> str: ...
def fit_caveats(fit_json: str) -> str: ...
def caveat_lines(caveats_json: str) -> List[str]: ...
def threads_warning(requested: int) -> Optional[str]: ...
def set_max_work(seconds: Optional[float] = None) -> None: ...
def report(fit_json: str) -> str: ...
def report_html(
    fit_json: str, data_json: str, level: Optional[float] = None, command: str = ""
) -> str: ...
def predict(
    fit_json: str, variables: Dict[str, bytes], level: float, interval: Optional[str] = None
) -> Tuple[bytearray, Optional[bytearray]]: ...
# A workflow returns its document (JSON text), its text report and, for a fit, the data
# fitted as JSON: (document, report, data).
def run_workflow(input: Any, name: str, spec_json: str) -> Tuple[str, str, Optional[str]]: ...
def plot_fit(
    kind: str, fit_json: str, path: str, request_json: str, data_json: Optional[str] = None
) -> None: ...
def plot_svg(
    kind: str, fit_json: str, request_json: str, data_json: Optional[str] = None
) -> str: ...
def plot_isoflop(input: Any, request_json: str, path: Optional[str] = None) -> Optional[str]: ...
def plot_tracks(input: Any, spec_json: str, path: Optional[str] = None) -> Optional[str]: ...
def lab_nvfp4(
    *,
    dimensions: Optional[List[int]] = None,
    pairs: Optional[int] = None,
    correlation: Optional[float] = None,
    tensor_scale: Optional[bool] = None,
    seed: int = 0,
) -> str: ...
def lab_sgd(
    *,
    dimension: Optional[int] = None,
    a: Optional[float] = None,
    b: Optional[float] = None,
    noise: Optional[float] = None,
    batch: Optional[int] = None,
    lr: Optional[float] = None,
    steps: Optional[int] = None,
    per_decade: Optional[int] = None,
    seeds: Optional[int] = None,
    optimizer: Optional[List[str]] = None,
    seed: int = 0,
) -> str: ...
def lab_sgd_scaling(
    *,
    a: Optional[float] = None,
    b: Optional[float] = None,
    dimension: Optional[int] = None,
    horizons: Optional[List[int]] = None,
    decay: Optional[float] = None,
    seeds: Optional[int] = None,
    seed: int = 0,
) -> str: ...
def lab_editing(
    *,
    rows: Optional[int] = None,
    cols: Optional[int] = None,
    edits: Optional[int] = None,
    feedback: Optional[float] = None,
    tolerance: Optional[float] = None,
    threshold: Optional[float] = None,
    seeds: Optional[int] = None,
    seed: int = 0,
) -> str: ...
def lab_multi_index(
    *,
    dimensions: Optional[List[int]] = None,
    kappas: Optional[List[float]] = None,
    directions: Optional[int] = None,
    strength_exponent: Optional[float] = None,
    noise: Optional[float] = None,
    seeds: Optional[int] = None,
    seed: int = 0,
) -> str: ...
def lab_recall(
    *,
    state_sizes: Optional[List[int]] = None,
    embedding: Optional[int] = None,
    context: Optional[int] = None,
    trials: Optional[int] = None,
    delta: Optional[float] = None,
    max_vocab: Optional[int] = None,
    seed: int = 0,
) -> str: ...
